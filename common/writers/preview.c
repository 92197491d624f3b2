/* preview.c — PNG previews: a perspective view of a particle frame and a grid slice.
 * flipkit common/writers/: look-at-a-run-without-Blender pictures and slice debug images
 * (flipsim: issue 7). Everything is drawn into an RGB canvas here (own 5x7 font, own colour
 * maps); libpng saves. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "preview.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <png.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "fileerr.h"

#if defined(__GNUC__)
#define PREVIEW_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PREVIEW_PRINTF(f, a)
#endif

#define PREVIEW_MIN_WIDTH 200
#define PREVIEW_MAX_SIDE 4096

typedef unsigned char Rgb[3];

static const Rgb preview_white = { 255, 255, 255 };
static const Rgb preview_ink = { 40, 40, 40 };          /* text */
static const Rgb preview_edge = { 110, 110, 110 };      /* the domain's edges */
static const Rgb preview_solid_edge = { 70, 70, 74 };
static const Rgb preview_solid = { 150, 152, 158 };     /* solids, before shading */
static const Rgb preview_floor[2] = { { 226, 229, 234 }, { 236, 238, 242 } };
static const Rgb preview_wall[2] = { { 244, 245, 247 }, { 238, 240, 243 } };
static const Rgb preview_fluid = { 52, 120, 205 };      /* slice: FLUID */
static const Rgb preview_grey = { 150, 150, 150 };      /* slice: SOLID */
static const Rgb preview_hatch = { 205, 205, 205 };     /* slice: AIR in the value panels */

/* ---- the canvas ---------------------------------------------------------------------- */

typedef struct {
    int w, h;
    unsigned char *rgb;
    float *z;       /* depth of what a pixel shows (particles); INFINITY for background */
} Canvas;

static int preview_canvas_new(Canvas *c, int w, int h)
{
    size_t n = (size_t)w * (size_t)h;
    c->w = w;
    c->h = h;
    c->rgb = malloc(3 * n);
    c->z = malloc(n * sizeof *c->z);
    if (!c->rgb || !c->z) {
        free(c->rgb);
        free(c->z);
        return -1;
    }
    memset(c->rgb, 255, 3 * n);
    for (size_t i = 0; i < n; i++)
        c->z[i] = INFINITY;
    return 0;
}

static void preview_canvas_free(Canvas *c)
{
    free(c->rgb);
    free(c->z);
}

static void preview_put(Canvas *c, int x, int y, const Rgb col)
{
    if (x >= 0 && y >= 0 && x < c->w && y < c->h)
        memcpy(c->rgb + 3 * ((size_t)y * c->w + x), col, 3);
}

static void preview_blend(Canvas *c, int x, int y, const Rgb col, double alpha)
{
    if (x < 0 || y < 0 || x >= c->w || y >= c->h)
        return;
    unsigned char *p = c->rgb + 3 * ((size_t)y * c->w + x);
    for (int k = 0; k < 3; k++)
        p[k] = (unsigned char)lround(p[k] + alpha * (col[k] - p[k]));
}

static void preview_fill(Canvas *c, int x0, int y0, int x1, int y1, const Rgb col)
{
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            preview_put(c, x, y, col);
}

static void preview_frame_rect(Canvas *c, int x0, int y0, int x1, int y1, const Rgb col)
{
    for (int x = x0 - 1; x <= x1; x++) {
        preview_put(c, x, y0 - 1, col);
        preview_put(c, x, y1, col);
    }
    for (int y = y0; y < y1; y++) {
        preview_put(c, x0 - 1, y, col);
        preview_put(c, x1, y, col);
    }
}

static void preview_scale_rgb(Rgb out, const Rgb in, double f)
{
    for (int k = 0; k < 3; k++) {
        double v = in[k] * f;
        out[k] = (unsigned char)(v > 255 ? 255 : v < 0 ? 0 : lround(v));
    }
}

/* ---- colour maps --------------------------------------------------------------------- */

/* Piecewise linear through n evenly spaced stops, in sRGB. */
static void preview_ramp(const Rgb *stops, int n, double t, unsigned char rgb[3])
{
    t = !(t > 0) ? 0 : t > 1 ? 1 : t; /* NaN goes to the low end */
    double s = t * (n - 1);
    int i = (int)s;
    i = i > n - 2 ? n - 2 : i;
    double f = s - i;
    for (int k = 0; k < 3; k++)
        rgb[k] = (unsigned char)lround(stops[i][k] + f * (stops[i + 1][k] - stops[i][k]));
}

/* Viridis at t = 0, 1/8, ..., 1. Its lightness rises steadily, so with linear pieces the
 * luma (0.21 R + 0.72 G + 0.07 B) still rises monotonically: 21, 55, 80, 100, 121, 142,
 * 170, 196, 222. */
static const Rgb preview_viridis_stops[9] = {
    { 68, 1, 84 },    { 71, 44, 122 },  { 59, 81, 139 },  { 44, 113, 142 }, { 33, 144, 141 },
    { 39, 173, 129 }, { 92, 200, 99 },  { 170, 220, 50 }, { 253, 231, 37 },
};

void preview_viridis(double t, unsigned char rgb[3])
{
    preview_ramp(preview_viridis_stops, 9, t, rgb);
}

/* ColorBrewer RdBu (5 classes), negative blue. */
static const Rgb preview_rdbu_stops[5] = {
    { 33, 102, 172 }, { 103, 169, 207 }, { 247, 247, 247 }, { 239, 138, 98 }, { 178, 24, 43 },
};

void preview_diverging(double t, unsigned char rgb[3])
{
    preview_ramp(preview_rdbu_stops, 5, 0.5 * (t + 1), rgb);
}

/* ---- a 5x7 font with descenders ------------------------------------------------------------------- */

/* Each glyph is 9 rows of 5 bits, bit 4 the leftmost column: 7 rows above the baseline and
 * 2 for descenders (g j p q y ,), left zero by the initialisers of the others. Lower case
 * only (plus P for pascal): the labels are units, numbers and a few words. */
#define PREVIEW_GLYPH_ROWS 9
static const struct {
    char c;
    unsigned char row[PREVIEW_GLYPH_ROWS];
} preview_glyphs[] = {
    { '0', { 0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E } },
    { '1', { 0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E } },
    { '2', { 0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F } },
    { '3', { 0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E } },
    { '4', { 0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02 } },
    { '5', { 0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E } },
    { '6', { 0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E } },
    { '7', { 0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08 } },
    { '8', { 0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E } },
    { '9', { 0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C } },
    { '.', { 0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C } },
    { '-', { 0x00, 0x00, 0x00, 0x0E, 0x00, 0x00, 0x00 } },
    { '+', { 0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00 } },
    { '=', { 0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00 } },
    { '/', { 0x01, 0x01, 0x02, 0x04, 0x08, 0x10, 0x10 } },
    { ':', { 0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00 } },
    { ',', { 0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C, 0x04, 0x08 } },
    { '(', { 0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02 } },
    { ')', { 0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08 } },
    { ' ', { 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 } },
    { 'a', { 0x00, 0x00, 0x0E, 0x01, 0x0F, 0x11, 0x0F } },
    { 'b', { 0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x1E } },
    { 'c', { 0x00, 0x00, 0x0E, 0x10, 0x10, 0x11, 0x0E } },
    { 'd', { 0x01, 0x01, 0x0D, 0x13, 0x11, 0x11, 0x0F } },
    { 'e', { 0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E } },
    { 'f', { 0x06, 0x09, 0x08, 0x1C, 0x08, 0x08, 0x08 } },
    { 'g', { 0x00, 0x00, 0x0F, 0x11, 0x11, 0x11, 0x0F, 0x01, 0x0E } },
    { 'h', { 0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11 } },
    { 'i', { 0x04, 0x00, 0x0C, 0x04, 0x04, 0x04, 0x0E } },
    { 'j', { 0x02, 0x00, 0x06, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C } },
    { 'k', { 0x10, 0x10, 0x12, 0x14, 0x18, 0x14, 0x12 } },
    { 'l', { 0x0C, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E } },
    { 'm', { 0x00, 0x00, 0x1A, 0x15, 0x15, 0x11, 0x11 } },
    { 'n', { 0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11 } },
    { 'o', { 0x00, 0x00, 0x0E, 0x11, 0x11, 0x11, 0x0E } },
    { 'p', { 0x00, 0x00, 0x1E, 0x11, 0x11, 0x11, 0x1E, 0x10, 0x10 } },
    { 'q', { 0x00, 0x00, 0x0F, 0x11, 0x11, 0x11, 0x0F, 0x01, 0x01 } },
    { 'r', { 0x00, 0x00, 0x16, 0x19, 0x10, 0x10, 0x10 } },
    { 's', { 0x00, 0x00, 0x0F, 0x10, 0x0E, 0x01, 0x1E } },
    { 't', { 0x08, 0x08, 0x1C, 0x08, 0x08, 0x09, 0x06 } },
    { 'u', { 0x00, 0x00, 0x11, 0x11, 0x11, 0x13, 0x0D } },
    { 'v', { 0x00, 0x00, 0x11, 0x11, 0x11, 0x0A, 0x04 } },
    { 'w', { 0x00, 0x00, 0x11, 0x11, 0x15, 0x15, 0x0A } },
    { 'x', { 0x00, 0x00, 0x11, 0x0A, 0x04, 0x0A, 0x11 } },
    { 'y', { 0x00, 0x00, 0x11, 0x11, 0x11, 0x11, 0x0F, 0x01, 0x0E } },
    { 'z', { 0x00, 0x00, 0x1F, 0x02, 0x04, 0x08, 0x1F } },
    { 'P', { 0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10 } },
};

/* A missing glyph is a filled box, so a label that needs one is noticed, not silently cut. */
static const unsigned char preview_no_glyph[PREVIEW_GLYPH_ROWS] = { 0x1F, 0x1F, 0x1F, 0x1F,
                                                                    0x1F, 0x1F, 0x1F };

static const unsigned char *preview_glyph(char c)
{
    for (size_t i = 0; i < sizeof preview_glyphs / sizeof preview_glyphs[0]; i++)
        if (preview_glyphs[i].c == c)
            return preview_glyphs[i].row;
    return preview_no_glyph;
}

static int preview_text_width(const char *s, int scale)
{
    size_t n = strlen(s);
    return n ? (int)(6 * n - 1) * scale : 0;
}

/* Draws s with its top-left corner at (x, y). */
static void preview_text(Canvas *c, int x, int y, const char *s, int scale, const Rgb col)
{
    for (; *s; s++, x += 6 * scale) {
        const unsigned char *g = preview_glyph(*s);
        for (int r = 0; r < PREVIEW_GLYPH_ROWS; r++)
            for (int b = 0; b < 5; b++)
                if (g[r] & (0x10 >> b))
                    preview_fill(c, x + b * scale, y + r * scale, x + (b + 1) * scale,
                                 y + (r + 1) * scale, col);
    }
}

/* printf with '.' whatever the locale, since the font has no other decimal point. */
static void PREVIEW_PRINTF(3, 4) preview_format(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    char dp = localeconv()->decimal_point[0];
    if (dp != '.' && dp != '\0')
        for (char *p = buf; *p; p++)
            if (*p == dp)
                *p = '.';
}

/* ---- writing the PNG ----------------------------------------------------------------- */

/* libpng's simplified API writes no time chunk, so the same canvas gives the same bytes. */
static int preview_png_body(FILE *f, const void *canvas, char *why, size_t whylen)
{
    const Canvas *c = canvas;
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = (png_uint_32)c->w;
    img.height = (png_uint_32)c->h;
    img.format = PNG_FORMAT_RGB;
#ifdef PNG_IMAGE_FLAG_FAST
    /* A preview is written every frame and looked at once: libpng's fast mode writes it in
     * about half the time for a somewhat larger file (reference/PERFORMANCE.md). */
    img.flags |= PNG_IMAGE_FLAG_FAST;
#endif
    int ok = png_image_write_to_stdio(&img, f, 0, c->rgb, 0, NULL);
    if (!ok)
        snprintf(why, whylen, "libpng: %s", img.message);
    png_image_free(&img);
    return ok ? 0 : -1;
}

/* Through path.tmp (atomic.h): a reader never sees half a picture. */
static int preview_save(const char *path, const Canvas *c, char *err, size_t errlen)
{
    char why[600];
    if (atomic_write(path, false, preview_png_body, c, why, sizeof why) == 0)
        return 0;
    fileerr_set(err, errlen, path, "%s", why);
    return -1;
}

/* ---- vectors ------------------------------------------------------------------------- */

static double preview_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void preview_normalize(double a[3])
{
    double n = sqrt(preview_dot(a, a));
    for (int k = 0; k < 3; k++)
        a[k] /= n;
}

static void preview_cross(double out[3], const double a[3], const double b[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* ---- the camera ---------------------------------------------------------------------- */

/* Camera coordinates of a world point: along right, up, and the view direction. */
static void preview_to_camera(const PreviewView *v, const double p[3], double c[3])
{
    double d[3] = { p[0] - v->eye[0], p[1] - v->eye[1], p[2] - v->eye[2] };
    c[0] = preview_dot(d, v->right);
    c[1] = preview_dot(d, v->up);
    c[2] = preview_dot(d, v->fwd);
}

static void preview_corner(const PreviewView *v, int corner, double p[3])
{
    p[0] = corner & 1 ? v->domain.x : 0;
    p[1] = corner & 2 ? v->domain.y : 0;
    p[2] = corner & 4 ? v->domain.z : 0;
}

/* Places the camera: looking at the box centre from the front, right and above, far
 * enough (2.5 diagonals) that the perspective is gentle. */
static void preview_place_camera(PreviewView *v)
{
    double c[3] = { 0.5 * v->domain.x, 0.5 * v->domain.y, 0.5 * v->domain.z };
    double dir[3] = { 0.6, 0.5, 1.0 };
    preview_normalize(dir);
    double diag = sqrt((double)v->domain.x * v->domain.x + (double)v->domain.y * v->domain.y +
                       (double)v->domain.z * v->domain.z);
    const double y_axis[3] = { 0, 1, 0 };
    for (int k = 0; k < 3; k++) {
        v->eye[k] = c[k] + 2.5 * diag * dir[k];
        v->fwd[k] = -dir[k];
    }
    preview_cross(v->right, v->fwd, y_axis);
    preview_normalize(v->right);
    preview_cross(v->up, v->right, v->fwd);
}

/* Scales the image plane so the box's 8 corners fill the view area less a margin. */
static void preview_fit(PreviewView *v)
{
    double lo[2] = { INFINITY, INFINITY }, hi[2] = { -INFINITY, -INFINITY };
    for (int corner = 0; corner < 8; corner++) {
        double p[3], c[3];
        preview_corner(v, corner, p);
        preview_to_camera(v, p, c);
        for (int k = 0; k < 2; k++) {
            lo[k] = fmin(lo[k], c[k] / c[2]);
            hi[k] = fmax(hi[k], c[k] / c[2]);
        }
    }
    double margin = 0.07 * fmin(v->view_w, v->height);
    v->scale = fmin((v->view_w - 2 * margin) / (hi[0] - lo[0]),
                    (v->height - 2 * margin) / (hi[1] - lo[1]));
    v->cx = 0.5 * v->view_w - v->scale * 0.5 * (lo[0] + hi[0]);
    v->cy = 0.5 * v->height + v->scale * 0.5 * (lo[1] + hi[1]);
}

/* The legend: a title, then the bar from 14% to 86% of the height. */
static void preview_place_legend(PreviewView *v, int legend_w)
{
    int ts = v->text_scale;
    v->view_w = v->width - legend_w;
    v->bar_x0 = v->view_w + 10 * ts;
    v->bar_x1 = v->bar_x0 + 8 * ts;
    v->bar_y0 = (int)lround(0.14 * v->height) + 20 * ts;
    v->bar_y1 = (int)lround(0.86 * v->height);
}

int preview_frame_view(PreviewView *v, const MacGrid *g, int width_px)
{
    memset(v, 0, sizeof *v);
    if (width_px < PREVIEW_MIN_WIDTH || width_px > PREVIEW_MAX_SIDE || !g || g->nx < 1 ||
        g->ny < 1 || g->nz < 1 || !(g->dx > 0) || !isfinite(g->dx))
        return -1;
    v->width = width_px;
    v->height = (int)lround(0.75 * width_px);
    v->text_scale = width_px >= 640 ? 2 : 1;
    v->domain = (Vec3){ g->nx * g->dx, g->ny * g->dx, g->nz * g->dx };
    v->dot_world = 0.35 * g->dx;
    preview_place_legend(v, 62 * v->text_scale);
    preview_place_camera(v);
    preview_fit(v);
    return 0;
}

bool preview_project(const PreviewView *v, Vec3 p, double *x, double *y, double *depth)
{
    if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(p.z))
        return false;
    double w[3] = { p.x, p.y, p.z }, c[3];
    preview_to_camera(v, w, c);
    if (!(c[2] > 1e-9))
        return false;
    *x = v->cx + v->scale * c[0] / c[2];
    *y = v->cy - v->scale * c[1] / c[2];
    *depth = c[2];
    return true;
}

/* The ray through the centre of pixel (x, y): its direction has a view-direction component
 * of 1, so the ray parameter t is the depth preview_project reports. */
static void preview_ray(const PreviewView *v, int x, int y, double d[3])
{
    double a = (x + 0.5 - v->cx) / v->scale, b = (v->cy - (y + 0.5)) / v->scale;
    for (int k = 0; k < 3; k++)
        d[k] = v->fwd[k] + a * v->right[k] + b * v->up[k];
}

/* Slab test of the ray o + t d against the box [lo, hi]. On a hit gives the entry and exit
 * t and the axis of the face at each. */
static bool preview_ray_box(const double o[3], const double d[3], const double lo[3],
                            const double hi[3], double *tn, double *tf, int *an, int *af)
{
    double t0 = -INFINITY, t1 = INFINITY;
    *an = *af = 0;
    for (int k = 0; k < 3; k++) {
        if (d[k] == 0) {
            if (o[k] < lo[k] || o[k] > hi[k])
                return false;
            continue;
        }
        double a = (lo[k] - o[k]) / d[k], b = (hi[k] - o[k]) / d[k];
        if (a > b) {
            double s = a;
            a = b;
            b = s;
        }
        if (a > t0) {
            t0 = a;
            *an = k;
        }
        if (b < t1) {
            t1 = b;
            *af = k;
        }
    }
    *tn = t0;
    *tf = t1;
    return t1 >= t0 && t1 > 0;
}

/* ---- the frame: background ----------------------------------------------------------- */

/* Where a pixel's ray leaves the box it sees the floor (a checkerboard of about 8 tiles,
 * whole cells each, so the eye can judge distances) or a back wall. */
static void preview_draw_room(Canvas *c, const PreviewView *v, const MacGrid *g)
{
    const double lo[3] = { 0, 0, 0 };
    const double hi[3] = { v->domain.x, v->domain.y, v->domain.z };
    int most = g->nx > g->nz ? g->nx : g->nz;
    double tile = g->dx * (most >= 16 ? most / 8 : 1);
    for (int y = 0; y < v->height; y++) {
        for (int x = 0; x < v->view_w; x++) {
            double d[3], tn, tf;
            int an, af;
            preview_ray(v, x, y, d);
            if (!preview_ray_box(v->eye, d, lo, hi, &tn, &tf, &an, &af))
                continue;
            double q[3] = { v->eye[0] + tf * d[0], v->eye[1] + tf * d[1], v->eye[2] + tf * d[2] };
            if (af == 1) {
                long parity = (long)floor(q[0] / tile) + (long)floor(q[2] / tile);
                preview_put(c, x, y, preview_floor[parity & 1]);
            } else {
                preview_put(c, x, y, preview_wall[af == 2]);
            }
        }
    }
}

/* ---- the frame: particles ------------------------------------------------------------ */

/* Items (particles, diffuse particles, bricks) to draw far first: the indices of those in view,
 * sorted by depth. 10 bytes an item with the sort's spare and digits, where keys that carried
 * depth, x, y and index were 64 (issue 42: at 128^3 those were the run's peak): each depth is
 * computed again where the sort reads it, and x and y where the item is drawn, the same doubles. */
typedef struct {
    const PreviewView *v;
    const Vec3 *pos;        /* the items' positions, or NULL for ... */
    const float *xyz;       /* ... x y z a float each (the bricks' centres) */
    uint32_t *order;        /* the items in view: in index order, then far first */
    size_t m;
} DepthOrder;

static int preview_order_alloc(DepthOrder *o, const PreviewView *v, const Vec3 *pos,
                               const float *xyz, size_t n)
{
    *o = (DepthOrder){ v, pos, xyz, NULL, 0 };
    o->order = n <= UINT32_MAX ? malloc((n ? n : 1) * sizeof *o->order) : NULL;
    return o->order ? 0 : -1;
}

static void preview_order_free(DepthOrder *o)
{
    free(o->order);
}

static Vec3 preview_item(const DepthOrder *o, size_t i)
{
    return o->pos ? o->pos[i] : (Vec3){ o->xyz[3 * i], o->xyz[3 * i + 1], o->xyz[3 * i + 2] };
}

/* Item i projected: true when it is in front of the camera (an item listed in order is). */
static bool preview_item_at(const DepthOrder *o, size_t i, double *x, double *y, double *depth)
{
    return preview_project(o->v, preview_item(o, i), x, y, depth);
}

/* The depth preview_project gives a listed item (one in front of the camera), the same double
 * computed the same way, without the rest of the projection. */
static double preview_item_depth(const DepthOrder *o, size_t i)
{
    Vec3 p = preview_item(o, i);
    const double *eye = o->v->eye;
    double d[3] = { p.x - eye[0], p.y - eye[1], p.z - eye[2] };
    return preview_dot(d, o->v->fwd);
}

/* Far first; equal depths by index, so the order (and the picture) is always the same. */
static bool preview_before(const DepthOrder *o, uint32_t a, uint32_t b)
{
    double da = preview_item_depth(o, a), db = preview_item_depth(o, b);
    return da != db ? da > db : a < b;
}

/* The same order in place without the sort's spare (out of memory): a heapsort, whose order is
 * the same as any sort's since preview_before is a total order. */
static void preview_heap_sift(const DepthOrder *d, uint32_t *o, size_t root, size_t m)
{
    for (size_t child; (child = 2 * root + 1) < m; root = child) {
        if (child + 1 < m && preview_before(d, o[child], o[child + 1]))
            child++;
        if (!preview_before(d, o[root], o[child]))
            return;
        uint32_t t = o[root];
        o[root] = o[child];
        o[child] = t;
    }
}

static void preview_heap_sort(const DepthOrder *d, uint32_t *o, size_t m)
{
    for (size_t r = m / 2; r-- > 0;)
        preview_heap_sift(d, o, r, m);
    for (size_t end = m; end-- > 1;) {
        uint32_t t = o[0];
        o[0] = o[end];
        o[end] = t;
        preview_heap_sift(d, o, 0, end);
    }
}

/* Item i's sort key: its depth's IEEE bits complemented. Depths are positive (preview_project
 * keeps only those), so their bits order like the numbers; complemented, far comes first. */
static uint64_t preview_far_key(const DepthOrder *o, size_t i)
{
    double depth = preview_item_depth(o, i);
    uint64_t bits;
    memcpy(&bits, &depth, sizeof bits);
    return ~bits;
}

/* The order preview_before gives, in linear time: a stable LSD radix sort of the listed
 * indices on their keys, 16 bits at a time; the indices arrive in increasing order and a
 * stable sort keeps equal depths that way. Each pass projects every item once for its digit,
 * kept (2 bytes an item) for the scatter, and counts in a 256 KiB table that stays in cache;
 * a digit every key shares is skipped. */
static void preview_sort_far_first(DepthOrder *d)
{
    enum { DIGITS = 1 << 16, PASSES = 4 };
    size_t m = d->m;
    if (m < 2)
        return;
    uint32_t *tmp = malloc(m * sizeof *tmp), *count = malloc(DIGITS * sizeof *count);
    uint16_t *digit = malloc(m * sizeof *digit);
    if (!tmp || !count || !digit) {
        free(tmp);
        free(count);
        free(digit);
        preview_heap_sort(d, d->order, m);
        return;
    }
    uint32_t *from = d->order, *to = tmp;
    for (int q = 0; q < PASSES; q++) {
        memset(count, 0, DIGITS * sizeof *count);
        for (size_t i = 0; i < m; i++) {
            digit[i] = (uint16_t)(preview_far_key(d, from[i]) >> (16 * q));
            count[digit[i]]++;
        }
        if (count[digit[0]] == m)
            continue; /* every key has this digit: the pass would not move anything */
        uint32_t sum = 0;
        for (size_t g = 0; g < DIGITS; g++) {
            uint32_t k = count[g];
            count[g] = sum;
            sum += k;
        }
        for (size_t i = 0; i < m; i++)
            to[count[digit[i]]++] = from[i];
        uint32_t *t = from;
        from = to;
        to = t;
    }
    if (from != d->order)
        memcpy(d->order, from, m * sizeof *from);
    free(tmp);
    free(count);
    free(digit);
}

static double preview_speed(const Vec3 *vel, size_t i)
{
    if (!vel)
        return 0;
    double s = sqrt((double)vel[i].x * vel[i].x + (double)vel[i].y * vel[i].y +
                    (double)vel[i].z * vel[i].z);
    return isfinite(s) ? s : 0;
}

/* A dot centred on the pixel the particle projects into, in the colour map's colour, kept
 * out of the legend (columns >= xmax); the depth it leaves behind is what
 * preview_shade_particles lights. */
static void preview_dot_at(Canvas *c, int xmax, int px, int py, double r, const Rgb col,
                           double depth)
{
    int R = (int)ceil(r);
    double r2 = r * r;
    for (int dy = -R; dy <= R; dy++) {
        if (py + dy < 0 || py + dy >= c->h)
            continue;
        /* The row's span: the largest w with w^2 + dy^2 <= r^2, found with the same test the
         * disc is defined by (a root's rounding must not add or drop a pixel). */
        int w = (int)sqrt(fmax(r2 - dy * dy, 0.0));
        while (w >= 0 && w * w + dy * dy > r2)
            w--;
        while ((w + 1) * (w + 1) + dy * dy <= r2)
            w++;
        int x0 = px - w < 0 ? 0 : px - w, x1 = px + w >= xmax ? xmax - 1 : px + w;
        for (int x = x0; x <= x1; x++) {
            preview_put(c, x, py + dy, col);
            c->z[(size_t)(py + dy) * c->w + x] = (float)depth;
        }
    }
}

/* One pass of a depth blur along x (step 1) or y (step w): the mean over +-b pixels of the
 * particle depths within thr of the centre's, so separate sheets of fluid stay apart. */
static void preview_blur_pass(const float *in, float *out, int w, int h, int b, int along_x,
                              double thr)
{
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            out[i] = in[i];
            if (!isfinite(in[i]))
                continue;
            double sum = 0;
            int cnt = 0;
            for (int o = -b; o <= b; o++) {
                int xx = along_x ? x + o : x, yy = along_x ? y : y + o;
                if (xx < 0 || yy < 0 || xx >= w || yy >= h)
                    continue;
                float z = in[(size_t)yy * w + xx];
                if (isfinite(z) && fabs(z - in[i]) < thr) {
                    sum += z;
                    cnt++;
                }
            }
            out[i] = (float)(sum / cnt);
        }
    }
}

/* The slope of the smoothed depth across one axis at pixel i, in metres per metre, and
 * whether exactly one side is empty or far away (a silhouette). */
static double preview_slope(const float *zs, size_t i, size_t lo, size_t hi, bool has_lo,
                            bool has_hi, double thr, double metres_per_px, bool *edge)
{
    bool a = has_lo && isfinite(zs[lo]) && fabs(zs[lo] - zs[i]) < thr;
    bool b = has_hi && isfinite(zs[hi]) && fabs(zs[hi] - zs[i]) < thr;
    *edge = *edge || a != b;
    double d = a && b ? 0.5 * (zs[hi] - zs[lo]) : a ? zs[i] - zs[lo] : b ? zs[hi] - zs[i] : 0;
    return d / metres_per_px;
}

/* Lights the particles as one body: the depth they left is smoothed over about a dot's
 * width and its slope gives a surface normal, so a ball reads as a ball and not a flat disc;
 * silhouettes get a darker rim. The light comes from the upper left, and the factor is
 * relative to a surface facing the eye, which keeps the colour map's colour exactly (a lone
 * dot's centre pixel does): tilted toward the light is brighter, away darker. */
static int preview_shade_particles(Canvas *c, const PreviewView *v, double dot_px)
{
    static const double light[3] = { -0.45, 0.65, -1.0 }; /* camera coordinates, to the light */
    double ln = sqrt(preview_dot(light, light));
    size_t npx = (size_t)c->w * c->h;
    float *tmp = malloc(npx * sizeof *tmp), *zs = malloc(npx * sizeof *zs);
    if (!tmp || !zs) {
        free(tmp);
        free(zs);
        return -1;
    }
    int b = (int)fmin(fmax(lround(1.5 * dot_px), 1), 8);
    double thr = 6 * v->dot_world;
    preview_blur_pass(c->z, tmp, c->w, c->h, b, 1, thr);
    preview_blur_pass(tmp, zs, c->w, c->h, b, 0, thr);
    for (int y = 0; y < c->h; y++) {
        for (int x = 0; x < v->view_w; x++) {
            size_t i = (size_t)y * c->w + x;
            if (!isfinite(zs[i]))
                continue;
            double m = zs[i] / v->scale; /* metres one pixel spans at this depth */
            bool edge = false;
            double gx = preview_slope(zs, i, i - 1, i + 1, x > 0, x + 1 < c->w, thr, m, &edge);
            double gy = preview_slope(zs, i, i - c->w, i + c->w, y > 0, y + 1 < c->h, thr, m,
                                      &edge);
            /* Normal (gx, -gy, -1) unnormalised: pixel rows run down, camera y up. */
            double n_dot_l = (gx * light[0] - gy * light[1] - light[2]) /
                             (ln * sqrt(1 + gx * gx + gy * gy));
            double f = 1 + 0.9 * (n_dot_l + light[2] / ln);
            f = fmin(fmax(f, 0.35), 1.3) * (edge ? 0.75 : 1.0);
            unsigned char *p = c->rgb + 3 * i;
            preview_scale_rgb(p, p, f);
        }
    }
    free(tmp);
    free(zs);
    return 0;
}

static int preview_draw_particles(Canvas *c, const PreviewView *v, const Vec3 *pos,
                                  const Vec3 *vel, size_t n, double speed_max)
{
    DepthOrder d;
    if (preview_order_alloc(&d, v, pos, NULL, n) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        double x, y, depth;
        /* Far outside the picture is skipped, which also keeps the int conversions defined. */
        if (preview_item_at(&d, i, &x, &y, &depth) && x > -16 && y > -16 && x < c->w + 16 &&
            y < c->h + 16)
            d.order[d.m++] = (uint32_t)i;
    }
    preview_sort_far_first(&d);
    double r_sum = 0;
    for (size_t k = 0; k < d.m; k++) {
        size_t i = d.order[k];
        double x, y, depth;
        preview_item_at(&d, i, &x, &y, &depth); /* as when listed: in view */
        Rgb col;
        preview_viridis(preview_speed(vel, i) / speed_max, col);
        double r = fmin(fmax(v->scale * v->dot_world / depth, 0.75), 8.0);
        preview_dot_at(c, v->view_w, (int)floor(x), (int)floor(y), r, col, depth);
        r_sum += r;
    }
    size_t m = d.m;
    preview_order_free(&d);
    return preview_shade_particles(c, v, m ? r_sum / (double)m : 1);
}

/* ---- the frame: solids --------------------------------------------------------------- */

/* A solid to draw: a box [lo, hi], or a sphere (centre, radius) when sphere is set. */
typedef struct {
    bool sphere;
    double lo[3], hi[3];
    double centre[3], radius;
} Solid;

/* Nearest hit of the ray with the solid: its t and the surface normal there. */
static bool preview_hit_solid(const Solid *s, const double o[3], const double d[3], double *t,
                              double nrm[3])
{
    if (!s->sphere) {
        double tn, tf;
        int an, af;
        if (!preview_ray_box(o, d, s->lo, s->hi, &tn, &tf, &an, &af) || tn <= 0)
            return false;
        *t = tn;
        nrm[0] = nrm[1] = nrm[2] = 0;
        nrm[an] = d[an] > 0 ? -1 : 1;
        return true;
    }
    double oc[3] = { o[0] - s->centre[0], o[1] - s->centre[1], o[2] - s->centre[2] };
    double a = preview_dot(d, d), b = preview_dot(oc, d);
    double disc = b * b - a * (preview_dot(oc, oc) - s->radius * s->radius);
    if (disc < 0)
        return false;
    *t = (-b - sqrt(disc)) / a;
    if (*t <= 0)
        return false;
    for (int k = 0; k < 3; k++)
        nrm[k] = (o[k] + *t * d[k] - s->centre[k]) / s->radius;
    return true;
}

/* The pixel rectangle a solid's bounding box projects into, clipped to the view. */
static void preview_solid_rect(const PreviewView *v, const Solid *s, int r[4])
{
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    for (int corner = 0; corner < 8; corner++) {
        Vec3 p = { (float)(corner & 1 ? s->hi[0] : s->lo[0]),
                   (float)(corner & 2 ? s->hi[1] : s->lo[1]),
                   (float)(corner & 4 ? s->hi[2] : s->lo[2]) };
        double x, y, depth;
        if (!preview_project(v, p, &x, &y, &depth)) {
            x0 = y0 = -INFINITY; /* a corner behind the camera: test the whole view */
            x1 = y1 = INFINITY;
            break;
        }
        x0 = fmin(x0, x);
        y0 = fmin(y0, y);
        x1 = fmax(x1, x);
        y1 = fmax(y1, y);
    }
    r[0] = x0 < 0 ? 0 : (int)floor(x0);
    r[1] = y0 < 0 ? 0 : (int)floor(y0);
    r[2] = x1 >= v->view_w ? v->view_w : (int)ceil(x1) + 1;
    r[3] = y1 >= v->height ? v->height : (int)ceil(y1) + 1;
}

/* Records, per pixel, the nearest solid surface (depth and a light factor). */
static void preview_trace_solid(const PreviewView *v, const Solid *s, float *sz, float *shade)
{
    static const double light[3] = { -0.35, 0.85, 0.4 }; /* from the upper left, front */
    int r[4];
    preview_solid_rect(v, s, r);
    for (int y = r[1]; y < r[3]; y++) {
        for (int x = r[0]; x < r[2]; x++) {
            double d[3], t, nrm[3];
            preview_ray(v, x, y, d);
            size_t i = (size_t)y * v->width + x;
            if (!preview_hit_solid(s, v->eye, d, &t, nrm) || t >= sz[i])
                continue;
            double l = preview_dot(nrm, light) / sqrt(preview_dot(light, light));
            sz[i] = (float)t;
            shade[i] = (float)(0.62 + 0.38 * (l > 0 ? l : 0));
        }
    }
}

/* The nearest solid tints a pixel unless a particle there is in front of it: particles
 * behind a solid show through, dimmed. */
static void preview_tint_solids(Canvas *c, const PreviewView *v, const float *sz,
                                const float *shade)
{
    for (int y = 0; y < v->height; y++) {
        for (int x = 0; x < v->view_w; x++) {
            size_t i = (size_t)y * c->w + x;
            if (!(sz[i] < c->z[i]))
                continue;
            Rgb col;
            preview_scale_rgb(col, preview_solid, shade[i]);
            preview_blend(c, x, y, col, 0.6);
        }
    }
}

/* A straight edge between world points, hidden where a nearer particle covers it. */
static void preview_line(Canvas *c, const PreviewView *v, const double a[3], const double b[3],
                         const Rgb col)
{
    Vec3 pa = { (float)a[0], (float)a[1], (float)a[2] }, pb = { (float)b[0], (float)b[1],
                                                                  (float)b[2] };
    double xa, ya, da, xb, yb, db;
    if (!preview_project(v, pa, &xa, &ya, &da) || !preview_project(v, pb, &xb, &yb, &db))
        return;
    int steps = (int)ceil(2 * fmax(fabs(xb - xa), fabs(yb - ya))) + 1;
    for (int s = 0; s <= steps; s++) {
        double f = (double)s / steps, w[3], cam[3];
        for (int k = 0; k < 3; k++)
            w[k] = a[k] + f * (b[k] - a[k]);
        preview_to_camera(v, w, cam);
        double x = v->cx + v->scale * cam[0] / cam[2], y = v->cy - v->scale * cam[1] / cam[2];
        if (x < 0 || y < 0 || x >= v->view_w || y >= v->height)
            continue;
        size_t i = (size_t)floor(y) * c->w + (size_t)floor(x);
        if (cam[2] <= c->z[i] * 1.0001)
            preview_put(c, (int)floor(x), (int)floor(y), col);
    }
}

static void preview_box_edges(Canvas *c, const PreviewView *v, const double lo[3],
                              const double hi[3], const Rgb col)
{
    for (int corner = 0; corner < 8; corner++) {
        for (int axis = 0; axis < 3; axis++) {
            if (corner & (1 << axis))
                continue; /* each edge once, from its low end */
            double a[3], b[3];
            for (int k = 0; k < 3; k++)
                a[k] = b[k] = corner & (1 << k) ? hi[k] : lo[k];
            b[axis] = hi[axis];
            preview_line(c, v, a, b, col);
        }
    }
}

/* The scene's shapes, or else the grid's SOLID cells inside the outer wall, each row of
 * solid cells along x one box. Returns the count, or -1 when out of memory. */
static int preview_collect_solids(const MacGrid *g, const Shape *shapes, int nshapes,
                                  Solid **out)
{
    *out = NULL;
    if (shapes && nshapes > 0) {
        Solid *s = calloc((size_t)nshapes, sizeof *s);
        if (!s)
            return -1;
        for (int i = 0; i < nshapes; i++) {
            const Shape *sh = &shapes[i];
            s[i].sphere = sh->kind == SHAPE_SPHERE;
            for (int k = 0; k < 3; k++) {
                s[i].lo[k] = vec3_get(sh->min, k);
                s[i].hi[k] = vec3_get(sh->max, k);
                s[i].centre[k] = vec3_get(sh->center, k);
            }
            s[i].radius = sh->radius;
        }
        *out = s;
        return nshapes;
    }
    size_t cap = 0, n = 0;
    Solid *s = NULL;
    for (int k = 1; k < g->nz - 1; k++) {
        for (int j = 1; j < g->ny - 1; j++) {
            for (int i = 1; i < g->nx - 1; i++) {
                if (grid_cell_type(g, i, j, k) != CELL_SOLID)
                    continue;
                int i1 = i;
                while (i1 + 1 < g->nx - 1 && grid_cell_type(g, i1 + 1, j, k) == CELL_SOLID)
                    i1++;
                if (n == cap) {
                    cap = cap ? 2 * cap : 64;
                    Solid *t = realloc(s, cap * sizeof *s);
                    if (!t) {
                        free(s);
                        return -1;
                    }
                    s = t;
                }
                s[n++] = (Solid){ false, { i * g->dx, j * g->dx, k * g->dx },
                                  { (i1 + 1) * g->dx, (j + 1) * g->dx, (k + 1) * g->dx },
                                  { 0, 0, 0 }, 0 };
                i = i1;
            }
        }
    }
    *out = s;
    return n > INT32_MAX ? -1 : (int)n;
}

static int preview_draw_solids(Canvas *c, const PreviewView *v, const MacGrid *g,
                               const Shape *shapes, int nshapes)
{
    Solid *s;
    int n = preview_collect_solids(g, shapes, nshapes, &s);
    if (n <= 0) {
        free(s);
        return n;
    }
    size_t npx = (size_t)c->w * c->h;
    float *sz = malloc(npx * sizeof *sz), *shade = malloc(npx * sizeof *shade);
    if (!sz || !shade) {
        free(s);
        free(sz);
        free(shade);
        return -1;
    }
    for (size_t i = 0; i < npx; i++)
        sz[i] = INFINITY;
    for (int i = 0; i < n; i++)
        preview_trace_solid(v, &s[i], sz, shade);
    preview_tint_solids(c, v, sz, shade);
    /* Outlines only for the scene's boxes: cell rows would draw a mesh of lines. */
    for (int i = 0; shapes && i < n; i++)
        if (!s[i].sphere)
            preview_box_edges(c, v, s[i].lo, s[i].hi, preview_solid_edge);
    free(s);
    free(sz);
    free(shade);
    return 0;
}

/* ---- the frame: legend --------------------------------------------------------------- */

/* A tick step of 1, 2, 2.5 or 5 x 10^k giving about `want` intervals over range. */
static double preview_nice_step(double range, int want)
{
    double raw = range / want, p = pow(10, floor(log10(raw))), m = raw / p;
    return p * (m < 1.5 ? 1 : m < 2.25 ? 2 : m < 3.5 ? 2.5 : m < 7.5 ? 5 : 10);
}

/* Enough decimals to print every multiple of step exactly (2.5 needs one). */
static int preview_decimals(double step)
{
    int d = 0;
    while (d < 6 && fabs(step * pow(10, d) - round(step * pow(10, d))) > 1e-6 * pow(10, d))
        d++;
    return d;
}

float preview_speed_max(const Vec3 *vel, size_t n)
{
    double top = 0;
    for (size_t i = 0; i < n; i++)
        top = fmax(top, preview_speed(vel, i));
    if (!(top > 0.1))
        return 0.1f;
    double p = pow(10, floor(log10(top))), m = top / p;
    return (float)(p * (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10));
}

static void preview_draw_legend(Canvas *c, const PreviewView *v, double speed_max)
{
    int ts = v->text_scale, lh = 10 * ts;
    int tx = v->view_w + 4 * ts, ty = v->bar_y0 - 2 * lh - 2 * ts;
    preview_text(c, tx, ty, "speed", ts, preview_ink);
    preview_text(c, tx, ty + lh, "(m/s)", ts, preview_ink);
    int span = v->bar_y1 - 1 - v->bar_y0;
    for (int y = v->bar_y0; y < v->bar_y1; y++) {
        Rgb col;
        preview_viridis((double)(v->bar_y1 - 1 - y) / span, col);
        preview_fill(c, v->bar_x0, y, v->bar_x1, y + 1, col);
    }
    preview_frame_rect(c, v->bar_x0, v->bar_y0, v->bar_x1, v->bar_y1, preview_edge);
    double step = preview_nice_step(speed_max, 5);
    int decimals = preview_decimals(step);
    for (int k = 0; k * step <= speed_max * (1 + 1e-9); k++) {
        int y = v->bar_y1 - 1 - (int)lround(k * step / speed_max * span);
        preview_fill(c, v->bar_x1, y, v->bar_x1 + 3 * ts, y + ts, preview_edge);
        char label[32];
        preview_format(label, sizeof label, "%.*f", decimals, k * step);
        preview_text(c, v->bar_x1 + 5 * ts, y - 3 * ts, label, ts, preview_ink);
    }
}

static void preview_draw_count(Canvas *c, const PreviewView *v, size_t n)
{
    char label[48];
    preview_format(label, sizeof label, "%zu particle%s", n, n == 1 ? "" : "s");
    int ts = v->text_scale;
    preview_text(c, 6 * ts, 6 * ts, label, ts, preview_edge);
}

/* ---- the frame ----------------------------------------------------------------------- */

static int preview_frame_check(const char *path, const Vec3 *pos, size_t n, const MacGrid *g,
                               const Shape *solids, int nsolids, int width_px, char *err,
                               size_t errlen)
{
    if (!g || g->nx < 1 || g->ny < 1 || g->nz < 1 || !(g->dx > 0) || !isfinite(g->dx)) {
        fileerr_set(err, errlen, path, "no grid, or a grid of no size");
        return -1;
    }
    if (width_px < PREVIEW_MIN_WIDTH || width_px > PREVIEW_MAX_SIDE) {
        fileerr_set(err, errlen, path, "image width %d px is outside %d..%d", width_px,
                       PREVIEW_MIN_WIDTH, PREVIEW_MAX_SIDE);
        return -1;
    }
    if ((n > 0 && !pos) || (nsolids > 0 && !solids) || nsolids < 0) {
        fileerr_set(err, errlen, path, "a count was given without its array");
        return -1;
    }
    return 0;
}

const unsigned char preview_diffuse_colours[3][3] = {
    { 255, 255, 255 }, { 214, 219, 224 }, { 150, 200, 255 } };

/* Diffuse particles as dots half the liquid's size, far first, each pixel only where it is
 * nearer than what is drawn there (the liquid hides the bubbles inside it). */
static int preview_draw_diffuse(Canvas *c, const PreviewView *v, const PreviewPoints *d)
{
    DepthOrder o;
    if (preview_order_alloc(&o, v, d->pos, NULL, d->n) != 0)
        return -1;
    for (size_t i = 0; i < d->n; i++) {
        double x, y, depth;
        if (preview_item_at(&o, i, &x, &y, &depth) && x >= 0 && y >= 0 && x < v->view_w &&
            y < c->h)
            o.order[o.m++] = (uint32_t)i;
    }
    preview_sort_far_first(&o);
    for (size_t k = 0; k < o.m; k++) {
        size_t i = o.order[k];
        double px_x, px_y, depth;
        preview_item_at(&o, i, &px_x, &px_y, &depth); /* as when listed: in view */
        double r = fmin(fmax(0.5 * v->scale * v->dot_world / depth, 0.5), 4.0);
        int R = (int)ceil(r), px = (int)floor(px_x), py = (int)floor(px_y);
        uint8_t type = d->type[i] < 3 ? d->type[i] : 0;
        for (int dy = -R; dy <= R; dy++)
            for (int dx = -R; dx <= R; dx++) {
                int x = px + dx, y = py + dy;
                if (dx * dx + dy * dy > r * r || x < 0 || y < 0 || x >= v->view_w || y >= c->h)
                    continue;
                float *z = &c->z[(size_t)y * c->w + x];
                if (!(*z > (float)depth))    /* drawn in front already */
                    continue;
                preview_put(c, x, y, preview_diffuse_colours[type]);
                *z = (float)depth;
            }
    }
    preview_order_free(&o);
    return 0;
}

/* The bricks on the front of the liquid as squares of their grey, far first, over what is
 * drawn: a person who asked for bricks sees where they are and how full (a fuller brick is
 * lighter), and the particles still show through them. A brick whose centre pixel shows
 * liquid more than half a brick nearer is hidden, so the layers behind do not pile up. */
static int preview_draw_bricks(Canvas *c, const PreviewView *v, const PreviewBricks *b)
{
    DepthOrder o;
    if (preview_order_alloc(&o, v, NULL, b->centre, b->n) != 0)
        return -1;
    for (size_t i = 0; i < b->n; i++) {
        double x, y, depth;
        if (preview_item_at(&o, i, &x, &y, &depth) && x > -64 && y > -64 && x < c->w + 64 &&
            y < c->h + 64)
            o.order[o.m++] = (uint32_t)i;
    }
    preview_sort_far_first(&o);
    for (size_t k = 0; k < o.m; k++) {
        size_t i = o.order[k];
        double cx, cy, depth;
        preview_item_at(&o, i, &cx, &cy, &depth); /* in view, as listed */
        const Rgb grey = { b->grey[i], b->grey[i], b->grey[i] };
        Rgb edge;
        preview_scale_rgb(edge, grey, PREVIEW_BRICK_EDGE);
        /* half the brick's width as it looks at its depth, at least a pixel */
        int r = (int)fmax(lround(0.5 * v->scale * b->size[0] / depth), 1);
        int px = (int)floor(cx), py = (int)floor(cy);
        if (px >= 0 && py >= 0 && px < v->view_w && py < c->h &&
            c->z[(size_t)py * c->w + px] < depth - 0.5 * b->size[2])
            continue;
        for (int y = py - r; y <= py + r; y++)
            for (int x = px - r; x <= px + r && x < v->view_w; x++) {
                bool rim = y == py - r || y == py + r || x == px - r || x == px + r;
                if (rim)
                    preview_put(c, x, y, edge);
                else
                    preview_blend(c, x, y, grey, PREVIEW_BRICK_ALPHA);
            }
    }
    preview_order_free(&o);
    return 0;
}

const unsigned char preview_water[3] = { 90, 160, 225 };

/* One triangle into the surface's own depth and light buffers (nearest wins; a tie keeps
 * the earlier triangle, so the picture does not depend on anything but the mesh's order). */
static void preview_raster_tri(const PreviewView *v, int w, int h, const double p[3][3],
                               double light, float *zbuf, float *lit)
{
    double x0 = fmin(p[0][0], fmin(p[1][0], p[2][0])), x1 = fmax(p[0][0], fmax(p[1][0], p[2][0]));
    double y0 = fmin(p[0][1], fmin(p[1][1], p[2][1])), y1 = fmax(p[0][1], fmax(p[1][1], p[2][1]));
    double area = (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[2][0] - p[0][0]) * (p[1][1] - p[0][1]);
    if (!(fabs(area) > 1e-12) || x1 < 0 || y1 < 0 || x0 >= v->view_w || y0 >= h)
        return;
    int xa = (int)fmax(floor(x0), 0), xb = (int)fmin(ceil(x1), v->view_w - 1);
    int ya = (int)fmax(floor(y0), 0), yb = (int)fmin(ceil(y1), h - 1);
    for (int y = ya; y <= yb; y++)
        for (int x = xa; x <= xb; x++) {
            double sx = x + 0.5, sy = y + 0.5, b[3];   /* barycentric at the pixel's centre */
            for (int e = 0; e < 3; e++) {
                const double *a = p[(e + 1) % 3], *c = p[(e + 2) % 3];
                b[e] = ((c[0] - a[0]) * (sy - a[1]) - (sx - a[0]) * (c[1] - a[1])) / area;
            }
            if (b[0] < 0 || b[1] < 0 || b[2] < 0)
                continue;
            float z = (float)(b[0] * p[0][2] + b[1] * p[1][2] + b[2] * p[2][2]);
            size_t i = (size_t)y * w + x;
            if (z < zbuf[i]) {
                zbuf[i] = z;
                lit[i] = (float)light;
            }
        }
}

/* The surface, translucent water over what lies behind it: its nearest triangle per pixel,
 * lit by how much it faces the light (flat per triangle), blended where no particle is more
 * than near in front of it (the particles just under the surface are in the water; spray
 * flying in front of it is not). */
static int preview_draw_surface(Canvas *c, const PreviewView *v, const PreviewMesh *m,
                                double near)
{
    static const double light[3] = { -0.45, 0.65, -1.0 }; /* camera coordinates, to the light */
    size_t npx = (size_t)c->w * c->h;
    float *zbuf = malloc(npx * sizeof *zbuf), *lit = malloc(npx * sizeof *lit);
    if (!zbuf || !lit) {
        free(zbuf);
        free(lit);
        return -1;
    }
    for (size_t i = 0; i < npx; i++)
        zbuf[i] = INFINITY;
    double ln = sqrt(preview_dot(light, light));
    for (size_t t = 0; t < m->ntris; t++) {
        double p[3][3], cam[3][3];
        bool ok = true;
        for (int k = 0; k < 3 && ok; k++) {
            uint32_t q = m->tri[3 * t + k];
            ok = q < m->nverts;
            if (!ok)
                break;
            Vec3 x = { m->xyz[3 * q], m->xyz[3 * q + 1], m->xyz[3 * q + 2] };
            const double w[3] = { x.x, x.y, x.z };
            ok = preview_project(v, x, &p[k][0], &p[k][1], &p[k][2]);
            preview_to_camera(v, w, cam[k]);
        }
        if (!ok)
            continue;
        double e1[3], e2[3], nrm[3];
        for (int d = 0; d < 3; d++) {
            e1[d] = cam[1][d] - cam[0][d];
            e2[d] = cam[2][d] - cam[0][d];
        }
        preview_cross(nrm, e1, e2);
        double nn = sqrt(preview_dot(nrm, nrm));
        /* either side lit alike: a person sees the water's shape, inside or out */
        double f = nn > 0 ? fabs(preview_dot(nrm, light)) / (nn * ln) : 0.0;
        preview_raster_tri(v, c->w, c->h, p, 0.6 + 0.5 * f, zbuf, lit);
    }
    for (int y = 0; y < c->h; y++)
        for (int x = 0; x < v->view_w; x++) {
            size_t i = (size_t)y * c->w + x;
            if (!(zbuf[i] < c->z[i] + near))   /* nothing there, or a particle well in front */
                continue;
            Rgb col;
            preview_scale_rgb(col, preview_water, lit[i]);
            preview_blend(c, x, y, col, PREVIEW_WATER_ALPHA);
        }
    free(zbuf);
    free(lit);
    return 0;
}

int preview_frame_png(const char *path, const Vec3 *pos, const Vec3 *vel, size_t n,
                      const MacGrid *g, const Shape *solids, int nsolids, int width_px,
                      float speed_max, char *err, size_t errlen)
{
    return preview_frame_png_with(path, pos, vel, n, g, solids, nsolids, width_px, speed_max,
                                  NULL, err, errlen);
}

int preview_frame_png_with(const char *path, const Vec3 *pos, const Vec3 *vel, size_t n,
                           const MacGrid *g, const Shape *solids, int nsolids, int width_px,
                           float speed_max, const PreviewPoints *diffuse, char *err,
                           size_t errlen)
{
    const PreviewExtras x = { diffuse, NULL, NULL };
    return preview_frame_png_extra(path, pos, vel, n, g, solids, nsolids, width_px, speed_max,
                                   &x, err, errlen);
}

int preview_frame_png_extra(const char *path, const Vec3 *pos, const Vec3 *vel, size_t n,
                            const MacGrid *g, const Shape *solids, int nsolids, int width_px,
                            float speed_max, const PreviewExtras *x, char *err, size_t errlen)
{
    const PreviewExtras none = { NULL, NULL, NULL };
    x = x ? x : &none;
    PreviewView v;
    Canvas c;
    if (preview_frame_check(path, pos, n, g, solids, nsolids, width_px, err, errlen) != 0)
        return -1;
    preview_frame_view(&v, g, width_px);
    if (preview_canvas_new(&c, v.width, v.height) != 0) {
        fileerr_set(err, errlen, path, "out of memory for a %d x %d image", v.width,
                       v.height);
        return -1;
    }
    double top = speed_max > 0 && isfinite(speed_max) ? speed_max : preview_speed_max(vel, n);
    const double lo[3] = { 0, 0, 0 }, hi[3] = { v.domain.x, v.domain.y, v.domain.z };
    preview_draw_room(&c, &v, g);
    int rc = preview_draw_particles(&c, &v, pos, vel, n, top);
    if (rc == 0 && x->diffuse)
        rc = preview_draw_diffuse(&c, &v, x->diffuse);
    if (rc == 0 && x->bricks)
        rc = preview_draw_bricks(&c, &v, x->bricks);
    if (rc == 0 && x->surface)
        rc = preview_draw_surface(&c, &v, x->surface, g->dx);
    if (rc == 0)
        rc = preview_draw_solids(&c, &v, g, solids, nsolids);
    if (rc != 0) {
        fileerr_set(err, errlen, path, "out of memory for %zu particles", n);
        preview_canvas_free(&c);
        return -1;
    }
    preview_box_edges(&c, &v, lo, hi, preview_edge);
    preview_draw_legend(&c, &v, top);
    preview_draw_count(&c, &v, n);
    rc = preview_save(path, &c, err, errlen);
    preview_canvas_free(&c);
    return rc;
}

/* ---- the slice ----------------------------------------------------------------------- */

/* Which grid axes run across (h) and down (vert) a panel, and whether down is +vert. */
static void preview_slice_axes(int axis, int *h, int *vert, bool *down)
{
    *h = axis == 0 ? 2 : 0;
    *vert = axis == 1 ? 2 : 1;
    *down = axis == 1; /* seen from above, z comes toward the viewer: down the page */
}

int preview_slice_view(PreviewSliceView *v, const MacGrid *g, int axis, int index, int cell_px)
{
    memset(v, 0, sizeof *v);
    if (!g || axis < 0 || axis > 2 || cell_px < 1 || cell_px > 64)
        return -1;
    const int n[3] = { g->nx, g->ny, g->nz };
    if (index < 0 || index >= n[axis])
        return -1;
    int h, vert;
    bool down;
    preview_slice_axes(axis, &h, &vert, &down);
    v->axis = axis;
    v->index = index;
    v->cols = n[h];
    v->rows = n[vert];
    v->cell_px = cell_px;
    int cells_w = v->cols * cell_px;
    v->text_scale = cells_w >= 240 ? 2 : 1;
    int ts = v->text_scale, lh = 10 * ts, m = 8 * ts;
    /* A panel is as wide as its cells, or as its widest label ("divergence (1/s)") and
     * the swatch legend need. */
    int panel_w = cells_w > 132 * ts ? cells_w : 132 * ts;
    for (int p = 0; p < 3; p++)
        v->panel_x[p] = m + p * (panel_w + 2 * m);
    v->bar_w = panel_w;
    v->cells_y = m + 2 * lh + m / 2;
    v->bar_y0 = v->cells_y + v->rows * cell_px + m;
    v->bar_y1 = v->bar_y0 + 8 * ts;
    v->width = 3 * panel_w + 6 * m;
    v->height = v->bar_y1 + 3 * ts + 2 * lh + m;
    if (v->width > PREVIEW_MAX_SIDE || v->height > PREVIEW_MAX_SIDE)
        return -1;
    return 0;
}

/* Cell (col, row) of the panel from grid cell (i, j, k). */
static void preview_slice_cell(const PreviewSliceView *v, int i, int j, int k, int *col, int *row)
{
    int h, vert;
    bool down;
    preview_slice_axes(v->axis, &h, &vert, &down);
    const int ijk[3] = { i, j, k };
    *col = ijk[h];
    *row = down ? ijk[vert] : v->rows - 1 - ijk[vert];
}

void preview_slice_pixel(const PreviewSliceView *v, int panel, int i, int j, int k, int *x,
                         int *y)
{
    int col, row;
    preview_slice_cell(v, i, j, k, &col, &row);
    *x = v->panel_x[panel] + col * v->cell_px + v->cell_px / 2;
    *y = v->cells_y + row * v->cell_px + v->cell_px / 2;
}

/* The cell of the slice at panel position (col, row). */
static void preview_slice_ijk(const PreviewSliceView *v, int col, int row, int ijk[3])
{
    int h, vert;
    bool down;
    preview_slice_axes(v->axis, &h, &vert, &down);
    ijk[v->axis] = v->index;
    ijk[h] = col;
    ijk[vert] = down ? row : v->rows - 1 - row;
}

/* Fills one cell's square; cells of 6 px and more get a faint line on their low edges so
 * they can be counted. AIR in a value panel is hatched. */
static void preview_slice_square(Canvas *c, const PreviewSliceView *v, int panel, int col,
                                 int row, const Rgb fill, bool hatch)
{
    int k = v->cell_px;
    int x0 = v->panel_x[panel] + col * k, y0 = v->cells_y + row * k;
    for (int y = y0; y < y0 + k; y++) {
        for (int x = x0; x < x0 + k; x++) {
            Rgb px;
            memcpy(px, fill, 3);
            if (hatch && (x + y) % 6 == 0)
                memcpy(px, preview_hatch, 3);
            if (k >= 6 && (x == x0 + k - 1 || y == y0 + k - 1))
                preview_scale_rgb(px, px, 0.88);
            preview_put(c, x, y, px);
        }
    }
}

/* Largest |value| over FLUID cells of the slice; the colour range is +-A. */
static double preview_slice_range(const PreviewSliceView *v, const MacGrid *g, const float *f,
                                  double *mn, double *mx)
{
    double a = 0;
    *mn = INFINITY;
    *mx = -INFINITY;
    for (int row = 0; row < v->rows; row++) {
        for (int col = 0; col < v->cols; col++) {
            int ijk[3];
            preview_slice_ijk(v, col, row, ijk);
            if (grid_cell_type(g, ijk[0], ijk[1], ijk[2]) != CELL_FLUID)
                continue;
            double x = f[grid_cell_index(g, ijk[0], ijk[1], ijk[2])];
            if (!isfinite(x))
                continue;
            a = fmax(a, fabs(x));
            *mn = fmin(*mn, x);
            *mx = fmax(*mx, x);
        }
    }
    return a;
}

/* A cell's colour: its type in the types panel (f NULL), else its value; NaN is dark. */
static void preview_slice_fill(Rgb fill, const MacGrid *g, const int ijk[3], int type,
                               const float *f, double range)
{
    if (type == CELL_SOLID) {
        memcpy(fill, preview_grey, 3);
    } else if (type == CELL_AIR) {
        memcpy(fill, preview_white, 3);
    } else if (!f) {
        memcpy(fill, preview_fluid, 3);
    } else {
        double x = f[grid_cell_index(g, ijk[0], ijk[1], ijk[2])];
        if (isfinite(x))
            preview_diverging(x / range, fill);
        else
            memcpy(fill, preview_solid_edge, 3);
    }
}

static void preview_slice_panel(Canvas *c, const PreviewSliceView *v, const MacGrid *g,
                                int panel, const float *f, double range)
{
    for (int row = 0; row < v->rows; row++) {
        for (int col = 0; col < v->cols; col++) {
            int ijk[3];
            preview_slice_ijk(v, col, row, ijk);
            int type = grid_cell_type(g, ijk[0], ijk[1], ijk[2]);
            Rgb fill;
            preview_slice_fill(fill, g, ijk, type, f, range);
            preview_slice_square(c, v, panel, col, row, fill, f && type == CELL_AIR);
        }
    }
    int x0 = v->panel_x[panel];
    preview_frame_rect(c, x0, v->cells_y, x0 + v->cols * v->cell_px,
                       v->cells_y + v->rows * v->cell_px, preview_edge);
}

static void preview_slice_bar(Canvas *c, const PreviewSliceView *v, int panel, double range,
                              double mn, double mx)
{
    int ts = v->text_scale, x0 = v->panel_x[panel], lh = 10 * ts;
    for (int x = 0; x < v->bar_w; x++) {
        Rgb col;
        preview_diverging(2.0 * x / (v->bar_w - 1) - 1, col);
        preview_fill(c, x0 + x, v->bar_y0, x0 + x + 1, v->bar_y1, col);
    }
    preview_frame_rect(c, x0, v->bar_y0, x0 + v->bar_w, v->bar_y1, preview_edge);
    char lo[32], hi[32], line[80];
    preview_format(lo, sizeof lo, "%.3g", -range);
    preview_format(hi, sizeof hi, "+%.3g", range);
    int y = v->bar_y1 + 3 * ts;
    preview_text(c, x0, y, lo, ts, preview_ink);
    preview_text(c, x0 + v->bar_w / 2 - 2 * ts, y, "0", ts, preview_ink);
    preview_text(c, x0 + v->bar_w - preview_text_width(hi, ts), y, hi, ts, preview_ink);
    if (mn <= mx)
        preview_format(line, sizeof line, "min %.3g  max %.3g", mn, mx);
    else
        preview_format(line, sizeof line, "no fluid cells");
    preview_text(c, x0, y + lh, line, ts, preview_ink);
}

static void preview_slice_swatches(Canvas *c, const PreviewSliceView *v)
{
    static const char *const names[3] = { "fluid", "air", "solid" };
    const unsigned char *fills[3] = { preview_fluid, preview_white, preview_grey };
    int ts = v->text_scale, x = v->panel_x[0], y = v->bar_y0;
    for (int s = 0; s < 3; s++) {
        preview_fill(c, x, y, x + 7 * ts, y + 7 * ts, fills[s]);
        preview_frame_rect(c, x, y, x + 7 * ts, y + 7 * ts, preview_edge);
        preview_text(c, x + 10 * ts, y, names[s], ts, preview_ink);
        x += 10 * ts + preview_text_width(names[s], ts) + 8 * ts;
    }
}

static void preview_slice_titles(Canvas *c, const PreviewSliceView *v, const MacGrid *g)
{
    const int n[3] = { g->nx, g->ny, g->nz };
    static const char *const axes[3] = { "z right, y up", "x right, z down", "x right, y up" };
    static const char *const titles[3] = { "cell type", "pressure (Pa)", "divergence (1/s)" };
    int ts = v->text_scale, lh = 10 * ts;
    char caption[96];
    preview_format(caption, sizeof caption, "slice %c = %d of %d   (%s)", "xyz"[v->axis],
                   v->index, n[v->axis], axes[v->axis]);
    preview_text(c, v->panel_x[0], 8 * ts, caption, ts, preview_ink);
    for (int p = 0; p < 3; p++)
        preview_text(c, v->panel_x[p], 8 * ts + lh + 4 * ts, titles[p], ts, preview_ink);
}

int preview_slice_png(const char *path, const MacGrid *g, const float *p, const float *div,
                      int axis, int index, int cell_px, char *err, size_t errlen)
{
    PreviewSliceView v;
    if (!g || !p || !div) {
        fileerr_set(err, errlen, path, "slice needs a grid, pressure and divergence");
        return -1;
    }
    if (preview_slice_view(&v, g, axis, index, cell_px) != 0) {
        fileerr_set(err, errlen, path,
                       "slice axis %d index %d at %d px per cell is out of range for a "
                       "%d x %d x %d grid", axis, index, cell_px, g->nx, g->ny, g->nz);
        return -1;
    }
    Canvas c;
    if (preview_canvas_new(&c, v.width, v.height) != 0) {
        fileerr_set(err, errlen, path, "out of memory for a %d x %d image", v.width, v.height);
        return -1;
    }
    preview_slice_titles(&c, &v, g);
    preview_slice_panel(&c, &v, g, PREVIEW_PANEL_TYPES, NULL, 1);
    preview_slice_swatches(&c, &v);
    const float *fields[2] = { p, div };
    for (int f = 0; f < 2; f++) {
        double mn, mx, range = preview_slice_range(&v, g, fields[f], &mn, &mx);
        range = range > 0 ? range : 1;
        preview_slice_panel(&c, &v, g, PREVIEW_PANEL_PRESSURE + f, fields[f], range);
        preview_slice_bar(&c, &v, PREVIEW_PANEL_PRESSURE + f, range, mn, mx);
    }
    int rc = preview_save(path, &c, err, errlen);
    preview_canvas_free(&c);
    return rc;
}
