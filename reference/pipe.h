/* pipe.h — the inside of the OpenCL pipeline: its buffers, kernels and launch helpers, shared
 * by pipeline.c (the substep) and pipesolve.c (the pressure solvers). flipkit reference/:
 * not a public interface; pipeline.h is. */
#ifndef FLIPKIT_PIPE_H
#define FLIPKIT_PIPE_H

#include "pipedev.h"
#include "multigrid.h"
#include "sim.h"

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
    int hx, nh, pad;            /* cells per split row, per colour; pad elements at each end */
} PipeLevel;

typedef struct {
    SimBackend base;            /* first, so a SimBackend * is a Pipe * */
    char name[300];
    PipeDevice *dev;
    /* particles, kept in cell order from the first sort on; id[q] is particle q's index in the
     * host's arrays, and the spares receive each permutation before the swap */
    size_t capacity, count;
    cl_mem pos, vel, id, keys, sorted;
    cl_mem spare_pos, spare_vel, spare_id;
    int box_fresh;              /* level 0's box (pipe_fluid_box) is that of the cell types now */
    int keys_fresh;             /* keys[p] is particle p's cell: keep_inside or a sort left
                                 * them, and nothing has moved or reordered the particles since */
    /* cells */
    cl_mem solid, cell, p, div, rhs, lap, counts, start;
    /* faces */
    cl_mem face[3], weight[3], old[3], known[2];
    cl_mem sum[3];              /* p2g_scatter's weighted sums: 0 between substeps */
    int weights_kept;           /* the last pipe_p2g left the weights for reading, not 0 */
    float gravity_dv[3];        /* this substep's gravity, added by divergence and gradient */
    /* reductions */
    cl_mem bounds, scan_sums;
    /* solvers: double iterate and residual, float CG vectors; z is level[0].x */
    cl_mem xd, rd, s, t, rf;
    cl_mem cg_scal;             /* sigma, alpha or beta, broke: CG's scalars (solvers.cl) */
    PipeLevel level[MG_MAX_LEVELS];
    int levels;
    int grid_n[3];              /* the grid the cell and face buffers are sized for */
    /* the surface (pipesurface.c), made on first use: per cell, per brick of the fine grid
     * (surf_bricks of them), and the field of up to surf_capacity listed bricks */
    cl_mem surf_own, surf_flags[2], surf_mark, surf_list, surf_slot, surf_phi, surf_pos;
    size_t surf_bricks, surf_capacity, surf_particles;
    /* the anisotropic surface's: per cell whether its particles need kernels and the box
     * around their ellipsoids, and the kernels (4 float4 per particle, aniso_particles) */
    cl_mem aniso_want, aniso_box, aniso_kern;
    size_t aniso_particles;
    double surf_march_seconds;  /* host time in surface_polygonise, for the profile */
    double surf_last[2];        /* the last surface call's seconds: field, polygonise */
} Pipe;

/* ... over the box of level q's FLUID cells (pipe_fluid_box) */
#define LAUNCH_BOX(P, q, k, ...) LAUNCH_RANGE((P)->dev, k, (P)->level[q].lo, (P)->level[q].hi, __VA_ARGS__)
/* The same over the cells of level q / of the fine grid. */
#define LAUNCH_CELLS(P, q, k, ...)                                                            \
    LAUNCH((P)->dev, k, (size_t)(P)->level[q].n[0], (size_t)(P)->level[q].n[1],                     \
           (size_t)(P)->level[q].n[2], __VA_ARGS__)

static inline cl_int4 pipe_grid_dims(const MacGrid *g)
{
    const int n[3] = { g->nx, g->ny, g->nz };
    return pipe_dims(n);
}

/* Turns a recorded OpenCL failure into the sim's one-line error: 0, or -1. */
int pipe_report(Pipe *P, Sim *s);
/* Sorts the particles by cell: start[] offsets, sorted[] their places, by id within a cell;
 * pipe_sort also moves them into that order. */
void pipe_sort_index(Pipe *P, const MacGrid *g);
void pipe_sort(Pipe *P, const MacGrid *g);

/* The release of the surface's buffers (pipesurface.c; pipeline_surface makes them). */
void pipe_surface_release(Pipe *P);

/* Level 0's box around the FLUID cells (and the coarse levels'), for the cell types just
 * classified, with one wait: the pipeline's classify phase, so that divergence and gradient
 * launch on it too. Nothing for jacobi, which sweeps the whole grid. */
void pipe_find_box(Pipe *P, const Sim *s);
/* Solves L p = rhs on the device with the scene's pressure.solver (rhs in P->rhs, p in P->p),
 * after pressure_rhs has left rhs, b, the iterate and their norms' partial sums; finds the box
 * itself when pipe_find_box has not. */
SolveResult pipe_solve(Pipe *P, const Sim *s);

/* The phases of a substep on the device's buffers, each enqueued without a wait; pipeline.c's
 * backend calls run them on the resident state, opencl_track.c on one stage's case. */
/* classify: also the cell types (and p = 0 outside FLUID) from the sort, in p2g's normalize
 * pass (u's launch): the pipeline's classify */
void pipe_p2g(Pipe *P, const MacGrid *g, int keep_weights, int classify);
void pipe_gravity(Pipe *P, const MacGrid *g, Vec3 gravity, float dt);
/* dv: gravity's change per component, fused into these two passes (pipeline.c's gravity
 * phase says how), or NULL for none. */
void pipe_divergence(Pipe *P, const MacGrid *g, const float *dv, int on_box);
void pipe_gradient(Pipe *P, const MacGrid *g, float scale, const float *dv, int on_box);
void pipe_extrapolate(Pipe *P, const MacGrid *g);
void pipe_g2p(Pipe *P, const MacGrid *g, float alpha);
/* The same velocities through one blended field per component (stages.cl says how); the
 * pipeline's g2p. It overwrites the old velocities, which pipe_g2p reads. */
void pipe_g2p_blended(Pipe *P, const MacGrid *g, float alpha);
void pipe_advect(Pipe *P, float dt);
void pipe_keep_inside(Pipe *P, const MacGrid *g);
/* out = L in, and one weighted Jacobi sweep out from in (the jacobi solver's two steps). */
void pipe_laplacian(Pipe *P, const MacGrid *g, cl_mem in, cl_mem out);
void pipe_jacobi_sweep(Pipe *P, const MacGrid *g, cl_mem in, cl_mem out, float omega);

/* Makes the grid's buffers fit g (remade when its size changes; g NULL: left as they are, for
 * a phase that reads particles only) and the particles' hold count; returns 0, or -1 with the
 * failure recorded in P. */
int pipe_fit(Pipe *P, const MacGrid *g, size_t count);
/* Allocates the multigrid levels for grid g (level 0 shares P->cell). Returns 0 or -1. */
int pipe_alloc_levels(Pipe *P, const MacGrid *g);

#endif
