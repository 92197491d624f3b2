/* seed.c — shapes, solid cells and deterministic particle seeding.
 * flipkit common/: 8 particles per cell on a jittered 2x2x2 lattice (the usual FLIP
 * sampling, Zhu & Bridson 2005), from a seeded RNG so every run starts from the same bits. */
#include "given.h"

#include <math.h>
#include <stdlib.h>

int shape_contains(const Shape *s, Vec3 x)
{
    if (s->kind == SHAPE_SPHERE) {
        float dx = x.x - s->center.x, dy = x.y - s->center.y, dz = x.z - s->center.z;
        return dx * dx + dy * dy + dz * dz <= s->radius * s->radius;
    }
    return x.x >= s->min.x && x.x <= s->max.x && x.y >= s->min.y && x.y <= s->max.y &&
           x.z >= s->min.z && x.z <= s->max.z;
}

void given_mark_solids(int8_t *solid, const MacGrid *g, const Shape *shapes, int n)
{
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                int s = i == 0 || j == 0 || k == 0 || i == g->nx - 1 || j == g->ny - 1 ||
                        k == g->nz - 1;
                Vec3 c = grid_cell_centre(g, i, j, k);
                for (int q = 0; q < n && !s; q++)
                    s = shape_contains(&shapes[q], c);
                solid[grid_cell_index(g, i, j, k)] = (int8_t)s;
            }
}

/* The range of cells a shape's bounding box overlaps, clamped to the grid. */
static void seed_cell_range(const MacGrid *g, const Shape *s, int lo[3], int hi[3])
{
    const int n[3] = { g->nx, g->ny, g->nz };
    for (int d = 0; d < 3; d++) {
        float r = s->kind == SHAPE_SPHERE ? s->radius : 0.0f;
        float mn = s->kind == SHAPE_SPHERE ? vec3_get(s->center, d) - r : vec3_get(s->min, d);
        float mx = s->kind == SHAPE_SPHERE ? vec3_get(s->center, d) + r : vec3_get(s->max, d);
        lo[d] = (int)floorf(mn / g->dx);
        hi[d] = (int)floorf(mx / g->dx);
        lo[d] = lo[d] < 0 ? 0 : lo[d];
        hi[d] = hi[d] > n[d] - 1 ? n[d] - 1 : hi[d];
    }
}

static int seed_lattice_size(int particles_per_cell)
{
    int m = (int)lroundf(cbrtf((float)particles_per_cell));
    return m < 1 ? 1 : m;
}

/* Seeds one cell; returns particles added or -1. */
static long seed_cell(Particles *ps, const MacGrid *g, const Shape *s, int i, int j, int k,
                      int m, Rng *rng)
{
    long added = 0;
    float h = g->dx / (float)m;
    for (int c = 0; c < m; c++)
        for (int b = 0; b < m; b++)
            for (int a = 0; a < m; a++) {
                /* Draw all three numbers before testing, so the sequence never depends on
                 * which points a shape keeps. */
                float jx = rng_uniform(rng) - 0.5f, jy = rng_uniform(rng) - 0.5f,
                      jz = rng_uniform(rng) - 0.5f;
                Vec3 x = { (i + 0.0f) * g->dx + (a + 0.5f + 0.5f * jx) * h,
                           (j + 0.0f) * g->dx + (b + 0.5f + 0.5f * jy) * h,
                           (k + 0.0f) * g->dx + (c + 0.5f + 0.5f * jz) * h };
                if (!shape_contains(s, x))
                    continue;
                if (part_push(ps, x, s->velocity) != 0)
                    return -1;
                added++;
            }
    return added;
}

/* 1 for every cell holding at least one particle. */
static uint8_t *seed_occupancy(const MacGrid *g, const Particles *ps)
{
    uint8_t *occ = calloc(grid_cells(g), 1);
    if (!occ)
        return NULL;
    for (size_t p = 0; p < ps->count; p++) {
        int i, j, k;
        grid_cell_of(g, ps->pos[p], &i, &j, &k);
        occ[grid_cell_index(g, i, j, k)] = 1;
    }
    return occ;
}

long given_seed_fluid(Particles *ps, const MacGrid *g, const int8_t *solid,
                      const Shape *shapes, int n, int particles_per_cell, uint32_t seed,
                      uint32_t salt)
{
    uint8_t *occ = seed_occupancy(g, ps);
    if (!occ)
        return -1;
    Rng rng = rng_seeded(((uint64_t)seed << 32) ^ (0x9E3779B97F4A7C15ull * (salt + 1u)));
    int m = seed_lattice_size(particles_per_cell);
    long total = 0;
    for (int q = 0; q < n && total >= 0; q++) {
        int lo[3], hi[3];
        seed_cell_range(g, &shapes[q], lo, hi);
        uint8_t *mine = calloc(grid_cells(g), 1); /* cells this shape filled */
        if (!mine) {
            total = -1;
            break;
        }
        for (int k = lo[2]; k <= hi[2] && total >= 0; k++)
            for (int j = lo[1]; j <= hi[1] && total >= 0; j++)
                for (int i = lo[0]; i <= hi[0] && total >= 0; i++) {
                    size_t c = grid_cell_index(g, i, j, k);
                    if (solid[c] || occ[c])
                        continue;
                    long added = seed_cell(ps, g, &shapes[q], i, j, k, m, &rng);
                    total = added < 0 ? -1 : total + added;
                    mine[c] = added > 0;
                }
        /* Later shapes skip the cells this one filled: overlapping shapes never double up. */
        for (size_t c = 0; c < grid_cells(g); c++)
            occ[c] |= mine[c];
        free(mine);
    }
    free(occ);
    return total;
}
