/* mkfigures.c — draws the handout's four figures as plain SVG: the substep, the MAC cell,
 * a slice of the MAC grid with its cell types, and the pressure stencil at one cell.
 * flipkit handout/: run `mkfigures OUTDIR` after a convention changes; the slice and the
 * stencil take their indices and cell types from common/grid.h, so they cannot drift. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The figures use the kit's own indexing helpers (all inline, nothing to link). */
#include "grid.h"

#if defined(__GNUC__)
#define FIG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define FIG_PRINTF(f, a)
#endif

/* Okabe–Ito colours, safe for colour-blind readers, one meaning each across the figures. */
#define FIG_FLUID "#56B4E9"
#define FIG_AIR "#FFFFFF"
#define FIG_SOLID "#999999"
#define FIG_U "#E69F00"
#define FIG_V "#009E73"
#define FIG_W "#CC79A7"
#define FIG_P "#000000"
#define FIG_STAGE "#F0E442"
#define FIG_EXAMPLE "#D55E00"
#define FIG_INK "#222222"
#define FIG_MUTED "#555555"
#define FIG_SANS "DejaVu Sans, Helvetica, Arial, sans-serif"
#define FIG_MONO "DejaVu Sans Mono, Menlo, Consolas, monospace"

/* ---- a minimal SVG writer: every number goes through "%.1f", so output is byte-stable ---- */

typedef struct {
    FILE *f;
    int err; /* errno of the first failed write; 0 while every write has worked */
} Svg;

typedef struct {
    double size;
    const char *fill;
    int bold, italic, mono;
} Font;

static const Font fig_title = { 17, FIG_INK, 1, 0, 0 };
static const Font fig_body = { 13, FIG_INK, 0, 0, 0 };
static const Font fig_bold = { 12.5, FIG_INK, 1, 0, 0 };
static const Font fig_small = { 11, FIG_MUTED, 0, 0, 0 };
static const Font fig_tag = { 10, FIG_MUTED, 0, 1, 0 };
static const Font fig_code = { 15, FIG_INK, 1, 0, 1 };
static const Font fig_code_small = { 13, FIG_INK, 1, 0, 1 };

static void fig_printf(Svg *s, const char *fmt, ...) FIG_PRINTF(2, 3);

static void fig_printf(Svg *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    errno = 0;
    int n = vfprintf(s->f, fmt, ap);
    va_end(ap);
    if (n < 0 && s->err == 0)
        s->err = errno ? errno : EIO;
}

/* Text goes into XML, so the three characters XML reserves are escaped. */
static void fig_put_escaped(Svg *s, const char *t)
{
    for (; *t; t++) {
        if (*t == '<')
            fig_printf(s, "&lt;");
        else if (*t == '>')
            fig_printf(s, "&gt;");
        else if (*t == '&')
            fig_printf(s, "&amp;");
        else
            fig_printf(s, "%c", *t);
    }
}

static void fig_begin(Svg *s, int w, int h, const char *title)
{
    fig_printf(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fig_printf(s, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
                  "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"%s\">\n",
               w, h, w, h, FIG_SANS);
    fig_printf(s, "<title>");
    fig_put_escaped(s, title);
    fig_printf(s, "</title>\n");
    /* SOLID is grey with hatching, so it stays distinct from AIR even in greyscale print. */
    fig_printf(s, "<defs><pattern id=\"hatch\" width=\"8\" height=\"8\" "
                  "patternUnits=\"userSpaceOnUse\"><rect width=\"8\" height=\"8\" fill=\"%s\"/>"
                  "<path d=\"M-2,2 L2,-2 M0,8 L8,0 M6,10 L10,6\" stroke=\"#777777\" "
                  "stroke-width=\"1.2\"/></pattern></defs>\n",
               FIG_SOLID);
    fig_printf(s, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#FFFFFF\"/>\n", w, h);
}

static void fig_end(Svg *s)
{
    fig_printf(s, "</svg>\n");
}

/* anchor is "start", "middle" or "end"; extra is more attributes or "". */
static void fig_text_at(Svg *s, const Font *ft, double x, double y, const char *anchor,
                        const char *extra, const char *text)
{
    fig_printf(s, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.1f\" fill=\"%s\"", x, y, ft->size,
               ft->fill);
    if (ft->bold)
        fig_printf(s, " font-weight=\"bold\"");
    if (ft->italic)
        fig_printf(s, " font-style=\"italic\"");
    if (ft->mono)
        fig_printf(s, " font-family=\"%s\"", FIG_MONO);
    if (strcmp(anchor, "start") != 0)
        fig_printf(s, " text-anchor=\"%s\"", anchor);
    fig_printf(s, "%s%s>", *extra ? " " : "", extra);
    fig_put_escaped(s, text);
    fig_printf(s, "</text>\n");
}

static void fig_text(Svg *s, const Font *ft, double x, double y, const char *anchor,
                     const char *text)
{
    fig_text_at(s, ft, x, y, anchor, "", text);
}

static void fig_textf(Svg *s, const Font *ft, double x, double y, const char *anchor,
                      const char *fmt, ...) FIG_PRINTF(6, 7);

static void fig_textf(Svg *s, const Font *ft, double x, double y, const char *anchor,
                      const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fig_text(s, ft, x, y, anchor, buf);
}

/* Text read bottom to top, for the lane names in the left margin. */
static void fig_text_up(Svg *s, const Font *ft, double x, double y, const char *text)
{
    char rot[96];
    snprintf(rot, sizeof rot, "transform=\"rotate(-90 %.1f %.1f)\"", x, y);
    fig_text_at(s, ft, x, y, "middle", rot, text);
}

static void fig_rect(Svg *s, double x, double y, double w, double h, const char *fill,
                     const char *stroke, double sw, const char *extra)
{
    fig_printf(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
                  "stroke=\"%s\" stroke-width=\"%.1f\"%s%s/>\n",
               x, y, w, h, fill, stroke, sw, *extra ? " " : "", extra);
}

static void fig_line(Svg *s, double x1, double y1, double x2, double y2, const char *stroke,
                     double sw, const char *extra)
{
    fig_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                  "stroke-width=\"%.1f\"%s%s/>\n",
               x1, y1, x2, y2, stroke, sw, *extra ? " " : "", extra);
}

static void fig_circle(Svg *s, double cx, double cy, double r, const char *fill,
                       const char *stroke, double sw)
{
    fig_printf(s, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" stroke=\"%s\" "
                  "stroke-width=\"%.1f\"/>\n",
               cx, cy, r, fill, stroke, sw);
}

static void fig_polygon(Svg *s, int n, const double pt[][2], const char *fill,
                        const char *stroke, double sw, const char *extra)
{
    fig_printf(s, "<polygon points=\"");
    for (int i = 0; i < n; i++)
        fig_printf(s, "%s%.1f,%.1f", i ? " " : "", pt[i][0], pt[i][1]);
    fig_printf(s, "\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%.1f\"%s%s/>\n", fill, stroke, sw,
               *extra ? " " : "", extra);
}

/* A polyline ending in an arrowhead. The head is a polygon, not a marker: SVG 1.1 markers
 * cannot take the line's colour, and a polygon renders the same everywhere. */
static void fig_arrow_path(Svg *s, int n, const double pt[][2], const char *colour, double sw,
                           double head)
{
    double dx = pt[n - 1][0] - pt[n - 2][0], dy = pt[n - 1][1] - pt[n - 2][1];
    double len = sqrt(dx * dx + dy * dy), ux = dx / len, uy = dy / len;
    /* The shaft stops inside the head so its square end does not poke through the tip. */
    double bx = pt[n - 1][0] - ux * head, by = pt[n - 1][1] - uy * head;
    fig_printf(s, "<path d=\"M%.1f,%.1f", pt[0][0], pt[0][1]);
    for (int i = 1; i < n - 1; i++)
        fig_printf(s, " L%.1f,%.1f", pt[i][0], pt[i][1]);
    fig_printf(s, " L%.1f,%.1f\" fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" "
                  "stroke-linejoin=\"round\"/>\n",
               bx + ux * head * 0.3, by + uy * head * 0.3, colour, sw);
    double half = head * 0.42;
    const double tri[3][2] = { { pt[n - 1][0], pt[n - 1][1] },
                               { bx - uy * half, by + ux * half },
                               { bx + uy * half, by - ux * half } };
    fig_polygon(s, 3, tri, colour, colour, 0.5, "");
}

static void fig_arrow(Svg *s, double x1, double y1, double x2, double y2, const char *colour,
                      double sw, double head)
{
    const double pt[2][2] = { { x1, y1 }, { x2, y2 } };
    fig_arrow_path(s, 2, pt, colour, sw, head);
}

static void fig_cross(Svg *s, double x, double y, double r, const char *colour, double sw)
{
    fig_line(s, x - r, y - r, x + r, y + r, colour, sw, "");
    fig_line(s, x - r, y + r, x + r, y - r, colour, sw, "");
}

static const char *fig_cell_fill(int type)
{
    return type == CELL_FLUID ? FIG_FLUID : type == CELL_AIR ? FIG_AIR : "url(#hatch)";
}

static const char *fig_cell_name(int type)
{
    return type == CELL_FLUID ? "FLUID" : type == CELL_AIR ? "AIR" : "SOLID";
}

/* ---- figure 1: one substep, as common/sim.c runs it ---------------------------------------- */

typedef struct { double x, y, w, h; } Box;

static double fig_box_cx(Box b) { return b.x + 0.5 * b.w; }
static double fig_box_cy(Box b) { return b.y + 0.5 * b.h; }

/* The substep in sim_substep's order; a step's number in the figure is its index + 1. */
enum {
    PL_P2G, PL_COPY, PL_CLASSIFY, PL_GRAVITY, PL_DIVERGENCE, PL_SOLVE, PL_GRADIENT,
    PL_EXTRAPOLATE, PL_G2P, PL_ADVECT, PL_KEEP, PL_STEPS
};

typedef struct {
    const char *name, *what;
    int yours; /* 1: a student stage (assignment/), 0: given by the kit */
} PipeStep;

static const PipeStep fig_steps[PL_STEPS] = {
    [PL_P2G] = { "p2g", "vel_p → faces", 1 },
    [PL_COPY] = { "copy", "vel_old = vel", 0 },
    [PL_CLASSIFY] = { "classify", "cell types", 0 },
    [PL_GRAVITY] = { "gravity", "vel += dt·g", 1 },
    [PL_DIVERGENCE] = { "divergence", "per FLUID cell", 1 },
    [PL_SOLVE] = { "pressure solve", "b = (ρ/dt)·div", 0 },
    [PL_GRADIENT] = { "gradient", "vel −= (dt/ρ)∇p", 1 },
    [PL_EXTRAPOLATE] = { "extrapolate", "into AIR faces", 0 },
    [PL_G2P] = { "g2p", "faces → vel_p", 1 },
    [PL_ADVECT] = { "advect", "pos_p += dt·vel_p", 1 },
    [PL_KEEP] = { "keep inside", "out of SOLID", 0 },
};

enum { PL_W = 900, PL_H = 456 };
static const double pl_left = 46, pl_right = 886;
static const double pl_top_lane[2] = { 52, 142 }, pl_transfer[2] = { 142, 222 },
                    pl_grid_lane[2] = { 222, 404 };
static const double pl_row_cy = 313; /* the grid steps' centre line, where the row's arrows run */

/* Grid steps in a row along the bottom lane; the transfers stand above the first and last of
 * them, and the particle steps return along the top lane: the substep is a loop. */
static void fig_pipeline_layout(Box b[PL_STEPS])
{
    static const int row[] = { PL_COPY, PL_CLASSIFY, PL_GRAVITY, PL_DIVERGENCE,
                               PL_SOLVE, PL_GRADIENT, PL_EXTRAPOLATE };
    static const double width[] = { 84, 84, 84, 110, 164, 104, 100 };
    enum { NROW = sizeof row / sizeof row[0] };
    double used = 0, cy = pl_row_cy, h = 62;
    for (int r = 0; r < NROW; r++)
        used += width[r];
    double gap = (pl_right - pl_left - used) / (NROW - 1), x = pl_left;
    for (int r = 0; r < NROW; r++) {
        b[row[r]] = (Box){ x, cy - 0.5 * h, width[r], h };
        x += width[r] + gap;
    }
    b[PL_SOLVE].y = 230;
    b[PL_SOLVE].h = 2 * (cy - 230);
    b[PL_P2G] = (Box){ b[PL_COPY].x, 152, b[PL_COPY].w, 60 };
    b[PL_G2P] = (Box){ b[PL_EXTRAPOLATE].x, 152, b[PL_EXTRAPOLATE].w, 60 };
    b[PL_ADVECT] = (Box){ b[PL_EXTRAPOLATE].x - 14, 66, b[PL_EXTRAPOLATE].w + 14, 62 };
    b[PL_KEEP] = (Box){ b[PL_ADVECT].x - 150, 66, 110, 62 };
}

static void fig_step_number(Svg *s, Box b, int number)
{
    fig_textf(s, &fig_tag, b.x + 6, b.y + 13, "start", "%d", number);
}

static void fig_stage_box(Svg *s, Box b, int number, const PipeStep *st)
{
    fig_rect(s, b.x, b.y, b.w, b.h, FIG_STAGE, FIG_INK, 1.5, "rx=\"6\"");
    fig_step_number(s, b, number);
    fig_text(s, &fig_code, fig_box_cx(b), b.y + 0.5 * b.h - 1, "middle", st->name);
    fig_text(s, &fig_small, fig_box_cx(b), b.y + 0.5 * b.h + 16, "middle", st->what);
}

static void fig_given_box(Svg *s, Box b, int number, const PipeStep *st)
{
    fig_rect(s, b.x, b.y, b.w, b.h, "#FFFFFF", FIG_MUTED, 1.3,
             "rx=\"6\" stroke-dasharray=\"5 3\"");
    fig_step_number(s, b, number);
    fig_text(s, &fig_bold, fig_box_cx(b), b.y + 23, "middle", st->name);
    fig_text(s, &fig_small, fig_box_cx(b), b.y + 39, "middle", st->what);
    fig_text(s, &fig_tag, fig_box_cx(b), b.y + b.h - 8, "middle", "given");
}

/* The driver's loop around two student stages: jacobi sweeps, laplacian measures. */
static void fig_pipeline_solve(Svg *s, Box b, int number)
{
    const PipeStep *st = &fig_steps[PL_SOLVE];
    fig_rect(s, b.x, b.y, b.w, b.h, "#FFFFFF", FIG_MUTED, 1.3,
             "rx=\"6\" stroke-dasharray=\"5 3\"");
    fig_step_number(s, b, number);
    fig_text(s, &fig_bold, fig_box_cx(b), b.y + 21, "middle", st->name);
    fig_text(s, &fig_small, fig_box_cx(b), b.y + 36, "middle", st->what);
    Box jac = { b.x + 10, b.y + 46, b.w - 42, 40 }, lap = { b.x + 10, b.y + 100, b.w - 42, 40 };
    static const char *const names[2] = { "jacobi", "laplacian" };
    static const char *const whats[2] = { "one sweep", "residual |b − L p|" };
    const Box inner[2] = { jac, lap };
    for (int n = 0; n < 2; n++) {
        fig_rect(s, inner[n].x, inner[n].y, inner[n].w, inner[n].h, FIG_STAGE, FIG_INK, 1.5,
                 "rx=\"5\"");
        fig_text(s, &fig_code_small, fig_box_cx(inner[n]), inner[n].y + 17, "middle", names[n]);
        fig_text(s, &fig_small, fig_box_cx(inner[n]), inner[n].y + 32, "middle", whats[n]);
    }
    fig_arrow(s, fig_box_cx(jac), jac.y + jac.h, fig_box_cx(jac), lap.y, FIG_INK, 1.4, 7);
    double rx = jac.x + jac.w, loop = rx + 14;
    const double back[4][2] = { { rx, fig_box_cy(lap) }, { loop, fig_box_cy(lap) },
                                { loop, fig_box_cy(jac) }, { rx, fig_box_cy(jac) } };
    fig_arrow_path(s, 4, back, FIG_INK, 1.4, 7);
    fig_text(s, &fig_tag, loop + 4, fig_box_cy(jac) - 8, "middle", "× N");
    fig_text(s, &fig_tag, fig_box_cx(b), b.y + b.h - 8, "middle", "given loop");
}

static void fig_pipeline_lanes(Svg *s)
{
    const Font lane = { 13, FIG_INK, 1, 0, 0 };
    fig_rect(s, pl_left - 8, pl_top_lane[0], pl_right - pl_left + 12,
             pl_top_lane[1] - pl_top_lane[0], "#F3F3F3", "none", 0, "");
    fig_rect(s, pl_left - 8, pl_grid_lane[0], pl_right - pl_left + 12,
             pl_grid_lane[1] - pl_grid_lane[0], "#F3F3F3", "none", 0, "");
    fig_text_up(s, &lane, 26, 0.5 * (pl_top_lane[0] + pl_top_lane[1]), "particles");
    fig_text_up(s, &fig_small, 26, 0.5 * (pl_transfer[0] + pl_transfer[1]), "transfer");
    fig_text_up(s, &lane, 26, 0.5 * (pl_grid_lane[0] + pl_grid_lane[1]), "grid (MAC)");
}

static void fig_pipeline_arrows(Svg *s, const Box b[PL_STEPS])
{
    const double sw = 1.6, head = 9;
    fig_arrow(s, fig_box_cx(b[PL_P2G]), b[PL_P2G].y + b[PL_P2G].h, fig_box_cx(b[PL_COPY]),
              b[PL_COPY].y, FIG_INK, sw, head);
    for (int st = PL_COPY; st < PL_EXTRAPOLATE; st++)
        fig_arrow(s, b[st].x + b[st].w, pl_row_cy, b[st + 1].x, pl_row_cy, FIG_INK, sw, head);
    fig_arrow(s, fig_box_cx(b[PL_EXTRAPOLATE]), b[PL_EXTRAPOLATE].y, fig_box_cx(b[PL_G2P]),
              b[PL_G2P].y + b[PL_G2P].h, FIG_INK, sw, head);
    fig_arrow(s, fig_box_cx(b[PL_G2P]), b[PL_G2P].y, fig_box_cx(b[PL_G2P]),
              b[PL_ADVECT].y + b[PL_ADVECT].h, FIG_INK, sw, head);
    fig_arrow(s, b[PL_ADVECT].x, fig_box_cy(b[PL_ADVECT]), b[PL_KEEP].x + b[PL_KEEP].w,
              fig_box_cy(b[PL_ADVECT]), FIG_INK, sw, head);
    /* Back to the start: the particles are all that a substep hands to the next one. */
    double y = fig_box_cy(b[PL_KEEP]), x = fig_box_cx(b[PL_P2G]);
    const double next[3][2] = { { b[PL_KEEP].x, y }, { x, y }, { x, b[PL_P2G].y } };
    fig_arrow_path(s, 3, next, FIG_INK, sw, head);
    fig_text(s, &fig_small, 0.5 * (x + b[PL_KEEP].x), y - 8, "middle", "next substep");
    fig_text(s, &fig_small, 0.5 * (x + b[PL_KEEP].x), y + 18, "middle",
             "the particles (pos_p, vel_p) are the state; the grid is rebuilt each substep");
}

static void fig_pipeline_legend(Svg *s, double y)
{
    fig_rect(s, pl_left, y - 12, 30, 16, FIG_STAGE, FIG_INK, 1.5, "rx=\"3\"");
    fig_text(s, &fig_body, pl_left + 38, y + 1, "start", "your stage (assignment/NAME.c)");
    fig_rect(s, pl_left + 300, y - 12, 30, 16, "#FFFFFF", FIG_MUTED, 1.3,
             "rx=\"3\" stroke-dasharray=\"5 3\"");
    fig_text(s, &fig_body, pl_left + 338, y + 1, "start", "given by the kit (common/)");
    fig_text(s, &fig_small, pl_right, y + 1, "end", "numbers: order within the substep");
}

static void fig_pipeline(Svg *s)
{
    Box b[PL_STEPS];
    fig_begin(s, PL_W, PL_H, "flipkit: one substep");
    fig_text(s, &fig_title, pl_left - 8, 26, "start", "One substep (common/sim.c, sim_substep)");
    fig_text(s, &fig_small, pl_left - 8, 43, "start",
             "data goes particles → grid → particles; the pressure solve runs jacobi up to N "
             "times and measures |b − L p| with laplacian");
    fig_pipeline_lanes(s);
    fig_pipeline_layout(b);
    for (int st = 0; st < PL_STEPS; st++) {
        if (st == PL_SOLVE)
            fig_pipeline_solve(s, b[st], st + 1);
        else if (fig_steps[st].yours)
            fig_stage_box(s, b[st], st + 1, &fig_steps[st]);
        else
            fig_given_box(s, b[st], st + 1, &fig_steps[st]);
    }
    fig_pipeline_arrows(s, b);
    fig_pipeline_legend(s, PL_H - 26);
    fig_end(s);
}

/* ---- figure 2: one MAC cell in oblique projection ------------------------------------------ */

/* Cell-local coordinates in [0,1]^3 (x right, y up, z toward the viewer) to the page: z recedes
 * down and to the left at half length. Fixed factors, not cos/sin, keep the bytes portable. */
typedef struct { double ox, oy, size; } Oblique;

static void fig_project(const Oblique *o, double x, double y, double z, double *sx, double *sy)
{
    *sx = o->ox + o->size * (x - 0.40 * z);
    *sy = o->oy - o->size * (y - 0.30 * z);
}

static void fig_edge3(Svg *s, const Oblique *o, const double a[3], const double b[3],
                      const char *extra)
{
    double x1, y1, x2, y2;
    fig_project(o, a[0], a[1], a[2], &x1, &y1);
    fig_project(o, b[0], b[1], b[2], &x2, &y2);
    fig_line(s, x1, y1, x2, y2, FIG_INK, 1.6, extra);
}

/* The 12 edges; the three meeting at the hidden corner (0,0,0) are dashed. */
static void fig_cube_edges(Svg *s, const Oblique *o, int hidden)
{
    for (int v = 0; v < 8; v++)
        for (int d = 0; d < 3; d++) {
            double a[3] = { v & 1, (v >> 1) & 1, (v >> 2) & 1 };
            if (a[d] != 0)
                continue;
            double b[3] = { a[0], a[1], a[2] };
            b[d] = 1;
            int is_hidden = v == 0;
            if (is_hidden == hidden)
                fig_edge3(s, o, a, b, hidden ? "stroke-dasharray=\"6 4\" opacity=\"0.6\"" : "");
        }
}

/* The three faces the viewer sees (x = 1, y = 1, z = 1), lightly tinted so that what lies
 * behind them still shows through. */
static void fig_cube_faces(Svg *s, const Oblique *o)
{
    static const double quad[3][4][3] = {
        { { 1, 0, 0 }, { 1, 1, 0 }, { 1, 1, 1 }, { 1, 0, 1 } },
        { { 0, 1, 0 }, { 1, 1, 0 }, { 1, 1, 1 }, { 0, 1, 1 } },
        { { 0, 0, 1 }, { 1, 0, 1 }, { 1, 1, 1 }, { 0, 1, 1 } },
    };
    static const char *const opacity[3] = { "fill-opacity=\"0.16\"", "fill-opacity=\"0.10\"",
                                            "fill-opacity=\"0.06\"" };
    for (int f = 0; f < 3; f++) {
        double pt[4][2];
        for (int c = 0; c < 4; c++)
            fig_project(o, quad[f][c][0], quad[f][c][1], quad[f][c][2], &pt[c][0], &pt[c][1]);
        fig_polygon(s, 4, (const double(*)[2])pt, FIG_FLUID, "none", 0, opacity[f]);
    }
}

/* A face sample: a small patch of the face, a dot on it and an arrow through it along +axis
 * (the direction a positive u, v or w points). The patch shows which face it is, which the
 * projection alone leaves unclear for the hidden ones. Returns the page position of the
 * arrow's tail (back faces) or head (front faces), where its label goes. */
static void fig_face_sample(Svg *s, const Oblique *o, int axis, double face, const char *colour,
                            double *label_x, double *label_y)
{
    const int d1 = (axis + 1) % 3, d2 = (axis + 2) % 3;
    static const double corner[4][2] = { { -1, -1 }, { 1, -1 }, { 1, 1 }, { -1, 1 } };
    double patch[4][2], pos[3] = { 0.5, 0.5, 0.5 };
    pos[axis] = face;
    for (int c = 0; c < 4; c++) {
        double q[3] = { pos[0], pos[1], pos[2] };
        q[d1] += 0.15 * corner[c][0];
        q[d2] += 0.15 * corner[c][1];
        fig_project(o, q[0], q[1], q[2], &patch[c][0], &patch[c][1]);
    }
    fig_polygon(s, 4, (const double(*)[2])patch, colour, colour, 1.2, "fill-opacity=\"0.30\"");
    double reach = axis == 2 ? 0.34 : 0.28; /* z is drawn foreshortened: a longer arrow */
    double x0, y0, x1, y1, xa, ya;
    fig_project(o, pos[0] - (axis == 0) * reach, pos[1] - (axis == 1) * reach,
                pos[2] - (axis == 2) * reach, &x0, &y0);
    fig_project(o, pos[0] + (axis == 0) * reach, pos[1] + (axis == 1) * reach,
                pos[2] + (axis == 2) * reach, &x1, &y1);
    fig_project(o, pos[0], pos[1], pos[2], &xa, &ya);
    fig_arrow(s, x0, y0, x1, y1, colour, 2.6, 12);
    fig_circle(s, xa, ya, 4.5, colour, "#FFFFFF", 1.2);
    *label_x = face == 0 ? x0 : x1;
    *label_y = face == 0 ? y0 : y1;
}

static void fig_cell_label(Svg *s, double x, double y, const char *anchor, const char *colour,
                           const char *name, const char *where)
{
    const Font big = { 15, colour, 1, 0, 1 };
    fig_text(s, &big, x, y, anchor, name);
    fig_text(s, &fig_small, x, y + 15, anchor, where);
}

/* w points almost along the line of sight, so its labels stand clear of the cube on a leader. */
static void fig_leader(Svg *s, double x0, double y0, double x1, double y1, const char *colour)
{
    fig_line(s, x0, y0, x1, y1, colour, 1, "stroke-dasharray=\"2 2\"");
}

/* The samples behind the front faces are drawn first, the faces over them, then the front. */
static void fig_mac_cell_samples(Svg *s, const Oblique *o, int front)
{
    double x, y;
    if (!front) {
        fig_face_sample(s, o, 0, 0, FIG_U, &x, &y);
        fig_cell_label(s, x - 10, y + 5, "end", FIG_U, "u(i,j,k)",
                       "x = i·dx, shared with cell i−1");
        fig_face_sample(s, o, 1, 0, FIG_V, &x, &y);
        fig_cell_label(s, x, y + 20, "middle", FIG_V, "v(i,j,k)", "y = j·dx (bottom)");
        fig_face_sample(s, o, 2, 0, FIG_W, &x, &y);
        fig_leader(s, x + 4, y - 3, o->ox + o->size + 12, y - 38, FIG_W);
        fig_cell_label(s, o->ox + o->size + 16, y - 34, "start", FIG_W, "w(i,j,k)",
                       "z = k·dx (back)");
        fig_project(o, 0.5, 0.5, 0.5, &x, &y);
        fig_circle(s, x, y, 6, FIG_P, "#FFFFFF", 1.5);
        fig_cell_label(s, x + 12, y + 22, "start", FIG_P, "p(i,j,k)", "centre");
        return;
    }
    fig_face_sample(s, o, 0, 1, FIG_U, &x, &y);
    fig_cell_label(s, x + 10, y + 5, "start", FIG_U, "u(i+1,j,k)", "x = (i+1)·dx");
    fig_face_sample(s, o, 1, 1, FIG_V, &x, &y);
    fig_cell_label(s, x, y - 24, "middle", FIG_V, "v(i,j+1,k)", "y = (j+1)·dx (top)");
    fig_face_sample(s, o, 2, 1, FIG_W, &x, &y);
    double lx = o->ox - 0.40 * o->size - 14;
    fig_leader(s, x - 4, y + 3, lx + 4, y + 28, FIG_W);
    fig_cell_label(s, lx, y + 33, "end", FIG_W, "w(i,j,k+1)", "z = (k+1)·dx (front)");
}

static void fig_axes(Svg *s, double x, double y)
{
    const Font ax = { 14, FIG_INK, 1, 1, 0 };
    fig_arrow(s, x, y, x + 56, y, FIG_INK, 1.6, 9);
    fig_arrow(s, x, y, x, y - 56, FIG_INK, 1.6, 9);
    fig_arrow(s, x, y, x - 40, y + 30, FIG_INK, 1.6, 9);
    fig_text(s, &ax, x + 62, y + 5, "start", "x");
    fig_text(s, &ax, x, y - 62, "middle", "y");
    fig_text(s, &ax, x - 46, y + 40, "end", "z");
    fig_text(s, &fig_small, x - 30, y + 56, "start", "z: toward you");
}

static void fig_mac_cell(Svg *s)
{
    enum { W = 820, H = 640 };
    const Oblique o = { 380, 400, 250 };
    fig_begin(s, W, H, "flipkit: the MAC cell (i,j,k)");
    fig_text(s, &fig_title, 24, 30, "start",
             "The MAC cell (i,j,k): p at the centre, u, v, w on the faces");
    fig_cube_edges(s, &o, 1);
    fig_mac_cell_samples(s, &o, 0);
    fig_cube_faces(s, &o);
    fig_cube_edges(s, &o, 0);
    fig_mac_cell_samples(s, &o, 1);
    fig_axes(s, 80, 170);
    fig_text(s, &fig_body, 24, H - 62, "start",
             "u(i,j,k) sits at (i dx, (j+½) dx, (k+½) dx), between cells (i−1,j,k) and "
             "(i,j,k); likewise v and w.");
    fig_text(s, &fig_body, 24, H - 42, "start",
             "p(i,j,k) sits at the centre ((i+½) dx, (j+½) dx, (k+½) dx); the arrows point "
             "along +x, +y, +z.");
    fig_text(s, &fig_body, 24, H - 22, "start",
             "Array sizes — u: (nx+1)·ny·nz, v: nx·(ny+1)·nz, w: nx·ny·(nz+1), p: nx·ny·nz");
    fig_end(s);
}

/* ---- figure 3: a slice k = const of a small grid, built with grid.h's own helpers ---------- */

enum { SL_NX = 6, SL_NY = 5, SL_NZ = 3, SL_K = 1 };
static const double sl_cell = 64, sl_x0 = 96, sl_top = 100;

/* A 6 x 5 x 3 grid (outer layer SOLID, as grid_init makes it) whose middle slice k = 1 holds
 * two layers of fluid, AIR above and one SOLID obstacle. Faces laid out as grid_init does. */
static void fig_slice_grid(MacGrid *g, int8_t cells[SL_NX * SL_NY * SL_NZ])
{
    *g = (MacGrid){ .nx = SL_NX, .ny = SL_NY, .nz = SL_NZ, .dx = 1.0f, .cell = cells };
    const int n[3] = { SL_NX, SL_NY, SL_NZ };
    for (int a = 0; a < 3; a++)
        for (int d = 0; d < 3; d++) {
            g->face[a].n[d] = n[d] + (d == a);
            g->face[a].off[d] = d == a ? 0.0f : 0.5f;
        }
    for (int k = 0; k < SL_NZ; k++)
        for (int j = 0; j < SL_NY; j++)
            for (int i = 0; i < SL_NX; i++) {
                int outer = i == 0 || j == 0 || k == 0 || i == SL_NX - 1 || j == SL_NY - 1 ||
                            k == SL_NZ - 1;
                int fluid = j == 1 || (j == 2 && i <= 2);
                int type = outer || (i == 3 && j == 2) ? CELL_SOLID : fluid ? CELL_FLUID : CELL_AIR;
                cells[grid_cell_index(g, i, j, k)] = (int8_t)type;
            }
}

/* Page position of grid point (x, y) in cell units, y up. */
static double fig_slice_x(double x) { return sl_x0 + sl_cell * x; }
static double fig_slice_y(double y) { return sl_top + sl_cell * (SL_NY - y); }

static void fig_slice_cells(Svg *s, const MacGrid *g)
{
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i < g->nx; i++)
            fig_rect(s, fig_slice_x(i), fig_slice_y(j + 1), sl_cell, sl_cell,
                     fig_cell_fill(grid_cell_type(g, i, j, SL_K)), "#444444", 1, "");
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i < g->nx; i++) {
            int fluid = grid_cell_type(g, i, j, SL_K) == CELL_FLUID;
            fig_circle(s, fig_slice_x(i + 0.5), fig_slice_y(j + 0.5), 4.5,
                       fluid ? FIG_P : "#FFFFFF", FIG_P, 1.5);
        }
}

/* One face sample of component a (0 = u, 1 = v): an arrow along +axis, or a cross where
 * grid_face_is_solid says the velocity is the solid's, 0. */
static void fig_slice_face(Svg *s, const MacGrid *g, int a, int i, int j)
{
    Vec3 at = grid_face_position(g, a, i, j, SL_K);
    double x = fig_slice_x(at.x), y = fig_slice_y(at.y), r = 13;
    if (grid_face_is_solid(g, a, i, j, SL_K))
        fig_cross(s, x, y, 4.5, "#333333", 1.8);
    else if (a == 0)
        fig_arrow(s, x - r, y, x + r, y, FIG_U, 2.4, 9);
    else
        fig_arrow(s, x, y + r, x, y - r, FIG_V, 2.4, 9);
}

static void fig_slice_faces(Svg *s, const MacGrid *g)
{
    for (int a = 0; a < 2; a++) {
        const int *n = g->face[a].n;
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++)
                fig_slice_face(s, g, a, i, j);
    }
}

/* Index labels like a plot's axes: cells i, j below and left, u and v faces above and right. */
static void fig_slice_indices(Svg *s, const MacGrid *g)
{
    const Font idx = { 13, FIG_INK, 0, 0, 1 };
    const Font uidx = { 13, FIG_U, 1, 0, 1 }, vidx = { 13, FIG_V, 1, 0, 1 };
    double left = fig_slice_x(0), right = fig_slice_x(g->nx);
    double bottom = fig_slice_y(0), top = fig_slice_y(g->ny), mid_x = 0.5 * (left + right);
    for (int i = 0; i < g->nx; i++)
        fig_textf(s, &idx, fig_slice_x(i + 0.5), bottom + 22, "middle", "%d", i);
    fig_text(s, &fig_small, mid_x, bottom + 42, "middle", "cell i");
    for (int j = 0; j < g->ny; j++)
        fig_textf(s, &idx, left - 16, fig_slice_y(j + 0.5) + 5, "end", "%d", j);
    fig_text_up(s, &fig_small, left - 36, 0.5 * (top + bottom), "cell j");
    for (int i = 0; i <= g->nx; i++)
        fig_textf(s, &uidx, fig_slice_x(i), top - 12, "middle", "%d", i);
    fig_text(s, &fig_small, mid_x, top - 32, "middle", "u face i, at x = i·dx");
    for (int j = 0; j <= g->ny; j++)
        fig_textf(s, &vidx, right + 12, fig_slice_y(j) + 5, "start", "%d", j);
    fig_text_up(s, &fig_small, right + 40, 0.5 * (top + bottom), "v face j, at y = j·dx");
}

/* The example the index text works out: cell (2,1) and its left u face, ringed. */
static void fig_slice_example(Svg *s)
{
    fig_rect(s, fig_slice_x(2) + 3, fig_slice_y(2) + 3, sl_cell - 6, sl_cell - 6, "none",
             FIG_EXAMPLE, 2.5, "stroke-dasharray=\"6 3\"");
    fig_circle(s, fig_slice_x(2), fig_slice_y(1.5), 18, "none", FIG_EXAMPLE, 2.5);
}

static void fig_slice_swatch(Svg *s, double x, double y, const char *fill, const char *text)
{
    fig_rect(s, x, y - 13, 26, 18, fill, "#444444", 1, "");
    fig_text(s, &fig_body, x + 36, y + 1, "start", text);
}

static void fig_slice_legend(Svg *s, double x, double y)
{
    fig_slice_swatch(s, x, y, FIG_FLUID, "FLUID = 1 (has particles)");
    fig_slice_swatch(s, x, y + 28, FIG_AIR, "AIR = 0");
    fig_slice_swatch(s, x, y + 56, "url(#hatch)", "SOLID = −1 (outer layer, obstacle)");
    fig_arrow(s, x, y + 82, x + 26, y + 82, FIG_U, 2.4, 9);
    fig_text(s, &fig_body, x + 36, y + 87, "start", "u(i,j,k) on x-faces");
    fig_arrow(s, x + 13, y + 122, x + 13, y + 98, FIG_V, 2.4, 9);
    fig_text(s, &fig_body, x + 36, y + 115, "start", "v(i,j,k) on y-faces");
    fig_cross(s, x + 13, y + 140, 4.5, "#333333", 1.8);
    fig_text(s, &fig_body, x + 36, y + 145, "start", "solid face: normal velocity 0");
    fig_text(s, &fig_small, x + 36, y + 161, "start", "(a SOLID cell on either side)");
    fig_circle(s, x + 13, y + 184, 4.5, FIG_P, FIG_P, 1.5);
    fig_text(s, &fig_body, x + 36, y + 189, "start", "p(i,j,k): unknown in FLUID");
    fig_circle(s, x + 13, y + 210, 4.5, "#FFFFFF", FIG_P, 1.5);
    fig_text(s, &fig_body, x + 36, y + 215, "start", "p = 0 in AIR and SOLID");
    fig_circle(s, x + 13, y + 238, 10, "none", FIG_EXAMPLE, 2.5);
    fig_text(s, &fig_body, x + 36, y + 243, "start", "the example worked out below");
    fig_text(s, &fig_small, x, y + 275, "start", "w(i,j,k) lies on the faces z = k·dx");
    fig_text(s, &fig_small, x, y + 290, "start", "and (k+1)·dx, in front of and behind");
    fig_text(s, &fig_small, x, y + 305, "start", "this slice: not drawn.");
}

/* The flat indices, evaluated with grid_cell_index / grid_face_index on this very grid. */
static void fig_slice_index_text(Svg *s, const MacGrid *g, double y)
{
    size_t c0 = grid_cell_index(g, 2, 1, 0), c1 = grid_cell_index(g, 2, 1, 1);
    size_t u0 = grid_face_index(g, 0, 2, 1, 0), u1 = grid_face_index(g, 0, 2, 1, 1);
    fig_text(s, &fig_body, 24, y, "start",
             "flat index, x fastest (grid.h): cell (i,j,k) → grid_cell_index = i + nx·(j + ny·k);");
    fig_text(s, &fig_body, 24, y + 20, "start",
             "u face (i,j,k) → grid_face_index(g, 0, i,j,k) = i + (nx+1)·(j + ny·k);  "
             "v: i + nx·(j + (ny+1)·k);  w: i + nx·(j + ny·k).");
    fig_textf(s, &fig_body, 24, y + 40, "start",
              "Here nx = %d, ny = %d: cell (2,1,k) → %zu + %zu·k; its left face, u face (2,1,k) "
              "(ringed) → %zu + %zu·k.",
              g->nx, g->ny, c0, c1 - c0, u0, u1 - u0);
}

static void fig_mac_slice(Svg *s)
{
    enum { W = 900, H = 560 };
    MacGrid g;
    int8_t cells[SL_NX * SL_NY * SL_NZ];
    fig_slice_grid(&g, cells);
    fig_begin(s, W, H, "flipkit: a slice of the MAC grid");
    fig_textf(s, &fig_title, 24, 30, "start",
              "A slice k = const of the MAC grid, nx = %d, ny = %d (k inside: 1 ≤ k ≤ nz−2)",
              g.nx, g.ny);
    fig_slice_cells(s, &g);
    fig_slice_faces(s, &g);
    fig_slice_example(s);
    fig_slice_indices(s, &g);
    fig_slice_legend(s, fig_slice_x(g.nx) + 74, sl_top + 14);
    fig_slice_index_text(s, &g, H - 62);
    fig_end(s);
}

/* ---- figure 4: the pressure stencil at one FLUID cell --------------------------------------- */

/* The four in-plane neighbours of cell (1,1) in a 3 x 3 slice, in the order the figure and
 * the formula name them. */
static const struct {
    int di, dj;
    const char *name;
} fig_nbrs[4] = {
    { -1, 0, "p(i−1,j)" }, { 1, 0, "p(i+1,j)" }, { 0, 1, "p(i,j+1)" }, { 0, -1, "p(i,j−1)" },
};

/* Left and right FLUID, AIR above (the free surface), SOLID below (the floor). */
static void fig_stencil_grid(MacGrid *g, int8_t cells[9])
{
    static const int8_t types[9] = { CELL_SOLID, CELL_SOLID, CELL_SOLID,  /* j = 0 */
                                     CELL_FLUID, CELL_FLUID, CELL_FLUID,  /* j = 1 */
                                     CELL_AIR,   CELL_AIR,   CELL_AIR };  /* j = 2 */
    *g = (MacGrid){ .nx = 3, .ny = 3, .nz = 1, .dx = 1.0f, .cell = cells };
    memcpy(cells, types, sizeof types);
}

static const char *fig_stencil_role(int type)
{
    return type == CELL_FLUID ? "in N, adds its p" : type == CELL_AIR ? "in N, its p is 0"
                                                                      : "not in N, dropped";
}

static void fig_stencil_cell(Svg *s, double x, double y, double size, int type, const char *at,
                             const char *term)
{
    const Font what = { 14, FIG_INK, 1, 0, 0 }, code = { 13, FIG_INK, 0, 0, 1 };
    fig_rect(s, x, y, size, size, fig_cell_fill(type), "#333333", 1.5, "");
    if (type == CELL_SOLID) /* keep the words readable over the hatching */
        fig_rect(s, x + 14, y + 22, size - 28, size - 44, "#FFFFFF", "none", 0,
                 "fill-opacity=\"0.85\" rx=\"4\"");
    fig_text(s, &code, x + 0.5 * size, y + 0.5 * size - 14, "middle", at);
    fig_text(s, &what, x + 0.5 * size, y + 0.5 * size + 5, "middle", fig_cell_name(type));
    fig_text(s, &code, x + 0.5 * size, y + 0.5 * size + 24, "middle", term);
}

/* Draws the plus of five cells and returns N and the summed terms, read off the grid. */
static int fig_stencil_plus(Svg *s, const MacGrid *g, double cx, double cy, double size,
                            char *sum, size_t sumlen, char *counted, size_t countedlen)
{
    static const char *const at[4] = { "(i−1,j)", "(i+1,j)", "(i,j+1)", "(i,j−1)" };
    int count = 0;
    sum[0] = counted[0] = '\0';
    for (int n = 0; n < 4; n++) {
        int type = grid_cell_type(g, 1 + fig_nbrs[n].di, 1 + fig_nbrs[n].dj, 0);
        double x = cx + (fig_nbrs[n].di - 0.5) * size, y = cy - (fig_nbrs[n].dj + 0.5) * size;
        char term[32] = "(none)";
        if (type == CELL_FLUID)
            snprintf(term, sizeof term, "+ %s", fig_nbrs[n].name);
        else if (type == CELL_AIR)
            snprintf(term, sizeof term, "+ 0");
        fig_stencil_cell(s, x, y, size, type, at[n], term);
        if (type != CELL_SOLID) {
            size_t used = strlen(counted);
            snprintf(counted + used, countedlen - used, "%s%s", count ? ", " : "", at[n]);
            count++;
        }
        if (type == CELL_FLUID) {
            size_t used = strlen(sum);
            snprintf(sum + used, sumlen - used, "%s%s", used ? " + " : "", fig_nbrs[n].name);
        }
    }
    char centre[32];
    snprintf(centre, sizeof centre, "− %d·p(i,j)", count);
    fig_stencil_cell(s, cx - 0.5 * size, cy - 0.5 * size, size, CELL_FLUID, "(i,j)", centre);
    fig_rect(s, cx - 0.5 * size, cy - 0.5 * size, size, size, "none", FIG_INK, 2.5, "");
    /* The face to the SOLID cell carries no flow: drawn heavy, like a wall. */
    fig_line(s, cx - 0.5 * size - 6, cy + 0.5 * size, cx + 0.5 * size + 6, cy + 0.5 * size,
             FIG_INK, 8, "");
    return count;
}

static void fig_stencil_notes(Svg *s, const MacGrid *g, double cx, double cy, double size)
{
    for (int n = 0; n < 4; n++) {
        int di = fig_nbrs[n].di, dj = fig_nbrs[n].dj;
        int type = grid_cell_type(g, 1 + di, 1 + dj, 0);
        double x = di ? cx + di * (1.5 * size + 10) : cx + 0.5 * size + 12;
        double y = cy - dj * size;
        const char *anchor = di < 0 ? "end" : "start";
        const char *why = type == CELL_AIR ? "Dirichlet: the free surface, atmospheric"
                          : type == CELL_SOLID ? "Neumann: no flow through the face"
                                               : "an unknown of the solve";
        fig_textf(s, &fig_bold, x, y - 4, anchor, "%s: %s", fig_cell_name(type),
                  fig_stencil_role(type));
        fig_text(s, &fig_small, x, y + 13, anchor, why);
    }
}

static void fig_stencil(Svg *s)
{
    enum { W = 900, H = 590 };
    const double size = 116, cx = 450, cy = 250;
    MacGrid g;
    int8_t cells[9];
    char sum[128], counted[128];
    fig_stencil_grid(&g, cells);
    fig_begin(s, W, H, "flipkit: the pressure stencil");
    fig_text(s, &fig_title, 24, 30, "start",
             "The pressure stencil at a FLUID cell (i,j), slice k = const");
    int count = fig_stencil_plus(s, &g, cx, cy, size, sum, sizeof sum, counted, sizeof counted);
    fig_stencil_notes(s, &g, cx, cy, size);
    const Font formula = { 19, FIG_INK, 0, 0, 1 };
    double y = cy + 1.5 * size + 50;
    fig_textf(s, &formula, cx, y, "middle", "(L p)(i,j) = ( %s − %d·p(i,j) ) / dx²", sum, count);
    fig_textf(s, &fig_body, cx, y + 32, "middle",
              "N = %d: the neighbours that are not SOLID, %s. Only FLUID neighbours' p are "
              "summed.",
              count, counted);
    fig_textf(s, &fig_body, cx, y + 54, "middle",
              "jacobi at this cell: p ← (1−ω)·p(i,j) + ω·( %s − dx²·rhs(i,j) ) / %d", sum, count);
    fig_text(s, &fig_body, cx, y + 76, "middle",
             "This is the 2D picture: in 3D the cell has 6 neighbours (also k ± 1), same rule.");
    fig_end(s);
}

/* ---- writing the files --------------------------------------------------------------------- */

static const struct {
    const char *name;
    void (*draw)(Svg *s);
} fig_all[] = {
    { "pipeline.svg", fig_pipeline },
    { "mac_cell.svg", fig_mac_cell },
    { "mac_slice.svg", fig_mac_slice },
    { "stencil.svg", fig_stencil },
};

/* Writes OUTDIR/name via a temporary file and a rename, so a failed run never leaves a
 * half-written figure in place. Returns 0, or the errno of what failed. */
static int fig_write(const char *dir, const char *name, void (*draw)(Svg *s), char *path,
                     size_t pathlen)
{
    char tmp[4096];
    if ((size_t)snprintf(path, pathlen, "%s/%s", dir, name) >= pathlen ||
        (size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp)
        return ENAMETOOLONG;
    Svg s = { fopen(tmp, "w"), 0 };
    if (!s.f)
        return errno;
    draw(&s);
    errno = 0;
    if (fflush(s.f) != 0 && s.err == 0)
        s.err = errno ? errno : EIO;
    if (fclose(s.f) != 0 && s.err == 0)
        s.err = errno ? errno : EIO;
    if (s.err == 0 && rename(tmp, path) != 0)
        s.err = errno;
    if (s.err != 0)
        remove(tmp);
    return s.err;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: mkfigures OUTDIR (writes pipeline.svg, mac_cell.svg, "
                        "mac_slice.svg, stencil.svg)\n");
        return 2;
    }
    /* An OUTDIR that already exists is fine; any real problem shows at the first file. */
    mkdir(argv[1], 0777);
    for (size_t f = 0; f < sizeof fig_all / sizeof fig_all[0]; f++) {
        char path[4096];
        int err = fig_write(argv[1], fig_all[f].name, fig_all[f].draw, path, sizeof path);
        if (err != 0) {
            fprintf(stderr, "mkfigures: %s: %s\n", path, strerror(err));
            return 1;
        }
    }
    return 0;
}
