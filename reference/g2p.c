/* g2p.c — grid to particle: each particle's velocity from the grid, PIC and FLIP blended.
 * flipkit reference/: the answer key; `make stubs` makes the student's file from it.
 * The contract — the math, the indexing, the boundary rules — is in common/stages.h. */
#include <math.h>

#include "stages.h"

// BEGIN SOLUTION
/* The 2x2x2 faces of one component around a particle: the lowest of them, (i,j,k) = base,
 * and per axis d the tent weights of the face below (w[d][0]) and above (w[d][1]). */
typedef struct {
    int base[3];
    float w[3][2];
} G2pStencil;

/* One axis: coordinate x (metres) among the `count` faces of a component whose face n sits at
 * (n + off) dx. The position in face units is clamped onto [0, count - 1] first, so a particle
 * past the outer faces reads the nearest face's values: the stencil is clamped, the particle
 * is not moved. Clamped as a float, because converting NaN or a huge float to int is
 * undefined. The base is at most count - 2 so that base + 1 exists: a particle on the last
 * face gets the base below it and fraction 1. */
static void g2p_locate_axis(float x, float dx, float off, int count, int *base, float w[2])
{
    float f = x / dx - off;
    int top = count - 2;
    f = !(f >= 0.0f) ? 0.0f : f > (float)(top + 1) ? (float)(top + 1) : f;
    int b = (int)floorf(f);
    b = b > top ? top : b;
    float t = f - (float)b;
    *base = b;
    w[0] = 1.0f - t;
    w[1] = t;
}

/* The stencil of component a at x, from the face layout grid_init filled in: along its own
 * axis a component's faces start on the cells' low sides, across the others at the centres.
 * The same as p2g's, so the two transfers use the same weights. */
static G2pStencil g2p_find_faces(const MacGrid *g, int a, Vec3 x)
{
    G2pStencil s;
    for (int d = 0; d < 3; d++)
        g2p_locate_axis(vec3_get(x, d), g->dx, g->face[a].off[d], g->face[a].n[d], &s.base[d],
                        s.w[d]);
    return s;
}

/* The tent weight of face base + (di,dj,dk): one factor per axis. */
static float g2p_weigh(const G2pStencil *s, int di, int dj, int dk)
{
    return s->w[0][di] * s->w[1][dj] * s->w[2][dk];
}

/* Trilinear interpolation of component a at x, from field f (or f - f_old when f_old). */
static float g2p_interpolate(const MacGrid *g, int a, const float *f, const float *f_old, Vec3 x)
{
    G2pStencil s = g2p_find_faces(g, a, x);
    float sum = 0.0f;
    for (int dk = 0; dk < 2; dk++)
        for (int dj = 0; dj < 2; dj++)
            for (int di = 0; di < 2; di++) {
                size_t idx = grid_face_index(g, a, s.base[0] + di, s.base[1] + dj, s.base[2] + dk);
                float value = f_old ? f[idx] - f_old[idx] : f[idx];
                sum += g2p_weigh(&s, di, dj, dk) * value;
            }
    return sum;
}
// END SOLUTION

void g2p(Particles *ps, const MacGrid *g, float *const vel_old[3], float alpha)
{
    // BEGIN SOLUTION
    for (size_t p = 0; p < ps->count; p++) {
        float v[3] = { ps->vel[p].x, ps->vel[p].y, ps->vel[p].z };
        for (int a = 0; a < 3; a++) {
            float pic = g2p_interpolate(g, a, g->vel[a], NULL, ps->pos[p]);
            float flip = v[a] + g2p_interpolate(g, a, g->vel[a], vel_old[a], ps->pos[p]);
            v[a] = alpha * pic + (1.0f - alpha) * flip;
        }
        ps->vel[p] = (Vec3){ v[0], v[1], v[2] };
    }
    // STUB: (void)ps;
    // STUB: (void)g;
    // STUB: (void)vel_old;
    // STUB: (void)alpha;
    // END SOLUTION
}
