/* track.h — a track: the eight stage functions plus, optionally, a pressure solver.
 * flipkit common/: the driver runs whatever track it is handed. The student track lives in
 * assignment/track.c, the reference track in reference/track.c; each binary links its own. */
#ifndef FLIPKIT_TRACK_H
#define FLIPKIT_TRACK_H

#include <stdbool.h>
#include "scene.h"
#include "stagelist.h"
#include "stages.h"
#include "status.h"

/* What a pressure solve did; solvers return it and only the driver prints. A solve that could
 * not run (its buffers not allocated) says so in status, with residual INFINITY and p as it was. */
typedef struct {
    int iterations;
    double residual;    /* final |b - L p| / |b| (0 when b = 0) */
    bool converged;     /* residual <= tolerance */
    RunStatus status;   /* RUN_OK, or why the solve did not run (RUN_OUT_OF_MEMORY) */
} SolveResult;

/* The relative residual |b - L p| / |b| of one solve after every iteration, for the convergence
 * lab (make solvers). A C solver fills it when it is handed one (the history argument; NULL in
 * every normal run), and then measures the residual after every iteration, even where it
 * otherwise measures every few. */
typedef struct SolveHistory {
    double *residual;   /* residual[i] after iteration i; [0] is the initial guess's */
    int capacity;       /* room in residual[]: the solve's iteration cap + 1 */
    int count;          /* entries written: the last iteration recorded + 1 */
} SolveHistory;

/* How many sweeps an iterative solve runs between two residuals, written once for every solver:
 * a residual costs about as much as a sweep, so a solve measures it every TRACK_CHECK_EVERY
 * sweeps (the jacobi stage's solve, the reference's relaxations, the pipeline's), and the given
 * SOR every TRACK_CHECK_EVERY_GIVEN: the grader has recorded its runs, and the cadence decides
 * the sweep a solve stops at, so its bytes. Every sweep when a history records them. */
enum { TRACK_CHECK_EVERY = 10, TRACK_CHECK_EVERY_GIVEN = 5 };
static inline int track_check_every(const SolveHistory *history, int every)
{
    return history ? 1 : every;
}

/* Records the residual after `iteration` in h; does nothing when h is NULL (every normal run)
 * or the iteration is beyond its capacity. */
void track_record_residual(SolveHistory *h, int iteration, double residual);

/* Solves L p = rhs in FLUID cells (p holds the initial guess and receives the answer);
 * records the residual of every iteration in history when it is not NULL. */
typedef SolveResult (*PressureSolver)(const MacGrid *g, const float *rhs, float *p,
                                      const PressureSettings *ps, SolveHistory *history);

#define TRACK_COUNT_ONE(number, name) +1
enum { STAGE_COUNT = 0 STAGE_LIST(TRACK_COUNT_ONE) };
#undef TRACK_COUNT_ONE
extern const char *const stage_names[STAGE_COUNT]; /* stagelist.h's order: stage_names[n - 1] is stage n */

typedef struct {
    const char *name;               /* "student", "reference", or "mixed" */
    void (*advect)(Particles *, float);
    void (*gravity)(MacGrid *, Vec3, float);
    void (*p2g)(const Particles *, MacGrid *);
    void (*g2p)(Particles *, const MacGrid *, float *const[3], float);
    void (*divergence)(const MacGrid *, float *);
    void (*laplacian)(const MacGrid *, const float *, float *);
    void (*jacobi)(const MacGrid *, const float *, const float *, float, float *);
    void (*gradient)(MacGrid *, const float *, float);
    /* Named solvers this track adds to the given ones (NULL-terminated, may be NULL). */
    const struct NamedSolver *solvers;
    /* The production particle step (a scene's "production" group), or NULL: every particle
     * moves through the grid's velocity, trilinear from the faces, with a Runge-Kutta step of
     * the given order (2 or 3). The reference track has it; the student track and mixed tracks
     * do not, so they keep the advect stage whatever the scene says. */
    void (*advect_grid)(Particles *, const MacGrid *, float dt, int order);
} Track;

/* A solver a track adds, by its scene name; variant says exactly which algorithm that name
 * runs here (the log and --help print it: one name may mean another ordering elsewhere). */
typedef struct NamedSolver { const char *name; PressureSolver solve; const char *variant; } NamedSolver;

extern const Track student_track;   /* assignment/track.c */

/* dst = base with the stages named in the comma-separated list taken from other.
 * Returns 0, or -1 and writes one line to err naming an unknown stage. */
int track_mix(Track *dst, const Track *base, const Track *other, const char *list,
              char *err, size_t errlen);

#endif
