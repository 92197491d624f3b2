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

/* The cell of a coordinate along an axis of n cells (grid_cell_of of grid.c): clamped as a
 * float first, so that NaN gives 0 and any size n - 1, then converted (floor, as it is >= 0).
 * The counting sort's key (sort.cl) and keep_inside's test use it; STENCIL_AXIS's on_b (and
 * p2g_scatter's b, the same operations in float4 lanes) is the same cell, which p2g_scatter
 * relies on (it adds a particle into the faces around the cell the sort put it in). */
inline int cell_along(float c, float dx, int n)
{
    return (int)fmin(fmax(c / dx, 0.0f), (float)(n - 1));
}

/* One axis of grid_stencil of grid.c in scalars, for the particle kernels: coordinate c (world
 * units) on an axis of n cells gives the base and fraction of the component that lies on this
 * axis (on_b, on_t: faces at whole cells) and of those across it (ac_b, ac_t: at half cells).
 * Written so that PoCL runs a work-group's particles through the CPU's vector lanes: no vector
 * types, no floor (after the clamp to >= 0 a conversion to int is floor), and the two clamps
 * written differently so the SLP pass does not pair them into two-wide vectors first (either
 * stopped the loop vectorizer). A NaN coordinate gives base 0, as grid_stencil does. The
 * fractions need no clamp: each lies in [0, 1] by construction. */
#define STENCIL_AXIS(name, c, n, dx, on_b, on_t, ac_b, ac_t)                              \
    float name##_f0 = (c) / (dx), name##_f1 = name##_f0 - 0.5f;                           \
    name##_f0 = fmin(name##_f0 >= 0.0f ? name##_f0 : 0.0f, (float)(n));                   \
    name##_f1 = fmin(fmax(name##_f1, 0.0f), (float)((n) - 1));                            \
    int on_b = min((int)name##_f0, (n) - 1), ac_b = min((int)name##_f1, (n) - 2);         \
    float on_t = name##_f0 - (float)on_b, ac_t = name##_f1 - (float)ac_b;

inline float3 load3(__global const float *v, size_t p)
{
    return (float3)(v[3 * p], v[3 * p + 1], v[3 * p + 2]);
}
