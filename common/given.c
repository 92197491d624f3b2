/* given.c — the given steps of a substep: classify cells, extrapolate velocity into air,
 * keep particles inside (the Gauss-Seidel/SOR pressure solve is given_sor.c).
 * flipkit common/: these are not part of the assignment, but reading them shows what the
 * driver does between your stages. */
#include "given.h"

#include <math.h>
#include <string.h>

void given_classify(MacGrid *g, const int8_t *solid, const Particles *ps)
{
    size_t n = grid_cells(g);
    for (size_t c = 0; c < n; c++)
        g->cell[c] = solid[c] ? CELL_SOLID : CELL_AIR;
    for (size_t p = 0; p < ps->count; p++) {
        int i, j, k;
        grid_cell_of(g, ps->pos[p], &i, &j, &k);
        size_t c = grid_cell_index(g, i, j, k);
        if (g->cell[c] == CELL_AIR)
            g->cell[c] = CELL_FLUID;
    }
    for (size_t c = 0; c < n; c++)
        if (g->cell[c] != CELL_FLUID)
            g->p[c] = 0.0f;
}

/* ---- extrapolation --------------------------------------------------------------------- */

/* A face whose velocity the projection set: not solid, with FLUID on at least one side. */
static int given_face_known(const MacGrid *g, int a, int i, int j, int k)
{
    int lo = grid_face_below(g, a, i, j, k), hi = grid_face_above(g, a, i, j, k);
    return lo != CELL_SOLID && hi != CELL_SOLID && (lo == CELL_FLUID || hi == CELL_FLUID);
}

/* One layer: every unknown face not on a wall with known neighbours takes their average.
 * Faces inside solids are filled too: they are the ghost values g2p reads within half a cell
 * of a wall, and leaving them 0 made every wall no-slip (a film of liquid hung on the walls of
 * the dam break). Reads `known`, writes `next`, so the result does not depend on the loop order. */
static void given_extrapolate_layer(MacGrid *g, int a, const uint8_t *known, uint8_t *next)
{
    const int *n = g->face[a].n;
    float *vel = g->vel[a];
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++) {
                size_t f = grid_face_index(g, a, i, j, k);
                next[f] = known[f];
                if (known[f] || grid_face_on_wall(g, a, i, j, k))
                    continue;
                static const int nb[6][3] = { { -1, 0, 0 }, { 1, 0, 0 }, { 0, -1, 0 },
                                              { 0, 1, 0 },  { 0, 0, -1 }, { 0, 0, 1 } };
                float sum = 0.0f;
                int count = 0;
                for (int q = 0; q < 6; q++) {
                    int ii = i + nb[q][0], jj = j + nb[q][1], kk = k + nb[q][2];
                    if (ii < 0 || jj < 0 || kk < 0 || ii >= n[0] || jj >= n[1] || kk >= n[2])
                        continue;
                    size_t fn = grid_face_index(g, a, ii, jj, kk);
                    if (known[fn] == 1) {
                        sum += vel[fn];
                        count++;
                    }
                }
                if (count > 0) {
                    vel[f] = sum / (float)count;
                    next[f] = 2; /* known from now on, but not a source within this layer */
                }
            }
    for (size_t f = 0; f < grid_faces(g, a); f++)
        next[f] = next[f] ? 1 : 0;
}

void given_extrapolate(MacGrid *g, int layers, uint8_t *scratch)
{
    for (int a = 0; a < 3; a++) {
        const int *n = g->face[a].n;
        size_t nf = grid_faces(g, a);
        uint8_t *known = scratch, *next = scratch + nf;
        for (int k = 0; k < n[2]; k++)
            for (int j = 0; j < n[1]; j++)
                for (int i = 0; i < n[0]; i++)
                    known[grid_face_index(g, a, i, j, k)] =
                        (uint8_t)given_face_known(g, a, i, j, k);
        for (int layer = 0; layer < layers; layer++) {
            given_extrapolate_layer(g, a, known, next);
            memcpy(known, next, nf);
        }
        for (size_t f = 0; f < nf; f++)
            if (!known[f])
                g->vel[a][f] = 0.0f;
    }
}

/* ---- keeping particles in ---------------------------------------------------------------- */

/* Squared distance from x to the box of cell (i,j,k), and the nearest point in it, pulled a
 * hair inside so rounding cannot leave the particle on the solid side. */
static float given_nearest_in_cell(const MacGrid *g, int i, int j, int k, Vec3 x, Vec3 *out)
{
    const int c[3] = { i, j, k };
    float q[3], d2 = 0.0f, eps = 1e-3f * g->dx;
    for (int d = 0; d < 3; d++) {
        float lo = c[d] * g->dx + eps, hi = (c[d] + 1) * g->dx - eps, v = vec3_get(x, d);
        q[d] = v < lo ? lo : v > hi ? hi : v;
        d2 += (q[d] - v) * (q[d] - v);
    }
    *out = (Vec3){ q[0], q[1], q[2] };
    return d2;
}

/* Searches shells of growing radius around the particle's cell for the nearest non-solid
 * cell; returns 0 when none is within reach (the particle is then left where it is). */
static int given_push_out(const MacGrid *g, Vec3 x, int ci, int cj, int ck, Vec3 *out)
{
    for (int r = 1; r <= 4; r++) {
        float best = INFINITY;
        for (int k = ck - r; k <= ck + r; k++)
            for (int j = cj - r; j <= cj + r; j++)
                for (int i = ci - r; i <= ci + r; i++) {
                    if (grid_cell_type(g, i, j, k) == CELL_SOLID)
                        continue;
                    Vec3 q;
                    float d2 = given_nearest_in_cell(g, i, j, k, x, &q);
                    if (d2 < best) {
                        best = d2;
                        *out = q;
                    }
                }
        if (best < INFINITY)
            return 1;
    }
    return 0;
}

void given_keep_inside(Particles *ps, const MacGrid *g)
{
    for (size_t p = 0; p < ps->count; p++) {
        Vec3 x = ps->pos[p];
        int i, j, k;
        grid_cell_of(g, x, &i, &j, &k);
        int outside = x.x < 0.0f || x.y < 0.0f || x.z < 0.0f || x.x >= g->nx * g->dx ||
                      x.y >= g->ny * g->dx || x.z >= g->nz * g->dx;
        if (!outside && grid_cell_type(g, i, j, k) != CELL_SOLID)
            continue;
        Vec3 q;
        if (!given_push_out(g, x, i, j, k, &q))
            continue;
        /* An inelastic wall: drop the velocity component that carried the particle in. */
        Vec3 *v = &ps->vel[p];
        if ((q.x - x.x) * v->x < 0.0f) v->x = 0.0f;
        if ((q.y - x.y) * v->y < 0.0f) v->y = 0.0f;
        if ((q.z - x.z) * v->z < 0.0f) v->z = 0.0f;
        ps->pos[p] = q;
    }
}
