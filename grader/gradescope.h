/* gradescope.h — a grading's report.json as Gradescope's results.json.
 * flipkit grader/: run_autograder (grader/gradescope/) grades a submission with flipgrade and
 * then calls `flipgrade --gradescope-results`, which is this; grader/README.md, Gradescope. */
#ifndef FLIPKIT_GRADESCOPE_H
#define FLIPKIT_GRADESCOPE_H

#include <stddef.h>

typedef struct {
    const char *report;         /* the hidden grading's report.json: the points */
    const char *public_report;  /* the self-check's report.json (--public --parts stages), or
                                 * NULL: shown to students at once, for no points */
    const char *log;            /* what the hidden grading printed, or NULL: its last lines
                                 * say why when there is no report */
    const char *visibility;     /* of the hidden cases' and scenes' tests: "after_published",
                                 * "after_due_date" or "hidden" (gradescope.hidden_visibility) */
    double max_points;          /* the config's total, for a results.json without a report */
} GradescopeInput;

/* Writes results.json to out (Gradescope's documented fields: top-level score, output,
 * execution_time, stdout_visibility and tests, each test with name, score, max_score,
 * status, output and visibility; every text format "text", so nothing is rendered as HTML).
 * One test per part of the report, its points and reason; one per stage of the public
 * report, visible, max_score 0. The top-level score is the report's total, or 0 with the
 * reason in output when there is no grade (no report, a report with status "error"). Every
 * text from a report is escape.h's text already (report.c); any byte that could still act on
 * a reader is escaped again, and the log's tail is escaped here. Returns 0 when out was
 * written (a grade or the reason there is none), or -1 with one line in err. */
int gradescope_write_results(const char *out, const GradescopeInput *in, char *err, size_t errlen);

#endif
