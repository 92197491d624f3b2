/* bricks.c — the liquid as LEGO bricks: count particles per brick, keep the bricks at least half
 * full, and write their centres, colour list and colour texture.
 * flipkit common/writers/: the three files agree by construction (one pass fills them all). */
#include "bricks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"

void bricks_init(Bricks *b)
{
    memset(b, 0, sizeof *b);
}

void bricks_free(Bricks *b)
{
    free(b->centre);
    free(b->colour);
    free(b->texture);
    free(b->particles);
    bricks_init(b);
}


/* The brick grid's size, or -1 when a brick size is not positive and finite, or the grid
 * would pass 2^31 bricks. */
static long long bricks_dims(const MacGrid *g, const float size[3], int n[3])
{
    const int cells[3] = { g->nx, g->ny, g->nz };
    long long total = 1;
    for (int d = 0; d < 3; d++) {
        if (!(size[d] > 0.0f) || !isfinite(size[d]))
            return -1;
        double bricks = ceil((double)cells[d] * g->dx / size[d]);
        if (bricks > 1 << 30)
            return -1;
        n[d] = bricks < 1 ? 1 : (int)bricks;
        total *= n[d];
    }
    return total > INT32_MAX ? -1 : total;
}

static void bricks_count(Bricks *b, const Particles *ps)
{
    for (size_t p = 0; p < ps->count; p++) {
        const float x[3] = { ps->pos[p].x, ps->pos[p].y, ps->pos[p].z };
        size_t index = 0, stride = 1;
        bool inside = true;
        for (int d = 0; d < 3; d++) {
            double q = floor((double)x[d] / b->size[d]);   /* NaN fails both tests */
            inside = inside && q >= 0.0 && q < b->n[d];
            index += inside ? (size_t)q * stride : 0;
            stride *= (size_t)b->n[d];
        }
        b->particles[index] += inside;
    }
}

/* The brick's volume inside the domain, in cells: a brick on the far faces may be cut. */
static double bricks_cells_inside(const Bricks *b, const MacGrid *g, const int at[3])
{
    const int cells[3] = { g->nx, g->ny, g->nz };
    double v = 1.0;
    for (int d = 0; d < 3; d++) {
        double lo = (double)at[d] * b->size[d], hi = lo + b->size[d], end = cells[d] * (double)g->dx;
        v *= ((hi < end ? hi : end) - lo) / g->dx;
    }
    return v;
}

/* One pass in texture-index order: the list and the texture come out in the same order. */
static void bricks_colour(Bricks *b, const MacGrid *g, int particles_per_cell)
{
    size_t index = 0;
    b->count = 0;
    for (int k = 0; k < b->n[2]; k++)
        for (int j = 0; j < b->n[1]; j++)
            for (int i = 0; i < b->n[0]; i++, index++) {
                const int at[3] = { i, j, k };
                double full = particles_per_cell * bricks_cells_inside(b, g, at);
                double density = full > 0.0 ? b->particles[index] / full : 0.0;
                density = density > 1.0 ? 1.0 : density;
                b->texture[index] = 0;
                if (density < BRICKS_MIN_DENSITY)
                    continue;
                uint8_t c = (uint8_t)lround(255.0 * density);
                b->texture[index] = c;
                b->colour[b->count] = c;
                for (int d = 0; d < 3; d++)
                    b->centre[3 * b->count + d] = ((float)at[d] + 0.5f) * b->size[d];
                b->count++;
            }
}

int bricks_build(Bricks *b, const Particles *ps, const MacGrid *g, const float size[3],
                 int particles_per_cell, char *err, size_t errlen)
{
    int n[3];
    long long total = bricks_dims(g, size, n);
    if (total < 0) {
        snprintf(err, errlen, "bricks of %g x %g x %g m: expected sizes > 0 that make at most "
                 "2^31 bricks over the domain (output.brick_cells)", size[0], size[1], size[2]);
        return -1;
    }
    bool same = b->texture && (long long)b->n[0] * b->n[1] * b->n[2] == total;
    if (!same) {
        bricks_free(b);
        b->particles = malloc((size_t)total * sizeof *b->particles);
        b->texture = malloc((size_t)total);
        b->colour = malloc((size_t)total);
        b->centre = malloc((size_t)total * 3 * sizeof *b->centre);
        if (!b->particles || !b->texture || !b->colour || !b->centre) {
            bricks_free(b);
            snprintf(err, errlen, "bricks: out of memory for %lld bricks", total);
            return -1;
        }
    }
    memcpy(b->n, n, sizeof n);
    memcpy(b->size, size, sizeof b->size);
    memset(b->particles, 0, (size_t)total * sizeof *b->particles);
    bricks_count(b, ps);
    bricks_colour(b, g, particles_per_cell);
    return 0;
}

/* ---- files ------------------------------------------------------------------------------ */

static void bricks_put_f32(unsigned char *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(u >> (8 * i));
}

static int bricks_ply_body(FILE *f, const void *ctx, char *why, size_t whylen)
{
    (void)why;
    (void)whylen;
    const Bricks *b = ctx;
    if (fprintf(f, "ply\nformat binary_little_endian 1.0\ncomment flipkit LEGO bricks: "
                "brick centres, colour = normalised particle density\nelement vertex %zu\n"
                "property float x\nproperty float y\nproperty float z\nproperty uchar red\n"
                "property uchar green\nproperty uchar blue\nend_header\n", b->count) < 0)
        return -1;
    for (size_t i = 0; i < b->count; i++) {
        unsigned char rec[15];
        for (int d = 0; d < 3; d++)
            bricks_put_f32(rec + 4 * d, b->centre[3 * i + d]);
        memset(rec + 12, b->colour[i], 3);
        if (fwrite(rec, 1, sizeof rec, f) != sizeof rec)
            return -1;
    }
    return 0;
}

static int bricks_colour_body(FILE *f, const void *ctx, char *why, size_t whylen)
{
    (void)why;
    (void)whylen;
    const Bricks *b = ctx;
    for (size_t i = 0; i < b->count; i++) {
        unsigned char rgb[3] = { b->colour[i], b->colour[i], b->colour[i] };
        if (fwrite(rgb, 1, 3, f) != 3)
            return -1;
    }
    return 0;
}

static int bricks_texture_body(FILE *f, const void *ctx, char *why, size_t whylen)
{
    (void)why;
    (void)whylen;
    const Bricks *b = ctx;
    size_t total = (size_t)b->n[0] * b->n[1] * b->n[2];
    return fwrite(b->texture, 1, total, f) == total ? 0 : -1;
}

int bricks_write(const Bricks *b, const char *dir, int frame, char *err, size_t errlen)
{
    static const struct {
        const char *sub, *ext;
        AtomicBody body;
    } files[3] = { { "brick", "ply", bricks_ply_body },
                   { "brickcolor", "data", bricks_colour_body },
                   { "bricktexture", "data", bricks_texture_body } };
    for (int i = 0; i < 3; i++) {
        char path[1200], why[600] = "";
        snprintf(path, sizeof path, "%s/%s/%06d.%s", dir, files[i].sub, frame, files[i].ext);
        if (atomic_write(path, false, files[i].body, b, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s: %s", path, why);
            return -1;
        }
    }
    return 0;
}
