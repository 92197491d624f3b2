/* aniso.cl — the anisotropic surface's field on the device (Yu & Turk 2013): per particle an
 * ellipsoid from its neighbours' weighted covariance, then each node's sum of ellipsoids.
 * flipkit kernels/: common/writers/aniso.c and surface.c's anisotropic field, gathered per node. */

/* Uses surface.cl's helpers (cells_within, row_flags, lift_phi, brick_base), which come
 * before this file in the program. A particle's kernel is four float4s at 4 q (q its place in
 * the sort's order): centre and weight; G's xx yy zz xy; G's xz yz; half extents along x y z. */

/* want: SF_SHALLOW where a cell's particles can reach a node that needs sums, i.e. a cell
 * whose flags (kernel_cells-dilated) have SF_SHALLOW within reach (kernel_cells + 1: a node on
 * a cell face belongs to the cell above), one axis a (0 x, 1 y, 2 z) per launch; cells
 * beyond the grid count as shallow, as in the flags. */
__kernel void aniso_want(__global uchar *out, __global const uchar *in, int4 n4, int a, int reach)
{
    int3 n = n4.xyz;
    int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    if (i >= n.x || j >= n.y || k >= n.z)
        return;
    int at = a == 0 ? i : a == 1 ? j : k, len = a == 0 ? n.x : a == 1 ? n.y : n.z;
    long stride = a == 0 ? 1 : a == 1 ? n.x : (long)n.x * n.y;
    size_t c = flat_index(n, i, j, k);
    uchar bits = at - reach < 0 || at + reach >= len ? SF_SHALLOW : 0;
    for (int s = max(-reach, -at); s <= min(reach, len - 1 - at) && !bits; s++)
        bits = in[(long)c + s * stride] & SF_SHALLOW;
    out[c] = bits;
}

/* One cyclic Jacobi rotation of the symmetric m about (p, q), applied to v's columns too. */
inline void jacobi_rotate(float m[3][3], float v[3][3], int p, int q)
{
    /* below float's rounding of the diagonal: converged, nothing to rotate */
    if (fabs(m[p][q]) <= 1e-8f * (fabs(m[p][p]) + fabs(m[q][q])))
        return;
    float theta = (m[q][q] - m[p][p]) / (2.0f * m[p][q]);
    float t = (theta >= 0.0f ? 1.0f : -1.0f) / (fabs(theta) + sqrt(theta * theta + 1.0f));
    float c = rsqrt(t * t + 1.0f), s = t * c;
    for (int k = 0; k < 3; k++) {   /* m = J^T m J, v = v J */
        float mkp = m[k][p], mkq = m[k][q];
        m[k][p] = c * mkp - s * mkq;
        m[k][q] = s * mkp + c * mkq;
    }
    for (int k = 0; k < 3; k++) {
        float mpk = m[p][k], mqk = m[q][k];
        m[p][k] = c * mpk - s * mqk;
        m[q][k] = s * mpk + c * mqk;
    }
    for (int k = 0; k < 3; k++) {
        float vkp = v[k][p], vkq = v[k][q];
        v[k][p] = c * vkp - s * vkq;
        v[k][q] = s * vkp + c * vkq;
    }
}

/* Eigenvalues (descending, ties in index order) and unit eigenvectors (columns of e) of the
 * symmetric cov (xx yy zz xy xz yz): aniso.c's aniso_eigen in float, 6 sweeps (Jacobi
 * converges quadratically: 6 leave float's rounding; a converged pair is skipped), so the
 * same matrix takes the same operations on every run. */
inline void jacobi_eigen(const float cov[6], float value[3], float e[3][3])
{
    float m[3][3] = { { cov[0], cov[3], cov[4] }, { cov[3], cov[1], cov[5] },
                      { cov[4], cov[5], cov[2] } };
    float v[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
    for (int sweep = 0; sweep < 6; sweep++) {
        jacobi_rotate(m, v, 0, 1);
        jacobi_rotate(m, v, 0, 2);
        jacobi_rotate(m, v, 1, 2);
    }
    int order[3] = { 0, 1, 2 };
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (m[order[j]][order[j]] > m[order[i]][order[i]]) {
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
    for (int i = 0; i < 3; i++) {
        value[i] = m[order[i]][order[i]];
        for (int k = 0; k < 3; k++)
            e[k][i] = v[k][order[i]];
    }
}

/* The kernel of axes R axis[a] along e's columns into kern[4 q ..]: G = sum_a e_a e_a^T /
 * (R axis_a), weight 1 / (axis_0 axis_1 axis_2), half extent along d sqrt(sum_a (R axis_a
 * e_da)^2) (aniso.c's aniso_make). */
inline void store_kernel(__global float4 *kern, int q, float3 centre, const float axis[3],
                         float e[3][3], float R)
{
    float g[6] = { 0, 0, 0, 0, 0, 0 };
    float3 ext = (float3)(0.0f);
    for (int a = 0; a < 3; a++) {
        float len = R * axis[a], inv = 1.0f / len;
        float3 ea = (float3)(e[0][a], e[1][a], e[2][a]);
        g[0] += ea.x * ea.x * inv;
        g[1] += ea.y * ea.y * inv;
        g[2] += ea.z * ea.z * inv;
        g[3] += ea.x * ea.y * inv;
        g[4] += ea.x * ea.z * inv;
        g[5] += ea.y * ea.z * inv;
        ext += len * len * ea * ea;
    }
    kern[4 * q] = (float4)(centre, 1.0f / (axis[0] * axis[1] * axis[2]));
    kern[4 * q + 1] = (float4)(g[0], g[1], g[2], g[3]);
    kern[4 * q + 2] = (float4)(g[4], g[5], 0.0f, 0.0f);
    kern[4 * q + 3] = (float4)(sqrt(ext), 0.0f);
}

/* One particle's kernel from its neighbours' weighted sums (offsets from the particle x):
 * their count, total weight, first moments m and second moments s (xx yy zz xy xz yz);
 * aniso.c's aniso_one in float. */
inline void fit_kernel(__global float4 *kern, int q, float3 x, int count, float w_sum, float3 m,
                       const float s[6], float R)
{
    float axis[3], e[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
    if (count < ANISO_NEPS) {   /* too few to fit: a small sphere, a drop */
        axis[0] = axis[1] = axis[2] = ANISO_KN;
        store_kernel(kern, q, x, axis, e, R);
        return;
    }
    m /= w_sum;
    float cov[6] = { s[0] / w_sum - m.x * m.x, s[1] / w_sum - m.y * m.y,
                     s[2] / w_sum - m.z * m.z, s[3] / w_sum - m.x * m.y,
                     s[4] / w_sum - m.x * m.z, s[5] / w_sum - m.y * m.z };
    float value[3];
    jacobi_eigen(cov, value, e);
    float top = max(value[0], 0.0f), spread[3];
    for (int a = 0; a < 3; a++) {   /* spread along the axis, at least 1/k_r of the most */
        float v = max(value[a], top / ANISO_KR);
        spread[a] = v > 0.0f ? v : 1.0f;
    }
    float scale = cbrt(spread[0] * spread[1] * spread[2]);   /* the sphere of radius R's volume */
    for (int a = 0; a < 3; a++)
        axis[a] = min(spread[a] / scale, ANISO_MAX_AXIS);
    store_kernel(kern, q, x + ANISO_LAMBDA * m, axis, e, R);
}

/* The particles' kernels, in the sort's order (pos[q] the sorted particle q, start[] the
 * cells' runs), a work-item per cell: its particles eight at a time, one per SIMD lane, so
 * each neighbour is read once for the eight. Neighbours are those within ANISO_REACH R,
 * weighted 1 - (d / reach)^3, over the cells near enough in z, y, x order and each cell's
 * particles by id, so the float sums are the same on every run. A cell that is not wanted
 * gets empty kernels (weight 0, extents -1), which the field skips: its particles reach no
 * node that needs sums. box[2 c], box[2 c + 1]: the corners of the box around cell c's
 * ellipsoids (.xyz; empty for a cell not wanted), so the field skips whole cells. */
__kernel void aniso_kernels(__global float4 *kern, __global float4 *box,
                            __global const float4 *pos, __global const int *start,
                            __global const uchar *want, int4 n4, float dx, float R)
{
    int3 n = n4.xyz;
    int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    if (i >= n.x || j >= n.y || k >= n.z)
        return;
    size_t cell = flat_index(n, i, j, k);
    int own0 = start[cell], own1 = start[cell + 1];
    box[2 * cell] = (float4)(INFINITY);   /* empty until a kernel widens it */
    box[2 * cell + 1] = (float4)(-INFINITY);
    if (!want[cell]) {
        for (int q = own0; q < own1; q++) {
            kern[4 * q] = (float4)(pos[q].xyz, 0.0f);
            kern[4 * q + 1] = kern[4 * q + 2] = (float4)(0.0f);
            kern[4 * q + 3] = (float4)(-1.0f);
        }
        return;
    }
    float reach = ANISO_REACH * R, reach2 = reach * reach, inv = 1.0f / reach;
    int span = (int)ceil(reach / dx);
    for (int base = own0; base < own1; base += 8) {
        int lanes = min(8, own1 - base);
        float xs[8], ys[8], zs[8];
        for (int l = 0; l < 8; l++) {   /* spare lanes repeat the first particle */
            float4 x = pos[base + (l < lanes ? l : 0)];
            xs[l] = x.x;
            ys[l] = x.y;
            zs[l] = x.z;
        }
        float8 X = vload8(0, xs), Y = vload8(0, ys), Z = vload8(0, zs);
        float8 w_sum = 0.0f, mx = 0.0f, my = 0.0f, mz = 0.0f, sxx = 0.0f, syy = 0.0f,
               szz = 0.0f, sxy = 0.0f, sxz = 0.0f, syz = 0.0f;
        int8 count = 0;
        /* cells whose box comes within reach of this cell's box, by whole cells of gap */
        for (int c3 = max(k - span, 0); c3 <= min(k + span, n.z - 1); c3++) {
            float gz = (float)max((int)abs(c3 - k) - 1, 0) * dx;
            for (int c2 = max(j - span, 0); c2 <= min(j + span, n.y - 1); c2++) {
                float gy = (float)max((int)abs(c2 - j) - 1, 0) * dx, gyz = gz * gz + gy * gy;
                if (gyz >= reach2)
                    continue;
                int lo = max(i - span, 0), hi = min(i + span, n.x - 1);
                int p0 = start[flat_index(n, lo, c2, c3)], p1 = start[flat_index(n, hi, c2, c3) + 1];
                for (int p = p0; p < p1; p++) {
                    float4 y = pos[p];
                    float8 dxv = y.x - X, dyv = y.y - Y, dzv = y.z - Z;
                    float8 d2 = dxv * dxv + dyv * dyv + dzv * dzv;
                    int8 in = d2 < reach2;
                    if (!any(in))
                        continue;
                    float8 r = sqrt(d2) * inv;
                    float8 w = select((float8)(0.0f), 1.0f - r * r * r, in);
                    w_sum += w;
                    count -= in;   /* true is -1 in a vector comparison */
                    mx += w * dxv;
                    my += w * dyv;
                    mz += w * dzv;
                    sxx += w * dxv * dxv;
                    syy += w * dyv * dyv;
                    szz += w * dzv * dzv;
                    sxy += w * dxv * dyv;
                    sxz += w * dxv * dzv;
                    syz += w * dyv * dzv;
                }
            }
        }
        float a_w[8], a_mx[8], a_my[8], a_mz[8], a_s[6][8];
        int a_n[8];
        vstore8(w_sum, 0, a_w);
        vstore8(mx, 0, a_mx);
        vstore8(my, 0, a_my);
        vstore8(mz, 0, a_mz);
        vstore8(sxx, 0, a_s[0]);
        vstore8(syy, 0, a_s[1]);
        vstore8(szz, 0, a_s[2]);
        vstore8(sxy, 0, a_s[3]);
        vstore8(sxz, 0, a_s[4]);
        vstore8(syz, 0, a_s[5]);
        vstore8(count, 0, a_n);
        for (int l = 0; l < lanes; l++) {
            float s6[6] = { a_s[0][l], a_s[1][l], a_s[2][l], a_s[3][l], a_s[4][l], a_s[5][l] };
            int q = base + l;
            fit_kernel(kern, q, (float3)(xs[l], ys[l], zs[l]), a_n[l], a_w[l],
                       (float3)(a_mx[l], a_my[l], a_mz[l]), s6, R);
            /* min and max do not depend on the order: the same box on every run */
            box[2 * cell] = fmin(box[2 * cell], kern[4 * q] - kern[4 * q + 3]);
            box[2 * cell + 1] = fmax(box[2 * cell + 1], kern[4 * q] + kern[4 * q + 3]);
        }
    }
}

/* What kernel (c, g0, g1) adds to a row of 8 nodes x at height y and depth z: weight W(|G (x -
 * c)|), W(q) = (1 - q^2)^3 inside the ellipsoid. */
inline float8 ellipsoid_row(float8 x, float y, float z, float4 c, float4 g0, float4 g1)
{
    float8 ox = x - c.x;
    float oy = y - c.y, oz = z - c.z;
    float8 u = g0.x * ox + (g0.w * oy + g1.x * oz), v = g0.w * ox + (g0.y * oy + g1.y * oz),
           w = g1.x * ox + (g1.y * oy + g0.z * oz);
    float8 q2 = u * u + v * v + w * w, t = 1.0f - q2;
    return select((float8)(0.0f), c.w * t * t * t, q2 < 1.0f);
}

/* phi from a node's sum: the density below its surface's level, in metres near the surface,
 * at least -R (surface.c's surface_particle_phi). */
inline float aniso_phi(float sum, SurfaceConsts k, AnisoConsts a)
{
    if (!(sum > 0.0f))
        return k.far;
    return fmax(k.R * (a.iso - sum) / a.full, -k.R);
}

/* The anisotropic field at the own nodes of the listed bricks, laid out as surface_field's: a
 * work-item does two rows of BRICK nodes along x. It gathers the kernels of the particles in
 * the cells within the support of the nodes that need sums, cells in z, y, x order and each
 * cell's particles by id, so every node's sum is added in the same order on every run. */
__kernel void aniso_field(__global float *phi, __global const int *list, int count,
                          __global const float4 *kern, __global const float4 *box,
                          __global const int *start,
                          __global const uchar *flags, __global const char *solid, int4 n4,
                          int4 fine4, int4 nb4, SurfaceConsts k, AnisoConsts a)
{
    int gid = get_global_id(0);
    if (gid >= count * BRICK * BRICK / 2)
        return;
    int3 n = n4.xyz, fine = fine4.xyz;
    int s = gid / (BRICK * BRICK / 2), pair = gid % (BRICK * BRICK / 2);
    int3 base = brick_base(list, s, nb4);
    int y0i = base.y + pair % (BRICK / 2) * 2, zi = base.z + pair / (BRICK / 2);
    uchar f0[BRICK], f1[BRICK];
    uint need0 = row_flags(f0, flags, base, y0i, zi, n, fine, k.refine),
         need1 = row_flags(f1, flags, base, y0i + 1, zi, n, fine, k.refine);
    float8 w0 = (float8)(0.0f), w1 = (float8)(0.0f);
    if (need0 | need1) {
        uint both = need0 | need1;
        int first = 31 - clz(both & (0u - both)), last = 31 - clz(both);
        float8 x = convert_float8((int8)(0, 1, 2, 3, 4, 5, 6, 7) + base.x) * k.h;
        float xa = (float)(base.x + first) * k.h, xb = (float)(base.x + last) * k.h;
        float y0 = (float)y0i * k.h, y1 = (float)(y0i + 1) * k.h, z = (float)zi * k.h;
        int2 cx = cells_within(xa, xb, a.support, k.dx, n.x),
             cy = cells_within(y0, y1, a.support, k.dx, n.y),
             cz = cells_within(z, z, a.support, k.dx, n.z);
        for (int c3 = cz.x; c3 <= cz.y; c3++)
            for (int j = cy.x; j <= cy.y; j++)
                for (int c1 = cx.x; c1 <= cx.y; c1++) {
                    size_t cell = flat_index(n, c1, j, c3);
                    float4 lo = box[2 * cell], hi = box[2 * cell + 1];
                    /* the cell's ellipsoids against the rows: most cells in reach miss them */
                    if (z < lo.z || z > hi.z || y1 < lo.y || y0 > hi.y || xb < lo.x || xa > hi.x)
                        continue;
                    for (int p = start[cell]; p < start[cell + 1]; p++) {
                        float4 c = kern[4 * p], ext = kern[4 * p + 3];
                        /* and each ellipsoid's box */
                        if (fabs(z - c.z) > ext.z || y1 < c.y - ext.y || y0 > c.y + ext.y ||
                            xb < c.x - ext.x || xa > c.x + ext.x)
                            continue;
                        float4 g0 = kern[4 * p + 1], g1 = kern[4 * p + 2];
                        if (need0 && fabs(y0 - c.y) <= ext.y)
                            w0 += ellipsoid_row(x, y0, z, c, g0, g1);
                        if (need1 && fabs(y1 - c.y) <= ext.y)
                            w1 += ellipsoid_row(x, y1, z, c, g0, g1);
                    }
                }
    }
    __global float *out = phi + (size_t)s * PAD3 + PAD * (y0i - base.y + PAD * (zi - base.z));
    float sum0[BRICK], sum1[BRICK];
    vstore8(w0, 0, sum0);
    vstore8(w1, 0, sum1);
    for (int r = 0; r < 2; r++) {
        int y = y0i + r;
        uint need = r ? need1 : need0;
        for (int q = 0; q < BRICK; q++) {
            int3 node = (int3)(base.x + q, y, zi);
            uchar f = r ? f1[q] : f0[q];
            if (any(node > fine)) {   /* past the domain's end: never a cube's corner */
                out[r * PAD + q] = k.far;
                continue;
            }
            float v = !(f & SF_SHALLOW) ? -k.r
                    : need >> q & 1 ? aniso_phi(r ? sum1[q] : sum0[q], k, a)
                    : k.far;
            out[r * PAD + q] = lift_phi(v, node, fine, f, solid, n, k);
        }
    }
}
