/* surface.h — a closed, outward-oriented triangle mesh around the liquid particles, as PLY.
 * flipkit common/writers/: the liquid surface for renders next to the particle PLYs
 * (output.surface; the OpenCL device computes the same field itself); mesh_stats checks it is a
 * closed 2-manifold. */
#ifndef FLIPKIT_SURFACE_H
#define FLIPKIT_SURFACE_H

#include <stddef.h>
#include <stdint.h>
#include "grid.h"
#include "particles.h"

typedef struct {
    float *xyz;         /* 3 floats per vertex, world metres */
    size_t nverts, cap_verts;
    uint32_t *tri;      /* 3 vertex indices per triangle, counter-clockwise seen from outside
                         * (the normal points out of the liquid) */
    size_t ntris, cap_tris;
} Mesh;

/* The defaults, and why (measured on seeded balls of radius 8 cells, 8 particles per cell,
 * and on scenes/ball_drop.json at 32^3 and 64^3, frames 1-30):
 *  - refine 1, marching cubes: the fine grid is the sim grid, as the peer's (GridFluidSim3D's)
 *    marching cubes at the sim resolution. At 64^3 it makes 22 k to 79 k triangles a frame
 *    through the splash (the peer about 63 k); refine 2 makes 4 to 6 times that (88 k to
 *    441 k), for renders that want sheets and drops under a cell: output.surface_refine.
 *    Until issue 42 the default was refine 2 with 6 marching tetrahedra per cube, 266 k to
 *    1012 k triangles a frame.
 *  - kernel_cells 1.0: kernel radius R = dx, twice the particle spacing of the kit's
 *    8-per-cell seeding (dx / 2), so an interior node averages ~30 particles: smooth
 *    without rounding off features smaller than a cell.
 *  - radius_cells 0.42: particle radius r. The surface of a flat slab of particles sits where
 *    |x - xbar| = r, and xbar is pulled inward by the particles below, so a larger r inflates
 *    the liquid (on a seeded ball of radius 8 cells at refine 2: +4% at 0.35, +11% at 0.5), and
 *    a lone particle is a drop of radius r. Marching tetrahedra at refine 2 took 0.35; marching
 *    cubes sample each cube along its edges only, and at 0.35 splash sheets and thin layers one
 *    or two particles thick fell between the nodes: ball_drop 32^3 enclosed 15% less than its
 *    particles at frame 30 (refine 1), martin_moyce's collapsed slab 18%. At 0.42 ball_drop 32^3
 *    stays within -9%..+4% of its particles on every frame at refine 1, -7%..+5% at refine 2,
 *    the 64^3 one within -9%..+2% at refine 1 (0.4: -10%..+3%, 0.45: -6%..+5%); a slab a few
 *    cells thick needs refine 2 (martin_moyce: -8%; -18% at refine 1). */
#define SURFACE_DEFAULT_REFINE 1
#define SURFACE_DEFAULT_KERNEL_CELLS 1.0f
#define SURFACE_DEFAULT_RADIUS_CELLS 0.42f
#define SURFACE_MAX_REFINE 8

typedef struct {
    int refine;         /* fine grid = refine x the sim grid per axis, 1..SURFACE_MAX_REFINE */
    float radius_cells; /* particle radius r in sim cells, (0, kernel_cells) */
    float kernel_cells; /* kernel radius R in sim cells, (0, 4] */
} SurfaceSettings;

/* The defaults; surface_defaults_at: the defaults at that refine (1..SURFACE_MAX_REFINE), as
 * output.surface_refine asks. */
SurfaceSettings surface_defaults(void);
SurfaceSettings surface_defaults_at(int refine);

/* The fine grid and the field's constants, as both paths derive them from the settings and
 * the sim grid (the OpenCL path, reference/pipesurface.c, computes the same field on a device
 * and hands it to surface_polygonise). The field at a node x_i = i h, i in 0..n:
 *   phi = -r where the node's sim cell is deep (see surface.c), else |xbar - x| - r with
 *   xbar the mean of the particles within R weighted by (1 - |x - x_p|^2 / R^2)^3, or far
 *   when none is within R; then phi = max(phi, clear - dist(x, SOLID)) (cells beyond the
 *   grid count as SOLID), and phi >= clear on the domain's faces. */
typedef struct {
    int refine;
    int n[3];           /* fine cells per axis; nodes are 0..n[d] */
    int nb[3];          /* bricks per axis, n[d] / SURFACE_BRICK + 1 */
    float h;            /* node spacing, dx / refine */
    float r, R;         /* particle radius, kernel radius (metres) */
    float far;          /* phi with no particle within R */
    float clear;        /* h / 2: a node nearer than this to a SOLID cell is outside */
    int reach;          /* cells within which a SOLID cell can raise a node's phi */
    int kernel_cells;   /* ceil(R / dx): cells within which a particle can reach a node */
} SurfaceGrid;

/* Checks the settings (set NULL: the defaults) against grid g and fills out. Returns 0, or -1
 * with one line in err naming the setting. */
int surface_grid(const MacGrid *g, const SurfaceSettings *set, SurfaceGrid *out, char *err,
                 size_t errlen);

/* A field to polygonise: phi on the nodes of grid's fine grid, in bricks of SURFACE_BRICK^3
 * nodes. Brick b = bx + nb[0] (by + nb[1] bz) holds the nodes from (bx, by, bz) SURFACE_BRICK
 * on; each listed brick has (SURFACE_BRICK + 1)^3 values, x fastest: its own nodes and a
 * one-node apron from the next bricks (nodes past n[d] are never read as cube corners).
 * Every cube whose corners differ in sign must lie in a listed brick (its low node there),
 * and each apron must equal the neighbour's values, or the mesh is not closed. */
typedef struct {
    const SurfaceGrid *grid;
    size_t count;           /* bricks listed */
    const int32_t *brick;   /* their indices, increasing */
    const float *phi;       /* count x (SURFACE_BRICK + 1)^3 */
} SurfaceBricks;

/* Marching cubes (mcubes.h) over the bricks' cubes, in brick and cube order, into out (its
 * arrays reused): the zero set of phi, phi == 0 counting as outside, each triangle's normal toward
 * positive phi. Returns 0, or -1 with one line in err (out of memory; out is left empty). */
int surface_polygonise(const SurfaceBricks *b, Mesh *out, char *err, size_t errlen);

void mesh_init(Mesh *m);
void mesh_free(Mesh *m);

/* Builds the surface of the particles on grid g: a Zhu & Bridson (2005) field on the nodes
 * of a fine grid, polygonised by marching cubes. Uses g->nx, ny, nz, dx, and g->cell
 * for SOLID cells only: the surface keeps a fraction of h (h = dx / refine) away from them and
 * the domain's faces (its nodes next to them are outside), so every vertex is strictly inside the domain and outside every solid,
 * and the mesh is always closed. Particles with a non-finite position are ignored. set may
 * be NULL for the defaults. out's arrays are reused; on error out is left empty.
 * Returns 0, or -1 with one line in err (bad settings, out of memory).
 * Deterministic: the same input gives the same bytes. */
int surface_build(const Particles *ps, const MacGrid *g, const SurfaceSettings *set, Mesh *out,
                  char *err, size_t errlen);

/* The anisotropic surface (Yu & Turk 2013): each particle is an ellipsoid fitted to its
 * neighbours (aniso.h), smoothed toward them, and the surface is where the sum of their
 * kernels falls to SURFACE_ANISO_ISO of its value deep in the liquid (particles_per_cell
 * particles per cell). 0.1: the kernels are thin across a calm surface, so the level hardly
 * moves it (0.5 lowers it by a third of a cell), and at 0.1 a lone particle is a drop of 0.43 R,
 * like the isotropic surface's 0.35 R. Measured (test_aniso): a still box's volume -3.7%
 * against the isotropic surface, a calm pool's top heights 3x less scattered. Flatter on
 * calm water and sharper at thin edges than surface_build's;
 * the same fine grid, solid and wall clearance and marching, so as closed. Same contract
 * otherwise. */
#define SURFACE_ANISO_ISO 0.1f
int surface_build_anisotropic(const Particles *ps, const MacGrid *g, const SurfaceSettings *set,
                              int particles_per_cell, Mesh *out, char *err, size_t errlen);

/* The anisotropic field's fine grid and levels, as both paths derive them (the OpenCL path,
 * reference/pipesurface.c, computes the same field on its device): surface_grid's, with
 * kernel_cells widened to the ellipsoids' reach, and into a that reach (ANISO_SUPPORT R), the
 * field deep in the liquid and its surface's level. Returns 0, or -1 with one line in err
 * naming the setting (who: the caller, for the message). */
int surface_grid_anisotropic(const char *who, const MacGrid *g, const SurfaceSettings *set,
                             int particles_per_cell, SurfaceGrid *out, AnisoConsts *a, char *err,
                             size_t errlen);

/* Binary little-endian PLY: element vertex (float x y z), element face (list uchar int
 * vertex_indices). Written to path.tmp and renamed into place, so a crash never leaves half
 * a file. Returns 0, or -1 with one line in err naming the path. */
int mesh_write_ply(const char *path, const Mesh *m, char *err, size_t errlen);

typedef struct {
    size_t edges;              /* distinct undirected edges */
    size_t boundary_edges;     /* used by one triangle */
    size_t nonmanifold_edges;  /* used by three or more */
    size_t misoriented_edges;  /* used by two triangles in the same direction */
    size_t degenerate_tris;    /* a repeated index, or zero area */
} MeshStats;

/* The volume the surface can enclose of these particles: each stands for a cell over
 * particles_per_cell, except those in the band along the walls that the mesh leaves out by
 * design, as wide as where the surface at set (NULL: the defaults) meets a wall of deep
 * liquid: 0.54 cells at the default refine 1 (measured on ball_drop 64^3: 0.543), 0.25 at
 * refine 2 (before issue 42 the band was 0.87 cells, marching tetrahedra's clearance). For
 * comparing a mesh's volume with its particles' (test_outputs, make validate, make
 * check-physics). */
double surface_particle_volume_at(const Particles *ps, const MacGrid *g, int particles_per_cell,
                                  const SurfaceSettings *set);
double surface_particle_volume(const Particles *ps, const MacGrid *g, int particles_per_cell);

/* The volume a closed, outward-oriented mesh encloses (m^3), by the divergence theorem: the
 * sum over triangles of a . (b x c) / 6, in double. Negative when the mesh faces inward. */
double mesh_volume(const Mesh *m);

/* A closed, consistently oriented 2-manifold has every undirected edge used by exactly two
 * triangles, once in each direction. Returns 0, or -1 when out of memory or nverts exceeds
 * INT32_MAX (st is then all zero). */
int mesh_stats(const Mesh *m, MeshStats *st);

#endif
