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


/* One particle at (cx, cy, cz) cells; component a is 1 on face (i,j,k) and 0 on every other
 * face, and alpha = 1: the particle's velocity component a is that face's tent weight at it. */
static void expect_weight(float cx, float cy, float cz, int a, int i, int j, int k, float want)
{
    ps.count = 0;
    ck_assert_int_eq(part_push(&ps, (Vec3){ cx * g.dx, cy * g.dx, cz * g.dx }, (Vec3){ 0, 0, 0 }), 0);
    fill(g.vel, (Vec3){ 0.0f, 0.0f, 0.0f });
    fill(old, (Vec3){ 0.0f, 0.0f, 0.0f });
    g.vel[a][grid_face_index(&g, a, i, j, k)] = 1.0f;
    run(1.0f);
    float got = vec3_get(ps.vel[0], a);
    char c = grid_component_letter(a);
    ck_assert_msg(fabsf(got - want) <= 1e-6f,
                  "g2p: %c of a particle at (%g, %g, %g) cells, with %c = 1 on face %c(%d,%d,%d) only "
                  "and alpha = 1: expected %.7g (that face's tent weight there), got %.7g",
                  c, (double)cx, (double)cy, (double)cz, c, c, i, j, k, (double)want, (double)got);
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

START_TEST(the_base_face_is_the_one_below_the_particle)
{
    /* A particle at (3.25, 2.25, 2.5) cells. u faces sit at (i, j + 1/2, k + 1/2) cells, so in
     * y the particle is between rows j = 1 (1.5) and 2 (2.5), 3/4 of the way: its u stencil
     * starts at row 1, not at its own cell's row 2. With x (1/4 from u(3) to u(4)) and z (on
     * row k = 2): u(3,1,2) weighs 0.75 * 0.25, u(3,2,2) 0.75 * 0.75, u(4,2,2) 0.25 * 0.75,
     * u(3,3,2) 0. v faces at (i + 1/2, j, k + 1/2): x between columns 2 and 3 (t = 3/4), y
     * 1/4 from v(.,2,.): v(2,2,2) 0.25 * 0.75, v(3,2,2) 0.75 * 0.75, v(3,3,2) 0.75 * 0.25.
     * w faces at (i + 1/2, j + 1/2, k): z halfway between w(.,.,2) and w(.,.,3), so w(3,2,2)
     * 0.75 * 0.75 * 0.5 and w(2,1,3) 0.25 * 0.25 * 0.5. A linear field cannot show a wrong
     * base (interpolation and extrapolation of a line agree); one face at a time does. */
    expect_weight(3.25f, 2.25f, 2.5f, 0, 3, 1, 2, 0.75f * 0.25f);
    expect_weight(3.25f, 2.25f, 2.5f, 0, 3, 2, 2, 0.75f * 0.75f);
    expect_weight(3.25f, 2.25f, 2.5f, 0, 4, 2, 2, 0.25f * 0.75f);
    expect_weight(3.25f, 2.25f, 2.5f, 0, 3, 3, 2, 0.0f);
    expect_weight(3.25f, 2.25f, 2.5f, 1, 2, 2, 2, 0.25f * 0.75f);
    expect_weight(3.25f, 2.25f, 2.5f, 1, 3, 2, 2, 0.75f * 0.75f);
    expect_weight(3.25f, 2.25f, 2.5f, 1, 3, 3, 2, 0.75f * 0.25f);
    expect_weight(3.25f, 2.25f, 2.5f, 2, 3, 2, 2, 0.75f * 0.75f * 0.5f);
    expect_weight(3.25f, 2.25f, 2.5f, 2, 2, 1, 3, 0.25f * 0.25f * 0.5f);
}
END_TEST

START_TEST(weights_sum_to_one_past_the_last_face_row)
{
    /* A particle at (6.75, 5.75, 4.75) cells, in the top corner's wall cell, past the last row
     * of u faces in y (j = 5, at 5.5 cells) and in z (k = 4, at 4.5), of v faces in x and z,
     * of w faces in x and y. The stencil is clamped onto those last rows, its weights still
     * sum to 1, so a uniform grid velocity (2, -1, 0.5) is read back unchanged. Weights that
     * drop the faces past the last row read less (u = 2 * 0.75 * 0.75 = 1.125 with both). */
    ps.count = 0;
    ck_assert_int_eq(part_push(&ps, (Vec3){ 6.75f * g.dx, 5.75f * g.dx, 4.75f * g.dx }, (Vec3){ 0, 0, 0 }), 0);
    fill(g.vel, (Vec3){ 2.0f, -1.0f, 0.5f });
    run(1.0f);
    Vec3 want[1] = { { 2.0f, -1.0f, 0.5f } };
    check("velocity with alpha = 1, a uniform (2, -1, 0.5), a particle past the last face rows "
          "at (6.75, 5.75, 4.75) cells (the 8 weights sum to 1 there too)", want);
    expect_weight(6.75f, 5.75f, 4.75f, 0, 7, 5, 4, 0.75f);
    expect_weight(6.75f, 5.75f, 4.75f, 1, 6, 6, 4, 0.75f);
    expect_weight(6.75f, 5.75f, 4.75f, 2, 6, 5, 5, 0.75f);
}
END_TEST

START_TEST(a_particle_on_a_face_or_the_upper_bound_reads_that_face)
{
    /* Exactly on u(3,2,2), at (3, 2.5, 2.5) cells, a particle reads that face alone: weight 1,
     * and 0 from u(4,2,2) and u(2,2,2). Exactly on the grid's upper bound in x, (7, 2.5, 2.5),
     * it is on the last u face, u(7,2,2): 1 there, 0 from u(6,2,2). The same for v(3,6,2) at
     * y = ny and w(3,2,5) at z = nz, and u(0,2,2) on the lower bound. */
    expect_weight(3.0f, 2.5f, 2.5f, 0, 3, 2, 2, 1.0f);
    expect_weight(3.0f, 2.5f, 2.5f, 0, 4, 2, 2, 0.0f);
    expect_weight(3.0f, 2.5f, 2.5f, 0, 2, 2, 2, 0.0f);
    expect_weight(7.0f, 2.5f, 2.5f, 0, 7, 2, 2, 1.0f);
    expect_weight(7.0f, 2.5f, 2.5f, 0, 6, 2, 2, 0.0f);
    expect_weight(3.5f, 6.0f, 2.5f, 1, 3, 6, 2, 1.0f);
    expect_weight(3.5f, 6.0f, 2.5f, 1, 3, 5, 2, 0.0f);
    expect_weight(3.5f, 2.5f, 5.0f, 2, 3, 2, 5, 1.0f);
    expect_weight(3.5f, 2.5f, 5.0f, 2, 3, 2, 4, 0.0f);
    expect_weight(0.0f, 2.5f, 2.5f, 0, 0, 2, 2, 1.0f);
}
END_TEST

START_TEST(clamping_moves_the_stencil_not_the_particle)
{
    /* u = y (the face's height in metres). Rows of u faces sit at y = (j + 1/2) dx, the first
     * at 0.25 m and the last (j = 5) at 2.75 m. A particle below the first row, at (3.5, 0.25,
     * 2.5) cells (y = 0.125 m), reads row 0: u = 0.25, not the extrapolated 0.125; one above
     * the last, at (3.5, 5.75, 2.5) cells, reads row 5: 2.75, not 2.875. One outside the grid,
     * at (-0.5, 2.5, 2.5) cells, reads u(0,2,2): 1.25. None of them is moved: g2p clamps its
     * stencil, never a particle's position. */
    static const Vec3 at[3] = { { 1.75f, 0.125f, 1.25f }, { 1.75f, 2.875f, 1.25f }, { -0.25f, 1.25f, 1.25f } };
    ps.count = 0;
    for (int p = 0; p < 3; p++)
        ck_assert_int_eq(part_push(&ps, at[p], (Vec3){ 0, 0, 0 }), 0);
    fill(g.vel, (Vec3){ 0.0f, 0.0f, 0.0f });
    const int *n = g.face[0].n;
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++)
                g.vel[0][grid_face_index(&g, 0, i, j, k)] = grid_face_position(&g, 0, i, j, k).y;
    run(1.0f);
    Tol exact = { 0.0f, 0.0f };
    compare_particles("g2p", "position of particles below, above and outside the face rows "
                      "(clamp the stencil, not the particle)", at, ps.pos, 3, exact);
    Vec3 want[3] = { { 0.25f, 0.0f, 0.0f }, { 2.75f, 0.0f, 0.0f }, { 1.25f, 0.0f, 0.0f } };
    check("velocity with alpha = 1, u = y, particles below the first and above the last row of "
          "u faces and outside the grid (each reads the nearest row)", want);
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
    tcase_add_test(tc, the_base_face_is_the_one_below_the_particle);
    tcase_add_test(tc, weights_sum_to_one_past_the_last_face_row);
    tcase_add_test(tc, a_particle_on_a_face_or_the_upper_bound_reads_that_face);
    tcase_add_test(tc, clamping_moves_the_stencil_not_the_particle);
    suite_add_tcase(s, tc);
    golden_add_tcase(s, "g2p", golden);
    return s;
}

int main(void)
{
    return harness_run_stage(g2p_suite());
}
