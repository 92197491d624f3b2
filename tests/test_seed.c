/* test_seed.c — the given steps: seeding, solids, classifying, extrapolating, keeping
 * particles in, and the given Gauss-Seidel/SOR solver.
 * flipkit tests/: CK_FORK=no for gdb, CK_RUN_CASE="seeding" for one case. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "given.h"
#include "harness.h"

static MacGrid g;
static int8_t *solid;
static Particles ps;

static void setup(void)
{
    ck_assert_int_eq(grid_init(&g, 9, 7, 8, 0.5f), 0);
    solid = calloc(grid_cells(&g), 1);
    given_mark_solids(solid, &g, NULL, 0);
    part_init(&ps);
}

static void teardown(void)
{
    grid_free(&g);
    free(solid);
    part_free(&ps);
}

static Shape box(float x0, float y0, float z0, float x1, float y1, float z1)
{
    Shape s = { .kind = SHAPE_BOX, .min = { x0, y0, z0 }, .max = { x1, y1, z1 } };
    return s;
}

START_TEST(seeds_eight_per_cell_in_a_box)
{
    /* Cells 1..3 x 1..2 x 1..4 exactly: 3*2*4 = 24 cells, 8 particles each. */
    Shape b = box(0.5f, 0.5f, 0.5f, 2.0f, 1.5f, 2.5f);
    ck_assert_int_eq(given_seed_fluid(&ps, &g, solid, &b, 1, 8, 1, 0), 24 * 8);
    ck_assert_uint_eq(ps.count, 192);
    for (size_t p = 0; p < ps.count; p++)
        ck_assert_msg(shape_contains(&b, ps.pos[p]), "particle %zu outside the box", p);
}
END_TEST

START_TEST(seeding_is_deterministic_and_seed_dependent)
{
    Shape s = { .kind = SHAPE_SPHERE, .center = { 2.2f, 1.7f, 2.0f }, .radius = 1.1f };
    Particles a, b;
    part_init(&a);
    part_init(&b);
    given_seed_fluid(&a, &g, solid, &s, 1, 8, 7, 0);
    given_seed_fluid(&b, &g, solid, &s, 1, 8, 7, 0);
    ck_assert_uint_eq(a.count, b.count);
    ck_assert(memcmp(a.pos, b.pos, a.count * sizeof(Vec3)) == 0);
    part_free(&b);
    part_init(&b);
    given_seed_fluid(&b, &g, solid, &s, 1, 8, 8, 0);
    ck_assert(b.count != a.count || memcmp(a.pos, b.pos, a.count * sizeof(Vec3)) != 0);
    /* Volume check: 8 per cell of 0.125 m^3 -> 64 per m^3; a sphere of r 1.1 holds ~357. */
    double expect = 64.0 * 4.0 / 3.0 * 3.14159265 * 1.1 * 1.1 * 1.1;
    ck_assert_msg(fabs(a.count - expect) < 0.1 * expect, "count %zu, expected about %.0f", a.count, expect);
    part_free(&a);
    part_free(&b);
}
END_TEST

START_TEST(seeding_skips_solid_and_filled_cells)
{
    Shape wall = box(0.0f, 0.0f, 0.0f, 1.2f, 3.5f, 4.0f); /* covers cells with i <= 1 */
    given_mark_solids(solid, &g, &wall, 1);
    ck_assert_int_eq(solid[grid_cell_index(&g, 1, 3, 3)], 1);
    ck_assert_int_eq(solid[grid_cell_index(&g, 2, 3, 3)], 0);
    Shape b = box(0.0f, 0.5f, 0.5f, 1.5f, 1.0f, 1.0f); /* cells i 1..2 (i 1 solid), j 1, k 1 */
    ck_assert_int_eq(given_seed_fluid(&ps, &g, solid, &b, 1, 8, 1, 0), 8);
    /* Seeding the same box again adds nothing: its cell already holds particles. */
    ck_assert_int_eq(given_seed_fluid(&ps, &g, solid, &b, 1, 8, 1, 1), 0);
}
END_TEST

START_TEST(classify_marks_fluid_and_zeroes_pressure)
{
    part_push(&ps, (Vec3){ 1.2f, 0.7f, 1.9f }, (Vec3){ 0, 0, 0 }); /* cell (2,1,3) */
    for (size_t c = 0; c < grid_cells(&g); c++)
        g.p[c] = 5.0f;
    given_classify(&g, solid, &ps);
    ck_assert_int_eq(grid_cell_type(&g, 2, 1, 3), CELL_FLUID);
    ck_assert_int_eq(grid_cell_type(&g, 3, 1, 3), CELL_AIR);
    ck_assert_int_eq(grid_cell_type(&g, 0, 1, 3), CELL_SOLID);
    ck_assert_float_eq(g.p[grid_cell_index(&g, 2, 1, 3)], 5.0f);
    ck_assert_float_eq(g.p[grid_cell_index(&g, 3, 1, 3)], 0.0f);
}
END_TEST

START_TEST(extrapolation_copies_fluid_velocity_into_air)
{
    part_push(&ps, (Vec3){ 2.2f, 1.2f, 2.2f }, (Vec3){ 0, 0, 0 }); /* cell (4,2,4) */
    given_classify(&g, solid, &ps);
    for (int a = 0; a < 3; a++)
        for (size_t f = 0; f < grid_faces(&g, a); f++)
            g.vel[a][f] = 99.0f; /* junk everywhere... */
    g.vel[0][grid_face_index(&g, 0, 4, 2, 4)] = 1.0f; /* ...except the fluid cell's faces */
    g.vel[0][grid_face_index(&g, 0, 5, 2, 4)] = 3.0f;
    uint8_t *scratch = calloc(2 * grid_faces(&g, 1), 1); /* v has the most faces here */
    given_extrapolate(&g, 2, scratch);
    free(scratch);
    /* u(4,3,4) is between AIR cells (3,3,4) and (4,3,4); its one known neighbour is u(4,2,4). */
    ck_assert_float_eq_tol(g.vel[0][grid_face_index(&g, 0, 4, 3, 4)], 1.0f, 1e-6f);
    ck_assert_float_eq_tol(g.vel[0][grid_face_index(&g, 0, 5, 3, 4)], 3.0f, 1e-6f);
    /* Known faces keep their value; faces beyond two layers are 0. */
    ck_assert_float_eq(g.vel[0][grid_face_index(&g, 0, 5, 2, 4)], 3.0f);
    ck_assert_float_eq(g.vel[0][grid_face_index(&g, 0, 1, 5, 1)], 0.0f);
}
END_TEST

START_TEST(keep_inside_pushes_out_of_walls_and_solids)
{
    Shape block = box(2.0f, 0.0f, 0.0f, 3.0f, 1.5f, 4.0f); /* cells i 4..5, j <= 2 */
    given_mark_solids(solid, &g, &block, 1);
    part_push(&ps, (Vec3){ -0.3f, 1.7f, 2.0f }, (Vec3){ -1, 0, 0 }); /* left of the domain */
    part_push(&ps, (Vec3){ 2.1f, 1.2f, 2.0f }, (Vec3){ 1, 0, 0 });  /* just inside the block */
    part_push(&ps, (Vec3){ 1.7f, 1.7f, 2.0f }, (Vec3){ 1, 2, 3 });  /* fine where it is */
    given_classify(&g, solid, &ps);
    given_keep_inside(&ps, &g);
    given_classify(&g, solid, &ps);
    for (size_t p = 0; p < ps.count; p++) {
        int i, j, k;
        grid_cell_of(&g, ps.pos[p], &i, &j, &k);
        ck_assert_msg(grid_cell_type(&g, i, j, k) != CELL_SOLID, "particle %zu in solid cell (%d,%d,%d)", p, i, j, k);
    }
    ck_assert_float_eq_tol(ps.pos[0].x, 0.5f, 1e-3f);
    ck_assert_float_eq(ps.vel[0].x, 0.0f);     /* the component into the wall is gone */
    ck_assert_float_eq_tol(ps.pos[1].x, 2.0f, 1e-3f);
    ck_assert_float_eq(ps.pos[2].x, 1.7f);
    ck_assert_float_eq(ps.vel[2].z, 3.0f);
}
END_TEST

START_TEST(sor_solves_a_one_dimensional_column)
{
    /* A row of FLUID cells i = 1..7 at j = k = 1 on the floor, AIR above and behind: check
     * the solved p against the pressure equation evaluated independently here. */
    for (int i = 1; i < 8; i++)
        part_push(&ps, grid_cell_centre(&g, i, 1, 1), (Vec3){ 0, 0, 0 });
    given_classify(&g, solid, &ps);
    float *rhs = calloc(grid_cells(&g), sizeof(float));
    for (int i = 1; i < 8; i++)
        rhs[grid_cell_index(&g, i, 1, 1)] = 1.0f;
    PressureSettings set = { "sor", 2000, 1e-6, 1.0f, 1.5f };
    SolveResult r = given_solve_sor(&g, rhs, g.p, &set, 1.5f, NULL);
    ck_assert(r.converged);
    ck_assert(r.iterations > 0 && r.iterations < 2000);
    /* Independent check of L p = rhs in the middle cell: N = 4 (two FLUID along x, AIR above
     * and behind, SOLID below and in front). */
    size_t c = grid_cell_index(&g, 4, 1, 1);
    float lp = (g.p[c - 1] + g.p[c + 1] - 4.0f * g.p[c]) / (g.dx * g.dx);
    ck_assert_float_eq_tol(lp, 1.0f, 1e-3f);
    free(rhs);
}
END_TEST

static Suite *seed_suite(void)
{
    Suite *s = suite_create("given");
    TCase *seeding = tcase_create("seeding");
    tcase_add_checked_fixture(seeding, setup, teardown);
    tcase_add_test(seeding, seeds_eight_per_cell_in_a_box);
    tcase_add_test(seeding, seeding_is_deterministic_and_seed_dependent);
    tcase_add_test(seeding, seeding_skips_solid_and_filled_cells);
    suite_add_tcase(s, seeding);
    TCase *steps = tcase_create("steps");
    tcase_add_checked_fixture(steps, setup, teardown);
    tcase_add_test(steps, classify_marks_fluid_and_zeroes_pressure);
    tcase_add_test(steps, extrapolation_copies_fluid_velocity_into_air);
    tcase_add_test(steps, keep_inside_pushes_out_of_walls_and_solids);
    tcase_add_test(steps, sor_solves_a_one_dimensional_column);
    suite_add_tcase(s, steps);
    return s;
}

int main(void)
{
    return harness_run(seed_suite());
}
