/* test_solvers.c — the reference pressure solvers: each reaches the tolerance on irregular
 * domains, says so truthfully, records its history truthfully, and MGPCG needs few iterations.
 * flipkit tests/: make test-solvers; CK_RUN_CASE=converge (or multigrid, limits, history) runs
 * one case. Residuals are recomputed here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "given.h"
#include "harness.h"
#include "multigrid.h"
#include "reference.h"

typedef struct { const char *name; PressureSolver solve; int max_iterations; } Solver;

/* Iteration budgets from measurements on these grids (see the note of the solver change). */
static const Solver solvers[] = {
    { "pcg", ref_solve_pcg, 200 },
    { "mgpcg", ref_solve_mgpcg, 15 },
    { "multigrid", ref_solve_multigrid, 60 },
    { "gauss_seidel", ref_solve_gauss_seidel, 20000 },
    { "sor", ref_solve_sor, 5000 },
};
enum { NSOLVERS = sizeof solvers / sizeof *solvers };

/* A non-cubic tank: fluid below 40% of the height, a block of solid standing in it, a ball of
 * fluid above with air around; rhs random in FLUID cells. */
static void make_problem(MacGrid *g, float **rhs, int nx, int ny, int nz, uint64_t seed)
{
    ck_assert_int_eq(grid_init(g, nx, ny, nz, 0.1f), 0);
    for (int k = 1; k < nz - 1; k++)
        for (int j = 1; j < ny - 1; j++)
            for (int i = 1; i < nx - 1; i++) {
                float x = (i + 0.5f) / nx - 0.5f, y = (j + 0.5f) / ny - 0.7f, z = (k + 0.5f) / nz - 0.5f;
                int8_t t = j < 0.4f * ny || x * x + y * y + z * z < 0.03f ? CELL_FLUID : CELL_AIR;
                if (i > nx / 3 && i < nx / 2 && k > nz / 3 && k < nz / 2 && j < ny / 2)
                    t = CELL_SOLID;
                g->cell[grid_cell_index(g, i, j, k)] = t;
            }
    *rhs = calloc(grid_cells(g), sizeof **rhs);
    ck_assert_ptr_nonnull(*rhs);
    Rng r = rng_seeded(seed);
    for (size_t c = 0; c < grid_cells(g); c++)
        if (g->cell[c] == CELL_FLUID)
            (*rhs)[c] = 1000.0f * (rng_uniform(&r) - 0.5f);
}

/* |rhs - L p| / |rhs| over FLUID cells, with L written out here, in double. */
static double residual_of(const MacGrid *g, const float *rhs, const float *p)
{
    static const int nb[6][3] = { { -1, 0, 0 }, { 1, 0, 0 }, { 0, -1, 0 },
                                  { 0, 1, 0 },  { 0, 0, -1 }, { 0, 0, 1 } };
    double r2 = 0.0, b2 = 0.0, dx2 = (double)g->dx * g->dx;
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                size_t c = grid_cell_index(g, i, j, k);
                if (g->cell[c] != CELL_FLUID)
                    continue;
                double sum = 0.0;
                int n = 0;
                for (int q = 0; q < 6; q++) {
                    int t = grid_cell_type(g, i + nb[q][0], j + nb[q][1], k + nb[q][2]);
                    n += t != CELL_SOLID;
                    if (t == CELL_FLUID)
                        sum += p[grid_cell_index(g, i + nb[q][0], j + nb[q][1], k + nb[q][2])];
                }
                double r = rhs[c] - (sum - n * (double)p[c]) / dx2;
                r2 += r * r;
                b2 += (double)rhs[c] * rhs[c];
            }
    return sqrt(r2 / b2);
}

static const int sizes[][3] = { { 13, 17, 11 }, { 24, 20, 28 } };

START_TEST(converge)
{
    /* _i runs over solver x size. */
    const Solver *s = &solvers[_i % NSOLVERS];
    const int *n = sizes[_i / NSOLVERS];
    MacGrid g;
    float *rhs;
    make_problem(&g, &rhs, n[0], n[1], n[2], 5 + (uint64_t)_i);
    PressureSettings set = { "", 50000, 1e-6, 1.0f, 1.7f };
    SolveResult res = s->solve(&g, rhs, g.p, &set, NULL);
    double r = residual_of(&g, rhs, g.p);
    fprintf(stderr, "solvers: %-12s %dx%dx%d: %5d iterations, residual %.2e (recomputed %.2e)\n",
            s->name, n[0], n[1], n[2], res.iterations, res.residual, r);
    ck_assert_msg(res.converged && res.residual <= 1e-6,
                  "%s on %dx%dx%d: not converged (residual %.3g after %d iterations)", s->name, n[0],
                  n[1], n[2], res.residual, res.iterations);
    ck_assert_msg(res.iterations <= s->max_iterations, "%s on %dx%dx%d: %d iterations, expected <= %d",
                  s->name, n[0], n[1], n[2], res.iterations, s->max_iterations);
    /* The returned p is float32: its residual may exceed the solver's by the rounding of p
     * (see test_physics.c); 2e-6 covers it on these grids. */
    ck_assert_msg(r <= 2e-6, "%s on %dx%dx%d: the residual of the returned p is %.3g, expected <= 2e-6",
                  s->name, n[0], n[1], n[2], r);
    for (size_t c = 0; c < grid_cells(&g); c++)
        harness_require(g.cell[c] == CELL_FLUID || g.p[c] == 0.0f,
                      "%s: p = %g in a cell that is not FLUID (flat index %zu)", s->name, (double)g.p[c], c);
    free(rhs);
    grid_free(&g);
}
END_TEST

START_TEST(says_when_it_did_not_converge)
{
    /* Two iterations are not enough for anyone: converged must be false and the residual true. */
    const Solver *s = &solvers[_i];
    MacGrid g;
    float *rhs;
    make_problem(&g, &rhs, 24, 20, 28, 99);
    PressureSettings set = { "", 2, 1e-6, 1.0f, 1.7f };
    SolveResult res = s->solve(&g, rhs, g.p, &set, NULL);
    ck_assert_msg(!res.converged && res.iterations <= 2, "%s: %d iterations, converged %d; expected "
                  "not converged within 2", s->name, res.iterations, res.converged);
    ck_assert_msg(fabs(res.residual - residual_of(&g, rhs, g.p)) <= 1e-3 * res.residual + 1e-6,
                  "%s: reported residual %.4g, recomputed %.4g", s->name, res.residual,
                  residual_of(&g, rhs, g.p));
    free(rhs);
    grid_free(&g);
}
END_TEST

START_TEST(zero_rhs_needs_no_work)
{
    const Solver *s = &solvers[_i];
    MacGrid g;
    float *rhs;
    make_problem(&g, &rhs, 13, 17, 11, 3);
    memset(rhs, 0, grid_cells(&g) * sizeof *rhs);
    PressureSettings set = { "", 100, 1e-6, 1.0f, 1.7f };
    SolveResult res = s->solve(&g, rhs, g.p, &set, NULL);
    ck_assert_msg(res.converged && res.iterations == 0, "%s: rhs = 0 took %d iterations (converged %d)",
                  s->name, res.iterations, res.converged);
    free(rhs);
    grid_free(&g);
}
END_TEST

START_TEST(vcycle_is_symmetric)
{
    /* CG needs a symmetric preconditioner: <V a, b> = <a, V b> for random a, b. */
    MacGrid g;
    float *rhs;
    make_problem(&g, &rhs, 24, 20, 28, 7);
    size_t n = grid_cells(&g);
    float *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b), *va = calloc(n, sizeof *va),
          *vb = calloc(n, sizeof *vb);
    ck_assert(a && b && va && vb);
    Rng r = rng_seeded(1);
    for (size_t c = 0; c < n; c++)
        if (g.cell[c] == CELL_FLUID) {
            a[c] = rng_uniform(&r) - 0.5f;
            b[c] = rng_uniform(&r) - 0.5f;
        }
    Multigrid *mg = mg_create(&g);
    ck_assert_ptr_nonnull(mg);
    ck_assert_int_ge(mg_levels(mg), 3);
    mg_vcycle(mg, a, va);
    mg_vcycle(mg, b, vb);
    double ab = 0.0, ba = 0.0, scale = 0.0;
    for (size_t c = 0; c < n; c++) {
        ab += (double)va[c] * b[c];
        ba += (double)a[c] * vb[c];
        scale += fabs((double)va[c] * b[c]);
    }
    ck_assert_msg(fabs(ab - ba) <= 1e-5 * scale, "multigrid: <V a, b> = %.9g but <a, V b> = %.9g", ab, ba);
    mg_free(mg);
    free(a); free(b); free(va); free(vb);
    free(rhs);
    grid_free(&g);
}
END_TEST

static SolveResult given_gauss_seidel(const MacGrid *g, const float *rhs, float *p,
                                      const PressureSettings *set, SolveHistory *history)
{
    return given_solve_sor(g, rhs, p, set, 1.0f, history);
}

START_TEST(records_its_history)
{
    /* _i runs over the reference solvers and then the given Gauss-Seidel of common/. With a
     * history the residual of every iteration is there, from 1 (p = 0) to the one returned,
     * each the true |b - L p| / |b| of that iterate (the last one recomputed here). */
    const Solver given = { "given gauss_seidel", given_gauss_seidel, 0 };
    const Solver *s = _i < NSOLVERS ? &solvers[_i] : &given;
    MacGrid g;
    float *rhs;
    make_problem(&g, &rhs, 13, 17, 11, 21);
    enum { CAP = 3000 };
    double *residual = malloc((CAP + 1) * sizeof *residual);
    ck_assert_ptr_nonnull(residual);
    SolveHistory h = { residual, CAP + 1, 0 };
    PressureSettings set = { "", CAP, 1e-6, 1.0f, 1.7f };
    SolveResult res = s->solve(&g, rhs, g.p, &set, &h);
    ck_assert_msg(res.converged && h.count == res.iterations + 1, "%s: %d residuals recorded for "
                  "%d iterations (converged %d)", s->name, h.count, res.iterations, res.converged);
    ck_assert_msg(fabs(residual[0] - 1.0) <= 1e-6, "%s: residual at iteration 0 is %.9g, expected 1 "
                  "(p starts at 0)", s->name, residual[0]);
    for (int q = 0; q < h.count; q++)
        ck_assert_msg(isfinite(residual[q]) && residual[q] >= 0.0, "%s: residual %g at iteration %d",
                      s->name, residual[q], q);
    ck_assert_msg(residual[h.count - 1] == res.residual, "%s: last residual recorded %.9g, returned %.9g",
                  s->name, residual[h.count - 1], res.residual);
    ck_assert_msg(fabs(residual[h.count - 1] - residual_of(&g, rhs, g.p)) <= 0.5 * res.residual,
                  "%s: last residual recorded %.4g, recomputed %.4g", s->name, residual[h.count - 1],
                  residual_of(&g, rhs, g.p));
    free(residual);
    free(rhs);
    grid_free(&g);
}
END_TEST

START_TEST(no_history_no_change)
{
    /* Recording may make a solver measure more often, never solve differently: pcg, mgpcg and
     * multigrid measure every iteration anyway, so their answer is the same to the bit. */
    const Solver *s = &solvers[_i];
    MacGrid g;
    float *rhs;
    make_problem(&g, &rhs, 24, 20, 28, 22);
    size_t n = grid_cells(&g);
    float *plain = calloc(n, sizeof *plain);
    double *residual = malloc(201 * sizeof *residual);
    ck_assert(plain && residual);
    PressureSettings set = { "", 200, 1e-6, 1.0f, 1.7f };
    SolveResult a = s->solve(&g, rhs, plain, &set, NULL);
    SolveHistory h = { residual, 201, 0 };
    SolveResult b = s->solve(&g, rhs, g.p, &set, &h);
    ck_assert_msg(a.iterations == b.iterations && a.residual == b.residual &&
                  memcmp(plain, g.p, n * sizeof *plain) == 0, "%s: %d iterations to %.9g without "
                  "a history, %d to %.9g with one", s->name, a.iterations, a.residual,
                  b.iterations, b.residual);
    free(plain);
    free(residual);
    free(rhs);
    grid_free(&g);
}
END_TEST

static Suite *solvers_suite(void)
{
    Suite *s = suite_create("solvers");
    TCase *tc = tcase_create("converge");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, converge, 0, NSOLVERS * (int)(sizeof sizes / sizeof *sizes));
    suite_add_tcase(s, tc);
    tc = tcase_create("limits");
    tcase_add_loop_test(tc, says_when_it_did_not_converge, 0, NSOLVERS);
    tcase_add_loop_test(tc, zero_rhs_needs_no_work, 0, NSOLVERS);
    suite_add_tcase(s, tc);
    tc = tcase_create("history");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, records_its_history, 0, NSOLVERS + 1);
    tcase_add_loop_test(tc, no_history_no_change, 0, 3); /* pcg, mgpcg, multigrid */
    suite_add_tcase(s, tc);
    tc = tcase_create("multigrid");
    tcase_add_test(tc, vcycle_is_symmetric);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return harness_run(solvers_suite());
}
