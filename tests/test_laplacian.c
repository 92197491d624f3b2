/* test_laplacian.c — the laplacian stage: (sum of FLUID neighbours' p - N p) / dx^2.
 * flipkit tests/: `make test-laplacian`. CK_FORK=no build/tests/test_laplacian runs in one
 * process (for gdb); CK_RUN_CASE=analytic (or golden) runs one case. Contract: stages.h. */
#include <math.h>
#include <stdlib.h>

#include "compare.h"
#include "golden.h"
#include "harness.h"

static MacGrid g;
static float *out, *want;

/* 8x7x9 cells of 0.5 m, every inner cell FLUID; out filled with garbage so a cell the
 * stage forgets to write shows. */
static void setup(void)
{
    ck_assert_int_eq(grid_init(&g, 8, 7, 9, 0.5f), 0);
    for (int k = 1; k < g.nz - 1; k++)
        for (int j = 1; j < g.ny - 1; j++)
            for (int i = 1; i < g.nx - 1; i++)
                g.cell[grid_cell_index(&g, i, j, k)] = CELL_FLUID;
    out = malloc(grid_cells(&g) * sizeof *out);
    want = calloc(grid_cells(&g), sizeof *want);
    ck_assert(out && want);
    for (size_t c = 0; c < grid_cells(&g); c++)
        out[c] = 999.0f;
}

static void teardown(void)
{
    free(out);
    free(want);
    grid_free(&g);
}

static size_t at(int i, int j, int k)
{
    return grid_cell_index(&g, i, j, k);
}

static float got_at(int i, int j, int k)
{
    return out[at(i, j, k)];
}

START_TEST(quadratic_pressure_has_constant_laplacian)
{
    /* p = a x^2 + b y^2 + c z^2 at cell centres: the 7-point Laplacian of a quadratic is exact,
     * 2 (a + b + c) = 2 (1 - 2 + 0.25) = -1.5, in every cell whose six neighbours are FLUID. */
    const float a = 1.0f, b = -2.0f, c = 0.25f;
    for (int k = 0; k < g.nz; k++)
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i < g.nx; i++) {
                Vec3 x = grid_cell_centre(&g, i, j, k);
                g.p[at(i, j, k)] = a * x.x * x.x + b * x.y * x.y + c * x.z * x.z;
            }
    harness_track()->laplacian(&g, g.p, out);
    for (int k = 2; k < g.nz - 2; k++)
        for (int j = 2; j < g.ny - 2; j++)
            for (int i = 2; i < g.nx - 2; i++) {
                want[at(i, j, k)] = -1.5f;
            }
    /* Compare only the all-FLUID-neighbour cells: copy the others across. */
    for (size_t q = 0; q < grid_cells(&g); q++)
        if (want[q] == 0.0f)
            want[q] = out[q];
    /* p is up to 40 here; float rounding of (sum - 6 p) is about 40 * 6e-8 * 8 / dx^2. */
    Tol tol = { 2e-4f, 1e-5f };
    compare_cells("laplacian", "L p of p = x^2 - 2 y^2 + z^2/4 (expected 2(a+b+c) = -1.5)", &g, want,
                  out, tol, explain_neighbours, g.p);
}
END_TEST

START_TEST(air_neighbours_count_but_add_zero)
{
    /* One FLUID cell (3,3,4) in a tank of AIR whose stored p is 50 (stale): AIR has p = 0, so
     * with p = 2 here, N = 6 and dx = 0.5: (0 - 6 * 2) / 0.25 = -48. */
    for (size_t q = 0; q < grid_cells(&g); q++)
        if (g.cell[q] == CELL_FLUID) {
            g.cell[q] = CELL_AIR;
            g.p[q] = 50.0f;
        }
    g.cell[at(3, 3, 4)] = CELL_FLUID;
    g.p[at(3, 3, 4)] = 2.0f;
    harness_track()->laplacian(&g, g.p, out);
    want[at(3, 3, 4)] = -48.0f;
    Tol tol = { 1e-5f, 1e-6f };
    compare_cells("laplacian", "L p (one FLUID cell among AIR cells holding a stale p = 50)", &g,
                  want, out, tol, explain_neighbours, g.p);
}
END_TEST

START_TEST(solid_neighbours_drop_out)
{
    /* p = 1 everywhere, 3 in the corner cell (1,1,1): its neighbours (0,1,1), (1,0,1), (1,1,0)
     * are wall, so N = 3 and the sum is 3: (3 - 3 * 3) / 0.25 = -24. The cell (2,1,1) beside it
     * has two wall neighbours: N = 4, sum = 3 + 1 + 1 + 1 = 6: (6 - 4) / 0.25 = 8. */
    for (size_t q = 0; q < grid_cells(&g); q++)
        g.p[q] = 1.0f;
    g.p[at(1, 1, 1)] = 3.0f;
    harness_track()->laplacian(&g, g.p, out);
    float corner = got_at(1, 1, 1), side = got_at(2, 1, 1);
    char extra[1024];
    explain_neighbours(extra, sizeof extra, &g, 1, 1, 1, g.p);
    ck_assert_msg(fabsf(corner - -24.0f) < 1e-4f,
                  "laplacian: L p at the corner cell (1,1,1) FLUID: expected -24, got %.7g%s",
                  (double)corner, extra);
    explain_neighbours(extra, sizeof extra, &g, 2, 1, 1, g.p);
    ck_assert_msg(fabsf(side - 8.0f) < 1e-4f,
                  "laplacian: L p at cell (2,1,1) FLUID: expected 8, got %.7g%s", (double)side, extra);
}
END_TEST

START_TEST(inner_solid_drops_out_too)
{
    /* A SOLID cell (4,3,4) inside the fluid, p = 0 everywhere but 1 at (3,3,4) next to it:
     * N = 5 there, sum = 0: (0 - 5) / 0.25 = -20. */
    g.cell[at(4, 3, 4)] = CELL_SOLID;
    g.p[at(3, 3, 4)] = 1.0f;
    g.p[at(4, 3, 4)] = 100.0f; /* a solid's stored p must not be read */
    harness_track()->laplacian(&g, g.p, out);
    float got = got_at(3, 3, 4);
    char extra[1024];
    explain_neighbours(extra, sizeof extra, &g, 3, 3, 4, g.p);
    ck_assert_msg(fabsf(got - -20.0f) < 1e-4f,
                  "laplacian: L p at cell (3,3,4) FLUID beside the SOLID cell (4,3,4): expected -20, "
                  "got %.7g%s", (double)got, extra);
}
END_TEST

START_TEST(air_and_solid_cells_get_zero)
{
    /* The top inner layer AIR, random p everywhere: out = 0 in every AIR and SOLID cell, and
     * every entry written (out was filled with 999). */
    for (int k = 1; k < g.nz - 1; k++)
        for (int i = 1; i < g.nx - 1; i++)
            g.cell[at(i, g.ny - 2, k)] = CELL_AIR;
    Rng r = rng_seeded(11);
    for (size_t q = 0; q < grid_cells(&g); q++)
        g.p[q] = rng_uniform(&r);
    harness_track()->laplacian(&g, g.p, out);
    for (int k = 0; k < g.nz; k++)
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i < g.nx; i++) {
                int t = grid_cell_type(&g, i, j, k);
                float v = got_at(i, j, k);
                ck_assert_msg(v != 999.0f, "laplacian: L p at cell (%d,%d,%d) was not written", i, j, k);
                ck_assert_msg(t == CELL_FLUID || v == 0.0f,
                              "laplacian: L p at %s cell (%d,%d,%d): expected 0 (only FLUID cells "
                              "have an equation), got %.7g", cell_type_name(t), i, j, k, (double)v);
            }
}
END_TEST

START_TEST(divides_by_dx_squared)
{
    /* A single p = 1 at (3,3,4) with everything else 0 and all six neighbours FLUID: -6 / dx^2,
     * and each neighbour gets +1 / dx^2. With dx = 0.25 that is -96 and 16. */
    g.dx = 0.25f;
    g.p[at(3, 3, 4)] = 1.0f;
    harness_track()->laplacian(&g, g.p, out);
    want[at(3, 3, 4)] = -96.0f;
    want[at(2, 3, 4)] = want[at(4, 3, 4)] = want[at(3, 2, 4)] = 16.0f;
    want[at(3, 4, 4)] = want[at(3, 3, 3)] = want[at(3, 3, 5)] = 16.0f;
    Tol tol = { 1e-4f, 1e-6f };
    compare_cells("laplacian", "L p of a single p = 1 with dx = 0.25", &g, want, out, tol,
                  explain_neighbours, g.p);
}
END_TEST

START_TEST(golden)
{
    /* The reference's output on a golden case, with the tolerances in tests/lib/stagecase.c. */
    golden_check(harness_track(), "laplacian", _i);
}
END_TEST

static Suite *laplacian_suite(void)
{
    Suite *s = suite_create("laplacian");
    TCase *tc = harness_tcase("analytic", HARNESS_ANALYTIC_SECONDS);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, quadratic_pressure_has_constant_laplacian);
    tcase_add_test(tc, air_neighbours_count_but_add_zero);
    tcase_add_test(tc, solid_neighbours_drop_out);
    tcase_add_test(tc, inner_solid_drops_out_too);
    tcase_add_test(tc, air_and_solid_cells_get_zero);
    tcase_add_test(tc, divides_by_dx_squared);
    suite_add_tcase(s, tc);
    golden_add_tcase(s, "laplacian", golden);
    return s;
}

int main(void)
{
    return harness_run_stage(laplacian_suite());
}
