/* grade.h — what grading one submission produced: its parts, their points and reasons.
 * flipkit grader/: flipgrade.c fills a GradeReport; report.c prints it as a table and writes
 * report.json and report.html; the class CSV is made from the report.json files. */
#ifndef FLIPKIT_GRADE_H
#define FLIPKIT_GRADE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum {
    GRADE_MAX_PARTS = 48,
    GRADE_NAME_MAX = 64,
    GRADE_REASON_MAX = 512,
    GRADE_PATH_MAX = 512,
    GRADE_MAX_CASES = 16,        /* cases of a stage part kept one by one (the class report's) */
    GRADE_CASE_REASON_MAX = 256,
};

/* One case of a stage part: whether it passed and, when not, its first failure in one line
 * (the class report counts which cases most students fail, and where). */
typedef struct {
    char name[GRADE_NAME_MAX];   /* the case's name, e.g. "corner_6x6x8" */
    bool passed;
    char reason[GRADE_CASE_REASON_MAX];  /* "" when it passed */
} GradeCase;

/* One frame a whole-scene part compared; only the first failing frame keeps images. */
typedef struct {
    int frame;                   /* frame number (000000.ply is frame 0) */
    char metric[GRADE_NAME_MAX]; /* the first metric that failed, e.g. "centre of mass" */
    double got, limit;           /* its value and the threshold it broke */
} GradeFrameFail;

typedef struct {
    char name[GRADE_NAME_MAX];   /* "p2g" for a stage part, "ball_drop.jacobi" for a scene part */
    bool is_scene;               /* false: stage-isolated part; true: whole-scene part */
    double points, max;          /* points scored, out of max */
    int total, passed;           /* cases (stage part) or frames (scene part) run and passed */
    char reason[GRADE_REASON_MAX];  /* one line: "all 6 cases pass", or the first failure */
    char detail_log[GRADE_PATH_MAX]; /* path of the failure log, relative to the report dir;
                                      * "" when the part passed (logs are kept only for failures) */
    /* scene parts whose frame failed: PNGs relative to the report dir, "" when none */
    GradeFrameFail first_fail;   /* valid when passed < total and is_scene */
    char image_student[GRADE_PATH_MAX];
    char image_reference[GRADE_PATH_MAX];
    char image_diff[GRADE_PATH_MAX];
    /* the first failing scene part only: "make view RUN=<its run, kept in the report dir>
     * VS=<the reference's frames>", to look at both side by side in 3D; "" otherwise */
    char view[2 * GRADE_PATH_MAX + 32];
    /* grading.c's account of detail_log: bytes written, bytes its cap left out (said at its
     * end), and whether it holds what a program printed (then kept even at full marks) */
    size_t log_bytes, log_unshown;
    bool log_printed;
    /* the grading failed here, not the student (a run that could not start twice, files that
     * could not be copied back, the reference's data missing): no score, reason says why */
    bool error;
    /* stage parts: the first GRADE_MAX_CASES cases run, in the order run (not run: left out) */
    int ncases;
    GradeCase cases[GRADE_MAX_CASES];
} GradePart;

typedef struct {
    char submission[GRADE_PATH_MAX]; /* as given on the command line */
    char student[GRADE_NAME_MAX + 1]; /* its name: the directory or archive name without suffix;
                                       * the safe set allows 64 bytes (escape.h) */
    char mode[16];                   /* "hidden" (instructor cases) or "public" (self-check) */
    double seconds;                  /* wall time of the grading */
    char sandbox[1024];              /* what the sandbox isolates on this machine (sandbox.h) */
    /* what the grade was made with, for an audit (grading_hash_*): the grader's commit and a
     * hash of its binary, hashes of the config file and of the reference's data, and when */
    char grader[128];
    char config_hash[17], data_hash[17];
    char graded_at[32];              /* UTC, ISO 8601: 2024-05-01T12:00:00Z */
    /* with variants on (variant.h): which one the student got, the key that names its data,
     * the hash of that data and what was drawn, in words; data_hash stays the class's */
    bool has_variant;
    int variant;
    char variant_key[17], variant_data_hash[17];
    char variant_drawn[3072];
    int nparts;
    GradePart parts[GRADE_MAX_PARTS];
    double total, max;
    int errors;                      /* parts with error set: then the report has no grade */
} GradeReport;

/* snprintf for paths and reasons in the grader, where cutting a long one short is intended;
 * the format is still type-checked. Returns what vsnprintf returns. */
__attribute__((format(printf, 3, 4)))
static inline int textf(char *dst, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(dst, n, fmt, ap);
    va_end(ap);
    return r;
}

#endif
