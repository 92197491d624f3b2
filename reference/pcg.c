/* pcg.c — preconditioned conjugate gradients: MIC(0) ("pcg") or a multigrid V-cycle ("mgpcg").
 * flipkit reference/: solves A p = -dx^2 rhs, where A = -dx^2 L is symmetric positive
 * definite (N on the diagonal, -1 to each FLUID neighbour). The iterate and the residual are
 * double: with p in float32 the relative residual of a deep tank stalls near 1e-6 (measured on
 * dam_break: 1.8e-6 after 4 restarts), so the tolerance could not be met. The rest is float. */
#include "multigrid.h"
#include "reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const MacGrid *g;
    size_t n;
    float *diag;        /* N: non-solid neighbours */
    float *plus[3];     /* -1 when the cell and its +x/+y/+z neighbour are both FLUID, else 0 */
    float *precon;      /* MIC(0) factor, 1/sqrt(e) */
    float *z, *s, *t, *q, *rf; /* q: MIC scratch; rf: the residual rounded for the preconditioner */
    float *b;           /* the right-hand side, -dx^2 rhs */
    double *x, *r;      /* the iterate and its residual */
    Multigrid *mg;      /* when set, the preconditioner is a V-cycle instead of MIC(0) */
} Pcg;

static const size_t *pcg_strides(const MacGrid *g)
{
    static size_t st[3];
    st[0] = 1;
    st[1] = (size_t)g->nx;
    st[2] = (size_t)g->nx * g->ny;
    return st;
}

static int pcg_alloc(Pcg *m, const MacGrid *g)
{
    *m = (Pcg){ .g = g, .n = grid_cells(g), .mg = NULL };
    float **arrays[] = { &m->diag, &m->plus[0], &m->plus[1], &m->plus[2], &m->precon,
                         &m->z, &m->s, &m->t, &m->q, &m->rf, &m->b };
    for (size_t q = 0; q < sizeof arrays / sizeof *arrays; q++)
        if (!(*arrays[q] = calloc(m->n, sizeof(float))))
            return -1;
    m->x = calloc(m->n, sizeof(double));
    m->r = calloc(m->n, sizeof(double));
    return m->x && m->r ? 0 : -1;
}

static void pcg_free(Pcg *m)
{
    mg_free(m->mg);
    float *arrays[] = { m->diag, m->plus[0], m->plus[1], m->plus[2], m->precon,
                        m->z, m->s, m->t, m->q, m->rf, m->b };
    for (size_t q = 0; q < sizeof arrays / sizeof *arrays; q++)
        free(arrays[q]);
    free(m->x);
    free(m->r);
}

static void pcg_build_matrix(Pcg *m)
{
    const MacGrid *g = m->g;
    for (int k = 1; k < g->nz - 1; k++)
        for (int j = 1; j < g->ny - 1; j++)
            for (int i = 1; i < g->nx - 1; i++) {
                size_t c = grid_cell_index(g, i, j, k);
                if (g->cell[c] != CELL_FLUID)
                    continue;
                for (int d = 0; d < 3; d++) {
                    int e[3] = { d == 0, d == 1, d == 2 };
                    int hi = grid_cell_type(g, i + e[0], j + e[1], k + e[2]);
                    m->plus[d][c] = hi == CELL_FLUID ? -1.0f : 0.0f;
                }
                m->diag[c] = (float)mg_nonsolid_neighbours(g->cell, g->nx, g->ny, g->nz, i, j, k);
            }
}

/* MIC(0) with tau = 0.97 and the safety factor sigma = 0.25 (Bridson, 2nd ed., fig. 5.7). */
static void pcg_build_preconditioner(Pcg *m)
{
    const MacGrid *g = m->g;
    const size_t *st = pcg_strides(g);
    const double tau = 0.97, sigma = 0.25;
    for (int k = 1; k < g->nz - 1; k++)
        for (int j = 1; j < g->ny - 1; j++)
            for (int i = 1; i < g->nx - 1; i++) {
                size_t c = grid_cell_index(g, i, j, k);
                if (g->cell[c] != CELL_FLUID)
                    continue;
                double e = m->diag[c];
                for (int d = 0; d < 3; d++) {
                    size_t b = c - st[d];
                    double pb = m->precon[b], ab = m->plus[d][b];
                    double others = m->plus[(d + 1) % 3][b] + m->plus[(d + 2) % 3][b];
                    e -= (ab * pb) * (ab * pb) + tau * ab * others * pb * pb;
                }
                if (e < sigma * m->diag[c])
                    e = m->diag[c];
                m->precon[c] = e > 0.0 ? (float)(1.0 / sqrt(e)) : 0.0f;
            }
}

/* z = M^-1 r: a forward then a backward triangular solve with the MIC(0) factor, or one
 * multigrid V-cycle. */
static void pcg_apply_preconditioner(Pcg *m, const float *r, float *z)
{
    if (m->mg) {
        mg_vcycle(m->mg, r, z);
        return;
    }
    const MacGrid *g = m->g;
    const size_t *st = pcg_strides(g);
    float *q = m->q; /* scratch: the forward result */
    for (int k = 1; k < g->nz - 1; k++)
        for (int j = 1; j < g->ny - 1; j++)
            for (int i = 1; i < g->nx - 1; i++) {
                size_t c = grid_cell_index(g, i, j, k);
                if (g->cell[c] != CELL_FLUID) {
                    q[c] = 0.0f;
                    continue;
                }
                double v = r[c];
                for (int d = 0; d < 3; d++) {
                    size_t b = c - st[d];
                    v -= (double)m->plus[d][b] * m->precon[b] * q[b];
                }
                q[c] = (float)(v * m->precon[c]);
            }
    for (int k = g->nz - 2; k >= 1; k--)
        for (int j = g->ny - 2; j >= 1; j--)
            for (int i = g->nx - 2; i >= 1; i--) {
                size_t c = grid_cell_index(g, i, j, k);
                if (g->cell[c] != CELL_FLUID) {
                    z[c] = 0.0f;
                    continue;
                }
                double v = q[c];
                for (int d = 0; d < 3; d++)
                    v -= (double)m->plus[d][c] * m->precon[c] * z[c + st[d]];
                z[c] = (float)(v * m->precon[c]);
            }
}

/* out = A x over FLUID cells. */
static void pcg_apply_matrix(const Pcg *m, const float *x, float *out)
{
    const MacGrid *g = m->g;
    const size_t *st = pcg_strides(g);
    for (int k = 1; k < g->nz - 1; k++)
        for (int j = 1; j < g->ny - 1; j++)
            for (int i = 1; i < g->nx - 1; i++) {
                size_t c = grid_cell_index(g, i, j, k);
                if (g->cell[c] != CELL_FLUID) {
                    out[c] = 0.0f;
                    continue;
                }
                double v = (double)m->diag[c] * x[c];
                for (int d = 0; d < 3; d++)
                    v += (double)m->plus[d][c] * x[c + st[d]] +
                         (double)m->plus[d][c - st[d]] * x[c - st[d]];
                out[c] = (float)v;
            }
}

static double pcg_dot(const Pcg *m, const float *a, const double *b)
{
    double sum = 0.0;
    for (size_t c = 0; c < m->n; c++)
        sum += (double)a[c] * b[c];
    return sum;
}

static double pcg_dot_float(const Pcg *m, const float *a, const float *b)
{
    double sum = 0.0;
    for (size_t c = 0; c < m->n; c++)
        sum += (double)a[c] * b[c];
    return sum;
}

static double pcg_norm(const Pcg *m, const double *v)
{
    double sum = 0.0;
    for (size_t c = 0; c < m->n; c++)
        sum += v[c] * v[c];
    return sqrt(sum);
}

/* |b - A x| in double, recomputed from x; stores b - A x in r unless r is NULL (the
 * convergence lab only wants the norm, and m->r must keep the recurrence's residual). */
static double pcg_residual(const Pcg *m, const float *b, double *r)
{
    const MacGrid *g = m->g;
    const size_t *st = pcg_strides(g);
    const double *x = m->x;
    double sum2 = 0.0;
    for (int k = 1; k < g->nz - 1; k++)
        for (int j = 1; j < g->ny - 1; j++)
            for (int i = 1; i < g->nx - 1; i++) {
                size_t c = grid_cell_index(g, i, j, k);
                if (g->cell[c] != CELL_FLUID)
                    continue;
                double v = (double)m->diag[c] * x[c];
                for (int d = 0; d < 3; d++)
                    v += (double)m->plus[d][c] * x[c + st[d]] +
                         (double)m->plus[d][c - st[d]] * x[c - st[d]];
                double rc = b[c] - v;
                if (r)
                    r[c] = rc;
                sum2 += rc * rc;
            }
    return sqrt(sum2);
}

/* r = b - A x, recomputed from x; returns |r|. */
static double pcg_true_residual(Pcg *m, const float *b)
{
    return pcg_residual(m, b, m->r);
}

static void pcg_precondition(Pcg *m)
{
    for (size_t c = 0; c < m->n; c++)
        m->rf[c] = (float)m->r[c];
    pcg_apply_preconditioner(m, m->rf, m->z);
}

/* Conjugate gradients from the residual in m->r, until the recurrence says converged or the
 * iterations run out. */
static void pcg_run(Pcg *m, double bnorm, const PressureSettings *set, SolveHistory *history,
                    SolveResult *res)
{
    pcg_precondition(m);
    memcpy(m->s, m->z, m->n * sizeof(float));
    double sigma = pcg_dot(m, m->z, m->r);
    while (res->iterations < set->iterations) {
        pcg_apply_matrix(m, m->s, m->t);
        double st = pcg_dot_float(m, m->s, m->t);
        if (!(st > 0.0))
            return; /* breakdown: nothing left to reduce in this direction */
        double alpha = sigma / st;
        for (size_t c = 0; c < m->n; c++) {
            m->x[c] += alpha * m->s[c];
            m->r[c] -= alpha * m->t[c];
        }
        res->iterations++;
        res->residual = pcg_norm(m, m->r) / bnorm;
        /* The lab plots the true residual: the recurrence's drifts from it (see pcg_solve). */
        if (history)
            track_record_residual(history, res->iterations, pcg_residual(m, m->b, NULL) / bnorm);
        if (res->residual <= set->tolerance)
            return;
        pcg_precondition(m);
        double sigma_new = pcg_dot(m, m->z, m->r);
        double beta = sigma_new / sigma;
        sigma = sigma_new;
        for (size_t c = 0; c < m->n; c++)
            m->s[c] = m->z[c] + (float)(beta * m->s[c]);
    }
}

/* The recurrence residual drifts from the true one (s and t are float), so convergence is
 * confirmed on b - A x and CG restarts from it when short. */
static void pcg_solve(Pcg *m, const float *b, double bnorm, const PressureSettings *set,
                      SolveHistory *history, SolveResult *res)
{
    enum { MAX_RESTARTS = 4 };
    res->residual = pcg_true_residual(m, b) / bnorm;
    track_record_residual(history, 0, res->residual);
    for (int restart = 0; restart <= MAX_RESTARTS; restart++) {
        if (res->residual <= set->tolerance || res->iterations >= set->iterations)
            return;
        pcg_run(m, bnorm, set, history, res);
        res->residual = pcg_true_residual(m, b) / bnorm;
    }
}

static SolveResult pcg_solve_with(const MacGrid *g, const float *rhs, float *p,
                                  const PressureSettings *set, SolveHistory *history,
                                  bool multigrid)
{
    SolveResult res = { 0 };
    Pcg m;
    if (pcg_alloc(&m, g) != 0 || (multigrid && !(m.mg = mg_create(g)))) {
        pcg_free(&m);
        res.residual = INFINITY;
        res.status = RUN_OUT_OF_MEMORY;
        return res;
    }
    pcg_build_matrix(&m);
    if (!multigrid)
        pcg_build_preconditioner(&m);
    /* b = -dx^2 rhs; p holds the warm start from the last substep. */
    float dx2 = g->dx * g->dx, *b = m.b;
    double b2 = 0.0;
    for (size_t c = 0; c < m.n; c++) {
        b[c] = g->cell[c] == CELL_FLUID ? -dx2 * rhs[c] : 0.0f;
        b2 += (double)b[c] * b[c];
    }
    for (size_t c = 0; c < m.n; c++)
        m.x[c] = g->cell[c] == CELL_FLUID ? p[c] : 0.0;
    if (b2 > 0.0)
        pcg_solve(&m, b, sqrt(b2), set, history, &res);
    for (size_t c = 0; c < m.n; c++)
        p[c] = (float)m.x[c];
    res.converged = res.residual <= set->tolerance;
    pcg_free(&m);
    return res;
}

SolveResult ref_solve_pcg(const MacGrid *g, const float *rhs, float *p, const PressureSettings *set,
                          SolveHistory *history)
{
    return pcg_solve_with(g, rhs, p, set, history, false);
}

SolveResult ref_solve_mgpcg(const MacGrid *g, const float *rhs, float *p, const PressureSettings *set,
                            SolveHistory *history)
{
    return pcg_solve_with(g, rhs, p, set, history, true);
}
