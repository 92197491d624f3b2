/* surface.cl — the liquid surface's field on the device: common/writers/surface.c's steps 1-4.
 * flipkit kernels/: the same flags, the same formula and the same brick layout as the C path,
 * so the host's surface_polygonise marches either; sums are gathered per node, never scattered. */

/* The brick: SURFACE_BRICK of common/constants.h (put in front of the kernels by reference/clx.c),
 * with its apron. */
#define BRICK SURFACE_BRICK
#define PAD (BRICK + 1)
#define PAD3 (PAD * PAD * PAD)

/* Per sim cell, as in surface.c; "within k" is the (2k + 1)^3 block around the cell. A cell
 * is filled when it is SOLID or its bucket of the counting sort (sort.cl) holds a particle:
 * common.cl's cell_along (the sort's key), which clamps a particle outside the grid into it (the gather finds it
 * there) and may differ from surface.c's x * (1 / dx) within an ulp of a cell face. */
/* The flags are common/constants.h's: SF_NEAR_SOLID, a SOLID cell within reach (cells beyond
 * the grid count); SF_SHALLOW, a cell not filled within kernel_cells (cells beyond the grid
 * count, so nodes near the domain's faces are never deep); SF_NEAR_PARTICLE, a bucket holding
 * particles within kernel_cells (no node without it has a particle within R, or is deep). */

/* The bits a cell has before dilation, and those of the cells beyond the grid. */
inline uchar own_flags(__global const char *solid, __global const int *start, size_t c)
{
    int held = start[c + 1] > start[c];
    return (solid[c] ? SF_NEAR_SOLID : 0) | (held || solid[c] ? 0 : SF_SHALLOW) |
           (held ? SF_NEAR_PARTICLE : 0);
}

/* The dilation's mask at s cells away: the bits whose reach is at least |s|. */
inline uchar reaching(int s, int reach_solid, int reach_kernel)
{
    int d = abs(s);
    return (d <= reach_solid ? SF_NEAR_SOLID : 0) |
           (d <= reach_kernel ? SF_SHALLOW | SF_NEAR_PARTICLE : 0);
}

/* Rows of the padded copy the x pass reads: SF_PAD (constants.h) cells of SF_BEYOND before
 * each row and after it (more than any reach, and room for a vector past the row's end). */
#define SF_STRIDE(nx) ((nx) + 4 * SF_PAD)

/* Each cell's own bits, into the padded rows (whose pads hold SF_BEYOND already). */
__kernel void surface_flags_own(__global uchar *padded, __global const char *solid,
                                __global const int *start, int4 n4)
{
    int3 n = n4.xyz;
    int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    if (i >= n.x || j >= n.y || k >= n.z)
        return;
    size_t row = (size_t)j + (size_t)n.y * (size_t)k;
    padded[row * SF_STRIDE(n.x) + SF_PAD + i] = own_flags(solid, start, flat_index(n, i, j, k));
}

/* The bits dilated along x: a work-item does 16 cells of a row (i from 16 g) as one vector. */
__kernel void surface_flags_x(__global uchar *out, __global const uchar *padded, int4 n4,
                              int reach_solid, int reach_kernel)
{
    int3 n = n4.xyz;
    int g = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    if (16 * g >= n.x || j >= n.y || k >= n.z)
        return;
    __global const uchar *row = padded + ((size_t)j + (size_t)n.y * (size_t)k) * SF_STRIDE(n.x) +
                                SF_PAD + 16 * g;
    int most = max(reach_solid, reach_kernel), lanes = min(16, n.x - 16 * g);
    uchar16 bits = (uchar16)(0);
    for (int s = -most; s <= most; s++)
        bits |= vload16(0, row + s) & (uchar16)(reaching(s, reach_solid, reach_kernel));
    size_t here = flat_index(n, 16 * g, j, k);
    if (lanes == 16)
        vstore16(bits, 0, out + here);
    else
        for (int q = 0; q < lanes; q++)
            out[here + q] = ((uchar *)&bits)[q];
}

/* The same along axis a = 1 (y) or 2 (z), from the previous pass: a work-item walks the
 * lines through 16 cells side by side along x (i from 16 g), as one vector. */
__kernel void surface_flags_yz(__global uchar *out, __global const uchar *in, int4 n4, int a,
                               int reach_solid, int reach_kernel)
{
    int3 n = n4.xyz;
    int g = get_global_id(0), o = get_global_id(1), len = a == 1 ? n.y : n.z;
    if (16 * g >= n.x || o >= (a == 1 ? n.z : n.y))
        return;
    long first = a == 1 ? (long)flat_index(n, 16 * g, 0, o) : (long)flat_index(n, 16 * g, o, 0);
    long stride = a == 1 ? n.x : (long)n.x * n.y;
    int most = max(reach_solid, reach_kernel), lanes = min(16, n.x - 16 * g);
    for (int at = 0; at < len; at++) {
        uchar16 bits = (uchar16)(0);
        for (int s = -most; s <= most; s++) {
            int t = at + s;
            uchar16 there = (uchar16)(SF_BEYOND);
            if (t >= 0 && t < len && lanes == 16)
                there = vload16(0, in + first + t * stride);
            else if (t >= 0 && t < len)
                for (int q = 0; q < lanes; q++)
                    ((uchar *)&there)[q] = in[first + t * stride + q];
            bits |= there & (uchar16)(reaching(s, reach_solid, reach_kernel));
        }
        if (lanes == 16)
            vstore16(bits, 0, out + first + at * stride);
        else
            for (int q = 0; q < lanes; q++)
                out[first + at * stride + q] = ((uchar *)&bits)[q];
    }
}

/* The sim cell of fine node i along one axis: the one above a node on a cell face, the last
 * one for the domain's end (surface.c's surface_brick_cells). */
inline int node_cell(int i, int refine, int cells)
{
    return min(i / refine, cells - 1);
}

/* Bricks whose field the device computes, with their aprons: those with an own node in a
 * NEAR_PARTICLE cell, unless every node from the brick's first to its apron is deep and clear
 * of solids and faces (then every cube of it is inside). Every cube whose corners differ in
 * sign has its low node in a listed brick: a node with phi < 0 is deep or has a particle
 * within R, so its cell and the cell of any node just below it are NEAR_PARTICLE; a node
 * with phi > 0 lies in a SHALLOW cell or is lifted. The rest have no node that needs sums. */
__kernel void surface_mark(__global uchar *mark, __global const uchar *flags, int4 n4,
                           int4 fine4, int4 nb4, int refine)
{
    int bx = get_global_id(0), by = get_global_id(1), bz = get_global_id(2);
    if (bx >= nb4.x || by >= nb4.y || bz >= nb4.z)
        return;
    int3 n = n4.xyz, fine = fine4.xyz;
    int3 lo = (int3)(bx, by, bz) * BRICK, own = min(lo + BRICK - 1, fine);
    int3 hi = min(lo + BRICK, fine);
    int3 clo = (int3)(node_cell(lo.x, refine, n.x), node_cell(lo.y, refine, n.y),
                      node_cell(lo.z, refine, n.z));
    int3 cown = (int3)(node_cell(own.x, refine, n.x), node_cell(own.y, refine, n.y),
                       node_cell(own.z, refine, n.z));
    int3 chi = (int3)(node_cell(hi.x, refine, n.x), node_cell(hi.y, refine, n.y),
                      node_cell(hi.z, refine, n.z));
    uchar near = 0, open = any(lo == 0) || any(hi == fine);
    for (int k = clo.z; k <= chi.z; k++)
        for (int j = clo.y; j <= chi.y; j++)
            for (int i = clo.x; i <= chi.x; i++) {
                uchar f = flags[flat_index(n, i, j, k)];
                near |= i <= cown.x && j <= cown.y && k <= cown.z && (f & SF_NEAR_PARTICLE);
                open |= (f & (SF_SHALLOW | SF_NEAR_SOLID)) != 0;
            }
    mark[flat_index(nb4.xyz, bx, by, bz)] = near && open;
}

/* SurfaceConsts (common/constants.h): the constants of surface.h's SurfaceGrid, as one
 * kernel argument. */

/* A row's cells along one axis: those that can hold a particle within R of coordinates
 * a..b, i.e. closer than R (a particle exactly R away weighs 0), clamped into the grid. */
inline int2 cells_within(float a, float b, float R, float dx, int cells)
{
    int lo = (int)floor((a - R) / dx), hi = (int)ceil((b + R) / dx) - 1;
    return (int2)(clamp(lo, 0, cells - 1), clamp(hi, 0, cells - 1));
}

/* The particles' positions in the sort's order (start[] offsets, each cell's by id), as
 * float4 so the gather reads one aligned vector per particle. */
__kernel void surface_positions(__global float4 *out, __global const float *pos,
                                __global const int *sorted, int count)
{
    int q = get_global_id(0);
    if (q < count)
        out[q] = (float4)(load3(pos, sorted[q]), 0.0f);
}

/* The sums of a row of 8 nodes: weight and weighted offset x_p - x, as surface.c's
 * surface_splat_run adds them; lanes outside R add 0 (x + 0 is x). */
typedef struct { float8 w, ax, ay, az; } RowSums;

inline void row_add(RowSums *r, float8 x, float xp, float oy, float oz, float qyz, float inv_R2)
{
    float8 ox = x - xp, s2 = ox * ox * inv_R2 + qyz, u = 1.0f - s2;
    float8 w = select((float8)(0.0f), u * u * u, s2 < 1.0f);
    r->w += w;
    r->ax -= w * ox;
    r->ay -= w * oy;
    r->az -= w * oz;
}

/* Two rows of 8 nodes x at heights y0, y1 = y0 + h and depth z, gathered together: the cells
 * within R of either (x from xa to xb), each particle in cell order (z, y, then one run of
 * cells along x, each cell's by id, so the sums are the same on every run). */
inline void gather_rows(RowSums *r0, RowSums *r1, float8 x, float xa, float xb, float y0,
                        float y1, float z, __global const float4 *pos, __global const int *start,
                        int3 n, SurfaceConsts k)
{
    float inv_R2 = 1.0f / (k.R * k.R);
    int2 cx = cells_within(xa, xb, k.R, k.dx, n.x), cy = cells_within(y0, y1, k.R, k.dx, n.y),
         cz = cells_within(z, z, k.R, k.dx, n.z);
    for (int k3 = cz.x; k3 <= cz.y; k3++)
        for (int j = cy.x; j <= cy.y; j++) {
            int first = start[flat_index(n, cx.x, j, k3)];
            int last = start[flat_index(n, cx.y, j, k3) + 1];
            for (int p = first; p < last; p++) {
                float4 xp = pos[p];
                /* x_node - x_p, and q = (o / R)^2 summed as KernelAxis does */
                float oz = z - xp.z, oy0 = y0 - xp.y, oy1 = y1 - xp.y, qz = oz * oz * inv_R2;
                float q0 = oy0 * oy0 * inv_R2 + qz, q1 = oy1 * oy1 * inv_R2 + qz;
                if (q0 < 1.0f)
                    row_add(r0, x, xp.x, oy0, oz, q0, inv_R2);
                if (q1 < 1.0f)
                    row_add(r1, x, xp.x, oy1, oz, q1, inv_R2);
            }
        }
}

/* |xbar - x| - r from one node's sums, or far when no particle was within R. */
inline float sums_phi(float w, float ax, float ay, float az, SurfaceConsts k)
{
    if (!(w > 0.0f))
        return k.far;
    float inv = 1.0f / w;
    float ox = ax * inv, oy = ay * inv, oz = az * inv;
    return sqrt(ox * ox + oy * oy + oz * oz) - k.r;
}

/* Squared gap from coordinate x to cell c's slab along one axis (surface.c's surface_gaps). */
inline float slab_gap2(int c, float dx, float x)
{
    float a = (float)c * dx - x, b = x - (float)(c + 1) * dx;
    float t = a > 0.0f ? a : b > 0.0f ? b : 0.0f;
    return t * t;
}

/* Distance from x to the nearest SOLID cell, cells beyond the grid included, or rho when
 * none is nearer (surface.c's surface_solid_distance, without its row tables). */
inline float solid_distance(float3 x, float rho, __global const char *solid, int3 n, float dx)
{
    int3 lo = max(convert_int3(floor((x - rho) / dx)), -1);
    int3 hi = min(convert_int3(floor((x + rho) / dx)), n);
    float best = rho * rho;
    for (int cz = lo.z; cz <= hi.z; cz++) {
        float gz = slab_gap2(cz, dx, x.z);
        for (int cy = lo.y; cy <= hi.y; cy++) {
            float gyz = gz + slab_gap2(cy, dx, x.y);
            if (gyz >= best)
                continue;
            int row_out = cz < 0 || cz >= n.z || cy < 0 || cy >= n.y;
            for (int cx = lo.x; cx <= hi.x; cx++) {
                int out = row_out || cx < 0 || cx >= n.x;
                if (out || solid[flat_index(n, cx, cy, cz)])
                    best = fmin(best, gyz + slab_gap2(cx, dx, x.x));
            }
        }
    }
    return sqrt(best);
}

/* phi at a node inside the domain from its particle phi: the faces and SOLID cells lift it
 * (surface.c's surface_node_phi). */
inline float lift_phi(float v, int3 node, int3 fine, uchar f, __global const char *solid, int3 n,
                      SurfaceConsts k)
{
    if (any(node == 0) || any(node == fine))
        return fmax(v, k.clear);
    if (v >= k.clear || !(f & SF_NEAR_SOLID))
        return v;
    float3 x = convert_float3(node) * k.h;
    return fmax(v, k.clear - solid_distance(x, k.clear - v, solid, n, k.dx));
}

inline uchar node_flags(__global const uchar *flags, int3 node, int3 n, int refine)
{
    return flags[flat_index(n, node_cell(node.x, refine, n.x), node_cell(node.y, refine, n.y),
                            node_cell(node.z, refine, n.z))];
}

/* A listed brick's first node, from its slot. */
inline int3 brick_base(__global const int *list, int s, int4 nb4)
{
    int b = list[s];
    return (int3)(b % nb4.x, b / nb4.x % nb4.y, b / (nb4.x * nb4.y)) * BRICK;
}

/* The flags of a row's nodes (x from base.x, at y, z), and a bitmask of those that need
 * their sums; nodes past the domain's end need none. */
inline uint row_flags(uchar f[BRICK], __global const uchar *flags, int3 base, int y, int z,
                      int3 n, int3 fine, int refine)
{
    uint need = 0;
    size_t row = flat_index(n, 0, node_cell(y, refine, n.y), node_cell(z, refine, n.z));
    for (int q = 0; q < BRICK; q++) {
        int x = base.x + q;
        f[q] = flags[row + node_cell(x, refine, n.x)];
        int inside = x <= fine.x && y <= fine.y && z <= fine.z;
        need |= (uint)(inside && (f[q] & SF_SHALLOW) && (f[q] & SF_NEAR_PARTICLE)) << q;
    }
    return need;
}

/* phi at a row's nodes from its sums (used where need has the node's bit), into out. */
inline void row_finish(__global float *out, RowSums r, const uchar f[BRICK], uint need,
                       int3 base, int y, int z, __global const char *solid, int3 n, int3 fine,
                       SurfaceConsts k)
{
    float w[BRICK], ax[BRICK], ay[BRICK], az[BRICK];
    vstore8(r.w, 0, w);
    vstore8(r.ax, 0, ax);
    vstore8(r.ay, 0, ay);
    vstore8(r.az, 0, az);
    for (int q = 0; q < BRICK; q++) {
        int3 node = (int3)(base.x + q, y, z);
        if (any(node > fine)) { /* past the domain's end: never a cube's corner */
            out[q] = k.far;
            continue;
        }
        float v = !(f[q] & SF_SHALLOW) ? -k.r
                : need >> q & 1 ? sums_phi(w[q], ax[q], ay[q], az[q], k)
                : k.far;
        out[q] = lift_phi(v, node, fine, f[q], solid, n, k);
    }
}

/* phi at the own nodes of the listed bricks, in surface.h's SurfaceBricks layout: brick
 * list[s]'s node (x, y, z) at phi[s PAD3 + x + PAD (y + PAD z)]. A work-item does two rows
 * of BRICK nodes along x (y and y + 1), in SIMD lanes: each particle near them is read once. */
__kernel void surface_field(__global float *phi, __global const int *list, int count,
                            __global const float4 *pos, __global const int *start,
                            __global const uchar *flags, __global const char *solid, int4 n4,
                            int4 fine4, int4 nb4, SurfaceConsts k)
{
    int gid = get_global_id(0);
    if (gid >= count * BRICK * BRICK / 2)
        return;
    int3 n = n4.xyz, fine = fine4.xyz;
    int s = gid / (BRICK * BRICK / 2), pair = gid % (BRICK * BRICK / 2);
    int3 base = brick_base(list, s, nb4);
    int y0 = base.y + pair % (BRICK / 2) * 2, z = base.z + pair / (BRICK / 2);
    uchar f0[BRICK], f1[BRICK];
    uint need0 = row_flags(f0, flags, base, y0, z, n, fine, k.refine),
         need1 = row_flags(f1, flags, base, y0 + 1, z, n, fine, k.refine);
    RowSums r0 = { (float8)(0.0f), (float8)(0.0f), (float8)(0.0f), (float8)(0.0f) }, r1 = r0;
    if (need0 | need1) {
        /* the first and last node needing sums bound the gather along x */
        uint both = need0 | need1;
        int first = 31 - clz(both & (0u - both)), last = 31 - clz(both);
        float8 x = convert_float8((int8)(0, 1, 2, 3, 4, 5, 6, 7) + base.x) * k.h;
        gather_rows(&r0, &r1, x, (float)(base.x + first) * k.h, (float)(base.x + last) * k.h,
                    (float)y0 * k.h, (float)(y0 + 1) * k.h, (float)z * k.h, pos, start, n, k);
    }
    __global float *out = phi + (size_t)s * PAD3 + PAD * (y0 - base.y + PAD * (z - base.z));
    row_finish(out, r0, f0, need0, base, y0, z, solid, n, fine, k);
    row_finish(out + PAD, r1, f1, need1, base, y0 + 1, z, solid, n, fine, k);
}

/* The apron node a (0 .. APRON - 1) of a brick: the x = BRICK face, then y = BRICK, then
 * z = BRICK, without repeating the edges and corner. */
#define APRON (PAD3 - BRICK * BRICK * BRICK)
inline int3 apron_node(int a)
{
    if (a < PAD * PAD)
        return (int3)(BRICK, a % PAD, a / PAD);
    a -= PAD * PAD;
    if (a < BRICK * PAD)
        return (int3)(a % BRICK, BRICK, a / BRICK);
    a -= BRICK * PAD;
    return (int3)(a % BRICK, a / BRICK, BRICK);
}

/* The aprons: each listed brick's nodes x, y or z = BRICK are the first nodes of its +x, +y,
 * +z neighbours, copied when the neighbour is listed (slot[b] >= 0), else made here: a brick
 * left out has no node that needs sums (see surface_mark), so phi there is -r or far, lifted. */
__kernel void surface_apron(__global float *phi, __global const int *list,
                            __global const int *slot, int count, __global const uchar *flags,
                            __global const char *solid, int4 n4, int4 fine4, int4 nb4,
                            SurfaceConsts k)
{
    int gid = get_global_id(0);
    if (gid >= count * APRON)
        return;
    int s = gid / APRON;
    int3 at = apron_node(gid % APRON);
    int3 n = n4.xyz, fine = fine4.xyz, node = brick_base(list, s, nb4) + at;
    __global float *out = phi + (size_t)s * PAD3 + at.x + PAD * (at.y + PAD * at.z);
    if (any(node > fine)) {
        *out = k.far;
        return;
    }
    int3 b = node / BRICK, in = node % BRICK;
    int t = slot[flat_index(nb4.xyz, b.x, b.y, b.z)];
    if (t >= 0) {
        *out = phi[(size_t)t * PAD3 + in.x + PAD * (in.y + PAD * in.z)];
        return;
    }
    uchar f = node_flags(flags, node, n, k.refine);
    *out = lift_phi(f & SF_SHALLOW ? k.far : -k.r, node, fine, f, solid, n, k);
}
