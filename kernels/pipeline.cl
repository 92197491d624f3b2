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

/* One layer: an unknown, non-solid face with known neighbours takes their average. Reads
 * known, writes next, so faces set in this layer are not sources within it. */
__kernel void extrap_layer(__global float *vel, __global uchar *next, __global const uchar *known,
                           __global const char *cell, int4 n4, int a)
{
    int3 n = n4.xyz, fn = face_dims(n, a);
    int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    if (i >= fn.x || j >= fn.y || k >= fn.z)
        return;
    size_t f = flat_index(fn, i, j, k);
    if (known[f] || face_is_solid(cell, n, a, i, j, k)) {
        next[f] = known[f];
        return;
    }
    const int nb[6][3] = { { -1, 0, 0 }, { 1, 0, 0 }, { 0, -1, 0 },
                           { 0, 1, 0 },  { 0, 0, -1 }, { 0, 0, 1 } };
    float sum = 0.0f;
    int count = 0;
    for (int q = 0; q < 6; q++) {
        int ii = i + nb[q][0], jj = j + nb[q][1], kk = k + nb[q][2];
        if (ii < 0 || jj < 0 || kk < 0 || ii >= fn.x || jj >= fn.y || kk >= fn.z)
            continue;
        size_t g = flat_index(fn, ii, jj, kk);
        if (known[g]) {
            sum += vel[g];
            count++;
        }
    }
    if (count > 0)
        vel[f] = sum / (float)count;
    next[f] = count > 0;
}

__kernel void extrap_finish(__global float *vel, __global const uchar *known, int nfaces)
{
    int f = get_global_id(0);
    if (f < nfaces && !known[f])
        vel[f] = 0.0f;
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

/* ---- p2g for the pipeline: each particle's stencil computed once, then gathered ------------ */

/* Per particle (in sorted order q) and axis a: the stencil's base face packed 10 bits per
 * axis, and its fractions with the particle's velocity component in .w. The gather then reads
 * contiguous memory and does no floor or clamping. Grids are at most 1023 cells along an axis. */
__kernel void p2g_prepare(__global int *base_out, __global float4 *tw_out,
                          __global const float *pos, __global const float *pvel,
                          __global const int *sorted, int4 n4, float dx, int count)
{
    int q = get_global_id(0);
    if (q >= count)
        return;
    int p = sorted[q];
    float3 x = load3(pos, p);
    for (int a = 0; a < 3; a++) {
        int base[3];
        float t[3];
        stencil(n4.xyz, dx, a, x, base, t);
        base_out[3 * q + a] = base[0] | base[1] << 10 | base[2] << 20;
        tw_out[3 * q + a] = (float4)(t[0], t[1], t[2], pvel[3 * p + a]);
    }
}

/* p2g as a gather over the prepared stencils: face (a; i,j,k) sums the particles of the cells
 * whose stencil can reach it, cell by cell, each cell's particles in index order. */
__kernel void p2g_gather(__global float *vel, __global float *weight, __global const int *base_in,
                         __global const float4 *tw_in, __global const int *cell_start, int4 n4,
                         int a)
{
    int3 n = n4.xyz, fn = face_dims(n, a);
    int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    if (i >= fn.x || j >= fn.y || k >= fn.z)
        return;
    int face[3] = { i, j, k }, lo[3], hi[3], ns[3] = { n.x, n.y, n.z };
    for (int d = 0; d < 3; d++) {
        lo[d] = max(face[d] - 1, 0);
        hi[d] = min(face[d] + (d == a ? 0 : 1), ns[d] - 1);
    }
    float sum = 0.0f, wsum = 0.0f;
    for (int ck = lo[2]; ck <= hi[2]; ck++)
        for (int cj = lo[1]; cj <= hi[1]; cj++) {
            /* the cells ci = lo[0]..hi[0] of one row are one contiguous run of sorted particles */
            size_t c0 = flat_index(n, lo[0], cj, ck);
            int q0 = cell_start[c0], q1 = cell_start[c0 + (size_t)(hi[0] - lo[0]) + 1];
            for (int q = q0; q < q1; q++) {
                int b = base_in[3 * q + a];
                int di = i - (b & 1023), dj = j - (b >> 10 & 1023), dk = k - (b >> 20 & 1023);
                if ((uint)di > 1u || (uint)dj > 1u || (uint)dk > 1u)
                    continue;
                float4 tw = tw_in[3 * q + a];
                float w = (di ? tw.x : 1.0f - tw.x) * (dj ? tw.y : 1.0f - tw.y) *
                          (dk ? tw.z : 1.0f - tw.z);
                sum += w * tw.w;
                wsum += w;
            }
        }
    size_t f = flat_index(fn, i, j, k);
    vel[f] = wsum > 0.0f ? sum / wsum : 0.0f;
    weight[f] = wsum;
}
