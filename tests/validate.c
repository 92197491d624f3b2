/* validate.c — `make validate`: the reference against a laboratory experiment and exact results,
 * with a tolerance per case, written to build/validate/report.html (SVG plots) and report.json.
 * flipkit tests/: --short runs one resolution of each case (what `make check` runs). */
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
#define DAM_TOLERANCE 0.10  /* mean |Z_sim - Z| / Z over the points */
/* The early collapse, T = t sqrt(2 g / a) <= 4.3 (t sqrt(g / a) <= 3): the front before it has
 * thinned to a few cells; the whole record is judged at the finest resolution only. */
#define DAM_EARLY_T 4.3

typedef struct {
    int n;                  /* cells per column width */
    int frames;
    double *T, *Z, *H;      /* per frame: time, surge front, residual column height (over a) */
    double mean_err, max_err;       /* over the points with T <= DAM_EARLY_T */
    double mean_all, max_all;       /* over every point the run reaches */
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
        int used = 0, early = 0;
        for (int i = 0; i < MM_POINTS; i++) {
            r.at[i] = NAN;
            if (mm_T[i] > r.T[r.frames])
                continue;
            int f = 1;
            while (f < r.frames && r.T[f] < mm_T[i])
                f++;
            double w = (mm_T[i] - r.T[f - 1]) / (r.T[f] - r.T[f - 1]);
            double z = r.Z[f - 1] + w * (r.Z[f] - r.Z[f - 1]);
            double e = fabs(z - mm_Z[i]) / mm_Z[i];
            r.at[i] = z;
            r.mean_all += e;
            r.max_all = e > r.max_all ? e : r.max_all;
            used++;
            if (mm_T[i] <= DAM_EARLY_T) {
                r.mean_err += e;
                r.max_err = e > r.max_err ? e : r.max_err;
                early++;
            }
        }
        r.mean_err /= early > 0 ? early : 1;
        r.mean_all /= used > 0 ? used : 1;
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
        ok = ok && surface_build(&s.particles, &s.grid, NULL, &m, r.error, sizeof r.error) == 0;
        double v = ok ? mesh_volume(&m) : 0;
        double mass = surface_particle_volume(&s.particles, &s.grid, sc.particles_per_cell);
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
    for (double v = ceil(y0 / val_step(y1 - y0)) * val_step(y1 - y0), st = val_step(y1 - y0); v <= y1 + 1e-9; v += st)
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", L - 5, PY(v) + 4, v);
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
    printf("\n%-44s %12s %12s  %s\n", "case", "error", "tolerance", "verdict");
    fprintf(h, "<!doctype html><meta charset=\"utf-8\"><title>flipkit: how good is this simulator?"
            "</title>\n<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}"
            "td,th{padding:2px 10px;text-align:left}</style>\n<h1>How good is this simulator?</h1>\n"
            "<p>The reference (C stages, MGPCG) against a laboratory experiment and exact results. "
            "Made by <code>make validate</code>%s.</p>\n<table>\n<tr><th>case</th><th>error</th>"
            "<th>tolerance</th><th>verdict</th></tr>\n", quick ? " --short (one resolution)" : "");
    for (int k = 0; k < nres; k++) {
        char name[96];
        snprintf(name, sizeof name, "dam break front, T <= %.1f, %d cells per a", DAM_EARLY_T, res[k]);
        const char *v = val_verdict(dam[k].ok, dam[k].mean_err, DAM_TOLERANCE);
        failed |= strcmp(v, "pass") != 0;
        printf("%-44s %11.1f%% %11.1f%%  %s (mean |dZ|/Z; worst %.1f%%)\n", name,
               100 * dam[k].mean_err, 100 * DAM_TOLERANCE, v, 100 * dam[k].max_err);
        fprintf(h, "<tr><td>%s: mean |Z - Z<sub>exp</sub>| / Z<sub>exp</sub></td><td>%.1f%% (worst "
                "%.1f%%)</td><td>%.0f%%</td><td>%s</td></tr>\n",
                name, 100 * dam[k].mean_err, 100 * dam[k].max_err, 100 * DAM_TOLERANCE, v);
        json_array_append_new(cases, json_pack("{s:s, s:i, s:f, s:f, s:f, s:f, s:s}", "case", name,
                                               "cells_per_width", res[k], "mean_error", dam[k].mean_err,
                                               "worst_error", dam[k].max_err, "mean_error_whole_record",
                                               dam[k].mean_all, "tolerance", DAM_TOLERANCE, "verdict", v));
    }
    if (!quick) {   /* the whole record, to T = 9.2 (the front 14 a out), at the finest only */
        const DamRun *d = &dam[nres - 1];
        char name[96];
        snprintf(name, sizeof name, "dam break front, whole record, %d cells per a", res[nres - 1]);
        const char *v = val_verdict(d->ok, d->mean_all, DAM_TOLERANCE);
        failed |= strcmp(v, "pass") != 0;
        printf("%-44s %11.1f%% %11.1f%%  %s (coarser: ", name, 100 * d->mean_all, 100 * DAM_TOLERANCE, v);
        for (int k = 0; k + 1 < nres; k++)
            printf("%s%d cells %.1f%%", k ? ", " : "", res[k], 100 * dam[k].mean_all);
        printf(")\n");
        fprintf(h, "<tr><td>%s (coarser:", name);
        for (int k = 0; k + 1 < nres; k++)
            fprintf(h, "%s %d cells %.1f%%", k ? "," : "", res[k], 100 * dam[k].mean_all);
        fprintf(h, ")</td><td>%.1f%% (worst %.1f%%)</td><td>%.0f%%</td><td>%s</td></tr>\n",
                100 * d->mean_all, 100 * d->max_all, 100 * DAM_TOLERANCE, v);
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
            "reference on a thin slab (4 cells deep) at each resolution. H: the residual column at "
            "the wall (no measured table is in the kit).</p>\n");
    static const char *colours[3] = { "#d95f02", "#1b9e77", "#7570b3" };
    Series sz[4], sh[3];
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
    val_svg(h, "surge front", "T = t sqrt(2g/a)", "Z = z/a", sz, nz + 1, quick ? 5 : 10, 1, quick ? 6 : 15);
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
    for (int k = 0; k < 2; k++) {
        free(vol[k].vol);
        free(frames[k]);
    }
    return failed;
}
