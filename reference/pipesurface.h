/* pipesurface.h — the liquid surfaces of the OpenCL pipeline's own particles: the cell flags,
 * bricks and field on the device, the marching on the host.
 * flipkit reference/: above pipestate.h; a PipeSurface owns its buffers, made on first use and
 * kept while the grid and the particles' capacity stay. */
#ifndef FLIPKIT_PIPESURFACE_H
#define FLIPKIT_PIPESURFACE_H

#include <stdbool.h>

#include "pipestages.h"
#include "surface.h"

/* The anisotropic surface's buffers: per cell whether its particles need kernels and the box
 * around their ellipsoids, and the kernels (4 float4 per particle, for `particles` of them). */
typedef struct {
    cl_mem want, box, kernels;
    size_t particles;
} PipeAnisoBuffers;

typedef struct {
    PipeDevice *dev;
    PipeState *state;           /* whose particles and grid it meshes */
    /* per cell (padded rows), per brick of the fine grid (bricks of them), and the field of up
     * to capacity listed bricks; pos: the particles in the sort's order */
    cl_mem own, flags[2], mark, list, slot, phi, pos;
    size_t bricks, capacity;
    size_t particles;           /* the particle capacity pos is sized for */
    PipeAnisoBuffers aniso;
    double march_seconds;       /* host time in surface_polygonise, for the profile */
    double last[2];             /* the last call's seconds: field, polygonise */
} PipeSurface;

/* The surface of the state's particles as surface_build (aniso: surface_build_anisotropic,
 * with s->scene's particles_per_cell) would make it, into m. A fine grid too big for the
 * device is meshed on the host from s's particles, the same ones. Returns 0, or -1 with one
 * line in s->error. */
int pipe_surface_mesh(PipeSurface *sf, Sim *s, const SurfaceSettings *set, bool aniso, Mesh *m);
void pipe_surface_release(PipeSurface *sf);

#endif
