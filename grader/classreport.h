/* classreport.h — the instructor's view of a graded class: what was hard, what was copied.
 * flipkit grader/: `flipclass` (make class-report) reads the class's report.json files and the
 * submissions' stage files (never running them) and writes class.json and class.html. */
#ifndef FLIPKIT_CLASSREPORT_H
#define FLIPKIT_CLASSREPORT_H

#include <stddef.h>

typedef struct {
    const char *class_dir;   /* the submissions, as make grade SUBMISSIONS= had them */
    const char *reports;     /* where their reports are: REPORTS/<name>/report.json */
    const char *out;         /* where class.json and class.html go */
    const char *stubs;       /* the stubs every student started from: STUBS/<stage>.c */
    const char *reference;   /* the kit's reference/<stage>.c, compared too; NULL: not */
    const char *work;        /* parent of a temporary directory for the intake's copies */
    double threshold;        /* a pair at or above this similarity is listed */
    int min_tokens;          /* a file with fewer of its own tokens is not compared */
} ClassReportOptions;

/* Writes OUT/class.json and OUT/class.html. Returns 0, or -1 with one line in err (a report
 * that cannot be read, reports of two gradings, a file that cannot be written). Names of
 * entries refused for the safe set are listed, escaped, not read. */
int classreport_write(const ClassReportOptions *o, char *err, size_t errlen);

#endif
