/* divergence.c — the net outflow per second of every FLUID cell; solid faces count as 0.
 * flipkit reference/: the answer key; `make stubs` makes the student's file from it.
 * The contract — the math, the indexing, the boundary rules — is in common/stages.h. */
#include <string.h>

#include "stages.h"

// BEGIN SOLUTION
/* The velocity through face (a; i,j,k) as the fluid sees it: a solid face carries 0. */
static float divergence_face(const MacGrid *g, int a, int i, int j, int k)
{
    if (grid_face_is_solid(g, a, i, j, k))
        return 0.0f;
    return g->vel[a][grid_face_index(g, a, i, j, k)];
}
// END SOLUTION

void divergence(const MacGrid *g, float *div)
{
    // BEGIN SOLUTION
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                size_t c = grid_cell_index(g, i, j, k);
                if (g->cell[c] != CELL_FLUID) {
                    div[c] = 0.0f;
                    continue;
                }
                float out = divergence_face(g, 0, i + 1, j, k) - divergence_face(g, 0, i, j, k) +
                            divergence_face(g, 1, i, j + 1, k) - divergence_face(g, 1, i, j, k) +
                            divergence_face(g, 2, i, j, k + 1) - divergence_face(g, 2, i, j, k);
                div[c] = out / g->dx;
            }
    // STUB: memset(div, 0, grid_cells(g) * sizeof *div);
    // END SOLUTION
}
