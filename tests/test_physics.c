/* test_physics.c — physical validation of the reference: a tank at rest, free fall, a
 * divergence-free projection, no particle lost or inside a solid in any scene.
 * flipkit tests/: CK_FORK=no for gdb, CK_RUN_CASE="hydrostatic" for one case. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"
#include "sim.h"

/* Loads a scene with overrides and sets up a reference-track sim; fails the test on error. */
static void start(Sim *s, Scene *sc, const char *path, const char *const *sets, int nsets)
{
    char err[512];
    ck_assert_msg(scene_load(path, sets, nsets, sc, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(sim_init(s, sc, &reference_track) == 0, "%s", s->error.message);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void advance(Sim *s, int frames)
{
    for (int f = 0; f < frames; f++)
        ck_assert_msg(sim_advance_frame(s) == 0, "frame %d: %s", s->frame + 1, s->error.message);
}

static float max_speed(const Particles *ps)
{
    float m = 0.0f;
    for (size_t p = 0; p < ps->count; p++) {
        Vec3 v = ps->vel[p];
        m = fmaxf(m, sqrtf(v.x * v.x + v.y * v.y + v.z * v.z));
    }
    return m;
}

/* The tank of scenes/hydrostatic.json (water, 1.2 m deep) after 2 s of simulated time.
 * At rest: the fastest particle is below 1 % of sqrt(g H) = 3.4 m/s, the speed of a
 * shallow-water wave in this tank; a sloshing or leaking tank moves faster than that.
 * Pressure: p = rho g depth within 2 % in every FLUID cell below the top one, with depth
 * measured from where the solve puts p = 0, the centre of the first AIR cell above. Without
 * a ghost-fluid surface that is the discrete surface (Bridson 2015, ch. 5); the particle
 * surface is within one cell of it, which we check too. */
START_TEST(hydrostatic_tank_stays_at_rest)
{
    Sim s;
    Scene sc;
    start(&s, &sc, "scenes/hydrostatic.json", NULL, 0);
    float g = -sc.gravity.y, rho = sc.density;
    advance(&s, 60);
    ck_assert_float_eq_tol(s.time, 2.0, 1e-9);
    float vmax = max_speed(&s.particles), bound = 0.01f * sqrtf(g * 1.2f);
    ck_assert_msg(vmax < bound, "hydrostatic: fastest particle %.4g m/s, expected < %.4g m/s", vmax, bound);
    const MacGrid *gr = &s.grid;
    int checked = 0;
    float worst = 0.0f;
    float top_particle = 0.0f;
    for (size_t p = 0; p < s.particles.count; p++)
        top_particle = fmaxf(top_particle, s.particles.pos[p].y);
    for (int k = 1; k < gr->nz - 1; k++)
        for (int i = 1; i < gr->nx - 1; i++) {
            int jair = 1;
            while (grid_cell_type(gr, i, jair, k) == CELL_FLUID)
                jair++;
            ck_assert_msg(grid_cell_type(gr, i, jair, k) == CELL_AIR, "column (%d,%d): no air above", i, k);
            float surface = (jair + 0.5f) * gr->dx;
            ck_assert_msg(fabsf(surface - top_particle) <= gr->dx, "column (%d,%d): pressure surface %.3f m, particles reach %.3f m", i, k, surface, top_particle);
            for (int j = 1; j < jair - 1; j++) {
                float depth = surface - (j + 0.5f) * gr->dx;
                float want = rho * g * depth, got = gr->p[grid_cell_index(gr, i, j, k)];
                ck_assert_msg(fabsf(got - want) <= 0.02f * want,
                              "hydrostatic: p at cell (%d,%d,%d): expected %.2f Pa (rho g depth), got %.2f, error %.2f%%",
                              i, j, k, want, got, 100.0f * fabsf(got - want) / want);
                worst = fmaxf(worst, fabsf(got - want) / want);
                checked++;
            }
        }
    ck_assert_int_gt(checked, 100);
    fprintf(stderr, "hydrostatic: fastest particle %.3g m/s (bound %.3g); worst p error %.3f%% over %d cells\n",
            vmax, bound, 100.0f * worst, checked);
    sim_free(&s);
    scene_free(&sc);
}
END_TEST

/* A block with nothing under it falls freely: centre of mass at y0 - g t^2 / 2 within 1 % of
 * the fall. The explicit-Euler advect lags by g t dt / 2 (first order in dt), so the frame
 * rate is set to give dt = 1/600 s: 0.33 % of the fall after 0.5 s. */
START_TEST(free_fall_follows_the_parabola)
{
    static const char *const sets[] = {
        "name=free_fall", "grid.resolution=[12,40,12]", "grid.cell_size=0.1",
        "frame_rate=600", "frames=300", "fluid=[{\"box\":{\"min\":[0.4,2.8,0.4],\"max\":[0.8,3.2,0.8]}}]",
    };
    Sim s;
    Scene sc;
    start(&s, &sc, "scenes/hydrostatic.json", sets, 6);
    double y0 = 0.0;
    for (size_t p = 0; p < s.particles.count; p++)
        y0 += s.particles.pos[p].y;
    y0 /= (double)s.particles.count;
    advance(&s, 300);
    double y = 0.0, g = -sc.gravity.y, t = s.time;
    for (size_t p = 0; p < s.particles.count; p++)
        y += s.particles.pos[p].y;
    y /= (double)s.particles.count;
    double fall = 0.5 * g * t * t, want = y0 - fall;
    fprintf(stderr, "free fall: error %.3f%% of the fall\n", 100.0 * fabs(y - want) / fall);
    ck_assert_msg(fabs(y - want) <= 0.01 * fall,
                  "free fall: centre of mass at t = %.3f s: expected y = %.4f m, got %.4f (error %.2f%% of the %.3f m fall)",
                  t, want, y, 100.0 * fabs(y - want) / fall, fall);
    sim_free(&s);
    scene_free(&sc);
}
END_TEST

/* A sheet of liquid two cells thick falling along a wall (and between the two z walls) falls
 * freely too: the walls are free-slip. Every particle within half a cell of a wall reads the
 * ghost velocities inside the solid; when those were left 0 the walls acted as no-slip and the
 * sheet hung on them (the wall film of the dam break, issue 20). The 10th-percentile fall is
 * checked as well as the mean, since a drag acts on the few near the wall. */
START_TEST(sheet_falls_freely_along_a_wall)
{
    static const char *const sets[] = {
        "name=wall_sheet", "grid.resolution=[12,40,8]", "grid.cell_size=0.1",
        "frame_rate=600", "frames=300", "fluid=[{\"box\":{\"min\":[0.1,2.8,0.1],\"max\":[0.3,3.2,0.7]}}]",
    };
    Sim s;
    Scene sc;
    start(&s, &sc, "scenes/hydrostatic.json", sets, 6);
    size_t n = s.particles.count;
    double *y0 = malloc(n * sizeof *y0);
    for (size_t p = 0; p < n; p++)
        y0[p] = s.particles.pos[p].y;
    advance(&s, 300);
    double g = -sc.gravity.y, t = s.time, fall = 0.5 * g * t * t, mean = 0.0;
    double *drop = malloc(n * sizeof *drop);
    for (size_t p = 0; p < n; p++) {
        drop[p] = y0[p] - s.particles.pos[p].y;
        mean += drop[p];
    }
    mean /= (double)n;
    qsort(drop, n, sizeof *drop, cmp_double);
    double slow = drop[n / 10];
    fprintf(stderr, "sheet along a wall: mean fall %.3f%% short of g t^2/2, 10th-percentile fall %.3f%% short\n",
            100.0 * (fall - mean) / fall, 100.0 * (fall - slow) / fall);
    ck_assert_msg(fabs(mean - fall) <= 0.01 * fall,
                  "sheet along a wall: mean fall after %.3f s: expected %.4f m (g t^2/2), got %.4f (%.2f%% short)",
                  t, fall, mean, 100.0 * (fall - mean) / fall);
    ck_assert_msg(fall - slow <= 0.02 * fall,
                  "sheet along a wall: the 10th-percentile fall is %.4f m, expected %.4f m within 2%% (%.2f%% short): the walls drag",
                  slow, fall, 100.0 * (fall - slow) / fall);
    free(drop);
    free(y0);
    sim_free(&s);
    scene_free(&sc);
}
END_TEST

/* The divergence of FLUID cell (i,j,k) in double, solid faces counting 0: measured in double
 * so the check sees the velocities' error, not the float rounding of measuring it. */
static double divergence_double(const MacGrid *g, int i, int j, int k)
{
    double sum = 0.0;
    for (int a = 0; a < 3; a++) {
        int e[3] = { a == 0, a == 1, a == 2 };
        double hi = grid_face_is_solid(g, a, i + e[0], j + e[1], k + e[2]) ? 0.0
                    : g->vel[a][grid_face_index(g, a, i + e[0], j + e[1], k + e[2])];
        double lo = grid_face_is_solid(g, a, i, j, k) ? 0.0 : g->vel[a][grid_face_index(g, a, i, j, k)];
        sum += hi - lo;
    }
    return sum / g->dx;
}

/* |rhs - L p| / |rhs| over FLUID cells, in double, from the stencil written out here. *floor
 * receives the most that rounding the solver's double iterate to float32 p can add to it:
 * each p is off by at most 2^-24 of itself, so (L p) at a cell by (N |p| + sum |p_n|) 2^-24 / dx^2. */
static double true_residual(const MacGrid *g, const float *rhs, double *floor)
{
    double e2 = 0.0;
    static const int nb[6][3] = { { -1, 0, 0 }, { 1, 0, 0 }, { 0, -1, 0 }, { 0, 1, 0 }, { 0, 0, -1 }, { 0, 0, 1 } };
    double r2 = 0.0, b2 = 0.0;
    for (int k = 1; k < g->nz - 1; k++)
        for (int j = 1; j < g->ny - 1; j++)
            for (int i = 1; i < g->nx - 1; i++) {
                size_t c = grid_cell_index(g, i, j, k);
                if (g->cell[c] != CELL_FLUID)
                    continue;
                double sum = 0.0, mag = 0.0;
                int n = 0;
                for (int q = 0; q < 6; q++) {
                    int t = grid_cell_type(g, i + nb[q][0], j + nb[q][1], k + nb[q][2]);
                    n += t != CELL_SOLID;
                    if (t == CELL_FLUID) {
                        double pn = g->p[grid_cell_index(g, i + nb[q][0], j + nb[q][1], k + nb[q][2])];
                        sum += pn;
                        mag += fabs(pn);
                    }
                }
                double dx2 = (double)g->dx * g->dx;
                double r = rhs[c] - (sum - n * (double)g->p[c]) / dx2;
                double e = (mag + n * fabs((double)g->p[c])) * 0x1p-24 / dx2;
                r2 += r * r;
                e2 += e * e;
                b2 += (double)rhs[c] * rhs[c];
            }
    *floor = sqrt(e2 / b2);
    return sqrt(r2 / b2);
}

/* After a projection with the converged solver, the divergence left in FLUID cells, relative
 * to the divergence before, is the solve's residual (<= tolerance, on its double iterate),
 * plus what storing p in float32 adds (bounded in true_residual), plus the float32 rounding of
 * the velocity update in gradient: |u| eps / dx per face, 2e-7 relative here, allowed 5e-7. */
START_TEST(projection_leaves_no_divergence)
{
    Sim s;
    Scene sc;
    start(&s, &sc, "scenes/ball_drop.json", NULL, 0);
    advance(&s, 12); /* the ball is on the floor and spreading */
    float dt = sim_cfl_dt(&s);
    ck_assert_int_eq(sim_substep(&s, dt), 0);
    ck_assert(s.stats.last_solve.converged);
    const MacGrid *g = &s.grid;
    double before2 = 0.0, after2 = 0.0;
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                size_t c = grid_cell_index(g, i, j, k);
                if (g->cell[c] != CELL_FLUID)
                    continue;
                double d = divergence_double(g, i, j, k);
                before2 += (double)s.div[c] * s.div[c];
                after2 += d * d;
            }
    double rel = sqrt(after2 / before2), tol = sc.pressure.tolerance;
    double floor, residual = true_residual(g, s.rhs, &floor);
    fprintf(stderr, "projection: solver residual %.3g, residual of the float32 p %.3g (rounding "
            "bound %.3g), |div after| / |div before| = %.3g after %d iterations\n",
            s.stats.last_solve.residual, residual, floor, rel, s.stats.last_solve.iterations);
    ck_assert_msg(s.stats.last_solve.residual <= tol, "projection: solver residual %.3g, expected <= %.3g",
                  s.stats.last_solve.residual, tol);
    ck_assert_msg(residual <= tol + floor, "projection: true residual |b - L p| / |b| = %.3g, expected "
                  "<= %.3g (tolerance + float32 rounding bound)", residual, tol + floor);
    ck_assert_msg(rel <= tol + floor + 5e-7, "projection: |div after| / |div before| = %.3g, expected <= %.3g",
                  rel, tol + floor + 5e-7);
    sim_free(&s);
    scene_free(&sc);
}
END_TEST

/* Counts particles in SOLID cells (with the run's solid mask). */
static size_t particles_in_solids(const Sim *s)
{
    size_t bad = 0;
    for (size_t p = 0; p < s->particles.count; p++) {
        int i, j, k;
        grid_cell_of(&s->grid, s->particles.pos[p], &i, &j, &k);
        bad += s->solid[grid_cell_index(&s->grid, i, j, k)] != 0;
    }
    return bad;
}

/* Every scene runs to the end; the particle count changes only when an event adds fluid,
 * and no particle is ever inside a solid. Scene name from the loop index (_i). */
static const char *const scene_files[] = {
    "scenes/ball_drop.json", "scenes/dam_break.json", "scenes/waterfall.json",
    "scenes/maze.json", "scenes/column_on_block.json", "scenes/hydrostatic.json",
};

START_TEST(scene_keeps_every_particle_out_of_solids)
{
    Sim s;
    Scene sc;
    start(&s, &sc, scene_files[_i], NULL, 0);
    size_t count = s.particles.count;
    ck_assert_uint_gt(count, 0);
    for (int f = 1; f <= sc.frames; f++) {
        int fired = 0;
        for (int e = 0; e < sc.nevents; e++)
            fired |= sc.events[e].frame == f;
        advance(&s, 1);
        ck_assert_msg(fired ? s.particles.count >= count : s.particles.count == count,
                      "%s: frame %d: %zu particles, expected %zu", sc.name, f, s.particles.count, count);
        count = s.particles.count;
        size_t bad = particles_in_solids(&s);
        ck_assert_msg(bad == 0, "%s: frame %d: %zu particles inside solids", sc.name, f, bad);
    }
    sim_free(&s);
    scene_free(&sc);
}
END_TEST

/* The gradient contract leaves the faces between two AIR cells free (common/stages.h): the
 * driver's extrapolation rewrites every face a particle's stencil reaches, and p2g rewrites
 * every face the next substep, so no run can depend on them. This holds the claim: a gradient
 * that scribbles a wild value on each of those faces leaves every particle bit for bit. */
static void gradient_scribbling_air_faces(MacGrid *g, const float *p, float scale)
{
    reference_track.gradient(g, p, scale);
    for (int a = 0; a < 3; a++)
        for (int k = 0; k < g->face[a].n[2]; k++)
            for (int j = 0; j < g->face[a].n[1]; j++)
                for (int i = 0; i < g->face[a].n[0]; i++)
                    if (grid_face_below(g, a, i, j, k) == CELL_AIR && grid_face_above(g, a, i, j, k) == CELL_AIR)
                        g->vel[a][grid_face_index(g, a, i, j, k)] = 1000.0f;
}

static const char *const free_face_scenes[] = { "scenes/ball_drop.json", "scenes/dam_break.json",
                                                "scenes/waterfall.json" };

START_TEST(air_air_faces_reach_no_particle)
{
    Scene sc;
    char err[512];
    ck_assert_msg(scene_load(free_face_scenes[_i], NULL, 0, &sc, err, sizeof err) == 0, "%s", err);
    Track scribbling = reference_track;
    scribbling.gradient = gradient_scribbling_air_faces;
    Sim plain, scribbled;
    ck_assert_msg(sim_init(&plain, &sc, &reference_track) == 0, "%s", plain.error.message);
    ck_assert_msg(sim_init(&scribbled, &sc, &scribbling) == 0, "%s", scribbled.error.message);
    for (int f = 1; f <= 12; f++) {
        advance(&plain, 1);
        advance(&scribbled, 1);
        size_t n = plain.particles.count;
        ck_assert_uint_eq(scribbled.particles.count, n);
        for (size_t q = 0; q < n; q++) {
            int same = memcmp(&plain.particles.pos[q], &scribbled.particles.pos[q], sizeof(Vec3)) == 0 &&
                       memcmp(&plain.particles.vel[q], &scribbled.particles.vel[q], sizeof(Vec3)) == 0;
            ck_assert_msg(same, "%s: frame %d: particle %zu differs when gradient writes 1000 to the "
                          "faces between two AIR cells (vel %g %g %g, expected %g %g %g): a run "
                          "depends on them, so the contract cannot leave them free",
                          sc.name, f, q, (double)scribbled.particles.vel[q].x,
                          (double)scribbled.particles.vel[q].y, (double)scribbled.particles.vel[q].z,
                          (double)plain.particles.vel[q].x, (double)plain.particles.vel[q].y,
                          (double)plain.particles.vel[q].z);
        }
    }
    sim_free(&plain);
    sim_free(&scribbled);
    scene_free(&sc);
}
END_TEST

/* ---- production stepping ------------------------------------------------------------------ */

/* A rigid rotation about the grid's centre, (u, v, w) = omega (-(y - c), x - c, 0), on every
 * face: linear, so trilinear interpolation gives it exactly and a step's error is the
 * integrator's own. */
static void fill_rotation(MacGrid *g, double omega)
{
    double c = 0.5 * g->nx * g->dx;
    for (int a = 0; a < 3; a++)
        for (int k = 0; k < g->face[a].n[2]; k++)
            for (int j = 0; j < g->face[a].n[1]; j++)
                for (int i = 0; i < g->face[a].n[0]; i++) {
                    double x = (i + g->face[a].off[0]) * g->dx, y = (j + g->face[a].off[1]) * g->dx;
                    double value = a == 0 ? -omega * (y - c) : a == 1 ? omega * (x - c) : 0.0;
                    g->vel[a][grid_face_index(g, a, i, j, k)] = (float)value;
                }
}

/* Distance from the exact rotated position after one step of angle theta. */
static double rotation_step_error(MacGrid *g, int order, double theta)
{
    double c = 0.5 * g->nx * g->dx, r = 3.0 * g->dx;
    Vec3 x = { (float)(c + r), (float)c, (float)c };
    Particles ps = { .pos = &x, .count = 1 };
    ref_advect_grid(&ps, g, (float)theta, order); /* omega = 1: dt is the angle */
    double ex = c + r * cos(theta), ey = c + r * sin(theta);
    return hypot(x.x - ex, x.y - ey) + fabs(x.z - c);
}

/* The production step's order: one step's error shrinks as dt^(order + 1) when dt halves, so
 * by 2^3 for RK2 and 2^4 for RK3 (Euler, dt^2: by 4, and an RK3 with a wrong weight falls to
 * RK2's rate). Angles 0.4 and 0.2 rad keep the errors far above float rounding. */
START_TEST(production_step_has_its_order)
{
    MacGrid g;
    ck_assert_int_eq(grid_init(&g, 12, 12, 12, 0.5f), 0);
    fill_rotation(&g, 1.0);
    for (int order = 2; order <= 3; order++) {
        double big = rotation_step_error(&g, order, 0.4), small = rotation_step_error(&g, order, 0.2);
        double ratio = big / small, want = order == 2 ? 8.0 : 16.0;
        ck_assert_msg(ratio > 0.8 * want && ratio < 1.25 * want,
                      "RK%d through a rigid rotation: one step's error %.3g m at 0.4 rad, %.3g m at "
                      "0.2 rad, ratio %.2f; expected %.0f (error ~ dt^%d)", order, big, small, ratio,
                      want, order + 1);
    }
    grid_free(&g);
}
END_TEST

/* The choice sim_init makes: production stepping only on a track with the step, the
 * extrapolation reaching ceil(cfl) + 1 layers; the student track and mixes keep their advect
 * stage at the scene's cfl. */
START_TEST(production_stepping_only_on_the_reference_track)
{
    Scene sc;
    char err[512];
    const char *sets[] = { "production.integrator=rk3", "production.cfl=3.5" };
    ck_assert_msg(scene_load("scenes/dam_break.json", sets, 2, &sc, err, sizeof err) == 0, "%s", err);
    Track mixed;
    ck_assert_int_eq(track_mix(&mixed, &student_track, &reference_track, "all", err, sizeof err), 0);
    const struct { const Track *t; int order; float cfl; int layers; } want[] = {
        { &reference_track, 3, 3.5f, 5 }, { &student_track, 0, sc.cfl, SIM_EXTRAPOLATE_LAYERS },
        { &mixed, 0, sc.cfl, SIM_EXTRAPOLATE_LAYERS },
    };
    for (size_t q = 0; q < sizeof want / sizeof *want; q++) {
        Sim s;
        ck_assert_msg(sim_init(&s, &sc, want[q].t) == 0, "%s", s.error.message);
        ck_assert_msg(s.step.order == want[q].order && s.step.cfl == want[q].cfl &&
                      s.step.layers == want[q].layers,
                      "%s track: stepping order %d, cfl %g, %d layers; expected %d, %g, %d",
                      want[q].t->name, s.step.order, (double)s.step.cfl, s.step.layers,
                      want[q].order, (double)want[q].cfl, want[q].layers);
        sim_free(&s);
    }
    ck_assert_int_eq(sim_extrapolate_layers(1.0f), SIM_EXTRAPOLATE_LAYERS);
    ck_assert_int_eq(sim_extrapolate_layers(4.0f), 5);
    ck_assert_int_eq(sim_extrapolate_layers(4.2f), 6);
    scene_free(&sc);
}
END_TEST

/* Production stepping on the ball drop through its splash, against the teaching stepping: no
 * particle lost, far fewer substeps, and the liquid in the same place (the centre of mass
 * within a cell of the teaching run's at frame 24, after the splash). */
START_TEST(production_stepping_follows_the_teaching_run)
{
    const char *teach[] = { "production.integrator=none", "output.surface=false" };
    const char *prod[] = { "production.integrator=rk3", "output.surface=false" };
    Sim a, b;
    Scene sa, sb;
    start(&a, &sa, "scenes/ball_drop.json", teach, 2);
    start(&b, &sb, "scenes/ball_drop.json", prod, 2);
    ck_assert_int_eq(b.step.order, 3);
    advance(&a, 24);
    advance(&b, 24);
    ck_assert_uint_eq(b.particles.count, a.particles.count);
    double ca[3] = { 0 }, cb[3] = { 0 };
    for (size_t p = 0; p < a.particles.count; p++)
        for (int d = 0; d < 3; d++) {
            ca[d] += vec3_get(a.particles.pos[p], d) / (double)a.particles.count;
            cb[d] += vec3_get(b.particles.pos[p], d) / (double)b.particles.count;
        }
    double off = sqrt((ca[0] - cb[0]) * (ca[0] - cb[0]) + (ca[1] - cb[1]) * (ca[1] - cb[1]) +
                      (ca[2] - cb[2]) * (ca[2] - cb[2])) / a.grid.dx;
    ck_assert_msg(off < 1.0, "ball_drop, frame 24: the production run's centre of mass is %.3g "
                  "cells from the teaching run's (expected < 1)", off);
    ck_assert_msg(b.stats.substeps * 2 <= a.stats.substeps,
                  "ball_drop, 24 frames: %ld substeps with production stepping, %ld teaching; "
                  "expected at most half", b.stats.substeps, a.stats.substeps);
    sim_free(&a);
    sim_free(&b);
    scene_free(&sa);
    scene_free(&sb);
}
END_TEST

static Suite *physics_suite(void)
{
    Suite *s = suite_create("physics");
    TCase *rest = tcase_create("hydrostatic");
    tcase_set_timeout(rest, 120);
    tcase_add_test(rest, hydrostatic_tank_stays_at_rest);
    suite_add_tcase(s, rest);
    TCase *fall = tcase_create("free_fall");
    tcase_set_timeout(fall, 120);
    tcase_add_test(fall, free_fall_follows_the_parabola);
    tcase_add_test(fall, sheet_falls_freely_along_a_wall);
    suite_add_tcase(s, fall);
    TCase *proj = tcase_create("projection");
    tcase_set_timeout(proj, 120);
    tcase_add_test(proj, projection_leaves_no_divergence);
    suite_add_tcase(s, proj);
    TCase *scenes = tcase_create("scenes");
    tcase_set_timeout(scenes, 300);
    tcase_add_loop_test(scenes, scene_keeps_every_particle_out_of_solids, 0,
                        (int)(sizeof scene_files / sizeof *scene_files));
    tcase_add_loop_test(scenes, air_air_faces_reach_no_particle, 0,
                        (int)(sizeof free_face_scenes / sizeof *free_face_scenes));
    suite_add_tcase(s, scenes);
    TCase *step = tcase_create("production");
    tcase_set_timeout(step, 120);
    tcase_add_test(step, production_step_has_its_order);
    tcase_add_test(step, production_stepping_only_on_the_reference_track);
    tcase_add_test(step, production_stepping_follows_the_teaching_run);
    suite_add_tcase(s, step);
    return s;
}

int main(void)
{
    return harness_run(physics_suite());
}
