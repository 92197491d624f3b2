/* gradescope.c — Gradescope's results.json from flipgrade's report.json.
 * flipkit grader/: the fields are those of Gradescope's autograder specification (cited in
 * grader/README.md, Gradescope); the points and reasons are the report's, nothing regraded. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "gradescope.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"
#include "grade.h"
#include "report.h"

#define GRADESCOPE_FULL_EPS 1e-9      /* as report.c: this close to max is full marks */
#define GRADESCOPE_LOG_TAIL 2048      /* bytes of the grading's output shown without a report */
#define GRADESCOPE_JSON_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))

/* ---- text ------------------------------------------------------------------------------------- */

/* Whether s holds a byte that could act on a reader: a C0 control but newline, DEL, a C1
 * control (U+0080-009F) or a bidi override or isolate. report.c escaped all of these already;
 * a report made elsewhere might not have. */
static bool gradescope_raw(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p < 0x20 && *p != '\n') || *p == 0x7f)
            return true;
        if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
            return true;
        if (p[0] == 0xe2 && ((p[1] == 0x80 && p[2] >= 0xaa && p[2] <= 0xae) ||
                             (p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9)))
            return true;
    }
    return false;
}

/* A JSON string of s as text a reader sees as it is: s itself when it is clean, else escaped. */
static json_t *gradescope_jtext(const char *s)
{
    if (!s)
        s = "";
    if (!gradescope_raw(s))
        return json_string(s);
    char *t = escape_dup(s, strlen(s), 6 * strlen(s) + 1, ESCAPE_KEEP_NEWLINES, NULL);
    json_t *j = t ? json_string(t) : NULL;
    free(t);
    return j;
}

/* One decimal, halves away from zero, as report.c prints marks. */
static const char *gradescope_fmt(char buf[32], double v)
{
    snprintf(buf, 32, "%.1f", isfinite(v) && fabs(v) < 1e15 ? round(v * 10) / 10 : v);
    return strcmp(buf, "-0.0") == 0 ? "0.0" : buf;
}

static const char *gradescope_when(const char *visibility)
{
    return strcmp(visibility, "after_due_date") == 0 ? "after the due date"
         : strcmp(visibility, "hidden") == 0 ? "never (your instructor shows you the total)"
                                              : "when your instructor publishes the grades";
}

/* ---- reading a report ------------------------------------------------------------------------- */

static json_t *gradescope_load(const char *path, char *err, size_t errlen)
{
    if (access(path, F_OK) != 0) {   /* the usual case, said without this machine's paths */
        snprintf(err, errlen, "flipgrade wrote no report");
        return NULL;
    }
    json_error_t je;
    json_t *r = json_load_file(path, 0, &je);
    if (!r) {
        snprintf(err, errlen, "%s:%d: not a report (%s)", path, je.line, je.text);
        return NULL;
    }
    if (!json_is_object(r) || !json_is_array(json_object_get(r, "parts")) ||
        !json_is_string(json_object_get(r, "status"))) {
        snprintf(err, errlen, "%s: not a flipgrade report.json (no \"parts\" or \"status\")", path);
        json_decref(r);
        return NULL;
    }
    return r;
}

static double gradescope_num(const json_t *o, const char *key)
{
    return report_json_num(o, key, 0.0);
}

/* ---- tests ------------------------------------------------------------------------------------ */

/* The test's output: the reason (it names the stage, field, first differing place, expected
 * and got, and the case), then what was counted, and a failing scene's first frame. */
static json_t *gradescope_part_output(const json_t *p, bool scene, bool error)
{
    char counts[256] = "", frame[GRADE_NAME_MAX + 160] = "";
    if (!error)
        snprintf(counts, sizeof counts, "\n%lld of %lld %s passed.",
                 (long long)gradescope_num(p, "passed"), (long long)gradescope_num(p, "total"),
                 scene ? "frames" : "cases");
    const json_t *ff = json_object_get(p, "first_fail");
    if (scene && json_is_object(ff) && *report_json_str(ff, "metric"))
        snprintf(frame, sizeof frame, "\nFirst failing frame %lld: %s %.3g (limit %.3g).",
                 (long long)gradescope_num(ff, "frame"), report_json_str(ff, "metric"),
                 gradescope_num(ff, "got"), gradescope_num(ff, "limit"));
    const char *reason = report_json_str(p, "reason");
    size_t n = strlen(reason) + strlen(counts) + strlen(frame) + 1;
    char *text = malloc(n);
    if (!text)
        return NULL;
    snprintf(text, n, "%s%s%s", reason, counts, frame);
    json_t *j = gradescope_jtext(text);
    free(text);
    return j;
}

/* Sets key to val (taking it), remembering in *bad a value that could not be made. */
static void gradescope_set(json_t *obj, const char *key, json_t *val, bool *bad)
{
    if (!val || json_object_set_new(obj, key, val) != 0)
        *bad = true;
}

/* One part of a report as a test. Public parts carry no points (the hidden grading has them):
 * their score and max_score are 0 and their status says whether the stage passed. */
static json_t *gradescope_test(const json_t *p, bool public_part, const char *visibility, bool *bad)
{
    json_t *t = json_object();
    if (!t) {
        *bad = true;
        return NULL;
    }
    bool scene = strcmp(report_json_str(p, "kind"), "scene") == 0;
    bool error = strcmp(report_json_str(p, "status"), "error") == 0;
    double points = error ? 0.0 : gradescope_num(p, "points"), max = gradescope_num(p, "max");
    bool passed = !error && points >= max - GRADESCOPE_FULL_EPS;
    char name[GRADE_NAME_MAX * 2 + 48];
    snprintf(name, sizeof name, "%s (%s)", report_json_str(p, "name"),
             public_part ? "public cases, no points" : scene ? "whole scene" : "hidden cases");
    gradescope_set(t, "name", gradescope_jtext(name), bad);
    gradescope_set(t, "name_format", json_string("text"), bad);
    gradescope_set(t, "score", json_real(public_part ? 0.0 : points), bad);
    gradescope_set(t, "max_score", json_real(public_part ? 0.0 : max), bad);
    gradescope_set(t, "status", json_string(passed ? "passed" : "failed"), bad);
    gradescope_set(t, "output", gradescope_part_output(p, scene, error), bad);
    gradescope_set(t, "output_format", json_string("text"), bad);
    gradescope_set(t, "visibility", json_string(public_part ? "visible" : visibility), bad);
    return t;
}

/* Every stage part of the public report, then every part of the hidden one. */
static void gradescope_add_tests(json_t *tests, const json_t *hidden, const json_t *pub,
                                 const char *visibility, bool *bad)
{
    const json_t *reports[2] = { pub, hidden };
    for (int k = 0; k < 2; k++) {
        const json_t *parts = json_object_get(reports[k], "parts");
        for (size_t i = 0; reports[k] && i < json_array_size(parts); i++) {
            const json_t *p = json_array_get(parts, i);
            if (!json_is_object(p) || (k == 0 && strcmp(report_json_str(p, "kind"), "stage") != 0))
                continue;
            json_t *t = gradescope_test(p, k == 0, visibility, bad);
            if (!t || json_array_append_new(tests, t) != 0)
                *bad = true;
        }
    }
}

/* ---- no report: the reason, from the grading's own last words ---------------------------------- */

/* The last GRADESCOPE_LOG_TAIL bytes of the grading's output, escaped; "" without one. */
static char *gradescope_log_tail(const char *log)
{
    FILE *f = log ? fopen(log, "rb") : NULL;
    char buf[GRADESCOPE_LOG_TAIL];
    size_t got = 0;
    if (f) {
        if (fseek(f, 0, SEEK_END) == 0) {
            long size = ftell(f);
            fseek(f, size > GRADESCOPE_LOG_TAIL ? size - GRADESCOPE_LOG_TAIL : 0, SEEK_SET);
        }
        got = fread(buf, 1, sizeof buf, f);
        fclose(f);
    }
    return escape_dup(buf, got, 6 * sizeof buf, ESCAPE_KEEP_NEWLINES, NULL);
}

/* One failed test that says why there is no grade, with the points it would have had. */
static json_t *gradescope_failed_test(const char *why, const char *log, double max, bool *bad)
{
    json_t *t = json_object();
    char *tail = gradescope_log_tail(log);
    size_t n = strlen(why) + (tail ? strlen(tail) : 0) + 64;
    char *text = malloc(n);
    if (!t || !text) {
        *bad = true;
        free(tail);
        free(text);
        json_decref(t);
        return NULL;
    }
    snprintf(text, n, "%s%s%s", why, tail && *tail ? "\n\nThe grader's last words:\n" : "",
             tail ? tail : "");
    gradescope_set(t, "name", json_string("grading"), bad);
    gradescope_set(t, "name_format", json_string("text"), bad);
    gradescope_set(t, "score", json_real(0.0), bad);
    gradescope_set(t, "max_score", json_real(max), bad);
    gradescope_set(t, "status", json_string("failed"), bad);
    gradescope_set(t, "output", gradescope_jtext(text), bad);
    gradescope_set(t, "output_format", json_string("text"), bad);
    gradescope_set(t, "visibility", json_string("visible"), bad);
    free(tail);
    free(text);
    return t;
}

/* ---- results.json ----------------------------------------------------------------------------- */

/* The top-level summary line: the total and when the points' tests show, or why no grade. */
static void gradescope_summary(char *out, size_t n, const json_t *hidden, const char *why,
                               const GradescopeInput *in)
{
    char total[32], max[32];
    if (!hidden) {
        snprintf(out, n, "No grade: the autograder could not grade this submission (%s). Your "
                 "instructor sees why and can grade it again.", why);
        return;
    }
    if (strcmp(report_json_str(hidden, "status"), "graded") != 0) {
        snprintf(out, n, "No grade yet: the grader itself failed on %lld part(s), not your code; "
                 "your instructor will grade it again. The score 0 here is not a grade.",
                 (long long)gradescope_num(hidden, "errors"));
        return;
    }
    snprintf(out, n, "flipkit grader: %s / %s points. The tests marked \"public cases, no points\" "
             "are the self-check's cases (make grade in your kit), shown now; the hidden cases and "
             "whole scenes carry the points and are shown %s.",
             gradescope_fmt(total, gradescope_num(hidden, "total")),
             gradescope_fmt(max, gradescope_num(hidden, "max")), gradescope_when(in->visibility));
}

static int gradescope_body(FILE *f, const void *ctx)
{
    if (json_dumpf((const json_t *)ctx, f, GRADESCOPE_JSON_FLAGS) != 0)
        return -1;
    return fputc('\n', f) == EOF ? -1 : 0;
}

int gradescope_write_results(const char *out, const GradescopeInput *in, char *err, size_t errlen)
{
    char why[1024] = "";
    json_t *hidden = gradescope_load(in->report, why, sizeof why);
    json_t *pub = hidden && in->public_report ? gradescope_load(in->public_report, err, errlen) : NULL;
    bool graded = hidden && strcmp(report_json_str(hidden, "status"), "graded") == 0;
    json_t *root = json_object(), *tests = json_array();
    bool bad = !root || !tests;
    char summary[2048];
    gradescope_summary(summary, sizeof summary, hidden, why, in);
    gradescope_set(root, "score", json_real(graded ? gradescope_num(hidden, "total") : 0.0), &bad);
    gradescope_set(root, "execution_time",
                   json_integer(hidden ? (json_int_t)ceil(gradescope_num(hidden, "seconds")) : 0), &bad);
    gradescope_set(root, "output", gradescope_jtext(summary), &bad);
    gradescope_set(root, "output_format", json_string("text"), &bad);
    gradescope_set(root, "test_output_format", json_string("text"), &bad);
    gradescope_set(root, "test_name_format", json_string("text"), &bad);
    gradescope_set(root, "stdout_visibility", json_string("hidden"), &bad);  /* flipgrade's
                                                      * table there quotes the hidden cases */
    if (hidden)
        gradescope_add_tests(tests, hidden, pub, in->visibility, &bad);
    else {
        json_t *t = gradescope_failed_test(why, in->log, in->max_points, &bad);
        if (!t || json_array_append_new(tests, t) != 0)
            bad = true;
    }
    gradescope_set(root, "tests", tests, &bad);
    int rc = -1;
    if (bad)
        snprintf(err, errlen, "%s: out of memory building results.json", out);
    else
        rc = report_write_file(out, gradescope_body, root, err, errlen);
    json_decref(root);
    json_decref(hidden);
    json_decref(pub);
    return rc;
}
