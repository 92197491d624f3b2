/* pipesolve.h — the OpenCL pipeline's pressure solvers: jacobi, red-black Gauss-Seidel and SOR,
 * multigrid, and CG preconditioned by a V-cycle (mgpcg) or one level of it (pcg).
 * flipkit reference/: above pipestages.h; a PipeSolver owns its vectors and multigrid levels
 * and solves on a PipeState's grid, so it runs (and is tested) without a Sim. */
#ifndef FLIPKIT_PIPESOLVE_H
#define FLIPKIT_PIPESOLVE_H

#include "pipelevels.h"

typedef struct {
    PipeDevice *dev;
    PipeState *state;           /* the grid it solves on: cell types, rhs, p, lap; its FLUID box */
    cl_mem iterate;             /* double: x, the solution as the solve refines it */
    cl_mem residual;            /* double: b - A x */
    cl_mem b;                   /* float: the system's right-hand side, -dx^2 rhs */
    cl_mem direction;           /* float: CG's search direction s (jacobi's other iterate) */
    cl_mem a_direction;         /* float: A s */
    cl_mem cg_scalars;          /* double: sigma, alpha, broke, the other sigma (solvers.cl's
                                 * CG_*) */
    cl_mem partial_st;          /* double: s . A s per slab (apply_A_dot), read by cg_update;
                                 * and the true residual's partial sums CG starts from */
    int coarse_levels;          /* the solve's levels while its coarse ones wait to be made */
    /* iterate, residual, direction and a_direction are regions of the state's p2g scratch
     * (pipestate.h) when they fit there and the grid is not small (pipe_solver_vectors): the
     * bytes of it they cover, which pipe_solve zeroes before it returns, or 0 when they are
     * buffers of their own */
    size_t borrowed;
    PipeLevels mg;              /* level 0's x is CG's preconditioned residual z */
} PipeSolver;

/* The vectors and multigrid levels for grid g (level 0 shares the state's cell types), the
 * old ones released first. Returns 0, or -1 with the failure recorded in the device. */
int pipe_solver_fit(PipeSolver *sv, const MacGrid *g);
void pipe_solver_release(PipeSolver *sv);

/* Level 0's box around the FLUID cells (and the coarse levels'), for the cell types just
 * classified, with one wait, into the state's shortcuts too: the pipeline's classify phase,
 * so that divergence and gradient launch on it. Nothing for jacobi (name), which sweeps the
 * whole grid. */
void pipe_find_box(PipeSolver *sv, const char *name);
/* rhs = scale div in FLUID cells (p = 0 outside them), then L p = rhs on the state's grid with
 * solver `name` (a pressure.solver name); finds the box itself when pipe_find_box has not, and
 * checks p for values that are not finite as the pressure phase (pipe_check_finite). A device
 * failure stays recorded in the device (the result's residual is then NaN). */
SolveResult pipe_solve(PipeSolver *sv, const MacGrid *g, const PressureSettings *set,
                       const char *name, float scale);
/* Which algorithm solver `name` runs on the device, for the log and --help. */
const char *pipe_solver_variant(const char *name);

#endif
