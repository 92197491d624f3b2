/* test_pipeline.c — the OpenCL pipeline against the C reference: whole scenes agree for the
 * first frames, every solver agrees, the same run writes the same bytes, MGPCG stays fast.
 * flipkit tests/: CK_FORK=no for gdb, CK_RUN_CASE="scenes" for one case; needs an OpenCL device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "pipeline.h"
#include "reference.h"
#include "sim.h"

/* Frames compared. FLIP is chaotic, so C and OpenCL (whose sums run in a different order and
 * whose "pcg" has another preconditioner) drift apart eventually; over 10 frames the drift
 * measured on every scene was at most 2e-6 m and 3e-5 m/s. The bounds below are 1e-4 of a
 * cell and 1e-4 of a cell per frame: 5x to 50x the drift seen, far below any bug's footprint
 * (a wrong stage moves particles by a good fraction of a cell within a frame). */
enum { AGREE_FRAMES = 10 };
static const double POS_TOL_CELLS = 1e-4, VEL_TOL_CELLS_PER_FRAME = 1e-4;

typedef struct {
    Scene scene;
    Sim sim;
} Run;

static void run_start(Run *r, const char *path, const char *const *sets, int nsets, int device)
{
    char err[8192];
    ck_assert_msg(scene_load(path, sets, nsets, &r->scene, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(sim_init(&r->sim, &r->scene, &reference_track) == 0, "%s", r->sim.error.message);
    if (!device)
        return;
    SimDevice *d = pipeline_open(NULL, err, sizeof err);
    ck_assert_msg(d != NULL, "no OpenCL device: %s", err);
    sim_use_device(&r->sim, d);
}

static void run_frames(Run *r, int frames)
{
    for (int f = 0; f < frames; f++)
        ck_assert_msg(sim_advance_frame(&r->sim) == 0, "%s (%s): frame %d: %s", r->scene.name,
                      r->sim.device ? "opencl" : "C", r->sim.frame + 1, r->sim.error.message);
}

static void run_end(Run *r)
{
    sim_free(&r->sim);
    scene_free(&r->scene);
}

static double vec3_dist(Vec3 a, Vec3 b)
{
    double x = (double)a.x - b.x, y = (double)a.y - b.y, z = (double)a.z - b.z;
    return sqrt(x * x + y * y + z * z);
}

/* Particle by particle (both keep the seeding order): position and velocity within tolerance. */
static void assert_agree(const Run *c, const Run *cl, const char *what)
{
    const Particles *a = &c->sim.particles, *b = &cl->sim.particles;
    ck_assert_msg(a->count == b->count, "%s: %zu particles on C, %zu on OpenCL", what, a->count,
                  b->count);
    double dx = c->sim.grid.dx, pos_tol = POS_TOL_CELLS * dx;
    double vel_tol = VEL_TOL_CELLS_PER_FRAME * dx * c->scene.frame_rate;
    double worst_x = 0.0, worst_v = 0.0;
    size_t at_x = 0, at_v = 0;
    for (size_t p = 0; p < a->count; p++) {
        double ex = vec3_dist(a->pos[p], b->pos[p]), ev = vec3_dist(a->vel[p], b->vel[p]);
        if (ex > worst_x) { worst_x = ex; at_x = p; }
        if (ev > worst_v) { worst_v = ev; at_v = p; }
    }
    ck_assert_msg(worst_x <= pos_tol, "%s, frame %d: particle %zu is at (%g, %g, %g) m on C and "
                  "(%g, %g, %g) m on OpenCL: %.3g m apart, tolerance %.3g m", what, c->sim.frame,
                  at_x, a->pos[at_x].x, a->pos[at_x].y, a->pos[at_x].z, b->pos[at_x].x,
                  b->pos[at_x].y, b->pos[at_x].z, worst_x, pos_tol);
    ck_assert_msg(worst_v <= vel_tol, "%s, frame %d: particle %zu's velocity differs by %.3g m/s "
                  "between C and OpenCL, tolerance %.3g m/s", what, c->sim.frame, at_v, worst_v,
                  vel_tol);
}

static void compare_scene(const char *path, const char *const *sets, int nsets, int frames,
                          const char *what)
{
    Run c, cl;
    run_start(&c, path, sets, nsets, 0);
    run_start(&cl, path, sets, nsets, 1);
    for (int f = 0; f < frames; f++) {
        run_frames(&c, 1);
        run_frames(&cl, 1);
        assert_agree(&c, &cl, what);
    }
    run_end(&c);
    run_end(&cl);
}

/* ---- whole scenes ---------------------------------------------------------------------------- */

static const char *const scene_paths[] = {
    "scenes/ball_drop.json", "scenes/dam_break.json", "scenes/hydrostatic.json",
    "scenes/maze.json", "scenes/waterfall.json", "scenes/column_on_block.json",
};

START_TEST(scene_agrees_with_c)
{
    compare_scene(scene_paths[_i], NULL, 0, AGREE_FRAMES, scene_paths[_i]);
}
END_TEST

/* ---- every solver ---------------------------------------------------------------------------- */

static const char *const solver_sets[] = {
    "pressure.solver=jacobi", "pressure.solver=gauss_seidel", "pressure.solver=sor",
    "pressure.solver=pcg", "pressure.solver=multigrid", "pressure.solver=mgpcg",
};

START_TEST(solver_agrees_with_c)
{
    const char *sets[] = { solver_sets[_i] };
    compare_scene("scenes/dam_break.json", sets, 1, 5, solver_sets[_i]);
}
END_TEST

/* McAdams et al. report MGPCG iteration counts that hardly grow with resolution; the issue
 * asks for at most 15 to 1e-6. Checked on every substep of the first frames of a 48^3 splash. */
START_TEST(mgpcg_converges_in_few_iterations)
{
    const char *sets[] = { "pressure.solver=mgpcg", "grid.resolution=[48,48,48]",
                           "grid.cell_size=0.1666666" };
    Run r;
    run_start(&r, "scenes/ball_drop.json", sets, 3, 1);
    for (int f = 0; f < 4; f++) {
        run_frames(&r, 1);
        const SolveResult *sr = &r.sim.stats.last_solve;
        ck_assert_msg(sr->converged && sr->iterations <= 15 && r.sim.stats.unconverged_solves == 0,
                      "mgpcg on OpenCL, frame %d: %d iterations, residual %.3g (expected <= 15 "
                      "iterations to 1e-6)", r.sim.frame, sr->iterations, sr->residual);
    }
    run_end(&r);
}
END_TEST

/* ---- determinism and errors ------------------------------------------------------------------ */

START_TEST(same_run_same_bytes)
{
    Run a, b;
    run_start(&a, "scenes/dam_break.json", NULL, 0, 1);
    run_start(&b, "scenes/dam_break.json", NULL, 0, 1);
    run_frames(&a, 15);
    run_frames(&b, 15);
    size_t bytes = a.sim.particles.count * sizeof(Vec3);
    ck_assert_msg(memcmp(a.sim.particles.pos, b.sim.particles.pos, bytes) == 0 &&
                  memcmp(a.sim.particles.vel, b.sim.particles.vel, bytes) == 0 &&
                  memcmp(a.sim.grid.p, b.sim.grid.p, grid_cells(&a.sim.grid) * sizeof(float)) == 0,
                  "two OpenCL runs of dam_break differ after 15 frames");
    run_end(&a);
    run_end(&b);
}
END_TEST

START_TEST(missing_device_is_one_line)
{
    char err[8192] = "";
    SimDevice *d = pipeline_open("7:3", err, sizeof err);
    ck_assert_msg(d == NULL, "device 7:3 should not exist here");
    ck_assert_msg(strchr(err, '\n') == NULL && strstr(err, "7") != NULL,
                  "expected one line naming the selector, got \"%s\"", err);
}
END_TEST

static Suite *pipeline_suite(void)
{
    Suite *s = suite_create("pipeline");
    TCase *tc = tcase_create("scenes");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, scene_agrees_with_c, 0, (int)(sizeof scene_paths / sizeof *scene_paths));
    suite_add_tcase(s, tc);
    tc = tcase_create("solvers");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, solver_agrees_with_c, 0, (int)(sizeof solver_sets / sizeof *solver_sets));
    tcase_add_test(tc, mgpcg_converges_in_few_iterations);
    suite_add_tcase(s, tc);
    tc = tcase_create("determinism");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, same_run_same_bytes);
    tcase_add_test(tc, missing_device_is_one_line);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return harness_run(pipeline_suite());
}
