/* grid.h — the MAC grid: sizes, the staggering table, cell types and the shared fields.
 * flipkit common/: the one source of truth for indexing. Every stage, test and kernel
 * uses these helpers instead of writing offsets of its own. */
#ifndef FLIPKIT_GRID_H
#define FLIPKIT_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "constants.h"

/* Cell types are CELL_SOLID, CELL_AIR and CELL_FLUID (constants.h, which the OpenCL kernels
 * read too). The outermost layer of cells is always SOLID. */

typedef struct { float x, y, z; } Vec3;

static inline float vec3_get(Vec3 v, int axis) { return axis == 0 ? v.x : axis == 1 ? v.y : v.z; }

/* The staggering, set up in plain sight. Axis 0 is u (x-faces), 1 is v, 2 is w.
 * Face (a; i,j,k) sits between cell (i,j,k) - e_a and cell (i,j,k); its world position is
 * ((i + off[0]) dx, (j + off[1]) dx, (k + off[2]) dx). */
typedef struct {
    int n[3];       /* face counts per dimension: u is (nx+1) x ny x nz, ... */
    float off[3];   /* position of face (0,0,0) in cells: u is (0, 1/2, 1/2), ... */
} FaceLayout;

typedef struct {
    int nx, ny, nz;     /* cells per dimension, outer layer included */
    float dx;           /* cell size, metres */
    FaceLayout face[3]; /* filled by grid_init, never changed */
    int8_t *cell;       /* nx*ny*nz cell types */
    float *vel[3];      /* face velocities u, v, w (m/s) */
    float *weight[3];   /* p2g weight sums per face; 0 where no particle reached */
    float *p;           /* pressure per cell (Pa); 0 in AIR and SOLID cells */
} MacGrid;

/* Allocates a grid with every cell AIR except the outer SOLID layer; fields zero.
 * Returns 0, or -1 when out of memory or a size is below 3. */
int grid_init(MacGrid *g, int nx, int ny, int nz, float dx);
void grid_free(MacGrid *g);

static inline size_t grid_cells(const MacGrid *g) { return (size_t)g->nx * g->ny * g->nz; }
static inline size_t grid_faces(const MacGrid *g, int a)
{
    return (size_t)g->face[a].n[0] * g->face[a].n[1] * g->face[a].n[2];
}

/* Flat indices, x fastest. */
static inline size_t grid_cell_index(const MacGrid *g, int i, int j, int k)
{
    return (size_t)i + (size_t)g->nx * ((size_t)j + (size_t)g->ny * (size_t)k);
}
static inline size_t grid_face_index(const MacGrid *g, int a, int i, int j, int k)
{
    const int *n = g->face[a].n;
    return (size_t)i + (size_t)n[0] * ((size_t)j + (size_t)n[1] * (size_t)k);
}

/* Cell type with everything outside the array counted as SOLID. */
static inline int grid_cell_type(const MacGrid *g, int i, int j, int k)
{
    if (i < 0 || j < 0 || k < 0 || i >= g->nx || j >= g->ny || k >= g->nz)
        return CELL_SOLID;
    return g->cell[grid_cell_index(g, i, j, k)];
}

/* The velocity components' names by axis: u on x-faces, v on y-faces, w on z-faces. Written
 * once for messages, state file sections, the watch and the Python binding. */
static inline const char *grid_component_name(int a)
{
    static const char *const names[3] = { "u", "v", "w" };
    return names[a];
}

static inline char grid_component_letter(int a)
{
    return grid_component_name(a)[0];
}

/* "FLUID", "AIR", "SOLID" (or "?"), for messages. */
static inline const char *grid_cell_type_name(int type)
{
    return type == CELL_FLUID ? "FLUID" : type == CELL_AIR ? "AIR" : type == CELL_SOLID ? "SOLID" : "?";
}

/* The two cells on either side of face (a; i,j,k): "below" is (i,j,k) - e_a. */
static inline int grid_face_below(const MacGrid *g, int a, int i, int j, int k)
{
    return grid_cell_type(g, i - (a == 0), j - (a == 1), k - (a == 2));
}
static inline int grid_face_above(const MacGrid *g, int a, int i, int j, int k)
{
    (void)a; /* face (a; i,j,k) always has cell (i,j,k) above it, whatever the axis */
    return grid_cell_type(g, i, j, k);
}
/* A face touches a solid when either of its cells is SOLID: its velocity is the solid's (0). */
static inline int grid_face_is_solid(const MacGrid *g, int a, int i, int j, int k)
{
    return grid_face_below(g, a, i, j, k) == CELL_SOLID || grid_face_above(g, a, i, j, k) == CELL_SOLID;
}
/* A face on a solid's surface: SOLID on exactly one side. Its velocity is the wall's normal
 * velocity (0). A face with SOLID on both sides is inside the solid and carries no flow; the
 * given extrapolation still fills it with a ghost value copied from the liquid beside the
 * wall, which g2p reads within half a cell of it, so walls are free-slip. */
static inline int grid_face_on_wall(const MacGrid *g, int a, int i, int j, int k)
{
    return (grid_face_below(g, a, i, j, k) == CELL_SOLID) != (grid_face_above(g, a, i, j, k) == CELL_SOLID);
}

static inline Vec3 grid_cell_centre(const MacGrid *g, int i, int j, int k)
{
    Vec3 c = { (i + 0.5f) * g->dx, (j + 0.5f) * g->dx, (k + 0.5f) * g->dx };
    return c;
}
static inline Vec3 grid_face_position(const MacGrid *g, int a, int i, int j, int k)
{
    const float *o = g->face[a].off;
    Vec3 c = { (i + o[0]) * g->dx, (j + o[1]) * g->dx, (k + o[2]) * g->dx };
    return c;
}

/* @level guided for p2g,g2p */
/* The trilinear stencil of component a at world position x: the base face (i,j,k) and the
 * fractions t in [0,1] along each axis. Face (i+di, j+dj, k+dk), di,dj,dk in {0,1}, gets weight
 * prod_d (di ? t[d] : 1 - t[d]). The base is clamped so the 2x2x2 faces exist, and t to [0,1]
 * (a sample outside the face box takes the nearest face values). p2g and g2p both use it, so
 * the two transfers use exactly the same weights. */
typedef struct { int base[3]; float t[3]; } Stencil;
Stencil grid_stencil(const MacGrid *g, int a, Vec3 x);
static inline float stencil_weight(const Stencil *s, int di, int dj, int dk)
{
    return (di ? s->t[0] : 1.0f - s->t[0]) * (dj ? s->t[1] : 1.0f - s->t[1]) *
           (dk ? s->t[2] : 1.0f - s->t[2]);
}
/* @level end */

/* The cell holding world position x, clamped into the grid. */
void grid_cell_of(const MacGrid *g, Vec3 x, int *i, int *j, int *k);

#endif
