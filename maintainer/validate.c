/* validate.c — `make validate`: the reference against a laboratory experiment and exact results,
 * with a tolerance per case, written to build/validate/report.html (SVG plots) and report.json.
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
    double seconds;
    int ok;
    char error[512];
} DamRun;

static double val_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
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

static DamRun val_dam_break(int n, double T_end)
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
    if (scene_load_text(json, "martin_moyce", NULL, 0, &sc, r.error, sizeof r.error) != 0)
        return r;
    if (sim_init(&s, &sc, &reference_track) != 0) {
        snprintf(r.error, sizeof r.error, "%s", s.error.message);
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
    if (ok) {
        int early = 0;
        for (int i = 0; i < MM_POINTS; i++) {
            r.at[i] = NAN;
            if (mm_T[i] > r.T[r.frames])
                continue;
            int f = 1;
            while (f < r.frames && r.T[f] < mm_T[i])
                f++;
            double w = (mm_T[i] - r.T[f - 1]) / (r.T[f] - r.T[f - 1]);
            double z = r.Z[f - 1] + w * (r.Z[f] - r.Z[f - 1]);
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
        r.ok = early > 0;
    }
    sim_free(&s);
    scene_free(&sc);
    return r;
}

/* ---- the hydrostatic tank ---------------------------------------------------------------------- */

typedef struct {
    double vmax, vbound, worst_p;
    int cells, ok;
    char error[512];
} TankRun;

static TankRun val_tank(int frames)
{
    TankRun r = { 0 };
    Scene sc;
    Sim s;
    if (scene_load("scenes/hydrostatic.json", NULL, 0, &sc, r.error, sizeof r.error) != 0)
        return r;
    if (sim_init(&s, &sc, &reference_track) != 0) {
        snprintf(r.error, sizeof r.error, "%s", s.error.message);
        scene_free(&sc);
        return r;
    }
    int ok = 1;
    for (int f = 0; f < frames && ok; f++)
        ok = sim_advance_frame(&s) == 0;
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
        snprintf(r.error, sizeof r.error, "%s", s.error.message);
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
    char error_text[512];
} SloshRun;

static SloshRun val_slosh(double seconds)
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
    if (scene_load_text(json, "slosh", NULL, 0, &sc, r.error_text, sizeof r.error_text) != 0)
        return r;
    if (sim_init(&s, &sc, &reference_track) != 0) {
        snprintf(r.error_text, sizeof r.error_text, "%s", s.error.message);
        scene_free(&sc);
        return r;
    }
    r.alpha = sc.pic_flip_alpha;
    r.t = calloc((size_t)r.frames + 1, sizeof *r.t);
    r.eta = calloc((size_t)r.frames + 1, sizeof *r.eta);
    int ok = 1, count[SLOSH_N];
    double per_cell = (double)sc.particles_per_cell * 4;   /* 4 cells deep */
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
    char error[512];
} VolumeRun;
#define VOLUME_TOLERANCE 0.10

static VolumeRun val_volume(const char *scene, int frames)
{
    VolumeRun r = { .scene = scene, .frames = frames };
    Scene sc;
    Sim s;
    if (scene_load(scene, NULL, 0, &sc, r.error, sizeof r.error) != 0)
        return r;
    if (sim_init(&s, &sc, &reference_track) != 0) {
        snprintf(r.error, sizeof r.error, "%s", s.error.message);
        scene_free(&sc);
        return r;
    }
    r.vol = calloc((size_t)frames + 1, sizeof *r.vol);
    Mesh m;
    mesh_init(&m);
    int ok = 1;
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
        snprintf(r.error, sizeof r.error, "%s", s.error.message);
    r.ok = ok;
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
} Series;

static double val_step(double range)
{
    double s = pow(10, floor(log10(range / 5)));
    return range / s > 25 ? 5 * s : range / s > 10 ? 2 * s : s;
}

static void val_svg(FILE *f, const char *title, const char *xl, const char *yl, const Series *s,
                    int ns, double x1, double y0, double y1)
{
    const int W = 520, Hh = 340, L = 60, R = 150, T = 30, B = 45;
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
            fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", q->colour);
            for (int i = 0; i < q->n; i++)
                if (q->x[i] <= x1 && q->y[i] >= y0 && q->y[i] <= y1)
                    fprintf(f, "%.1f,%.1f ", PX(q->x[i]), PY(q->y[i]));
            fprintf(f, "\"/>\n");
        }
        fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>\n", W - R + 8, T + 15 + 16 * k,
                q->colour, q->label);
    }
#undef PX
#undef PY
    fprintf(f, "</svg>\n");
}

static const char *val_verdict(int ok, double err, double tol)
{
    return !ok ? "did not run" : err <= tol ? "pass" : "FAIL";
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--short") == 0;
    const int res[3] = { 8, 16, 32 };
    int nres = quick ? 1 : 3;
    DamRun dam[3];
    for (int k = 0; k < nres; k++) {
        dam[k] = val_dam_break(res[k], quick ? 4.5 : 9.3);
        printf("validate: dam break, %d cells per column width: %s%s (%.1f s)\n", res[k],
               dam[k].ok ? "ran" : "failed: ", dam[k].error, dam[k].seconds);
        fflush(stdout);
    }
    TankRun tank = val_tank(quick ? 30 : 90);
    SloshRun slosh = val_slosh(quick ? 2.6 : 6.0);
    const char *splashes[2] = { "scenes/ball_drop.json", "scenes/dam_break.json" };
    VolumeRun vol[2];
    for (int k = 0; k < 2; k++)
        vol[k] = val_volume(splashes[k], quick ? 15 : (k ? 60 : 30));

    mkdir("build", 0777);
    mkdir("build/validate", 0777);
    FILE *h = fopen("build/validate/report.html", "w");
    if (!h) {
        fprintf(stderr, "validate: build/validate/report.html: cannot write\n");
        return 1;
    }
    json_t *cases = json_array();
    int failed = 0;
    printf("\n%-44s %12s %12s  %s\n", "case", "measured", "tolerance", "verdict");
    fprintf(h, "<!doctype html><meta charset=\"utf-8\"><title>flipkit: how good is this simulator?"
            "</title>\n<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}"
            "td,th{padding:2px 10px;text-align:left}</style>\n<h1>How good is this simulator?</h1>\n"
            "<p>The reference (C stages, MGPCG) against a laboratory experiment and exact results. "
            "Made by <code>make validate</code>%s.</p>\n<table>\n<tr><th>case</th><th>measured</th>"
            "<th>tolerance</th><th>verdict</th></tr>\n", quick ? " --short (one resolution)" : "");
    for (int k = 0; k < nres; k++) {
        char name[96];
        snprintf(name, sizeof name, "dam break front, %d cells per a", res[k]);
        const char *v = !dam[k].ok ? "did not run"
                        : dam[k].outside == 0 && dam[k].mean_err <= DAM_LEAD_TOLERANCE ? "pass" : "FAIL";
        failed |= strcmp(v, "pass") != 0;
        printf("%-44s %5d of %-4d %12s  %s (points outside Z_exp <= Z <= 1 + 2T; lead over the "
               "experiment %+.1f%% to T %.1f, at most %.0f%%; %+.1f%% in all)\n", name, dam[k].outside,
               dam[k].used, "0", v, 100 * dam[k].mean_err, DAM_EARLY_T, 100 * DAM_LEAD_TOLERANCE,
               100 * dam[k].mean_all);
        fprintf(h, "<tr><td>%s: points of the record outside Z<sub>exp</sub> &le; Z &le; 1 + 2T "
                "(behind the experiment, or ahead of Ritter's frictionless front); the lead over the "
                "experiment, mean (Z &minus; Z<sub>exp</sub>) / Z<sub>exp</sub>: %+.1f%% to T = %.1f, "
                "%+.1f%% over the %d points reached</td><td>%d of %d; lead %+.1f%%</td><td>0; lead at "
                "most %.0f%%</td><td>%s</td></tr>\n",
                name, 100 * dam[k].mean_err, DAM_EARLY_T, 100 * dam[k].mean_all, dam[k].used,
                dam[k].outside, dam[k].used, 100 * dam[k].mean_err, 100 * DAM_LEAD_TOLERANCE, v);
        json_array_append_new(cases, json_pack("{s:s, s:i, s:i, s:i, s:f, s:f, s:f, s:f, s:s}", "case", name,
                                               "cells_per_width", res[k], "points_outside", dam[k].outside,
                                               "points", dam[k].used, "mean_lead_early", dam[k].mean_err,
                                               "lead_tolerance", DAM_LEAD_TOLERANCE,
                                               "mean_lead", dam[k].mean_all, "worst_lead", dam[k].max_all,
                                               "verdict", v));
    }
    double exp_speed = val_experiment_speed();
    if (!quick) {   /* the late front speed, to T = 9.2 (the front 14 a out), at the finest only */
        const DamRun *d = &dam[nres - 1];
        char name[96];
        snprintf(name, sizeof name, "dam break front speed, T >= %.0f, %d cells per a", DAM_LATE_T, res[nres - 1]);
        int in = d->ok && d->speed >= exp_speed && d->speed <= RITTER_SPEED;
        const char *v = !d->ok ? "did not run" : in ? "pass" : "FAIL";
        failed |= strcmp(v, "pass") != 0;
        printf("%-44s %12.3f %5.2f - %.2f  %s (dZ/dT between the experiment's and Ritter's; coarser: ",
               name, d->speed, exp_speed, RITTER_SPEED, v);
        for (int k = 0; k + 1 < nres; k++)
            printf("%s%d cells %.3f", k ? ", " : "", res[k], dam[k].speed);
        printf(")\n");
        fprintf(h, "<tr><td>%s: dZ/dT between the experiment's and Ritter's frictionless front's "
                "(coarser:", name);
        for (int k = 0; k + 1 < nres; k++)
            fprintf(h, "%s %d cells %.3f", k ? "," : "", res[k], dam[k].speed);
        fprintf(h, ")</td><td>%.3f</td><td>%.2f &ndash; %.2f</td><td>%s</td></tr>\n", d->speed,
                exp_speed, RITTER_SPEED, v);
        json_array_append_new(cases, json_pack("{s:s, s:f, s:f, s:f, s:s}", "case", name, "speed", d->speed,
                                               "experiment_speed", exp_speed, "ritter_speed", RITTER_SPEED,
                                               "verdict", v));
    }
    const char *tv = !tank.ok ? "did not run" : tank.worst_p <= 0.02 && tank.vmax <= tank.vbound ? "pass" : "FAIL";
    failed |= strcmp(tv, "pass") != 0;
    printf("%-44s %11.2f%% %11.1f%%  %s (and fastest particle %.2g m/s, at most %.2g)\n",
           "hydrostatic tank: pressure vs rho g depth", 100 * tank.worst_p, 2.0, tv, tank.vmax, tank.vbound);
    fprintf(h, "<tr><td>hydrostatic tank after %d s: pressure against &rho; g depth in %d cells; "
            "fastest particle</td><td>%.2f%%; %.2g m/s</td><td>2%%; %.2g m/s</td><td>%s</td></tr>\n",
            quick ? 1 : 3, tank.cells, 100 * tank.worst_p, tank.vmax, tank.vbound, tv);
    json_array_append_new(cases, json_pack("{s:s, s:f, s:f, s:f, s:s}", "case", "hydrostatic tank",
                                           "worst_pressure_error", tank.worst_p, "fastest_particle", tank.vmax,
                                           "speed_bound", tank.vbound, "verdict", tv));
    const char *sv_ = !slosh.ok ? "did not run" : slosh.error <= SLOSH_TOLERANCE ? "pass" : "FAIL";
    failed |= strcmp(sv_, "pass") != 0;
    printf("%-44s %11.2f%% %11.1f%%  %s (period %.4f s over %d crossings, linear theory %.4f s)%s%s\n",
           "standing wave: period vs linear theory", 100 * slosh.error, 100 * SLOSH_TOLERANCE, sv_,
           slosh.period, slosh.crossings, slosh.theory, slosh.ok ? "" : ": ", slosh.error_text);
    fprintf(h, "<tr><td>standing wave in a tank %.0f m long, %.1f m deep (%d cells along it), "
            "amplitude %.2f m: its period against linear theory's %.4f s</td><td>%.2f%% (%.4f s)</td>"
            "<td>%.0f%%</td><td>%s</td></tr>\n", SLOSH_L, SLOSH_H, SLOSH_N, SLOSH_A, slosh.theory,
            100 * slosh.error, slosh.period, 100 * SLOSH_TOLERANCE, sv_);
    json_array_append_new(cases, json_pack("{s:s, s:f, s:f, s:f, s:i, s:f, s:s}", "case", "standing wave",
                                           "period", slosh.period, "linear_theory", slosh.theory,
                                           "error", slosh.error, "crossings", slosh.crossings,
                                           "tolerance", SLOSH_TOLERANCE, "verdict", sv_));
    for (int k = 0; k < 2; k++) {
        char name[96];
        snprintf(name, sizeof name, "volume of %s, %d frames", strrchr(splashes[k], '/') + 1, vol[k].frames);
        const char *v = val_verdict(vol[k].ok, vol[k].worst, VOLUME_TOLERANCE);
        failed |= strcmp(v, "pass") != 0;
        printf("%-44s %11.1f%% %11.1f%%  %s (the surface's volume against the particles', worst frame)\n", name,
               100 * vol[k].worst, 100 * VOLUME_TOLERANCE, v);
        fprintf(h, "<tr><td>%s: the surface's volume against the particles' (each a cell over "
                "particles_per_cell), worst frame</td><td>%.1f%%</td>"
                "<td>%.0f%%</td><td>%s</td></tr>\n", name, 100 * vol[k].worst, 100 * VOLUME_TOLERANCE, v);
        json_array_append_new(cases, json_pack("{s:s, s:f, s:f, s:s}", "case", name, "worst_error",
                                               vol[k].worst, "tolerance", VOLUME_TOLERANCE, "verdict", v));
    }
    fprintf(h, "</table>\n<h2>The collapse of a liquid column (Martin &amp; Moyce 1952)</h2>\n"
            "<p>A column a wide and 2a high (a = 2.25 in) collapses along a dry floor; Z = z/a is "
            "the surge front, T = t &radic;(2g/a). Circles: Martin &amp; Moyce (1952), Phil. Trans. "
            "R. Soc. A 244, 312&ndash;324, Fig. 3, as digitised by the PySPH project. Lines: the "
            "reference on a thin slab (4 cells deep) at each resolution; grey: Ritter's frictionless "
            "shallow-water front, Z = 1 + 2T. The reference is inviscid, its walls free-slip, and "
            "its column is let go at once; the experiment's floor had friction and its column a "
            "gate, and friction slows a surge on a dry bed (Dressler 1952). So the run should lead "
            "the experiment and trail Ritter's front. Here, at %d cells per a, it leads the experiment "
            "by %.1f%% on average to T = %.1f",
            res[nres - 1], 100 * dam[nres - 1].mean_err, DAM_EARLY_T);
    if (!quick)
        fprintf(h, ", and its late speed dZ/dT is %.2f against the experiment's %.2f and Ritter's %.0f",
                dam[nres - 1].speed, exp_speed, RITTER_SPEED);
    fprintf(h, ". H: the residual column at the wall (no measured table is in the kit).</p>\n");
    static const char *colours[3] = { "#d95f02", "#1b9e77", "#7570b3" };
    Series sz[5], sh[3];
    char labels[3][32];
    int nz = 0;
    for (int k = 0; k < nres; k++) {
        snprintf(labels[k], sizeof labels[k], "%d cells per a", res[k]);
        if (dam[k].ok) {
            sz[nz++] = (Series){ labels[k], dam[k].T, dam[k].Z, dam[k].frames + 1, colours[k], 0 };
            sh[nz - 1] = (Series){ labels[k], dam[k].T, dam[k].H, dam[k].frames + 1, colours[k], 0 };
        }
    }
    sz[nz] = (Series){ "experiment", mm_T, mm_Z, MM_POINTS, "#000", 1 };
    double zmax = quick ? 6 : 15;   /* Ritter's line ends where it leaves the plot */
    const double ritter_T[2] = { 0, (zmax - 1) / RITTER_SPEED }, ritter_Z[2] = { 1, zmax };
    sz[nz + 1] = (Series){ "Ritter", ritter_T, ritter_Z, 2, "#999", 0 };
    val_svg(h, "surge front", "T = t sqrt(2g/a)", "Z = z/a", sz, nz + 2, quick ? 5 : 10, 1, zmax);
    val_svg(h, "residual column", "T = t sqrt(2g/a)", "H = h/a", sh, nz, quick ? 5 : 10, 0, 2.2);
    fprintf(h, "<table>\n<tr><th>T</th><th>Z experiment</th>");
    for (int k = 0; k < nres; k++)
        fprintf(h, "<th>Z, %d cells per a</th>", res[k]);
    fprintf(h, "</tr>\n");
    for (int i = 0; i < MM_POINTS; i++) {
        fprintf(h, "<tr><td>%.3f</td><td>%.3f</td>", mm_T[i], mm_Z[i]);
        for (int k = 0; k < nres; k++)
            if (dam[k].ok && isfinite(dam[k].at[i]))
                fprintf(h, "<td>%.3f</td>", dam[k].at[i]);
            else
                fprintf(h, "<td></td>");
        fprintf(h, "</tr>\n");
    }
    fprintf(h, "</table>\n");
    fprintf(h, "<h2>Volume through a splash</h2>\n<p>The liquid surface's volume (surface/, "
            "Zhu &amp; Bridson) over the volume its particles stand for (each a cell over "
            "particles_per_cell, away from the band the surface keeps clear of the walls): where the "
            "particles bunch or spread, the liquid the surface shows gains or loses volume.</p>\n");
    Series sv[2];
    double *frames[2];
    for (int k = 0; k < 2; k++) {
        frames[k] = malloc(((size_t)vol[k].frames + 1) * sizeof *frames[k]);
        for (int f = 0; f <= vol[k].frames; f++)
            frames[k][f] = f;
        sv[k] = (Series){ strrchr(splashes[k], '/') + 1, frames[k], vol[k].vol, vol[k].ok ? vol[k].frames + 1 : 0,
                          colours[k], 0 };
    }
    val_svg(h, "volume", "frame", "V surface / V particles", sv, 2, quick ? 15 : 60, 0.8, 1.2);
    fprintf(h, "<h2>A standing wave</h2>\n<p>The gravest sloshing mode of a tank %.0f m long and "
            "%.1f m deep, started from rest with its surface at h + A cos(&pi; x / L), A = %.2f m. "
            "Line: the mode's amplitude, measured from how many particles each column holds. Linear "
            "theory (Lamb 1932, art. 257): &omega;&sup2; = g k tanh(k h), k = &pi; / L, a period of "
            "%.4f s; the run's, from its zero crossings: %.4f s. The amplitude decays: the %.0f%% of PIC "
            "in the PIC/FLIP blend is a numerical viscosity.</p>\n", SLOSH_L, SLOSH_H, SLOSH_A,
            slosh.theory, slosh.period, 100 * slosh.alpha);
    double *theory_eta = calloc((size_t)slosh.frames + 1, sizeof *theory_eta);
    for (int f = 0; slosh.ok && f <= slosh.frames; f++)
        theory_eta[f] = SLOSH_A * cos(2 * SLOSH_PI * slosh.t[f] / slosh.theory);
    Series ss[2] = { { "the run", slosh.t, slosh.eta, slosh.ok ? slosh.frames + 1 : 0, colours[0], 0 },
                     { "linear theory", slosh.t, theory_eta, slosh.ok ? slosh.frames + 1 : 0, "#000", 0 } };
    val_svg(h, "standing wave", "t (s)", "amplitude (m)", ss, 2, quick ? 2.6 : 6.0, -1.5 * SLOSH_A, 1.5 * SLOSH_A);
    free(theory_eta);
    fclose(h);
    json_t *root = json_pack("{s:b, s:o}", "short", quick, "cases", cases);
    json_dump_file(root, "build/validate/report.json", JSON_INDENT(2));
    json_decref(root);
    printf("\nvalidate: build/validate/report.html and report.json%s\n", failed ? "; a case FAILED" : "");
    for (int k = 0; k < nres; k++) {
        free(dam[k].T);
        free(dam[k].Z);
        free(dam[k].H);
    }
    free(slosh.t);
    free(slosh.eta);
    for (int k = 0; k < 2; k++) {
        free(vol[k].vol);
        free(frames[k]);
    }
    return failed;
}
