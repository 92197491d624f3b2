/* pipelevels.c — the multigrid hierarchy of the OpenCL pipeline's solvers: the levels, their
 * FLUID boxes, the colour-split layout, the red-black sweeps and the V-cycle.
 * flipkit reference/: the same hierarchy as multigrid.c's (halving, MG_SMOOTH sweeps each way),
 * its small levels swept by one work-item in one launch, its large ones in parallel. */
#include "pipelevels.h"

#include <string.h>

/* Levels of at most this many cells are smoothed by one work-item in one launch
 * (mg_smooth_serial, mg_vcycle_serial, mg_down_serial, mg_up_serial): level 0 up to 64^3, a
 * coarse level up to 32^3. A parallel launch costs PoCL tens of microseconds of hand-out and
 * wake-up besides its work, and hundreds on this shared 2-core machine when its neighbours are
 * busy: at 64^3 a 32^3 level 1's half sweeps took 53 us a launch (profile mode) for a few
 * thousand cells, and its legs by one work-item cut the pressure solve 12% (same bits). Level 0
 * by one work-item (it was up to 16^3) took the pressure solve per substep, alternating runs,
 * medians of three, from 15.4 to 8.1 ms on ball_drop 32^3 (frames 0-30), from 12.3 to 7.7 on
 * whitewater (48x32x24) and from 114 to 56 ms on ball_drop 64^3 (frames 0-15, two rounds:
 * the other phases 0.8 of theirs), all with the same bytes; a coarse level of 64x32x32 by one
 * work-item (dam_break 128x64x64, its level 1) looked slower, 323 ms against 225 split, in two
 * rounds on a machine whose noise moved the same build 2x within minutes: left split. */
enum { PIPE_SERIAL_CELLS = 64 * 64 * 64, PIPE_SERIAL_COARSE_CELLS = 32 * 32 * 32 };
/* A level 0 with no coarser level (martin_moyce's 258x50x6: a V-cycle there is 24 sweeps each
 * way on level 0) is swept by one work-item only up to 16^3: 48 sweeps of 77,400 cells by one
 * work-item took its pressure solve from 18.4 to 44.9 ms a substep, where the parallel sweeps'
 * launches are a smaller share of their work. */
enum { PIPE_SERIAL_ALONE_CELLS = 16 * 16 * 16 };

/* Elements of a split buffer: both colours and a pad at each end (solvers.cl). */
static size_t pipe_split_elements(const PipeLevel *l)
{
    return 2 * (size_t)l->per_colour + 2 * (size_t)l->end_pad;
}

/* A level swept in parallel, in the split layout: its r, x, b and infos there. */
static void pipe_alloc_split(PipeLevels *mg, PipeLevel *l)
{
    l->half_nx = (l->n[0] + 1) / 2;
    l->per_colour = l->half_nx * l->n[1] * l->n[2];
    l->end_pad = l->half_nx * l->n[1] + 1;
    size_t split = pipe_split_elements(l);
    /* what the buffers hold is not known yet (x is not cleared here): the first solve that
     * does not cover the whole level clears them (pipe_fluid_box) */
    for (int d = 0; d < 3; d++)
        l->used_lo[d] = 0, l->used_hi[d] = l->n[d];
    l->r = pipe_buffer(mg->dev, split * sizeof(float));
    if (mg->dev->failure == CL_SUCCESS)
        pipe_zero(mg->dev, l->r, split * sizeof(float));
    l->xs = pipe_buffer(mg->dev, split * sizeof(float));
    l->bs = pipe_buffer(mg->dev, split * sizeof(float));
    l->infos = pipe_buffer(mg->dev, split * sizeof(cl_ushort));
    if (mg->dev->failure == CL_SUCCESS) { /* the pads are read (and dropped) as they are */
        pipe_zero(mg->dev, l->xs, split * sizeof(float));
        pipe_zero(mg->dev, l->bs, split * sizeof(float));
        pipe_zero(mg->dev, l->infos, split * sizeof(cl_ushort));
    }
}

/* Level q (mg->levels counts it already) of n[0] x n[1] x n[2] cells. */
static void pipe_alloc_level(PipeLevels *mg, PipeLevel *l, int q, const int n[3], int alone)
{
    memcpy(l->n, n, sizeof l->n);
    l->cells = (size_t)n[0] * n[1] * n[2];
    l->type = q == 0 ? mg->state->grid.cell : pipe_buffer(mg->dev, l->cells);
    l->count = pipe_buffer(mg->dev, l->cells * sizeof(cl_ushort));
    size_t serial = q > 0 ? PIPE_SERIAL_COARSE_CELLS : alone ? PIPE_SERIAL_ALONE_CELLS
                                                            : PIPE_SERIAL_CELLS;
    int split_level = l->cells > serial;
    /* a split level 0 has no x or b in the grid's layout: its b is written split
     * (pipe_true_residual, cg_update) and its x read split (pipe_correction); a coarser one
     * gets b there from restriction and puts x there for prolongation */
    int grid_layout = !(split_level && q == 0);
    l->x = grid_layout ? pipe_buffer(mg->dev, l->cells * sizeof(float)) : NULL;
    l->b = grid_layout ? pipe_buffer(mg->dev, l->cells * sizeof(float)) : NULL;
    if (split_level)
        pipe_alloc_split(mg, l);
    else
        l->r = pipe_buffer(mg->dev, l->cells * sizeof(float));
}

/* Whether a level of n cells is the last: the next would have fewer than MG_MIN_CELLS cells
 * along an axis, as multigrid.c stops, or levels (counting it) make MG_MAX_LEVELS. */
static int pipe_last_level(const int n[3], int levels)
{
    return levels == MG_MAX_LEVELS || (n[0] + 1) / 2 < MG_MIN_CELLS ||
           (n[1] + 1) / 2 < MG_MIN_CELLS || (n[2] + 1) / 2 < MG_MIN_CELLS;
}

/* Halving until a level would have fewer than MG_MIN_CELLS cells along an axis, as
 * multigrid.c does. */
int pipe_alloc_levels(PipeLevels *mg, const MacGrid *g)
{
    int n[3] = { g->nx, g->ny, g->nz };
    int alone = pipe_last_level(n, 1);
    mg->bounds = pipe_buffer(mg->dev, PIPE_PARTS * 6 * sizeof(cl_int));
    for (;;) {
        /* counted first, so that pipe_solver_release frees whatever was made if one fails
         * (pipe_buffer records the failure) */
        int q = mg->levels++;
        pipe_alloc_level(mg, &mg->level[q], q, n, alone);
        if (mg->dev->failure != CL_SUCCESS)
            return -1;
        if (pipe_last_level(n, mg->levels))
            return 0;
        int next[3] = { (n[0] + 1) / 2, (n[1] + 1) / 2, (n[2] + 1) / 2 };
        memcpy(n, next, sizeof n);
    }
}

void pipe_release_levels(PipeLevels *mg)
{
    pipe_release(&mg->bounds);
    for (int q = 0; q < mg->levels; q++) {
        PipeLevel *l = &mg->level[q];
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
    mg->level[0].type = NULL; /* it was the state's cell types */
    mg->levels = 0;
}

/* Whether level q's legs of an nlev-level V-cycle run in mg_down_serial and mg_up_serial. */
static int pipe_serial_legs(const PipeLevels *mg, int q, int nlev)
{
    const PipeLevel *l = &mg->level[q];
    return q < nlev - 1 && !l->infos;
}

/* Whether every level from q on runs by one work-item: legs and coarsest (the coarsest is in the
 * grid's layout whenever it is below level 0). */
static int pipe_serial_below(const PipeLevels *mg, int q, int nlev)
{
    int serial = q < nlev - 1;
    for (int v = q; v < nlev - 1; v++)
        serial &= pipe_serial_legs(mg, v, nlev);
    return serial;
}

/* Levels [from, to) of a solve on nlev: the neighbour counts of level 0 and, for multigrid,
 * the coarse levels' types and counts (and the serial levels' x and r cleared, see
 * pipe_fluid_box). */
void pipe_prepare_levels(PipeLevels *mg, int from, int to, int nlev)
{
    for (int q = from; q < to; q++) {
        PipeLevel *l = &mg->level[q];
        cl_int4 n = pipe_dims(l->n);
        if (q > 0) {
            cl_int4 nf = pipe_dims(mg->level[q - 1].n);
            LAUNCH_CELLS(mg, q, K_MG_COARSEN, ARG(l->type), ARG(mg->level[q - 1].type), ARG(n),
                         ARG(nf));
        }
        cl_int clear = pipe_serial_legs(mg, q, nlev);
        LAUNCH_CELLS(mg, q, K_MG_COUNT, ARG(l->count), ARG(l->type), ARG(n), ARG(l->x), ARG(l->r),
                     ARG(clear));
        if (l->infos)
            LAUNCH(mg->dev, K_RB_SPLIT_U, (size_t)l->half_nx, (size_t)l->n[1], (size_t)l->n[2],
                   ARG(l->infos), ARG(l->count), ARG(n), ARG(l->half_nx), ARG(l->per_colour),
                   ARG(l->end_pad));
    }
}

/* Each level's box around its FLUID cells, from level 0's (a coarse cell is FLUID only where
 * a child is, so halving the box holds them). The launches skip what lies outside it, and the
 * sums, taken per z-slab of the box, add the same terms as over the grid; pipe_fluid_box sees
 * that the two vectors read just outside it hold 0 there. */
void pipe_fluid_bounds(PipeLevels *mg)
{
    PipeLevel *l0 = &mg->level[0];
    cl_int4 n = pipe_dims(l0->n);
    int rows = l0->n[1] * l0->n[2];
    cl_int chunk = (rows + PIPE_PARTS - 1) / PIPE_PARTS, nparts = PIPE_PARTS;
    LAUNCH(mg->dev, K_FLUID_BOUNDS, PIPE_PARTS, 1, 1, ARG(mg->bounds), ARG(mg->state->grid.cell),
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
void pipe_fluid_box(PipeLevels *mg, int nlev, const cl_int *part)
{
    PipeLevel *l0 = &mg->level[0];
    int lo[3] = { l0->n[0], l0->n[1], l0->n[2] }, hi[3] = { -1, -1, -1 };
    for (int g = 0; g < PIPE_PARTS; g++)
        for (int d = 0; d < 3; d++) {
            lo[d] = part[6 * g + d] < lo[d] ? part[6 * g + d] : lo[d];
            hi[d] = part[6 * g + 3 + d] > hi[d] ? part[6 * g + 3 + d] : hi[d];
        }
    for (int q = 0; q < nlev; q++) {
        PipeLevel *l = &mg->level[q];
        for (int d = 0; d < 3; d++) {
            l->lo[d] = hi[d] < 0 ? 0 : lo[d] >> q;
            l->hi[d] = hi[d] < 0 ? l->n[d] : (hi[d] >> q) + 1;
            l->hi[d] = l->hi[d] < l->n[d] ? l->hi[d] : l->n[d];
        }
    }
    PipeShortcuts *cut = &mg->state->shortcut; /* for divergence, gradient, extrapolation */
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
        PipeLevel *l = &mg->level[q];
        if (!l->infos)
            continue;
        if (!pipe_box_holds(l->lo, l->hi, l->used_lo, l->used_hi)) {
            pipe_zero(mg->dev, l->r, pipe_split_elements(l) * sizeof(float));
            if (q > 0)
                pipe_zero(mg->dev, l->x, l->cells * sizeof(float));
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
static void pipe_split_in(PipeLevels *mg, int q, cl_mem dst, cl_mem src)
{
    PipeLevel *l = &mg->level[q];
    cl_int4 n = pipe_dims(l->n);
    int lo[3], hi[3];
    pipe_split_box(l, lo, hi);
    LAUNCH_RANGE(mg->dev, K_RB_SPLIT_F, lo, hi, ARG(dst), ARG(src), ARG(n), ARG(l->half_nx),
                 ARG(l->per_colour), ARG(l->end_pad));
}

/* x (grid layout) = level q's split x over the box */
void pipe_merge_out(PipeLevels *mg, int q, cl_mem x)
{
    PipeLevel *l = &mg->level[q];
    cl_int4 n = pipe_dims(l->n);
    int lo[3], hi[3];
    pipe_split_box(l, lo, hi);
    LAUNCH_RANGE(mg->dev, K_RB_MERGE_F, lo, hi, ARG(x), ARG(l->xs), ARG(n), ARG(l->half_nx),
                 ARG(l->per_colour), ARG(l->end_pad));
}

/* `sweeps` red-black sweeps of level q's split x over its box, colour c0 first; from_zero:
 * x starts at 0 over the box, the first half sweep writing it (mg_smooth_split_zero) where a
 * clearing of the whole buffer cost a pass before every V-cycle leg. */
static void pipe_split_sweeps(PipeLevels *mg, int q, int sweeps, int c0, float omega, int from_zero)
{
    PipeLevel *l = &mg->level[q];
    cl_int4 n = pipe_dims(l->n);
    int lo[3], hi[3];
    pipe_split_box(l, lo, hi);
    for (int h = 0; h < 2 * sweeps; h++) {
        cl_int c = h & 1 ? 1 - c0 : c0;
        PipeKernel k = h == 0 && from_zero ? K_MG_SMOOTH_SPLIT_ZERO : K_MG_SMOOTH_SPLIT;
        LAUNCH_RANGE(mg->dev, k, lo, hi, ARG(l->xs), ARG(l->bs), ARG(l->infos), ARG(n),
                     ARG(l->half_nx), ARG(l->per_colour), ARG(l->end_pad), ARG(c), ARG(omega));
    }
}

/* sweeps on a level 0 of at most PIPE_SERIAL_CELLS, by one work-item in one launch */
static void pipe_sweeps_serial(PipeLevels *mg, int q, int sweeps, int c0, float omega)
{
    PipeLevel *l = &mg->level[q];
    cl_int4 n = pipe_dims(l->n);
    cl_int s = sweeps, c = c0;
    LAUNCH(mg->dev, K_MG_SMOOTH_SERIAL, 1, 1, 1, ARG(l->x), ARG(l->b), ARG(l->count), ARG(n),
           ARG(s), ARG(c), ARG(omega));
}

/* Level 0's x = `sweeps` red-black sweeps on its b from x = 0, and as many black-red ones
 * after them if both_ways: relax's sweeps and pcg's one-level preconditioner. */
void pipe_sweeps_from_zero(PipeLevels *mg, int sweeps, int both_ways, float omega)
{
    int q = 0;
    PipeLevel *l = &mg->level[q];
    if (!l->infos) { /* small enough for one work-item */
        pipe_zero(mg->dev, l->x, l->cells * sizeof(float));
        pipe_sweeps_serial(mg, q, sweeps, 0, omega);
        if (both_ways)
            pipe_sweeps_serial(mg, q, sweeps, 1, omega);
        return;
    }
    pipe_split_sweeps(mg, q, sweeps, 0, omega, 1); /* b is in bs (pipe_true_residual) */
    if (both_ways)
        pipe_split_sweeps(mg, q, sweeps, 1, omega, 0); /* x stays split (pipe_correction) */
}

/* level q's split x += P (level q + 1's x) over the split box [lo, hi): the columns m = 0 and
 * m = hx - 1, whose coarse x neighbour may lie outside the grid, apart (solvers.cl) */
static void pipe_prolong_split(PipeLevels *mg, int q, const int lo[3], const int hi[3])
{
    PipeLevel *l = &mg->level[q], *c = &mg->level[q + 1];
    cl_int4 n = pipe_dims(l->n), nc = pipe_dims(c->n);
    int cut[4] = {lo[0], lo[0] > 1 ? lo[0] : 1, hi[0] < l->half_nx - 1 ? hi[0] : l->half_nx - 1,
                  hi[0]};
    cut[1] = cut[1] < cut[3] ? cut[1] : cut[3];
    cut[2] = cut[2] > cut[1] ? cut[2] : cut[1];
    for (int part = 0; part < 3; part++) {
        int a[3] = { cut[part], lo[1], lo[2] }, b[3] = { cut[part + 1], hi[1], hi[2] };
        cl_int m_end = b[0];
        if (a[0] < b[0])
            LAUNCH_RANGE(mg->dev, part == 1 ? K_MG_PROLONG_SPLIT : K_MG_PROLONG_SPLIT_EDGE, a, b,
                         ARG(l->xs), ARG(c->x), ARG(l->infos), ARG(n), ARG(nc), ARG(l->half_nx),
                         ARG(l->per_colour), ARG(l->end_pad), ARG(m_end));
    }
}


/* Level q's legs of the V-cycle in the split layout (the same steps as below). */
static void pipe_vcycle_split(PipeLevels *mg, int q, int nlev, int coarse_sweeps)
{
    PipeLevel *l = &mg->level[q], *c = &mg->level[q + 1];
    cl_int4 n = pipe_dims(l->n), nc = pipe_dims(c->n);
    int lo[3], hi[3];
    pipe_split_box(l, lo, hi);
    if (q > 0) /* level 0's b is in bs already (pipe_true_residual, cg_update) */
        pipe_split_in(mg, q, l->bs, l->b);
    pipe_split_sweeps(mg, q, MG_SMOOTH, 0, 1.0f, 1);
    LAUNCH_RANGE(mg->dev, K_MG_RESIDUAL_SPLIT, lo, hi, ARG(l->r), ARG(l->xs), ARG(l->bs),
                 ARG(l->infos), ARG(n), ARG(l->half_nx), ARG(l->per_colour), ARG(l->end_pad));
    LAUNCH_BOX(mg, q + 1, K_MG_RESTRICT_SPLIT, ARG(c->b), ARG(l->r), ARG(c->type), ARG(nc), ARG(n),
               ARG(l->half_nx), ARG(l->per_colour), ARG(l->end_pad));
    pipe_vcycle_level(mg, q + 1, nlev, coarse_sweeps);
    pipe_prolong_split(mg, q, lo, hi);
    pipe_split_sweeps(mg, q, MG_SMOOTH, 1, 1.0f, 0);
    if (q > 0) /* level 0's x stays split: the solvers read it there (pipe_correction) */
        pipe_merge_out(mg, q, l->x);
}

/* Levels q..nlev-1, every one small enough for one work-item, in one mg_vcycle_serial launch:
 * its VCYCLE_LEVELS levels' arguments, the unused ones repeating the coarsest's. */
enum { VCYCLE_LEVELS = 4, VCYCLE_LEVEL_ARGS = 8 };
static void pipe_vcycle_serial(PipeLevels *mg, int q, int nlev, int coarse_sweeps)
{
    cl_int levels = nlev - q, sweeps = MG_SMOOTH, coarse = coarse_sweeps;
    cl_int4 dims[VCYCLE_LEVELS][3];
    PipeArg args[3 + VCYCLE_LEVELS * VCYCLE_LEVEL_ARGS] = { ARG(levels), ARG(sweeps), ARG(coarse) };
    for (int v = 0; v < VCYCLE_LEVELS; v++) {
        PipeLevel *l = &mg->level[q + (v < levels ? v : levels - 1)];
        dims[v][0] = pipe_dims(l->n), dims[v][1] = pipe_dims(l->lo), dims[v][2] = pipe_dims(l->hi);
        PipeArg *a = &args[3 + v * VCYCLE_LEVEL_ARGS];
        a[0] = ARG(l->x), a[1] = ARG(l->b), a[2] = ARG(l->r), a[3] = ARG(l->type);
        a[4] = ARG(l->count), a[5] = ARG(dims[v][0]), a[6] = ARG(dims[v][1]), a[7] = ARG(dims[v][2]);
    }
    pipe_launch(mg->dev, K_MG_VCYCLE_SERIAL, 1, 1, 1, args, (int)(sizeof args / sizeof *args));
}

/* x = V-cycle applied to b on level q, levels q..nlev-1; the last level gets coarse_sweeps. */
void pipe_vcycle_level(PipeLevels *mg, int q, int nlev, int coarse_sweeps)
{
    PipeLevel *l = &mg->level[q];
    cl_int4 n = pipe_dims(l->n);
    int last = q == nlev - 1;
    if (pipe_serial_below(mg, q, nlev) && nlev - q <= VCYCLE_LEVELS) {
        pipe_vcycle_serial(mg, q, nlev, coarse_sweeps);
        return;
    }
    if (last && q > 0) {
        cl_int sweeps = coarse_sweeps;
        LAUNCH(mg->dev, K_MG_COARSEST, 1, 1, 1, ARG(l->x), ARG(l->b), ARG(l->count), ARG(n),
               ARG(sweeps));
        return;
    }
    if (pipe_serial_legs(mg, q, nlev)) { /* both legs by one work-item */
        PipeLevel *c = &mg->level[q + 1];
        cl_int4 nc = pipe_dims(c->n);
        cl_int sweeps = MG_SMOOTH;
        cl_int4 lo = pipe_dims(l->lo), hi = pipe_dims(l->hi);
        cl_int4 clo = pipe_dims(c->lo), chi = pipe_dims(c->hi);
        LAUNCH(mg->dev, K_MG_DOWN_SERIAL, 1, 1, 1, ARG(l->x), ARG(l->b), ARG(l->r), ARG(l->type),
               ARG(l->count), ARG(n), ARG(c->b), ARG(c->type), ARG(nc), ARG(sweeps), ARG(lo),
               ARG(hi), ARG(clo), ARG(chi));
        pipe_vcycle_level(mg, q + 1, nlev, coarse_sweeps);
        LAUNCH(mg->dev, K_MG_UP_SERIAL, 1, 1, 1, ARG(l->x), ARG(l->b), ARG(l->type), ARG(l->count),
               ARG(n), ARG(c->x), ARG(nc), ARG(sweeps), ARG(lo), ARG(hi));
        return;
    }
    if (!last) {
        pipe_vcycle_split(mg, q, nlev, coarse_sweeps);
        return;
    }
    pipe_sweeps_from_zero(mg, coarse_sweeps, 1, 1.0f); /* level 0 alone: pcg's preconditioner */
}
