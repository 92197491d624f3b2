/* g2p.c — grid to particle: each particle's velocity from the grid, PIC and FLIP blended.
 * flipkit assignment/: yours to write; replace the TODO block (`make test-g2p` checks it).
 * The contract is in common/stages.h; handout/stages/g2p.md explains it. */
#include <math.h>

#include "stages.h"

/* Helper functions of your own, if you want any, go here: static, named for what they do. */

void g2p(Particles *ps, const MacGrid *g, float *const vel_old[3], float alpha)
{
    /* TODO(g2p): write this stage here. Until you do, the lines below keep its
       outputs in the "not done" state that stages.h describes (delete them). */
    (void)ps;
    (void)g;
    (void)vel_old;
    (void)alpha;
}
