/* pipestate.c — the OpenCL pipeline's particle and grid buffers and the sort by cell.
 * flipkit reference/: the buffers are made on first use (the device opens before the grid
 * exists) and remade for another grid (the stage track's cases); the sort is a counting sort
 * whose order is the same on every run. */
#include "pipestate.h"

#include <limits.h>
#include <stdlib.h>

/* Parts of the scan of the cell counts (sort.cl), a few per core. */
enum { PIPE_SCAN_PARTS = 16 };
/* Particles per work-item of sort_keys and sort_scatter: enough that runs of a cell's particles
 * stay whole, few enough that both cores get hundreds of work-items at 32^3. */
enum { PIPE_SORT_CHUNK = 256 };
/* pipe_small_group's work-group, and the most particles and cells together it takes (the
 * one-launch sort's scan and bucket pass run over every cell on one core). p2g on PoCL here,
 * medians of 5 runs, ms a substep, the sort's nine launches -> sort_small: first_drop (4167
 * particles, 4096 cells) 0.43 -> 0.35, hydrostatic (12320, 4608) 1.00 -> 0.82, maze (9256,
 * 18432) 0.83 -> 0.80; waterfall (10800, 32000) and column_on_block (13824, 49152) no better,
 * dam_break (24752, 36864) 1.9 -> 2.5. Then the scatter's nine -> p2g_scatter_small:
 * first_drop 0.38 -> 0.33, hydrostatic 0.94 -> 0.79, maze 0.73 -> 0.77 (noise, or its edge). */
enum { SMALL_GROUP = 256, SMALL_WORK = 32768 };

/* weight[3] and sum[3], one after another in scratch, zeroed once: each p2g_normalize leaves
 * them 0 again (and the solver what it borrowed). The sort's counts lie over the sums: each
 * sort starts from 0 and leaves 0, and runs before p2g_scatter adds into them or after
 * p2g_normalize cleared them (not over the weights, which the stage track's p2g keeps). */
static void pipe_alloc_scratch(PipeState *S, const MacGrid *g)
{
    PipeGrid *gr = &S->grid;
    size_t at[7] = { 0 };
    for (int q = 0; q < 6; q++)
        at[q + 1] = at[q] + pipe_align(S->dev, grid_faces(g, q % 3) * sizeof(float));
    gr->scratch_bytes = at[6];
    gr->scratch = pipe_buffer(S->dev, gr->scratch_bytes);
    for (int a = 0; a < 3; a++) {
        size_t bytes = grid_faces(g, a) * sizeof(float);
        gr->weight[a] = pipe_sub_buffer(S->dev, gr->scratch, at[a], bytes);
        gr->sum[a] = pipe_sub_buffer(S->dev, gr->scratch, at[3 + a], bytes);
    }
    gr->counts = pipe_sub_buffer(S->dev, gr->scratch, at[3], grid_cells(g) * sizeof(cl_int));
    if (S->dev->failure == CL_SUCCESS)
        pipe_zero(S->dev, gr->scratch, gr->scratch_bytes);
}

static void pipe_alloc_grid(PipeState *S, const MacGrid *g)
{
    PipeGrid *gr = &S->grid;
    gr->n[0] = g->nx;
    gr->n[1] = g->ny;
    gr->n[2] = g->nz;
    size_t n = grid_cells(g), fmax = 0;
    cl_mem *floats[] = { &gr->p, &gr->div }; /* lap: pipe_grid_lap */
    for (size_t q = 0; q < sizeof floats / sizeof *floats; q++)
        *floats[q] = pipe_buffer(S->dev, n * sizeof(float));
    gr->rhs = gr->div;
    gr->solid = pipe_buffer(S->dev, n);
    gr->cell = pipe_buffer(S->dev, n);
    gr->start = pipe_buffer(S->dev, (n + 1) * sizeof(cl_int));
    pipe_alloc_scratch(S, g);
    for (int a = 0; a < 3; a++) {
        size_t bytes = grid_faces(g, a) * sizeof(float);
        gr->face[a] = pipe_buffer(S->dev, bytes);
        gr->old[a] = pipe_buffer(S->dev, bytes);
        fmax = grid_faces(g, a) > fmax ? grid_faces(g, a) : fmax;
    }
    S->shortcut.weights_kept = 0;
    gr->known[0] = pipe_buffer(S->dev, fmax);
    gr->known[1] = pipe_buffer(S->dev, fmax);
    gr->scan_sums = pipe_buffer(S->dev, PIPE_SCAN_PARTS * sizeof(cl_int));
}

static void pipe_release_grid(PipeGrid *gr)
{
    gr->rhs = NULL; /* div's buffer */
    cl_mem *bufs[] = { &gr->solid, &gr->cell, &gr->p, &gr->div, &gr->lap, &gr->counts,
                       &gr->start, &gr->known[0], &gr->known[1], &gr->scan_sums };
    for (size_t q = 0; q < sizeof bufs / sizeof *bufs; q++)
        pipe_release(bufs[q]);
    for (int a = 0; a < 3; a++) {
        pipe_release(&gr->face[a]);
        pipe_release(&gr->weight[a]);
        pipe_release(&gr->sum[a]);
        pipe_release(&gr->old[a]);
    }
    pipe_release(&gr->scratch);
    gr->scratch_bytes = 0;
}

static void pipe_reserve_particles(PipeState *S, size_t count)
{
    PipeParticles *pt = &S->particles;
    if (count <= pt->capacity && pt->pos)
        return;
    cl_mem *vec3s[] = { &pt->pos, &pt->vel, &pt->spare };
    cl_mem *ints[] = { &pt->id, &pt->keys, &pt->sorted };
    pt->capacity = count + count / 4 + 64;
    for (size_t q = 0; q < sizeof vec3s / sizeof *vec3s; q++) {
        pipe_release(vec3s[q]);
        *vec3s[q] = pipe_buffer(S->dev, pt->capacity * sizeof(Vec3));
    }
    for (size_t q = 0; q < sizeof ints / sizeof *ints; q++) {
        pipe_release(ints[q]);
        *ints[q] = pipe_buffer(S->dev, pt->capacity * sizeof(cl_int));
    }
}

cl_mem pipe_grid_lap(PipeState *S)
{
    PipeGrid *gr = &S->grid;
    if (!gr->lap)
        gr->lap = pipe_buffer(S->dev, (size_t)gr->n[0] * gr->n[1] * gr->n[2] * sizeof(float));
    return gr->lap;
}

int pipe_state_fit(PipeState *S, const MacGrid *g, size_t count)
{
    const int *n = S->grid.n;
    int remade = 0;
    if (g && S->grid.p && (n[0] != g->nx || n[1] != g->ny || n[2] != g->nz))
        pipe_release_grid(&S->grid);
    if (g && !S->grid.p) {
        pipe_alloc_grid(S, g);
        remade = 1;
    }
    pipe_reserve_particles(S, count);
    if (!S->nonfinite) {
        /* no check has found anything (pipe_check_finite_all) */
        const cl_int none[5] = { INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX };
        S->nonfinite = pipe_buffer(S->dev, sizeof none);
        pipe_write(S->dev, S->nonfinite, none, sizeof none);
    }
    S->particles.count = count;
    S->shortcut.keys_fresh = 0; /* the caller writes new particles */
    S->shortcut.box_fresh = 0;
    return S->dev->failure == CL_SUCCESS ? remade : -1;
}

void pipe_state_release(PipeState *S)
{
    PipeParticles *pt = &S->particles;
    cl_mem *bufs[] = { &pt->pos, &pt->vel, &pt->id, &pt->keys, &pt->sorted, &pt->spare };
    for (size_t q = 0; q < sizeof bufs / sizeof *bufs; q++)
        pipe_release(bufs[q]);
    pipe_release(&S->nonfinite);
    pipe_release_grid(&S->grid);
}

/* Particles sorted by cell: cell c's particles are sorted[start[c] .. start[c+1] - 1], by id
 * (so the order is the same on every run, resumed or not). */
void pipe_sort_index(PipeState *S, const MacGrid *g)
{
    PipeParticles *pt = &S->particles;
    PipeGrid *gr = &S->grid;
    cl_int4 n = pipe_grid_dims(g);
    cl_int count = (cl_int)pt->count, ncells = (cl_int)grid_cells(g);
    float dx = g->dx;
    cl_int chunk = PIPE_SORT_CHUNK; /* the counts are 0: pipe_alloc_grid, then sort_scatter */
    size_t walkers = (pt->count + PIPE_SORT_CHUNK - 1) / PIPE_SORT_CHUNK;
    cl_int fresh = S->shortcut.keys_fresh;
    LAUNCH(S->dev, K_SORT_KEYS, walkers, 1, 1, ARG(pt->keys), ARG(gr->counts), ARG(pt->pos),
           ARG(n), ARG(dx), ARG(count), ARG(chunk), ARG(fresh));
    S->shortcut.keys_fresh = 1;
    /* a work-group per part, of one work-item: in wider ones PoCL ran the parts side by side
     * in the vector lanes, each lane a chunk away from the next (gathers and scatters) */
    cl_int nparts = PIPE_SCAN_PARTS, cells_chunk = (ncells + nparts - 1) / nparts;
    LAUNCH_SINGLES(S->dev, K_SORT_SCAN_SUMS, PIPE_SCAN_PARTS, ARG(gr->scan_sums), ARG(gr->counts),
                   ARG(ncells), ARG(cells_chunk), ARG(nparts));
    LAUNCH(S->dev, K_SORT_SCAN_PARTS, 1, 1, 1, ARG(gr->scan_sums), ARG(gr->start), ARG(ncells),
           ARG(nparts));
    LAUNCH_SINGLES(S->dev, K_SORT_SCAN_WRITE, PIPE_SCAN_PARTS, ARG(gr->start), ARG(gr->counts),
                   ARG(gr->scan_sums), ARG(ncells), ARG(cells_chunk), ARG(nparts));
    LAUNCH(S->dev, K_SORT_SCATTER, walkers, 1, 1, ARG(pt->sorted), ARG(gr->counts),
           ARG(gr->start), ARG(pt->keys), ARG(count), ARG(chunk));
    LAUNCH(S->dev, K_SORT_BUCKETS, grid_cells(g), 1, 1, ARG(pt->sorted), ARG(gr->start),
           ARG(pt->id), ARG(ncells));
}

/* Buffer *from permuted into *into in sorted order (sort_permute3 for float3, else ints),
 * then the two swapped: *from holds the permuted values, *into what it held before. */
static void pipe_permute(PipeState *S, PipeKernel k, cl_mem *from, cl_mem *into)
{
    PipeParticles *pt = &S->particles;
    cl_int count = (cl_int)pt->count;
    LAUNCH(S->dev, k, pt->count, 1, 1, ARG(*into), ARG(*from), ARG(pt->sorted), ARG(count));
    cl_mem t = *from;
    *from = *into;
    *into = t;
}

size_t pipe_small_group(PipeState *S, const MacGrid *g, PipeKernel k)
{
    if (S->particles.count + grid_cells(g) > pipe_env_limit("FLIPKIT_CL_SMALL_WORK", SMALL_WORK))
        return 0;
    size_t most = pipe_group_limit(S->dev, k);
    return most < SMALL_GROUP ? most : SMALL_GROUP;
}

/* pipe_sort in one launch (sort_small), the handles swapped as pipe_permute's three swaps
 * leave them: ids in keys' old buffer, positions in spare's, velocities in the positions'. */
static void pipe_sort_small(PipeState *S, const MacGrid *g, size_t group)
{
    PipeParticles *pt = &S->particles;
    PipeGrid *gr = &S->grid;
    cl_int4 n = pipe_grid_dims(g);
    cl_int count = (cl_int)pt->count, fresh = S->shortcut.keys_fresh;
    float dx = g->dx;
    LAUNCH_GROUP(S->dev, K_SORT_SMALL, group, ARG(pt->keys), ARG(gr->counts), ARG(gr->start),
                 ARG(pt->sorted), ARG(pt->id), ARG(pt->pos), ARG(pt->vel), ARG(pt->spare),
                 ARG(n), ARG(dx), ARG(count), ARG(fresh));
    cl_mem id = pt->id, pos = pt->pos, vel = pt->vel;
    pt->id = pt->keys, pt->keys = id;
    pt->pos = pt->spare, pt->vel = pos, pt->spare = vel;
    S->shortcut.keys_fresh = 0; /* keys now hold the old order's ids */
}

/* ... and moved into that order, so cell c's particles are at start[c] .. start[c+1] - 1.
 * One array at a time through one spare (issue 42: 28 bytes a particle of spares were 12):
 * the ids into keys, which the sort has read for the last time (sort_scatter; keep_inside or
 * the next sort_keys writes them again), positions and velocities each through spare. */
void pipe_sort(PipeState *S, const MacGrid *g)
{
    PipeParticles *pt = &S->particles;
    size_t group = pipe_small_group(S, g, K_SORT_SMALL);
    if (group) {
        pipe_sort_small(S, g, group);
        return;
    }
    pipe_sort_index(S, g);
    S->shortcut.keys_fresh = 0; /* keys now hold the old order's ids */
    pipe_permute(S, K_SORT_PERMUTE1, &pt->id, &pt->keys);
    pipe_permute(S, K_SORT_PERMUTE3, &pt->pos, &pt->spare);
    pipe_permute(S, K_SORT_PERMUTE3, &pt->vel, &pt->spare);
}

long pipe_state_leftover_counts(PipeState *S)
{
    size_t cells = (size_t)S->grid.n[0] * S->grid.n[1] * S->grid.n[2];
    cl_int *counts = S->grid.counts ? malloc(cells * sizeof *counts) : NULL;
    if (!counts)
        return -1;
    pipe_read(S->dev, S->grid.counts, counts, cells * sizeof *counts);
    long left = S->dev->failure == CL_SUCCESS ? 0 : -1;
    for (size_t c = 0; c < cells && left >= 0; c++)
        left += counts[c] != 0;
    free(counts);
    return left;
}
