/* pipedev.h — the OpenCL pipeline's device layer: the open device and its kernels, launches,
 * buffers, the ordered sums, and the first error, which every later call then skips.
 * flipkit reference/: the bottom layer of the pipeline (pipedev ← pipestate ← pipestages ←
 * pipesolve, pipesurface ← pipeline); it knows nothing of particles, grids or solvers. */
#ifndef FLIPKIT_PIPEDEV_H
#define FLIPKIT_PIPEDEV_H

#include "clx.h"

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
    X(SORT_BUCKETS, sort_buckets) X(SORT_PERMUTE3, sort_permute3) X(SORT_PERMUTE1, sort_permute1) \
    X(SORT_SMALL, sort_small) \
    X(P2G_SCATTER, p2g_scatter) X(P2G_SCATTER_SMALL, p2g_scatter_small) \
    X(P2G_NORMALIZE, p2g_normalize) X(GRAVITY, gravity) \
    X(DIVERGENCE, divergence) X(PRESSURE_RHS, pressure_rhs) X(GRADIENT, gradient) X(GRADIENT3, gradient3) \
    X(EXTRAP_INIT, extrap_init) X(EXTRAP_LAYER, extrap_layer) \
    X(G2P, g2p) X(G2P_BLEND, g2p_blend) X(ADVECT, advect) X(G2P_MOVE, g2p_move) X(KEEP_INSIDE, keep_inside) \
    X(MAX_SPEED2, max_speed2) X(JACOBI, jacobi) X(JACOBI_SOLVE, jacobi_solve) X(LAPLACIAN, laplacian) \
    X(RESIDUAL_L, residual_l) X(MG_COUNT, mg_count) X(MG_COARSEN, mg_coarsen) \
    X(FLUID_BOUNDS, fluid_bounds) X(MG_SMOOTH_SERIAL, mg_smooth_serial) X(APPLY_A_DOT, apply_A_dot) X(APPLY_A, apply_A) X(DOT_FF, dot_ff) \
    X(MG_COARSEST, mg_coarsest) X(MG_DOWN_SERIAL, mg_down_serial) X(MG_UP_SERIAL, mg_up_serial) \
    X(MG_VCYCLE_SERIAL, mg_vcycle_serial) \
    X(RB_SPLIT_F, rb_split_f) X(RB_SPLIT_U, rb_split_u) X(RB_MERGE_F, rb_merge_f) X(MG_SMOOTH_SPLIT, mg_smooth_split) \
    X(MG_SMOOTH_SPLIT_ZERO, mg_smooth_split_zero) \
    X(MG_RESIDUAL_SPLIT, mg_residual_split) X(MG_RESTRICT_SPLIT, mg_restrict_split) \
    X(MG_PROLONG_SPLIT, mg_prolong_split) X(MG_PROLONG_SPLIT_EDGE, mg_prolong_split_edge) \
    X(RESIDUAL_NORM_D, residual_norm_d) X(RESIDUAL_RF, residual_rf) X(NORM2_D, norm2_d) \
    X(DOT_ZD, dot_zd) \
    X(CG_UPDATE, cg_update) X(CG_DIRECTION, cg_direction) X(CG_DIRECTION_BOX, cg_direction_box) \
    X(CG_BETA, cg_beta) \
    X(ADD_CORRECTION, add_correction) X(SURFACE_FLAGS_OWN, surface_flags_own) X(SURFACE_FLAGS_X, surface_flags_x) \
    X(SURFACE_FLAGS_YZ, surface_flags_yz) X(SURFACE_MARK, surface_mark) X(SURFACE_POSITIONS, surface_positions) \
    X(SURFACE_FIELD, surface_field) X(SURFACE_APRON, surface_apron) X(ANISO_WANT, aniso_want) \
    X(ANISO_KERNELS, aniso_kernels) X(ANISO_FIELD, aniso_field) X(FILL_ZERO, fill_zero) \
    X(FIRST_NONFINITE, first_nonfinite)

typedef enum {
#define PIPE_KERNEL_ID(id, name) K_##id,
    PIPE_KERNELS(PIPE_KERNEL_ID)
#undef PIPE_KERNEL_ID
    K_COUNT
} PipeKernel;

/* The open device: what every layer above launches on. */
typedef struct {
    Clx cl;
    cl_kernel k[K_COUNT];
    cl_int failure;             /* the first OpenCL error, CL_SUCCESS while all is well */
    const char *failed_at;      /* what failed with it */
    cl_mem partial_d;           /* PIPE_MAX_PARTIALS doubles: the partial sums pipe_sum adds */
    cl_mem partial_f;           /* PIPE_PARTS floats: max_speed2's partial maxima */
    /* $FLIPKIT_CL_PROFILE set: every launch is waited for and timed, printed at close */
    int profile;
    /* $FLIPKIT_CL_SEPARATE_REGIONS set (check-oclgrind sets it): pipe_sub_buffer makes each
     * region a zeroed buffer of its own, so an access past a region is past a buffer, which
     * Oclgrind reports; in one parent it would land in the next region unseen. The regions
     * only share bytes that each use leaves 0 (pipestate.c, pipesolve.c), so a run gives the
     * same results either way. */
    int separate_regions;
    double kernel_seconds[K_COUNT];
    long kernel_launches[K_COUNT];
    /* Stage times (pipe_stage_begin): the open stage (-1: none), the events of its first and
     * latest kernel, and the finished stages' spans waiting for pipe_stage_seconds. */
    int stage;
    cl_event stage_first, stage_last;
    struct PipeSpan { int stage; cl_event first, last; } *spans;
    size_t nspans, span_cap;
} PipeDevice;

/* Opens device selector ("P:D"; NULL or "" for $FLIPKIT_CL_DEVICE or the first device), builds
 * every kernel and makes the partial-sum buffers. Returns it, or NULL with one line (or the
 * compiler's log) in err. */
PipeDevice *pipe_device_open(const char *selector, char *err, size_t errlen);
void pipe_device_close(PipeDevice *D);
/* The kernels' launches and seconds ($FLIPKIT_CL_PROFILE) to stderr: a debugging aid for
 * kernel authors, outside the driver's output on purpose. */
void pipe_device_print_profile(const PipeDevice *D);

/* A kernel argument: its size and where its value is (value NULL: local memory of that size). */
typedef struct { size_t size; const void *value; } PipeArg;
#define ARG(v) ((PipeArg){ sizeof(v), &(v) })
#define PIPE_NARGS(...) ((int)(sizeof((const PipeArg[]){ __VA_ARGS__ }) / sizeof(PipeArg)))

/* Sets the arguments and enqueues kernel k over gx x gy x gz work-items (no wait). */
void pipe_launch(PipeDevice *D, PipeKernel k, size_t gx, size_t gy, size_t gz,
                 const PipeArg *args, int nargs);
#define LAUNCH(D, k, gx, gy, gz, ...)                                                         \
    pipe_launch(D, k, gx, gy, gz, (const PipeArg[]){ __VA_ARGS__ }, PIPE_NARGS(__VA_ARGS__))
/* Over the cells [lo, hi) of a grid (a global offset of lo); a kernel there may also run on a
 * few cells past hi, as every launch is rounded up to whole work-groups. */
void pipe_launch_box(PipeDevice *D, PipeKernel k, const int lo[3], const int hi[3],
                     const PipeArg *args, int nargs);
#define LAUNCH_RANGE(D, k, lo, hi, ...)                                                        \
    pipe_launch_box(D, k, lo, hi, (const PipeArg[]){ __VA_ARGS__ }, PIPE_NARGS(__VA_ARGS__))
/* n work-groups of one work-item each, where wider groups would run the work-items side by
 * side in vector lanes (the sort's scan parts). */
void pipe_launch_singles(PipeDevice *D, PipeKernel k, size_t n, const PipeArg *args, int nargs);
#define LAUNCH_SINGLES(D, k, n, ...)                                                           \
    pipe_launch_singles(D, k, n, (const PipeArg[]){ __VA_ARGS__ }, PIPE_NARGS(__VA_ARGS__))

/* A stage's time on the device is the span of its kernels on the device's clock: from its
 * first kernel's start to its last kernel's end, the waits for reads inside it (a solver's
 * norms) included. Nothing waits for a stage to end, so the host enqueues the next stage while
 * the device runs this one. The kernels launched between pipe_stage_begin and pipe_stage_end
 * are the stage's; pipe_stage_seconds waits for the spans so far and adds each into
 * seconds[stage]. */
void pipe_stage_begin(PipeDevice *D, int stage);
void pipe_stage_end(PipeDevice *D);
void pipe_stage_seconds(PipeDevice *D, double *seconds);

/* The largest work-group kernel k can run in on this device. */
size_t pipe_group_limit(PipeDevice *D, PipeKernel k);
/* A size limit a path is picked by: $name when it holds a count (0: never), else fallback.
 * Read on every call, so that a test can set it between runs. */
size_t pipe_env_limit(const char *name, size_t fallback);
/* One work-group of `size` work-items (a kernel that synchronises its whole launch with barriers). */
void pipe_launch_group(PipeDevice *D, PipeKernel k, size_t size, const PipeArg *args, int nargs);
#define LAUNCH_GROUP(D, k, size, ...)                                                          \
    pipe_launch_group(D, k, size, (const PipeArg[]){ __VA_ARGS__ }, PIPE_NARGS(__VA_ARGS__))

/* Records an OpenCL failure (the first one wins); returns rc == CL_SUCCESS. */
int pipe_ok(PipeDevice *D, cl_int rc, const char *what);
/* Waits for everything enqueued; returns whether all has gone well so far. */
int pipe_wait(PipeDevice *D);
/* Reads the first n double partials (partial_d) and adds them in order. */
double pipe_sum_parts(PipeDevice *D, int n);
/* The same for the PIPE_PARTS partials of a reduction over PIPE_PARTS chunks. */
double pipe_sum(PipeDevice *D);
/* Chunk length of a reduction over n elements in PIPE_PARTS chunks. */
int pipe_chunk(size_t n);
cl_int4 pipe_dims(const int n[3]);

/* Buffers and transfers (blocking), each recording its failure in D. */
cl_mem pipe_buffer(PipeDevice *D, size_t bytes);
void pipe_release(cl_mem *m);
/* bytes rounded up to the device's alignment of a sub-buffer's origin (so that regions laid one
 * after another each start where pipe_sub_buffer accepts them). */
size_t pipe_align(PipeDevice *D, size_t bytes);
/* The bytes of parent from offset on (offset a multiple of pipe_align's) as a buffer of their
 * own, released with pipe_release. Sub-buffers that overlap are used one command after
 * another, never by the same kernel. */
cl_mem pipe_sub_buffer(PipeDevice *D, cl_mem parent, size_t offset, size_t bytes);
/* Fills the first `bytes` of m with zeros (enqueued). */
void pipe_zero(PipeDevice *D, cl_mem m, size_t bytes);
void pipe_read(PipeDevice *D, cl_mem m, void *data, size_t bytes);
/* The bytes of m from offset on (a piece of a buffer too big to stage whole on the host). */
void pipe_read_at(PipeDevice *D, cl_mem m, size_t offset, void *data, size_t bytes);
void pipe_write(PipeDevice *D, cl_mem m, const void *data, size_t bytes);
/* The first `bytes` of src into dst (enqueued); what names it should it fail. */
void pipe_copy(PipeDevice *D, cl_mem src, cl_mem dst, size_t bytes, const char *what);
double pipe_clock(void);

#endif
