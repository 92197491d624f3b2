/* pipestate.h — the OpenCL pipeline's particle and grid state on the device: its buffers, the
 * sort by cell, and the shortcuts one phase leaves for a later one.
 * flipkit reference/: above pipedev.h, below the stage kernels (pipestages.h); the solver and
 * the surface read it, the backend (pipeline.c) moves it to and from the host. */
#ifndef FLIPKIT_PIPESTATE_H
#define FLIPKIT_PIPESTATE_H

#include "grid.h"
#include "particles.h"
#include "pipedev.h"

/* The particles, kept in cell order from the first sort on. */
typedef struct {
    size_t capacity, count;     /* room in each buffer, particles held */
    cl_mem pos, vel;            /* float3 each (Vec3) */
    cl_mem id;                  /* id[q]: particle q's index in the host's arrays */
    cl_mem keys;                /* keys[q]: particle q's cell (PipeShortcuts.keys_fresh); after
                                 * the sort's scatter it receives the permuted ids (pipe_sort) */
    cl_mem sorted;              /* the sort's order: cell c's particles are sorted[start[c] ..] */
    cl_mem spare;               /* float3 each: receives positions, then velocities, in sorted
                                 * order before each swap */
} PipeParticles;

/* The grid: per cell, per face, and the sort's per-cell counts. */
typedef struct {
    int n[3];                   /* the grid these buffers are sized for */
    cl_mem solid;               /* char: 1 where a cell is SOLID for the whole run */
    cl_mem cell;                /* char: this substep's cell types */
    cl_mem p, div;              /* float per cell: pressure, divergence */
    cl_mem rhs;                 /* (rho/dt) div per cell: div's own buffer, which pressure_rhs
                                 * turns into it cell by cell (nothing reads div after that),
                                 * a float per cell fewer (issue 42) */
    cl_mem lap;                 /* float per cell: L p, or NULL until pipe_grid_lap */
    cl_mem counts;              /* int per cell: the sort's counts, 0 between sorts (a region of
                                 * scratch, over the sums: pipe_alloc_scratch) */
    cl_mem start;               /* int per cell + 1: cell c's particles start at start[c] */
    cl_mem scan_sums;           /* the scan's PIPE_SCAN_PARTS part sums */
    cl_mem face[3];             /* the velocity per face, u v w */
    cl_mem weight[3];           /* p2g's weights per face */
    cl_mem old[3];              /* the velocity right after p2g, for FLIP */
    cl_mem sum[3];              /* p2g_scatter's weighted sums: 0 between substeps */
    /* weight[3] and sum[3] are regions of one buffer, scratch, which is 0 between substeps
     * (each p2g_normalize clears them) and which the pressure solve borrows for its CG
     * vectors in between (pipesolve.c), zeroing what it used before it returns: 24 bytes a
     * cell for both (issue 42) */
    cl_mem scratch;
    size_t scratch_bytes;
    cl_mem known[2];            /* extrapolation's known flags, this layer's and the next's */
} PipeGrid;

/* The shortcuts that carry state from one phase to a later one, in one place. Each saves a
 * pass or a wait, and each is invalidated where what it stands for changes:
 *  - classify runs inside p2g: p2g's normalize pass (u's launch) writes the cell types (and
 *    p = 0 outside FLUID) from the sort's starts (pipe_p2g with classify);
 *  - gravity is folded into divergence and gradient: gravity_dv is this substep's dt g, which
 *    divergence adds to every face it reads and gradient to every face it writes (pipeline.c's
 *    gravity phase says why that gives the gravity kernel's bits);
 *  - box_fresh: box_lo/box_hi hold every FLUID cell of the cell types now (the solver's
 *    pipe_find_box found them after classify), so divergence, gradient and extrapolation
 *    launch on that box; cleared by a new classify and by pipe_state_fit;
 *  - keys_fresh: keys[q] is particle q's cell, as keep_inside or a sort left them, and nothing
 *    has moved or reordered the particles since, so the next sort need not compute them;
 *  - weights_kept: the last p2g left the weights for reading (the stage track), not 0, so the
 *    next one clears them first. */
typedef struct {
    float gravity_dv[3];
    int box_fresh;
    int box_lo[3], box_hi[3];
    int keys_fresh;
    int weights_kept;
} PipeShortcuts;

typedef struct {
    PipeDevice *dev;
    PipeParticles particles;
    PipeGrid grid;
    PipeShortcuts shortcut;
    cl_mem nonfinite;           /* int[5]: what the checks of the stages' outputs found
                                 * (pipe_check_finite_all) */
    int check_seq;              /* the checks' launches since the record was last read empty */
} PipeState;

/* Makes the grid's buffers fit g (remade when its size changes; g NULL: left as they are, for
 * a stage that reads particles only) and the particles' hold count. Returns 1 when the grid's
 * buffers were made anew (what is sized by the grid must be remade too), 0 when they were
 * kept, or -1 with the failure recorded in the device. */
int pipe_state_fit(PipeState *S, const MacGrid *g, size_t count);
void pipe_state_release(PipeState *S);
/* The grid's L p buffer, made on first use: only the jacobi solver and the stage track's
 * laplacian and jacobi need it, so a run with another solver keeps a float per cell. NULL
 * with the failure recorded in the device. */
cl_mem pipe_grid_lap(PipeState *S);

/* Sorts the particles by cell: start[] offsets, sorted[] their places, by id within a cell;
 * pipe_sort also moves them into that order. */
void pipe_sort_index(PipeState *S, const MacGrid *g);
/* Few particles on a small grid, where a launch costs more than its work: the work-group size
 * for kernel k's one-launch path (sort_small, p2g_scatter_small), or 0 when particles and cells
 * together are more than SMALL_WORK (pipestate.c). $FLIPKIT_CL_SMALL_WORK overrides that limit,
 * for tuning on another device (0: never; test_pipeline compares the two paths' bits). */
size_t pipe_small_group(PipeState *S, const MacGrid *g, PipeKernel k);
void pipe_sort(PipeState *S, const MacGrid *g);
/* How many cells' sort counts are not 0 (each sort leaves them 0 for the next), or -1. */
long pipe_state_leftover_counts(PipeState *S);

static inline cl_int4 pipe_grid_dims(const MacGrid *g)
{
    const int n[3] = { g->nx, g->ny, g->nz };
    return pipe_dims(n);
}

#endif
