/* build.c — compiling each student stage file on its own, and linking the programs that run them.
 * flipkit grader/: every compile and link runs in the sandbox (the compiler is fed untrusted
 * text); a stage that does not compile scores 0 and its stub takes its place everywhere else. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "grading.h"
#include "guard.h"

#ifndef FLIPGRADE_CC
#define FLIPGRADE_CC "cc"
#endif
#ifndef FLIPGRADE_LIBS
#define FLIPGRADE_LIBS "-ljansson -lpng -lm"
#endif

static char *const build_env[] = { "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C", "LC_ALL=C", NULL };

/* The first line of compiler output that has needle (else the first line), for a reason. */
static void line_with(const char *out, const char *needle, char *why, size_t n)
{
    const char *line = strstr(out, needle);
    if (line)
        while (line > out && line[-1] != '\n')
            line--;
    else
        line = out;
    size_t len = strcspn(line, "\n");
    textf(why, n, "%.*s", (int)(len < 300 ? len : 300), line);
}

/* Runs sh -c cmd in dir, sandboxed; returns 0, or -1 with a reason in why and the output logged. */
static int run_build(Grading *gr, const char *dir, const char *cmd, const char *const *readable,
                     char *why, size_t n, char **output)
{
    /* ".": the run's own directory, reached from where it starts; a root grader's path to it
     * may pass through directories its user (nobody) may not search, and cc tests TMPDIR
     * with access(2), which ignores the one capability it keeps */
    char *env[8] = { build_env[0], build_env[1], build_env[2], "TMPDIR=.", NULL };
    char *argv[] = { "/bin/sh", "-c", (char *)cmd, NULL };
    if (!grading_time_left(gr, why, n))
        return -1;
    SandboxLimits lim = grading_limits(gr, gr->cfg->compile_seconds);
    lim.stage_calls = false; /* cc runs cc1, as and ld: a compiler is not a stage */
    lim.memory_mib = lim.memory_mib < 2048 ? 2048 : lim.memory_mib; /* cc1 is big */
    lim.processes = 4096;  /* cc runs cc1, as and ld */
    lim.readable = readable;
    SandboxResult res;
    sandbox_run(dir, argv, env, &lim, &res);
    int rc = 0;
    if (res.outcome != SB_OK) {
        if (res.outcome == SB_EXIT)
            line_with(res.output ? res.output : "", "error", why, n);
        else
            textf(why, n, "%s", res.reason);
        rc = -1;
    }
    if (output)
        *output = res.output, res.output = NULL;
    sandbox_result_free(&res);
    return rc;
}

void grading_stage_object(const Grading *gr, int s, char *path, size_t n)
{
    if (gr->compiled[s])
        textf(path, n, "%s/obj/%s/%s.o", gr->work, stage_names[s], stage_names[s]);
    else
        textf(path, n, "%s/stub_%s.o", gr->objs, stage_names[s]);
}

static void build_one(Grading *gr, int s)
{
    const char *stage = stage_names[s];
    if (!gr->found[s]) {
        textf(gr->build_reason[s], GRADE_REASON_MAX, "no %s.c in the submission%s%s", stage,
              gr->intake_error[0] ? ": " : "", gr->intake_error);
        return;
    }
    char dir[GC_PATH + 64], cmd[4096];
    textf(dir, sizeof dir, "%s/obj/%s", gr->work, stage);
    grading_mkdirs(dir);
    /* Only the kit's headers and the student's own files can be read: no #include of the
     * reference, no .incbin of the hidden cases. */
    textf(cmd, sizeof cmd, "%s -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -g -fno-diagnostics-color "
          "-I'%s/include' -c '%s/src/%s.c' -o %s.o 2>&1", FLIPGRADE_CC, gr->objs, gr->work, stage, stage);
    char include[GC_PATH + 16], src[GC_PATH + 8];
    textf(include, sizeof include, "%s/include", gr->objs);
    textf(src, sizeof src, "%s/src", gr->work);
    const char *readable[] = { include, src, NULL };
    char why[400], *out = NULL;
    if (run_build(gr, dir, cmd, readable, why, sizeof why, &out) == 0) {
        gr->compiled[s] = true;
    } else {
        size_t n = strlen(src);   /* the message names the file as the student knows it */
        textf(gr->build_reason[s], GRADE_REASON_MAX, "does not compile: %s",
              strncmp(why, src, n) == 0 && why[n] == '/' ? why + n + 1 : why);
        char log[GC_PATH + 96];
        textf(log, sizeof log, "%s/compile.log", dir);
        FILE *f = fopen(log, "w");
        if (f) {
            fputs(out ? out : "", f);
            fclose(f);
        }
    }
    free(out);
}

void build_stages(Grading *gr)
{
    for (int s = 0; s < STAGE_COUNT; s++)
        build_one(gr, s);
}

int build_link(Grading *gr, const char *dir, const char *main_obj, const bool use_student[STAGE_COUNT],
               const char *out, char *why, size_t n)
{
    char cmd[8192];
    int len = textf(cmd, sizeof cmd, "%s '%s/%s' '%s/guard.o'", FLIPGRADE_CC, gr->objs, main_obj, gr->objs);
    for (int s = 0; s < STAGE_COUNT; s++) {
        char obj[GC_PATH + 64];
        bool student = gr->compiled[s] && use_student[s];
        if (student)
            textf(obj, sizeof obj, "%s/obj/%s/%s.o", gr->work, stage_names[s], stage_names[s]);
        else
            textf(obj, sizeof obj, "%s/stub_%s.o", gr->objs, stage_names[s]);
        len += textf(cmd + len, sizeof cmd - (size_t)len, " '%s'", obj);
    }
    textf(cmd + len, sizeof cmd - (size_t)len, " '%s/track.o' '%s/libkit.a' %s %s -o '%s' 2>&1", gr->objs,
          gr->objs, GUARD_WRAP_FLAGS, FLIPGRADE_LIBS, out);
    char objs[GC_PATH + 8];
    textf(objs, sizeof objs, "%s/obj", gr->work);
    const char *readable[] = { gr->objs, objs, NULL };
    char *output = NULL;
    int rc = run_build(gr, dir, cmd, readable, why, n, &output);
    if (rc != 0 && output && strstr(output, "multiple definition"))
        line_with(output, "multiple definition", why, n);
    free(output);
    return rc;
}
