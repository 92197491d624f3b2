/* test_report.c — Check suite for grader/report.c, render.c, gradescope.c and gradebook.c:
 * report.json read back, HTML escaping, the class CSV's and a gradebook's exact text, the ids
 * file's refusals, results.json, the terminal table, PNGs pixel by pixel. CK_FORK=no runs
 * in-process for gdb; CK_RUN_CASE=png build/tests/test_report. */
#include "escape.h"
#include "gradebook.h"
#include "gradescope.h"
#include "harness.h"
#include "render.h"
#include "report.h"

#include <check.h>
#include <jansson.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------------------- */

static char *tmp_path(const char *name)
{
    static char buf[8][512];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, sizeof buf[0], "%s/%s", harness_tmpdir(), name);
    return p;
}

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fputs(text, f) >= 0, 1);
    ck_assert_int_eq(fclose(f), 0);
}

static void assert_no_tmp(const char *path)
{
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    ck_assert_msg(access(tmp, F_OK) != 0, "%s was left behind", tmp);
}

static GradePart *add_part(GradeReport *r, const char *name, bool scene, double points,
                           double max, int total, int passed, const char *reason)
{
    GradePart *p = &r->parts[r->nparts++];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->is_scene = scene;
    p->points = points;
    p->max = max;
    p->total = total;
    p->passed = passed;
    snprintf(p->reason, sizeof p->reason, "%s", reason);
    r->total += points;
    r->max += max;
    return p;
}

#define P2G_REASON "case 3 \x1b[31m<script>alert(1)</script>: u(2,3,4) expected 1 got 2"
#define SCENE_REASON "frame 30: centre of mass is 0.25 m from the reference's (limit 0.1 m); " \
                     "the pool drifts towards the left wall, as when the divergence sign is flipped"

/* Two stage parts (one full, one partial) and one failing scene part with pictures. */
static void make_report(GradeReport *r, const char *student)
{
    memset(r, 0, sizeof *r);
    snprintf(r->student, sizeof r->student, "%s", student);
    snprintf(r->submission, sizeof r->submission, "submissions/%s.tar.gz", student);
    snprintf(r->mode, sizeof r->mode, "hidden");
    r->seconds = 12.5;
    add_part(r, "advect", false, 10.0, 10.0, 6, 6, "all 6 cases pass");
    GradePart *p = add_part(r, "p2g", false, 4.5, 10.0, 6, 3, P2G_REASON);
    snprintf(p->detail_log, sizeof p->detail_log, "logs/p2g.log");
    /* two of its cases one by one, the second failed with a student's bytes in its failure */
    p->ncases = 2;
    snprintf(p->cases[0].name, sizeof p->cases[0].name, "corner_6x6x8");
    p->cases[0].passed = true;
    snprintf(p->cases[1].name, sizeof p->cases[1].name, "thin_12x5x4");
    snprintf(p->cases[1].reason, sizeof p->cases[1].reason, "p2g: \x1b[2J u(1,0,0) expected 1 got 2");
    p = add_part(r, "ball_drop.jacobi", true, 7.5, 20.0, 60, 30, SCENE_REASON);
    snprintf(p->detail_log, sizeof p->detail_log, "logs/ball_drop.jacobi.log");
    p->first_fail.frame = 30;
    snprintf(p->first_fail.metric, sizeof p->first_fail.metric, "centre of mass");
    p->first_fail.got = 0.25;
    p->first_fail.limit = 0.1;
    snprintf(p->image_student, sizeof p->image_student, "img/ball_drop.jacobi.student.png");
    snprintf(p->image_reference, sizeof p->image_reference, "img/ball_drop.jacobi.reference.png");
    snprintf(p->image_diff, sizeof p->image_diff, "img/ball drop&diff.png");
}

static double jnum(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    ck_assert_msg(json_is_number(v), "\"%s\" is not a number", key);
    return json_number_value(v);
}

static const char *jstr(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    ck_assert_msg(json_is_string(v), "\"%s\" is not a string", key);
    return json_string_value(v);
}

/* ---- report.json --------------------------------------------------------------------- */

START_TEST(json_read_back)
{
    GradeReport r;
    make_report(&r, "alice");
    char err[512] = "";
    const char *path = tmp_path("report.json");
    ck_assert_msg(report_write_json(path, &r, err, sizeof err) == 0, "%s", err);
    assert_no_tmp(path);

    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    ck_assert_msg(root != NULL, "%s", jerr.text);
    ck_assert_str_eq(jstr(root, "student"), "alice");
    ck_assert_str_eq(jstr(root, "mode"), "hidden");
    ck_assert_double_eq_tol(jnum(root, "seconds"), 12.5, 1e-12);
    ck_assert_double_eq_tol(jnum(root, "total"), 22.0, 1e-12);
    ck_assert_double_eq_tol(jnum(root, "max"), 40.0, 1e-12);
    ck_assert(json_is_false(json_object_get(root, "full_marks")));

    const json_t *parts = json_object_get(root, "parts");
    ck_assert_uint_eq(json_array_size(parts), 3);
    const json_t *advect = json_array_get(parts, 0);
    const json_t *p2g = json_array_get(parts, 1);
    const json_t *scene = json_array_get(parts, 2);
    ck_assert_str_eq(jstr(advect, "kind"), "stage");
    ck_assert_double_eq_tol(jnum(advect, "points"), 10.0, 1e-12);
    ck_assert(json_is_null(json_object_get(advect, "log")));
    ck_assert_ptr_null(json_object_get(advect, "first_fail"));
    ck_assert_ptr_null(json_object_get(advect, "images"));

    ck_assert_str_eq(jstr(p2g, "name"), "p2g");
    ck_assert_double_eq_tol(jnum(p2g, "points"), 4.5, 1e-12);
    ck_assert_double_eq_tol(jnum(p2g, "max"), 10.0, 1e-12);
    ck_assert_int_eq((int)jnum(p2g, "total"), 6);
    ck_assert_int_eq((int)jnum(p2g, "passed"), 3);
    /* the reason as escape.h shows it, the same text as the table's and the HTML's */
    ck_assert_str_eq(jstr(p2g, "reason"), "case 3 \\x1b[31m<script>alert(1)</script>: u(2,3,4) expected 1 got 2");
    ck_assert_str_eq(jstr(p2g, "log"), "logs/p2g.log");
    ck_assert_ptr_null(json_object_get(p2g, "first_fail"));
    /* each case run, for the class report; keys of their own ("case", "failure"), not a part's */
    const json_t *cases = json_object_get(p2g, "cases");
    ck_assert_uint_eq(json_array_size(cases), 2);
    ck_assert_str_eq(jstr(json_array_get(cases, 0), "case"), "corner_6x6x8");
    ck_assert(json_is_true(json_object_get(json_array_get(cases, 0), "passed")));
    ck_assert_str_eq(jstr(json_array_get(cases, 0), "failure"), "");
    ck_assert(json_is_false(json_object_get(json_array_get(cases, 1), "passed")));
    ck_assert_str_eq(jstr(json_array_get(cases, 1), "failure"), "p2g: \\x1b[2J u(1,0,0) expected 1 got 2");
    ck_assert_ptr_null(json_object_get(json_array_get(cases, 1), "name"));
    ck_assert_ptr_null(json_object_get(advect, "cases"));

    ck_assert_str_eq(jstr(scene, "kind"), "scene");
    ck_assert_double_eq_tol(jnum(scene, "points"), 7.5, 1e-12);
    const json_t *ff = json_object_get(scene, "first_fail");
    ck_assert_int_eq((int)jnum(ff, "frame"), 30);
    ck_assert_str_eq(jstr(ff, "metric"), "centre of mass");
    ck_assert_double_eq_tol(jnum(ff, "got"), 0.25, 1e-12);
    ck_assert_double_eq_tol(jnum(ff, "limit"), 0.1, 1e-12);
    const json_t *img = json_object_get(scene, "images");
    ck_assert_str_eq(jstr(img, "student"), "img/ball_drop.jacobi.student.png");
    ck_assert_str_eq(jstr(img, "diff"), "img/ball drop&diff.png");
    json_decref(root);

    /* Keys in a fixed order: the file starts with student, and the same report gives the
     * same bytes. */
    char *a = harness_slurp(path, NULL);
    ck_assert_msg(strncmp(a, "{\n  \"student\": \"alice\",\n  \"submission\"", 37) == 0, "%s", a);
    ck_assert_msg(report_write_json(path, &r, err, sizeof err) == 0, "%s", err);
    char *b = harness_slurp(path, NULL);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
}
END_TEST

START_TEST(json_full_marks_and_bad_text)
{
    GradeReport r;
    memset(&r, 0, sizeof r);
    snprintf(r.student, sizeof r.student, "bob");
    add_part(&r, "gravity", false, 5.0, 5.0, 4, 4, "bad byte \xff here, NaN points below");
    add_part(&r, "odd", false, NAN, 0.0, 1, 0, "");
    r.total = 5.0;
    r.max = 5.0;
    char err[512] = "";
    const char *path = tmp_path("full.json");
    ck_assert_msg(report_write_json(path, &r, err, sizeof err) == 0, "%s", err);
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    ck_assert_msg(root != NULL, "%s", jerr.text);
    ck_assert(json_is_true(json_object_get(root, "full_marks")));
    const json_t *parts = json_object_get(root, "parts");
    ck_assert_str_eq(jstr(json_array_get(parts, 0), "reason"), "bad byte \\xff here, NaN points below");
    ck_assert(json_is_null(json_object_get(json_array_get(parts, 1), "points")));
    json_decref(root);

    ck_assert_int_eq(report_write_json("/nonexistent-dir/r.json", &r, err, sizeof err), -1);
    ck_assert_msg(strncmp(err, "/nonexistent-dir/r.json: ", 25) == 0, "%s", err);
}
END_TEST

/* ---- report.html --------------------------------------------------------------------- */

START_TEST(html_escapes_and_links)
{
    GradeReport r;
    make_report(&r, "eve <b>");
    char err[512] = "";
    const char *path = tmp_path("report.html");
    ck_assert_msg(report_write_html(path, &r, err, sizeof err) == 0, "%s", err);
    assert_no_tmp(path);
    char *html = harness_slurp(path, NULL);
    ck_assert_ptr_null(strstr(html, "<script"));
    ck_assert_ptr_null(strstr(html, "\x1b"));
    ck_assert_ptr_nonnull(strstr(html, "case 3 \\x1b[31m&lt;script&gt;alert(1)&lt;/script&gt;: u(2,3,4)"));
    ck_assert_ptr_nonnull(strstr(html, "<title>flipkit grade: eve &lt;b&gt;</title>"));
    ck_assert_ptr_null(strstr(html, "eve <b>"));
    ck_assert_ptr_nonnull(strstr(html, "<a href=\"logs/p2g.log\">failure log</a>"));
    ck_assert_ptr_nonnull(strstr(html, "src=\"img/ball_drop.jacobi.student.png\""));
    ck_assert_ptr_nonnull(strstr(html, "src=\"img/ball_drop.jacobi.reference.png\""));
    ck_assert_ptr_nonnull(strstr(html, "src=\"img/ball%20drop%26diff.png\""));
    ck_assert_ptr_nonnull(strstr(html, "First failing frame <b>30</b>: <b>centre of mass</b>"
                                       " was 0.25, limit 0.1."));
    ck_assert_ptr_nonnull(strstr(html, "<span style=\"width:45%\"></span>"));  /* p2g 4.5/10 */
    ck_assert_ptr_nonnull(strstr(html, "<span style=\"width:55%\"></span>"));  /* 22/40 */
    /* Self-contained: nothing fetched, nothing run. */
    ck_assert_ptr_null(strstr(html, "http"));
    ck_assert_ptr_null(strstr(html, "<link"));
    free(html);
}
END_TEST

/* ---- grades.csv ---------------------------------------------------------------------- */

START_TEST(class_csv_exact)
{
    GradeReport a, b;
    make_report(&a, "alice");
    memset(&b, 0, sizeof b);
    snprintf(b.student, sizeof b.student, "Doe, \"JJ\"");
    add_part(&b, "advect", false, 10.0, 10.0, 6, 6, "all 6 cases pass");
    add_part(&b, "ball_drop.jacobi", true, 20.0, 20.0, 60, 60, "all 60 frames match");
    add_part(&b, "extra", false, 2.25, 5.0, 5, 3, "case 4: ..."); /* 2.3, not printf's 2.2 */
    b.total = 32.25;
    char err[512] = "";
    char *paths[2] = { tmp_path("a.json"), tmp_path("b.json") };
    ck_assert_msg(report_write_json(paths[0], &a, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(report_write_json(paths[1], &b, err, sizeof err) == 0, "%s", err);
    const char *csv = tmp_path("grades.csv");
    ck_assert_msg(report_write_class_csv(csv, paths, 2, err, sizeof err) == 0, "%s", err);
    assert_no_tmp(csv);
    char *text = harness_slurp(csv, NULL);
    ck_assert_str_eq(text, "student,advect,p2g,ball_drop.jacobi,extra,total,max,status\r\n"
                           "alice,10.0,4.5,7.5,,22.0,40.0,graded\r\n"
                           "\"Doe, \"\"JJ\"\"\",10.0,,20.0,2.3,32.3,35.0,graded\r\n");
    free(text);

    ck_assert_msg(report_write_class_csv(csv, paths, 0, err, sizeof err) == 0, "%s", err);
    text = harness_slurp(csv, NULL);
    ck_assert_str_eq(text, "student,total,max,status\r\n");
    free(text);
}
END_TEST

/* The Canvas and Moodle layouts, byte for byte: a mapped student's row with their total, the
 * name that needs quoting quoted, and a report without an id left out, named on warn. */
START_TEST(gradebook_csv_exact)
{
    GradeReport a, b, c;
    make_report(&a, "alice");
    make_report(&b, "bob");
    make_report(&c, "carol");
    b.total = 12.25;   /* 12.3 in the CSV, as grades.csv rounds */
    char err[512] = "";
    char *paths[3] = { tmp_path("gb-a.json"), tmp_path("gb-b.json"), tmp_path("gb-c.json") };
    ck_assert_msg(report_write_json(paths[0], &a, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(report_write_json(paths[1], &b, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(report_write_json(paths[2], &c, err, sizeof err) == 0, "%s", err);
    const char *ids_path = tmp_path("ids.txt");
    spit(ids_path, "# roster\nalice s-1\n\n  bob\tbob@example.edu  \n");
    GradebookIds ids;
    ck_assert_msg(gradebook_ids_load(ids_path, &ids, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(ids.n, 2);
    ck_assert_int_eq(ids.ids[1].line, 4);
    static const struct { GradebookFormat f; const char *want; } cases[] = {
        { GRADEBOOK_CANVAS, "Student,ID,SIS User ID,SIS Login ID,Section,\"FLIP, kit (12)\"\r\n"
                            "alice,,s-1,,,22.0\r\nbob,,bob@example.edu,,,12.3\r\n" },
        { GRADEBOOK_MOODLE, "Student,ID,\"FLIP, kit (12)\"\r\nalice,s-1,22.0\r\nbob,bob@example.edu,12.3\r\n" },
    };
    for (size_t k = 0; k < 2; k++) {
        ReportGradebook gb = { cases[k].f, &ids, "FLIP, kit (12)" };
        const char *csv = tmp_path("gradebook.csv"), *warn_path = tmp_path("warn.txt");
        FILE *warn = fopen(warn_path, "w");
        int left_out = -1;
        ck_assert_msg(report_write_gradebook_csv(csv, paths, 3, &gb, warn, &left_out, err, sizeof err) == 0,
                      "%s", err);
        fclose(warn);
        ck_assert_int_eq(left_out, 1);
        char *text = harness_slurp(csv, NULL), *said = harness_slurp(warn_path, NULL);
        ck_assert_str_eq(text, cases[k].want);
        ck_assert_msg(strstr(said, "flipgrade: carol (") == said && strstr(said, "no line for it in") &&
                      strchr(said, '\n') == said + strlen(said) - 1, "carol not named in one line: %s", said);
        free(text), free(said);
    }
    gradebook_ids_free(&ids);
}
END_TEST

/* Every bad ids file is refused in one line naming the file, the line and what was expected,
 * and nothing is kept. */
START_TEST(gradebook_ids_strict)
{
    static const struct { const char *text, *says; } bad[] = {
        { "alice s-1 extra\n", ":1: \"alice s-1 extra\": expected \"NAME ID\"" },
        { "# only a name\nalice\n", ":2: \"alice\": expected \"NAME ID\"" },
        { "a$(x) s-1\n", ":1: \"a$(x)\" is not a submission's name" },
        { "-rf s-1\n", ":1: \"-rf\" is not a submission's name" },
        { "alice =1+1\n", ":1: alice's id \"=1+1\" starts with = + - or @" },
        { "alice @SUM(A1)\n", ":1: alice's id \"@SUM(A1)\" starts with" },
        { "alice s,1\n", ":1: alice's id \"s,1\" holds a byte other than printable ASCII" },
        { "alice s\x1b[2J\n", ":1: alice's id \"s\\x1b[2J\" holds a byte" },
        { "alice s-1\nalice s-2\n", ":2: name \"alice\" again (line 1 has it)" },
        { "alice s-1\nbob s-1\n", ":2: id \"s-1\" again (line 1 has it)" },
    };
    const char *path = tmp_path("bad-ids.txt");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[512] = "", want[600];
        GradebookIds ids;
        spit(path, bad[i].text);
        ck_assert_int_eq(gradebook_ids_load(path, &ids, err, sizeof err), -1);
        snprintf(want, sizeof want, "%s%s", path, bad[i].says);
        ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "case %zu: \"%s\", expected it to start \"%s\"",
                      i, err, want);
        ck_assert_ptr_null(strchr(err, '\n'));
        ck_assert_ptr_null(ids.ids);
    }
    char err[512] = "", line[1100];
    GradebookIds ids;
    memset(line, 'a', sizeof line - 2);
    line[sizeof line - 2] = '\n', line[sizeof line - 1] = '\0';
    spit(path, line);
    ck_assert_int_eq(gradebook_ids_load(path, &ids, err, sizeof err), -1);
    ck_assert_msg(strstr(err, ":1: a line longer than 1024 bytes"), "%s", err);
    ck_assert_int_eq(gradebook_ids_load(tmp_path("no-such-ids.txt"), &ids, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "no-such-ids.txt: cannot open the ids file"), "%s", err);
}
END_TEST

/* Writes one report per student name (a part named part), then grades.csv from them all. The
 * reports are written here, not by report_write_json (which escapes control bytes): the CSV
 * writer must be safe for any report.json it is given, raw tabs and line breaks included. */
static char *class_csv_of(const char *const students[], size_t n, const char *part)
{
    char *paths[16], err[512] = "";
    ck_assert_uint_le(n, 16);
    for (size_t i = 0; i < n; i++) {
        json_t *root = json_pack("{s:s, s:f, s:f, s:[{s:s, s:f, s:f}]}", "student", students[i], "total", 10.0,
                                 "max", 10.0, "parts", "name", part, "points", 10.0, "max", 10.0);
        ck_assert_ptr_nonnull(root);
        char name[32];
        snprintf(name, sizeof name, "guard%zu.json", i);
        paths[i] = strdup(tmp_path(name));
        ck_assert_int_eq(json_dump_file(root, paths[i], 0), 0);
        json_decref(root);
    }
    const char *csv = tmp_path("guarded.csv");
    ck_assert_msg(report_write_class_csv(csv, paths, (int)n, err, sizeof err) == 0, "%s", err);
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    return harness_slurp(csv, NULL);
}

/* A name a spreadsheet would run as a formula keeps its text behind an apostrophe INSIDE the
 * quotes, and no name, whatever it holds, adds a field to its row. */
START_TEST(class_csv_guards_formulas)
{
    static const char *const students[] = {
        "=1+1,2,3", "-2+3,\"x\"", "\t=cmd", "\r=x", "@SUM(A1)", "+1", "a\nb", "a\rb",
        "say \"hi\"", "x=1", "plain", "",
    };
    char *text = class_csv_of(students, sizeof students / sizeof students[0], "-part,1");
    ck_assert_str_eq(text, "student,\"'-part,1\",total,max,status\r\n"
                           "\"'=1+1,2,3\",10.0,10.0,10.0,graded\r\n"
                           "\"'-2+3,\"\"x\"\"\",10.0,10.0,10.0,graded\r\n"
                           "\"'\t=cmd\",10.0,10.0,10.0,graded\r\n"
                           "\"'\r=x\",10.0,10.0,10.0,graded\r\n"
                           "\"'@SUM(A1)\",10.0,10.0,10.0,graded\r\n"
                           "\"'+1\",10.0,10.0,10.0,graded\r\n"
                           "\"a\nb\",10.0,10.0,10.0,graded\r\n"
                           "\"a\rb\",10.0,10.0,10.0,graded\r\n"
                           "\"say \"\"hi\"\"\",10.0,10.0,10.0,graded\r\n"
                           "x=1,10.0,10.0,10.0,graded\r\n"
                           "plain,10.0,10.0,10.0,graded\r\n"
                           ",10.0,10.0,10.0,graded\r\n");
    free(text);
}
END_TEST

/* A part the grader could not grade is no score: an empty cell, an empty total, status error,
 * and report.json says so; a gradebook must not take the row for a grade of 0. */
START_TEST(class_csv_grading_error)
{
    GradeReport a;
    make_report(&a, "alice");
    a.parts[1].error = true;
    a.parts[1].points = 0;
    a.errors = 1;
    char err[512] = "";
    char *paths[1] = { tmp_path("err.json") };
    ck_assert_msg(report_write_json(paths[0], &a, err, sizeof err) == 0, "%s", err);
    char *json = harness_slurp(paths[0], NULL);
    ck_assert_msg(strstr(json, "\"status\": \"error\",\n  \"errors\": 1,\n  \"total\": null") != NULL,
                  "report.json has no error status, count and null total: %s", json);
    free(json);
    const char *csv = tmp_path("err.csv");
    ck_assert_msg(report_write_class_csv(csv, paths, 1, err, sizeof err) == 0, "%s", err);
    char *text = harness_slurp(csv, NULL);
    ck_assert_str_eq(text, "student,advect,p2g,ball_drop.jacobi,total,max,status\r\n"
                           "alice,10.0,,7.5,,40.0,error\r\n");
    free(text);
}
END_TEST

START_TEST(class_csv_malformed)
{
    GradeReport a;
    make_report(&a, "alice");
    char err[512] = "";
    char *paths[2] = { tmp_path("ok.json"), tmp_path("broken.json") };
    ck_assert_msg(report_write_json(paths[0], &a, err, sizeof err) == 0, "%s", err);
    const char *csv = tmp_path("kept.csv");
    spit(csv, "old grades\n");

    spit(paths[1], "{ \"student\": \"x\", \"parts\": [");
    ck_assert_int_eq(report_write_class_csv(csv, paths, 2, err, sizeof err), -1);
    ck_assert_msg(strncmp(err, paths[1], strlen(paths[1])) == 0, "%s", err);
    ck_assert_msg(strstr(err, "line 1") != NULL, "%s", err);
    ck_assert_ptr_null(strchr(err, '\n'));

    spit(paths[1], "{\"student\": \"x\", \"total\": 1, \"max\": 2, \"parts\": [{\"points\": 1}]}");
    ck_assert_int_eq(report_write_class_csv(csv, paths, 2, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "broken.json: not a flipkit report: parts[0] has no \"name\"") !=
                      NULL, "%s", err);

    char *missing[1] = { tmp_path("missing.json") };
    ck_assert_int_eq(report_write_class_csv(csv, missing, 1, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "missing.json: cannot open") != NULL, "%s", err);

    char *text = harness_slurp(csv, NULL);
    ck_assert_str_eq(text, "old grades\n");
    free(text);
    assert_no_tmp(csv);
}
END_TEST

/* ---- the terminal table -------------------------------------------------------------- */

/* The table report_print_table prints for r, as a string of *len bytes. */
static char *table_of(const GradeReport *r, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    ck_assert_ptr_nonnull(f);
    report_print_table(f, r);
    fclose(f);
    return buf;
}

START_TEST(table_fits_and_totals)
{
    GradeReport r;
    make_report(&r, "alice");
    size_t len = 0;
    char *buf = table_of(&r, &len);
    ck_assert_ptr_null(strchr(buf, '\x1b'));

    int lines = 0;
    const char *total = NULL, *scene = NULL;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"), lines++) {
        ck_assert_msg(strlen(line) <= 100, "line %d is %zu wide: %s", lines, strlen(line), line);
        if (strncmp(line, "total", 5) == 0)
            total = line;
        if (strncmp(line, "ball_drop.jacobi", 16) == 0)
            scene = line;
    }
    ck_assert_int_eq(lines, 7); /* header, rule, 3 parts, rule, total */
    ck_assert_ptr_nonnull(total);
    ck_assert_str_eq(total, "total               22.0    40.0");
    ck_assert_ptr_nonnull(scene);
    ck_assert_uint_eq(strlen(scene), 100);
    ck_assert_str_eq(scene + 97, "...");
    ck_assert_msg(strncmp(scene, "ball_drop.jacobi     7.5    20.0  frame 30: centre", 50) == 0,
                  "%s", scene);
    free(buf);
}
END_TEST

/* The table shows a student's bytes as the logs do (escape.h), counts the escapes' columns,
 * and cuts before an escape rather than inside it. */
START_TEST(table_escapes_whole)
{
    GradeReport r;
    make_report(&r, "alice");
    GradePart *p = &r.parts[1];   /* p2g; the names' column is ball_drop.jacobi's 16, so the
                                   * reason starts at column 34 and has 66 */
    snprintf(p->reason, sizeof p->reason, "%s", "ok\r\x1b[2Kadvect scored 10.0 / 10.0 \xc2\x9b" "2J \xe2\x80\xae"
             "evil \x1b]0;title\x07 \x1b]52;c;ZWNobyBoaQ==\x07 and more text to reach the cut");
    size_t len = 0;
    char *buf = table_of(&r, &len);
    for (size_t i = 0; i < len; i++)
        ck_assert_msg((unsigned char)buf[i] >= 0x20 || buf[i] == '\n', "byte 0x%02x at %zu", buf[i], i);
    const char *row = strstr(buf, "\np2g ");
    ck_assert_ptr_nonnull(row);
    row++;
    size_t width = strcspn(row, "\n");
    ck_assert_msg(width == 100, "the p2g row is %zu wide: %.*s", width, (int)width, row);
    ck_assert_msg(strncmp(row, "p2g                  4.5    10.0  ok\\r\\x1b[2Kadvect scored 10.0 / 10.0 "
                               "\\xc2\\x9b2J \\u202eevil \\x1b...\n", width + 1) == 0, "%.*s", (int)width, row);
    free(buf);

    /* a cut that would split an escape leaves it out whole: 61 digits, then \x1b at columns
     * 62 to 65 of the 63 the reason keeps before "..." */
    snprintf(p->reason, sizeof p->reason, "%s", "0123456789012345678901234567890123456789012345678901234567890"
             "\x1b tail and enough text to be cut");
    buf = table_of(&r, &len);
    row = strstr(buf, "\np2g ") + 1;
    width = strcspn(row, "\n");
    ck_assert_msg(width == 34 + 61 + 3 && strncmp(row + width - 6, "890...", 6) == 0, "%.*s",
                  (int)width, row);
    free(buf);
}
END_TEST

/* ---- PNGs ---------------------------------------------------------------------------- */

/* The domain used below: 2 x 1 at 202 px wide, so 200 x 100 domain pixels inside the frame. */
static const Vec3 png_domain = { 2.0f, 1.0f, 1.0f };
enum { IMG_W = 202, IMG_H = 102 };

typedef struct {
    int width, height;
    unsigned char *rgb;
} Decoded;

static Decoded decode(const char *path)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    ck_assert_msg(png_image_begin_read_from_file(&img, path), "%s: %s", path, img.message);
    img.format = PNG_FORMAT_RGB;
    Decoded d = { (int)img.width, (int)img.height, malloc(PNG_IMAGE_SIZE(img)) };
    ck_assert_ptr_nonnull(d.rgb);
    ck_assert_msg(png_image_finish_read(&img, NULL, d.rgb, 0, NULL), "%s: %s", path,
                  img.message);
    return d;
}

/* The pixel render.h says a point falls in, computed here from that comment. */
static const unsigned char *pixel_at(const Decoded *d, double x, double y)
{
    int w = IMG_W - 2, h = IMG_H - 2;
    int col = 1 + (int)floor(x / png_domain.x * w);
    int row = 1 + (h - 1) - (int)floor(y / png_domain.y * h);
    return d->rgb + 3 * ((size_t)row * (size_t)d->width + (size_t)col);
}

static const unsigned char *pixel(const Decoded *d, int col, int row)
{
    return d->rgb + 3 * ((size_t)row * (size_t)d->width + (size_t)col);
}

static int is_white(const unsigned char *p)
{
    return p[0] == 255 && p[1] == 255 && p[2] == 255;
}

START_TEST(png_density)
{
    Vec3 pos[] = {
        { 0.505f, 0.505f, 0.5f }, { 0.505f, 0.505f, 0.1f }, { 0.505f, 0.505f, 0.9f },
        { 1.505f, 0.255f, 0.5f },                         /* alone */
        { -1.0f, 0.705f, 0.5f },                          /* left of the box: drawn on its wall */
        { NAN, 0.5f, 0.5f },                              /* not drawn */
    };
    char err[512] = "";
    const char *path = tmp_path("density.png");
    ck_assert_msg(render_particles_png(path, pos, 6, png_domain, IMG_W, err, sizeof err) == 0,
                  "%s", err);
    assert_no_tmp(path);
    Decoded d = decode(path);
    ck_assert_int_eq(d.width, IMG_W);
    ck_assert_int_eq(d.height, IMG_H);

    const unsigned char *three = pixel_at(&d, 0.505, 0.505);
    const unsigned char *one = pixel_at(&d, 1.505, 0.255);
    ck_assert(!is_white(three) && three[2] > three[0]);
    ck_assert(!is_white(one) && one[2] > one[0]);
    ck_assert_msg(three[0] < one[0], "3 particles (%d) not darker than 1 (%d)", three[0], one[0]);
    ck_assert(!is_white(pixel_at(&d, 0.0, 0.705)));
    /* Far corners of the domain stay white; the frame is grey. */
    ck_assert(is_white(pixel(&d, IMG_W - 2, 1)));
    ck_assert(is_white(pixel(&d, IMG_W - 2, IMG_H - 2)));
    const unsigned char *frame = pixel(&d, 0, 0);
    ck_assert(frame[0] == frame[1] && frame[1] == frame[2] && frame[0] < 255);
    free(d.rgb);
}
END_TEST

/* A lone particle beside a pool of 5000 in one pixel is still clearly not white. */
START_TEST(png_lone_visible)
{
    enum { N = 5001 };
    Vec3 *pos = malloc(N * sizeof *pos);
    ck_assert_ptr_nonnull(pos);
    for (int i = 0; i < N - 1; i++)
        pos[i] = (Vec3){ 0.505f, 0.505f, 0.5f };
    pos[N - 1] = (Vec3){ 1.505f, 0.255f, 0.5f };
    char err[512] = "";
    const char *path = tmp_path("lone.png");
    ck_assert_msg(render_particles_png(path, pos, N, png_domain, IMG_W, err, sizeof err) == 0,
                  "%s", err);
    Decoded d = decode(path);
    const unsigned char *pool = pixel_at(&d, 0.505, 0.505);
    const unsigned char *one = pixel_at(&d, 1.505, 0.255);
    ck_assert_msg(one[0] < 200 && one[1] < 210, "lone particle too faint: %d %d %d", one[0],
                  one[1], one[2]);
    ck_assert_msg(pool[0] < 30 && pool[2] > pool[0], "pool not dark blue: %d %d %d", pool[0],
                  pool[1], pool[2]);
    free(d.rgb);
    free(pos);
}
END_TEST

START_TEST(png_diff_colours)
{
    Vec3 student[] = { { 0.505f, 0.505f, 0.5f }, { 1.005f, 0.805f, 0.5f } };
    Vec3 reference[] = { { 1.505f, 0.255f, 0.5f }, { 1.005f, 0.805f, 0.2f } };
    char err[512] = "";
    const char *path = tmp_path("diff.png");
    ck_assert_msg(render_diff_png(path, student, 2, reference, 2, png_domain, IMG_W, err,
                                  sizeof err) == 0, "%s", err);
    Decoded d = decode(path);
    ck_assert_int_eq(d.width, IMG_W);
    ck_assert_int_eq(d.height, IMG_H);
    const unsigned char *red = pixel_at(&d, 0.505, 0.505);
    const unsigned char *blue = pixel_at(&d, 1.505, 0.255);
    const unsigned char *grey = pixel_at(&d, 1.005, 0.805);
    ck_assert_msg(red[0] > 180 && red[1] < 100 && red[2] < 100, "not red: %d %d %d", red[0],
                  red[1], red[2]);
    ck_assert_msg(blue[2] > 180 && blue[0] < 100 && blue[1] < 120, "not blue: %d %d %d",
                  blue[0], blue[1], blue[2]);
    ck_assert(grey[0] == grey[1] && grey[1] == grey[2] && grey[0] < 200);
    ck_assert(is_white(pixel(&d, IMG_W - 2, 1)));
    free(d.rgb);
}
END_TEST

START_TEST(png_same_bytes)
{
    Vec3 pos[200];
    for (int i = 0; i < 200; i++)
        pos[i] = (Vec3){ 0.01f * (float)i, 0.5f + 0.4f * sinf((float)i), 0.5f };
    char err[512] = "";
    const char *p1 = tmp_path("same1.png"), *p2 = tmp_path("same2.png");
    const char *d1 = tmp_path("same1d.png"), *d2 = tmp_path("same2d.png");
    ck_assert_int_eq(render_particles_png(p1, pos, 200, png_domain, 300, err, sizeof err), 0);
    ck_assert_int_eq(render_particles_png(p2, pos, 200, png_domain, 300, err, sizeof err), 0);
    ck_assert_int_eq(render_diff_png(d1, pos, 100, pos + 50, 150, png_domain, 300, err,
                                     sizeof err), 0);
    ck_assert_int_eq(render_diff_png(d2, pos, 100, pos + 50, 150, png_domain, 300, err,
                                     sizeof err), 0);
    size_t n1, n2, m1, m2;
    char *a = harness_slurp(p1, &n1), *b = harness_slurp(p2, &n2), *c = harness_slurp(d1, &m1), *e = harness_slurp(d2, &m2);
    ck_assert_uint_eq(n1, n2);
    ck_assert_int_eq(memcmp(a, b, n1), 0);
    ck_assert_uint_eq(m1, m2);
    ck_assert_int_eq(memcmp(c, e, m1), 0);
    free(a);
    free(b);
    free(c);
    free(e);
}
END_TEST

START_TEST(png_errors)
{
    Vec3 p = { 0.5f, 0.5f, 0.5f };
    char err[512] = "";
    const char *path = tmp_path("bad.png");
    ck_assert_int_eq(render_particles_png(path, &p, 1, png_domain, 4, err, sizeof err), -1);
    ck_assert_msg(strncmp(err, path, strlen(path)) == 0 && strstr(err, "width 4 px"), "%s", err);
    Vec3 flat = { 1.0f, 0.0f, 1.0f };
    ck_assert_int_eq(render_diff_png(path, &p, 1, &p, 1, flat, 100, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "not positive") != NULL, "%s", err);
    Vec3 tall = { 1.0f, 100.0f, 1.0f };
    ck_assert_int_eq(render_particles_png(path, &p, 1, tall, 100, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "too tall") != NULL, "%s", err);
    const char *nodir = "/nonexistent-dir/x.png";
    ck_assert_int_eq(render_particles_png(nodir, &p, 1, png_domain, 100, err, sizeof err), -1);
    ck_assert_msg(strncmp(err, nodir, strlen(nodir)) == 0, "%s", err);
    ck_assert_int_eq(access(path, F_OK) != 0, 1);
}
END_TEST


/* What a stage printed, shown as text: every byte that could act on a terminal is escaped,
 * printable UTF-8 is kept, and a cut never splits an escape. */
START_TEST(escape_controls_as_text)
{
    char out[256];
    const char osc52[] = "\x1b]52;c;ZWNobyBoaQ==\x07";
    escape_text(out, sizeof out, osc52, sizeof osc52 - 1, 0);
    ck_assert_str_eq(out, "\\x1b]52;c;ZWNobyBoaQ==\\x07");
    const char fake[] = "ok\r\x1b[2Kadvect scored 10.0\n| x\\y\tz";
    escape_text(out, sizeof out, fake, sizeof fake - 1, 0);
    ck_assert_str_eq(out, "ok\\r\\x1b[2Kadvect scored 10.0\\n| x\\\\y\\tz");
    escape_text(out, sizeof out, fake, sizeof fake - 1, ESCAPE_KEEP_NEWLINES);
    ck_assert_str_eq(out, "ok\\r\\x1b[2Kadvect scored 10.0\n| x\\\\y\\tz");
    /* C1 CSI, a lone continuation byte, a bidi override; é and the arrow stay */
    const char mixed[] = "\xc2\x9b" "2J \x80 \xe2\x80\xae" "evil \xc3\xa9 \xe2\x86\x92";
    escape_text(out, sizeof out, mixed, sizeof mixed - 1, 0);
    ck_assert_str_eq(out, "\\xc2\\x9b2J \\x80 \\u202eevil \xc3\xa9 \xe2\x86\x92");
    /* cut: 12 bytes of room, never half an escape */
    escape_text(out, 12, "abcdef\x1b\x1b\x1b", 9, 0);
    ck_assert_str_eq(out, "abcdef...");
    ck_assert_uint_eq(escape_text(out, 4, "\x1b", 1, 0), 3);
    ck_assert_str_eq(out, "...");
    bool cut = true;
    char *d = escape_dup("a\x1b", 2, 100, 0, &cut);
    ck_assert_str_eq(d, "a\\x1b");
    ck_assert(!cut);
    free(d);
    d = escape_dup("abcdefghij", 10, 6, 0, &cut);
    ck_assert_str_eq(d, "abc...");
    ck_assert(cut);
    free(d);
}
END_TEST

START_TEST(escape_safe_names)
{
    static const char *const good[] = { "alice", "bob.smith", "carol_2", "d-e.zip", "X9" };
    static const char *const bad[] = { "", "-rf", ".hidden", "x$(touch MARKER)y", "a`id`", "a;b",
                                       "a\nb", "a b", "=1+1", "a,b", "a'b", "a\"b", "\xc3\xa9t\xc3\xa9",
                                       "..", "a/b",
                                       "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        ck_assert_msg(escape_safe_name(good[i]), "%s refused", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(!escape_safe_name(bad[i]), "bad name %zu taken", i);
}
END_TEST

/* ---- Gradescope's results.json (gradescope.c) ------------------------------------------------ */

/* The test of results.json named name, or a failed assertion listing what there is. */
static const json_t *gs_test(const json_t *root, const char *name)
{
    const json_t *tests = json_object_get(root, "tests");
    for (size_t i = 0; i < json_array_size(tests); i++)
        if (strcmp(jstr(json_array_get(tests, i), "name"), name) == 0)
            return json_array_get(tests, i);
    ck_abort_msg("results.json has no test \"%s\" (%zu tests)", name, json_array_size(tests));
    return NULL;
}

static json_t *gs_results(const GradescopeInput *in, const char *name)
{
    char err[512] = "";
    const char *out = tmp_path(name);
    ck_assert_msg(gradescope_write_results(out, in, err, sizeof err) == 0, "%s", err);
    assert_no_tmp(out);
    json_error_t jerr;
    json_t *root = json_load_file(out, 0, &jerr);
    ck_assert_msg(root != NULL, "%s: %s", out, jerr.text);
    ck_assert_str_eq(jstr(root, "output_format"), "text");
    ck_assert_str_eq(jstr(root, "stdout_visibility"), "hidden");
    return root;
}

/* One test per part with the report's points and reason, the public report's stage parts as
 * visible tests without points, the score the report's total. */
START_TEST(gradescope_from_reports)
{
    GradeReport r, pub;
    make_report(&r, "alice");
    make_report(&pub, "alice");
    char err[512] = "";
    const char *hidden = tmp_path("gs-hidden.json"), *public = tmp_path("gs-public.json");
    ck_assert_msg(report_write_json(hidden, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(report_write_json(public, &pub, err, sizeof err) == 0, "%s", err);
    GradescopeInput in = { .report = hidden, .public_report = public, .visibility = "after_due_date",
                           .max_points = 40 };
    json_t *root = gs_results(&in, "gs-results.json");
    ck_assert_double_eq_tol(jnum(root, "score"), 22.0, 1e-12);
    ck_assert_int_eq((int)jnum(root, "execution_time"), 13);
    ck_assert_msg(strstr(jstr(root, "output"), "22.0 / 40.0 points") &&
                  strstr(jstr(root, "output"), "after the due date"), "%s", jstr(root, "output"));
    ck_assert_uint_eq(json_array_size(json_object_get(root, "tests")), 5);   /* 2 public + 3 */

    const json_t *p2g = gs_test(root, "p2g (hidden cases)");
    ck_assert_double_eq_tol(jnum(p2g, "score"), 4.5, 1e-12);
    ck_assert_double_eq_tol(jnum(p2g, "max_score"), 10.0, 1e-12);
    ck_assert_str_eq(jstr(p2g, "status"), "failed");
    ck_assert_str_eq(jstr(p2g, "visibility"), "after_due_date");
    ck_assert_str_eq(jstr(p2g, "output_format"), "text");
    ck_assert_str_eq(jstr(p2g, "output"), "case 3 \\x1b[31m<script>alert(1)</script>: u(2,3,4) "
                                          "expected 1 got 2\n3 of 6 cases passed.");
    const json_t *advect = gs_test(root, "advect (hidden cases)");
    ck_assert_str_eq(jstr(advect, "status"), "passed");
    const json_t *scene = gs_test(root, "ball_drop.jacobi (whole scene)");
    ck_assert_double_eq_tol(jnum(scene, "score"), 7.5, 1e-12);
    ck_assert_msg(strstr(jstr(scene, "output"), "30 of 60 frames passed.\nFirst failing frame 30: "
                                                "centre of mass 0.25 (limit 0.1).") != NULL,
                  "%s", jstr(scene, "output"));
    const json_t *pub_p2g = gs_test(root, "p2g (public cases, no points)");
    ck_assert_double_eq(jnum(pub_p2g, "score"), 0.0);
    ck_assert_double_eq(jnum(pub_p2g, "max_score"), 0.0);
    ck_assert_str_eq(jstr(pub_p2g, "status"), "failed");
    ck_assert_str_eq(jstr(pub_p2g, "visibility"), "visible");
    ck_assert_str_eq(jstr(gs_test(root, "advect (public cases, no points)"), "status"), "passed");
    json_decref(root);
}
END_TEST

/* No grade: a report with a part the grader failed on, and no report at all, each give score
 * 0 and say why; text with raw controls (a report made elsewhere, the grader's own output) is
 * escaped. */
START_TEST(gradescope_no_grade)
{
    const char *raw = tmp_path("gs-raw.json");
    spit(raw, "{\"status\": \"error\", \"errors\": 1, \"total\": null, \"max\": 10, \"seconds\": 1,"
              " \"parts\": [{\"name\": \"p2g\", \"kind\": \"stage\", \"status\": \"error\", \"points\": null,"
              " \"max\": 10, \"total\": 7, \"passed\": 0, \"reason\": \"grading error \\u001b]0;x\\u0007 \\u202e\"}]}\n");
    GradescopeInput in = { .report = raw, .visibility = "hidden", .max_points = 10 };
    json_t *root = gs_results(&in, "gs-error.json");
    ck_assert_double_eq(jnum(root, "score"), 0.0);
    ck_assert_msg(strncmp(jstr(root, "output"), "No grade yet", 12) == 0, "%s", jstr(root, "output"));
    const json_t *p2g = gs_test(root, "p2g (hidden cases)");
    ck_assert_str_eq(jstr(p2g, "output"), "grading error \\x1b]0;x\\x07 \\u202e");
    ck_assert_str_eq(jstr(p2g, "status"), "failed");
    ck_assert_str_eq(jstr(p2g, "visibility"), "hidden");
    json_decref(root);

    const char *log = tmp_path("gs-log.txt");
    spit(log, "flipgrade: grading submission\nflipgrade: \x1b[2Jno Landlock here\n");
    GradescopeInput none = { .report = tmp_path("gs-missing.json"), .log = log,
                             .visibility = "after_published", .max_points = 100 };
    root = gs_results(&none, "gs-none.json");
    ck_assert_double_eq(jnum(root, "score"), 0.0);
    ck_assert_uint_eq(json_array_size(json_object_get(root, "tests")), 1);
    const json_t *t = gs_test(root, "grading");
    ck_assert_double_eq(jnum(t, "max_score"), 100.0);
    ck_assert_str_eq(jstr(t, "visibility"), "visible");
    ck_assert_msg(strstr(jstr(t, "output"), "flipgrade wrote no report") &&
                  strstr(jstr(t, "output"), "flipgrade: \\x1b[2Jno Landlock here\n"),
                  "%s", jstr(t, "output"));
    ck_assert_msg(strncmp(jstr(root, "output"), "No grade:", 9) == 0, "%s", jstr(root, "output"));
    json_decref(root);
}
END_TEST

static Suite *report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *files = tcase_create("files");
    tcase_add_test(files, json_read_back);
    tcase_add_test(files, json_full_marks_and_bad_text);
    tcase_add_test(files, html_escapes_and_links);
    tcase_add_test(files, class_csv_exact);
    tcase_add_test(files, class_csv_guards_formulas);
    tcase_add_test(files, class_csv_grading_error);
    tcase_add_test(files, class_csv_malformed);
    tcase_add_test(files, gradescope_from_reports);
    tcase_add_test(files, gradescope_no_grade);
    tcase_add_test(files, gradebook_csv_exact);
    tcase_add_test(files, gradebook_ids_strict);
    tcase_add_test(files, table_fits_and_totals);
    tcase_add_test(files, table_escapes_whole);
    tcase_add_test(files, escape_controls_as_text);
    tcase_add_test(files, escape_safe_names);
    suite_add_tcase(s, files);

    TCase *png = tcase_create("png");
    tcase_add_test(png, png_density);
    tcase_add_test(png, png_lone_visible);
    tcase_add_test(png, png_diff_colours);
    tcase_add_test(png, png_same_bytes);
    tcase_add_test(png, png_errors);
    suite_add_tcase(s, png);
    return s;
}

int main(void)
{
    return harness_run(report_suite());
}
