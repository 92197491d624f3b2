/* common.cl — the grid conventions of common/grid.h, for kernels: indexing, cell types, stencil.
 * flipkit kernels/: built first, so every other kernels/ file can use these helpers. Contraction
 * into fused multiply-adds is off, so a kernel rounds the way the C reference does. */
#pragma OPENCL FP_CONTRACT OFF

/* CELL_SOLID, CELL_AIR and CELL_FLUID are common/constants.h's, which reference/clx.c puts in
 * front of the kernels. */

/* Face counts of component a: u is (nx+1) x ny x nz, v is nx x (ny+1) x nz, w is nx x ny x (nz+1). */
inline int3 face_dims(int3 n, int a)
{
    return (int3)(n.x + (a == 0), n.y + (a == 1), n.z + (a == 2));
}

inline size_t flat_index(int3 n, int i, int j, int k)
{
    return (size_t)i + (size_t)n.x * ((size_t)j + (size_t)n.y * (size_t)k);
}

/* Cell type, everything outside the array counted as SOLID. */
inline int cell_type(__global const char *cell, int3 n, int i, int j, int k)
{
    if (i < 0 || j < 0 || k < 0 || i >= n.x || j >= n.y || k >= n.z)
        return CELL_SOLID;
    return cell[flat_index(n, i, j, k)];
}

/* The cells either side of face (a; i,j,k): below is (i,j,k) - e_a, above is (i,j,k). */
inline int face_below(__global const char *cell, int3 n, int a, int i, int j, int k)
{
    return cell_type(cell, n, i - (a == 0), j - (a == 1), k - (a == 2));
}

inline int face_is_solid(__global const char *cell, int3 n, int a, int i, int j, int k)
{
    return face_below(cell, n, a, i, j, k) == CELL_SOLID || cell_type(cell, n, i, j, k) == CELL_SOLID;
}

/* SOLID on exactly one side (grid_face_on_wall): the wall's normal velocity, 0. */
inline int face_on_wall(__global const char *cell, int3 n, int a, int i, int j, int k)
{
    return (face_below(cell, n, a, i, j, k) == CELL_SOLID) != (cell_type(cell, n, i, j, k) == CELL_SOLID);
}

/* grid_stencil of grid.c for all three components at once, as vector operations (private
 * arrays indexed in loops live in memory on a CPU device, which made every particle kernel
 * several times slower). Along its own axis a component is offset 0, across it 1/2, so two
 * vector stencils hold all three: stencil_pick takes component a's out of them. */
typedef struct { int3 base; float3 t; } Stencil;
typedef struct { Stencil on, across; } Stencils;

__attribute__((always_inline)) inline Stencils stencils_at(int3 n, float dx, float3 x)
{
    float3 f0 = x / dx, f1 = f0 - 0.5f;
    Stencils s;
    f0 = fmin(select((float3)(0.0f), f0, f0 >= (float3)(0.0f)), convert_float3(n));
    f1 = fmin(select((float3)(0.0f), f1, f1 >= (float3)(0.0f)), convert_float3(n - 1));
    s.on.base = min(convert_int3(floor(f0)), n - 1);
    s.across.base = min(convert_int3(floor(f1)), n - 2);
    s.on.t = clamp(f0 - convert_float3(s.on.base), 0.0f, 1.0f);
    s.across.t = clamp(f1 - convert_float3(s.across.base), 0.0f, 1.0f);
    return s;
}

/* One axis of grid_stencil in scalars, for the particle kernels: coordinate c (world units) on
 * an axis of n cells gives the base and fraction of the component that lies on this axis
 * (on_b, on_t: faces at whole cells) and of those across it (ac_b, ac_t: at half cells). The
 * same values as stencils_at, written so that PoCL runs a work-group's particles through the
 * CPU's vector lanes: no vector types, no floor (after the clamp to >= 0 a conversion to int
 * is floor), and the two clamps written differently so the SLP pass does not pair them into
 * two-wide vectors first (either stopped the loop vectorizer). fmax(NaN, 0) is 0, as the
 * select is. The fractions need no clamp: each lies in [0, 1] by construction. */
#define STENCIL_AXIS(name, c, n, dx, on_b, on_t, ac_b, ac_t)                              \
    float name##_f0 = (c) / (dx), name##_f1 = name##_f0 - 0.5f;                           \
    name##_f0 = fmin(name##_f0 >= 0.0f ? name##_f0 : 0.0f, (float)(n));                   \
    name##_f1 = fmin(fmax(name##_f1, 0.0f), (float)((n) - 1));                            \
    int on_b = min((int)name##_f0, (n) - 1), ac_b = min((int)name##_f1, (n) - 2);         \
    float on_t = name##_f0 - (float)on_b, ac_t = name##_f1 - (float)ac_b;

/* Component a's stencil out of both. */
__attribute__((always_inline)) inline Stencil stencil_pick(Stencils s, int a)
{
    Stencil r;
    r.base = (int3)(a == 0 ? s.on.base.x : s.across.base.x, a == 1 ? s.on.base.y : s.across.base.y,
                    a == 2 ? s.on.base.z : s.across.base.z);
    r.t = (float3)(a == 0 ? s.on.t.x : s.across.t.x, a == 1 ? s.on.t.y : s.across.t.y,
                   a == 2 ? s.on.t.z : s.across.t.z);
    return r;
}

/* grid_stencil of grid.c: base face and fractions of component a at world position x. */
__attribute__((always_inline)) inline Stencil stencil_at(int3 n, float dx, int a, float3 x)
{
    return stencil_pick(stencils_at(n, dx, x), a);
}

/* The trilinear weight of corner (di, dj, dk), multiplied in grid.c's order. */
__attribute__((always_inline)) inline float corner_weight(float3 t, int di, int dj, int dk)
{
    return (di ? t.x : 1.0f - t.x) * (dj ? t.y : 1.0f - t.y) * (dk ? t.z : 1.0f - t.z);
}

inline float3 load3(__global const float *v, size_t p)
{
    return (float3)(v[3 * p], v[3 * p + 1], v[3 * p + 2]);
}
