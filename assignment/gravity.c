/* gravity.c — the body force: every non-solid face velocity gains dt * g.
 * flipkit assignment/: yours to write; replace the TODO block (`make test-gravity` checks it).
 * The contract is in common/stages.h; handout/stages/gravity.md explains it. */
#include "stages.h"

void gravity(MacGrid *g, Vec3 gravity_ms2, float dt)
{
    /* TODO(gravity): write this stage here. Until you do, the lines below keep its
       outputs in the "not done" state that stages.h describes (delete them). */
    (void)g;
    (void)gravity_ms2;
    (void)dt;
}
