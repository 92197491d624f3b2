/* harness.c — running a Check suite the same way in every flipkit test binary.
 * flipkit tests/: fork mode by default, so a crashing case is reported as that case's
 * crash; CK_FORK=no and CK_RUN_CASE are Check's own variables and pass straight through. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "harness.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef FLIPKIT_HAVE_REFERENCE
#include "opencl.h"
#include "reference.h"
#endif

static void harness_die(const char *msg, const char *value)
{
    fprintf(stderr, "test: %s%s\n", msg, value);
    exit(2);
}

const Track *harness_track(void)
{
    static Track chosen;
    static bool ready;
    if (ready)
        return &chosen;
    const char *name = getenv("FLIPKIT_TRACK");
    chosen = student_track;
    if (name && *name && strcmp(name, "student") != 0) {
#ifdef FLIPKIT_HAVE_REFERENCE
        const char *swap = getenv("FLIPKIT_STUDENT_STAGES");
        const Track *base = strcmp(name, "reference") == 0 ? &reference_track
                            : strcmp(name, "opencl") == 0    ? &opencl_track
                                                             : NULL;
        if (!base)
            harness_die("FLIPKIT_TRACK must be student, reference or opencl, not ", name);
        static char err[16384];
        if (base == &opencl_track && opencl_track_open(NULL, err, sizeof err) != 0)
            harness_die("TRACK=opencl: ", err);
        chosen = *base;
        if (swap && *swap && track_mix(&chosen, base, &student_track, swap, err, sizeof err) != 0)
            harness_die("FLIPKIT_STUDENT_STAGES: ", err);
#else
        harness_die("this kit has no reference track; FLIPKIT_TRACK can only be student, not ", name);
#endif
    }
    ready = true;
    return &chosen;
}

int harness_run_stage(Suite *s)
{
    const char *swap = getenv("FLIPKIT_STUDENT_STAGES");
    const char *name = harness_track()->name;
    if (strcmp(name, "student") == 0)
        printf("Testing the student track (your code in assignment/)\n");
    else if (strcmp(name, "mixed") == 0)
        printf("Testing the reference track with the student's %s\n", swap);
#ifdef FLIPKIT_HAVE_REFERENCE
    else if (strcmp(name, "opencl") == 0)
        printf("Testing the opencl track on %s\n", opencl_track_device());
#endif
    else
        printf("Testing the %s track\n", name);
    fflush(stdout);
    int failed = harness_run(s);
#ifdef FLIPKIT_HAVE_REFERENCE
    /* A stage that could not run on the device wrote NaN; this says why. */
    if (strcmp(name, "opencl") == 0 && opencl_track_error())
        printf("%s\n", opencl_track_error());
#endif
    return failed;
}

/* ---- the watch: once a case runs out of time, the rest of the suite is skipped ---------- */

/* What the runner and each case's forked child share (MAP_SHARED): the case that started last,
 * when, with what limit, and whether it reached its teardown. A child cannot see its own
 * timeout (Check's runner kills it), so the next child judges it: a case that never finished
 * and whose limit has passed since it started ran out of time. */
typedef struct {
    int armed;          /* fork mode: each case in a child that Check times out */
    int running;        /* the last case started and has not reached its teardown */
    double started;     /* when it started, CLOCK_MONOTONIC seconds */
    double limit;       /* its limit, the multiplier applied */
    int hung;           /* a case ran out of time: every later case is skipped */
    double hung_limit;
} HarnessWatch;

enum { HARNESS_MAX_WATCHED = 4 };
static struct {
    double seconds;
} harness_watched[HARNESS_MAX_WATCHED];
static int harness_nwatched;
static HarnessWatch *harness_watch;

#define HARNESS_SKIPPED "skipped: an earlier case ran out of time"

static double harness_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* $CK_TIMEOUT_MULTIPLIER read the way Check reads it (a number >= 0, else ignored). */
static double harness_timeout_multiplier(void)
{
    const char *env = getenv("CK_TIMEOUT_MULTIPLIER");
    char *end;
    double m = env ? strtod(env, &end) : 1.0;
    return env && end != env && *end == '\0' && m >= 0 ? m : 1.0;
}

/* Checked setup, in the case's child: judges the case before it, then starts the clock on this
 * one, whose limit is that of the watched TCase number slot. */
static void harness_case_start(int slot)
{
    HarnessWatch *w = harness_watch;
    if (!w || !w->armed)
        return;
    double now = harness_now();
    if (w->running && w->limit > 0 && now - w->started >= w->limit) {
        w->hung = 1;
        w->hung_limit = w->limit;
    }
    w->running = 0;
    if (w->hung)
        ck_abort_msg(HARNESS_SKIPPED);
    w->limit = harness_watched[slot].seconds * harness_timeout_multiplier();
    w->started = now;
    w->running = 1;
}

/* A fixture cannot ask which TCase it runs for (Check's tcase_name() is the test's, and only
 * inside it), so each watched TCase gets a setup of its own. */
static void harness_case_start0(void) { harness_case_start(0); }
static void harness_case_start1(void) { harness_case_start(1); }
static void harness_case_start2(void) { harness_case_start(2); }
static void harness_case_start3(void) { harness_case_start(3); }
static void (*const harness_case_starts[HARNESS_MAX_WATCHED])(void) = {
    harness_case_start0, harness_case_start1, harness_case_start2, harness_case_start3
};

static void harness_case_end(void)
{
    if (harness_watch)
        harness_watch->running = 0;
}

TCase *harness_tcase(const char *name, double seconds)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, seconds);
    if (harness_nwatched < HARNESS_MAX_WATCHED) {
        harness_watched[harness_nwatched].seconds = seconds;
        tcase_add_checked_fixture(tc, harness_case_starts[harness_nwatched++], harness_case_end);
    }
    return tc;
}

/* ---- running a suite, and printing its failures ------------------------------------------ */

/* 'P', 'F' or 'E' when line starts a record of Check's log (file:line:X:tcase:test:iter: ...),
 * 'S' for a failure in a checked setup (the watch's skips), else 0 (a message's further lines,
 * the log's own headings). */
static int harness_record_kind(const char *line)
{
    const char *c = strchr(line, ':');
    if (!c || c == line || c[1] < '0' || c[1] > '9')
        return 0;
    c++;
    while (*c >= '0' && *c <= '9')
        c++;
    if (c[0] != ':' || !strchr("PFES", c[1]) || c[1] == '\0' || c[2] != ':')
        return 0;
    return c[1];
}

static int harness_count_skipped(SRunner *sr)
{
    int n = 0, total = srunner_ntests_run(sr);
    TestResult **r = srunner_results(sr);
    for (int i = 0; r && i < total; i++)
        if (tr_rtype(r[i]) != CK_PASS && tr_msg(r[i]) && strcmp(tr_msg(r[i]), HARNESS_SKIPPED) == 0)
            n++;
    free(r);
    return n;
}

/* Prints the failure records of Check's log as CK_NORMAL would print them, but the cases the
 * watch skipped as one line where the first of them would be. */
static void harness_print_failures(SRunner *sr, const char *log)
{
    FILE *f = fopen(log, "r");
    if (!f)
        return;
    int skipped = harness_count_skipped(sr);
    char *line = NULL;
    size_t cap = 0;
    bool show = false, said = false;
    while (getline(&line, &cap, f) > 0) {
        if (strncmp(line, "Results for all suites run:", 27) == 0)
            break;
        int kind = harness_record_kind(line);
        if (kind)
            show = kind != 'P' && !strstr(line, HARNESS_SKIPPED);
        else if (strncmp(line, "Running suite", 13) == 0)
            show = false;
        if (kind && strstr(line, HARNESS_SKIPPED) && !said) {
            printf("... and the %d later case%s skipped: a case ran out of its %g s (an endless loop?); "
                   "fix it, then run the suite again\n", skipped, skipped == 1 ? " was" : "s were",
                   harness_watch ? harness_watch->hung_limit : 0.0);
            said = true;
        }
        if (show)
            printf("%s%s", line, line[strlen(line) - 1] == '\n' ? "" : "\n");
    }
    free(line);
    fclose(f);
}

/* A file for Check's log of every result, which the runner prints from after the run; NULL when
 * the user asked for a log of their own ($CK_LOG_FILE_NAME) or none can be made. */
static char *harness_open_log(SRunner *sr)
{
    if (getenv("CK_LOG_FILE_NAME"))
        return NULL;
    const char *tmp = getenv("TMPDIR");
    static char path[512];
    snprintf(path, sizeof path, "%s/flipkit-check.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    close(fd);
    srunner_set_log(sr, path);
    return path;
}

int harness_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    /* An OpenCL runtime's threads do not survive fork(), so the opencl track runs in one
     * process (it is the kit's own code, not a student's that might crash). */
    const char *track = getenv("FLIPKIT_TRACK");
    if (track && strcmp(track, "opencl") == 0 && !getenv("CK_FORK"))
        srunner_set_fork_status(sr, CK_NOFORK);
    harness_watch = mmap(NULL, sizeof *harness_watch, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (harness_watch == MAP_FAILED)
        harness_watch = NULL;
    else
        harness_watch->armed = srunner_fork_status(sr) == CK_FORK;
    char *log = harness_open_log(sr);
    fflush(stdout);
    srunner_run_all(sr, log ? CK_MINIMAL : CK_NORMAL);
    if (log) {
        harness_print_failures(sr, log);
        unlink(log);
    }
    fflush(stdout);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

const char *harness_tmpdir(void)
{
    static char dir[256];
    if (!dir[0]) {
        mkdir("build", 0777);
        mkdir("build/tmp", 0777);
        snprintf(dir, sizeof dir, "build/tmp/test-%ld", (long)getpid());
        mkdir(dir, 0777);
    }
    return dir;
}

void harness_scratch_dir(const char *prefix, char *dir, size_t n)
{
    snprintf(dir, n, "%s/%s.XXXXXX", harness_tmpdir(), prefix);
    if (!mkdtemp(dir))
        harness_die("cannot create a scratch directory under ", harness_tmpdir());
}

void harness_remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char sub[1024];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            struct stat st;
            if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
                harness_remove_tree(sub);
            else
                unlink(sub);
        }
        closedir(d);
    }
    rmdir(path);
}

char *harness_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s: cannot open", path);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    ck_assert_int_ge(n, 0);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = (size_t)n;
    return buf;
}

int harness_run_cli(const char *tag, char **argv, const Track *student, const Track *reference,
                    const CliDevices *devices)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    char out[600], err[600];
    snprintf(out, sizeof out, "%s/%s.stdout", harness_tmpdir(), tag);
    snprintf(err, sizeof err, "%s/%s.stderr", harness_tmpdir(), tag);
    fflush(stdout);
    fflush(stderr);
    ck_assert_ptr_nonnull(freopen(out, "w", stdout));
    ck_assert_ptr_nonnull(freopen(err, "w", stderr));
    optind = 1;     /* getopt starts over for every run in this process */
    const CliBuild build = { .student = student, .reference = reference, .devices = devices };
    int rc = cli_main(argc, argv, &build);
    fflush(stdout);
    fflush(stderr);
    return rc;
}
