/* stages.h — the contract of the eight stages a student writes, stated once and exactly.
 * flipkit common/: the handout and the tests quote this file. Each stage is one file in
 * assignment/ (yours) and reference/ (the answer key), with the same name and signature.
 *
 * ---- Conventions (see grid.h for the helpers that implement them) -----------------------
 * Units: metres, seconds, kg/m^3, pascals. float32 in every array.
 * Grid: nx x ny x nz cells of size dx, y up. Cell (i,j,k) has centre ((i+1/2)dx, (j+1/2)dx,
 *   (k+1/2)dx). The outermost layer of cells is SOLID. Cell types: FLUID = 1 (holds at least
 *   one particle), AIR = 0, SOLID = -1.
 * MAC faces: u = vel[0] lives on x-faces, (nx+1) x ny x nz of them; u(i,j,k) sits at
 *   (i dx, (j+1/2)dx, (k+1/2)dx), between cells (i-1,j,k) and (i,j,k). Likewise v = vel[1]
 *   ((ny+1) faces in y) and w = vel[2]. Flat index x fastest: grid_face_index, grid_cell_index.
 * Solid faces: a face with a SOLID cell on either side (grid_face_is_solid). Solids do not
 *   move, so the fluid's velocity normal to them is 0 (Neumann boundary for pressure).
 *
 * ---- The pressure equation (the one place it is written) --------------------------------
 * Projection makes u divergence-free: u_new = u - (dt/rho) grad p, with div u_new = 0 in
 * every FLUID cell. Substituting gives the Poisson equation, with this sign:
 *
 *        L p = (rho / dt) div u          in every FLUID cell
 *
 * @level guided,standard for laplacian,jacobi
 * where L is the discrete Laplacian below, p = 0 in AIR cells (Dirichlet: the free surface
 * is at atmospheric pressure, taken as 0) and SOLID neighbours drop out of the stencil
 * (Neumann: no flow through a solid face). The scaling is rho/dt, not 1/dt: p is in pascals,
 * and a tank at rest has p = rho * g * depth.
 *
 *   (L p)(i,j,k) = ( sum over the 6 neighbours n that are FLUID of p_n
 *                    - N * p(i,j,k) ) / dx^2
 *   where N = the number of the 6 neighbours that are not SOLID (FLUID or AIR).
 * @level end
 * @level open for laplacian,jacobi
 * where L is the discrete Laplacian on the cells, p = 0 in AIR cells (the free surface is at
 * atmospheric pressure, taken as 0) and no liquid flows through a solid face. The scaling is
 * rho/dt, not 1/dt: p is in pascals, and a tank at rest has p = rho * g * depth. How L treats
 * AIR and SOLID neighbours is yours to derive; the tests say when it is not what they expect.
 * @level end
 *
 * ---- One substep (common/sim.c) ----------------------------------------------------------
 *   p2g -> copy grid velocity -> classify cells -> gravity -> divergence -> pressure solve
 *   (jacobi x N) -> gradient -> extrapolate into air -> g2p -> advect -> keep particles in.
 */
#ifndef FLIPKIT_STAGES_H
#define FLIPKIT_STAGES_H

#include "grid.h"
#include "particles.h"

/* advect — move every particle with its own velocity for one substep (explicit Euler):
 * @level guided,standard for advect
 *     pos_p += dt * vel_p
 * Velocities are not changed. Particles that end up in a solid or outside the domain are
 * pushed back afterwards by the driver (a given step), not here.
 * @level end
 * @level open for advect
 * in: ps->pos, ps->vel, dt. out: ps->pos. Particles that end up in a solid or outside the
 * domain are pushed back afterwards by the driver (a given step).
 * @level end
 * Not done: particles stay where they are (the fluid freezes in place). */
void advect(Particles *ps, float dt);

/* gravity — add dt * gravity to every face velocity that is not a solid face:
 * @level guided,standard for gravity
 *     u += dt * gravity.x,  v += dt * gravity.y,  w += dt * gravity.z
 * on all faces, FLUID or AIR, except faces with a SOLID cell on either side, which are left
 * exactly as they are. Uses g->cell (already classified).
 * @level end
 * @level open for gravity
 * in: g->vel, g->cell (classified), gravity_ms2 (m/s^2), dt. out: g->vel.
 * @level end
 * Not done: no gravity (the fluid floats). */
void gravity(MacGrid *g, Vec3 gravity_ms2, float dt);

/* p2g — particle to grid: every face velocity becomes the weighted average of the particle
 * velocities around it. For each component a and face f:
 *     weight[a][f] = sum_p w_fp
 *     vel[a][f]    = sum_p w_fp * vel_p[a] / weight[a][f]     (0 where weight[a][f] == 0)
 * @level guided for p2g
 * w_fp is the trilinear ("tent") weight of particle p on face f: with the particle's
 * Stencil s = grid_stencil(g, a, pos_p), the 8 faces base + (di,dj,dk), di,dj,dk in {0,1},
 * get stencil_weight(&s, di, dj, dk); every other face gets 0. Those 8 weights sum to 1.
 * @level end
 * @level standard for p2g
 * w_fp is the trilinear ("tent") weight of particle p on face f of component a, with f at
 * x_f on the MAC grid above (g->face[a].off: 0 along a, 1/2 across it, in cells):
 *     w_fp = phi((x_p - x_f)/dx) phi((y_p - y_f)/dx) phi((z_p - z_f)/dx),  phi(r) = max(0, 1 - |r|)
 * so a particle weighs on the 2 x 2 x 2 faces of component a around it, and those 8 weights
 * sum to 1. The faces of a span [0, g->face[a].n[d] - 1] face units along each axis d; a
 * particle outside that box weighs as the nearest point inside it (clamp the position, per
 * axis, into the box of faces; never index a face that does not exist).
 * @level end
 * @level guided,standard for p2g
 * No mass is accumulated: particles carry no mass, only velocity, and the result is an
 * average. Solid faces are treated like any other face here. Both vel[] and weight[] are
 * overwritten entirely. Particles are summed in index order (the result is deterministic).
 * @level end
 * @level open for p2g
 * w_fp is the trilinear ("tent") weight of particle p on face f. Particles carry no mass,
 * only velocity. in: ps->pos, ps->vel. out: all of g->vel[a] and g->weight[a], a = 0, 1, 2.
 * @level end
 * Not done: every velocity and weight is 0. */
void p2g(const Particles *ps, MacGrid *g);

/* g2p — grid to particle, blending PIC and FLIP:
 *     v_pic  = interpolate(vel, pos_p)
 *     v_flip = vel_p + interpolate(vel - vel_old, pos_p)
 *     vel_p  = alpha * v_pic + (1 - alpha) * v_flip         (alpha = 1 is PIC, 0 is FLIP)
 * @level guided for g2p
 * interpolate(f, x) for component a is sum over the 8 faces of stencil_weight * f, with the
 * same Stencil as p2g (grid_stencil(g, a, x)). vel_old is the grid velocity right after
 * p2g (before gravity and pressure), so v_flip adds only the change the grid made.
 * Positions are not changed.
 * @level end
 * @level standard for g2p
 * interpolate(f, x) for component a is the sum over the 2 x 2 x 2 faces of component a
 * around x of w * f, with exactly p2g's tent weights w (and p2g's rule for a position
 * outside the box of faces), so the two transfers agree. vel_old is the grid velocity right
 * after p2g (before gravity and pressure), so v_flip adds only the change the grid made.
 * Positions are not changed.
 * @level end
 * @level open for g2p
 * interpolate is trilinear on each component's own faces. in: ps->pos, ps->vel, g->vel,
 * vel_old (the grid velocity right after p2g), alpha. out: ps->vel.
 * @level end
 * Not done: particle velocities are not changed. */
void g2p(Particles *ps, const MacGrid *g, float *const vel_old[3], float alpha);

/* divergence — the net outflow of every FLUID cell, per second:
 * @level guided,standard for divergence
 *     div(i,j,k) = ( u(i+1,j,k) - u(i,j,k) + v(i,j+1,k) - v(i,j,k)
 *                  + w(i,j,k+1) - w(i,j,k) ) / dx
 * where a solid face contributes 0 instead of its stored value (the solid's velocity).
 * div = 0 in AIR and SOLID cells. Units 1/s. Writes all nx*ny*nz entries.
 * @level end
 * @level open for divergence
 * in: g->vel, g->cell. out: all nx*ny*nz entries of div, in 1/s.
 * @level end
 * Not done: div = 0 everywhere (the solve then sees no work to do). */
void divergence(const MacGrid *g, float *div);

/* laplacian — out = L p, the discrete Laplacian written at the top of this file: in FLUID
 * @level guided,standard for laplacian
 * cells (sum of FLUID neighbours' p - N p) / dx^2 with N the count of non-SOLID
 * neighbours; out = 0 in AIR and SOLID cells. AIR neighbours count in N but add p = 0.
 * @level end
 * @level open for laplacian
 * cells. in: p, g->cell. out: all nx*ny*nz entries of out.
 * @level end
 * The driver uses it to measure the residual |b - L p| of the Jacobi solve.
 * Not done: out = 0 everywhere. */
void laplacian(const MacGrid *g, const float *p, float *out);

/* jacobi — one weighted Jacobi sweep for L p = rhs (rhs = (rho/dt) div, made by the driver):
 * @level guided,standard for jacobi
 *     p_out = (1 - omega) * p + omega * (sum of FLUID neighbours' p - dx^2 * rhs) / N
 * in every FLUID cell with N >= 1 non-SOLID neighbours; p_out = 0 in every other cell.
 * @level end
 * @level open for jacobi
 * in: p, rhs, g->cell, omega (the weight of the new value). out: all nx*ny*nz of p_out.
 * @level end
 * Reads only p (never p_out), so the order of the cells does not matter. The driver calls it
 * up to pressure.iterations times, swapping p and p_out, until the residual is small.
 * Not done: p_out = p (the pressure never changes). */
void jacobi(const MacGrid *g, const float *p, const float *rhs, float omega, float *p_out);

/* gradient — subtract the pressure gradient (projection), with scale = dt / rho:
 * @level guided,standard for gradient
 *     u(i,j,k) -= scale * ( p(i,j,k) - p(i-1,j,k) ) / dx      (same for v along j, w along k)
 * on every face whose two cells are both non-SOLID and at least one is FLUID (p is 0 in AIR:
 * the driver zeroes p outside FLUID before the solve, so reading p there gives 0);
 * every solid face is set to 0. Faces between two AIR cells are yours to leave or change:
 * the driver's extrapolation rewrites every one a particle can reach, so no run depends on
 * them, and no test compares them.
 * @level end
 * @level open for gradient
 * in: g->vel, g->cell, p (0 outside FLUID), scale. out: g->vel. Which faces change, and
 * what a solid face holds afterwards, is yours to decide; the tests say when it is wrong.
 * @level end
 * Not done: the velocities are not changed (the fluid is compressible). */
void gradient(MacGrid *g, const float *p, float scale);

#endif
