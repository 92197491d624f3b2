/* sim.h — the simulation driver: the state of a run and the frame/substep loop.
 * flipkit common/: sim_substep is the algorithm's outline, the only place the phases are put in
 * order; a backend (SimBackend) runs each phase: the track's stages and the given steps (given.h)
 * on this CPU, or the reference's OpenCL pipeline. Only the CLI prints. */
#ifndef FLIPKIT_SIM_H
#define FLIPKIT_SIM_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include "given.h"
#include "scene.h"
#include "status.h"
#include "track.h"
#include "watch.h"

/* The phases of a substep, once: X(ID, name, parameters, what it does). sim_substep puts them
 * in order (this list's order is the stats table's); from this list come the SimPhase enum,
 * sim_phase_names, the SimBackend members, the host backend's table and the check that a
 * backend has every member. */
#define SIM_PHASE_LIST(X)                                                                    \
    X(P2G, p2g, (Sim *s), "particles to faces; keeps a copy for FLIP")                       \
    X(CLASSIFY, classify, (Sim *s), "FLUID where particles are, else AIR or SOLID")          \
    X(GRAVITY, gravity, (Sim *s, float dt), "dt g onto the faces")                            \
    X(DIVERGENCE, divergence, (Sim *s), "div of the faces per cell")                         \
    X(PRESSURE, pressure, (Sim *s, float dt, SolveResult *res), "rhs = (rho/dt) div; L p = rhs") \
    X(GRADIENT, gradient, (Sim *s, float dt), "the faces minus (dt/rho) grad p")              \
    X(EXTRAPOLATE, extrapolate, (Sim *s), "velocities into the air next to the fluid")       \
    X(G2P, g2p, (Sim *s), "PIC/FLIP blend back to the particles")                            \
    X(ADVECT, advect, (Sim *s, float dt), "particles move")                                  \
    X(KEEP_INSIDE, keep_inside, (Sim *s), "out of solids and back into the domain")

/* Timing and counting per phase, for the end-of-run summary. Index by SimPhase. */
typedef enum {
#define SIM_PHASE_ID(ID, name, params, what) PHASE_##ID,
    SIM_PHASE_LIST(SIM_PHASE_ID)
#undef SIM_PHASE_ID
    PHASE_COUNT
} SimPhase;
extern const char *const sim_phase_names[PHASE_COUNT];

typedef struct {
    double seconds[PHASE_COUNT];
    long substeps;              /* over the whole run, resumed parts included */
    long solve_iterations;      /* summed over solves */
    int frame_substeps;         /* in the frame just finished */
    SolveResult last_solve;
    int unconverged_solves;     /* in the frame just finished */
} SimStats;

/* Layers of AIR faces the velocity is extrapolated into after the projection (the host's
 * given_extrapolate and the OpenCL pipeline both): g2p reads at most one face beyond the fluid
 * (its stencil is one cell wide), a second layer keeps the average smooth there. */
#define SIM_EXTRAPOLATE_LAYERS 2

/* How the substeps of a run advance, chosen once by sim_init: the teaching stepping (the
 * track's advect stage, the scene's cfl, SIM_EXTRAPOLATE_LAYERS) or, when the scene has a
 * production group and the track a production step (Track.advect_grid), that step at
 * production.cfl with the extrapolation reaching as far as a substep can carry a particle. */
typedef struct {
    int order;          /* 0: the track's advect stage; 2 or 3: Track.advect_grid's RK order */
    float cfl;          /* cells the fastest particle may cross in a substep */
    int layers;         /* AIR faces the extrapolation fills beyond the fluid, at most */
    int reach;          /* this substep's: production stepping extrapolates only as far as
                         * its dt can carry the fastest particle (sim_step), never past layers */
} SimStepping;

/* The extrapolation's reach for a substep of cfl cells: a particle that starts in a FLUID cell
 * (its faces known) samples the grid up to cfl cells away, and its stencil reaches one face
 * further; never fewer than SIM_EXTRAPOLATE_LAYERS. */
int sim_extrapolate_layers(float cfl);

/* The last frame a run may reach: frame files are named with six digits. */
#define SIM_MAX_FRAME 999999

/* How a sim_* call (or a backend's) failed: what a caller tests, never the message's words. */
/* What went wrong, when sim_* returns -1: its status and one line, naming the stage and the
 * place. sim_fail writes both. */
typedef struct {
    char message[MESSAGE_MAX];
    RunStatus status;       /* RUN_COULD_NOT_RUN (a stage wrote NaN/Inf, a device call failed,
                             * ...) or RUN_OUT_OF_MEMORY (flipsim exits EXIT_MEMORY) */
} SimError;

typedef struct Sim Sim;

/* A backend: where the phases of a substep run. sim_substep (sim.c) is the only place that
 * puts them in order; a backend only says how each one is done. The host backend (sim.c) runs
 * the track's stages and the given steps on this CPU and checks each stage's output for
 * NaN/Inf; the reference's OpenCL pipeline (reference/pipeline.c) runs them as kernels on its
 * own copy of the state. Every call returns 0, or -1 with one line in s->error. Every member
 * is required: sim_use_backend refuses a backend that lacks one, naming it. */
typedef struct SimBackend {
    const char *name;           /* e.g. "opencl: Portable Computing Language / cpu" */
    /* the phases, one per SimPhase (SIM_PHASE_LIST) */
#define SIM_PHASE_MEMBER(ID, name, params, what) int(*name) params;
    SIM_PHASE_LIST(SIM_PHASE_MEMBER)
#undef SIM_PHASE_MEMBER
    /* the state: to the backend (after set-up, events, resume), back for frames and
     * checkpoints, and the largest particle speed squared for the CFL substep */
    int (*upload)(Sim *s);
    int (*download)(Sim *s);
    int (*max_speed2)(Sim *s, float *out);
    /* Which algorithm the scene's solver name runs here, for the log (see sim_solver_variant). */
    const char *(*solver_variant)(const Sim *s, const char *name);
    /* true: the backend adds each phase's time into stats.seconds itself, by the end of every
     * frame (a device: its kernels' span on the device, as its phases return before they
     * finish); false: sim_substep times each phase's call. */
    bool times_phases;
    void (*close)(struct SimBackend *b);
} SimBackend;

struct Sim {
    const Scene *scene;
    Track track;
    PressureSolver solver;      /* NULL: the track's jacobi, repeated */
    const char *solver_name;
    const char *solver_variant; /* the algorithm solver_name runs on this backend, for the log */
    float solver_omega;         /* for the given SOR */
    MacGrid grid;
    Particles particles;
    int8_t *solid;              /* 1 where a cell is SOLID for the whole run */
    float *vel_old[3];          /* grid velocity right after p2g, for FLIP */
    float *div, *rhs, *scratch, *lap; /* per cell */
    uint8_t *extrap_scratch;
    SimStepping step;           /* teaching or production stepping (sim_init) */
    int frame;                  /* the last frame reached; time == frame / frame_rate */
    double time;
    SimStats stats;
    SimError error;
    SimWatch watch;             /* the run's checks on itself (watch.c) */
    SimBackend *backend;        /* where the phases run: sim_host_backend unless a device */
    bool backend_stale;         /* the host's particles changed since the last upload */
    SolveHistory *history;      /* the convergence lab's record of each solve, or NULL */
};

/* Records why the sim cannot go on: status and one printf-style line into s->error, for the
 * driver, its checks (watch.c) and its backends alike. Returns -1, what the failing call
 * returns. sim_failv takes the arguments as a va_list. */
int sim_fail(Sim *s, RunStatus status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int sim_failv(Sim *s, RunStatus status, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* Where a non-finite value was found: a face of u, v or w, a cell, a particle. */
typedef enum { SIM_AT_U, SIM_AT_V, SIM_AT_W, SIM_AT_CELL, SIM_AT_PARTICLE } SimPlace;

/* Records that phase wrote a value that is not finite to field at index (a flat face or cell
 * index, x fastest, or a particle's), as the one line the host backend gives it: stage, field,
 * place, and for a cell its type and its neighbours' from s->grid. value NULL: not known (a
 * device that found it kept no copy, and a particle's index is its place on the device). The
 * host backend checks every stage's output with it; a device backend calls it for what its own
 * checks found. Returns -1. */
int sim_fail_nonfinite(Sim *s, SimPhase phase, SimPlace place, const char *field, size_t index,
                       const double *value);

/* Bytes sim_init and the run will allocate for scene, at least: the grid's fields (cell types,
 * pressure, divergence, right-hand side, two scratch fields, and per face the velocity, its
 * weight and the copy kept for FLIP) and the particles seeded in the fluid shapes' boxes
 * (position and velocity each). Solver workspaces, the OpenCL device's copies and the
 * particle arrays' spare capacity come on top; so this is a floor, for refusing scenes that
 * cannot fit before allocating anything. Saturates at SIZE_MAX. */
size_t sim_memory_need(const Scene *scene, size_t *particles);

/* Sets up the grid, the solids and frame 0 (initial fluid and frame-0 events). The scene
 * must outlive the sim. Returns 0, or -1 with s->error set. */
int sim_init(Sim *s, const Scene *scene, const Track *track);
void sim_free(Sim *s);

/* What pressure.solver name runs on the C stages of track t: the track's own solver of that
 * name, the given lexicographic Gauss-Seidel/SOR, or the track's jacobi stage repeated. */
const char *sim_solver_variant(const Track *t, const char *name);

/* True when a sim of scene sc on track t solves for pressure with the given Gauss-Seidel/SOR
 * (given_sor.c), false when with the track's jacobi stage or a solver of the track's own. The
 * grader asks it of every graded run, to link the ones that grade jacobi without it. */
bool sim_runs_given_solver(const Scene *sc, const Track *t);

/* The backend every sim starts with: the track's stages and the given steps on this CPU. */
extern SimBackend sim_host_backend;

/* Hands the phases to backend b from now on (the sim closes it in sim_free). Returns 0, or -1
 * with one line in s->error (naming the missing call) when b lacks one; b is closed then. */
int sim_use_backend(Sim *s, SimBackend *b);
/* True when a backend other than the host's holds the state and the host's copy of the
 * particles is what it holds (after a frame's download, no event since). */
bool sim_backend_current(const Sim *s);

/* Advances to the next frame: CFL substeps up to time (frame+1)/frame_rate, then that
 * frame's events. Returns 0, or -1 with s->error set (e.g. a stage wrote NaN). */
int sim_advance_frame(Sim *s);

/* One CFL substep of the frame under way, as sim_advance_frame takes them (so substeps up to
 * a frame's end give that frame's bytes); the one that reaches the frame's end finishes the
 * frame as sim_advance_frame does (s->frame advances, the host's copy is current, events
 * fire). On a device the host's particles are current only at frame ends. Returns 0 or -1. */
int sim_advance_substep(Sim *s);

/* One substep of length dt: the algorithm, stage by stage. Returns 0 or -1. */
int sim_substep(Sim *s, float dt);

/* The substep length the CFL condition allows now (before capping at the frame end), from the
 * host's particles; sim_cfl_dt_for takes the largest speed squared from elsewhere (a device). */
float sim_cfl_dt(const Sim *s);
float sim_cfl_dt_for(const Sim *s, float vmax2);

#endif
