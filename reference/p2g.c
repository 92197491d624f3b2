/* p2g.c — particle to grid: each face velocity is the tent-weighted average of the particles.
 * flipkit reference/: the answer key; `make stubs` makes the student's file from it.
 * The contract — the math, the indexing, the boundary rules — is in common/stages.h. */
#include <string.h>

#include "stages.h"

void p2g(const Particles *ps, MacGrid *g)
{
    // BEGIN SOLUTION
    for (int a = 0; a < 3; a++) {
        float *vel = g->vel[a], *wsum = g->weight[a];
        memset(vel, 0, grid_faces(g, a) * sizeof *vel);
        memset(wsum, 0, grid_faces(g, a) * sizeof *wsum);
        /* Scatter weighted velocity and weight to the 8 faces around each particle... */
        for (size_t p = 0; p < ps->count; p++) {
            Stencil s = grid_stencil(g, a, ps->pos[p]);
            float va = vec3_get(ps->vel[p], a);
            for (int dk = 0; dk < 2; dk++)
                for (int dj = 0; dj < 2; dj++)
                    for (int di = 0; di < 2; di++) {
                        size_t f = grid_face_index(g, a, s.base[0] + di, s.base[1] + dj,
                                                   s.base[2] + dk);
                        float w = stencil_weight(&s, di, dj, dk);
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
