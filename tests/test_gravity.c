/* test_gravity.c — the gravity stage: dt * g added to every face that is not a solid face.
 * flipkit tests/: `make test-gravity`. CK_FORK=no build/tests/test_gravity runs in one process
 * (for gdb); CK_RUN_CASE=analytic (or golden) runs one case. Contract: common/stages.h. */
#include <math.h>
#include <stdlib.h>

#include "compare.h"
#include "golden.h"
#include "harness.h"

static MacGrid g;
static float *want[3];

/* A gravity with three different components, so a swapped axis shows. */
static const Vec3 tilted = { 1.5f, -9.81f, 0.5f };

/* 7x5x6 cells of 0.5 m: the lower inner cells FLUID, the top inner layer AIR, one inner
 * SOLID cell at (3,2,3); every face starts at 7 so an untouched face is easy to spot. */
static void setup(void)
{
    ck_assert_int_eq(grid_init(&g, 7, 5, 6, 0.5f), 0);
    for (int k = 1; k < g.nz - 1; k++)
        for (int j = 1; j < g.ny - 2; j++)
            for (int i = 1; i < g.nx - 1; i++)
                g.cell[grid_cell_index(&g, i, j, k)] = CELL_FLUID;
    g.cell[grid_cell_index(&g, 3, 2, 3)] = CELL_SOLID;
    for (int a = 0; a < 3; a++) {
        want[a] = malloc(grid_faces(&g, a) * sizeof(float));
        ck_assert_ptr_nonnull(want[a]);
        for (size_t f = 0; f < grid_faces(&g, a); f++)
            g.vel[a][f] = 7.0f;
    }
}

static void teardown(void)
{
    for (int a = 0; a < 3; a++)
        free(want[a]);
    grid_free(&g);
}

/* What the contract says: open faces get v + dt g_a, solid faces keep what they had. */
static void expect_gravity(Vec3 gr, float dt)
{
    for (int a = 0; a < 3; a++) {
        const int *n = g.face[a].n;
        for (int k = 0; k < n[2]; k++)
            for (int j = 0; j < n[1]; j++)
                for (int i = 0; i < n[0]; i++) {
                    size_t f = grid_face_index(&g, a, i, j, k);
                    want[a][f] = g.vel[a][f] + (grid_face_is_solid(&g, a, i, j, k) ? 0.0f
                                                                                  : dt * vec3_get(gr, a));
                }
    }
}

START_TEST(open_faces_get_dt_times_g)
{
    /* dt 0.1: u += 0.15, v -= 0.981, w += 0.05 on every face between two non-solid cells. */
    expect_gravity(tilted, 0.1f);
    ck_assert_float_eq_tol(want[1][grid_face_index(&g, 1, 2, 2, 2)], 7.0f - 0.981f, 1e-6f);
    harness_track()->gravity(&g, tilted, 0.1f);
    Tol tol = { 1e-6f, 1e-6f };
    compare_faces3("gravity", "velocity", &g, (const float *const *)want, g.vel, tol);
}
END_TEST

START_TEST(solid_faces_are_left_alone)
{
    /* The faces of the inner solid cell (3,2,3) and of the walls keep exactly 7. */
    harness_track()->gravity(&g, tilted, 0.1f);
    const float *u = g.vel[0], *v = g.vel[1], *w = g.vel[2];
    struct { const char *name; float got; } probes[] = {
        { "u(3,2,3) (left face of the solid cell (3,2,3))", u[grid_face_index(&g, 0, 3, 2, 3)] },
        { "u(4,2,3) (right face of the solid cell)", u[grid_face_index(&g, 0, 4, 2, 3)] },
        { "v(3,3,3) (top face of the solid cell)", v[grid_face_index(&g, 1, 3, 3, 3)] },
        { "w(3,2,4) (back face of the solid cell)", w[grid_face_index(&g, 2, 3, 2, 4)] },
        { "v(2,1,2) (the floor under cell (2,1,2))", v[grid_face_index(&g, 1, 2, 1, 2)] },
        { "u(6,1,1) (the face inside the right wall)", u[grid_face_index(&g, 0, 6, 1, 1)] },
    };
    for (size_t q = 0; q < sizeof probes / sizeof *probes; q++)
        ck_assert_msg(probes[q].got == 7.0f,
                      "gravity: %s touches a SOLID cell and must be left exactly as it was: "
                      "expected 7, got %.7g", probes[q].name, (double)probes[q].got);
}
END_TEST

START_TEST(air_faces_get_gravity_too)
{
    /* v(2,3,2) lies between FLUID (2,2,2) and AIR (2,3,2): open, so with dt 0.2 it gets
     * 0.2 * -9.81. u(2,3,2) joins two AIR cells: open too, it gets 0.2 * 1.5. */
    harness_track()->gravity(&g, tilted, 0.2f);
    float got_v = g.vel[1][grid_face_index(&g, 1, 2, 3, 2)];
    float got_u = g.vel[0][grid_face_index(&g, 0, 2, 3, 2)];
    ck_assert_msg(fabsf(got_v - (7.0f - 1.962f)) < 1e-5f,
                  "gravity: v(2,3,2), between FLUID (2,2,2) and AIR (2,3,2): expected %.7g, got "
                  "%.7g (AIR faces get gravity too)", (double)(7.0f - 1.962f), (double)got_v);
    ck_assert_msg(fabsf(got_u - 7.3f) < 1e-5f,
                  "gravity: u(2,3,2), between two AIR cells: expected 7.3, got %.7g (AIR faces "
                  "get gravity too)", (double)got_u);
}
END_TEST

START_TEST(each_component_gets_its_own_axis)
{
    /* Gravity along z only: u and v keep 7 everywhere, w changes. */
    Vec3 gz = { 0.0f, 0.0f, -2.0f };
    expect_gravity(gz, 0.5f);
    harness_track()->gravity(&g, gz, 0.5f);
    Tol tol = { 1e-6f, 1e-6f };
    compare_faces3("gravity", "velocity with gravity (0, 0, -2)", &g, (const float *const *)want,
                   g.vel, tol);
}
END_TEST

START_TEST(golden)
{
    /* The reference's output on a golden case, with the tolerances in tests/lib/stagecase.c. */
    golden_check(harness_track(), "gravity", _i);
}
END_TEST

static Suite *gravity_suite(void)
{
    Suite *s = suite_create("gravity");
    TCase *tc = harness_tcase("analytic", HARNESS_ANALYTIC_SECONDS);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, open_faces_get_dt_times_g);
    tcase_add_test(tc, solid_faces_are_left_alone);
    tcase_add_test(tc, air_faces_get_gravity_too);
    tcase_add_test(tc, each_component_gets_its_own_axis);
    suite_add_tcase(s, tc);
    golden_add_tcase(s, "gravity", golden);
    return s;
}

int main(void)
{
    return harness_run_stage(gravity_suite());
}
