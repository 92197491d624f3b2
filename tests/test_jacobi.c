/* test_jacobi.c — the jacobi stage: one weighted Jacobi sweep for L p = rhs.
 * flipkit tests/: `make test-jacobi`. CK_FORK=no build/tests/test_jacobi runs in one process
 * (for gdb); CK_RUN_CASE=analytic (or golden) runs one case. Contract: common/stages.h. */
#include <math.h>
#include <stdlib.h>

#include "compare.h"
#include "golden.h"
#include "harness.h"

static MacGrid g;
static float *rhs, *out, *want;

/* 7x6x8 cells of 0.5 m, every inner cell FLUID, p = rhs = 0; out filled with garbage. */
static void setup(void)
{
    ck_assert_int_eq(grid_init(&g, 7, 6, 8, 0.5f), 0);
    for (int k = 1; k < g.nz - 1; k++)
        for (int j = 1; j < g.ny - 1; j++)
            for (int i = 1; i < g.nx - 1; i++)
                g.cell[grid_cell_index(&g, i, j, k)] = CELL_FLUID;
    size_t n = grid_cells(&g);
    rhs = calloc(n, sizeof *rhs);
    out = malloc(n * sizeof *out);
    want = calloc(n, sizeof *want);
    ck_assert(rhs && out && want);
    for (size_t c = 0; c < n; c++)
        out[c] = 999.0f;
}

static void teardown(void)
{
    free(rhs);
    free(out);
    free(want);
    grid_free(&g);
}

static size_t at(int i, int j, int k)
{
    return grid_cell_index(&g, i, j, k);
}

static void sweep(float omega)
{
    harness_track()->jacobi(&g, g.p, rhs, omega, out);
}

static void check(const char *what, float tol_abs)
{
    Tol tol = { tol_abs, 1e-6f };
    compare_cells("jacobi", what, &g, want, out, tol, explain_neighbours, g.p);
}

START_TEST(one_cell_in_air)
{
    /* A single FLUID cell (3,3,4) among AIR cells, p = 0, rhs = 4, dx = 0.5, omega = 1:
     * N = 6, no FLUID neighbours, so p_out = (0 - 0.25 * 4) / 6 = -1/6. */
    for (size_t q = 0; q < grid_cells(&g); q++)
        if (g.cell[q] == CELL_FLUID)
            g.cell[q] = CELL_AIR;
    g.cell[at(3, 3, 4)] = CELL_FLUID;
    rhs[at(3, 3, 4)] = 4.0f;
    sweep(1.0f);
    want[at(3, 3, 4)] = -1.0f / 6.0f;
    check("p_out (one FLUID cell among AIR, rhs = 4)", 1e-6f);
}
END_TEST

START_TEST(omega_weights_the_old_value)
{
    /* p = 1 in every FLUID cell, 2 at (3,3,4), rhs = 0: the plain Jacobi value there is
     * (6 * 1 - 0) / 6 = 1; with omega = 0.5 p_out = 0.5 * 2 + 0.5 * 1 = 1.5. */
    for (size_t q = 0; q < grid_cells(&g); q++)
        g.p[q] = g.cell[q] == CELL_FLUID ? 1.0f : 0.0f;
    g.p[at(3, 3, 4)] = 2.0f;
    sweep(0.5f);
    float got = out[at(3, 3, 4)];
    char extra[1024];
    explain_neighbours(extra, sizeof extra, &g, 3, 3, 4, g.p);
    ck_assert_msg(fabsf(got - 1.5f) < 1e-6f,
                  "jacobi: p_out at cell (3,3,4) FLUID with omega = 0.5: expected 1.5 "
                  "(= (1 - omega) * 2 + omega * 1), got %.7g%s", (double)got, extra);
}
END_TEST

START_TEST(reads_only_the_input)
{
    /* From p = 0, rhs = 1 in the FLUID cells away from the walls (N = 6) and 0 next to them:
     * each gets -dx^2 rhs / 6 = -0.25 / 6 or 0. A sweep that used neighbours it had already
     * updated (Gauss-Seidel), or p_out's old values, would not. The cells next to a wall get
     * rhs = 0 so that their value is 0 whatever N is: counting walls in N is
     * solid_neighbours_drop_out's failure, not this one's. */
    for (int k = 0; k < g.nz; k++)
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i < g.nx; i++) {
                if (grid_cell_type(&g, i, j, k) != CELL_FLUID)
                    continue;
                int walled = (grid_cell_type(&g, i - 1, j, k) == CELL_SOLID) +
                             (grid_cell_type(&g, i + 1, j, k) == CELL_SOLID) +
                             (grid_cell_type(&g, i, j - 1, k) == CELL_SOLID) +
                             (grid_cell_type(&g, i, j + 1, k) == CELL_SOLID) +
                             (grid_cell_type(&g, i, j, k - 1) == CELL_SOLID) +
                             (grid_cell_type(&g, i, j, k + 1) == CELL_SOLID);
                rhs[at(i, j, k)] = walled ? 0.0f : 1.0f;
                want[at(i, j, k)] = walled ? 0.0f : -0.25f / 6.0f;
            }
    sweep(1.0f);
    check("p_out after one sweep from p = 0 (-dx^2 rhs / 6 away from walls, 0 beside them; "
          "read only p, never p_out)", 1e-6f);
}
END_TEST

START_TEST(solid_neighbours_drop_out)
{
    /* p = 1 in FLUID cells, rhs = 0: the corner cell (1,1,1) has three wall neighbours, so
     * N = 3 and p_out = 3 / 3 = 1; a cell that counted the walls in N would get 0.5. An inner
     * SOLID cell (3,3,4) with a stored p of 100 must not be read by its neighbour (2,3,4):
     * N = 5, p_out = 5 / 5 = 1. */
    g.cell[at(3, 3, 4)] = CELL_SOLID;
    for (size_t q = 0; q < grid_cells(&g); q++)
        g.p[q] = g.cell[q] == CELL_FLUID ? 1.0f : 0.0f;
    g.p[at(3, 3, 4)] = 100.0f;
    sweep(1.0f);
    const int probe[2][3] = { { 1, 1, 1 }, { 2, 3, 4 } };
    for (int q = 0; q < 2; q++) {
        const int *c = probe[q];
        float got = out[at(c[0], c[1], c[2])];
        char extra[1024];
        explain_neighbours(extra, sizeof extra, &g, c[0], c[1], c[2], g.p);
        ck_assert_msg(fabsf(got - 1.0f) < 1e-6f,
                      "jacobi: p_out at cell (%d,%d,%d) FLUID: expected 1 (SOLID neighbours are "
                      "not in the sum nor in N), got %.7g%s", c[0], c[1], c[2], (double)got, extra);
    }
}
END_TEST

START_TEST(air_neighbours_count_but_add_zero)
{
    /* The top inner layer is AIR with a stale p = 7; p = 1 in FLUID cells, rhs = 0. Cell
     * (3,3,4) under the AIR cell (3,4,4) has N = 6 and a FLUID sum of 5: p_out = 5/6. */
    for (int k = 1; k < g.nz - 1; k++)
        for (int i = 1; i < g.nx - 1; i++)
            g.cell[at(i, g.ny - 2, k)] = CELL_AIR;
    for (size_t q = 0; q < grid_cells(&g); q++)
        g.p[q] = g.cell[q] == CELL_FLUID ? 1.0f : g.cell[q] == CELL_AIR ? 7.0f : 0.0f;
    sweep(1.0f);
    float got = out[at(3, 3, 4)];
    char extra[1024];
    explain_neighbours(extra, sizeof extra, &g, 3, 3, 4, g.p);
    ck_assert_msg(fabsf(got - 5.0f / 6.0f) < 1e-6f,
                  "jacobi: p_out at cell (3,3,4) FLUID under AIR: expected 0.8333333 (AIR counts "
                  "in N but adds p = 0), got %.7g%s", (double)got, extra);
}
END_TEST

START_TEST(solution_is_a_fixed_point)
{
    /* p = x (linear) has L p = 0 wherever all six neighbours are FLUID, so with rhs = 0 a
     * sweep leaves p there as it was. */
    for (int k = 0; k < g.nz; k++)
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i < g.nx; i++)
                g.p[at(i, j, k)] = grid_cell_type(&g, i, j, k) == CELL_FLUID ? (i + 0.5f) * g.dx : 0.0f;
    sweep(0.8f);
    for (size_t q = 0; q < grid_cells(&g); q++)
        want[q] = out[q];
    for (int k = 2; k < g.nz - 2; k++)
        for (int j = 2; j < g.ny - 2; j++)
            for (int i = 2; i < g.nx - 2; i++)
                want[at(i, j, k)] = g.p[at(i, j, k)];
    check("p_out of p = x with rhs = 0 (a solution: one sweep must leave it)", 1e-5f);
}
END_TEST

START_TEST(other_cells_get_zero)
{
    /* out was 999: every AIR and SOLID cell must be written, with 0. */
    for (int k = 1; k < g.nz - 1; k++)
        for (int i = 1; i < g.nx - 1; i++)
            g.cell[at(i, g.ny - 2, k)] = CELL_AIR;
    for (size_t q = 0; q < grid_cells(&g); q++)
        g.p[q] = 3.0f;
    sweep(1.0f);
    for (int k = 0; k < g.nz; k++)
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i < g.nx; i++) {
                int t = grid_cell_type(&g, i, j, k);
                float v = out[at(i, j, k)];
                ck_assert_msg(t == CELL_FLUID || v == 0.0f,
                              "jacobi: p_out at %s cell (%d,%d,%d): expected 0 (p = 0 outside the "
                              "fluid), got %.7g", cell_type_name(t), i, j, k, (double)v);
            }
}
END_TEST

START_TEST(walled_in_cell_gets_zero)
{
    /* A FLUID cell (3,3,4) with SOLID on all six sides has N = 0: stages.h says p_out = 0
     * there (it cannot be solved for; a division by N would make NaN that the next stage,
     * not this one, would be blamed for). p = 5 and rhs = 2 in it, omega = 0.5. */
    static const int nb[6][3] = { { -1, 0, 0 }, { 1, 0, 0 }, { 0, -1, 0 },
                                  { 0, 1, 0 },  { 0, 0, -1 }, { 0, 0, 1 } };
    for (int q = 0; q < 6; q++)
        g.cell[at(3 + nb[q][0], 3 + nb[q][1], 4 + nb[q][2])] = CELL_SOLID;
    g.p[at(3, 3, 4)] = 5.0f;
    rhs[at(3, 3, 4)] = 2.0f;
    sweep(0.5f);
    float got = out[at(3, 3, 4)];
    char extra[1024];
    explain_neighbours(extra, sizeof extra, &g, 3, 3, 4, g.p);
    ck_assert_msg(got == 0.0f, "jacobi: p_out at cell (3,3,4) FLUID, walled in by SOLID (N = 0): "
                  "expected 0, got %.7g%s", (double)got, extra);
}
END_TEST

START_TEST(omega_weights_the_rhs_too)
{
    /* p = 1 in every FLUID cell, 2 at (3,3,4), rhs = 4 there, dx = 0.5, omega = 0.5: the plain
     * Jacobi value is (6 * 1 - 0.25 * 4) / 6 = 5/6, so p_out = 0.5 * 2 + 0.5 * 5/6 = 17/12.
     * Weighting only the neighbour sum by omega, not the rhs term, gives 4/3. */
    for (size_t q = 0; q < grid_cells(&g); q++)
        g.p[q] = g.cell[q] == CELL_FLUID ? 1.0f : 0.0f;
    g.p[at(3, 3, 4)] = 2.0f;
    rhs[at(3, 3, 4)] = 4.0f;
    sweep(0.5f);
    float got = out[at(3, 3, 4)];
    char extra[1024];
    explain_neighbours(extra, sizeof extra, &g, 3, 3, 4, g.p);
    ck_assert_msg(fabsf(got - 17.0f / 12.0f) < 1e-6f,
                  "jacobi: p_out at cell (3,3,4) FLUID with omega = 0.5, rhs = 4: expected 1.416667 "
                  "(= (1 - omega) * 2 + omega * (6 - dx^2 * 4) / 6), got %.7g%s", (double)got, extra);
}
END_TEST

START_TEST(a_second_grid_in_the_same_process)
{
    /* The driver (and the grader) call jacobi on one grid after another in one process; Check
     * runs each case in a fork of its own, so only this case can see a stage that keeps the
     * first grid's cells in a static. First the 7x6x8 fixture, then a 5x5x6 grid of AIR with
     * one FLUID cell (2,2,3), rhs = 4, dx = 0.25, p = 0: N = 6, p_out = -0.0625 * 4 / 6. */
    sweep(1.0f);
    MacGrid b;
    ck_assert_int_eq(grid_init(&b, 5, 5, 6, 0.25f), 0);
    b.cell[grid_cell_index(&b, 2, 2, 3)] = CELL_FLUID;
    size_t n = grid_cells(&b);
    float *rb = calloc(n, sizeof *rb), *ob = malloc(n * sizeof *ob), *wb = calloc(n, sizeof *wb);
    ck_assert(rb && ob && wb);
    for (size_t q = 0; q < n; q++)
        ob[q] = 999.0f;
    rb[grid_cell_index(&b, 2, 2, 3)] = 4.0f;
    wb[grid_cell_index(&b, 2, 2, 3)] = -0.0625f * 4.0f / 6.0f;
    harness_track()->jacobi(&b, b.p, rb, 1.0f, ob);
    compare_cells("jacobi", "p_out on a second grid (5x5x6, one FLUID cell among AIR, rhs = 4), "
                  "after a sweep on the first", &b, wb, ob, (Tol){ 1e-6f, 1e-6f }, explain_neighbours, b.p);
    free(rb), free(ob), free(wb);
    grid_free(&b);
}
END_TEST

START_TEST(cell_types_changed_on_the_same_grid)
{
    /* The driver classifies the cells again every substep, on the same MacGrid at the same
     * address, before it calls jacobi; a stage that keeps the FLUID cells it found in a static,
     * keyed by the grid's address or size, still sweeps the old liquid. First a sweep with
     * every inner cell FLUID, then the same grid with only (3,3,4) FLUID among AIR, rhs = 4
     * in every cell, p = 0, dx = 0.5, omega = 1: as in one_cell_in_air, p_out = -0.25 * 4 / 6
     * there, and 0 in the cells that were FLUID a sweep ago (a stale list gives them -1/6). */
    sweep(1.0f);
    for (size_t q = 0; q < grid_cells(&g); q++) {
        if (g.cell[q] == CELL_FLUID)
            g.cell[q] = CELL_AIR;
        rhs[q] = 4.0f;
    }
    g.cell[at(3, 3, 4)] = CELL_FLUID;
    for (size_t q = 0; q < grid_cells(&g); q++)
        out[q] = 999.0f;
    sweep(1.0f);
    want[at(3, 3, 4)] = -1.0f / 6.0f;
    check("p_out on the same grid after its cell types changed (now one FLUID cell among AIR, "
          "rhs = 4 everywhere): read g->cell on every call", 1e-6f);
}
END_TEST

START_TEST(golden)
{
    /* The reference's output on a golden case, with the tolerances in tests/lib/stagecase.c. */
    golden_check(harness_track(), "jacobi", _i);
}
END_TEST

static Suite *jacobi_suite(void)
{
    Suite *s = suite_create("jacobi");
    TCase *tc = harness_tcase("analytic", HARNESS_ANALYTIC_SECONDS);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, one_cell_in_air);
    tcase_add_test(tc, omega_weights_the_old_value);
    tcase_add_test(tc, reads_only_the_input);
    tcase_add_test(tc, solid_neighbours_drop_out);
    tcase_add_test(tc, air_neighbours_count_but_add_zero);
    tcase_add_test(tc, solution_is_a_fixed_point);
    tcase_add_test(tc, other_cells_get_zero);
    tcase_add_test(tc, walled_in_cell_gets_zero);
    tcase_add_test(tc, omega_weights_the_rhs_too);
    tcase_add_test(tc, a_second_grid_in_the_same_process);
    tcase_add_test(tc, cell_types_changed_on_the_same_grid);
    suite_add_tcase(s, tc);
    golden_add_tcase(s, "jacobi", golden);
    return s;
}

int main(void)
{
    return harness_run_stage(jacobi_suite());
}
