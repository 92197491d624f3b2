/* pipeline.cl — the given steps of a substep as kernels (classify, pressure rhs, extrapolate,
 * keep inside) and the reductions the host reads back. flipkit kernels/: the device-resident
 * pipeline; same arithmetic and order as common/given.c, so C and OpenCL agree closely. */

/* A sum or maximum is taken by a fixed number of work-items, each over its own contiguous
 * chunk in index order; the host adds the partials in order. No float atomics, so the same
 * input gives the same bits on every run. */
inline void chunk_of(int g, int n, int chunk, int *lo, int *hi)
{
    *lo = min(g * chunk, n);
    *hi = min(*lo + chunk, n);
}

/* Cell types from the counting sort: FLUID where a non-solid cell holds a particle (the cell
 * of a particle is cell_of, as in given_classify); pressure is 0 outside FLUID. */
__kernel void classify(__global char *cell, __global float *p, __global const char *solid,
                       __global const int *start, int ncells)
{
    int c = get_global_id(0);
    if (c >= ncells)
        return;
    char t = solid[c] ? CELL_SOLID : start[c + 1] > start[c] ? CELL_FLUID : CELL_AIR;
    cell[c] = t;
    if (t != CELL_FLUID)
        p[c] = 0.0f;
}

/* rhs = (rho/dt) div in FLUID, 0 elsewhere; p = 0 outside FLUID (the warm start keeps p only
 * where there is fluid); partial[g] = sum of rhs^2 over the chunk. */
__kernel void pressure_rhs(__global float *rhs, __global float *p, __global double *partial,
                           __global const float *div, __global const char *cell, float scale,
                           int n, int chunk)
{
    int g = get_global_id(0), lo, hi;
    chunk_of(g, n, chunk, &lo, &hi);
    double sum = 0.0;
    for (int c = lo; c < hi; c++) {
        float r = cell[c] == CELL_FLUID ? scale * div[c] : 0.0f;
        rhs[c] = r;
        sum += (double)r * r;
        if (cell[c] != CELL_FLUID)
            p[c] = 0.0f;
    }
    partial[g] = sum;
}

/* partial[g] = largest |v|^2 over the chunk of particles (for the CFL substep). */
__kernel void max_speed2(__global float *partial, __global const float *vel, int n, int chunk)
{
    int g = get_global_id(0), lo, hi;
    chunk_of(g, n, chunk, &lo, &hi);
    float best = 0.0f;
    for (int p = lo; p < hi; p++) {
        float3 v = load3(vel, p);
        best = fmax(best, v.x * v.x + v.y * v.y + v.z * v.z);
    }
    partial[g] = best;
}

/* ---- extrapolation into air (given_extrapolate) --------------------------------------- */

/* A face whose velocity the projection set: not solid, FLUID on at least one side. */
__kernel void extrap_init(__global uchar *known, __global const char *cell, int4 n4, int a)
{
    int3 n = n4.xyz, fn = face_dims(n, a);
    int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    if (i >= fn.x || j >= fn.y || k >= fn.z)
        return;
    int lo = face_below(cell, n, a, i, j, k), hi = cell_type(cell, n, i, j, k);
    known[flat_index(fn, i, j, k)] =
        lo != CELL_SOLID && hi != CELL_SOLID && (lo == CELL_FLUID || hi == CELL_FLUID);
}

/* Adds face (i,j,k)'s velocity to sum when it is inside the array and known. */
inline void extrap_take(__global const float *vel, __global const uchar *known, int3 fn, int i, int j,
                        int k, float *sum, int *count)
{
    if (i < 0 || j < 0 || k < 0 || i >= fn.x || j >= fn.y || k >= fn.z)
        return;
    size_t g = flat_index(fn, i, j, k);
    if (known[g]) {
        *sum += vel[g];
        (*count)++;
    }
}

/* One layer: an unknown face not on a wall with known neighbours takes their average (faces
 * inside solids too: free-slip ghost values, see given_extrapolate). Reads known, writes
 * next, so faces set in this layer are not sources within it. The last layer also sets the
 * faces still unknown to 0, as given_extrapolate ends, which saves a launch per component. */
__kernel void extrap_layer(__global float *vel, __global uchar *next, __global const uchar *known,
                           __global const char *cell, int4 n4, int a, int last)
{
    int3 n = n4.xyz, fn = face_dims(n, a);
    int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    if (i >= fn.x || j >= fn.y || k >= fn.z)
        return;
    size_t f = flat_index(fn, i, j, k);
    if (known[f] || face_on_wall(cell, n, a, i, j, k)) {
        next[f] = known[f];
        if (last && !known[f])
            vel[f] = 0.0f;
        return;
    }
    /* The six neighbours in the order -x +x -y +y -z +z, written out: a private table indexed in
     * a loop lives in memory on a CPU device and made this the slowest grid kernel. */
    float sum = 0.0f;
    int count = 0;
    extrap_take(vel, known, fn, i - 1, j, k, &sum, &count);
    extrap_take(vel, known, fn, i + 1, j, k, &sum, &count);
    extrap_take(vel, known, fn, i, j - 1, k, &sum, &count);
    extrap_take(vel, known, fn, i, j + 1, k, &sum, &count);
    extrap_take(vel, known, fn, i, j, k - 1, &sum, &count);
    extrap_take(vel, known, fn, i, j, k + 1, &sum, &count);
    if (count > 0)
        vel[f] = sum / (float)count;
    else if (last)
        vel[f] = 0.0f;
    next[f] = count > 0;
}

/* ---- keeping particles in (given_keep_inside) ------------------------------------------ */

inline float nearest_in_cell(int3 c, float dx, float3 x, float3 *out)
{
    float eps = 1e-3f * dx;
    int cs[3] = { c.x, c.y, c.z };
    float xs[3] = { x.x, x.y, x.z }, q[3], d2 = 0.0f;
    for (int d = 0; d < 3; d++) {
        float lo = (float)cs[d] * dx + eps, hi = (float)(cs[d] + 1) * dx - eps;
        q[d] = xs[d] < lo ? lo : xs[d] > hi ? hi : xs[d];
        d2 += (q[d] - xs[d]) * (q[d] - xs[d]);
    }
    *out = (float3)(q[0], q[1], q[2]);
    return d2;
}

/* The nearest point of the nearest non-solid cell within 4 shells; 0 when there is none. */
inline int push_out(__global const char *cell, int3 n, float dx, float3 x, int3 c, float3 *out)
{
    for (int r = 1; r <= 4; r++) {
        float best = INFINITY;
        for (int k = c.z - r; k <= c.z + r; k++)
            for (int j = c.y - r; j <= c.y + r; j++)
                for (int i = c.x - r; i <= c.x + r; i++) {
                    if (cell_type(cell, n, i, j, k) == CELL_SOLID)
                        continue;
                    float3 q;
                    float d2 = nearest_in_cell((int3)(i, j, k), dx, x, &q);
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

__kernel void keep_inside(__global float *pos, __global float *vel, __global const char *cell,
                          int4 n4, float dx, int count)
{
    int p = get_global_id(0);
    if (p >= count)
        return;
    int3 n = n4.xyz;
    float3 x = load3(pos, p);
    int flat = cell_of(x, n, dx);
    int3 c = (int3)(flat % n.x, flat / n.x % n.y, flat / (n.x * n.y));
    int outside = x.x < 0.0f || x.y < 0.0f || x.z < 0.0f || x.x >= (float)n.x * dx ||
                  x.y >= (float)n.y * dx || x.z >= (float)n.z * dx;
    if (!outside && cell_type(cell, n, c.x, c.y, c.z) != CELL_SOLID)
        return;
    float3 q;
    if (!push_out(cell, n, dx, x, c, &q))
        return;
    /* An inelastic wall: drop the velocity component that carried the particle in. */
    float3 v = load3(vel, p);
    if ((q.x - x.x) * v.x < 0.0f) v.x = 0.0f;
    if ((q.y - x.y) * v.y < 0.0f) v.y = 0.0f;
    if ((q.z - x.z) * v.z < 0.0f) v.z = 0.0f;
    vstore3(v, p, vel);
    vstore3(q, p, pos);
}

/* ---- p2g for the pipeline: a row-coloured pass over particles sorted by cell -------------- */

/* Adds one particle's component a to the 2 x 2 x 2 faces of its stencil: w v to f, w to wt.
 * Written out tap by tap, in p2g.c's order (k, then j, then i). */
__attribute__((always_inline)) inline void splat(__global float *f, __global float *wt, int3 n,
                                                 int a, Stencil st, float value)
{
    int3 fn = face_dims(n, a);
    size_t sy = (size_t)fn.x, sz = (size_t)fn.x * (size_t)fn.y;
    size_t i0 = flat_index(fn, st.base.x, st.base.y, st.base.z);
    size_t r[4] = { i0, i0 + sy, i0 + sz, i0 + sz + sy };   /* rows (dj, dk) = 00, 10, 01, 11 */
    float3 t = st.t;
#define P2G_TAP(row, di, dj, dk)                                                        \
    {                                                                                   \
        float w = corner_weight(t, di, dj, dk);                                         \
        f[r[row] + di] += w * value;                                                    \
        wt[r[row] + di] += w;                                                           \
    }
    P2G_TAP(0, 0, 0, 0) P2G_TAP(0, 1, 0, 0) P2G_TAP(1, 0, 1, 0) P2G_TAP(1, 1, 1, 0)
    P2G_TAP(2, 0, 0, 1) P2G_TAP(2, 1, 0, 1) P2G_TAP(3, 0, 1, 1) P2G_TAP(3, 1, 1, 1)
#undef P2G_TAP
}

/* p2g without float atomics. Work-item (r, s) owns the cell row (j, k) = (3r + cy, 3s + cz):
 * its particles are one contiguous run once sorted, and it adds each of them into the faces
 * its stencils reach, which lie in rows j-1..j+1 and k-1..k+1. Rows three apart reach
 * disjoint faces, so within one of the nine launches (cy, cz) no face has two writers, and
 * every face sums its particles in the same order on every run. On a CPU each work-item is a
 * plain loop over contiguous memory; each particle is read once, not once per face. */
__kernel void p2g_scatter(__global float *u, __global float *v, __global float *w,
                          __global float *wu, __global float *wv, __global float *ww,
                          __global const float *pos, __global const float *pvel,
                          __global const int *cell_start, int4 n4, float dx, int cy, int cz)
{
    int3 n = n4.xyz;
    int j = 3 * (int)get_global_id(0) + cy, k = 3 * (int)get_global_id(1) + cz;
    if (j >= n.y || k >= n.z)
        return;
    size_t row = flat_index(n, 0, j, k);
    int q1 = cell_start[row + (size_t)n.x];
    for (int q = cell_start[row]; q < q1; q++) {
        float3 pv = load3(pvel, (size_t)q);
        Stencils st = stencils_at(n, dx, load3(pos, (size_t)q));
        splat(u, wu, n, 0, stencil_pick(st, 0), pv.x);
        splat(v, wv, n, 1, stencil_pick(st, 1), pv.y);
        splat(w, ww, n, 2, stencil_pick(st, 2), pv.z);
    }
}

/* The weighted sums become velocities: the weighted mean, or 0 where no particle reached. */
__kernel void p2g_normalize(__global float *vel, __global const float *weight, int nfaces)
{
    int f = get_global_id(0);
    if (f >= nfaces)
        return;
    float wsum = weight[f];
    vel[f] = wsum > 0.0f ? vel[f] / wsum : 0.0f;
}
