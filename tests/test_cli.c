/* test_cli.c — flipsim end to end through cli_main: the default scene's frames, --help,
 * bad options, a stage that writes NaN, the student track with untouched stubs.
 * flipkit tests/: CK_FORK=no for gdb (cases then share one process), CK_RUN_CASE="nan". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "harness.h"
#include "ply.h"
#include "reference.h"

/* cli_main on the given tracks, without OpenCL (harness_run_cli has the details). */
static int run_cli(const char *tag, const Track *student, const Track *reference, char **argv)
{
    return harness_run_cli(tag, argv, student, reference, NULL);
}

static char *slurp(const char *tag, const char *stream)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.%s", harness_tmpdir(), tag, stream);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void read_frame(const char *dir, int frame, Particles *ps)
{
    char path[600], err[700];
    snprintf(path, sizeof path, "%s/particles/%06d.ply", dir, frame);
    ck_assert_msg(ply_read_particles(path, ps, err, sizeof err) == 0, "%s", err);
}

static void centre_and_extent(const Particles *ps, double *ymean, double *xspread)
{
    double y = 0.0, xmin = 1e30, xmax = -1e30;
    for (size_t p = 0; p < ps->count; p++) {
        y += ps->pos[p].y;
        xmin = fmin(xmin, ps->pos[p].x);
        xmax = fmax(xmax, ps->pos[p].x);
    }
    *ymean = y / (double)ps->count;
    *xspread = xmax - xmin;
}

/* Acceptance of `make run`: 31 valid frames, a constant particle count, the ball falls and
 * spreads over the floor. */
START_TEST(ball_drop_falls_and_spreads)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/ball", harness_tmpdir());
    /* The particles only: test_outputs runs the scene with its surface, USD and previews. */
    char *argv[] = { "flipsim", "--quiet", "--out", dir, "--set", "output.surface=false", "--set",
                     "output.usd=false", "--set", "output.preview=false", "scenes/ball_drop.json",
                     NULL };
    ck_assert_int_eq(run_cli("ball", &student_track, &reference_track, argv), EXIT_OK);
    Particles ps;
    part_init(&ps);
    read_frame(dir, 0, &ps);
    size_t count = ps.count;
    double y0, x0, y, x;
    centre_and_extent(&ps, &y0, &x0);
    ck_assert_uint_gt(count, 50000);
    for (int f = 1; f <= 30; f++) {
        read_frame(dir, f, &ps);
        ck_assert_msg(ps.count == count, "frame %d: %zu particles, expected %zu", f, ps.count, count);
    }
    read_frame(dir, 12, &ps); /* t = 0.4 s: a free fall of 2 m would put the ball's bottom at -1 m */
    centre_and_extent(&ps, &y, &x);
    ck_assert_msg(y < y0 - 1.5, "frame 12: centre of mass at y = %.2f m, expected below %.2f (falling)", y, y0 - 1.5);
    read_frame(dir, 30, &ps);
    centre_and_extent(&ps, &y, &x);
    ck_assert_msg(x > x0 + 0.5, "frame 30: x extent %.2f m, expected more than %.2f (spread)", x, x0 + 0.5);
    ck_assert_msg(y < 2.5, "frame 30: centre of mass at y = %.2f m, expected on the floor (< 2.5)", y);
    part_free(&ps);
    char path[600];
    snprintf(path, sizeof path, "%s/particles/000031.ply", dir);
    ck_assert_msg(access(path, F_OK) != 0, "frame 31 written, the scene has 30");
}
END_TEST

static void check_help_text(void)
{
    const char *text = slurp("help", "stdout");
    static const char *const options[] = { "--frames", "--out", "--track", "--use-reference",
                                           "--set", "--resume", "--checkpoint-every", "--slice", "--print",
                                           "--quiet", "--help" };
    for (size_t q = 0; q < sizeof options / sizeof *options; q++)
        ck_assert_msg(strstr(text, options[q]), "--help does not mention %s", options[q]);
    ck_assert_msg(strstr(text, "[out/<scene name>]"), "--help does not give the --out default");
    ck_assert_msg(strstr(text, "[reference]"), "--help does not give the --track default");
    ck_assert_msg(strstr(text, "pic_flip_alpha"), "--help does not list the scene keys");
}

START_TEST(help_text_checked)
{
    char *argv[] = { "flipsim", "--help", NULL };
    (void)harness_tmpdir(); /* fix the directory before forking: the child has another pid */
    pid_t pid = fork();
    if (pid == 0) {
        run_cli("help", &student_track, &reference_track, argv);
        _exit(99);
    }
    int status;
    waitpid(pid, &status, 0);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    check_help_text();
}
END_TEST

static void expect_bad_input(const char *tag, char **argv, const char *needle)
{
    int rc = run_cli(tag, &student_track, &reference_track, argv);
    const char *err = slurp(tag, "stderr");
    ck_assert_msg(rc == EXIT_INPUT, "%s: exit %d, expected %d", tag, rc, EXIT_INPUT);
    ck_assert_msg(count_lines(err) == 1, "%s: expected one line on stderr, got:\n%s", tag, err);
    ck_assert_msg(strstr(err, needle), "%s: message \"%s\" does not mention \"%s\"", tag, err, needle);
}

START_TEST(bad_options_get_one_line_and_exit_2)
{
    char *a[] = { "flipsim", "--frmes", "3", "scenes/ball_drop.json", NULL };
    expect_bad_input("unknown", a, "--frmes");
    char *b[] = { "flipsim", "--frames", "x", "scenes/ball_drop.json", NULL };
    expect_bad_input("count", b, "--frames");
    char *c[] = { "flipsim", "--use-reference=p2g,g3p", "scenes/ball_drop.json", NULL };
    expect_bad_input("useref", c, "g3p");
    char *d[] = { "flipsim", "--track", "teacher", "scenes/ball_drop.json", NULL };
    expect_bad_input("track", d, "teacher");
    char *e[] = { "flipsim", NULL };
    expect_bad_input("noscene", e, "no scene");
    char *f[] = { "flipsim", "--resume", "build/tmp/no-such.state", NULL };
    expect_bad_input("resume", f, "no-such.state");
}
END_TEST

/* --print answers scripts (make movie) with the effective values, --set and --out applied. */
START_TEST(print_gives_effective_values)
{
    static const struct { const char *key, *want; } cases[] = {
        { "out", "out/ball_drop" }, { "frame_rate", "24" }, { "name", "ball_drop" },
        { "grid.resolution.1", "32" }, { "pressure.tolerance", "1e-06" },
        { "output.preview", "true" }, { "gravity", "[0,-25,0]" }, { "last_frame", "30" } };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *argv[] = { "flipsim", "--set", "frame_rate=24", "--print", (char *)cases[i].key,
                         "scenes/ball_drop.json", NULL };
        ck_assert_int_eq(run_cli("print", &student_track, &reference_track, argv), EXIT_OK);
        const char *out = slurp("print", "stdout");
        ck_assert_msg(strlen(out) > 0 && strncmp(out, cases[i].want, strlen(cases[i].want)) == 0 &&
                      strcmp(out + strlen(cases[i].want), "\n") == 0,
                      "--print %s: printed \"%s\", expected \"%s\"", cases[i].key, out, cases[i].want);
    }
    char *out_dir[] = { "flipsim", "--out", "/tmp/x", "--print", "out", "scenes/ball_drop.json", NULL };
    ck_assert_int_eq(run_cli("print", &student_track, &reference_track, out_dir), EXIT_OK);
    ck_assert_str_eq(slurp("print", "stdout"), "/tmp/x\n");
    /* A whole-number real prints as a number, not 3e+01 (ffmpeg reads it as a frame rate). */
    char *whole[] = { "flipsim", "--set", "frame_rate=30.0", "--print", "frame_rate",
                      "scenes/ball_drop.json", NULL };
    ck_assert_int_eq(run_cli("print", &student_track, &reference_track, whole), EXIT_OK);
    ck_assert_str_eq(slurp("print", "stdout"), "30\n");
    char *bad[] = { "flipsim", "--print", "frame_rat", "scenes/ball_drop.json", NULL };
    expect_bad_input("print_bad", bad, "--print frame_rat: scenes/ball_drop.json has no such key");
    char *index[] = { "flipsim", "--print", "grid.resolution.1abc", "scenes/ball_drop.json", NULL };
    expect_bad_input("print_index", index, "--print grid.resolution.1abc: scenes/ball_drop.json has "
                     "no such key");
}
END_TEST

START_TEST(student_build_explains_missing_reference)
{
    char *a[] = { "flipsim", "--use-reference=p2g", "scenes/ball_drop.json", NULL };
    int rc = run_cli("noref", &student_track, NULL, a);
    ck_assert_int_eq(rc, EXIT_INPUT);
    ck_assert_ptr_nonnull(strstr(slurp("noref", "stderr"), "not available in this build"));
}
END_TEST

/* A g2p that works for a while and then writes NaN into particle 7, like a student's bug
 * that only shows once the fluid moves. */
static int g2p_calls;
static void g2p_nan_later(Particles *ps, const MacGrid *g, float *const old[3], float alpha)
{
    ref_g2p(ps, g, old, alpha);
    if (++g2p_calls == 4)
        ps->vel[7].y = NAN;
}

START_TEST(nan_stops_with_the_stage_and_keeps_frames)
{
    Track bad = reference_track;
    bad.g2p = g2p_nan_later;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/nan", harness_tmpdir());
    char *argv[] = { "flipsim", "--quiet", "--track", "student", "--frames", "10", "--out", dir,
                     "scenes/ball_drop.json", NULL };
    int rc = run_cli("nan", &bad, &reference_track, argv);
    const char *err = slurp("nan", "stderr");
    ck_assert_msg(rc == EXIT_BLOWUP, "exit %d, expected %d; stderr: %s", rc, EXIT_BLOWUP, err);
    ck_assert_msg(count_lines(err) == 1, "expected one line, got:\n%s", err);
    ck_assert_msg(strstr(err, "stage g2p") && strstr(err, "particle 7"), "message does not name the stage and particle: %s", err);
    /* g2p runs once per substep; ball_drop's first frames take one substep each, so the NaN
     * comes in frame 4 and frames 0-3 are kept, readable. */
    Particles ps;
    part_init(&ps);
    for (int f = 0; f <= 3; f++)
        read_frame(dir, f, &ps);
    part_free(&ps);
    ck_assert_ptr_nonnull(strstr(err, "frames up to 000003 are kept"));
}
END_TEST

/* A jacobi that writes NaN into a FLUID cell (as one that divides by a FLUID cell's zero
 * neighbour count would): the laplacian then makes NaN from it, but jacobi is named. */
static int jacobi_calls;
static void jacobi_nan_later(const MacGrid *g, const float *p, const float *rhs, float omega, float *p_out)
{
    ref_jacobi(g, p, rhs, omega, p_out);
    if (++jacobi_calls == 30)
        for (size_t c = 0; c < grid_cells(g); c++)
            if (g->cell[c] == CELL_FLUID) {
                p_out[c] = NAN;
                break;
            }
}

START_TEST(nan_from_the_solve_names_jacobi)
{
    Track bad = reference_track;
    bad.jacobi = jacobi_nan_later;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/nanp", harness_tmpdir());
    char *argv[] = { "flipsim", "--quiet", "--track", "student", "--frames", "3", "--out", dir,
                     "--set", "pressure.solver=\"jacobi\"", "scenes/dam_break.json", NULL };
    int rc = run_cli("nanp", &bad, &reference_track, argv);
    const char *err = slurp("nanp", "stderr");
    ck_assert_msg(rc == EXIT_BLOWUP, "exit %d, expected %d; stderr: %s", rc, EXIT_BLOWUP, err);
    ck_assert_msg(count_lines(err) == 1, "expected one line, got:\n%s", err);
    ck_assert_msg(strstr(err, "stage jacobi wrote nan to p at cell (") &&
                  strstr(err, "a FLUID cell with neighbours -x ") && !strstr(err, "laplacian"),
                  "message does not blame jacobi at a FLUID cell with its neighbours: %s", err);
}
END_TEST

/* The run's own checks on both backends (watch.c): an advect that drops every particle into
 * one cell, and one that makes a particle far faster than any fall in the box allows. The
 * run goes on; each warns once, in one line. */
static int advect_calls;
static void advect_into_one_cell(Particles *ps, float dt)
{
    ref_advect(ps, dt);
    if (++advect_calls >= 2)
        for (size_t p = 0; p < ps->count; p++)
            ps->pos[p] = (Vec3){ 4.1f, 4.1f, 4.1f };
}

/* after advect, so that keep_inside does not stop the particle at a wall before the CFL step sees it */
static int advect_calls_fast;
static void advect_one_fast(Particles *ps, float dt)
{
    ref_advect(ps, dt);
    if (++advect_calls_fast == 2)
        ps->vel[0].x = 500.0f;
}

static const char *run_watched(const char *tag, Track *bad, int *rc)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/%s", harness_tmpdir(), tag);
    char *argv[] = { "flipsim", "--quiet", "--track", "student", "--frames", "4", "--out", dir,
                     "--set", "output.preview=false", "scenes/first_drop.json", NULL };
    *rc = run_cli(tag, bad, &reference_track, argv);
    return slurp(tag, "stderr");
}

START_TEST(particles_piled_in_one_cell_warn_once)
{
    Track bad = reference_track;
    bad.advect = advect_into_one_cell;
    int rc;
    const char *err = run_watched("pile", &bad, &rc);
    ck_assert_msg(rc == EXIT_OK, "exit %d, expected %d (a warning does not stop the run); stderr: %s",
                  rc, EXIT_OK, err);
    ck_assert_msg(count_lines(err) == 1 && strstr(err, "warning: frame ") &&
                  strstr(err, "particles are piled into 1 cells"),
                  "expected one warning that the particles are piled into 1 cell, got:\n%s", err);
}
END_TEST

START_TEST(a_particle_faster_than_any_fall_warns_once)
{
    Track bad = reference_track;
    bad.advect = advect_one_fast;
    int rc;
    const char *err = run_watched("fast", &bad, &rc);
    ck_assert_msg(strstr(err, "warning: frame ") && strstr(err, "a particle moves at 500 m/s") &&
                  strstr(err, "falling across the whole box"),
                  "expected a warning that a particle moves at 500 m/s, got:\n%s", err);
    const char *first = strstr(err, "a particle moves at");
    ck_assert_msg(!strstr(first + 1, "a particle moves at"),
                  "the speed warning came more than once:\n%s", err);
}
END_TEST

START_TEST(stubs_run_without_crashing)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/stubs", harness_tmpdir());
    char *argv[] = { "flipsim", "--quiet", "--track", "student", "--frames", "3", "--out", dir,
                     "scenes/ball_drop.json", NULL };
    ck_assert_int_eq(run_cli("stubs", &student_track, &reference_track, argv), EXIT_OK);
    Particles ps;
    part_init(&ps);
    read_frame(dir, 3, &ps);
    ck_assert_uint_gt(ps.count, 50000);
    part_free(&ps);
}
END_TEST

/* Not quiet, so that notes print: the stubs get one note that nothing will move, after
 * frame 1; the reference's stages none. */
static const char *run_noted(const char *tag, const Track *student)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/%s", harness_tmpdir(), tag);
    char *argv[] = { "flipsim", "--track", "student", "--frames", "3", "--out", dir, "--set",
                     "output.preview=false", "scenes/first_drop.json", NULL };
    ck_assert_int_eq(run_cli(tag, student, &reference_track, argv), EXIT_OK);
    return slurp(tag, "stderr");
}

START_TEST(stubs_say_once_that_nothing_will_move)
{
    const char *err = run_noted("stillstubs", &student_track);
    ck_assert_msg(count_lines(err) == 1 && strstr(err, "flipsim: note: no particle moved or sped "
                                                       "up in frame 1: the student track's p2g, g2p or advect is still a stub"),
                  "expected one note that the stubs move nothing, got:\n%s", err);
    err = run_noted("stillref", &reference_track);
    ck_assert_msg(!strstr(err, "no particle moved"), "the reference's stages got the stubs' note:\n%s", err);
}
END_TEST

static Suite *cli_suite(void)
{
    Suite *s = suite_create("cli");
    TCase *run = tcase_create("run");
    tcase_set_timeout(run, 120);
    tcase_add_test(run, ball_drop_falls_and_spreads);
    tcase_add_test(run, stubs_run_without_crashing);
    tcase_add_test(run, stubs_say_once_that_nothing_will_move);
    suite_add_tcase(s, run);
    TCase *input = tcase_create("input");
    tcase_add_test(input, help_text_checked);
    tcase_add_test(input, bad_options_get_one_line_and_exit_2);
    tcase_add_test(input, student_build_explains_missing_reference);
    tcase_add_test(input, print_gives_effective_values);
    suite_add_tcase(s, input);
    TCase *nan = tcase_create("nan");
    tcase_set_timeout(nan, 60);
    tcase_add_test(nan, nan_stops_with_the_stage_and_keeps_frames);
    tcase_add_test(nan, nan_from_the_solve_names_jacobi);
    suite_add_tcase(s, nan);
    TCase *watch = tcase_create("watch");
    tcase_set_timeout(watch, 60);
    tcase_add_test(watch, particles_piled_in_one_cell_warn_once);
    tcase_add_test(watch, a_particle_faster_than_any_fall_warns_once);
    suite_add_tcase(s, watch);
    return s;
}

int main(void)
{
    return harness_run(cli_suite());
}
