/* build.c — compiling each student stage file on its own, and linking the programs that run them.
 * flipkit grader/: every compile and link runs in the sandbox (the compiler is fed untrusted
 * text); a stage that does not compile scores 0, and so does a scene run that calls it. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildcache.h"
#include "grading.h"
#include "guard.h"

#ifndef FLIPGRADE_CC
#define FLIPGRADE_CC "cc"
#endif
#ifndef FLIPGRADE_LIBS
#define FLIPGRADE_LIBS "-ljansson -lpng -lm"
#endif

#define BUILD_CFLAGS "-std=c11 -D_POSIX_C_SOURCE=200809L -O2 -g -fno-diagnostics-color"

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

/* Runs sh -c cmd in dir, sandboxed; returns 0, or -1 with a reason in why, or -2 when the
 * grader itself failed (grading_failed_itself, after its retry). *output (when output is not
 * NULL) receives what it printed, *output_len its length. */
static int run_build(Grading *gr, const char *dir, const char *cmd, const char *const *readable,
                     const char *kept, char *why, size_t n, char **output, size_t *output_len)
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
    const char *keep[] = { kept, NULL };   /* the object or program, not what else it left */
    lim.keep = keep;
    SandboxResult res;
    grading_run(gr, dir, argv, env, &lim, &res);
    int rc = 0;
    if (res.outcome != SB_OK) {
        if (res.outcome == SB_EXIT)
            line_with(res.output ? res.output : "", "error:", why, n); /* not a quoted "#error" */
        else
            textf(why, n, "%s", res.reason);
        rc = grading_failed_itself(&res) ? -2 : -1;
    }
    if (output)
        *output = res.output, *output_len = res.output_len, res.output = NULL;
    sandbox_result_free(&res);
    return rc;
}

/* Into the cache, which then drops its least recently used entries down to its cap. */
static void build_store(const Grading *gr, const BuildKey *key, const char *made)
{
    bcache_store(gr->cache, key, made);
    bcache_trim(gr->cache, (unsigned long long)gr->cache_mib << 20);
}

void grading_stage_object(const Grading *gr, int s, char *path, size_t n)
{
    if (gr->given[s])
        textf(path, n, "%s/given_%s.o", gr->objs, stage_names[s]);
    else if (gr->compiled[s])
        textf(path, n, "%s/obj/%s/%s.o", gr->work, stage_names[s], stage_names[s]);
    else
        textf(path, n, "%s/stub_%s.o", gr->objs, stage_names[s]);
}

/* Removes every "dir/" from text: the work directory is the grader's, not the student's. */
static void build_strip_dir(char *text, const char *dir)
{
    size_t n = strlen(dir);
    for (char *at = text; n > 0 && (at = strstr(at, dir));)
        if (at[n] == '/') {
            memmove(at, at + n + 1, strlen(at + n + 1) + 1);
            at = text;   /* the text moved up: a match may now start before at */
        } else {
            at += n;
        }
}

/* The compiler's first word found on the builds' PATH, followed to the real file: an upgrade
 * of the compiler changes its stamp, and with it every key. */
static void build_key_compiler(BuildKey *k)
{
    char word[256], path[PATH_MAX], real[PATH_MAX];
    textf(word, sizeof word, "%s", FLIPGRADE_CC);
    word[strcspn(word, " ")] = '\0';
    const char *dirs[] = { "/usr/local/bin", "/usr/bin", "/bin" };
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        if (word[0] == '/')
            textf(path, sizeof path, "%s", word);
        else
            textf(path, sizeof path, "%s/%s", dirs[i], word);
        if (access(path, X_OK) == 0 && realpath(path, real)) {
            bcache_key_stamp(k, real);
            return;
        }
    }
    k->failed = true;
}

/* The grader itself: a new flipgrade may build otherwise (another sandbox policy, other
 * flags), so none of an older one's entries are taken. */
static void build_key_grader(BuildKey *k)
{
    char self[PATH_MAX];
    if (realpath("/proc/self/exe", self))
        bcache_key_stamp(k, self);
    else
        k->failed = true;
}

/* Everything a stage's object depends on: the command, the kit's headers, the compiler, the
 * grader and the source, which with the system's headers is all the compile may read. */
static void build_key_compile(const Grading *gr, int s, const char *src, BuildKey *k)
{
    char made[GC_PATH + 32];
    textf(made, sizeof made, "%s/include/.made", gr->objs);
    bcache_key_text(k, "compile " FLIPGRADE_CC " " BUILD_CFLAGS);
    build_key_grader(k);
    bcache_key_text(k, stage_names[s]);
    bcache_key_stamp(k, made);
    build_key_compiler(k);
    bcache_key_file(k, src);
}

static void build_one(Grading *gr, int s)
{
    const char *stage = stage_names[s];
    if (gr->intake.refused[s][0]) {   /* one line naming the file and why */
        textf(gr->build_reason[s], GRADE_REASON_MAX, "%s", gr->intake.refused[s]);
        return;
    }
    if (!gr->intake.found[s]) {
        textf(gr->build_reason[s], GRADE_REASON_MAX, "no %s.c in the submission%s%s", stage,
              gr->intake_error[0] ? ": " : "", gr->intake_error);
        return;
    }
    char dir[GC_PATH + 64], cmd[4096], obj[2 * GC_PATH];
    textf(dir, sizeof dir, "%s/obj/%s", gr->work, stage);
    textf(obj, sizeof obj, "%s/%s.o", dir, stage);
    grading_mkdirs(dir);
    char include[GC_PATH + 16], src[GC_PATH + 8], file[GC_PATH + 80];
    textf(include, sizeof include, "%s/include", gr->objs);
    textf(src, sizeof src, "%s/src", gr->work);
    textf(file, sizeof file, "%s/%s.c", src, stage);
    BuildKey key = {0};
    if (gr->cache[0]) {
        build_key_compile(gr, s, file, &key);
        if (bcache_fetch(gr->cache, &key, obj, 0644)) {
            gr->compiled[s] = gr->from_cache[s] = true;
            bcache_key_free(&key);
            return;
        }
    }
    /* Only the kit's headers and the stage's own file can be read: no #include of the
     * reference or of another stage's file (the cache keys an object by its one file), no
     * .incbin of the hidden cases. */
    textf(cmd, sizeof cmd, "%s " BUILD_CFLAGS " -I'%s' -c '%s' -o %s.o 2>&1", FLIPGRADE_CC, include,
          file, stage);
    const char *readable[] = { include, file, NULL };
    char why[400], *out = NULL, kept[GRADE_NAME_MAX + 4];
    size_t out_len = 0;
    textf(kept, sizeof kept, "%s.o", stage);
    int built = run_build(gr, dir, cmd, readable, kept, why, sizeof why, &out, &out_len);
    if (built == 0) {
        gr->compiled[s] = true;
        if (gr->cache[0])
            build_store(gr, &key, obj);
    } else if (built == -2) {   /* the compiler never ran: nothing is known of the file */
        gr->build_error[s] = true;
        textf(gr->build_reason[s], GRADE_REASON_MAX, "compiling %s.c, twice: %s", stage, why);
    } else {
        build_strip_dir(why, src);   /* the message names files as the student knows them */
        /* the sandbox, not the student's file system, hid an #include: say what may be (in
         * the run's own root another file is not there at all; under Landlock alone it is
         * there but denied) */
        const char *hint = strstr(why, "fatal error: ") && (strstr(why, ": No such file or directory") ||
                                                           strstr(why, ": Permission denied"))
                               ? " (a stage file compiles on its own: it may include the system's and "
                                 "the kit's headers, not another file)"
                               : "";
        textf(gr->build_reason[s], GRADE_REASON_MAX, "does not compile: %s%s", why, hint);
        /* the compiler quotes the student's source: escaped, in compile.log and the part's log */
        char log[GC_PATH + 96];
        textf(log, sizeof log, "%s/compile.log", dir);
        if (out && !memchr(out, '\0', out_len)) {
            build_strip_dir(out, src);
            out_len = strlen(out);
        }
        grading_write_escaped(log, out ? out : "", out ? out_len : 0, 0);
        gr->compile_output[s] = out, gr->compile_output_len[s] = out ? out_len : 0;
        out = NULL;
    }
    bcache_key_free(&key);
    free(out);
}

void build_stages(Grading *gr)
{
    for (int s = 0; s < STAGE_COUNT; s++)
        if (!gr->given[s])   /* a given stage's file, if the submission has one, is not the student's work */
            build_one(gr, s);
}

/* Everything a runner depends on: the command, the kit's objects, the compiler and linker, and
 * the student's objects byte for byte. False when some student object was compiled afresh in
 * this grading: its debug information names this work directory, so no key would ever recur. */
static bool build_key_link(const Grading *gr, const char *main_obj, const char *trap_obj,
                           const bool use_student[STAGE_COUNT], BuildKey *k)
{
    static const char *const kit[] = { "guard.o", "track.o", "libkit.a" };
    char path[2 * GC_PATH];
    bcache_key_text(k, "link " FLIPGRADE_CC " " GUARD_WRAP_FLAGS " " FLIPGRADE_LIBS);
    build_key_grader(k);
    textf(path, sizeof path, "%s/%s", gr->objs, main_obj);
    bcache_key_stamp(k, path);
    /* with and without the trap are two runners: the name tells them apart, the stamp a new trap */
    bcache_key_text(k, trap_obj ? trap_obj : "no trap");
    if (trap_obj) {
        textf(path, sizeof path, "%s/%s", gr->objs, trap_obj);
        bcache_key_stamp(k, path);
    }
    for (size_t i = 0; i < sizeof kit / sizeof kit[0]; i++) {
        textf(path, sizeof path, "%s/%s", gr->objs, kit[i]);
        bcache_key_stamp(k, path);
    }
    for (int s = 0; s < STAGE_COUNT; s++) {
        if (gr->compiled[s] && use_student[s] && !gr->from_cache[s])
            return false;
        if (gr->compiled[s] && use_student[s]) {
            textf(path, sizeof path, "%s/obj/%s/%s.o", gr->work, stage_names[s], stage_names[s]);
            bcache_key_text(k, "student");
            bcache_key_file(k, path);
        } else {
            textf(path, sizeof path, gr->given[s] ? "%s/given_%s.o" : "%s/stub_%s.o", gr->objs, stage_names[s]);
            bcache_key_stamp(k, path);
        }
    }
    build_key_compiler(k);
    char ld[PATH_MAX];
    if (realpath("/usr/bin/ld", ld))
        bcache_key_stamp(k, ld);
    else
        k->failed = true;   /* a linker found elsewhere could change unseen */
    return !k->failed;
}

int build_link(Grading *gr, const char *dir, const char *main_obj, const char *trap_obj,
               const bool use_student[STAGE_COUNT], const char *out, char *why, size_t n)
{
    char cmd[8192];
    int len = textf(cmd, sizeof cmd, "%s '%s/%s' '%s/guard.o'", FLIPGRADE_CC, gr->objs, main_obj, gr->objs);
    if (trap_obj) /* before the archive: its member of the same symbol is then never pulled in */
        len += textf(cmd + len, sizeof cmd - (size_t)len, " '%s/%s'", gr->objs, trap_obj);
    for (int s = 0; s < STAGE_COUNT; s++) {
        char obj[GC_PATH + 64];
        bool student = gr->compiled[s] && use_student[s];
        if (student)
            textf(obj, sizeof obj, "%s/obj/%s/%s.o", gr->work, stage_names[s], stage_names[s]);
        else
            textf(obj, sizeof obj, gr->given[s] ? "%s/given_%s.o" : "%s/stub_%s.o", gr->objs, stage_names[s]);
        len += textf(cmd + len, sizeof cmd - (size_t)len, " '%s'", obj);
    }
    textf(cmd + len, sizeof cmd - (size_t)len, " '%s/track.o' '%s/libkit.a' %s %s -o '%s' 2>&1", gr->objs,
          gr->objs, GUARD_WRAP_FLAGS, FLIPGRADE_LIBS, out);
    char objs[GC_PATH + 8];
    textf(objs, sizeof objs, "%s/obj", gr->work);
    const char *readable[] = { gr->objs, objs, NULL };
    BuildKey key = {0};
    bool cached = gr->cache[0] && build_key_link(gr, main_obj, trap_obj, use_student, &key);
    if (cached && bcache_fetch(gr->cache, &key, out, 0755)) {
        bcache_key_free(&key);
        return 0;
    }
    char *output = NULL;
    size_t output_len = 0;
    const char *base = strrchr(out, '/');
    int rc = run_build(gr, dir, cmd, readable, base ? base + 1 : out, why, n, &output, &output_len);
    if (rc == -1 && output && strstr(output, "multiple definition"))
        line_with(output, "multiple definition", why, n);
    if (rc == 0 && cached)
        build_store(gr, &key, out);
    bcache_key_free(&key);
    free(output);
    return rc;
}
