/* solvers.cl — the pressure solvers' kernels: red-black Gauss-Seidel/SOR, the multigrid V-cycle,
 * and the vector steps of conjugate gradients. flipkit kernels/: they solve A x = b with
 * A = -dx^2 L (N on the diagonal, -1 to each FLUID neighbour), as reference/multigrid.c does.
 * The CG iterate and residual are double, for the reason given in reference/pcg.c. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* ---- per level: types, neighbour counts, sweeps, residual, transfers --------------------- */

/* Per FLUID cell: bits 0-5 say which neighbours (-x, +x, -y, +y, -z, +z) are FLUID, bit 7
 * (INFO_FLUID) that the cell is, bits 8-10 hold N, the count of non-SOLID ones; 0 elsewhere.
 * Precomputing it once per solve spares every sweep the six bounds-checked type lookups
 * (coarse levels can have FLUID cells on the array's edge). */
#define INFO_FLUID 0x80u

/* clear: also x = r = 0 over the level, once per solve, for a level mg_down_serial runs on
 * its box only (pipe_fluid_box says why they must be 0 outside it). */
__kernel void mg_count(__global ushort *info, __global const char *type, int4 n4,
                       __global float *x, __global float *r, int clear)
{
    int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    if (i >= n4.x || j >= n4.y || k >= n4.z)
        return;
    int sy = n4.x, sz = n4.x * n4.y, c = i + sy * j + sz * k;
    if (clear) {
        x[c] = 0.0f;
        r[c] = 0.0f;
    }
    if (type[c] != CELL_FLUID) {
        info[c] = 0;
        return;
    }
    /* the six neighbours written out (a table indexed in a loop lives in memory on a CPU
     * device), each outside the array counted as SOLID, as cell_type does */
    int t0 = i > 0 ? type[c - 1] : CELL_SOLID, t1 = i + 1 < n4.x ? type[c + 1] : CELL_SOLID;
    int t2 = j > 0 ? type[c - sy] : CELL_SOLID, t3 = j + 1 < n4.y ? type[c + sy] : CELL_SOLID;
    int t4 = k > 0 ? type[c - sz] : CELL_SOLID, t5 = k + 1 < n4.z ? type[c + sz] : CELL_SOLID;
    uint mask = (uint)(t0 == CELL_FLUID) | (uint)(t1 == CELL_FLUID) << 1 |
                (uint)(t2 == CELL_FLUID) << 2 | (uint)(t3 == CELL_FLUID) << 3 |
                (uint)(t4 == CELL_FLUID) << 4 | (uint)(t5 == CELL_FLUID) << 5;
    uint count = (uint)(t0 != CELL_SOLID) + (uint)(t1 != CELL_SOLID) + (uint)(t2 != CELL_SOLID) +
                 (uint)(t3 != CELL_SOLID) + (uint)(t4 != CELL_SOLID) + (uint)(t5 != CELL_SOLID);
    info[c] = (ushort)(mask | INFO_FLUID | count << 8);
}

/* Whether cells [i0, i0 + 16) of a row, cut at n, hold a FLUID one: 16 at a time where they
 * fit. */
inline int block_has_fluid(__global const char *row, int i0, int n)
{
    if (i0 + 16 <= n)
        return any(vload16(0, row + i0) == (char16)CELL_FLUID);
    for (int i = i0; i < n; i++)
        if (row[i] == CELL_FLUID)
            return 1;
    return 0;
}

/* The box around the FLUID cells of the cell rows (j, k) numbered [g * chunk, (g + 1) * chunk)
 * in j + ny k order: part g gets min i, j, k and max i, j, k (no FLUID cell: n and -1). The
 * solvers, divergence and gradient then launch on the box only: in a splash most of the grid
 * is air, and a sweep over it is pure memory traffic. Parts of rows, not of z-slabs, so that
 * both cores share the scan (by slab, the 64 slabs of 64^3 fell in one work-group; a grid of
 * fewer than nparts rows leaves the last parts empty). A row is read 16 cells at a time from
 * each end up to its first block holding FLUID, and only those two blocks are looked into cell
 * by cell. */
__kernel void fluid_bounds(__global int *part, __global const char *type, int4 n4, int chunk,
                           int nparts)
{
    int3 n = n4.xyz;
    int g = get_global_id(0);
    if (g >= nparts)    /* the launch is rounded up to whole work-groups */
        return;
    int3 lo = n, hi = (int3)(-1);
    int rows = n.y * n.z, end = min((g + 1) * chunk, rows);
    for (int r = g * chunk; r < end; r++) {
        __global const char *row = type + (size_t)r * n.x;
        int a = 0, b = (n.x - 1) / 16 * 16;
        while (a < n.x && !block_has_fluid(row, a, n.x))
            a += 16;
        if (a >= n.x)
            continue;
        while (!block_has_fluid(row, b, n.x)) /* stops at block a at the latest */
            b -= 16;
        int first = a, last = min(b + 15, n.x - 1);
        while (row[first] != CELL_FLUID)
            first++;
        while (row[last] != CELL_FLUID)
            last--;
        int j = r % n.y, k = r / n.y;
        lo = min(lo, (int3)(first, j, k));
        hi = max(hi, (int3)(last, j, k));
    }
    part[6 * g + 0] = lo.x; part[6 * g + 1] = lo.y; part[6 * g + 2] = lo.z;
    part[6 * g + 3] = hi.x; part[6 * g + 4] = hi.y; part[6 * g + 5] = hi.z;
}

/* McAdams et al.: a coarse cell is AIR if any child is AIR, else FLUID if any is, else SOLID. */
__kernel void mg_coarsen(__global char *coarse, __global const char *fine, int4 nc4, int4 nf4)
{
    int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    if (i >= nc4.x || j >= nc4.y || k >= nc4.z)
        return;
    /* the eight children written out; one past the fine grid's end (an odd size) is SOLID */
    int fx = 2 * i, fy = 2 * j, fz = 2 * k, sy = nf4.x, sz = nf4.x * nf4.y;
    int ox = fx + 1 < nf4.x, oy = fy + 1 < nf4.y, oz = fz + 1 < nf4.z;
    int f = fx + sy * fy + sz * fz;
    int c0 = fine[f], c1 = ox ? fine[f + 1] : CELL_SOLID;
    int c2 = oy ? fine[f + sy] : CELL_SOLID, c3 = ox && oy ? fine[f + sy + 1] : CELL_SOLID;
    int c4 = oz ? fine[f + sz] : CELL_SOLID, c5 = ox && oz ? fine[f + sz + 1] : CELL_SOLID;
    int c6 = oy && oz ? fine[f + sz + sy] : CELL_SOLID;
    int c7 = ox && oy && oz ? fine[f + sz + sy + 1] : CELL_SOLID;
    int air = (c0 == CELL_AIR) | (c1 == CELL_AIR) | (c2 == CELL_AIR) | (c3 == CELL_AIR) |
              (c4 == CELL_AIR) | (c5 == CELL_AIR) | (c6 == CELL_AIR) | (c7 == CELL_AIR);
    int fluid = (c0 == CELL_FLUID) | (c1 == CELL_FLUID) | (c2 == CELL_FLUID) | (c3 == CELL_FLUID) |
                (c4 == CELL_FLUID) | (c5 == CELL_FLUID) | (c6 == CELL_FLUID) | (c7 == CELL_FLUID);
    coarse[i + nc4.x * (j + nc4.y * k)] = air ? CELL_AIR : fluid ? CELL_FLUID : CELL_SOLID;
}

/* s += x over the FLUID neighbours of cell c named by the mask of info (mg_count), in this
 * order; s is float or double, as the caller's sum needs (apply_A_dot, residual_d: double). */
#define ADD_FLUID_NEIGHBOURS(s, x, c, info, sy, sz)                                            \
    do {                                                                                        \
        if ((info) & 1) s += (x)[(c) - 1];                                                     \
        if ((info) & 2) s += (x)[(c) + 1];                                                     \
        if ((info) & 4) s += (x)[(c) - (sy)];                                                  \
        if ((info) & 8) s += (x)[(c) + (sy)];                                                  \
        if ((info) & 16) s += (x)[(c) - (sz)];                                                 \
        if ((info) & 32) s += (x)[(c) + (sz)];                                                 \
    } while (0)

/* Sum of x over the FLUID neighbours named by the mask of info (mg_count). */
inline float fluid_sum(__global const float *x, size_t c, uint info, size_t sy, size_t sz)
{
    float s = 0.0f;
    ADD_FLUID_NEIGHBOURS(s, x, c, info, sy, sz);
    return s;
}

inline float neighbour_count(uint info)
{
    return (float)(info >> 8);
}

/* Red-black half sweeps on a small level by one work-item: sweeps x (colour c0, then the
 * other), each cell in mg_smooth_split's arithmetic: x += omega ((b + sum) / N - x) over the
 * FLUID cells with (i+j+k) % 2 == colour in the box [lo, hi) that holds them. A colour's cells
 * read only the other colour, so the order within it changes nothing; what one work-item
 * saves is the launches, which cost more than the sweeps on a level of a few thousand cells. */
inline void rb_sweeps_serial(__global float *x, __global const float *b,
                             __global const ushort *info, int3 n, int3 lo, int3 hi, int sweeps,
                             int c0, float omega)
{
    for (int s = 0; s < sweeps; s++)
        for (int h = 0; h < 2; h++) {
            int colour = h ? 1 - c0 : c0;
            for (int k = lo.z; k < hi.z; k++)
                for (int j = lo.y; j < hi.y; j++)
                    for (int i = lo.x + ((lo.x + j + k + colour) & 1); i < hi.x; i += 2) {
                        size_t c = flat_index(n, i, j, k);
                        uint f = info[c];
                        if ((f >> 8) == 0)
                            continue;
                        float gs = (b[c] + fluid_sum(x, c, f, (size_t)n.x, (size_t)n.x * n.y)) /
                                   neighbour_count(f);
                        x[c] += omega * (gs - x[c]);
                    }
        }
}

__kernel void mg_smooth_serial(__global float *x, __global const float *b,
                               __global const ushort *info, int4 n4, int sweeps, int c0,
                               float omega)
{
    rb_sweeps_serial(x, b, info, n4.xyz, (int3)(0), n4.xyz, sweeps, c0, omega);
}

/* r = b - A x in FLUID cells, 0 elsewhere: cell c of level n. */
__attribute__((always_inline)) inline void residual_at(__global float *r, __global const float *x, __global const float *b,
                        __global const char *type, __global const ushort *info, int3 n, size_t c)
{
    uint f = info[c];
    r[c] = type[c] == CELL_FLUID
               ? b[c] - (neighbour_count(f) * x[c] - fluid_sum(x, c, f, (size_t)n.x, (size_t)n.x * n.y))
               : 0.0f;
}

/* The fine cells whose trilinear stencil touches coarse cell I (of nc) along one axis: 2I-1
 * and 2I+2 with weight 1/4, 2I and 2I+1 with 3/4, or the whole weight 1 where the child's other
 * parent would lie past the grid's end, in the wall (mg_parents in multigrid.c, read the other
 * way, says why). */
inline float child_weight(int q, int I, int nc)
{
    return q == 0 || q == 3 ? 0.25f : (q == 1 && I == 0) || (q == 2 && I == nc - 1) ? 1.0f : 0.75f;
}

/* coarse b = (1/2) P^T fine r, gathered per coarse cell; 0 where the coarse cell is not FLUID.
 * The 64 terms add k, then j, then i, each weight multiplied 1/2, x, y, z. A child outside the
 * fine grid gets weight 0 at a clamped index, which adds 0 and leaves the sum as it is to the
 * bit; no branch, so that the work-group runs through the vector lanes. */
__attribute__((always_inline)) inline void restrict_at(__global float *cb, __global const float *fr, __global const char *ctype,
                        int4 nc4, int4 nf4, int I, int J, int K)
{
    int C = I + nc4.x * (J + nc4.y * K);
    int sy = nf4.x, sz = nf4.x * nf4.y;
    float sum = 0.0f;
#pragma unroll
    for (int qk = 0; qk < 4; qk++) {
        int k = 2 * K - 1 + qk;
        float wk = ((k >= 0) & (k < nf4.z)) ? child_weight(qk, K, nc4.z) : 0.0f;
        int rk = clamp(k, 0, nf4.z - 1) * sz;
#pragma unroll
        for (int qj = 0; qj < 4; qj++) {
            int j = 2 * J - 1 + qj;
            float wj = ((j >= 0) & (j < nf4.y)) ? child_weight(qj, J, nc4.y) : 0.0f;
            int rj = rk + clamp(j, 0, nf4.y - 1) * sy;
#pragma unroll
            for (int qi = 0; qi < 4; qi++) {
                int i = 2 * I - 1 + qi;
                float wi = ((i >= 0) & (i < nf4.x)) ? child_weight(qi, I, nc4.x) : 0.0f;
                sum += 0.5f * wi * wj * wk * fr[rj + clamp(i, 0, nf4.x - 1)];
            }
        }
    }
    cb[C] = ctype[C] == CELL_FLUID ? sum : 0.0f;
}

/* fine x += P coarse x in FLUID fine cells (mg_prolong_add of multigrid.c). Each fine cell
 * takes 3/4 of its parent and 1/4 of the parent's neighbour on its side, per axis; the terms
 * add in the order below (x fastest). A coarse cell that is not FLUID holds x = 0 (zeroed,
 * never swept, 0 outside the box as pipe_fluid_box sees to), so its term adds 0 and leaves e
 * as it is to the bit, and no type needs reading; a
 * neighbour outside the coarse grid gets weight 0 at a clamped index, and the parent 1 in place
 * of 3/4 (the wall's Neumann condition, mg_parents in multigrid.c). Scalars and no branch
 * but the store, so that the work-group runs through the vector lanes. */
#define PROLONG_TERM(I, J, K, wx, wy, wz) e += (wx) * (wy) * (wz) * cx[(I) + ncx * ((J) + ncy * (K))];
/* inner_x (a constant at each call): the x neighbour i1 is known to lie in the coarse grid, so
 * its weight is 1/4 and its index needs no clamp. A clamp makes the index of a work-item's load
 * no longer its neighbour's plus one, and PoCL then gathers each load lane by lane. */
__attribute__((always_inline)) inline float prolong_term_x(__global const float *cx, int4 nc4,
                                                           int i, int j, int k, int inner_x)
{
    int ncx = nc4.x, ncy = nc4.y, ncz = nc4.z;
    int i0 = i >> 1, j0 = j >> 1, k0 = k >> 1;
    int i1 = (i & 1) ? i0 + 1 : i0 - 1, j1 = (j & 1) ? j0 + 1 : j0 - 1, k1 = (k & 1) ? k0 + 1 : k0 - 1;
    float wi = inner_x || ((i1 >= 0) & (i1 < ncx)) ? 0.25f : 0.0f,
          wj = ((j1 >= 0) & (j1 < ncy)) ? 0.25f : 0.0f,
          wk = ((k1 >= 0) & (k1 < ncz)) ? 0.25f : 0.0f;
    float pi = 1.0f - wi, pj = 1.0f - wj, pk = 1.0f - wk; /* the parent's: 3/4, or 1 at a wall */
    i1 = inner_x ? i1 : clamp(i1, 0, ncx - 1);
    j1 = clamp(j1, 0, ncy - 1), k1 = clamp(k1, 0, ncz - 1);
    float e = 0.0f;
    PROLONG_TERM(i0, j0, k0, pi, pj, pk)
    PROLONG_TERM(i1, j0, k0, wi, pj, pk)
    PROLONG_TERM(i0, j1, k0, pi, wj, pk)
    PROLONG_TERM(i1, j1, k0, wi, wj, pk)
    PROLONG_TERM(i0, j0, k1, pi, pj, wk)
    PROLONG_TERM(i1, j0, k1, wi, pj, wk)
    PROLONG_TERM(i0, j1, k1, pi, wj, wk)
    PROLONG_TERM(i1, j1, k1, wi, wj, wk)
    return e;
}

__attribute__((always_inline)) inline float prolong_term(__global const float *cx, int4 nc4,
                                                         int i, int j, int k)
{
    return prolong_term_x(cx, nc4, i, j, k, 0);
}

__attribute__((always_inline)) inline void prolong_at(__global float *fx, __global const float *cx,
                                                      __global const char *ftype, int4 nf4,
                                                      int4 nc4, int i, int j, int k)
{
    int f = i + nf4.x * (j + nf4.y * k);
    float e = prolong_term(cx, nc4, i, j, k);
    if (ftype[f] == CELL_FLUID)
        fx[f] += e;
}

#undef PROLONG_TERM

/* A small level's legs of the V-cycle by one work-item, each in one launch where it took four
 * (down: zero x, pre-smooth, residual, restrict into the coarser b) and two (up: prolong the
 * coarser x, post-smooth). Every cell gets the parallel kernels' arithmetic, so the result is
 * theirs to the bit; on a level of a few thousand cells the launches cost more than the work.
 * They run over the level's box [lo, hi) of FLUID cells and the coarse level's [clo, chi):
 * outside it x and r are 0 (mg_count clears them once per solve, and nothing writes there),
 * which is all prolongation and restriction read there; b there is never read. */
inline void down_leg_serial(__global float *x, __global const float *b, __global float *r,
                            __global const char *type, __global const ushort *info, int4 n4,
                            __global float *cb, __global const char *ctype, int4 nc4, int sweeps,
                            int4 lo4, int4 hi4, int4 clo, int4 chi)
{
    int3 n = n4.xyz, lo = lo4.xyz, hi = hi4.xyz;
    for (int k = lo.z; k < hi.z; k++)
        for (int j = lo.y; j < hi.y; j++)
            for (int i = lo.x; i < hi.x; i++)
                x[flat_index(n, i, j, k)] = 0.0f;
    rb_sweeps_serial(x, b, info, n, lo, hi, sweeps, 0, 1.0f);
    for (int k = lo.z; k < hi.z; k++)
        for (int j = lo.y; j < hi.y; j++)
            for (int i = lo.x; i < hi.x; i++)
                residual_at(r, x, b, type, info, n, flat_index(n, i, j, k));
    for (int K = clo.z; K < chi.z; K++)
        for (int J = clo.y; J < chi.y; J++)
            for (int I = clo.x; I < chi.x; I++)
                restrict_at(cb, r, ctype, nc4, n4, I, J, K);
}

inline void up_leg_serial(__global float *x, __global const float *b, __global const char *type,
                          __global const ushort *info, int4 n4, __global const float *cx,
                          int4 nc4, int sweeps, int4 lo4, int4 hi4)
{
    int3 lo = lo4.xyz, hi = hi4.xyz;
    for (int k = lo.z; k < hi.z; k++)
        for (int j = lo.y; j < hi.y; j++)
            for (int i = lo.x; i < hi.x; i++)
                prolong_at(x, cx, type, n4, nc4, i, j, k);
    rb_sweeps_serial(x, b, info, n4.xyz, lo, hi, sweeps, 1, 1.0f);
}

/* The coarsest level by one work-item: x = 0, then `sweeps` red-black sweeps and as many
 * black-red ones (the down and up legs of the V-cycle meet here). */
inline void coarsest_serial(__global float *x, __global const float *b,
                            __global const ushort *info, int4 n4, int sweeps)
{
    int3 n = n4.xyz;
    size_t cells = (size_t)n.x * n.y * n.z;
    for (size_t c = 0; c < cells; c++)
        x[c] = 0.0f;
    rb_sweeps_serial(x, b, info, n, (int3)(0), n, sweeps, 0, 1.0f);
    rb_sweeps_serial(x, b, info, n, (int3)(0), n, sweeps, 1, 1.0f);
}

__kernel void mg_down_serial(__global float *x, __global const float *b, __global float *r,
                             __global const char *type, __global const ushort *info, int4 n4,
                             __global float *cb, __global const char *ctype, int4 nc4,
                             int sweeps, int4 lo4, int4 hi4, int4 clo, int4 chi)
{
    down_leg_serial(x, b, r, type, info, n4, cb, ctype, nc4, sweeps, lo4, hi4, clo, chi);
}

__kernel void mg_up_serial(__global float *x, __global const float *b, __global const char *type,
                           __global const ushort *info, int4 n4, __global const float *cx,
                           int4 nc4, int sweeps, int4 lo4, int4 hi4)
{
    up_leg_serial(x, b, type, info, n4, cx, nc4, sweeps, lo4, hi4);
}

/* It has a few hundred cells, so one work-item beats launching 4 * sweeps kernels. */
__kernel void mg_coarsest(__global float *x, __global const float *b, __global const ushort *info,
                          int4 n4, int sweeps)
{
    coarsest_serial(x, b, info, n4, sweeps);
}

/* The whole V-cycle of `levels` (2 to 4) small levels, L0 the finest of them, by one work-item
 * in one launch where it took 2 * levels - 1: the same legs as mg_down_serial, mg_coarsest and
 * mg_up_serial, in the same order, so the result is theirs to the bit. On a grid of 32^3 each
 * launch cost more than its work (tens to hundreds of microseconds of PoCL's hand-out and
 * wake-up on a busy machine), and a CG iteration made seven of them. A level's arguments: x, b,
 * r, type, info, its size, its box [lo, hi); the unused levels' repeat a used one's. */
#define VCYCLE_LEVEL_ARGS(q)                                                                   \
    __global float *x##q, __global float *b##q, __global float *r##q,                          \
        __global const char *t##q, __global const ushort *f##q, int4 n##q, int4 lo##q,         \
        int4 hi##q
#define VCYCLE_DOWN(q, c)                                                                      \
    down_leg_serial(x##q, b##q, r##q, t##q, f##q, n##q, b##c, t##c, n##c, sweeps, lo##q,        \
                    hi##q, lo##c, hi##c)
#define VCYCLE_UP(q, c)                                                                        \
    up_leg_serial(x##q, b##q, t##q, f##q, n##q, x##c, n##c, sweeps, lo##q, hi##q)
__kernel void mg_vcycle_serial(int levels, int sweeps, int coarse_sweeps, VCYCLE_LEVEL_ARGS(0),
                               VCYCLE_LEVEL_ARGS(1), VCYCLE_LEVEL_ARGS(2), VCYCLE_LEVEL_ARGS(3))
{
    VCYCLE_DOWN(0, 1);
    if (levels > 2)
        VCYCLE_DOWN(1, 2);
    if (levels > 3)
        VCYCLE_DOWN(2, 3);
    if (levels == 2)
        coarsest_serial(x1, b1, f1, n1, coarse_sweeps);
    else if (levels == 3)
        coarsest_serial(x2, b2, f2, n2, coarse_sweeps);
    else
        coarsest_serial(x3, b3, f3, n3, coarse_sweeps);
    if (levels > 3)
        VCYCLE_UP(2, 3);
    if (levels > 2)
        VCYCLE_UP(1, 2);
    VCYCLE_UP(0, 1);
}
#undef VCYCLE_LEVEL_ARGS
#undef VCYCLE_DOWN
#undef VCYCLE_UP

/* ---- level 0: setting up, the double iterate, CG's vector steps ------------------------- */

/* ---- the same over the box of the FLUID cells, slab by slab ------------------------------ */

/* Every FLUID cell lies in level 0's box, and CG's vectors are read only there (outside it they
 * keep what an earlier solve left), so a sum over the box is the sum over the FLUID cells and a
 * vector step there is the step that matters: in a splash the box is about half the grid.
 * Work-item g takes the z-slab lo.z + g of the box (launched as 1 x 1 x slabs, one per work-group)
 * and writes its partial sum to partial[g]; the host adds them in order. */
#define BOX_SLAB_CELLS(c, n4, lo4, hi4)                                                   \
    int k_ = lo4.z + (int)get_global_id(2);                                               \
    if (k_ >= hi4.z)                                                                      \
        return;                                                                           \
    for (int j_ = lo4.y; j_ < hi4.y; j_++)                                                \
        for (int c = lo4.x + n4.x * (j_ + n4.y * k_), end_ = c + (hi4.x - lo4.x); c < end_; c++)

/* t = A s in FLUID cells (0 elsewhere) over the box, and s . t per z-slab in one pass, where
 * they took two launches (CG's step on a small grid is mostly launches). A s is summed in double
 * and rounded once, as pcg.c does. In float, N x - (the neighbours' sum) loses the bits the two
 * terms share: where s is smooth, A s is small against them, and CG's recurrence residual,
 * which subtracts alpha A s, drifted from b - A x. mgpcg on the hydrostatic tank from p = 0 at
 * 64^3 then stopped at a recurrence residual of 1e-6 with a true one above it and restarted:
 * 10 iterations against C's 8. */
__kernel void apply_A_dot(__global double *partial, __global float *t, __global const float *s,
                          __global const char *type, __global const ushort *info, int4 n4,
                          int4 lo4, int4 hi4)
{
    size_t sy = (size_t)n4.x, sz = (size_t)n4.x * n4.y;
    double dot = 0.0;
    BOX_SLAB_CELLS(c, n4, lo4, hi4) {
        uint f = info[c];
        double sum = 0.0;
        ADD_FLUID_NEIGHBOURS(sum, s, (size_t)c, f, sy, sz);
        float tc = type[c] == CELL_FLUID ? (float)((double)(f >> 8) * s[c] - sum) : 0.0f;
        t[c] = tc;
        dot += (double)s[c] * tc;
    }
    partial[get_global_id(2)] = dot;
}

/* The same on a box of few z-slabs (a flat grid: martin_moyce's box has 4 to 6), where a
 * work-item per slab leaves the cores idle: t = A s launched on the box, a work-item a cell,
 * then dot_ff, s . t per slab in the same order. */
__kernel void apply_A(__global float *out, __global const float *x, __global const char *type,
                      __global const ushort *info, int4 n4)
{
    int3 n = n4.xyz;
    int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    if (i >= n.x || j >= n.y || k >= n.z)
        return;
    size_t c = flat_index(n, i, j, k), sy = (size_t)n.x, sz = (size_t)n.x * n.y;
    uint f = info[c];
    double s = 0.0;
    ADD_FLUID_NEIGHBOURS(s, x, c, f, sy, sz);
    out[c] = type[c] == CELL_FLUID ? (float)((double)(f >> 8) * x[c] - s) : 0.0f;
}

__kernel void dot_ff(__global double *partial, __global const float *a,
                         __global const float *b, int4 n4, int4 lo4, int4 hi4)
{
    double s = 0.0;
    BOX_SLAB_CELLS(c, n4, lo4, hi4)
        s += (double)a[c] * b[c];
    partial[get_global_id(2)] = s;
}

/* Where cell (i, j, k) of level 0 lies in the split layout (split4 = hx, nh, pad): its colour
 * (i + j + k) & 1, its row, its place i / 2 in the row's cells of that colour. */
inline int split_index(int4 split4, int4 n4, int i, int j, int k)
{
    return split4.z + ((i + j + k) & 1) * split4.y + split4.x * (j + n4.y * k) + (i >> 1);
}

/* Level 0's x, the preconditioned residual z, at cell (i, j, k) = c: in the split layout when
 * level 0 is swept split (split4.x = hx > 0), else in the grid's. The V-cycle leaves it split,
 * so that no pass puts it back in the grid's layout for CG. */
inline float z_at(__global const float *z, int4 split4, int4 n4, int c, int i, int j, int k)
{
    return z[split4.x ? split_index(split4, n4, i, j, k) : c];
}

/* z . r over the box, slab by slab (apply_A_dot's order), z read where z_at finds it */
__kernel void dot_zd(__global double *partial, __global const float *z,
                     __global const double *r, int4 n4, int4 lo4, int4 hi4, int4 split4)
{
    int k = lo4.z + (int)get_global_id(2);
    if (k >= hi4.z)
        return;
    double s = 0.0;
    for (int j = lo4.y; j < hi4.y; j++)
        for (int i = lo4.x, c = lo4.x + n4.x * (j + n4.y * k); i < hi4.x; i++, c++)
            s += (double)z_at(z, split4, n4, c, i, j, k) * r[c];
    partial[get_global_id(2)] = s;
}

/* r = b - A x in FLUID cells (0 elsewhere) with x in double, over the box a z-slab per
 * work-item: the partial sums of r^2, rf = (float) r, level 0's b for the V-cycle or the
 * sweeps that follow every true residual (in the split layout when level 0 is swept split,
 * split4.x = hx > 0), and p = (float) x, the solver's answer once it stops (a solve ends on a
 * true residual), in one pass where they took four launches. */
__kernel void residual_norm_d(__global double *partial, __global double *r, __global float *rf,
                              __global float *p, __global const double *x, __global const float *b,
                              __global const char *type, __global const ushort *info, int4 n4,
                              int4 lo4, int4 hi4, int4 split4)
{
    int k = lo4.z + (int)get_global_id(2);
    if (k >= hi4.z)
        return;
    size_t sy = (size_t)n4.x, sz = (size_t)n4.x * n4.y;
    double norm = 0.0;
    for (int j = lo4.y; j < hi4.y; j++)
        for (int i = lo4.x, c = lo4.x + n4.x * (j + n4.y * k); i < hi4.x; i++, c++) {
            double rc = 0.0;
            if (type[c] == CELL_FLUID) {
                uint f = info[c];
                double s = 0.0;
                ADD_FLUID_NEIGHBOURS(s, x, (size_t)c, f, sy, sz);
                rc = (double)b[c] - ((double)(f >> 8) * x[c] - s);
            }
            r[c] = rc;
            rf[split4.x ? split_index(split4, n4, i, j, k) : c] = (float)rc;
            p[c] = (float)x[c];
            norm += rc * rc;
        }
    partial[get_global_id(2)] = norm;
}

/* residual_norm_d on a box of few z-slabs: r and rf launched on the box, a work-item a cell
 * (the same values), then norm2_d, the partial sums of r^2 per slab in the same order. */
__kernel void residual_rf(__global double *r, __global float *rf, __global float *p,
                          __global const double *x,
                          __global const float *b, __global const char *type,
                          __global const ushort *info, int4 n4, int4 split4)
{
    int3 n = n4.xyz;
    int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    if (i >= n.x || j >= n.y || k >= n.z)
        return;
    size_t c = flat_index(n, i, j, k), sy = (size_t)n.x, sz = (size_t)n.x * n.y;
    double rc = 0.0;
    if (type[c] == CELL_FLUID) {
        uint f = info[c];
        double s = 0.0;
        ADD_FLUID_NEIGHBOURS(s, x, c, f, sy, sz);
        rc = (double)b[c] - ((double)(f >> 8) * x[c] - s);
    }
    r[c] = rc;
    rf[split4.x ? split_index(split4, n4, i, j, k) : (int)c] = (float)rc;
    p[c] = (float)x[c];
}

__kernel void norm2_d(__global double *partial, __global const double *v, int4 n4,
                          int4 lo4, int4 hi4)
{
    double s = 0.0;
    BOX_SLAB_CELLS(c, n4, lo4, hi4)
        s += v[c] * v[c];
    partial[get_global_id(2)] = s;
}

/* CG's scalars, kept on the device so that an iteration waits for the host once (for the
 * residual it stops on) where it waited three times: sigma = z . r in scal[CG_SIGMA] and
 * scal[CG_SIGMA_ODD] by turns (slot: which; cg_direction reads the last and writes the next,
 * so no work-item reads a slot another writes), scal[CG_STEP] = alpha, and scal[CG_BROKE] = 1
 * once s . A s <= 0. A wait costs about 55 us on PoCL, as long as a sweep. The partial sums
 * are added in order, as the host's pipe_sum_parts does, and the quotients are the host's, so
 * the bits are too. */
enum { CG_SIGMA, CG_STEP, CG_BROKE, CG_SIGMA_ODD };

inline double sum_parts(__global const double *partial, int n)
{
    double sum = 0.0;
    for (int g = 0; g < n; g++)
        sum += partial[g];
    return sum;
}

/* sigma = z . r from dot_zd's partials into scal[next], and unless this is CG's first (slot < 0)
 * beta = sigma / scal[slot] into scal[CG_STEP], for cg_direction_box */
__kernel void cg_beta(__global double *scal, __global const double *partial, int n, int slot,
                      int next)
{
    double sigma = sum_parts(partial, n);
    if (slot >= 0)
        scal[CG_STEP] = sigma / scal[slot];
    scal[next] = sigma;
}

/* alpha = sigma / (s . A s) from apply_A_dot's partials (st_part, nst of them), each work-item
 * its own (the same bits), where cg_alpha took a launch; then x += alpha s, r -= alpha t, the
 * partial sums of r^2, and rf = r in float: the next preconditioner's input, which took a pass
 * of its own. When level 0 is swept split (split4 = hx, nh, pad; hx = 0: it is not), rf is its
 * split b, which spares the V-cycle converting it. After a breakdown (s . A s <= 0) nothing
 * moves. Work-item 0 writes alpha and the breakdown for the host. */
__kernel void cg_update(__global double *x, __global double *r, __global float *rf,
                        __global double *partial, __global const float *s,
                        __global const float *t, __global double *scal,
                        __global const double *st_part, int nst, int slot, int4 n4, int4 lo4,
                        int4 hi4, int4 split4)
{
    int k = lo4.z + (int)get_global_id(2);
    double st = sum_parts(st_part, nst), alpha = scal[slot] / st;
    if (get_global_id(2) == 0) {
        scal[CG_BROKE] = st > 0.0 ? 0.0 : 1.0;
        scal[CG_STEP] = alpha;
    }
    if (!(st > 0.0) || k >= hi4.z)
        return;
    double sum = 0.0;
    for (int j = lo4.y; j < hi4.y; j++) {
        int row = j + n4.y * k;
        for (int i = lo4.x, c = lo4.x + n4.x * row; i < hi4.x; i++, c++) {
            x[c] += alpha * s[c];
            double rc = r[c] - alpha * t[c];
            r[c] = rc;
            rf[split4.x ? split_index(split4, n4, i, j, k) : c] = (float)rc;
            sum += rc * rc;
        }
    }
    partial[get_global_id(2)] = sum;
}

/* s = z + beta s, beta from cg_beta, launched on a box of few z-slabs, a work-item a cell. */
__kernel void cg_direction_box(__global float *s, __global const float *z,
                               __global const double *scal, int4 n4, int4 hi4, int4 split4)
{
    int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    if (i >= hi4.x || j >= hi4.y || k >= hi4.z)
        return;
    int c = i + n4.x * (j + n4.y * k);
    s[c] = z_at(z, split4, n4, c, i, j, k) + (float)(scal[CG_STEP] * s[c]);
}

/* s = z + beta s over the box, a z-slab per work-item (as cg_update), with beta = sigma' /
 * sigma: sigma' from dot_zd's partials, each work-item its own (the same bits), sigma from
 * scal[slot]; work-item 0 keeps sigma' in scal[next] for the next alpha, where cg_beta took a
 * launch. */
__kernel void cg_direction(__global float *s, __global const float *z, __global double *scal,
                           __global const double *partial, int n, int slot, int next, int4 n4,
                           int4 lo4, int4 hi4, int4 split4)
{
    int k = lo4.z + (int)get_global_id(2);
    double sigma = sum_parts(partial, n), beta = sigma / scal[slot];
    if (get_global_id(2) == 0)
        scal[next] = sigma;
    if (k >= hi4.z)
        return;
    for (int j = lo4.y; j < hi4.y; j++)
        for (int i = lo4.x, c = lo4.x + n4.x * (j + n4.y * k); i < hi4.x; i++, c++)
            s[c] = z_at(z, split4, n4, c, i, j, k) + (float)(beta * s[c]);
}

/* x += z, the multigrid correction, over the box (launched on it). */
__kernel void add_correction(__global double *x, __global const float *z, int4 n4, int4 hi4,
                             int4 split4)
{
    int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    if (i >= hi4.x || j >= hi4.y || k >= hi4.z)
        return;
    int c = i + n4.x * (j + n4.y * k);
    x[c] += z_at(z, split4, n4, c, i, j, k);
}

/* A FLUID cell's neighbours for jacobi_listed: bit q set when neighbour q (-x +x -y +y -z +z)
 * is FLUID, and the count of those not SOLID from bit 6 up. */
inline int jacobi_neighbours(__global const char *cell, int3 n, int i, int j, int k)
{
    const int d[6][3] = { { -1, 0, 0 }, { 1, 0, 0 }, { 0, -1, 0 },
                          { 0, 1, 0 },  { 0, 0, -1 }, { 0, 0, 1 } };
    int info = 0;
    for (int q = 0; q < 6; q++) {
        int t = cell_type(cell, n, i + d[q][0], j + d[q][1], k + d[q][2]);
        info += (t != CELL_SOLID) << 6 | (t == CELL_FLUID) << q;
    }
    return info;
}

/* jacobi_cell's update of FLUID cell c from its neighbours' info: the same sum, in the same
 * order, of the same values (a FLUID neighbour is inside the grid), so the same bits. */
inline void jacobi_listed(__global float *p_out, __global const float *p,
                          __global const float *rhs, int c, int info, int3 n, float dx,
                          float omega)
{
    int sy = n.x, sz = n.x * n.y, count = info >> 6;
    float sum = 0.0f;
    if (info & 1)
        sum += p[c - 1];
    if (info & 2)
        sum += p[c + 1];
    if (info & 4)
        sum += p[c - sy];
    if (info & 8)
        sum += p[c + sy];
    if (info & 16)
        sum += p[c - sz];
    if (info & 32)
        sum += p[c + sz];
    float dx2 = dx * dx;
    p_out[c] = count > 0 ? (1.0f - omega) * p[c] + omega * (sum - dx2 * rhs[c]) / (float)count
                         : 0.0f;
}

/* The residual |rhs - L p| / norm over the FLUID cells, by the whole group: the partial sums
 * chunk by chunk, as laplacian and residual_l make them, then added in order by one work-item,
 * as pipe_sum adds them on the host: the same bits. Returns it to every work-item. */
inline double jacobi_group_residual(__global const float *p, __global const float *rhs,
                                    __global const char *cell, int3 n, float dx,
                                    __global double *partial, int chunk, int parts,
                                    double norm, __local double *shared)
{
    int w = get_local_id(0), size = (int)get_local_size(0), cells = n.x * n.y * n.z;
    for (int g = w; g < parts; g += size) {
        int lo, hi;
        chunk_of(g, cells, chunk, &lo, &hi);
        double sum = 0.0;
        for (int c = lo; c < hi; c++)
            if (cell[c] == CELL_FLUID) {
                int i = c % n.x, j = (c / n.x) % n.y, k = c / (n.x * n.y);
                double r = (double)rhs[c] - laplacian_at(p, cell, n, i, j, k, dx);
                sum += r * r;
            }
        partial[g] = sum;
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE); /* shared, read last time, too */
    if (w == 0) {
        double sum = 0.0;
        for (int g = 0; g < parts; g++)
            sum += partial[g];
        *shared = sqrt(sum) / norm;
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    return *shared;
}

/* A whole jacobi solve in one launch of one work-group, for grids so small that a launch, and
 * above all a wait for the host to read a residual, cost more than a sweep (pipe_jacobi picks
 * it by size). It does what pipe_jacobi does on the host, with the same bits: |rhs| from
 * pressure_rhs's partial sums (partial[0, parts)), p = 0 when that is 0; else the residual of
 * p, then sweeps in stretches of `every`, the residual after each, until it is within
 * tolerance, not finite, or `cap` sweeps are done (sqrt and / are correctly rounded in double,
 * so the test decides as the host's would). The result ends in p; outcome[0, 3) gets the sweeps
 * done, the residual and whether it converged, which the host reads with its one wait.
 * The sweeps go between p and q, with a barrier between them; the updates are jacobi_cell's
 * bits, in any order. Only FLUID cells change from sweep to sweep (the rest are 0 in every
 * output), and a small grid is mostly not FLUID: the first sweep covers the whole grid and
 * lists the FLUID cells in list (their index and jacobi_neighbours, in whatever order the group
 * finds them); every other sweep runs down the list. Both vectors then hold the 0s outside
 * FLUID: q from that first sweep, p from pressure_rhs (which zeroes p outside FLUID). */
__kernel void jacobi_solve(__global float *p, __global float *q, __global const float *rhs,
                           __global const char *cell, int4 n4, float dx, float omega, int cap,
                           int every, double tolerance, __global int *list,
                           __global double *partial, int chunk, int parts,
                           __global double *outcome)
{
    int3 n = n4.xyz;
    int w = get_local_id(0), size = (int)get_local_size(0), cells = n.x * n.y * n.z;
    __local double shared;
    __local int found;
    if (w == 0) {
        double rhs2 = 0.0;
        for (int g = 0; g < parts; g++)
            rhs2 += partial[g];
        shared = sqrt(rhs2);
        found = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    double norm = shared;
    if (norm == 0.0) { /* b = 0: p = 0 solves it, as on the host */
        for (int c = w; c < cells; c += size)
            p[c] = 0.0f;
        if (w == 0)
            outcome[0] = 0.0, outcome[1] = 0.0, outcome[2] = 1.0;
        return;
    }
    __global float *in = p, *out = q;
    int done = 0;
    double residual = jacobi_group_residual(in, rhs, cell, n, dx, partial, chunk, parts, norm,
                                            &shared);
    while (!(residual <= tolerance) && done < cap && isfinite(residual)) {
        int todo = min(every - done % every, cap - done);
        for (int s = 0; s < todo; s++, done++) {
            if (done == 0) {
                for (int c = w; c < cells; c += size) {
                    int i = c % n.x, j = (c / n.x) % n.y, k = c / (n.x * n.y);
                    jacobi_cell(out, in, rhs, cell, n, i, j, k, dx, omega);
                    if (cell[c] == CELL_FLUID) {
                        int at = atomic_inc(&found);
                        list[2 * at] = c;
                        list[2 * at + 1] = jacobi_neighbours(cell, n, i, j, k);
                    }
                }
            } else {
                int count = found;
                for (int base = 0; base < count; base += size) { /* uniform: PoCL runs lanes side by side */
                    int at = base + w;
                    if (at < count)
                        jacobi_listed(out, in, rhs, list[2 * at], list[2 * at + 1], n, dx, omega);
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
            __global float *t = in;
            in = out;
            out = t;
        }
        residual = jacobi_group_residual(in, rhs, cell, n, dx, partial, chunk, parts, norm,
                                         &shared);
    }
    if (in != p) { /* an odd number of sweeps: the result back into p */
        for (int c = w; c < cells; c += size)
            p[c] = in[c];
    }
    if (w == 0)
        outcome[0] = (double)done, outcome[1] = residual, outcome[2] = residual <= tolerance;
}

/* Jacobi's residual: partial sums of (rhs - L p)^2 over FLUID cells (L p from the laplacian kernel). */
__kernel void residual_l(__global double *partial, __global const float *rhs,
                         __global const float *lap, __global const char *cell, int n, int chunk)
{
    int g = get_global_id(0), lo, hi;
    chunk_of(g, n, chunk, &lo, &hi);
    double s = 0.0;
    for (int c = lo; c < hi; c++)
        if (cell[c] == CELL_FLUID) {
            double r = (double)rhs[c] - lap[c];
            s += r * r;
        }
    partial[g] = s;
}

/* ---- the colour-split layout of a level swept in parallel (pipesolve.c) -------------------
 * A red-black half sweep in the grid's own layout reads every other cell along x, which
 * PoCL's vectorizer declines, and drags the other colour's b and info through the cache.
 * Split, colour c's cells of row (j, k) lie at pad + c * nh + hx * (j + ny * k) + m, for
 * i = 2m + ((c + j + k) & 1), hx = (nx + 1) / 2: a sweep of one colour reads the other's x
 * at m and m - 1 or m + 1 (x neighbours) and at m in rows j +- 1, k +- 1, all unit stride.
 * pad (hx * ny + 1 elements, zero) on both ends keeps every neighbour index in the buffer, so
 * the loads need no test; a neighbour that is not FLUID is dropped by its flag. */

/* Sum of the FLUID neighbours of the split cell at a of a row whose cells sit at i = 2m + s,
 * read from the other colour xo: fluid_sum's terms in fluid_sum's order. A dropped one adds
 * +0, which leaves the sum as it was (it is never -0), so the bits are fluid_sum's. */
__attribute__((always_inline)) inline float split_sum(__global const float *xo, size_t a, int s,
                                                      size_t sy, size_t sz, uint f)
{
    float sum = 0.0f;
    sum += (f & 1) ? xo[a - 1 + s] : 0.0f;
    sum += (f & 2) ? xo[a + s] : 0.0f;
    sum += (f & 4) ? xo[a - sy] : 0.0f;
    sum += (f & 8) ? xo[a + sy] : 0.0f;
    sum += (f & 16) ? xo[a - sz] : 0.0f;
    sum += (f & 32) ? xo[a + sz] : 0.0f;
    return sum;
}

/* xs (split) = x (grid layout), work-item (m, j, k) moving cells 2m and 2m + 1 of row (j, k),
 * whose colours are (j + k) & 1 and the other; for the float vectors and the ushort info. */
#define RB_SPLIT(name, T)                                                                      \
    __kernel void name(__global T *xs, __global const T *x, int4 n4, int hx, int nh, int pad)   \
    {                                                                                          \
        int m = get_global_id(0), j = get_global_id(1), k = get_global_id(2);                  \
        if (m >= hx || j >= n4.y || k >= n4.z)                                                 \
            return;                                                                            \
        int row = j + n4.y * k, c0 = (j + k) & 1, i = 2 * m;                                   \
        size_t a = (size_t)hx * row + m, c = (size_t)n4.x * row + i;                           \
        xs[pad + c0 * nh + a] = x[c];                                                          \
        if (i + 1 < n4.x)                                                                      \
            xs[pad + (1 - c0) * nh + a] = x[c + 1];                                            \
    }
RB_SPLIT(rb_split_f, float)
RB_SPLIT(rb_split_u, ushort)
#undef RB_SPLIT

/* x (grid layout) = xs (split), the other way. */
__kernel void rb_merge_f(__global float *x, __global const float *xs, int4 n4, int hx, int nh,
                         int pad)
{
    int m = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    if (m >= hx || j >= n4.y || k >= n4.z)
        return;
    int row = j + n4.y * k, c0 = (j + k) & 1, i = 2 * m;
    size_t a = (size_t)hx * row + m, c = (size_t)n4.x * row + i;
    x[c] = xs[pad + c0 * nh + a];
    if (i + 1 < n4.x)
        x[c + 1] = xs[pad + (1 - c0) * nh + a];
}

/* Half a red-black sweep on the split layout: the FLUID cells of colour get
 * x += omega ((b + sum) / N - x), N from the info bits (rb_sweeps_serial's arithmetic, term
 * for term). Every cell is stored (one that is not FLUID gets its own x back), so the
 * work-group runs without a branch. */
__kernel void mg_smooth_split(__global float *xs, __global const float *bs,
                              __global const ushort *infos, int4 n4, int hx, int nh, int pad,
                              int colour, float omega)
{
    int m = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    int s = (colour + j + k) & 1;
    if (2 * m + s >= n4.x || j >= n4.y || k >= n4.z)
        return;
    size_t a = (size_t)hx * (j + n4.y * k) + m, sy = (size_t)hx, sz = (size_t)hx * n4.y;
    __global float *xc = xs + pad + colour * nh;
    __global const float *xo = xs + pad + (1 - colour) * nh;
    uint f = infos[pad + colour * nh + a];
    float sum = split_sum(xo, a, s, sy, sz, f);
    float x0 = xc[a], gs = (bs[pad + colour * nh + a] + sum) / (float)max(f >> 8, 1u);
    xc[a] = (f >> 8) ? x0 + omega * (gs - x0) : x0;
}

/* The first half sweep of a run that starts from x = 0, without the clearing: colour's
 * FLUID cells get mg_smooth_split's value with x = 0 and their neighbours' sum 0 (the same
 * operations on the same zeros, so the same bits), and every other slot of the work-item's
 * row position, of both colours, gets 0. Over the box it leaves what clearing the whole
 * buffer and then sweeping left; outside it nothing reads x (a neighbour there is never
 * FLUID, and a flag that is off drops its load). Work-items m < hx, so a row's last slot of
 * each colour is written when nx is odd too. */
__kernel void mg_smooth_split_zero(__global float *xs, __global const float *bs,
                                   __global const ushort *infos, int4 n4, int hx, int nh,
                                   int pad, int colour, float omega)
{
    int m = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    int s = (colour + j + k) & 1;
    if (m >= hx || j >= n4.y || k >= n4.z)
        return;
    size_t a = (size_t)hx * (j + n4.y * k) + m;
    size_t at = pad + colour * nh + a;
    uint f = 2 * m + s < n4.x ? infos[at] : 0u;
    float x0 = 0.0f, sum = 0.0f, gs = (bs[at] + sum) / (float)max(f >> 8, 1u);
    xs[at] = (f >> 8) ? x0 + omega * (gs - x0) : x0;
    xs[pad + (1 - colour) * nh + a] = 0.0f;
}

/* rs = b - A x (residual_at's arithmetic), all three split: work-item (m, j, k) takes cells
 * 2m and 2m + 1 of row (j, k), whose colours are (j + k) & 1 and the other. Split, the stores
 * are unit stride, and so are mg_restrict_split's loads. */
__attribute__((always_inline)) inline void residual_split_at(
    __global float *rs, __global const float *xs, __global const float *bs,
    __global const ushort *infos, int4 n4, int hx, int nh, int pad, int m, int j, int k, int t)
{
    int row = j + n4.y * k, colour = (j + k + t) & 1;
    size_t a = (size_t)hx * row + m, sy = (size_t)hx, sz = (size_t)hx * n4.y;
    size_t at = pad + colour * nh + a;
    __global const float *xc = xs + pad + colour * nh, *xo = xs + pad + (1 - colour) * nh;
    uint f = infos[at];
    float sum = split_sum(xo, a, t, sy, sz, f);
    rs[at] = (f & INFO_FLUID) ? bs[at] - (neighbour_count(f) * xc[a] - sum) : 0.0f;
}

__kernel void mg_residual_split(__global float *rs, __global const float *xs,
                                __global const float *bs, __global const ushort *infos, int4 n4,
                                int hx, int nh, int pad)
{
    int m = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    if (m >= hx || j >= n4.y || k >= n4.z)
        return;
    residual_split_at(rs, xs, bs, infos, n4, hx, nh, pad, m, j, k, 0);
    if (2 * m + 1 < n4.x)
        residual_split_at(rs, xs, bs, infos, n4, hx, nh, pad, m, j, k, 1);
}

/* restrict_at from the split fine r: the same 64 terms in the same order. Along x the
 * children 2I - 1, 2I, 2I + 1, 2I + 2 of row (j, k) are, split, the other colour at I - 1,
 * this row's first colour at I, the other at I and the first at I + 1: unit stride across the
 * work-items. A child outside the row gets weight 0 and reads a neighbouring row's or the
 * pad's value, which is finite (every element is written or zeroed), so it adds +0 or -0 to a
 * sum that starts at +0.0f: the sum keeps its bits. (An infinite r, in a solve that is
 * diverging anyway, would make 0 * inf a NaN in the neighbouring coarse cell.) */
__kernel void mg_restrict_split(__global float *cb, __global const float *rs,
                                __global const char *ctype, int4 nc4, int4 nf4, int hx, int nh,
                                int pad)
{
    int I = get_global_id(0), J = get_global_id(1), K = get_global_id(2);
    if (I >= nc4.x || J >= nc4.y || K >= nc4.z)
        return;
    int C = I + nc4.x * (J + nc4.y * K);
    float wi0 = 2 * I - 1 >= 0 ? 0.25f : 0.0f, wi1 = child_weight(1, I, nc4.x),
          wi2 = 2 * I + 1 < nf4.x ? child_weight(2, I, nc4.x) : 0.0f,
          wi3 = 2 * I + 2 < nf4.x ? 0.25f : 0.0f;
    float sum = 0.0f;
#pragma unroll
    for (int qk = 0; qk < 4; qk++) {
        int k = 2 * K - 1 + qk;
        float wk = ((k >= 0) & (k < nf4.z)) ? child_weight(qk, K, nc4.z) : 0.0f;
        k = clamp(k, 0, nf4.z - 1);
#pragma unroll
        for (int qj = 0; qj < 4; qj++) {
            int j = 2 * J - 1 + qj;
            float wj = ((j >= 0) & (j < nf4.y)) ? child_weight(qj, J, nc4.y) : 0.0f;
            j = clamp(j, 0, nf4.y - 1);
            int c0 = (j + k) & 1;
            size_t row = pad + (size_t)hx * (j + nf4.y * k) + I;
            __global const float *first = rs + row + c0 * nh, *other = rs + row + (1 - c0) * nh;
            sum += 0.5f * wi0 * wj * wk * other[-1];
            sum += 0.5f * wi1 * wj * wk * first[0];
            sum += 0.5f * wi2 * wj * wk * other[0];
            sum += 0.5f * wi3 * wj * wk * first[1];
        }
    }
    cb[C] = ctype[C] == CELL_FLUID ? sum : 0.0f;
}

/* fine x += P coarse x (prolong_at's arithmetic) into the split fine x, the coarse x in the
 * grid's layout (the same two cells per work-item; FLUID read from the split info). The host
 * launches the work-items m = 1 .. hx - 2, whose coarse x neighbours m - 1 and m + 1 lie in the
 * grid, on mg_prolong_split (loads at unit stride) and the two ends on mg_prolong_split_edge
 * (clamped): the same terms either way. m_end (<= hx) ends each launch's own columns, as a
 * launch rounded up to whole work-groups would run into the next one's. */
#define MG_PROLONG_SPLIT(name, inner_x)                                                          \
    __kernel void name(__global float *xs, __global const float *cx,                            \
                       __global const ushort *infos, int4 nf4, int4 nc4, int hx, int nh, int pad, \
                       int m_end)                                                               \
    {                                                                                           \
        int m = get_global_id(0), j = get_global_id(1), k = get_global_id(2);                  \
        if (m >= m_end || j >= nf4.y || k >= nf4.z)                                             \
            return;                                                                             \
        int row = j + nf4.y * k, c0 = (j + k) & 1;                                              \
        size_t a0 = pad + c0 * nh + (size_t)hx * row + m;                                       \
        size_t a1 = pad + (1 - c0) * nh + (size_t)hx * row + m;                                 \
        float e0 = prolong_term_x(cx, nc4, 2 * m, j, k, inner_x);                               \
        if (infos[a0] & INFO_FLUID)                                                             \
            xs[a0] += e0;                                                                       \
        if (2 * m + 1 < nf4.x) {                                                                \
            float e1 = prolong_term_x(cx, nc4, 2 * m + 1, j, k, inner_x);                       \
            if (infos[a1] & INFO_FLUID)                                                         \
                xs[a1] += e1;                                                                   \
        }                                                                                       \
    }
MG_PROLONG_SPLIT(mg_prolong_split, 1)
MG_PROLONG_SPLIT(mg_prolong_split_edge, 0)
#undef MG_PROLONG_SPLIT
