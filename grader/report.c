/* report.c — a GradeReport as a terminal table, report.json, report.html, and grades.csv.
 * flipkit grader/: reasons may quote a student's output, so every string is treated as
 * untrusted: shown as escape.h's text everywhere (and HTML-escaped on top in the HTML). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* fileno, fsync, strnlen */
#endif
#include "report.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic.h"
#include "escape.h"
#include "fileerr.h"

#define REPORT_TABLE_COLS 100   /* the table fits a 100-column terminal */
#define REPORT_NAME_COLS 30     /* the part column is at most this wide */
#define REPORT_MIN_REASON 20
#define REPORT_FULL_EPS 1e-9    /* points this close to max count as full marks */
#define REPORT_JSON_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))

/* ---- small helpers ------------------------------------------------------------------- */

/* The report's strings are fixed arrays; never read past one even if it lacks its NUL. */
#define REPORT_LEN(field) strnlen((field), sizeof(field))

static int report_nparts(const GradeReport *r)
{
    return r->nparts < 0 ? 0 : r->nparts > GRADE_MAX_PARTS ? GRADE_MAX_PARTS : r->nparts;
}

/* One decimal with halves rounded away from zero, as people expect of marks (printf alone
 * would print 2.25 as 2.2), and never "-0.0" (-0.04 is no reason to print a minus). */
static const char *report_fmt1(char buf[32], double v)
{
    snprintf(buf, 32, "%.1f", isfinite(v) && fabs(v) < 1e15 ? round(v * 10) / 10 : v);
    if (strcmp(buf, "-0.0") == 0)
        strcpy(buf, "0.0");
    return buf;
}

static bool report_full(double points, double max)
{
    return points >= max - REPORT_FULL_EPS;
}

/* Characters in the UTF-8 text s (len bytes): bytes that do not continue a sequence. Used on
 * escaped text only, which is well-formed. */
static size_t report_chars(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

/* Columns s (len bytes) takes once escaped (escape.h): one per character of the escaped text. */
static size_t report_columns(const char *s, size_t len)
{
    size_t cols = 0;
    for (size_t i = 0, k; i < len; i += k) {
        char one[16];
        cols += report_chars(one, escape_char(s + i, len - i, 0, one, &k));
    }
    return cols;
}

static void report_put_html_char(FILE *f, unsigned char c)
{
    switch (c) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    case '\'': fputs("&#39;", f); break;
    default: fputc(c, f);
    }
}

/* Writes s (len bytes) to f as escape_text shows it (a control byte, C1, malformed UTF-8 or a
 * bidi override as \x1b-style text: the same text the logs show), at most max_cols columns,
 * the last three of them "..." when it is cut (never inside an escape); HTML-escaped when html
 * is set. Returns the number of columns written. */
static size_t report_put_text(FILE *f, const char *s, size_t len, size_t max_cols, bool html)
{
    size_t keep = report_columns(s, len);
    bool cut = keep > max_cols;
    if (cut)
        keep = max_cols > 3 ? max_cols - 3 : 0;
    size_t cols = 0;
    for (size_t i = 0, k; i < len; i += k) {
        char one[16];
        size_t m = escape_char(s + i, len - i, 0, one, &k), c = report_chars(one, m);
        if (cols + c > keep)
            break;
        for (size_t q = 0; q < m; q++)
            if (html && m == c) /* ASCII only: a multi-byte character is never markup */
                report_put_html_char(f, (unsigned char)one[q]);
            else
                fputc(one[q], f);
        cols += c;
    }
    if (cut) {
        fputs(max_cols >= 3 ? "..." : "", f);
        cols += max_cols >= 3 ? 3 : 0;
    }
    return cols;
}

typedef struct { int (*body)(FILE *, const void *); const void *ctx; } ReportBody;

static int report_body(FILE *f, const void *rb, char *why, size_t whylen)
{
    (void)why, (void)whylen;
    const ReportBody *b = rb;
    return b->body(f, b->ctx);
}

/* A report is the record of a grade: durable, flushed to disk before the rename. */
int report_write_file(const char *path, int (*body)(FILE *, const void *), const void *ctx,
                      char *err, size_t errlen)
{
    ReportBody b = { body, ctx };
    char why[600];
    if (atomic_write(path, true, report_body, &b, why, sizeof why) == 0)
        return 0;
    fileerr_set(err, errlen, path, "%s", why);
    return -1;
}

/* ---- the terminal table -------------------------------------------------------------- */

static void report_pad(FILE *f, size_t n)
{
    while (n-- > 0)
        fputc(' ', f);
}

static void report_table_row(FILE *f, const char *name, size_t namelen, size_t name_cols,
                             const char *points, const char *max, const char *reason,
                             size_t reasonlen, size_t reason_cols)
{
    report_pad(f, name_cols - report_put_text(f, name, namelen, name_cols, false));
    fprintf(f, "  %6s  %6s", points, max);
    if (reasonlen > 0) {
        fputs("  ", f);
        report_put_text(f, reason, reasonlen, reason_cols, false);
    }
    fputc('\n', f);
}

static void report_rule(FILE *f, size_t cols)
{
    for (size_t i = 0; i < cols; i++)
        fputc('-', f);
    fputc('\n', f);
}

void report_print_table(FILE *f, const GradeReport *r)
{
    int np = report_nparts(r);
    size_t name_cols = strlen("total");
    for (int i = 0; i < np; i++) {
        size_t c = report_columns(r->parts[i].name, REPORT_LEN(r->parts[i].name));
        name_cols = c > name_cols ? c : name_cols;
    }
    name_cols = name_cols > REPORT_NAME_COLS ? REPORT_NAME_COLS : name_cols;
    size_t fixed = name_cols + 2 + 6 + 2 + 6 + 2;
    size_t reason_cols = REPORT_TABLE_COLS - fixed;
    reason_cols = reason_cols < REPORT_MIN_REASON ? REPORT_MIN_REASON : reason_cols;

    report_table_row(f, "part", 4, name_cols, "points", "max", "reason", 6, reason_cols);
    report_rule(f, fixed + reason_cols);
    for (int i = 0; i < np; i++) {
        const GradePart *p = &r->parts[i];
        char pts[32], max[32];
        report_table_row(f, p->name, REPORT_LEN(p->name), name_cols,
                         p->error ? "error" : report_fmt1(pts, p->points),
                         report_fmt1(max, p->max), p->reason, REPORT_LEN(p->reason),
                         reason_cols);
    }
    report_rule(f, fixed + reason_cols);
    char pts[32], max[32], why[96] = "";
    if (r->errors)
        textf(why, sizeof why, "no grade: %d part%s could not be graded (the grader's failure)",
              r->errors, r->errors == 1 ? "" : "s");
    report_table_row(f, "total", 5, name_cols, r->errors ? "error" : report_fmt1(pts, r->total),
                     report_fmt1(max, r->max), why, strlen(why), reason_cols);
}

/* ---- report.json --------------------------------------------------------------------- */

/* A JSON string of the field as escape_text shows it: the same text as the table and the
 * HTML, and always well-formed UTF-8, which jansson insists on. */
static json_t *report_jstr(const char *s, size_t len)
{
    char *text = escape_dup(s, len, 6 * len, 0, NULL); /* an escape is at most 6 bytes per byte */
    if (!text)
        return NULL;
    json_t *j = json_string(text);
    free(text);
    return j;
}

#define REPORT_JSTR(field) report_jstr((field), REPORT_LEN(field))

static json_t *report_jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* Sets key to val (taking it), remembering in *bad a value that could not be made. */
static void report_set(json_t *obj, const char *key, json_t *val, bool *bad)
{
    if (!val || json_object_set_new(obj, key, val) != 0)
        *bad = true;
}

static json_t *report_json_fail(const GradeFrameFail *ff, bool *bad)
{
    json_t *o = json_object();
    if (!o) {
        *bad = true;
        return NULL;
    }
    report_set(o, "frame", json_integer(ff->frame), bad);
    report_set(o, "metric", REPORT_JSTR(ff->metric), bad);
    report_set(o, "got", report_jnum(ff->got), bad);
    report_set(o, "limit", report_jnum(ff->limit), bad);
    return o;
}

static bool report_has_images(const GradePart *p)
{
    return p->image_student[0] || p->image_reference[0] || p->image_diff[0];
}

static json_t *report_json_images(const GradePart *p, bool *bad)
{
    json_t *o = json_object();
    if (!o) {
        *bad = true;
        return NULL;
    }
    if (p->image_student[0])
        report_set(o, "student", REPORT_JSTR(p->image_student), bad);
    if (p->image_reference[0])
        report_set(o, "reference", REPORT_JSTR(p->image_reference), bad);
    if (p->image_diff[0])
        report_set(o, "diff", REPORT_JSTR(p->image_diff), bad);
    return o;
}

static json_t *report_json_cases(const GradePart *p, bool *bad)
{
    json_t *a = json_array();
    for (int i = 0; a && i < p->ncases; i++) {
        const GradeCase *c = &p->cases[i];
        json_t *o = json_object();
        if (!o || json_array_append_new(a, o) != 0) {
            *bad = true;
            break;
        }
        report_set(o, "case", REPORT_JSTR(c->name), bad);
        report_set(o, "passed", json_boolean(c->passed), bad);
        report_set(o, "failure", REPORT_JSTR(c->reason), bad);
    }
    if (!a)
        *bad = true;
    return a;
}

static json_t *report_json_part(const GradePart *p, bool *bad)
{
    json_t *o = json_object();
    if (!o) {
        *bad = true;
        return NULL;
    }
    report_set(o, "name", REPORT_JSTR(p->name), bad);
    report_set(o, "kind", json_string(p->is_scene ? "scene" : "stage"), bad);
    report_set(o, "status", json_string(p->error ? "error" : "graded"), bad);
    report_set(o, "points", p->error ? json_null() : report_jnum(p->points), bad);
    report_set(o, "max", report_jnum(p->max), bad);
    report_set(o, "total", json_integer(p->total), bad);
    report_set(o, "passed", json_integer(p->passed), bad);
    report_set(o, "reason", REPORT_JSTR(p->reason), bad);
    report_set(o, "log", p->detail_log[0] ? REPORT_JSTR(p->detail_log) : json_null(), bad);
    if (p->is_scene && p->passed < p->total)
        report_set(o, "first_fail", report_json_fail(&p->first_fail, bad), bad);
    if (report_has_images(p))
        report_set(o, "images", report_json_images(p, bad), bad);
    if (p->ncases > 0)
        report_set(o, "cases", report_json_cases(p, bad), bad);
    return o;
}

/* Which variant the student got (variant.h): its number, the key naming its data, that data's
 * hash and what was drawn. */
static json_t *report_json_variant(const GradeReport *r, bool *bad)
{
    json_t *o = json_object();
    if (!o) {
        *bad = true;
        return NULL;
    }
    report_set(o, "index", json_integer(r->variant), bad);
    report_set(o, "key", REPORT_JSTR(r->variant_key), bad);
    report_set(o, "data_hash", REPORT_JSTR(r->variant_data_hash), bad);
    report_set(o, "drawn", REPORT_JSTR(r->variant_drawn), bad);
    return o;
}

static json_t *report_json(const GradeReport *r)
{
    bool bad = false;
    json_t *root = json_object();
    json_t *parts = json_array();
    if (!root || !parts) {
        json_decref(root);
        json_decref(parts);
        return NULL;
    }
    report_set(root, "student", REPORT_JSTR(r->student), &bad);
    report_set(root, "submission", REPORT_JSTR(r->submission), &bad);
    report_set(root, "mode", REPORT_JSTR(r->mode), &bad);
    report_set(root, "seconds", report_jnum(r->seconds), &bad);
    report_set(root, "sandbox", REPORT_JSTR(r->sandbox), &bad);
    report_set(root, "grader", REPORT_JSTR(r->grader), &bad);
    report_set(root, "config_hash", REPORT_JSTR(r->config_hash), &bad);
    report_set(root, "data_hash", REPORT_JSTR(r->data_hash), &bad);
    if (r->has_variant)   /* only with variants on: a report without them reads as before */
        report_set(root, "variant", report_json_variant(r, &bad), &bad);
    report_set(root, "graded_at", REPORT_JSTR(r->graded_at), &bad);
    report_set(root, "status", json_string(r->errors ? "error" : "graded"), &bad);
    report_set(root, "errors", json_integer(r->errors), &bad);
    report_set(root, "total", r->errors ? json_null() : report_jnum(r->total), &bad);
    report_set(root, "max", report_jnum(r->max), &bad);
    report_set(root, "full_marks", json_boolean(!r->errors && r->max > 0 && report_full(r->total, r->max)),
               &bad);
    for (int i = 0; i < report_nparts(r); i++) {
        json_t *p = report_json_part(&r->parts[i], &bad);
        if (!p || json_array_append_new(parts, p) != 0)
            bad = true;
    }
    report_set(root, "parts", parts, &bad);
    if (bad) {
        json_decref(root);
        return NULL;
    }
    return root;
}

static int report_json_body(FILE *f, const void *ctx)
{
    if (json_dumpf((const json_t *)ctx, f, REPORT_JSON_FLAGS) != 0)
        return -1;
    return fputc('\n', f) == EOF ? -1 : 0;
}

int report_write_json(const char *path, const GradeReport *r, char *err, size_t errlen)
{
    json_t *root = report_json(r);
    if (!root) {
        fileerr_set(err, errlen, path, "out of memory building the report");
        return -1;
    }
    int rc = report_write_file(path, report_json_body, root, err, errlen);
    json_decref(root);
    return rc;
}

/* ---- report.html --------------------------------------------------------------------- */

/* The legend colours are render.c's difference colours. */
static const char report_css[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;"
    "max-width:76em;padding:0 1em;color:#222}\n"
    "h1{font-size:1.5em;margin-bottom:.2em}\n"
    "h2{font-size:1.15em;margin-top:2em}\n"
    ".meta{color:#666;margin-top:0}\n"
    "table.parts{border-collapse:collapse;width:100%}\n"
    "table.parts th,table.parts td{border-bottom:1px solid #ddd;padding:.35em .6em;"
    "text-align:left;vertical-align:top}\n"
    "td.num,th.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}\n"
    ".bar{width:10em;height:.8em;background:#eee;border:1px solid #ccc;margin-top:.25em}\n"
    ".bar span{display:block;height:100%}\n"
    ".full .bar span{background:#2e7d32}\n"
    ".partial .bar span{background:#f9a825}\n"
    ".zero .bar span{background:#c62828}\n"
    "tr.error td{background:#fff3e0}\n"
    "tr.total td{font-weight:bold;border-top:2px solid #999;border-bottom:none}\n"
    ".reason{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em;"
    "overflow-wrap:anywhere}\n"
    ".trio{display:flex;gap:1em;flex-wrap:wrap}\n"
    ".trio figure{margin:0;flex:1 1 16em}\n"
    ".trio img{width:100%;image-rendering:pixelated;border:1px solid #ccc}\n"
    "figcaption{color:#555;font-size:.9em}\n"
    ".only-s{color:#d72626}.only-r{color:#2154c8}.both{color:#787878}\n";

#define REPORT_HTML(f, field) report_put_text((f), (field), REPORT_LEN(field), SIZE_MAX, true)

/* A relative path as an href or src: every byte but [A-Za-z0-9-._~/] percent-encoded, so
 * the value needs no HTML escaping and cannot become a javascript: or other URL scheme. */
static void report_put_url(FILE *f, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
            strchr("-._~/", c))
            fputc(c, f);
        else
            fprintf(f, "%%%02X", c);
    }
}

#define REPORT_URL(f, field) report_put_url((f), (field), REPORT_LEN(field))

static const char *report_status(double points, double max)
{
    if (report_full(points, max))
        return "full";
    return points > 0 ? "partial" : "zero";
}

static void report_html_bar(FILE *f, double points, double max)
{
    double pct = max > 0 && isfinite(points) ? 100.0 * points / max : 0;
    pct = pct < 0 ? 0 : pct > 100 ? 100 : pct;
    fprintf(f, "<div class=\"bar\"><span style=\"width:%.0f%%\"></span></div>", pct);
}

static void report_html_head(FILE *f, const GradeReport *r)
{
    char tot[32], max[32];
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<title>flipkit grade: ", f);
    REPORT_HTML(f, r->student);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", report_css);
    REPORT_HTML(f, r->student);
    fprintf(f, ": %s / %s</h1>\n<p class=\"meta\">Submission <code>", report_fmt1(tot, r->total),
            report_fmt1(max, r->max));
    REPORT_HTML(f, r->submission);
    fputs("</code> &middot; mode ", f);
    REPORT_HTML(f, r->mode);
    fprintf(f, " &middot; graded in %.1f s</p>\n<p class=\"meta\">Sandbox: ", r->seconds);
    REPORT_HTML(f, r->sandbox);
    fputs("</p>\n", f);
    if (r->has_variant) {
        fprintf(f, "<p class=\"meta\" id=\"variant\">Hidden cases and scenes of variant %d (data <code>", r->variant);
        REPORT_HTML(f, r->variant_key);
        fputs("</code>): ", f);
        REPORT_HTML(f, r->variant_drawn);
        fputs("</p>\n", f);
    }
}

/* A part with full marks has a log only for what its program printed. */
static void report_html_log_link(FILE *f, const GradePart *p)
{
    if (!p->detail_log[0])
        return;
    fputs(" <a href=\"", f);
    REPORT_URL(f, p->detail_log);
    fputs(report_full(p->points, p->max) ? "\">log of what it printed</a>" : "\">failure log</a>", f);
}

static void report_html_row(FILE *f, const GradePart *p, int index)
{
    char pts[32], max[32];
    fprintf(f, "<tr class=\"%s\"><td>", p->error ? "error" : report_status(p->points, p->max));
    REPORT_HTML(f, p->name);
    fprintf(f, "</td><td>%s</td><td class=\"num\">%s / %s", p->is_scene ? "scene" : "stage",
            p->error ? "error" : report_fmt1(pts, p->points), report_fmt1(max, p->max));
    report_html_bar(f, p->points, p->max);
    fprintf(f, "</td><td class=\"num\">%d / %d %s</td><td><span class=\"reason\">", p->passed,
            p->total, p->is_scene ? "frames" : "cases");
    REPORT_HTML(f, p->reason);
    fputs("</span>", f);
    report_html_log_link(f, p);
    if (p->is_scene && report_has_images(p))
        fprintf(f, " <a href=\"#scene-%d\">pictures</a>", index);
    fputs("</td></tr>\n", f);
}

static void report_html_table(FILE *f, const GradeReport *r)
{
    char tot[32], max[32];
    fputs("<table class=\"parts\">\n<thead><tr><th>part</th><th>kind</th>"
          "<th class=\"num\">points</th><th class=\"num\">passed</th><th>reason</th></tr>"
          "</thead>\n<tbody>\n", f);
    for (int i = 0; i < report_nparts(r); i++)
        report_html_row(f, &r->parts[i], i);
    fprintf(f, "<tr class=\"total %s\"><td>total</td><td></td><td class=\"num\">%s / %s",
            r->errors ? "error" : report_status(r->total, r->max),
            r->errors ? "no grade" : report_fmt1(tot, r->total), report_fmt1(max, r->max));
    report_html_bar(f, r->total, r->max);
    fputs("</td><td></td><td></td></tr>\n</tbody>\n</table>\n", f);
}

static void report_html_figure(FILE *f, const char *src, size_t srclen, const char *alt,
                               int frame, const char *caption)
{
    if (srclen == 0)
        return;
    fputs("<figure><img src=\"", f);
    report_put_url(f, src, srclen);
    fprintf(f, "\" alt=\"%s, frame %d\"><figcaption>%s</figcaption></figure>\n", alt, frame,
            caption);
}

static void report_html_scene(FILE *f, const GradePart *p, int index)
{
    const GradeFrameFail *ff = &p->first_fail;
    fprintf(f, "<h2 id=\"scene-%d\">", index);
    REPORT_HTML(f, p->name);
    fputs("</h2>\n<p>", f);
    if (p->passed < p->total) {
        fprintf(f, "First failing frame <b>%d</b>: <b>", ff->frame);
        REPORT_HTML(f, ff->metric);
        fprintf(f, "</b> was %.4g, limit %.4g.", ff->got, ff->limit);
    }
    report_html_log_link(f, p);
    if (p->view[0]) { /* the run itself, in 3D beside the reference's (common/viewer/) */
        fputs("</p>\n<p>Scrub it in 3D beside the reference, from the kit's directory: <code>", f);
        REPORT_HTML(f, p->view);
        fputs("</code>", f);
    }
    fputs("</p>\n<div class=\"trio\">\n", f);
    report_html_figure(f, p->image_student, REPORT_LEN(p->image_student), "student", ff->frame,
                       "student");
    report_html_figure(f, p->image_reference, REPORT_LEN(p->image_reference), "reference",
                       ff->frame, "reference");
    report_html_figure(f, p->image_diff, REPORT_LEN(p->image_diff), "difference", ff->frame,
                       "difference: <span class=\"only-s\">&#9632; student only</span> "
                       "<span class=\"only-r\">&#9632; reference only</span> "
                       "<span class=\"both\">&#9632; both</span>");
    fputs("</div>\n", f);
}

static int report_html_body(FILE *f, const void *ctx)
{
    const GradeReport *r = ctx;
    report_html_head(f, r);
    report_html_table(f, r);
    for (int i = 0; i < report_nparts(r); i++)
        if (r->parts[i].is_scene && report_has_images(&r->parts[i]))
            report_html_scene(f, &r->parts[i], i);
    fputs("</body>\n</html>\n", f);
    return 0;
}

int report_print_html(FILE *f, const GradeReport *r)
{
    return report_html_body(f, r);
}

int report_write_html(const char *path, const GradeReport *r, char *err, size_t errlen)
{
    return report_write_file(path, report_html_body, r, err, errlen);
}

/* ---- grades.csv ---------------------------------------------------------------------- */

typedef struct {
    json_t **roots;    /* one loaded report.json per row */
    int n;
    const char **cols; /* part names in first-seen order; they point into roots */
    size_t ncols;
} ReportClass;

static void report_class_free(ReportClass *c)
{
    for (int i = 0; i < c->n; i++)
        json_decref(c->roots[i]);
    free(c->roots);
    free(c->cols);
}

static bool report_num_or_null(const json_t *v)
{
    return v && (json_is_number(v) || json_is_null(v));
}

/* Checks the fields grades.csv uses; says which one is wrong. */
static int report_check_json(const json_t *root, const char *path, char *err, size_t errlen)
{
    const char *what = NULL;
    const json_t *parts = json_object_get(root, "parts");
    if (!json_is_object(root))
        what = "the top level is not an object";
    else if (!json_is_string(json_object_get(root, "student")))
        what = "no \"student\" string";
    else if (!report_num_or_null(json_object_get(root, "total")))
        what = "no \"total\" number";
    else if (!report_num_or_null(json_object_get(root, "max")))
        what = "no \"max\" number";
    else if (!json_is_array(parts))
        what = "no \"parts\" array";
    if (what) {
        fileerr_set(err, errlen, path, "not a flipkit report: %s", what);
        return -1;
    }
    for (size_t i = 0; i < json_array_size(parts); i++) {
        const json_t *p = json_array_get(parts, i);
        if (!json_is_string(json_object_get(p, "name")))
            what = "has no \"name\" string";
        else if (!report_num_or_null(json_object_get(p, "points")))
            what = "has no \"points\" number";
        if (what) {
            fileerr_set(err, errlen, path, "not a flipkit report: parts[%zu] %s", i, what);
            return -1;
        }
    }
    return 0;
}

static json_t *report_load(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fileerr_set(err, errlen, path, "cannot open: %s", strerror(errno));
        return NULL;
    }
    json_error_t jerr;
    json_t *root = json_loadf(f, 0, &jerr);
    fclose(f);
    if (!root) {
        fileerr_set(err, errlen, path, "line %d column %d: %s", jerr.line, jerr.column,
                      jerr.text);
        return NULL;
    }
    if (report_check_json(root, path, err, errlen) != 0) {
        json_decref(root);
        return NULL;
    }
    return root;
}

static int report_find_col(const ReportClass *c, const char *name)
{
    for (size_t i = 0; i < c->ncols; i++)
        if (strcmp(c->cols[i], name) == 0)
            return (int)i;
    return -1;
}

/* Adds the report's part names not seen before, in its order. */
static int report_add_cols(ReportClass *c, const json_t *root)
{
    const json_t *parts = json_object_get(root, "parts");
    for (size_t i = 0; i < json_array_size(parts); i++) {
        const char *name = json_string_value(json_object_get(json_array_get(parts, i), "name"));
        if (report_find_col(c, name) >= 0)
            continue;
        const char **grown = realloc(c->cols, (c->ncols + 1) * sizeof *grown);
        if (!grown)
            return -1;
        c->cols = grown;
        c->cols[c->ncols++] = name;
    }
    return 0;
}

/* Whether a spreadsheet could take the field for a formula: =, +, - and @ start one, and some
 * readers drop a leading TAB or CR before they look, so those count too. */
static bool report_csv_guarded(const char *s)
{
    return *s && strchr("=+-@\t\r", *s) != NULL;
}

/* A field as RFC 4180 writes it: quoted when it holds a comma, a quote or a line break, its
 * quotes doubled. A field a spreadsheet would run as a formula is quoted too, with an
 * apostrophe as its first character INSIDE the quotes: outside them it would end up as a
 * field of its own text before the quote, and the quoted rest would split at its commas. */
static void report_csv_field(FILE *f, const char *s)
{
    bool guard = report_csv_guarded(s);
    if (!guard && !strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    if (guard)
        fputc('\'', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* A number with one decimal, or nothing for a missing or null one. */
static void report_csv_number(FILE *f, const json_t *v)
{
    char buf[32];
    if (json_is_number(v))
        fputs(report_fmt1(buf, json_number_value(v)), f);
}

static const json_t *report_part_named(const json_t *root, const char *name)
{
    const json_t *parts = json_object_get(root, "parts");
    for (size_t i = 0; i < json_array_size(parts); i++) {
        const json_t *p = json_array_get(parts, i);
        if (strcmp(json_string_value(json_object_get(p, "name")), name) == 0)
            return p;
    }
    return NULL;
}

/* "graded", or "error" when the report says some part could not be graded (its score and
 * the total are then empty): a gradebook must not take the row for a grade. A report from
 * before the status existed was graded. */
static const char *report_csv_status(const json_t *root)
{
    const char *st = json_string_value(json_object_get(root, "status"));
    return st && strcmp(st, "error") == 0 ? "error" : "graded";
}

/* The variant a report's student got (its number, or "" without one). */
static void report_csv_variant(FILE *f, const json_t *root)
{
    const json_t *v = json_object_get(json_object_get(root, "variant"), "index");
    if (json_is_integer(v))
        fprintf(f, "%lld", (long long)json_integer_value(v));
}

/* Whether any report was graded with per-student variants: then the CSV says which each got. */
static bool report_csv_has_variants(const ReportClass *c)
{
    for (int i = 0; i < c->n; i++)
        if (json_object_get(c->roots[i], "variant"))
            return true;
    return false;
}

static int report_csv_body(FILE *f, const void *ctx)
{
    const ReportClass *c = ctx;
    bool variants = report_csv_has_variants(c);
    fputs(variants ? "student,variant" : "student", f);
    for (size_t k = 0; k < c->ncols; k++) {
        fputc(',', f);
        report_csv_field(f, c->cols[k]);
    }
    fputs(",total,max,status\r\n", f);
    for (int i = 0; i < c->n; i++) {
        const json_t *root = c->roots[i];
        report_csv_field(f, json_string_value(json_object_get(root, "student")));
        if (variants) {
            fputc(',', f);
            report_csv_variant(f, root);
        }
        for (size_t k = 0; k < c->ncols; k++) {
            fputc(',', f);
            report_csv_number(f, json_object_get(report_part_named(root, c->cols[k]), "points"));
        }
        fputc(',', f);
        report_csv_number(f, json_object_get(root, "total"));
        fputc(',', f);
        report_csv_number(f, json_object_get(root, "max"));
        fputc(',', f);
        report_csv_field(f, report_csv_status(root));
        fputs("\r\n", f);
    }
    return 0;
}

/* A report's hash of what it was graded with ("" when it has none: written before hashes). */
static const char *report_hash(const json_t *root, const char *key)
{
    const char *h = json_string_value(json_object_get(root, key));
    return h ? h : "";
}

/* One CSV holds grades made under one config and one set of reference data: a report whose
 * hashes differ from the first report's is refused, naming both files. */
static int report_same_grading(const ReportClass *c, char *const json_paths[], char *err,
                               size_t errlen)
{
    static const char *const keys[] = { "config_hash", "data_hash" };
    for (int i = 1; i < c->n; i++)
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            const char *a = report_hash(c->roots[0], keys[k]), *b = report_hash(c->roots[i], keys[k]);
            if (strcmp(a, b) == 0)
                continue;
            fileerr_set(err, errlen, json_paths[i], "graded with another %s than %s (%s \"%s\", not "
                        "\"%s\"): one CSV holds one grading; grade them again under one config "
                        "(nothing written)", k == 0 ? "config" : "reference data", json_paths[0],
                        keys[k], b, a);
            return -1;
        }
    return 0;
}

int report_write_class_csv(const char *csv_path, char *const json_paths[], int n, char *err,
                           size_t errlen)
{
    if (n < 0 || (n > 0 && !json_paths)) {
        fileerr_set(err, errlen, csv_path, "no list of report files");
        return -1;
    }
    ReportClass c = { 0 };
    c.roots = calloc((size_t)n + 1, sizeof *c.roots);
    if (!c.roots) {
        fileerr_set(err, errlen, csv_path, "out of memory");
        return -1;
    }
    int rc = 0;
    /* Everything is read and checked before csv_path is touched. */
    for (; c.n < n && rc == 0; c.n++) {
        c.roots[c.n] = report_load(json_paths[c.n], err, errlen);
        if (!c.roots[c.n])
            rc = -1;
        else if (report_add_cols(&c, c.roots[c.n]) != 0) {
            fileerr_set(err, errlen, csv_path, "out of memory");
            rc = -1;
        }
    }
    if (rc == 0)
        rc = report_same_grading(&c, json_paths, err, errlen);
    if (rc == 0)
        rc = report_write_file(csv_path, report_csv_body, &c, err, errlen);
    report_class_free(&c);
    return rc;
}

/* ---- a gradebook's CSV (Canvas, Moodle) ----------------------------------------------- */

typedef struct {
    const ReportClass *c;
    const ReportGradebook *gb;
    const bool *keep;                  /* per report: it has a grade and an id */
} ReportGradebookRows;

/* A text field of a report (the student's name), escaped as the terminal shows it (no control
 * byte reaches the gradebook), then quoted and guarded as grades.csv's fields are. */
static void report_csv_text(FILE *f, const char *s)
{
    char shown[512];
    escape_text(shown, sizeof shown, s, strlen(s), 0);
    report_csv_field(f, shown);
}

/* Canvas: Student, ID, SIS User ID, SIS Login ID, Section, then the assignment's column; the
 * ids file's id goes in SIS User ID. Moodle: Student, ID, then the grade's column, mapped on
 * import. One row per kept report, its total with one decimal. */
static int report_gradebook_body(FILE *f, const void *ctx)
{
    const ReportGradebookRows *r = ctx;
    bool canvas = r->gb->format == GRADEBOOK_CANVAS;
    fputs(canvas ? "Student,ID,SIS User ID,SIS Login ID,Section," : "Student,ID,", f);
    report_csv_field(f, r->gb->column);
    fputs("\r\n", f);
    for (int i = 0; i < r->c->n; i++) {
        if (!r->keep[i])
            continue;
        const json_t *root = r->c->roots[i];
        const char *student = json_string_value(json_object_get(root, "student"));
        report_csv_text(f, student);
        fputs(canvas ? ",," : ",", f);
        report_csv_field(f, gradebook_id_of(r->gb->ids, student)->id);
        fputs(canvas ? ",,," : ",", f);
        report_csv_number(f, json_object_get(root, "total"));
        fputs("\r\n", f);
    }
    return 0;
}

/* Which reports go in: a grade (status graded, a total) and a line in the ids file. Each left
 * out is said on warn, in one line naming it and why. Returns how many were left out. */
static int report_gradebook_keep(const ReportClass *c, char *const json_paths[], const ReportGradebook *gb,
                                 FILE *warn, bool *keep)
{
    int left_out = 0;
    for (int i = 0; i < c->n; i++) {
        const json_t *root = c->roots[i];
        const char *student = json_string_value(json_object_get(root, "student"));
        char shown[256];
        escape_text(shown, sizeof shown, student, strlen(student), 0);
        keep[i] = false;
        if (strcmp(report_csv_status(root), "error") == 0 || !json_is_number(json_object_get(root, "total")))
            fprintf(warn, "flipgrade: %s (%s): no grade (status error): left out of the %s CSV; grade "
                    "it again\n", shown, json_paths[i], gradebook_format_name(gb->format));
        else if (!gradebook_id_of(gb->ids, student))
            fprintf(warn, "flipgrade: %s (%s): no line for it in %s: left out of the %s CSV; add "
                    "\"%s ID\" there\n", shown, json_paths[i], gb->ids->path,
                    gradebook_format_name(gb->format), shown);
        else
            keep[i] = true;
        left_out += !keep[i];
    }
    return left_out;
}

int report_write_gradebook_csv(const char *csv_path, char *const json_paths[], int n, const ReportGradebook *gb,
                               FILE *warn, int *left_out, char *err, size_t errlen)
{
    ReportClass c = { 0 };
    c.roots = calloc((size_t)n + 1, sizeof *c.roots);
    bool *keep = calloc((size_t)n + 1, sizeof *keep);
    int rc = c.roots && keep ? 0 : -1;
    if (rc)
        fileerr_set(err, errlen, csv_path, "out of memory");
    /* Everything is read and checked before csv_path is touched. */
    for (; rc == 0 && c.n < n; c.n++)
        if (!(c.roots[c.n] = report_load(json_paths[c.n], err, errlen)))
            rc = -1;
    if (rc == 0)
        rc = report_same_grading(&c, json_paths, err, errlen);
    if (rc == 0) {
        *left_out = report_gradebook_keep(&c, json_paths, gb, warn, keep);
        ReportGradebookRows rows = { &c, gb, keep };
        rc = report_write_file(csv_path, report_gradebook_body, &rows, err, errlen);
    }
    free(keep);
    report_class_free(&c);
    return rc;
}

/* Adds root's graded parts to the running sums of the columns. */
static void report_sum_parts(const ReportClass *c, const json_t *root, double *sum, double *max, int *count)
{
    for (size_t k = 0; k < c->ncols; k++) {
        const json_t *p = report_part_named(root, c->cols[k]);
        const json_t *pts = json_object_get(p, "points");
        if (!json_is_number(pts))
            continue;
        sum[k] += json_number_value(pts);
        max[k] = json_number_value(json_object_get(p, "max"));
        count[k]++;
    }
}

int report_class_summary(FILE *f, char *const json_paths[], int n, char *err, size_t errlen)
{
    ReportClass c = { 0 };
    c.roots = calloc((size_t)n + 1, sizeof *c.roots);
    int rc = c.roots ? 0 : -1, errors = 0;
    for (; rc == 0 && c.n < n; c.n++)
        if (!(c.roots[c.n] = report_load(json_paths[c.n], err, errlen)) || report_add_cols(&c, c.roots[c.n]) != 0)
            rc = -1;
    double *sum = calloc(c.ncols + 1, sizeof *sum), *max = calloc(c.ncols + 1, sizeof *max);
    int *count = calloc(c.ncols + 1, sizeof *count);
    if (rc == 0 && sum && max && count) {
        for (int i = 0; i < c.n; i++) {
            errors += strcmp(report_csv_status(c.roots[i]), "error") == 0;
            report_sum_parts(&c, c.roots[i], sum, max, count);
        }
        fprintf(f, "%d report%s, %d graded, %d with errors; mean per part:", c.n, c.n == 1 ? "" : "s",
                c.n - errors, errors);
        for (size_t k = 0; k < c.ncols; k++) {
            char m[32], x[32];
            fprintf(f, "%s %s %s/%s", k ? "," : "", c.cols[k],
                    count[k] ? report_fmt1(m, sum[k] / count[k]) : "-", report_fmt1(x, max[k]));
        }
        fputc('\n', f);
    } else if (rc == 0) {
        rc = -1;
        textf(err, errlen, "out of memory summing the class");
    }
    free(sum), free(max), free(count);
    report_class_free(&c);
    return rc;
}

const char *report_json_str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

double report_json_num(const json_t *o, const char *key, double missing)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : missing;
}
