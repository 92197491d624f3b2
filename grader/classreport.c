/* classreport.c — class.json and class.html from a graded class's reports and stage files.
 * flipkit grader/: every string here came from a student or from reports about one, so it is
 * escape_text'd and HTML-escaped where shown; the stage files are only read, never built. */
#define _GNU_SOURCE
#include "classreport.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classrun.h"
#include "escape.h"
#include "fileerr.h"
#include "grade.h"
#include "grading.h"
#include "intake.h"
#include "report.h"
#include "similar.h"
#include "track.h"

/* The page stays readable in a class where many files are alike (a stage that allows one shape):
 * at most CR_TABLE_PAIRS pairs in its table and CR_SIDE_PAIRS side by side, the most similar
 * first; class.json lists every pair. */
enum { CR_SHOWN_LINES = 400, CR_SLOWEST = 5, CR_BINS = 10, CR_PART_BINS = 5, CR_TABLE_PAIRS = 200,
       CR_SIDE_PAIRS = 30 };

typedef struct {
    char name[96];                  /* the report directory's name, or "reference/ (the kit's)" */
    json_t *report;                 /* NULL: no report (the kit's reference, or not graded) */
    char *src[STAGE_COUNT];         /* the stage files the grader took, NULL when none */
    size_t srclen[STAGE_COUNT];
    SimilarTokens tok[STAGE_COUNT];
    char note[INTAKE_LINE_MAX];     /* why its files could not be read (escaped), or "" */
} CrStudent;

typedef struct {
    int stage, a, b;                /* students a < b */
    SimilarResult res;
    bool same_text;                 /* byte for byte the same file: nothing to look at side by side */
    int side;                       /* its number in the side-by-side views, or 0 when not shown */
} CrPair;

typedef struct {
    const ClassReportOptions *o;
    CrStudent *st;
    int n;                          /* students, the kit's reference last when compared */
    int graded;                     /* students with a report: st[0 .. graded-1] */
    char **refused;                 /* escaped names refused by the safe set */
    int nrefused;
    char **missing;                 /* safe entries without a report */
    int nmissing;
    CrPair *pairs;
    int npairs;
    json_t *root;                   /* class.json */
} CrClass;

/* ---- reading ------------------------------------------------------------------------------ */

static char *cr_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap || n > INTAKE_MAX_BYTES)
            break;
        char *b = realloc(buf, 2 * cap + 1);
        if (!b) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = b;
        cap *= 2;
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    *len = n;
    return buf;
}

static double cr_num(const json_t *o, const char *key)
{
    return report_json_num(o, key, NAN);
}

/* A report.json the grader wrote: an object with a parts array. */
static json_t *cr_load_report(const char *path, char *err, size_t errlen)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        fileerr_set(err, errlen, path, "line %d: %s", jerr.line, jerr.text);
        return NULL;
    }
    if (!json_is_object(root) || !json_is_array(json_object_get(root, "parts"))) {
        fileerr_set(err, errlen, path, "not a flipkit report (no \"parts\" array)");
        json_decref(root);
        return NULL;
    }
    return root;
}

/* The stage files as the grader takes them (intake.c: caps, no links), into a scratch copy
 * under work. Returns 0 (a submission that cannot be read says why in s->note), or -1 with one
 * line in err when the scratch directory cannot be made. */
static int cr_take_files(CrStudent *s, const char *submission, const char *work, char *why, size_t whylen)
{
    char dst[GRADE_PATH_MAX + 32], err[512];
    textf(dst, sizeof dst, "%s/take.XXXXXX", work);
    if (!mkdtemp(dst)) {
        fileerr_set(why, whylen, dst, "cannot make a scratch directory for the stage files: %s", strerror(errno));
        return -1;
    }
    IntakeResult res;
    if (intake_submission(submission, dst, &res, err, sizeof err) != 0) {
        textf(s->note, sizeof s->note, "%s", err);
    } else {
        for (int k = 0; k < STAGE_COUNT; k++) {
            char path[GRADE_PATH_MAX + 64];
            textf(path, sizeof path, "%s/%s.c", dst, stage_names[k]);
            if (res.found[k])
                s->src[k] = cr_read_file(path, &s->srclen[k]);
            unlink(path);
        }
    }
    rmdir(dst);
    return 0;
}

static void cr_read_dir_files(CrStudent *s, const char *dir)
{
    for (int k = 0; k < STAGE_COUNT; k++) {
        char path[GRADE_PATH_MAX + 64];
        textf(path, sizeof path, "%s/%s.c", dir, stage_names[k]);
        s->src[k] = cr_read_file(path, &s->srclen[k]);
    }
}

static char *cr_escaped(const char *s)
{
    return escape_dup(s, strlen(s), 6 * strlen(s) + 8, 0, NULL);
}

static int cr_push_name(char ***list, int *n, const char *name)
{
    char **l = realloc(*list, (size_t)(*n + 1) * sizeof *l);
    if (!l)
        return -1;
    *list = l;
    l[*n] = cr_escaped(name);
    return l[*n] ? (*n)++, 0 : -1;
}

/* Every safe entry with a report, then the kit's reference; refused and missing names kept. */
static int cr_load(CrClass *c, char *err, size_t errlen)
{
    const ClassReportOptions *o = c->o;
    ClassrunList list;
    if (classrun_list(o->class_dir, &list, err, errlen) != 0)
        return -1;
    c->st = calloc((size_t)list.n + 1, sizeof *c->st);
    if (!c->st) {
        classrun_free(&list);
        textf(err, errlen, "flipclass: out of memory");
        return -1;
    }
    const char *first_hash = NULL, *first_path = NULL;
    static char first_buf[GRADE_PATH_MAX + 32];
    int rc = 0;
    for (int i = 0; i < list.n && rc == 0; i++) {
        const ClassrunEntry *e = &list.entries[i];
        if (e->verdict == CLASSRUN_UNSAFE || e->verdict == CLASSRUN_CLASH) {
            rc = cr_push_name(&c->refused, &c->nrefused, e->entry);
            continue;
        }
        char path[GRADE_PATH_MAX + 128];
        textf(path, sizeof path, "%s/%s/report.json", o->reports, e->student);
        if (access(path, F_OK) != 0) {
            rc = cr_push_name(&c->missing, &c->nmissing, e->student);
            continue;
        }
        json_t *root = cr_load_report(path, err, errlen);
        if (!root) {
            classrun_free(&list);
            return -1;
        }
        const char *hash = report_json_str(root, "config_hash");
        if (!first_hash) {
            first_hash = hash;
            textf(first_buf, sizeof first_buf, "%s", path);
            first_path = first_buf;
        } else if (strcmp(hash, first_hash) != 0) {
            fileerr_set(err, errlen, path, "graded with another config than %s (config_hash \"%s\", "
                        "not \"%s\"): one class report holds one grading", first_path, hash, first_hash);
            json_decref(root);
            classrun_free(&list);
            return -1;
        }
        CrStudent *s = &c->st[c->n++];
        textf(s->name, sizeof s->name, "%s", e->student);
        s->report = root;
        char submission[GRADE_PATH_MAX + 128];
        textf(submission, sizeof submission, "%s/%s", o->class_dir, e->entry);
        if (cr_take_files(s, submission, o->work, err, errlen) != 0) {
            classrun_free(&list);
            return -1;
        }
    }
    c->graded = c->n;
    if (rc == 0 && o->reference) {
        CrStudent *s = &c->st[c->n++];
        textf(s->name, sizeof s->name, "reference/ (the kit's)");
        cr_read_dir_files(s, o->reference);
    }
    classrun_free(&list);
    if (rc != 0)
        textf(err, errlen, "flipclass: out of memory");
    return rc;
}

/* ---- similarity ----------------------------------------------------------------------------- */

/* Every student's files as tokens, the stub's text left out. Returns 0, or -1 with one line in
 * err (a stub that cannot be read: leaving it in would flag every pair of untouched files). */
static int cr_tokenize_all(CrClass *c, char *err, size_t errlen)
{
    for (int k = 0; k < STAGE_COUNT; k++) {
        char path[GRADE_PATH_MAX + 64];
        size_t len = 0;
        textf(path, sizeof path, "%s/%s.c", c->o->stubs, stage_names[k]);
        char *stub_text = cr_read_file(path, &len);
        SimilarTokens stub = { 0 };
        if (!stub_text) {
            fileerr_set(err, errlen, path, "cannot read the stub (--stubs DIR: the stubs every student "
                        "started from): %s", strerror(errno));
            return -1;
        }
        if (similar_tokenize(stub_text, len, &stub) != 0) {
            free(stub_text);
            textf(err, errlen, "flipclass: out of memory comparing the stage files");
            return -1;
        }
        free(stub_text);
        for (int i = 0; i < c->n; i++) {
            CrStudent *s = &c->st[i];
            if (!s->src[k])
                continue;
            if (similar_tokenize(s->src[k], s->srclen[k], &s->tok[k]) != 0 ||
                similar_leave_out(&s->tok[k], &stub) != 0) {
                similar_free(&stub);
                textf(err, errlen, "flipclass: out of memory comparing the stage files");
                return -1;
            }
        }
        similar_free(&stub);
    }
    return 0;
}

static int cr_by_score(const void *x, const void *y)
{
    const CrPair *p = x, *q = y;
    if (p->res.score != q->res.score)
        return p->res.score < q->res.score ? 1 : -1;
    return p->stage != q->stage ? p->stage - q->stage : p->a != q->a ? p->a - q->a : p->b - q->b;
}

/* Every pair's files of every stage; those at or above the threshold are kept, best first. */
static int cr_compare_all(CrClass *c)
{
    int cap = 0;
    for (int k = 0; k < STAGE_COUNT; k++)
        for (int a = 0; a < c->n; a++)
            for (int b = a + 1; b < c->n; b++) {
                const SimilarTokens *ta = &c->st[a].tok[k], *tb = &c->st[b].tok[k];
                if (ta->own < c->o->min_tokens || tb->own < c->o->min_tokens)
                    continue;
                SimilarResult r;
                if (similar_compare(ta, tb, &r) != 0)
                    return -1;
                if (r.score < c->o->threshold) {
                    similar_result_free(&r);
                    continue;
                }
                if (c->npairs == cap) {
                    cap = cap ? 2 * cap : 16;
                    CrPair *p = realloc(c->pairs, (size_t)cap * sizeof *p);
                    if (!p) {
                        similar_result_free(&r);
                        return -1;
                    }
                    c->pairs = p;
                }
                bool same = c->st[a].srclen[k] == c->st[b].srclen[k] &&
                            memcmp(c->st[a].src[k], c->st[b].src[k], c->st[a].srclen[k]) == 0;
                c->pairs[c->npairs++] = (CrPair){ k, a, b, r, same, 0 };
            }
    if (c->npairs)
        qsort(c->pairs, (size_t)c->npairs, sizeof *c->pairs, cr_by_score);
    int shown = 0;
    for (int i = 0; i < c->npairs && shown < CR_SIDE_PAIRS; i++)
        if (!c->pairs[i].same_text)
            c->pairs[i].side = ++shown;
    return 0;
}

/* ---- class.json ------------------------------------------------------------------------------ */

/* A reason's kind: digits collapsed, so "differs at 110 of 336" and "at 12 of 40" group. */
static void cr_reason_key(const char *s, char *key, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; s[i] && o + 2 < n; i++) {
        if (s[i] >= '0' && s[i] <= '9') {
            key[o++] = '#';
            while (s[i + 1] >= '0' && s[i + 1] <= '9')
                i++;
        } else {
            key[o++] = s[i];
        }
    }
    key[o] = '\0';
}

/* The first place a reason names: a face or cell, "v(1,0,0)" (a name then (i,j,k)), else a
 * particle, "particle 182"; "" when none. */
static void cr_place(const char *s, char *place, size_t n)
{
    place[0] = '\0';
    const char *part = strstr(s, ": particle ");
    int index;
    if (part && sscanf(part, ": particle %d", &index) == 1)
        textf(place, n, "particle %d", index);
    for (const char *p = strchr(s, '('); p; p = strchr(p + 1, '(')) {
        int i, j, k, used = 0;
        if (sscanf(p, "(%d,%d,%d)%n", &i, &j, &k, &used) != 3 || used == 0)
            continue;
        const char *b = p;
        while (b > s && (b[-1] == '_' || (b[-1] >= 'a' && b[-1] <= 'z') || (b[-1] >= 'A' && b[-1] <= 'Z')))
            b--;
        textf(place, n, "%.*s", (int)(p - b) + used, b);
        return;
    }
}

/* Adds one to the count of text in the object counts ({text: n}). */
static void cr_count(json_t *counts, const char *text, json_t *example, const char *ex_text)
{
    json_t *v = json_object_get(counts, text);
    json_object_set_new(counts, text, json_integer(json_integer_value(v) + 1));
    if (example && !json_object_get(example, text))
        json_object_set_new(example, text, json_string(ex_text));
}

/* The most common entry of counts as {"text", "count"}, or null. */
static json_t *cr_most_common(const json_t *counts, const json_t *example)
{
    const char *key, *best = NULL;
    json_t *v;
    json_int_t most = 0;
    json_object_foreach((json_t *)counts, key, v)
        if (json_integer_value(v) > most || (json_integer_value(v) == most && best && strcmp(key, best) < 0)) {
            most = json_integer_value(v);
            best = key;
        }
    if (!best)
        return json_null();
    const char *shown = example ? json_string_value(json_object_get(example, best)) : best;
    return json_pack("{s:s,s:I}", "text", shown ? shown : best, "count", (json_int_t)most);
}

/* The row of class.json's "cases" or "scene_parts" for key, made when first met. */
static json_t *cr_row(json_t *rows, json_t *index, const char *key, const char *part,
                      const char *casename, const char *kind)
{
    json_t *row = json_object_get(index, key);
    if (row)
        return row;
    row = json_pack("{s:s,s:s,s:s,s:i,s:i,s:[],s:{},s:{},s:{}}", "part", part, "case", casename,
                    "kind", kind, "run", 0, "passed", 0, "failed_by", "places", "reasons", "examples");
    json_array_append_new(rows, row);
    json_object_set(index, key, row);
    return row;
}

static void cr_tally(json_t *row, bool passed, const char *student, const char *place,
                     const char *reason)
{
    json_object_set_new(row, "run", json_integer(json_integer_value(json_object_get(row, "run")) + 1));
    if (passed) {
        json_object_set_new(row, "passed", json_integer(json_integer_value(json_object_get(row, "passed")) + 1));
        return;
    }
    json_array_append_new(json_object_get(row, "failed_by"), json_string(student));
    if (place[0])
        cr_count(json_object_get(row, "places"), place, NULL, NULL);
    char key[GRADE_REASON_MAX];
    cr_reason_key(reason, key, sizeof key);
    cr_count(json_object_get(row, "reasons"), key, json_object_get(row, "examples"), reason);
}

/* Turns a row's tallies into its pass rate and most common place and reason. */
static void cr_finish_row(json_t *row)
{
    json_int_t run = json_integer_value(json_object_get(row, "run"));
    json_int_t passed = json_integer_value(json_object_get(row, "passed"));
    json_object_set_new(row, "pass_rate", run ? json_real((double)passed / (double)run) : json_null());
    json_object_set_new(row, "most_common_place", cr_most_common(json_object_get(row, "places"), NULL));
    json_object_set_new(row, "most_common_reason",
                        cr_most_common(json_object_get(row, "reasons"), json_object_get(row, "examples")));
    json_object_del(row, "places");
    json_object_del(row, "reasons");
    json_object_del(row, "examples");
}

static int cr_by_pass_rate(const void *x, const void *y)
{
    const json_t *p = *(json_t *const *)x, *q = *(json_t *const *)y;
    double a = cr_num(p, "pass_rate"), b = cr_num(q, "pass_rate");
    if (a != b)
        return a < b ? -1 : 1;
    int c = strcmp(report_json_str(p, "part"), report_json_str(q, "part"));
    return c ? c : strcmp(report_json_str(p, "case"), report_json_str(q, "case"));
}

/* rows sorted by pass rate, hardest first (stable by part and case). */
static json_t *cr_sorted(json_t *rows)
{
    size_t n = json_array_size(rows);
    json_t **v = malloc((n + 1) * sizeof *v);
    json_t *out = json_array();
    if (!v || !out) {
        free(v);
        return out;
    }
    for (size_t i = 0; i < n; i++) {
        v[i] = json_array_get(rows, i);
        cr_finish_row(v[i]);
    }
    qsort(v, n, sizeof *v, cr_by_pass_rate);
    for (size_t i = 0; i < n; i++)
        json_array_append(out, v[i]);
    free(v);
    json_decref(rows);
    return out;
}

/* Each part's scores (null for an error) and the cases' and scene parts' rows. */
static void cr_parts_and_cases(CrClass *c, json_t *root)
{
    json_t *parts = json_array(), *pindex = json_object();
    json_t *cases = json_array(), *cindex = json_object();
    json_t *scenes = json_array(), *sindex = json_object();
    for (int i = 0; i < c->graded; i++) {
        const json_t *p;
        size_t k;
        json_array_foreach(json_object_get(c->st[i].report, "parts"), k, p) {
            const char *name = report_json_str(p, "name");
            json_t *part = json_object_get(pindex, name);
            if (!part) {
                part = json_pack("{s:s,s:s,s:o,s:[]}", "name", name, "kind", report_json_str(p, "kind"),
                                 "max", json_real(isfinite(cr_num(p, "max")) ? cr_num(p, "max") : 0),
                                 "scores");
                json_array_append_new(parts, part);
                json_object_set(pindex, name, part);
            }
            double pts = cr_num(p, "points");
            json_array_append_new(json_object_get(part, "scores"), isfinite(pts) ? json_real(pts) : json_null());
            if (!isfinite(pts))
                continue;                  /* the grader's failure: no case counts */
            bool scene = strcmp(report_json_str(p, "kind"), "scene") == 0;
            if (scene) {
                char key[200], place[160] = "";
                const json_t *ff = json_object_get(p, "first_fail");
                textf(key, sizeof key, "%s", name);
                if (ff)
                    textf(place, sizeof place, "frame %d: %s", (int)cr_num(ff, "frame"), report_json_str(ff, "metric"));
                json_t *row = cr_row(scenes, sindex, key, name, "", "scene");
                bool full = cr_num(p, "passed") >= cr_num(p, "total");
                cr_tally(row, full, c->st[i].name, place, report_json_str(p, "reason"));
                continue;
            }
            const json_t *cs;
            size_t m;
            json_array_foreach(json_object_get(p, "cases"), m, cs) {
                char key[200], place[160];
                textf(key, sizeof key, "%s/%s", name, report_json_str(cs, "case"));
                json_t *row = cr_row(cases, cindex, key, name, report_json_str(cs, "case"), "case");
                cr_place(report_json_str(cs, "failure"), place, sizeof place);
                cr_tally(row, json_is_true(json_object_get(cs, "passed")), c->st[i].name, place,
                         report_json_str(cs, "failure"));
            }
        }
    }
    json_decref(pindex);
    json_decref(cindex);
    json_decref(sindex);
    json_object_set_new(root, "parts", parts);
    json_object_set_new(root, "cases", cr_sorted(cases));
    json_object_set_new(root, "scene_parts", cr_sorted(scenes));
}

static int cr_by_seconds(const void *x, const void *y)
{
    const json_t *p = *(json_t *const *)x, *q = *(json_t *const *)y;
    double a = cr_num(p, "seconds"), b = cr_num(q, "seconds");
    return a != b ? (a < b ? 1 : -1) : strcmp(report_json_str(p, "student"), report_json_str(q, "student"));
}

static json_t *cr_students(const CrClass *c)
{
    json_t *a = json_array();
    for (int i = 0; i < c->graded; i++) {
        const json_t *r = c->st[i].report;
        double total = cr_num(r, "total"), max = cr_num(r, "max"), sec = cr_num(r, "seconds");
        json_array_append_new(a, json_pack("{s:s,s:s,s:o,s:o,s:o}", "student", c->st[i].name,
                                           "status", report_json_str(r, "status"),
                                           "total", isfinite(total) ? json_real(total) : json_null(),
                                           "max", isfinite(max) ? json_real(max) : json_null(),
                                           "seconds", isfinite(sec) ? json_real(sec) : json_null()));
    }
    return a;
}

static json_t *cr_slowest(const json_t *students)
{
    size_t n = json_array_size(students);
    json_t **v = malloc((n + 1) * sizeof *v), *out = json_array();
    if (!v)
        return out;
    for (size_t i = 0; i < n; i++)
        v[i] = json_array_get(students, i);
    qsort(v, n, sizeof *v, cr_by_seconds);
    for (size_t i = 0; i < n && i < CR_SLOWEST; i++)
        json_array_append_new(out, json_pack("{s:s,s:o}", "student", report_json_str(v[i], "student"),
                                             "seconds", json_deep_copy(json_object_get(v[i], "seconds"))));
    free(v);
    return out;
}

static json_t *cr_pairs_json(const CrClass *c)
{
    json_t *a = json_array();
    for (int i = 0; i < c->npairs; i++) {
        const CrPair *p = &c->pairs[i];
        json_t *runs = json_array();
        for (int r = 0; r < p->res.nruns; r++) {
            const SimilarRun *u = &p->res.runs[r];
            json_array_append_new(runs, json_pack("{s:[i,i],s:[i,i],s:i}", "a_lines", u->a_first,
                                                  u->a_last, "b_lines", u->b_first, u->b_last,
                                                  "tokens", u->tokens));
        }
        json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:f,s:b,s:i,s:i,s:i,s:o}", "stage",
                                            stage_names[p->stage], "a", c->st[p->a].name, "b",
                                            c->st[p->b].name, "similarity", p->res.score,
                                            "same_text", p->same_text,
                                            "matched_tokens", p->res.matched,
                                            "a_tokens", c->st[p->a].tok[p->stage].own,
                                            "b_tokens", c->st[p->b].tok[p->stage].own, "runs", runs));
    }
    return a;
}

static json_t *cr_unread(const CrClass *c)
{
    json_t *a = json_array();
    for (int i = 0; i < c->n; i++)
        if (c->st[i].note[0]) {
            char *why = cr_escaped(c->st[i].note);
            json_array_append_new(a, json_pack("{s:s,s:s}", "student", c->st[i].name, "why", why ? why : ""));
            free(why);
        }
    return a;
}

static json_t *cr_names(char **names, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_string(names[i]));
    return a;
}

/* class.json's content; all its strings are escape_text's (valid UTF-8, no control bytes). */
static json_t *cr_build_json(CrClass *c)
{
    json_t *root = json_object();
    char *dir = cr_escaped(c->o->class_dir);
    json_object_set_new(root, "class", json_string(dir ? dir : ""));
    free(dir);
    json_object_set_new(root, "reports", json_integer(c->graded));
    json_t *students = cr_students(c);
    json_object_set_new(root, "slowest", cr_slowest(students));
    json_object_set_new(root, "students", students);
    json_object_set_new(root, "refused", cr_names(c->refused, c->nrefused));
    json_object_set_new(root, "not_graded", cr_names(c->missing, c->nmissing));
    cr_parts_and_cases(c, root);
    json_object_set_new(root, "similarity",
                        json_pack("{s:f,s:i,s:i,s:b,s:o,s:o}", "threshold", c->o->threshold,
                                  "min_run_tokens", SIMILAR_MIN_RUN, "min_tokens", c->o->min_tokens,
                                  "reference_compared", c->o->reference != NULL,
                                  "files_not_read", cr_unread(c), "pairs", cr_pairs_json(c)));
    return root;
}

/* ---- class.html ------------------------------------------------------------------------------- */

/* Text from a report (already escape_text's) with <>&"' escaped. */
static void cr_html(FILE *f, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
}

/* Bytes of a student's file: escape_text's text of them, then HTML-escaped. */
static void cr_html_bytes(FILE *f, const char *s, size_t len)
{
    char *t = escape_dup(s, len, 6 * len + 8, 0, NULL);
    if (t)
        cr_html(f, t);
    free(t);
}

static const char cr_css[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:80em;"
    "padding:0 1em;color:#222}\n"
    "h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.15em;margin-top:2em}\n"
    ".meta{color:#666;margin-top:0}\n"
    "table{border-collapse:collapse;width:100%}\n"
    "th,td{border-bottom:1px solid #ddd;padding:.3em .5em;text-align:left;vertical-align:top}\n"
    "td.num,th.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}\n"
    ".bar{width:8em;height:.8em;background:#eee;border:1px solid #ccc;display:inline-block}\n"
    ".bar span{display:block;height:100%;background:#2e7d32}\n"
    ".reason,.who{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85em;overflow-wrap:anywhere}\n"
    ".plots{display:flex;flex-wrap:wrap;gap:1em}.plots figure{margin:0}\n"
    "figcaption{color:#555;font-size:.85em;text-align:center}\n"
    "svg rect.bin{fill:#1565c0}svg text{font-size:10px;fill:#444}svg line{stroke:#999}\n"
    ".side{display:flex;gap:1em}.side pre{flex:1 1 0;overflow:auto;font-size:.8em;border:1px solid #ccc;"
    "padding:.3em;margin:0;max-height:40em}\n"
    ".side pre span{display:block;white-space:pre}\n"
    ".m0{background:#ffe0b2}.m1{background:#c8e6c9}.m2{background:#bbdefb}.m3{background:#f8bbd0}"
    ".m4{background:#d1c4e9}.m5{background:#fff59d}\n"
    ".warn{background:#fff3e0;padding:.5em}\n";

/* A histogram as inline SVG: counts[nbins] over [0, max], bars in class "bin". */
static void cr_svg_histogram(FILE *f, const int *counts, int nbins, double max, int w, int h,
                             const char *label)
{
    int most = 1;
    for (int i = 0; i < nbins; i++)
        most = counts[i] > most ? counts[i] : most;
    int left = 24, bottom = 16, top = 6, pw = w - left - 4, ph = h - bottom - top;
    fprintf(f, "<svg class=\"hist\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
            "aria-label=\"", w, h, w, h);
    cr_html(f, label);
    fputs("\">", f);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", left, top + ph, left + pw, top + ph);
    fprintf(f, "<text x=\"2\" y=\"%d\">%d</text><text x=\"2\" y=\"%d\">0</text>", top + 8, most, top + ph);
    for (int i = 0; i < nbins; i++) {
        double bw = (double)pw / nbins, bh = (double)ph * counts[i] / most;
        if (counts[i] > 0)
            fprintf(f, "<rect class=\"bin\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
                    "<title>%d</title></rect>", left + i * bw + 1, top + ph - bh, bw - 2, bh, counts[i]);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\">0</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">%g</text>",
            left, h - 3, left + pw, h - 3, max);
    fputs("</svg>", f);
}

static void cr_bin(int *counts, int nbins, double v, double max)
{
    if (!isfinite(v) || !(max > 0))
        return;
    int b = (int)floor(v / max * nbins);
    counts[b < 0 ? 0 : b >= nbins ? nbins - 1 : b]++;
}

static void cr_html_plots(FILE *f, const json_t *root)
{
    fputs("<h2>Scores</h2>\n<div class=\"plots\">", f);
    int counts[CR_BINS] = { 0 };
    double max = 0;
    const json_t *s, *p;
    size_t i, k;
    json_array_foreach(json_object_get(root, "students"), i, s)
        max = cr_num(s, "max") > max ? cr_num(s, "max") : max;
    json_array_foreach(json_object_get(root, "students"), i, s)
        cr_bin(counts, CR_BINS, cr_num(s, "total"), max);
    fputs("<figure>", f);
    cr_svg_histogram(f, counts, CR_BINS, max, 320, 140, "total scores");
    fputs("<figcaption>total, students per tenth of the maximum</figcaption></figure>\n", f);
    json_array_foreach(json_object_get(root, "parts"), i, p) {
        int pc[CR_PART_BINS] = { 0 };
        const json_t *v;
        json_array_foreach(json_object_get(p, "scores"), k, v)
            if (json_is_number(v))
                cr_bin(pc, CR_PART_BINS, json_number_value(v), cr_num(p, "max"));
        fputs("<figure>", f);
        cr_svg_histogram(f, pc, CR_PART_BINS, cr_num(p, "max"), 150, 90, report_json_str(p, "name"));
        fputs("<figcaption>", f);
        cr_html(f, report_json_str(p, "name"));
        fputs("</figcaption></figure>\n", f);
    }
    fputs("</div>\n", f);
}

static void cr_html_names(FILE *f, const json_t *names)
{
    const json_t *v;
    size_t i;
    json_array_foreach(names, i, v) {
        if (i)
            fputs(", ", f);
        cr_html(f, json_string_value(v) ? json_string_value(v) : "");
    }
}

static void cr_html_common(FILE *f, const json_t *row, const char *key)
{
    const json_t *m = json_object_get(row, key);
    if (!json_is_object(m))
        return;
    cr_html(f, report_json_str(m, "text"));
    fprintf(f, " <small>(%d)</small>", (int)json_integer_value(json_object_get(m, "count")));
}

static void cr_html_rows(FILE *f, const json_t *rows, bool cases)
{
    fprintf(f, "<table class=\"%s\"><tr><th>%s</th><th class=\"num\">passed</th><th>pass rate</th>"
            "<th>%s</th><th>most common reason</th><th>who failed it</th></tr>\n",
            cases ? "cases" : "scenes", cases ? "stage / case" : "whole-scene part",
            cases ? "most common place" : "most common first failing frame");
    const json_t *r;
    size_t i;
    json_array_foreach(rows, i, r) {
        double rate = cr_num(r, "pass_rate");
        fputs("<tr><td>", f);
        cr_html(f, report_json_str(r, "part"));
        if (cases) {
            fputs(" / ", f);
            cr_html(f, report_json_str(r, "case"));
        }
        fprintf(f, "</td><td class=\"num\">%d of %d</td><td><span class=\"bar\"><span style=\"width:%.0f%%\">"
                "</span></span> %.0f%%</td><td class=\"reason\">",
                (int)json_integer_value(json_object_get(r, "passed")),
                (int)json_integer_value(json_object_get(r, "run")), isfinite(rate) ? 100 * rate : 0,
                isfinite(rate) ? 100 * rate : 0);
        cr_html_common(f, r, "most_common_place");
        fputs("</td><td class=\"reason\">", f);
        cr_html_common(f, r, "most_common_reason");
        fputs("</td><td class=\"who\">", f);
        cr_html_names(f, json_object_get(r, "failed_by"));
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* The run of pair p that covers line of side a (or b), or -1. */
static int cr_run_at(const CrPair *p, bool side_a, int line)
{
    for (int r = 0; r < p->res.nruns; r++) {
        const SimilarRun *u = &p->res.runs[r];
        int first = side_a ? u->a_first : u->b_first, last = side_a ? u->a_last : u->b_last;
        if (line >= first && line <= last)
            return r;
    }
    return -1;
}

/* One file in a <pre>, a line per span, the lines in a common run coloured by the run. */
static void cr_html_source(FILE *f, const CrPair *p, bool side_a, const char *src, size_t len)
{
    fputs("<pre>", f);
    size_t at = 0;
    for (int line = 1; at < len && line <= CR_SHOWN_LINES; line++) {
        const char *nl = memchr(src + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - src) : len;
        int run = cr_run_at(p, side_a, line);
        if (run >= 0)
            fprintf(f, "<span class=\"m%d\" title=\"run %d\">", run % 6, run + 1);
        else
            fputs("<span>", f);
        fprintf(f, "%4d  ", line);
        cr_html_bytes(f, src + at, end - at);
        fputs("</span>", f);
        at = end + 1;
    }
    if (at < len)
        fprintf(f, "<span>... (the rest of the file is not shown: at most %d lines)</span>", CR_SHOWN_LINES);
    fputs("</pre>", f);
}

static void cr_html_pairs(FILE *f, const CrClass *c)
{
    fprintf(f, "<h2>Similar stage files</h2>\n<p>Pairs whose files of one stage share at least "
            "%.0f%% of their own tokens in common runs of %d or more tokens (identifiers, numbers "
            "and layout do not count; the stub's text is left out; files with fewer than %d tokens "
            "of their own are not compared). A high score is a reason to look, not a proof: "
            "see grader/README.md.</p>\n", 100 * c->o->threshold, SIMILAR_MIN_RUN, c->o->min_tokens);
    for (int i = 0; i < c->n; i++)
        if (c->st[i].note[0]) {
            fputs("<p class=\"warn\">Not compared, its files could not be read: <span class=\"who\">", f);
            cr_html(f, c->st[i].name);
            fputs(": ", f);
            cr_html_bytes(f, c->st[i].note, strnlen(c->st[i].note, sizeof c->st[i].note));
            fputs("</span></p>\n", f);
        }
    if (c->npairs == 0) {
        fputs("<p>No pair above the threshold.</p>\n", f);
        return;
    }
    fputs("<table class=\"pairs\"><tr><th>stage</th><th>student</th><th>student</th>"
          "<th class=\"num\">similarity</th><th class=\"num\">common runs</th></tr>\n", f);
    for (int i = 0; i < c->npairs && i < CR_TABLE_PAIRS; i++) {
        const CrPair *p = &c->pairs[i];
        fprintf(f, "<tr><td>%s</td><td>", stage_names[p->stage]);
        cr_html(f, c->st[p->a].name);
        fputs("</td><td>", f);
        cr_html(f, c->st[p->b].name);
        fprintf(f, "</td><td class=\"num\">%.0f%%</td><td class=\"num\">", 100 * p->res.score);
        if (p->same_text)
            fputs("the same file, byte for byte</td></tr>\n", f);
        else if (p->side)
            fprintf(f, "<a href=\"#pair%d\">%d</a></td></tr>\n", p->side, p->res.nruns);
        else
            fprintf(f, "%d</td></tr>\n", p->res.nruns);
    }
    fputs("</table>\n", f);
    if (c->npairs > CR_TABLE_PAIRS)
        fprintf(f, "<p class=\"warn\">%d pairs in all: the table shows the first %d; class.json lists "
                "every pair and its runs.</p>\n", c->npairs, CR_TABLE_PAIRS);
    fprintf(f, "<p>Side by side below: the %d most similar pairs whose files are not the same byte for "
            "byte.</p>\n", CR_SIDE_PAIRS);
    for (int i = 0; i < c->npairs; i++) {
        const CrPair *p = &c->pairs[i];
        if (!p->side)
            continue;
        const CrStudent *a = &c->st[p->a], *b = &c->st[p->b];
        fprintf(f, "<details id=\"pair%d\"><summary>%s: ", p->side, stage_names[p->stage]);
        cr_html(f, a->name);
        fputs(" and ", f);
        cr_html(f, b->name);
        fprintf(f, ", %.0f%% (%d of %d and %d tokens)</summary>\n<div class=\"side\">", 100 * p->res.score,
                p->res.matched, a->tok[p->stage].own, b->tok[p->stage].own);
        cr_html_source(f, p, true, a->src[p->stage], a->srclen[p->stage]);
        cr_html_source(f, p, false, b->src[p->stage], b->srclen[p->stage]);
        fputs("</div></details>\n", f);
    }
}

static void cr_html_slowest(FILE *f, const json_t *root)
{
    fputs("<h2>Slowest gradings</h2>\n<table class=\"slowest\"><tr><th>student</th>"
          "<th class=\"num\">seconds</th></tr>\n", f);
    const json_t *s;
    size_t i;
    json_array_foreach(json_object_get(root, "slowest"), i, s) {
        fputs("<tr><td>", f);
        cr_html(f, report_json_str(s, "student"));
        fprintf(f, "</td><td class=\"num\">%.1f</td></tr>\n", cr_num(s, "seconds"));
    }
    fputs("</table>\n", f);
}

typedef struct {
    const CrClass *c;
} CrHtml;

static int cr_html_body(FILE *f, const void *ctx)
{
    const CrClass *c = ((const CrHtml *)ctx)->c;
    const json_t *root = c->root;
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
            "<title>flipkit class report</title><style>%s</style></head><body>\n", cr_css);
    fputs("<h1>Class report: ", f);
    cr_html(f, report_json_str(root, "class"));
    fprintf(f, "</h1>\n<p class=\"meta\">%d reports", c->graded);
    if (c->nmissing) {
        fputs("; no report (not graded): <span class=\"who\">", f);
        cr_html_names(f, json_object_get(root, "not_graded"));
        fputs("</span>", f);
    }
    fputs("</p>\n", f);
    if (c->nrefused) {
        fputs("<p class=\"warn\">Refused by name, not graded: <span class=\"who refused\">", f);
        cr_html_names(f, json_object_get(root, "refused"));
        fputs("</span></p>\n", f);
    }
    cr_html_plots(f, root);
    fputs("<h2>Stage cases, hardest first</h2>\n", f);
    cr_html_rows(f, json_object_get(root, "cases"), true);
    fputs("<h2>Whole-scene parts, hardest first</h2>\n<p>Passed: every frame passed.</p>\n", f);
    cr_html_rows(f, json_object_get(root, "scene_parts"), false);
    cr_html_pairs(f, c);
    cr_html_slowest(f, root);
    fputs("</body></html>\n", f);
    return ferror(f) ? -1 : 0;
}

static int cr_json_body(FILE *f, const void *ctx)
{
    if (json_dumpf((const json_t *)ctx, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER) != 0)
        return -1;
    return fputc('\n', f) == EOF ? -1 : 0;
}

static void cr_free(CrClass *c)
{
    for (int i = 0; i < c->n; i++) {
        json_decref(c->st[i].report);
        for (int k = 0; k < STAGE_COUNT; k++) {
            free(c->st[i].src[k]);
            similar_free(&c->st[i].tok[k]);
        }
    }
    for (int i = 0; i < c->npairs; i++)
        similar_result_free(&c->pairs[i].res);
    for (int i = 0; i < c->nrefused; i++)
        free(c->refused[i]);
    for (int i = 0; i < c->nmissing; i++)
        free(c->missing[i]);
    free(c->refused);
    free(c->missing);
    free(c->pairs);
    free(c->st);
    json_decref(c->root);
}

int classreport_write(const ClassReportOptions *o, char *err, size_t errlen)
{
    CrClass c = { .o = o };
    int rc = cr_load(&c, err, errlen);
    if (rc == 0 && c.graded == 0) {
        textf(err, errlen, "flipclass: %s: no entry has a report in %s (run make grade SUBMISSIONS=... first)",
              o->class_dir, o->reports);
        rc = -1;
    }
    if (rc == 0)
        rc = cr_tokenize_all(&c, err, errlen);
    if (rc == 0 && cr_compare_all(&c) != 0) {
        textf(err, errlen, "flipclass: out of memory comparing the stage files");
        rc = -1;
    }
    if (rc == 0) {
        c.root = cr_build_json(&c);
        char path[GRADE_PATH_MAX + 32];
        textf(path, sizeof path, "%s/class.json", o->out);
        rc = report_write_file(path, cr_json_body, c.root, err, errlen);
        textf(path, sizeof path, "%s/class.html", o->out);
        CrHtml h = { &c };
        if (rc == 0)
            rc = report_write_file(path, cr_html_body, &h, err, errlen);
    }
    cr_free(&c);
    return rc;
}
