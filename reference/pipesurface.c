/* pipesurface.c — the liquid surfaces from the OpenCL device's own particles (pipeline_surface,
 * pipeline_surface_anisotropic). flipkit reference/: surface.c's steps 1-4 (cell flags, bricks,
 * the field) as kernels/surface.cl and aniso.cl, then the host marches the bricks it reads back
 * with surface_polygonise, as the C path does. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "pipe.h"
#include "pipeline.h"

/* The x pass reaches at most SF_PAD (constants.h) cells along a row; surface_grid's settings
 * keep the reaches <= 6. */
enum { PIPE_PAD = SURFACE_BRICK + 1, PIPE_PAD3 = PIPE_PAD * PIPE_PAD * PIPE_PAD,
       PIPE_APRON = PIPE_PAD3 - SURFACE_BRICK * SURFACE_BRICK * SURFACE_BRICK };


void pipe_surface_release(Pipe *P)
{
    cl_mem *bufs[] = { &P->surf_own, &P->surf_flags[0], &P->surf_flags[1], &P->surf_mark,
                       &P->surf_list, &P->surf_slot, &P->surf_phi, &P->surf_pos,
                       &P->aniso_want, &P->aniso_box, &P->aniso_kern };
    for (size_t q = 0; q < sizeof bufs / sizeof *bufs; q++)
        pipe_release(bufs[q]);
    P->surf_bricks = P->surf_capacity = P->surf_particles = P->aniso_particles = 0;
}

/* Per-cell buffers once; per-brick ones again when the fine grid changes (another refine),
 * the particles' again when the pipeline's grow. */
static void pipe_surface_alloc(Pipe *P, int nx, size_t cells, size_t bricks)
{
    if (P->surf_particles != P->state.particles.capacity) {
        pipe_release(&P->surf_pos);
        P->surf_pos = pipe_buffer(P->dev, P->state.particles.capacity * sizeof(cl_float4));
        P->surf_particles = P->state.particles.capacity;
    }
    if (!P->surf_flags[0]) {
        /* padded rows for the x pass (kernels/surface.cl's SF_PAD, SF_STRIDE), the pads
         * filled with SF_BEYOND once: the cells beyond the grid */
        cl_uchar beyond = SF_BEYOND;
        size_t padded = (size_t)(nx + 4 * SF_PAD) * cells / (size_t)nx;
        P->surf_own = pipe_buffer(P->dev, padded);
        pipe_ok(P->dev, clEnqueueFillBuffer(P->dev->cl.queue, P->surf_own, &beyond, 1, 0, padded, 0, NULL,
                                       NULL), "clEnqueueFillBuffer");
        P->surf_flags[0] = pipe_buffer(P->dev, cells);
        P->surf_flags[1] = pipe_buffer(P->dev, cells);
    }
    if (P->surf_bricks != bricks) {
        pipe_release(&P->surf_mark);
        pipe_release(&P->surf_list);
        pipe_release(&P->surf_slot);
        P->surf_mark = pipe_buffer(P->dev, bricks);
        P->surf_list = pipe_buffer(P->dev, bricks * sizeof(cl_int));
        P->surf_slot = pipe_buffer(P->dev, bricks * sizeof(cl_int));
        P->surf_bricks = bricks;
    }
}

/* Step 1: per sim cell NEAR_SOLID, SHALLOW (not deep) and NEAR_PARTICLE, each dilated by its
 * reach one axis at a time; the result ends in surf_flags[1]. */
static void pipe_surface_flags(Pipe *P, const MacGrid *g, const SurfaceGrid *fine)
{
    cl_int4 n = pipe_grid_dims(g);
    size_t nx = (size_t)g->nx, ny = (size_t)g->ny, nz = (size_t)g->nz;
    cl_int reach_solid = fine->reach, reach_kernel = fine->kernel_cells, y = 1, z = 2;
    /* 16 cells side by side along x per work-item, as one vector */
    LAUNCH(P->dev, K_SURFACE_FLAGS_OWN, nx, ny, nz, ARG(P->surf_own), ARG(P->state.grid.solid), ARG(P->state.grid.start),
           ARG(n));
    LAUNCH(P->dev, K_SURFACE_FLAGS_X, (nx + 15) / 16, ny, nz, ARG(P->surf_flags[0]), ARG(P->surf_own),
           ARG(n), ARG(reach_solid), ARG(reach_kernel));
    LAUNCH(P->dev, K_SURFACE_FLAGS_YZ, (nx + 15) / 16, nz, 1, ARG(P->surf_flags[1]),
           ARG(P->surf_flags[0]), ARG(n), ARG(y), ARG(reach_solid), ARG(reach_kernel));
    LAUNCH(P->dev, K_SURFACE_FLAGS_YZ, (nx + 15) / 16, ny, 1, ARG(P->surf_flags[0]),
           ARG(P->surf_flags[1]), ARG(n), ARG(z), ARG(reach_solid), ARG(reach_kernel));
    cl_mem t = P->surf_flags[0];
    P->surf_flags[0] = P->surf_flags[1];
    P->surf_flags[1] = t;
}

/* Step 2: the bricks surface_mark lists, in increasing index, into list, and each brick's
 * place in it (or -1) into slot; both to the device. Returns how many, or -1 when out of
 * host memory. */
static long pipe_surface_bricks(Pipe *P, const MacGrid *g, const SurfaceGrid *fine,
                                cl_int *list, cl_int *slot)
{
    cl_int4 n = pipe_grid_dims(g), nfine = pipe_dims(fine->n), nb = pipe_dims(fine->nb);
    cl_int refine = fine->refine;
    size_t bricks = P->surf_bricks;
    LAUNCH(P->dev, K_SURFACE_MARK, (size_t)fine->nb[0], (size_t)fine->nb[1], (size_t)fine->nb[2],
           ARG(P->surf_mark), ARG(P->surf_flags[1]), ARG(n), ARG(nfine), ARG(nb), ARG(refine));
    unsigned char *mark = malloc(bricks);
    if (!mark)
        return -1;
    pipe_read(P->dev, P->surf_mark, mark, bricks);
    long count = 0;
    for (size_t b = 0; b < bricks; b++) {
        slot[b] = P->dev->failure == CL_SUCCESS && mark[b] ? (cl_int)count : -1;
        if (slot[b] >= 0)
            list[count++] = (cl_int)b;
    }
    free(mark);
    pipe_write(P->dev, P->surf_list, list, (size_t)count * sizeof *list);
    pipe_write(P->dev, P->surf_slot, slot, bricks * sizeof *slot);
    return count;
}

/* The listed bricks' field buffer, grown to hold count of them. */
static void pipe_surface_phi_fit(Pipe *P, long count)
{
    if ((size_t)count > P->surf_capacity) {
        pipe_release(&P->surf_phi);
        P->surf_capacity = (size_t)count + (size_t)count / 4;
        P->surf_phi = pipe_buffer(P->dev, P->surf_capacity * PIPE_PAD3 * sizeof(float));
    }
}

/* Step 3 of the anisotropic field: which cells' particles can reach a node that needs sums
 * (kernel_cells + 1 cells from a SHALLOW flag, one axis a launch, ending in aniso_want), then
 * those particles' kernels, in the sort's order. */
static void pipe_aniso_kernels(Pipe *P, const MacGrid *g, const SurfaceGrid *fine)
{
    cl_int4 n = pipe_grid_dims(g);
    cl_int reach = fine->kernel_cells + 1;
    size_t nx = (size_t)g->nx, ny = (size_t)g->ny, nz = (size_t)g->nz;
    if (!P->aniso_want) {
        P->aniso_want = pipe_buffer(P->dev, grid_cells(g));
        P->aniso_box = pipe_buffer(P->dev, 2 * grid_cells(g) * sizeof(cl_float4));
    }
    if (P->aniso_particles != P->state.particles.capacity) {
        pipe_release(&P->aniso_kern);
        P->aniso_kern = pipe_buffer(P->dev, P->state.particles.capacity * 4 * sizeof(cl_float4));
        P->aniso_particles = P->state.particles.capacity;
    }
    cl_mem from[3] = { P->surf_flags[1], P->aniso_want, P->surf_flags[0] },
           to[3] = { P->aniso_want, P->surf_flags[0], P->aniso_want };
    for (cl_int a = 0; a < 3; a++)
        LAUNCH(P->dev, K_ANISO_WANT, nx, ny, nz, ARG(to[a]), ARG(from[a]), ARG(n), ARG(a), ARG(reach));
    float dx = g->dx, R = fine->R;
    LAUNCH(P->dev, K_ANISO_KERNELS, nx, ny, nz, ARG(P->aniso_kern), ARG(P->aniso_box), ARG(P->surf_pos),
           ARG(P->state.grid.start),
           ARG(P->aniso_want), ARG(n), ARG(dx), ARG(R));
}

/* Steps 3-4: phi at the listed bricks' own nodes, then their aprons, read back into phi;
 * the particles are first copied in the sort's order, so a cell's are side by side. a NULL:
 * the isotropic field (surface_build's), else the anisotropic one
 * (surface_build_anisotropic's) with a's levels. */
static void pipe_surface_field(Pipe *P, const MacGrid *g, const SurfaceGrid *fine, long count,
                               const AnisoConsts *a, float *phi)
{
    cl_int4 n = pipe_grid_dims(g), nfine = pipe_dims(fine->n), nb = pipe_dims(fine->nb);
    SurfaceConsts k = { g->dx, fine->h, fine->r, fine->R, fine->far, fine->clear,
                            fine->refine, 0 };
    cl_int nlisted = (cl_int)count;
    pipe_surface_phi_fit(P, count);
    cl_int particles = (cl_int)P->state.particles.count;
    LAUNCH(P->dev, K_SURFACE_POSITIONS, P->state.particles.count, 1, 1, ARG(P->surf_pos), ARG(P->state.particles.pos), ARG(P->state.particles.sorted),
           ARG(particles));
    /* a work-item per two rows of a brick */
    size_t pairs = (size_t)count * SURFACE_BRICK * SURFACE_BRICK / 2;
    if (a) {
        pipe_aniso_kernels(P, g, fine);
        LAUNCH(P->dev, K_ANISO_FIELD, pairs, 1, 1, ARG(P->surf_phi), ARG(P->surf_list), ARG(nlisted),
               ARG(P->aniso_kern), ARG(P->aniso_box), ARG(P->state.grid.start), ARG(P->surf_flags[1]),
               ARG(P->state.grid.solid), ARG(n),
               ARG(nfine), ARG(nb), ARG(k), ARG(*a));
    } else {
        LAUNCH(P->dev, K_SURFACE_FIELD, pairs, 1, 1, ARG(P->surf_phi), ARG(P->surf_list),
               ARG(nlisted), ARG(P->surf_pos), ARG(P->state.grid.start), ARG(P->surf_flags[1]),
               ARG(P->state.grid.solid), ARG(n), ARG(nfine), ARG(nb), ARG(k));
    }
    LAUNCH(P->dev, K_SURFACE_APRON, (size_t)count * PIPE_APRON, 1, 1, ARG(P->surf_phi),
           ARG(P->surf_list), ARG(P->surf_slot), ARG(nlisted), ARG(P->surf_flags[1]),
           ARG(P->state.grid.solid), ARG(n), ARG(nfine), ARG(nb), ARG(k));
    pipe_read(P->dev, P->surf_phi, phi, (size_t)count * PIPE_PAD3 * sizeof *phi);
}

/* Whether a buffer of that many bytes can be made on the device at all. */
static int pipe_surface_fits(Pipe *P, size_t bytes)
{
    cl_ulong most = 0;
    if (clGetDeviceInfo(P->dev->cl.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof most, &most, NULL) !=
        CL_SUCCESS)
        return 0;
    return (cl_ulong)bytes <= most;
}

/* Steps 1-4 on the device into phi (malloc'd, count bricks listed in list). Returns the
 * count, -1 on failure (an OpenCL error in P, else out of host memory), or -2 when the
 * listed bricks' field would not fit in one device buffer. */
static long pipe_surface_bricks_field(Pipe *P, const MacGrid *g, const SurfaceGrid *fine,
                                      const AnisoConsts *a, cl_int *list, cl_int *slot,
                                      float **phi)
{
    size_t bricks = (size_t)fine->nb[0] * (size_t)fine->nb[1] * (size_t)fine->nb[2];
    pipe_surface_alloc(P, g->nx, grid_cells(g), bricks);
    pipe_sort_index(&P->state, g);
    pipe_surface_flags(P, g, fine);
    long count = pipe_surface_bricks(P, g, fine, list, slot);
    if (count <= 0)
        return count;
    /* the kernels number nodes with an int */
    if (count > INT_MAX / PIPE_PAD3 || !pipe_surface_fits(P, (size_t)count * PIPE_PAD3 *
                                                             sizeof **phi))
        return -2;
    if (!(*phi = malloc((size_t)count * PIPE_PAD3 * sizeof **phi)))
        return -1;
    pipe_surface_field(P, g, fine, count, a, *phi);
    return count;
}

/* The C path for what the device cannot hold: surface_build or surface_build_anisotropic. */
static int pipe_surface_on_host(Sim *s, const SurfaceSettings *set, bool aniso, Mesh *m)
{
    if (aniso)
        return surface_build_anisotropic(&s->particles, &s->grid, set,
                                         s->scene->particles_per_cell, m, s->error.message,
                                         sizeof s->error.message);
    return surface_build(&s->particles, &s->grid, set, m, s->error.message,
                         sizeof s->error.message);
}

/* The device's particles moved since the last substep's sort, so they are sorted again, but
 * only as indices (sorted[], start[]): the particles stay where they are, so the sim's state
 * on the device is as the substeps left it. A fine grid too big for the device's buffers is
 * meshed on the host instead, from the host's copy of the same particles. */
static int pipe_surface_mesh(Pipe *P, Sim *s, const SurfaceSettings *set, bool aniso, Mesh *m)
{
    const MacGrid *g = &s->grid;
    SurfaceGrid fine;
    AnisoConsts a;
    double t0 = pipe_clock();
    m->nverts = m->ntris = 0;
    P->surf_last[0] = P->surf_last[1] = 0.0;
    char *err = s->error.message;
    size_t errlen = sizeof s->error.message;
    if (aniso ? surface_grid_anisotropic("surface_build_anisotropic", g, set,
                                         s->scene->particles_per_cell, &fine, &a, err, errlen)
              : surface_grid(g, set, &fine, err, errlen))
        return -1;
    size_t bricks = (size_t)fine.nb[0] * (size_t)fine.nb[1] * (size_t)fine.nb[2];
    if (!pipe_surface_fits(P, bricks * sizeof(cl_int)) || fine.reach > SF_PAD ||
        fine.kernel_cells > SF_PAD)
        return pipe_surface_on_host(s, set, aniso, m);
    cl_int *list = malloc(bricks * sizeof *list), *slot = malloc(bricks * sizeof *slot);
    float *phi = NULL;
    long count = list && slot ? pipe_surface_bricks_field(P, g, &fine, aniso ? &a : NULL, list,
                                                          slot, &phi) : -1;
    int rc = pipe_report(P, s);
    if (rc == 0 && count == -1) {
        rc = sim_fail(s, SIM_OUT_OF_MEMORY, "opencl %ssurface: out of memory (fine grid "
                      "%dx%dx%d)", aniso ? "anisotropic " : "", fine.n[0], fine.n[1], fine.n[2]);
    }
    double t1 = pipe_clock();
    if (rc == 0 && count == -2) {
        rc = pipe_surface_on_host(s, set, aniso, m);
    } else if (rc == 0 && count > 0) {
        SurfaceBricks in = { &fine, (size_t)count, list, phi };
        rc = surface_polygonise(&in, m, s->error.message, sizeof s->error.message);
    }
    P->surf_last[0] = t1 - t0;
    P->surf_last[1] = pipe_clock() - t1;
    P->surf_march_seconds += P->surf_last[1];
    free(list);
    free(slot);
    free(phi);
    return rc;
}

int pipeline_surface(SimBackend *b, Sim *s, const SurfaceSettings *set, Mesh *m)
{
    return pipe_surface_mesh((Pipe *)b, s, set, false, m);
}

int pipeline_surface_anisotropic(SimBackend *b, Sim *s, const SurfaceSettings *set, Mesh *m)
{
    return pipe_surface_mesh((Pipe *)b, s, set, true, m);
}

PipelineSurfaceTimes pipeline_surface_times(const SimBackend *b)
{
    const Pipe *P = (const Pipe *)b;
    return (PipelineSurfaceTimes){ P->surf_last[0], P->surf_last[1] };
}
