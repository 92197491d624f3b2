/* advect.c — move the particles with their own velocity for one substep.
 * flipkit assignment/: yours to write; replace the TODO block (`make test-advect` checks it).
 * The contract is in common/stages.h; handout/stages/advect.md explains it. */
#include "stages.h"

void advect(Particles *ps, float dt)
{
    /* TODO(advect): write this stage here. Until you do, the lines below keep its
       outputs in the "not done" state that stages.h describes (delete them). */
    (void)ps;
    (void)dt;
}
