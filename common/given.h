/* given.h — the steps of a substep that students are given: seeding, solids, classifying
 * cells, extrapolating velocity into air, keeping particles in, and the Gauss-Seidel solve.
 * flipkit common/: read them to see how the driver uses your stages; you do not edit them. */
#ifndef FLIPKIT_GIVEN_H
#define FLIPKIT_GIVEN_H

#include <stdint.h>
#include "particles.h"
#include "scene.h"
#include "track.h"

/* 1 when x lies inside the shape (boundary included). */
int shape_contains(const Shape *s, Vec3 x);

/* solid[c] = 1 for the outer layer of cells and every cell whose centre is inside a solid
 * shape, 0 elsewhere. */
void given_mark_solids(int8_t *solid, const MacGrid *g, const Shape *shapes, int n);

/* Seeds particles_per_cell particles per cell (an m x m x m lattice, each point jittered by
 * up to a quarter of the lattice spacing) into every point of the shapes that lies in a cell
 * that is not solid and holds no particle yet. The RNG is seeded from (seed, salt), so the
 * same call gives the same particles. Velocity is the shape's. Returns particles added, or
 * -1 when out of memory. */
long given_seed_fluid(Particles *ps, const MacGrid *g, const int8_t *solid,
                      const Shape *shapes, int n, int particles_per_cell, uint32_t seed,
                      uint32_t salt);

/* Cell types for this substep: SOLID from the mask, FLUID where a particle is, else AIR.
 * Pressure in cells that are not FLUID is set to 0 (the Dirichlet value). */
void given_classify(MacGrid *g, const int8_t *solid, const Particles *ps);

/* After projection only faces next to FLUID (and not solid) hold meaningful velocities.
 * This copies them outward, layer by layer, into faces between AIR cells and into faces
 * inside solids (each new face the average of its known neighbours of the same component);
 * faces still unknown after `layers` layers are set to 0. Faces on a wall (SOLID on one side
 * only) keep 0, the wall's normal velocity; the ones inside a solid make the walls free-slip
 * for g2p, which interpolates across them within half a cell of the wall. scratch: two bytes per face of the
 * largest component, supplied by the caller so the hot path does not allocate. */
void given_extrapolate(MacGrid *g, int layers, uint8_t *scratch);

/* Moves every particle that left the domain or entered a SOLID cell to the nearest point
 * of the nearest non-solid cell, and removes the velocity component that pointed in. */
void given_keep_inside(Particles *ps, const MacGrid *g);

/* The given Gauss-Seidel / SOR solver for L p = rhs (see stages.h), cells in x-fastest
 * order, updated in place: omega = 1 is Gauss-Seidel, 1 < omega < 2 over-relaxes.
 * Stops at settings->iterations or when the relative residual <= settings->tolerance. */
SolveResult given_solve_sor(const MacGrid *g, const float *rhs, float *p,
                            const PressureSettings *settings, float omega,
                            SolveHistory *history);

#endif
