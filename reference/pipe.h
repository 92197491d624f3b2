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
/* Partial sums a reduction may leave: PIPE_PARTS chunks, or one per z-slab of a box (a scene's
 * grid has at most 1024 cells along z). */
enum { PIPE_MAX_PARTIALS = 1024 };

/* Every kernel the pipeline launches, once: its enum K_<ID> and its name in kernels/. */
#define PIPE_KERNELS(X) \
    X(SORT_KEYS, sort_keys) X(SORT_SCAN_SUMS, sort_scan_sums) \
    X(SORT_SCAN_PARTS, sort_scan_parts) X(SORT_SCAN_WRITE, sort_scan_write) \
    X(SORT_SCATTER, sort_scatter) \
    X(SORT_BUCKETS, sort_buckets) X(SORT_PERMUTE, sort_permute) X(P2G_SCATTER, p2g_scatter) \
    X(P2G_NORMALIZE, p2g_normalize) X(GRAVITY, gravity) \
    X(DIVERGENCE, divergence) X(PRESSURE_RHS, pressure_rhs) X(GRADIENT, gradient) \
    X(EXTRAP_INIT, extrap_init) X(EXTRAP_LAYER, extrap_layer) \
    X(G2P, g2p) X(G2P_BLEND, g2p_blend) X(G2P_BLENDED, g2p_blended) X(ADVECT, advect) X(KEEP_INSIDE, keep_inside) \
    X(MAX_SPEED2, max_speed2) X(JACOBI, jacobi) X(LAPLACIAN, laplacian) \
    X(RESIDUAL_L, residual_l) X(MG_COUNT, mg_count) X(MG_COARSEN, mg_coarsen) \
    X(FLUID_BOUNDS, fluid_bounds) X(MG_SMOOTH_SERIAL, mg_smooth_serial) X(APPLY_A, apply_A) \
    X(MG_COARSEST, mg_coarsest) X(MG_DOWN_SERIAL, mg_down_serial) X(MG_UP_SERIAL, mg_up_serial) \
    X(RB_SPLIT_F, rb_split_f) X(RB_SPLIT_U, rb_split_u) X(RB_MERGE_F, rb_merge_f) X(MG_SMOOTH_SPLIT, mg_smooth_split) \
    X(MG_SMOOTH_SPLIT_ZERO, mg_smooth_split_zero) \
    X(MG_RESIDUAL_SPLIT, mg_residual_split) X(MG_RESTRICT_SPLIT, mg_restrict_split) \
    X(MG_PROLONG_SPLIT, mg_prolong_split) X(MG_PROLONG_SPLIT_EDGE, mg_prolong_split_edge) \
    X(RESIDUAL_D, residual_d) \
    X(DOT_FF, dot_ff) X(DOT_ZD, dot_zd) X(NORM2_D, norm2_d) \
    X(CG_UPDATE, cg_update) X(CG_DIRECTION, cg_direction) X(CG_ALPHA, cg_alpha) \
    X(CG_BETA, cg_beta) X(TO_FLOAT, to_float) X(TO_FLOAT_SPLIT, to_float_split) \
    X(ADD_CORRECTION, add_correction) X(SURFACE_FLAGS_OWN, surface_flags_own) X(SURFACE_FLAGS_X, surface_flags_x) \
    X(SURFACE_FLAGS_YZ, surface_flags_yz) X(SURFACE_MARK, surface_mark) X(SURFACE_POSITIONS, surface_positions) \
    X(SURFACE_FIELD, surface_field) X(SURFACE_APRON, surface_apron) X(ANISO_WANT, aniso_want) \
    X(ANISO_KERNELS, aniso_kernels) X(ANISO_FIELD, aniso_field) X(FILL_ZERO, fill_zero)

typedef enum {
#define PIPE_KERNEL_ID(id, name) K_##id,
    PIPE_KERNELS(PIPE_KERNEL_ID)
#undef PIPE_KERNEL_ID
    K_COUNT
} PipeKernel;

typedef struct {
    int n[3];
    size_t cells;
    cl_mem type, count;         /* char cell types, ushort info (mg_count: neighbour mask,
                                 * INFO_FLUID, neighbour count) */
    cl_mem x, b, r;             /* float; r in the split layout on a split level */
    int lo[3], hi[3];           /* the box [lo, hi) holding every FLUID cell of this solve */
    int used_lo[3], used_hi[3]; /* a split level: where r (and x below level 0) may be nonzero,
                                 * the box of the solves since they were last cleared */
    cl_mem xs, bs, infos;       /* x, b, count in colour-split layout (solvers.cl), on a level
                                 * swept in parallel; NULL on one swept by one work-item */
    int hx, nh, pad;            /* cells per split row, per colour; pad elements at each end */
} PipeLevel;

typedef struct {
    SimBackend base;            /* first, so a SimBackend * is a Pipe * */
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
    int box_fresh;              /* level 0's box (pipe_fluid_box) is that of the cell types now */
    int keys_fresh;             /* keys[p] is particle p's cell: keep_inside or a sort left
                                 * them, and nothing has moved or reordered the particles since */
    /* cells */
    cl_mem solid, cell, p, div, rhs, lap, counts, start;
    /* faces */
    cl_mem face[3], weight[3], old[3], known[2];
    cl_mem sum[3];              /* p2g_scatter's weighted sums: 0 between substeps */
    int weights_kept;           /* the last pipe_p2g left the weights for reading, not 0 */
    float gravity_dv[3];        /* this substep's gravity, added by divergence and gradient */
    /* reductions */
    cl_mem partial_d, partial_f, bounds, scan_sums;
    /* solvers: double iterate and residual, float CG vectors; z is level[0].x */
    cl_mem xd, rd, s, t, rf;
    cl_mem cg_scal;             /* sigma, alpha or beta, broke: CG's scalars (solvers.cl) */
    PipeLevel level[MG_MAX_LEVELS];
    int levels;
    int grid_n[3];              /* the grid the cell and face buffers are sized for */
    /* the surface (pipesurface.c), made on first use: per cell, per brick of the fine grid
     * (surf_bricks of them), and the field of up to surf_capacity listed bricks */
    cl_mem surf_own, surf_flags[2], surf_mark, surf_list, surf_slot, surf_phi, surf_pos;
    size_t surf_bricks, surf_capacity, surf_particles;
    /* the anisotropic surface's: per cell whether its particles need kernels and the box
     * around their ellipsoids, and the kernels (4 float4 per particle, aniso_particles) */
    cl_mem aniso_want, aniso_box, aniso_kern;
    size_t aniso_particles;
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
/* Over the cells [lo, hi) of a grid (a global offset of lo); a kernel there may also run on a
 * few cells past hi, as every launch is rounded up to whole work-groups. */
void pipe_launch_box(Pipe *P, PipeKernel k, const int lo[3], const int hi[3], const PipeArg *args,
                     int nargs);
#define LAUNCH_RANGE(P, k, lo, hi, ...)                                                        \
    pipe_launch_box(P, k, lo, hi, (const PipeArg[]){ __VA_ARGS__ },                           \
                    (int)(sizeof((const PipeArg[]){ __VA_ARGS__ }) / sizeof(PipeArg)))
/* ... over the box of level q's FLUID cells (pipe_fluid_box) */
#define LAUNCH_BOX(P, q, k, ...) LAUNCH_RANGE(P, k, (P)->level[q].lo, (P)->level[q].hi, __VA_ARGS__)
/* The same over the cells of level q / of the fine grid. */
#define LAUNCH_CELLS(P, q, k, ...)                                                            \
    LAUNCH(P, k, (size_t)(P)->level[q].n[0], (size_t)(P)->level[q].n[1],                     \
           (size_t)(P)->level[q].n[2], __VA_ARGS__)

/* Records an OpenCL failure (the first one wins); returns rc == CL_SUCCESS. */
int pipe_ok(Pipe *P, cl_int rc, const char *what);
/* Fills the first `bytes` of m with zeros (enqueued). */
void pipe_zero(Pipe *P, cl_mem m, size_t bytes);
/* Reads the PIPE_PARTS double partials and adds them in order. */
double pipe_sum(Pipe *P);
/* The same for the first n partials. */
double pipe_sum_parts(Pipe *P, int n);
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

/* The release of the surface's buffers (pipesurface.c; pipeline_surface makes them). */
void pipe_surface_release(Pipe *P);

/* Level 0's box around the FLUID cells (and the coarse levels'), for the cell types just
 * classified, with one wait: the pipeline's classify phase, so that divergence and gradient
 * launch on it too. Nothing for jacobi, which sweeps the whole grid. */
void pipe_find_box(Pipe *P, const Sim *s);
/* Solves L p = rhs on the device with the scene's pressure.solver (rhs in P->rhs, p in P->p),
 * after pressure_rhs has left rhs, b, the iterate and their norms' partial sums; finds the box
 * itself when pipe_find_box has not. */
SolveResult pipe_solve(Pipe *P, const Sim *s);

/* The phases of a substep on the device's buffers, each enqueued without a wait; pipeline.c's
 * backend calls run them on the resident state, opencl_track.c on one stage's case. */
/* classify: also the cell types (and p = 0 outside FLUID) from the sort, in p2g's normalize
 * pass (u's launch): the pipeline's classify */
void pipe_p2g(Pipe *P, const MacGrid *g, int keep_weights, int classify);
void pipe_gravity(Pipe *P, const MacGrid *g, Vec3 gravity, float dt);
/* dv: gravity's change per component, fused into these two passes (pipeline.c's gravity
 * phase says how), or NULL for none. */
void pipe_divergence(Pipe *P, const MacGrid *g, const float *dv, int on_box);
void pipe_gradient(Pipe *P, const MacGrid *g, float scale, const float *dv, int on_box);
void pipe_extrapolate(Pipe *P, const MacGrid *g);
void pipe_g2p(Pipe *P, const MacGrid *g, float alpha);
/* The same velocities through one blended field per component (stages.cl says how); the
 * pipeline's g2p. It overwrites the old velocities, which pipe_g2p reads. */
void pipe_g2p_blended(Pipe *P, const MacGrid *g, float alpha);
void pipe_advect(Pipe *P, float dt);
void pipe_keep_inside(Pipe *P, const MacGrid *g);
/* out = L in, and one weighted Jacobi sweep out from in (the jacobi solver's two steps). */
void pipe_laplacian(Pipe *P, const MacGrid *g, cl_mem in, cl_mem out);
void pipe_jacobi_sweep(Pipe *P, const MacGrid *g, cl_mem in, cl_mem out, float omega);

/* Makes the grid's buffers fit g (remade when its size changes; g NULL: left as they are, for
 * a phase that reads particles only) and the particles' hold count; returns 0, or -1 with the
 * failure recorded in P. */
int pipe_fit(Pipe *P, const MacGrid *g, size_t count);
/* Allocates the multigrid levels for grid g (level 0 shares P->cell). Returns 0 or -1. */
int pipe_alloc_levels(Pipe *P, const MacGrid *g);

#endif
