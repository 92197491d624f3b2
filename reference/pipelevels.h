/* pipelevels.h — the multigrid hierarchy of the OpenCL pipeline's solvers: levels, FLUID boxes,
 * red-black sweeps and the V-cycle.
 * flipkit reference/: above pipestages.h, below pipesolve.h (whose solvers sweep and precondition
 * with it); it owns its levels' buffers. */
#ifndef FLIPKIT_PIPELEVELS_H
#define FLIPKIT_PIPELEVELS_H

#include "multigrid.h"
#include "pipestages.h"

/* One level of the multigrid hierarchy (level 0 is the grid). */
typedef struct {
    int n[3];
    size_t cells;
    cl_mem type, count;         /* char cell types, ushort info (mg_count: neighbour mask,
                                 * INFO_FLUID, neighbour count) */
    cl_mem x, b, r;             /* float; r in the split layout on a split level */
    int lo[3], hi[3];           /* the box [lo, hi) holding every FLUID cell of this solve */
    int used_lo[3], used_hi[3]; /* a split level: where r (and x below level 0) may be nonzero,
                                 * the box of the solves since they were last cleared */
    cl_mem xs, bs, infos;       /* x, b, count in colour-split layout (solvers.cl), on a level
                                 * swept in parallel; NULL on one swept by one work-item */
    int half_nx;                /* the split layout: cells per split row ((nx + 1) / 2), */
    int per_colour;             /* cells per colour, */
    int end_pad;                /* and the pad elements at each end */
} PipeLevel;

typedef struct {
    PipeDevice *dev;
    PipeState *state;           /* the grid: level 0's cell types; the FLUID box shortcut */
    cl_mem bounds;              /* fluid_bounds' PIPE_PARTS partial boxes */
    PipeLevel level[MG_MAX_LEVELS];
    int levels;
} PipeLevels;

/* ... over the box of level q's FLUID cells (pipe_fluid_box) */
#define LAUNCH_BOX(mg, q, k, ...)                                                             \
    LAUNCH_RANGE((mg)->dev, k, (mg)->level[q].lo, (mg)->level[q].hi, __VA_ARGS__)
/* ... over every cell of level q */
#define LAUNCH_CELLS(mg, q, k, ...)                                                           \
    LAUNCH((mg)->dev, k, (size_t)(mg)->level[q].n[0], (size_t)(mg)->level[q].n[1],            \
           (size_t)(mg)->level[q].n[2], __VA_ARGS__)

/* The levels for grid g (level 0 shares the state's cell types), halving until a level would
 * have fewer than MG_MIN_CELLS cells along an axis. Returns 0 or -1 (failure in the device). */
int pipe_alloc_levels(PipeLevels *mg, const MacGrid *g);
void pipe_release_levels(PipeLevels *mg);
/* Neighbour counts of level 0 and, for an nlev-level V-cycle, the coarse levels' types and
 * counts. */
void pipe_prepare_levels(PipeLevels *mg, int from, int to, int nlev);
/* fluid_bounds' partial boxes of level 0's FLUID cells into mg->bounds (enqueued), then, from
 * them read back, each of nlev levels' box and the state's FLUID box shortcut. */
void pipe_fluid_bounds(PipeLevels *mg);
void pipe_fluid_box(PipeLevels *mg, int nlev, const cl_int *part);
/* x (grid layout) = level q's split x over its box */
void pipe_merge_out(PipeLevels *mg, int q, cl_mem x);
/* Level 0's x = `sweeps` red-black sweeps on its b from x = 0, and as many black-red ones
 * after them if both_ways. */
void pipe_sweeps_from_zero(PipeLevels *mg, int sweeps, int both_ways, float omega);
/* Level q's x from its b: an nlev-level V-cycle below it, coarse_sweeps on the coarsest. */
void pipe_vcycle_level(PipeLevels *mg, int q, int nlev, int coarse_sweeps);

#endif
