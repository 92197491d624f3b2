/* bricks.h — the liquid as LEGO bricks: brick centres as a coloured vertex PLY, and the colours
 * again as a list (brickcolor) and as a 3D texture (bricktexture), as GridFluidSim3D writes them.
 * flipkit common/writers/: output.bricks; the formulas are in scenes/README.md and below. */
#ifndef FLIPKIT_BRICKS_H
#define FLIPKIT_BRICKS_H

#include <stddef.h>
#include <stdint.h>
#include "grid.h"
#include "particles.h"

/* A brick is present when its normalised density reaches this: at least half full. */
#define BRICKS_MIN_DENSITY 0.5

/* The brick grid over the domain W x H x D (nx dx, ny dx, nz dx) for bricks of w x h x d
 * metres: N = ceil(W / w), M = ceil(H / h), P = ceil(D / d); the brick holding (x, y, z) is
 * (floor(x / w), floor(y / h), floor(z / d)), its texture index i + j N + k N M.
 * A brick's normalised density is its particle count over particles_per_cell x (the brick's
 * volume inside the domain) / dx^3, clamped to [0, 1]; its colour, the same in red, green
 * and blue, is round(255 x density). Present bricks (density >= BRICKS_MIN_DENSITY) are
 * listed in texture-index order; the texture holds each present brick's colour and 0 elsewhere. */
typedef struct {
    int n[3];               /* N, M, P */
    float size[3];          /* w, h, d (metres) */
    size_t count;           /* present bricks */
    float *centre;          /* 3 floats per present brick */
    uint8_t *colour;        /* one value per present brick (red = green = blue) */
    uint8_t *texture;       /* N x M x P values */
    uint32_t *particles;    /* N x M x P particle counts (scratch, kept for tests) */
} Bricks;

void bricks_init(Bricks *b);
void bricks_free(Bricks *b);

/* Fills b for the particles on grid g (its size and dx only) with bricks of size[3] metres
 * and particles_per_cell seeded per full cell. Particles outside the domain or not finite
 * are not counted. Returns 0, or -1 with one line in err (a size that is not positive and
 * finite, a brick grid over 2^31 bricks, out of memory). */
int bricks_build(Bricks *b, const Particles *ps, const MacGrid *g, const float size[3],
                 int particles_per_cell, char *err, size_t errlen);

/* Writes dir/brick/NNNNNN.ply (float x y z, uchar red green blue per present brick),
 * dir/brickcolor/NNNNNN.data (3 bytes per brick, in the PLY's order) and
 * dir/bricktexture/NNNNNN.data (N x M x P bytes); each through a temporary file. Returns 0,
 * or -1 with one line in err naming the file. */
int bricks_write(const Bricks *b, const char *dir, int frame, char *err, size_t errlen);

#endif
