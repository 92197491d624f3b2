/* p2g.c — an independent rewrite of the p2g stage, written for make check-class.
 * flipkit tests/class/: correct, but structured otherwise than reference/p2g.c (a helper per
 * particle and axis, the eight corners in one loop), so the similarity check must not flag it. */
#include <string.h>

#include "stages.h"

/* Adds one particle's share to the eight faces of component axis around it. */
static void splat(MacGrid *grid, int axis, Vec3 where, float value)
{
    Stencil st = grid_stencil(grid, axis, where);
    for (int corner = 0; corner < 8; corner++) {
        int oi = corner & 1, oj = (corner >> 1) & 1, ok = corner >> 2;
        float share = stencil_weight(&st, oi, oj, ok);
        size_t face = grid_face_index(grid, axis, st.base[0] + oi, st.base[1] + oj, st.base[2] + ok);
        grid->weight[axis][face] += share;
        grid->vel[axis][face] += share * value;
    }
}

void p2g(const Particles *ps, MacGrid *g)
{
    for (int axis = 0; axis < 3; axis++) {
        memset(g->vel[axis], 0, grid_faces(g, axis) * sizeof(float));
        memset(g->weight[axis], 0, grid_faces(g, axis) * sizeof(float));
    }
    for (size_t n = 0; n < ps->count; n++) {
        splat(g, 0, ps->pos[n], ps->vel[n].x);
        splat(g, 1, ps->pos[n], ps->vel[n].y);
        splat(g, 2, ps->pos[n], ps->vel[n].z);
    }
    for (int axis = 0; axis < 3; axis++) {
        float *u = g->vel[axis];
        const float *total = g->weight[axis];
        size_t faces = grid_faces(g, axis);
        for (size_t f = 0; f < faces; f++)
            u[f] = total[f] > 0.0f ? u[f] / total[f] : 0.0f;
    }
}
