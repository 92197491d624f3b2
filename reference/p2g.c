/* p2g.c — particle to grid: each face velocity is the tent-weighted average of the particles.
 * flipkit reference/: the answer key; `make stubs` makes the student's file from it.
 * The contract — the math, the indexing, the boundary rules — is in common/stages.h. */
#include <math.h>
#include <string.h>

#include "stages.h"

// BEGIN SOLUTION
/* The 2x2x2 faces of one component around a particle: the lowest of them, (i,j,k) = base,
 * and per axis d the tent weights of the face below (w[d][0]) and above (w[d][1]). */
typedef struct {
    int base[3];
    float w[3][2];
} P2gStencil;

/* One axis: coordinate x (metres) among the `count` faces of a component whose face n sits at
 * (n + off) dx. The position in face units is clamped onto [0, count - 1] first, so a particle
 * past the outer faces takes the nearest face's values: the stencil is clamped, the particle
 * is not moved. Clamped as a float, because converting NaN or a huge float to int is
 * undefined. The base is at most count - 2 so that base + 1 exists: a particle on the last
 * face gets the base below it and fraction 1. */
static void p2g_locate_axis(float x, float dx, float off, int count, int *base, float w[2])
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
 * axis a component's faces start on the cells' low sides, across the others at the centres. */
static P2gStencil p2g_find_faces(const MacGrid *g, int a, Vec3 x)
{
    P2gStencil s;
    for (int d = 0; d < 3; d++)
        p2g_locate_axis(vec3_get(x, d), g->dx, g->face[a].off[d], g->face[a].n[d], &s.base[d],
                        s.w[d]);
    return s;
}

/* The tent weight of face base + (di,dj,dk): one factor per axis. */
static float p2g_weigh(const P2gStencil *s, int di, int dj, int dk)
{
    return s->w[0][di] * s->w[1][dj] * s->w[2][dk];
}
// END SOLUTION

void p2g(const Particles *ps, MacGrid *g)
{
    // BEGIN SOLUTION
    for (int a = 0; a < 3; a++) {
        float *vel = g->vel[a], *wsum = g->weight[a];
        memset(vel, 0, grid_faces(g, a) * sizeof *vel);
        memset(wsum, 0, grid_faces(g, a) * sizeof *wsum);
        /* Scatter weighted velocity and weight to the 8 faces around each particle... */
        for (size_t p = 0; p < ps->count; p++) {
            P2gStencil s = p2g_find_faces(g, a, ps->pos[p]);
            float va = vec3_get(ps->vel[p], a);
            for (int dk = 0; dk < 2; dk++)
                for (int dj = 0; dj < 2; dj++)
                    for (int di = 0; di < 2; di++) {
                        size_t f = grid_face_index(g, a, s.base[0] + di, s.base[1] + dj,
                                                   s.base[2] + dk);
                        float w = p2g_weigh(&s, di, dj, dk);
                        vel[f] += w * va;
                        wsum[f] += w;
                    }
        }
        /* ...then divide: an average, so it does not matter how many particles a face saw. */
        for (size_t f = 0; f < grid_faces(g, a); f++)
            vel[f] = wsum[f] > 0.0f ? vel[f] / wsum[f] : 0.0f;
    }
    // STUB: for (int a = 0; a < 3; a++) {
    // STUB:     memset(g->vel[a], 0, grid_faces(g, a) * sizeof(float));
    // STUB:     memset(g->weight[a], 0, grid_faces(g, a) * sizeof(float));
    // STUB: }
    // STUB: (void)ps;
    // END SOLUTION
}
