/* test_advect.c — the advect stage: every particle moves by dt times its own velocity.
 * flipkit tests/: `make test-advect`. CK_FORK=no build/tests/test_advect runs in one process
 * (for gdb); CK_RUN_CASE=analytic (or golden) runs one case. Contract: common/stages.h. */
#include <math.h>
#include <stdlib.h>

#include "compare.h"
#include "golden.h"
#include "harness.h"

static Particles ps;

/* Four particles whose velocities differ in every component, so a swapped or missing
 * component shows in the position it should have moved. */
static const Vec3 start_pos[4] = { { 1.0f, 2.0f, 3.0f }, { 0.5f, 0.25f, 0.75f },
                                   { 2.0f, 1.0f, 0.5f }, { 1.5f, 1.5f, 1.5f } };
static const Vec3 start_vel[4] = { { 1.0f, -2.0f, 0.5f }, { 0.0f, 0.0f, 3.0f },
                                   { -4.0f, 0.25f, 0.0f }, { 0.0f, 0.0f, 0.0f } };

static void setup(void)
{
    part_init(&ps);
    for (int p = 0; p < 4; p++)
        ck_assert_int_eq(part_push(&ps, start_pos[p], start_vel[p]), 0);
}

static void teardown(void)
{
    part_free(&ps);
}

START_TEST(moves_by_dt_times_velocity)
{
    /* Particle 0 with v = (1, -2, 0.5) and dt = 0.1 goes from (1, 2, 3) to (1.1, 1.8, 3.05). */
    harness_track()->advect(&ps, 0.1f);
    Vec3 want[4];
    for (int p = 0; p < 4; p++)
        want[p] = (Vec3){ start_pos[p].x + 0.1f * start_vel[p].x, start_pos[p].y + 0.1f * start_vel[p].y,
                          start_pos[p].z + 0.1f * start_vel[p].z };
    ck_assert_float_eq_tol(want[0].y, 1.8f, 1e-6f);
    Tol tol = { 1e-6f, 1e-6f };
    compare_particles("advect", "position", want, ps.pos, 4, tol);
}
END_TEST

START_TEST(each_axis_moves_with_its_own_component)
{
    /* Particle 1 has v = (0, 0, 3): with dt = 0.5 only z changes, by 1.5. */
    harness_track()->advect(&ps, 0.5f);
    Vec3 got = ps.pos[1];
    ck_assert_msg(got.x == 0.5f && got.y == 0.25f && got.z == 0.75f + 1.5f,
                  "advect: particle 1 with velocity (0, 0, 3) and dt 0.5: expected position "
                  "(0.5, 0.25, 2.25), got (%g, %g, %g) (x moves with vel.x, y with vel.y, z with vel.z)",
                  (double)got.x, (double)got.y, (double)got.z);
}
END_TEST

START_TEST(scales_with_dt)
{
    /* Two substeps of 0.05 land where one of 0.1 does (to float rounding). The hint names
     * the likelier mistake: a velocity changed by the first substep, else dt. */
    harness_track()->advect(&ps, 0.05f);
    Vec3 between = ps.vel[2];
    harness_track()->advect(&ps, 0.05f);
    Vec3 got = ps.pos[2], want = { 2.0f - 0.4f, 1.0f + 0.025f, 0.5f };
    int vel_kept = between.x == -4.0f && between.y == 0.25f && between.z == 0.0f;
    ck_assert_msg(fabsf(got.x - want.x) < 1e-5f && fabsf(got.y - want.y) < 1e-5f &&
                      fabsf(got.z - want.z) < 1e-5f,
                  "advect: particle 2 with velocity (-4, 0.25, 0) after two substeps of dt 0.05: "
                  "expected (1.6, 1.025, 0.5), got (%g, %g, %g) (%s)", (double)got.x,
                  (double)got.y, (double)got.z,
                  vel_kept ? "is dt used?"
                           : "the first substep changed its velocity; advect must leave it alone");
}
END_TEST

START_TEST(velocities_are_not_changed)
{
    harness_track()->advect(&ps, 0.1f);
    Tol exact = { 0.0f, 0.0f };
    compare_particles("advect", "velocity (advect must not change it)", start_vel, ps.vel, 4, exact);
}
END_TEST

START_TEST(every_particle_moves)
{
    /* Particle 3 of the fixture is at rest, so a loop that stops one short moves it "right";
     * here every particle has a velocity, particle 3 (0.5, 0.5, -1): dt = 0.2. */
    ps.vel[3] = (Vec3){ 0.5f, 0.5f, -1.0f };
    harness_track()->advect(&ps, 0.2f);
    Vec3 want[4];
    for (int p = 0; p < 4; p++)
        want[p] = (Vec3){ start_pos[p].x + 0.2f * ps.vel[p].x, start_pos[p].y + 0.2f * ps.vel[p].y,
                          start_pos[p].z + 0.2f * ps.vel[p].z };
    Tol tol = { 1e-6f, 1e-6f };
    compare_particles("advect", "position (every particle moving, the last one too)", want, ps.pos, 4, tol);
}
END_TEST

START_TEST(slots_past_count_are_left_alone)
{
    /* The arrays hold room for more particles than ps->count; what lies beyond count is not a
     * particle (a stage that runs to the capacity moves garbage, or writes past the end). */
    ck_assert_int_eq(part_reserve(&ps, 8), 0);
    ck_assert_uint_ge(ps.capacity, 8);
    for (size_t p = 4; p < 8; p++) {
        ps.pos[p] = (Vec3){ 7.0f, 7.0f, 7.0f };
        ps.vel[p] = (Vec3){ 1.0f, 1.0f, 1.0f };
    }
    harness_track()->advect(&ps, 0.5f);
    for (size_t p = 4; p < 8; p++)
        ck_assert_msg(ps.pos[p].x == 7.0f && ps.pos[p].y == 7.0f && ps.pos[p].z == 7.0f,
                      "advect: slot %zu, past ps->count = %zu, was changed from (7, 7, 7) to "
                      "(%g, %g, %g): loop over p < ps->count, not the capacity", p, ps.count,
                      (double)ps.pos[p].x, (double)ps.pos[p].y, (double)ps.pos[p].z);
}
END_TEST

START_TEST(golden)
{
    /* The reference's output on a golden case, with the tolerances in tests/lib/stagecase.c. */
    golden_check(harness_track(), "advect", _i);
}
END_TEST

static Suite *advect_suite(void)
{
    Suite *s = suite_create("advect");
    TCase *tc = harness_tcase("analytic", HARNESS_ANALYTIC_SECONDS);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, moves_by_dt_times_velocity);
    tcase_add_test(tc, each_axis_moves_with_its_own_component);
    tcase_add_test(tc, scales_with_dt);
    tcase_add_test(tc, velocities_are_not_changed);
    tcase_add_test(tc, every_particle_moves);
    tcase_add_test(tc, slots_past_count_are_left_alone);
    suite_add_tcase(s, tc);
    golden_add_tcase(s, "advect", golden);
    return s;
}

int main(void)
{
    return harness_run_stage(advect_suite());
}
