/* test_gradient.c — the gradient stage: u -= (dt/rho) dp/dx on faces next to fluid.
 * flipkit tests/: `make test-gradient`. CK_FORK=no build/tests/test_gradient runs in one
 * process (for gdb); CK_RUN_CASE=analytic (or golden) runs one case. Contract: stages.h. */
#include <math.h>
#include <stdlib.h>

#include "compare.h"
#include "golden.h"
#include "harness.h"

static MacGrid g;
static float *want[3];

/* 8x6x7 cells of 0.5 m, every inner cell FLUID, every face velocity 1, p = 0. */
static void setup(void)
{
    ck_assert_int_eq(grid_init(&g, 8, 6, 7, 0.5f), 0);
    for (int k = 1; k < g.nz - 1; k++)
        for (int j = 1; j < g.ny - 1; j++)
            for (int i = 1; i < g.nx - 1; i++)
                g.cell[grid_cell_index(&g, i, j, k)] = CELL_FLUID;
    for (int a = 0; a < 3; a++) {
        want[a] = malloc(grid_faces(&g, a) * sizeof(float));
        ck_assert_ptr_nonnull(want[a]);
        for (size_t f = 0; f < grid_faces(&g, a); f++)
            g.vel[a][f] = 1.0f;
    }
}

static void teardown(void)
{
    for (int a = 0; a < 3; a++)
        free(want[a]);
    grid_free(&g);
}

static size_t at(int i, int j, int k)
{
    return grid_cell_index(&g, i, j, k);
}

/* What the contract gives on this fixture, worked out by hand rather than recomputed by a second
 * gradient (the test file ships to students; it must not be the answer): every inner cell is
 * FLUID, so a face is either solid (0) or between two FLUID cells, where a linear p has the
 * exact difference quotient grad[a] and the face gets v0 - scale * grad[a]. */
static void expect_faces(const float grad[3], float scale, float v0)
{
    for (int a = 0; a < 3; a++) {
        const int *n = g.face[a].n;
        for (int k = 0; k < n[2]; k++)
            for (int j = 0; j < n[1]; j++)
                for (int i = 0; i < n[0]; i++)
                    want[a][grid_face_index(&g, a, i, j, k)] =
                        grid_face_is_solid(&g, a, i, j, k) ? 0.0f : v0 - scale * grad[a];
    }
}

START_TEST(linear_pressure_gives_constant_gradient)
{
    /* p = 2x - 4y + 0.5z at cell centres: between two FLUID cells the difference quotient is
     * exactly (2, -4, 0.5), so with scale 0.25: u = 1 - 0.5, v = 1 + 1, w = 1 - 0.125. */
    for (int k = 0; k < g.nz; k++)
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i < g.nx; i++) {
                Vec3 x = grid_cell_centre(&g, i, j, k);
                g.p[at(i, j, k)] = g.cell[at(i, j, k)] == CELL_FLUID ? 2.0f * x.x - 4.0f * x.y + 0.5f * x.z : 0.0f;
            }
    static const float grad[3] = { 2.0f, -4.0f, 0.5f };
    expect_faces(grad, 0.25f, 1.0f);
    harness_track()->gradient(&g, g.p, 0.25f);
    Tol tol = { 1e-5f, 1e-5f };
    compare_faces3("gradient", "velocity (p = 2x - 4y + z/2, scale 0.25)", &g,
                   (const float *const *)want, g.vel, tol);
}
END_TEST

START_TEST(solid_faces_are_set_to_zero)
{
    /* Velocity 5 everywhere and an inner SOLID cell (3,2,3): every face touching a solid must
     * come out 0 (solids do not move), whatever p is. */
    g.cell[at(3, 2, 3)] = CELL_SOLID;
    for (int a = 0; a < 3; a++)
        for (size_t f = 0; f < grid_faces(&g, a); f++)
            g.vel[a][f] = 5.0f;
    static const float flat[3] = { 0.0f, 0.0f, 0.0f };   /* p = 0: only the solid faces change */
    expect_faces(flat, 0.1f, 5.0f);
    harness_track()->gradient(&g, g.p, 0.1f);
    Tol tol = { 1e-6f, 0.0f };
    compare_faces3("gradient", "velocity (faces touching a SOLID cell must be 0)", &g,
                   (const float *const *)want, g.vel, tol);
}
END_TEST

START_TEST(free_surface_uses_p_zero_in_air)
{
    /* FLUID (3,2,3) with p = 2 under AIR (3,3,3) (p = 0 there): the face v(3,3,3) between them
     * gets v -= scale (0 - 2) / dx = +0.5 * 2 / 0.5 = +2, so 1 becomes 3. The face below,
     * v(3,2,3), between FLUID (3,1,3) with p = 0 and (3,2,3), becomes 1 - 0.5 * 2 / 0.5 = -1. */
    for (int k = 1; k < g.nz - 1; k++)
        for (int j = 3; j < g.ny - 1; j++)
            for (int i = 1; i < g.nx - 1; i++)
                g.cell[at(i, j, k)] = CELL_AIR;
    g.p[at(3, 2, 3)] = 2.0f;
    harness_track()->gradient(&g, g.p, 0.5f);
    float top = g.vel[1][grid_face_index(&g, 1, 3, 3, 3)], below = g.vel[1][grid_face_index(&g, 1, 3, 2, 3)];
    ck_assert_msg(fabsf(top - 3.0f) < 1e-6f, "gradient: v(3,3,3), between FLUID (3,2,3) p = 2 and "
                  "AIR (3,3,3) p = 0, scale 0.5, dx 0.5: expected 3, got %.7g", (double)top);
    ck_assert_msg(fabsf(below - -1.0f) < 1e-6f, "gradient: v(3,2,3), between FLUID (3,1,3) p = 0 "
                  "and FLUID (3,2,3) p = 2, scale 0.5, dx 0.5: expected -1 (sign: u -= scale * "
                  "(p_above - p_below) / dx), got %.7g", (double)below);
}
END_TEST

START_TEST(air_below_fluid_uses_p_zero_too)
{
    /* The other way up: an AIR cell (3,2,3) (p = 0) under FLUID (3,3,3) with p = 2, as under a
     * falling drop. The face v(3,3,3) between them gets v -= scale (2 - 0) / dx = 0.5 * 2 / 0.5
     * = 2, so 1 becomes -1: a face is updated when either of its cells is FLUID. */
    g.cell[at(3, 2, 3)] = CELL_AIR;
    g.p[at(3, 3, 3)] = 2.0f;
    harness_track()->gradient(&g, g.p, 0.5f);
    float v = g.vel[1][grid_face_index(&g, 1, 3, 3, 3)];
    ck_assert_msg(fabsf(v - -1.0f) < 1e-6f, "gradient: v(3,3,3), between AIR (3,2,3) p = 0 below and "
                  "FLUID (3,3,3) p = 2 above, scale 0.5, dx 0.5: expected -1, got %.7g", (double)v);
}
END_TEST

START_TEST(golden)
{
    /* The reference's output on a golden case, with the tolerances in tests/lib/stagecase.c. */
    golden_check(harness_track(), "gradient", _i);
}
END_TEST

static Suite *gradient_suite(void)
{
    Suite *s = suite_create("gradient");
    TCase *tc = harness_tcase("analytic", HARNESS_ANALYTIC_SECONDS);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, linear_pressure_gives_constant_gradient);
    tcase_add_test(tc, solid_faces_are_set_to_zero);
    tcase_add_test(tc, free_surface_uses_p_zero_in_air);
    tcase_add_test(tc, air_below_fluid_uses_p_zero_too);
    suite_add_tcase(s, tc);
    golden_add_tcase(s, "gradient", golden);
    return s;
}

int main(void)
{
    return harness_run_stage(gradient_suite());
}
