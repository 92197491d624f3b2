/* test_g2p.c — the g2p stage: particle velocities from the grid, blending PIC and FLIP.
 * flipkit tests/: `make test-g2p`. CK_FORK=no build/tests/test_g2p runs in one process (for
 * gdb); CK_RUN_CASE=analytic (or golden) runs one case. Contract: common/stages.h. */
#include <math.h>
#include <stdlib.h>

#include "compare.h"
#include "golden.h"
#include "harness.h"

static MacGrid g;
static Particles ps;
static float *old[3];

/* 7x6x5 cells of 0.5 m; three particles inside with velocities (10, 20, 30) etc. */
static const Vec3 start_pos[3] = { { 1.3f, 1.1f, 1.2f }, { 2.05f, 0.8f, 1.45f }, { 0.9f, 2.2f, 0.7f } };
static const Vec3 start_vel[3] = { { 10.0f, 20.0f, 30.0f }, { -1.0f, 0.5f, 0.0f }, { 0.0f, 0.0f, -3.0f } };

static void setup(void)
{
    ck_assert_int_eq(grid_init(&g, 7, 6, 5, 0.5f), 0);
    part_init(&ps);
    for (int p = 0; p < 3; p++)
        ck_assert_int_eq(part_push(&ps, start_pos[p], start_vel[p]), 0);
    for (int a = 0; a < 3; a++) {
        old[a] = calloc(grid_faces(&g, a), sizeof(float));
        ck_assert_ptr_nonnull(old[a]);
    }
}

static void teardown(void)
{
    for (int a = 0; a < 3; a++)
        free(old[a]);
    part_free(&ps);
    grid_free(&g);
}

/* Sets every face of component a of field f to value. */
static void fill(float *const f[3], Vec3 value)
{
    for (int a = 0; a < 3; a++)
        for (size_t q = 0; q < grid_faces(&g, a); q++)
            f[a][q] = vec3_get(value, a);
}

static void run(float alpha)
{
    harness_track()->g2p(&ps, &g, old, alpha);
}

static void check(const char *what, const Vec3 *want)
{
    Tol tol = { 1e-5f, 1e-5f };
    compare_particles("g2p", what, want, ps.vel, ps.count, tol);
}

START_TEST(pic_takes_the_grid_velocity)
{
    /* alpha = 1 (PIC): a uniform grid velocity (1, -2, 0.5) becomes every particle's velocity,
     * whatever it had before. */
    fill(g.vel, (Vec3){ 1.0f, -2.0f, 0.5f });
    fill(old, (Vec3){ 7.0f, 7.0f, 7.0f });
    run(1.0f);
    Vec3 want[3] = { { 1.0f, -2.0f, 0.5f }, { 1.0f, -2.0f, 0.5f }, { 1.0f, -2.0f, 0.5f } };
    check("velocity with alpha = 1 (PIC) on a uniform grid velocity (1, -2, 0.5)", want);
}
END_TEST

START_TEST(flip_adds_the_grid_change)
{
    /* alpha = 0 (FLIP): the particle keeps its velocity plus the change of the grid,
     * vel - vel_old = (1, -2, 0.5) - (0.5, -1, 0.25) = (0.5, -1, 0.25). */
    fill(g.vel, (Vec3){ 1.0f, -2.0f, 0.5f });
    fill(old, (Vec3){ 0.5f, -1.0f, 0.25f });
    run(0.0f);
    Vec3 want[3];
    for (int p = 0; p < 3; p++)
        want[p] = (Vec3){ start_vel[p].x + 0.5f, start_vel[p].y - 1.0f, start_vel[p].z + 0.25f };
    check("velocity with alpha = 0 (FLIP): old velocity + (vel - vel_old)", want);
}
END_TEST

START_TEST(flip_uses_the_change_not_the_old)
{
    /* alpha = 0 again, with an old grid velocity that is not a multiple of the new one:
     * vel - vel_old = (1, -2, 0.5) - (3, 1, -0.5) = (-2, -3, 1), whereas vel_old alone is
     * (3, 1, -0.5) and vel alone (1, -2, 0.5); each gives another answer. */
    fill(g.vel, (Vec3){ 1.0f, -2.0f, 0.5f });
    fill(old, (Vec3){ 3.0f, 1.0f, -0.5f });
    run(0.0f);
    Vec3 want[3];
    for (int p = 0; p < 3; p++)
        want[p] = (Vec3){ start_vel[p].x - 2.0f, start_vel[p].y - 3.0f, start_vel[p].z + 1.0f };
    check("velocity with alpha = 0 (FLIP), vel_old = (3, 1, -0.5): old velocity + (vel - vel_old)", want);
}
END_TEST

START_TEST(slots_past_count_are_left_alone)
{
    /* Room for 6 particles, 3 of them real: the spare slots hold (9, 9, 9) and must keep it. */
    ck_assert_int_eq(part_reserve(&ps, 6), 0);
    for (size_t p = 3; p < 6; p++) {
        ps.pos[p] = (Vec3){ 1.0f, 1.0f, 1.0f };
        ps.vel[p] = (Vec3){ 9.0f, 9.0f, 9.0f };
    }
    fill(g.vel, (Vec3){ 1.0f, -2.0f, 0.5f });
    run(1.0f);
    for (size_t p = 3; p < 6; p++)
        ck_assert_msg(ps.vel[p].x == 9.0f && ps.vel[p].y == 9.0f && ps.vel[p].z == 9.0f,
                      "g2p: slot %zu, past ps->count = %zu, was changed from (9, 9, 9) to "
                      "(%g, %g, %g): loop over p < ps->count, not the capacity", p, ps.count,
                      (double)ps.vel[p].x, (double)ps.vel[p].y, (double)ps.vel[p].z);
}
END_TEST

START_TEST(each_component_on_its_own_staggering)
{
    /* u = x, v = y, w = z: each component varies along the axis its faces are staggered on,
     * so reading any component with another's face positions is off by half a cell there
     * (u = 2x + 3y, v = -z, w = y + 1 above is the same under either staggering for v and w).
     * Exact: every particle gets its own position as velocity. */
    for (int a = 0; a < 3; a++) {
        const int *n = g.face[a].n;
        for (int k = 0; k < n[2]; k++)
            for (int j = 0; j < n[1]; j++)
                for (int i = 0; i < n[0]; i++)
                    g.vel[a][grid_face_index(&g, a, i, j, k)] = vec3_get(grid_face_position(&g, a, i, j, k), a);
    }
    run(1.0f);
    check("velocity with alpha = 1 on u = x, v = y, w = z (each component read at its own faces)",
          start_pos);
}
END_TEST

START_TEST(the_last_face_layer_counts)
{
    /* A particle at (6.75, 2.5, 2.5) cells, 0.25 cell from u's last face u(7,2,2) on the +x
     * wall (u has nx + 1 faces along x): with u = 2 on every face and alpha = 1 it gets
     * u = 0.25 * 2 + 0.75 * 2 = 2, as anywhere else. Dropping the last layer would give 0.5. */
    ps.count = 0;
    ck_assert_int_eq(part_push(&ps, (Vec3){ 6.75f * g.dx, 2.5f * g.dx, 2.5f * g.dx }, (Vec3){ 0, 0, 0 }), 0);
    fill(g.vel, (Vec3){ 2.0f, 0.0f, 0.0f });
    run(1.0f);
    Vec3 want[1] = { { 2.0f, 0.0f, 0.0f } };
    check("velocity with alpha = 1, u = 2 everywhere, a particle next to the +x wall's faces", want);
}
END_TEST

START_TEST(alpha_blends_the_two)
{
    /* alpha = 0.3: 0.3 PIC + 0.7 FLIP. Particle 0: PIC (1, -2, 0.5), FLIP (10.5, 19, 30.25):
     * (0.3 + 7.35, -0.6 + 13.3, 0.15 + 21.175) = (7.65, 12.7, 21.325). */
    fill(g.vel, (Vec3){ 1.0f, -2.0f, 0.5f });
    fill(old, (Vec3){ 0.5f, -1.0f, 0.25f });
    run(0.3f);
    Vec3 want[3];
    for (int p = 0; p < 3; p++) {
        Vec3 flip = { start_vel[p].x + 0.5f, start_vel[p].y - 1.0f, start_vel[p].z + 0.25f };
        want[p] = (Vec3){ 0.3f * 1.0f + 0.7f * flip.x, 0.3f * -2.0f + 0.7f * flip.y,
                          0.3f * 0.5f + 0.7f * flip.z };
    }
    ck_assert_float_eq_tol(want[0].x, 7.65f, 1e-5f);
    check("velocity with alpha = 0.3 (0.3 PIC + 0.7 FLIP)", want);
}
END_TEST

START_TEST(linear_fields_are_interpolated_exactly)
{
    /* Trilinear interpolation reproduces a linear field: u = 2x + 3y, v = -z, w = y + 1
     * (x, y, z the face positions in metres) give particle 1 at (2.05, 0.8, 1.45) the PIC
     * velocity (2 * 2.05 + 3 * 0.8, -1.45, 1.8) = (6.5, -1.45, 1.8). */
    for (int a = 0; a < 3; a++) {
        const int *n = g.face[a].n;
        for (int k = 0; k < n[2]; k++)
            for (int j = 0; j < n[1]; j++)
                for (int i = 0; i < n[0]; i++) {
                    Vec3 x = grid_face_position(&g, a, i, j, k);
                    float v = a == 0 ? 2.0f * x.x + 3.0f * x.y : a == 1 ? -x.z : x.y + 1.0f;
                    g.vel[a][grid_face_index(&g, a, i, j, k)] = v;
                }
    }
    run(1.0f);
    Vec3 want[3];
    for (int p = 0; p < 3; p++) {
        Vec3 x = start_pos[p];
        want[p] = (Vec3){ 2.0f * x.x + 3.0f * x.y, -x.z, x.y + 1.0f };
    }
    check("velocity with alpha = 1 on u = 2x + 3y, v = -z, w = y + 1 (exact for linear fields)",
          want);
}
END_TEST

START_TEST(positions_are_not_changed)
{
    fill(g.vel, (Vec3){ 1.0f, 1.0f, 1.0f });
    run(0.5f);
    Tol exact = { 0.0f, 0.0f };
    compare_particles("g2p", "position (g2p must not move particles)", start_pos, ps.pos, 3, exact);
}
END_TEST

START_TEST(golden)
{
    /* The reference's output on a golden case, with the tolerances in tests/lib/stagecase.c. */
    golden_check(harness_track(), "g2p", _i);
}
END_TEST

static Suite *g2p_suite(void)
{
    Suite *s = suite_create("g2p");
    TCase *tc = harness_tcase("analytic", HARNESS_ANALYTIC_SECONDS);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, pic_takes_the_grid_velocity);
    tcase_add_test(tc, flip_adds_the_grid_change);
    tcase_add_test(tc, alpha_blends_the_two);
    tcase_add_test(tc, flip_uses_the_change_not_the_old);
    tcase_add_test(tc, slots_past_count_are_left_alone);
    tcase_add_test(tc, the_last_face_layer_counts);
    tcase_add_test(tc, each_component_on_its_own_staggering);
    tcase_add_test(tc, linear_fields_are_interpolated_exactly);
    tcase_add_test(tc, positions_are_not_changed);
    suite_add_tcase(s, tc);
    golden_add_tcase(s, "g2p", golden);
    return s;
}

int main(void)
{
    return harness_run_stage(g2p_suite());
}
