/* feedback.c — a student's report made fit to hand back (make feedback; feedback.h).
 * flipkit grader/: the instructor's report directory holds the grading machine's paths, a
 * `make view` line that needs the reference's frames, and up to 30 MB of the student's frames. */
#define _XOPEN_SOURCE 700
#include "feedback.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fileerr.h"
#include "grade.h"
#include "grading.h"
#include "report.h"

#define FEEDBACK_LOG_MAX (512L << 10)   /* a part's log is at most 256 KiB as grading.c writes it */
#define FEEDBACK_IMAGE_MAX (4L << 20)   /* a picture larger than this is not render.c's */

/* ---- taking the machine's paths out of text ------------------------------------------------- */

static bool feedback_path_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '-' || c == '/' || c == '~' || c == '+' || c == '@';
}

/* A path of the system's, the same on a student's machine: kept, it helps (/usr/include). */
static bool feedback_system_path(const char *p, size_t n)
{
    static const char *const sys[] = { "/usr/", "/lib/", "/lib64/", "/bin/", "/sbin/", "/etc/",
                                       "/dev/", "/proc/", "/sys/" };
    for (size_t i = 0; i < sizeof sys / sizeof sys[0]; i++)
        if (n >= strlen(sys[i]) && strncmp(p, sys[i], strlen(sys[i])) == 0)
            return true;
    return false;
}

/* Appends what the absolute path p (n bytes) becomes to out (room for n bytes more). */
static size_t feedback_put_path(char *out, const char *p, size_t n, const char *kit, size_t kn)
{
    bool in_kit = kn > 1 && n > kn && strncmp(p, kit, kn) == 0 && p[kn] == '/';
    if (in_kit && !(n > kn + 7 && strncmp(p + kn, "/build/", 7) == 0)) {
        memcpy(out, p + kn + 1, n - kn - 1);
        return n - kn - 1;
    }
    if ((kn > 1 && n == kn && strncmp(p, kit, kn) == 0)) {
        out[0] = '.';
        return 1;
    }
    if (n < 2 || feedback_system_path(p, n)) {
        memcpy(out, p, n);
        return n;
    }
    size_t end = n, start;
    while (end > 1 && p[end - 1] == '/')
        end--;
    for (start = end; start > 0 && p[start - 1] != '/'; start--)
        ;
    memcpy(out, p + start, end - start);
    return end - start;
}

char *feedback_scrub(const char *text, size_t len, const char *kit_root)
{
    size_t kn = kit_root ? strlen(kit_root) : 0;
    char *out = malloc(len + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        bool starts = text[i] == '/' && (i == 0 || !feedback_path_char(text[i - 1]));
        if (!starts) {
            out[o++] = text[i++];
            continue;
        }
        size_t n = 1;
        while (i + n < len && feedback_path_char(text[i + n]))
            n++;
        o += feedback_put_path(out + o, text + i, n, kit_root, kn);
        i += n;
    }
    out[o] = '\0';
    return out;
}

/* Every string in j, scrubbed in place. Returns -1 when out of memory. */
static int feedback_scrub_json(json_t *j, const char *kit)
{
    if (json_is_string(j)) {
        char *s = feedback_scrub(json_string_value(j), json_string_length(j), kit);
        int rc = s ? json_string_set(j, s) : -1;
        free(s);
        return rc;
    }
    const char *key;
    json_t *v;
    size_t i;
    if (json_is_object(j))
        json_object_foreach(j, key, v)
            if (feedback_scrub_json(v, kit) != 0)
                return -1;
    if (json_is_array(j))
        json_array_foreach(j, i, v)
            if (feedback_scrub_json(v, kit) != 0)
                return -1;
    return 0;
}

/* ---- the report back into a GradeReport, for report.c's HTML and table ---------------------- */

static int feedback_hex(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static size_t feedback_utf8(char *out, unsigned cp)
{
    if (cp < 0x80) { out[0] = (char)cp; return 1; }
    if (cp < 0x800) { out[0] = (char)(0xC0 | cp >> 6); out[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    out[0] = (char)(0xE0 | cp >> 12);
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
}

/* report.json holds escape.h's text; report.c escapes what it shows, so the bytes it stood for
 * go back into the GradeReport and come out as the same text (not "\\x1b"). */
static void feedback_unescape(char *dst, size_t cap, const char *s)
{
    size_t o = 0;
    for (size_t i = 0; s[i] && o + 4 < cap;) {
        int h1, h2;
        if (s[i] != '\\' || !s[i + 1]) {
            dst[o++] = s[i++];
        } else if (s[i + 1] == 'x' && (h1 = feedback_hex(s[i + 2])) >= 0 && (h2 = feedback_hex(s[i + 3])) >= 0) {
            dst[o++] = (char)(h1 * 16 + h2);
            i += 4;
        } else if (s[i + 1] == 'u' && strspn(s + i + 2, "0123456789abcdefABCDEF") >= 4) {
            unsigned cp = 0;
            for (int k = 0; k < 4; k++)
                cp = cp * 16 + (unsigned)feedback_hex(s[i + 2 + k]);
            o += feedback_utf8(dst + o, cp);
            i += 6;
        } else {
            char c = s[i + 1];
            dst[o++] = c == 't' ? '\t' : c == 'r' ? '\r' : c == 'n' ? '\n' : c;
            i += 2;
        }
    }
    dst[o] = '\0';
}

static void feedback_get_str(const json_t *o, const char *key, char *dst, size_t cap)
{
    const char *s = json_string_value(json_object_get(o, key));
    feedback_unescape(dst, cap, s ? s : "");
}

static double feedback_get_num(const json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

static void feedback_fill_part(GradePart *p, const json_t *j)
{
    feedback_get_str(j, "name", p->name, sizeof p->name);
    const char *kind = json_string_value(json_object_get(j, "kind"));
    p->is_scene = kind && strcmp(kind, "scene") == 0;
    p->points = feedback_get_num(j, "points");
    p->max = feedback_get_num(j, "max");
    p->total = (int)json_integer_value(json_object_get(j, "total"));
    p->passed = (int)json_integer_value(json_object_get(j, "passed"));
    feedback_get_str(j, "reason", p->reason, sizeof p->reason);
    feedback_get_str(j, "log", p->detail_log, sizeof p->detail_log);
    const json_t *ff = json_object_get(j, "first_fail"), *im = json_object_get(j, "images");
    if (ff) {
        p->first_fail.frame = (int)json_integer_value(json_object_get(ff, "frame"));
        feedback_get_str(ff, "metric", p->first_fail.metric, sizeof p->first_fail.metric);
        p->first_fail.got = feedback_get_num(ff, "got");
        p->first_fail.limit = feedback_get_num(ff, "limit");
    }
    feedback_get_str(im, "student", p->image_student, sizeof p->image_student);
    feedback_get_str(im, "reference", p->image_reference, sizeof p->image_reference);
    feedback_get_str(im, "diff", p->image_diff, sizeof p->image_diff);
    const json_t *cases = json_object_get(j, "cases"), *c;
    size_t i;
    json_array_foreach(cases, i, c) {
        if (p->ncases >= GRADE_MAX_CASES)
            break;
        GradeCase *gc = &p->cases[p->ncases++];
        feedback_get_str(c, "case", gc->name, sizeof gc->name);
        gc->passed = json_is_true(json_object_get(c, "passed"));
        feedback_get_str(c, "failure", gc->reason, sizeof gc->reason);
    }
    /* no p->view: `make view` needs the reference's frames, which a student does not have */
}

static void feedback_fill_report(GradeReport *r, const json_t *root)
{
    memset(r, 0, sizeof *r);
    feedback_get_str(root, "student", r->student, sizeof r->student);
    feedback_get_str(root, "submission", r->submission, sizeof r->submission);
    feedback_get_str(root, "mode", r->mode, sizeof r->mode);
    feedback_get_str(root, "sandbox", r->sandbox, sizeof r->sandbox);
    feedback_get_str(root, "grader", r->grader, sizeof r->grader);
    feedback_get_str(root, "config_hash", r->config_hash, sizeof r->config_hash);
    feedback_get_str(root, "data_hash", r->data_hash, sizeof r->data_hash);
    feedback_get_str(root, "graded_at", r->graded_at, sizeof r->graded_at);
    r->seconds = feedback_get_num(root, "seconds");
    r->total = feedback_get_num(root, "total");
    r->max = feedback_get_num(root, "max");
    const json_t *parts = json_object_get(root, "parts"), *p;
    size_t i;
    json_array_foreach(parts, i, p)
        if (r->nparts < GRADE_MAX_PARTS)
            feedback_fill_part(&r->parts[r->nparts++], p);
}

/* ---- the files of one student's feedback ---------------------------------------------------- */

typedef struct {
    char rel[GRADE_PATH_MAX];   /* logs/p2g.log or images/x.png, relative to the report dir */
    char *data;                 /* what goes out (a log scrubbed), malloc'd */
    size_t len;
    bool placed;                /* feedback_cut_logs: given its share already */
} FeedbackFile;

typedef struct {
    json_t *root;               /* report.json, scrubbed */
    GradeReport *report;
    FeedbackFile logs[GRADE_MAX_PARTS], images[3 * GRADE_MAX_PARTS];
    int nlogs, nimages;
} Feedback;

/* A path the report names: one plain file right under logs/ or images/, nothing else. */
static bool feedback_rel_ok(const char *rel, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(rel, dir, n) == 0 && rel[n] == '/' && rel[n + 1] && rel[n + 1] != '.' &&
           !strchr(rel + n + 1, '/');
}

/* Reads report_dir/rel, at most max bytes; NULL with err when it cannot. */
static char *feedback_read(const char *report_dir, const char *rel, long max, size_t *len,
                           char *err, size_t errlen)
{
    char path[2 * GRADE_PATH_MAX];
    textf(path, sizeof path, "%s/%s", report_dir, rel);
    FILE *f = fopen(path, "rb");
    char *buf = f ? malloc((size_t)max + 1) : NULL;
    if (!f || !buf) {
        fileerr_set(err, errlen, path, "cannot read it: %s", f ? "out of memory" : strerror(errno));
        if (f)
            fclose(f);
        return NULL;
    }
    *len = fread(buf, 1, (size_t)max + 1, f);
    fclose(f);
    if (*len > (size_t)max) {
        fileerr_set(err, errlen, path, "larger than %ld bytes: not a report's file", max);
        free(buf);
        return NULL;
    }
    buf[*len] = '\0';
    return buf;
}

static int feedback_take_log(Feedback *fb, const char *dir, const char *rel, const char *kit,
                             char *err, size_t errlen)
{
    if (!feedback_rel_ok(rel, "logs") || fb->nlogs >= GRADE_MAX_PARTS)
        return 0;   /* not a log grading.c wrote: leave it out */
    size_t n;
    char *raw = feedback_read(dir, rel, FEEDBACK_LOG_MAX, &n, err, errlen);
    if (!raw)
        return -1;
    FeedbackFile *f = &fb->logs[fb->nlogs++];
    textf(f->rel, sizeof f->rel, "%s", rel);
    f->data = feedback_scrub(raw, n, kit);
    f->len = f->data ? strlen(f->data) : 0;
    free(raw);
    return f->data ? 0 : (fileerr_set(err, errlen, rel, "out of memory"), -1);
}

static int feedback_take_images(Feedback *fb, const char *dir, const json_t *images, char *err,
                                size_t errlen)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)images, key, v) {
        const char *rel = json_string_value(v);
        if (!rel || !feedback_rel_ok(rel, "images") || fb->nimages >= 3 * GRADE_MAX_PARTS)
            continue;
        FeedbackFile *f = &fb->images[fb->nimages];
        textf(f->rel, sizeof f->rel, "%s", rel);
        if (!(f->data = feedback_read(dir, rel, FEEDBACK_IMAGE_MAX, &f->len, err, errlen)))
            return -1;
        fb->nimages++;
    }
    return 0;
}

static int feedback_take_files(Feedback *fb, const char *dir, const char *kit, char *err,
                               size_t errlen)
{
    const json_t *p;
    size_t i;
    json_array_foreach(json_object_get(fb->root, "parts"), i, p) {
        const char *log = json_string_value(json_object_get(p, "log"));
        if (log && feedback_take_log(fb, dir, log, kit, err, errlen) != 0)
            return -1;
        const json_t *im = json_object_get(p, "images");
        if (im && feedback_take_images(fb, dir, im, err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* Pictures that do not fit are left out, and the report no longer names them. */
static void feedback_drop_images(Feedback *fb)
{
    json_t *p;
    size_t i;
    json_array_foreach(json_object_get(fb->root, "parts"), i, p)
        json_object_del(p, "images");
    for (int k = 0; k < fb->report->nparts; k++) {
        GradePart *q = &fb->report->parts[k];
        q->image_student[0] = q->image_reference[0] = q->image_diff[0] = '\0';
    }
}

/* ---- measuring and writing ------------------------------------------------------------------ */

static int feedback_json_body(FILE *f, const void *root)
{
    if (json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) != 0)
        return -1;
    return fputc('\n', f) == EOF ? -1 : 0;
}

/* The table a student reads in a terminal, headed by whose it is (a class's tables are many). */
static int feedback_txt_body(FILE *f, const void *ctx)
{
    const GradeReport *r = ctx;
    fprintf(f, "flipkit grade for %s (%s), graded %s\n\n", r->student, r->submission, r->graded_at);
    report_print_table(f, r);
    return ferror(f) ? -1 : 0;
}

/* Written to memory and counted: ftell on /dev/null counts only what is still in the stdio
 * buffer (its offset stays 0), so a report.json over 4 KiB was measured short and the cap broken. */
static long feedback_measure(int (*body)(FILE *, const void *), const void *ctx)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return 0;
    body(f, ctx);
    fclose(f);
    free(buf);
    return (long)n;
}

/* report.html through report.c, measured by writing it to a temporary in-memory stream. */
static long feedback_html_size(const GradeReport *r)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return 0;
    report_print_html(f, r);
    fclose(f);
    free(buf);
    return (long)n;
}

static long feedback_fixed_size(const Feedback *fb)
{
    return feedback_measure(feedback_json_body, fb->root) + feedback_measure(feedback_txt_body, fb->report) +
           feedback_html_size(fb->report);
}

static long feedback_files_size(const FeedbackFile *f, int n)
{
    long sum = 0;
    for (int i = 0; i < n; i++)
        sum += (long)f[i].len;
    return sum;
}

/* Cuts the logs to share room fairly: the shortest first, each to at most an equal share of
 * what is left, with a line at the end that says how much is not shown. */
static void feedback_cut_logs(Feedback *fb, long room, long max_bytes, FeedbackResult *res)
{
    static const char note[] = "\n... (%zu more bytes not shown: feedback holds at most %ld KiB "
                               "per student; your instructor has the whole log)\n";
    for (int left = fb->nlogs; left > 0; left--) {
        int pick = -1;   /* the shortest log not yet placed */
        for (int i = 0; i < fb->nlogs; i++)
            if (!fb->logs[i].placed && (pick < 0 || fb->logs[i].len < fb->logs[pick].len))
                pick = i;
        FeedbackFile *f = &fb->logs[pick];
        long share = room / left;
        f->placed = true;
        if ((long)f->len > share) {
            size_t keep = share > 200 ? (size_t)share - 200 : 0, cut = f->len - keep;
            snprintf(f->data + keep, f->len - keep + 1, note, cut, max_bytes / 1024);
            f->len = strlen(f->data);
            res->logs_cut++;
        }
        room -= (long)f->len;
    }
}

static int feedback_put(const char *dir, const char *rel, const char *data, size_t len, char *err,
                        size_t errlen)
{
    char path[2 * GRADE_PATH_MAX];
    textf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        fileerr_set(err, errlen, path, "cannot write it: %s", strerror(errno));
        return -1;
    }
    return 0;
}

static int feedback_put_body(const char *dir, const char *rel, int (*body)(FILE *, const void *),
                             const void *ctx, char *err, size_t errlen)
{
    char path[2 * GRADE_PATH_MAX];
    textf(path, sizeof path, "%s/%s", dir, rel);
    return report_write_file(path, body, ctx, err, errlen);
}


static int feedback_write_dir(const Feedback *fb, const char *tmp, char *err, size_t errlen)
{
    char sub[2 * GRADE_PATH_MAX];
    grading_remove_tree(tmp);
    textf(sub, sizeof sub, "%s/logs", tmp);
    if (mkdir(tmp, 0755) != 0 || (fb->nlogs && mkdir(sub, 0755) != 0)) {
        fileerr_set(err, errlen, tmp, "cannot make it: %s", strerror(errno));
        return -1;
    }
    textf(sub, sizeof sub, "%s/images", tmp);
    if (fb->nimages && mkdir(sub, 0755) != 0) {
        fileerr_set(err, errlen, sub, "cannot make it: %s", strerror(errno));
        return -1;
    }
    for (int i = 0; i < fb->nlogs; i++)
        if (feedback_put(tmp, fb->logs[i].rel, fb->logs[i].data, fb->logs[i].len, err, errlen) != 0)
            return -1;
    for (int i = 0; i < fb->nimages; i++)
        if (feedback_put(tmp, fb->images[i].rel, fb->images[i].data, fb->images[i].len, err, errlen) != 0)
            return -1;
    if (feedback_put_body(tmp, "report.json", feedback_json_body, fb->root, err, errlen) != 0 ||
        feedback_put_body(tmp, "report.txt", feedback_txt_body, fb->report, err, errlen) != 0)
        return -1;
    char path[2 * GRADE_PATH_MAX];
    textf(path, sizeof path, "%s/report.html", tmp);
    return report_write_html(path, fb->report, err, errlen);
}

static void feedback_free(Feedback *fb)
{
    for (int i = 0; i < fb->nlogs; i++)
        free(fb->logs[i].data);
    for (int i = 0; i < fb->nimages; i++)
        free(fb->images[i].data);
    json_decref(fb->root);
    free(fb->report);
}

/* The submission as the student named it (bob.zip), not where the instructor kept it, even
 * relative to the kit (build/class/bob.zip). */
static void feedback_keep_last_name(json_t *submission)
{
    const char *s = json_string_value(submission), *slash = s ? strrchr(s, '/') : NULL;
    if (slash && slash[1]) {
        char *name = strdup(slash + 1);
        if (name)
            json_string_set(submission, name);
        free(name);
    }
}

static int feedback_load(Feedback *fb, const char *report_dir, const char *kit, char *err,
                         size_t errlen)
{
    char path[2 * GRADE_PATH_MAX];
    json_error_t je;
    textf(path, sizeof path, "%s/report.json", report_dir);
    if (!(fb->root = json_load_file(path, 0, &je)) || !json_is_object(fb->root) ||
        !json_is_array(json_object_get(fb->root, "parts"))) {
        fileerr_set(err, errlen, path, "not a flipkit report: %s", fb->root ? "no \"parts\" array" : je.text);
        return -1;
    }
    const char *status = json_string_value(json_object_get(fb->root, "status"));
    if (status && strcmp(status, "error") == 0) {
        fileerr_set(err, errlen, path, "no grade (status error: the grader failed on a part); "
                    "grade it again before handing it back");
        return 1;
    }
    if (feedback_scrub_json(fb->root, kit) != 0 || !(fb->report = malloc(sizeof *fb->report))) {
        fileerr_set(err, errlen, path, "out of memory");
        return -1;
    }
    feedback_keep_last_name(json_object_get(fb->root, "submission"));
    feedback_fill_report(fb->report, fb->root);
    return feedback_take_files(fb, report_dir, kit, err, errlen);
}

int feedback_student(const char *report_dir, const char *out_dir, const char *kit_root,
                     long max_bytes, FeedbackResult *res, char *err, size_t errlen)
{
    Feedback fb = { 0 };
    *res = (FeedbackResult){ 0 };
    int rc = feedback_load(&fb, report_dir, kit_root, err, errlen);
    if (rc == 0) {
        long fixed = feedback_fixed_size(&fb), logs = feedback_files_size(fb.logs, fb.nlogs);
        if (fixed + logs + feedback_files_size(fb.images, fb.nimages) > max_bytes) {
            res->images_dropped = fb.nimages;
            for (int i = 0; i < fb.nimages; i++)
                free(fb.images[i].data);
            fb.nimages = 0;
            feedback_drop_images(&fb);
            fixed = feedback_fixed_size(&fb);
        }
        if (fixed + logs > max_bytes)
            feedback_cut_logs(&fb, max_bytes - fixed > 0 ? max_bytes - fixed : 0, max_bytes, res);
        res->logs = fb.nlogs;
        res->bytes = feedback_fixed_size(&fb) + feedback_files_size(fb.logs, fb.nlogs) +
                     feedback_files_size(fb.images, fb.nimages);
        char tmp[2 * GRADE_PATH_MAX];
        textf(tmp, sizeof tmp, "%s.tmp", out_dir);
        rc = feedback_write_dir(&fb, tmp, err, errlen);
        if (rc == 0) {
            grading_remove_tree(out_dir);
            if (rename(tmp, out_dir) != 0) {
                fileerr_set(err, errlen, out_dir, "cannot rename %s to it: %s", tmp, strerror(errno));
                rc = -1;
            }
        }
    }
    feedback_free(&fb);
    return rc;
}
