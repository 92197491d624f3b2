/* test_scene.c — the Check suite for the scene loader (common/scene.c).
 * flipkit tests/: defaults, a scene with every key, each error class with its exact message,
 * --set overrides, and the Scene.json round trip. Scratch scenes go to harness_tmpdir().
 *
 * Cases run forked, so a crash fails one test, not the suite. To debug one case in gdb:
 *   CK_FORK=no CK_RUN_CASE=errors gdb --args build/tests/test_scene
 * (CK_RUN_CASE is a TCase name below: defaults, full, errors, overrides, roundtrip, misc.) */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scene.h"

/* Non-cubic on purpose (an x/y/z mix-up shows): the domain is [0, 4] x [0, 3] x [0, 3.5]. */
#define MINIMAL "{\"name\": \"min\", \"grid\": {\"resolution\": [8, 6, 7], \"cell_size\": 0.5}}"

/* A minimal scene with extra top-level members spliced in: SCENE_WITH("\"frames\": 3"). */
#define SCENE_WITH(extra) \
    "{\"name\": \"t\", \"grid\": {\"resolution\": [8, 6, 7], \"cell_size\": 0.5}, " extra "}"

static const char full_scene[] =
    "{\n"
    "  \"name\": \"full-scene_1\",\n"
    "  \"description\": \"every key set\",\n"
    "  \"grid\": {\"resolution\": [16, 12, 10], \"cell_size\": 0.25},\n"
    "  \"gravity\": [0.5, -3.7, 0.25],\n"
    "  \"density\": 998.2,\n"
    "  \"frame_rate\": 24,\n"
    "  \"frames\": 48,\n"
    "  \"cfl\": 2.5,\n"
    "  \"pic_flip_alpha\": 0.1,\n"
    "  \"particles_per_cell\": 27,\n"
    "  \"seed\": 4294967295,\n"
    "  \"pressure\": {\"solver\": \"sor\", \"iterations\": 250, \"tolerance\": 1e-4,\n"
    "               \"jacobi_omega\": 0.667, \"sor_omega\": 1.5},\n"
    "  \"use_gauss_seidel\": true,\n"
    "  \"fluid\": [{\"box\": {\"min\": [0, 0, 0], \"max\": [4, 1, 2.5]},\n"
    "             \"velocity\": [1, 0, -1]},\n"
    "            {\"sphere\": {\"center\": [2, 2, 1.25], \"radius\": 0.5}}],\n"
    "  \"solids\": [{\"box\": {\"min\": [1.5, 0, 1], \"max\": [2.5, 0.5, 1.5]}}],\n"
    "  \"events\": [{\"frame\": 10,\n"
    "              \"fluid\": [{\"sphere\": {\"center\": [1, 2.5, 1], \"radius\": 0.25},\n"
    "                         \"velocity\": [0, -2, 0]}]},\n"
    "             {\"frame\": 20, \"fluid\": []}],\n"
    "  \"output\": {\"particles\": false}\n"
    "}\n";

static const float TOL = 1e-6f;

/* Writes text to harness_tmpdir()/file; path receives the file's path. */
static void write_scene(char *path, size_t n, const char *file, const char *text)
{
    snprintf(path, n, "%s/%s", harness_tmpdir(), file);
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

/* Loads text as "t.json"; the error (or "") goes to err. */
static int load(const char *text, const char *const *ov, int nov, Scene *s, char *err)
{
    err[0] = '\0';
    return scene_load_text(text, "t.json", ov, nov, s, err, SCENE_ERR_MAX);
}

/* Loading text must fail with exactly this message, and leave an empty scene behind. */
static void expect_error_ov(const char *text, const char *const *ov, int nov, const char *want)
{
    Scene s;
    char err[SCENE_ERR_MAX];
    ck_assert_int_eq(load(text, ov, nov, &s, err), -1);
    ck_assert_str_eq(err, want);
    ck_assert_ptr_null(s.name);
    ck_assert_ptr_null(s.json);
    ck_assert_int_eq(s.nfluid, 0);
    scene_free(&s);
}

static void expect_error(const char *text, const char *want)
{
    expect_error_ov(text, NULL, 0, want);
}

static void expect_vec3(Vec3 v, float x, float y, float z)
{
    ck_assert_float_eq_tol(v.x, x, TOL);
    ck_assert_float_eq_tol(v.y, y, TOL);
    ck_assert_float_eq_tol(v.z, z, TOL);
}

/* ---- defaults ---------------------------------------------------------------------------- */

START_TEST(test_defaults)
{
    Scene s;
    char err[SCENE_ERR_MAX];
    ck_assert_msg(load(MINIMAL, NULL, 0, &s, err) == 0, "%s", err);
    ck_assert_str_eq(s.path, "t.json");
    ck_assert_str_eq(s.name, "min");
    ck_assert_str_eq(s.description, "");
    ck_assert_int_eq(s.resolution[0], 8);
    ck_assert_int_eq(s.resolution[1], 6);
    ck_assert_int_eq(s.resolution[2], 7);
    ck_assert_float_eq(s.cell_size, 0.5f);
    expect_vec3(s.gravity, 0.0f, -9.81f, 0.0f);
    ck_assert_float_eq(s.density, 1.0f);
    ck_assert_double_eq(s.frame_rate, 30.0);
    ck_assert_int_eq(s.frames, 30);
    ck_assert_float_eq(s.cfl, 1.0f);
    ck_assert_float_eq(s.pic_flip_alpha, 0.05f);
    ck_assert_int_eq(s.particles_per_cell, 8);
    ck_assert_uint_eq(s.seed, 1);
    ck_assert_str_eq(s.pressure.solver, "jacobi"); /* one every track has; reference scenes name theirs */
    ck_assert_int_eq(s.pressure.iterations, 1000);
    ck_assert_double_eq_tol(s.pressure.tolerance, 1e-6, 1e-18);
    ck_assert_float_eq(s.pressure.jacobi_omega, 1.0f);
    ck_assert_float_eq(s.pressure.sor_omega, 1.7f);
    ck_assert(!s.use_gauss_seidel);
    ck_assert_int_eq(s.nfluid, 0);
    ck_assert_int_eq(s.nsolids, 0);
    ck_assert_int_eq(s.nevents, 0);
    ck_assert(s.output.particles);
    scene_free(&s);
}
END_TEST

/* A partial "pressure" object keeps the defaults of the keys it leaves out. */
START_TEST(test_defaults_partial_object)
{
    Scene s;
    char err[SCENE_ERR_MAX];
    ck_assert_msg(load(SCENE_WITH("\"pressure\": {\"solver\": \"jacobi\"}"), NULL, 0, &s, err) == 0,
                  "%s", err);
    ck_assert_str_eq(s.pressure.solver, "jacobi");
    ck_assert_int_eq(s.pressure.iterations, 1000);
    ck_assert_float_eq(s.pressure.sor_omega, 1.7f);
    scene_free(&s);
}
END_TEST

/* Scene.json states every default, so a state file does not depend on this version's defaults. */
START_TEST(test_defaults_in_json)
{
    Scene s;
    char err[SCENE_ERR_MAX];
    ck_assert_msg(load(MINIMAL, NULL, 0, &s, err) == 0, "%s", err);
    const char *keys[] = {"\"cfl\":1.0", "\"frames\":30", "\"seed\":1", "\"solver\":\"jacobi\"",
                          "\"particles\":true", "\"use_gauss_seidel\":false", "\"events\":[]"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        ck_assert_msg(strstr(s.json, keys[i]), "Scene.json lacks %s: %s", keys[i], s.json);
    ck_assert_ptr_null(strchr(s.json, '\n'));
    ck_assert_ptr_null(strchr(s.json, ' '));
    scene_free(&s);
}
END_TEST

/* ---- a scene with every key -------------------------------------------------------------- */

START_TEST(test_full_settings)
{
    Scene s;
    char err[SCENE_ERR_MAX], path[512];
    write_scene(path, sizeof path, "full.json", full_scene);
    ck_assert_msg(scene_load(path, NULL, 0, &s, err, sizeof err) == 0, "%s", err);
    ck_assert_str_eq(s.path, path);
    ck_assert_str_eq(s.name, "full-scene_1");
    ck_assert_str_eq(s.description, "every key set");
    ck_assert_int_eq(s.resolution[0], 16);
    ck_assert_int_eq(s.resolution[1], 12);
    ck_assert_int_eq(s.resolution[2], 10);
    ck_assert_float_eq_tol(s.cell_size, 0.25f, TOL);
    expect_vec3(s.gravity, 0.5f, -3.7f, 0.25f);
    ck_assert_float_eq_tol(s.density, 998.2f, 1e-3f);
    ck_assert_double_eq_tol(s.frame_rate, 24.0, 1e-12);
    ck_assert_int_eq(s.frames, 48);
    ck_assert_float_eq_tol(s.cfl, 2.5f, TOL);
    ck_assert_float_eq_tol(s.pic_flip_alpha, 0.1f, TOL);
    ck_assert_int_eq(s.particles_per_cell, 27);
    ck_assert_uint_eq(s.seed, 4294967295u);
    ck_assert_str_eq(s.pressure.solver, "sor");
    ck_assert_int_eq(s.pressure.iterations, 250);
    ck_assert_double_eq_tol(s.pressure.tolerance, 1e-4, 1e-16);
    ck_assert_float_eq_tol(s.pressure.jacobi_omega, 0.667f, TOL);
    ck_assert_float_eq_tol(s.pressure.sor_omega, 1.5f, TOL);
    ck_assert(s.use_gauss_seidel);
    ck_assert(!s.output.particles);
    scene_free(&s);
}
END_TEST

START_TEST(test_full_shapes)
{
    Scene s;
    char err[SCENE_ERR_MAX];
    ck_assert_msg(load(full_scene, NULL, 0, &s, err) == 0, "%s", err);
    ck_assert_int_eq(s.nfluid, 2);
    ck_assert_int_eq(s.fluid[0].kind, SHAPE_BOX);
    expect_vec3(s.fluid[0].min, 0, 0, 0);
    expect_vec3(s.fluid[0].max, 4, 1, 2.5f);
    expect_vec3(s.fluid[0].velocity, 1, 0, -1);
    ck_assert_int_eq(s.fluid[1].kind, SHAPE_SPHERE);
    expect_vec3(s.fluid[1].center, 2, 2, 1.25f);
    ck_assert_float_eq_tol(s.fluid[1].radius, 0.5f, TOL);
    expect_vec3(s.fluid[1].min, 1.5f, 1.5f, 0.75f);   /* a sphere's bounding box */
    expect_vec3(s.fluid[1].max, 2.5f, 2.5f, 1.75f);
    expect_vec3(s.fluid[1].velocity, 0, 0, 0);
    ck_assert_int_eq(s.nsolids, 1);
    ck_assert_int_eq(s.solids[0].kind, SHAPE_BOX);
    expect_vec3(s.solids[0].min, 1.5f, 0, 1);
    expect_vec3(s.solids[0].max, 2.5f, 0.5f, 1.5f);
    scene_free(&s);
}
END_TEST

START_TEST(test_full_events)
{
    Scene s;
    char err[SCENE_ERR_MAX];
    ck_assert_msg(load(full_scene, NULL, 0, &s, err) == 0, "%s", err);
    ck_assert_int_eq(s.nevents, 2);
    ck_assert_int_eq(s.events[0].frame, 10);
    ck_assert_int_eq(s.events[0].nfluid, 1);
    ck_assert_int_eq(s.events[0].fluid[0].kind, SHAPE_SPHERE);
    expect_vec3(s.events[0].fluid[0].center, 1, 2.5f, 1);
    ck_assert_float_eq_tol(s.events[0].fluid[0].radius, 0.25f, TOL);
    expect_vec3(s.events[0].fluid[0].velocity, 0, -2, 0);
    ck_assert_int_eq(s.events[1].frame, 20);
    ck_assert_int_eq(s.events[1].nfluid, 0);
    scene_free(&s);
}
END_TEST

/* Shapes may touch the walls: a box filling the domain and a sphere tangent to three walls. */
START_TEST(test_shapes_touching_walls)
{
    Scene s;
    char err[SCENE_ERR_MAX];
    const char *text = SCENE_WITH(
        "\"fluid\": [{\"box\": {\"min\": [0, 0, 0], \"max\": [4, 3, 3.5]}}],"
        " \"solids\": [{\"sphere\": {\"center\": [3, 2, 2.5], \"radius\": 1}}]");
    ck_assert_msg(load(text, NULL, 0, &s, err) == 0, "%s", err);
    ck_assert_int_eq(s.nfluid, 1);
    ck_assert_int_eq(s.nsolids, 1);
    scene_free(&s);
}
END_TEST

/* ---- errors: one line, naming the file, the place, what was expected and what was got ---- */

START_TEST(test_error_syntax)
{
    Scene s;
    char err[SCENE_ERR_MAX], path[512], want[1024];
    write_scene(path, sizeof path, "syntax.json",
                "{\n"
                "  \"name\": \"x\",\n"
                "  \"grid\": {\"resolution\": [8, 8, 8] \"cell_size\": 1}\n"
                "}\n");
    ck_assert_int_eq(scene_load(path, NULL, 0, &s, err, sizeof err), -1);
    snprintf(want, sizeof want,
             "%s:3:46: JSON syntax error: '}' expected near '\"cell_size\"'", path);
    ck_assert_str_eq(err, want);
    scene_free(&s);
}
END_TEST

START_TEST(test_error_syntax_empty)
{
    expect_error("", "t.json:1:1: JSON syntax error: '[' or '{' expected near end of file");
}
END_TEST

START_TEST(test_error_duplicate_key)
{
    expect_error("{\"name\": \"a\",\n \"frames\": 3,\n \"frames\": 4}",
                 "t.json:3:9: duplicate key \"frames\"");
}
END_TEST

START_TEST(test_error_missing_file)
{
    Scene s;
    char err[SCENE_ERR_MAX];
    ck_assert_int_eq(scene_load("scenes/nope.json", NULL, 0, &s, err, sizeof err), -1);
    ck_assert_str_eq(err, "scenes/nope.json: cannot open: No such file or directory");
    scene_free(&s);
}
END_TEST

START_TEST(test_error_directory)
{
    Scene s;
    char err[SCENE_ERR_MAX], want[600];
    ck_assert_int_eq(scene_load(harness_tmpdir(), NULL, 0, &s, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: cannot read: Is a directory", harness_tmpdir());
    ck_assert_str_eq(err, want);
    scene_free(&s);
}
END_TEST

START_TEST(test_error_top_level)
{
    expect_error("[1, 2]", "t.json: expected a JSON object at the top level, got [1, 2]");
}
END_TEST

START_TEST(test_error_unknown_key)
{
    expect_error(SCENE_WITH("\"gravty\": [0, -1, 0]"),
                 "t.json: gravty: unknown key; did you mean \"gravity\"?");
    expect_error(SCENE_WITH("\"pressure\": {\"solvr\": \"sor\"}"),
                 "t.json: pressure.solvr: unknown key; did you mean \"solver\"?");
    expect_error(SCENE_WITH("\"fluid\": [{\"sphere\": {\"center\": [1, 1, 1], \"raduis\": 0.5}}]"),
                 "t.json: fluid[0].sphere.raduis: unknown key; did you mean \"radius\"?");
    expect_error(SCENE_WITH("\"desc\": \"abbreviated\""),
                 "t.json: desc: unknown key; did you mean \"description\"?");
}
END_TEST

START_TEST(test_error_unknown_key_elsewhere)
{
    expect_error(SCENE_WITH("\"cell_size\": 1"),
                 "t.json: cell_size: unknown key; did you mean \"grid.cell_size\"?");
    expect_error("{\"name\": \"t\", \"grid\": {\"resolution\": [8, 6, 7], \"cell_size\": 0.5, "
                 "\"frames\": 3}}",
                 "t.json: grid.frames: unknown key; \"frames\" belongs at the top level");
    expect_error(SCENE_WITH("\"output\": {\"ply\": true}"),
                 "t.json: output.ply: unknown key (known keys here: particles, surface, usd, preview, bricks, brick_cells, diffuse, diffuse_max, surface_anisotropic, surface_refine)");
}
END_TEST

START_TEST(test_error_wrong_type)
{
    expect_error(SCENE_WITH("\"frames\": \"ten\""),
                 "t.json: frames: expected an integer from 0 to 999999, got \"ten\"");
    expect_error(SCENE_WITH("\"frames\": 2.0"),
                 "t.json: frames: expected an integer from 0 to 999999, got 2.0");
    expect_error(SCENE_WITH("\"gravity\": [0, -9.81]"),
                 "t.json: gravity: expected an array of 3 numbers, got [0, -9.81]");
    expect_error(SCENE_WITH("\"gravity\": [0, null, 0]"),
                 "t.json: gravity[1]: expected a number, got null");
    expect_error(SCENE_WITH("\"pressure\": 5"), "t.json: pressure: expected an object, got 5");
    expect_error(SCENE_WITH("\"use_gauss_seidel\": \"yes\""),
                 "t.json: use_gauss_seidel: expected true or false, got \"yes\"");
    expect_error(SCENE_WITH("\"fluid\": {}"),
                 "t.json: fluid: expected an array of shapes, got an object");
    expect_error(SCENE_WITH("\"solids\": [{\"box\": {\"min\": [0, 0, \"1\"],"
                            " \"max\": [1, 1, 1]}}]"),
                 "t.json: solids[0].box.min[2]: expected a number, got \"1\"");
}
END_TEST

START_TEST(test_error_negative_resolution)
{
    expect_error("{\"name\": \"t\", \"grid\": {\"resolution\": [8, -4, 8], \"cell_size\": 1}}",
                 "t.json: grid.resolution[1]: expected an integer >= 3, got -4");
    expect_error("{\"name\": \"t\", \"grid\": {\"resolution\": [8, 8, 2000], \"cell_size\": 1}}",
                 "t.json: grid.resolution[2]: expected an integer <= 1024, got 2000");
    expect_error("{\"name\": \"t\", \"grid\": {\"resolution\": [8, 8.5, 8], \"cell_size\": 1}}",
                 "t.json: grid.resolution[1]: expected an integer from 3 to 1024, got 8.5");
}
END_TEST

START_TEST(test_error_ranges)
{
    expect_error("{\"name\": \"t\", \"grid\": {\"resolution\": [8, 8, 8], \"cell_size\": 0}}",
                 "t.json: grid.cell_size: expected a number > 0, got 0");
    expect_error(SCENE_WITH("\"cfl\": 12"), "t.json: cfl: expected a number <= 10, got 12");
    expect_error(SCENE_WITH("\"pic_flip_alpha\": -0.5"),
                 "t.json: pic_flip_alpha: expected a number >= 0, got -0.5");
    expect_error(SCENE_WITH("\"pressure\": {\"tolerance\": 1}"),
                 "t.json: pressure.tolerance: expected a number < 1, got 1");
    expect_error(SCENE_WITH("\"pressure\": {\"sor_omega\": 2}"),
                 "t.json: pressure.sor_omega: expected a number < 2, got 2");
    expect_error(SCENE_WITH("\"pressure\": {\"iterations\": 0}"),
                 "t.json: pressure.iterations: expected an integer >= 1, got 0");
    expect_error(SCENE_WITH("\"particles_per_cell\": 9"),
                 "t.json: particles_per_cell: expected one of 1, 8, 27, 64 (a cube: n per axis), "
                 "got 9");
    expect_error(SCENE_WITH("\"seed\": 4294967296"),
                 "t.json: seed: expected an integer <= 4294967295, got 4294967296");
    expect_error(SCENE_WITH("\"output\": {\"surface_refine\": 0}"),
                 "t.json: output.surface_refine: expected an integer >= 1, got 0");
    expect_error(SCENE_WITH("\"output\": {\"surface_refine\": 9}"),
                 "t.json: output.surface_refine: expected an integer <= 8, got 9");
    expect_error(SCENE_WITH("\"output\": {\"surface_refine\": 1.5}"),
                 "t.json: output.surface_refine: expected an integer from 1 to 8, got 1.5");
    expect_error(SCENE_WITH("\"density\": 1e39"),
                 "t.json: density: expected a number > 0, got 1e+39, which a float cannot hold");
}
END_TEST

START_TEST(test_error_name)
{
    expect_error("{\"name\": \"../etc\", \"grid\": {\"resolution\": [8, 8, 8], \"cell_size\": 1}}",
                 "t.json: name: expected a name of letters, digits, '_' and '-' (it names the "
                 "output directory), got \"../etc\"");
    expect_error("{\"grid\": {\"resolution\": [8, 8, 8], \"cell_size\": 1}}",
                 "t.json: missing required key \"name\"");
    expect_error("{\"name\": \"t\", \"grid\": {\"resolution\": [8, 8, 8]}}",
                 "t.json: grid: missing required key \"cell_size\"");
}
END_TEST

START_TEST(test_error_box_outside)
{
    expect_error(SCENE_WITH("\"fluid\": [{\"box\": {\"min\": [0, 0, 0], \"max\": [1, 3.5, 1]}}]"),
                 "t.json: fluid[0].box: box extends outside the domain [0, 4] x [0, 3] x [0, 3.5] "
                 "(max[1] is 3.5)");
    expect_error(SCENE_WITH("\"solids\": [{\"box\": {\"min\": [-1, 0, 0], \"max\": [1, 1, 1]}}]"),
                 "t.json: solids[0].box: box extends outside the domain [0, 4] x [0, 3] x [0, 3.5] "
                 "(min[0] is -1)");
    expect_error(SCENE_WITH("\"fluid\": [{\"box\": {\"min\": [0, 2, 0], \"max\": [1, 1, 1]}}]"),
                 "t.json: fluid[0].box: expected min < max on every axis, got min[1] = 2 and "
                 "max[1] = 1");
}
END_TEST

START_TEST(test_error_sphere_outside)
{
    expect_error(SCENE_WITH("\"fluid\": [{\"sphere\": {\"center\": [2, 2, 3], \"radius\": 1}}]"),
                 "t.json: fluid[0].sphere: sphere extends outside the domain "
                 "[0, 4] x [0, 3] x [0, 3.5] (center[2] + radius is 4)");
    expect_error(SCENE_WITH("\"events\": [{\"frame\": 3, \"fluid\": [{\"sphere\": {\"center\": "
                            "[0.5, 2, 2], \"radius\": 1}}]}]"),
                 "t.json: events[0].fluid[0].sphere: sphere extends outside the domain "
                 "[0, 4] x [0, 3] x [0, 3.5] (center[0] - radius is -0.5)");
    expect_error(SCENE_WITH("\"fluid\": [{\"sphere\": {\"center\": [2, 2, 2], \"radius\": 0}}]"),
                 "t.json: fluid[0].sphere.radius: expected a number > 0, got 0");
}
END_TEST

START_TEST(test_error_shape_form)
{
    expect_error(SCENE_WITH("\"fluid\": [{\"velocity\": [0, 0, 0]}]"),
                 "t.json: fluid[0]: expected \"box\" or \"sphere\" in a shape, got neither");
    expect_error(SCENE_WITH("\"fluid\": [{\"box\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]},"
                            " \"sphere\": {\"center\": [2, 2, 2], \"radius\": 1}}]"),
                 "t.json: fluid[0]: has both \"box\" and \"sphere\"; a shape is one or the other");
    expect_error(SCENE_WITH("\"fluid\": [{\"box\": {\"min\": [0, 0, 0]}}]"),
                 "t.json: fluid[0].box: missing required key \"max\"");
}
END_TEST

START_TEST(test_error_bad_solver)
{
    expect_error(SCENE_WITH("\"pressure\": {\"solver\": \"gauss-seidel\"}"),
                 "t.json: pressure.solver: expected one of \"jacobi\", \"gauss_seidel\", \"sor\", "
                 "\"pcg\", \"multigrid\", \"mgpcg\", got \"gauss-seidel\"; did you mean "
                 "\"gauss_seidel\"?");
    expect_error(SCENE_WITH("\"pressure\": {\"solver\": \"amg\"}"),
                 "t.json: pressure.solver: expected one of \"jacobi\", \"gauss_seidel\", \"sor\", "
                 "\"pcg\", \"multigrid\", \"mgpcg\", got \"amg\"");
}
END_TEST

START_TEST(test_error_events)
{
    expect_error(SCENE_WITH("\"events\": [{\"frame\": -1, \"fluid\": []}]"),
                 "t.json: events[0].frame: expected an integer >= 0, got -1");
    expect_error(SCENE_WITH("\"events\": [{\"frame\": 1, \"fluid\": []}, {\"fluid\": []}]"),
                 "t.json: events[1]: missing required key \"frame\"");
    expect_error(SCENE_WITH("\"events\": [{\"frame\": 1, \"fluid\": [], \"when\": 2}]"),
                 "t.json: events[0].when: unknown key (known keys here: frame, fluid)");
}
END_TEST

/* Whatever the file holds, the message stays one line and fits the buffer it is given. */
START_TEST(test_error_one_line)
{
    Scene s;
    char err[SCENE_ERR_MAX], small[24];
    ck_assert_int_eq(load(SCENE_WITH("\"bad\\nkey\": 1"), NULL, 0, &s, err), -1);
    ck_assert_ptr_null(strchr(err, '\n'));
    ck_assert_str_eq(err, "t.json: bad?key: unknown key (known keys here: name, description, "
                          "grid, gravity, density, frame_rate, frames, cfl, pic_flip_alpha, "
                          "particles_per_cell, seed, pressure, use_gauss_seidel, fluid, solids, "
                          "events, output, production)");
    ck_assert_int_eq(scene_load_text("{", "t.json", NULL, 0, &s, small, sizeof small), -1);
    ck_assert_uint_eq(strlen(small), sizeof small - 1);
    ck_assert_int_eq(scene_load_text("{", "t.json", NULL, 0, &s, NULL, 0), -1);
}
END_TEST

/* ---- overrides --------------------------------------------------------------------------- */

/* output.surface_refine (issue 42) is left out of Scene.json at its default, so a scene that
 * does not set it keeps the bytes it had (the grader's recorded scene.json files); set, it is
 * there, and either way the scene reloads to the same value and --print reads it. */
START_TEST(test_surface_refine_quiet_default)
{
    Scene s, back;
    char err[SCENE_ERR_MAX], text[64];
    ck_assert_msg(load(MINIMAL, NULL, 0, &s, err) == 0, "%s", err);
    ck_assert_int_eq(s.output.surface_refine, 1);
    ck_assert_msg(strstr(s.json, "surface_refine") == NULL, "default written: %s", s.json);
    ck_assert_ptr_nonnull(strstr(s.json, "\"surface_anisotropic\":false,\"usd\":false}"));
    ck_assert_int_eq(scene_value_text(&s, "output.surface_refine", text, sizeof text), 0);
    ck_assert_str_eq(text, "1");
    ck_assert_int_eq(scene_value_text(&s, "output.no_such_key", text, sizeof text), -1);
    scene_free(&s);
    const char *ov[] = {"output.surface_refine=3"};
    ck_assert_msg(load(MINIMAL, ov, 1, &s, err) == 0, "%s", err);
    ck_assert_int_eq(s.output.surface_refine, 3);
    ck_assert_ptr_nonnull(strstr(s.json, "\"surface_refine\":3"));
    ck_assert_msg(load(s.json, NULL, 0, &back, err) == 0, "%s", err);
    ck_assert_int_eq(back.output.surface_refine, 3);
    ck_assert_str_eq(back.json, s.json);
    ck_assert_int_eq(scene_value_text(&back, "output.surface_refine", text, sizeof text), 0);
    ck_assert_str_eq(text, "3");
    scene_free(&back);
    scene_free(&s);
    const char *one[] = {"output.surface_refine=1"};   /* the default, said aloud */
    ck_assert_msg(load(MINIMAL, one, 1, &s, err) == 0, "%s", err);
    ck_assert_ptr_null(strstr(s.json, "surface_refine"));
    scene_free(&s);
}
END_TEST

START_TEST(test_override_number)
{
    Scene s;
    char err[SCENE_ERR_MAX];
    const char *ov[] = {"frames=5", "density=2.5", "pressure.tolerance=1e-3", "frames=7"};
    ck_assert_msg(load(MINIMAL, ov, 4, &s, err) == 0, "%s", err);
    ck_assert_int_eq(s.frames, 7);   /* the last one wins */
    ck_assert_float_eq_tol(s.density, 2.5f, TOL);
    ck_assert_double_eq_tol(s.pressure.tolerance, 1e-3, 1e-15);
    scene_free(&s);
}
END_TEST

START_TEST(test_override_array_and_object)
{
    Scene s;
    char err[SCENE_ERR_MAX];
    const char *ov[] = {"gravity=[0, -1.62, 0]",
                        "fluid=[{\"sphere\": {\"center\": [2, 1.5, 1.5], \"radius\": 1}}]",
                        "output={\"particles\": false}"};
    ck_assert_msg(load(MINIMAL, ov, 3, &s, err) == 0, "%s", err);
    expect_vec3(s.gravity, 0, -1.62f, 0);
    ck_assert_int_eq(s.nfluid, 1);
    ck_assert_float_eq_tol(s.fluid[0].radius, 1.0f, TOL);
    ck_assert(!s.output.particles);
    scene_free(&s);
}
END_TEST

START_TEST(test_override_nested_index)
{
    Scene s;
    char err[SCENE_ERR_MAX];
    const char *ov[] = {"fluid.1.sphere.radius=0.75", "grid.resolution.1=20", "gravity.1=-1.6",
                        "events.0.fluid.0.velocity.2=3"};
    ck_assert_msg(load(full_scene, ov, 4, &s, err) == 0, "%s", err);
    ck_assert_float_eq_tol(s.fluid[1].radius, 0.75f, TOL);
    ck_assert_int_eq(s.resolution[1], 20);
    ck_assert_int_eq(s.resolution[0], 16);
    expect_vec3(s.gravity, 0.5f, -1.6f, 0.25f);
    expect_vec3(s.events[0].fluid[0].velocity, 0, -2, 3);
    scene_free(&s);
}
END_TEST

/* A value that is not JSON is taken as a string; a key that is missing is created. */
START_TEST(test_override_string_and_create)
{
    Scene s;
    char err[SCENE_ERR_MAX];
    const char *ov[] = {"pressure.solver=jacobi", "description=poured from the left",
                        "name=\"renamed\""};
    ck_assert_msg(load("{\"name\": \"t\", \"grid\": {\"resolution\": [8, 8, 8], \"cell_size\": 1}}",
                       ov, 3, &s, err) == 0, "%s", err);
    ck_assert_str_eq(s.pressure.solver, "jacobi");
    ck_assert_str_eq(s.description, "poured from the left");
    ck_assert_str_eq(s.name, "renamed");
    scene_free(&s);
}
END_TEST

START_TEST(test_override_bad)
{
    const char *cases[][2] = {
        {"frames", "--set frames: expected key.path=value"},
        {"=3", "--set =3: empty key path; expected key.path=value"},
        {"grid..cell_size=1",
         "--set grid..cell_size=1: empty key in the path; expected key.path=value"},
        {"grid.resolution.x=3",
         "--set grid.resolution.x=3: \"resolution\" is an array; use a number index"},
        {"grid.0=3", "--set grid.0=3: \"grid\" is an object; use a key name, not an index"},
        {"fluid.2.sphere.radius=1",
         "--set fluid.2.sphere.radius=1: index 2 is out of range; \"fluid\" has 0 elements"},
        {"frames.x=1", "--set frames.x=1: \"frames\" is an integer; it has no member \"x\""},
        {"extra.0=1", "--set extra.0=1: \"extra\" is not set, so it has no element 0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_error_ov(MINIMAL, &cases[i][0], 1, cases[i][1]);
}
END_TEST

/* A bad value from --set is reported at its place in the scene, and says it came from --set. */
START_TEST(test_override_blamed)
{
    const char *ov1[] = {"grid.resolution.1=-4"};
    expect_error_ov(MINIMAL, ov1, 1,
                    "t.json: grid.resolution[1]: expected an integer >= 3, got -4 "
                    "(set by --set grid.resolution.1=-4)");
    const char *ov2[] = {"gravty=[0,0,0]"};
    expect_error_ov(MINIMAL, ov2, 1,
                    "t.json: gravty: unknown key; did you mean \"gravity\"? "
                    "(set by --set gravty=[0,0,0])");
    const char *ov3[] = {"fluid=[{\"sphere\": {\"center\": [2, 1.5, 1.5], \"radius\": 1}}]",
                         "fluid.0.sphere.radius=2"};
    expect_error_ov(MINIMAL, ov3, 2,
                    "t.json: fluid[0].sphere: sphere extends outside the domain "
                    "[0, 4] x [0, 3] x [0, 3.5] (center[1] - radius is -0.5) "
                    "(set by --set fluid.0.sphere.radius=2)");
}
END_TEST

/* ---- round trip -------------------------------------------------------------------------- */

static void expect_same_shapes(const Shape *a, const Shape *b, int n)
{
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(a[i].kind, b[i].kind);
        ck_assert(memcmp(&a[i].min, &b[i].min, sizeof(Vec3)) == 0);
        ck_assert(memcmp(&a[i].max, &b[i].max, sizeof(Vec3)) == 0);
        ck_assert(memcmp(&a[i].center, &b[i].center, sizeof(Vec3)) == 0);
        ck_assert(a[i].radius == b[i].radius);
        ck_assert(memcmp(&a[i].velocity, &b[i].velocity, sizeof(Vec3)) == 0);
    }
}

/* Bit for bit: a resumed run must simulate exactly the scene the state file was saved from. */
static void expect_same_scene(const Scene *a, const Scene *b)
{
    ck_assert_str_eq(a->name, b->name);
    ck_assert_str_eq(a->description, b->description);
    ck_assert(memcmp(a->resolution, b->resolution, sizeof a->resolution) == 0);
    ck_assert(a->cell_size == b->cell_size);
    ck_assert(memcmp(&a->gravity, &b->gravity, sizeof(Vec3)) == 0);
    ck_assert(a->density == b->density && a->frame_rate == b->frame_rate && a->frames == b->frames);
    ck_assert(a->cfl == b->cfl && a->pic_flip_alpha == b->pic_flip_alpha);
    ck_assert(a->particles_per_cell == b->particles_per_cell && a->seed == b->seed);
    ck_assert_str_eq(a->pressure.solver, b->pressure.solver);
    ck_assert(a->pressure.iterations == b->pressure.iterations);
    ck_assert(a->pressure.tolerance == b->pressure.tolerance);
    ck_assert(a->pressure.jacobi_omega == b->pressure.jacobi_omega);
    ck_assert(a->pressure.sor_omega == b->pressure.sor_omega);
    ck_assert(a->use_gauss_seidel == b->use_gauss_seidel);
    ck_assert(a->production.order == b->production.order && a->production.cfl == b->production.cfl);
    ck_assert(a->output.particles == b->output.particles);
    ck_assert_int_eq(a->nfluid, b->nfluid);
    ck_assert_int_eq(a->nsolids, b->nsolids);
    ck_assert_int_eq(a->nevents, b->nevents);
    expect_same_shapes(a->fluid, b->fluid, a->nfluid);
    expect_same_shapes(a->solids, b->solids, a->nsolids);
    for (int i = 0; i < a->nevents; i++) {
        ck_assert_int_eq(a->events[i].frame, b->events[i].frame);
        ck_assert_int_eq(a->events[i].nfluid, b->events[i].nfluid);
        expect_same_shapes(a->events[i].fluid, b->events[i].fluid, a->events[i].nfluid);
    }
    ck_assert_str_eq(a->json, b->json);
}

START_TEST(test_roundtrip_full)
{
    Scene a, b;
    char err[SCENE_ERR_MAX];
    const char *ov[] = {"pic_flip_alpha=0.123456789", "fluid.0.velocity=[0.1, 0.2, 0.3]"};
    ck_assert_msg(load(full_scene, ov, 2, &a, err) == 0, "%s", err);
    ck_assert_msg(scene_load_text(a.json, "state.bin", NULL, 0, &b, err, sizeof err) == 0,
                  "%s", err);
    ck_assert_str_eq(b.path, "state.bin");
    expect_same_scene(&a, &b);
    scene_free(&a);
    scene_free(&b);
}
END_TEST

START_TEST(test_roundtrip_minimal)
{
    Scene a, b;
    char err[SCENE_ERR_MAX];
    ck_assert_msg(load(MINIMAL, NULL, 0, &a, err) == 0, "%s", err);
    ck_assert_msg(load(a.json, NULL, 0, &b, err) == 0, "%s", err);
    expect_same_scene(&a, &b);
    scene_free(&a);
    scene_free(&b);
}
END_TEST

/* ---- the production group ------------------------------------------------------------------ */

/* No group: the teaching stepping, and scene.json without one; a group fills its defaults
 * (rk3, cfl 5) into scene.json, which reads back to the same scene; "none" is the same run as
 * no group, so scene.json leaves it out (the grader's runs rely on it); bad values are one line
 * naming the key. */
START_TEST(test_production_group)
{
    Scene a, b;
    char err[SCENE_ERR_MAX];
    ck_assert_msg(load(MINIMAL, NULL, 0, &a, err) == 0, "%s", err);
    ck_assert_int_eq(a.production.order, 0);
    ck_assert_ptr_null(strstr(a.json, "production"));
    const char *rk[] = { "production.cfl=3" };
    ck_assert_msg(load(MINIMAL, rk, 1, &b, err) == 0, "%s", err);
    ck_assert_int_eq(b.production.order, 3);
    ck_assert(b.production.cfl == 3.0f);
    ck_assert_ptr_nonnull(strstr(b.json, "\"production\":{\"cfl\":3,\"integrator\":\"rk3\"}"));
    Scene c;
    ck_assert_msg(load(b.json, NULL, 0, &c, err) == 0, "%s", err);
    expect_same_scene(&b, &c);
    scene_free(&c);
    const char *none[] = { "production.integrator=none" };
    ck_assert_msg(load(b.json, none, 1, &c, err) == 0, "%s", err);
    ck_assert_int_eq(c.production.order, 0);
    ck_assert_str_eq(c.json, a.json);
    scene_free(&a);
    scene_free(&b);
    scene_free(&c);
    const char *rk2[] = { "production.integrator=rk2" };
    ck_assert_msg(load(MINIMAL, rk2, 1, &a, err) == 0, "%s", err);
    ck_assert_int_eq(a.production.order, 2);
    ck_assert(a.production.cfl == 5.0f);
    scene_free(&a);
    const char *bad[] = { "production.integrator=euler" };
    expect_error_ov(MINIMAL, bad, 1, "t.json: production.integrator: expected one of \"none\", "
                    "\"rk2\", \"rk3\", got \"euler\" (set by --set production.integrator=euler)");
    const char *near[] = { "production.integrator=\"RK3\"" };
    expect_error_ov(MINIMAL, near, 1, "t.json: production.integrator: expected one of \"none\", "
                    "\"rk2\", \"rk3\", got \"RK3\"; did you mean \"rk3\"? (set by --set "
                    "production.integrator=\"RK3\")");
    expect_error("{\"name\": \"min\", \"grid\": {\"resolution\": [8, 6, 7], \"cell_size\": 0.5}, "
                 "\"production\": {\"cfl\": 0}}",
                 "t.json: production.cfl: expected a number > 0, got 0");
    expect_error("{\"name\": \"min\", \"grid\": {\"resolution\": [8, 6, 7], \"cell_size\": 0.5}, "
                 "\"production\": {\"order\": 3}}",
                 "t.json: production.order: unknown key (known keys here: integrator, cfl)");
}
END_TEST

/* ---- freeing and --help ------------------------------------------------------------------ */

START_TEST(test_free_safe)
{
    Scene s;
    memset(&s, 0, sizeof s);
    scene_free(&s);
    scene_free(NULL);
    char err[SCENE_ERR_MAX];
    /* fails late, after the name, shapes and an event were allocated */
    const char *text = SCENE_WITH(
        "\"fluid\": [{\"box\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]}}],"
        " \"events\": [{\"frame\": 1,"
        " \"fluid\": [{\"box\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]}}]}],"
        " \"output\": {\"particles\": 0}");
    ck_assert_int_eq(load(text, NULL, 0, &s, err), -1);
    ck_assert_str_eq(err, "t.json: output.particles: expected true or false, got 0");
    ck_assert_ptr_null(s.name);
    ck_assert_ptr_null(s.events);
    ck_assert_int_eq(s.nevents, 0);
    scene_free(&s);
    scene_free(&s);
}
END_TEST

START_TEST(test_print_schema)
{
    char path[512];
    snprintf(path, sizeof path, "%s/schema.txt", harness_tmpdir());
    FILE *f = fopen(path, "w+");
    ck_assert_ptr_nonnull(f);
    scene_print_schema(f);
    long n = ftell(f);
    ck_assert_int_gt(n, 0);
    char *text = calloc((size_t)n + 1, 1);
    rewind(f);
    ck_assert_uint_eq(fread(text, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    const char *want[] = {
        "name ", "grid.resolution ", "grid.cell_size ", "gravity ", "[0, -9.81, 0]", "density ",
        "frame_rate ", "frames ", "cfl ", "pic_flip_alpha ", "0.05", "particles_per_cell ",
        "seed ", "pressure.solver ", "\"jacobi\"", "pressure.iterations ", "1000",
        "pressure.tolerance ", "1e-06", "pressure.jacobi_omega ", "pressure.sor_omega ", "1.7",
        "use_gauss_seidel ", "fluid ", "solids ", "events ", "output.particles ", "required",
        "--set"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(strstr(text, want[i]), "schema lacks \"%s\":\n%s", want[i], text);
    free(text);
}
END_TEST

static Suite *scene_suite(void)
{
    Suite *s = suite_create("scene");
    TCase *tc = tcase_create("defaults");
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_defaults_partial_object);
    tcase_add_test(tc, test_defaults_in_json);
    suite_add_tcase(s, tc);

    tc = tcase_create("full");
    tcase_add_test(tc, test_full_settings);
    tcase_add_test(tc, test_full_shapes);
    tcase_add_test(tc, test_full_events);
    tcase_add_test(tc, test_shapes_touching_walls);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_test(tc, test_error_syntax);
    tcase_add_test(tc, test_error_syntax_empty);
    tcase_add_test(tc, test_error_duplicate_key);
    tcase_add_test(tc, test_error_missing_file);
    tcase_add_test(tc, test_error_directory);
    tcase_add_test(tc, test_error_top_level);
    tcase_add_test(tc, test_error_unknown_key);
    tcase_add_test(tc, test_error_unknown_key_elsewhere);
    tcase_add_test(tc, test_error_wrong_type);
    tcase_add_test(tc, test_error_negative_resolution);
    tcase_add_test(tc, test_error_ranges);
    tcase_add_test(tc, test_error_name);
    tcase_add_test(tc, test_error_box_outside);
    tcase_add_test(tc, test_error_sphere_outside);
    tcase_add_test(tc, test_error_shape_form);
    tcase_add_test(tc, test_error_bad_solver);
    tcase_add_test(tc, test_error_events);
    tcase_add_test(tc, test_error_one_line);
    suite_add_tcase(s, tc);

    tc = tcase_create("overrides");
    tcase_add_test(tc, test_override_number);
    tcase_add_test(tc, test_surface_refine_quiet_default);
    tcase_add_test(tc, test_override_array_and_object);
    tcase_add_test(tc, test_override_nested_index);
    tcase_add_test(tc, test_override_string_and_create);
    tcase_add_test(tc, test_override_bad);
    tcase_add_test(tc, test_override_blamed);
    suite_add_tcase(s, tc);

    tc = tcase_create("roundtrip");
    tcase_add_test(tc, test_roundtrip_full);
    tcase_add_test(tc, test_roundtrip_minimal);
    suite_add_tcase(s, tc);

    tc = tcase_create("misc");
    tcase_add_test(tc, test_production_group);
    tcase_add_test(tc, test_free_safe);
    tcase_add_test(tc, test_print_schema);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return harness_run(scene_suite());
}
