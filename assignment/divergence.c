/* divergence.c — the net outflow per second of every FLUID cell; solid faces count as 0.
 * flipkit assignment/: yours to write; replace the TODO block (`make test-divergence` checks it).
 * The contract is in common/stages.h; handout/stages/divergence.md explains it. */
#include <string.h>

#include "stages.h"

/* Helper functions of your own, if you want any, go here: static, named for what they do. */

void divergence(const MacGrid *g, float *div)
{
    /* TODO(divergence): write this stage here. Until you do, the lines below keep its
       outputs in the "not done" state that stages.h describes (delete them). */
    memset(div, 0, grid_cells(g) * sizeof *div);
}
