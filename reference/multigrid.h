/* multigrid.h — a geometric multigrid V-cycle for A x = b, A = -dx^2 L on the FLUID cells.
 * flipkit reference/: the hierarchy is rebuilt for each solve (the cell types change every
 * substep); used by the "multigrid" solver and as the preconditioner of "mgpcg". */
#ifndef FLIPKIT_MULTIGRID_H
#define FLIPKIT_MULTIGRID_H

#include "reference.h"

/* The V-cycle's settings, for the C solver (multigrid.c) and the device's (pipesolve.c):
 * levels stop at MG_MIN_CELLS cells along an axis or MG_MAX_LEVELS levels; MG_SMOOTH sweeps
 * down and up; MG_COARSE_SWEEPS on the coarsest level. */
enum { MG_MIN_CELLS = 4, MG_MAX_LEVELS = 16, MG_SMOOTH = 4, MG_COARSE_SWEEPS = 24 };

/* N, the number of non-SOLID neighbours of cell (i,j,k) in an nx*ny*nz array of cell types
 * (x fastest; outside it counts as SOLID): the diagonal of the pressure matrix, where AIR counts
 * (p = 0 there) and SOLID drops out (stages.h). Written once for the reference's solvers, on the
 * grid's cells (pcg.c) and on multigrid's coarser grids alike. The given solve in common/ keeps
 * its own count: what common/ holds, a stage can call, and this count is laplacian's and
 * jacobi's work (grader/README.md, "What a stage can call"; grader/GUIDE.md). */
static inline int mg_nonsolid_neighbours(const int8_t *type, int nx, int ny, int nz, int i, int j,
                                         int k)
{
    static const int nb[6][3] = { { -1, 0, 0 }, { 1, 0, 0 }, { 0, -1, 0 },
                                  { 0, 1, 0 },  { 0, 0, -1 }, { 0, 0, 1 } };
    int count = 0;
    for (int q = 0; q < 6; q++) {
        int a = i + nb[q][0], b = j + nb[q][1], c = k + nb[q][2];
        if (a < 0 || b < 0 || c < 0 || a >= nx || b >= ny || c >= nz)
            continue;
        count += type[(size_t)a + (size_t)nx * ((size_t)b + (size_t)ny * (size_t)c)] != CELL_SOLID;
    }
    return count;
}

typedef struct Multigrid Multigrid;

/* Builds the levels from the grid's cell types; NULL when out of memory. */
Multigrid *mg_create(const MacGrid *g);
void mg_free(Multigrid *mg);
int mg_levels(const Multigrid *mg);
/* z = one symmetric V-cycle applied to r (an approximation of A^-1 r), 0 outside FLUID. */
void mg_vcycle(Multigrid *mg, const float *r, float *z);
/* One red-black SOR sweep of A x = b on the finest level (omega = 1: Gauss-Seidel). */
void mg_sor_sweep(const Multigrid *mg, const float *b, float *x, float omega);
/* r = b - A x on the finest level, in double; returns |r|. */
double mg_residual_double(const Multigrid *mg, const float *b, const double *x, double *r);
/* out = A x on the finest level, 0 outside FLUID. */
void mg_apply(const Multigrid *mg, const float *x, float *out);

#endif
