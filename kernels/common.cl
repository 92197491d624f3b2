/* common.cl — the grid conventions of common/grid.h, for kernels: indexing, cell types, stencil.
 * flipkit kernels/: built first, so every other kernels/ file can use these helpers. Contraction
 * into fused multiply-adds is off, so a kernel rounds the way the C reference does. */
#pragma OPENCL FP_CONTRACT OFF

#define CELL_SOLID (-1)
#define CELL_AIR 0
#define CELL_FLUID 1

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

/* grid_stencil of grid.c: base face and fractions of component a at world position x. */
inline void stencil(int3 n, float dx, int a, float3 x, int *base, float *t)
{
    int3 fn = face_dims(n, a);
    float xs[3] = { x.x, x.y, x.z };
    int fns[3] = { fn.x, fn.y, fn.z };
    for (int d = 0; d < 3; d++) {
        float off = d == a ? 0.0f : 0.5f;
        float f = xs[d] / dx - off;
        int top = fns[d] - 2;
        f = !(f >= 0.0f) ? 0.0f : f > (float)(top + 1) ? (float)(top + 1) : f;
        int b = (int)floor(f);
        b = b > top ? top : b;
        float tt = f - (float)b;
        base[d] = b;
        t[d] = tt < 0.0f ? 0.0f : tt > 1.0f ? 1.0f : tt;
    }
}

inline float stencil_weight(const float *t, int di, int dj, int dk)
{
    return (di ? t[0] : 1.0f - t[0]) * (dj ? t[1] : 1.0f - t[1]) * (dk ? t[2] : 1.0f - t[2]);
}

inline float3 load3(__global const float *v, size_t p)
{
    return (float3)(v[3 * p], v[3 * p + 1], v[3 * p + 2]);
}
