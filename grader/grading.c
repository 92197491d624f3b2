/* grading.c — what the grader's parts share while grading one submission: limits, the time
 * budget, parts, logs, owned files. flipkit grader/: flipgrade.c (main) makes the Grading;
 * build.c, stagepart.c and scenepart.c call these. Nothing here prints. */
#define _XOPEN_SOURCE 700
#include "grading.h"
#include "escape.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <time.h>

double grading_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int grading_mkdirs(const char *path)
{
    char buf[PATH_MAX];
    textf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* The limit is CPU time: every program is pinned to one core (sandbox_cpu), so its CPU time
 * is its own work, whatever the neighbours on that core take, while its wall clock is not.
 * (RLIMIT_CPU is checked against a per-tick sample: many short tasks on the same core made it
 * fire at 0.64 s of exact CPU for a 1 s limit; the limits stay far above an honest run's.)
 * The wall clock only stops a program that waits instead of computing (a sleep, a lock):
 * wall_factor times the CPU limit, cut to what is left of the submission's budget. */
SandboxLimits grading_limits(const Grading *gr, double cpu_seconds)
{
    const GradeConfig *c = gr->cfg;
    double left = gr->deadline - grading_now();
    double wall_seconds = c->wall_factor * cpu_seconds;
    wall_seconds = left < wall_seconds ? (left > 0.1 ? left : 0.1) : wall_seconds;
    return (SandboxLimits){ .wall_seconds = wall_seconds, .cpu_seconds = cpu_seconds,
                            .memory_mib = (size_t)c->memory_mib, .file_mib = (size_t)c->file_mib,
                            .output_kib = (size_t)c->output_kib, .processes = (int)c->processes,
                            .confine_writes = sandbox_can_confine(), .isolate = true,
                            .disk_mib = (size_t)c->disk_mib, .stage_calls = true,
                            .keep_kib = gr->disk_left_kib > 0 ? (size_t)gr->disk_left_kib : 1 };
}

bool grading_failed_itself(const SandboxResult *res)
{
    return res->outcome == SB_START ||
           (res->outcome == SB_BUDGET && strncmp(res->guard, "its files could not be copied back", 34) == 0);
}

/* A run the grader itself failed is run once more, after a pause: what stops a start (a
 * limit or memory the machine's other work holds for a moment) is seldom there a second later. */
void grading_run(Grading *gr, const char *dir, char *const argv[], char *const envp[],
                 const SandboxLimits *lim, SandboxResult *res)
{
    sandbox_run(dir, argv, envp, lim, res);
    if (grading_failed_itself(res)) {
        sandbox_result_free(res);
        struct timespec pause = { .tv_sec = 1 };
        nanosleep(&pause, NULL);
        SandboxLimits again = *lim;
        double left = gr->deadline - grading_now();   /* the pause counts against the budget */
        if (again.wall_seconds > left)
            again.wall_seconds = left > 0.1 ? left : 0.1;
        sandbox_run(dir, argv, envp, &again, res);
    }
    gr->disk_left_kib -= res->kept_kib;
}

void grading_mark_error(Grading *gr, GradePart *part, const char *why)
{
    if (!part->error)
        gr->report.errors++;
    part->error = true;
    part->points = 0;
    textf(part->reason, sizeof part->reason, "grading error: %s", why);
    grading_log(gr, part, "%s\n", part->reason);
}

static int grading_drop_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

void grading_remove_tree(const char *path)
{
    nftw(path, grading_drop_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void grading_drop_run(Grading *gr, const char *dir, long kept_kib)
{
    grading_remove_tree(dir);
    gr->disk_left_kib += kept_kib;
}

bool grading_time_left(const Grading *gr, char *why, size_t n)
{
    if (grading_now() < gr->deadline - 0.1)
        return true;
    textf(why, n, "not run: the submission's time budget (limits.submission_seconds = %g s) is spent",
          gr->cfg->submission_seconds);
    return false;
}

GradePart *grading_add_part(Grading *gr, const char *name, bool is_scene, double max)
{
    static GradePart spare;
    GradeReport *r = &gr->report;
    GradePart *p = r->nparts < GRADE_MAX_PARTS ? &r->parts[r->nparts++] : &spare;
    memset(p, 0, sizeof *p);
    textf(p->name, sizeof p->name, "%s", name);
    p->is_scene = is_scene;
    p->max = max;
    return p;
}

/* Escapes src (len bytes) into dst, a character at a time, newlines kept and followed by "| "
 * when quote is set (unless they end the text); stops before the text would pass cap bytes.
 * Returns the bytes of src it took; *n receives the bytes written (no NUL). */
static size_t grading_escape_into(char *dst, size_t cap, const char *src, size_t len, bool quote, size_t *n)
{
    size_t i = 0, k;
    *n = 0;
    for (; i < len; i += k) {
        char one[16];
        size_t m = escape_char(src + i, len - i, ESCAPE_KEEP_NEWLINES, one, &k);
        size_t prefix = quote && one[0] == '\n' && i + k < len ? 2 : 0;
        if (*n + m + prefix > cap)
            break;
        memcpy(dst + *n, one, m);
        memcpy(dst + *n + m, "| ", prefix);
        *n += m + prefix;
    }
    return i;
}

/* The part's log file, opened for appending; made (empty) and named on first use. */
static FILE *grading_log_open(Grading *gr, GradePart *part)
{
    char path[GC_PATH + GRADE_PATH_MAX];
    if (!part->detail_log[0]) {
        textf(path, sizeof path, "%s/logs", gr->out);
        grading_mkdirs(path);
        textf(part->detail_log, sizeof part->detail_log, "logs/%s.log", part->name);
        textf(path, sizeof path, "%s/%s", gr->out, part->detail_log);
        remove(path);
        part->log_bytes = part->log_unshown = 0;
        part->log_printed = false;
    }
    textf(path, sizeof path, "%s/%s", gr->out, part->detail_log);
    return fopen(path, "a");
}

/* Appends text that is already safe to show, within the log's cap: what does not fit is
 * counted, and the cut falls after a line where one fits, else between characters. */
static void grading_log_safe(Grading *gr, GradePart *part, const char *text, size_t len)
{
    FILE *f = grading_log_open(gr, part);
    if (!f)
        return;
    size_t room = part->log_bytes < GRADING_LOG_MAX ? GRADING_LOG_MAX - part->log_bytes : 0;
    size_t n = len;
    if (n > room) {
        n = room;
        while (n > 0 && text[n - 1] != '\n')
            n--;
        if (n == 0)
            for (n = room; n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80;)
                n--;
    }
    fwrite(text, 1, n, f);
    if (n < len && n > 0 && text[n - 1] != '\n')
        fputc('\n', f);   /* a line cut short still ends, so the note that follows stands alone */
    fclose(f);
    part->log_bytes += n;
    part->log_unshown += len - n;
}

void grading_log(Grading *gr, GradePart *part, const char *fmt, ...)
{
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *text = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (text)
        vsnprintf(text, (size_t)len + 1, fmt, again);
    va_end(again);
    /* an escape is at most 6 bytes per byte: nothing of it is cut here */
    char *safe = text ? escape_dup(text, (size_t)len, 6 * (size_t)len, ESCAPE_KEEP_NEWLINES, NULL) : NULL;
    if (safe)
        grading_log_safe(gr, part, safe, strlen(safe));
    free(text);
    free(safe);
}

void grading_log_output(Grading *gr, GradePart *part, const char *output, size_t len)
{
    if (len == 0)
        return;
    char *quoted = malloc(GRADING_OUTPUT_SHOWN + 96);
    if (!quoted)
        return;
    size_t n;
    memcpy(quoted, "| ", 2);
    size_t took = grading_escape_into(quoted + 2, GRADING_OUTPUT_SHOWN, output, len, true, &n);
    n += 2;
    if (quoted[n - 1] != '\n')
        quoted[n++] = '\n';
    if (took < len)
        n += (size_t)textf(quoted + n, 96, "| ... (%zu more bytes not shown)\n", len - took);
    grading_log(gr, part, "what it printed (quoted, escaped):\n");
    grading_log_safe(gr, part, quoted, n);
    part->log_printed = true;
    free(quoted);
}

void grading_finish_logs(Grading *gr)
{
    GradeReport *r = &gr->report;
    for (int i = 0; i < r->nparts; i++) {
        GradePart *p = &r->parts[i];
        if (!p->detail_log[0] || p->log_unshown == 0)
            continue;
        char note[128];
        int n = textf(note, sizeof note, "... (%zu more bytes not shown: a part's log holds at most %d KiB)\n",
                      p->log_unshown, GRADING_LOG_MAX / 1024);
        p->log_bytes = 0;   /* the note itself is never cut */
        p->log_unshown = 0;
        grading_log_safe(gr, p, note, (size_t)n);
    }
}

int grading_write_escaped(const char *path, const char *text, size_t len, size_t more)
{
    char *safe = malloc(GRADING_KEPT_MAX + 96);
    FILE *f = safe ? fopen(path, "w") : NULL;
    if (!f) {
        free(safe);
        return -1;
    }
    size_t n, took = grading_escape_into(safe, GRADING_KEPT_MAX, text, len, false, &n);
    if (took < len || more > 0)
        n += (size_t)textf(safe + n, 96, "%s... (%zu more bytes not shown)\n",
                           n && safe[n - 1] != '\n' ? "\n" : "", len - took + more);
    bool ok = fwrite(safe, 1, n, f) == n;
    ok = fclose(f) == 0 && ok;
    free(safe);
    return ok ? 0 : -1;
}

void grading_free(Grading *gr)
{
    for (int s = 0; s < STAGE_COUNT; s++) {
        free(gr->compile_output[s]);
        gr->compile_output[s] = NULL;
    }
}

bool grading_owned_file(const char *dir, const char *path)
{
    struct stat st;
    char real_dir[PATH_MAX], real[PATH_MAX];
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || !realpath(dir, real_dir) || !realpath(path, real))
        return false;
    size_t n = strlen(real_dir);
    return strncmp(real, real_dir, n) == 0 && real[n] == '/';
}

/* ---- hashes for an audit ------------------------------------------------------------------ */

static const unsigned long long grading_fnv_basis = 0xcbf29ce484222325ull, grading_fnv_prime = 0x100000001b3ull;

static unsigned long long grading_fnv(unsigned long long h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * grading_fnv_prime;
    return h;
}

/* Adds a file's bytes to h; false when it cannot be read. */
static bool grading_fnv_file(const char *path, unsigned long long *h)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    static char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        *h = grading_fnv(*h, buf, n);
    bool ok = !ferror(f);
    fclose(f);
    return ok;
}

void grading_hash_file(const char *path, char out[17])
{
    unsigned long long h = grading_fnv_basis;
    if (grading_fnv_file(path, &h))
        snprintf(out, 17, "%016llx", h);
    else
        snprintf(out, 17, "unreadable");
}

/* The regular files beneath the directory being hashed (nftw has no context pointer). */
static struct { char **paths; size_t n, cap; bool failed; } grading_tree;

/* Only what grading reads: the cases (.state) and the reference's frames (.ply); a run's
 * log.txt holds its timings and .lock a pid, which differ every time the same data is made. */
static bool grading_graded_file(const char *path)
{
    size_t n = strlen(path);
    return (n > 6 && strcmp(path + n - 6, ".state") == 0) || (n > 4 && strcmp(path + n - 4, ".ply") == 0);
}

static int grading_tree_add(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)ftw;
    if (flag != FTW_F || !grading_graded_file(path))
        return 0;
    if (grading_tree.n == grading_tree.cap) {
        size_t cap = grading_tree.cap ? 2 * grading_tree.cap : 256;
        char **grown = realloc(grading_tree.paths, cap * sizeof *grown);
        if (!grown)
            return grading_tree.failed = true, 1;
        grading_tree.paths = grown, grading_tree.cap = cap;
    }
    if (!(grading_tree.paths[grading_tree.n] = strdup(path)))
        return grading_tree.failed = true, 1;
    grading_tree.n++;
    return 0;
}

static int grading_by_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void grading_hash_tree(const char *dir, char out[17])
{
    grading_tree.n = 0, grading_tree.failed = false;
    if (nftw(dir, grading_tree_add, 16, FTW_PHYS) != 0)
        grading_tree.failed = true;
    qsort(grading_tree.paths, grading_tree.n, sizeof *grading_tree.paths, grading_by_path);
    unsigned long long h = grading_fnv_basis;
    size_t skip = strlen(dir);
    for (size_t i = 0; i < grading_tree.n; i++) {
        const char *rel = grading_tree.paths[i] + skip;
        h = grading_fnv(h, rel, strlen(rel) + 1);
        if (!grading_fnv_file(grading_tree.paths[i], &h))
            grading_tree.failed = true;
        free(grading_tree.paths[i]);
    }
    if (grading_tree.failed)
        snprintf(out, 17, "unreadable");
    else
        snprintf(out, 17, "%016llx", h);
}
