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
    bool public_cases;       /* the self-check: public cases instead of hidden ones */
    bool quiet;
    /* per stage, in stage_names order */
    IntakeResult intake;                 /* which stage files the submission gave, or why not */
    bool compiled[STAGE_COUNT];          /* the student's object exists (else the stub is used) */
    bool from_cache[STAGE_COUNT];        /* ... and came from the cache: the same bytes every time */
    char build_reason[STAGE_COUNT][GRADE_REASON_MAX];  /* why not, one line */
    char intake_error[GRADE_REASON_MAX];   /* why the submission could not be read, or "" */
    char data_missing[GRADE_REASON_MAX];   /* the reference's data is missing: no grade */
    double deadline;         /* CLOCK_MONOTONIC: the submission's time budget ends */
    GradeReport report;
} Grading;

/* CLOCK_MONOTONIC in seconds, the clock of Grading.deadline. */
double grading_now(void);
/* Limits for builds, stage cases and scene runs, from the config: isolated, with the disk
 * budget, wall_seconds cut to what is left of the submission's time budget. */
SandboxLimits grading_limits(const Grading *gr, double wall_seconds);
/* False once the submission's time budget is spent, with "not run: ..." in why. */
bool grading_time_left(const Grading *gr, char *why, size_t n);
/* Adds a part; returns it (zeroed, name and max set). */
GradePart *grading_add_part(Grading *gr, const char *name, bool is_scene, double max);
/* Appends text to the part's failure log (report dir/logs/<part>.log), creating it and setting
 * part->detail_log on first use. */
void grading_log(Grading *gr, GradePart *part, const char *fmt, ...);
/* Appends what a student's program printed to the part's log, every line quoted with "| "
 * so that nothing it printed can pass for the grader's own lines. */
void grading_log_output(Grading *gr, GradePart *part, const char *output);
/* The path of a student stage object or of the kit's stub for stage s. */
void grading_stage_object(const Grading *gr, int s, char *path, size_t n);
/* Whether path, written by student code, may be read: a regular file (not a symlink, FIFO or
 * device) whose real path lies inside dir. Otherwise a stage could link its output to the
 * reference's answers, or block the grader on a FIFO. */
bool grading_owned_file(const char *dir, const char *path);
/* mkdir -p; returns 0 or -1. */
int grading_mkdirs(const char *path);

/* build.c: compiles each stage file on its own (a failure leaves the stub in its place). */
void build_stages(Grading *gr);
/* Links a program in dir from main_obj, the guard, the eight stage objects (student's for the
 * stages in use_student, stubs for the rest) and the kit; returns 0, or -1 with the first
 * error line in why. */
int build_link(Grading *gr, const char *dir, const char *main_obj, const bool use_student[STAGE_COUNT],
               const char *out, char *why, size_t n);

/* stagepart.c: the eight stage-isolated parts. */
void grade_stages(Grading *gr);
/* scenepart.c: the whole-scene parts. */
void grade_scenes(Grading *gr);

#endif
