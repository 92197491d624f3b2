/* test_p2g.c — the p2g stage: each face velocity is the tent-weighted average of the particles.
 * flipkit tests/: `make test-p2g`. CK_FORK=no build/tests/test_p2g runs in one process (for
 * gdb); CK_RUN_CASE=analytic (or golden) runs one case. Contract: common/stages.h. */
#include <math.h>
#include <stdlib.h>

#include "compare.h"
#include "golden.h"
#include "harness.h"

static MacGrid g;
static Particles ps;


/* 7x5x6 cells of 0.5 m (cell types do not matter to p2g); vel and weight filled with 123 so
 * an entry the stage forgets to overwrite shows. */
static void setup(void)
{
    ck_assert_int_eq(grid_init(&g, 7, 5, 6, 0.5f), 0);
    for (int a = 0; a < 3; a++)
        for (size_t f = 0; f < grid_faces(&g, a); f++)
            g.vel[a][f] = g.weight[a][f] = 123.0f;
    part_init(&ps);
}

static void teardown(void)
{
    part_free(&ps);
    grid_free(&g);
}

/* A particle at (i + fx, j + fy, k + fz) cells. */
static void add(float fx, float fy, float fz, Vec3 v)
{
    Vec3 x = { fx * g.dx, fy * g.dx, fz * g.dx };
    ck_assert_int_eq(part_push(&ps, x, v), 0);
}

static void expect_face(int a, int i, int j, int k, float vel, float weight)
{
    size_t f = grid_face_index(&g, a, i, j, k);
    float gv = g.vel[a][f], gw = g.weight[a][f];
    ck_assert_msg(fabsf(gw - weight) <= 1e-6f && fabsf(gv - vel) <= 1e-5f,
                  "p2g: %c(%d,%d,%d), the face at (%g, %g, %g) m: expected weight %.7g and "
                  "velocity %.7g, got weight %.7g and velocity %.7g", grid_component_letter(a), i, j, k,
                  (double)grid_face_position(&g, a, i, j, k).x,
                  (double)grid_face_position(&g, a, i, j, k).y,
                  (double)grid_face_position(&g, a, i, j, k).z, (double)weight, (double)vel,
                  (double)gw, (double)gv);
}

START_TEST(particle_on_a_face_gives_weight_one)
{
    /* u(3,2,2) sits at (3, 2.5, 2.5) cells. A particle exactly there gives that face weight 1
     * and its own u; the neighbouring u faces get weight 0. */
    add(3.0f, 2.5f, 2.5f, (Vec3){ 2.0f, 3.0f, 4.0f });
    harness_track()->p2g(&ps, &g);
    expect_face(0, 3, 2, 2, 2.0f, 1.0f);
    expect_face(0, 4, 2, 2, 0.0f, 0.0f);
    expect_face(0, 3, 3, 2, 0.0f, 0.0f);
}
END_TEST

START_TEST(weights_are_tent_weights)
{
    /* A particle at (3.25, 2.5, 2.5) cells: along x it is 1/4 of the way from u(3,2,2) to
     * u(4,2,2), so they get 3/4 and 1/4; along y and z it is on the faces' rows. */
    add(3.25f, 2.5f, 2.5f, (Vec3){ -1.0f, 0.0f, 0.0f });
    harness_track()->p2g(&ps, &g);
    expect_face(0, 3, 2, 2, -1.0f, 0.75f);
    expect_face(0, 4, 2, 2, -1.0f, 0.25f);
    /* And in 3D: at (3, 2.75, 2.25) the u weights are (1-t_y)(1-t_z) = 0.75 * 0.25, ... with
     * t_y = 0.25, t_z = 0.75 from the face rows at j + 1/2, k + 1/2. */
    ps.count = 0;
    add(3.0f, 2.75f, 2.25f, (Vec3){ 1.0f, 0.0f, 0.0f });
    harness_track()->p2g(&ps, &g);
    expect_face(0, 3, 2, 1, 1.0f, 0.75f * 0.25f);
    expect_face(0, 3, 3, 1, 1.0f, 0.25f * 0.25f);
    expect_face(0, 3, 2, 2, 1.0f, 0.75f * 0.75f);
    expect_face(0, 3, 3, 2, 1.0f, 0.25f * 0.75f);
    /* The other way round, at (3, 2.25, 2.75): the rows below in y (j = 1, 2; t_y = 0.75) and
     * above in z (k = 2, 3; t_z = 0.25). */
    ps.count = 0;
    add(3.0f, 2.25f, 2.75f, (Vec3){ 1.0f, 0.0f, 0.0f });
    harness_track()->p2g(&ps, &g);
    expect_face(0, 3, 1, 2, 1.0f, 0.25f * 0.75f);
    expect_face(0, 3, 2, 2, 1.0f, 0.75f * 0.75f);
    expect_face(0, 3, 1, 3, 1.0f, 0.25f * 0.25f);
    expect_face(0, 3, 2, 3, 1.0f, 0.75f * 0.25f);
}
END_TEST

START_TEST(each_component_on_its_own_faces)
{
    /* A particle at the centre of cell (3,2,2): u splits 1/2-1/2 between u(3,2,2) and
     * u(4,2,2) (x-faces), v between v(3,2,2) and v(3,3,2), w between w(3,2,2) and w(3,2,3). */
    add(3.5f, 2.5f, 2.5f, (Vec3){ 1.0f, -2.0f, 3.0f });
    harness_track()->p2g(&ps, &g);
    expect_face(0, 3, 2, 2, 1.0f, 0.5f);
    expect_face(0, 4, 2, 2, 1.0f, 0.5f);
    expect_face(1, 3, 2, 2, -2.0f, 0.5f);
    expect_face(1, 3, 3, 2, -2.0f, 0.5f);
    expect_face(2, 3, 2, 2, 3.0f, 0.5f);
    expect_face(2, 3, 2, 3, 3.0f, 0.5f);
}
END_TEST

START_TEST(an_average_not_a_sum)
{
    /* Two particles on u(3,2,2) with u = 1 and u = 3 give 2 (and weight 2), not 4: particles
     * carry velocity, not mass. A third at 1/4 from the face with u = 5 has weight 3/4 there:
     * (1 + 3 + 0.75 * 5) / 2.75. */
    add(3.0f, 2.5f, 2.5f, (Vec3){ 1.0f, 0.0f, 0.0f });
    add(3.0f, 2.5f, 2.5f, (Vec3){ 3.0f, 0.0f, 0.0f });
    harness_track()->p2g(&ps, &g);
    expect_face(0, 3, 2, 2, 2.0f, 2.0f);
    add(3.25f, 2.5f, 2.5f, (Vec3){ 5.0f, 0.0f, 0.0f });
    harness_track()->p2g(&ps, &g);
    expect_face(0, 3, 2, 2, (1.0f + 3.0f + 0.75f * 5.0f) / 2.75f, 2.75f);
}
END_TEST

START_TEST(faces_no_particle_reaches_are_zero)
{
    /* One particle near (1,1,1): every face it does not reach must be overwritten with 0
     * (vel and weight were 123), including faces inside walls. */
    add(1.5f, 1.5f, 1.5f, (Vec3){ 1.0f, 1.0f, 1.0f });
    harness_track()->p2g(&ps, &g);
    for (int a = 0; a < 3; a++) {
        const int *n = g.face[a].n;
        for (int k = 0; k < n[2]; k++)
            for (int j = 0; j < n[1]; j++)
                for (int i = 0; i < n[0]; i++) {
                    size_t f = grid_face_index(&g, a, i, j, k);
                    if (g.weight[a][f] > 0.0f && g.weight[a][f] <= 1.0f)
                        continue;
                    ck_assert_msg(g.weight[a][f] == 0.0f && g.vel[a][f] == 0.0f,
                                  "p2g: %c(%d,%d,%d), a face no particle reaches: expected velocity "
                                  "0 and weight 0, got %.7g and %.7g (overwrite every face)",
                                  grid_component_letter(a), i, j, k, (double)g.vel[a][f],
                                  (double)g.weight[a][f]);
                }
    }
}
END_TEST

START_TEST(the_last_face_layer_counts)
{
    /* u has nx + 1 = 8 faces along x: the last, u(7,j,k), is the +x wall's face, past the last
     * cell. Two particles at (6.75, 2.5, 2.5) cells, u = 2 and 4, each give it weight 0.75:
     * weight 1.5 and the average 3. The same for w(3,2,6) on the +z wall (nz + 1 = 7 faces). */
    add(6.75f, 2.5f, 2.5f, (Vec3){ 2.0f, 0.0f, 0.0f });
    add(6.75f, 2.5f, 2.5f, (Vec3){ 4.0f, 0.0f, 0.0f });
    add(3.5f, 2.5f, 5.75f, (Vec3){ 0.0f, 0.0f, -1.0f });
    harness_track()->p2g(&ps, &g);
    expect_face(0, 7, 2, 2, 3.0f, 1.5f);
    expect_face(0, 6, 2, 2, 3.0f, 0.5f);
    expect_face(2, 3, 2, 6, -1.0f, 0.75f);
}
END_TEST

/* The sum of component a's weights over all its faces: one particle's is 1, wherever it is. */
static void expect_total_weight(int a, const char *where)
{
    double sum = 0.0;
    for (size_t f = 0; f < grid_faces(&g, a); f++)
        sum += g.weight[a][f];
    ck_assert_msg(fabs(sum - 1.0) <= 1e-6,
                  "p2g: weight of the %c faces, summed over all of them, for one particle %s: "
                  "expected 1, got %.7g (its 8 tent weights must sum to 1 there too)",
                  grid_component_letter(a), where, sum);
}

START_TEST(weights_sum_to_one_past_the_last_face_row)
{
    /* A particle at (6.75, 4.75, 5.75) cells, in the top corner's wall cell: in y it is above
     * the last row of u faces (j = ny - 1 = 4, at y = 4.5 cells) and in z above the last row of
     * u and v faces (k = 5, at 5.5). There the stencil's base is clamped to the row below the
     * last and the fraction is 1, so the last row gets the whole weight of that axis: u(6,4,5)
     * 0.25 and u(7,4,5) 0.75 (x: 3/4 of the way from u(6) to u(7)); v(6,4,5) 0.25 and
     * v(6,5,5) 0.75 (x clamped onto the last column i = 6); w(6,4,5) 0.25 and w(6,4,6) 0.75.
     * Each component's weights still sum to 1. */
    add(6.75f, 4.75f, 5.75f, (Vec3){ 1.0f, 2.0f, 3.0f });
    harness_track()->p2g(&ps, &g);
    const char *where = "at (6.75, 4.75, 5.75) cells, past the last face rows";
    for (int a = 0; a < 3; a++)
        expect_total_weight(a, where);
    expect_face(0, 6, 4, 5, 1.0f, 0.25f);
    expect_face(0, 7, 4, 5, 1.0f, 0.75f);
    expect_face(1, 6, 4, 5, 2.0f, 0.25f);
    expect_face(1, 6, 5, 5, 2.0f, 0.75f);
    expect_face(2, 6, 4, 5, 3.0f, 0.25f);
    expect_face(2, 6, 4, 6, 3.0f, 0.75f);
}
END_TEST

START_TEST(a_particle_on_the_upper_bound_weighs_on_the_last_face)
{
    /* A particle exactly on the grid's upper bound in x, (7, 2.5, 2.5) cells, is exactly on the
     * last u face, u(7,2,2): weight 1 there and 0 on u(6,2,2), as on any other face. The same
     * for v(3,5,2) at y = ny, w(3,2,6) at z = nz, and u(0,2,2) on the lower bound. */
    static const struct { float at[3]; int a, on[3], beside[3]; } cases[] = {
        { { 7.0f, 2.5f, 2.5f }, 0, { 7, 2, 2 }, { 6, 2, 2 } },
        { { 3.5f, 5.0f, 2.5f }, 1, { 3, 5, 2 }, { 3, 4, 2 } },
        { { 3.5f, 2.5f, 6.0f }, 2, { 3, 2, 6 }, { 3, 2, 5 } },
        { { 0.0f, 2.5f, 2.5f }, 0, { 0, 2, 2 }, { 1, 2, 2 } },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ps.count = 0;
        add(cases[c].at[0], cases[c].at[1], cases[c].at[2], (Vec3){ -1.0f, -2.0f, -3.0f });
        harness_track()->p2g(&ps, &g);
        int a = cases[c].a;
        float va = -(float)(a + 1);
        expect_face(a, cases[c].on[0], cases[c].on[1], cases[c].on[2], va, 1.0f);
        expect_face(a, cases[c].beside[0], cases[c].beside[1], cases[c].beside[2], 0.0f, 0.0f);
    }
}
END_TEST

START_TEST(clamping_moves_the_stencil_not_the_particle)
{
    /* A particle at (3.5, 0.25, 2.5) cells is inside the grid but below the first row of u
     * faces (j = 0, at y = 0.5 cells). Its stencil is clamped, not extrapolated: in y the
     * fraction is clamped to 0 on row 0, so u(3,0,2) and u(4,0,2) get 0.5 each and row 1
     * nothing. Keeping the particle inside the grid instead, with the fraction y - 0.5 =
     * -0.25, gives row 0 weight 0.625 and row 1 a negative one. The same at the top, at
     * (3.5, 4.75, 2.5): row 4 (the last, at 4.5 cells) gets 0.5 and 0.5, row 3 nothing. */
    static const float ys[2] = { 0.25f, 4.75f };
    static const int rows[2][2] = { { 0, 1 }, { 4, 3 } };
    for (int c = 0; c < 2; c++) {
        ps.count = 0;
        add(3.5f, ys[c], 2.5f, (Vec3){ 2.0f, 0.0f, 0.0f });
        harness_track()->p2g(&ps, &g);
        expect_face(0, 3, rows[c][0], 2, 2.0f, 0.5f);
        expect_face(0, 4, rows[c][0], 2, 2.0f, 0.5f);
        expect_face(0, 3, rows[c][1], 2, 0.0f, 0.0f);
        expect_face(0, 4, rows[c][1], 2, 0.0f, 0.0f);
    }
}
END_TEST

START_TEST(golden)
{
    /* The reference's output on a golden case, with the tolerances in tests/lib/stagecase.c. */
    golden_check(harness_track(), "p2g", _i);
}
END_TEST

static Suite *p2g_suite(void)
{
    Suite *s = suite_create("p2g");
    TCase *tc = harness_tcase("analytic", HARNESS_ANALYTIC_SECONDS);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, particle_on_a_face_gives_weight_one);
    tcase_add_test(tc, weights_are_tent_weights);
    tcase_add_test(tc, each_component_on_its_own_faces);
    tcase_add_test(tc, an_average_not_a_sum);
    tcase_add_test(tc, faces_no_particle_reaches_are_zero);
    tcase_add_test(tc, the_last_face_layer_counts);
    tcase_add_test(tc, weights_sum_to_one_past_the_last_face_row);
    tcase_add_test(tc, a_particle_on_the_upper_bound_weighs_on_the_last_face);
    tcase_add_test(tc, clamping_moves_the_stencil_not_the_particle);
    suite_add_tcase(s, tc);
    golden_add_tcase(s, "p2g", golden);
    return s;
}

int main(void)
{
    return harness_run_stage(p2g_suite());
}
