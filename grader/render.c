/* render.c — side-view PNGs of particle frames: a density image and a difference image.
 * flipkit grader/: one pixel per particle position, no splatting, so what the picture shows
 * is exactly which pixels the particles fall in. libpng's simplified API writes the file. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "render.h"

#include <math.h>
#include <png.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileerr.h"
#include "report.h"

#define RENDER_MIN_WIDTH 8
#define RENDER_MAX_SIDE 4096

typedef unsigned char Rgb[3];

static const Rgb render_white = { 255, 255, 255 };
static const Rgb render_frame_grey = { 170, 170, 170 };
static const Rgb render_dense = { 8, 48, 140 };      /* the darkest blue, at the densest pixel */
static const Rgb render_student = { 215, 38, 38 };   /* red: only the student */
static const Rgb render_reference = { 33, 84, 200 }; /* blue: only the reference */
static const Rgb render_both = { 120, 120, 120 };    /* grey: both */

/* Inner (domain) size w x h, and the whole image with its one-pixel frame. */
typedef struct {
    int w, h;
    int width, height;
    Vec3 dmax;
} RenderGeom;

static int render_geometry(RenderGeom *g, Vec3 dmax, int width_px, const char *path, char *err,
                           size_t errlen)
{
    if (width_px < RENDER_MIN_WIDTH || width_px > RENDER_MAX_SIDE) {
        fileerr_set(err, errlen, path, "image width %d px is outside %d..%d", width_px,
                      RENDER_MIN_WIDTH, RENDER_MAX_SIDE);
        return -1;
    }
    /* Written as !(a > 0) so that NaN is refused too. */
    if (!(dmax.x > 0) || !(dmax.y > 0) || !isfinite(dmax.x) || !isfinite(dmax.y)) {
        fileerr_set(err, errlen, path, "domain size %g x %g is not positive and finite",
                      (double)dmax.x, (double)dmax.y);
        return -1;
    }
    g->w = width_px - 2;
    double h = round((double)g->w * (double)dmax.y / (double)dmax.x);
    if (h > RENDER_MAX_SIDE - 2) {
        fileerr_set(err, errlen, path,
                      "domain %g x %g is too tall for a %d px wide image (height over %d px)",
                      (double)dmax.x, (double)dmax.y, width_px, RENDER_MAX_SIDE);
        return -1;
    }
    g->h = h < 1 ? 1 : (int)h;
    g->width = g->w + 2;
    g->height = g->h + 2;
    g->dmax = dmax;
    return 0;
}

/* Which of n cells the coordinate t (in units of the box side) falls in, clamped to the box. */
static int render_cell(double t, int n)
{
    if (t <= 0)
        return 0;
    if (t >= 1)
        return n - 1;
    int c = (int)(t * n);
    return c < n ? c : n - 1;
}

/* Index of the pixel a particle falls in, or -1 for a particle that cannot be placed. */
static long render_locate(const RenderGeom *g, Vec3 p)
{
    if (!isfinite(p.x) || !isfinite(p.y))
        return -1;
    int col = 1 + render_cell((double)p.x / (double)g->dmax.x, g->w);
    int row = 1 + (g->h - 1) - render_cell((double)p.y / (double)g->dmax.y, g->h);
    return (long)row * g->width + col;
}

static void render_put(unsigned char *rgb, long px, const Rgb c)
{
    memcpy(rgb + 3 * (size_t)px, c, 3);
}

static unsigned char *render_canvas(const RenderGeom *g)
{
    size_t npx = (size_t)g->width * (size_t)g->height;
    unsigned char *rgb = malloc(3 * npx);
    if (rgb)
        for (size_t i = 0; i < npx; i++)
            render_put(rgb, (long)i, render_white);
    return rgb;
}

/* The frame sits outside the domain pixels, so it never hides a particle on a wall. */
static void render_frame(unsigned char *rgb, const RenderGeom *g)
{
    for (int x = 0; x < g->width; x++) {
        render_put(rgb, x, render_frame_grey);
        render_put(rgb, (long)(g->height - 1) * g->width + x, render_frame_grey);
    }
    for (int y = 0; y < g->height; y++) {
        render_put(rgb, (long)y * g->width, render_frame_grey);
        render_put(rgb, (long)y * g->width + g->width - 1, render_frame_grey);
    }
}

/* What the PNG body writes, and libpng's message when it fails. */
typedef struct {
    const unsigned char *rgb;
    const RenderGeom *g;
    char message[64];
} RenderPng;

static int render_png_body(FILE *f, const void *ctx)
{
    RenderPng *png = (RenderPng *)ctx;   /* ours, passed through report_write_file */
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = (png_uint_32)png->g->width;
    img.height = (png_uint_32)png->g->height;
    img.format = PNG_FORMAT_RGB;
    int ok = png_image_write_to_stdio(&img, f, 0, png->rgb, 0, NULL);
    if (!ok)
        snprintf(png->message, sizeof png->message, "%s", img.message);
    png_image_free(&img);
    return !ok;
}

/* Written to path.tmp and renamed, so a reader never sees half a PNG. */
static int render_save(const char *path, const unsigned char *rgb, const RenderGeom *g,
                       char *err, size_t errlen)
{
    RenderPng png = { rgb, g, "" };
    if (report_write_file(path, render_png_body, &png, err, errlen) == 0)
        return 0;
    if (png.message[0])
        fileerr_set(err, errlen, path, "libpng: %s", png.message);
    return -1;
}

/* White to dark blue by log(1 + count) / log(1 + max), starting at 30% so that one particle
 * next to a pool of thousands is still clearly not white. */
static void render_shade(Rgb out, uint32_t count, uint32_t max)
{
    double t = 0.3 + 0.7 * log1p((double)count) / log1p((double)max);
    for (int c = 0; c < 3; c++)
        out[c] = (unsigned char)lround(render_white[c] - t * (render_white[c] - render_dense[c]));
}

static void render_density(unsigned char *rgb, const uint32_t *count, size_t npx)
{
    uint32_t max = 0;
    for (size_t i = 0; i < npx; i++)
        max = count[i] > max ? count[i] : max;
    for (size_t i = 0; i < npx; i++) {
        if (count[i] == 0)
            continue;
        Rgb c;
        render_shade(c, count[i], max);
        render_put(rgb, (long)i, c);
    }
}

int render_particles_png(const char *path, const Vec3 *pos, size_t n, Vec3 domain_max,
                         int width_px, char *err, size_t errlen)
{
    RenderGeom g;
    if (render_geometry(&g, domain_max, width_px, path, err, errlen) != 0)
        return -1;
    if (n > 0 && !pos) {
        fileerr_set(err, errlen, path, "%zu particles but no positions", n);
        return -1;
    }
    size_t npx = (size_t)g.width * (size_t)g.height;
    uint32_t *count = calloc(npx, sizeof *count);
    unsigned char *rgb = render_canvas(&g);
    if (!count || !rgb) {
        free(count);
        free(rgb);
        fileerr_set(err, errlen, path, "out of memory for a %d x %d image", g.width, g.height);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        long px = render_locate(&g, pos[i]);
        if (px >= 0 && count[px] < UINT32_MAX)
            count[px]++;
    }
    render_density(rgb, count, npx);
    render_frame(rgb, &g);
    int rc = render_save(path, rgb, &g, err, errlen);
    free(count);
    free(rgb);
    return rc;
}

/* Marks in cover[] (bit 1 student, bit 2 reference) every pixel one of the frames reaches. */
static void render_cover(unsigned char *cover, const RenderGeom *g, const Vec3 *pos, size_t n,
                         unsigned char bit)
{
    for (size_t i = 0; i < n; i++) {
        long px = render_locate(g, pos[i]);
        if (px >= 0)
            cover[px] |= bit;
    }
}

int render_diff_png(const char *path, const Vec3 *student, size_t ns, const Vec3 *reference,
                    size_t nr, Vec3 domain_max, int width_px, char *err, size_t errlen)
{
    RenderGeom g;
    if (render_geometry(&g, domain_max, width_px, path, err, errlen) != 0)
        return -1;
    if ((ns > 0 && !student) || (nr > 0 && !reference)) {
        fileerr_set(err, errlen, path, "particle count given without positions");
        return -1;
    }
    size_t npx = (size_t)g.width * (size_t)g.height;
    unsigned char *cover = calloc(npx, 1);
    unsigned char *rgb = render_canvas(&g);
    if (!cover || !rgb) {
        free(cover);
        free(rgb);
        fileerr_set(err, errlen, path, "out of memory for a %d x %d image", g.width, g.height);
        return -1;
    }
    render_cover(cover, &g, student, ns, 1);
    render_cover(cover, &g, reference, nr, 2);
    static const unsigned char *const colour_of[4] = {
        render_white, render_student, render_reference, render_both
    };
    for (size_t i = 0; i < npx; i++)
        if (cover[i])
            render_put(rgb, (long)i, colour_of[cover[i]]);
    render_frame(rgb, &g);
    int rc = render_save(path, rgb, &g, err, errlen);
    free(cover);
    free(rgb);
    return rc;
}
