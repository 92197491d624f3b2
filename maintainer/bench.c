/* bench.c — `make bench`: the C reference against the OpenCL pipeline, stage by stage, on the
 * resolutions the issue names, with each run's peak memory and bytes per particle, the surface
 * mesher, the outputs and their triangles per frame, the pressure solvers to 1e-6, and the
 * machine's own bandwidth.
 * flipkit maintainer/: a benchmark, not a test: it prints medians and writes build/bench/bench.json. */
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <errno.h>
#include <sys/stat.h>

#include "cli.h"
#include "clx.h"
#include "output.h"
#include "peakmem.h"
#include "pipeline.h"
#include "reference.h"
#include "sim.h"

enum { BENCH_REPEATS = 5, BENCH_THREADS = 2, DEVICES = 2 };

typedef struct {
    const char *label, *scene;
    const char *sets[4];
    int nsets, frames;
    unsigned kinds;         /* which of RUN_* (bit 1 << kind) this case runs */
    int repeats;            /* alternating rounds; 0: SCENE_REPEATS */
} SceneCase;

/* The runs of a case: the C yardstick (MIC(0)-PCG at the teaching stepping, CFL 1: a fixed
 * ruler that survives a noisy machine), the OpenCL pipeline at the teaching stepping, and the
 * OpenCL pipeline as shipped, with the scene's production stepping (RK3 through the grid at
 * CFL 5, scenes/README.md). */
enum { RUN_YARD, RUN_TEACH, RUN_PROD, RUN_KINDS };
#define RUN_ALL ((1u << RUN_YARD) | (1u << RUN_TEACH) | (1u << RUN_PROD))
static const char *const run_names[RUN_KINDS] = { "C yardstick", "OpenCL, teaching",
                                                  "OpenCL, production" };

/* Whole scenes from frame 0, through the splash (the first frames of a falling ball are quiet
 * and cheap; the substeps and solver iterations that cost come when it lands): ball_drop at
 * 32^3 (as shipped) and 64^3 (same 8 m box, finer cells) for 30 frames, the dam break at
 * 128x64x64 (GridFluidSim3D's) for 10, and the ball at 128^3 for 20 (once each: the OpenCL
 * runs alone take some three minutes there, and the yardstick of the same run is the rows
 * above). The OpenCL runs use the scene's own solver, as shipped. */
static const SceneCase scene_cases[] = {
    { "ball_drop 32^3", "scenes/ball_drop.json", { NULL }, 0, 30, RUN_ALL, 0 },
    { "ball_drop 64^3", "scenes/ball_drop.json", { "grid.resolution=[64,64,64]", "grid.cell_size=0.125" }, 2, 30, RUN_ALL, 0 },
    { "dam_break 128x64x64", "scenes/dam_break.json",
      { "grid.resolution=[128,64,64]", "grid.cell_size=0.0375" }, 2, 10, RUN_ALL, 0 },
    { "ball_drop 128^3", "scenes/ball_drop.json", { "grid.resolution=[128,128,128]", "grid.cell_size=0.0625" }, 2, 20,
      (1u << RUN_TEACH) | (1u << RUN_PROD), 1 },
};
enum { SCENE_REPEATS = 3 };

static const char *const solver_names[] = { "jacobi", "gauss_seidel", "sor", "pcg", "multigrid",
                                             "mgpcg" };
static const int solver_sizes[] = { 32, 64, 128 };
/* Jacobi and Gauss-Seidel need tens of thousands of sweeps at 128^3; the table says how far
 * this many got instead of waiting for them. */
enum { SOLVER_CAP = 2000 };

static double bench_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int bench_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- bandwidth: a STREAM-style triad, a = b + s c, 3 x 4 bytes per element --------------- */

enum { TRIAD_N = 1 << 24 }; /* 64 MiB per array, far beyond any cache here */

typedef struct { float *a, *b, *c; size_t lo, hi; } TriadPart;

static void *bench_triad_part(void *arg)
{
    TriadPart *t = arg;
    for (size_t i = t->lo; i < t->hi; i++)
        t->a[i] = t->b[i] + 3.0f * t->c[i];
    return NULL;
}

static double bench_cpu_bandwidth(void)
{
    float *a = malloc(TRIAD_N * sizeof *a), *b = malloc(TRIAD_N * sizeof *b), *c = malloc(TRIAD_N * sizeof *c);
    if (!a || !b || !c) {
        free(a), free(b), free(c);
        return 0.0;
    }
    for (size_t i = 0; i < TRIAD_N; i++)
        a[i] = 0.0f, b[i] = 1.0f, c[i] = 2.0f;
    double gbs[BENCH_REPEATS];
    for (int r = 0; r < BENCH_REPEATS; r++) {
        pthread_t th[BENCH_THREADS];
        TriadPart part[BENCH_THREADS];
        double t0 = bench_clock();
        for (int q = 0; q < BENCH_THREADS; q++) {
            part[q] = (TriadPart){ a, b, c, TRIAD_N / BENCH_THREADS * (size_t)q,
                                   TRIAD_N / BENCH_THREADS * (size_t)(q + 1) };
            pthread_create(&th[q], NULL, bench_triad_part, &part[q]);
        }
        for (int q = 0; q < BENCH_THREADS; q++)
            pthread_join(th[q], NULL);
        gbs[r] = 3.0 * TRIAD_N * sizeof(float) / (bench_clock() - t0) / 1e9;
    }
    free(a), free(b), free(c);
    return bench_median(gbs, BENCH_REPEATS);
}

/* What a launch costs the device, in microseconds: a one-item kernel queued behind another
 * (behind_small), and the time it adds queued behind a triad of LAUNCH_N elements, about what
 * a level-0 half sweep at 64^3 moves (behind_large: the device's threads have finished a real
 * kernel and must be handed the next). Medians of BENCH_REPEATS. */
typedef struct { double behind_small, behind_large; } LaunchCost;
enum { LAUNCH_N = 1 << 18, LAUNCH_RUNS = 100 };

static double bench_launches(Clx *cx, cl_kernel triad, cl_kernel tick, int with_triad,
                             int with_tick)
{
    size_t big = LAUNCH_N, local = 64, one = 1;
    clFinish(cx->queue);
    double t0 = bench_clock();
    for (int q = 0; q < LAUNCH_RUNS; q++) {
        if (with_triad)
            clEnqueueNDRangeKernel(cx->queue, triad, 1, NULL, &big, &local, 0, NULL, NULL);
        if (with_tick)
            clEnqueueNDRangeKernel(cx->queue, tick, 1, NULL, &one, &one, 0, NULL, NULL);
    }
    clFinish(cx->queue);
    return (bench_clock() - t0) / LAUNCH_RUNS * 1e6;
}

static LaunchCost bench_launch_cost(Clx *cx, cl_kernel triad, cl_mem a)
{
    LaunchCost lc = { 0.0, 0.0 };
    cl_int rc, n = LAUNCH_N;
    cl_kernel tick = clCreateKernel(cx->program, "bench_tick", &rc);
    if (rc != CL_SUCCESS)
        return lc;
    clSetKernelArg(tick, 0, sizeof a, &a);
    clSetKernelArg(triad, 4, sizeof n, &n);
    double small[BENCH_REPEATS], large[BENCH_REPEATS];
    bench_launches(cx, triad, tick, 1, 1); /* the first runs compile */
    for (int r = 0; r < BENCH_REPEATS; r++) {
        small[r] = bench_launches(cx, triad, tick, 0, 1);
        large[r] = bench_launches(cx, triad, tick, 1, 1) - bench_launches(cx, triad, tick, 1, 0);
    }
    clReleaseKernel(tick);
    lc.behind_small = bench_median(small, BENCH_REPEATS);
    lc.behind_large = bench_median(large, BENCH_REPEATS);
    return lc;
}

static double bench_device_bandwidth(LaunchCost *launch, char *err, size_t errlen)
{
    Clx cx = { 0 };
    static const char *const files[] = { "bench.cl" };
    if (clx_open(&cx, NULL, err, errlen) != 0 || clx_build(&cx, files, 1, err, errlen) != 0) {
        clx_close(&cx);
        return 0.0;
    }
    cl_int rc;
    cl_kernel k = clCreateKernel(cx.program, "bench_triad", &rc);
    cl_mem m[3];
    for (int q = 0; q < 3; q++)
        m[q] = clCreateBuffer(cx.context, CL_MEM_READ_WRITE, TRIAD_N * sizeof(float), NULL, &rc);
    float one = 1.0f, s = 3.0f;
    for (int q = 0; q < 3; q++)
        clEnqueueFillBuffer(cx.queue, m[q], &one, sizeof one, 0, TRIAD_N * sizeof(float), 0, NULL, NULL);
    cl_int n = TRIAD_N;
    clSetKernelArg(k, 0, sizeof m[0], &m[0]);
    clSetKernelArg(k, 1, sizeof m[1], &m[1]);
    clSetKernelArg(k, 2, sizeof m[2], &m[2]);
    clSetKernelArg(k, 3, sizeof s, &s);
    clSetKernelArg(k, 4, sizeof n, &n);
    size_t global = TRIAD_N, local = 64;
    double gbs[BENCH_REPEATS + 1];
    for (int r = 0; r <= BENCH_REPEATS; r++) { /* the first run compiles; it is dropped */
        clFinish(cx.queue);
        double t0 = bench_clock();
        clEnqueueNDRangeKernel(cx.queue, k, 1, NULL, &global, &local, 0, NULL, NULL);
        clFinish(cx.queue);
        gbs[r] = 3.0 * TRIAD_N * sizeof(float) / (bench_clock() - t0) / 1e9;
    }
    *launch = bench_launch_cost(&cx, k, m[0]);
    for (int q = 0; q < 3; q++)
        clReleaseMemObject(m[q]);
    clReleaseKernel(k);
    clx_close(&cx);
    return bench_median(gbs + 1, BENCH_REPEATS);
}

/* ---- peak memory: VmHWM over one run --------------------------------------------------------- */

/* The process's peak resident memory over one run (issue 42's bytes per particle are this over
 * the particle count): VmHWM is set back to the resident memory before the run, so a run's
 * peak is its own unless the reset is refused, which bench_memory_note says once. The runs
 * share the process: `before` is what was resident when the run began (the OpenCL runtime,
 * the heap earlier runs left), which the peak includes. */
typedef struct {
    int ok;                     /* peak and before were read */
    size_t peak, before;        /* bytes */
} PeakMemory;

static int bench_reset_ok = -1; /* -1 not tried yet, 0 refused, 1 done */
static char bench_reset_err[256];

static void bench_memory_start(PeakMemory *m)
{
    size_t peak;
    int reset = peakmem_reset(bench_reset_err, sizeof bench_reset_err) == 0;
    bench_reset_ok = bench_reset_ok == 0 ? 0 : reset;
    m->ok = peakmem_read(&peak, &m->before, bench_reset_err, sizeof bench_reset_err) == 0;
}

static void bench_memory_end(PeakMemory *m)
{
    size_t now;
    m->ok = m->ok && peakmem_read(&m->peak, &now, bench_reset_err, sizeof bench_reset_err) == 0;
}

/* What the memory figures mean on this machine, once. */
static void bench_memory_note(void)
{
    if (bench_reset_ok == 1)
        printf("(peak memory: the process's VmHWM over each run, reset before it through "
               "/proc/self/clear_refs; bytes/particle = peak / the particles at the end)\n");
    else
        printf("(peak memory: VmHWM could NOT be reset before each run (%s), so each figure is "
               "the process's peak since it started, and may be an earlier run's)\n",
               bench_reset_err[0] ? bench_reset_err : "not tried");
}

static double bench_mb(size_t bytes)
{
    return (double)bytes / 1e6;
}

/* ---- whole scenes --------------------------------------------------------------------------- */

typedef struct {
    int ok;
    PeakMemory mem;
    size_t particles;
    long substeps, iterations, unconverged;
    int frames;
    double seconds, phase_ms[PHASE_COUNT];
    long cells, faces;
    int order, layers;      /* the stepping: RK order (0: advect stage), extrapolation layers */
    char solver[200];
    char error[512];
} SceneResult;

static int bench_start(Sim *s, Scene *sc, const char *path, const char *const *sets, int nsets,
                       int device, char *err, size_t errlen)
{
    if (scene_load(path, sets, nsets, sc, err, errlen) != 0)
        return -1;
    if (sim_init(s, sc, &reference_track) != 0) {
        snprintf(err, errlen, "%s", s->error.message);
        return -1;
    }
    if (device) {
        SimBackend *d = pipeline_open(NULL, err, errlen);
        if (!d)
            return -1;
        if (sim_use_backend(s, d) != 0) {
            snprintf(err, errlen, "%s", s->error.message);
            return -1;
        }
    }
    return 0;
}

/* One whole run of c with these settings, in C or on the OpenCL pipeline. */
static SceneResult bench_run(const SceneCase *c, const char *const *sets, int nsets, int device)
{
    SceneResult r = { 0 };
    Scene sc;
    Sim s;
    memset(&sc, 0, sizeof sc);
    memset(&s, 0, sizeof s);
    bench_memory_start(&r.mem);
    if (bench_start(&s, &sc, c->scene, sets, nsets, device, r.error, sizeof r.error) == 0) {
        snprintf(r.solver, sizeof r.solver, "%s (%s)", s.solver_name, s.solver_variant);
        double t0 = bench_clock();
        int f = 0;
        while (f < c->frames && sim_advance_frame(&s) == 0) {
            r.unconverged += s.stats.unconverged_solves;
            f++;
        }
        r.seconds = bench_clock() - t0;
        r.ok = f == c->frames;
        if (!r.ok)
            snprintf(r.error, sizeof r.error, "%.500s", s.error.message);
        r.frames = f;
        r.particles = s.particles.count;
        r.substeps = s.stats.substeps;
        r.iterations = s.stats.solve_iterations;
        r.cells = (long)grid_cells(&s.grid);
        r.faces = (long)(grid_faces(&s.grid, 0) + grid_faces(&s.grid, 1) + grid_faces(&s.grid, 2));
        r.order = s.step.order;
        r.layers = s.step.layers;
        for (int q = 0; q < PHASE_COUNT; q++)
            r.phase_ms[q] = r.substeps ? 1e3 * s.stats.seconds[q] / (double)r.substeps : 0.0;
        bench_memory_end(&r.mem);
        sim_free(&s);
    }
    scene_free(&sc);
    return r;
}

/* One whole run of kind RUN_*: the yardstick in C with MIC(0)-PCG, or the OpenCL pipeline. */
static SceneResult bench_scene(const SceneCase *c, int kind)
{
    const char *sets[6];
    int nsets = 0;
    for (int q = 0; q < c->nsets; q++)
        sets[nsets++] = c->sets[q];
    if (kind == RUN_YARD)
        sets[nsets++] = "pressure.solver=pcg";
    if (kind != RUN_PROD)
        sets[nsets++] = "production.integrator=none";
    return bench_run(c, sets, nsets, kind != RUN_YARD);
}

/* The bytes a phase must move per substep at least, each array it needs read or written once
 * (particles 12 bytes per vector, faces and cells 4 per float, cell types 1):
 *   p2g         positions and velocities in; face velocities and weights out, the FLIP copy;
 *               and classify's bytes: the pipeline classifies in p2g's normalize pass
 *   classify    the particle counts and solid flags in, cell types out (C); on OpenCL, which
 *               classified in p2g, what is left: the FLUID box's search, the cell types in
 *   gravity     face velocities in and out, cell types in
 *   divergence  face velocities and cell types in, divergence out
 *   pressure    per iteration the CG vectors: p, r (double), s, t, z and the cell types
 *   gradient    face velocities in and out, p and cell types in
 *   extrapolate per layer face velocities in and out and a flag per face (production
 *               stepping: its most layers, though a substep cut short runs fewer)
 *   g2p         positions, velocities, face velocities and the FLIP copy in; velocities out
 *   advect      positions and velocities in, positions out; production stepping: positions
 *               in and out, and the face velocities its samples gather, read once
 *   keep_inside positions and velocities in and out, cell types in
 * Over the whole grid: the pipeline launches divergence, gradient, the solvers and
 * extrapolation on the box around the FLUID cells only, so where that box is small their
 * ratio reads low (through ball_drop's splash it is about 90% of the 64^3 grid). The pressure
 * row no longer holds the box's search, which moved to classify's (90 us at 64^3).
 * The pressure bound uses the run's own iterations per substep, so a solver that needs fewer
 * iterations gets a smaller bound, not a better ratio. */
static double bench_phase_bytes(SimPhase q, const SceneResult *r)
{
    double np = (double)r->particles, nc = (double)r->cells, nf = (double)r->faces;
    double its = r->substeps ? (double)r->iterations / (double)r->substeps : 0.0;
    switch (q) {
    case PHASE_P2G: return 24.0 * np + 16.0 * nf + 6.0 * nc;
    case PHASE_CLASSIFY: return nc;
    case PHASE_GRAVITY: return 8.0 * nf + nc;
    case PHASE_DIVERGENCE: return 4.0 * nf + 5.0 * nc;
    case PHASE_PRESSURE: return its * 65.0 * nc;
    case PHASE_GRADIENT: return 8.0 * nf + 5.0 * nc;
    case PHASE_EXTRAPOLATE: return r->layers * 10.0 * nf;
    case PHASE_G2P: return 36.0 * np + 8.0 * nf;
    case PHASE_ADVECT: return r->order ? 24.0 * np + 4.0 * nf : 36.0 * np;
    case PHASE_KEEP_INSIDE: return 48.0 * np + nc;
    default: return 0.0;
    }
}

/* The per-substep targets at 64^3, in ms (0: none). */
static double bench_target_ms(SimPhase q)
{
    switch (q) {
    case PHASE_PRESSURE: return 15.0;
    case PHASE_P2G: return 5.0;
    case PHASE_G2P: return 4.0;
    case PHASE_EXTRAPOLATE: return 3.0;
    default: return 0.0;
    }
}

/* The run of median time among n. */
static const SceneResult *bench_median_run(const SceneResult *r, int n)
{
    double t[SCENE_REPEATS];
    for (int q = 0; q < n; q++)
        t[q] = r[q].seconds;
    double m = bench_median(t, n);
    const SceneResult *best = &r[0];
    for (int q = 0; q < n; q++)
        if (fabs(r[q].seconds - m) < fabs(best->seconds - m))
            best = &r[q];
    return best;
}

/* The median over n runs of their peaks (and of what was resident before each), and the
 * bytes per particle of that peak; ok 0 when no run's could be read. */
typedef struct { int ok; double peak, before, per_particle; } MemoryMedian;

static MemoryMedian bench_memory_median(const SceneResult *r, int n)
{
    double peak[SCENE_REPEATS], before[SCENE_REPEATS];
    int k = 0;
    size_t particles = 0;
    for (int q = 0; q < n; q++)
        if (r[q].mem.ok && r[q].ok) {
            peak[k] = (double)r[q].mem.peak;
            before[k++] = (double)r[q].mem.before;
            particles = r[q].particles;
        }
    MemoryMedian m = { k > 0, 0.0, 0.0, 0.0 };
    if (k > 0) {
        m.peak = bench_median(peak, k);
        m.before = bench_median(before, k);
        m.per_particle = particles ? m.peak / (double)particles : 0.0;
    }
    return m;
}

static void bench_print_memory(const char *label, MemoryMedian m)
{
    if (m.ok)
        printf("  %-22s peak %8.1f MB  %7.1f bytes/particle  (%.1f MB resident before the run)\n",
               label, m.peak / 1e6, m.per_particle, m.before / 1e6);
    else
        printf("  %-22s peak memory not read: %s\n", label, bench_reset_err);
}

static double bench_per_frame(const SceneResult *r)
{
    return r->frames ? r->seconds / r->frames : 0.0;
}

/* One run's line: time and work per frame. */
static void bench_print_run(const char *name, const SceneResult *r)
{
    printf("  %-20s %7.3f s/frame  %6.2f substeps/frame  %7ld solver iterations (%5.1f per "
           "solve)  %ld unconverged  %s\n", name, bench_per_frame(r),
           r->frames ? (double)r->substeps / r->frames : 0.0, r->iterations,
           r->substeps ? (double)r->iterations / (double)r->substeps : 0.0, r->unconverged,
           r->solver);
    if (!r->ok)
        printf("  %s did not finish: %s\n", name, r->error);
}

/* One stage's row: the OpenCL runs' ms per substep against C's and against the bandwidth
 * bound, and whether the device lost to C at the same (teaching) stepping. */
static void bench_print_stage(SimPhase q, const SceneResult *best[RUN_KINDS], double bandwidth)
{
    const SceneResult *y = best[RUN_YARD], *t = best[RUN_TEACH], *p = best[RUN_PROD];
    char cell[RUN_KINDS][16], bound_cell[2][24];
    for (int k = 0; k < RUN_KINDS; k++)
        snprintf(cell[k], sizeof cell[k], best[k] ? "%.2f" : "-", best[k] ? best[k]->phase_ms[q] : 0.0);
    for (int k = 0; k < 2; k++) {
        const SceneResult *r = k ? p : t;
        double bytes = r ? bench_phase_bytes(q, r) : 0.0;
        double bound = bandwidth > 0 ? 1e3 * bytes / (bandwidth * 1e9) : 0.0;
        if (!r || bound <= 0)
            snprintf(bound_cell[k], sizeof bound_cell[k], "-");
        else if (r->ok && r->phase_ms[q] < 0.005) /* no pass of its own: the pipeline's gravity */
            snprintf(bound_cell[k], sizeof bound_cell[k], "fused");
        else
            snprintf(bound_cell[k], sizeof bound_cell[k], "%.1fx", r->phase_ms[q] / bound);
    }
    double target = bench_target_ms(q);
    char tcell[32] = "";
    if (target > 0 && t)
        snprintf(tcell, sizeof tcell, "%4.0f %s", target, t->phase_ms[q] <= target ? "ok" : "miss");
    const char *lost = y && t && t->phase_ms[q] > y->phase_ms[q] ? "SLOWER" : "";
    printf("  %-12s %9s %9s %9s %9s %9s %8s %6s\n", sim_phase_names[q], cell[RUN_TEACH],
           cell[RUN_PROD], cell[RUN_YARD], bound_cell[0], bound_cell[1], tcell, lost);
}

static void bench_print_scene(const SceneCase *c, SceneResult res[RUN_KINDS][SCENE_REPEATS], int n,
                              double bandwidth)
{
    const SceneResult *best[RUN_KINDS] = { NULL, NULL, NULL };
    for (int k = 0; k < RUN_KINDS; k++)
        if (c->kinds & (1u << k))
            best[k] = bench_median_run(res[k], n);
    const SceneResult *any = best[RUN_PROD] ? best[RUN_PROD] : best[RUN_TEACH];
    printf("\n%s: %zu particles at the end, frames 1-%d, median of %d alternating run%s\n",
           c->label, any ? any->particles : (size_t)0, c->frames, n, n == 1 ? "" : "s");
    for (int k = 0; k < RUN_KINDS; k++)
        if (best[k])
            bench_print_run(run_names[k], best[k]);
    if (best[RUN_YARD] && best[RUN_TEACH] && best[RUN_PROD])
        printf("  ratio: the yardstick's s/frame over OpenCL's: %.2fx teaching, %.2fx production "
               "(production over teaching %.2fx)\n",
               bench_per_frame(best[RUN_YARD]) / fmax(bench_per_frame(best[RUN_TEACH]), 1e-9),
               bench_per_frame(best[RUN_YARD]) / fmax(bench_per_frame(best[RUN_PROD]), 1e-9),
               bench_per_frame(best[RUN_TEACH]) / fmax(bench_per_frame(best[RUN_PROD]), 1e-9));
    else if (best[RUN_TEACH] && best[RUN_PROD])
        printf("  ratio: OpenCL teaching over production, s/frame: %.2fx (no yardstick run at this "
               "size: see the rows above)\n",
               bench_per_frame(best[RUN_TEACH]) / fmax(bench_per_frame(best[RUN_PROD]), 1e-9));
    for (int k = 0; k < RUN_KINDS; k++)
        if (best[k]) {
            char label[64];
            snprintf(label, sizeof label, "%s, memory", run_names[k]);
            bench_print_memory(label, bench_memory_median(res[k], n));
        }
    printf("  %-12s %9s %9s %9s %9s %9s %8s %6s\n", "stage", "teach ms", "prod ms", "C ms",
           "x bound", "x bound", "target", "");
    printf("  %-12s %9s %9s %9s %9s %9s %8s %6s\n", "(per substep)", "OpenCL", "OpenCL", "yard",
           "teach", "prod", "", "");
    for (int q = 0; q < PHASE_COUNT; q++)
        bench_print_stage((SimPhase)q, best, bandwidth);
    printf("  (bound = the bytes the stage must move / the device's triad bandwidth %.1f GB/s; "
           "SLOWER: the device's teaching run took longer than the C yardstick's in this stage; "
           "targets are the issue's, for 64^3; fused: on OpenCL, g2p's launch also moves the particles (advect), and gravity is added by "
           "divergence's read and gradient's write; classify's cell types are written in p2g's "
           "normalize pass, and its row is the search for the FLUID box; an OpenCL stage's ms are its "
           "kernels' span on the device's clock, a C stage's its call's)\n", bandwidth);
}

static json_t *bench_run_json(const SceneResult *r, double bandwidth)
{
    json_t *stages = json_object();
    for (int q = 0; q < PHASE_COUNT; q++) {
        double bytes = bench_phase_bytes((SimPhase)q, r);
        double bound = bandwidth > 0 ? 1e3 * bytes / (bandwidth * 1e9) : 0.0;
        json_object_set_new(stages, sim_phase_names[q],
                            json_pack("{s:f, s:f, s:f}", "ms_per_substep", r->phase_ms[q],
                                      "bytes_per_substep", bytes, "bound_ms", bound));
    }
    return json_pack("{s:b, s:s, s:I, s:I, s:I, s:I, s:f, s:f, s:o}", "finished", r->ok,
                     "solver", r->solver, "particles", (json_int_t)r->particles,
                     "substeps", (json_int_t)r->substeps, "solver_iterations",
                     (json_int_t)r->iterations, "unconverged_solves", (json_int_t)r->unconverged,
                     "seconds", r->seconds, "seconds_per_frame",
                     r->frames ? r->seconds / r->frames : 0.0, "stages", stages);
}

/* The medians of bench_memory_median, in bytes (null when not read). */
static json_t *bench_memory_json(MemoryMedian m)
{
    if (!m.ok)
        return json_null();
    return json_pack("{s:f, s:f, s:f}", "peak_bytes", m.peak, "resident_before_bytes", m.before,
                     "bytes_per_particle", m.per_particle);
}

static json_t *bench_scene_json(const SceneCase *c, SceneResult res[RUN_KINDS][SCENE_REPEATS],
                                int n, double bandwidth[DEVICES])
{
    static const char *const keys[RUN_KINDS] = { "c_yardstick", "opencl", "opencl_production" };
    json_t *o = json_pack("{s:s, s:i, s:i}", "case", c->label, "frames", c->frames, "runs", n);
    for (int k = 0; k < RUN_KINDS; k++)
        if (c->kinds & (1u << k)) {
            json_t *run = bench_run_json(bench_median_run(res[k], n), bandwidth[k != RUN_YARD]);
            json_object_set_new(run, "memory", bench_memory_json(bench_memory_median(res[k], n)));
            json_object_set_new(o, keys[k], run);
        }
    return o;
}

/* The CPU's model name, from /proc/cpuinfo. */
static void bench_cpu_name(char *out, size_t n)
{
    snprintf(out, n, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0 && strchr(line, ':')) {
            snprintf(out, n, "%s", strchr(line, ':') + 2);
            out[strcspn(out, "\n")] = '\0';
            break;
        }
    if (f)
        fclose(f);
}

/* ---- meshing: the liquid surface once per frame, surface_build against the device's -------- */

/* ball_drop at the two sizes, meshed once the ball has landed and spread (it touches
 * the floor near frame 9), with the default surface settings. */
typedef struct { const char *label; const char *sets[3]; int frames; } MeshCase;
static const MeshCase mesh_cases[] = {
    { "ball_drop 32^3", { "grid.resolution=[32,32,32]", "grid.cell_size=0.25", "pressure.solver=mgpcg" }, 12 },
    { "ball_drop 64^3", { "grid.resolution=[64,64,64]", "grid.cell_size=0.125", "pressure.solver=mgpcg" }, 12 },
};

typedef struct {
    int ok;
    size_t particles, tris[DEVICES];
    double ms[DEVICES], field_ms, polygonise_ms; /* medians; the OpenCL path's two parts */
    char error[512];
} MeshResult;

/* The run itself goes on the device (the faster way to the frame); both meshers then work on
 * the same particles, taking turns so a busy machine slows both alike. The first call of each
 * is dropped: it builds the kernels. */
static MeshResult bench_mesh(const MeshCase *c)
{
    MeshResult r = { 0 };
    Scene sc;
    Sim s;
    memset(&sc, 0, sizeof sc);
    memset(&s, 0, sizeof s);
    if (bench_start(&s, &sc, "scenes/ball_drop.json", c->sets, 3, 1, r.error, sizeof r.error) != 0) {
        scene_free(&sc);
        return r;
    }
    int f = 0;
    while (f < c->frames && sim_advance_frame(&s) == 0)
        f++;
    Mesh m[DEVICES];
    mesh_init(&m[0]);
    mesh_init(&m[1]);
    double t[DEVICES][BENCH_REPEATS], field[BENCH_REPEATS], march[BENCH_REPEATS];
    int bad = f < c->frames;
    for (int q = -1; q < BENCH_REPEATS && !bad; q++) {
        double t0 = bench_clock();
        bad = surface_build(&s.particles, &s.grid, NULL, &m[0], s.error.message,
                            sizeof s.error.message) != 0;
        double t1 = bench_clock();
        bad = bad || output_mesh(pipeline_surface, &s, NULL, &m[1]) != 0;
        double t2 = bench_clock();
        PipelineSurfaceTimes pt = pipeline_surface_times(s.backend);
        if (q >= 0) {
            t[0][q] = 1e3 * (t1 - t0);
            t[1][q] = 1e3 * (t2 - t1);
            field[q] = 1e3 * pt.field;
            march[q] = 1e3 * pt.polygonise;
        }
    }
    if (bad) {
        snprintf(r.error, sizeof r.error, "%.500s", s.error.message);
    } else {
        r.ok = 1;
        r.particles = s.particles.count;
        for (int d = 0; d < DEVICES; d++) {
            r.ms[d] = bench_median(t[d], BENCH_REPEATS);
            r.tris[d] = m[d].ntris;
        }
        r.field_ms = bench_median(field, BENCH_REPEATS);
        r.polygonise_ms = bench_median(march, BENCH_REPEATS);
    }
    mesh_free(&m[0]);
    mesh_free(&m[1]);
    sim_free(&s);
    scene_free(&sc);
    return r;
}

static void bench_meshing(json_t *out)
{
    printf("\nmeshing: the liquid surface (refine %d) of ball_drop after %d frames, ms per frame, "
           "median of %d\n", SURFACE_DEFAULT_REFINE, mesh_cases[0].frames, BENCH_REPEATS);
    printf("  %-16s %10s %10s %10s %10s %10s   %s\n", "case", "particles", "triangles", "C",
           "OpenCL", "faster", "OpenCL = field on the device + polygonise on the host");
    for (size_t c = 0; c < sizeof mesh_cases / sizeof *mesh_cases; c++) {
        MeshResult r = bench_mesh(&mesh_cases[c]);
        if (r.ok)
            printf("  %-16s %10zu %10zu %10.2f %10.2f %9.1fx   %.2f + %.2f\n", mesh_cases[c].label,
                   r.particles, r.tris[0], r.ms[0], r.ms[1], r.ms[1] > 0 ? r.ms[0] / r.ms[1] : 0.0,
                   r.field_ms, r.polygonise_ms);
        else
            printf("  %-16s failed: %s\n", mesh_cases[c].label, r.error);
        if (r.ok && r.tris[0] != r.tris[1])
            printf("  %-16s (OpenCL made %zu triangles)\n", "", r.tris[1]);
        fflush(stdout);
        json_array_append_new(out, json_pack("{s:s, s:i, s:b, s:I, s:{s:I, s:I}, s:{s:f, s:f}, "
                                             "s:f, s:f}", "case", mesh_cases[c].label,
            "frames", mesh_cases[c].frames, "finished", r.ok, "particles", (json_int_t)r.particles,
            "triangles", "c", (json_int_t)r.tris[0], "opencl", (json_int_t)r.tris[1],
            "ms_per_frame", "c", r.ms[0], "opencl", r.ms[1], "opencl_field_ms", r.field_ms,
            "opencl_polygonise_ms", r.polygonise_ms));
    }
}

/* ---- the solvers: the first substep of a tank at rest at n^3, p from 0 -------------------- */

/* ---- every shipped scene, as shipped: the device against C, stage by stage ------------------ */

/* Issue 42 asks that the device be slower than C in no stage at any grid the kit ships. Each
 * scene runs as shipped (its own solver and stepping) in C and on OpenCL, alternating, and the
 * medians are compared stage by stage. */
static const char *const shipped_scenes[] = {
    "first_drop", "hydrostatic", "column_on_block", "martin_moyce", "maze",
    "ball_drop", "dam_break", "waterfall", "whitewater",
};
enum { SHIPPED_FRAMES = 30, SHIPPED_REPEATS = 5 };
/* Rows under this many ms a substep on both sides are not compared: a fused stage's or one
 * with nothing to do (gravity and advect on the device, classify's box search). */
#define SHIPPED_FLOOR_MS 0.002

static int bench_is_shipped(const char *name)
{
    for (size_t q = 0; q < sizeof shipped_scenes / sizeof *shipped_scenes; q++)
        if (strcmp(name, shipped_scenes[q]) == 0)
            return 1;
    return 0;
}

/* only: the scenes to run (NULL: every shipped scene). */
static void bench_shipped(json_t *out, char *const *only, int nonly)
{
    printf("\nshipped scenes as shipped, frames 1-%d, median of %d alternating runs: C and OpenCL "
           "stage by stage (ms a substep; SLOWER: the device took longer than C in a stage)\n",
           SHIPPED_FRAMES, SHIPPED_REPEATS);
    printf("  %-16s %9s %9s %6s  %-34s %s\n", "scene", "C s/fr", "CL s/fr", "ratio",
           "closest stage (CL/C)", "slower stages");
    int slower_scenes = 0, ran = 0;
    for (size_t q = 0; q < sizeof shipped_scenes / sizeof *shipped_scenes; q++) {
        int wanted = nonly == 0;
        for (int w = 0; w < nonly; w++)
            wanted |= strcmp(only[w], shipped_scenes[q]) == 0;
        if (!wanted)
            continue;
        ran++;
        char path[128];
        snprintf(path, sizeof path, "scenes/%s.json", shipped_scenes[q]);
        SceneCase c = { shipped_scenes[q], path, { NULL }, 0, SHIPPED_FRAMES, 0, 0 };
        static SceneResult res[DEVICES][SHIPPED_REPEATS];
        for (int r = 0; r < SHIPPED_REPEATS; r++)
            for (int d = 0; d < DEVICES; d++)
                res[d][r] = bench_run(&c, NULL, 0, d);
        double frame[DEVICES], stage[DEVICES][PHASE_COUNT], v[SHIPPED_REPEATS];
        int ok = 1;
        for (int d = 0; d < DEVICES; d++) {
            for (int r = 0; r < SHIPPED_REPEATS; r++) {
                ok &= res[d][r].ok;
                v[r] = bench_per_frame(&res[d][r]);
            }
            frame[d] = bench_median(v, SHIPPED_REPEATS);
            for (int p = 0; p < PHASE_COUNT; p++) {
                for (int r = 0; r < SHIPPED_REPEATS; r++)
                    v[r] = res[d][r].phase_ms[p];
                stage[d][p] = bench_median(v, SHIPPED_REPEATS);
            }
        }
        if (!ok) {
            const char *why = res[0][0].ok ? res[1][0].error : res[0][0].error;
            printf("  %-16s did not finish: %.200s\n", shipped_scenes[q], why);
            json_array_append_new(out, json_pack("{s:s, s:b}", "scene", shipped_scenes[q],
                                                 "finished", 0));
            continue;
        }
        char slower[256] = "", closest[64] = "-";
        double worst = 0.0;
        json_t *stages = json_object();
        for (int p = 0; p < PHASE_COUNT; p++) {
            double c_ms = stage[0][p], cl_ms = stage[1][p];
            json_object_set_new(stages, sim_phase_names[p],
                                json_pack("{s:f, s:f}", "c_ms", c_ms, "opencl_ms", cl_ms));
            if (c_ms < SHIPPED_FLOOR_MS && cl_ms < SHIPPED_FLOOR_MS)
                continue;
            double ratio = c_ms > 0.0 ? cl_ms / c_ms : INFINITY;
            if (ratio > worst) {
                worst = ratio;
                snprintf(closest, sizeof closest, "%s %.3f/%.3f = %.2f", sim_phase_names[p],
                         cl_ms, c_ms, ratio);
            }
            if (cl_ms > c_ms) {
                size_t len = strlen(slower);
                snprintf(slower + len, sizeof slower - len, "%s%s %.2fx", len ? ", " : "",
                         sim_phase_names[p], ratio);
            }
        }
        slower_scenes += slower[0] != '\0';
        printf("  %-16s %9.4f %9.4f %6.2f  %-34s %s\n", shipped_scenes[q], frame[0], frame[1],
               frame[1] / frame[0], closest, slower[0] ? slower : "none");
        fflush(stdout);
        json_array_append_new(out, json_pack("{s:s, s:b, s:f, s:f, s:o}", "scene",
                                             shipped_scenes[q], "finished", 1, "c_s_per_frame",
                                             frame[0], "opencl_s_per_frame", frame[1], "stages",
                                             stages));
    }
    printf("  (%d of %d scenes with a stage slower on the device; an OpenCL stage's ms are its "
           "kernels' span on the device's clock, a C stage's its call's; the device's p2g row "
           "holds classify's work, written in its normalize pass)\n", slower_scenes, ran);
}

typedef struct { int ok, iterations; double residual, ms; char error[512]; } SolverResult;

static SolverResult bench_solver(const char *solver, int n, int device)
{
    SolverResult r = { 0 };
    char res[64], cell[64], set_solver[64], cap[64];
    snprintf(res, sizeof res, "grid.resolution=[%d,%d,%d]", n, n, n);
    snprintf(cell, sizeof cell, "grid.cell_size=%.9g", 1.6 / n);
    snprintf(set_solver, sizeof set_solver, "pressure.solver=%s", solver);
    snprintf(cap, sizeof cap, "pressure.iterations=%d", SOLVER_CAP);
    /* hydrostatic.json's water (1.6 x 1.2 x 1.2 m, on the floor) in a 1.6 m cube: the first
     * solve builds the whole hydrostatic pressure from p = 0, the hard case for relaxation.
     * 240 fps: the first frame is one substep (the CFL step of a tank at rest is longer). */
    const char *sets[] = { res, cell, set_solver, cap, "frame_rate=240" };
    Scene sc;
    Sim s;
    memset(&sc, 0, sizeof sc);
    memset(&s, 0, sizeof s);
    if (bench_start(&s, &sc, "scenes/hydrostatic.json", sets, 5, device, r.error, sizeof r.error) == 0) {
        if (sim_advance_frame(&s) == 0) {
            r.ok = 1;
            r.iterations = s.stats.last_solve.iterations;
            r.residual = s.stats.last_solve.residual;
            r.ms = 1e3 * s.stats.seconds[PHASE_PRESSURE] / (double)s.stats.substeps;
        } else {
            snprintf(r.error, sizeof r.error, "%.500s", s.error.message);
        }
        sim_free(&s);
    }
    scene_free(&sc);
    return r;
}

static void bench_solvers(json_t *out, int quick)
{
    printf("\npressure solvers: first solve of the hydrostatic tank at n^3 (1.6 m box), from p = 0 "
           "to 1e-6 relative residual, at most %d iterations\n", SOLVER_CAP);
    printf("  %-13s %5s | %-28s | %-28s\n", "solver", "n", "C: iterations  ms  residual",
           "OpenCL: iterations  ms  residual");
    for (size_t s = 0; s < sizeof solver_names / sizeof *solver_names; s++)
        for (size_t z = 0; z < (quick ? 2 : sizeof solver_sizes / sizeof *solver_sizes); z++) {
            SolverResult r[DEVICES];
            printf("  %-13s %5d", solver_names[s], solver_sizes[z]);
            for (int d = 0; d < DEVICES; d++) {
                r[d] = bench_solver(solver_names[s], solver_sizes[z], d);
                if (r[d].ok)
                    printf(" | %s%5d %9.1f %9.2e ", r[d].residual <= 1e-6 ? " " : ">",
                           r[d].iterations, r[d].ms, r[d].residual);
                else
                    printf(" | failed: %.40s", r[d].error);
                fflush(stdout);
                json_array_append_new(out, json_pack("{s:s, s:i, s:s, s:b, s:i, s:f, s:f}",
                    "solver", solver_names[s], "n", solver_sizes[z], "device", d ? "opencl" : "c",
                    "converged", r[d].ok && r[d].residual <= 1e-6, "iterations", r[d].iterations,
                    "ms", r[d].ms, "residual", r[d].residual));
            }
            printf("\n");
        }
}

/* ---- outputs: what each file kind costs per frame, against the simulation ----------------- */

/* ball_drop through the splash with every output on, on the device, written in turn (no
 * writer thread, so each kind's time is its own); the simulation's time in the same run. */
typedef struct { const char *label; const char *sets[12]; int frames; } OutputCase;
static const OutputCase output_cases[] = {
    { "ball_drop 32^3", { "grid.resolution=[32,32,32]", "grid.cell_size=0.25", "output.usd=true",
                          "output.surface=true", "output.preview=true", "output.bricks=true",
                          "output.diffuse=true", "output.particles=true",
                          "output.surface_anisotropic=true" }, 20 },
    { "ball_drop 64^3", { "grid.resolution=[64,64,64]", "grid.cell_size=0.125", "output.usd=true",
                          "output.surface=true", "output.preview=true", "output.bricks=true",
                          "output.diffuse=true", "output.particles=true",
                          "output.surface_anisotropic=true" }, 20 },
};
enum { OUTPUT_CASE_SETS = 9 };

/* One run of an output case: the simulation's seconds, each kind's, the particles at the end,
 * the run's peak memory and the triangles of the meshes it wrote. */
typedef struct {
    double sim_s, seconds[OUTPUT_KINDS];
    size_t particles;
    PeakMemory mem;
    OutputTriangles surface, aniso;
} OutputsResult;

static int bench_outputs_run(const OutputCase *c, OutputsResult *res, char *err, size_t errlen)
{
    double *sim_s = &res->sim_s;
    Scene sc;
    Sim s;
    Output o;
    memset(&sc, 0, sizeof sc);
    memset(&s, 0, sizeof s);
    memset(&o, 0, sizeof o);
    bench_memory_start(&res->mem);
    char dir[256], sub[300];
    snprintf(dir, sizeof dir, "build/bench/out-%s", strstr(c->label, "64") ? "64" : "32");
    snprintf(sub, sizeof sub, "%s/particles", dir);
    int rc = system("mkdir -p build/bench") == 0 && (mkdir(dir, 0777) == 0 || errno == EEXIST) &&
             (mkdir(sub, 0777) == 0 || errno == EEXIST) ? 0 : -1;
    if (rc != 0)
        snprintf(err, errlen, "%s: cannot create", sub);
    rc = rc ? rc : bench_start(&s, &sc, "scenes/ball_drop.json", c->sets, OUTPUT_CASE_SETS, 1, err, errlen);
    rc = rc ? rc : output_open(&o, dir, &sc, &s.grid, NULL, 0, -1, err, errlen);
    if (rc == 0) {
        o.mesher = pipeline_surface;
        o.aniso_mesher = pipeline_surface_anisotropic;
        rc = output_start_writer(&o, false);
    }
    *sim_s = 0;
    for (int f = 0; rc == 0 && f <= c->frames; f++) {
        double t0 = bench_clock();
        if (f > 0 && sim_advance_frame(&s) != 0) {
            snprintf(err, errlen, "%s", s.error.message);
            rc = -1;
            break;
        }
        *sim_s += bench_clock() - t0;
        rc = output_frame(&o, &s, err, errlen);
    }
    char closing[600];
    if (output_close(&o, closing, sizeof closing) != 0 && rc == 0) {
        snprintf(err, errlen, "%s", closing);
        rc = -1;
    }
    memcpy(res->seconds, o.seconds, sizeof o.seconds);
    res->particles = s.particles.count;
    res->surface = o.triangles;
    res->aniso = o.aniso_triangles;
    bench_memory_end(&res->mem);
    sim_free(&s);
    scene_free(&sc);
    return rc;
}

static double bench_tris_mean(const OutputTriangles *t)
{
    return t->frames ? t->sum / t->frames : 0.0;
}

static json_t *bench_outputs_memory_json(const OutputsResult *r)
{
    if (!r->mem.ok)
        return json_null();
    return json_pack("{s:I, s:I, s:f}", "peak_bytes", (json_int_t)r->mem.peak,
                     "resident_before_bytes", (json_int_t)r->mem.before, "bytes_per_particle",
                     r->particles ? (double)r->mem.peak / (double)r->particles : 0.0);
}

/* Triangles per frame of each mesh kind the run wrote: mean and largest over its frames. */
static json_t *bench_triangles_json(const OutputsResult *r)
{
    return json_pack("{s:{s:i, s:f, s:I}, s:{s:i, s:f, s:I}}", "surface", "frames",
                     r->surface.frames, "mean", bench_tris_mean(&r->surface), "max",
                     (json_int_t)r->surface.max, "anisotropic", "frames", r->aniso.frames,
                     "mean", bench_tris_mean(&r->aniso), "max", (json_int_t)r->aniso.max);
}

/* The output cases' peak memory and triangles per frame, a row each. */
static void bench_print_outputs_memory(const OutputsResult *res, const int *ran)
{
    printf("  %-16s %10s %16s %22s %22s\n", "case", "peak MB", "bytes/particle",
           "surface tris/frame", "anisotropic tris/frame");
    for (size_t c = 0; c < sizeof output_cases / sizeof *output_cases; c++) {
        if (!ran[c])
            continue;
        const OutputsResult *r = &res[c];
        char surf[64], aniso[64];
        snprintf(surf, sizeof surf, "%.0f (max %zu)", bench_tris_mean(&r->surface), r->surface.max);
        snprintf(aniso, sizeof aniso, "%.0f (max %zu)", bench_tris_mean(&r->aniso), r->aniso.max);
        if (r->mem.ok)
            printf("  %-16s %10.1f %16.1f %22s %22s\n", output_cases[c].label,
                   bench_mb(r->mem.peak), r->particles ? (double)r->mem.peak / r->particles : 0.0,
                   surf, aniso);
        else
            printf("  %-16s %10s %16s %22s %22s\n", output_cases[c].label, "-", "-", surf, aniso);
    }
    bench_memory_note();
}

static void bench_outputs(json_t *out)
{
    printf("\noutputs: ball_drop with every output on, frames 0-%d on OpenCL, written in turn; "
           "ms per frame (share of the simulation's ms per frame)\n", output_cases[0].frames);
    printf("  %-16s %10s %10s", "case", "particles", "simulate");
    for (int k = 0; k < OUTPUT_KINDS; k++)
        if (k != OUTPUT_SLICES)
            printf(" %16s", output_kind_names[k]);
    printf("\n");
    OutputsResult res[sizeof output_cases / sizeof *output_cases];
    int ran[sizeof output_cases / sizeof *output_cases] = { 0 };
    for (size_t c = 0; c < sizeof output_cases / sizeof *output_cases; c++) {
        const OutputCase *oc = &output_cases[c];
        char err[MESSAGE_MAX] = "";
        memset(&res[c], 0, sizeof res[c]);
        if (bench_outputs_run(oc, &res[c], err, sizeof err) != 0) {
            printf("  %-16s failed: %s\n", oc->label, err);
            continue;
        }
        ran[c] = 1;
        double sim_s = res[c].sim_s, *sec = res[c].seconds;
        size_t particles = res[c].particles;
        int frames = oc->frames + 1;
        double sim_ms = 1e3 * sim_s / oc->frames;
        printf("  %-16s %10zu %10.1f", oc->label, particles, sim_ms);
        json_t *kinds = json_object();
        for (int k = 0; k < OUTPUT_KINDS; k++) {
            if (k == OUTPUT_SLICES)
                continue;
            double ms = 1e3 * sec[k] / frames;
            char cell[32];
            snprintf(cell, sizeof cell, "%.1f (%.0f%%)", ms, sim_ms > 0 ? 100 * ms / sim_ms : 0.0);
            printf(" %16s", cell);
            json_object_set_new(kinds, output_kind_names[k], json_real(ms));
        }
        printf("\n");
        fflush(stdout);
        json_array_append_new(out, json_pack("{s:s, s:i, s:I, s:f, s:o, s:o, s:o}", "case",
                                             oc->label, "frames", oc->frames, "particles",
                                             (json_int_t)particles, "simulate_ms_per_frame", sim_ms,
                                             "ms_per_frame", kinds, "memory",
                                             bench_outputs_memory_json(&res[c]), "triangles",
                                             bench_triangles_json(&res[c])));
    }
    bench_print_outputs_memory(res, ran);
}

/* --quick: the two smaller scenes and solver sizes only (a minute instead of several), without
 * the meshing and output sections (some ten and twenty-five seconds).
 * --outputs: the output section alone, printed (no bench.json). */
int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    cli_keep_freed_memory(); /* as flipsim runs */
    if (argc > 1 && strcmp(argv[1], "--outputs") == 0) {   /* that section alone */
        json_t *outputs = json_array();
        bench_outputs(outputs);
        json_decref(outputs);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--shipped") == 0) {   /* that section alone */
        for (int a = 2; a < argc; a++)
            if (!bench_is_shipped(argv[a])) {
                fprintf(stderr, "bench: --shipped %s: not a shipped scene (scenes/*.json)\n",
                        argv[a]);
                return 2;
            }
        json_t *shipped = json_array();
        bench_shipped(shipped, argv + 2, argc - 2);
        json_decref(shipped);
        return 0;
    }
    char err[8192] = "", cpu[256];
    bench_cpu_name(cpu, sizeof cpu);
    SimBackend *probe = pipeline_open(NULL, err, sizeof err);
    char device[300] = "none";
    if (probe) {
        snprintf(device, sizeof device, "%s", probe->name);
        probe->close(probe);
    }
    printf("CPU: %s (%ld online); OpenCL device: %s\n", cpu, sysconf(_SC_NPROCESSORS_ONLN), device);
    LaunchCost launch = { 0.0, 0.0 };
    double bandwidth[DEVICES] = { bench_cpu_bandwidth(),
                                  bench_device_bandwidth(&launch, err, sizeof err) };
    printf("memory bandwidth (STREAM-style triad, median of %d): C with %d threads %.2f GB/s, "
           "OpenCL %.2f GB/s%s%s\n", BENCH_REPEATS, BENCH_THREADS, bandwidth[0], bandwidth[1],
           bandwidth[1] > 0 ? "" : " -- ", bandwidth[1] > 0 ? "" : err);
    if (bandwidth[1] <= 0) {
        fprintf(stderr, "bench: no OpenCL device, so there is nothing to compare\n");
        return 1;
    }
    printf("a launch on OpenCL (one-item kernel, median of %d): %.1f us behind another, %.1f us "
           "behind a triad of %d elements\n", BENCH_REPEATS, launch.behind_small,
           launch.behind_large, LAUNCH_N);
    json_t *root = json_pack("{s:s, s:s, s:{s:f, s:f}, s:{s:f, s:f}}", "cpu", cpu,
                             "opencl_device", device, "bandwidth_gbs", "c", bandwidth[0],
                             "opencl", bandwidth[1], "launch_us", "behind_small",
                             launch.behind_small, "behind_large", launch.behind_large);
    json_t *scenes = json_array(), *solvers = json_array();
    size_t ncases = sizeof scene_cases / sizeof *scene_cases;
    int runs = quick ? 1 : SCENE_REPEATS;
    for (size_t c = 0; c < (quick ? 1 : ncases); c++) {
        static SceneResult res[RUN_KINDS][SCENE_REPEATS];
        const SceneCase *sc = &scene_cases[c];
        int n = quick ? 1 : sc->repeats ? sc->repeats : runs;
        for (int q = 0; q < n; q++) /* alternating, so a noisy minute hits every kind alike */
            for (int k = 0; k < RUN_KINDS; k++)
                if (sc->kinds & (1u << k))
                    res[k][q] = bench_scene(sc, k);
        bench_print_scene(sc, res, n, bandwidth[1]);
        fflush(stdout);
        json_array_append_new(scenes, bench_scene_json(sc, res, n, bandwidth));
    }
    json_object_set_new(root, "scenes", scenes);
    bench_memory_note(); /* what the scenes' memory lines mean here */
    if (!quick) {
        json_t *meshing = json_array(), *outputs = json_array();
        bench_meshing(meshing);
        json_object_set_new(root, "meshing", meshing);
        bench_outputs(outputs);
        json_object_set_new(root, "outputs", outputs);
    }
    if (!quick) {
        json_t *shipped = json_array();
        bench_shipped(shipped, NULL, 0);
        json_object_set_new(root, "shipped_scenes", shipped);
    }
    bench_solvers(solvers, quick);
    json_object_set_new(root, "solvers", solvers);
    const char *path = "build/bench/bench.json";
    if (json_dump_file(root, path, JSON_INDENT(2)) != 0) {
        fprintf(stderr, "bench: %s: cannot write\n", path);
        json_decref(root);
        return 1;
    }
    json_decref(root);
    printf("\nbench: results in %s\n", path);
    return 0;
}
