/* pipesolve.c — the pressure solvers of the OpenCL pipeline, on the device's own buffers.
 * flipkit reference/: the same methods as the C reference (multigrid.c, pcg.c, relax.c) except
 * "pcg", whose MIC(0) is sequential: on the device CG is preconditioned with one symmetric
 * red-black Gauss-Seidel sweep instead, which parallelises. Only norms are read back. */
#include "pipesolve.h"

#include <math.h>
#include <string.h>

/* CG restarts from the true residual at most MAX_RESTARTS times (as pcg.c does); relax and
 * jacobi measure the residual every 10 sweeps, as their C versions do (a residual costs about
 * as much as a sweep). */
enum { MAX_RESTARTS = 4, RELAX_CHECK_EVERY = 10, JACOBI_CHECK_EVERY = 10 };
/* jacobi_solve's group (work-items) and the largest grid it takes (cells). On PoCL here its
 * sweeps down the FLUID list beat a launch a sweep on both cores at 16^3 (first_drop's pressure
 * 7.4 -> 2.5 ms a substep), 48x24x16 (125 -> 40) and 32^3 (170 -> 90), with a wait every 10
 * sweeps; larger grids untried. The whole solve in the one launch saves those waits. */
enum { JACOBI_GROUP = 256, JACOBI_GROUP_CELLS = 32 * 32 * 32, OWN_VECTORS_CELLS = 32 * 32 * 32 };
/* solvers.cl's CG scalars: sigma (by turns with CG_SIGMA_ODD), alpha, broke */
enum { CG_SIGMA, CG_STEP, CG_BROKE, CG_SIGMA_ODD, CG_SCALARS };

void pipe_solver_release(PipeSolver *sv)
{
    cl_mem *bufs[] = { &sv->iterate, &sv->residual, &sv->direction, &sv->a_direction, &sv->b,
                       &sv->cg_scalars, &sv->partial_st };
    for (size_t q = 0; q < sizeof bufs / sizeof *bufs; q++)
        pipe_release(bufs[q]);
    pipe_release_levels(&sv->mg);
}

/* The vectors p2g's scratch can hold (in its 24 bytes a cell and more, so always, as the
 * grid's scratch is made for the same grid): iterate and residual (double), direction and
 * a_direction (float), one after another; each is written before it is read in every solve,
 * over the FLUID box or the whole grid (apply_A reads FLUID neighbours only). A grid of at most
 * OWN_VECTORS_CELLS cells gives them buffers of their own instead (under a megabyte): the
 * scratch's zeroing after the solve's last wait is a round trip to the host, which costs a
 * small grid's solve more than its work (a tank at rest starts its solves converged). */
static void pipe_solver_vectors(PipeSolver *sv, size_t n)
{
    cl_mem *vec[] = { &sv->iterate, &sv->residual, &sv->direction, &sv->a_direction };
    const size_t bytes[] = { n * sizeof(double), n * sizeof(double), n * sizeof(float),
                             n * sizeof(float) };
    const PipeGrid *gr = &sv->state->grid;
    size_t at = 0;
    for (size_t q = 0; q < sizeof vec / sizeof *vec; q++)
        at += pipe_align(sv->dev, bytes[q]);
    sv->borrowed = gr->scratch && at <= gr->scratch_bytes && n > OWN_VECTORS_CELLS ? at : 0;
    at = 0;
    for (size_t q = 0; q < sizeof vec / sizeof *vec; q++) {
        *vec[q] = sv->borrowed ? pipe_sub_buffer(sv->dev, gr->scratch, at, bytes[q])
                               : pipe_buffer(sv->dev, bytes[q]);
        at += pipe_align(sv->dev, bytes[q]);
    }
}

int pipe_solver_fit(PipeSolver *sv, const MacGrid *g)
{
    size_t n = grid_cells(g);
    pipe_solver_release(sv);
    pipe_solver_vectors(sv, n);
    sv->b = pipe_buffer(sv->dev, n * sizeof(float));
    sv->cg_scalars = pipe_buffer(sv->dev, CG_SCALARS * sizeof(double));
    sv->partial_st = pipe_buffer(sv->dev, PIPE_MAX_PARTIALS * sizeof(double));
    return pipe_alloc_levels(&sv->mg, g);
}

/* ---- sums and vectors over level 0's FLUID box, a z-slab per work-item (pipe_fluid_box) --- */

typedef struct { cl_int4 n, lo, hi; int slabs; } PipeBox;

static PipeBox pipe_level0_box(PipeSolver *sv)
{
    PipeLevel *l = &sv->mg.level[0];
    PipeBox b = { pipe_dims(l->n), pipe_dims(l->lo), pipe_dims(l->hi), l->hi[2] - l->lo[2] };
    return b;
}

/* Whether CG's vector steps run a work-item per z-slab of the box, fused (apply_A_dot,
 * residual_norm_d, cg_direction: fewer launches, which a small grid's solve is mostly made of),
 * or a work-item per cell in more launches: on a box of few slabs of many cells (a flat grid,
 * martin_moyce's 4 to 6), where a work-item per slab leaves the cores idle and no lanes run. */
enum { PIPE_SLAB_MIN = 16 };
static int pipe_by_slab(PipeSolver *sv)
{
    return !sv->mg.level[0].infos || pipe_level0_box(sv).slabs >= PIPE_SLAB_MIN;
}

/* hx, nh, pad of level 0 if it is swept split, else 0: where CG's kernels put its b */
static cl_int4 pipe_level0_split(PipeSolver *sv)
{
    PipeLevel *l = &sv->mg.level[0];
    cl_int4 s = { { l->infos ? l->half_nx : 0, l->per_colour, l->end_pad, 0 } };
    return s;
}

/* The correction z, level 0's x as the V-cycle and the sweeps leave it: split when level 0 is
 * swept split (read with pipe_level0_split's numbers), where a merge into the grid's layout cost
 * a pass per V-cycle. */
static cl_mem pipe_correction(PipeSolver *sv)
{
    PipeLevel *l = &sv->mg.level[0];
    return l->infos ? l->xs : l->x;
}

/* xd += z over the box (z is level 0's x, pipe_correction, written over the box only). */
static void pipe_box_add_correction(PipeSolver *sv)
{
    PipeBox x = pipe_level0_box(sv);
    cl_int4 split = pipe_level0_split(sv);
    cl_mem z = pipe_correction(sv);
    LAUNCH_BOX(&sv->mg, 0, K_ADD_CORRECTION, ARG(sv->iterate), ARG(z), ARG(x.n), ARG(x.hi),
               ARG(split));
}

/* rd = b - A xd over the box, and level 0's b = (float) rd there in the layout its sweeps read:
 * split when level 0 is swept split (its V-cycle leg and pipe_sweeps_from_zero then take it as
 * it is); every solver's sweeps or CG run start from the true residual. And p = (float) xd
 * there: every solver but jacobi stops on a true residual, so p is its answer then (outside the
 * box x is 0, and so is p: pressure_rhs zeroes it outside FLUID). Returns |rd|. */
/* The launches of pipe_true_residual, its partial sums into partial (one a slab of the box,
 * pipe_sum_parts adds them); returns their number. */
/* p checked for values that are not finite, as the pressure phase's check (the pipeline reads
 * what the checks found at the frame's end). Enqueued wherever the solve has just written p,
 * before the wait that tells whether that p is final: a launch after a solve's last wait costs
 * a round trip to the host, more than a small grid's whole solve. A p checked before it was
 * final names the same phase: a NaN in an iterate stays in it, and the solve ends non-finite. */
static void pipe_check_p(PipeSolver *sv)
{
    const int *n = sv->state->grid.n;
    pipe_check_finite(sv->state, PHASE_PRESSURE, SIM_AT_CELL, sv->state->grid.p,
                      (size_t)n[0] * (size_t)n[1] * (size_t)n[2]);
}

static int pipe_true_residual_parts(PipeSolver *sv, cl_mem partial)
{
    PipeLevel *l = &sv->mg.level[0];
    PipeBox x = pipe_level0_box(sv);
    cl_int4 split = pipe_level0_split(sv);
    cl_mem b0 = l->infos ? l->bs : l->b;
    if (pipe_by_slab(sv)) {
        LAUNCH(sv->dev, K_RESIDUAL_NORM_D, 1, 1, (size_t)x.slabs, ARG(partial),
               ARG(sv->residual), ARG(b0), ARG(sv->state->grid.p), ARG(sv->iterate), ARG(sv->b),
               ARG(sv->state->grid.cell), ARG(l->count), ARG(x.n), ARG(x.lo), ARG(x.hi),
               ARG(split));
    } else {
        LAUNCH_BOX(&sv->mg, 0, K_RESIDUAL_RF, ARG(sv->residual), ARG(b0),
                   ARG(sv->state->grid.p), ARG(sv->iterate),
                   ARG(sv->b), ARG(sv->state->grid.cell), ARG(l->count), ARG(x.n), ARG(split));
        LAUNCH(sv->dev, K_NORM2_D, 1, 1, (size_t)x.slabs, ARG(partial),
               ARG(sv->residual), ARG(x.n), ARG(x.lo), ARG(x.hi));
    }
    pipe_check_p(sv); /* both kernels wrote p from the iterate */
    return x.slabs;
}

static double pipe_true_residual(PipeSolver *sv)
{
    int slabs = pipe_true_residual_parts(sv, sv->dev->partial_d);
    return sqrt(pipe_sum_parts(sv->dev, slabs));
}

/* ---- jacobi: the jacobi stage repeated, as the driver does on the CPU ---------------------- */

static double pipe_jacobi_residual(PipeSolver *sv, const MacGrid *g, cl_mem p, double bnorm)
{
    cl_int cells = (cl_int)grid_cells(g), chunk = pipe_chunk(grid_cells(g));
    pipe_laplacian(sv->state, g, p, pipe_grid_lap(sv->state));
    LAUNCH(sv->dev, K_RESIDUAL_L, PIPE_PARTS, 1, 1, ARG(sv->dev->partial_d),
           ARG(sv->state->grid.rhs), ARG(sv->state->grid.lap), ARG(sv->state->grid.cell),
           ARG(cells), ARG(chunk));
    return sqrt(pipe_sum(sv->dev)) / bnorm;
}

/* The work-group jacobi_solve runs in on g: a whole number of x rows, about JACOBI_GROUP
 * work-items; 0 (a launch a sweep, on every core, and a wait a check) where the grid has more
 * than JACOBI_GROUP_CELLS cells or the device's groups are too small for a row.
 * $FLIPKIT_CL_JACOBI_GROUP_CELLS overrides the limit, for tuning on another device (0: never;
 * test_pipeline uses both ends to compare the two paths' bits). */
static size_t pipe_jacobi_group(PipeSolver *sv, const MacGrid *g)
{
    if (grid_cells(g) > pipe_env_limit("FLIPKIT_CL_JACOBI_GROUP_CELLS", JACOBI_GROUP_CELLS))
        return 0;
    size_t nx = (size_t)g->nx, rows = JACOBI_GROUP > nx ? JACOBI_GROUP / nx : 1;
    size_t most = pipe_group_limit(sv->dev, K_JACOBI_SOLVE);
    while (rows > 1 && rows * nx > most)
        rows--;
    return rows * nx <= most ? rows * nx : 0;
}

/* On a small grid: the whole solve in one launch, and one wait to read what it did. */
static SolveResult pipe_jacobi_in_group(PipeSolver *sv, const MacGrid *g,
                                        const PressureSettings *set, size_t group)
{
    double outcome[3] = { 0.0, NAN, 0.0 };
    pipe_jacobi_solve(sv->state, g, sv->direction, set, JACOBI_CHECK_EVERY, group, sv->iterate,
                      sv->partial_st);
    pipe_check_p(sv);
    pipe_read(sv->dev, sv->partial_st, outcome, sizeof outcome);
    if (sv->dev->failure != CL_SUCCESS)
        return (SolveResult){ .residual = NAN };
    return (SolveResult){ .iterations = (int)outcome[0], .residual = outcome[1],
                          .converged = outcome[2] != 0.0 };
}

/* bnorm: |rhs|. Checks the residual every JACOBI_CHECK_EVERY sweeps and after the last, as
 * the driver does on the CPU, a launch a sweep (grids too large for pipe_jacobi_in_group). */
static SolveResult pipe_jacobi(PipeSolver *sv, const MacGrid *g, const PressureSettings *set,
                               double bnorm)
{
    size_t cells = grid_cells(g);
    cl_mem p = sv->state->grid.p, next = sv->direction;
    SolveResult res = { .residual = pipe_jacobi_residual(sv, g, p, bnorm) };
    res.converged = res.residual <= set->tolerance;
    while (!res.converged && res.iterations < set->iterations && isfinite(res.residual)) {
        pipe_jacobi_sweep(sv->state, g, p, next, set->jacobi_omega);
        cl_mem tmp = p;
        p = next;
        next = tmp;
        res.iterations++;
        if (res.iterations % JACOBI_CHECK_EVERY == 0 || res.iterations == set->iterations) {
            res.residual = pipe_jacobi_residual(sv, g, p, bnorm);
            res.converged = res.residual <= set->tolerance;
        }
    }
    if (p != sv->state->grid.p)
        pipe_copy(sv->dev, p, sv->state->grid.p, cells * sizeof(float), "copying p");
    pipe_check_p(sv);
    return res;
}

/* ---- red-black Gauss-Seidel and SOR, in correction form as relax.c -------------------- */

/* bnorm: |b| (pressure_rhs made b and the iterate, as for every solver below) */
static SolveResult pipe_relax(PipeSolver *sv, const PressureSettings *set,
                              float omega, double bnorm)
{
    SolveResult res = { .residual = INFINITY };
    for (;;) {
        res.residual = pipe_true_residual(sv) / bnorm;
        if (res.residual <= set->tolerance || res.iterations >= set->iterations ||
            !isfinite(res.residual))
            break;
        int sweeps = set->iterations - res.iterations;
        sweeps = sweeps < RELAX_CHECK_EVERY ? sweeps : RELAX_CHECK_EVERY;
        pipe_sweeps_from_zero(&sv->mg, sweeps, 0, omega);
        pipe_box_add_correction(sv);
        res.iterations += sweeps;
    }
    res.converged = res.residual <= set->tolerance;
    return res;
}

/* ---- multigrid: V-cycles on the residual ------------------------------------------------- */

/* The coarse levels of this solve, before its first V-cycle. */
static void pipe_prepare_coarse(PipeSolver *sv)
{
    if (sv->coarse_levels > 1)
        pipe_prepare_levels(&sv->mg, 1, sv->coarse_levels, sv->coarse_levels);
    sv->coarse_levels = 0;
}

static SolveResult pipe_multigrid(PipeSolver *sv, const PressureSettings *set,
                                  double bnorm)
{
    SolveResult res = { .residual = INFINITY };
    for (;;) {
        res.residual = pipe_true_residual(sv) / bnorm;
        if (res.residual <= set->tolerance || res.iterations >= set->iterations ||
            !isfinite(res.residual))
            break;
        pipe_prepare_coarse(sv);
        pipe_vcycle_level(&sv->mg, 0, sv->mg.levels, MG_COARSE_SWEEPS);
        pipe_box_add_correction(sv);
        res.iterations++;
    }
    res.converged = res.residual <= set->tolerance;
    return res;
}

/* ---- conjugate gradients, preconditioned by a V-cycle (mgpcg) or one level of it (pcg) ---- */

typedef struct { int levels, coarse_sweeps; } Precon;

/* z (level 0's x, pipe_correction) = M^-1 r, r in float already in level 0's b, split if level 0 is
 * swept split (cg_update and pipe_true_residual leave it there). */
static void pipe_precondition(PipeSolver *sv, Precon m)
{
    pipe_vcycle_level(&sv->mg, 0, m.levels, m.coarse_sweeps);
}

/* The scalar slot of sigma in iteration `it` of a run (cg_direction writes the next one's). */
static cl_int pipe_sigma_slot(int it)
{
    return it & 1 ? CG_SIGMA_ODD : CG_SIGMA;
}

/* z . r per slab into the partials (cg_beta or cg_direction adds them) */
static void pipe_dot_zr(PipeSolver *sv)
{
    PipeBox x = pipe_level0_box(sv);
    cl_int4 split = pipe_level0_split(sv);
    cl_mem z = pipe_correction(sv);
    LAUNCH(sv->dev, K_DOT_ZD, 1, 1, (size_t)x.slabs, ARG(sv->dev->partial_d), ARG(z),
           ARG(sv->residual), ARG(x.n), ARG(x.lo), ARG(x.hi), ARG(split));
}

/* sigma = z . r on the device into scal[next], and beta = sigma / scal[slot] unless slot < 0 */
static void pipe_cg_beta(PipeSolver *sv, cl_int slot, cl_int next)
{
    cl_int slabs = pipe_level0_box(sv).slabs;
    pipe_dot_zr(sv);
    LAUNCH(sv->dev, K_CG_BETA, 1, 1, 1, ARG(sv->cg_scalars), ARG(sv->dev->partial_d), ARG(slabs),
           ARG(slot), ARG(next));
}

/* sigma = z . r on the device into the first iteration's slot */
static void pipe_cg_sigma(PipeSolver *sv)
{
    pipe_cg_beta(sv, -1, pipe_sigma_slot(0));
}

/* s = z + beta s, beta from z . r and the last sigma, on the device; iteration it + 1's sigma
 * kept */
static void pipe_cg_direction(PipeSolver *sv, int it)
{
    PipeBox box = pipe_level0_box(sv);
    cl_int slabs = box.slabs, slot = pipe_sigma_slot(it), next = pipe_sigma_slot(it + 1);
    cl_int4 split = pipe_level0_split(sv);
    cl_mem z = pipe_correction(sv);
    if (!pipe_by_slab(sv)) {
        pipe_cg_beta(sv, slot, next);
        LAUNCH_BOX(&sv->mg, 0, K_CG_DIRECTION_BOX, ARG(sv->direction), ARG(z),
                   ARG(sv->cg_scalars), ARG(box.n), ARG(box.hi), ARG(split));
        return;
    }
    pipe_dot_zr(sv);
    LAUNCH(sv->dev, K_CG_DIRECTION, 1, 1, (size_t)box.slabs, ARG(sv->direction), ARG(z),
           ARG(sv->cg_scalars), ARG(sv->dev->partial_d), ARG(slabs), ARG(slot), ARG(next),
           ARG(box.n), ARG(box.lo), ARG(box.hi), ARG(split));
}

/* Step it of a run along s: t = A s with s . t, alpha on the device, x += alpha s and
 * r -= alpha t over the box: two launches. Returns |r|^2, read with CG's scalars in the step's
 * one wait; *broke when s . A s <= 0 (nothing left to reduce in this direction). A device
 * failure stays recorded in the device. */
static double pipe_cg_step(PipeSolver *sv, int it, int *broke)
{
    PipeBox box = pipe_level0_box(sv);
    cl_int slabs = box.slabs, slot = pipe_sigma_slot(it);
    cl_int4 split = pipe_level0_split(sv);
    cl_mem b0 = sv->mg.level[0].infos ? sv->mg.level[0].bs : sv->mg.level[0].b;
    if (pipe_by_slab(sv)) {
        LAUNCH(sv->dev, K_APPLY_A_DOT, 1, 1, (size_t)box.slabs, ARG(sv->partial_st),
               ARG(sv->a_direction), ARG(sv->direction), ARG(sv->state->grid.cell),
               ARG(sv->mg.level[0].count), ARG(box.n), ARG(box.lo), ARG(box.hi));
    } else {
        LAUNCH_BOX(&sv->mg, 0, K_APPLY_A, ARG(sv->a_direction), ARG(sv->direction),
                   ARG(sv->state->grid.cell), ARG(sv->mg.level[0].count), ARG(box.n));
        LAUNCH(sv->dev, K_DOT_FF, 1, 1, (size_t)box.slabs, ARG(sv->partial_st),
               ARG(sv->direction), ARG(sv->a_direction), ARG(box.n), ARG(box.lo), ARG(box.hi));
    }
    LAUNCH(sv->dev, K_CG_UPDATE, 1, 1, (size_t)box.slabs, ARG(sv->iterate), ARG(sv->residual),
           ARG(b0), ARG(sv->dev->partial_d), ARG(sv->direction), ARG(sv->a_direction),
           ARG(sv->cg_scalars), ARG(sv->partial_st), ARG(slabs), ARG(slot), ARG(box.n),
           ARG(box.lo), ARG(box.hi), ARG(split));
    double scal[CG_SCALARS] = { 0.0 };
    pipe_ok(sv->dev,
            clEnqueueReadBuffer(sv->dev->cl.queue, sv->cg_scalars, CL_FALSE, 0, sizeof scal, scal,
                                0, NULL, NULL),
            "reading CG's scalars");
    double rr = pipe_sum_parts(sv->dev, box.slabs); /* waits for both reads */
    if (sv->dev->failure != CL_SUCCESS)
        clFinish(sv->dev->cl.queue); /* nothing may still be writing into scal */
    *broke = scal[2] != 0.0;
    return rr;
}

/* CG with alpha and beta computed on the device: the one wait per iteration is for |r|, which
 * decides whether to go on (and says whether s . A s broke down). */
static void pipe_cg_run(PipeSolver *sv, const MacGrid *g, double bnorm, const PressureSettings *set,
                        Precon m, SolveResult *res)
{
    cl_mem z = pipe_correction(sv);
    cl_int4 split = pipe_level0_split(sv);
    pipe_precondition(sv, m);
    /* s = z: out of the split layout over the box (nothing reads s outside it), else a copy */
    if (split.s[0])
        pipe_merge_out(&sv->mg, 0, sv->direction);
    else
        pipe_copy(sv->dev, z, sv->direction, grid_cells(g) * sizeof(float),
                  "copying the direction");
    pipe_cg_sigma(sv);
    for (int it = 0; res->iterations < set->iterations && sv->dev->failure == CL_SUCCESS; it++) {
        int broke = 0;
        double rr = pipe_cg_step(sv, it, &broke);
        if (sv->dev->failure != CL_SUCCESS || broke)
            return;
        res->iterations++;
        res->residual = sqrt(rr) / bnorm;
        if (res->residual <= set->tolerance)
            return;
        pipe_precondition(sv, m);
        pipe_cg_direction(sv, it);
    }
}

/* The recurrence residual drifts from the true one, so convergence is confirmed on b - A x
 * and CG restarts from it when short (as pcg.c does). */
/* first: the relative true residual CG starts from (pipe_solve_with measured it) */
static SolveResult pipe_cg(PipeSolver *sv, const MacGrid *g, const PressureSettings *set, Precon m,
                           double bnorm, double first)
{
    SolveResult res = { .residual = first };
    for (int restart = 0; restart <= MAX_RESTARTS; restart++) {
        if (res.residual <= set->tolerance || res.iterations >= set->iterations ||
            sv->dev->failure != CL_SUCCESS)
            break;
        pipe_prepare_coarse(sv);
        pipe_cg_run(sv, g, bnorm, set, m, &res);
        res.residual = pipe_true_residual(sv) / bnorm;
    }
    res.converged = res.residual <= set->tolerance;
    return res;
}

/* ---- choosing ---------------------------------------------------------------------------- */

const char *pipe_solver_variant(const char *name)
{
    if (strcmp(name, "jacobi") == 0)
        return "the jacobi stage's kernel, repeated, on OpenCL";
    if (strcmp(name, "gauss_seidel") == 0)
        return "red-black Gauss-Seidel, on OpenCL";
    if (strcmp(name, "sor") == 0)
        return "red-black SOR (pressure.sor_omega), on OpenCL";
    if (strcmp(name, "multigrid") == 0)
        return "multigrid V-cycles (red-black Gauss-Seidel smoothing), on OpenCL";
    if (strcmp(name, "mgpcg") == 0)
        return "CG preconditioned by one multigrid V-cycle, on OpenCL";
    /* pipe_cg with a one-level "V-cycle": one red-black sweep down, one black-red sweep up */
    return "CG with a symmetric red-black Gauss-Seidel preconditioner (not MIC(0)), on OpenCL";
}

/* The levels solver `name` runs on; jacobi, which sweeps the whole grid, none (0). */
static int pipe_solver_levels(const PipeSolver *sv, const char *name)
{
    if (strcmp(name, "jacobi") == 0)
        return 0;
    return strcmp(name, "multigrid") == 0 || strcmp(name, "mgpcg") == 0 ? sv->mg.levels : 1;
}

/* Level 0's box around the FLUID cells (pipe_fluid_box) for the cell types classify just
 * wrote, found before the substep's divergence so that divergence and gradient launch on it
 * too; one wait. Not for jacobi, which sweeps the whole grid: the box stays stale and every
 * launch stays whole. */
void pipe_find_box(PipeSolver *sv, const char *name)
{
    int nlev = pipe_solver_levels(sv, name);
    cl_int bounds[PIPE_PARTS * 6] = { 0 };
    if (nlev == 0)
        return;
    pipe_fluid_bounds(&sv->mg);
    pipe_read(sv->dev, sv->mg.bounds, bounds, sizeof bounds);
    if (sv->dev->failure == CL_SUCCESS)
        pipe_fluid_box(&sv->mg, nlev, bounds);
}

/* rhs = scale div in FLUID cells, the system's b = -dx^2 rhs, the iterate from p and their
 * norms' partial sums, in one pass. */
static void pipe_pressure_rhs(PipeSolver *sv, const MacGrid *g, float scale)
{
    const PipeGrid *gr = &sv->state->grid;
    size_t cells = grid_cells(g);
    cl_int n = (cl_int)cells, chunk = pipe_chunk(cells), nparts = PIPE_PARTS;
    float dx2 = g->dx * g->dx;
    LAUNCH(sv->dev, K_PRESSURE_RHS, PIPE_PARTS, 1, 1, ARG(gr->rhs), ARG(sv->b), ARG(sv->iterate),
           ARG(gr->p), ARG(sv->dev->partial_d), ARG(gr->div), ARG(gr->cell), ARG(scale), ARG(dx2),
           ARG(n), ARG(chunk), ARG(nparts));
}

/* After pressure_rhs: one wait reads |rhs| and |b| (and one before finds the box, unless
 * pipe_find_box found it after classify), and for CG the true residual it starts from too,
 * launched before anyone knows whether it is needed: a wait costs more than the launches on a
 * small grid. b = 0 means p = 0 solves it, as on the host. */
static SolveResult pipe_solve_with(PipeSolver *sv, const MacGrid *g, const PressureSettings *set,
                                   const char *name, float scale)
{
    int nlev = pipe_solver_levels(sv, name), jacobi = nlev == 0, slabs = 0;
    int cg = strcmp(name, "mgpcg") == 0 || strcmp(name, "pcg") == 0;
    double part[2 * PIPE_PARTS], first[PIPE_MAX_PARTIALS], rhs2 = 0.0, b2 = 0.0, r2 = 0.0;
    pipe_pressure_rhs(sv, g, scale);
    size_t group = jacobi ? pipe_jacobi_group(sv, g) : 0;
    if (group)
        return pipe_jacobi_in_group(sv, g, set, group);
    if (!jacobi) {
        /* the coarse levels wait for the first V-cycle (pipe_prepare_coarse): a solve that
         * starts converged, as a tank at rest does, needs level 0's counts only */
        pipe_prepare_levels(&sv->mg, 0, 1, nlev);
        sv->coarse_levels = nlev;
        if (!sv->state->shortcut.box_fresh)
            pipe_find_box(sv, name);
    }
    if (cg)
        slabs = pipe_true_residual_parts(sv, sv->partial_st);
    pipe_ok(sv->dev, clEnqueueReadBuffer(sv->dev->cl.queue, sv->dev->partial_d, !cg, 0,
                                         sizeof part, part, 0, NULL, NULL), "reading a sum");
    if (cg && slabs <= PIPE_MAX_PARTIALS) /* in order: this read ends after the one above */
        pipe_ok(sv->dev, clEnqueueReadBuffer(sv->dev->cl.queue, sv->partial_st, CL_TRUE, 0,
                                             (size_t)slabs * sizeof(double), first, 0, NULL,
                                             NULL), "reading a sum");
    else if (cg)
        pipe_ok(sv->dev, CL_INVALID_VALUE, "more partial sums than PIPE_MAX_PARTIALS");
    if (sv->dev->failure != CL_SUCCESS) {
        clFinish(sv->dev->cl.queue); /* nothing may still be writing into part */
        return (SolveResult){ .residual = NAN };
    }
    for (int q = 0; q < PIPE_PARTS; q++)
        rhs2 += part[q];
    for (int q = 0; q < PIPE_PARTS; q++)
        b2 += part[PIPE_PARTS + q];
    if (rhs2 == 0.0) { /* (a p of zeros needs no check) */
        pipe_zero(sv->dev, sv->state->grid.p, grid_cells(g) * sizeof(float));
        return (SolveResult){ .converged = true };
    }
    if (jacobi)
        return pipe_jacobi(sv, g, set, sqrt(rhs2));
    double bnorm = sqrt(b2);
    if (strcmp(name, "gauss_seidel") == 0)
        return pipe_relax(sv, set, 1.0f, bnorm);
    if (strcmp(name, "sor") == 0)
        return pipe_relax(sv, set, set->sor_omega, bnorm);
    if (strcmp(name, "multigrid") == 0)
        return pipe_multigrid(sv, set, bnorm);
    for (int q = 0; q < slabs; q++) /* in order, as pipe_sum_parts adds them */
        r2 += first[q];
    if (strcmp(name, "mgpcg") == 0)
        return pipe_cg(sv, g, set, (Precon){ sv->mg.levels, MG_COARSE_SWEEPS }, bnorm,
                       sqrt(r2) / bnorm);
    return pipe_cg(sv, g, set, (Precon){ 1, 1 }, bnorm, sqrt(r2) / bnorm); /* pcg */
}

/* ... and p2g's scratch back to the 0 the next p2g adds into, where the vectors borrowed it. */
SolveResult pipe_solve(PipeSolver *sv, const MacGrid *g, const PressureSettings *set,
                       const char *name, float scale)
{
    SolveResult res = pipe_solve_with(sv, g, set, name, scale);
    if (sv->borrowed)
        pipe_zero(sv->dev, sv->state->grid.scratch, sv->borrowed);
    return res;
}
