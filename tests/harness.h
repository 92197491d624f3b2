/* harness.h — what every flipkit Check suite shares: running a suite and small builders.
 * flipkit tests/: a suite's main is one line, return harness_run(make_suite()); so fork
 * mode, CK_FORK=no (for gdb) and CK_RUN_CASE=name (one case) work the same everywhere. */
#ifndef FLIPKIT_HARNESS_H
#define FLIPKIT_HARNESS_H

#include <check.h>
#include <stddef.h>

#include "cli.h"
#include "track.h"

/* ck_assert_msg for loops over vertices, particles, pixels or cells: it fails the same way,
 * but a pass costs nothing. Every passing ck_assert_* makes Check write its place to a pipe,
 * one system call each; millions of them made test_outputs spend a minute in write(2). */
#define harness_require(expr, ...)                                                          \
    do {                                                                                    \
        if (!(expr))                                                                        \
            ck_abort_msg(__VA_ARGS__);                                                      \
    } while (0)

/* The track under test: $FLIPKIT_TRACK = student (default, assignment/) or reference, with
 * $FLIPKIT_STUDENT_STAGES = a comma-separated list of stages taken from the student track
 * instead (make check's isolation runs). A bad value aborts the run with one line. */
const Track *harness_track(void);

/* How long a case may run before Check stops it (times $CK_TIMEOUT_MULTIPLIER, as Check does):
 * an analytic case takes milliseconds, so a stage that loops forever shows in seconds. */
#define HARNESS_ANALYTIC_SECONDS 2.0
#define HARNESS_GOLDEN_SECONDS 10.0

/* A new TCase whose cases each get that many seconds, watched: once a case has run out of
 * time (an endless loop, most likely), every later case of the suite is skipped at once instead
 * of waiting out a timeout of its own, and the suite says so in one line. Fork mode only (with
 * CK_FORK=no, Check has no timeouts). Its fixture runs before any the suite adds. */
TCase *harness_tcase(const char *name, double seconds);

/* Runs the suite with Check's environment variables honoured; returns the exit status. */
int harness_run(Suite *s);
/* The same for a stage suite, after saying which track it tests. */
int harness_run_stage(Suite *s);
/* A scratch directory for this test process (created on first use, under build/tmp). */
const char *harness_tmpdir(void);
/* A new empty directory PREFIX.XXXXXX under harness_tmpdir(), its path in dir (n >= 64 bytes
 * more than the prefix). Aborts the run with one line if it cannot be made. */
void harness_scratch_dir(const char *prefix, char *dir, size_t n);
/* Removes path and everything under it, not following symbolic links. */
void harness_remove_tree(const char *path);
/* The whole file (malloc'd, with a '\0' after its len bytes; len may be NULL); a file that
 * cannot be read fails the case, naming it. */
char *harness_slurp(const char *path, size_t *len);
/* Runs flipsim's cli_main in this process with argv (NULL-terminated), stdout and stderr sent
 * to harness_tmpdir()/TAG.stdout and TAG.stderr; returns its exit status. */
int harness_run_cli(const char *tag, char **argv, const Track *student, const Track *reference,
                    const CliDevices *devices);

#endif
