/* pipesurface.c — the liquid surfaces from the OpenCL device's own particles (pipeline_surface,
 * pipeline_surface_anisotropic). flipkit reference/: surface.c's steps 1-4 (cell flags, bricks,
 * the field) as kernels/surface.cl and aniso.cl, then the host marches the bricks it reads back
 * with surface_polygonise, as the C path does. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "pipesurface.h"

/* The x pass reaches at most SF_PAD (constants.h) cells along a row; surface_grid's settings
 * keep the reaches <= 6. */
enum { PIPE_PAD = SURFACE_BRICK + 1, PIPE_PAD3 = PIPE_PAD * PIPE_PAD * PIPE_PAD,
       PIPE_APRON = PIPE_PAD3 - SURFACE_BRICK * SURFACE_BRICK * SURFACE_BRICK };


void pipe_surface_release(PipeSurface *sf)
{
    cl_mem *bufs[] = { &sf->own, &sf->flags[0], &sf->flags[1], &sf->mark,
                       &sf->list, &sf->slot, &sf->phi, &sf->pos,
                       &sf->aniso.want, &sf->aniso.box, &sf->aniso.kernels };
    for (size_t q = 0; q < sizeof bufs / sizeof *bufs; q++)
        pipe_release(bufs[q]);
    sf->bricks = sf->capacity = sf->particles = sf->aniso.particles = 0;
}

/* Per-cell buffers once; per-brick ones again when the fine grid changes (another refine),
 * the particles' again when the pipeline's grow. */
static void pipe_surface_alloc(PipeSurface *sf, int nx, size_t cells, size_t bricks)
{
    if (sf->particles != sf->state->particles.capacity) {
        pipe_release(&sf->pos);
        sf->pos = pipe_buffer(sf->dev, sf->state->particles.capacity * sizeof(cl_float4));
        sf->particles = sf->state->particles.capacity;
    }
    if (!sf->flags[0]) {
        /* padded rows for the x pass (kernels/surface.cl's SF_PAD, SF_STRIDE), the pads
         * filled with SF_BEYOND once: the cells beyond the grid */
        cl_uchar beyond = SF_BEYOND;
        size_t padded = (size_t)(nx + 4 * SF_PAD) * cells / (size_t)nx;
        sf->own = pipe_buffer(sf->dev, padded);
        pipe_ok(sf->dev,
                clEnqueueFillBuffer(sf->dev->cl.queue, sf->own, &beyond, 1, 0, padded, 0, NULL,
                                    NULL),
                "clEnqueueFillBuffer");
        sf->flags[0] = pipe_buffer(sf->dev, cells);
        sf->flags[1] = pipe_buffer(sf->dev, cells);
    }
    if (sf->bricks != bricks) {
        pipe_release(&sf->mark);
        pipe_release(&sf->list);
        pipe_release(&sf->slot);
        sf->mark = pipe_buffer(sf->dev, bricks);
        sf->list = pipe_buffer(sf->dev, bricks * sizeof(cl_int));
        sf->slot = pipe_buffer(sf->dev, bricks * sizeof(cl_int));
        sf->bricks = bricks;
    }
}

/* Step 1: per sim cell NEAR_SOLID, SHALLOW (not deep) and NEAR_PARTICLE, each dilated by its
 * reach one axis at a time; the result ends in surf_flags[1]. */
static void pipe_surface_flags(PipeSurface *sf, const MacGrid *g, const SurfaceGrid *fine)
{
    cl_int4 n = pipe_grid_dims(g);
    size_t nx = (size_t)g->nx, ny = (size_t)g->ny, nz = (size_t)g->nz;
    cl_int reach_solid = fine->reach, reach_kernel = fine->kernel_cells, y = 1, z = 2;
    /* 16 cells side by side along x per work-item, as one vector */
    LAUNCH(sf->dev, K_SURFACE_FLAGS_OWN, nx, ny, nz, ARG(sf->own), ARG(sf->state->grid.solid),
           ARG(sf->state->grid.start), ARG(n));
    LAUNCH(sf->dev, K_SURFACE_FLAGS_X, (nx + 15) / 16, ny, nz, ARG(sf->flags[0]), ARG(sf->own),
           ARG(n), ARG(reach_solid), ARG(reach_kernel));
    LAUNCH(sf->dev, K_SURFACE_FLAGS_YZ, (nx + 15) / 16, nz, 1, ARG(sf->flags[1]),
           ARG(sf->flags[0]), ARG(n), ARG(y), ARG(reach_solid), ARG(reach_kernel));
    LAUNCH(sf->dev, K_SURFACE_FLAGS_YZ, (nx + 15) / 16, ny, 1, ARG(sf->flags[0]),
           ARG(sf->flags[1]), ARG(n), ARG(z), ARG(reach_solid), ARG(reach_kernel));
    cl_mem t = sf->flags[0];
    sf->flags[0] = sf->flags[1];
    sf->flags[1] = t;
}

/* Step 2: the bricks surface_mark lists, in increasing index, into list, and each brick's
 * place in it (or -1) into slot; both to the device. Returns how many, or -1 when out of
 * host memory. */
static long pipe_surface_bricks(PipeSurface *sf, const MacGrid *g, const SurfaceGrid *fine,
                                cl_int *list, cl_int *slot)
{
    cl_int4 n = pipe_grid_dims(g), nfine = pipe_dims(fine->n), nb = pipe_dims(fine->nb);
    cl_int refine = fine->refine;
    size_t bricks = sf->bricks;
    LAUNCH(sf->dev, K_SURFACE_MARK, (size_t)fine->nb[0], (size_t)fine->nb[1], (size_t)fine->nb[2],
           ARG(sf->mark), ARG(sf->flags[1]), ARG(n), ARG(nfine), ARG(nb), ARG(refine));
    unsigned char *mark = malloc(bricks);
    if (!mark)
        return -1;
    pipe_read(sf->dev, sf->mark, mark, bricks);
    long count = 0;
    for (size_t b = 0; b < bricks; b++) {
        slot[b] = sf->dev->failure == CL_SUCCESS && mark[b] ? (cl_int)count : -1;
        if (slot[b] >= 0)
            list[count++] = (cl_int)b;
    }
    free(mark);
    pipe_write(sf->dev, sf->list, list, (size_t)count * sizeof *list);
    pipe_write(sf->dev, sf->slot, slot, bricks * sizeof *slot);
    return count;
}

/* The listed bricks' field buffer, grown to hold count of them. */
static void pipe_surface_phi_fit(PipeSurface *sf, long count)
{
    if ((size_t)count > sf->capacity) {
        pipe_release(&sf->phi);
        sf->capacity = (size_t)count + (size_t)count / 4;
        sf->phi = pipe_buffer(sf->dev, sf->capacity * PIPE_PAD3 * sizeof(float));
    }
}

/* Step 3 of the anisotropic field: which cells' particles can reach a node that needs sums
 * (kernel_cells + 1 cells from a SHALLOW flag, one axis a launch, ending in aniso_want), then
 * those particles' kernels, in the sort's order. */
static void pipe_aniso_kernels(PipeSurface *sf, const MacGrid *g, const SurfaceGrid *fine)
{
    cl_int4 n = pipe_grid_dims(g);
    cl_int reach = fine->kernel_cells + 1;
    size_t nx = (size_t)g->nx, ny = (size_t)g->ny, nz = (size_t)g->nz;
    if (!sf->aniso.want) {
        sf->aniso.want = pipe_buffer(sf->dev, grid_cells(g));
        sf->aniso.box = pipe_buffer(sf->dev, 2 * grid_cells(g) * sizeof(cl_float4));
    }
    if (sf->aniso.particles != sf->state->particles.capacity) {
        pipe_release(&sf->aniso.kernels);
        sf->aniso.kernels =
            pipe_buffer(sf->dev, sf->state->particles.capacity * 4 * sizeof(cl_float4));
        sf->aniso.particles = sf->state->particles.capacity;
    }
    cl_mem from[3] = { sf->flags[1], sf->aniso.want, sf->flags[0] },
           to[3] = { sf->aniso.want, sf->flags[0], sf->aniso.want };
    for (cl_int a = 0; a < 3; a++)
        LAUNCH(sf->dev, K_ANISO_WANT, nx, ny, nz, ARG(to[a]), ARG(from[a]), ARG(n), ARG(a),
               ARG(reach));
    float dx = g->dx, R = fine->R;
    LAUNCH(sf->dev, K_ANISO_KERNELS, nx, ny, nz, ARG(sf->aniso.kernels), ARG(sf->aniso.box),
           ARG(sf->pos), ARG(sf->state->grid.start), ARG(sf->aniso.want), ARG(n), ARG(dx), ARG(R));
}

/* Steps 3-4: phi at the listed bricks' own nodes, then their aprons, read back into phi;
 * the particles are first copied in the sort's order, so a cell's are side by side. a NULL:
 * the isotropic field (surface_build's), else the anisotropic one
 * (surface_build_anisotropic's) with a's levels. */
static void pipe_surface_field(PipeSurface *sf, const MacGrid *g, const SurfaceGrid *fine,
                               long count, const AnisoConsts *a, float *phi)
{
    cl_int4 n = pipe_grid_dims(g), nfine = pipe_dims(fine->n), nb = pipe_dims(fine->nb);
    SurfaceConsts k = { g->dx, fine->h, fine->r, fine->R, fine->far, fine->clear,
                            fine->refine, 0 };
    cl_int nlisted = (cl_int)count;
    pipe_surface_phi_fit(sf, count);
    cl_int particles = (cl_int)sf->state->particles.count;
    LAUNCH(sf->dev, K_SURFACE_POSITIONS, sf->state->particles.count, 1, 1, ARG(sf->pos),
           ARG(sf->state->particles.pos), ARG(sf->state->particles.sorted), ARG(particles));
    /* a work-item per two rows of a brick */
    size_t pairs = (size_t)count * SURFACE_BRICK * SURFACE_BRICK / 2;
    if (a) {
        pipe_aniso_kernels(sf, g, fine);
        LAUNCH(sf->dev, K_ANISO_FIELD, pairs, 1, 1, ARG(sf->phi), ARG(sf->list), ARG(nlisted),
               ARG(sf->aniso.kernels), ARG(sf->aniso.box), ARG(sf->state->grid.start),
               ARG(sf->flags[1]), ARG(sf->state->grid.solid), ARG(n), ARG(nfine), ARG(nb), ARG(k),
               ARG(*a));
    } else {
        LAUNCH(sf->dev, K_SURFACE_FIELD, pairs, 1, 1, ARG(sf->phi), ARG(sf->list),
               ARG(nlisted), ARG(sf->pos), ARG(sf->state->grid.start), ARG(sf->flags[1]),
               ARG(sf->state->grid.solid), ARG(n), ARG(nfine), ARG(nb), ARG(k));
    }
    LAUNCH(sf->dev, K_SURFACE_APRON, (size_t)count * PIPE_APRON, 1, 1, ARG(sf->phi),
           ARG(sf->list), ARG(sf->slot), ARG(nlisted), ARG(sf->flags[1]),
           ARG(sf->state->grid.solid), ARG(n), ARG(nfine), ARG(nb), ARG(k));
    pipe_read(sf->dev, sf->phi, phi, (size_t)count * PIPE_PAD3 * sizeof *phi);
}

/* Whether a buffer of that many bytes can be made on the device at all. */
static int pipe_surface_fits(PipeSurface *sf, size_t bytes)
{
    cl_ulong most = 0;
    if (clGetDeviceInfo(sf->dev->cl.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof most, &most,
                        NULL) != CL_SUCCESS)
        return 0;
    return (cl_ulong)bytes <= most;
}

/* Steps 1-4 on the device into phi (malloc'd, count bricks listed in list). Returns the
 * count, -1 on failure (an OpenCL error in P, else out of host memory), or -2 when the
 * listed bricks' field would not fit in one device buffer. */
static long pipe_surface_bricks_field(PipeSurface *sf, const MacGrid *g, const SurfaceGrid *fine,
                                      const AnisoConsts *a, cl_int *list, cl_int *slot,
                                      float **phi)
{
    size_t bricks = (size_t)fine->nb[0] * (size_t)fine->nb[1] * (size_t)fine->nb[2];
    pipe_surface_alloc(sf, g->nx, grid_cells(g), bricks);
    pipe_sort_index(sf->state, g);
    pipe_surface_flags(sf, g, fine);
    long count = pipe_surface_bricks(sf, g, fine, list, slot);
    if (count <= 0)
        return count;
    /* the kernels number nodes with an int */
    if (count > INT_MAX / PIPE_PAD3 || !pipe_surface_fits(sf, (size_t)count * PIPE_PAD3 *
                                                             sizeof **phi))
        return -2;
    if (!(*phi = malloc((size_t)count * PIPE_PAD3 * sizeof **phi)))
        return -1;
    pipe_surface_field(sf, g, fine, count, a, *phi);
    return count;
}

/* The C path for what the device cannot hold: surface_build or surface_build_anisotropic. */
static int pipe_surface_on_host(Sim *s, const SurfaceSettings *set, bool aniso, Mesh *m)
{
    char err[sizeof s->error.message];
    int rc = aniso ? surface_build_anisotropic(&s->particles, &s->grid, set,
                                               s->scene->particles_per_cell, m, err, sizeof err)
                   : surface_build(&s->particles, &s->grid, set, m, err, sizeof err);
    return rc == 0 ? 0 : sim_fail(s, RUN_COULD_NOT_RUN, "%s", err);
}

/* The fine grid (and the anisotropic kernel's constants) for set: 0 when the device can make
 * its field, 1 when the host must (the bricks' list would not fit in one device buffer, or a
 * reach is longer than the kernels' padding), -1 with one line in s->error. */
static int pipe_surface_grid(PipeSurface *sf, Sim *s, const SurfaceSettings *set, bool aniso,
                             SurfaceGrid *fine, AnisoConsts *a)
{
    char err[sizeof s->error.message];
    if (aniso ? surface_grid_anisotropic("surface_build_anisotropic", &s->grid, set,
                                         s->scene->particles_per_cell, fine, a, err, sizeof err)
              : surface_grid(&s->grid, set, fine, err, sizeof err))
        return sim_fail(s, RUN_COULD_NOT_RUN, "%s", err);
    size_t bricks = (size_t)fine->nb[0] * (size_t)fine->nb[1] * (size_t)fine->nb[2];
    return !pipe_surface_fits(sf, bricks * sizeof(cl_int)) || fine->reach > SF_PAD ||
           fine->kernel_cells > SF_PAD;
}

/* The device's particles moved since the last substep's sort, so they are sorted again, but
 * only as indices (sorted[], start[]): the particles stay where they are, so the sim's state
 * on the device is as the substeps left it. A fine grid too big for the device's buffers is
 * meshed on the host instead, from the host's copy of the same particles. */
int pipe_surface_mesh(PipeSurface *sf, Sim *s, const SurfaceSettings *set, bool aniso, Mesh *m)
{
    SurfaceGrid fine;
    AnisoConsts a;
    double t0 = pipe_clock();
    m->nverts = m->ntris = 0;
    sf->last[0] = sf->last[1] = 0.0;
    int where = pipe_surface_grid(sf, s, set, aniso, &fine, &a);
    if (where != 0)
        return where < 0 ? -1 : pipe_surface_on_host(s, set, aniso, m);
    size_t bricks = (size_t)fine.nb[0] * (size_t)fine.nb[1] * (size_t)fine.nb[2];
    cl_int *list = malloc(bricks * sizeof *list), *slot = malloc(bricks * sizeof *slot);
    float *phi = NULL;
    long count = list && slot ? pipe_surface_bricks_field(sf, &s->grid, &fine, aniso ? &a : NULL,
                                                          list, slot, &phi) : -1;
    int rc = pipe_report(sf->dev, s);
    if (rc == 0 && count == -1)
        rc = sim_fail(s, RUN_OUT_OF_MEMORY, "opencl %ssurface: out of memory (fine grid "
                      "%dx%dx%d)", aniso ? "anisotropic " : "", fine.n[0], fine.n[1], fine.n[2]);
    double t1 = pipe_clock();
    if (rc == 0 && count == -2) {
        rc = pipe_surface_on_host(s, set, aniso, m);
    } else if (rc == 0 && count > 0) {
        SurfaceBricks in = { &fine, (size_t)count, list, phi };
        char err[sizeof s->error.message];
        if (surface_polygonise(&in, m, err, sizeof err) != 0)
            rc = sim_fail(s, RUN_COULD_NOT_RUN, "%s", err);
    }
    sf->last[0] = t1 - t0;
    sf->last[1] = pipe_clock() - t1;
    sf->march_seconds += sf->last[1];
    free(list);
    free(slot);
    free(phi);
    return rc;
}
