/* jacobi.c — one weighted Jacobi sweep for the pressure equation L p = rhs.
 * flipkit reference/: the answer key; `make stubs` makes the student's file from it.
 * The contract — the math, the indexing, the boundary rules — is in common/stages.h. */
#include <string.h>

#include "stages.h"

void jacobi(const MacGrid *g, const float *p, const float *rhs, float omega, float *p_out)
{
    // BEGIN SOLUTION
    static const int nb[6][3] = { { -1, 0, 0 }, { 1, 0, 0 }, { 0, -1, 0 },
                                  { 0, 1, 0 },  { 0, 0, -1 }, { 0, 0, 1 } };
    float dx2 = g->dx * g->dx;
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                size_t c = grid_cell_index(g, i, j, k);
                p_out[c] = 0.0f;
                if (g->cell[c] != CELL_FLUID)
                    continue;
                float sum = 0.0f;
                int count = 0;
                for (int q = 0; q < 6; q++) {
                    int ni = i + nb[q][0], nj = j + nb[q][1], nk = k + nb[q][2];
                    int t = grid_cell_type(g, ni, nj, nk);
                    if (t != CELL_SOLID)
                        count++;
                    if (t == CELL_FLUID)
                        sum += p[grid_cell_index(g, ni, nj, nk)];
                }
                if (count > 0)
                    p_out[c] = (1.0f - omega) * p[c] + omega * (sum - dx2 * rhs[c]) / (float)count;
            }
    // STUB: memcpy(p_out, p, grid_cells(g) * sizeof *p_out);
    // STUB: (void)rhs;
    // STUB: (void)omega;
    // END SOLUTION
}
