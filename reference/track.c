/* track.c — the reference track: the answer key's stages and its pressure solvers.
 * flipkit reference/: linked into the kit's flipsim and tests, never into the student
 * tarball. Adding a solver here makes it selectable as pressure.solver in a scene. */
#include "reference.h"

static const NamedSolver reference_solvers[] = {
    { "pcg", ref_solve_pcg },
    { "mgpcg", ref_solve_mgpcg },
    { "multigrid", ref_solve_multigrid },
    { "gauss_seidel", ref_solve_gauss_seidel },
    { "sor", ref_solve_sor },
    { NULL, NULL },
};

const Track reference_track = {
    .name = "reference",
    .advect = ref_advect,
    .gravity = ref_gravity,
    .p2g = ref_p2g,
    .g2p = ref_g2p,
    .divergence = ref_divergence,
    .laplacian = ref_laplacian,
    .jacobi = ref_jacobi,
    .gradient = ref_gradient,
    .solvers = reference_solvers,
};
