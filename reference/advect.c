/* advect.c — move the particles with their own velocity for one substep.
 * flipkit reference/: the answer key; `make stubs` makes the student's file from it.
 * The contract — the math, the indexing, the boundary rules — is in common/stages.h. */
#include "stages.h"

void advect(Particles *ps, float dt)
{
    // BEGIN SOLUTION
    for (size_t p = 0; p < ps->count; p++) {
        ps->pos[p].x += dt * ps->vel[p].x;
        ps->pos[p].y += dt * ps->vel[p].y;
        ps->pos[p].z += dt * ps->vel[p].z;
    }
    // STUB: (void)ps;
    // STUB: (void)dt;
    // END SOLUTION
}
