/* report.h — a GradeReport shown to people and kept for machines: table, JSON, HTML, CSV.
 * flipkit grader/: flipgrade prints the table and writes report.json and report.html into a
 * submission's report directory; grades.csv for a class is made from the report.json files. */
#ifndef FLIPKIT_REPORT_H
#define FLIPKIT_REPORT_H

#include <stddef.h>
#include <stdio.h>
#include "grade.h"
#include "gradebook.h"

/* Columns part, points, max, reason, then a total line; about 100 columns wide at most, a
 * long reason cut with "...". Control characters in names and reasons (they may come from a
 * student's output) are printed as '?', so they cannot move the cursor or recolour the
 * terminal. */
void report_print_table(FILE *f, const GradeReport *r);

/* report.json, keys always in this order (points, seconds, got and limit are numbers; a NaN
 * or infinite one is written as null):
 *   {"student", "submission", "mode", "seconds", "sandbox", "grader" (commit and binary
 *    hash), "config_hash", "data_hash", "variant": {"index", "key", "data_hash", "drawn"}
 *    (only when graded with per-student variants, variant.h), "graded_at" (UTC),
 *    "status": "graded"|"error",
 *    "errors": parts with status error, "total" (null when errors), "max", "full_marks": bool,
 *    "parts": [{"name", "kind": "stage"|"scene", "status": "graded"|"error" (the grader
 *               failed on it: no score), "points" (null for an error), "max", "total", "passed",
 *               "reason", "log": path or null,
 *               "first_fail": {"frame", "metric", "got", "limit"}  (failed scene parts only),
 *               "images": {"student", "reference", "diff"}         (only the ones set),
 *               "cases": [{"case", "passed": bool, "failure": "" or the case's first
 *                          failure}]           (stage parts that ran cases: each case run)}]}
 * (a case's keys are not a part's, so a reader that scans for "name" and "reason" lines, as
 * tests/check_grader.sh does, still finds the parts only)
 * full_marks is total >= max (within 1e-9) with max > 0. Text that is not valid UTF-8 is
 * written with its non-ASCII bytes as '?'. Written through a temporary file renamed into
 * place. Returns 0, or -1 with one line in err naming path. */
int report_write_json(const char *path, const GradeReport *r, char *err, size_t errlen);

/* A field of a report.json object read back (jansson's json_t): the string, "" when it is
 * missing or not a string; the number, missing when it is missing or not a number. */
struct json_t;
const char *report_json_str(const struct json_t *o, const char *key);
double report_json_num(const struct json_t *o, const char *key, double missing);

/* report.html: one page with inline CSS, no scripts and nothing fetched from elsewhere. The
 * parts table has a bar per part, the reason and a link to the failure log; each scene part
 * with images shows student | reference | difference for its first failing frame. The
 * images and logs are linked by their paths relative to the report directory, so the page
 * should sit in that directory. Every string from the report is HTML-escaped. Atomic write
 * and errors as report_write_json. */
int report_write_html(const char *path, const GradeReport *r, char *err, size_t errlen);
/* The same page to f (feedback.c measures it before it writes). Returns 0. */
int report_print_html(FILE *f, const GradeReport *r);

/* Writes body(f, ctx) to path.tmp, flushes it to disk and renames it into place, so a crash
 * leaves the old file or the new one, whole (the reports, grades.csv and render.c's PNGs).
 * body returns 0, or non-zero when it failed. Returns 0, or -1 with one line in err. */
int report_write_file(const char *path, int (*body)(FILE *, const void *), const void *ctx,
                      char *err, size_t errlen);

/* grades.csv from n report.json files, one row each in the given order:
 *   student,<part>,...,total,max,status
 * (student,variant,<part>,... when some report was graded with per-student variants: the
 * number of the variant each got, empty for a report without one)
 * with the parts the union of all reports' parts in first-seen order, an empty cell where a
 * report lacks a part or could not grade it (and an empty total then), numbers with one
 * decimal, status "graded" or "error" (some part is the grader's failure: no grade). RFC 4180: "\r\n" line ends, a field holding
 * a comma, a quote, CR or LF quoted with its quotes doubled, so every row has the header's
 * field count whatever a name holds. A text field a spreadsheet would take for a formula
 * (starting with =, +, -, @, TAB or CR) is quoted with an apostrophe first inside the quotes:
 * "'=1+1". A file that cannot be read or is not a report gives one line in err naming it, and
 * csv_path is left as it was. */
int report_write_class_csv(const char *csv_path, char *const json_paths[], int n, char *err,
                           size_t errlen);
/* Before csv_path is touched, every report must carry the first one's config_hash and
 * data_hash (a report without them counts as ""): else err names both files, -1. */

/* A gradebook's import CSV from n report.json files (gradebook.h): for GRADEBOOK_CANVAS
 *   Student,ID,SIS User ID,SIS Login ID,Section,<column>
 * with the submission's name under Student and its ids-file id under SIS User ID, the others
 * empty; for GRADEBOOK_MOODLE
 *   Student,ID,<column>
 * and in the last column the report's total with one decimal. A report goes in only when it
 * has a grade (status graded) and a line in the ids file; each other is named on warn, in one
 * line saying why, and counted in *left_out. Fields are quoted and formula-guarded as in
 * grades.csv, the student's name escaped first (escape.h). The same refusals as
 * report_write_class_csv (an unreadable report, another config or data hash) leave csv_path
 * as it was: -1 with one line in err. */
typedef struct {
    GradebookFormat format;            /* GRADEBOOK_CANVAS or GRADEBOOK_MOODLE */
    const GradebookIds *ids;
    const char *column;                /* the assignment's (Canvas) or grade's (Moodle) column */
} ReportGradebook;
int report_write_gradebook_csv(const char *csv_path, char *const json_paths[], int n, const ReportGradebook *gb,
                               FILE *warn, int *left_out, char *err, size_t errlen);

/* One line on n reports, for the end of a class run: how many, graded, with errors, and each
 * part's mean over the reports that have a score for it, out of its max:
 *   "3 reports, 2 graded, 1 with errors; mean per part: advect 10.0/10.0, p2g 5.0/10.0, ..."
 * Returns 0, or -1 with one line in err. */
int report_class_summary(FILE *f, char *const json_paths[], int n, char *err, size_t errlen);

#endif
