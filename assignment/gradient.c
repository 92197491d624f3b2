/* gradient.c — projection: subtract (dt/rho) grad p from the face velocities.
 * flipkit assignment/: yours to write; replace the TODO block (`make test-gradient` checks it).
 * The contract is in common/stages.h; handout/stages/gradient.md explains it. */
#include "stages.h"

void gradient(MacGrid *g, const float *p, float scale)
{
    /* TODO(gradient): write this stage here. Until you do, the lines below keep its
       outputs in the "not done" state that stages.h describes (delete them). */
    (void)g;
    (void)p;
    (void)scale;
}
