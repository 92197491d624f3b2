/* pipeline.c — the reference's substep on an OpenCL device with the state resident there.
 * flipkit reference/: a SimBackend; sim_substep orders the phases, this file runs each as kernels
 * from kernels/, waits once per phase (for the timings) and reads back only frames. */
#include "pipeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pipe.h"

/* Parts of the scan of the cell counts (sort.cl), a few per core. */
enum { PIPE_SCAN_PARTS = 16 };

/* Grid-sized buffers, made on the first upload (the device is opened before the grid exists)
 * and again for a grid of another size (the stage track's cases). */
static void pipe_alloc_grid(Pipe *P, const MacGrid *g)
{
    P->grid_n[0] = g->nx;
    P->grid_n[1] = g->ny;
    P->grid_n[2] = g->nz;
    size_t n = grid_cells(g), fmax = 0;
    cl_mem *floats[] = { &P->p, &P->div, &P->rhs, &P->lap, &P->s, &P->t, &P->rf };
    for (size_t q = 0; q < sizeof floats / sizeof *floats; q++)
        *floats[q] = pipe_buffer(P->dev, n * sizeof(float));
    P->solid = pipe_buffer(P->dev, n);
    P->cell = pipe_buffer(P->dev, n);
    P->counts = pipe_buffer(P->dev, n * sizeof(cl_int));
    if (P->dev->failure == CL_SUCCESS)
        pipe_zero(P->dev, P->counts, n * sizeof(cl_int));
    P->start = pipe_buffer(P->dev, (n + 1) * sizeof(cl_int));
    P->xd = pipe_buffer(P->dev, n * sizeof(double));
    P->rd = pipe_buffer(P->dev, n * sizeof(double));
    for (int a = 0; a < 3; a++) {
        size_t bytes = grid_faces(g, a) * sizeof(float);
        P->face[a] = pipe_buffer(P->dev, bytes);
        P->weight[a] = pipe_buffer(P->dev, bytes);
        P->sum[a] = pipe_buffer(P->dev, bytes);
        P->old[a] = pipe_buffer(P->dev, bytes);
        if (P->dev->failure == CL_SUCCESS) { /* once: each p2g_normalize leaves them 0 again */
            pipe_zero(P->dev, P->sum[a], bytes);
            pipe_zero(P->dev, P->weight[a], bytes);
        }
        P->weights_kept = 0;
        fmax = grid_faces(g, a) > fmax ? grid_faces(g, a) : fmax;
    }
    P->known[0] = pipe_buffer(P->dev, fmax);
    P->known[1] = pipe_buffer(P->dev, fmax);
    P->bounds = pipe_buffer(P->dev, PIPE_PARTS * 6 * sizeof(cl_int));
    P->scan_sums = pipe_buffer(P->dev, PIPE_SCAN_PARTS * sizeof(cl_int));
    P->cg_scal = pipe_buffer(P->dev, 3 * sizeof(double));
    pipe_alloc_levels(P, g);
}

static void pipe_release_grid(Pipe *P)
{
    cl_mem *bufs[] = { &P->solid, &P->cell, &P->p, &P->div, &P->rhs, &P->lap, &P->counts,
                       &P->start, &P->known[0], &P->known[1], &P->bounds, &P->scan_sums, &P->xd, &P->rd, &P->s, &P->t, &P->rf,
                       &P->cg_scal };
    for (size_t q = 0; q < sizeof bufs / sizeof *bufs; q++)
        pipe_release(bufs[q]);
    for (int a = 0; a < 3; a++) {
        pipe_release(&P->face[a]);
        pipe_release(&P->weight[a]);
        pipe_release(&P->sum[a]);
        pipe_release(&P->old[a]);
    }
    pipe_surface_release(P);
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
    P->level[0].type = NULL; /* it was P->cell */
    P->levels = 0;
}

static void pipe_reserve_particles(Pipe *P, size_t count)
{
    if (count <= P->capacity && P->pos)
        return;
    cl_mem *vec3s[] = { &P->pos, &P->vel, &P->spare_pos, &P->spare_vel };
    cl_mem *ints[] = { &P->id, &P->spare_id, &P->keys, &P->sorted };
    P->capacity = count + count / 4 + 64;
    for (size_t q = 0; q < sizeof vec3s / sizeof *vec3s; q++) {
        pipe_release(vec3s[q]);
        *vec3s[q] = pipe_buffer(P->dev, P->capacity * sizeof(Vec3));
    }
    for (size_t q = 0; q < sizeof ints / sizeof *ints; q++) {
        pipe_release(ints[q]);
        *ints[q] = pipe_buffer(P->dev, P->capacity * sizeof(cl_int));
    }
}

int pipe_fit(Pipe *P, const MacGrid *g, size_t count)
{
    if (g && P->p && (P->grid_n[0] != g->nx || P->grid_n[1] != g->ny || P->grid_n[2] != g->nz))
        pipe_release_grid(P);
    if (g && !P->p)
        pipe_alloc_grid(P, g);
    pipe_reserve_particles(P, count);
    P->count = count;
    P->keys_fresh = 0; /* the caller writes new particles */
    P->box_fresh = 0;
    return P->dev->failure == CL_SUCCESS ? 0 : -1;
}

int pipe_report(Pipe *P, Sim *s)
{
    if (P->dev->failure == CL_SUCCESS)
        return 0;
    return sim_fail(s, clx_out_of_memory(P->dev->failure) ? SIM_OUT_OF_MEMORY : SIM_FAILED,
                    "opencl (%s): %s failed: %s", P->name, P->dev->failed_at,
                    clx_error_name(P->dev->failure));
}

/* ---- moving the state (SimBackend calls) --------------------------------------------------- */

static Pipe *pipe_of(Sim *s)
{
    return (Pipe *)s->backend;
}

static int pipe_upload(Sim *s)
{
    Pipe *P = pipe_of(s);
    const MacGrid *g = &s->grid;
    if (pipe_fit(P, g, s->particles.count) != 0)
        return pipe_report(P, s);
    size_t n = grid_cells(g);
    pipe_write(P->dev, P->solid, s->solid, n);
    pipe_write(P->dev, P->p, g->p, n * sizeof(float));
    pipe_write(P->dev, P->pos, s->particles.pos, P->count * sizeof(Vec3));
    pipe_write(P->dev, P->vel, s->particles.vel, P->count * sizeof(Vec3));
    cl_int *id = malloc((P->count ? P->count : 1) * sizeof *id);
    if (!id)
        return sim_fail(s, SIM_OUT_OF_MEMORY, "opencl upload: out of memory");
    for (size_t p = 0; p < P->count; p++)
        id[p] = (cl_int)p;
    pipe_write(P->dev, P->id, id, P->count * sizeof *id);
    free(id);
    return pipe_report(P, s);
}

/* The device holds the particles in cell order; the host's copy stays in its own order, so
 * frames and checkpoints list particle p at place p whichever device ran. */
static int pipe_unpermute(Pipe *P, Sim *s)
{
    Vec3 *pos = malloc((P->count ? P->count : 1) * sizeof *pos);
    Vec3 *vel = malloc((P->count ? P->count : 1) * sizeof *vel);
    cl_int *id = malloc((P->count ? P->count : 1) * sizeof *id);
    int rc = pos && vel && id ? 0 : -1;
    if (rc == 0) {
        pipe_read(P->dev, P->pos, pos, P->count * sizeof(Vec3));
        pipe_read(P->dev, P->vel, vel, P->count * sizeof(Vec3));
        pipe_read(P->dev, P->id, id, P->count * sizeof(cl_int));
    }
    for (size_t q = 0; rc == 0 && P->dev->failure == CL_SUCCESS && q < P->count; q++) {
        if (id[q] < 0 || (size_t)id[q] >= P->count) {
            rc = sim_fail(s, SIM_FAILED, "the opencl pipeline lost track of its particles: "
                          "place %zu holds id %d of %zu", q, (int)id[q], P->count);
            break;
        }
        s->particles.pos[id[q]] = pos[q];
        s->particles.vel[id[q]] = vel[q];
    }
    if (!pos || !vel || !id)
        sim_fail(s, SIM_OUT_OF_MEMORY, "opencl download: out of memory");
    free(pos);
    free(vel);
    free(id);
    return rc;
}

static int pipe_download(Sim *s)
{
    Pipe *P = pipe_of(s);
    if (pipe_unpermute(P, s) != 0)
        return -1;
    pipe_read(P->dev, P->p, s->grid.p, grid_cells(&s->grid) * sizeof(float));
    if (pipe_report(P, s) != 0)
        return -1;
    /* The C path checks every stage; here the frame is checked once it is back. */
    for (size_t p = 0; p < P->count; p++) {
        Vec3 x = s->particles.pos[p], v = s->particles.vel[p];
        if (!isfinite(x.x + x.y + x.z + v.x + v.y + v.z)) {
            return sim_fail(s, SIM_FAILED, "the opencl pipeline wrote position (%g, %g, %g), "
                            "velocity (%g, %g, %g) to particle %zu", x.x, x.y, x.z, v.x, v.y,
                            v.z, p);
        }
    }
    return 0;
}

static int pipe_max_speed2(Sim *s, float *out)
{
    Pipe *P = pipe_of(s);
    float part[PIPE_PARTS];
    cl_int n = (cl_int)P->count, chunk = pipe_chunk(P->count);
    LAUNCH(P->dev, K_MAX_SPEED2, PIPE_PARTS, 1, 1, ARG(P->dev->partial_f), ARG(P->vel), ARG(n), ARG(chunk));
    pipe_read(P->dev, P->dev->partial_f, part, sizeof part);
    *out = 0.0f;
    for (int q = 0; q < PIPE_PARTS; q++)
        *out = part[q] > *out ? part[q] : *out;
    return pipe_report(P, s);
}

/* ---- the substep, phase by phase ------------------------------------------------------------ */

/* Particles per work-item of sort_keys and sort_scatter: enough that runs of a cell's particles
 * stay whole, few enough that both cores get hundreds of work-items at 32^3. */
enum { PIPE_SORT_CHUNK = 256 };

/* Particles sorted by cell: cell c's particles are sorted[start[c] .. start[c+1] - 1], by id
 * (so the order is the same on every run, resumed or not). */
void pipe_sort_index(Pipe *P, const MacGrid *g)
{
    cl_int4 n = pipe_grid_dims(g);
    cl_int count = (cl_int)P->count, ncells = (cl_int)grid_cells(g);
    float dx = g->dx;
    cl_int chunk = PIPE_SORT_CHUNK; /* the counts are 0: pipe_alloc_grid, then sort_scatter */
    size_t walkers = (P->count + PIPE_SORT_CHUNK - 1) / PIPE_SORT_CHUNK;
    cl_int fresh = P->keys_fresh;
    LAUNCH(P->dev, K_SORT_KEYS, walkers, 1, 1, ARG(P->keys), ARG(P->counts), ARG(P->pos), ARG(n),
           ARG(dx), ARG(count), ARG(chunk), ARG(fresh));
    P->keys_fresh = 1;
    /* a work-group per part, of one work-item: in wider ones PoCL ran the parts side by side
     * in the vector lanes, each lane a chunk away from the next (gathers and scatters) */
    cl_int nparts = PIPE_SCAN_PARTS, cells_chunk = (ncells + nparts - 1) / nparts;
    LAUNCH_SINGLES(P->dev, K_SORT_SCAN_SUMS, PIPE_SCAN_PARTS, ARG(P->scan_sums), ARG(P->counts),
                   ARG(ncells), ARG(cells_chunk), ARG(nparts));
    LAUNCH(P->dev, K_SORT_SCAN_PARTS, 1, 1, 1, ARG(P->scan_sums), ARG(P->start), ARG(ncells),
           ARG(nparts));
    LAUNCH_SINGLES(P->dev, K_SORT_SCAN_WRITE, PIPE_SCAN_PARTS, ARG(P->start), ARG(P->counts),
                   ARG(P->scan_sums), ARG(ncells), ARG(cells_chunk), ARG(nparts));
    LAUNCH(P->dev, K_SORT_SCATTER, walkers, 1, 1, ARG(P->sorted), ARG(P->counts), ARG(P->start),
           ARG(P->keys), ARG(count), ARG(chunk));
    LAUNCH(P->dev, K_SORT_BUCKETS, grid_cells(g), 1, 1, ARG(P->sorted), ARG(P->start), ARG(P->id),
           ARG(ncells));
}

long pipeline_leftover_counts(SimBackend *b)
{
    Pipe *P = (Pipe *)b;
    size_t cells = (size_t)P->grid_n[0] * P->grid_n[1] * P->grid_n[2];
    cl_int *counts = P->counts ? malloc(cells * sizeof *counts) : NULL;
    if (!counts)
        return -1;
    pipe_read(P->dev, P->counts, counts, cells * sizeof *counts);
    long left = P->dev->failure == CL_SUCCESS ? 0 : -1;
    for (size_t c = 0; c < cells && left >= 0; c++)
        left += counts[c] != 0;
    free(counts);
    return left;
}

/* ... and moved into that order, so cell c's particles are at start[c] .. start[c+1] - 1. */
void pipe_sort(Pipe *P, const MacGrid *g)
{
    cl_int count = (cl_int)P->count;
    pipe_sort_index(P, g);
    P->keys_fresh = 0; /* keys follow the old order */
    LAUNCH(P->dev, K_SORT_PERMUTE, P->count, 1, 1, ARG(P->spare_pos), ARG(P->spare_vel),
           ARG(P->spare_id), ARG(P->pos), ARG(P->vel), ARG(P->id), ARG(P->sorted), ARG(count));
    cl_mem *pairs[][2] = { { &P->pos, &P->spare_pos }, { &P->vel, &P->spare_vel },
                           { &P->id, &P->spare_id } };
    for (size_t q = 0; q < sizeof pairs / sizeof *pairs; q++) {
        cl_mem t = *pairs[q][0];
        *pairs[q][0] = *pairs[q][1];
        *pairs[q][1] = t;
    }
}

/* The nine row colours of p2g_scatter in a fixed order into sums that are 0 (the last
 * p2g_normalize, or pipe_alloc_grid, left them so), then the division. keep_weights: the
 * weights stay for reading (the stage track's p2g), and the next call clears them first. */
void pipe_p2g(Pipe *P, const MacGrid *g, int keep_weights, int classify)
{
    cl_int4 n = pipe_grid_dims(g);
    float dx = g->dx;
    cl_int clear_weight = !keep_weights;
    pipe_sort(P, g);
    for (int a = 0; a < 3 && P->weights_kept; a++)
        pipe_zero(P->dev, P->weight[a], grid_faces(g, a) * sizeof(float));
    P->weights_kept = keep_weights;
    size_t rows_y = ((size_t)g->ny + 2) / 3, rows_z = ((size_t)g->nz + 2) / 3;
    for (cl_int cz = 0; cz < 3; cz++)
        for (cl_int cy = 0; cy < 3; cy++)
            LAUNCH(P->dev, K_P2G_SCATTER, rows_y, rows_z, 1, ARG(P->sum[0]), ARG(P->sum[1]),
                   ARG(P->sum[2]), ARG(P->weight[0]), ARG(P->weight[1]), ARG(P->weight[2]),
                   ARG(P->pos), ARG(P->vel), ARG(P->start), ARG(n), ARG(dx), ARG(cy), ARG(cz));
    for (int a = 0; a < 3; a++) {
        cl_int nfaces = (cl_int)grid_faces(g, a);
        /* u has (nx + 1) ny nz faces, more than there are cells */
        cl_int cells = classify && a == 0 ? (cl_int)grid_cells(g) : 0;
        LAUNCH(P->dev, K_P2G_NORMALIZE, (size_t)nfaces, 1, 1, ARG(P->face[a]), ARG(P->old[a]),
               ARG(P->sum[a]), ARG(P->weight[a]), ARG(clear_weight), ARG(nfaces), ARG(P->cell),
               ARG(P->p), ARG(P->solid), ARG(P->start), ARG(cells));
    }
    if (classify)
        P->box_fresh = 0;
}

void pipe_gravity(Pipe *P, const MacGrid *g, Vec3 gravity, float dt)
{
    cl_int4 n = pipe_grid_dims(g);
    for (cl_int a = 0; a < 3; a++) {
        float dv = dt * vec3_get(gravity, a);
        const int *fn = g->face[a].n;
        LAUNCH(P->dev, K_GRAVITY, (size_t)fn[0], (size_t)fn[1], (size_t)fn[2], ARG(P->face[a]),
               ARG(P->cell), ARG(n), ARG(a), ARG(dv));
    }
}

/* Component a of dv, or -0.0 without one: x + -0.0 is x to the bit, signed zeros included. */
static float pipe_dv(const float *dv, int a)
{
    return dv ? dv[a] : -0.0f;
}

/* The cells [lo, hi) a pipeline launch over cells covers: level 0's FLUID box when the
 * pipeline found it for these cell types (pipe_find_box, after classify) and on_box asks for
 * it, else the whole grid. */
static void pipe_cell_range(const Pipe *P, const MacGrid *g, int on_box, int lo[3], int hi[3])
{
    const int n[3] = { g->nx, g->ny, g->nz };
    for (int d = 0; d < 3; d++) {
        lo[d] = on_box && P->box_fresh ? P->level[0].lo[d] : 0;
        hi[d] = on_box && P->box_fresh ? P->level[0].hi[d] : n[d];
    }
}

/* on_box: only the FLUID box's div (the pipeline: pressure_rhs reads div in FLUID cells only,
 * and those lie in the box); the stage track reads every cell's. */
void pipe_divergence(Pipe *P, const MacGrid *g, const float *dv, int on_box)
{
    cl_int4 n = pipe_grid_dims(g);
    float dx = g->dx;
    cl_float4 dv4 = { { pipe_dv(dv, 0), pipe_dv(dv, 1), pipe_dv(dv, 2), 0.0f } };
    int lo[3], hi[3];
    pipe_cell_range(P, g, on_box, lo, hi);
    LAUNCH_RANGE(P->dev, K_DIVERGENCE, lo, hi, ARG(P->div), ARG(P->face[0]), ARG(P->face[1]),
                 ARG(P->face[2]), ARG(P->cell), ARG(n), ARG(dx), ARG(dv4));
}

/* on_box: only the faces with a FLUID side, those of the FLUID box and one more along the
 * component's axis (the pipeline). The faces outside keep what they held: none has a FLUID
 * side, so none is KNOWN to extrapolation, which sets each of them (a wall face, or one it
 * cannot reach, to 0) before anything reads it. The stage track needs every face's value. */
void pipe_gradient(Pipe *P, const MacGrid *g, float scale, const float *dv, int on_box)
{
    cl_int4 n = pipe_grid_dims(g);
    float dx = g->dx;
    for (cl_int a = 0; a < 3; a++) {
        const int *fn = g->face[a].n;
        float dva = pipe_dv(dv, a);
        int lo[3], hi[3];
        pipe_cell_range(P, g, on_box, lo, hi);
        hi[a] = hi[a] + 1 < fn[a] ? hi[a] + 1 : fn[a];
        LAUNCH_RANGE(P->dev, K_GRADIENT, lo, hi, ARG(P->face[a]), ARG(P->p), ARG(P->cell), ARG(n),
                     ARG(dx), ARG(scale), ARG(a), ARG(dva));
    }
}

/* The faces extrapolation can change: known ones lie beside FLUID cells, so within the FLUID
 * box (pipe_fluid_box, when pipe_find_box found it for this substep's cell types) and one
 * face past it, and each layer reaches one face further; the rest of the grid only ends up 0.
 * Else (jacobi) the whole grid. */
static void pipe_extrapolation_box(Pipe *P, const int fn[3], int lo[3], int hi[3])
{
    for (int d = 0; d < 3; d++) {
        lo[d] = 0, hi[d] = fn[d];
        if (!P->box_fresh)
            continue;
        int reach = 1 + SIM_EXTRAPOLATE_LAYERS;
        lo[d] = P->level[0].lo[d] - reach > 0 ? P->level[0].lo[d] - reach : 0;
        hi[d] = P->level[0].hi[d] + 1 + reach < fn[d] ? P->level[0].hi[d] + 1 + reach : fn[d];
    }
}

void pipe_extrapolate(Pipe *P, const MacGrid *g)
{
    cl_int4 n = pipe_grid_dims(g);
    for (cl_int a = 0; a < 3; a++) {
        const int *fn = g->face[a].n;
        size_t fx = (size_t)fn[0], fy = (size_t)fn[1], fz = (size_t)fn[2];
        int lo[3], hi[3];
        pipe_extrapolation_box(P, fn, lo, hi);
        cl_int4 fn4 = pipe_dims(fn), lo4 = pipe_dims(lo), hi4 = pipe_dims(hi);
        LAUNCH(P->dev, K_EXTRAP_INIT, fx, fy, fz, ARG(P->known[0]), ARG(P->known[1]), ARG(P->face[a]),
               ARG(P->cell), ARG(n), ARG(a), ARG(lo4), ARG(hi4));
        _Static_assert(SIM_EXTRAPOLATE_LAYERS >= 1, "the last layer zeroes the faces left unknown");
        for (cl_int layer = 0; layer < SIM_EXTRAPOLATE_LAYERS; layer++) {
            cl_int last = layer == SIM_EXTRAPOLATE_LAYERS - 1; /* zeroes what is still unknown */
            LAUNCH_RANGE(P->dev, K_EXTRAP_LAYER, lo, hi, ARG(P->face[a]), ARG(P->known[(layer + 1) & 1]),
                         ARG(P->known[layer & 1]), ARG(fn4), ARG(hi4), ARG(last));
        }
    }
}

void pipe_g2p(Pipe *P, const MacGrid *g, float alpha)
{
    cl_int4 n = pipe_grid_dims(g);
    float dx = g->dx;
    cl_int count = (cl_int)P->count;
    LAUNCH(P->dev, K_G2P, P->count, 1, 1, ARG(P->vel), ARG(P->pos), ARG(P->face[0]), ARG(P->face[1]),
           ARG(P->face[2]), ARG(P->old[0]), ARG(P->old[1]), ARG(P->old[2]), ARG(n), ARG(dx),
           ARG(alpha), ARG(count));
}

void pipe_g2p_blended(Pipe *P, const MacGrid *g, float alpha)
{
    cl_int4 n = pipe_grid_dims(g);
    cl_int4 nfaces = { { (cl_int)grid_faces(g, 0), (cl_int)grid_faces(g, 1), (cl_int)grid_faces(g, 2), 0 } };
    size_t most = (size_t)(nfaces.s[0] > nfaces.s[1] ? nfaces.s[0] : nfaces.s[1]);
    most = most > (size_t)nfaces.s[2] ? most : (size_t)nfaces.s[2];
    float dx = g->dx, keep = 1.0f - alpha;
    cl_int count = (cl_int)P->count;
    LAUNCH(P->dev, K_G2P_BLEND, most, 1, 1, ARG(P->old[0]), ARG(P->old[1]), ARG(P->old[2]), ARG(P->face[0]),
           ARG(P->face[1]), ARG(P->face[2]), ARG(nfaces), ARG(keep));
    LAUNCH(P->dev, K_G2P_BLENDED, P->count, 1, 1, ARG(P->vel), ARG(P->pos), ARG(P->old[0]), ARG(P->old[1]),
           ARG(P->old[2]), ARG(n), ARG(dx), ARG(keep), ARG(count));
}

void pipe_advect(Pipe *P, float dt)
{
    cl_int coords = (cl_int)(3 * P->count);
    LAUNCH(P->dev, K_ADVECT, 3 * P->count, 1, 1, ARG(P->pos), ARG(P->vel), ARG(dt), ARG(coords));
    P->keys_fresh = 0;
}

void pipe_keep_inside(Pipe *P, const MacGrid *g)
{
    cl_int4 n = pipe_grid_dims(g);
    float dx = g->dx;
    cl_int count = (cl_int)P->count;
    LAUNCH(P->dev, K_KEEP_INSIDE, P->count, 1, 1, ARG(P->pos), ARG(P->vel), ARG(P->keys), ARG(P->cell),
           ARG(n), ARG(dx), ARG(count));
    P->keys_fresh = 1;
}

/* ---- the phases (SimBackend calls) ---------------------------------------------------------- */

/* Waits for the phase's kernels, so sim_substep books each phase's own time (the per-stage
 * table of a device run means what it means on the CPU), and turns a failure into one line. */
static int pipe_finish(Pipe *P, Sim *s)
{
    pipe_wait(P->dev);
    return pipe_report(P, s);
}

static int pipe_phase_p2g(Sim *s)
{
    pipe_p2g(pipe_of(s), &s->grid, 0, 1); /* classify fused in: pipe_phase_classify */
    return pipe_finish(pipe_of(s), s);
}

/* The cells were classified in p2g's normalize pass (u's p2g_normalize), from the sort's
 * starts. What is left is the FLUID box, found here, not in the solve, so that divergence and
 * gradient launch on it too (pipe_find_box). */
static int pipe_phase_classify(Sim *s)
{
    pipe_find_box(pipe_of(s), s);
    return pipe_finish(pipe_of(s), s);
}

/* Gravity costs no pass of its own: divergence reads every face that is not solid with dv
 * added, and gradient stores it into every face it keeps. Nothing else reads the faces in
 * between, and the faces gradient leaves alone (no FLUID side) are written by extrapolation
 * before anyone reads them, so the substep has the bits the gravity kernel gave it (3 launches,
 * about 1 ms a substep at 64^3). The stage table's gravity row is therefore ~0 on this device. */
static int pipe_phase_gravity(Sim *s, float dt)
{
    Pipe *P = pipe_of(s);
    for (int a = 0; a < 3; a++)
        P->gravity_dv[a] = dt * vec3_get(s->scene->gravity, a); /* pipe_gravity's dv */
    return 0; /* sim_substep runs this phase before divergence and gradient, every substep */
}

static int pipe_phase_divergence(Sim *s)
{
    Pipe *P = pipe_of(s);
    pipe_divergence(P, &s->grid, P->gravity_dv, 1);
    return pipe_finish(P, s);
}

/* rhs = (rho/dt) div with the solvers' b and iterate (pressure_rhs), then the solve. */
static int pipe_phase_pressure(Sim *s, float dt, SolveResult *res)
{
    Pipe *P = pipe_of(s);
    size_t cells = grid_cells(&s->grid);
    cl_int n = (cl_int)cells, chunk = pipe_chunk(cells), nparts = PIPE_PARTS;
    float scale = s->scene->density / dt, dx2 = s->grid.dx * s->grid.dx;
    LAUNCH(P->dev, K_PRESSURE_RHS, PIPE_PARTS, 1, 1, ARG(P->rhs), ARG(P->rf), ARG(P->xd), ARG(P->p),
           ARG(P->dev->partial_d), ARG(P->div), ARG(P->cell), ARG(scale), ARG(dx2), ARG(n), ARG(chunk),
           ARG(nparts));
    *res = pipe_solve(P, s);
    if (pipe_finish(P, s) != 0)
        return -1;
    if (!isfinite(res->residual))
        return sim_fail(s, SIM_FAILED, "opencl pressure solve (%s) produced a non-finite "
                        "residual", s->solver_name);
    return 0;
}

static int pipe_phase_gradient(Sim *s, float dt)
{
    Pipe *P = pipe_of(s);
    pipe_gradient(P, &s->grid, dt / s->scene->density, P->gravity_dv, 1);
    return pipe_finish(P, s);
}

static int pipe_phase_extrapolate(Sim *s)
{
    pipe_extrapolate(pipe_of(s), &s->grid);
    return pipe_finish(pipe_of(s), s);
}

static int pipe_phase_g2p(Sim *s)
{
    pipe_g2p_blended(pipe_of(s), &s->grid, s->scene->pic_flip_alpha);
    return pipe_finish(pipe_of(s), s);
}

static int pipe_phase_advect(Sim *s, float dt)
{
    pipe_advect(pipe_of(s), dt);
    return pipe_finish(pipe_of(s), s);
}

static int pipe_phase_keep_inside(Sim *s)
{
    pipe_keep_inside(pipe_of(s), &s->grid);
    return pipe_finish(pipe_of(s), s);
}

static const char *pipe_solver_variant(const Sim *s, const char *name)
{
    (void)s;
    return pipeline_solver_variant(name);
}

/* ---- opening and closing -------------------------------------------------------------------- */

static void pipe_close(SimBackend *b)
{
    Pipe *P = (Pipe *)b;
    if (P->dev && P->dev->profile) {
        pipe_device_print_profile(P->dev);
        if (P->surf_march_seconds > 0.0)
            fprintf(stderr, "%-16s %8s %10.3f\n", "(host) polygonise", "", P->surf_march_seconds);
    }
    cl_mem *bufs[] = { &P->pos, &P->vel, &P->id, &P->keys, &P->sorted, &P->spare_pos,
                       &P->spare_vel, &P->spare_id };
    for (size_t q = 0; q < sizeof bufs / sizeof *bufs; q++)
        pipe_release(bufs[q]);
    pipe_release_grid(P);
    pipe_device_close(P->dev);
    free(P);
}

SimBackend *pipeline_open(const char *selector, char *err, size_t errlen)
{
    Pipe *P = calloc(1, sizeof *P);
    if (!P) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    P->base = (SimBackend){
        .name = P->name,
#define PIPE_PHASE_SLOT(ID, name, params, what) .name = pipe_phase_##name,
        SIM_PHASE_LIST(PIPE_PHASE_SLOT)
#undef PIPE_PHASE_SLOT
        .upload = pipe_upload, .download = pipe_download, .max_speed2 = pipe_max_speed2,
        .solver_variant = pipe_solver_variant, .close = pipe_close,
    };
    P->dev = pipe_device_open(selector, err, errlen);
    if (!P->dev) {
        pipe_close(&P->base);
        return NULL;
    }
    snprintf(P->name, sizeof P->name, "opencl: %s", P->dev->cl.name);
    return &P->base;
}

int pipeline_list_devices(FILE *out)
{
    return clx_list_devices(out);
}
