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

/* Levels of at most this many cells are smoothed by one work-item in one launch
 * (mg_smooth_serial, mg_down_serial, mg_up_serial): level 0 up to 16^3, a coarse level up to
 * 32^3. A parallel launch costs PoCL tens of microseconds of hand-out and wake-up besides its
 * work: at 64^3 a 32^3 level 1's half sweeps took 53 us a launch (profile mode) for a few
 * thousand cells, and its legs by one work-item cut the pressure solve 12% (same bits). */
enum { PIPE_SERIAL_CELLS = 16 * 16 * 16, PIPE_SERIAL_COARSE_CELLS = 32 * 32 * 32 };

/* Elements of a split buffer: both colours and a pad at each end (solvers.cl). */
static size_t pipe_split_elements(const PipeLevel *l)
{
    return 2 * (size_t)l->per_colour + 2 * (size_t)l->end_pad;
}

/* A level swept in parallel, in the split layout: its r, x, b and infos there. */
static void pipe_alloc_split(PipeSolver *sv, PipeLevel *l)
{
    l->half_nx = (l->n[0] + 1) / 2;
    l->per_colour = l->half_nx * l->n[1] * l->n[2];
    l->end_pad = l->half_nx * l->n[1] + 1;
    size_t split = pipe_split_elements(l);
    /* what the buffers hold is not known yet (x is not cleared here): the first solve that
     * does not cover the whole level clears them (pipe_fluid_box) */
    for (int d = 0; d < 3; d++)
        l->used_lo[d] = 0, l->used_hi[d] = l->n[d];
    l->r = pipe_buffer(sv->dev, split * sizeof(float));
    if (sv->dev->failure == CL_SUCCESS)
        pipe_zero(sv->dev, l->r, split * sizeof(float));
    l->xs = pipe_buffer(sv->dev, split * sizeof(float));
    l->bs = pipe_buffer(sv->dev, split * sizeof(float));
    l->infos = pipe_buffer(sv->dev, split * sizeof(cl_ushort));
    if (sv->dev->failure == CL_SUCCESS) { /* the pads are read (and dropped) as they are */
        pipe_zero(sv->dev, l->xs, split * sizeof(float));
        pipe_zero(sv->dev, l->bs, split * sizeof(float));
        pipe_zero(sv->dev, l->infos, split * sizeof(cl_ushort));
    }
}

/* Level q (sv->levels counts it already) of n[0] x n[1] x n[2] cells. */
static void pipe_alloc_level(PipeSolver *sv, PipeLevel *l, int q, const int n[3])
{
    memcpy(l->n, n, sizeof l->n);
    l->cells = (size_t)n[0] * n[1] * n[2];
    l->type = q == 0 ? sv->state->grid.cell : pipe_buffer(sv->dev, l->cells);
    l->count = pipe_buffer(sv->dev, l->cells * sizeof(cl_ushort));
    int split_level = l->cells > (q == 0 ? PIPE_SERIAL_CELLS : PIPE_SERIAL_COARSE_CELLS);
    /* a split level 0 has no x or b in the grid's layout: its b is written split
     * (pipe_load_residual, cg_update) and its x read split (pipe_correction); a coarser one
     * gets b there from restriction and puts x there for prolongation */
    int grid_layout = !(split_level && q == 0);
    l->x = grid_layout ? pipe_buffer(sv->dev, l->cells * sizeof(float)) : NULL;
    l->b = grid_layout ? pipe_buffer(sv->dev, l->cells * sizeof(float)) : NULL;
    if (split_level)
        pipe_alloc_split(sv, l);
    else
        l->r = pipe_buffer(sv->dev, l->cells * sizeof(float));
}

/* Halving until a level would have fewer than MG_MIN_CELLS cells along an axis, as
 * multigrid.c does. */
static int pipe_alloc_levels(PipeSolver *sv, const MacGrid *g)
{
    int n[3] = { g->nx, g->ny, g->nz };
    for (;;) {
        /* counted first, so that pipe_solver_release frees whatever was made if one fails
         * (pipe_buffer records the failure) */
        int q = sv->levels++;
        pipe_alloc_level(sv, &sv->level[q], q, n);
        if (sv->dev->failure != CL_SUCCESS)
            return -1;
        int next[3] = { (n[0] + 1) / 2, (n[1] + 1) / 2, (n[2] + 1) / 2 };
        if (sv->levels == MG_MAX_LEVELS || next[0] < MG_MIN_CELLS || next[1] < MG_MIN_CELLS ||
            next[2] < MG_MIN_CELLS)
            return 0;
        memcpy(n, next, sizeof n);
    }
}

void pipe_solver_release(PipeSolver *sv)
{
    cl_mem *bufs[] = {&sv->bounds,      &sv->iterate, &sv->residual,  &sv->direction,
                      &sv->a_direction, &sv->b,       &sv->cg_scalars};
    for (size_t q = 0; q < sizeof bufs / sizeof *bufs; q++)
        pipe_release(bufs[q]);
    for (int q = 0; q < sv->levels; q++) {
        PipeLevel *l = &sv->level[q];
        if (q > 0)
            pipe_release(&l->type);
        pipe_release(&l->count);
        pipe_release(&l->x);
        pipe_release(&l->b);
        pipe_release(&l->r);
        pipe_release(&l->xs);
        pipe_release(&l->bs);
        pipe_release(&l->infos);
    }
    sv->level[0].type = NULL; /* it was the state's cell types */
    sv->levels = 0;
}

int pipe_solver_fit(PipeSolver *sv, const MacGrid *g)
{
    size_t n = grid_cells(g);
    pipe_solver_release(sv);
    cl_mem *floats[] = { &sv->direction, &sv->a_direction, &sv->b };
    for (size_t q = 0; q < sizeof floats / sizeof *floats; q++)
        *floats[q] = pipe_buffer(sv->dev, n * sizeof(float));
    sv->iterate = pipe_buffer(sv->dev, n * sizeof(double));
    sv->residual = pipe_buffer(sv->dev, n * sizeof(double));
    sv->bounds = pipe_buffer(sv->dev, PIPE_PARTS * 6 * sizeof(cl_int));
    sv->cg_scalars = pipe_buffer(sv->dev, 3 * sizeof(double));
    return pipe_alloc_levels(sv, g);
}

/* Whether level q's legs of an nlev-level V-cycle run in mg_down_serial and mg_up_serial. */
static int pipe_serial_legs(const PipeSolver *sv, int q, int nlev)
{
    const PipeLevel *l = &sv->level[q];
    return q < nlev - 1 && !l->infos;
}

/* Neighbour counts of level 0 and, for multigrid, the coarse levels' types and counts (and the
 * serial levels' x and r cleared, see pipe_fluid_box). */
static void pipe_prepare_levels(PipeSolver *sv, int nlev)
{
    for (int q = 0; q < nlev; q++) {
        PipeLevel *l = &sv->level[q];
        cl_int4 n = pipe_dims(l->n);
        if (q > 0) {
            cl_int4 nf = pipe_dims(sv->level[q - 1].n);
            LAUNCH_CELLS(sv, q, K_MG_COARSEN, ARG(l->type), ARG(sv->level[q - 1].type), ARG(n),
                         ARG(nf));
        }
        cl_int clear = pipe_serial_legs(sv, q, nlev);
        LAUNCH_CELLS(sv, q, K_MG_COUNT, ARG(l->count), ARG(l->type), ARG(n), ARG(l->x), ARG(l->r),
                     ARG(clear));
        if (l->infos)
            LAUNCH(sv->dev, K_RB_SPLIT_U, (size_t)l->half_nx, (size_t)l->n[1], (size_t)l->n[2],
                   ARG(l->infos), ARG(l->count), ARG(n), ARG(l->half_nx), ARG(l->per_colour),
                   ARG(l->end_pad));
    }
}

/* Each level's box around its FLUID cells, from level 0's (a coarse cell is FLUID only where
 * a child is, so halving the box holds them). The launches skip what lies outside it, and the
 * sums, taken per z-slab of the box, add the same terms as over the grid; pipe_fluid_box sees
 * that the two vectors read just outside it hold 0 there. */
static void pipe_fluid_bounds(PipeSolver *sv)
{
    PipeLevel *l0 = &sv->level[0];
    cl_int4 n = pipe_dims(l0->n);
    int rows = l0->n[1] * l0->n[2];
    cl_int chunk = (rows + PIPE_PARTS - 1) / PIPE_PARTS, nparts = PIPE_PARTS;
    LAUNCH(sv->dev, K_FLUID_BOUNDS, PIPE_PARTS, 1, 1, ARG(sv->bounds), ARG(sv->state->grid.cell),
           ARG(n), ARG(chunk), ARG(nparts));
}

/* Whether the box [lo, hi) holds the box [in_lo, in_hi). */
static int pipe_box_holds(const int lo[3], const int hi[3], const int in_lo[3], const int in_hi[3])
{
    int holds = 1;
    for (int d = 0; d < 3; d++)
        holds &= lo[d] <= in_lo[d] && in_hi[d] <= hi[d];
    return holds;
}

/* part: fluid_bounds' output, read back */
static void pipe_fluid_box(PipeSolver *sv, int nlev, const cl_int *part)
{
    PipeLevel *l0 = &sv->level[0];
    int lo[3] = { l0->n[0], l0->n[1], l0->n[2] }, hi[3] = { -1, -1, -1 };
    for (int g = 0; g < PIPE_PARTS; g++)
        for (int d = 0; d < 3; d++) {
            lo[d] = part[6 * g + d] < lo[d] ? part[6 * g + d] : lo[d];
            hi[d] = part[6 * g + 3 + d] > hi[d] ? part[6 * g + 3 + d] : hi[d];
        }
    for (int q = 0; q < nlev; q++) {
        PipeLevel *l = &sv->level[q];
        for (int d = 0; d < 3; d++) {
            l->lo[d] = hi[d] < 0 ? 0 : lo[d] >> q;
            l->hi[d] = hi[d] < 0 ? l->n[d] : (hi[d] >> q) + 1;
            l->hi[d] = l->hi[d] < l->n[d] ? l->hi[d] : l->n[d];
        }
    }
    PipeShortcuts *cut = &sv->state->shortcut; /* for divergence, gradient, extrapolation */
    cut->box_fresh = 1;
    memcpy(cut->box_lo, l0->lo, sizeof cut->box_lo);
    memcpy(cut->box_hi, l0->hi, sizeof cut->box_hi);
    /* Outside the box a vector keeps what an earlier solve left there. Two are read there for
     * cells whose result is kept, so only they must hold the 0 of a cell that is not FLUID: a
     * level's r, which restriction reads up to two fine cells past the box, and the x of a
     * level below level 0, whose prolongation reads one coarse cell past it (the coarsest
     * writes its x whole). Those of the levels mg_down_serial runs on were cleared by mg_count;
     * the split levels' are cleared here, unless every solve since the last clearing had its
     * box inside this one: a solve leaves them nonzero in FLUID cells of its box only (a splash
     * keeps one box for many substeps, a clearing costs ~0.5 ms at 64^3). Every other vector is
     * read within the box only, or loaded past it and dropped by the info bits (a split
     * level's b), or written over the box and read within it (s from z). A launch rounded up
     * to whole work-groups also runs on cells past the box, all of them not FLUID, whose
     * results are dropped or 0. */
    for (int q = 0; q < nlev - 1; q++) {
        PipeLevel *l = &sv->level[q];
        if (!l->infos)
            continue;
        if (!pipe_box_holds(l->lo, l->hi, l->used_lo, l->used_hi)) {
            pipe_zero(sv->dev, l->r, pipe_split_elements(l) * sizeof(float));
            if (q > 0)
                pipe_zero(sv->dev, l->x, l->cells * sizeof(float));
        }
        memcpy(l->used_lo, l->lo, sizeof l->lo); /* this box holds the earlier ones, or they */
        memcpy(l->used_hi, l->hi, sizeof l->hi); /* were cleared */
    }
}

/* ---- the V-cycle ------------------------------------------------------------------------- */

/* A level too large for the serial kernels is swept in the colour-split layout of solvers.cl:
 * twice as fast a half sweep as in the grid's layout (67 against 129 us at 64^3), for the same
 * arithmetic per cell. x and b go in at the start of a V-cycle's leg pair (or of a run of
 * sweeps) and x comes out at its end, except level 0's, which the solvers read split
 * (pipe_correction); the residual and prolongation between the legs read and write the split x
 * directly. Launches cover the box, two cells per work-item. */
static void pipe_split_box(const PipeLevel *l, int lo[3], int hi[3])
{
    lo[0] = l->lo[0] / 2, lo[1] = l->lo[1], lo[2] = l->lo[2];
    hi[0] = (l->hi[0] + 1) / 2, hi[1] = l->hi[1], hi[2] = l->hi[2];
}

/* dst (split) = src (grid layout) over level q's box */
static void pipe_split_in(PipeSolver *sv, int q, cl_mem dst, cl_mem src)
{
    PipeLevel *l = &sv->level[q];
    cl_int4 n = pipe_dims(l->n);
    int lo[3], hi[3];
    pipe_split_box(l, lo, hi);
    LAUNCH_RANGE(sv->dev, K_RB_SPLIT_F, lo, hi, ARG(dst), ARG(src), ARG(n), ARG(l->half_nx),
                 ARG(l->per_colour), ARG(l->end_pad));
}

/* x (grid layout) = level q's split x over the box */
static void pipe_merge_out(PipeSolver *sv, int q, cl_mem x)
{
    PipeLevel *l = &sv->level[q];
    cl_int4 n = pipe_dims(l->n);
    int lo[3], hi[3];
    pipe_split_box(l, lo, hi);
    LAUNCH_RANGE(sv->dev, K_RB_MERGE_F, lo, hi, ARG(x), ARG(l->xs), ARG(n), ARG(l->half_nx),
                 ARG(l->per_colour), ARG(l->end_pad));
}

/* `sweeps` red-black sweeps of level q's split x over its box, colour c0 first; from_zero:
 * x starts at 0 over the box, the first half sweep writing it (mg_smooth_split_zero) where a
 * clearing of the whole buffer cost a pass before every V-cycle leg. */
static void pipe_split_sweeps(PipeSolver *sv, int q, int sweeps, int c0, float omega, int from_zero)
{
    PipeLevel *l = &sv->level[q];
    cl_int4 n = pipe_dims(l->n);
    int lo[3], hi[3];
    pipe_split_box(l, lo, hi);
    for (int h = 0; h < 2 * sweeps; h++) {
        cl_int c = h & 1 ? 1 - c0 : c0;
        PipeKernel k = h == 0 && from_zero ? K_MG_SMOOTH_SPLIT_ZERO : K_MG_SMOOTH_SPLIT;
        LAUNCH_RANGE(sv->dev, k, lo, hi, ARG(l->xs), ARG(l->bs), ARG(l->infos), ARG(n),
                     ARG(l->half_nx), ARG(l->per_colour), ARG(l->end_pad), ARG(c), ARG(omega));
    }
}

/* sweeps on a level 0 of at most PIPE_SERIAL_CELLS, by one work-item in one launch */
static void pipe_sweeps_serial(PipeSolver *sv, int q, int sweeps, int c0, float omega)
{
    PipeLevel *l = &sv->level[q];
    cl_int4 n = pipe_dims(l->n);
    cl_int s = sweeps, c = c0;
    LAUNCH(sv->dev, K_MG_SMOOTH_SERIAL, 1, 1, 1, ARG(l->x), ARG(l->b), ARG(l->count), ARG(n),
           ARG(s), ARG(c), ARG(omega));
}

/* Level 0's x = `sweeps` red-black sweeps on its b from x = 0, and as many black-red ones
 * after them if both_ways: relax's sweeps and pcg's one-level preconditioner. */
static void pipe_sweeps_from_zero(PipeSolver *sv, int sweeps, int both_ways, float omega)
{
    int q = 0;
    PipeLevel *l = &sv->level[q];
    if (!l->infos) { /* small enough for one work-item */
        pipe_zero(sv->dev, l->x, l->cells * sizeof(float));
        pipe_sweeps_serial(sv, q, sweeps, 0, omega);
        if (both_ways)
            pipe_sweeps_serial(sv, q, sweeps, 1, omega);
        return;
    }
    pipe_split_sweeps(sv, q, sweeps, 0, omega, 1); /* b is in bs (pipe_load_residual) */
    if (both_ways)
        pipe_split_sweeps(sv, q, sweeps, 1, omega, 0); /* x stays split (pipe_correction) */
}

/* level q's split x += P (level q + 1's x) over the split box [lo, hi): the columns m = 0 and
 * m = hx - 1, whose coarse x neighbour may lie outside the grid, apart (solvers.cl) */
static void pipe_prolong_split(PipeSolver *sv, int q, const int lo[3], const int hi[3])
{
    PipeLevel *l = &sv->level[q], *c = &sv->level[q + 1];
    cl_int4 n = pipe_dims(l->n), nc = pipe_dims(c->n);
    int cut[4] = {lo[0], lo[0] > 1 ? lo[0] : 1, hi[0] < l->half_nx - 1 ? hi[0] : l->half_nx - 1,
                  hi[0]};
    cut[1] = cut[1] < cut[3] ? cut[1] : cut[3];
    cut[2] = cut[2] > cut[1] ? cut[2] : cut[1];
    for (int part = 0; part < 3; part++) {
        int a[3] = { cut[part], lo[1], lo[2] }, b[3] = { cut[part + 1], hi[1], hi[2] };
        cl_int m_end = b[0];
        if (a[0] < b[0])
            LAUNCH_RANGE(sv->dev, part == 1 ? K_MG_PROLONG_SPLIT : K_MG_PROLONG_SPLIT_EDGE, a, b,
                         ARG(l->xs), ARG(c->x), ARG(l->infos), ARG(n), ARG(nc), ARG(l->half_nx),
                         ARG(l->per_colour), ARG(l->end_pad), ARG(m_end));
    }
}

static void pipe_vcycle_level(PipeSolver *sv, int q, int nlev, int coarse_sweeps);

/* Level q's legs of the V-cycle in the split layout (the same steps as below). */
static void pipe_vcycle_split(PipeSolver *sv, int q, int nlev, int coarse_sweeps)
{
    PipeLevel *l = &sv->level[q], *c = &sv->level[q + 1];
    cl_int4 n = pipe_dims(l->n), nc = pipe_dims(c->n);
    int lo[3], hi[3];
    pipe_split_box(l, lo, hi);
    if (q > 0) /* level 0's b is in bs already (pipe_load_residual, cg_update) */
        pipe_split_in(sv, q, l->bs, l->b);
    pipe_split_sweeps(sv, q, MG_SMOOTH, 0, 1.0f, 1);
    LAUNCH_RANGE(sv->dev, K_MG_RESIDUAL_SPLIT, lo, hi, ARG(l->r), ARG(l->xs), ARG(l->bs),
                 ARG(l->infos), ARG(n), ARG(l->half_nx), ARG(l->per_colour), ARG(l->end_pad));
    LAUNCH_BOX(sv, q + 1, K_MG_RESTRICT_SPLIT, ARG(c->b), ARG(l->r), ARG(c->type), ARG(nc), ARG(n),
               ARG(l->half_nx), ARG(l->per_colour), ARG(l->end_pad));
    pipe_vcycle_level(sv, q + 1, nlev, coarse_sweeps);
    pipe_prolong_split(sv, q, lo, hi);
    pipe_split_sweeps(sv, q, MG_SMOOTH, 1, 1.0f, 0);
    if (q > 0) /* level 0's x stays split: the solvers read it there (pipe_correction) */
        pipe_merge_out(sv, q, l->x);
}

/* x = V-cycle applied to b on level q, levels q..nlev-1; the last level gets coarse_sweeps. */
static void pipe_vcycle_level(PipeSolver *sv, int q, int nlev, int coarse_sweeps)
{
    PipeLevel *l = &sv->level[q];
    cl_int4 n = pipe_dims(l->n);
    int last = q == nlev - 1;
    if (last && q > 0) {
        cl_int sweeps = coarse_sweeps;
        LAUNCH(sv->dev, K_MG_COARSEST, 1, 1, 1, ARG(l->x), ARG(l->b), ARG(l->count), ARG(n),
               ARG(sweeps));
        return;
    }
    if (pipe_serial_legs(sv, q, nlev)) { /* both legs by one work-item */
        PipeLevel *c = &sv->level[q + 1];
        cl_int4 nc = pipe_dims(c->n);
        cl_int sweeps = MG_SMOOTH;
        cl_int4 lo = pipe_dims(l->lo), hi = pipe_dims(l->hi);
        cl_int4 clo = pipe_dims(c->lo), chi = pipe_dims(c->hi);
        LAUNCH(sv->dev, K_MG_DOWN_SERIAL, 1, 1, 1, ARG(l->x), ARG(l->b), ARG(l->r), ARG(l->type),
               ARG(l->count), ARG(n), ARG(c->b), ARG(c->type), ARG(nc), ARG(sweeps), ARG(lo),
               ARG(hi), ARG(clo), ARG(chi));
        pipe_vcycle_level(sv, q + 1, nlev, coarse_sweeps);
        LAUNCH(sv->dev, K_MG_UP_SERIAL, 1, 1, 1, ARG(l->x), ARG(l->b), ARG(l->type), ARG(l->count),
               ARG(n), ARG(c->x), ARG(nc), ARG(sweeps), ARG(lo), ARG(hi));
        return;
    }
    if (!last) {
        pipe_vcycle_split(sv, q, nlev, coarse_sweeps);
        return;
    }
    pipe_sweeps_from_zero(sv, coarse_sweeps, 1, 1.0f); /* level 0 alone: pcg's preconditioner */
}

/* ---- sums -------------------------------------------------------------------------------- */

/* ---- the same over level 0's box, a z-slab per work-item (pipe_fluid_box) ------------------- */

typedef struct { cl_int4 n, lo, hi; int slabs; } PipeBox;

static PipeBox pipe_level0_box(PipeSolver *sv)
{
    PipeLevel *l = &sv->level[0];
    PipeBox b = { pipe_dims(l->n), pipe_dims(l->lo), pipe_dims(l->hi), l->hi[2] - l->lo[2] };
    return b;
}

/* a . b over the box into the partials, for cg_alpha */
static void pipe_box_dot_ff(PipeSolver *sv, cl_mem a, cl_mem b)
{
    PipeBox x = pipe_level0_box(sv);
    LAUNCH(sv->dev, K_DOT_FF, 1, 1, (size_t)x.slabs, ARG(sv->dev->partial_d), ARG(a), ARG(b),
           ARG(x.n), ARG(x.lo), ARG(x.hi));
}

static double pipe_box_norm_d(PipeSolver *sv, cl_mem v)
{
    PipeBox x = pipe_level0_box(sv);
    LAUNCH(sv->dev, K_NORM2_D, 1, 1, (size_t)x.slabs, ARG(sv->dev->partial_d), ARG(v), ARG(x.n),
           ARG(x.lo), ARG(x.hi));
    return sqrt(pipe_sum_parts(sv->dev, x.slabs));
}

/* out = (float) in over the box (outside it, out keeps what it held). */
static void pipe_box_to_float(PipeSolver *sv, cl_mem out, cl_mem in)
{
    PipeBox x = pipe_level0_box(sv);
    LAUNCH_BOX(sv, 0, K_TO_FLOAT, ARG(out), ARG(in), ARG(x.n), ARG(x.hi));
}

/* hx, nh, pad of level 0 if it is swept split, else 0: where CG's kernels put its b */
static cl_int4 pipe_level0_split(PipeSolver *sv)
{
    PipeLevel *l = &sv->level[0];
    cl_int4 s = { { l->infos ? l->half_nx : 0, l->per_colour, l->end_pad, 0 } };
    return s;
}

/* Level 0's b = (float) rd over the box, in the layout its sweeps read: split when level 0 is
 * swept split (its V-cycle leg and pipe_sweeps_from_zero then take it as it is). */
static void pipe_load_residual(PipeSolver *sv)
{
    PipeLevel *l = &sv->level[0];
    PipeBox x = pipe_level0_box(sv);
    cl_int4 split = pipe_level0_split(sv);
    if (l->infos)
        LAUNCH_BOX(sv, 0, K_TO_FLOAT_SPLIT, ARG(l->bs), ARG(sv->residual), ARG(x.n), ARG(x.hi),
                   ARG(split));
    else
        pipe_box_to_float(sv, l->b, sv->residual);
}

/* The correction z, level 0's x as the V-cycle and the sweeps leave it: split when level 0 is
 * swept split (read with pipe_level0_split's numbers), where a merge into the grid's layout cost
 * a pass per V-cycle. */
static cl_mem pipe_correction(PipeSolver *sv)
{
    PipeLevel *l = &sv->level[0];
    return l->infos ? l->xs : l->x;
}

/* xd += z over the box (z is level 0's x, pipe_correction, written over the box only). */
static void pipe_box_add_correction(PipeSolver *sv)
{
    PipeBox x = pipe_level0_box(sv);
    cl_int4 split = pipe_level0_split(sv);
    cl_mem z = pipe_correction(sv);
    LAUNCH_BOX(sv, 0, K_ADD_CORRECTION, ARG(sv->iterate), ARG(z), ARG(x.n), ARG(x.hi), ARG(split));
}

/* rd = b - A xd; returns |rd|. */
static double pipe_true_residual(PipeSolver *sv, const MacGrid *g)
{
    cl_int4 n = pipe_grid_dims(g);
    LAUNCH_BOX(sv, 0, K_RESIDUAL_D, ARG(sv->residual), ARG(sv->iterate), ARG(sv->b),
               ARG(sv->state->grid.cell), ARG(sv->level[0].count), ARG(n));
    return pipe_box_norm_d(sv, sv->residual);
}

/* p = x over the box; outside it x is 0, and so is p (pressure_rhs zeroes it outside FLUID). */
static void pipe_store_p(PipeSolver *sv)
{
    pipe_box_to_float(sv, sv->state->grid.p, sv->iterate);
}

/* ---- jacobi: the jacobi stage repeated, as the driver does on the CPU ---------------------- */

static double pipe_jacobi_residual(PipeSolver *sv, const MacGrid *g, cl_mem p, double bnorm)
{
    cl_int cells = (cl_int)grid_cells(g), chunk = pipe_chunk(grid_cells(g));
    pipe_laplacian(sv->state, g, p, sv->state->grid.lap);
    LAUNCH(sv->dev, K_RESIDUAL_L, PIPE_PARTS, 1, 1, ARG(sv->dev->partial_d),
           ARG(sv->state->grid.rhs), ARG(sv->state->grid.lap), ARG(sv->state->grid.cell),
           ARG(cells), ARG(chunk));
    return sqrt(pipe_sum(sv->dev)) / bnorm;
}

/* bnorm: |rhs| */
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
    return res;
}

/* ---- red-black Gauss-Seidel and SOR, in correction form as relax.c -------------------- */

/* bnorm: |b| (pressure_rhs made b and the iterate, as for every solver below) */
static SolveResult pipe_relax(PipeSolver *sv, const MacGrid *g, const PressureSettings *set,
                              float omega, double bnorm)
{
    SolveResult res = { .residual = INFINITY };
    for (;;) {
        res.residual = pipe_true_residual(sv, g) / bnorm;
        if (res.residual <= set->tolerance || res.iterations >= set->iterations ||
            !isfinite(res.residual))
            break;
        int sweeps = set->iterations - res.iterations;
        sweeps = sweeps < RELAX_CHECK_EVERY ? sweeps : RELAX_CHECK_EVERY;
        pipe_load_residual(sv);
        pipe_sweeps_from_zero(sv, sweeps, 0, omega);
        pipe_box_add_correction(sv);
        res.iterations += sweeps;
    }
    pipe_store_p(sv);
    res.converged = res.residual <= set->tolerance;
    return res;
}

/* ---- multigrid: V-cycles on the residual ------------------------------------------------- */

static SolveResult pipe_multigrid(PipeSolver *sv, const MacGrid *g, const PressureSettings *set,
                                  double bnorm)
{
    SolveResult res = { .residual = INFINITY };
    for (;;) {
        res.residual = pipe_true_residual(sv, g) / bnorm;
        if (res.residual <= set->tolerance || res.iterations >= set->iterations ||
            !isfinite(res.residual))
            break;
        pipe_load_residual(sv);
        pipe_vcycle_level(sv, 0, sv->levels, MG_COARSE_SWEEPS);
        pipe_box_add_correction(sv);
        res.iterations++;
    }
    pipe_store_p(sv);
    res.converged = res.residual <= set->tolerance;
    return res;
}

/* ---- conjugate gradients, preconditioned by a V-cycle (mgpcg) or one level of it (pcg) ---- */

typedef struct { int levels, coarse_sweeps; } Precon;

/* z (level 0's x, pipe_correction) = M^-1 r, r in float already in level 0's b, split if level 0 is
 * swept split (cg_update and pipe_load_residual leave it there). */
static void pipe_precondition(PipeSolver *sv, Precon m)
{
    pipe_vcycle_level(sv, 0, m.levels, m.coarse_sweeps);
}

/* sigma = z . r on the device (cg_beta), and beta = sigma / the last sigma unless first */
static void pipe_cg_sigma(PipeSolver *sv, int first)
{
    PipeBox x = pipe_level0_box(sv);
    cl_int slabs = x.slabs, f = first;
    cl_int4 split = pipe_level0_split(sv);
    cl_mem z = pipe_correction(sv);
    LAUNCH(sv->dev, K_DOT_ZD, 1, 1, (size_t)x.slabs, ARG(sv->dev->partial_d), ARG(z),
           ARG(sv->residual), ARG(x.n), ARG(x.lo), ARG(x.hi), ARG(split));
    LAUNCH(sv->dev, K_CG_BETA, 1, 1, 1, ARG(sv->cg_scalars), ARG(sv->dev->partial_d), ARG(slabs),
           ARG(f));
}

/* One step along s: t = A s, alpha on the device, x += alpha s and r -= alpha t over the box.
 * Returns |r|^2, read with CG's scalars in the step's one wait; *broke when s . A s <= 0 (nothing
 * left to reduce in this direction). A device failure stays recorded in the device. */
static double pipe_cg_step(PipeSolver *sv, const MacGrid *g, int *broke)
{
    cl_int4 dims = pipe_grid_dims(g);
    PipeBox box = pipe_level0_box(sv);
    cl_int slabs = box.slabs;
    cl_int4 split = pipe_level0_split(sv);
    cl_mem b0 = sv->level[0].infos ? sv->level[0].bs : sv->level[0].b;
    LAUNCH_BOX(sv, 0, K_APPLY_A, ARG(sv->a_direction), ARG(sv->direction),
               ARG(sv->state->grid.cell), ARG(sv->level[0].count), ARG(dims));
    pipe_box_dot_ff(sv, sv->direction, sv->a_direction);
    LAUNCH(sv->dev, K_CG_ALPHA, 1, 1, 1, ARG(sv->cg_scalars), ARG(sv->dev->partial_d),
           ARG(slabs));
    LAUNCH(sv->dev, K_CG_UPDATE, 1, 1, (size_t)box.slabs, ARG(sv->iterate), ARG(sv->residual),
           ARG(b0), ARG(sv->dev->partial_d), ARG(sv->direction), ARG(sv->a_direction),
           ARG(sv->cg_scalars), ARG(box.n), ARG(box.lo), ARG(box.hi), ARG(split));
    double scal[3] = { 0.0, 0.0, 0.0 }; /* sigma, alpha, broke (solvers.cl's CG_*) */
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
    PipeBox box = pipe_level0_box(sv);
    cl_mem z = pipe_correction(sv);
    cl_int4 split = pipe_level0_split(sv);
    pipe_load_residual(sv);
    pipe_precondition(sv, m);
    /* s = z: out of the split layout over the box (nothing reads s outside it), else a copy */
    if (split.s[0])
        pipe_merge_out(sv, 0, sv->direction);
    else
        pipe_copy(sv->dev, z, sv->direction, grid_cells(g) * sizeof(float),
                  "copying the direction");
    pipe_cg_sigma(sv, 1);
    while (res->iterations < set->iterations && sv->dev->failure == CL_SUCCESS) {
        int broke = 0;
        double rr = pipe_cg_step(sv, g, &broke);
        if (sv->dev->failure != CL_SUCCESS || broke)
            return;
        res->iterations++;
        res->residual = sqrt(rr) / bnorm;
        if (res->residual <= set->tolerance)
            return;
        pipe_precondition(sv, m);
        pipe_cg_sigma(sv, 0);
        LAUNCH_BOX(sv, 0, K_CG_DIRECTION, ARG(sv->direction), ARG(z), ARG(sv->cg_scalars),
                   ARG(box.n), ARG(box.hi), ARG(split));
    }
}

/* The recurrence residual drifts from the true one, so convergence is confirmed on b - A x
 * and CG restarts from it when short (as pcg.c does). */
static SolveResult pipe_cg(PipeSolver *sv, const MacGrid *g, const PressureSettings *set, Precon m,
                           double bnorm)
{
    SolveResult res = { .residual = pipe_true_residual(sv, g) / bnorm };
    for (int restart = 0; restart <= MAX_RESTARTS; restart++) {
        if (res.residual <= set->tolerance || res.iterations >= set->iterations ||
            sv->dev->failure != CL_SUCCESS)
            break;
        pipe_cg_run(sv, g, bnorm, set, m, &res);
        res.residual = pipe_true_residual(sv, g) / bnorm;
    }
    pipe_store_p(sv);
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
    return strcmp(name, "multigrid") == 0 || strcmp(name, "mgpcg") == 0 ? sv->levels : 1;
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
    pipe_fluid_bounds(sv);
    pipe_read(sv->dev, sv->bounds, bounds, sizeof bounds);
    if (sv->dev->failure == CL_SUCCESS)
        pipe_fluid_box(sv, nlev, bounds);
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
 * pipe_find_box found it after classify). b = 0 means p = 0 solves it, as on the host. */
SolveResult pipe_solve(PipeSolver *sv, const MacGrid *g, const PressureSettings *set,
                       const char *name, float scale)
{
    int nlev = pipe_solver_levels(sv, name), jacobi = nlev == 0;
    double part[2 * PIPE_PARTS], rhs2 = 0.0, b2 = 0.0;
    pipe_pressure_rhs(sv, g, scale);
    if (!jacobi) {
        pipe_prepare_levels(sv, nlev);
        if (!sv->state->shortcut.box_fresh)
            pipe_find_box(sv, name);
    }
    pipe_ok(sv->dev, clEnqueueReadBuffer(sv->dev->cl.queue, sv->dev->partial_d, CL_TRUE, 0,
                                         sizeof part, part, 0, NULL, NULL), "reading a sum");
    if (sv->dev->failure != CL_SUCCESS) {
        clFinish(sv->dev->cl.queue); /* nothing may still be writing into part */
        return (SolveResult){ .residual = NAN };
    }
    for (int q = 0; q < PIPE_PARTS; q++)
        rhs2 += part[q];
    for (int q = 0; q < PIPE_PARTS; q++)
        b2 += part[PIPE_PARTS + q];
    if (rhs2 == 0.0) {
        pipe_zero(sv->dev, sv->state->grid.p, grid_cells(g) * sizeof(float));
        return (SolveResult){ .converged = true };
    }
    if (jacobi)
        return pipe_jacobi(sv, g, set, sqrt(rhs2));
    double bnorm = sqrt(b2);
    if (strcmp(name, "gauss_seidel") == 0)
        return pipe_relax(sv, g, set, 1.0f, bnorm);
    if (strcmp(name, "sor") == 0)
        return pipe_relax(sv, g, set, set->sor_omega, bnorm);
    if (strcmp(name, "multigrid") == 0)
        return pipe_multigrid(sv, g, set, bnorm);
    if (strcmp(name, "mgpcg") == 0)
        return pipe_cg(sv, g, set, (Precon){ sv->levels, MG_COARSE_SWEEPS }, bnorm);
    return pipe_cg(sv, g, set, (Precon){ 1, 1 }, bnorm); /* pcg */
}
