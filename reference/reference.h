/* reference.h — the reference track: the eight stages (renamed ref_<stage> when compiled,
 * so they can live beside the student's) and the reference pressure solvers.
 * flipkit reference/: the Makefile compiles reference/<stage>.c with -D<stage>=ref_<stage>. */
#ifndef FLIPKIT_REFERENCE_H
#define FLIPKIT_REFERENCE_H

#include "track.h"

void ref_advect(Particles *ps, float dt);
void ref_gravity(MacGrid *g, Vec3 gravity_ms2, float dt);
void ref_p2g(const Particles *ps, MacGrid *g);
void ref_g2p(Particles *ps, const MacGrid *g, float *const vel_old[3], float alpha);
void ref_divergence(const MacGrid *g, float *div);
void ref_laplacian(const MacGrid *g, const float *p, float *out);
void ref_jacobi(const MacGrid *g, const float *p, const float *rhs, float omega, float *p_out);
void ref_gradient(MacGrid *g, const float *p, float scale);

/* Conjugate gradients preconditioned with modified incomplete Cholesky, MIC(0)
 * (Bridson, Fluid Simulation for Computer Graphics, 2nd ed., ch. 5). */
SolveResult ref_solve_pcg(const MacGrid *g, const float *rhs, float *p, const PressureSettings *s,
                          SolveHistory *history);
/* CG preconditioned with one multigrid V-cycle (McAdams, Sifakis, Teran, SCA 2010). */
SolveResult ref_solve_mgpcg(const MacGrid *g, const float *rhs, float *p, const PressureSettings *s,
                            SolveHistory *history);
/* Multigrid V-cycles on the residual, alone. */
SolveResult ref_solve_multigrid(const MacGrid *g, const float *rhs, float *p,
                                const PressureSettings *s, SolveHistory *history);
/* Red-black Gauss-Seidel, and red-black SOR with pressure.sor_omega. */
SolveResult ref_solve_gauss_seidel(const MacGrid *g, const float *rhs, float *p,
                                   const PressureSettings *s, SolveHistory *history);
SolveResult ref_solve_sor(const MacGrid *g, const float *rhs, float *p, const PressureSettings *s,
                          SolveHistory *history);

/* The production particle step (Track.advect_grid; rkstep.c): every particle through the
 * grid's velocity with midpoint RK2 (order 2) or Ralston's RK3 (order 3). */
void ref_advect_grid(Particles *ps, const MacGrid *g, float dt, int order);

extern const Track reference_track;

#endif
