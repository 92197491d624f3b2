/* rkstep.c — the production particle step: particles through the projected grid velocity.
 * flipkit reference/: the reference track's Track.advect_grid, run when a scene has a
 * "production" group; the student's advect stage and its contract are untouched by it. */
#include <math.h>

#include "reference.h"

/* Why through the grid and not the particle's own velocity: after g2p the particle carries
 * FLIP's blend, whose divergence the projection never removed; the grid's velocity is
 * divergence-free in the fluid, and a higher-order step along it keeps particles from bunching
 * or opening gaps when a substep crosses several cells (Bridson, Fluid Simulation for Computer
 * Graphics, 2nd ed., sec. 3.1 and 7.5). The extrapolation reaches as far as a step can travel
 * (sim.c's sim_extrapolate_layers), so every position a stage samples has faces to read. */

/* One axis of the trilinear stencil of a component whose faces sit at (n + off) dx: the base
 * face (clamped so base + 1 exists) and the fraction towards the next, the particle's
 * coordinate clamped onto the faces as g2p clamps it. */
static void rk_axis(float x, float dx, float off, int count, int *base, float *t)
{
    float f = x / dx - off;
    int top = count - 2;
    f = !(f >= 0.0f) ? 0.0f : f > (float)(top + 1) ? (float)(top + 1) : f;
    int b = (int)f;
    b = b > top ? top : b;
    *base = b;
    *t = f - (float)b;
}

/* Component a of the grid's velocity at x, trilinear from the 2 x 2 x 2 faces around it. */
static float rk_component(const MacGrid *g, int a, Vec3 x)
{
    int b[3];
    float t[3];
    for (int d = 0; d < 3; d++)
        rk_axis(vec3_get(x, d), g->dx, g->face[a].off[d], g->face[a].n[d], &b[d], &t[d]);
    const float *f = g->vel[a];
    float sum = 0.0f;
    for (int dk = 0; dk < 2; dk++)
        for (int dj = 0; dj < 2; dj++)
            for (int di = 0; di < 2; di++) {
                float w = (di ? t[0] : 1.0f - t[0]) * (dj ? t[1] : 1.0f - t[1]) *
                          (dk ? t[2] : 1.0f - t[2]);
                sum += w * f[grid_face_index(g, a, b[0] + di, b[1] + dj, b[2] + dk)];
            }
    return sum;
}

static Vec3 rk_velocity(const MacGrid *g, Vec3 x)
{
    return (Vec3){ rk_component(g, 0, x), rk_component(g, 1, x), rk_component(g, 2, x) };
}

static Vec3 rk_along(Vec3 x, float h, Vec3 k)
{
    return (Vec3){ x.x + h * k.x, x.y + h * k.y, x.z + h * k.z };
}

/* Midpoint RK2, or Ralston's RK3 (weights 2/9, 3/9, 4/9; Ralston 1962), as Bridson suggests
 * for particle paths. kernels/stages.cl's rk_move (in g2p_move) does the same arithmetic. */
static Vec3 rk_step(const MacGrid *g, Vec3 x, float dt, int order)
{
    Vec3 k1 = rk_velocity(g, x);
    Vec3 k2 = rk_velocity(g, rk_along(x, 0.5f * dt, k1));
    if (order == 2)
        return rk_along(x, dt, k2);
    Vec3 k3 = rk_velocity(g, rk_along(x, 0.75f * dt, k2));
    const float c1 = 2.0f / 9.0f, c2 = 3.0f / 9.0f, c3 = 4.0f / 9.0f;
    Vec3 v = { c1 * k1.x + c2 * k2.x + c3 * k3.x, c1 * k1.y + c2 * k2.y + c3 * k3.y,
               c1 * k1.z + c2 * k2.z + c3 * k3.z };
    return rk_along(x, dt, v);
}

void ref_advect_grid(Particles *ps, const MacGrid *g, float dt, int order)
{
    for (size_t p = 0; p < ps->count; p++)
        ps->pos[p] = rk_step(g, ps->pos[p], dt, order);
}
