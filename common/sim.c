/* sim.c — the simulation driver: set-up, the frame loop with CFL substeps, and one substep.
 * flipkit common/: sim_substep is the algorithm, one phase per line, run by the backend; the
 * host backend checks every stage's output for NaN/Inf and for values no correct stage makes
 * (watch.c) right after it runs, so a blow-up names its stage. */
#include "sim.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


const char *const sim_phase_names[PHASE_COUNT] = {
#define SIM_PHASE_NAME(ID, name, params, what) #name,
    SIM_PHASE_LIST(SIM_PHASE_NAME)
#undef SIM_PHASE_NAME
};

static double sim_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- NaN/Inf checks: the first bad value, named by stage, field and place ---------------- */

/* (i, j, k) of flat index f in an n[0] x n[1] x n[2] array, x fastest */
static void sim_unflatten(size_t f, const int n[3], int ijk[3])
{
    ijk[0] = (int)(f % (size_t)n[0]);
    ijk[1] = (int)(f / (size_t)n[0] % (size_t)n[1]);
    ijk[2] = (int)(f / ((size_t)n[0] * (size_t)n[1]));
}

/* "%g" of *value, or what is known without it (a device that found it but kept no copy) */
static const char *sim_value_text(const double *value, char *buf, size_t len)
{
    if (!value)
        return "a non-finite value";
    snprintf(buf, len, "%g", *value);
    return buf;
}

/* A cell's place, with its type and its six neighbours' (a FLUID cell walled in by SOLID on
 * every side is where a division by the neighbour count fails). */
static int sim_fail_cell(Sim *s, const char *stage, const char *field, size_t c, const char *v)
{
    const MacGrid *g = &s->grid;
    const int n[3] = { g->nx, g->ny, g->nz };
    int ijk[3], i, j, k;
    sim_unflatten(c, n, ijk);
    i = ijk[0], j = ijk[1], k = ijk[2];
    return sim_fail(s, RUN_COULD_NOT_RUN, "stage %s wrote %s to %s at cell (%d,%d,%d), a %s cell with "
                    "neighbours -x %s, +x %s, -y %s, +y %s, -z %s, +z %s", stage, v, field, i, j,
                    k, grid_cell_type_name(grid_cell_type(g, i, j, k)),
                    grid_cell_type_name(grid_cell_type(g, i - 1, j, k)),
                    grid_cell_type_name(grid_cell_type(g, i + 1, j, k)),
                    grid_cell_type_name(grid_cell_type(g, i, j - 1, k)),
                    grid_cell_type_name(grid_cell_type(g, i, j + 1, k)),
                    grid_cell_type_name(grid_cell_type(g, i, j, k - 1)),
                    grid_cell_type_name(grid_cell_type(g, i, j, k + 1)));
}

int sim_fail_nonfinite(Sim *s, SimPhase phase, SimPlace place, const char *field, size_t index,
                       const double *value)
{
    char buf[32];
    const char *stage = phase == PHASE_PRESSURE ? s->solver_name : sim_phase_names[phase];
    const char *v = sim_value_text(value, buf, sizeof buf);
    if (place == SIM_AT_CELL)
        return sim_fail_cell(s, stage, field, index, v);
    if (place == SIM_AT_PARTICLE && !value) /* a device's order is not the host's */
        return sim_fail(s, RUN_COULD_NOT_RUN, "stage %s wrote %s to the %s of the particle at place "
                        "%zu on the device", stage, v, field, index);
    if (place == SIM_AT_PARTICLE)
        return sim_fail(s, RUN_COULD_NOT_RUN, "stage %s wrote %s to the %s of particle %zu", stage, v,
                        field, index);
    int ijk[3];
    sim_unflatten(index, s->grid.face[place].n, ijk);
    return sim_fail(s, RUN_COULD_NOT_RUN, "stage %s wrote %s to %s at face (%d,%d,%d)", stage, v,
                    grid_component_name((int)place), ijk[0], ijk[1], ijk[2]);
}

static bool sim_faces_finite(Sim *s, SimPhase phase, float *const vel[3])
{
    const MacGrid *g = &s->grid;
    for (int a = 0; a < 3; a++)
        for (size_t f = 0; f < grid_faces(g, a); f++)
            if (!isfinite(vel[a][f])) {
                double v = vel[a][f];
                sim_fail_nonfinite(s, phase, (SimPlace)a, grid_component_name(a), f, &v);
                return false;
            }
    return true;
}

/* stage: the phase's name, or the solver's ("laplacian" for the jacobi residual's L p) */
static bool sim_cells_finite(Sim *s, const char *stage, const char *field, const float *v)
{
    char buf[32];
    for (size_t c = 0; c < grid_cells(&s->grid); c++)
        if (!isfinite(v[c])) {
            double value = v[c];
            sim_fail_cell(s, stage, field, c, sim_value_text(&value, buf, sizeof buf));
            return false;
        }
    return true;
}

static bool sim_particles_finite(Sim *s, const char *stage, const char *field, const Vec3 *v)
{
    for (size_t p = 0; p < s->particles.count; p++)
        if (!isfinite(v[p].x) || !isfinite(v[p].y) || !isfinite(v[p].z)) {
            sim_fail(s, RUN_COULD_NOT_RUN, "stage %s wrote (%g, %g, %g) to the %s of particle %zu",
                     stage, v[p].x, v[p].y, v[p].z, field, p);
            return false;
        }
    return true;
}

/* ---- the pressure solve ------------------------------------------------------------------ */

/* |rhs - L p| / |rhs| over FLUID cells, with L the track's laplacian stage. */
static double sim_jacobi_residual(Sim *s, const float *p, double bnorm)
{
    const MacGrid *g = &s->grid;
    s->track.laplacian(g, p, s->lap);
    double r2 = 0.0;
    for (size_t c = 0; c < grid_cells(g); c++)
        if (g->cell[c] == CELL_FLUID) {
            double r = (double)s->rhs[c] - s->lap[c];
            r2 += r * r;
        }
    return sqrt(r2) / bnorm;
}

/* The student's solver: the jacobi stage repeated, the residual measured every few sweeps
 * with the laplacian stage (a residual costs about as much as a sweep), or after every sweep
 * when the convergence lab records the history. */
static SolveResult sim_solve_jacobi(Sim *s, double bnorm)
{
    enum { CHECK_EVERY = 10 };
    const PressureSettings *set = &s->scene->pressure;
    int every = s->history ? 1 : CHECK_EVERY;
    MacGrid *g = &s->grid;
    float *p = g->p, *next = s->scratch;
    SolveResult res = { .residual = sim_jacobi_residual(s, p, bnorm) };
    res.converged = res.residual <= set->tolerance;
    track_record_residual(s->history, 0, res.residual);
    while (!res.converged && res.iterations < set->iterations && isfinite(res.residual)) {
        s->track.jacobi(g, p, s->rhs, set->jacobi_omega, next);
        float *tmp = p;
        p = next;
        next = tmp;
        res.iterations++;
        if (res.iterations % every == 0 || res.iterations == set->iterations) {
            res.residual = sim_jacobi_residual(s, p, bnorm);
            res.converged = res.residual <= set->tolerance;
            track_record_residual(s->history, res.iterations, res.residual);
        }
    }
    if (p != g->p)
        memcpy(g->p, p, grid_cells(g) * sizeof *p);
    return res;
}

/* rhs = (rho/dt) div, then L p = rhs with the chosen solver; what it did goes into *res. */
static bool sim_solve_pressure(Sim *s, float dt, SolveResult *res)
{
    MacGrid *g = &s->grid;
    float scale = s->scene->density / dt;
    double b2 = 0.0;
    for (size_t c = 0; c < grid_cells(g); c++) {
        s->rhs[c] = g->cell[c] == CELL_FLUID ? scale * s->div[c] : 0.0f;
        b2 += (double)s->rhs[c] * s->rhs[c];
        /* The warm start keeps last substep's pressure only where there is still fluid:
         * gradient reads p = 0 in AIR, and a cell that has just emptied must not keep its p. */
        if (g->cell[c] != CELL_FLUID)
            g->p[c] = 0.0f;
    }
    *res = (SolveResult){ .converged = true };
    if (b2 == 0.0)
        memset(g->p, 0, grid_cells(g) * sizeof *g->p); /* nothing to correct: p = 0 solves it */
    else if (s->solver)
        *res = s->solver(g, s->rhs, g->p, &s->scene->pressure, s->history);
    else
        *res = sim_solve_jacobi(s, sqrt(b2));
    if (res->status == RUN_OUT_OF_MEMORY) {
        sim_fail(s, RUN_OUT_OF_MEMORY, "pressure solve (%s): out of memory for its workspace on "
                 "a %dx%dx%d grid", s->solver_name, g->nx, g->ny, g->nz);
        return false;
    }
    /* p first: a jacobi that wrote NaN makes the laplacian's residual NaN too, and the blame
     * belongs to the stage that made it */
    if (!sim_cells_finite(s, s->solver ? s->solver_name : "jacobi", "p", g->p))
        return false;
    return s->solver || sim_cells_finite(s, "laplacian", "L p", s->lap);
}

/* The stats of one finished substep, whichever backend ran it. */
static void sim_count_substep(Sim *s, SolveResult solve)
{
    s->stats.last_solve = solve;
    s->stats.solve_iterations += solve.iterations;
    s->stats.unconverged_solves += !solve.converged;
    s->stats.substeps++;
    s->stats.frame_substeps++;
}

/* ---- the host backend: the track's stages and the given steps on this CPU --------------- */

static void sim_keep_old_velocity(Sim *s)
{
    for (int a = 0; a < 3; a++)
        memcpy(s->vel_old[a], s->grid.vel[a], grid_faces(&s->grid, a) * sizeof(float));
}

/* Each phase runs its stage and then checks what the stage wrote, so a NaN names its stage. */
static int host_p2g(Sim *s)
{
    s->track.p2g(&s->particles, &s->grid);
    if (!sim_faces_finite(s, PHASE_P2G, s->grid.vel) || watch_p2g(s) != 0)
        return -1;
    sim_keep_old_velocity(s);
    return 0;
}

static int host_classify(Sim *s)
{
    given_classify(&s->grid, s->solid, &s->particles);
    return 0;
}

static int host_gravity(Sim *s, float dt)
{
    s->track.gravity(&s->grid, s->scene->gravity, dt);
    if (!sim_faces_finite(s, PHASE_GRAVITY, s->grid.vel) || watch_gravity(s, dt) != 0)
        return -1;
    watch_projection_start(s); /* the faces' energy, which the projection must not raise */
    return 0;
}

static int host_divergence(Sim *s)
{
    s->track.divergence(&s->grid, s->div);
    return sim_cells_finite(s, "divergence", "div", s->div) ? 0 : -1;
}

static int host_pressure(Sim *s, float dt, SolveResult *res)
{
    return sim_solve_pressure(s, dt, res) ? 0 : -1;
}

static int host_gradient(Sim *s, float dt)
{
    s->track.gradient(&s->grid, s->grid.p, dt / s->scene->density);
    return sim_faces_finite(s, PHASE_GRADIENT, s->grid.vel) && watch_projection(s) == 0 ? 0 : -1;
}

static int host_extrapolate(Sim *s)
{
    given_extrapolate(&s->grid, s->step.reach, s->extrap_scratch);
    return 0;
}

static int host_g2p(Sim *s)
{
    s->track.g2p(&s->particles, &s->grid, s->vel_old, s->scene->pic_flip_alpha);
    return sim_particles_finite(s, "g2p", "velocity", s->particles.vel) ? 0 : -1;
}

static int host_advect(Sim *s, float dt)
{
    if (s->step.order) {
        s->track.advect_grid(&s->particles, &s->grid, dt, s->step.order);
        return sim_particles_finite(s, "advect (production step)", "position", s->particles.pos)
                   ? 0 : -1;
    }
    s->track.advect(&s->particles, dt);
    return sim_particles_finite(s, "advect", "position", s->particles.pos) ? 0 : -1;
}

static int host_keep_inside(Sim *s)
{
    given_keep_inside(&s->particles, &s->grid);
    return 0;
}

static int host_max_speed2(Sim *s, float *out)
{
    float vmax2 = 0.0f;
    for (size_t p = 0; p < s->particles.count; p++) {
        Vec3 v = s->particles.vel[p];
        float v2 = v.x * v.x + v.y * v.y + v.z * v.z;
        vmax2 = v2 > vmax2 ? v2 : vmax2;
    }
    *out = vmax2;
    return 0;
}

/* The host's state is the sim's own: nothing to move, nothing to release. */
static int host_keep_state(Sim *s)
{
    (void)s;
    return 0;
}

static const char *host_solver_variant(const Sim *s, const char *name)
{
    return sim_solver_variant(&s->track, name);
}

static void host_close(SimBackend *b)
{
    (void)b;
}

SimBackend sim_host_backend = {
    .name = "cpu (C stages)",
#define SIM_HOST_PHASE(ID, name, params, what) .name = host_##name,
    SIM_PHASE_LIST(SIM_HOST_PHASE)
#undef SIM_HOST_PHASE
    .upload = host_keep_state, .download = host_keep_state, .max_speed2 = host_max_speed2,
    .solver_variant = host_solver_variant, .close = host_close,
};

/* ---- one substep ------------------------------------------------------------------------- */

/* Runs one phase on the backend, adds its time to the phase (unless the backend times its
 * phases itself), and ends the substep when the phase fails (its one line is in s->error). */
#define PHASE(phase, call)                                                               \
    do {                                                                                 \
        double t0_ = sim_clock();                                                        \
        int rc_ = (call);                                                                \
        if (!b->times_phases)                                                            \
            s->stats.seconds[phase] += sim_clock() - t0_;                                \
        if (rc_ != 0)                                                                    \
            return -1;                                                                   \
    } while (0)

int sim_substep(Sim *s, float dt)
{
    const SimBackend *b = s->backend;
    SolveResult solve = { .converged = true };
    PHASE(PHASE_P2G,         b->p2g(s));        /* particle velocities onto the faces */
    PHASE(PHASE_CLASSIFY,    b->classify(s));   /* FLUID where particles are */
    PHASE(PHASE_GRAVITY,     b->gravity(s, dt));
    PHASE(PHASE_DIVERGENCE,  b->divergence(s));
    PHASE(PHASE_PRESSURE,    b->pressure(s, dt, &solve));
    PHASE(PHASE_GRADIENT,    b->gradient(s, dt)); /* now divergence-free in the fluid */
    PHASE(PHASE_EXTRAPOLATE, b->extrapolate(s)); /* into the air g2p reads next to the fluid */
    PHASE(PHASE_G2P,         b->g2p(s));        /* PIC/FLIP blend back to the particles */
    PHASE(PHASE_ADVECT,      b->advect(s, dt));
    PHASE(PHASE_KEEP_INSIDE, b->keep_inside(s)); /* out of solids and back into the domain */
    sim_count_substep(s, solve);
    return 0;
}

/* ---- frames ------------------------------------------------------------------------------ */

/* The fastest a particle may go within the substep: Bridson (2nd ed., sec. 3.3) adds
 * sqrt(5 dx |g|) for the speed gravity adds within the step, so a fluid starting at rest does
 * not take one huge first step. */
static float sim_speed_bound(const Sim *s, float vmax2)
{
    Vec3 gr = s->scene->gravity;
    float gmag = sqrtf(gr.x * gr.x + gr.y * gr.y + gr.z * gr.z);
    return sqrtf(vmax2) + sqrtf(5.0f * s->grid.dx * gmag);
}

float sim_cfl_dt_for(const Sim *s, float vmax2)
{
    float umax = sim_speed_bound(s, vmax2);
    return umax > 0.0f ? s->step.cfl * s->grid.dx / umax : INFINITY;
}

float sim_cfl_dt(const Sim *s)
{
    float vmax2;
    host_max_speed2((Sim *)s, &vmax2); /* reads the particles only */
    return sim_cfl_dt_for(s, vmax2);
}

static int sim_fire_events(Sim *s, int frame)
{
    const Scene *sc = s->scene;
    for (int e = 0; e < sc->nevents; e++) {
        if (sc->events[e].frame != frame)
            continue;
        long added = given_seed_fluid(&s->particles, &s->grid, s->solid, sc->events[e].fluid,
                                      sc->events[e].nfluid, sc->particles_per_cell, sc->seed,
                                      (uint32_t)e + 1u);
        if (added < 0) {
            sim_fail(s, RUN_OUT_OF_MEMORY, "out of memory seeding events[%d]", e);
            return -1;
        }
        s->backend_stale = s->backend_stale || added > 0;
    }
    return 0;
}

/* One CFL substep, no longer than what is left of the frame. */
static int sim_step(Sim *s, double remaining, double *taken)
{
    float vmax2 = 0.0f;
    if (s->backend->max_speed2(s, &vmax2) != 0)
        return -1;
    watch_speed(s, vmax2);
    double dt = sim_cfl_dt_for(s, vmax2);
    /* Split what is left evenly rather than finish with a sliver of a substep. */
    dt = dt >= remaining ? remaining : dt > 0.5 * remaining ? 0.5 * remaining : dt;
    *taken = dt;
    if (s->step.order) { /* as far as this dt carries the fastest particle, and one face more */
        int reach = sim_extrapolate_layers((float)(sim_speed_bound(s, vmax2) * dt / s->grid.dx));
        s->step.reach = reach < s->step.layers ? reach : s->step.layers;
    }
    int rc = sim_substep(s, (float)dt);
    s->step.reach = s->step.layers;
    return rc;
}

/* A frame starts: its counters, and the state to a device that has a stale copy. */
static int sim_begin_frame(Sim *s)
{
    s->stats.frame_substeps = 0;
    s->stats.unconverged_solves = 0;
    if (s->backend_stale) {
        if (s->backend->upload(s) != 0)
            return -1;
        s->backend_stale = false;
    }
    return 0;
}

/* A frame ends: the host's copy (a device hands back only what a frame's files need), the
 * time exactly the frame's, and its events. */
static int sim_end_frame(Sim *s, int next, double t_end)
{
    if (s->backend->download(s) != 0)
        return -1;
    watch_frame(s);
    s->time = t_end;
    s->frame = next;
    size_t before = s->particles.count;
    if (sim_fire_events(s, next) != 0)
        return -1;
    watch_start(s, before); /* an event's fluid may start faster */
    return 0;
}

int sim_advance_frame(Sim *s)
{
    int next = s->frame + 1;
    double t_end = next / s->scene->frame_rate;
    double eps = 1e-9 / s->scene->frame_rate;
    if (sim_begin_frame(s) != 0)
        return -1;
    while (t_end - s->time > eps) {
        double dt;
        if (sim_step(s, t_end - s->time, &dt) != 0)
            return -1;
        s->time += dt;
    }
    return sim_end_frame(s, next, t_end);
}

int sim_advance_substep(Sim *s)
{
    int next = s->frame + 1;
    double t_end = next / s->scene->frame_rate;
    double eps = 1e-9 / s->scene->frame_rate;
    /* the same substeps as sim_advance_frame: it is the same loop, one turn per call */
    if (s->time - s->frame / s->scene->frame_rate <= eps && sim_begin_frame(s) != 0)
        return -1;
    double dt;
    if (sim_step(s, t_end - s->time, &dt) != 0)
        return -1;
    s->time += dt;
    return t_end - s->time > eps ? 0 : sim_end_frame(s, next, t_end);
}

bool sim_backend_current(const Sim *s)
{
    return s->backend != &sim_host_backend && !s->backend_stale;
}

/* The calls a backend must have, by name, for the one line that refuses one that lacks any. */
static const char *sim_backend_missing(const SimBackend *b)
{
    const struct { const char *name; bool there; } calls[] = {
#define SIM_PHASE_CALL(ID, name, params, what) { #name, b->name != NULL },
        SIM_PHASE_LIST(SIM_PHASE_CALL)
#undef SIM_PHASE_CALL
        { "upload", b->upload },
        { "download", b->download }, { "max_speed2", b->max_speed2 },
        { "solver_variant", b->solver_variant }, { "close", b->close },
    };
    for (size_t q = 0; q < sizeof calls / sizeof *calls; q++)
        if (!calls[q].there)
            return calls[q].name;
    return NULL;
}

int sim_use_backend(Sim *s, SimBackend *b)
{
    const char *missing = sim_backend_missing(b);
    if (missing) {
        sim_fail(s, RUN_COULD_NOT_RUN, "backend %s has no %s: it cannot run a substep",
                 b->name ? b->name : "(unnamed)", missing);
        if (b->close)
            b->close(b);
        return -1;
    }
    s->backend->close(s->backend);
    s->backend = b;
    s->backend_stale = true;
    s->solver_variant = b->solver_variant(s, s->solver_name);
    return 0;
}

/* ---- set-up ------------------------------------------------------------------------------ */

int sim_extrapolate_layers(float cfl)
{
    int reach = (int)ceilf(cfl) + 1;
    return reach > SIM_EXTRAPOLATE_LAYERS ? reach : SIM_EXTRAPOLATE_LAYERS;
}

/* Production stepping only where the track has the step: the student's track (and a mix)
 * keeps its advect stage and the scene's cfl whatever the scene asks. */
static void sim_choose_stepping(Sim *s)
{
    const Scene *sc = s->scene;
    bool production = sc->production.order > 0 && s->track.advect_grid;
    s->step = (SimStepping){ .order = production ? sc->production.order : 0,
                             .cfl = production ? sc->production.cfl : sc->cfl };
    s->step.layers = production ? sim_extrapolate_layers(s->step.cfl) : SIM_EXTRAPOLATE_LAYERS;
    s->step.reach = s->step.layers;
}

static const NamedSolver *sim_track_solver(const Track *t, const char *name)
{
    for (const NamedSolver *n = t->solvers; n && n->name; n++)
        if (strcmp(n->name, name) == 0)
            return n;
    return NULL;
}

/* The given solvers (given_sor.c) sweep the cells in index order. */
static const char *sim_given_variant(const char *name)
{
    if (strcmp(name, "sor") == 0)
        return "lexicographic SOR (pressure.sor_omega), the given solver, in C";
    if (strcmp(name, "gauss_seidel") == 0)
        return "lexicographic Gauss-Seidel, the given solver, in C";
    if (strcmp(name, "jacobi") == 0)
        return "the track's jacobi stage, repeated, in C";
    return "not in this track: falls back to the track's jacobi stage, repeated, in C";
}

const char *sim_solver_variant(const Track *t, const char *name)
{
    const NamedSolver *n = sim_track_solver(t, name);
    return n ? n->variant : sim_given_variant(name);
}

static SolveResult sim_given_sor(const MacGrid *g, const float *rhs, float *p,
                                 const PressureSettings *set, SolveHistory *history)
{
    return given_solve_sor(g, rhs, p, set, set->sor_omega, history);
}

static SolveResult sim_given_gauss_seidel(const MacGrid *g, const float *rhs, float *p,
                                          const PressureSettings *set, SolveHistory *history)
{
    return given_solve_sor(g, rhs, p, set, 1.0f, history);
}

/* use_gauss_seidel wins and always means the given solver; otherwise the scene's
 * pressure.solver, where "jacobi" means the track's own jacobi stage, and a name the track
 * does not provide falls back to the given Gauss-Seidel/SOR or, failing that, to jacobi. The
 * student track has no solvers of its own, so a scene asking for pcg runs the student's
 * jacobi there (the CLI says so). Returns the solver (NULL: the track's jacobi) and its name. */
static PressureSolver sim_choose_solver(const Scene *sc, const Track *t, const char **name)
{
    const char *n = sc->use_gauss_seidel ? "sor" : sc->pressure.solver;
    PressureSolver solve = NULL;
    if (sc->use_gauss_seidel)
        solve = sim_given_sor;
    else if (strcmp(n, "jacobi") == 0)
        solve = NULL;
    else if (sim_track_solver(t, n))
        solve = sim_track_solver(t, n)->solve;
    else if (strcmp(n, "sor") == 0)
        solve = sim_given_sor;
    else if (strcmp(n, "gauss_seidel") == 0)
        solve = sim_given_gauss_seidel;
    else
        n = "jacobi";
    *name = n;
    return solve;
}

static int sim_pick_solver(Sim *s)
{
    const Scene *sc = s->scene;
    s->solver = sim_choose_solver(sc, &s->track, &s->solver_name);
    s->solver_variant = sc->use_gauss_seidel ? sim_given_variant("sor")
                                             : sim_solver_variant(&s->track, s->solver_name);
    return 0;
}

bool sim_runs_given_solver(const Scene *sc, const Track *t)
{
    const char *name;
    PressureSolver solve = sim_choose_solver(sc, t, &name);
    return solve == sim_given_sor || solve == sim_given_gauss_seidel;
}

static int sim_alloc(Sim *s)
{
    const MacGrid *g = &s->grid;
    size_t n = grid_cells(g), fmax = 0;
    s->solid = calloc(n, sizeof *s->solid);
    s->div = calloc(n, sizeof(float));
    s->rhs = calloc(n, sizeof(float));
    s->scratch = calloc(n, sizeof(float));
    s->lap = calloc(n, sizeof(float));
    int ok = s->solid && s->div && s->rhs && s->scratch && s->lap;
    for (int a = 0; a < 3; a++) {
        s->vel_old[a] = calloc(grid_faces(g, a), sizeof(float));
        ok = ok && s->vel_old[a];
        fmax = grid_faces(g, a) > fmax ? grid_faces(g, a) : fmax;
    }
    s->extrap_scratch = calloc(2 * fmax, 1);
    return ok && s->extrap_scratch ? 0 : -1;
}

/* a * b, or SIZE_MAX when it overflows */
static size_t sim_mul(size_t a, size_t b)
{
    return b && a > SIZE_MAX / b ? SIZE_MAX : a * b;
}

static size_t sim_add(size_t a, size_t b)
{
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

/* Cells of the grid a shape's bounding box covers, clipped to the domain. */
static size_t sim_cells_in(const Shape *sh, const Scene *scene)
{
    size_t cells = 1;
    const float lo[3] = { sh->min.x, sh->min.y, sh->min.z };
    const float hi[3] = { sh->max.x, sh->max.y, sh->max.z };
    for (int a = 0; a < 3; a++) {
        double n = scene->resolution[a];
        double i0 = fmax(0.0, floor(lo[a] / scene->cell_size));
        double i1 = fmin(n, ceil(hi[a] / scene->cell_size));
        cells = sim_mul(cells, i1 > i0 ? (size_t)(i1 - i0) : 0);
    }
    return cells;
}

size_t sim_memory_need(const Scene *scene, size_t *particles)
{
    size_t n[3] = { (size_t)scene->resolution[0], (size_t)scene->resolution[1],
                    (size_t)scene->resolution[2] };
    size_t cells = sim_mul(sim_mul(n[0], n[1]), n[2]);
    size_t faces = sim_add(sim_add(sim_mul(sim_mul(n[0] + 1, n[1]), n[2]),
                                   sim_mul(sim_mul(n[0], n[1] + 1), n[2])),
                           sim_mul(sim_mul(n[0], n[1]), n[2] + 1));
    /* per cell: cell and solid (1 byte each), p, div, rhs, scratch, lap (float); per face:
     * velocity, weight, old velocity (float) and two extrapolation bytes */
    size_t bytes = sim_add(sim_mul(cells, 2 + 5 * sizeof(float)), sim_mul(faces, 3 * sizeof(float) + 2));
    size_t count = 0;
    for (int i = 0; i < scene->nfluid; i++)
        count = sim_add(count, sim_cells_in(&scene->fluid[i], scene));
    for (int e = 0; e < scene->nevents; e++)
        for (int i = 0; i < scene->events[e].nfluid; i++)
            count = sim_add(count, sim_cells_in(&scene->events[e].fluid[i], scene));
    count = sim_mul(count, (size_t)scene->particles_per_cell);
    if (particles)
        *particles = count;
    return sim_add(bytes, sim_mul(count, 2 * sizeof(Vec3)));
}

int sim_init(Sim *s, const Scene *scene, const Track *track)
{
    *s = (Sim){ .scene = scene, .track = *track, .backend = &sim_host_backend };
    part_init(&s->particles);
    if (grid_init(&s->grid, scene->resolution[0], scene->resolution[1], scene->resolution[2],
                  scene->cell_size) != 0 || sim_alloc(s) != 0) {
        sim_fail(s, RUN_OUT_OF_MEMORY, "%s: out of memory for a %dx%dx%d grid", scene->path,
                 scene->resolution[0], scene->resolution[1], scene->resolution[2]);
        return -1;
    }
    sim_pick_solver(s);
    sim_choose_stepping(s);
    given_mark_solids(s->solid, &s->grid, scene->solids, scene->nsolids);
    if (given_seed_fluid(&s->particles, &s->grid, s->solid, scene->fluid, scene->nfluid,
                         scene->particles_per_cell, scene->seed, 0) < 0) {
        sim_fail(s, RUN_OUT_OF_MEMORY, "out of memory seeding the fluid");
        return -1;
    }
    if (sim_fire_events(s, 0) != 0)
        return -1;
    given_classify(&s->grid, s->solid, &s->particles);
    watch_start(s, 0);
    return 0;
}

void sim_free(Sim *s)
{
    if (s->backend)
        s->backend->close(s->backend);
    grid_free(&s->grid);
    part_free(&s->particles);
    free(s->solid);
    free(s->div);
    free(s->rhs);
    free(s->scratch);
    free(s->lap);
    free(s->extrap_scratch);
    for (int a = 0; a < 3; a++)
        free(s->vel_old[a]);
}
