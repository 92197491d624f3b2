/* constants.h — the numbers and layouts the C code and the OpenCL kernels share, each written once.
 * flipkit common/: plain C that OpenCL C reads too. The build embeds this file in reference/clx.c,
 * which puts it in front of the kernel sources, so the kernels and the C cannot disagree. */
#ifndef FLIPKIT_CONSTANTS_H
#define FLIPKIT_CONSTANTS_H

/* What a cell of the grid is this substep (grid.h). */
#define CELL_SOLID (-1)
#define CELL_AIR 0
#define CELL_FLUID 1

/* Nodes per axis of a brick of the liquid surface's fine grid (surface.h, kernels/surface.cl). */
#define SURFACE_BRICK 8

/* The OpenCL mesher's flags per cell (kernels/surface.cl): a SOLID cell within reach; a cell
 * not filled within kernel_cells; particles within kernel_cells. Cells beyond the grid are
 * SF_BEYOND, and the x pass reads rows padded with SF_PAD of them (reference/pipesurface.c). */
#define SF_NEAR_SOLID 1
#define SF_SHALLOW 2
#define SF_NEAR_PARTICLE 4
#define SF_BEYOND (SF_NEAR_SOLID | SF_SHALLOW)
#define SF_PAD 8

/* The OpenCL mesher's settings, one argument of its kernels: 4-byte members only, so C and
 * OpenCL C lay it out alike. */
typedef struct {
    float dx, h, r, R, far, clear;
    int refine, pad;
} SurfaceConsts;

/* The anisotropic kernels' constants (Yu & Turk 2013; common/writers/aniso.h says why each
 * has its value), here because the C path (aniso.c) and the device's (kernels/aniso.c) both
 * use them: neighbours within ANISO_REACH R, centres moved ANISO_LAMBDA of the way to their
 * mean, at most ANISO_KR : 1, fewer than ANISO_NEPS neighbours a sphere of ANISO_KN R, axes at
 * most ANISO_MAX_AXIS R. */
#define ANISO_REACH 1.5f
#define ANISO_LAMBDA 0.5f
#define ANISO_KR 4.0f
#define ANISO_NEPS 25
#define ANISO_KN 0.5f
#define ANISO_MAX_AXIS 2.0f

/* The device's anisotropic field, one kernel argument beside SurfaceConsts: how far a kernel
 * reaches from its particle (metres), the field deep in the liquid and its surface's value. */
typedef struct {
    float support, full, iso, pad;
} AnisoConsts;

#endif
