/* grading.c — what the grader's parts share while grading one submission: limits, the time
 * budget, parts, logs, owned files. flipkit grader/: flipgrade.c (main) makes the Grading;
 * build.c, stagepart.c and scenepart.c call these. Nothing here prints. */
#define _XOPEN_SOURCE 700
#include "grading.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <time.h>

double grading_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int grading_mkdirs(const char *path)
{
    char buf[PATH_MAX];
    textf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

SandboxLimits grading_limits(const Grading *gr, double wall_seconds)
{
    const GradeConfig *c = gr->cfg;
    double left = gr->deadline - grading_now();
    wall_seconds = left < wall_seconds ? (left > 0.1 ? left : 0.1) : wall_seconds;
    return (SandboxLimits){ .wall_seconds = wall_seconds, .cpu_seconds = wall_seconds + 1.0,
                            .memory_mib = (size_t)c->memory_mib, .file_mib = (size_t)c->file_mib,
                            .output_kib = (size_t)c->output_kib, .processes = (int)c->processes,
                            .confine_writes = sandbox_can_confine(), .isolate = true,
                            .disk_mib = (size_t)c->disk_mib, .stage_calls = true,
                            .keep_kib = gr->disk_left_kib > 0 ? (size_t)gr->disk_left_kib : 1 };
}

void grading_run(Grading *gr, const char *dir, char *const argv[], char *const envp[],
                 const SandboxLimits *lim, SandboxResult *res)
{
    sandbox_run(dir, argv, envp, lim, res);
    gr->disk_left_kib -= res->kept_kib;
}

static int grading_drop_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

void grading_drop_run(Grading *gr, const char *dir, long kept_kib)
{
    nftw(dir, grading_drop_entry, 16, FTW_DEPTH | FTW_PHYS);
    gr->disk_left_kib += kept_kib;
}

bool grading_time_left(const Grading *gr, char *why, size_t n)
{
    if (grading_now() < gr->deadline - 0.1)
        return true;
    textf(why, n, "not run: the submission's time budget (limits.submission_seconds = %g s) is spent",
          gr->cfg->submission_seconds);
    return false;
}

GradePart *grading_add_part(Grading *gr, const char *name, bool is_scene, double max)
{
    static GradePart spare;
    GradeReport *r = &gr->report;
    GradePart *p = r->nparts < GRADE_MAX_PARTS ? &r->parts[r->nparts++] : &spare;
    memset(p, 0, sizeof *p);
    textf(p->name, sizeof p->name, "%s", name);
    p->is_scene = is_scene;
    p->max = max;
    return p;
}

void grading_log(Grading *gr, GradePart *part, const char *fmt, ...)
{
    char path[GC_PATH + GRADE_PATH_MAX];
    if (!part->detail_log[0]) {
        textf(path, sizeof path, "%s/logs", gr->out);
        grading_mkdirs(path);
        textf(part->detail_log, sizeof part->detail_log, "logs/%s.log", part->name);
        textf(path, sizeof path, "%s/%s", gr->out, part->detail_log);
        remove(path);
    }
    textf(path, sizeof path, "%s/%s", gr->out, part->detail_log);
    FILE *f = fopen(path, "a");
    if (!f)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fclose(f);
}

void grading_log_output(Grading *gr, GradePart *part, const char *output)
{
    size_t len = strlen(output);
    char *quoted = malloc(3 * len + 3); /* "| " and "\n" per line: at most 3 bytes per byte */
    if (!quoted)
        return;
    char *q = quoted;
    while (*output) {
        size_t n = strcspn(output, "\n");
        q += sprintf(q, "| %.*s\n", (int)n, output);
        output += n + (output[n] == '\n');
    }
    *q = '\0';
    grading_log(gr, part, "what it printed (quoted):\n%s", quoted);
    free(quoted);
}

bool grading_owned_file(const char *dir, const char *path)
{
    struct stat st;
    char real_dir[PATH_MAX], real[PATH_MAX];
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || !realpath(dir, real_dir) || !realpath(path, real))
        return false;
    size_t n = strlen(real_dir);
    return strncmp(real, real_dir, n) == 0 && real[n] == '/';
}
