/* aniso.h — anisotropic kernels for the liquid's surface (Yu & Turk 2013, "Reconstructing surfaces
 * of particle-based fluids using anisotropic kernels"): per particle an ellipsoid fitted to its
 * neighbours by weighted PCA. flipkit common/writers/: surface.c's anisotropic field uses them. */
#ifndef FLIPKIT_ANISO_H
#define FLIPKIT_ANISO_H

#include <stddef.h>
#include <stdint.h>
#include "grid.h"
#include "particles.h"

/* One particle's kernel: W(|G (x - centre)|) weight, with W(q) = (1 - q^2)^3 for q < 1. */
typedef struct {
    Vec3 centre;        /* the particle smoothed toward its neighbours' weighted mean */
    float g[6];         /* G, symmetric: xx yy zz xy xz yz (1/metres) */
    float weight;       /* det(G) R^3: every kernel holds what an isotropic one of radius R does */
    float half[3];      /* the ellipsoid's half extent along x, y, z (metres) */
} AnisoKernel;

/* The constants, after Yu & Turk (section 4), on the kit's seeding (particles_per_cell per cell):
 * neighbours within 1.5 R weighted 1 - (d / 1.5 R)^3; centres moved half way to their
 * neighbours' weighted mean (lambda; the paper's 0.9 flattens more but shrinks the liquid by a
 * third of a cell on every face: -17% volume in the hydrostatic tank, 0.5 gives -5% with the
 * iso value below and still 4x flatter water than the isotropic surface); at most 4 : 1
 * between the longest and shortest axis
 * (k_r); fewer than 25 neighbours (N_eps) gives a sphere of radius R / 2 (k_n), so a lone
 * particle stays a drop; otherwise axes in proportion to the spread along them, scaled to
 * the volume of the sphere of radius R and at most 2 R long. */
/* ANISO_REACH 1.5, ANISO_LAMBDA 0.5, ANISO_KR 4, ANISO_NEPS 25, ANISO_KN 0.5,
 * ANISO_MAX_AXIS 2: in common/constants.h, which the OpenCL kernels read too. */

/* The farthest a kernel reaches from its particle, in units of R: the longest half axis and
 * how far a centre can move. */
#define ANISO_SUPPORT (ANISO_MAX_AXIS + ANISO_LAMBDA * ANISO_REACH)

/* Kernels of radius scale R for the particles whose want[] is non-zero (want NULL: all), into
 * out[count]; the others are left alone. Neighbours are found through g's cells (its size and
 * dx only). Deterministic. Returns 0, or -1 when out of memory. */
int aniso_kernels(const Particles *ps, const MacGrid *g, float R, const uint8_t *want,
                  AnisoKernel *out);

/* The eigenvalues (descending) and unit eigenvectors (columns of v) of the symmetric 3x3
 * matrix a (xx yy zz xy xz yz), by cyclic Jacobi rotations. */
void aniso_eigen(const double a[6], double value[3], double v[3][3]);

#endif
