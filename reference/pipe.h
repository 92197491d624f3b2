/* pipe.h — the inside of the OpenCL pipeline: its buffers, kernels and launch helpers, shared
 * by pipeline.c (the substep) and pipesolve.c (the pressure solvers). flipkit reference/:
 * not a public interface; pipeline.h is. */
#ifndef FLIPKIT_PIPE_H
#define FLIPKIT_PIPE_H

#include "pipestages.h"
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
    PipeState state;            /* particles, grid, shortcuts (pipestate.h) */
    cl_mem bounds;              /* fluid_bounds' partial boxes */
    /* solvers: double iterate and residual, float CG vectors; z is level[0].x */
    cl_mem xd, rd, s, t, rf;
    cl_mem cg_scal;             /* sigma, alpha or beta, broke: CG's scalars (solvers.cl) */
    PipeLevel level[MG_MAX_LEVELS];
    int levels;
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

/* Turns a recorded OpenCL failure into the sim's one-line error: 0, or -1. */
int pipe_report(Pipe *P, Sim *s);
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

/* The solver's vectors and multigrid levels for grid g (level 0 shares the state's cell
 * types), the old ones released first. Returns 0 or -1. */
int pipe_solver_fit(Pipe *P, const MacGrid *g);
void pipe_solver_release(Pipe *P);

#endif
