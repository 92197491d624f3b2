/* pyapi.c — the C side of the Python package (common/python/flipkit): a scene's simulation as an
 * opaque handle with plain-C calls, for ctypes, in build/libflipkit.so (both kits).
 * flipkit common/: every call returns 0 or -1 (or NULL) and leaves one line in fk_error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "ply.h"
#include "pyapi.h"
#include "sim.h"

/* What the library's build handed in (pyapi_use): the reference track and the OpenCL
 * pipeline in the kit's libflipkit.so, nothing in the student kit's. */
static const Track *fk_reference;
static const CliDevices *fk_devices;

/* The Python side's handle: the scene (which the sim points into) and the sim. */
typedef struct {
    Scene scene;
    Sim sim;
    SolveHistory history;   /* the residuals of each solve, once fk_record_residuals asks */
    char error[MESSAGE_MAX + 160];   /* a sim's message, with its scene and frame in front */
} FkSim;

/* Where fk_open and fk_resume say why they returned NULL. */
static char fk_open_error[MESSAGE_MAX];

/* Declared here, not in a header: only ctypes calls them. */
const char *fk_last_open_error(void);
FkSim *fk_open(const char *scene_path, const char *track, const char *device,
               const char *const *sets, int nsets);
FkSim *fk_resume(const char *state_path, const char *track, const char *device);
const char *fk_error(const FkSim *h);
int fk_step(FkSim *h);
int fk_advance_frame(FkSim *h);
int fk_frame(const FkSim *h);
double fk_time(const FkSim *h);
double fk_frame_rate(const FkSim *h);
const char *fk_solver(const FkSim *h);
const char *fk_solver_variant(const FkSim *h);
long fk_particle_count(const FkSim *h);
float *fk_particle_pos(FkSim *h);
float *fk_particle_vel(FkSim *h);
void fk_particles_changed(FkSim *h);
void fk_grid_size(const FkSim *h, int n[3], float *dx);
float *fk_grid_field(FkSim *h, const char *name);
signed char *fk_grid_cell(FkSim *h);
int fk_run_stage(FkSim *h, const char *stage, float dt);
int fk_save_state(FkSim *h, const char *path);
int fk_write_particles(FkSim *h, const char *path);
int fk_record_residuals(FkSim *h);
int fk_residuals(const FkSim *h, double *out, int cap);
void fk_close(FkSim *h);

void pyapi_use(const Track *reference, const CliDevices *devices)
{
    fk_reference = reference;
    fk_devices = devices;
}

const char *fk_last_open_error(void)
{
    return fk_open_error;
}

/* NULL name: the kit's default, the reference in the kit and the student's in a student kit. */
static const Track *fk_track(const char *name)
{
    const char *n = name ? name : fk_reference ? "reference" : "student";
    if (strcmp(n, "reference") == 0)
        return fk_reference;
    return strcmp(n, "student") == 0 ? &student_track : NULL;
}

/* The sim for h->scene on the named track and device; NULL with fk_open_error set. */
static FkSim *fk_start(FkSim *h, const char *track, const char *device)
{
    const Track *t = fk_track(track);
    const char *dev = device ? device : "cpu";
    if (!t) {
        snprintf(fk_open_error, sizeof fk_open_error, "track \"%s\": expected %s", track,
                 fk_reference ? "\"reference\" or \"student\""
                              : "\"student\" (this kit has no reference stages)");
        return NULL;
    }
    if (strcmp(dev, "cpu") != 0 && strcmp(dev, "opencl") != 0) {
        snprintf(fk_open_error, sizeof fk_open_error, "device \"%s\": expected \"cpu\" or "
                 "\"opencl\"", dev);
        return NULL;
    }
    if (strcmp(dev, "opencl") == 0 && !fk_devices) {
        snprintf(fk_open_error, sizeof fk_open_error, "device \"opencl\": this kit has no OpenCL "
                 "pipeline (it runs the stages in C)");
        return NULL;
    }
    if (strcmp(dev, "opencl") == 0 && t != fk_reference) {
        snprintf(fk_open_error, sizeof fk_open_error, "device \"opencl\" runs the reference "
                 "pipeline; it needs track=\"reference\"");
        return NULL;
    }
    if (sim_init(&h->sim, &h->scene, t) != 0) {
        snprintf(fk_open_error, sizeof fk_open_error, "%s", h->sim.error.message);
        return NULL;
    }
    if (strcmp(dev, "opencl") == 0) {
        SimBackend *b = fk_devices->open(NULL, fk_open_error, sizeof fk_open_error);
        if (!b || sim_use_backend(&h->sim, b) != 0) {
            if (b)
                snprintf(fk_open_error, sizeof fk_open_error, "%s", h->sim.error.message);
            return NULL;
        }
    }
    return h;
}

FkSim *fk_open(const char *scene_path, const char *track, const char *device,
               const char *const *sets, int nsets)
{
    FkSim *h = calloc(1, sizeof *h);
    fk_open_error[0] = '\0';
    if (!h) {
        snprintf(fk_open_error, sizeof fk_open_error, "out of memory");
        return NULL;
    }
    if (scene_load(scene_path, sets, nsets, &h->scene, fk_open_error, sizeof fk_open_error) != 0 ||
        !fk_start(h, track, device)) {
        fk_close(h);
        return NULL;
    }
    return h;
}

FkSim *fk_resume(const char *state_path, const char *track, const char *device)
{
    FkSim *h = calloc(1, sizeof *h);
    fk_open_error[0] = '\0';
    if (!h) {
        snprintf(fk_open_error, sizeof fk_open_error, "out of memory");
        return NULL;
    }
    char err[MESSAGE_MAX];
    char *json = checkpoint_scene(state_path, fk_open_error, sizeof fk_open_error);
    int bad = !json || scene_load_text(json, state_path, NULL, 0, &h->scene, fk_open_error,
                                       sizeof fk_open_error) != 0;
    free(json);
    if (bad || !fk_start(h, track, device)) {
        fk_close(h);
        return NULL;
    }
    if (checkpoint_load(&h->sim, state_path, err, sizeof err) != 0) {
        snprintf(fk_open_error, sizeof fk_open_error, "%s", err);
        fk_close(h);
        return NULL;
    }
    return h;
}

const char *fk_error(const FkSim *h)
{
    return h->error;
}

static int fk_failed(FkSim *h)
{
    snprintf(h->error, sizeof h->error, "%s: frame %d: %s", h->scene.name, h->sim.frame + 1,
             h->sim.error.message);
    return -1;
}

int fk_step(FkSim *h)
{
    return sim_advance_substep(&h->sim) == 0 ? 0 : fk_failed(h);
}

int fk_advance_frame(FkSim *h)
{
    return sim_advance_frame(&h->sim) == 0 ? 0 : fk_failed(h);
}

int fk_frame(const FkSim *h)
{
    return h->sim.frame;
}

double fk_time(const FkSim *h)
{
    return h->sim.time;
}

double fk_frame_rate(const FkSim *h)
{
    return h->scene.frame_rate;
}

/* The solver the run really uses: a pressure.solver the track does not have falls back to its
 * jacobi (the student track has no pcg, multigrid or mgpcg), and use_gauss_seidel means sor. */
const char *fk_solver(const FkSim *h)
{
    return h->sim.solver_name;
}

const char *fk_solver_variant(const FkSim *h)
{
    return h->sim.solver_variant;
}

long fk_particle_count(const FkSim *h)
{
    return (long)h->sim.particles.count;
}

float *fk_particle_pos(FkSim *h)
{
    return &h->sim.particles.pos[0].x;
}

float *fk_particle_vel(FkSim *h)
{
    return &h->sim.particles.vel[0].x;
}

/* Python wrote into the particles: a device takes them again before its next substep. */
void fk_particles_changed(FkSim *h)
{
    if (h->sim.backend != &sim_host_backend)
        h->sim.backend_stale = true;
}

void fk_grid_size(const FkSim *h, int n[3], float *dx)
{
    n[0] = h->sim.grid.nx;
    n[1] = h->sim.grid.ny;
    n[2] = h->sim.grid.nz;
    *dx = h->sim.grid.dx;
}

float *fk_grid_field(FkSim *h, const char *name)
{
    MacGrid *g = &h->sim.grid;
    for (int a = 0; a < 3; a++)
        if (strcmp(name, grid_component_name(a)) == 0)
            return g->vel[a];
    float *const fields[] = { g->p, h->sim.div, h->sim.rhs, h->sim.lap };
    static const char *const names[] = { "p", "div", "rhs", "lap" };
    for (int i = 0; i < 4; i++)
        if (strcmp(name, names[i]) == 0)
            return fields[i];
    snprintf(h->error, sizeof h->error, "grid field \"%s\": expected u, v, w, p, div, rhs or lap",
             name);
    return NULL;
}

signed char *fk_grid_cell(FkSim *h)
{
    return (signed char *)h->sim.grid.cell;
}

/* One stage of the sim's track on the current host state, as the substep calls it: p2g fills
 * the grid from the particles, divergence writes div, laplacian lap = L p, jacobi one sweep
 * on p against rhs (the last pressure solve's), gradient subtracts p's gradient times
 * dt / density, gravity adds g dt, g2p and advect move the particles. The host's state only: on a device, only at a frame's end. */
int fk_run_stage(FkSim *h, const char *stage, float dt)
{
    Sim *s = &h->sim;
    const Track *t = &s->track;
    MacGrid *g = &s->grid;
    float scale = dt / s->scene->density;
    if (strcmp(stage, "p2g") == 0)
        t->p2g(&s->particles, g);
    else if (strcmp(stage, "divergence") == 0)
        t->divergence(g, s->div);
    else if (strcmp(stage, "laplacian") == 0)
        t->laplacian(g, g->p, s->lap);
    else if (strcmp(stage, "jacobi") == 0) {
        t->jacobi(g, g->p, s->rhs, s->scene->pressure.jacobi_omega, s->scratch);
        memcpy(g->p, s->scratch, grid_cells(g) * sizeof *g->p);
    } else if (strcmp(stage, "gradient") == 0)
        t->gradient(g, g->p, scale);
    else if (strcmp(stage, "gravity") == 0)
        t->gravity(g, s->scene->gravity, dt);
    else if (strcmp(stage, "g2p") == 0)
        t->g2p(&s->particles, g, s->vel_old, s->scene->pic_flip_alpha);
    else if (strcmp(stage, "advect") == 0)
        t->advect(&s->particles, dt);
    else {
        snprintf(h->error, sizeof h->error, "stage \"%s\": expected one of advect, gravity, p2g, "
                 "g2p, divergence, laplacian, jacobi, gradient", stage);
        return -1;
    }
    fk_particles_changed(h);
    return 0;
}

int fk_save_state(FkSim *h, const char *path)
{
    return checkpoint_save(&h->sim, path, h->error, sizeof h->error) == 0 ? 0 : -1;
}

int fk_write_particles(FkSim *h, const char *path)
{
    return ply_write_particles(path, &h->sim.particles, h->error, sizeof h->error) == 0 ? 0 : -1;
}

/* From now on every pressure solve (C stages) records its relative residual after each
 * iteration, up to pressure.iterations; fk_residuals reads the last solve's. */
int fk_record_residuals(FkSim *h)
{
    int cap = h->scene.pressure.iterations + 1;
    if (!h->history.residual) {
        h->history.residual = calloc((size_t)cap, sizeof *h->history.residual);
        if (!h->history.residual) {
            snprintf(h->error, sizeof h->error, "out of memory for %d residuals", cap);
            return -1;
        }
        h->history.capacity = cap;
    }
    h->sim.history = &h->history;
    return 0;
}

int fk_residuals(const FkSim *h, double *out, int cap)
{
    int n = h->history.count < cap ? h->history.count : cap;
    memcpy(out, h->history.residual, (size_t)(n > 0 ? n : 0) * sizeof *out);
    return n;
}

void fk_close(FkSim *h)
{
    if (!h)
        return;
    free(h->history.residual);
    sim_free(&h->sim);
    scene_free(&h->scene);
    free(h);
}
