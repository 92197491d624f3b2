/* pipeline.cl — the given steps of a substep as kernels (pressure rhs, extrapolate, keep inside;
 * classify within p2g_normalize) and the reductions the host reads back. flipkit kernels/: the
 * device-resident pipeline; same arithmetic and order as common/given.c, so C and OpenCL agree. */

/* A sum or maximum is taken by a fixed number of work-items, each over its own contiguous
 * chunk in index order; the host adds the partials in order. No float atomics, so the same
 * input gives the same bits on every run. */
inline void chunk_of(int g, int n, int chunk, int *lo, int *hi)
{
    *lo = min(g * chunk, n);
    *hi = min(*lo + chunk, n);
}

/* Cell types from the counting sort: FLUID where a non-solid cell holds a particle (the cell
 * of a particle is cell_along of common.cl, as in given_classify); pressure is 0 outside FLUID. */
inline void classify_cell(__global char *cell, __global float *p, __global const char *solid,
                          __global const int *start, int c)
{
    char t = solid[c] ? CELL_SOLID : start[c + 1] > start[c] ? CELL_FLUID : CELL_AIR;
    cell[c] = t;
    if (t != CELL_FLUID)
        p[c] = 0.0f;
}

/* rhs = (rho/dt) div in FLUID, 0 elsewhere; p = 0 outside FLUID (the warm start keeps p only
 * where there is fluid); and what the solvers start from, b = -dx^2 rhs and the double
 * iterate x = p in FLUID cells (0 elsewhere), so that one wait reads both norms' partial sums:
 * partial[g] = the sum of rhs^2 over the chunk, partial[nparts + g] that of b^2. */
__kernel void pressure_rhs(__global float *rhs, __global float *b, __global double *x,
                           __global float *p, __global double *partial, __global const float *div,
                           __global const char *cell, float scale, float dx2, int n, int chunk,
                           int nparts)
{
    int g = get_global_id(0), lo, hi;
    if (g >= nparts)
        return;
    chunk_of(g, n, chunk, &lo, &hi);
    double sum = 0.0, sum_b = 0.0;
    for (int c = lo; c < hi; c++) {
        int fluid = cell[c] == CELL_FLUID;
        float r = fluid ? scale * div[c] : 0.0f, bc = fluid ? -dx2 * r : 0.0f;
        rhs[c] = r;
        b[c] = bc;
        sum += (double)r * r;
        sum_b += (double)bc * bc;
        if (!fluid)
            p[c] = 0.0f;
        x[c] = fluid ? (double)p[c] : 0.0;
    }
    partial[g] = sum;
    partial[nparts + g] = sum_b;
}

/* partial[g] = largest |v|^2 over the chunk of particles (for the CFL substep). The maximum is
 * taken on the bits: for floats >= 0 their order as uints is their order as numbers, and an
 * integer maximum is a reduction the vectorizer knows (fmax is not, for its NaN rule). A NaN
 * speed counts as 0 here, as fmax left it out. */
__kernel void max_speed2(__global float *partial, __global const float *vel, int n, int chunk)
{
    int g = get_global_id(0), lo, hi;
    chunk_of(g, n, chunk, &lo, &hi);
    uint best = 0;
    for (int p = lo; p < hi; p++) {
        float vx = vel[3 * p], vy = vel[3 * p + 1], vz = vel[3 * p + 2];
        float s2 = vx * vx + vy * vy + vz * vz;
        best = max(best, s2 == s2 ? as_uint(s2) : 0u);
    }
    partial[g] = as_float(best);
}

/* Up to three checks in one launch (a launch costs a small grid more than reading its arrays):
 * check q (get_global_id(1)) looks for a value of v_q[0 .. n_q) that is not finite, a chunk per
 * work-item. What the first launch to find one found is kept in record: record[0] is the
 * smallest key found, key = base + q * CHECK_NUMBERS + check_q, where base orders the
 * launches (the host counts them: seq * CHECK_SLOTS * CHECK_NUMBERS), so that the first launch
 * wins and within it the first check; record[1 + q] is the smallest index check q found. A
 * later launch (its base above record[0]) leaves both alone. fluid_only: the arrays are per
 * cell and only FLUID cells' values are read by anyone (divergence runs on their box only, the
 * rest of div keeps what it held). Reads only. */
#define CHECK_SLOTS 4
#define CHECK_NUMBERS 64
__kernel void first_nonfinite(__global const float *v0, __global const float *v1,
                              __global const float *v2, int4 checks, int4 counts, int4 chunks,
                              __global const char *cell, int fluid_only, int base,
                              __global volatile int *record)
{
    int g = get_global_id(0), q = get_global_id(1), lo, hi;
    /* (a launch of three checks is rounded up to a fourth row of work-items: checks.w, -1) */
    int check = q == 0 ? checks.x : q == 1 ? checks.y : q == 2 ? checks.z : -1;
    int n = q == 0 ? counts.x : q == 1 ? counts.y : counts.z;
    int chunk = q == 0 ? chunks.x : q == 1 ? chunks.y : chunks.z;
    __global const float *v = q == 0 ? v0 : q == 1 ? v1 : v2;
    if (check < 0 || record[0] < base)
        return;
    chunk_of(g, n, chunk, &lo, &hi);
    for (int c = lo; c < hi; c++)
        if (!isfinite(v[c]) && (!fluid_only || cell[c] == CELL_FLUID)) {
            atomic_min(&record[0], base + q * CHECK_NUMBERS + check);
            atomic_min(&record[1 + q], c);
            return;
        }
}

/* ---- extrapolation into air (given_extrapolate) --------------------------------------- */

/* known[f]: EXTRAP_KNOWN where the projection set the velocity (not solid, FLUID on at least one
 * side), EXTRAP_WALL on a wall (SOLID on exactly one side: it keeps the wall's normal velocity
 * 0 and is never a source), else 0. The layers then need no cell types. */
#define EXTRAP_KNOWN 1
#define EXTRAP_WALL 2
__kernel void extrap_init(__global uchar *known, __global uchar *next, __global float *vel,
                          __global const char *cell, int4 n4, int a, int4 lo4, int4 hi4)
{
    int3 n = n4.xyz, fn = face_dims(n, a);
    int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    if (i >= fn.x || j >= fn.y || k >= fn.z)
        return;
    int lo = face_below(cell, n, a, i, j, k), hi = cell_type(cell, n, i, j, k);
    int set = lo != CELL_SOLID && hi != CELL_SOLID && (lo == CELL_FLUID || hi == CELL_FLUID);
    int wall = (lo == CELL_SOLID) != (hi == CELL_SOLID); /* grid_face_on_wall */
    size_t f = flat_index(fn, i, j, k);
    known[f] = next[f] = set ? EXTRAP_KNOWN : wall ? EXTRAP_WALL : 0;
    /* Outside [lo, hi) no face is known or within reach of one: the layers, launched on the
     * box only, would set it to 0 at the end, so it is set here. */
    if (i < lo4.x || j < lo4.y || k < lo4.z || i >= hi4.x || j >= hi4.y || k >= hi4.z)
        vel[f] = 0.0f;
}

/* One layer: an unknown face with known neighbours takes their average (faces inside solids
 * too: free-slip ghost values, see given_extrapolate). Reads known, writes next, so faces set
 * in this layer are not sources within it. The last layer also sets the faces still unknown,
 * and the wall faces, to 0, as given_extrapolate ends, which saves a launch per component.
 * In scalars with int indices, so that a CPU device runs it through its vector lanes. */
#define EXTRAP_TAKE(ok, g)                                                                \
    if ((ok) && known[g] == EXTRAP_KNOWN) {                                               \
        sum += vel[g];                                                                    \
        count++;                                                                          \
    }
__kernel void extrap_layer(__global float *vel, __global uchar *next, __global const uchar *known,
                           int4 fn4, int4 hi4, int last)
{
    int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    if (i >= hi4.x || j >= hi4.y || k >= hi4.z)
        return;
    int sy = fn4.x, sz = fn4.x * fn4.y, f = i + sy * j + sz * k;
    int state = known[f];
    float sum = 0.0f;
    int count = 0;
    /* the six neighbours in the order -x +x -y +y -z +z */
    EXTRAP_TAKE(i > 0, f - 1)
    EXTRAP_TAKE(i + 1 < fn4.x, f + 1)
    EXTRAP_TAKE(j > 0, f - sy)
    EXTRAP_TAKE(j + 1 < fn4.y, f + sy)
    EXTRAP_TAKE(k > 0, f - sz)
    EXTRAP_TAKE(k + 1 < fn4.z, f + sz)
    if (state == 0) {
        next[f] = count > 0 ? EXTRAP_KNOWN : 0;
        if (count > 0)
            vel[f] = sum / (float)count;
        else if (last)
            vel[f] = 0.0f;
    } else {
        next[f] = state;
        if (state == EXTRAP_WALL && last)
            vel[f] = 0.0f;
    }
}
#undef EXTRAP_TAKE

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

/* Also leaves each particle's cell in keys[p] for the next sort (pipe_sort_index): the test
 * needs it anyway. */
__kernel void keep_inside(__global float *pos, __global float *vel, __global int *keys,
                          __global const char *cell, int4 n4, float dx, int count)
{
    int p = get_global_id(0);
    if (p >= count)
        return;
    /* The test, in scalars (cheap for the many particles that pass it): outside the grid or
     * in a SOLID cell. */
    int nx = n4.x, ny = n4.y, nz = n4.z;
    float px = pos[3 * p], py = pos[3 * p + 1], pz = pos[3 * p + 2];
    int outside = (px < 0.0f) | (py < 0.0f) | (pz < 0.0f) | (px >= (float)nx * dx) |
                  (py >= (float)ny * dx) | (pz >= (float)nz * dx);
    int i = cell_along(px, dx, nx), j = cell_along(py, dx, ny), k = cell_along(pz, dx, nz);
    int key = i + nx * (j + ny * k);
    keys[p] = key;
    if (!outside && cell[key] != CELL_SOLID)
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
    keys[p] = cell_along(q.x, dx, nx) + nx * (cell_along(q.y, dx, ny) + ny * cell_along(q.z, dx, nz));
}

/* ---- p2g for the pipeline: a row-coloured pass over particles sorted by cell -------------- */

/* Adds a cell's sums s and weights t into f and wt: lanes 0-1, 2-3 and 4-5 into the face pairs
 * at base, base + st, base + 2 st (ok0..ok2: that row lies in the grid; outside it every
 * particle's weight is 0, as the stencil clamps). Adding a lane of 0 leaves a face as it is. */
#define P2G_FLUSH_PAIRS(s, t, f, wt, base, st, ok0, ok1, ok2)                            \
    do {                                                                                   \
        if (ok0) {                                                                         \
            vstore2(vload2(0, f + (base)) + (s).s01, 0, f + (base));                       \
            vstore2(vload2(0, wt + (base)) + (t).s01, 0, wt + (base));                     \
        }                                                                                  \
        if (ok1) {                                                                         \
            vstore2(vload2(0, f + (base) + (st)) + (s).s23, 0, f + (base) + (st));         \
            vstore2(vload2(0, wt + (base) + (st)) + (t).s23, 0, wt + (base) + (st));       \
        }                                                                                  \
        if (ok2) {                                                                         \
            vstore2(vload2(0, f + (base) + 2 * (st)) + (s).s45, 0, f + (base) + 2 * (st)); \
            vstore2(vload2(0, wt + (base) + 2 * (st)) + (t).s45, 0, wt + (base) + 2 * (st)); \
        }                                                                                  \
    } while (0)
/* The same for lanes 0-2 and 3-5 into face triples at base and base + st. */
#define P2G_FLUSH_TRIPLES(s, t, f, wt, base, st)                                         \
    do {                                                                                   \
        vstore3(vload3(0, f + (base)) + (s).s012, 0, f + (base));                          \
        vstore3(vload3(0, wt + (base)) + (t).s012, 0, wt + (base));                        \
        vstore3(vload3(0, f + (base) + (st)) + (s).s345, 0, f + (base) + (st));            \
        vstore3(vload3(0, wt + (base) + (st)) + (t).s345, 0, wt + (base) + (st));          \
    } while (0)

/* p2g without float atomics. Work-item (r, s) owns the cell row (j, k) = (3r + cy, 3s + cz):
 * its particles are one contiguous run once sorted, and the faces their stencils reach lie in
 * rows j-1..j+1 and k-1..k+1. Rows three apart reach disjoint faces, so within one of the nine
 * launches (cy, cz) no face has two writers, and every face sums in the same order on every run.
 *
 * Cell by cell along the row, a cell's particles are summed in registers first: per component
 * the 18 faces a particle of cell (i, j, k) can reach (2 along the component's axis, 3 across
 * it each way), as three float8 of six lanes, each lane's weight multiplied x, y, z as in
 * grid.c. Then each face gets the cell's sum with one add, where a face per particle per tap
 * was read and written before: those adds, chained through memory from one particle to the
 * next, were most of the kernel. */
__attribute__((always_inline)) inline void p2g_scatter_row(
    __global float *u, __global float *v, __global float *w, __global float *wu,
    __global float *wv, __global float *ww, __global const float *pos,
    __global const float *pvel, __global const int *cell_start, int4 n4, float dx, int j, int k)
{
    int nx = n4.x, ny = n4.y, nz = n4.z;
    if (j >= ny || k >= nz)
        return;
    int row = nx * (j + ny * k);
    /* face strides: u is (nx+1) x ny x nz, v nx x (ny+1) x nz, w nx x ny x (nz+1) */
    int uy = nx + 1, uz = (nx + 1) * ny, vy = nx, vz = nx * (ny + 1), wy = nx, wz = nx * ny;
    float4 nf = convert_float4(n4);
    for (int i = 0; i < nx; i++) {
        int4 cell = (int4)(i, j, k, 0);
        int q0 = cell_start[row + i], q1 = cell_start[row + i + 1];
        if (q0 == q1)
            continue;
        float8 su0 = 0.0f, su1 = 0.0f, su2 = 0.0f, tu0 = 0.0f, tu1 = 0.0f, tu2 = 0.0f;
        float8 sv0 = 0.0f, sv1 = 0.0f, sv2 = 0.0f, tv0 = 0.0f, tv1 = 0.0f, tv2 = 0.0f;
        float8 sw0 = 0.0f, sw1 = 0.0f, sw2 = 0.0f, tw0 = 0.0f, tw1 = 0.0f, tw2 = 0.0f;
        for (int q = q0; q < q1; q++) {
            /* STENCIL_AXIS for the three axes at once, in float4 lanes x, y, z (the same
             * operations per lane, so the same bits; a float4 division where there were three
             * scalar ones; the fourth lane, 0 / dx against n4.w = 0, goes unused). b is the cell
             * the sort put the particle in, t the fraction across it; a0..a2 are the weights,
             * along each axis, of the faces c - 1, c, c + 1 of a component across it, whose
             * stencil base hb is c - 1 or c with fraction ht. That b is the sort's cell needs
             * the vector division to round as cell_along's scalar one: on PoCL both are the
             * CPU's IEEE division (the build does not ask for correctly rounded division). */
            float4 f0 = (float4)(pos[3 * q], pos[3 * q + 1], pos[3 * q + 2], 0.0f) / dx;
            float4 f1 = f0 - 0.5f;
            f0 = fmin(select((float4)0.0f, f0, f0 >= 0.0f), nf);
            f1 = fmin(fmax(f1, 0.0f), nf - 1.0f);
            int4 b = min(convert_int4(f0), n4 - 1), hb = min(convert_int4(f1), n4 - 2);
            float4 t = f0 - convert_float4(b), ht = f1 - convert_float4(hb);
            int4 lo = hb < cell;
            float4 ot = 1.0f - t, oht = 1.0f - ht;
            float4 a0 = select((float4)0.0f, oht, lo), a1 = select(oht, ht, lo),
                   a2 = select(ht, (float4)0.0f, lo);
            float pu = pvel[3 * q], pv = pvel[3 * q + 1], pw = pvel[3 * q + 2];
            /* u: lanes (x, y) = (i..i+1, j-1..j+1), one float8 per z row k-1..k+1 */
            float8 xy = (float8)(ot.x, t.x, ot.x, t.x, ot.x, t.x, 0.0f, 0.0f) *
                        (float8)(a0.y, a0.y, a1.y, a1.y, a2.y, a2.y, 0.0f, 0.0f);
            float8 e = xy * a0.z; su0 += e * pu; tu0 += e;
            e = xy * a1.z; su1 += e * pu; tu1 += e;
            e = xy * a2.z; su2 += e * pu; tu2 += e;
            /* v: lanes (x, y) = (i-1..i+1, j..j+1), one float8 per z row k-1..k+1 */
            float8 xs = (float8)(a0.x, a1.x, a2.x, a0.x, a1.x, a2.x, 0.0f, 0.0f);
            xy = xs * (float8)(ot.y, ot.y, ot.y, t.y, t.y, t.y, 0.0f, 0.0f);
            e = xy * a0.z; sv0 += e * pv; tv0 += e;
            e = xy * a1.z; sv1 += e * pv; tv1 += e;
            e = xy * a2.z; sv2 += e * pv; tv2 += e;
            /* w: lanes (x, z) = (i-1..i+1, k..k+1), one float8 per y row j-1..j+1 */
            float8 zs = (float8)(ot.z, ot.z, ot.z, t.z, t.z, t.z, 0.0f, 0.0f);
            e = xs * a0.y * zs; sw0 += e * pw; tw0 += e;
            e = xs * a1.y * zs; sw1 += e * pw; tw1 += e;
            e = xs * a2.y * zs; sw2 += e * pw; tw2 += e;
        }
        /* Rows outside the grid are skipped (every particle gave them weight 0). Along x, u's
         * pair is always in the grid; v's and w's triple i-1..i+1 is moved in by one at the
         * grid's ends, where the lane beyond it holds 0, so the triple's sums shift with it. */
        int jm = j > 0, jp = j + 1 < ny, km = k > 0, kp = k + 1 < nz;
        int u0 = i + uy * (j - 1) + uz * (k - 1);
        if (km)
            P2G_FLUSH_PAIRS(su0, tu0, u, wu, u0, uy, jm, 1, jp);
        P2G_FLUSH_PAIRS(su1, tu1, u, wu, u0 + uz, uy, jm, 1, jp);
        if (kp)
            P2G_FLUSH_PAIRS(su2, tu2, u, wu, u0 + 2 * uz, uy, jm, 1, jp);
        /* x lanes i-1..i+1: at i = 0 lane 0 is 0, at i = nx-1 lane 2 is 0 */
        int sh = i == 0 ? 1 : i == nx - 1 ? -1 : 0;
        if (sh == 1) {
            sv0 = sv0.s12645666; tv0 = tv0.s12645666; sv1 = sv1.s12645666; tv1 = tv1.s12645666;
            sv2 = sv2.s12645666; tv2 = tv2.s12645666; sw0 = sw0.s12645666; tw0 = tw0.s12645666;
            sw1 = sw1.s12645666; tw1 = tw1.s12645666; sw2 = sw2.s12645666; tw2 = tw2.s12645666;
        } else if (sh == -1) {
            sv0 = sv0.s60163466; tv0 = tv0.s60163466; sv1 = sv1.s60163466; tv1 = tv1.s60163466;
            sv2 = sv2.s60163466; tv2 = tv2.s60163466; sw0 = sw0.s60163466; tw0 = tw0.s60163466;
            sw1 = sw1.s60163466; tw1 = tw1.s60163466; sw2 = sw2.s60163466; tw2 = tw2.s60163466;
        }
        int v0 = i - 1 + sh + vy * j + vz * (k - 1);
        /* (grid_init makes every grid at least 3 cells along each axis, so the triple fits) */
        if (km)
            P2G_FLUSH_TRIPLES(sv0, tv0, v, wv, v0, vy);
        P2G_FLUSH_TRIPLES(sv1, tv1, v, wv, v0 + vz, vy);
        if (kp)
            P2G_FLUSH_TRIPLES(sv2, tv2, v, wv, v0 + 2 * vz, vy);
        int w0 = i - 1 + sh + wy * (j - 1) + wz * k;
        if (jm)
            P2G_FLUSH_TRIPLES(sw0, tw0, w, ww, w0, wz);
        P2G_FLUSH_TRIPLES(sw1, tw1, w, ww, w0 + wy, wz);
        if (jp)
            P2G_FLUSH_TRIPLES(sw2, tw2, w, ww, w0 + 2 * wy, wz);
    }
}

__kernel void p2g_scatter(__global float *u, __global float *v, __global float *w,
                          __global float *wu, __global float *wv, __global float *ww,
                          __global const float *pos, __global const float *pvel,
                          __global const int *cell_start, int4 n4, float dx, int cy, int cz)
{
    p2g_scatter_row(u, v, w, wu, wv, ww, pos, pvel, cell_start, n4, dx,
                    3 * (int)get_global_id(0) + cy, 3 * (int)get_global_id(1) + cz);
}

/* The nine launches of p2g_scatter as one work-group (pipe_p2g picks it for few particles on a
 * small grid, where the launches cost more than the rows): the same colours in the same order,
 * a barrier between them, each row by one work-item, so every face sums as it does there. */
__kernel void p2g_scatter_small(__global float *u, __global float *v, __global float *w,
                                __global float *wu, __global float *wv, __global float *ww,
                                __global const float *pos, __global const float *pvel,
                                __global const int *cell_start, int4 n4, float dx)
{
    int me = get_local_id(0), size = (int)get_local_size(0);
    int rows_y = (n4.y + 2) / 3, rows = rows_y * ((n4.z + 2) / 3);
    for (int cz = 0; cz < 3; cz++)
        for (int cy = 0; cy < 3; cy++) {
            for (int r = me; r < rows; r += size)
                p2g_scatter_row(u, v, w, wu, wv, ww, pos, pvel, cell_start, n4, dx,
                                3 * (r % rows_y) + cy, 3 * (r / rows_y) + cz);
            barrier(CLK_GLOBAL_MEM_FENCE);
        }
}

/* The weighted sums become velocities: the weighted mean, or 0 where no particle reached; old
 * gets a copy, the grid velocity before the forces, for FLIP's change in g2p. The sums, and
 * the weights unless the stage track reads them (clear_weight 0), are read here only, so they
 * are left 0 for the next substep's p2g_scatter: that spares it two clearing passes per
 * component. classify_cells > 0: also classify cells 0 .. classify_cells - 1 from the sort's
 * starts (the pipeline's classify, fused into u's pass, which has more faces than there are
 * cells: a launch and a pass fewer). */
__kernel void p2g_normalize(__global float *vel, __global float *old, __global float *sum,
                            __global float *weight, int clear_weight, int nfaces,
                            __global char *cell, __global float *p, __global const char *solid,
                            __global const int *start, int classify_cells)
{
    int f = get_global_id(0);
    if (f >= nfaces)
        return;
    float wsum = weight[f];
    float v = wsum > 0.0f ? sum[f] / wsum : 0.0f;
    vel[f] = v;
    old[f] = v;
    sum[f] = 0.0f;
    if (clear_weight)
        weight[f] = 0.0f;
    if (f < classify_cells)
        classify_cell(cell, p, solid, start, f);
}

/* The first `words` of m = 0, a word per work-item (pipe_zero). */
__kernel void fill_zero(__global uint *m, int words)
{
    int c = get_global_id(0);
    if (c < words)
        m[c] = 0;
}
