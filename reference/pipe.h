/* pipe.h — the inside of the OpenCL pipeline: its buffers, kernels and launch helpers, shared
 * by pipeline.c (the substep) and pipesolve.c (the pressure solvers). flipkit reference/:
 * not a public interface; pipeline.h is. */
#ifndef FLIPKIT_PIPE_H
#define FLIPKIT_PIPE_H

#include "clx.h"
#include "multigrid.h"
#include "sim.h"

/* Work-items of every reduction: fixed, so a sum is added in the same order on every run. */
enum { PIPE_PARTS = 256 };

/* Every kernel the pipeline launches; pipe_kernel_names in pipeline.c names them in order. */
typedef enum {
    K_SORT_KEYS, K_SORT_SCAN, K_SORT_SCATTER, K_SORT_BUCKETS, K_SORT_PERMUTE, K_P2G_SCATTER,
    K_P2G_NORMALIZE, K_CLASSIFY, K_GRAVITY,
    K_DIVERGENCE, K_PRESSURE_RHS, K_GRADIENT, K_EXTRAP_INIT, K_EXTRAP_LAYER, K_EXTRAP_FINISH,
    K_G2P, K_ADVECT, K_KEEP_INSIDE, K_MAX_SPEED2, K_JACOBI, K_LAPLACIAN, K_RESIDUAL_L,
    K_MG_COUNT, K_MG_COARSEN, K_MG_SMOOTH, K_MG_RESIDUAL, K_APPLY_A, K_MG_RESTRICT,
    K_MG_PROLONG, K_MG_COARSEST, K_SOLVE_SETUP, K_RESIDUAL_D, K_NORM2_D, K_NORM2_F, K_DOT_FD,
    K_DOT_FF, K_CG_UPDATE, K_CG_DIRECTION, K_TO_FLOAT, K_ADD_CORRECTION,
    K_SURFACE_FLAGS_OWN, K_SURFACE_FLAGS_X, K_SURFACE_FLAGS_YZ, K_SURFACE_MARK, K_SURFACE_POSITIONS, K_SURFACE_FIELD,
    K_SURFACE_APRON,
    K_COUNT
} PipeKernel;

typedef struct {
    int n[3];
    size_t cells;
    cl_mem type, count;         /* char cell types, uchar neighbour counts */
    cl_mem x, b, r;             /* float */
} PipeLevel;

typedef struct {
    SimDevice base;             /* first, so a SimDevice * is a Pipe * */
    Clx cl;
    char name[300];
    cl_kernel k[K_COUNT];
    cl_int failure;             /* the first OpenCL error, CL_SUCCESS while all is well */
    const char *failed_at;
    /* particles, kept in cell order from the first sort on; id[q] is particle q's index in the
     * host's arrays, and the spares receive each permutation before the swap */
    size_t capacity, count;
    cl_mem pos, vel, id, keys, sorted;
    cl_mem spare_pos, spare_vel, spare_id;
    /* cells */
    cl_mem solid, cell, p, div, rhs, lap, counts, cursor, start;
    /* faces */
    cl_mem face[3], weight[3], old[3], known[2];
    /* reductions */
    cl_mem partial_d, partial_f;
    /* solvers: double iterate and residual, float CG vectors; z is level[0].x */
    cl_mem xd, rd, s, t, rf;
    PipeLevel level[MG_MAX_LEVELS];
    int levels;
    /* the surface (pipesurface.c), made on first use: per cell, per brick of the fine grid
     * (surf_bricks of them), and the field of up to surf_capacity listed bricks */
    cl_mem surf_own, surf_flags[2], surf_mark, surf_list, surf_slot, surf_phi, surf_pos;
    size_t surf_bricks, surf_capacity, surf_particles;
    double surf_march_seconds;  /* host time in surface_polygonise, for the profile */
    double surf_last[2];        /* the last surface call's seconds: field, polygonise */
    /* $FLIPKIT_CL_PROFILE set: every launch is waited for and timed, printed at close */
    int profile;
    double kernel_seconds[K_COUNT];
    long kernel_launches[K_COUNT];
} Pipe;

/* A kernel argument: its size and where its value is (value NULL: local memory of that size). */
typedef struct { size_t size; const void *value; } PipeArg;
#define ARG(v) ((PipeArg){ sizeof(v), &(v) })

/* Sets the arguments and enqueues kernel k over gx x gy x gz work-items (no wait). */
void pipe_launch(Pipe *P, PipeKernel k, size_t gx, size_t gy, size_t gz, const PipeArg *args,
                 int nargs);
#define LAUNCH(P, k, gx, gy, gz, ...)                                                         \
    pipe_launch(P, k, gx, gy, gz, (const PipeArg[]){ __VA_ARGS__ },                          \
                (int)(sizeof((const PipeArg[]){ __VA_ARGS__ }) / sizeof(PipeArg)))
/* The same over the cells of level q / of the fine grid. */
#define LAUNCH_CELLS(P, q, k, ...)                                                            \
    LAUNCH(P, k, (size_t)(P)->level[q].n[0], (size_t)(P)->level[q].n[1],                     \
           (size_t)(P)->level[q].n[2], __VA_ARGS__)

/* Records an OpenCL failure (the first one wins); returns rc == CL_SUCCESS. */
int pipe_ok(Pipe *P, cl_int rc, const char *what);
/* Reads the PIPE_PARTS double partials and adds them in order. */
double pipe_sum(Pipe *P);
/* Chunk length of a reduction over n elements. */
int pipe_chunk(size_t n);
cl_int4 pipe_dims(const int n[3]);
static inline cl_int4 pipe_grid_dims(const MacGrid *g)
{
    const int n[3] = { g->nx, g->ny, g->nz };
    return pipe_dims(n);
}

/* Buffers and transfers (blocking), each recording its failure in P. */
cl_mem pipe_buffer(Pipe *P, size_t bytes);
void pipe_release(cl_mem *m);
void pipe_read(Pipe *P, cl_mem m, void *data, size_t bytes);
void pipe_write(Pipe *P, cl_mem m, const void *data, size_t bytes);
/* Turns a recorded OpenCL failure into the sim's one-line error: 0, or -1. */
int pipe_report(Pipe *P, Sim *s);
double pipe_clock(void);
/* Sorts the particles by cell: start[] offsets, sorted[] their places, by id within a cell;
 * pipe_sort also moves them into that order. */
void pipe_sort_index(Pipe *P, const MacGrid *g);
void pipe_sort(Pipe *P, const MacGrid *g);

/* The SimDevice surface call (pipesurface.c) and the release of its buffers. */
int pipe_surface(SimDevice *d, Sim *s, const SurfaceSettings *set, Mesh *m);
void pipe_surface_release(Pipe *P);

/* Solves L p = rhs on the device with the scene's pressure.solver (rhs in P->rhs, p in P->p). */
SolveResult pipe_solve(Pipe *P, const Sim *s);
/* Allocates the multigrid levels for grid g (level 0 shares P->cell). Returns 0 or -1. */
int pipe_alloc_levels(Pipe *P, const MacGrid *g);

#endif
