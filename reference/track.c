/* track.c — the reference track: the answer key's stages and its pressure solvers.
 * flipkit reference/: linked into the kit's flipsim and tests, never into the student
 * tarball. Adding a solver here makes it selectable as pressure.solver in a scene. */
#include "reference.h"

static const NamedSolver reference_solvers[] = {
    { "pcg", ref_solve_pcg, "CG with a MIC(0) preconditioner, in C" },
    { "mgpcg", ref_solve_mgpcg, "CG preconditioned by one multigrid V-cycle, in C" },
    { "multigrid", ref_solve_multigrid, "multigrid V-cycles (red-black Gauss-Seidel smoothing), in C" },
    { "gauss_seidel", ref_solve_gauss_seidel, "red-black Gauss-Seidel, in C" },
    { "sor", ref_solve_sor, "red-black SOR (pressure.sor_omega), in C" },
    { NULL, NULL, NULL },
};

/* One slot per line of stagelist.h: a stage added there and not here fails to compile. */
#define REF_SLOT(number, stage) .stage = ref_##stage,
const Track reference_track = {
    .name = "reference",
    STAGE_LIST(REF_SLOT)
    .solvers = reference_solvers,
    .advect_grid = ref_advect_grid,
};
#undef REF_SLOT
