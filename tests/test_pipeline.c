/* test_pipeline.c — the OpenCL pipeline against the C reference: whole scenes agree for the
 * first frames, every solver agrees, the same run writes the same bytes, MGPCG stays fast,
 * jacobi's two paths give the same bits, the device's surface mesh agrees with surface_build's.
 * flipkit tests/: CK_FORK=no for gdb, CK_RUN_CASE="scenes" for one case; needs an OpenCL device. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "pipeline.h"
#include "reference.h"
#include "sim.h"
#include "surface.h"

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
    SimBackend *d = pipeline_open(NULL, err, sizeof err);
    ck_assert_msg(d != NULL, "no OpenCL device: %s", err);
    ck_assert_msg(sim_use_backend(&r->sim, d) == 0, "%s", r->sim.error.message);
}

static void run_frames(Run *r, int frames)
{
    for (int f = 0; f < frames; f++)
        ck_assert_msg(sim_advance_frame(&r->sim) == 0, "%s (%s): frame %d: %s", r->scene.name,
                      r->sim.backend != &sim_host_backend ? "opencl" : "C", r->sim.frame + 1, r->sim.error.message);
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

/* Both steppings on both devices: ball_drop, which carries production stepping, at the
 * teaching stepping; and production stepping (kernels/stages.cl's g2p_move against
 * reference/rkstep.c) with RK2 through an event and solids, and RK3 at cfl 5 in the maze. */
static const struct { const char *path, *sets[2]; } stepping_cases[] = {
    { "scenes/ball_drop.json", { "production.integrator=none", "output.surface=false" } },
    { "scenes/column_on_block.json", { "production.integrator=rk2", "production.cfl=3" } },
    { "scenes/maze.json", { "production.integrator=rk3", "production.cfl=5" } },
};

START_TEST(stepping_agrees_with_c)
{
    char what[160];
    snprintf(what, sizeof what, "%s with %s", stepping_cases[_i].path, stepping_cases[_i].sets[0]);
    compare_scene(stepping_cases[_i].path, stepping_cases[_i].sets, 2, AGREE_FRAMES, what);
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

/* Two paths to the same bits, picked by size and forced here by their environment variables
 * (a limit above everything, then 0): jacobi on a small grid solves in one launch, sweeping a
 * list of the FLUID cells (jacobi_solve), on a large one a launch a sweep and a wait a check;
 * few particles on a small grid are sorted in one launch (sort_small), more in nine, and p2g
 * sums them in one launch (p2g_scatter_small), more in nine. Both must
 * give the same bits through 6 frames, particle for particle, the same iterations and
 * residuals, and leave the sort's counts at 0. */
static const struct { const char *path, *env, *solver; } path_cases[] = {
    { "scenes/first_drop.json", "FLIPKIT_CL_JACOBI_GROUP_CELLS", "pressure.solver=jacobi" },
    { "scenes/dam_break.json", "FLIPKIT_CL_JACOBI_GROUP_CELLS", "pressure.solver=jacobi" },
    { "scenes/first_drop.json", "FLIPKIT_CL_SMALL_WORK", "pressure.solver=jacobi" },
    { "scenes/maze.json", "FLIPKIT_CL_SMALL_WORK", "pressure.solver=mgpcg" },
};

static void run_path(int c, const char *limit, Run *r)
{
    const char *sets[] = { path_cases[c].solver, "output.preview=false" };
    setenv(path_cases[c].env, limit, 1);
    run_start(r, path_cases[c].path, sets, 2, 1);
    run_frames(r, 6);
    unsetenv(path_cases[c].env);
    long left = pipeline_leftover_counts(r->sim.backend);
    ck_assert_msg(left == 0, "%s, %s=%s, frame 6: %ld cells' sort counts are not 0 after the "
                  "sort (expected 0; -1: could not read them)", path_cases[c].path,
                  path_cases[c].env, limit, left);
}

START_TEST(paths_same_bits)
{
    const char *path = path_cases[_i].path, *env = path_cases[_i].env;
    Run one, many; /* the path for small sizes, the other */
    run_path(_i, "1000000000", &one);
    run_path(_i, "0", &many);
    const Particles *a = &one.sim.particles, *b = &many.sim.particles;
    const SolveResult *sa = &one.sim.stats.last_solve, *sb = &many.sim.stats.last_solve;
    int jacobi = strstr(path_cases[_i].solver, "jacobi") != NULL;
    ck_assert_msg((!jacobi || sa->iterations > 10) && sa->iterations == sb->iterations &&
                  sa->residual == sb->residual, "%s, frame 6: the solve took %d iterations to "
                  "residual %.9g with %s's small path and %d to %.9g with the other; expected "
                  "the same%s", path, sa->iterations, sa->residual, env, sb->iterations,
                  sb->residual, jacobi ? ", more than 10" : "");
    ck_assert_uint_eq(a->count, b->count);
    for (size_t p = 0; p < a->count; p++)
        ck_assert_msg(memcmp(&a->pos[p], &b->pos[p], sizeof a->pos[p]) == 0 &&
                      memcmp(&a->vel[p], &b->vel[p], sizeof a->vel[p]) == 0,
                      "%s, frame 6: particle %zu at (%.9g, %.9g, %.9g) with %s's small path, "
                      "(%.9g, %.9g, %.9g) with the other: expected the same bits", path, p,
                      a->pos[p].x, a->pos[p].y, a->pos[p].z, env, b->pos[p].x, b->pos[p].y,
                      b->pos[p].z);
    run_end(&one);
    run_end(&many);
}
END_TEST

/* McAdams et al. report MGPCG iteration counts that hardly grow with resolution; the issue
 * asks for at most 15 to 1e-6. Checked on every substep of the first frames of a 48^3 splash
 * (level 0 swept by one work-item, pipelevels.c), and of a grid odd along every axis and above
 * 64^3 cells, whose rows end in a half pair in the split layout of level 0's sweeps (a sweep,
 * residual or prolongation that mishandles it converges slowly). */
static const char *const mgpcg_grids[][2] = {
    { "grid.resolution=[48,48,48]", "grid.cell_size=0.1666666" },
    { "grid.resolution=[67,65,61]", "grid.cell_size=0.1230769" },
};

START_TEST(mgpcg_converges_in_few_iterations)
{
    const char *sets[] = { "pressure.solver=mgpcg", mgpcg_grids[_i][0], mgpcg_grids[_i][1] };
    Run r;
    run_start(&r, "scenes/ball_drop.json", sets, 3, 1);
    for (int f = 0; f < 4; f++) {
        run_frames(&r, 1);
        const SolveResult *sr = &r.sim.stats.last_solve;
        ck_assert_msg(sr->converged && sr->iterations <= 15 && r.sim.stats.unconverged_solves == 0,
                      "mgpcg on OpenCL, %s, frame %d: %d iterations, residual %.3g (expected <= 15 "
                      "iterations to 1e-6)", mgpcg_grids[_i][0], r.sim.frame, sr->iterations,
                      sr->residual);
    }
    run_end(&r);
}
END_TEST

/* The device's V-cycle is multigrid.c's and its red-black sweep relax.c's: after the same
 * number of iterations from the same start, C and OpenCL leave the same residual up to
 * rounding. The first solve of the hydrostatic tank (water against every side wall, from
 * p = 0) on grids odd along every axis, so the colour-split sweeps (pipesolve.c) run on rows
 * of odd length, on level 0 alone and on levels 0 and 1. Measured: the same residual to
 * 9e-16 to 9.5e-14 relative, as both do the same float operations in the same order. The
 * tolerance is far above that, and below a one-cell bug: one cell's residual read from the
 * wrong colour moved it by 1.9e-6, the residual reading a wrong x neighbour in half the cells
 * by 3.7e-2. A compiler that contracted to FMA on one side only would show as ~1e-7, which is
 * worth knowing too. */
static const double MATCH_RTOL = 1e-8;

/* A grid and a solver; step: iterations between residual checks (multigrid checks every
 * V-cycle, gauss_seidel every 10 sweeps), so the runs stop at 1, 2, 3 steps; water: the tank's
 * water, where the scene's does not fit the grid (NULL: the scene's). */
typedef struct {
    const char *resolution, *cell_size, *solver;
    int step;
    const char *water;
} MatchCase;
static const MatchCase match_cases[] = {
    /* every level by one work-item, the V-cycle in one launch (mg_vcycle_serial) */
    { "grid.resolution=[33,31,29]", "grid.cell_size=0.04848485", "pressure.solver=multigrid", 1,
      NULL },
    /* levels 0 (above 64^3 cells) and 1 (34x33x31) are split, the rest in one launch */
    { "grid.resolution=[67,65,61]", "grid.cell_size=0.02388060", "pressure.solver=multigrid", 1,
      NULL },
    /* a flat grid: level 0 has no coarser level and is split above 16^3 cells; its V-cycle is
     * pipe_sweeps_from_zero's split sweeps both ways */
    { "grid.resolution=[41,39,5]", "grid.cell_size=0.03902440", "pressure.solver=multigrid", 1,
      "fluid.0.box.max=[1.6,1.2,0.15]" },
    /* and CG's steps on a box of few z-slabs, a work-item a cell (pipe_by_slab in pipesolve.c) */
    { "grid.resolution=[41,39,5]", "grid.cell_size=0.03902440", "pressure.solver=mgpcg", 1,
      "fluid.0.box.max=[1.6,1.2,0.15]" },
    /* pipe_relax's path through the split sweeps, checked every 10 sweeps */
    { "grid.resolution=[41,39,5]", "grid.cell_size=0.03902440", "pressure.solver=gauss_seidel", 10,
      "fluid.0.box.max=[1.6,1.2,0.15]" },
    /* and through one work-item's */
    { "grid.resolution=[41,39,43]", "grid.cell_size=0.03902440", "pressure.solver=gauss_seidel", 10,
      NULL },
};

/* The relative residual after `iterations` of m's solver, in C or on the device. */
static double match_residual_after(const MatchCase *m, int iterations, int device)
{
    char its[64];
    snprintf(its, sizeof its, "pressure.iterations=%d", iterations);
    const char *sets[] = { m->resolution, m->cell_size, m->solver, its, "frame_rate=240",
                           "particles_per_cell=1", m->water };
    int nsets = (int)(sizeof sets / sizeof *sets) - (m->water == NULL);
    Run r;
    run_start(&r, "scenes/hydrostatic.json", sets, nsets, device);
    run_frames(&r, 1);
    ck_assert_int_eq(r.sim.stats.substeps, 1);
    ck_assert_int_eq(r.sim.stats.last_solve.iterations, iterations);
    double res = r.sim.stats.last_solve.residual;
    run_end(&r);
    return res;
}

START_TEST(solver_iterations_match_c)
{
    const MatchCase *m = &match_cases[_i];
    for (int k = 1; k <= 3; k++) {
        int its = k * m->step;
        double c = match_residual_after(m, its, 0), cl = match_residual_after(m, its, 1);
        ck_assert_msg(fabs(cl - c) <= MATCH_RTOL * c,
                      "%s on %s, after %d iterations: relative residual %.12g on C, %.12g on "
                      "OpenCL (tolerance %g relative)", m->solver, m->resolution, its, c, cl,
                      MATCH_RTOL);
    }
}
END_TEST

/* ---- the surface mesh on the device ---------------------------------------------------------- */

/* The device computes surface.c's field with its sums in another order, so the two meshes may
 * differ where a node's phi is within rounding of 0. Measured on the cases below: the same
 * triangles, volumes equal to 3e-10 and every vertex within 2e-5 h of the other mesh's
 * nearest. The bounds are far above that and below a bug's footprint: a particle radius 3%
 * too large (0.01 cell) moved the volumes by 0.3% and the vertices by ~0.02 h; dropping the
 * solid rule put vertices into SOLID cells. */
static const double SURF_TRI_TOL = 0.01, SURF_VOLUME_TOL = 0.002, SURF_VERTEX_TOL_H = 1e-3;

/* Closed, consistently oriented, no degenerate triangle; every vertex strictly inside the
 * domain and outside every SOLID cell. */
static void surf_assert_clean(const Mesh *m, const MacGrid *g, const char *what)
{
    MeshStats st;
    ck_assert_int_eq(mesh_stats(m, &st), 0);
    ck_assert_msg(st.boundary_edges == 0 && st.nonmanifold_edges == 0 &&
                  st.misoriented_edges == 0 && st.degenerate_tris == 0,
                  "%s: %zu triangles, %zu edges: boundary %zu, non-manifold %zu, misoriented %zu, "
                  "degenerate triangles %zu; expected all 0", what, m->ntris, st.edges,
                  st.boundary_edges, st.nonmanifold_edges, st.misoriented_edges,
                  st.degenerate_tris);
    const int n[3] = { g->nx, g->ny, g->nz };
    for (size_t v = 0; v < m->nverts; v++) {
        const float *x = m->xyz + 3 * v;
        int c[3];
        for (int d = 0; d < 3; d++) {
            harness_require(x[d] > 0.0f && x[d] < (float)n[d] * g->dx, "%s: vertex %zu (%g, %g, %g) "
                          "is outside the domain on axis %d", what, v, x[0], x[1], x[2], d);
            c[d] = (int)(x[d] / g->dx);
            c[d] = c[d] < n[d] ? c[d] : n[d] - 1;
        }
        harness_require(grid_cell_type(g, c[0], c[1], c[2]) != CELL_SOLID, "%s: vertex %zu (%g, "
                      "%g, %g) is in SOLID cell (%d,%d,%d)", what, v, x[0], x[1], x[2], c[0], c[1],
                      c[2]);
    }
}

/* The largest distance from a vertex of a to the nearest vertex of b, in units of h, with b's
 * vertices hashed by the fine cell (side h) they lie in; beyond one cell counts as 1 h. */
static double surf_farthest_vertex(const Mesh *a, const Mesh *b, float h, size_t *at)
{
    size_t cap = 1;
    while (cap < 2 * b->nverts + 2)
        cap *= 2;
    uint64_t *key = malloc(cap * sizeof *key);
    uint32_t *first = malloc(cap * sizeof *first), *next = malloc((b->nverts + 1) * sizeof *next);
    ck_assert(key && first && next);
    for (size_t q = 0; q < cap; q++)
        key[q] = UINT64_MAX;
    #define SURF_KEY(i, j, k) ((uint64_t)(uint32_t)(i) | (uint64_t)(uint32_t)(j) << 21 | \
                               (uint64_t)(uint32_t)(k) << 42)
    #define SURF_SLOT(kk) (size_t)(((kk) * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1)
    for (size_t v = 0; v < b->nverts; v++) {
        const float *x = b->xyz + 3 * v;
        uint64_t kk = SURF_KEY((int)(x[0] / h), (int)(x[1] / h), (int)(x[2] / h));
        size_t q = SURF_SLOT(kk);
        while (key[q] != UINT64_MAX && key[q] != kk)
            q = (q + 1) & (cap - 1);
        next[v] = key[q] == kk ? first[q] : UINT32_MAX;
        key[q] = kk;
        first[q] = (uint32_t)v;
    }
    double worst = 0.0;
    *at = 0;
    for (size_t v = 0; v < a->nverts; v++) {
        const float *x = a->xyz + 3 * v;
        int c[3] = { (int)(x[0] / h), (int)(x[1] / h), (int)(x[2] / h) };
        double best = (double)h * h;
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    uint64_t kk = SURF_KEY(c[0] + dx, c[1] + dy, c[2] + dz);
                    size_t q = SURF_SLOT(kk);
                    while (key[q] != UINT64_MAX && key[q] != kk)
                        q = (q + 1) & (cap - 1);
                    for (uint32_t w = key[q] == kk ? first[q] : UINT32_MAX; w != UINT32_MAX;
                         w = next[w]) {
                        const float *y = b->xyz + 3 * (size_t)w;
                        double d2 = 0.0;
                        for (int d = 0; d < 3; d++)
                            d2 += ((double)x[d] - y[d]) * ((double)x[d] - y[d]);
                        best = d2 < best ? d2 : best;
                    }
                }
        if (sqrt(best) / h > worst) {
            worst = sqrt(best) / h;
            *at = v;
        }
    }
    #undef SURF_KEY
    #undef SURF_SLOT
    free(key);
    free(first);
    free(next);
    return worst;
}

/* Scenes with a floor contact (ball_drop, 32^3, once the ball has landed), a solid block and
 * a non-cubic grid (column_on_block), thin solid walls (maze). */
static const struct { const char *path; int frames; } surface_cases[] = {
    { "scenes/ball_drop.json", 12 }, { "scenes/column_on_block.json", 10 },
    { "scenes/maze.json", 10 },
};

START_TEST(surface_agrees_with_c)
{
    const char *path = surface_cases[_i].path;
    Run r;
    run_start(&r, path, NULL, 0, 1);
    run_frames(&r, surface_cases[_i].frames);
    SimBackend *d = r.sim.backend;
    Mesh dev, c;
    mesh_init(&dev);
    mesh_init(&c);
    char err[512];
    /* the default (refine 1), then refine 2, the default until issue 42 */
    for (int refine = 1; refine <= 2; refine++) {
    SurfaceSettings set = surface_defaults_at(refine);
    ck_assert_msg(pipeline_surface(d, &r.sim, &set, &dev) == 0, "%s: opencl surface: %s", path,
                  r.sim.error.message);
    ck_assert_msg(surface_build(&r.sim.particles, &r.sim.grid, &set, &c, err, sizeof err) == 0,
                  "%s: %s", path, err);
    char what[256];
    snprintf(what, sizeof what, "%s, frame %d, refine %d, OpenCL surface", path, r.sim.frame,
             refine);
    surf_assert_clean(&dev, &r.sim.grid, what);
    snprintf(what, sizeof what, "%s, frame %d, refine %d, C surface", path, r.sim.frame, refine);
    surf_assert_clean(&c, &r.sim.grid, what);
    ck_assert_msg(c.ntris > 1000, "%s: the C surface has only %zu triangles", path, c.ntris);
    double dtri = fabs((double)dev.ntris - (double)c.ntris) / (double)c.ntris;
    ck_assert_msg(dtri <= SURF_TRI_TOL, "%s, frame %d: %zu triangles on OpenCL, %zu on C: %.3g%% "
                  "apart, tolerance %.3g%%", path, r.sim.frame, dev.ntris, c.ntris, 100 * dtri,
                  100 * SURF_TRI_TOL);
    double vd = mesh_volume(&dev), vc = mesh_volume(&c);
    ck_assert_msg(vc > 0.0 && fabs(vd - vc) <= SURF_VOLUME_TOL * vc, "%s, frame %d: enclosed "
                  "volume %.6g m^3 on OpenCL, %.6g m^3 on C, tolerance %.3g%%", path, r.sim.frame,
                  vd, vc, 100 * SURF_VOLUME_TOL);
    float h = r.sim.grid.dx / 2.0f;   /* refine 2's h at every refine: one absolute bound */
    size_t at;
    double far_dev = surf_farthest_vertex(&dev, &c, h, &at);
    ck_assert_msg(far_dev <= SURF_VERTEX_TOL_H, "%s, frame %d: OpenCL vertex %zu (%g, %g, %g) is "
                  "%.3g h from the nearest C vertex, tolerance %.3g h", path, r.sim.frame, at,
                  dev.xyz[3 * at], dev.xyz[3 * at + 1], dev.xyz[3 * at + 2], far_dev,
                  SURF_VERTEX_TOL_H);
    double far_c = surf_farthest_vertex(&c, &dev, h, &at);
    ck_assert_msg(far_c <= SURF_VERTEX_TOL_H, "%s, frame %d: C vertex %zu (%g, %g, %g) is %.3g h "
                  "from the nearest OpenCL vertex, tolerance %.3g h", path, r.sim.frame, at,
                  c.xyz[3 * at], c.xyz[3 * at + 1], c.xyz[3 * at + 2], far_c, SURF_VERTEX_TOL_H);
    }
    mesh_free(&dev);
    mesh_free(&c);
    run_end(&r);
}
END_TEST

/* The anisotropic surface on the device against surface_build_anisotropic on the same
 * particles. The device's sums are float, gathered per node in another order, and its
 * eigenvectors come from a float Jacobi solver, so the two differ by rounding, which the
 * level set turns into vertex moves: measured here (ball_drop 32^3 after landing,
 * column_on_block, maze) the same triangle counts, volumes 2e-8 apart and every vertex within
 * 1.1e-4 h of the other mesh's nearest (FLIPKIT_ANISO_MEASURE=1 prints them). The bounds are
 * the isotropic surface's: about ten times that, and below a bug's footprint. Two device
 * meshes of the same particles are the same bytes. */
static const double ANISO_TRI_TOL = 0.01, ANISO_VOLUME_TOL = 0.002, ANISO_VERTEX_TOL_H = 1e-3;

START_TEST(aniso_surface_agrees_with_c)
{
    const char *path = surface_cases[_i].path;
    Run r;
    run_start(&r, path, NULL, 0, 1);
    run_frames(&r, surface_cases[_i].frames);
    SimBackend *d = r.sim.backend;
    Mesh dev, again, c;
    mesh_init(&dev);
    mesh_init(&again);
    mesh_init(&c);
    char err[512];
    int ppc = r.scene.particles_per_cell;
    /* the default (refine 1), then refine 2, the default until issue 42 */
    for (int refine = 1; refine <= 2; refine++) {
    SurfaceSettings set = surface_defaults_at(refine);
    ck_assert_msg(pipeline_surface_anisotropic(d, &r.sim, &set, &dev) == 0 &&
                  pipeline_surface_anisotropic(d, &r.sim, &set, &again) == 0,
                  "%s: opencl anisotropic surface: %s", path, r.sim.error.message);
    ck_assert_msg(dev.nverts == again.nverts && dev.ntris == again.ntris &&
                  memcmp(dev.xyz, again.xyz, dev.nverts * 3 * sizeof(float)) == 0 &&
                  memcmp(dev.tri, again.tri, dev.ntris * 3 * sizeof(uint32_t)) == 0,
                  "%s, frame %d: two OpenCL anisotropic surfaces of the same particles differ "
                  "(%zu and %zu triangles)", path, r.sim.frame, dev.ntris, again.ntris);
    ck_assert_msg(surface_build_anisotropic(&r.sim.particles, &r.sim.grid, &set, ppc, &c, err,
                                            sizeof err) == 0, "%s: %s", path, err);
    char what[256];
    snprintf(what, sizeof what, "%s, frame %d, refine %d, OpenCL anisotropic surface", path,
             r.sim.frame, refine);
    surf_assert_clean(&dev, &r.sim.grid, what);
    snprintf(what, sizeof what, "%s, frame %d, refine %d, C anisotropic surface", path,
             r.sim.frame, refine);
    surf_assert_clean(&c, &r.sim.grid, what);
    ck_assert_msg(c.ntris > 1000, "%s: the C surface has only %zu triangles", path, c.ntris);
    double dtri = fabs((double)dev.ntris - (double)c.ntris) / (double)c.ntris;
    double vd = mesh_volume(&dev), vc = mesh_volume(&c);
    float h = r.sim.grid.dx / 2.0f;   /* refine 2's h at every refine: one absolute bound */
    size_t at_dev, at_c;
    double far_dev = surf_farthest_vertex(&dev, &c, h, &at_dev);
    double far_c = surf_farthest_vertex(&c, &dev, h, &at_c);
    if (getenv("FLIPKIT_ANISO_MEASURE"))
        printf("%s frame %d: triangles %zu vs %zu (%.3g%%), volume %.6g vs %.6g (%.3g%%), "
               "farthest vertex %.3g h / %.3g h\n", path, r.sim.frame, dev.ntris, c.ntris,
               100 * dtri, vd, vc, 100 * (vd - vc) / vc, far_dev, far_c);
    ck_assert_msg(dtri <= ANISO_TRI_TOL, "%s, frame %d: %zu triangles on OpenCL, %zu on C: %.3g%% "
                  "apart, tolerance %.3g%%", path, r.sim.frame, dev.ntris, c.ntris, 100 * dtri,
                  100 * ANISO_TRI_TOL);
    ck_assert_msg(vc > 0.0 && fabs(vd - vc) <= ANISO_VOLUME_TOL * vc, "%s, frame %d: enclosed "
                  "volume %.6g m^3 on OpenCL, %.6g m^3 on C, tolerance %.3g%%", path, r.sim.frame,
                  vd, vc, 100 * ANISO_VOLUME_TOL);
    ck_assert_msg(far_dev <= ANISO_VERTEX_TOL_H, "%s, frame %d: OpenCL vertex %zu (%g, %g, %g) "
                  "is %.3g h from the nearest C vertex, tolerance %.3g h", path, r.sim.frame,
                  at_dev, dev.xyz[3 * at_dev], dev.xyz[3 * at_dev + 1], dev.xyz[3 * at_dev + 2],
                  far_dev, ANISO_VERTEX_TOL_H);
    ck_assert_msg(far_c <= ANISO_VERTEX_TOL_H, "%s, frame %d: C vertex %zu (%g, %g, %g) is %.3g "
                  "h from the nearest OpenCL vertex, tolerance %.3g h", path, r.sim.frame, at_c,
                  c.xyz[3 * at_c], c.xyz[3 * at_c + 1], c.xyz[3 * at_c + 2], far_c,
                  ANISO_VERTEX_TOL_H);
    }
    mesh_free(&dev);
    mesh_free(&again);
    mesh_free(&c);
    run_end(&r);
}
END_TEST

/* output_mesh takes the device path, twice gives the same bytes, and leaves the run as it was:
 * a run that meshes every frame ends bit for bit where one that never meshes does. */
START_TEST(surface_is_repeatable_and_harmless)
{
    Run a, b;
    run_start(&a, "scenes/dam_break.json", NULL, 0, 1);
    run_start(&b, "scenes/dam_break.json", NULL, 0, 1);
    Mesh m1, m2, direct;
    mesh_init(&m1);
    mesh_init(&m2);
    mesh_init(&direct);
    for (int f = 0; f < 8; f++) {
        run_frames(&a, 1);
        run_frames(&b, 1);
        ck_assert_msg(output_mesh(pipeline_surface, &a.sim, NULL, &m1) == 0 &&
                      output_mesh(pipeline_surface, &a.sim, NULL, &m2) == 0,
                      "dam_break frame %d: %s", a.sim.frame, a.sim.error.message);
        ck_assert_msg(m1.ntris > 0 && m1.ntris == m2.ntris && m1.nverts == m2.nverts &&
                      memcmp(m1.xyz, m2.xyz, m1.nverts * 3 * sizeof(float)) == 0 &&
                      memcmp(m1.tri, m2.tri, m1.ntris * 3 * sizeof(uint32_t)) == 0,
                      "dam_break frame %d: two OpenCL surfaces of the same particles differ "
                      "(%zu and %zu triangles)", a.sim.frame, m1.ntris, m2.ntris);
    }
    SimBackend *d = a.sim.backend;
    ck_assert_int_eq(pipeline_surface(d, &a.sim, NULL, &direct), 0);
    ck_assert_msg(direct.nverts == m1.nverts &&
                  memcmp(direct.xyz, m1.xyz, m1.nverts * 3 * sizeof(float)) == 0,
                  "output_mesh did not give the device's surface");
    size_t bytes = a.sim.particles.count * sizeof(Vec3);
    ck_assert_msg(a.sim.particles.count == b.sim.particles.count &&
                  memcmp(a.sim.particles.pos, b.sim.particles.pos, bytes) == 0 &&
                  memcmp(a.sim.particles.vel, b.sim.particles.vel, bytes) == 0,
                  "dam_break: meshing on the device every frame changed the run after 8 frames");
    /* bad settings: one line naming the setting, as surface_build gives */
    SurfaceSettings bad = surface_defaults();
    bad.refine = SURFACE_MAX_REFINE + 1;
    ck_assert_int_eq(pipeline_surface(d, &a.sim, &bad, &m1), -1);
    ck_assert_msg(strstr(a.sim.error.message, "refine") && !strchr(a.sim.error.message, '\n'),
                  "bad refine: expected one line naming it, got \"%s\"", a.sim.error.message);
    mesh_free(&m1);
    mesh_free(&m2);
    mesh_free(&direct);
    run_end(&a);
    run_end(&b);
}
END_TEST

/* ---- the stage table -------------------------------------------------------------------------- */

static double wall_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The device times its stages by their kernels' spans (pipedev.c), added in at each frame's
 * end: every stage that launches kernels has time, and the stages, which run one after another
 * on one queue, add up to no more than the frames took. */
START_TEST(stage_times_are_spans)
{
    const char *sets[] = { "output.surface=false" };
    Run r;
    run_start(&r, "scenes/ball_drop.json", sets, 1, 1);
    double t0 = wall_seconds();
    run_frames(&r, 4);
    double wall = wall_seconds() - t0, sum = 0.0;
    const SimPhase launching[] = { PHASE_P2G, PHASE_DIVERGENCE, PHASE_PRESSURE, PHASE_GRADIENT,
                                   PHASE_EXTRAPOLATE, PHASE_G2P, PHASE_KEEP_INSIDE };
    for (size_t q = 0; q < sizeof launching / sizeof *launching; q++)
        ck_assert_msg(r.sim.stats.seconds[launching[q]] > 0.0, "%s has no time after 4 frames "
                      "on the device", sim_phase_names[launching[q]]);
    for (int q = 0; q < PHASE_COUNT; q++)
        sum += r.sim.stats.seconds[q];
    ck_assert_msg(sum <= wall, "the stages' times add up to %.6f s, more than the %.6f s the 4 "
                  "frames took", sum, wall);
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

/* Every sort counts each cell's count back down to 0 for the next one (kernels/sort.cl): on
 * column_on_block, whose event adds particles at frame 25, through that event and a surface. */
START_TEST(sort_leaves_counts_at_zero)
{
    Run r;
    run_start(&r, "scenes/column_on_block.json", NULL, 0, 1);
    for (int f = 0; f < 30; f++) {
        run_frames(&r, 1);
        long left = pipeline_leftover_counts(r.sim.backend);
        ck_assert_msg(left == 0, "column_on_block, frame %d: %ld cells' sort counts are not 0 "
                      "after the sort (expected 0; -1: could not read them)", r.sim.frame, left);
    }
    run_end(&r);
}
END_TEST

/* A stage that writes NaN is named on the device as on the host: one particle's velocity made
 * NaN before the first frame, p2g spreads it to the faces around it, and both backends stop
 * there, naming p2g and the same first face (the device's value is not kept, so its line says
 * "a non-finite value" where the host's says nan). The device checks u, v and w in one launch:
 * with all three NaN it must still name u, as the host, which checks u first, does. */
static const struct { const char *components, *expect; } nan_cases[] = {
    { "x", " to u at face (" }, { "xyz", " to u at face (" }, { "z", " to w at face (" },
};

START_TEST(nan_names_its_stage)
{
    char line[2][512];
    const char *comps = nan_cases[_i].components, *expect = nan_cases[_i].expect;
    for (int device = 0; device < 2; device++) {
        Run r;
        run_start(&r, "scenes/dam_break.json", NULL, 0, device);
        Vec3 *v = &r.sim.particles.vel[0];
        v->x = strchr(comps, 'x') ? NAN : v->x;
        v->y = strchr(comps, 'y') ? NAN : v->y;
        v->z = strchr(comps, 'z') ? NAN : v->z;
        r.sim.backend_stale = true;
        ck_assert_msg(sim_advance_frame(&r.sim) == -1, "%s: a NaN velocity (%s) went unnoticed",
                      device ? "opencl" : "C", comps);
        ck_assert_int_eq(r.sim.error.status, RUN_COULD_NOT_RUN);
        const char *at = strstr(r.sim.error.message, expect);
        ck_assert_msg(strncmp(r.sim.error.message, "stage p2g wrote ", 16) == 0 && at,
                      "%s, NaN in %s: expected \"stage p2g wrote ...%s...)\", got \"%s\"",
                      device ? "opencl" : "C", comps, expect, r.sim.error.message);
        snprintf(line[device], sizeof line[device], "%s", at);
        run_end(&r);
    }
    ck_assert_msg(strcmp(line[0], line[1]) == 0, "NaN in %s: C names%s, opencl%s", comps, line[0],
                  line[1]);
}
END_TEST

START_TEST(missing_device_is_one_line)
{
    char err[8192] = "";
    SimBackend *d = pipeline_open("7:3", err, sizeof err);
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
    tcase_add_loop_test(tc, stepping_agrees_with_c, 0,
                        (int)(sizeof stepping_cases / sizeof *stepping_cases));
    suite_add_tcase(s, tc);
    tc = tcase_create("solvers");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, solver_agrees_with_c, 0, (int)(sizeof solver_sets / sizeof *solver_sets));
    tcase_add_loop_test(tc, mgpcg_converges_in_few_iterations, 0,
                        (int)(sizeof mgpcg_grids / sizeof *mgpcg_grids));
    tcase_add_loop_test(tc, solver_iterations_match_c, 0,
                        (int)(sizeof match_cases / sizeof *match_cases));
    tcase_add_loop_test(tc, paths_same_bits, 0, (int)(sizeof path_cases / sizeof *path_cases));
    suite_add_tcase(s, tc);
    tc = tcase_create("surface");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, surface_agrees_with_c, 0,
                        (int)(sizeof surface_cases / sizeof *surface_cases));
    tcase_add_test(tc, surface_is_repeatable_and_harmless);
    tcase_add_loop_test(tc, aniso_surface_agrees_with_c, 0,
                        (int)(sizeof surface_cases / sizeof *surface_cases));
    suite_add_tcase(s, tc);
    tc = tcase_create("determinism");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, same_run_same_bytes);
    tcase_add_test(tc, stage_times_are_spans);
    tcase_add_test(tc, sort_leaves_counts_at_zero);
    tcase_add_test(tc, missing_device_is_one_line);
    tcase_add_loop_test(tc, nan_names_its_stage, 0, (int)(sizeof nan_cases / sizeof *nan_cases));
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return harness_run(pipeline_suite());
}
