/* opencl_track.c — the eight stages on the OpenCL pipeline's own kernels (TRACK=opencl).
 * flipkit reference/: each stage uploads its case into a PipeState of its own, runs that one
 * stage with pipestages.c's code, and reads the outputs back, so the stage suites test what
 * --device opencl runs. */
#include "opencl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipestages.h"

static PipeState track_state;       /* its device opened on first use, kept for the process */
static char track_error[8192];      /* the first failure, for opencl_track_error */

int opencl_track_open(const char *selector, char *err, size_t errlen)
{
    if (track_state.dev)
        return 0;
    track_state.dev = pipe_device_open(selector, err, errlen);
    return track_state.dev ? 0 : -1;
}

const char *opencl_track_device(void)
{
    return track_state.dev ? track_state.dev->cl.name : "(not open)";
}

const char *opencl_track_error(void)
{
    return track_error[0] ? track_error : NULL;
}

/* The state sized for this case (grid g or none, count particles), its device opened on first
 * use. NULL, with the reason kept for opencl_track_error, when it cannot be had: a stage has no
 * way to return an error, so the caller then writes NaN to its outputs and the suite reports
 * that stage. */
static PipeState *track_fit(const MacGrid *g, size_t count)
{
    if (!track_state.dev && !track_error[0] &&
        opencl_track_open(NULL, track_error, sizeof track_error) != 0)
        return NULL;
    if (!track_state.dev || track_state.dev->failure != CL_SUCCESS ||
        pipe_state_fit(&track_state, g, count) < 0)
        return NULL;
    return &track_state;
}

/* Waits for the stage and records the first OpenCL failure; true when all went well. */
static bool track_done(PipeState *S, const char *stage)
{
    if (pipe_wait(S->dev))
        return true;
    if (!track_error[0])
        snprintf(track_error, sizeof track_error, "opencl track, stage %s: %s failed: %s", stage,
                 S->dev->failed_at, clx_error_name(S->dev->failure));
    return false;
}

static void track_poison(float *v, size_t n)
{
    for (size_t q = 0; q < n; q++)
        v[q] = NAN;
}

static void track_poison_faces(MacGrid *g)
{
    for (int a = 0; a < 3; a++)
        track_poison(g->vel[a], grid_faces(g, a));
}

static void track_write_faces(PipeState *S, cl_mem dst[3], float *const src[3], const MacGrid *g)
{
    for (int a = 0; a < 3; a++)
        pipe_write(S->dev, dst[a], src[a], grid_faces(g, a) * sizeof(float));
}

static void track_read_faces(PipeState *S, cl_mem src[3], float *const dst[3], const MacGrid *g)
{
    for (int a = 0; a < 3; a++)
        pipe_read(S->dev, src[a], dst[a], grid_faces(g, a) * sizeof(float));
}

/* Particles in the host's order; p2g's sort then keeps each one's index in S->particles.id. */
static void track_write_particles(PipeState *S, const Particles *ps)
{
    pipe_write(S->dev, S->particles.pos, ps->pos, ps->count * sizeof(Vec3));
    pipe_write(S->dev, S->particles.vel, ps->vel, ps->count * sizeof(Vec3));
}

static void track_write_cells(PipeState *S, const MacGrid *g)
{
    pipe_write(S->dev, S->grid.cell, g->cell, grid_cells(g));
    S->shortcut.box_fresh = 0;
}

/* ---- the stages ----------------------------------------------------------------------------- */

static void cl_advect(Particles *ps, float dt)
{
    PipeState *S = track_fit(NULL, ps->count); /* advect reads no grid */
    if (S) {
        track_write_particles(S, ps);
        pipe_advect(S, dt);
        pipe_read(S->dev, S->particles.pos, ps->pos, ps->count * sizeof(Vec3));
    }
    if (!S || !track_done(S, "advect"))
        track_poison(&ps->pos[0].x, 3 * ps->count);
}

static void cl_gravity(MacGrid *g, Vec3 gravity_ms2, float dt)
{
    PipeState *S = track_fit(g, 0);
    if (S) {
        track_write_cells(S, g);
        track_write_faces(S, S->grid.face, g->vel, g);
        pipe_gravity(S, g, gravity_ms2, dt);
        track_read_faces(S, S->grid.face, g->vel, g);
    }
    if (!S || !track_done(S, "gravity"))
        track_poison_faces(g);
}

/* The pipeline's p2g: sort by cell, scatter in nine row colours, normalise. */
static void cl_p2g(const Particles *ps, MacGrid *g)
{
    PipeState *S = track_fit(g, ps->count);
    if (S) {
        cl_int *id = malloc((ps->count ? ps->count : 1) * sizeof *id);
        if (!id)
            pipe_ok(S->dev, CL_OUT_OF_HOST_MEMORY, "p2g's particle ids");
        for (size_t q = 0; id && q < ps->count; q++)
            id[q] = (cl_int)q;
        if (id)
            pipe_write(S->dev, S->particles.id, id, ps->count * sizeof *id);
        free(id);
        track_write_particles(S, ps);
        pipe_p2g(S, g, 1, 0);
        track_read_faces(S, S->grid.face, g->vel, g);
        track_read_faces(S, S->grid.weight, g->weight, g);
    }
    if (!S || !track_done(S, "p2g")) {
        track_poison_faces(g);
        for (int a = 0; a < 3; a++)
            track_poison(g->weight[a], grid_faces(g, a));
    }
}

static void cl_g2p(Particles *ps, const MacGrid *g, float *const vel_old[3], float alpha)
{
    PipeState *S = track_fit(g, ps->count);
    if (S) {
        track_write_particles(S, ps);
        track_write_faces(S, S->grid.face, g->vel, g);
        track_write_faces(S, S->grid.old, vel_old, g);
        pipe_g2p(S, g, alpha);
        pipe_read(S->dev, S->particles.vel, ps->vel, ps->count * sizeof(Vec3));
    }
    if (!S || !track_done(S, "g2p"))
        track_poison(&ps->vel[0].x, 3 * ps->count);
}

static void cl_divergence(const MacGrid *g, float *div)
{
    PipeState *S = track_fit(g, 0);
    if (S) {
        track_write_cells(S, g);
        track_write_faces(S, S->grid.face, g->vel, g);
        pipe_divergence(S, g, NULL, 0);
        pipe_read(S->dev, S->grid.div, div, grid_cells(g) * sizeof(float));
    }
    if (!S || !track_done(S, "divergence"))
        track_poison(div, grid_cells(g));
}

static void cl_laplacian(const MacGrid *g, const float *p, float *out)
{
    size_t bytes = grid_cells(g) * sizeof(float);
    PipeState *S = track_fit(g, 0);
    if (S) {
        track_write_cells(S, g);
        pipe_write(S->dev, S->grid.p, p, bytes);
        pipe_laplacian(S, g, S->grid.p, pipe_grid_lap(S));
        pipe_read(S->dev, S->grid.lap, out, bytes);
    }
    if (!S || !track_done(S, "laplacian"))
        track_poison(out, grid_cells(g));
}

static void cl_jacobi(const MacGrid *g, const float *p, const float *rhs, float omega, float *p_out)
{
    size_t bytes = grid_cells(g) * sizeof(float);
    PipeState *S = track_fit(g, 0);
    if (S) {
        track_write_cells(S, g);
        pipe_write(S->dev, S->grid.p, p, bytes);
        pipe_write(S->dev, S->grid.rhs, rhs, bytes);
        pipe_jacobi_sweep(S, g, S->grid.p, pipe_grid_lap(S), omega);
        pipe_read(S->dev, S->grid.lap, p_out, bytes);
    }
    if (!S || !track_done(S, "jacobi"))
        track_poison(p_out, grid_cells(g));
}

static void cl_gradient(MacGrid *g, const float *p, float scale)
{
    PipeState *S = track_fit(g, 0);
    if (S) {
        track_write_cells(S, g);
        pipe_write(S->dev, S->grid.p, p, grid_cells(g) * sizeof(float));
        track_write_faces(S, S->grid.face, g->vel, g);
        pipe_gradient(S, g, scale, NULL, 0);
        track_read_faces(S, S->grid.face, g->vel, g);
    }
    if (!S || !track_done(S, "gradient"))
        track_poison_faces(g);
}

/* One slot per line of stagelist.h: a stage added there and not here fails to compile. */
#define CL_SLOT(number, stage) .stage = cl_##stage,
const Track opencl_track = {
    .name = "opencl",
    STAGE_LIST(CL_SLOT)
    .solvers = NULL,
};
#undef CL_SLOT
