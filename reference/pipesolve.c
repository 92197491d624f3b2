/* pipesolve.c — the pressure solvers of the OpenCL pipeline, on the device's own buffers.
 * flipkit reference/: the same methods as the C reference (multigrid.c, pcg.c, relax.c) except
 * "pcg", whose MIC(0) is sequential: on the device CG is preconditioned with one symmetric
 * red-black Gauss-Seidel sweep instead, which parallelises. Only norms are read back. */
#include <math.h>
#include <string.h>

#include "multigrid.h"
#include "pipe.h"
#include "pipeline.h"

/* As in multigrid.c: coarsen until a level would have fewer than 4 cells along an axis, and
 * smooth with 4 red-black sweeps each way. */
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
    return 2 * (size_t)l->nh + 2 * (size_t)l->pad;
}

static int pipe_alloc_levels(Pipe *P, const MacGrid *g)
{
    int n[3] = { g->nx, g->ny, g->nz };
    for (;;) {
        /* counted first, so that pipe_solver_release frees whatever was made if one fails
         * (pipe_buffer records the failure) */
        PipeLevel *l = &P->level[P->levels++];
        memcpy(l->n, n, sizeof n);
        l->cells = (size_t)n[0] * n[1] * n[2];
        l->type = P->levels == 1 ? P->state.grid.cell : pipe_buffer(P->dev, l->cells);
        l->count = pipe_buffer(P->dev, l->cells * sizeof(cl_ushort));
        int split_level =
            l->cells > (P->levels == 1 ? PIPE_SERIAL_CELLS : PIPE_SERIAL_COARSE_CELLS);
        /* a split level 0 has no x or b in the grid's layout: its b is written split (pipe_b0,
         * cg_update) and its x read split (pipe_z0); a coarser one gets b there from
         * restriction and puts x there for prolongation */
        int grid_layout = !(split_level && P->levels == 1);
        l->x = grid_layout ? pipe_buffer(P->dev, l->cells * sizeof(float)) : NULL;
        l->b = grid_layout ? pipe_buffer(P->dev, l->cells * sizeof(float)) : NULL;
        if (split_level) { /* swept in parallel, in the split layout */
            l->hx = (n[0] + 1) / 2;
            l->nh = l->hx * n[1] * n[2];
            l->pad = l->hx * n[1] + 1;
            size_t split = pipe_split_elements(l);
            /* what the buffers hold is not known yet (x is not cleared here): the first solve
             * that does not cover the whole level clears them (pipe_fluid_box) */
            for (int d = 0; d < 3; d++)
                l->used_lo[d] = 0, l->used_hi[d] = n[d];
            l->r = pipe_buffer(P->dev, split * sizeof(float));
            if (P->dev->failure == CL_SUCCESS)
                pipe_zero(P->dev, l->r, split * sizeof(float));
            l->xs = pipe_buffer(P->dev, split * sizeof(float));
            l->bs = pipe_buffer(P->dev, split * sizeof(float));
            l->infos = pipe_buffer(P->dev, split * sizeof(cl_ushort));
            if (P->dev->failure == CL_SUCCESS) { /* the pads are read (and dropped) as they are */
                pipe_zero(P->dev, l->xs, split * sizeof(float));
                pipe_zero(P->dev, l->bs, split * sizeof(float));
                pipe_zero(P->dev, l->infos, split * sizeof(cl_ushort));
            }
        }
        else
            l->r = pipe_buffer(P->dev, l->cells * sizeof(float));
        if (P->dev->failure != CL_SUCCESS)
            return -1;
        int next[3] = { (n[0] + 1) / 2, (n[1] + 1) / 2, (n[2] + 1) / 2 };
        if (P->levels == MG_MAX_LEVELS || next[0] < MG_MIN_CELLS || next[1] < MG_MIN_CELLS ||
            next[2] < MG_MIN_CELLS)
            return 0;
        memcpy(n, next, sizeof n);
    }
}

void pipe_solver_release(Pipe *P)
{
    cl_mem *bufs[] = { &P->bounds, &P->xd, &P->rd, &P->s, &P->t, &P->rf, &P->cg_scal };
    for (size_t q = 0; q < sizeof bufs / sizeof *bufs; q++)
        pipe_release(bufs[q]);
    for (int q = 0; q < P->levels; q++) {
        PipeLevel *l = &P->level[q];
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
    P->level[0].type = NULL; /* it was the state's cell types */
    P->levels = 0;
}

int pipe_solver_fit(Pipe *P, const MacGrid *g)
{
    size_t n = grid_cells(g);
    pipe_solver_release(P);
    cl_mem *floats[] = { &P->s, &P->t, &P->rf };
    for (size_t q = 0; q < sizeof floats / sizeof *floats; q++)
        *floats[q] = pipe_buffer(P->dev, n * sizeof(float));
    P->xd = pipe_buffer(P->dev, n * sizeof(double));
    P->rd = pipe_buffer(P->dev, n * sizeof(double));
    P->bounds = pipe_buffer(P->dev, PIPE_PARTS * 6 * sizeof(cl_int));
    P->cg_scal = pipe_buffer(P->dev, 3 * sizeof(double));
    return pipe_alloc_levels(P, g);
}

/* Whether level q's legs of an nlev-level V-cycle run in mg_down_serial and mg_up_serial. */
static int pipe_serial_legs(const Pipe *P, int q, int nlev)
{
    const PipeLevel *l = &P->level[q];
    return q < nlev - 1 && !l->infos;
}

/* Neighbour counts of level 0 and, for multigrid, the coarse levels' types and counts (and the
 * serial levels' x and r cleared, see pipe_fluid_box). */
static void pipe_prepare_levels(Pipe *P, int nlev)
{
    for (int q = 0; q < nlev; q++) {
        PipeLevel *l = &P->level[q];
        cl_int4 n = pipe_dims(l->n);
        if (q > 0) {
            cl_int4 nf = pipe_dims(P->level[q - 1].n);
            LAUNCH_CELLS(P, q, K_MG_COARSEN, ARG(l->type), ARG(P->level[q - 1].type), ARG(n), ARG(nf));
        }
        cl_int clear = pipe_serial_legs(P, q, nlev);
        LAUNCH_CELLS(P, q, K_MG_COUNT, ARG(l->count), ARG(l->type), ARG(n), ARG(l->x), ARG(l->r),
                     ARG(clear));
        if (l->infos)
            LAUNCH(P->dev, K_RB_SPLIT_U, (size_t)l->hx, (size_t)l->n[1], (size_t)l->n[2], ARG(l->infos),
                   ARG(l->count), ARG(n), ARG(l->hx), ARG(l->nh), ARG(l->pad));
    }
}

/* Each level's box around its FLUID cells, from level 0's (a coarse cell is FLUID only where
 * a child is, so halving the box holds them). The launches skip what lies outside it, and the
 * sums, taken per z-slab of the box, add the same terms as over the grid; pipe_fluid_box sees
 * that the two vectors read just outside it hold 0 there. */
static void pipe_fluid_bounds(Pipe *P)
{
    PipeLevel *l0 = &P->level[0];
    cl_int4 n = pipe_dims(l0->n);
    int rows = l0->n[1] * l0->n[2];
    cl_int chunk = (rows + PIPE_PARTS - 1) / PIPE_PARTS, nparts = PIPE_PARTS;
    LAUNCH(P->dev, K_FLUID_BOUNDS, PIPE_PARTS, 1, 1, ARG(P->bounds), ARG(P->state.grid.cell), ARG(n), ARG(chunk),
           ARG(nparts));
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
static void pipe_fluid_box(Pipe *P, int nlev, const cl_int *part)
{
    PipeLevel *l0 = &P->level[0];
    int lo[3] = { l0->n[0], l0->n[1], l0->n[2] }, hi[3] = { -1, -1, -1 };
    for (int g = 0; g < PIPE_PARTS; g++)
        for (int d = 0; d < 3; d++) {
            lo[d] = part[6 * g + d] < lo[d] ? part[6 * g + d] : lo[d];
            hi[d] = part[6 * g + 3 + d] > hi[d] ? part[6 * g + 3 + d] : hi[d];
        }
    for (int q = 0; q < nlev; q++) {
        PipeLevel *l = &P->level[q];
        for (int d = 0; d < 3; d++) {
            l->lo[d] = hi[d] < 0 ? 0 : lo[d] >> q;
            l->hi[d] = hi[d] < 0 ? l->n[d] : (hi[d] >> q) + 1;
            l->hi[d] = l->hi[d] < l->n[d] ? l->hi[d] : l->n[d];
        }
    }
    PipeShortcuts *cut = &P->state.shortcut; /* divergence, gradient and extrapolation's box */
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
        PipeLevel *l = &P->level[q];
        if (!l->infos)
            continue;
        if (!pipe_box_holds(l->lo, l->hi, l->used_lo, l->used_hi)) {
            pipe_zero(P->dev, l->r, pipe_split_elements(l) * sizeof(float));
            if (q > 0)
                pipe_zero(P->dev, l->x, l->cells * sizeof(float));
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
 * (pipe_z0); the residual and prolongation between the legs read and write the split x
 * directly. Launches cover the box, two cells per work-item. */
static void pipe_split_box(const PipeLevel *l, int lo[3], int hi[3])
{
    lo[0] = l->lo[0] / 2, lo[1] = l->lo[1], lo[2] = l->lo[2];
    hi[0] = (l->hi[0] + 1) / 2, hi[1] = l->hi[1], hi[2] = l->hi[2];
}

/* dst (split) = src (grid layout) over level q's box */
static void pipe_split_in(Pipe *P, int q, cl_mem dst, cl_mem src)
{
    PipeLevel *l = &P->level[q];
    cl_int4 n = pipe_dims(l->n);
    int lo[3], hi[3];
    pipe_split_box(l, lo, hi);
    LAUNCH_RANGE(P->dev, K_RB_SPLIT_F, lo, hi, ARG(dst), ARG(src), ARG(n), ARG(l->hx), ARG(l->nh),
                 ARG(l->pad));
}

/* x (grid layout) = level q's split x over the box */
static void pipe_merge_out(Pipe *P, int q, cl_mem x)
{
    PipeLevel *l = &P->level[q];
    cl_int4 n = pipe_dims(l->n);
    int lo[3], hi[3];
    pipe_split_box(l, lo, hi);
    LAUNCH_RANGE(P->dev, K_RB_MERGE_F, lo, hi, ARG(x), ARG(l->xs), ARG(n), ARG(l->hx), ARG(l->nh),
                 ARG(l->pad));
}

/* `sweeps` red-black sweeps of level q's split x over its box, colour c0 first; from_zero:
 * x starts at 0 over the box, the first half sweep writing it (mg_smooth_split_zero) where a
 * clearing of the whole buffer cost a pass before every V-cycle leg. */
static void pipe_split_sweeps(Pipe *P, int q, int sweeps, int c0, float omega, int from_zero)
{
    PipeLevel *l = &P->level[q];
    cl_int4 n = pipe_dims(l->n);
    int lo[3], hi[3];
    pipe_split_box(l, lo, hi);
    for (int h = 0; h < 2 * sweeps; h++) {
        cl_int c = h & 1 ? 1 - c0 : c0;
        PipeKernel k = h == 0 && from_zero ? K_MG_SMOOTH_SPLIT_ZERO : K_MG_SMOOTH_SPLIT;
        LAUNCH_RANGE(P->dev, k, lo, hi, ARG(l->xs), ARG(l->bs), ARG(l->infos), ARG(n), ARG(l->hx),
                     ARG(l->nh), ARG(l->pad), ARG(c), ARG(omega));
    }
}

/* sweeps on a level 0 of at most PIPE_SERIAL_CELLS, by one work-item in one launch */
static void pipe_sweeps_serial(Pipe *P, int q, int sweeps, int c0, float omega)
{
    PipeLevel *l = &P->level[q];
    cl_int4 n = pipe_dims(l->n);
    cl_int s = sweeps, c = c0;
    LAUNCH(P->dev, K_MG_SMOOTH_SERIAL, 1, 1, 1, ARG(l->x), ARG(l->b), ARG(l->count), ARG(n), ARG(s),
           ARG(c), ARG(omega));
}

/* Level 0's x = `sweeps` red-black sweeps on its b from x = 0, and as many black-red ones
 * after them if both_ways: relax's sweeps and pcg's one-level preconditioner. */
static void pipe_sweeps_from_zero(Pipe *P, int sweeps, int both_ways, float omega)
{
    int q = 0;
    PipeLevel *l = &P->level[q];
    if (!l->infos) { /* small enough for one work-item */
        pipe_zero(P->dev, l->x, l->cells * sizeof(float));
        pipe_sweeps_serial(P, q, sweeps, 0, omega);
        if (both_ways)
            pipe_sweeps_serial(P, q, sweeps, 1, omega);
        return;
    }
    pipe_split_sweeps(P, q, sweeps, 0, omega, 1); /* b is in bs (pipe_b0) */
    if (both_ways)
        pipe_split_sweeps(P, q, sweeps, 1, omega, 0); /* x stays split (pipe_z0) */
}

/* level q's split x += P (level q + 1's x) over the split box [lo, hi): the columns m = 0 and
 * m = hx - 1, whose coarse x neighbour may lie outside the grid, apart (solvers.cl) */
static void pipe_prolong_split(Pipe *P, int q, const int lo[3], const int hi[3])
{
    PipeLevel *l = &P->level[q], *c = &P->level[q + 1];
    cl_int4 n = pipe_dims(l->n), nc = pipe_dims(c->n);
    int cut[4] = { lo[0], lo[0] > 1 ? lo[0] : 1, hi[0] < l->hx - 1 ? hi[0] : l->hx - 1, hi[0] };
    cut[1] = cut[1] < cut[3] ? cut[1] : cut[3];
    cut[2] = cut[2] > cut[1] ? cut[2] : cut[1];
    for (int part = 0; part < 3; part++) {
        int a[3] = { cut[part], lo[1], lo[2] }, b[3] = { cut[part + 1], hi[1], hi[2] };
        cl_int m_end = b[0];
        if (a[0] < b[0])
            LAUNCH_RANGE(P->dev, part == 1 ? K_MG_PROLONG_SPLIT : K_MG_PROLONG_SPLIT_EDGE, a, b,
                         ARG(l->xs), ARG(c->x), ARG(l->infos), ARG(n), ARG(nc), ARG(l->hx),
                         ARG(l->nh), ARG(l->pad), ARG(m_end));
    }
}

static void pipe_vcycle_level(Pipe *P, int q, int nlev, int coarse_sweeps);

/* Level q's legs of the V-cycle in the split layout (the same steps as below). */
static void pipe_vcycle_split(Pipe *P, int q, int nlev, int coarse_sweeps)
{
    PipeLevel *l = &P->level[q], *c = &P->level[q + 1];
    cl_int4 n = pipe_dims(l->n), nc = pipe_dims(c->n);
    int lo[3], hi[3];
    pipe_split_box(l, lo, hi);
    if (q > 0) /* level 0's b is in bs already (pipe_b0, cg_update) */
        pipe_split_in(P, q, l->bs, l->b);
    pipe_split_sweeps(P, q, MG_SMOOTH, 0, 1.0f, 1);
    LAUNCH_RANGE(P->dev, K_MG_RESIDUAL_SPLIT, lo, hi, ARG(l->r), ARG(l->xs), ARG(l->bs), ARG(l->infos),
                 ARG(n), ARG(l->hx), ARG(l->nh), ARG(l->pad));
    LAUNCH_BOX(P, q + 1, K_MG_RESTRICT_SPLIT, ARG(c->b), ARG(l->r), ARG(c->type), ARG(nc), ARG(n),
               ARG(l->hx), ARG(l->nh), ARG(l->pad));
    pipe_vcycle_level(P, q + 1, nlev, coarse_sweeps);
    pipe_prolong_split(P, q, lo, hi);
    pipe_split_sweeps(P, q, MG_SMOOTH, 1, 1.0f, 0);
    if (q > 0) /* level 0's x stays split: the solvers read it there (pipe_z0) */
        pipe_merge_out(P, q, l->x);
}

/* x = V-cycle applied to b on level q, levels q..nlev-1; the last level gets coarse_sweeps. */
static void pipe_vcycle_level(Pipe *P, int q, int nlev, int coarse_sweeps)
{
    PipeLevel *l = &P->level[q];
    cl_int4 n = pipe_dims(l->n);
    int last = q == nlev - 1;
    if (last && q > 0) {
        cl_int sweeps = coarse_sweeps;
        LAUNCH(P->dev, K_MG_COARSEST, 1, 1, 1, ARG(l->x), ARG(l->b), ARG(l->count), ARG(n),
               ARG(sweeps));
        return;
    }
    if (pipe_serial_legs(P, q, nlev)) { /* both legs by one work-item */
        PipeLevel *c = &P->level[q + 1];
        cl_int4 nc = pipe_dims(c->n);
        cl_int sweeps = MG_SMOOTH;
        cl_int4 lo = pipe_dims(l->lo), hi = pipe_dims(l->hi);
        cl_int4 clo = pipe_dims(c->lo), chi = pipe_dims(c->hi);
        LAUNCH(P->dev, K_MG_DOWN_SERIAL, 1, 1, 1, ARG(l->x), ARG(l->b), ARG(l->r), ARG(l->type),
               ARG(l->count), ARG(n), ARG(c->b), ARG(c->type), ARG(nc), ARG(sweeps), ARG(lo),
               ARG(hi), ARG(clo), ARG(chi));
        pipe_vcycle_level(P, q + 1, nlev, coarse_sweeps);
        LAUNCH(P->dev, K_MG_UP_SERIAL, 1, 1, 1, ARG(l->x), ARG(l->b), ARG(l->type), ARG(l->count),
               ARG(n), ARG(c->x), ARG(nc), ARG(sweeps), ARG(lo), ARG(hi));
        return;
    }
    if (!last) {
        pipe_vcycle_split(P, q, nlev, coarse_sweeps);
        return;
    }
    pipe_sweeps_from_zero(P, coarse_sweeps, 1, 1.0f); /* level 0 alone: pcg's preconditioner */
}

/* ---- sums -------------------------------------------------------------------------------- */

/* ---- the same over level 0's box, a z-slab per work-item (pipe_fluid_box) ------------------- */

typedef struct { cl_int4 n, lo, hi; int slabs; } PipeBox;

static PipeBox pipe_box0(Pipe *P)
{
    PipeLevel *l = &P->level[0];
    PipeBox b = { pipe_dims(l->n), pipe_dims(l->lo), pipe_dims(l->hi), l->hi[2] - l->lo[2] };
    return b;
}

/* a . b over the box into the partials, for cg_alpha */
static void pipe_box_dot_ff(Pipe *P, cl_mem a, cl_mem b)
{
    PipeBox x = pipe_box0(P);
    LAUNCH(P->dev, K_DOT_FF, 1, 1, (size_t)x.slabs, ARG(P->dev->partial_d), ARG(a), ARG(b), ARG(x.n), ARG(x.lo),
           ARG(x.hi));
}

static double pipe_box_norm_d(Pipe *P, cl_mem v)
{
    PipeBox x = pipe_box0(P);
    LAUNCH(P->dev, K_NORM2_D, 1, 1, (size_t)x.slabs, ARG(P->dev->partial_d), ARG(v), ARG(x.n),
           ARG(x.lo), ARG(x.hi));
    return sqrt(pipe_sum_parts(P->dev, x.slabs));
}

/* out = (float) in over the box (outside it, out keeps what it held). */
static void pipe_box_to_float(Pipe *P, cl_mem out, cl_mem in)
{
    PipeBox x = pipe_box0(P);
    LAUNCH_BOX(P, 0, K_TO_FLOAT, ARG(out), ARG(in), ARG(x.n), ARG(x.hi));
}

/* hx, nh, pad of level 0 if it is swept split, else 0: where CG's kernels put its b */
static cl_int4 pipe_split0(Pipe *P)
{
    PipeLevel *l = &P->level[0];
    cl_int4 s = { { l->infos ? l->hx : 0, l->nh, l->pad, 0 } };
    return s;
}

/* Level 0's b = (float) rd over the box, in the layout its sweeps read: split when level 0 is
 * swept split (its V-cycle leg and pipe_sweeps_from_zero then take it as it is). */
static void pipe_b0(Pipe *P)
{
    PipeLevel *l = &P->level[0];
    PipeBox x = pipe_box0(P);
    cl_int4 split = pipe_split0(P);
    if (l->infos)
        LAUNCH_BOX(P, 0, K_TO_FLOAT_SPLIT, ARG(l->bs), ARG(P->rd), ARG(x.n), ARG(x.hi),
                   ARG(split));
    else
        pipe_box_to_float(P, l->b, P->rd);
}

/* Level 0's x as the V-cycle and the sweeps leave it: split when level 0 is swept split (read
 * with pipe_split0's numbers), where a merge into the grid's layout cost a pass per V-cycle. */
static cl_mem pipe_z0(Pipe *P)
{
    PipeLevel *l = &P->level[0];
    return l->infos ? l->xs : l->x;
}

/* xd += z over the box (z is level 0's x, pipe_z0, written over the box only). */
static void pipe_box_add_correction(Pipe *P)
{
    PipeBox x = pipe_box0(P);
    cl_int4 split = pipe_split0(P);
    cl_mem z = pipe_z0(P);
    LAUNCH_BOX(P, 0, K_ADD_CORRECTION, ARG(P->xd), ARG(z), ARG(x.n), ARG(x.hi), ARG(split));
}

/* rd = b - A xd; returns |rd|. */
static double pipe_true_residual(Pipe *P, const MacGrid *g)
{
    cl_int4 n = pipe_grid_dims(g);
    LAUNCH_BOX(P, 0, K_RESIDUAL_D, ARG(P->rd), ARG(P->xd), ARG(P->rf), ARG(P->state.grid.cell),
                 ARG(P->level[0].count), ARG(n));
    return pipe_box_norm_d(P, P->rd);
}

/* p = x over the box; outside it x is 0, and so is p (pressure_rhs zeroes it outside FLUID). */
static void pipe_store_p(Pipe *P)
{
    pipe_box_to_float(P, P->state.grid.p, P->xd);
}

/* ---- jacobi: the jacobi stage repeated, as the driver does on the CPU ---------------------- */

static double pipe_jacobi_residual(Pipe *P, const MacGrid *g, cl_mem p, double bnorm)
{
    cl_int cells = (cl_int)grid_cells(g), chunk = pipe_chunk(grid_cells(g));
    pipe_laplacian(&P->state, g, p, P->state.grid.lap);
    LAUNCH(P->dev, K_RESIDUAL_L, PIPE_PARTS, 1, 1, ARG(P->dev->partial_d), ARG(P->state.grid.rhs), ARG(P->state.grid.lap),
           ARG(P->state.grid.cell), ARG(cells), ARG(chunk));
    return sqrt(pipe_sum(P->dev)) / bnorm;
}

/* bnorm: |rhs| */
static SolveResult pipe_jacobi(Pipe *P, const MacGrid *g, const PressureSettings *set,
                               double bnorm)
{
    size_t cells = grid_cells(g);
    cl_mem p = P->state.grid.p, next = P->s;
    SolveResult res = { .residual = pipe_jacobi_residual(P, g, p, bnorm) };
    res.converged = res.residual <= set->tolerance;
    while (!res.converged && res.iterations < set->iterations && isfinite(res.residual)) {
        pipe_jacobi_sweep(&P->state, g, p, next, set->jacobi_omega);
        cl_mem tmp = p;
        p = next;
        next = tmp;
        res.iterations++;
        if (res.iterations % JACOBI_CHECK_EVERY == 0 || res.iterations == set->iterations) {
            res.residual = pipe_jacobi_residual(P, g, p, bnorm);
            res.converged = res.residual <= set->tolerance;
        }
    }
    if (p != P->state.grid.p)
        pipe_copy(P->dev, p, P->state.grid.p, cells * sizeof(float), "copying p");
    return res;
}

/* ---- red-black Gauss-Seidel and SOR, in correction form as relax.c -------------------- */

/* bnorm: |b| (pressure_rhs made b and the iterate, as for every solver below) */
static SolveResult pipe_relax(Pipe *P, const MacGrid *g, const PressureSettings *set, float omega,
                              double bnorm)
{
    SolveResult res = { .residual = INFINITY };
    for (;;) {
        res.residual = pipe_true_residual(P, g) / bnorm;
        if (res.residual <= set->tolerance || res.iterations >= set->iterations ||
            !isfinite(res.residual))
            break;
        int sweeps = set->iterations - res.iterations;
        sweeps = sweeps < RELAX_CHECK_EVERY ? sweeps : RELAX_CHECK_EVERY;
        pipe_b0(P);
        pipe_sweeps_from_zero(P, sweeps, 0, omega);
        pipe_box_add_correction(P);
        res.iterations += sweeps;
    }
    pipe_store_p(P);
    res.converged = res.residual <= set->tolerance;
    return res;
}

/* ---- multigrid: V-cycles on the residual ------------------------------------------------- */

static SolveResult pipe_multigrid(Pipe *P, const MacGrid *g, const PressureSettings *set,
                                  double bnorm)
{
    SolveResult res = { .residual = INFINITY };
    for (;;) {
        res.residual = pipe_true_residual(P, g) / bnorm;
        if (res.residual <= set->tolerance || res.iterations >= set->iterations ||
            !isfinite(res.residual))
            break;
        pipe_b0(P);
        pipe_vcycle_level(P, 0, P->levels, MG_COARSE_SWEEPS);
        pipe_box_add_correction(P);
        res.iterations++;
    }
    pipe_store_p(P);
    res.converged = res.residual <= set->tolerance;
    return res;
}

/* ---- conjugate gradients, preconditioned by a V-cycle (mgpcg) or one level of it (pcg) ---- */

typedef struct { int levels, coarse_sweeps; } Precon;

/* z (level 0's x, pipe_z0) = M^-1 r, r in float already in level 0's b, split if level 0 is
 * swept split (cg_update and pipe_b0 leave it there). */
static void pipe_precondition(Pipe *P, Precon m)
{
    pipe_vcycle_level(P, 0, m.levels, m.coarse_sweeps);
}

/* sigma = z . r on the device (cg_beta), and beta = sigma / the last sigma unless first */
static void pipe_cg_sigma(Pipe *P, int first)
{
    PipeBox x = pipe_box0(P);
    cl_int slabs = x.slabs, f = first;
    cl_int4 split = pipe_split0(P);
    cl_mem z = pipe_z0(P);
    LAUNCH(P->dev, K_DOT_ZD, 1, 1, (size_t)x.slabs, ARG(P->dev->partial_d), ARG(z), ARG(P->rd),
           ARG(x.n), ARG(x.lo), ARG(x.hi), ARG(split));
    LAUNCH(P->dev, K_CG_BETA, 1, 1, 1, ARG(P->cg_scal), ARG(P->dev->partial_d), ARG(slabs), ARG(f));
}

/* CG with alpha and beta computed on the device: the one wait per iteration is for |r|, which
 * decides whether to go on (and says whether s . A s broke down). */
static void pipe_cg_run(Pipe *P, const MacGrid *g, double bnorm, const PressureSettings *set,
                        Precon m, SolveResult *res)
{
    size_t cells = grid_cells(g);
    cl_int4 dims = pipe_grid_dims(g);
    PipeBox box = pipe_box0(P);
    cl_int slabs = box.slabs;
    cl_mem z = pipe_z0(P);
    cl_int4 split = pipe_split0(P);
    cl_mem b0 = P->level[0].infos ? P->level[0].bs : P->level[0].b;
    pipe_b0(P);
    pipe_precondition(P, m);
    /* s = z: out of the split layout over the box (nothing reads s outside it), else a copy */
    if (split.s[0])
        pipe_merge_out(P, 0, P->s);
    else
        pipe_copy(P->dev, z, P->s, cells * sizeof(float), "copying the direction");
    pipe_cg_sigma(P, 1);
    while (res->iterations < set->iterations && P->dev->failure == CL_SUCCESS) {
        LAUNCH_BOX(P, 0, K_APPLY_A, ARG(P->t), ARG(P->s), ARG(P->state.grid.cell), ARG(P->level[0].count),
                     ARG(dims));
        pipe_box_dot_ff(P, P->s, P->t);
        LAUNCH(P->dev, K_CG_ALPHA, 1, 1, 1, ARG(P->cg_scal), ARG(P->dev->partial_d), ARG(slabs));
        LAUNCH(P->dev, K_CG_UPDATE, 1, 1, (size_t)box.slabs, ARG(P->xd), ARG(P->rd), ARG(b0),
               ARG(P->dev->partial_d), ARG(P->s), ARG(P->t), ARG(P->cg_scal), ARG(box.n),
               ARG(box.lo), ARG(box.hi), ARG(split));
        double scal[3] = { 0.0, 0.0, 0.0 }; /* sigma, alpha, broke (solvers.cl's CG_*) */
        pipe_ok(P->dev, clEnqueueReadBuffer(P->dev->cl.queue, P->cg_scal, CL_FALSE, 0, sizeof scal, scal, 0,
                                       NULL, NULL), "reading CG's scalars");
        double rr = pipe_sum_parts(P->dev, box.slabs); /* waits for both reads */
        if (P->dev->failure != CL_SUCCESS) {
            clFinish(P->dev->cl.queue); /* nothing may still be writing into scal */
            return;
        }
        if (scal[2] != 0.0)
            return; /* breakdown: s . A s <= 0, nothing left to reduce in this direction */
        res->iterations++;
        res->residual = sqrt(rr) / bnorm;
        if (res->residual <= set->tolerance)
            return;
        pipe_precondition(P, m);
        pipe_cg_sigma(P, 0);
        LAUNCH_BOX(P, 0, K_CG_DIRECTION, ARG(P->s), ARG(z), ARG(P->cg_scal), ARG(box.n),
                   ARG(box.hi), ARG(split));
    }
}

/* The recurrence residual drifts from the true one, so convergence is confirmed on b - A x
 * and CG restarts from it when short (as pcg.c does). */
static SolveResult pipe_cg(Pipe *P, const MacGrid *g, const PressureSettings *set, Precon m,
                           double bnorm)
{
    SolveResult res = { .residual = pipe_true_residual(P, g) / bnorm };
    for (int restart = 0; restart <= MAX_RESTARTS; restart++) {
        if (res.residual <= set->tolerance || res.iterations >= set->iterations ||
            P->dev->failure != CL_SUCCESS)
            break;
        pipe_cg_run(P, g, bnorm, set, m, &res);
        res.residual = pipe_true_residual(P, g) / bnorm;
    }
    pipe_store_p(P);
    res.converged = res.residual <= set->tolerance;
    return res;
}

/* ---- choosing ---------------------------------------------------------------------------- */

const char *pipeline_solver_variant(const char *name)
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
static int pipe_solver_levels(const Pipe *P, const char *name)
{
    if (strcmp(name, "jacobi") == 0)
        return 0;
    return strcmp(name, "multigrid") == 0 || strcmp(name, "mgpcg") == 0 ? P->levels : 1;
}

/* Level 0's box around the FLUID cells (pipe_fluid_box) for the cell types classify just
 * wrote, found before the substep's divergence so that divergence and gradient launch on it
 * too; one wait. Not for jacobi, which sweeps the whole grid: the box stays stale and every
 * launch stays whole. */
void pipe_find_box(Pipe *P, const Sim *s)
{
    int nlev = pipe_solver_levels(P, s->solver_name);
    cl_int bounds[PIPE_PARTS * 6] = { 0 };
    if (nlev == 0)
        return;
    pipe_fluid_bounds(P);
    pipe_read(P->dev, P->bounds, bounds, sizeof bounds);
    if (P->dev->failure == CL_SUCCESS)
        pipe_fluid_box(P, nlev, bounds);
}

/* After pressure_rhs: one wait reads |rhs| and |b| (and one before finds the box, unless
 * pipe_find_box found it after classify). b = 0 means p = 0 solves it, as on the host. */
SolveResult pipe_solve(Pipe *P, const Sim *s)
{
    const PressureSettings *set = &s->scene->pressure;
    const MacGrid *g = &s->grid;
    const char *name = s->solver_name;
    int nlev = pipe_solver_levels(P, name), jacobi = nlev == 0;
    double part[2 * PIPE_PARTS], rhs2 = 0.0, b2 = 0.0;
    if (!jacobi) {
        pipe_prepare_levels(P, nlev);
        if (!P->state.shortcut.box_fresh)
            pipe_find_box(P, s);
    }
    pipe_ok(P->dev, clEnqueueReadBuffer(P->dev->cl.queue, P->dev->partial_d, CL_TRUE, 0, sizeof part, part, 0,
                                   NULL, NULL), "reading a sum");
    if (P->dev->failure != CL_SUCCESS) {
        clFinish(P->dev->cl.queue); /* nothing may still be writing into part */
        return (SolveResult){ .residual = NAN };
    }
    for (int q = 0; q < PIPE_PARTS; q++)
        rhs2 += part[q];
    for (int q = 0; q < PIPE_PARTS; q++)
        b2 += part[PIPE_PARTS + q];
    if (rhs2 == 0.0) {
        pipe_zero(P->dev, P->state.grid.p, grid_cells(g) * sizeof(float));
        return (SolveResult){ .converged = true };
    }
    if (jacobi)
        return pipe_jacobi(P, g, set, sqrt(rhs2));
    double bnorm = sqrt(b2);
    if (strcmp(name, "gauss_seidel") == 0)
        return pipe_relax(P, g, set, 1.0f, bnorm);
    if (strcmp(name, "sor") == 0)
        return pipe_relax(P, g, set, set->sor_omega, bnorm);
    if (strcmp(name, "multigrid") == 0)
        return pipe_multigrid(P, g, set, bnorm);
    if (strcmp(name, "mgpcg") == 0)
        return pipe_cg(P, g, set, (Precon){ P->levels, MG_COARSE_SWEEPS }, bnorm);
    return pipe_cg(P, g, set, (Precon){ 1, 1 }, bnorm); /* pcg */
}
