/* pipesurface.c — the liquid surface from the OpenCL device's own particles (pipeline_surface).
 * flipkit reference/: surface.c's steps 1-4 (cell flags, bricks, the field) as kernels/surface.cl,
 * then the host marches the bricks it reads back with surface_polygonise, as the C path does. */
#include <limits.h>
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
                       &P->surf_list, &P->surf_slot, &P->surf_phi, &P->surf_pos };
    for (size_t q = 0; q < sizeof bufs / sizeof *bufs; q++)
        pipe_release(bufs[q]);
    P->surf_bricks = P->surf_capacity = P->surf_particles = 0;
}

/* Per-cell buffers once; per-brick ones again when the fine grid changes (another refine),
 * the particles' again when the pipeline's grow. */
static void pipe_surface_alloc(Pipe *P, int nx, size_t cells, size_t bricks)
{
    if (P->surf_particles != P->capacity) {
        pipe_release(&P->surf_pos);
        P->surf_pos = pipe_buffer(P, P->capacity * sizeof(cl_float4));
        P->surf_particles = P->capacity;
    }
    if (!P->surf_flags[0]) {
        /* padded rows for the x pass (kernels/surface.cl's SF_PAD, SF_STRIDE), the pads
         * filled with SF_BEYOND once: the cells beyond the grid */
        cl_uchar beyond = SF_BEYOND;
        size_t padded = (size_t)(nx + 4 * SF_PAD) * cells / (size_t)nx;
        P->surf_own = pipe_buffer(P, padded);
        pipe_ok(P, clEnqueueFillBuffer(P->cl.queue, P->surf_own, &beyond, 1, 0, padded, 0, NULL,
                                       NULL), "clEnqueueFillBuffer");
        P->surf_flags[0] = pipe_buffer(P, cells);
        P->surf_flags[1] = pipe_buffer(P, cells);
    }
    if (P->surf_bricks != bricks) {
        pipe_release(&P->surf_mark);
        pipe_release(&P->surf_list);
        pipe_release(&P->surf_slot);
        P->surf_mark = pipe_buffer(P, bricks);
        P->surf_list = pipe_buffer(P, bricks * sizeof(cl_int));
        P->surf_slot = pipe_buffer(P, bricks * sizeof(cl_int));
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
    LAUNCH(P, K_SURFACE_FLAGS_OWN, nx, ny, nz, ARG(P->surf_own), ARG(P->solid), ARG(P->start),
           ARG(n));
    LAUNCH(P, K_SURFACE_FLAGS_X, (nx + 15) / 16, ny, nz, ARG(P->surf_flags[0]), ARG(P->surf_own),
           ARG(n), ARG(reach_solid), ARG(reach_kernel));
    LAUNCH(P, K_SURFACE_FLAGS_YZ, (nx + 15) / 16, nz, 1, ARG(P->surf_flags[1]),
           ARG(P->surf_flags[0]), ARG(n), ARG(y), ARG(reach_solid), ARG(reach_kernel));
    LAUNCH(P, K_SURFACE_FLAGS_YZ, (nx + 15) / 16, ny, 1, ARG(P->surf_flags[0]),
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
    LAUNCH(P, K_SURFACE_MARK, (size_t)fine->nb[0], (size_t)fine->nb[1], (size_t)fine->nb[2],
           ARG(P->surf_mark), ARG(P->surf_flags[1]), ARG(n), ARG(nfine), ARG(nb), ARG(refine));
    unsigned char *mark = malloc(bricks);
    if (!mark)
        return -1;
    pipe_read(P, P->surf_mark, mark, bricks);
    long count = 0;
    for (size_t b = 0; b < bricks; b++) {
        slot[b] = P->failure == CL_SUCCESS && mark[b] ? (cl_int)count : -1;
        if (slot[b] >= 0)
            list[count++] = (cl_int)b;
    }
    free(mark);
    pipe_write(P, P->surf_list, list, (size_t)count * sizeof *list);
    pipe_write(P, P->surf_slot, slot, bricks * sizeof *slot);
    return count;
}

/* Steps 3-4: phi at the listed bricks' own nodes, then their aprons, read back into phi;
 * the particles are first copied in the sort's order, so a cell's are side by side. */
static void pipe_surface_field(Pipe *P, const MacGrid *g, const SurfaceGrid *fine, long count,
                               float *phi)
{
    cl_int4 n = pipe_grid_dims(g), nfine = pipe_dims(fine->n), nb = pipe_dims(fine->nb);
    SurfaceConsts k = { g->dx, fine->h, fine->r, fine->R, fine->far, fine->clear,
                            fine->refine, 0 };
    cl_int nlisted = (cl_int)count;
    size_t bytes = (size_t)count * PIPE_PAD3 * sizeof *phi;
    if ((size_t)count > P->surf_capacity) {
        pipe_release(&P->surf_phi);
        P->surf_capacity = (size_t)count + (size_t)count / 4;
        P->surf_phi = pipe_buffer(P, P->surf_capacity * PIPE_PAD3 * sizeof *phi);
    }
    cl_int particles = (cl_int)P->count;
    LAUNCH(P, K_SURFACE_POSITIONS, P->count, 1, 1, ARG(P->surf_pos), ARG(P->pos), ARG(P->sorted),
           ARG(particles));
    /* a work-item per two rows of a brick */
    LAUNCH(P, K_SURFACE_FIELD, (size_t)count * SURFACE_BRICK * SURFACE_BRICK / 2, 1, 1,
           ARG(P->surf_phi), ARG(P->surf_list), ARG(nlisted), ARG(P->surf_pos), ARG(P->start),
           ARG(P->surf_flags[1]), ARG(P->solid), ARG(n), ARG(nfine), ARG(nb), ARG(k));
    LAUNCH(P, K_SURFACE_APRON, (size_t)count * PIPE_APRON, 1, 1, ARG(P->surf_phi),
           ARG(P->surf_list), ARG(P->surf_slot), ARG(nlisted), ARG(P->surf_flags[1]),
           ARG(P->solid), ARG(n), ARG(nfine), ARG(nb), ARG(k));
    pipe_read(P, P->surf_phi, phi, bytes);
}

/* Whether a buffer of that many bytes can be made on the device at all. */
static int pipe_surface_fits(Pipe *P, size_t bytes)
{
    cl_ulong most = 0;
    if (clGetDeviceInfo(P->cl.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof most, &most, NULL) !=
        CL_SUCCESS)
        return 0;
    return (cl_ulong)bytes <= most;
}

/* Steps 1-4 on the device into phi (malloc'd, count bricks listed in list). Returns the
 * count, -1 on failure (an OpenCL error in P, else out of host memory), or -2 when the
 * listed bricks' field would not fit in one device buffer. */
static long pipe_surface_bricks_field(Pipe *P, const MacGrid *g, const SurfaceGrid *fine,
                                      cl_int *list, cl_int *slot, float **phi)
{
    size_t bricks = (size_t)fine->nb[0] * (size_t)fine->nb[1] * (size_t)fine->nb[2];
    pipe_surface_alloc(P, g->nx, grid_cells(g), bricks);
    pipe_sort_index(P, g);
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
    pipe_surface_field(P, g, fine, count, *phi);
    return count;
}

/* The device's particles moved since the last substep's sort, so they are sorted again, but
 * only as indices (sorted[], start[]): the particles stay where they are, so the sim's state
 * on the device is as the substeps left it. A fine grid too big for the device's buffers is
 * meshed by surface_build instead, from the host's copy of the same particles. */
int pipeline_surface(SimBackend *b, Sim *s, const SurfaceSettings *set, Mesh *m)
{
    Pipe *P = (Pipe *)b;
    const MacGrid *g = &s->grid;
    SurfaceGrid fine;
    double t0 = pipe_clock();
    m->nverts = m->ntris = 0;
    P->surf_last[0] = P->surf_last[1] = 0.0;
    if (surface_grid(g, set, &fine, s->error.message, sizeof s->error.message) != 0)
        return -1;
    size_t bricks = (size_t)fine.nb[0] * (size_t)fine.nb[1] * (size_t)fine.nb[2];
    if (!pipe_surface_fits(P, bricks * sizeof(cl_int)) || fine.reach > SF_PAD ||
        fine.kernel_cells > SF_PAD)
        return surface_build(&s->particles, g, set, m, s->error.message, sizeof s->error.message);
    cl_int *list = malloc(bricks * sizeof *list), *slot = malloc(bricks * sizeof *slot);
    float *phi = NULL;
    long count = list && slot ? pipe_surface_bricks_field(P, g, &fine, list, slot, &phi) : -1;
    int rc = pipe_report(P, s);
    if (rc == 0 && count == -1) {
        snprintf(s->error.message, sizeof s->error.message, "opencl surface: out of memory "
                 "(fine grid %dx%dx%d)", fine.n[0], fine.n[1], fine.n[2]);
        rc = -1;
    }
    double t1 = pipe_clock();
    if (rc == 0 && count == -2) {
        rc = surface_build(&s->particles, g, set, m, s->error.message, sizeof s->error.message);
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

PipelineSurfaceTimes pipeline_surface_times(const SimBackend *b)
{
    const Pipe *P = (const Pipe *)b;
    return (PipelineSurfaceTimes){ P->surf_last[0], P->surf_last[1] };
}
