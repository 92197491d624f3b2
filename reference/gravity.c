/* gravity.c — the body force: every non-solid face velocity gains dt * g.
 * flipkit reference/: the answer key; `make stubs` makes the student's file from it.
 * The contract — the math, the indexing, the boundary rules — is in common/stages.h. */
#include "stages.h"

void gravity(MacGrid *g, Vec3 gravity_ms2, float dt)
{
    // BEGIN SOLUTION
    for (int a = 0; a < 3; a++) {
        const int *n = g->face[a].n;
        float dv = dt * vec3_get(gravity_ms2, a);
        for (int k = 0; k < n[2]; k++)
            for (int j = 0; j < n[1]; j++)
                for (int i = 0; i < n[0]; i++)
                    if (!grid_face_is_solid(g, a, i, j, k))
                        g->vel[a][grid_face_index(g, a, i, j, k)] += dv;
    }
    // STUB: (void)g;
    // STUB: (void)gravity_ms2;
    // STUB: (void)dt;
    // END SOLUTION
}
