/* relax.c — red-black Gauss-Seidel and SOR pressure solvers ("gauss_seidel", "sor").
 * flipkit reference/: the colouring makes each half-sweep order-free, so the OpenCL kernels
 * can do the same arithmetic in parallel; the given solver in common/ is lexicographic. */
#include <math.h>
#include <stdlib.h>

#include "multigrid.h"

enum { RELAX_CHECK_EVERY = 10 };

static double relax_norm(const float *v, size_t n)
{
    double s = 0.0;
    for (size_t c = 0; c < n; c++)
        s += (double)v[c] * v[c];
    return sqrt(s);
}

/* Sweeps in correction form: RELAX_CHECK_EVERY sweeps of A d = r from d = 0 in float, then
 * x += d in double and a fresh residual. For a stationary method that is the same iteration as
 * sweeping x itself, but the iterate keeps the precision float32 would lose (see pcg.c).
 * Without memory for its workspace it says so (out_of_memory) and leaves p as it came. */
static SolveResult relax_solve(const MacGrid *g, const float *rhs, float *p,
                               const PressureSettings *set, SolveHistory *history, float omega)
{
    SolveResult res = { .residual = INFINITY };
    size_t n = grid_cells(g);
    Multigrid *mg = mg_create(g);
    float *b = malloc(n * sizeof *b), *rf = malloc(n * sizeof *rf), *d = malloc(n * sizeof *d);
    double *x = malloc(n * sizeof *x), *r = malloc(n * sizeof *r);
    if (mg && b && rf && d && x && r) {
        float dx2 = g->dx * g->dx;
        for (size_t c = 0; c < n; c++) {
            b[c] = g->cell[c] == CELL_FLUID ? -dx2 * rhs[c] : 0.0f;
            x[c] = g->cell[c] == CELL_FLUID ? p[c] : 0.0;
        }
        double bnorm = relax_norm(b, n);
        /* The convergence lab's history wants every sweep's residual: one sweep per correction. */
        int every = history ? 1 : RELAX_CHECK_EVERY;
        for (;;) {
            double rnorm = mg_residual_double(mg, b, x, r);
            res.residual = bnorm > 0.0 ? rnorm / bnorm : 0.0;
            track_record_residual(history, res.iterations, res.residual);
            if (res.residual <= set->tolerance || res.iterations >= set->iterations ||
                !isfinite(res.residual))
                break;
            int sweeps = set->iterations - res.iterations;
            sweeps = sweeps < every ? sweeps : every;
            for (size_t c = 0; c < n; c++) {
                rf[c] = (float)r[c];
                d[c] = 0.0f;
            }
            for (int q = 0; q < sweeps; q++)
                mg_sor_sweep(mg, rf, d, omega);
            for (size_t c = 0; c < n; c++)
                x[c] += d[c];
            res.iterations += sweeps;
        }
        for (size_t c = 0; c < n; c++)
            p[c] = (float)x[c];
        res.converged = res.residual <= set->tolerance;
    } else
        res.out_of_memory = true;
    free(b);
    free(rf);
    free(d);
    free(x);
    free(r);
    mg_free(mg);
    return res;
}

SolveResult ref_solve_gauss_seidel(const MacGrid *g, const float *rhs, float *p,
                                   const PressureSettings *set, SolveHistory *history)
{
    return relax_solve(g, rhs, p, set, history, 1.0f);
}

SolveResult ref_solve_sor(const MacGrid *g, const float *rhs, float *p, const PressureSettings *set,
                          SolveHistory *history)
{
    return relax_solve(g, rhs, p, set, history, set->sor_omega);
}
