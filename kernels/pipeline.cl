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

/* partial[g] = largest |v|^2 over the chunk of particles (for the CFL substep). The maximum is
 * taken on the bits: for floats >= 0 their order as uints is their order as numbers, and an
 * integer maximum is a reduction the vectorizer knows (fmax is not, for its NaN rule). A NaN
 * speed outranks every number, and the host skips it as fmax did. */
__kernel void max_speed2(__global float *partial, __global const float *vel, int n, int chunk)
{
    int g = get_global_id(0), lo, hi;
    chunk_of(g, n, chunk, &lo, &hi);
    uint best = 0;
    for (int p = lo; p < hi; p++) {
        float vx = vel[3 * p], vy = vel[3 * p + 1], vz = vel[3 * p + 2];
        best = max(best, as_uint(vx * vx + vy * vy + vz * vz));
    }
    partial[g] = as_float(best);
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
    /* The test, in scalars (cheap for the many particles that pass it): outside the grid or
     * in a SOLID cell. After the clamp to >= 0 a conversion to int is floor, as in cell_of. */
    int nx = n4.x, ny = n4.y, nz = n4.z;
    float px = pos[3 * p], py = pos[3 * p + 1], pz = pos[3 * p + 2];
    int outside = (px < 0.0f) | (py < 0.0f) | (pz < 0.0f) | (px >= (float)nx * dx) |
                  (py >= (float)ny * dx) | (pz >= (float)nz * dx);
    int i = min((int)fmax(px / dx, 0.0f), nx - 1), j = min((int)fmax(py / dx, 0.0f), ny - 1),
        k = min((int)fmax(pz / dx, 0.0f), nz - 1);
    if (!outside && cell[i + nx * (j + ny * k)] != CELL_SOLID)
        return;
    float3 x = (float3)(px, py, pz), q;
    if (!push_out(cell, n4.xyz, dx, x, (int3)(i, j, k), &q))
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

/* Adds one particle's component to the 2 x 2 x 2 faces from i0 on (rows sy and sz apart): w v
 * to f, w to wt. Tap by tap in p2g.c's order (k, then j, then i), each weight multiplied x, y, z. */
__attribute__((always_inline)) inline void splat(__global float *f, __global float *wt, int sy,
                                                 int sz, int i0, float tx, float ty, float tz,
                                                 float value)
{
    float ux = 1.0f - tx, uy = 1.0f - ty, uz = 1.0f - tz;
#define P2G_TAP(off, wx, wy, wz)                                                        \
    {                                                                                   \
        float w = (wx) * (wy) * (wz);                                                   \
        f[i0 + (off)] += w * value;                                                     \
        wt[i0 + (off)] += w;                                                            \
    }
    P2G_TAP(0, ux, uy, uz) P2G_TAP(1, tx, uy, uz) P2G_TAP(sy, ux, ty, uz)
    P2G_TAP(sy + 1, tx, ty, uz) P2G_TAP(sz, ux, uy, tz) P2G_TAP(sz + 1, tx, uy, tz)
    P2G_TAP(sz + sy, ux, ty, tz) P2G_TAP(sz + sy + 1, tx, ty, tz)
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
    int nx = n4.x, ny = n4.y, nz = n4.z;
    int j = 3 * (int)get_global_id(0) + cy, k = 3 * (int)get_global_id(1) + cz;
    if (j >= ny || k >= nz)
        return;
    int row = nx * (j + ny * k), q1 = cell_start[row + nx];
    for (int q = cell_start[row]; q < q1; q++) {
        STENCIL_AXIS(x, pos[3 * q], nx, dx, bx, tx, hbx, htx)
        STENCIL_AXIS(y, pos[3 * q + 1], ny, dx, by, ty, hby, hty)
        STENCIL_AXIS(z, pos[3 * q + 2], nz, dx, bz, tz, hbz, htz)
        splat(u, wu, nx + 1, (nx + 1) * ny, bx + (nx + 1) * (hby + ny * hbz), tx, hty, htz,
              pvel[3 * q]);
        splat(v, wv, nx, nx * (ny + 1), hbx + nx * (by + (ny + 1) * hbz), htx, ty, htz,
              pvel[3 * q + 1]);
        splat(w, ww, nx, nx * ny, hbx + nx * (hby + ny * bz), htx, hty, tz, pvel[3 * q + 2]);
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
