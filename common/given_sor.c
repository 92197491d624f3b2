/* given_sor.c — the given Gauss-Seidel/SOR pressure solve (given.h).
 * flipkit common/: a file, and so an archive member, of its own: the grader links a run that
 * grades a student's jacobi without it, so that no stage can hand the solve to it. */
#include "given.h"

#include <math.h>

/* Sum of FLUID neighbours' pressure and the count N of non-SOLID neighbours of cell c: the
 * given solve's one neighbour walk, for its sweep and its residual. The reference's solvers
 * count with mg_nonsolid_neighbours (reference/multigrid.h); this file keeps its own because
 * it ships to students, and may ship compiled (handout.given_objects), so no stage can call a
 * count of common/'s in place of its own (grader/README.md, "What a stage can call"). */
static void given_neighbours(const MacGrid *g, const float *p, int i, int j, int k,
                             float *sum, int *count)
{
    static const int nb[6][3] = { { -1, 0, 0 }, { 1, 0, 0 }, { 0, -1, 0 },
                                  { 0, 1, 0 },  { 0, 0, -1 }, { 0, 0, 1 } };
    *sum = 0.0f;
    *count = 0;
    for (int q = 0; q < 6; q++) {
        int t = grid_cell_type(g, i + nb[q][0], j + nb[q][1], k + nb[q][2]);
        if (t == CELL_SOLID)
            continue;
        (*count)++;
        if (t == CELL_FLUID)
            *sum += p[grid_cell_index(g, i + nb[q][0], j + nb[q][1], k + nb[q][2])];
    }
}

/* |rhs - L p| / |rhs| over FLUID cells, in double. */
static double given_relative_residual(const MacGrid *g, const float *rhs, const float *p)
{
    double r2 = 0.0, b2 = 0.0, inv_dx2 = 1.0 / ((double)g->dx * g->dx);
    for (int k = 1; k < g->nz - 1; k++)
        for (int j = 1; j < g->ny - 1; j++)
            for (int i = 1; i < g->nx - 1; i++) {
                size_t c = grid_cell_index(g, i, j, k);
                if (g->cell[c] != CELL_FLUID)
                    continue;
                float sum;
                int count;
                given_neighbours(g, p, i, j, k, &sum, &count);
                double r = rhs[c] - (sum - (double)count * p[c]) * inv_dx2;
                r2 += r * r;
                b2 += (double)rhs[c] * rhs[c];
            }
    return b2 > 0.0 ? sqrt(r2 / b2) : 0.0;
}

static void given_sor_sweep(const MacGrid *g, const float *rhs, float *p, float omega)
{
    float dx2 = g->dx * g->dx;
    for (int k = 1; k < g->nz - 1; k++)
        for (int j = 1; j < g->ny - 1; j++)
            for (int i = 1; i < g->nx - 1; i++) {
                size_t c = grid_cell_index(g, i, j, k);
                if (g->cell[c] != CELL_FLUID)
                    continue;
                float sum;
                int count;
                given_neighbours(g, p, i, j, k, &sum, &count);
                float gs = count > 0 ? (sum - dx2 * rhs[c]) / (float)count : 0.0f;
                p[c] = (1.0f - omega) * p[c] + omega * gs;
            }
}

SolveResult given_solve_sor(const MacGrid *g, const float *rhs, float *p,
                            const PressureSettings *settings, float omega,
                            SolveHistory *history)
{
    int every = track_check_every(history, TRACK_CHECK_EVERY_GIVEN);
    SolveResult res = { .residual = given_relative_residual(g, rhs, p) };
    res.converged = res.residual <= settings->tolerance;
    track_record_residual(history, 0, res.residual);
    while (!res.converged && res.iterations < settings->iterations) {
        given_sor_sweep(g, rhs, p, omega);
        res.iterations++;
        if (res.iterations % every == 0 || res.iterations == settings->iterations) {
            res.residual = given_relative_residual(g, rhs, p);
            res.converged = res.residual <= settings->tolerance;
            track_record_residual(history, res.iterations, res.residual);
        }
    }
    return res;
}
