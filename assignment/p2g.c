/* p2g.c — particle to grid: each face velocity is the tent-weighted average of the particles.
 * flipkit assignment/: yours to write; replace the TODO block (`make test-p2g` checks it).
 * The contract is in common/stages.h; handout/stages/p2g.md explains it. */
#include <math.h>
#include <string.h>

#include "stages.h"

/* Helper functions of your own, if you want any, go here: static, named for what they do. */

void p2g(const Particles *ps, MacGrid *g)
{
    /* TODO(p2g): write this stage here. Until you do, the lines below keep its
       outputs in the "not done" state that stages.h describes (delete them). */
    for (int a = 0; a < 3; a++) {
        memset(g->vel[a], 0, grid_faces(g, a) * sizeof(float));
        memset(g->weight[a], 0, grid_faces(g, a) * sizeof(float));
    }
    (void)ps;
}
