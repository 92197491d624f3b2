/* grading.h — what the parts of the grader share while grading one submission.
 * flipkit grader/: flipgrade.c (main) reads the command line and the config and runs the parts;
 * grading.c holds the shared helpers; build.c compiles and links the student's files,
 * stagepart.c and scenepart.c grade. */
#ifndef FLIPKIT_GRADING_H
#define FLIPKIT_GRADING_H

#include <limits.h>
#include <stdbool.h>

#include "grade.h"
#include "gradeconfig.h"
#include "intake.h"
#include "sandbox.h"
#include "track.h"

typedef struct {
    const GradeConfig *cfg;
    char kit[GC_PATH];       /* absolute: the kit's root (common/, scenes/, grader/config) */
    char objs[GC_PATH];      /* absolute: prebuilt kit objects (build/grader/kit) */
    char data[GC_PATH];      /* absolute: the reference's cases and frames (build/grader/data) */
    char work[GC_PATH];      /* absolute: this grading's temporary directory */
    char out[GC_PATH];       /* absolute: the report directory */
    char cache[PATH_MAX];    /* absolute: the build cache (buildcache.h), or "" when off */
    long cache_mib;          /* the cache is trimmed to this after every store (--cache-mib) */
    bool public_cases;       /* the self-check: public cases instead of hidden ones */
    bool quiet;
    /* per stage, in stage_names order */
    IntakeResult intake;                 /* which stage files the submission gave, or why not */
    bool compiled[STAGE_COUNT];          /* the student's object exists (else the stub is used) */
    bool given[STAGE_COUNT];             /* handout.given_stages: not assigned, not graded; every
                                          * run links the reference's object (given_<stage>.o) */
    bool from_cache[STAGE_COUNT];        /* ... and came from the cache: the same bytes every time */
    char build_reason[STAGE_COUNT][GRADE_REASON_MAX];  /* why not, one line */
    bool build_error[STAGE_COUNT];       /* ... because the grader failed, not the file */
    char *compile_output[STAGE_COUNT];   /* what the compiler printed when it failed (raw,
                                          * for the part's log), or NULL; grading_free frees */
    size_t compile_output_len[STAGE_COUNT];
    char intake_error[GRADE_REASON_MAX];   /* why the submission could not be read, or "" */
    char data_missing[GRADE_REASON_MAX];   /* the reference's data is missing: no grade */
    double deadline;         /* CLOCK_MONOTONIC: the submission's time budget ends */
    long long disk_left_kib; /* what is left of limits.submission_disk_mib in the work dir */
    GradeReport report;
} Grading;

/* CLOCK_MONOTONIC in seconds, the clock of Grading.deadline. */
double grading_now(void);
/* Limits for builds, stage cases and scene runs, from the config: isolated, with the disk
 * budget, wall_seconds cut to what is left of the submission's time budget. */
SandboxLimits grading_limits(const Grading *gr, double wall_seconds);
/* Whether the run failed for the grader's own reasons, not the program's: it could not be
 * started, or its files could not be copied back. */
bool grading_failed_itself(const SandboxResult *res);
/* sandbox_run, run once more when grading_failed_itself, with what the run keeps counted against the submission's disk budget. */
void grading_run(Grading *gr, const char *dir, char *const argv[], char *const envp[],
                 const SandboxLimits *lim, SandboxResult *res);
/* Removes a run's directory once the grader has read it, giving what the run kept there
 * (SandboxResult.kept_kib) back to the submission's disk budget. */
void grading_drop_run(Grading *gr, const char *dir, long kept_kib);
/* False once the submission's time budget is spent, with "not run: ..." in why. */
bool grading_time_left(const Grading *gr, char *why, size_t n);
/* Marks the part an error of the grading (not the student's: no score, "grading error: why"
 * as its reason and in its log) and counts it in report.errors. */
void grading_mark_error(Grading *gr, GradePart *part, const char *why);
/* Adds a part; returns it (zeroed, name and max set). */
GradePart *grading_add_part(Grading *gr, const char *name, bool is_scene, double max);
/* How much of a student's bytes a person is shown (grader/README.md, Reports), as escaped text. */
enum {
    GRADING_OUTPUT_SHOWN = 4 * 1024, /* of one run's printed output, in a part's log */
    GRADING_LOG_MAX = 256 * 1024,    /* of a part's whole log: seven failing cases of 9 KiB of
                                      * diff and 4 KiB of output each fit whole */
    GRADING_KEPT_MAX = 64 * 1024,    /* of a file kept for a person: compile.log, run-<x>/log.txt */
};

/* Appends text to the part's log (report dir/logs/<part>.log), creating it and setting
 * part->detail_log on first use. Everything is written as escape_text shows it (newlines
 * kept): an argument may hold a student's bytes (a compiler's line, a file name). The log
 * holds at most GRADING_LOG_MAX bytes; grading_finish_logs says how many more there were. */
__attribute__((format(printf, 3, 4)))
void grading_log(Grading *gr, GradePart *part, const char *fmt, ...);
/* Appends what a student's program printed (len bytes; a compiler's too) to the part's log:
 * escaped, every line quoted with "| " so that nothing it printed can pass for the grader's
 * own lines, at most GRADING_OUTPUT_SHOWN bytes of it and then how many more there were.
 * Nothing when len is 0. The part's log is kept then even when the part has full marks. */
void grading_log_output(Grading *gr, GradePart *part, const char *output, size_t len);
/* Ends every part's log that its cap cut with "... (M more bytes not shown)". */
void grading_finish_logs(Grading *gr);
/* Writes a student's text (len bytes, of which more followed that the caller did not read)
 * to path as escape_text shows it, newlines kept, at most GRADING_KEPT_MAX bytes, then
 * "... (M more bytes not shown)" when anything was left out. Returns 0 or -1. */
int grading_write_escaped(const char *path, const char *text, size_t len, size_t more);
/* The path of a student stage object or of the kit's stub for stage s. */
void grading_stage_object(const Grading *gr, int s, char *path, size_t n);
/* Whether path, written by student code, may be read: a regular file (not a symlink, FIFO or
 * device) whose real path lies inside dir. Otherwise a stage could link its output to the
 * reference's answers, or block the grader on a FIFO. */
bool grading_owned_file(const char *dir, const char *path);
/* 64-bit FNV-1a, as 16 hex digits, of a file's bytes (grading_hash_file), or of the cases
 * (.state) and frames (.ply) beneath dir, each its path relative to dir and its bytes, in path
 * order so that a copy hashes the same (grading_hash_tree): what a report says it was graded
 * with. "unreadable" when something cannot be read. */
void grading_hash_file(const char *path, char out[17]);
void grading_hash_tree(const char *dir, char out[17]);
/* Frees what grading one submission allocated in gr. */
void grading_free(Grading *gr);
/* rm -rf, never following a link; what cannot be removed stays. */
void grading_remove_tree(const char *path);
/* mkdir -p; returns 0 or -1. */
int grading_mkdirs(const char *path);

/* build.c: compiles each stage file on its own (a failure leaves the stub in its place; a
 * compile the grader could not start sets build_error). */
void build_stages(Grading *gr);
/* Links a program in dir from main_obj, the guard, trap_obj when not NULL (a kit object that
 * takes the place of a kit function the program must not reach: BUILD_SOLVER_TRAP), the eight
 * stage objects (student's for the stages in use_student, stubs for the rest) and the kit;
 * returns 0, or -1 with the first error line in why, or -2 (why says it) when the grader
 * itself failed: the linker could not start. */
int build_link(Grading *gr, const char *dir, const char *main_obj, const char *trap_obj,
               const bool use_student[STAGE_COUNT], const char *out, char *why, size_t n);
/* The given solver's trap (solvertrap.c): linked into every runner whose pressure must come
 * from the student's jacobi, or from no solver at all. */
#define BUILD_SOLVER_TRAP "solvertrap.o"

/* stagepart.c: the eight stage-isolated parts. */
void grade_stages(Grading *gr);
/* scenepart.c: the whole-scene parts. */
void grade_scenes(Grading *gr);

#endif
