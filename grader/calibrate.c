/* calibrate.c — do the grader's thresholds give the reference full marks, in C and on OpenCL?
 * flipkit grader/: runs the reference's OpenCL stages on every case and the OpenCL pipeline on
 * every graded scene, and prints each metric's worst value next to its limit (make check-grader). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"
#include "gradeconfig.h"
#include "metrics.h"
#include "opencl.h"
#include "ply.h"
#include "reference.h"
#include "sandbox.h"
#include "stagecase.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* Every case of one stage in dir (hidden/ or public/), with track t; returns failures. */
static int check_stage(const Track *t, const char *dir, const char *stage, int *cases)
{
    char path[1024], names[64][128];
    textf(path, sizeof path, "%s/%s", dir, stage);
    DIR *d = opendir(path);
    int n = 0, failed = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) && n < 64)
        if (strstr(e->d_name, ".state"))
            textf(names[n++], 128, "%s", e->d_name);
    if (d)
        closedir(d);
    qsort(names, (size_t)n, 128, cmp_str);
    for (int i = 0; i < n; i++) {
        static char msg[9216];
        StateFile want, got;
        state_init(&want);
        state_init(&got);
        textf(path, sizeof path, "%s/%s/%s", dir, stage, names[i]);
        if (state_read(&want, path, msg, sizeof msg) != 0 ||
            stagecase_run(t, stage, &want, &got, msg, sizeof msg) != 0 ||
            stagecase_check(stage, names[i], &want, &got, msg, sizeof msg) != 0) {
            printf("  FAIL %s track, %s: %s\n", t->name, path, msg);
            failed++;
        }
        state_free(&want);
        state_free(&got);
    }
    *cases += n;
    return failed;
}

static int check_stages(const Track *t, const char *data)
{
    int failed = 0, cases = 0;
    char dir[1024];
    for (int v = 0; v < 2; v++) {
        textf(dir, sizeof dir, "%s/%s", data, v ? "public" : "hidden");
        for (int s = 0; s < STAGE_COUNT; s++)
            failed += check_stage(t, dir, stage_names[s], &cases);
    }
    printf("calibrate: %s stages: %d of %d cases pass%s\n", t->name, cases - failed, cases,
           cases ? "" : " (no cases: run make grade-data)");
    return failed || cases == 0;
}

/* The OpenCL pipeline on one scene and solver, each frame against the reference C frame. */
static int check_scene(const GradeConfig *c, const GradeScene *sc, const char *solver,
                       const char *data, const char *flipsim, const char *out)
{
    static GradeRun run;
    char err[1024], dir[1200];
    if (gradeconfig_run(".", sc, solver, &run, err, sizeof err) != 0) {
        printf("calibrate: %s\n", err);
        return 1;
    }
    const char *name = run.name;
    MetricGrid g = { { run.n[0], run.n[1], run.n[2] }, run.dx };
    textf(dir, sizeof dir, "%s/%s", out, name);
    static const char *const reference_opencl[] = { "--device", "opencl", "--track", "reference", NULL };
    gradeconfig_run_argv(&run, sc, solver, flipsim, reference_opencl, dir);
    char *env[] = { "PATH=/usr/bin:/bin", NULL };
    SandboxLimits lim = { .wall_seconds = 1200, .cpu_seconds = 12000, .memory_mib = 1 << 16,
                          .file_mib = 1 << 12, .output_kib = 256, .processes = 4096 };
    SandboxResult res;
    sandbox_run(".", run.argv, env, &lim, &res);
    if (res.outcome != SB_OK) {
        printf("calibrate: %s on OpenCL: %s\n%s", name, res.reason, res.output ? res.output : "");
        sandbox_result_free(&res);
        return 1;
    }
    sandbox_result_free(&res);
    int passed = 0;
    FrameMetrics worst = { 0, 0, 0.0, 0.0, 1.0, 1.0 };
    Particles a0, b0;
    part_init(&a0);
    part_init(&b0);
    char p0[1200];
    textf(p0, sizeof p0, "%s/particles/000000.ply", dir);
    int bad0 = ply_read_particles(p0, &a0, err, sizeof err);
    textf(p0, sizeof p0, "%s/frames/%s/particles/000000.ply", data, name);
    bad0 |= ply_read_particles(p0, &b0, err, sizeof err);
    if (bad0)
        printf("calibrate: %s\n", err);
    for (int f = 1; f <= sc->frames; f++) {
        char sp[1200], rp[1200];
        textf(sp, sizeof sp, "%s/particles/%06d.ply", dir, f);
        textf(rp, sizeof rp, "%s/frames/%s/particles/%06d.ply", data, name, f);
        Particles a, b;
        part_init(&a);
        part_init(&b);
        FrameMetrics m;
        GradeFrameFail fail;
        if (ply_read_particles(sp, &a, err, sizeof err) == 0 && ply_read_particles(rp, &b, err, sizeof err) == 0) {
            passed += metrics_compare(c, &g, (Frame){ &a, &a0 }, (Frame){ &b, &b0 }, &m, &fail);
            double off = m.motion > 1.0 ? m.motion : 1.0 / m.motion;
            worst.motion = off > worst.motion ? off : worst.motion;
            worst.centre_cells = m.centre_cells > worst.centre_cells ? m.centre_cells : worst.centre_cells;
            worst.height_cells = m.height_cells > worst.height_cells ? m.height_cells : worst.height_cells;
            worst.overlap = m.overlap < worst.overlap ? m.overlap : worst.overlap;
        } else {
            printf("calibrate: %s\n", err);
        }
        part_free(&a);
        part_free(&b);
    }
    part_free(&a0);
    part_free(&b0);
    printf("calibrate: opencl %-24s %2d of %2d frames pass; worst centre %.2e cells (limit %g), "
           "height %.2e cells (limit %g), overlap %.4f (limit %g), motion off by x%.4f (limit %g)\n",
           name, passed, sc->frames, worst.centre_cells, c->centre_cells, worst.height_cells,
           c->height_cells, worst.overlap, c->overlap, worst.motion, c->motion);
    return passed != sc->frames;
}

int main(int argc, char **argv)
{
    const char *config = "grader/config", *data = "build/grader/data", *flipsim = "build/flipsim",
               *out = "build/grader/calibration";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--config") == 0) config = argv[i + 1];
        else if (strcmp(argv[i], "--data") == 0) data = argv[i + 1];
        else if (strcmp(argv[i], "--flipsim") == 0) flipsim = argv[i + 1];
        else if (strcmp(argv[i], "--out") == 0) out = argv[i + 1];
        else {
            fprintf(stderr, "usage: calibrate [--config F] [--data DIR] [--flipsim PATH] [--out DIR]\n");
            return 2;
        }
    }
    static GradeConfig c;
    char err[1024];
    gradeconfig_defaults(&c);
    if (gradeconfig_load(config, &c, err, sizeof err) != 0) {
        fprintf(stderr, "calibrate: %s\n", err);
        return 2;
    }
    if (opencl_track_open(NULL, err, sizeof err) != 0) {
        fprintf(stderr, "calibrate: no OpenCL device: %s\n", err);
        return 2;
    }
    int bad = check_stages(&reference_track, data) + check_stages(&opencl_track, data);
    for (int i = 0; i < c.nscenes; i++)
        for (int v = 0; v < c.nsolvers; v++)
            bad += check_scene(&c, &c.scenes[i], c.solvers[v], data, flipsim, out);
    printf("calibrate: %s\n", bad ? "FAILED: a threshold is too tight for the reference" :
                                    "the reference scores full marks in C and on OpenCL");
    return bad ? 1 : 0;
}
