/* jacobi.c — an independent rewrite of the jacobi stage, written for make check-class.
 * flipkit tests/class/: correct, but structured otherwise than reference/jacobi.c (a helper that
 * visits one neighbour, no table of offsets), so the similarity check must not flag it. */
#include "stages.h"

/* A neighbour of a FLUID cell: it counts unless SOLID, and adds its pressure when FLUID. */
static void visit(const MacGrid *g, const float *p, int i, int j, int k, float *sum, int *count)
{
    int type = grid_cell_type(g, i, j, k);
    if (type == CELL_SOLID)
        return;
    *count += 1;
    if (type == CELL_FLUID)
        *sum += p[grid_cell_index(g, i, j, k)];
}

void jacobi(const MacGrid *g, const float *p, const float *rhs, float omega, float *p_out)
{
    const float h2 = g->dx * g->dx;
    size_t c = 0;
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++, c++) {
                if (g->cell[c] != CELL_FLUID) {
                    p_out[c] = 0.0f;
                    continue;
                }
                float sum = 0.0f;
                int count = 0;
                visit(g, p, i - 1, j, k, &sum, &count);
                visit(g, p, i + 1, j, k, &sum, &count);
                visit(g, p, i, j - 1, k, &sum, &count);
                visit(g, p, i, j + 1, k, &sum, &count);
                visit(g, p, i, j, k - 1, &sum, &count);
                visit(g, p, i, j, k + 1, &sum, &count);
                p_out[c] = count == 0 ? 0.0f
                                      : (1.0f - omega) * p[c] + omega * (sum - h2 * rhs[c]) / (float)count;
            }
}
