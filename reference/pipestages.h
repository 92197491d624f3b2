/* pipestages.h — the stages of a substep as kernels on the OpenCL pipeline's state.
 * flipkit reference/: above pipestate.h; the backend (pipeline.c) runs them on the resident
 * state, the stage track (opencl_track.c) on one stage's case, the jacobi solver its two steps.
 * Each call enqueues its kernels without a wait. */
#ifndef FLIPKIT_PIPESTAGES_H
#define FLIPKIT_PIPESTAGES_H

#include "pipestate.h"
#include "sim.h"

/* Sort by cell, the nine row colours of p2g_scatter, then the division. keep_weights: the
 * weights stay for reading (the stage track's p2g). classify: also the cell types (and p = 0
 * outside FLUID) from the sort, in the normalize pass (PipeShortcuts): the pipeline's classify. */
void pipe_p2g(PipeState *S, const MacGrid *g, int keep_weights, int classify);
void pipe_gravity(PipeState *S, const MacGrid *g, Vec3 gravity, float dt);
/* dv: gravity's change per component, folded into these two passes (PipeShortcuts), or NULL
 * for none. on_box: only over the FLUID box, when it is fresh (the pipeline). */
void pipe_divergence(PipeState *S, const MacGrid *g, const float *dv, int on_box);
void pipe_gradient(PipeState *S, const MacGrid *g, float scale, const float *dv, int on_box);
/* layers: AIR faces beyond the fluid (SimStepping.layers). */
void pipe_extrapolate(PipeState *S, const MacGrid *g, int layers);
void pipe_g2p(PipeState *S, const MacGrid *g, float alpha);
/* The pipeline's g2p and advect: the same velocities as pipe_g2p through one blended field
 * per component (stages.cl says how; it overwrites the old velocities, which pipe_g2p reads),
 * then the move in the same launch: pipe_advect's (order 0) or the production step's RK
 * (order 2, 3). */
void pipe_g2p_move(PipeState *S, const MacGrid *g, float alpha, float dt, int order);
void pipe_advect(PipeState *S, float dt);
void pipe_keep_inside(PipeState *S, const MacGrid *g);
/* out = L in, and one weighted Jacobi sweep out from in on rhs (the jacobi solver's steps). */
void pipe_laplacian(PipeState *S, const MacGrid *g, cl_mem in, cl_mem out);
void pipe_jacobi_sweep(PipeState *S, const MacGrid *g, cl_mem in, cl_mem out, float omega);
/* A whole jacobi solve of L p = rhs on the state's grid in one launch of one work-group of
 * `group` work-items (kernels/solvers.cl's jacobi_solve): after pipe_pressure_rhs, whose
 * partial sums it reads for |rhs|; the same bits as pipe_jacobi_sweep with the host's residual
 * checks. q: the other iterate; list: 2 ints a cell; outcome: 3 doubles (sweeps, residual,
 * converged) for the host to read. */
void pipe_jacobi_solve(PipeState *S, const MacGrid *g, cl_mem q, const PressureSettings *set,
                       int check_every, size_t group, cl_mem list, cl_mem outcome);
/* Enqueues a check of the first n floats of v (phase's output at place; particles: 3 floats
 * each; cells: FLUID cells only, the only ones read) for a value that is not finite, without a
 * wait. The first check that finds one keeps it on the device for pipe_nonfinite_report, so a
 * NaN names its stage here as on the host. pipe_check_finite_all: 1-3 checks in one launch,
 * in that order (a cell check alone). */
typedef struct {
    SimPhase phase;
    SimPlace place;
    cl_mem v;
    size_t n;
} PipeCheck;
void pipe_check_finite_all(PipeState *S, const PipeCheck *checks, int count);
void pipe_check_finite(PipeState *S, SimPhase phase, SimPlace place, cl_mem v, size_t n);
/* What the checks found: 0 when nothing, else -1 with sim_fail_nonfinite's one line (for a
 * cell, its neighbours' types as the device holds them now, read back into s->grid). */
int pipe_nonfinite_report(PipeState *S, Sim *s);
/* Turns a failure recorded in D into the sim's one line and status: 0, or -1. */
int pipe_report(const PipeDevice *D, Sim *s);
/* The largest particle speed squared (one wait), for the CFL substep. */
float pipe_max_speed2(PipeState *S);

#endif
