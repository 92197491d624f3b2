/* solverlab.c — `make solvers`, the convergence lab: the relative residual after every iteration
 * of each C pressure solver on the first solve of the hydrostatic tank, at a few sizes.
 * flipkit maintainer/: prints a table and writes convergence.csv and convergence.svg (log-log plot). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pipeline.h"
#include "reference.h"
#include "sim.h"

enum { LAB_MAX_SIZES = 8 };
static const double LAB_TOLERANCE = 1e-6;

/* The relaxation solvers stop at 64^3: at 128^3 their capped sweeps take minutes and show only
 * what 64^3 already shows, a residual that has hardly moved. Colours: Okabe and Ito's
 * palette, which readers with any common colour blindness can tell apart. */
typedef struct {
    const char *name;
    int max_n;
    const char *colour;
    bool checks_every_iteration; /* anyway, so recording cannot change when it stops */
} LabSolver;
static const LabSolver lab_solvers[] = {
    { "jacobi", 64, "#E69F00", false },   { "gauss_seidel", 64, "#56B4E9", false },
    { "sor", 64, "#009E73", false },      { "pcg", 1024, "#0072B2", true },
    { "multigrid", 1024, "#D55E00", true }, { "mgpcg", 1024, "#CC79A7", true },
};
enum { LAB_SOLVERS = sizeof lab_solvers / sizeof *lab_solvers };

typedef struct {
    int sizes[LAB_MAX_SIZES], nsizes;
    int cap;                /* most iterations per solve */
    const char *out;        /* directory for the CSV and the SVG */
    float jacobi_omega, sor_omega; /* the scene's, for the table's header and the plot's */
} LabOptions;

static const char *const LAB_SCENE = "scenes/hydrostatic.json";

/* One solver at one size: a plain solve (timed, as a simulation runs it) and the same solve
 * again with its history recorded (measuring every iteration costs extra time). */
typedef struct {
    const LabSolver *solver;
    int n;
    long fluid_cells;
    SolveResult plain, recorded, device;
    double ms;              /* the plain solve's time */
    double device_ms;       /* the same solve on the OpenCL pipeline (device.iterations < 0: none) */
    double *residual;       /* recorded: residual[i] after iteration i */
    int count;
} LabCurve;

static double lab_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- running the solves ------------------------------------------------------------------ */

/* One frame of scenes/hydrostatic.json at n^3 (the hydrostatic water, 1.6 x 1.2 x 1.2 m on the
 * floor, in a 1.6 m cube, as in make bench): the first solve builds the whole hydrostatic
 * pressure from p = 0. 240 fps makes that frame a single substep. One particle per cell poses
 * the same pressure problem as eight (the water is at rest, so only which cells are FLUID
 * matters, and the same cells are) in an eighth of the set-up time. */
/* Whether an OpenCL device opened (for the table's device columns); -1 until tried. */
static int lab_have_device = -1;

static int lab_solve(LabCurve *c, int cap, SolveHistory *h, SolveResult *out, double *ms,
                     int device, char *err, size_t errlen)
{
    char res[64], cell[64], solver[64], iterations[64], tolerance[64];
    snprintf(res, sizeof res, "grid.resolution=[%d,%d,%d]", c->n, c->n, c->n);
    snprintf(cell, sizeof cell, "grid.cell_size=%.9g", 1.6 / c->n);
    snprintf(solver, sizeof solver, "pressure.solver=%s", c->solver->name);
    snprintf(iterations, sizeof iterations, "pressure.iterations=%d", cap);
    snprintf(tolerance, sizeof tolerance, "pressure.tolerance=%.17g", LAB_TOLERANCE);
    const char *sets[] = { res, cell, solver, iterations, tolerance, "frame_rate=240",
                           "particles_per_cell=1" };
    Scene sc;
    Sim s;
    memset(&s, 0, sizeof s);
    int rc = -1;
    if (scene_load(LAB_SCENE, sets, sizeof sets / sizeof *sets, &sc, err, errlen) != 0)
        goto done;
    int failed = sim_init(&s, &sc, &reference_track);
    s.history = h; /* the driver hands it to every solve */
    if (!failed && device) {
        SimBackend *b = pipeline_open(NULL, err, errlen);
        failed = !b || sim_use_backend(&s, b) != 0;
        if (failed && b)
            snprintf(err, errlen, "%s", s.error.message);
        if (failed) {
            sim_free(&s);
            goto done;
        }
    }
    if (failed || sim_advance_frame(&s) != 0) {
        snprintf(err, errlen, "%s", s.error.message);
    } else if (s.stats.substeps != 1) {
        snprintf(err, errlen, "frame 1 took %ld substeps, expected 1", s.stats.substeps);
    } else {
        *out = s.stats.last_solve;
        *ms = 1e3 * s.stats.seconds[PHASE_PRESSURE];
        c->fluid_cells = 0;
        for (size_t q = 0; q < grid_cells(&s.grid); q++)
            c->fluid_cells += s.grid.cell[q] == CELL_FLUID;
        rc = 0;
    }
    sim_free(&s);
done:
    scene_free(&sc);
    return rc;
}

/* The recorded solve must have a residual for every iteration and end where the solver says it
 * ended; a solver that measures every iteration anyway must have solved exactly as without. */
static int lab_check_history(const LabCurve *c, char *err, size_t errlen)
{
    const SolveResult *r = &c->recorded;
    if (c->count != r->iterations + 1) {
        snprintf(err, errlen, "%d residuals recorded for %d iterations", c->count, r->iterations);
        return -1;
    }
    for (int q = 0; q < c->count; q++)
        if (!isfinite(c->residual[q]) || c->residual[q] < 0.0) {
            snprintf(err, errlen, "residual %g recorded at iteration %d", c->residual[q], q);
            return -1;
        }
    if (fabs(c->residual[c->count - 1] - r->residual) > 1e-12 * r->residual) {
        snprintf(err, errlen, "last residual recorded %.9g, the solver returned %.9g",
                 c->residual[c->count - 1], r->residual);
        return -1;
    }
    if (c->solver->checks_every_iteration &&
        (c->plain.iterations != r->iterations || c->plain.residual != r->residual)) {
        snprintf(err, errlen, "recording changed the solve: %d iterations to %.3g without, %d to "
                 "%.3g with", c->plain.iterations, c->plain.residual, r->iterations, r->residual);
        return -1;
    }
    return 0;
}

static int lab_measure(LabCurve *c, int cap, char *err, size_t errlen)
{
    c->residual = malloc(((size_t)cap + 1) * sizeof *c->residual);
    if (!c->residual) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    SolveHistory h = { c->residual, cap + 1, 0 };
    double ms_recorded;
    if (lab_solve(c, cap, NULL, &c->plain, &c->ms, 0, err, errlen) != 0 ||
        lab_solve(c, cap, &h, &c->recorded, &ms_recorded, 0, err, errlen) != 0)
        return -1;
    c->count = h.count;
    /* The same solve on the device: its iterations and time, no history (the pipeline's
     * solvers do not record one). No device: the columns say so once, in the header. */
    c->device.iterations = -1;
    if (lab_have_device != 0) {
        char derr[8192];
        /* twice: the first run of a kernel on PoCL includes compiling it for its group size */
        if (lab_solve(c, cap, NULL, &c->device, &c->device_ms, 1, derr, sizeof derr) == 0 &&
            lab_solve(c, cap, NULL, &c->device, &c->device_ms, 1, derr, sizeof derr) == 0) {
            lab_have_device = 1;
        } else {
            if (lab_have_device < 0)
                fprintf(stderr, "solverlab: no OpenCL columns: %s\n", strtok(derr, "\n"));
            lab_have_device = 0;
            c->device.iterations = -1;
        }
    }
    return lab_check_history(c, err, errlen);
}

/* ---- the table and the CSV --------------------------------------------------------------- */

static void lab_print_header(const LabOptions *o)
{
    printf("convergence lab: the first pressure solve of the hydrostatic tank at n^3 (1.6 m box, "
           "water 1.2 m deep),\nfrom p = 0 to 1e-6 relative residual, at most %d iterations each "
           "(jacobi: omega %.3g, sor: omega %.3g;\njacobi, gauss_seidel and sor at n <= 64 only)\n",
           o->cap, (double)o->jacobi_omega, (double)o->sor_omega);
    printf("  (OpenCL: the same solve on the pipeline; pcg there is %s)\n",
           pipeline_solver_variant("pcg"));
    printf("  %-13s %4s %9s  %-26s %10s %9s  %-26s %10s\n", "solver", "n", "unknowns",
           "iterations to 1e-6", "ms", "ms/iter", "OpenCL iterations", "OpenCL ms");
}

static void lab_print_row(const LabCurve *c)
{
    char its[64];
    if (c->recorded.converged)
        snprintf(its, sizeof its, "%d", c->recorded.iterations);
    else
        snprintf(its, sizeof its, "> %d, reached %.1e", c->recorded.iterations,
                 c->recorded.residual);
    char dits[64] = "-", dms[32] = "-";
    if (c->device.iterations >= 0) {
        if (c->device.converged)
            snprintf(dits, sizeof dits, "%d", c->device.iterations);
        else
            snprintf(dits, sizeof dits, "> %d, reached %.1e", c->device.iterations,
                     c->device.residual);
        snprintf(dms, sizeof dms, "%.1f", c->device_ms);
    }
    printf("  %-13s %4d %9ld  %-26s %10.1f %9.3f  %-26s %10s\n", c->solver->name, c->n,
           c->fluid_cells, its, c->ms, c->plain.iterations ? c->ms / c->plain.iterations : 0.0,
           dits, dms);
    fflush(stdout);
}

static int lab_write_csv(const char *path, const LabCurve *curves, int ncurves)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "solver,n,iteration,relative_residual\n");
    for (int q = 0; q < ncurves; q++)
        for (int i = 0; i < curves[q].count; i++)
            fprintf(f, "%s,%d,%d,%.9g\n", curves[q].solver->name, curves[q].n, i,
                    curves[q].residual[i]);
    int bad = ferror(f);
    return fclose(f) == 0 && !bad ? 0 : -1;
}

/* ---- the plot: one panel per size, log residual against log iteration ------------------- */

enum {
    PANEL_W = 600, PANEL_W3 = 520, PANEL_H = 400, HEAD_H = 112, PAD = 20, MIN_W = 1120,
    PLOT_LEFT = 78, PLOT_RIGHT = 24, PLOT_TOP = 40, PLOT_BOTTOM = 52,
    ZERO_GAP = 30   /* room between iteration 0 and iteration 1 on the log axis */
};
static const char *const FONT = "DejaVu Sans, Helvetica, Arial, sans-serif";

typedef struct {
    double x0, y0, w, h;    /* the plot area */
    int ylo, yhi;           /* decades of the residual axis */
    int cap;
} Axes;

static double axes_x(const Axes *a, double iteration)
{
    if (iteration < 1.0)
        return a->x0;
    return a->x0 + ZERO_GAP + (a->w - ZERO_GAP) * log10(iteration) / log10((double)a->cap);
}

static double axes_y(const Axes *a, double residual)
{
    double e = residual > 0.0 ? log10(residual) : a->ylo;
    e = e < a->ylo ? a->ylo : e > a->yhi ? a->yhi : e;
    return a->y0 + a->h * (a->yhi - e) / (a->yhi - a->ylo);
}

/* "10" with the exponent raised, or "1" for 10^0. */
static void svg_power(FILE *f, double x, double y, const char *anchor, int e)
{
    if (e == 0)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">1</text>\n", x, y, anchor);
    else
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">10<tspan dy=\"-7\" "
                "font-size=\"9\">%s%d</tspan></text>\n", x, y, anchor, e < 0 ? "\u2212" : "", abs(e));
}

static void svg_y_axis(FILE *f, const Axes *a)
{
    for (int e = a->ylo; e <= a->yhi; e++) {
        double y = axes_y(a, pow(10.0, e));
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n",
                a->x0, y, a->x0 + a->w, y);
        svg_power(f, a->x0 - 8, y + 4, "end", e);
    }
    fprintf(f, "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\">"
            "relative residual |b \u2212 Lp| / |b|</text>\n", a->x0 - 52, a->y0 + a->h / 2);
}

/* Ticks at 0, at every decade and at the cap. */
static void svg_x_axis(FILE *f, const Axes *a)
{
    double yb = a->y0 + a->h;
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">0</text>\n", a->x0, yb + 18);
    double last = a->x0;
    for (double it = 1.0; it <= a->cap; it *= 10.0) {
        double x = axes_x(a, it);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n",
                x, a->y0, x, yb);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>\n", x, yb + 18, it);
        last = x;
    }
    double xc = axes_x(a, a->cap);
    if (xc - last > 45) /* else the cap's label would touch the last decade's */
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d</text>\n", xc, yb + 18, a->cap);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">iteration (log scale after 1; "
            "the right edge is the cap, %d)</text>\n", a->x0 + a->w / 2, yb + 40, a->cap);
}

/* A break mark on the frame between iteration 0 and 1, where the log scale starts. */
static void svg_axis_break(FILE *f, const Axes *a)
{
    double xm = a->x0 + ZERO_GAP / 2.0, yb = a->y0 + a->h;
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"12\" fill=\"white\"/>\n", xm - 4, yb - 6);
    for (int s = -1; s <= 1; s += 2)
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
                xm + 2.5 * s - 3, yb + 5, xm + 2.5 * s + 3, yb - 5);
}

/* The tolerance as a dashed line, labelled at its left end, where every curve is still high. */
static void svg_tolerance(FILE *f, const Axes *a)
{
    double y = axes_y(a, LAB_TOLERANCE);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\" "
            "stroke-width=\"1.2\" stroke-dasharray=\"6 4\"/>\n", a->x0, y, a->x0 + a->w, y);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#444\" font-size=\"11\">tolerance "
            "10<tspan dy=\"-6\" font-size=\"8\">\u22126</tspan></text>\n", a->x0 + ZERO_GAP + 6, y - 6);
}

/* A polyline through the recorded residuals, points closer than half a pixel to the last one
 * dropped (Jacobi's 2000 points crowd into the last decade), and a dot at the end: filled
 * when the solve reached the tolerance, open when it stopped at the cap. */
static void svg_curve(FILE *f, const Axes *a, const LabCurve *c)
{
    fprintf(f, "<g class=\"curve\" data-solver=\"%s\" data-n=\"%d\">\n<title>%s at %d\u00b3: %d "
            "iterations, residual %.2e%s</title>\n<polyline fill=\"none\" stroke=\"%s\" "
            "stroke-width=\"2\" stroke-linejoin=\"round\" points=\"", c->solver->name, c->n,
            c->solver->name, c->n, c->recorded.iterations, c->recorded.residual,
            c->recorded.converged ? "" : " (stopped at the cap)", c->solver->colour);
    double px = -1e9, py = -1e9, x = 0, y = 0;
    for (int i = 0; i < c->count; i++) {
        x = axes_x(a, i);
        y = axes_y(a, c->residual[i]);
        if (fabs(x - px) < 0.5 && fabs(y - py) < 0.5 && i != c->count - 1)
            continue;
        fprintf(f, "%.1f,%.1f ", x, y);
        px = x;
        py = y;
    }
    fprintf(f, "\"/>\n<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" stroke=\"%s\" stroke-width=\"2\" "
            "fill=\"%s\"/>\n</g>\n", x, y, c->solver->colour,
            c->recorded.converged ? c->solver->colour : "white");
}

static void svg_panel(FILE *f, double left, double top, int width, int n, const LabCurve *curves,
                      int ncurves, const Axes *range)
{
    Axes a = *range;
    a.x0 = left + PLOT_LEFT;
    a.y0 = top + PLOT_TOP;
    a.w = width - PLOT_LEFT - PLOT_RIGHT;
    a.h = PANEL_H - PLOT_TOP - PLOT_BOTTOM;
    long cells = 0;
    int shown = 0;
    for (int q = 0; q < ncurves; q++)
        if (curves[q].n == n) {
            cells = curves[q].fluid_cells;
            shown++;
        }
    fprintf(f, "<g class=\"panel\" data-n=\"%d\">\n", n);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"15\" font-weight=\"bold\">%d\u00b3 grid"
            "<tspan dx=\"10\" font-weight=\"normal\" fill=\"#555\" font-size=\"13\">%ld unknowns "
            "(water cells)</tspan></text>\n", a.x0, top + 24, n, cells);
    svg_y_axis(f, &a);
    svg_x_axis(f, &a);
    svg_tolerance(f, &a);
    for (int q = 0; q < ncurves; q++)
        if (curves[q].n == n)
            svg_curve(f, &a, &curves[q]);
    if (shown < LAB_SOLVERS)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\" fill=\"#555\">"
                "jacobi, gauss_seidel, sor: not run at this size (far beyond the cap)</text>\n",
                a.x0 + a.w - 8, a.y0 + 16);
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
            "stroke=\"#333\"/>\n", a.x0, a.y0, a.w, a.h);
    svg_axis_break(f, &a);
    fprintf(f, "</g>\n");
}

static void svg_legend(FILE *f, double x, double y)
{
    for (int s = 0; s < LAB_SOLVERS; s++) {
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"3\"/>\n<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", x, y - 4, x + 26,
                y - 4, lab_solvers[s].colour, x + 32, y, lab_solvers[s].name);
        x += 56 + 7.4 * (double)strlen(lab_solvers[s].name); /* about 7.4 px a letter at 13 px */
    }
    x += 16;
    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#333\"/>\n<text x=\"%.1f\" "
            "y=\"%.1f\">reached the tolerance</text>\n", x + 8, y - 4, x + 18, y);
    x += 186;
    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"white\" stroke=\"#333\" "
            "stroke-width=\"2\"/>\n<text x=\"%.1f\" y=\"%.1f\">stopped at the cap</text>\n",
            x + 8, y - 4, x + 18, y);
}

/* The residual axis spans every recorded value, and at least 1 down to 10^-7 so that the
 * tolerance line never sits on the frame. */
static Axes lab_axes_range(const LabCurve *curves, int ncurves, int cap)
{
    Axes a = { 0, 0, 0, 0, -7, 0, cap };
    for (int q = 0; q < ncurves; q++)
        for (int i = 0; i < curves[q].count; i++) {
            double r = curves[q].residual[i];
            if (r > 0.0 && floor(log10(r)) < a.ylo)
                a.ylo = (int)floor(log10(r));
            if (r > 0.0 && ceil(log10(r)) > a.yhi)
                a.yhi = (int)ceil(log10(r));
        }
    return a;
}

static int lab_write_svg(const char *path, const LabOptions *o, const LabCurve *curves, int ncurves)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    /* Up to three sizes side by side, more in rows of two. */
    int cols = o->nsizes <= 3 ? o->nsizes : 2, rows = (o->nsizes + cols - 1) / cols;
    int panel_w = cols == 3 ? PANEL_W3 : PANEL_W;
    int width = 2 * PAD + cols * panel_w, height = HEAD_H + rows * PANEL_H + PAD;
    width = width < MIN_W ? MIN_W : width; /* room for the legend */
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
            "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"%s\" font-size=\"13\" "
            "fill=\"#222\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", width,
            height, width, height, FONT);
    fprintf(f, "<text x=\"%d\" y=\"34\" font-size=\"21\" font-weight=\"bold\">Pressure solvers: "
            "residual against iteration</text>\n", PAD + PLOT_LEFT);
    fprintf(f, "<text x=\"%d\" y=\"58\" fill=\"#555\">First pressure solve of the hydrostatic tank "
            "(water 1.2 m deep in a 1.6 m box) from p = 0; each solver stops at the tolerance or "
            "after %d iterations. SOR: \u03c9 = %.3g.</text>\n", PAD + PLOT_LEFT, o->cap,
            (double)o->sor_omega);
    svg_legend(f, PAD + PLOT_LEFT, 92);
    Axes range = lab_axes_range(curves, ncurves, o->cap);
    for (int z = 0; z < o->nsizes; z++)
        svg_panel(f, PAD + (z % cols) * panel_w, HEAD_H + (z / cols) * PANEL_H, panel_w,
                  o->sizes[z], curves, ncurves, &range);
    fprintf(f, "</svg>\n");
    int bad = ferror(f);
    return fclose(f) == 0 && !bad ? 0 : -1;
}

/* ---- main -------------------------------------------------------------------------------- */

static int lab_usage(FILE *out, const char *why, const char *what)
{
    fprintf(out, "solverlab: %s%s\nusage: solverlab [--sizes 16,32,64] [--cap 2000] "
            "[--out build/solvers]\n(sizes above 64 run pcg, multigrid and mgpcg only)\n", why, what);
    return out == stdout ? 1 : 2;
}

static int lab_parse_sizes(LabOptions *o, const char *list)
{
    o->nsizes = 0;
    for (const char *p = list; *p;) {
        char *end;
        errno = 0;
        long n = strtol(p, &end, 10);
        if (end == p || errno || n < 8 || n > 512 || o->nsizes == LAB_MAX_SIZES ||
            (*end && *end != ','))
            return -1;
        o->sizes[o->nsizes++] = (int)n;
        p = *end ? end + 1 : end;
    }
    return o->nsizes > 0 ? 0 : -1;
}

/* Returns 0 to run, 1 after --help, 2 after a bad option (every option takes a value). */
static int lab_parse(LabOptions *o, int argc, char **argv)
{
    *o = (LabOptions){ { 16, 32, 64 }, 3, 2000, "build/solvers", 1.0f, 1.0f };
    for (int a = 1; a < argc; a += 2) {
        const char *v = a + 1 < argc ? argv[a + 1] : NULL;
        if (strcmp(argv[a], "--help") == 0)
            return lab_usage(stdout, "the convergence lab", "");
        if (!v)
            return lab_usage(stderr, "missing value after ", argv[a]);
        if (strcmp(argv[a], "--sizes") == 0) {
            if (lab_parse_sizes(o, v) != 0)
                return lab_usage(stderr, "--sizes: expected up to 8 comma-separated sizes, each "
                                 "8 to 512, got ", v);
        } else if (strcmp(argv[a], "--cap") == 0) {
            o->cap = atoi(v);
            if (o->cap < 10 || o->cap > 100000)
                return lab_usage(stderr, "--cap: expected an iteration count from 10 to 100000, "
                                 "got ", v);
        } else if (strcmp(argv[a], "--out") == 0) {
            o->out = v;
        } else {
            return lab_usage(stderr, "unknown option ", argv[a]);
        }
    }
    return 0;
}

/* The relaxation factors the scene gives Jacobi and SOR (the lab does not override them). */
static int lab_read_omegas(LabOptions *o)
{
    Scene sc;
    char err[512];
    int rc = scene_load(LAB_SCENE, NULL, 0, &sc, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "solverlab: %s\n", err);
    o->jacobi_omega = sc.pressure.jacobi_omega;
    o->sor_omega = sc.pressure.sor_omega;
    scene_free(&sc);
    return rc;
}

/* Every solver that runs at size n, one table row each; returns 0, or 1 after saying why. */
static int lab_run_size(int n, int cap, LabCurve *curves, int *ncurves)
{
    char err[512];
    for (int s = 0; s < LAB_SOLVERS; s++) {
        if (n > lab_solvers[s].max_n)
            continue;
        LabCurve *c = &curves[(*ncurves)++];
        *c = (LabCurve){ .solver = &lab_solvers[s], .n = n };
        if (lab_measure(c, cap, err, sizeof err) != 0) {
            fprintf(stderr, "solverlab: %s at %d^3: %s\n", c->solver->name, n, err);
            return 1;
        }
        lab_print_row(c);
    }
    printf("\n");
    return 0;
}

int main(int argc, char **argv)
{
    LabOptions o;
    int rc = lab_parse(&o, argc, argv);
    if (rc != 0)
        return rc == 1 ? 0 : rc;
    if (lab_read_omegas(&o) != 0)
        return 2;
    LabCurve curves[LAB_MAX_SIZES * LAB_SOLVERS];
    int ncurves = 0;
    double t0 = lab_clock();
    lab_print_header(&o);
    for (int z = 0; z < o.nsizes && rc == 0; z++)
        rc = lab_run_size(o.sizes[z], o.cap, curves, &ncurves);
    char csv[1024], svg[1024];
    snprintf(csv, sizeof csv, "%s/convergence.csv", o.out);
    snprintf(svg, sizeof svg, "%s/convergence.svg", o.out);
    if (rc == 0 && (lab_write_csv(csv, curves, ncurves) != 0 ||
                    lab_write_svg(svg, &o, curves, ncurves) != 0)) {
        fprintf(stderr, "solverlab: cannot write %s or %s: %s\n", csv, svg, strerror(errno));
        rc = 1;
    }
    if (rc == 0)
        printf("solvers: %s and %s (open the SVG in a web browser), %.0f s\n", csv, svg,
               lab_clock() - t0);
    for (int q = 0; q < ncurves; q++)
        free(curves[q].residual);
    return rc;
}
