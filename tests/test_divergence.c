/* test_divergence.c — the divergence stage: net outflow per second of every FLUID cell.
 * flipkit tests/: `make test-divergence`. CK_FORK=no build/tests/test_divergence runs in one
 * process (for gdb); CK_RUN_CASE=analytic (or golden) runs one case. Contract: stages.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "golden.h"
#include "harness.h"

static MacGrid g;
static float *div_out, *expected;

static const Tol exact = { 1e-5f, 1e-5f };

/* 7x5x6 cells of 0.5 m, every inner cell FLUID; velocity zero; div filled with garbage so a
 * cell the stage forgets to write shows. */
static void setup(void)
{
    ck_assert_int_eq(grid_init(&g, 7, 5, 6, 0.5f), 0);
    for (int k = 1; k < g.nz - 1; k++)
        for (int j = 1; j < g.ny - 1; j++)
            for (int i = 1; i < g.nx - 1; i++)
                g.cell[grid_cell_index(&g, i, j, k)] = CELL_FLUID;
    div_out = malloc(grid_cells(&g) * sizeof *div_out);
    expected = calloc(grid_cells(&g), sizeof *expected);
    ck_assert(div_out && expected);
    for (size_t c = 0; c < grid_cells(&g); c++)
        div_out[c] = 999.0f;
}

static void teardown(void)
{
    free(div_out);
    free(expected);
    grid_free(&g);
}

static void run_and_compare(void)
{
    harness_track()->divergence(&g, div_out);
    compare_cells("divergence", "div", &g, expected, div_out, exact, explain_face_terms, NULL);
}

/* Sets component a on every face to slope * (position along a) + offset. */
static void set_linear(int a, float slope, float offset)
{
    const int *n = g.face[a].n;
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++) {
                Vec3 x = grid_face_position(&g, a, i, j, k);
                g.vel[a][grid_face_index(&g, a, i, j, k)] = slope * vec3_get(x, a) + offset;
            }
}

/* A linear field u = s x has divergence s in every cell whose faces are all open. The cells
 * against a wall see 0 through the solid face instead. */
static void expect_linear(int a, float slope, float offset)
{
    for (int k = 1; k < g.nz - 1; k++)
        for (int j = 1; j < g.ny - 1; j++)
            for (int i = 1; i < g.nx - 1; i++) {
                int idx[3] = { i, j, k }, nmax = a == 0 ? g.nx : a == 1 ? g.ny : g.nz;
                float lo = (idx[a] * g.dx) * slope + offset, hi = ((idx[a] + 1) * g.dx) * slope + offset;
                if (idx[a] == 1)
                    lo = 0.0f;
                if (idx[a] == nmax - 2)
                    hi = 0.0f;
                expected[grid_cell_index(&g, i, j, k)] = (hi - lo) / g.dx;
            }
}

START_TEST(x_faces_linear_u)
{
    set_linear(0, 2.0f, 0.5f);
    expect_linear(0, 2.0f, 0.5f);
    ck_assert_float_eq_tol(expected[grid_cell_index(&g, 3, 2, 2)], 2.0f, 1e-6f); /* interior: du/dx */
    run_and_compare();
}
END_TEST

START_TEST(y_faces_linear_v)
{
    set_linear(1, -3.0f, 1.0f);
    expect_linear(1, -3.0f, 1.0f);
    ck_assert_float_eq_tol(expected[grid_cell_index(&g, 3, 2, 2)], -3.0f, 1e-6f);
    run_and_compare();
}
END_TEST

START_TEST(z_faces_linear_w)
{
    set_linear(2, 1.5f, -0.25f);
    expect_linear(2, 1.5f, -0.25f);
    ck_assert_float_eq_tol(expected[grid_cell_index(&g, 3, 2, 2)], 1.5f, 1e-6f);
    run_and_compare();
}
END_TEST

START_TEST(all_three_add_up)
{
    set_linear(0, 2.0f, 0.0f);
    set_linear(1, -3.0f, 0.0f);
    set_linear(2, 0.5f, 0.0f);
    /* Cell (3,2,2) touches no wall: 2 - 3 + 0.5. */
    harness_track()->divergence(&g, div_out);
    float got = div_out[grid_cell_index(&g, 3, 2, 2)];
    ck_assert_msg(fabsf(got - -0.5f) <= 1e-5f,
                  "divergence: div at cell (3,2,2) with u = 2x, v = -3y, w = 0.5z: expected -0.5 "
                  "(= 2 - 3 + 0.5), got %g", (double)got);
}
END_TEST

START_TEST(solid_faces_count_zero)
{
    /* Uniform flow u = 1 everywhere, solid faces included: only cells beside a solid see a
     * difference. An inner SOLID cell at (3,2,3) makes (2,2,3) and (4,2,3) such cells too. */
    g.cell[grid_cell_index(&g, 3, 2, 3)] = CELL_SOLID;
    for (size_t f = 0; f < grid_faces(&g, 0); f++)
        g.vel[0][f] = 1.0f;
    for (int k = 1; k < g.nz - 1; k++)
        for (int j = 1; j < g.ny - 1; j++)
            for (int i = 1; i < g.nx - 1; i++) {
                if (grid_cell_type(&g, i, j, k) != CELL_FLUID)
                    continue;
                float hi = grid_face_is_solid(&g, 0, i + 1, j, k) ? 0.0f : 1.0f;
                float lo = grid_face_is_solid(&g, 0, i, j, k) ? 0.0f : 1.0f;
                expected[grid_cell_index(&g, i, j, k)] = (hi - lo) / g.dx;
            }
    ck_assert_float_eq_tol(expected[grid_cell_index(&g, 1, 2, 2)], 2.0f, 1e-6f);  /* wall on the left */
    ck_assert_float_eq_tol(expected[grid_cell_index(&g, 2, 2, 3)], -2.0f, 1e-6f); /* block on the right */
    run_and_compare();
}
END_TEST

START_TEST(air_and_solid_cells_get_zero)
{
    /* The top layer of inner cells is AIR; a random field must leave div = 0 there and in
     * every SOLID cell, and every entry must be written (div was filled with 999). */
    for (int k = 1; k < g.nz - 1; k++)
        for (int i = 1; i < g.nx - 1; i++)
            g.cell[grid_cell_index(&g, i, g.ny - 2, k)] = CELL_AIR;
    Rng r = rng_seeded(7);
    for (int a = 0; a < 3; a++)
        for (size_t f = 0; f < grid_faces(&g, a); f++)
            g.vel[a][f] = rng_uniform(&r) - 0.5f;
    harness_track()->divergence(&g, div_out);
    for (int k = 0; k < g.nz; k++)
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i < g.nx; i++) {
                int t = grid_cell_type(&g, i, j, k);
                float got = div_out[grid_cell_index(&g, i, j, k)];
                ck_assert_msg(t == CELL_FLUID || got == 0.0f,
                              "divergence: div at %s cell (%d,%d,%d): expected 0 (only FLUID cells "
                              "have a divergence), got %g", cell_type_name(t), i, j, k, (double)got);
                ck_assert_msg(got != 999.0f, "divergence: div at cell (%d,%d,%d) was not written", i, j, k);
            }
}
END_TEST

START_TEST(divides_by_dx)
{
    /* Outflow 1 m/s through one face of cell (3,2,2) with dx = 0.5 m is 2 per second. */
    g.vel[0][grid_face_index(&g, 0, 4, 2, 2)] = 1.0f;
    expected[grid_cell_index(&g, 3, 2, 2)] = 2.0f;
    expected[grid_cell_index(&g, 4, 2, 2)] = -2.0f;
    run_and_compare();
}
END_TEST

START_TEST(golden)
{
    /* The reference's output on a golden case, with the tolerances in tests/lib/stagecase.c. */
    golden_check(harness_track(), "divergence", _i);
}
END_TEST

static Suite *divergence_suite(void)
{
    Suite *s = suite_create("divergence");
    TCase *tc = harness_tcase("analytic", HARNESS_ANALYTIC_SECONDS);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, x_faces_linear_u);
    tcase_add_test(tc, y_faces_linear_v);
    tcase_add_test(tc, z_faces_linear_w);
    tcase_add_test(tc, all_three_add_up);
    tcase_add_test(tc, solid_faces_count_zero);
    tcase_add_test(tc, air_and_solid_cells_get_zero);
    tcase_add_test(tc, divides_by_dx);
    suite_add_tcase(s, tc);
    golden_add_tcase(s, "divergence", golden);
    return s;
}

int main(void)
{
    return harness_run_stage(divergence_suite());
}
