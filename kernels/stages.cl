/* stages.cl — the stages of common/stages.h that run one work-item per particle, face or cell.
 * flipkit kernels/: the same arithmetic as the reference/ stage files in the same order, so the
 * golden cases hold within the C tolerances; p2g is pipeline.cl's p2g_scatter (a scatter by rows). */

/* One work-item per coordinate, not per particle: x, y and z get the same arithmetic, and
 * lanes that read neighbouring floats load and store whole vectors, where three strided
 * coordinates per lane took six gathers and three scatters (3.6x the bandwidth bound). */
__kernel void advect(__global float *pos, __global const float *vel, float dt, int coords)
{
    int c = get_global_id(0);
    if (c < coords)
        pos[c] += dt * vel[c];
}

__kernel void gravity(__global float *vel, __global const char *cell, int4 n4, int a, float dv)
{
    int3 n = n4.xyz, fn = face_dims(n, a);
    int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    if (i >= fn.x || j >= fn.y || k >= fn.z)
        return;
    if (!face_is_solid(cell, n, a, i, j, k))
        vel[flat_index(fn, i, j, k)] += dv;
}

/* Particle p's stencil on the three face grids: b, t the axis's own component, hb, ht the two
 * across it; then each component's row strides (sy, sz) and first tap. */
#define G2P_STENCIL(p)                                                                  \
    int nx = n4.x, ny = n4.y, nz = n4.z;                                                \
    STENCIL_AXIS(x, pos[3 * (p)], nx, dx, bx, tx, hbx, htx)                             \
    STENCIL_AXIS(y, pos[3 * (p) + 1], ny, dx, by, ty, hby, hty)                         \
    STENCIL_AXIS(z, pos[3 * (p) + 2], nz, dx, bz, tz, hbz, htz)
#define U_ROWS nx + 1, (nx + 1) * ny
#define U_BASE bx + (nx + 1) * (hby + ny * hbz)
#define V_ROWS nx, nx * (ny + 1)
#define V_BASE hbx + nx * (by + (ny + 1) * hbz)
#define W_ROWS nx, nx * ny
#define W_BASE hbx + nx * (hby + ny * bz)

/* The particle's new velocity component from the 2 x 2 x 2 faces from i0 on (rows sy and sz
 * apart): PIC interpolates the grid, FLIP adds the grid's change to the particle's own value.
 * Taps summed in g2p.c's order (k, then j, then i), each weight multiplied x, y, z. */
__attribute__((always_inline)) inline float g2p_gather(__global const float *f,
                                                      __global const float *f_old, int sy, int sz,
                                                      int i0, float tx, float ty, float tz,
                                                      float alpha, float old_v)
{
    float pic = 0.0f, change = 0.0f;
    float ux = 1.0f - tx, uy = 1.0f - ty, uz = 1.0f - tz;
#define G2P_TAP(off, wx, wy, wz)                                                        \
    {                                                                                   \
        float w = (wx) * (wy) * (wz), now = f[i0 + (off)];                              \
        pic += w * now;                                                                 \
        change += w * (now - f_old[i0 + (off)]);                                        \
    }
    G2P_TAP(0, ux, uy, uz) G2P_TAP(1, tx, uy, uz) G2P_TAP(sy, ux, ty, uz)
    G2P_TAP(sy + 1, tx, ty, uz) G2P_TAP(sz, ux, uy, tz) G2P_TAP(sz + 1, tx, uy, tz)
    G2P_TAP(sz + sy, ux, ty, tz) G2P_TAP(sz + sy + 1, tx, ty, tz)
#undef G2P_TAP
    return alpha * pic + (1.0f - alpha) * (old_v + change);
}

__kernel void g2p(__global float *pvel, __global const float *pos, __global const float *u,
                  __global const float *v, __global const float *w, __global const float *u_old,
                  __global const float *v_old, __global const float *w_old, int4 n4, float dx,
                  float alpha, int count)
{
    int p = get_global_id(0);
    if (p >= count)
        return;
    G2P_STENCIL(p)
    float vu = g2p_gather(u, u_old, U_ROWS, U_BASE, tx, hty, htz, alpha, pvel[3 * p]);
    float vv = g2p_gather(v, v_old, V_ROWS, V_BASE, htx, ty, htz, alpha, pvel[3 * p + 1]);
    float vw = g2p_gather(w, w_old, W_ROWS, W_BASE, htx, hty, tz, alpha, pvel[3 * p + 2]);
    pvel[3 * p] = vu;
    pvel[3 * p + 1] = vv;
    pvel[3 * p + 2] = vw;
}

/* The pipeline's g2p in one field per component. PIC/FLIP's alpha pic + (1 - alpha) (old_v +
 * change), with pic = sum w f and change = sum w (f - f_old), is sum w (f - keep f_old) +
 * keep old_v with keep = 1 - alpha: g2p_blend writes g = f - keep f_old over old (nothing
 * reads old after g2p; p2g_normalize writes it again), and g2p_move gathers 24 taps where
 * g2p gathers 48, which is what bounds it on a CPU device (a vgatherdps per tap and 8
 * particles). The stage track keeps g2p, whose sums are g2p.c's to the last bit. */
__kernel void g2p_blend(__global float *u_old, __global float *v_old, __global float *w_old,
                        __global const float *u, __global const float *v, __global const float *w,
                        int4 nfaces, float keep)
{
    int f = get_global_id(0);
    if (f < nfaces.x)
        u_old[f] = u[f] - keep * u_old[f];
    if (f < nfaces.y)
        v_old[f] = v[f] - keep * v_old[f];
    if (f < nfaces.z)
        w_old[f] = w[f] - keep * w_old[f];
}

inline float g2p_blended_gather(__global const float *g, int sy, int sz, int i0, float tx,
                                float ty, float tz)
{
    float ux = 1.0f - tx, uy = 1.0f - ty, uz = 1.0f - tz;
    return ux * uy * uz * g[i0] + tx * uy * uz * g[i0 + 1] + ux * ty * uz * g[i0 + sy] +
           tx * ty * uz * g[i0 + sy + 1] + ux * uy * tz * g[i0 + sz] + tx * uy * tz * g[i0 + sz + 1] +
           ux * ty * tz * g[i0 + sz + sy] + tx * ty * tz * g[i0 + sz + sy + 1];
}

/* The production particle step (reference/rkstep.c) samples the grid's velocity, trilinear
 * from the faces (the u, v, w the extrapolation left, which g2p_blend does not touch). Scalars
 * only, so PoCL keeps the loop in the vector lanes. */
inline void grid_velocity(__global const float *u, __global const float *v,
                          __global const float *w, int4 n4, float dx, float px, float py,
                          float pz, float *ou, float *ov, float *ow)
{
    int nx = n4.x, ny = n4.y, nz = n4.z;
    STENCIL_AXIS(x, px, nx, dx, bx, tx, hbx, htx)
    STENCIL_AXIS(y, py, ny, dx, by, ty, hby, hty)
    STENCIL_AXIS(z, pz, nz, dx, bz, tz, hbz, htz)
    *ou = g2p_blended_gather(u, U_ROWS, U_BASE, tx, hty, htz);
    *ov = g2p_blended_gather(v, V_ROWS, V_BASE, htx, ty, htz);
    *ow = g2p_blended_gather(w, W_ROWS, W_BASE, htx, hty, tz);
}

/* Particle p from (x, y, z) to its place after dt: midpoint RK2 (order 2) or Ralston's RK3
 * (order 3) through the faces' velocity, reference/rkstep.c's arithmetic. */
inline void rk_move(__global float *pos, int p, __global const float *u,
                    __global const float *v, __global const float *w, int4 n4, float dx,
                    float x, float y, float z, float dt, int order)
{
    float k1u, k1v, k1w, k2u, k2v, k2w, k3u, k3v, k3w;
    grid_velocity(u, v, w, n4, dx, x, y, z, &k1u, &k1v, &k1w);
    float h = 0.5f * dt;
    grid_velocity(u, v, w, n4, dx, x + h * k1u, y + h * k1v, z + h * k1w, &k2u, &k2v, &k2w);
    if (order == 2) {
        pos[3 * p] = x + dt * k2u;
        pos[3 * p + 1] = y + dt * k2v;
        pos[3 * p + 2] = z + dt * k2w;
        return;
    }
    h = 0.75f * dt;
    grid_velocity(u, v, w, n4, dx, x + h * k2u, y + h * k2v, z + h * k2w, &k3u, &k3v, &k3w);
    const float c1 = 2.0f / 9.0f, c2 = 3.0f / 9.0f, c3 = 4.0f / 9.0f;
    pos[3 * p] = x + dt * (c1 * k1u + c2 * k2u + c3 * k3u);
    pos[3 * p + 1] = y + dt * (c1 * k1v + c2 * k2v + c3 * k3v);
    pos[3 * p + 2] = z + dt * (c1 * k1w + c2 * k2w + c3 * k3w);
}

/* The pipeline's g2p and advect in one launch (pipe_g2p_move): the blended velocity, then
 * the move, Euler with that velocity as the advect kernel does (order 0) or rk_move's
 * RK step through the faces (order 2, 3). At the kit's small grids a launch and its wait cost
 * more than C's whole advect, so the device lost that stage; fused, it reads each position
 * once. The stage track keeps the kernels apart, as each stage's suite tests them. */
__kernel void g2p_move(__global float *pvel, __global float *pos, __global const float *gu,
                       __global const float *gv, __global const float *gw,
                       __global const float *u, __global const float *v,
                       __global const float *w, int4 n4, float dx, float keep, float dt,
                       int order, int count)
{
    int p = get_global_id(0);
    if (p >= count)
        return;
    float x = pos[3 * p], y = pos[3 * p + 1], z = pos[3 * p + 2];
    float vu, vv, vw;
    {
        int nx = n4.x, ny = n4.y, nz = n4.z;
        STENCIL_AXIS(x, x, nx, dx, bx, tx, hbx, htx)
        STENCIL_AXIS(y, y, ny, dx, by, ty, hby, hty)
        STENCIL_AXIS(z, z, nz, dx, bz, tz, hbz, htz)
        vu = g2p_blended_gather(gu, U_ROWS, U_BASE, tx, hty, htz) + keep * pvel[3 * p];
        vv = g2p_blended_gather(gv, V_ROWS, V_BASE, htx, ty, htz) + keep * pvel[3 * p + 1];
        vw = g2p_blended_gather(gw, W_ROWS, W_BASE, htx, hty, tz) + keep * pvel[3 * p + 2];
    }
    pvel[3 * p] = vu;
    pvel[3 * p + 1] = vv;
    pvel[3 * p + 2] = vw;
    if (order == 0) {
        pos[3 * p] = x + dt * vu;
        pos[3 * p + 1] = y + dt * vv;
        pos[3 * p + 2] = z + dt * vw;
        return;
    }
    rk_move(pos, p, u, v, w, n4, dx, x, y, z, dt, order);
}

#undef G2P_STENCIL
#undef U_ROWS
#undef U_BASE
#undef V_ROWS
#undef V_BASE
#undef W_ROWS
#undef W_BASE

/* dv: gravity's change of this component, added to every face that is not solid, as the
 * gravity kernel would have stored it; -0.0 where there is none to add (the stage track), since
 * x + -0.0 is x to the bit for every x, signed zeros included. */
inline float divergence_face(__global const float *vel, __global const char *cell, int3 n, int a,
                             int i, int j, int k, float dv)
{
    if (face_is_solid(cell, n, a, i, j, k))
        return 0.0f;
    return vel[flat_index(face_dims(n, a), i, j, k)] + dv;
}

/* The pipeline fuses gravity into this read and gradient's write (dv4, see pipe_gravity); the
 * stage track passes -0.0. */
__kernel void divergence(__global float *div, __global const float *u, __global const float *v,
                         __global const float *w, __global const char *cell, int4 n4, float dx,
                         float4 dv4)
{
    int3 n = n4.xyz;
    int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    if (i >= n.x || j >= n.y || k >= n.z)
        return;
    size_t c = flat_index(n, i, j, k);
    if (cell[c] != CELL_FLUID) {
        div[c] = 0.0f;
        return;
    }
    float out = divergence_face(u, cell, n, 0, i + 1, j, k, dv4.x) -
                divergence_face(u, cell, n, 0, i, j, k, dv4.x) +
                divergence_face(v, cell, n, 1, i, j + 1, k, dv4.y) -
                divergence_face(v, cell, n, 1, i, j, k, dv4.y) +
                divergence_face(w, cell, n, 2, i, j, k + 1, dv4.z) -
                divergence_face(w, cell, n, 2, i, j, k, dv4.z);
    div[c] = out / dx;
}

/* Counts cell (i,j,k) when it is not SOLID and adds its p when it is FLUID. */
inline void neighbour_take(__global const float *p, __global const char *cell, int3 n, int i, int j,
                           int k, float *sum, int *count)
{
    int t = cell_type(cell, n, i, j, k);
    if (t != CELL_SOLID)
        (*count)++;
    if (t == CELL_FLUID)
        *sum += p[flat_index(n, i, j, k)];
}

/* Sum of p over the FLUID neighbours and the count of non-SOLID ones, in the reference's order. */
inline float neighbour_sum(__global const float *p, __global const char *cell, int3 n, int i,
                           int j, int k, int *count)
{
    /* -x +x -y +y -z +z, written out (a private table indexed in a loop lives in memory on a
     * CPU device) and summed in that order, as the reference does. */
    float sum = 0.0f;
    *count = 0;
    neighbour_take(p, cell, n, i - 1, j, k, &sum, count);
    neighbour_take(p, cell, n, i + 1, j, k, &sum, count);
    neighbour_take(p, cell, n, i, j - 1, k, &sum, count);
    neighbour_take(p, cell, n, i, j + 1, k, &sum, count);
    neighbour_take(p, cell, n, i, j, k - 1, &sum, count);
    neighbour_take(p, cell, n, i, j, k + 1, &sum, count);
    return sum;
}

/* L p at FLUID cell (i, j, k), shared with the pipeline's jacobi_solve (the same bits). */
inline float laplacian_at(__global const float *p, __global const char *cell, int3 n, int i,
                          int j, int k, float dx)
{
    int count;
    float sum = neighbour_sum(p, cell, n, i, j, k, &count);
    float inv_dx2 = 1.0f / (dx * dx);
    return (sum - (float)count * p[flat_index(n, i, j, k)]) * inv_dx2;
}

__kernel void laplacian(__global float *out, __global const float *p, __global const char *cell,
                        int4 n4, float dx)
{
    int3 n = n4.xyz;
    int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    if (i >= n.x || j >= n.y || k >= n.z)
        return;
    size_t c = flat_index(n, i, j, k);
    out[c] = cell[c] == CELL_FLUID ? laplacian_at(p, cell, n, i, j, k, dx) : 0.0f;
}

/* One cell's jacobi update, shared with the pipeline's jacobi_solve (the same bits). */
inline void jacobi_cell(__global float *p_out, __global const float *p,
                        __global const float *rhs, __global const char *cell, int3 n, int i,
                        int j, int k, float dx, float omega)
{
    size_t c = flat_index(n, i, j, k);
    p_out[c] = 0.0f;
    if (cell[c] != CELL_FLUID)
        return;
    int count;
    float sum = neighbour_sum(p, cell, n, i, j, k, &count);
    float dx2 = dx * dx;
    if (count > 0)
        p_out[c] = (1.0f - omega) * p[c] + omega * (sum - dx2 * rhs[c]) / (float)count;
}

__kernel void jacobi(__global float *p_out, __global const float *p, __global const float *rhs,
                     __global const char *cell, int4 n4, float dx, float omega)
{
    int3 n = n4.xyz;
    int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    if (i >= n.x || j >= n.y || k >= n.z)
        return;
    jacobi_cell(p_out, p, rhs, cell, n, i, j, k, dx, omega);
}

/* dv: gravity's change of this component (the pipeline; -0.0 from the stage track), added
 * where the face's velocity is kept. The faces left as they are, between two cells that are not
 * FLUID, are not read again before extrapolation writes them (the pipeline's extrap_layer zeroes
 * what it cannot reach), so they need none. */
__attribute__((always_inline)) inline void gradient_face(__global float *vel,
                                                         __global const float *p,
                                                         __global const char *cell, int3 n,
                                                         float dx, float scale, int a, float dv,
                                                         int i, int j, int k)
{
    int3 fn = face_dims(n, a);
    size_t f = flat_index(fn, i, j, k);
    int lo = face_below(cell, n, a, i, j, k), hi = cell_type(cell, n, i, j, k);
    if (lo == CELL_SOLID || hi == CELL_SOLID) {
        vel[f] = 0.0f;
        return;
    }
    if (lo != CELL_FLUID && hi != CELL_FLUID)
        return;
    size_t c_hi = flat_index(n, i, j, k);
    size_t c_lo = flat_index(n, i - (a == 0), j - (a == 1), k - (a == 2));
    vel[f] = (vel[f] + dv) - scale * (p[c_hi] - p[c_lo]) / dx;
}

__kernel void gradient(__global float *vel, __global const float *p, __global const char *cell,
                       int4 n4, float dx, float scale, int a, float dv)
{
    int3 n = n4.xyz, fn = face_dims(n, a);
    int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    if (i >= fn.x || j >= fn.y || k >= fn.z)
        return;
    gradient_face(vel, p, cell, n, dx, scale, a, dv, i, j, k);
}

/* The pipeline's gradient, the three components in one launch (on a small grid a launch costs
 * more than its work): over the FLUID box, whose high corner is hi4, and one face past it along
 * each component's own axis, as three gradient launches would cover; each face as
 * gradient_face makes it, so the bits are theirs. */
__kernel void gradient3(__global float *u, __global float *v, __global float *w,
                        __global const float *p, __global const char *cell, int4 n4, float dx,
                        float scale, float4 dv, int4 hi4)
{
    int3 n = n4.xyz, hi = hi4.xyz;
    int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
    int in_x = i < hi.x, in_y = j < hi.y, in_z = k < hi.z;
    if (i <= hi.x && in_y && in_z)
        gradient_face(u, p, cell, n, dx, scale, 0, dv.x, i, j, k);
    if (in_x && j <= hi.y && in_z)
        gradient_face(v, p, cell, n, dx, scale, 1, dv.y, i, j, k);
    if (in_x && in_y && k <= hi.z)
        gradient_face(w, p, cell, n, dx, scale, 2, dv.z, i, j, k);
}
