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

/* A solve's workspace: b = -dx^2 rhs, the iterate x and residual r in double, r in float and
 * the correction d the sweeps make. */
typedef struct {
    Multigrid *mg;
    size_t n;
    float *b, *rf, *d;
    double *x, *r;
} Relax;

static void relax_free(Relax *w)
{
    free(w->b);
    free(w->rf);
    free(w->d);
    free(w->x);
    free(w->r);
    mg_free(w->mg);
}

static int relax_alloc(Relax *w, const MacGrid *g)
{
    size_t n = grid_cells(g);
    *w = (Relax){ .mg = mg_create(g), .n = n };
    w->b = malloc(n * sizeof *w->b);
    w->rf = malloc(n * sizeof *w->rf);
    w->d = malloc(n * sizeof *w->d);
    w->x = malloc(n * sizeof *w->x);
    w->r = malloc(n * sizeof *w->r);
    return w->mg && w->b && w->rf && w->d && w->x && w->r ? 0 : -1;
}

/* `sweeps` sweeps of A d = r from d = 0 in float, then x += d in double. */
static void relax_correct(Relax *w, int sweeps, float omega)
{
    for (size_t c = 0; c < w->n; c++) {
        w->rf[c] = (float)w->r[c];
        w->d[c] = 0.0f;
    }
    for (int q = 0; q < sweeps; q++)
        mg_sor_sweep(w->mg, w->rf, w->d, omega);
    for (size_t c = 0; c < w->n; c++)
        w->x[c] += w->d[c];
}

/* Sweeps in correction form: RELAX_CHECK_EVERY sweeps of A d = r from d = 0 in float, then
 * x += d in double and a fresh residual. For a stationary method that is the same iteration as
 * sweeping x itself, but the iterate keeps the precision float32 would lose (see pcg.c).
 * Without memory for its workspace it says so (status RUN_OUT_OF_MEMORY) and leaves p as it came. */
static SolveResult relax_solve(const MacGrid *g, const float *rhs, float *p,
                               const PressureSettings *set, SolveHistory *history, float omega)
{
    SolveResult res = { .residual = INFINITY };
    Relax w;
    if (relax_alloc(&w, g) != 0) {
        relax_free(&w);
        res.status = RUN_OUT_OF_MEMORY;
        return res;
    }
    float dx2 = g->dx * g->dx;
    for (size_t c = 0; c < w.n; c++) {
        w.b[c] = g->cell[c] == CELL_FLUID ? -dx2 * rhs[c] : 0.0f;
        w.x[c] = g->cell[c] == CELL_FLUID ? p[c] : 0.0;
    }
    double bnorm = relax_norm(w.b, w.n);
    /* The convergence lab's history wants every sweep's residual: one sweep per correction. */
    int every = history ? 1 : RELAX_CHECK_EVERY;
    for (;;) {
        double rnorm = mg_residual_double(w.mg, w.b, w.x, w.r);
        res.residual = bnorm > 0.0 ? rnorm / bnorm : 0.0;
        track_record_residual(history, res.iterations, res.residual);
        if (res.residual <= set->tolerance || res.iterations >= set->iterations ||
            !isfinite(res.residual))
            break;
        int sweeps = set->iterations - res.iterations;
        sweeps = sweeps < every ? sweeps : every;
        relax_correct(&w, sweeps, omega);
        res.iterations += sweeps;
    }
    for (size_t c = 0; c < w.n; c++)
        p[c] = (float)w.x[c];
    res.converged = res.residual <= set->tolerance;
    relax_free(&w);
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
