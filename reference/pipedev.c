/* pipedev.c — the OpenCL pipeline's device layer: opening, launching, buffers, ordered sums.
 * flipkit reference/: every call records the first OpenCL failure in the PipeDevice and skips
 * its work once there is one, so a layer above checks once, where it can say what it was doing. */
#include "pipedev.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const pipe_sources[] = { "common.cl", "sort.cl", "stages.cl", "pipeline.cl",
                                            "solvers.cl", "surface.cl", "aniso.cl" };

static const char *const pipe_kernel_names[K_COUNT] = {
#define PIPE_KERNEL_NAME(id, name) #name,
    PIPE_KERNELS(PIPE_KERNEL_NAME)
#undef PIPE_KERNEL_NAME
};

double pipe_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int pipe_ok(PipeDevice *D, cl_int rc, const char *what)
{
    if (rc != CL_SUCCESS && D->failure == CL_SUCCESS) {
        D->failure = rc;
        D->failed_at = what;
    }
    return rc == CL_SUCCESS;
}

int pipe_wait(PipeDevice *D)
{
    pipe_ok(D, clFinish(D->cl.queue), "clFinish");
    return D->failure == CL_SUCCESS;
}

/* ---- launches -------------------------------------------------------------------------------- */

/* Work-groups are rows along x (PoCL runs a work-group as one vectorised loop over x, when the
 * kernel is scalar code: see STENCIL_AXIS in kernels/common.cl); the global size is rounded up
 * to whole groups and every kernel checks its bounds. 32 x 4 rows and 64-item 1-D groups were
 * the fastest tried on PoCL here; $FLIPKIT_CL_LOCAL="X,Y,N" (3-D row, 3-D height, 1-D size)
 * overrides them for tuning on another device. */
static size_t pipe_round_up(size_t n, size_t m)
{
    return (n + m - 1) / m * m;
}

/* The work-group shape for gx x gy x gz work-items. */
static void pipe_local(PipeKernel k, size_t gx, size_t gy, size_t gz, size_t local[3])
{
    static int lx = 0, ly = 0, l1 = 0;
    if (!lx) {
        const char *e = getenv("FLIPKIT_CL_LOCAL");
        if (!e || sscanf(e, "%d,%d,%d", &lx, &ly, &l1) != 3)
            lx = 32, ly = 4, l1 = 64;
    }
    local[0] = gx == 1 ? 1 : gy == 1 && gz == 1 ? (size_t)l1 : (size_t)lx;
    /* Work-groups four rows deep: half as many again per launch cost less to hand out.
     * Not p2g_scatter, whose work-items are whole rows of cells of very different weight:
     * a work-group a row deep keeps both cores busy to the end. */
    local[1] = gy == 1 || k == K_P2G_SCATTER ? 1 : (size_t)ly;
    local[2] = 1;
}

/* ---- stage times ---------------------------------------------------------------------------- */

/* A kernel of the open stage: the first is kept, and the latest. */
static void pipe_stage_kernel(PipeDevice *D, cl_event ev)
{
    if (!D->stage_first) {
        D->stage_first = ev;
        return;
    }
    if (D->stage_last)
        clReleaseEvent(D->stage_last);
    D->stage_last = ev;
}

void pipe_stage_begin(PipeDevice *D, int stage)
{
    pipe_stage_end(D);
    D->stage = stage;
}

void pipe_stage_end(PipeDevice *D)
{
    if (D->stage >= 0 && D->stage_first) {
        if (D->nspans == D->span_cap) {
            size_t cap = D->span_cap ? 2 * D->span_cap : 64;
            struct PipeSpan *more = realloc(D->spans, cap * sizeof *more);
            if (!more) { /* the stage goes untimed; the run goes on */
                clReleaseEvent(D->stage_first);
                if (D->stage_last)
                    clReleaseEvent(D->stage_last);
                D->stage_first = D->stage_last = NULL;
                D->stage = -1;
                return;
            }
            D->spans = more, D->span_cap = cap;
        }
        D->spans[D->nspans++] = (struct PipeSpan){ D->stage, D->stage_first, D->stage_last };
    }
    D->stage_first = D->stage_last = NULL;
    D->stage = -1;
}

static double pipe_event_ns(cl_event ev, cl_profiling_info what)
{
    cl_ulong ns = 0;
    return clGetEventProfilingInfo(ev, what, sizeof ns, &ns, NULL) == CL_SUCCESS ? (double)ns
                                                                                    : NAN;
}

/* Forgets the spans not yet added, and the open stage. */
static void pipe_stage_drop(PipeDevice *D)
{
    pipe_stage_end(D);
    for (size_t q = 0; q < D->nspans; q++) {
        clReleaseEvent(D->spans[q].first);
        if (D->spans[q].last)
            clReleaseEvent(D->spans[q].last);
    }
    free(D->spans);
    D->spans = NULL;
    D->nspans = D->span_cap = 0;
}

void pipe_stage_seconds(PipeDevice *D, double *seconds)
{
    pipe_stage_end(D);
    for (size_t q = 0; q < D->nspans; q++) {
        struct PipeSpan *sp = &D->spans[q];
        cl_event end = sp->last ? sp->last : sp->first;
        if (clWaitForEvents(1, &end) == CL_SUCCESS) {
            double t = pipe_event_ns(end, CL_PROFILING_COMMAND_END) -
                       pipe_event_ns(sp->first, CL_PROFILING_COMMAND_START);
            seconds[sp->stage] += isfinite(t) && t > 0.0 ? 1e-9 * t : 0.0;
        }
        clReleaseEvent(sp->first);
        if (sp->last)
            clReleaseEvent(sp->last);
    }
    D->nspans = 0;
}

/* Sets k's arguments and enqueues it (offset NULL: from 0); times it under FLIPKIT_CL_PROFILE. */
static void pipe_enqueue(PipeDevice *D, PipeKernel k, const size_t *offset,
                         const size_t global[3], const size_t local[3], const PipeArg *args,
                         int nargs)
{
    if (D->failure != CL_SUCCESS)
        return;
    for (int q = 0; q < nargs; q++)
        if (!pipe_ok(D, clSetKernelArg(D->k[k], (cl_uint)q, args[q].size, args[q].value),
                     pipe_kernel_names[k]))
            return;
    double t0 = D->profile && pipe_ok(D, clFinish(D->cl.queue), "clFinish") ? pipe_clock() : 0.0;
    cl_event ev = NULL;
    if (pipe_ok(D, clEnqueueNDRangeKernel(D->cl.queue, D->k[k], 3, offset, global, local, 0,
                                          NULL, D->stage >= 0 ? &ev : NULL),
                pipe_kernel_names[k]) && ev)
        pipe_stage_kernel(D, ev);
    if (D->profile && pipe_ok(D, clFinish(D->cl.queue), "clFinish")) {
        D->kernel_seconds[k] += pipe_clock() - t0;
        D->kernel_launches[k]++;
    }
}

void pipe_launch(PipeDevice *D, PipeKernel k, size_t gx, size_t gy, size_t gz,
                 const PipeArg *args, int nargs)
{
    const int lo[3] = { 0, 0, 0 }, hi[3] = { (int)gx, (int)gy, (int)gz };
    pipe_launch_box(D, k, lo, hi, args, nargs);
}

void pipe_launch_box(PipeDevice *D, PipeKernel k, const int lo[3], const int hi[3],
                     const PipeArg *args, int nargs)
{
    size_t g[3], local[3], offset[3] = { (size_t)lo[0], (size_t)lo[1], (size_t)lo[2] };
    for (int d = 0; d < 3; d++)
        g[d] = hi[d] > lo[d] ? (size_t)(hi[d] - lo[d]) : 1;
    pipe_local(k, g[0], g[1], g[2], local);
    size_t global[3] = { pipe_round_up(g[0], local[0]), pipe_round_up(g[1], local[1]), g[2] };
    pipe_enqueue(D, k, offset, global, local, args, nargs);
}

void pipe_launch_singles(PipeDevice *D, PipeKernel k, size_t n, const PipeArg *args, int nargs)
{
    size_t global[3] = { n, 1, 1 }, one[3] = { 1, 1, 1 };
    pipe_enqueue(D, k, NULL, global, one, args, nargs);
}

size_t pipe_group_limit(PipeDevice *D, PipeKernel k)
{
    size_t most = 0;
    if (clGetKernelWorkGroupInfo(D->k[k], D->cl.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof most,
                                 &most, NULL) != CL_SUCCESS)
        return 1; /* only a group of one is sure to run */
    return most;
}

size_t pipe_env_limit(const char *name, size_t fallback)
{
    const char *e = getenv(name);
    char *end = NULL;
    long limit = e && *e ? strtol(e, &end, 10) : -1;
    return end && !*end && limit >= 0 ? (size_t)limit : fallback; /* not a count: ignored */
}

void pipe_launch_group(PipeDevice *D, PipeKernel k, size_t size, const PipeArg *args, int nargs)
{
    size_t global[3] = { size, 1, 1 }, local[3] = { size, 1, 1 };
    pipe_enqueue(D, k, NULL, global, local, args, nargs);
}

/* ---- sums ----------------------------------------------------------------------------------- */

double pipe_sum_parts(PipeDevice *D, int n)
{
    double part[PIPE_MAX_PARTIALS], sum = 0.0;
    if (n > PIPE_MAX_PARTIALS) { /* a grid of more than 1024 slabs, which no scene allows */
        pipe_ok(D, CL_INVALID_VALUE, "more partial sums than PIPE_MAX_PARTIALS");
        return NAN;
    }
    if (!pipe_ok(D, clEnqueueReadBuffer(D->cl.queue, D->partial_d, CL_TRUE, 0,
                                        (size_t)n * sizeof(double), part, 0, NULL, NULL),
                 "reading a sum"))
        return NAN;
    for (int q = 0; q < n; q++)
        sum += part[q];
    return sum;
}

double pipe_sum(PipeDevice *D)
{
    return pipe_sum_parts(D, PIPE_PARTS);
}

int pipe_chunk(size_t n)
{
    return (int)((n + PIPE_PARTS - 1) / PIPE_PARTS);
}

cl_int4 pipe_dims(const int n[3])
{
    cl_int4 d = { { n[0], n[1], n[2], 0 } };
    return d;
}

/* ---- buffers -------------------------------------------------------------------------------- */

cl_mem pipe_buffer(PipeDevice *D, size_t bytes)
{
    cl_int rc;
    cl_mem m = clCreateBuffer(D->cl.context, CL_MEM_READ_WRITE, bytes ? bytes : 4, NULL, &rc);
    pipe_ok(D, rc, "clCreateBuffer");
    return m;
}

size_t pipe_align(PipeDevice *D, size_t bytes)
{
    cl_uint bits = 0;
    if (clGetDeviceInfo(D->cl.device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL) !=
            CL_SUCCESS || bits < 8)
        bits = 1024; /* the largest the OpenCL 1.2 full profile asks for (long16) */
    size_t unit = bits / 8;
    return (bytes + unit - 1) / unit * unit;
}

cl_mem pipe_sub_buffer(PipeDevice *D, cl_mem parent, size_t offset, size_t bytes)
{
    if (D->separate_regions) {
        size_t whole = bytes ? (bytes + 3) / 4 * 4 : 4;
        cl_mem own = pipe_buffer(D, whole);
        if (D->failure == CL_SUCCESS)
            pipe_zero(D, own, whole);
        return own;
    }
    cl_buffer_region region = { offset, bytes ? bytes : 4 };
    cl_int rc = CL_SUCCESS;
    cl_mem m = D->failure == CL_SUCCESS ? clCreateSubBuffer(parent, CL_MEM_READ_WRITE,
                                                            CL_BUFFER_CREATE_TYPE_REGION, &region,
                                                            &rc) : NULL;
    pipe_ok(D, rc, "clCreateSubBuffer");
    return m;
}

void pipe_release(cl_mem *m)
{
    if (*m)
        clReleaseMemObject(*m);
    *m = NULL;
}

/* By a kernel, not clEnqueueFillBuffer: PoCL fills with one thread a word at a time, which
 * cost about 1 ms a substep at 64^3 (the faces, the V-cycles' x, the solves' clearing). Every
 * buffer holds whole 4-byte words (floats, ints, and the ushort infos in pairs). */
void pipe_zero(PipeDevice *D, cl_mem m, size_t bytes)
{
    cl_int words = (cl_int)(bytes / 4);
    if (bytes % 4)
        pipe_ok(D, CL_INVALID_BUFFER_SIZE, "pipe_zero of a size that is not whole words");
    else if (words)
        LAUNCH(D, K_FILL_ZERO, (size_t)words, 1, 1, ARG(m), ARG(words));
}

void pipe_write(PipeDevice *D, cl_mem m, const void *data, size_t bytes)
{
    if (bytes)
        pipe_ok(D, clEnqueueWriteBuffer(D->cl.queue, m, CL_TRUE, 0, bytes, data, 0, NULL, NULL),
                "clEnqueueWriteBuffer");
}

void pipe_read(PipeDevice *D, cl_mem m, void *data, size_t bytes)
{
    pipe_read_at(D, m, 0, data, bytes);
}

void pipe_read_at(PipeDevice *D, cl_mem m, size_t offset, void *data, size_t bytes)
{
    if (bytes)
        pipe_ok(D, clEnqueueReadBuffer(D->cl.queue, m, CL_TRUE, offset, bytes, data, 0, NULL,
                                       NULL), "clEnqueueReadBuffer");
}

void pipe_copy(PipeDevice *D, cl_mem src, cl_mem dst, size_t bytes, const char *what)
{
    pipe_ok(D, clEnqueueCopyBuffer(D->cl.queue, src, dst, 0, 0, bytes, 0, NULL, NULL), what);
}

/* ---- opening and closing -------------------------------------------------------------------- */

void pipe_device_print_profile(const PipeDevice *D)
{
    fprintf(stderr, "%-16s %8s %10s %10s\n", "kernel", "launches", "seconds", "us/launch");
    for (int q = 0; q < K_COUNT; q++)
        if (D->kernel_launches[q])
            fprintf(stderr, "%-16s %8ld %10.3f %10.1f\n", pipe_kernel_names[q],
                    D->kernel_launches[q], D->kernel_seconds[q],
                    1e6 * D->kernel_seconds[q] / (double)D->kernel_launches[q]);
}

void pipe_device_close(PipeDevice *D)
{
    if (!D)
        return;
    pipe_stage_drop(D); /* a run that stopped within a frame */
    pipe_release(&D->partial_d);
    pipe_release(&D->partial_f);
    for (int q = 0; q < K_COUNT; q++)
        if (D->k[q])
            clReleaseKernel(D->k[q]);
    clx_close(&D->cl);
    free(D);
}

static int pipe_create_kernels(PipeDevice *D, char *err, size_t errlen)
{
    for (int q = 0; q < K_COUNT; q++) {
        cl_int rc;
        D->k[q] = clCreateKernel(D->cl.program, pipe_kernel_names[q], &rc);
        if (rc != CL_SUCCESS) {
            snprintf(err, errlen, "kernel %s: %s", pipe_kernel_names[q], clx_error_name(rc));
            return -1;
        }
    }
    return 0;
}

PipeDevice *pipe_device_open(const char *selector, char *err, size_t errlen)
{
    PipeDevice *D = calloc(1, sizeof *D);
    if (!D) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    D->stage = -1;
    if (clx_open(&D->cl, selector, err, errlen) != 0 ||
        clx_build(&D->cl, pipe_sources, (int)(sizeof pipe_sources / sizeof *pipe_sources), err,
                  errlen) != 0 ||
        pipe_create_kernels(D, err, errlen) != 0) {
        pipe_device_close(D);
        return NULL;
    }
    D->profile = getenv("FLIPKIT_CL_PROFILE") != NULL;
    D->separate_regions = getenv("FLIPKIT_CL_SEPARATE_REGIONS") != NULL;
    D->partial_d = pipe_buffer(D, PIPE_MAX_PARTIALS * sizeof(double));
    D->partial_f = pipe_buffer(D, PIPE_PARTS * sizeof(float));
    if (D->failure != CL_SUCCESS) {
        snprintf(err, errlen, "opencl: the partial sums' buffers: %s",
                 clx_error_name(D->failure));
        pipe_device_close(D);
        return NULL;
    }
    return D;
}
