/* opencl_track.c — the eight stages on the OpenCL pipeline's own kernels and host code (TRACK=opencl).
 * flipkit reference/: each stage uploads its case into a pipeline, runs that one phase with
 * pipeline.c's code, and reads the outputs back, so the stage suites test what --device opencl runs. */
#include "opencl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe.h"
#include "pipeline.h"

static Pipe *track_pipe;            /* opened on first use, kept for the process */
static char track_error[8192];      /* the first failure, for opencl_track_error */

int opencl_track_open(const char *selector, char *err, size_t errlen)
{
    if (track_pipe)
        return 0;
    SimBackend *b = pipeline_open(selector, err, errlen);
    if (!b)
        return -1;
    track_pipe = (Pipe *)b;
    return 0;
}

const char *opencl_track_device(void)
{
    return track_pipe ? track_pipe->dev->cl.name : "(not open)";
}

const char *opencl_track_error(void)
{
    return track_error[0] ? track_error : NULL;
}

/* The pipeline sized for this case (grid g or none, count particles), opened on first use. NULL, with
 * the reason kept for opencl_track_error, when it cannot be had: a stage has no way to return
 * an error, so the caller then writes NaN to its outputs and the suite reports that stage. */
static Pipe *track_fit(const MacGrid *g, size_t count)
{
    if (!track_pipe && !track_error[0] &&
        opencl_track_open(NULL, track_error, sizeof track_error) != 0)
        return NULL;
    if (!track_pipe || track_pipe->dev->failure != CL_SUCCESS || pipe_state_fit(&track_pipe->state, g, count) < 0)
        return NULL;
    return track_pipe;
}

/* Waits for the stage and records the first OpenCL failure; true when all went well. */
static bool track_done(Pipe *P, const char *stage)
{
    if (pipe_wait(P->dev))
        return true;
    if (!track_error[0])
        snprintf(track_error, sizeof track_error, "opencl track, stage %s: %s failed: %s", stage,
                 P->dev->failed_at, clx_error_name(P->dev->failure));
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

static void track_write_faces(Pipe *P, cl_mem dst[3], float *const src[3], const MacGrid *g)
{
    for (int a = 0; a < 3; a++)
        pipe_write(P->dev, dst[a], src[a], grid_faces(g, a) * sizeof(float));
}

static void track_read_faces(Pipe *P, cl_mem src[3], float *const dst[3], const MacGrid *g)
{
    for (int a = 0; a < 3; a++)
        pipe_read(P->dev, src[a], dst[a], grid_faces(g, a) * sizeof(float));
}

/* Particles in the host's order; p2g's sort then keeps each one's index in P->state.particles.id. */
static void track_write_particles(Pipe *P, const Particles *ps)
{
    pipe_write(P->dev, P->state.particles.pos, ps->pos, ps->count * sizeof(Vec3));
    pipe_write(P->dev, P->state.particles.vel, ps->vel, ps->count * sizeof(Vec3));
}

static void track_write_cells(Pipe *P, const MacGrid *g)
{
    pipe_write(P->dev, P->state.grid.cell, g->cell, grid_cells(g));
    P->state.shortcut.box_fresh = 0;
}

/* ---- the stages ----------------------------------------------------------------------------- */

static void cl_advect(Particles *ps, float dt)
{
    Pipe *P = track_fit(NULL, ps->count); /* advect reads no grid */
    if (P) {
        track_write_particles(P, ps);
        pipe_advect(&P->state, dt);
        pipe_read(P->dev, P->state.particles.pos, ps->pos, ps->count * sizeof(Vec3));
    }
    if (!P || !track_done(P, "advect"))
        track_poison(&ps->pos[0].x, 3 * ps->count);
}

static void cl_gravity(MacGrid *g, Vec3 gravity_ms2, float dt)
{
    Pipe *P = track_fit(g, 0);
    if (P) {
        track_write_cells(P, g);
        track_write_faces(P, P->state.grid.face, g->vel, g);
        pipe_gravity(&P->state, g, gravity_ms2, dt);
        track_read_faces(P, P->state.grid.face, g->vel, g);
    }
    if (!P || !track_done(P, "gravity"))
        track_poison_faces(g);
}

/* The pipeline's p2g: sort by cell, scatter in nine row colours, normalise. */
static void cl_p2g(const Particles *ps, MacGrid *g)
{
    Pipe *P = track_fit(g, ps->count);
    if (P) {
        cl_int *id = malloc((ps->count ? ps->count : 1) * sizeof *id);
        if (!id)
            pipe_ok(P->dev, CL_OUT_OF_HOST_MEMORY, "p2g's particle ids");
        for (size_t q = 0; id && q < ps->count; q++)
            id[q] = (cl_int)q;
        if (id)
            pipe_write(P->dev, P->state.particles.id, id, ps->count * sizeof *id);
        free(id);
        track_write_particles(P, ps);
        pipe_p2g(&P->state, g, 1, 0);
        track_read_faces(P, P->state.grid.face, g->vel, g);
        track_read_faces(P, P->state.grid.weight, g->weight, g);
    }
    if (!P || !track_done(P, "p2g")) {
        track_poison_faces(g);
        for (int a = 0; a < 3; a++)
            track_poison(g->weight[a], grid_faces(g, a));
    }
}

static void cl_g2p(Particles *ps, const MacGrid *g, float *const vel_old[3], float alpha)
{
    Pipe *P = track_fit(g, ps->count);
    if (P) {
        track_write_particles(P, ps);
        track_write_faces(P, P->state.grid.face, g->vel, g);
        track_write_faces(P, P->state.grid.old, vel_old, g);
        pipe_g2p(&P->state, g, alpha);
        pipe_read(P->dev, P->state.particles.vel, ps->vel, ps->count * sizeof(Vec3));
    }
    if (!P || !track_done(P, "g2p"))
        track_poison(&ps->vel[0].x, 3 * ps->count);
}

static void cl_divergence(const MacGrid *g, float *div)
{
    Pipe *P = track_fit(g, 0);
    if (P) {
        track_write_cells(P, g);
        track_write_faces(P, P->state.grid.face, g->vel, g);
        pipe_divergence(&P->state, g, NULL, 0);
        pipe_read(P->dev, P->state.grid.div, div, grid_cells(g) * sizeof(float));
    }
    if (!P || !track_done(P, "divergence"))
        track_poison(div, grid_cells(g));
}

static void cl_laplacian(const MacGrid *g, const float *p, float *out)
{
    size_t bytes = grid_cells(g) * sizeof(float);
    Pipe *P = track_fit(g, 0);
    if (P) {
        track_write_cells(P, g);
        pipe_write(P->dev, P->state.grid.p, p, bytes);
        pipe_laplacian(&P->state, g, P->state.grid.p, P->state.grid.lap);
        pipe_read(P->dev, P->state.grid.lap, out, bytes);
    }
    if (!P || !track_done(P, "laplacian"))
        track_poison(out, grid_cells(g));
}

static void cl_jacobi(const MacGrid *g, const float *p, const float *rhs, float omega, float *p_out)
{
    size_t bytes = grid_cells(g) * sizeof(float);
    Pipe *P = track_fit(g, 0);
    if (P) {
        track_write_cells(P, g);
        pipe_write(P->dev, P->state.grid.p, p, bytes);
        pipe_write(P->dev, P->state.grid.rhs, rhs, bytes);
        pipe_jacobi_sweep(&P->state, g, P->state.grid.p, P->state.grid.lap, omega);
        pipe_read(P->dev, P->state.grid.lap, p_out, bytes);
    }
    if (!P || !track_done(P, "jacobi"))
        track_poison(p_out, grid_cells(g));
}

static void cl_gradient(MacGrid *g, const float *p, float scale)
{
    Pipe *P = track_fit(g, 0);
    if (P) {
        track_write_cells(P, g);
        pipe_write(P->dev, P->state.grid.p, p, grid_cells(g) * sizeof(float));
        track_write_faces(P, P->state.grid.face, g->vel, g);
        pipe_gradient(&P->state, g, scale, NULL, 0);
        track_read_faces(P, P->state.grid.face, g->vel, g);
    }
    if (!P || !track_done(P, "gradient"))
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
