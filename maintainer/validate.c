/* validate.c — `make validate`: the reference against a laboratory experiment and exact results,
 * each case at the teaching and the production stepping side by side, with a tolerance per case,
 * written to build/validate/report.html (SVG plots) and report.json.
 * flipkit maintainer/: --short runs one resolution of each case (what `make check` runs). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "reference.h"
#include "sim.h"
#include "surface.h"

/* ---- the two settings ------------------------------------------------------------------------ */

/* Every case runs twice: at the teaching stepping (the advect stage at the case's own cfl, the
 * production group forced off, as the student track and the grader run) and at the production
 * stepping (particles moved through the projected grid velocity by Ralston's RK3, a substep
 * crossing up to VAL_PRODUCTION_CFL cells). A case fails the run if either setting fails it.
 * The cfl is the largest of 3, 4 and 5 at which the full `make validate` passed every case; all
 * three did (issue 42, --production-only --production-cfl 3, 4, 5). Production's figures at
 * 3 / 4 / 5: the dam break's lead to T 4.3 at 32 cells per a +17.2% / +17.4% / +17.4% (at most
 * 20%; teaching +15.8%), 0 of 15 points outside at every resolution, late front speed 1.900 /
 * 1.848 / 1.843 (1.70 - 2.00), standing wave 2.70% at all three (at most 3%; teaching 1.3%: the
 * RK3 step through the grid velocity, not the cfl, which never binds there at 1 substep a
 * frame), volume 2.7% and 5.2% / 5.0% / 5.0% (at most 10%); substeps at 32 cells per a 262 /
 * 192 / 182 against teaching's 614. */
#define VAL_PRODUCTION_CFL 5.0
typedef enum { VAL_TEACHING, VAL_PRODUCTION, VAL_SETTINGS } ValSetting;
static const char *const val_setting_names[VAL_SETTINGS] = { "teaching", "production" };
static double val_production_cfl = VAL_PRODUCTION_CFL;   /* --production-cfl X: to measure another */
/* --production-only: the teaching runs skipped (their figures do not depend on the production
 * cfl), for trying cfl values; such a run judges the production setting only and says so. The
 * production setting always runs, so a case's fixed figures (its frames, resolution, theory)
 * are read from its production run. */
static int val_skipped[VAL_SETTINGS];

/* Loads a scene (the file path, or text when text is not NULL, path then naming it) at setting
 * st: a scene file's own production group is overridden either way. */
static int val_load(const char *path, const char *text, ValSetting st, Scene *sc, char *err, size_t n)
{
    char cfl[64];
    snprintf(cfl, sizeof cfl, "production.cfl=%.17g", val_production_cfl);
    const char *const teaching[] = { "production.integrator=none" };
    const char *const production[] = { "production.integrator=rk3", cfl };
    const char *const *ov = st == VAL_PRODUCTION ? production : teaching;
    int nov = st == VAL_PRODUCTION ? 2 : 1;
    return text ? scene_load_text(text, path, ov, nov, sc, err, n) : scene_load(path, ov, nov, sc, err, n);
}

/* sim_init at setting st, and a check that the run steps as the setting says (the reference
 * track has the production step; were it lost, production would silently be teaching). */
static int val_start(Sim *s, const Scene *sc, ValSetting st, char *err, size_t n)
{
    if (sim_init(s, sc, &reference_track) != 0) {
        snprintf(err, n, "%.500s", s->error.message);
        return -1;
    }
    int want = st == VAL_PRODUCTION ? 3 : 0;
    if (s->step.order != want) {
        snprintf(err, n, "the %s setting asked for order %d stepping, the sim took order %d",
                 val_setting_names[st], want, s->step.order);
        sim_free(s);
        return -1;
    }
    return 0;
}

/* ---- the experiment ------------------------------------------------------------------------ */

/* Martin & Moyce (1952), "Part IV. An experimental study of the collapse of liquid columns on a
 * rigid horizontal plane", Phil. Trans. R. Soc. A 244, 312-324, Fig. 3: the surge front of a
 * column of width a = 2.25 in and height 2a (n^2 = 2), Z = z / a against T = t sqrt(2 g / a),
 * as digitised by the PySPH project (pysph/examples/db_exp_data.py). */
static const double mm_T[] = { 0.832, 1.219, 1.997, 2.547, 3.345, 4.034, 4.418, 5.091, 5.685,
                               6.306, 6.822, 7.439, 8.031, 8.633, 9.237 };
static const double mm_Z[] = { 1.217, 1.474, 2.292, 2.995, 4.134, 4.944, 5.881, 6.980, 7.945,
                               8.966, 9.986, 10.963, 11.977, 13.005, 13.970 };
enum { MM_POINTS = sizeof mm_T / sizeof mm_T[0] };
#define MM_A 0.05715 /* 2.25 in, metres */
/* What the front is judged against. The reference is inviscid with free-slip walls and lets the
 * column go at once; the experiment had a floor with friction and a gate. Bed friction slows a
 * dry-bed surge below the frictionless shallow-water front speed 2 sqrt(g h0) (Ritter 1892;
 * Dressler 1952, J. Res. Natl. Bur. Stand. 49, 217-225), so the method should lead the
 * experiment and trail Ritter's front, which in these units starts at the column's edge and
 * runs at dZ/dT = 2: Z_exp(T) <= Z(T) <= 1 + 2T at every point of the record. A drag the method
 * should not have (the walls acting no-slip left a film of liquid on them, issue 20) puts the
 * front behind the experiment; a front faster than Ritter's has gained energy. */
/* And the lead stays a lead, not a runaway: a front that gained energy would sit between the two
 * lines long after it had left the experiment behind, so its mean lead to T = 4.3 is bounded too
 * (measured: +11.5%, +13.8%, +15.8% at 8, 16, 32 cells per a). */
#define DAM_LEAD_TOLERANCE 0.20
#define DAM_LATE_T 5.0      /* the late front speed is fitted over T >= this (whole record only) */
#define RITTER_SPEED 2.0    /* dZ/dT of Ritter's front, 2 sqrt(g 2a) / sqrt(2 g a) */
/* The early collapse, T = t sqrt(2 g / a) <= 4.3 (t sqrt(g / a) <= 3): the front before it has
 * thinned to a few cells. */
#define DAM_EARLY_T 4.3

typedef struct {
    int n;                  /* cells per column width */
    int frames;
    double *T, *Z, *H;      /* per frame: time, surge front, residual column height (over a) */
    double mean_err, max_err;       /* mean and worst (Z - Z_exp) / Z_exp, T <= DAM_EARLY_T */
    double mean_all, max_all;       /* the same over every point the run reaches */
    int outside, used;              /* points outside Z_exp <= Z <= 1 + 2T, of those reached */
    double speed;                   /* the front's dZ/dT fitted over T >= DAM_LATE_T (NAN: too short) */
    double at[MM_POINTS];           /* Z of the run at each point's T (NAN beyond its end) */
    double H_early;                 /* H at T = DAM_EARLY_T */
    double seconds;                 /* CPU time of the run */
    long substeps;
    int ok;
    char error[512];
} DamRun;

/* The process's CPU time: a run's cost, read the same on a machine others share (the reference's
 * stages run on this one thread; validate starts no other). */
static double val_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The surge front: walking from the wall in one-cell bins, where the liquid stops (the first
 * two bins in a row with less than a cell's worth of particles); spray ahead of it is not the
 * front. The residual column: the highest particle within a quarter column width of the wall. */
static void val_measure(const Sim *s, int ppc, double a, double *Z, double *H)
{
    const MacGrid *g = &s->grid;
    int bins = g->nx;
    int *count = calloc((size_t)bins, sizeof *count);
    double top = 0;
    for (size_t p = 0; p < s->particles.count; p++) {
        Vec3 x = s->particles.pos[p];
        int b = (int)floorf(x.x / g->dx);
        if (b >= 0 && b < bins)
            count[b]++;
        if (x.x - g->dx < 0.25 * a && x.y > top)
            top = x.y;
    }
    int front = 1;
    while (front + 1 < bins && (count[front] >= ppc || count[front + 1] >= ppc))
        front++;
    *Z = (front * g->dx - g->dx) / a;
    *H = (top - g->dx) / a;
    free(count);
}

/* The slope of the least-squares line through the points (x[i], y[i]) with x[i] >= from; NAN
 * when fewer than `need` points are there. */
static double val_slope_from(const double *x, const double *y, int n, double from, int need)
{
    double m = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++)
        if (x[i] >= from) {
            m++;
            sx += x[i];
            sy += y[i];
            sxx += x[i] * x[i];
            sxy += x[i] * y[i];
        }
    return m < need ? NAN : (m * sxy - sx * sy) / (m * sxx - sx * sx);
}

/* The front's speed dZ/dT late in the collapse, through the run's frames with T >= DAM_LATE_T
 * (NAN when it stops before it has ten of them), and the experiment's through its points. */
static double val_late_speed(const DamRun *r)
{
    return val_slope_from(r->T, r->Z, r->frames + 1, DAM_LATE_T, 10);
}

static double val_experiment_speed(void)
{
    return val_slope_from(mm_T, mm_Z, MM_POINTS, DAM_LATE_T, 2);
}

/* y at time t, linear between the frames around it (t within the run's frames 0..frames). */
static double val_interp(const double *T, const double *y, int frames, double t)
{
    int f = 1;
    while (f < frames && T[f] < t)
        f++;
    double w = (t - T[f - 1]) / (T[f] - T[f - 1]);
    return y[f - 1] + w * (y[f] - y[f - 1]);
}

static DamRun val_dam_break(int n, double T_end, ValSetting st)
{
    DamRun r = { .n = n };
    double a = MM_A, dx = a / n, g = 9.81;
    double rate = 200.0;                                 /* frames per second */
    r.frames = (int)ceil(T_end / sqrt(2 * g / a) * rate);
    char json[2048];
    /* a thin slab (4 cells deep) of a tank 16 a long and 3 a high */
    snprintf(json, sizeof json,
             "{\"name\": \"martin_moyce_%d\", \"grid\": {\"resolution\": [%d, %d, 6], \"cell_size\": %.17g},"
             " \"gravity\": [0, -9.81, 0], \"density\": 1000, \"frame_rate\": %g, \"frames\": %d,"
             " \"pressure\": {\"solver\": \"mgpcg\"},"
             " \"fluid\": [{\"box\": {\"min\": [%.17g, %.17g, %.17g], \"max\": [%.17g, %.17g, %.17g]}}]}",
             n, 16 * n + 2, 3 * n + 2, dx, rate, r.frames, dx, dx, dx, dx + a, dx + 2 * a, 5 * dx);
    Scene sc;
    Sim s;
    if (val_load("martin_moyce", json, st, &sc, r.error, sizeof r.error) != 0)
        return r;
    if (val_start(&s, &sc, st, r.error, sizeof r.error) != 0) {
        scene_free(&sc);
        return r;
    }
    r.T = calloc((size_t)r.frames + 1, sizeof *r.T);
    r.Z = calloc((size_t)r.frames + 1, sizeof *r.Z);
    r.H = calloc((size_t)r.frames + 1, sizeof *r.H);
    double t0 = val_clock();
    int ok = 1;
    for (int f = 0; f <= r.frames && ok; f++) {
        if (f > 0 && sim_advance_frame(&s) != 0) {
            snprintf(r.error, sizeof r.error, "frame %d: %.400s", f, s.error.message);
            ok = 0;
            break;
        }
        r.T[f] = s.time * sqrt(2 * g / a);
        val_measure(&s, sc.particles_per_cell, a, &r.Z[f], &r.H[f]);
    }
    r.seconds = val_clock() - t0;
    r.substeps = s.stats.substeps;
    if (ok) {
        int early = 0;
        for (int i = 0; i < MM_POINTS; i++) {
            r.at[i] = NAN;
            if (mm_T[i] > r.T[r.frames])
                continue;
            double z = val_interp(r.T, r.Z, r.frames, mm_T[i]);
            double e = (z - mm_Z[i]) / mm_Z[i];
            r.at[i] = z;
            r.outside += z < mm_Z[i] || z > 1 + RITTER_SPEED * mm_T[i];
            r.mean_all += e;
            r.max_all = fabs(e) > fabs(r.max_all) ? e : r.max_all;
            r.used++;
            if (mm_T[i] <= DAM_EARLY_T) {
                r.mean_err += e;
                r.max_err = fabs(e) > fabs(r.max_err) ? e : r.max_err;
                early++;
            }
        }
        r.mean_err /= early > 0 ? early : 1;
        r.mean_all /= r.used > 0 ? r.used : 1;
        r.speed = val_late_speed(&r);
        r.H_early = DAM_EARLY_T <= r.T[r.frames] ? val_interp(r.T, r.H, r.frames, DAM_EARLY_T) : NAN;
        r.ok = early > 0;
    }
    sim_free(&s);
    scene_free(&sc);
    return r;
}

/* ---- the hydrostatic tank ---------------------------------------------------------------------- */

typedef struct {
    double vmax, vbound, worst_p;
    int frames, cells, ok;
    double seconds;
    long substeps;
    char error[512];
} TankRun;

static TankRun val_tank(int frames, ValSetting st)
{
    TankRun r = { .frames = frames };
    Scene sc;
    Sim s;
    if (val_load("scenes/hydrostatic.json", NULL, st, &sc, r.error, sizeof r.error) != 0)
        return r;
    if (val_start(&s, &sc, st, r.error, sizeof r.error) != 0) {
        scene_free(&sc);
        return r;
    }
    double t0 = val_clock();
    int ok = 1;
    for (int f = 0; f < frames && ok; f++)
        ok = sim_advance_frame(&s) == 0;
    r.seconds = val_clock() - t0;
    r.substeps = s.stats.substeps;
    double g = -sc.gravity.y, rho = sc.density;
    const MacGrid *gr = &s.grid;
    for (size_t p = 0; p < s.particles.count; p++) {
        Vec3 v = s.particles.vel[p];
        double sp = sqrt((double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z);
        r.vmax = sp > r.vmax ? sp : r.vmax;
    }
    r.vbound = 0.01 * sqrt(g * 1.2);   /* 1% of the shallow-water wave speed of this tank */
    for (int k = 1; ok && k < gr->nz - 1; k++)
        for (int i = 1; i < gr->nx - 1; i++) {
            int jair = 1;
            while (jair < gr->ny - 1 && grid_cell_type(gr, i, jair, k) == CELL_FLUID)
                jair++;
            double surface = (jair + 0.5) * gr->dx;
            for (int j = 1; j < jair - 1; j++) {
                double want = rho * g * (surface - (j + 0.5) * gr->dx);
                double got = gr->p[grid_cell_index(gr, i, j, k)];
                double e = fabs(got - want) / want;
                r.worst_p = e > r.worst_p ? e : r.worst_p;
                r.cells++;
            }
        }
    r.ok = ok && r.cells > 0;
    if (!ok)
        snprintf(r.error, sizeof r.error, "%.500s", s.error.message);
    sim_free(&s);
    scene_free(&sc);
    return r;
}

/* ---- a standing wave ------------------------------------------------------------------------ */

/* The gravest sloshing mode of a tank L long with still depth h: the surface starts at
 * h + A cos(pi x / L) at rest and swings with the period of linear theory,
 * omega^2 = g k tanh(k h), k = pi / L (Lamb, Hydrodynamics, 6th ed., 1932, art. 257). The mode's
 * amplitude is measured by mass, not by the top particle: a column's height is its particle count
 * over particles_per_cell and its cells in depth, and eta(t) = (2/N) sum_c (h_c - h) cos(pi x_c / L). */
#define SLOSH_L 1.0
#define SLOSH_PI 3.14159265358979323846
#define SLOSH_H 0.5
/* The amplitude is 3.8 cells: the surface the pressure solve sees moves by whole cells (p = 0
 * at the first AIR cell's centre, no ghost fluid), and at an amplitude of one cell (0.03 m at
 * 32 cells) the period came out 13% long over the first 2.6 s; at 1.9 cells 1.8%, at 3.8 cells
 * 0.75% (1.3% over 6 s). */
#define SLOSH_A 0.06
#define SLOSH_N 64          /* cells along L */
#define SLOSH_TOLERANCE 0.03   /* |T - T_linear| / T_linear, for linear theory at A k = 0.19 and the cells */

typedef struct {
    int frames;
    double *t, *eta;        /* per frame: time, the mode's amplitude (m) */
    double alpha;           /* the run's PIC/FLIP blend */
    double period, theory;  /* measured from the zero crossings, and linear theory's */
    double error;
    int crossings, ok;
    double seconds;
    long substeps;
    char error_text[512];
} SloshRun;

static SloshRun val_slosh(double seconds, ValSetting st)
{
    SloshRun r = { 0 };
    double dx = SLOSH_L / SLOSH_N, g = 9.81, k = SLOSH_PI / SLOSH_L, rate = 120.0;
    r.theory = 2 * SLOSH_PI / sqrt(g * k * tanh(k * SLOSH_H));
    r.frames = (int)ceil(seconds * rate);
    /* One box per column, as high as the cosine at the column's centre. */
    char fluid[160 * SLOSH_N] = "", json[sizeof fluid + 1024];   /* under 160 bytes a column */
    size_t used = 0;
    for (int c = 0; c < SLOSH_N; c++) {
        double xc = (c + 0.5) * dx, top = dx + SLOSH_H + SLOSH_A * cos(k * xc);
        used += (size_t)snprintf(fluid + used, sizeof fluid - used,
                                 "%s{\"box\": {\"min\": [%.17g, %.17g, %.17g], \"max\": [%.17g, %.17g, %.17g]}}",
                                 c ? ", " : "", dx + c * dx, dx, dx, dx + (c + 1) * dx, top, 5 * dx);
        if (used >= sizeof fluid) {
            snprintf(r.error_text, sizeof r.error_text, "the tank's %d columns overflow the scene text", SLOSH_N);
            return r;
        }
    }
    snprintf(json, sizeof json,
             "{\"name\": \"slosh\", \"grid\": {\"resolution\": [%d, %d, 6], \"cell_size\": %.17g},"
             " \"gravity\": [0, -9.81, 0], \"density\": 1000, \"frame_rate\": %g, \"frames\": %d,"
             " \"pressure\": {\"solver\": \"mgpcg\"}, \"fluid\": [%s]}",
             SLOSH_N + 2, (int)(SLOSH_H / dx) + 10, dx, rate, r.frames, fluid);
    Scene sc;
    Sim s;
    if (val_load("slosh", json, st, &sc, r.error_text, sizeof r.error_text) != 0)
        return r;
    if (val_start(&s, &sc, st, r.error_text, sizeof r.error_text) != 0) {
        scene_free(&sc);
        return r;
    }
    r.alpha = sc.pic_flip_alpha;
    r.t = calloc((size_t)r.frames + 1, sizeof *r.t);
    r.eta = calloc((size_t)r.frames + 1, sizeof *r.eta);
    int ok = 1, count[SLOSH_N];
    double per_cell = (double)sc.particles_per_cell * 4;   /* 4 cells deep */
    double t0 = val_clock();
    for (int f = 0; f <= r.frames && ok; f++) {
        if (f > 0 && sim_advance_frame(&s) != 0) {
            snprintf(r.error_text, sizeof r.error_text, "frame %d: %.400s", f, s.error.message);
            ok = 0;
            break;
        }
        memset(count, 0, sizeof count);
        for (size_t p = 0; p < s.particles.count; p++) {
            int c = (int)floorf(s.particles.pos[p].x / (float)dx) - 1;
            if (c >= 0 && c < SLOSH_N)
                count[c]++;
        }
        double eta = 0;
        for (int c = 0; c < SLOSH_N; c++)
            eta += (count[c] / per_cell * dx - SLOSH_H) * cos(k * (c + 0.5) * dx);
        r.t[f] = s.time;
        r.eta[f] = 2.0 * eta / SLOSH_N;
    }
    r.seconds = val_clock() - t0;
    r.substeps = s.stats.substeps;
    /* The period: the mean spacing of the zero crossings, each found by linear interpolation,
     * times two. */
    double first = NAN, last = NAN;
    for (int f = 1; ok && f <= r.frames; f++)
        if ((r.eta[f - 1] > 0) != (r.eta[f] > 0)) {
            double tc = r.t[f - 1] + r.eta[f - 1] / (r.eta[f - 1] - r.eta[f]) * (r.t[f] - r.t[f - 1]);
            if (r.crossings == 0)
                first = tc;
            last = tc;
            r.crossings++;
        }
    if (ok && r.crossings >= 3) {
        r.period = 2 * (last - first) / (r.crossings - 1);
        r.error = fabs(r.period - r.theory) / r.theory;
        r.ok = 1;
    } else if (ok) {
        snprintf(r.error_text, sizeof r.error_text, "the surface crossed its rest level %d times in %.1f s",
                 r.crossings, seconds);
    }
    sim_free(&s);
    scene_free(&sc);
    return r;
}

/* ---- the volume of a splash ------------------------------------------------------------------- */

typedef struct {
    const char *scene;
    int frames;
    double *vol;            /* per frame: the surface's volume over the particles' */
    double worst;
    int ok;
    double seconds;
    long substeps;
    char error[512];
} VolumeRun;
#define VOLUME_TOLERANCE 0.10

static VolumeRun val_volume(const char *scene, int frames, ValSetting st)
{
    VolumeRun r = { .scene = scene, .frames = frames };
    Scene sc;
    Sim s;
    if (val_load(scene, NULL, st, &sc, r.error, sizeof r.error) != 0)
        return r;
    if (val_start(&s, &sc, st, r.error, sizeof r.error) != 0) {
        scene_free(&sc);
        return r;
    }
    r.vol = calloc((size_t)frames + 1, sizeof *r.vol);
    Mesh m;
    mesh_init(&m);
    int ok = 1;
    double t0 = val_clock();
    for (int f = 0; f <= frames && ok; f++) {
        if (f > 0)
            ok = sim_advance_frame(&s) == 0;
        /* at refine 2, as make check-physics: the default surface (refine 1) loses a tenth
         * of a layer two cells deep (surface.h) */
        const SurfaceSettings fine = surface_defaults_at(2);
        ok = ok && surface_build(&s.particles, &s.grid, &fine, &m, r.error, sizeof r.error) == 0;
        double v = ok ? mesh_volume(&m) : 0;
        double mass = surface_particle_volume_at(&s.particles, &s.grid, sc.particles_per_cell, &fine);
        r.vol[f] = mass > 0 ? v / mass : 0;
        double e = fabs(r.vol[f] - 1);
        r.worst = e > r.worst ? e : r.worst;
    }
    if (!ok && !r.error[0])
        snprintf(r.error, sizeof r.error, "%.500s", s.error.message);
    r.ok = ok;
    r.seconds = val_clock() - t0;
    r.substeps = s.stats.substeps;
    mesh_free(&m);
    sim_free(&s);
    scene_free(&sc);
    return r;
}

/* ---- the report --------------------------------------------------------------------------------- */

/* A plot: lines (x[i], y[i]) and data points, axes with ticks at round steps. */
typedef struct {
    const char *label;
    const double *x, *y;
    int n;
    const char *colour;
    int points;             /* draw circles instead of a line */
    int dashed;             /* a dashed line: the production setting's run */
} Series;

static double val_step(double range)
{
    double s = pow(10, floor(log10(range / 5)));
    return range / s > 25 ? 5 * s : range / s > 10 ? 2 * s : s;
}

static void val_svg(FILE *f, const char *title, const char *xl, const char *yl, const Series *s,
                    int ns, double x1, double y0, double y1)
{
    const int W = 560, Hh = 340, L = 60, R = 190, T = 30, B = 45;
    double x0 = 0;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n<text x=\"%d\" y=\"18\" "
            "font-weight=\"bold\">%s</text>\n", W, Hh, L, title);
#define PX(v) (L + ((v) - x0) / (x1 - x0) * (W - L - R))
#define PY(v) (Hh - B - ((v) - y0) / (y1 - y0) * (Hh - T - B))
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n",
            L, T, W - L - R, Hh - T - B);
    for (double v = 0, st = val_step(x1 - x0); v <= x1 + 1e-9; v += st)
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n", PX(v), Hh - B + 15, v);
    double st = val_step(y1 - y0);
    for (long m = (long)ceil(y0 / st - 1e-9); m * st <= y1 + 1e-9; m++)   /* m st: no drift at 0 */
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", L - 5, PY(m * st) + 4, m * st);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", (L + W - R) / 2, Hh - 8, xl);
    fprintf(f, "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">%s</text>\n",
            (T + Hh - B) / 2, (T + Hh - B) / 2, yl);
    for (int k = 0; k < ns; k++) {
        const Series *q = &s[k];
        if (q->points) {
            for (int i = 0; i < q->n; i++)
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"none\" stroke=\"%s\"/>\n",
                        PX(q->x[i]), PY(q->y[i]), q->colour);
        } else {
            fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s points=\"", q->colour,
                    q->dashed ? " stroke-dasharray=\"6,3\"" : "");
            for (int i = 0; i < q->n; i++)
                if (q->x[i] <= x1 && q->y[i] >= y0 && q->y[i] <= y1)
                    fprintf(f, "%.1f,%.1f ", PX(q->x[i]), PY(q->y[i]));
            fprintf(f, "\"/>\n");
        }
        int ly = T + 15 + 16 * k;   /* the legend: a sample of the line (or a circle), the label */
        if (q->points)
            fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"3.5\" fill=\"none\" stroke=\"%s\"/>\n", W - R + 16,
                    ly - 4, q->colour);
        else
            fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"1.5\"%s/>\n",
                    W - R + 6, ly - 4, W - R + 26, ly - 4, q->colour, q->dashed ? " stroke-dasharray=\"6,3\"" : "");
        fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>\n", W - R + 32, ly, q->colour, q->label);
    }
#undef PX
#undef PY
    fprintf(f, "</svg>\n");
}

static const char *val_verdict(int ok, double err, double tol)
{
    return !ok ? "did not run" : err <= tol ? "pass" : "FAIL";
}

/* Text into HTML: the error lines a run may carry name scene files and fields. */
static void val_html_text(FILE *h, const char *t)
{
    for (; *t; t++)
        switch (*t) {
        case '&': fputs("&amp;", h); break;
        case '<': fputs("&lt;", h); break;
        case '>': fputs("&gt;", h); break;
        case '"': fputs("&quot;", h); break;
        default: fputc(*t, h);
        }
}

/* ---- the table: one row per case, the two settings side by side ----------------------------- */

/* A case's row: what each setting measured and its verdict against the case's one tolerance
 * (verdict NULL: a measure shown, not judged), a detail line per setting, and what each run
 * cost. json[] holds each setting's measures and limits the case's tolerance fields; the row
 * takes both. */
typedef struct {
    char name[96];
    const char *html;                   /* what the case measures, for the page */
    char tolerance[48];
    char measured[VAL_SETTINGS][64];
    char detail[VAL_SETTINGS][600];
    const char *verdict[VAL_SETTINGS];
    long substeps[VAL_SETTINGS];
    double seconds[VAL_SETTINGS];
    int frames;
    json_t *json[VAL_SETTINGS];
    json_t *limits;
} ValRow;

static double val_per_frame(const ValRow *r, int st)
{
    return r->frames > 0 ? (double)r->substeps[st] / r->frames : 0;
}

/* The case's verdict: pass when both settings pass (a setting skipped by --production-only
 * aside), FAIL when either fails. */
static const char *val_both(ValRow *r)
{
    if (!r->verdict[VAL_TEACHING])
        return NULL;
    int pass = 0, fail = 0, ran = 0;
    for (int st = 0; st < VAL_SETTINGS; st++) {
        if (val_skipped[st]) {
            r->verdict[st] = "skipped";
            continue;
        }
        ran++;
        pass += strcmp(r->verdict[st], "pass") == 0;
        fail += strcmp(r->verdict[st], "FAIL") == 0;
    }
    return pass == ran ? "pass" : fail ? "FAIL" : "did not run";
}

/* Prints the row (terminal, page, report.json); returns 1 when the case failed. */
static int val_row_emit(ValRow *r, FILE *h, json_t *cases)
{
    const char *both = val_both(r);
    char verdicts[32], per_frame[32];
    snprintf(verdicts, sizeof verdicts, "%s / %s", both ? r->verdict[VAL_TEACHING] : "-",
             both ? r->verdict[VAL_PRODUCTION] : "-");
    snprintf(per_frame, sizeof per_frame, "%.1f / %.1f", val_per_frame(r, VAL_TEACHING),
             val_per_frame(r, VAL_PRODUCTION));
    printf("%-46s %-18s %-18s %-16s %-14s %s\n", r->name, r->measured[VAL_TEACHING],
           r->measured[VAL_PRODUCTION], r->tolerance, verdicts, per_frame);
    fprintf(h, "<tr><td>%s: %s</td>", r->name, r->html);
    json_t *c = r->limits ? r->limits : json_object();
    json_object_set_new(c, "case", json_string(r->name));
    for (int st = 0; st < VAL_SETTINGS; st++) {
        printf("    %-11s %s%s%ld substeps (%.1f a frame), %.1f s CPU\n", val_setting_names[st],
               r->detail[st], r->detail[st][0] ? "; " : "", r->substeps[st], val_per_frame(r, st),
               r->seconds[st]);
        fprintf(h, "<td>");
        val_html_text(h, r->measured[st]);
        fprintf(h, "<br><small>");
        val_html_text(h, r->detail[st]);
        fprintf(h, "</small></td>");
        json_t *m = r->json[st] ? r->json[st] : json_object();
        if (both)
            json_object_set_new(m, "verdict", json_string(r->verdict[st]));
        json_object_set_new(m, "substeps", json_integer(r->substeps[st]));
        json_object_set_new(m, "substeps_per_frame", json_real(val_per_frame(r, st)));
        json_object_set_new(m, "cpu_seconds", json_real(r->seconds[st]));
        json_object_set_new(c, val_setting_names[st], m);
    }
    fprintf(h, "<td>");
    val_html_text(h, r->tolerance);
    fprintf(h, "</td><td>%s</td><td>%s</td><td>%.1f</td><td>%.1f</td></tr>\n",
            both ? r->verdict[VAL_TEACHING] : "&ndash;", both ? r->verdict[VAL_PRODUCTION] : "&ndash;",
            val_per_frame(r, VAL_TEACHING), val_per_frame(r, VAL_PRODUCTION));
    if (both)
        json_object_set_new(c, "verdict", json_string(both));
    json_array_append_new(cases, c);
    return both && strcmp(both, "pass") != 0;
}

/* The costs of a run into its row. */
#define VAL_COST(row, st, run)                                                                     \
    do {                                                                                           \
        (row).substeps[st] = (run).substeps;                                                       \
        (row).seconds[st] = (run).seconds;                                                         \
    } while (0)

static int val_front_row(const DamRun d[VAL_SETTINGS], FILE *h, json_t *cases)
{
    ValRow r = { .html = "points of the record outside Z<sub>exp</sub> &le; Z &le; 1 + 2T (behind the "
                         "experiment, or ahead of Ritter's frictionless front); the lead over the "
                         "experiment, mean (Z &minus; Z<sub>exp</sub>) / Z<sub>exp</sub> to T = 4.3",
                 .frames = d[VAL_PRODUCTION].frames };
    snprintf(r.name, sizeof r.name, "dam break front, %d cells per a", d[VAL_PRODUCTION].n);
    snprintf(r.tolerance, sizeof r.tolerance, "0, lead <= %.0f%%", 100 * DAM_LEAD_TOLERANCE);
    r.limits = json_pack("{s:i, s:f}", "cells_per_width", d[VAL_PRODUCTION].n, "lead_tolerance", DAM_LEAD_TOLERANCE);
    for (int st = 0; st < VAL_SETTINGS; st++) {
        const DamRun *q = &d[st];
        VAL_COST(r, st, *q);
        r.verdict[st] = !q->ok ? "did not run"
                        : q->outside == 0 && q->mean_err <= DAM_LEAD_TOLERANCE ? "pass" : "FAIL";
        if (!q->ok) {
            snprintf(r.measured[st], sizeof r.measured[st], "did not run");
            snprintf(r.detail[st], sizeof r.detail[st], "%.500s", q->error);
            continue;
        }
        snprintf(r.measured[st], sizeof r.measured[st], "%d of %d, %+.1f%%", q->outside, q->used,
                 100 * q->mean_err);
        snprintf(r.detail[st], sizeof r.detail[st], "points outside Z_exp <= Z <= 1 + 2T: %d of %d; lead "
                 "over the experiment %+.1f%% to T %.1f, %+.1f%% in all (worst point %+.1f%%)", q->outside,
                 q->used, 100 * q->mean_err, DAM_EARLY_T, 100 * q->mean_all, 100 * q->max_all);
        r.json[st] = json_pack("{s:i, s:i, s:f, s:f, s:f}", "points_outside", q->outside, "points", q->used,
                               "mean_lead_early", q->mean_err, "mean_lead", q->mean_all, "worst_lead", q->max_all);
    }
    return val_row_emit(&r, h, cases);
}

/* The late front speed, to T = 9.2 (the front 14 a out), at the finest resolution only. */
static int val_speed_row(DamRun d[][3], int nres, const int *res, double exp_speed, FILE *h, json_t *cases)
{
    ValRow r = { .html = "the front's speed dZ/dT late in the collapse, between the experiment's and "
                         "Ritter's frictionless front's", .frames = d[VAL_PRODUCTION][nres - 1].frames };
    snprintf(r.name, sizeof r.name, "dam break front speed, T >= %.0f, %d cells per a", DAM_LATE_T, res[nres - 1]);
    snprintf(r.tolerance, sizeof r.tolerance, "%.2f - %.2f", exp_speed, RITTER_SPEED);
    r.limits = json_pack("{s:i, s:f, s:f}", "cells_per_width", res[nres - 1], "experiment_speed", exp_speed,
                         "ritter_speed", RITTER_SPEED);
    for (int st = 0; st < VAL_SETTINGS; st++) {
        const DamRun *q = &d[st][nres - 1];
        VAL_COST(r, st, *q);
        int in = q->ok && q->speed >= exp_speed && q->speed <= RITTER_SPEED;
        r.verdict[st] = !q->ok ? "did not run" : in ? "pass" : "FAIL";
        snprintf(r.measured[st], sizeof r.measured[st], q->ok ? "%.3f" : "did not run", q->speed);
        if (!q->ok) {
            snprintf(r.detail[st], sizeof r.detail[st], "%.500s", q->error);
            continue;
        }
        int used = snprintf(r.detail[st], sizeof r.detail[st], "coarser:");
        for (int k = 0; k + 1 < nres && used < (int)sizeof r.detail[st]; k++)
            used += snprintf(r.detail[st] + used, sizeof r.detail[st] - (size_t)used, "%s %d cells %.3f",
                             k ? "," : "", res[k], d[st][k].speed);
        r.json[st] = json_pack("{s:f}", "speed", q->speed);
    }
    return val_row_emit(&r, h, cases);
}

/* The residual column at the wall, shown and not judged: no measured table is in the kit. */
static void val_column_row(const DamRun d[VAL_SETTINGS], FILE *h, json_t *cases)
{
    ValRow r = { .html = "the residual column at the wall, H = h/a, the highest particle within a/4 "
                         "of it (no measured table is in the kit: shown, not judged)", .frames = d[VAL_PRODUCTION].frames };
    snprintf(r.name, sizeof r.name, "residual column H at T = %.1f, %d cells per a", DAM_EARLY_T, d[VAL_PRODUCTION].n);
    snprintf(r.tolerance, sizeof r.tolerance, "not judged");
    r.limits = json_pack("{s:i, s:f}", "cells_per_width", d[VAL_PRODUCTION].n, "T", DAM_EARLY_T);
    for (int st = 0; st < VAL_SETTINGS; st++) {
        const DamRun *q = &d[st];
        VAL_COST(r, st, *q);
        snprintf(r.measured[st], sizeof r.measured[st], q->ok ? "%.3f" : "did not run", q->H_early);
        if (q->ok)
            snprintf(r.detail[st], sizeof r.detail[st], "H at the end, T %.2f: %.3f", q->T[q->frames],
                     q->H[q->frames]);
        else
            snprintf(r.detail[st], sizeof r.detail[st], "%.500s", q->error);
        r.json[st] = json_pack("{s:f}", "H", q->ok ? q->H_early : NAN);
    }
    val_row_emit(&r, h, cases);
}

static int val_tank_row(const TankRun t[VAL_SETTINGS], FILE *h, json_t *cases)
{
    ValRow r = { .html = "pressure against &rho; g depth in the tank's FLUID cells, worst cell; the "
                         "fastest particle", .frames = t[VAL_PRODUCTION].frames };
    snprintf(r.name, sizeof r.name, "hydrostatic tank after %.0f s", t[VAL_PRODUCTION].frames / 30.0);
    snprintf(r.tolerance, sizeof r.tolerance, "2%%, %.2g m/s", t[VAL_PRODUCTION].vbound);
    r.limits = json_pack("{s:f, s:f}", "pressure_tolerance", 0.02, "speed_bound", t[VAL_PRODUCTION].vbound);
    for (int st = 0; st < VAL_SETTINGS; st++) {
        const TankRun *q = &t[st];
        VAL_COST(r, st, *q);
        r.verdict[st] = !q->ok ? "did not run" : q->worst_p <= 0.02 && q->vmax <= q->vbound ? "pass" : "FAIL";
        if (!q->ok) {
            snprintf(r.measured[st], sizeof r.measured[st], "did not run");
            snprintf(r.detail[st], sizeof r.detail[st], "%.500s", q->error);
            continue;
        }
        snprintf(r.measured[st], sizeof r.measured[st], "%.2f%%, %.2g m/s", 100 * q->worst_p, q->vmax);
        snprintf(r.detail[st], sizeof r.detail[st], "pressure against rho g depth in %d cells, fastest "
                 "particle %.2g m/s", q->cells, q->vmax);
        r.json[st] = json_pack("{s:f, s:f, s:i}", "worst_pressure_error", q->worst_p, "fastest_particle",
                               q->vmax, "cells", q->cells);
    }
    return val_row_emit(&r, h, cases);
}

static int val_slosh_row(const SloshRun w[VAL_SETTINGS], FILE *h, json_t *cases)
{
    ValRow r = { .frames = w[VAL_PRODUCTION].frames };
    char html[256];
    snprintf(html, sizeof html, "a tank %.0f m long, %.1f m deep (%d cells along it), amplitude %.2f m: its "
             "period against linear theory's %.4f s", SLOSH_L, SLOSH_H, SLOSH_N, SLOSH_A, w[VAL_PRODUCTION].theory);
    r.html = html;
    snprintf(r.name, sizeof r.name, "standing wave: period vs linear theory");
    snprintf(r.tolerance, sizeof r.tolerance, "%.1f%%", 100 * SLOSH_TOLERANCE);
    r.limits = json_pack("{s:f, s:f}", "linear_theory", w[VAL_PRODUCTION].theory, "tolerance", SLOSH_TOLERANCE);
    for (int st = 0; st < VAL_SETTINGS; st++) {
        const SloshRun *q = &w[st];
        VAL_COST(r, st, *q);
        r.verdict[st] = val_verdict(q->ok, q->error, SLOSH_TOLERANCE);
        if (!q->ok) {
            snprintf(r.measured[st], sizeof r.measured[st], "did not run");
            snprintf(r.detail[st], sizeof r.detail[st], "%.500s", q->error_text);
            continue;
        }
        snprintf(r.measured[st], sizeof r.measured[st], "%.2f%%", 100 * q->error);
        snprintf(r.detail[st], sizeof r.detail[st], "period %.4f s over %d crossings, linear theory %.4f s",
                 q->period, q->crossings, q->theory);
        r.json[st] = json_pack("{s:f, s:f, s:i}", "period", q->period, "error", q->error, "crossings",
                               q->crossings);
    }
    return val_row_emit(&r, h, cases);
}

static int val_volume_row(const VolumeRun v[VAL_SETTINGS], FILE *h, json_t *cases)
{
    ValRow r = { .html = "the surface's volume against the particles' (each a cell over "
                         "particles_per_cell), worst frame", .frames = v[VAL_PRODUCTION].frames };
    snprintf(r.name, sizeof r.name, "volume of %s, %d frames", strrchr(v[VAL_PRODUCTION].scene, '/') + 1, v[VAL_PRODUCTION].frames);
    snprintf(r.tolerance, sizeof r.tolerance, "%.1f%%", 100 * VOLUME_TOLERANCE);
    r.limits = json_pack("{s:f}", "tolerance", VOLUME_TOLERANCE);
    for (int st = 0; st < VAL_SETTINGS; st++) {
        const VolumeRun *q = &v[st];
        VAL_COST(r, st, *q);
        r.verdict[st] = val_verdict(q->ok, q->worst, VOLUME_TOLERANCE);
        snprintf(r.measured[st], sizeof r.measured[st], q->ok ? "%.1f%%" : "did not run", 100 * q->worst);
        snprintf(r.detail[st], sizeof r.detail[st], "%.500s", q->ok ? "" : q->error);
        r.json[st] = json_pack("{s:f}", "worst_error", q->worst);
    }
    return val_row_emit(&r, h, cases);
}

/* ---- the driver ----------------------------------------------------------------------------- */

/* --short, and --production-cfl X to measure the production setting at another cfl. */
static int val_args(int argc, char **argv, int *quick)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--short") == 0) {
            *quick = 1;
            continue;
        }
        if (strcmp(argv[i], "--production-only") == 0) {
            val_skipped[VAL_TEACHING] = 1;
            continue;
        }
        if (strcmp(argv[i], "--production-cfl") == 0 && i + 1 < argc) {
            char *end;
            double v = strtod(argv[++i], &end);
            if (end != argv[i] && *end == '\0' && v > 0 && v <= 10) {
                val_production_cfl = v;
                continue;
            }
            fprintf(stderr, "validate: --production-cfl: expected a number in (0, 10], got '%.40s'\n", argv[i]);
            return -1;
        }
        fprintf(stderr, "validate: argument %d, '%.40s': expected --short, --production-only or --production-cfl X\n", i, argv[i]);
        return -1;
    }
    return 0;
}

static void val_progress(ValSetting st, const char *what, int ok, const char *error, long substeps, double seconds)
{
    printf("validate: %-10s %-34s %s%.300s (%ld substeps, %.1f s CPU)\n", val_setting_names[st], what,
           ok ? "ran" : "failed: ", ok ? "" : error, substeps, seconds);
    fflush(stdout);
}

static const char *const val_colours[3] = { "#d95f02", "#1b9e77", "#7570b3" };

/* The front and the residual column, both settings, and the front at each point of the record. */
static void val_dam_plots(FILE *h, DamRun d[][3], int nres, const int *res, int quick, double exp_speed)
{
    fprintf(h, "<h2>The collapse of a liquid column (Martin &amp; Moyce 1952)</h2>\n"
            "<p>A column a wide and 2a high (a = 2.25 in) collapses along a dry floor; Z = z/a is "
            "the surge front, T = t &radic;(2g/a). Circles: Martin &amp; Moyce (1952), Phil. Trans. "
            "R. Soc. A 244, 312&ndash;324, Fig. 3, as digitised by the PySPH project. Lines: the "
            "reference on a thin slab (4 cells deep) at each resolution, solid at the teaching "
            "setting, dashed at the production setting; grey: Ritter's frictionless "
            "shallow-water front, Z = 1 + 2T. The reference is inviscid, its walls free-slip, and "
            "its column is let go at once; the experiment's floor had friction and its column a "
            "gate, and friction slows a surge on a dry bed (Dressler 1952). So the run should lead "
            "the experiment and trail Ritter's front. Here, at %d cells per a, it leads the experiment "
            "by %.1f%% (teaching) and %.1f%% (production) on average to T = %.1f",
            res[nres - 1], 100 * d[VAL_TEACHING][nres - 1].mean_err,
            100 * d[VAL_PRODUCTION][nres - 1].mean_err, DAM_EARLY_T);
    if (!quick)
        fprintf(h, ", and its late speed dZ/dT is %.2f (teaching) and %.2f (production) against the "
                "experiment's %.2f and Ritter's %.0f", d[VAL_TEACHING][nres - 1].speed,
                d[VAL_PRODUCTION][nres - 1].speed, exp_speed, RITTER_SPEED);
    fprintf(h, ". H: the residual column at the wall (no measured table is in the kit).</p>\n");
    Series sz[2 * 3 + 2], sh[2 * 3];
    char labels[2 * 3][40];
    int nz = 0;
    for (int k = 0; k < nres; k++)
        for (int st = 0; st < VAL_SETTINGS; st++) {
            const DamRun *q = &d[st][k];
            snprintf(labels[nz], sizeof labels[nz], "%d cells, %s", res[k], val_setting_names[st]);
            int n = q->ok ? q->frames + 1 : 0;
            sz[nz] = (Series){ labels[nz], q->T, q->Z, n, val_colours[k], 0, st == VAL_PRODUCTION };
            sh[nz] = (Series){ labels[nz], q->T, q->H, n, val_colours[k], 0, st == VAL_PRODUCTION };
            nz++;
        }
    sz[nz] = (Series){ "experiment", mm_T, mm_Z, MM_POINTS, "#000", 1, 0 };
    double zmax = quick ? 6 : 15;   /* Ritter's line ends where it leaves the plot */
    const double ritter_T[2] = { 0, (zmax - 1) / RITTER_SPEED }, ritter_Z[2] = { 1, zmax };
    sz[nz + 1] = (Series){ "Ritter", ritter_T, ritter_Z, 2, "#999", 0, 0 };
    val_svg(h, "surge front", "T = t sqrt(2g/a)", "Z = z/a", sz, nz + 2, quick ? 5 : 10, 1, zmax);
    val_svg(h, "residual column", "T = t sqrt(2g/a)", "H = h/a", sh, nz, quick ? 5 : 10, 0, 2.2);
    fprintf(h, "<table>\n<tr><th>T</th><th>Z experiment</th>");
    for (int k = 0; k < nres; k++)
        for (int st = 0; st < VAL_SETTINGS; st++)
            fprintf(h, "<th>Z, %d cells per a, %s</th>", res[k], val_setting_names[st]);
    fprintf(h, "</tr>\n");
    for (int i = 0; i < MM_POINTS; i++) {
        fprintf(h, "<tr><td>%.3f</td><td>%.3f</td>", mm_T[i], mm_Z[i]);
        for (int k = 0; k < nres; k++)
            for (int st = 0; st < VAL_SETTINGS; st++)
                if (d[st][k].ok && isfinite(d[st][k].at[i]))
                    fprintf(h, "<td>%.3f</td>", d[st][k].at[i]);
                else
                    fprintf(h, "<td></td>");
        fprintf(h, "</tr>\n");
    }
    fprintf(h, "</table>\n");
}

static void val_volume_plot(FILE *h, VolumeRun v[][2], int quick)
{
    fprintf(h, "<h2>Volume through a splash</h2>\n<p>The liquid surface's volume (surface/, "
            "Zhu &amp; Bridson) over the volume its particles stand for (each a cell over "
            "particles_per_cell, away from the band the surface keeps clear of the walls): where the "
            "particles bunch or spread, the liquid the surface shows gains or loses volume. Solid: "
            "the teaching setting; dashed: the production setting.</p>\n");
    Series sv[2 * 2];
    double *frames[2 * 2];
    char labels[2 * 2][48];
    int n = 0;
    for (int k = 0; k < 2; k++)
        for (int st = 0; st < VAL_SETTINGS; st++, n++) {
            const VolumeRun *q = &v[st][k];
            frames[n] = malloc(((size_t)q->frames + 1) * sizeof *frames[n]);
            for (int f = 0; frames[n] && f <= q->frames; f++)
                frames[n][f] = f;
            snprintf(labels[n], sizeof labels[n], "%.24s, %s", strrchr(q->scene, '/') + 1, val_setting_names[st]);
            sv[n] = (Series){ labels[n], frames[n], q->vol, q->ok && frames[n] ? q->frames + 1 : 0,
                              val_colours[k], 0, st == VAL_PRODUCTION };
        }
    val_svg(h, "volume", "frame", "V surface / V particles", sv, n, quick ? 15 : 60, 0.8, 1.2);
    for (int k = 0; k < n; k++)
        free(frames[k]);
}

static void val_slosh_plot(FILE *h, const SloshRun w[VAL_SETTINGS], int quick)
{
    fprintf(h, "<h2>A standing wave</h2>\n<p>The gravest sloshing mode of a tank %.0f m long and "
            "%.1f m deep, started from rest with its surface at h + A cos(&pi; x / L), A = %.2f m. "
            "Lines: the mode's amplitude, measured from how many particles each column holds, solid at "
            "the teaching setting, dashed at the production setting. Linear theory (Lamb 1932, art. "
            "257): &omega;&sup2; = g k tanh(k h), k = &pi; / L, a period of %.4f s; the runs', from "
            "their zero crossings: %.4f s (teaching) and %.4f s (production). The amplitude decays: the "
            "%.0f%% of PIC in the PIC/FLIP blend is a numerical viscosity.</p>\n", SLOSH_L, SLOSH_H,
            SLOSH_A, w[VAL_PRODUCTION].theory, w[VAL_TEACHING].period, w[VAL_PRODUCTION].period,
            100 * w[VAL_PRODUCTION].alpha);
    const SloshRun *ran = w[VAL_TEACHING].ok ? &w[VAL_TEACHING] : &w[VAL_PRODUCTION];
    int n = ran->ok ? ran->frames + 1 : 0;
    double *theory_eta = calloc((size_t)ran->frames + 1, sizeof *theory_eta);
    for (int f = 0; theory_eta && f < n; f++)
        theory_eta[f] = SLOSH_A * cos(2 * SLOSH_PI * ran->t[f] / ran->theory);
    const SloshRun *t = &w[VAL_TEACHING], *p = &w[VAL_PRODUCTION];
    Series ss[3] = { { "teaching", t->t, t->eta, t->ok ? t->frames + 1 : 0, val_colours[0], 0, 0 },
                     { "production", p->t, p->eta, p->ok ? p->frames + 1 : 0, val_colours[0], 0, 1 },
                     { "linear theory", ran->t, theory_eta, theory_eta ? n : 0, "#000", 0, 0 } };
    val_svg(h, "standing wave", "t (s)", "amplitude (m)", ss, 3, quick ? 2.6 : 6.0, -1.5 * SLOSH_A, 1.5 * SLOSH_A);
    free(theory_eta);
}

int main(int argc, char **argv)
{
    int quick = 0;
    if (val_args(argc, argv, &quick) != 0)
        return 2;
    const int res[3] = { 8, 16, 32 };
    int nres = quick ? 1 : 3;
    const char *splashes[2] = { "scenes/ball_drop.json", "scenes/dam_break.json" };
    DamRun dam[VAL_SETTINGS][3];
    TankRun tank[VAL_SETTINGS];
    SloshRun slosh[VAL_SETTINGS];
    VolumeRun vol[VAL_SETTINGS][2];
    memset(dam, 0, sizeof dam);
    memset(tank, 0, sizeof tank);
    memset(slosh, 0, sizeof slosh);
    memset(vol, 0, sizeof vol);
    for (int st = 0; st < VAL_SETTINGS; st++) {
        char what[64];
        if (val_skipped[st]) {   /* the rows say "did not run", the verdicts "skipped" */
            for (int k = 0; k < nres; k++)
                snprintf(dam[st][k].error, sizeof dam[st][k].error, "skipped (--production-only)");
            snprintf(tank[st].error, sizeof tank[st].error, "skipped (--production-only)");
            snprintf(slosh[st].error_text, sizeof slosh[st].error_text, "skipped (--production-only)");
            for (int k = 0; k < 2; k++) {
                vol[st][k].scene = splashes[k];
                snprintf(vol[st][k].error, sizeof vol[st][k].error, "skipped (--production-only)");
            }
            continue;
        }
        for (int k = 0; k < nres; k++) {
            dam[st][k] = val_dam_break(res[k], quick ? 4.5 : 9.3, (ValSetting)st);
            snprintf(what, sizeof what, "dam break, %d cells per a:", res[k]);
            val_progress(st, what, dam[st][k].ok, dam[st][k].error, dam[st][k].substeps, dam[st][k].seconds);
        }
        tank[st] = val_tank(quick ? 30 : 90, (ValSetting)st);
        val_progress(st, "hydrostatic tank:", tank[st].ok, tank[st].error, tank[st].substeps, tank[st].seconds);
        slosh[st] = val_slosh(quick ? 2.6 : 6.0, (ValSetting)st);
        val_progress(st, "standing wave:", slosh[st].ok, slosh[st].error_text, slosh[st].substeps,
                     slosh[st].seconds);
        for (int k = 0; k < 2; k++) {
            vol[st][k] = val_volume(splashes[k], quick ? 15 : (k ? 60 : 30), (ValSetting)st);
            snprintf(what, sizeof what, "volume of %s:", strrchr(splashes[k], '/') + 1);
            val_progress(st, what, vol[st][k].ok, vol[st][k].error, vol[st][k].substeps, vol[st][k].seconds);
        }
    }

    mkdir("build", 0777);
    mkdir("build/validate", 0777);
    FILE *h = fopen("build/validate/report.html", "w");
    if (!h) {
        fprintf(stderr, "validate: build/validate/report.html: cannot write\n");
        return 1;
    }
    printf("\nteaching: each case's cfl, the advect stage%s; production: rk3 at cfl %g (production.integrator, "
           "production.cfl)\n", val_skipped[VAL_TEACHING] ? " (SKIPPED: --production-only)" : "",
           val_production_cfl);
    printf("%-46s %-18s %-18s %-16s %-14s %s\n", "case", "teaching", "production", "tolerance", "verdicts",
           "substeps a frame");
    fprintf(h, "<!doctype html><meta charset=\"utf-8\"><title>flipkit: how good is this simulator?"
            "</title>\n<style>body{font-family:sans-serif;max-width:72em;margin:2em auto}"
            "td,th{padding:2px 10px;text-align:left;vertical-align:top}</style>\n"
            "<h1>How good is this simulator?</h1>\n"
            "<p>The reference (C stages, MGPCG) against a laboratory experiment and exact results, "
            "each case at two settings: <em>teaching</em>, the stepping the student track and the "
            "grader run (the advect stage, at the case's cfl), and <em>production</em>, particles moved "
            "through the projected grid velocity by an RK3 step at cfl %g "
            "(<code>production.integrator</code> rk3, <code>production.cfl</code>). A case passes when "
            "both settings pass it. Made by <code>make validate</code>%s%s.</p>\n<table>\n<tr><th>case</th>"
            "<th>teaching</th><th>production</th><th>tolerance</th><th>verdict, teaching</th>"
            "<th>verdict, production</th><th>substeps a frame, teaching</th>"
            "<th>substeps a frame, production</th></tr>\n",
            val_production_cfl, quick ? " --short (one resolution)" : "",
            val_skipped[VAL_TEACHING] ? " --production-only (the teaching setting not run, not judged)" : "");
    json_t *cases = json_array();
    int failed = 0;
    DamRun pair[VAL_SETTINGS];
    for (int k = 0; k < nres; k++) {
        pair[VAL_TEACHING] = dam[VAL_TEACHING][k];
        pair[VAL_PRODUCTION] = dam[VAL_PRODUCTION][k];
        failed |= val_front_row(pair, h, cases);
    }
    double exp_speed = val_experiment_speed();
    if (!quick)
        failed |= val_speed_row(dam, nres, res, exp_speed, h, cases);
    for (int k = 0; k < nres; k++) {
        pair[VAL_TEACHING] = dam[VAL_TEACHING][k];
        pair[VAL_PRODUCTION] = dam[VAL_PRODUCTION][k];
        val_column_row(pair, h, cases);
    }
    failed |= val_tank_row(tank, h, cases);
    failed |= val_slosh_row(slosh, h, cases);
    for (int k = 0; k < 2; k++) {
        VolumeRun two[VAL_SETTINGS] = { vol[VAL_TEACHING][k], vol[VAL_PRODUCTION][k] };
        failed |= val_volume_row(two, h, cases);
    }
    fprintf(h, "</table>\n");
    val_dam_plots(h, dam, nres, res, quick, exp_speed);
    val_volume_plot(h, vol, quick);
    val_slosh_plot(h, slosh, quick);
    fclose(h);
    json_t *root = json_pack("{s:b, s:{s:{s:s}, s:{s:s, s:f}}, s:o}", "short", quick, "settings", "teaching",
                             "integrator", "none", "production", "integrator", "rk3", "cfl", val_production_cfl,
                             "cases", cases);
    json_dump_file(root, "build/validate/report.json", JSON_INDENT(2));
    json_decref(root);
    printf("\nvalidate: build/validate/report.html and report.json%s\n", failed ? "; a case FAILED" : "");
    for (int st = 0; st < VAL_SETTINGS; st++) {
        for (int k = 0; k < nres; k++) {
            free(dam[st][k].T);
            free(dam[st][k].Z);
            free(dam[st][k].H);
        }
        free(slosh[st].t);
        free(slosh[st].eta);
        for (int k = 0; k < 2; k++)
            free(vol[st][k].vol);
    }
    return failed;
}
