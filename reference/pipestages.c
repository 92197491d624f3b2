/* pipestages.c — the stages of a substep as OpenCL kernels on the pipeline's state.
 * flipkit reference/: each call enqueues its kernels without a wait; the backend (pipeline.c)
 * runs them on the resident state, the stage track (opencl_track.c) on one stage's case, so the
 * stage suites test what --device opencl runs. */
#include "pipestages.h"

#include <limits.h>

/* The nine row colours of p2g_scatter in a fixed order into sums that are 0 (the last
 * p2g_normalize, or pipe_alloc_grid, left them so), then the division. keep_weights: the
 * weights stay for reading (the stage track's p2g), and the next call clears them first. */
void pipe_p2g(PipeState *S, const MacGrid *g, int keep_weights, int classify)
{
    PipeGrid *gr = &S->grid;
    PipeParticles *pt = &S->particles;
    cl_int4 n = pipe_grid_dims(g);
    float dx = g->dx;
    cl_int clear_weight = !keep_weights;
    pipe_sort(S, g);
    for (int a = 0; a < 3 && S->shortcut.weights_kept; a++)
        pipe_zero(S->dev, gr->weight[a], grid_faces(g, a) * sizeof(float));
    S->shortcut.weights_kept = keep_weights;
    size_t rows_y = ((size_t)g->ny + 2) / 3, rows_z = ((size_t)g->nz + 2) / 3;
    size_t group = pipe_small_group(S, g, K_P2G_SCATTER_SMALL);
    if (group)
        LAUNCH_GROUP(S->dev, K_P2G_SCATTER_SMALL, group, ARG(gr->sum[0]), ARG(gr->sum[1]),
                     ARG(gr->sum[2]), ARG(gr->weight[0]), ARG(gr->weight[1]),
                     ARG(gr->weight[2]), ARG(pt->pos), ARG(pt->vel), ARG(gr->start), ARG(n),
                     ARG(dx));
    for (cl_int cz = 0; cz < 3 && !group; cz++)
        for (cl_int cy = 0; cy < 3; cy++)
            LAUNCH(S->dev, K_P2G_SCATTER, rows_y, rows_z, 1, ARG(gr->sum[0]), ARG(gr->sum[1]),
                   ARG(gr->sum[2]), ARG(gr->weight[0]), ARG(gr->weight[1]), ARG(gr->weight[2]),
                   ARG(pt->pos), ARG(pt->vel), ARG(gr->start), ARG(n), ARG(dx), ARG(cy), ARG(cz));
    for (int a = 0; a < 3; a++) {
        cl_int nfaces = (cl_int)grid_faces(g, a);
        /* u has (nx + 1) ny nz faces, more than there are cells */
        cl_int cells = classify && a == 0 ? (cl_int)grid_cells(g) : 0;
        LAUNCH(S->dev, K_P2G_NORMALIZE, (size_t)nfaces, 1, 1, ARG(gr->face[a]), ARG(gr->old[a]),
               ARG(gr->sum[a]), ARG(gr->weight[a]), ARG(clear_weight), ARG(nfaces), ARG(gr->cell),
               ARG(gr->p), ARG(gr->solid), ARG(gr->start), ARG(cells));
    }
    if (classify)
        S->shortcut.box_fresh = 0;
}

void pipe_gravity(PipeState *S, const MacGrid *g, Vec3 gravity, float dt)
{
    PipeGrid *gr = &S->grid;
    cl_int4 n = pipe_grid_dims(g);
    for (cl_int a = 0; a < 3; a++) {
        float dv = dt * vec3_get(gravity, a);
        const int *fn = g->face[a].n;
        LAUNCH(S->dev, K_GRAVITY, (size_t)fn[0], (size_t)fn[1], (size_t)fn[2], ARG(gr->face[a]),
               ARG(gr->cell), ARG(n), ARG(a), ARG(dv));
    }
}

/* Component a of dv, or -0.0 without one: x + -0.0 is x to the bit, signed zeros included. */
static float pipe_dv(const float *dv, int a)
{
    return dv ? dv[a] : -0.0f;
}

/* The cells [lo, hi) a pipeline launch over cells covers: the FLUID box when the pipeline
 * found it for these cell types (PipeShortcuts.box_fresh) and on_box asks for it, else the
 * whole grid. */
static void pipe_cell_range(const PipeState *S, const MacGrid *g, int on_box, int lo[3], int hi[3])
{
    const int n[3] = { g->nx, g->ny, g->nz };
    for (int d = 0; d < 3; d++) {
        lo[d] = on_box && S->shortcut.box_fresh ? S->shortcut.box_lo[d] : 0;
        hi[d] = on_box && S->shortcut.box_fresh ? S->shortcut.box_hi[d] : n[d];
    }
}

/* on_box: only the FLUID box's div (the pipeline: pressure_rhs reads div in FLUID cells only,
 * and those lie in the box); the stage track reads every cell's. */
void pipe_divergence(PipeState *S, const MacGrid *g, const float *dv, int on_box)
{
    PipeGrid *gr = &S->grid;
    cl_int4 n = pipe_grid_dims(g);
    float dx = g->dx;
    cl_float4 dv4 = { { pipe_dv(dv, 0), pipe_dv(dv, 1), pipe_dv(dv, 2), 0.0f } };
    int lo[3], hi[3];
    pipe_cell_range(S, g, on_box, lo, hi);
    LAUNCH_RANGE(S->dev, K_DIVERGENCE, lo, hi, ARG(gr->div), ARG(gr->face[0]), ARG(gr->face[1]),
                 ARG(gr->face[2]), ARG(gr->cell), ARG(n), ARG(dx), ARG(dv4));
}

/* on_box: only the faces with a FLUID side, those of the FLUID box and one more along the
 * component's axis (the pipeline). The faces outside keep what they held: none has a FLUID
 * side, so none is KNOWN to extrapolation, which sets each of them (a wall face, or one it
 * cannot reach, to 0) before anything reads it. The stage track needs every face's value. */
void pipe_gradient(PipeState *S, const MacGrid *g, float scale, const float *dv, int on_box)
{
    PipeGrid *gr = &S->grid;
    cl_int4 n = pipe_grid_dims(g);
    float dx = g->dx;
    int lo[3], hi[3];
    pipe_cell_range(S, g, on_box, lo, hi);
    if (on_box) { /* one launch for the three components, over the box and a face past it */
        cl_float4 dv4 = { { pipe_dv(dv, 0), pipe_dv(dv, 1), pipe_dv(dv, 2), 0.0f } };
        cl_int4 hi4 = pipe_dims(hi);
        const int past[3] = { hi[0] + 1, hi[1] + 1, hi[2] + 1 };
        LAUNCH_RANGE(S->dev, K_GRADIENT3, lo, past, ARG(gr->face[0]), ARG(gr->face[1]),
                     ARG(gr->face[2]), ARG(gr->p), ARG(gr->cell), ARG(n), ARG(dx), ARG(scale),
                     ARG(dv4), ARG(hi4));
        return;
    }
    for (cl_int a = 0; a < 3; a++) {
        const int *fn = g->face[a].n;
        float dva = pipe_dv(dv, a);
        int top[3] = { hi[0], hi[1], hi[2] };
        top[a] = fn[a];
        LAUNCH_RANGE(S->dev, K_GRADIENT, lo, top, ARG(gr->face[a]), ARG(gr->p), ARG(gr->cell),
                     ARG(n), ARG(dx), ARG(scale), ARG(a), ARG(dva));
    }
}

/* The faces extrapolation can change: known ones lie beside FLUID cells, so within the FLUID
 * box (when PipeShortcuts.box_fresh says it is this substep's) and one
 * face past it, and each layer reaches one face further; the rest of the grid only ends up 0.
 * Else (jacobi) the whole grid. */
static void pipe_extrapolation_box(const PipeState *S, const int fn[3], int layers, int lo[3],
                                   int hi[3])
{
    const PipeShortcuts *cut = &S->shortcut;
    for (int d = 0; d < 3; d++) {
        lo[d] = 0, hi[d] = fn[d];
        if (!cut->box_fresh)
            continue;
        int reach = 1 + layers;
        lo[d] = cut->box_lo[d] - reach > 0 ? cut->box_lo[d] - reach : 0;
        hi[d] = cut->box_hi[d] + 1 + reach < fn[d] ? cut->box_hi[d] + 1 + reach : fn[d];
    }
}

void pipe_extrapolate(PipeState *S, const MacGrid *g, int layers)
{
    PipeGrid *gr = &S->grid;
    cl_int4 n = pipe_grid_dims(g);
    for (cl_int a = 0; a < 3; a++) {
        const int *fn = g->face[a].n;
        size_t fx = (size_t)fn[0], fy = (size_t)fn[1], fz = (size_t)fn[2];
        int lo[3], hi[3];
        pipe_extrapolation_box(S, fn, layers, lo, hi);
        cl_int4 fn4 = pipe_dims(fn), lo4 = pipe_dims(lo), hi4 = pipe_dims(hi);
        LAUNCH(S->dev, K_EXTRAP_INIT, fx, fy, fz, ARG(gr->known[0]), ARG(gr->known[1]),
               ARG(gr->face[a]), ARG(gr->cell), ARG(n), ARG(a), ARG(lo4), ARG(hi4));
        _Static_assert(SIM_EXTRAPOLATE_LAYERS >= 1, "the last layer zeroes the faces left unknown");
        layers = layers >= 1 ? layers : 1;
        for (cl_int layer = 0; layer < layers; layer++) {
            cl_int last = layer == layers - 1; /* zeroes what is still unknown */
            LAUNCH_RANGE(S->dev, K_EXTRAP_LAYER, lo, hi, ARG(gr->face[a]),
                         ARG(gr->known[(layer + 1) & 1]), ARG(gr->known[layer & 1]), ARG(fn4),
                         ARG(hi4), ARG(last));
        }
    }
}

void pipe_g2p(PipeState *S, const MacGrid *g, float alpha)
{
    PipeGrid *gr = &S->grid;
    PipeParticles *pt = &S->particles;
    cl_int4 n = pipe_grid_dims(g);
    float dx = g->dx;
    cl_int count = (cl_int)pt->count;
    LAUNCH(S->dev, K_G2P, pt->count, 1, 1, ARG(pt->vel), ARG(pt->pos), ARG(gr->face[0]),
           ARG(gr->face[1]), ARG(gr->face[2]), ARG(gr->old[0]), ARG(gr->old[1]), ARG(gr->old[2]),
           ARG(n), ARG(dx), ARG(alpha), ARG(count));
}

void pipe_g2p_move(PipeState *S, const MacGrid *g, float alpha, float dt, int order)
{
    PipeGrid *gr = &S->grid;
    PipeParticles *pt = &S->particles;
    cl_int4 n = pipe_grid_dims(g);
    cl_int4 nfaces = { { (cl_int)grid_faces(g, 0), (cl_int)grid_faces(g, 1),
                         (cl_int)grid_faces(g, 2), 0 } };
    size_t most = (size_t)(nfaces.s[0] > nfaces.s[1] ? nfaces.s[0] : nfaces.s[1]);
    most = most > (size_t)nfaces.s[2] ? most : (size_t)nfaces.s[2];
    float dx = g->dx, keep = 1.0f - alpha;
    cl_int count = (cl_int)pt->count, ord = order;
    LAUNCH(S->dev, K_G2P_BLEND, most, 1, 1, ARG(gr->old[0]), ARG(gr->old[1]), ARG(gr->old[2]),
           ARG(gr->face[0]), ARG(gr->face[1]), ARG(gr->face[2]), ARG(nfaces), ARG(keep));
    LAUNCH(S->dev, K_G2P_MOVE, pt->count, 1, 1, ARG(pt->vel), ARG(pt->pos), ARG(gr->old[0]),
           ARG(gr->old[1]), ARG(gr->old[2]), ARG(gr->face[0]), ARG(gr->face[1]),
           ARG(gr->face[2]), ARG(n), ARG(dx), ARG(keep), ARG(dt), ARG(ord), ARG(count));
    S->shortcut.keys_fresh = 0;
}

void pipe_advect(PipeState *S, float dt)
{
    PipeParticles *pt = &S->particles;
    cl_int coords = (cl_int)(3 * pt->count);
    LAUNCH(S->dev, K_ADVECT, 3 * pt->count, 1, 1, ARG(pt->pos), ARG(pt->vel), ARG(dt), ARG(coords));
    S->shortcut.keys_fresh = 0;
}

void pipe_keep_inside(PipeState *S, const MacGrid *g)
{
    PipeGrid *gr = &S->grid;
    PipeParticles *pt = &S->particles;
    cl_int4 n = pipe_grid_dims(g);
    float dx = g->dx;
    cl_int count = (cl_int)pt->count;
    LAUNCH(S->dev, K_KEEP_INSIDE, pt->count, 1, 1, ARG(pt->pos), ARG(pt->vel), ARG(pt->keys),
           ARG(gr->cell), ARG(n), ARG(dx), ARG(count));
    S->shortcut.keys_fresh = 1;
}


/* out = L in over the whole grid (the jacobi solver's residual, the laplacian stage). */
void pipe_laplacian(PipeState *S, const MacGrid *g, cl_mem in, cl_mem out)
{
    cl_int4 n = pipe_grid_dims(g);
    float dx = g->dx;
    LAUNCH(S->dev, K_LAPLACIAN, (size_t)g->nx, (size_t)g->ny, (size_t)g->nz, ARG(out), ARG(in),
           ARG(S->grid.cell), ARG(n), ARG(dx));
}

void pipe_jacobi_sweep(PipeState *S, const MacGrid *g, cl_mem in, cl_mem out, float omega)
{
    cl_int4 n = pipe_grid_dims(g);
    float dx = g->dx;
    LAUNCH(S->dev, K_JACOBI, (size_t)g->nx, (size_t)g->ny, (size_t)g->nz, ARG(out), ARG(in),
           ARG(S->grid.rhs), ARG(S->grid.cell), ARG(n), ARG(dx), ARG(omega));
}

void pipe_jacobi_solve(PipeState *S, const MacGrid *g, cl_mem q, const PressureSettings *set,
                       int check_every, size_t group, cl_mem list, cl_mem outcome)
{
    cl_int4 n = pipe_grid_dims(g);
    float dx = g->dx, omega = set->jacobi_omega;
    cl_int cap = set->iterations, every = check_every, chunk = pipe_chunk(grid_cells(g));
    cl_int parts = PIPE_PARTS;
    cl_double tolerance = set->tolerance;
    LAUNCH_GROUP(S->dev, K_JACOBI_SOLVE, group, ARG(S->grid.p), ARG(q), ARG(S->grid.rhs),
                 ARG(S->grid.cell), ARG(n), ARG(dx), ARG(omega), ARG(cap), ARG(every),
                 ARG(tolerance), ARG(list), ARG(S->dev->partial_d), ARG(chunk), ARG(parts),
                 ARG(outcome));
}

float pipe_max_speed2(PipeState *S)
{
    float part[PIPE_PARTS], most = 0.0f;
    cl_int n = (cl_int)S->particles.count, chunk = pipe_chunk(S->particles.count);
    LAUNCH(S->dev, K_MAX_SPEED2, PIPE_PARTS, 1, 1, ARG(S->dev->partial_f), ARG(S->particles.vel),
           ARG(n), ARG(chunk));
    pipe_read(S->dev, S->dev->partial_f, part, sizeof part);
    for (int q = 0; q < PIPE_PARTS; q++)
        most = part[q] > most ? part[q] : most;
    return most;
}

int pipe_report(const PipeDevice *D, Sim *s)
{
    if (D->failure == CL_SUCCESS)
        return 0;
    return sim_fail(s, clx_out_of_memory(D->failure) ? RUN_OUT_OF_MEMORY : RUN_COULD_NOT_RUN,
                    "opencl (%s): %s failed: %s", D->cl.name, D->failed_at,
                    clx_error_name(D->failure));
}

/* A check's number on the device: its phase and place; and the launch's slots for checks. */
enum { PIPE_PLACES = SIM_AT_PARTICLE + 1, CHECK_SLOTS = 4, CHECK_NUMBERS = 64 };
_Static_assert(PHASE_COUNT * PIPE_PLACES <= CHECK_NUMBERS, "a check's number fits its key");

void pipe_check_finite_all(PipeState *S, const PipeCheck *checks, int count)
{
    cl_int4 number = { { -1, -1, -1, -1 } }, counts = { { 0 } }, chunks = { { 0 } };
    cl_mem v[3] = { NULL, NULL, NULL };
    cl_int fluid_only = 0;
    if (count < 1 || count > 3 || S->check_seq >= INT_MAX / (CHECK_SLOTS * CHECK_NUMBERS)) {
        pipe_ok(S->dev, CL_INVALID_VALUE, count < 1 || count > 3
                                              ? "pipe_check_finite_all of other than 1-3 checks"
                                              : "more checks in a frame than their keys count");
        return;
    }
    for (int q = 0; q < count; q++) {
        number.s[q] = (cl_int)(checks[q].phase * PIPE_PLACES + checks[q].place);
        counts.s[q] = (cl_int)checks[q].n;
        chunks.s[q] = pipe_chunk(checks[q].n);
        v[q] = checks[q].v;
        fluid_only |= checks[q].place == SIM_AT_CELL;
    }
    for (int q = count; q < 3; q++)
        v[q] = v[0]; /* a buffer for the argument; number -1 leaves it unread */
    cl_int base = S->check_seq++ * CHECK_SLOTS * CHECK_NUMBERS;
    LAUNCH(S->dev, K_FIRST_NONFINITE, PIPE_PARTS, (size_t)count, 1, ARG(v[0]), ARG(v[1]),
           ARG(v[2]), ARG(number), ARG(counts), ARG(chunks), ARG(S->grid.cell), ARG(fluid_only),
           ARG(base), ARG(S->nonfinite));
}

void pipe_check_finite(PipeState *S, SimPhase phase, SimPlace place, cl_mem v, size_t n)
{
    const PipeCheck one = { phase, place, v, n };
    pipe_check_finite_all(S, &one, 1);
}

/* The field a phase's check at place looked at, by the host backend's names. */
static const char *pipe_checked_field(SimPhase phase, SimPlace place)
{
    if (place <= SIM_AT_W)
        return grid_component_name((int)place);
    if (place == SIM_AT_CELL)
        return phase == PHASE_DIVERGENCE ? "div" : "p";
    return phase == PHASE_ADVECT ? "position" : "velocity";
}

int pipe_nonfinite_report(PipeState *S, Sim *s)
{
    cl_int found[1 + CHECK_SLOTS] = { INT_MAX };
    pipe_read(S->dev, S->nonfinite, found, sizeof found);
    if (S->dev->failure != CL_SUCCESS)
        return pipe_report(S->dev, s);
    if (found[0] == INT_MAX) { /* nothing yet: the launches' count starts again */
        S->check_seq = 0;
        return pipe_report(S->dev, s);
    }
    int check = found[0] % CHECK_NUMBERS, q = found[0] / CHECK_NUMBERS % CHECK_SLOTS;
    SimPhase phase = (SimPhase)(check / PIPE_PLACES);
    SimPlace place = (SimPlace)(check % PIPE_PLACES);
    size_t index = (size_t)found[1 + q];
    if (place == SIM_AT_PARTICLE)
        index /= 3; /* the particle's place in the device's cell order */
    if (place == SIM_AT_CELL)
        pipe_read(S->dev, S->grid.cell, s->grid.cell, grid_cells(&s->grid));
    return sim_fail_nonfinite(s, phase, place, pipe_checked_field(phase, place), index, NULL);
}
