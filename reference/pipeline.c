/* pipeline.c — the reference's substep on an OpenCL device with the state resident there.
 * flipkit reference/: the backend and nothing else: sim_substep orders the phases, each phase
 * here runs the stage kernels (pipestages.c), the solver (pipesolve.c) or the surface
 * (pipesurface.c) on the state (pipestate.c), waits once (for the timings) and reads back only
 * frames and the CFL maximum. */
#include "pipeline.h"

#include <math.h>
#include <stdlib.h>

#include "pipesolve.h"
#include "pipesurface.h"

typedef struct {
    SimBackend base;            /* first, so a SimBackend * is a Pipe * */
    char name[300];             /* "opencl: platform / device" */
    PipeDevice *dev;
    PipeState state;
    PipeSolver solver;
    PipeSurface surface;
    float dt;                   /* this substep's, from the gravity phase, for g2p's move */
    void (*download_wait)(void *ctx); /* pipeline_guard_download's */
    void *download_ctx;
} Pipe;

static Pipe *pipe_of(Sim *s)
{
    return (Pipe *)s->backend;
}

/* ---- moving the state ----------------------------------------------------------------------- */

/* The state fits g and count particles; when the grid's buffers are new, so are the solver's
 * vectors and levels, and the surface's buffers go (made again on first use). */
static int pipe_fit(Pipe *P, const MacGrid *g, size_t count)
{
    if (pipe_state_fit(&P->state, g, count) == 1) {
        pipe_surface_release(&P->surface);
        pipe_solver_fit(&P->solver, g);
    }
    return P->dev->failure == CL_SUCCESS ? 0 : -1;
}

static int pipe_upload(Sim *s)
{
    Pipe *P = pipe_of(s);
    PipeParticles *pt = &P->state.particles;
    const MacGrid *g = &s->grid;
    if (pipe_fit(P, g, s->particles.count) != 0)
        return pipe_report(P->dev, s);
    size_t n = grid_cells(g);
    pipe_write(P->dev, P->state.grid.solid, s->solid, n);
    pipe_write(P->dev, P->state.grid.p, g->p, n * sizeof(float));
    pipe_write(P->dev, pt->pos, s->particles.pos, pt->count * sizeof(Vec3));
    pipe_write(P->dev, pt->vel, s->particles.vel, pt->count * sizeof(Vec3));
    cl_int *id = malloc((pt->count ? pt->count : 1) * sizeof *id);
    if (!id)
        return sim_fail(s, RUN_OUT_OF_MEMORY, "opencl upload: out of memory");
    for (size_t p = 0; p < pt->count; p++)
        id[p] = (cl_int)p;
    pipe_write(P->dev, pt->id, id, pt->count * sizeof *id);
    free(id);
    return pipe_report(P->dev, s);
}

/* Particles per piece of the download: staging for this many (28 bytes each, 1.75 MiB) is what
 * the host holds besides its own arrays, where staging for every particle was 28 bytes a
 * particle at each frame's end (issue 42); each array under a MiB, which the heap keeps from
 * frame to frame (cli_keep_freed_memory). */
enum { PIPE_DOWNLOAD_PIECE = 1 << 16 };

/* Particles [first, first + n) of the device's order: each to its place in the host's arrays. */
static int pipe_unpermute_piece(Pipe *P, Sim *s, size_t first, size_t n, Vec3 *pos, Vec3 *vel,
                                cl_int *id)
{
    const PipeParticles *pt = &P->state.particles;
    pipe_read_at(P->dev, pt->pos, first * sizeof *pos, pos, n * sizeof *pos);
    pipe_read_at(P->dev, pt->vel, first * sizeof *vel, vel, n * sizeof *vel);
    pipe_read_at(P->dev, pt->id, first * sizeof *id, id, n * sizeof *id);
    for (size_t q = 0; q < n && P->dev->failure == CL_SUCCESS; q++) {
        if (id[q] < 0 || (size_t)id[q] >= pt->count)
            return sim_fail(s, RUN_COULD_NOT_RUN, "the opencl pipeline lost track of its particles: "
                            "place %zu holds id %d of %zu", first + q, (int)id[q], pt->count);
        s->particles.pos[id[q]] = pos[q];
        s->particles.vel[id[q]] = vel[q];
    }
    return 0;
}

/* The device holds the particles in cell order; the host's copy stays in its own order, so
 * frames and checkpoints list particle p at place p whichever device ran. Read back a piece at
 * a time. */
static int pipe_unpermute(Pipe *P, Sim *s)
{
    size_t count = P->state.particles.count;
    size_t piece = count < PIPE_DOWNLOAD_PIECE ? (count ? count : 1) : PIPE_DOWNLOAD_PIECE;
    Vec3 *pos = malloc(piece * sizeof *pos);
    Vec3 *vel = malloc(piece * sizeof *vel);
    cl_int *id = malloc(piece * sizeof *id);
    int rc = pos && vel && id ? 0 : sim_fail(s, RUN_OUT_OF_MEMORY, "opencl download: out of memory");
    for (size_t first = 0; rc == 0 && first < count && P->dev->failure == CL_SUCCESS;
         first += piece)
        rc = pipe_unpermute_piece(P, s, first, count - first < piece ? count - first : piece, pos,
                                  vel, id);
    free(pos);
    free(vel);
    free(id);
    return rc;
}

static int pipe_download(Sim *s)
{
    Pipe *P = pipe_of(s);
    if (P->download_wait)
        P->download_wait(P->download_ctx); /* whoever still reads the host's particles */
    if (pipe_nonfinite_report(&P->state, s) != 0 || pipe_unpermute(P, s) != 0)
        return -1;
    pipe_read(P->dev, P->state.grid.p, s->grid.p, grid_cells(&s->grid) * sizeof(float));
    if (pipe_report(P->dev, s) != 0)
        return -1;
    pipe_stage_seconds(P->dev, s->stats.seconds);
    /* The C path checks every stage; here the frame is checked once it is back. */
    for (size_t p = 0; p < P->state.particles.count; p++) {
        Vec3 x = s->particles.pos[p], v = s->particles.vel[p];
        if (!isfinite(x.x + x.y + x.z + v.x + v.y + v.z))
            return sim_fail(s, RUN_COULD_NOT_RUN, "the opencl pipeline wrote position (%g, %g, %g), "
                            "velocity (%g, %g, %g) to particle %zu", x.x, x.y, x.z, v.x, v.y,
                            v.z, p);
    }
    return 0;
}

static int pipe_max_speed2_call(Sim *s, float *out)
{
    Pipe *P = pipe_of(s);
    *out = pipe_max_speed2(&P->state);
    return pipe_report(P->dev, s);
}

/* ---- the phases ----------------------------------------------------------------------------- */

/* A phase's kernels are its stage's on the device's clock (pipe_stage_begin); pipe_download
 * adds their spans into the stage table at each frame's end. */
static void pipe_begin(Pipe *P, SimPhase phase)
{
    pipe_stage_begin(P->dev, (int)phase);
}

/* Ends the phase without waiting for it, so the host enqueues the next phase while the device
 * runs this one (a wait a phase cost 10-35 % of a small scene's time), and turns a failure so
 * far into one line; one that comes while the kernels run is seen at the next wait. */
static int pipe_finish(Pipe *P, Sim *s)
{
    pipe_stage_end(P->dev);
    return pipe_report(P->dev, s);
}

/* The stage's faces checked for values that are not finite, as the host backend checks them;
 * what the checks find is read at the frame's end (pipe_download), so a NaN costs no wait. */
static void pipe_check_faces(Pipe *P, const MacGrid *g, SimPhase phase)
{
    PipeCheck faces[3];
    for (int a = 0; a < 3; a++)
        faces[a] = (PipeCheck){ phase, (SimPlace)a, P->state.grid.face[a], grid_faces(g, a) };
    pipe_check_finite_all(&P->state, faces, 3);
}

static int pipe_phase_p2g(Sim *s)
{
    Pipe *P = pipe_of(s);
    pipe_begin(P, PHASE_P2G);
    pipe_p2g(&P->state, &s->grid, 0, 1); /* classify folded in (PipeShortcuts) */
    pipe_check_faces(P, &s->grid, PHASE_P2G);
    return pipe_finish(P, s);
}

/* The cells were classified in p2g's normalize pass. What is left is the FLUID box, found
 * here, not in the solve, so that divergence and gradient launch on it too. */
static int pipe_phase_classify(Sim *s)
{
    Pipe *P = pipe_of(s);
    pipe_begin(P, PHASE_CLASSIFY);
    pipe_find_box(&P->solver, s->solver_name);
    return pipe_finish(P, s);
}

/* Gravity costs no pass of its own: divergence reads every face that is not solid with dv
 * added, and gradient stores it into every face it keeps. Nothing else reads the faces in
 * between, and the faces gradient leaves alone (no FLUID side) are written by extrapolation
 * before anyone reads them, so the substep has the bits the gravity kernel gave it, for three
 * launches fewer. The stage table's gravity row is therefore ~0 on this device. */
static int pipe_phase_gravity(Sim *s, float dt)
{
    Pipe *P = pipe_of(s);
    for (int a = 0; a < 3; a++)
        P->state.shortcut.gravity_dv[a] = dt * vec3_get(s->scene->gravity, a);
    P->dt = dt;
    return 0; /* sim_substep runs this phase before divergence and gradient, every substep */
}

static int pipe_phase_divergence(Sim *s)
{
    Pipe *P = pipe_of(s);
    pipe_begin(P, PHASE_DIVERGENCE);
    pipe_divergence(&P->state, &s->grid, P->state.shortcut.gravity_dv, 1);
    pipe_check_finite(&P->state, PHASE_DIVERGENCE, SIM_AT_CELL, P->state.grid.div,
                      grid_cells(&s->grid));
    return pipe_finish(P, s);
}

static int pipe_phase_pressure(Sim *s, float dt, SolveResult *res)
{
    Pipe *P = pipe_of(s);
    pipe_begin(P, PHASE_PRESSURE);
    *res = pipe_solve(&P->solver, &s->grid, &s->scene->pressure, s->solver_name,
                      s->scene->density / dt); /* which checks p where it writes it */
    if (pipe_finish(P, s) != 0)
        return -1;
    if (!isfinite(res->residual)) /* the stage that made it non-finite, if a check saw it */
        return pipe_nonfinite_report(&P->state, s) != 0
                   ? -1
                   : sim_fail(s, RUN_COULD_NOT_RUN, "opencl pressure solve (%s) produced a "
                              "non-finite residual", s->solver_name);
    return 0;
}

static int pipe_phase_gradient(Sim *s, float dt)
{
    Pipe *P = pipe_of(s);
    pipe_begin(P, PHASE_GRADIENT);
    pipe_gradient(&P->state, &s->grid, dt / s->scene->density, P->state.shortcut.gravity_dv, 1);
    pipe_check_faces(P, &s->grid, PHASE_GRADIENT);
    return pipe_finish(P, s);
}

static int pipe_phase_extrapolate(Sim *s)
{
    Pipe *P = pipe_of(s);
    pipe_begin(P, PHASE_EXTRAPOLATE);
    pipe_extrapolate(&P->state, &s->grid, s->step.reach);
    return pipe_finish(P, s);
}

/* g2p moves the particles too (pipe_g2p_move): at the kit's small grids the advect pass's
 * launch and wait cost more than C's whole advect, and the move needs nothing g2p does not
 * have (the substep's dt came with gravity, sim_substep runs both every substep). Both checks
 * run here, velocities first: a NaN velocity names g2p, a NaN position alone advect (each
 * check records its own phase). The advect phase is then empty, like gravity's. */
static int pipe_phase_g2p(Sim *s)
{
    Pipe *P = pipe_of(s);
    pipe_begin(P, PHASE_G2P);
    pipe_g2p_move(&P->state, &s->grid, s->scene->pic_flip_alpha, P->dt, s->step.order);
    size_t floats = 3 * P->state.particles.count;
    const PipeCheck moved[2] = { { PHASE_G2P, SIM_AT_PARTICLE, P->state.particles.vel, floats },
                                 { PHASE_ADVECT, SIM_AT_PARTICLE, P->state.particles.pos, floats } };
    pipe_check_finite_all(&P->state, moved, 2);
    return pipe_finish(P, s);
}

static int pipe_phase_advect(Sim *s, float dt)
{
    (void)s, (void)dt; /* g2p's launch moved the particles with P->dt and checked them */
    return 0;
}

static int pipe_phase_keep_inside(Sim *s)
{
    Pipe *P = pipe_of(s);
    pipe_begin(P, PHASE_KEEP_INSIDE);
    pipe_keep_inside(&P->state, &s->grid);
    return pipe_finish(P, s);
}

static const char *pipe_backend_solver_variant(const Sim *s, const char *name)
{
    (void)s;
    return pipe_solver_variant(name);
}

/* ---- opening and closing -------------------------------------------------------------------- */

static void pipe_close(SimBackend *b)
{
    Pipe *P = (Pipe *)b;
    if (P->dev && P->dev->profile) {
        pipe_device_print_profile(P->dev);
        if (P->surface.march_seconds > 0.0)
            fprintf(stderr, "%-16s %8s %10.3f\n", "(host) polygonise", "",
                    P->surface.march_seconds);
    }
    pipe_surface_release(&P->surface);
    pipe_solver_release(&P->solver);
    pipe_state_release(&P->state);
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
        .upload = pipe_upload, .download = pipe_download, .max_speed2 = pipe_max_speed2_call,
        .solver_variant = pipe_backend_solver_variant, .close = pipe_close,
        .times_phases = true,
    };
    P->dev = pipe_device_open(selector, err, errlen);
    if (!P->dev) {
        pipe_close(&P->base);
        return NULL;
    }
    P->state.dev = P->solver.dev = P->surface.dev = P->dev;
    P->solver.state = P->surface.state = &P->state;
    P->solver.mg.dev = P->dev;
    P->solver.mg.state = &P->state;
    snprintf(P->name, sizeof P->name, "opencl: %s", P->dev->cl.name);
    return &P->base;
}

/* ---- the rest of pipeline.h ----------------------------------------------------------------- */

int pipeline_surface(SimBackend *b, Sim *s, const SurfaceSettings *set, Mesh *m)
{
    return pipe_surface_mesh(&((Pipe *)b)->surface, s, set, false, m);
}

int pipeline_surface_anisotropic(SimBackend *b, Sim *s, const SurfaceSettings *set, Mesh *m)
{
    return pipe_surface_mesh(&((Pipe *)b)->surface, s, set, true, m);
}

PipelineSurfaceTimes pipeline_surface_times(const SimBackend *b)
{
    const Pipe *P = (const Pipe *)b;
    return (PipelineSurfaceTimes){ P->surface.last[0], P->surface.last[1] };
}

const char *pipeline_solver_variant(const char *name)
{
    return pipe_solver_variant(name);
}

void pipeline_guard_download(SimBackend *b, void (*wait)(void *ctx), void *ctx)
{
    Pipe *P = (Pipe *)b;
    P->download_wait = wait;
    P->download_ctx = ctx;
}

long pipeline_leftover_counts(SimBackend *b)
{
    return pipe_state_leftover_counts(&((Pipe *)b)->state);
}

int pipeline_list_devices(FILE *out)
{
    return clx_list_devices(out);
}
