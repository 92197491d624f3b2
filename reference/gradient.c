/* gradient.c — projection: subtract (dt/rho) grad p from the face velocities.
 * flipkit reference/: the answer key; `make stubs` makes the student's file from it.
 * The contract — the math, the indexing, the boundary rules — is in common/stages.h. */
#include "stages.h"

void gradient(MacGrid *g, const float *p, float scale)
{
    // BEGIN SOLUTION
    for (int a = 0; a < 3; a++) {
        const int *n = g->face[a].n;
        for (int k = 0; k < n[2]; k++)
            for (int j = 0; j < n[1]; j++)
                for (int i = 0; i < n[0]; i++) {
                    size_t f = grid_face_index(g, a, i, j, k);
                    int lo = grid_face_below(g, a, i, j, k), hi = grid_face_above(g, a, i, j, k);
                    if (lo == CELL_SOLID || hi == CELL_SOLID) {
                        g->vel[a][f] = 0.0f; /* solids do not move: no flow through them */
                        continue;
                    }
                    if (lo != CELL_FLUID && hi != CELL_FLUID)
                        continue; /* air on both sides: extrapolated later */
                    /* Both cells exist here (neither is the outside, which counts as SOLID). */
                    size_t c_hi = grid_cell_index(g, i, j, k);
                    size_t c_lo = grid_cell_index(g, i - (a == 0), j - (a == 1), k - (a == 2));
                    g->vel[a][f] -= scale * (p[c_hi] - p[c_lo]) / g->dx;
                }
    }
    // STUB: (void)g;
    // STUB: (void)p;
    // STUB: (void)scale;
    // END SOLUTION
}
