/* g2p.c — grid to particle: each particle's velocity from the grid, PIC and FLIP blended.
 * flipkit reference/: the answer key; `make stubs` makes the student's file from it.
 * The contract — the math, the indexing, the boundary rules — is in common/stages.h. */
#include "stages.h"

// BEGIN SOLUTION
/* Trilinear interpolation of component a at x, from field f (or f - f_old when f_old). */
static float g2p_interpolate(const MacGrid *g, int a, const float *f, const float *f_old, Vec3 x)
{
    Stencil s = grid_stencil(g, a, x);
    float sum = 0.0f;
    for (int dk = 0; dk < 2; dk++)
        for (int dj = 0; dj < 2; dj++)
            for (int di = 0; di < 2; di++) {
                size_t idx = grid_face_index(g, a, s.base[0] + di, s.base[1] + dj, s.base[2] + dk);
                float value = f_old ? f[idx] - f_old[idx] : f[idx];
                sum += stencil_weight(&s, di, dj, dk) * value;
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
