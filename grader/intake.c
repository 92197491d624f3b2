/* intake.c — the eight stage files from a directory or an archive (libarchive).
 * flipkit grader/: only regular files named like a stage are read, by content, into the work
 * directory under fixed names, so no path in a submission ever decides where a file goes. */
#include "intake.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
    bool found[STAGE_COUNT];
    char from[STAGE_COUNT][256];
    int rank[STAGE_COUNT];      /* lower is better: see better_candidate */
    const char *dst;
    char *err;
    size_t errlen;
} Intake;

static int stage_of(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (int s = 0; s < STAGE_COUNT; s++) {
        size_t n = strlen(stage_names[s]);
        if (strncmp(base, stage_names[s], n) == 0 && strcmp(base + n, ".c") == 0)
            return s;
    }
    return -1;
}

/* Under a directory named assignment/ first, then the shortest path. */
static int rank_of(const char *path)
{
    const char *base = strrchr(path, '/');
    size_t dirlen = base ? (size_t)(base - path) : 0;
    int in_assignment = dirlen >= 10 && strncmp(path + dirlen - 10, "assignment", 10) == 0 &&
                        (dirlen == 10 || path[dirlen - 11] == '/');
    return (in_assignment ? 0 : 100000) + (int)strlen(path);
}

static int write_stage(Intake *in, int s, const char *path, const void *data, size_t n)
{
    char out[1024];
    snprintf(out, sizeof out, "%s/%s.c", in->dst, stage_names[s]);
    FILE *f = fopen(out, "wb");
    if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
        snprintf(in->err, in->errlen, "%s: cannot write: %s", out, strerror(errno));
        return -1;
    }
    in->found[s] = true;
    in->rank[s] = rank_of(path);
    snprintf(in->from[s], sizeof in->from[s], "%s", path);
    return 0;
}

/* Whether a file at path should replace what stage s has so far. */
static bool better_candidate(const Intake *in, int s, const char *path)
{
    return !in->found[s] || rank_of(path) < in->rank[s];
}

/* ---- directories ------------------------------------------------------------------------------- */

static int take_file(Intake *in, int s, const char *full, const char *rel)
{
    struct stat st;
    if (lstat(full, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > INTAKE_MAX_BYTES)
        return 0;
    FILE *f = fopen(full, "rb");
    if (!f)
        return 0;
    char *buf = malloc((size_t)st.st_size + 1);
    size_t n = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
    fclose(f);
    int rc = buf ? write_stage(in, s, rel, buf, n) : 0;
    free(buf);
    return rc;
}

static int walk(Intake *in, const char *root, const char *rel, int depth)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s%s%s", root, *rel ? "/" : "", rel);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char sub[1024], full[2048];
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", root, sub);
        struct stat st;
        if (lstat(full, &st) != 0)
            continue;
        int s = stage_of(sub);
        if (S_ISDIR(st.st_mode) && depth < 6)
            rc = walk(in, root, sub, depth + 1);
        else if (s >= 0 && better_candidate(in, s, sub))
            rc = take_file(in, s, full, sub);
    }
    closedir(d);
    return rc;
}

/* ---- archives ---------------------------------------------------------------------------------- */

static int take_entry(Intake *in, struct archive *a, struct archive_entry *e)
{
    const char *path = archive_entry_pathname(e);
    int s = path ? stage_of(path) : -1;
    if (s < 0 || archive_entry_filetype(e) != AE_IFREG || !better_candidate(in, s, path) ||
        archive_entry_size(e) > INTAKE_MAX_BYTES)
        return 0;
    size_t cap = (size_t)archive_entry_size(e);
    char *buf = malloc(cap + 1);
    if (!buf)
        return 0;
    la_ssize_t n = archive_read_data(a, buf, cap);
    int rc = n >= 0 ? write_stage(in, s, path, buf, (size_t)n) : 0;
    free(buf);
    return rc;
}

static int read_archive(Intake *in, const char *path)
{
    struct archive *a = archive_read_new();
    /* Only the compressions done by libraries; filter_all would also run external programs. */
    archive_read_support_filter_gzip(a);
    archive_read_support_filter_bzip2(a);
    archive_read_support_filter_xz(a);
    archive_read_support_format_tar(a);
    archive_read_support_format_zip(a);
    int rc = 0;
    if (archive_read_open_filename(a, path, 65536) != ARCHIVE_OK) {
        snprintf(in->err, in->errlen, "%s: not a directory nor a .tar.gz/.zip archive I can read: %s",
                 path, archive_error_string(a));
        rc = -1;
    }
    struct archive_entry *e;
    int r;
    while (rc == 0 && (r = archive_read_next_header(a, &e)) == ARCHIVE_OK)
        rc = take_entry(in, a, e);
    if (rc == 0 && r != ARCHIVE_EOF) {
        snprintf(in->err, in->errlen, "%s: a broken archive: %s", path, archive_error_string(a));
        rc = -1;
    }
    archive_read_free(a);
    return rc;
}

int intake_submission(const char *submission, const char *dst, bool found[STAGE_COUNT],
                      char from[STAGE_COUNT][256], char *err, size_t errlen)
{
    Intake in;
    memset(&in, 0, sizeof in);
    in.dst = dst, in.err = err, in.errlen = errlen;
    struct stat st;
    if (stat(submission, &st) != 0) {
        snprintf(err, errlen, "%s: no such submission (a directory or a .tar.gz/.zip)", submission);
        return -1;
    }
    int rc = S_ISDIR(st.st_mode) ? walk(&in, submission, "", 0) : read_archive(&in, submission);
    memcpy(found, in.found, sizeof in.found);
    memcpy(from, in.from, sizeof in.from);
    return rc;
}

void intake_name(const char *submission, char *name, size_t n)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", submission);
    size_t len = strlen(buf);
    while (len > 1 && buf[len - 1] == '/')
        buf[--len] = '\0';
    const char *base = strrchr(buf, '/');
    base = base ? base + 1 : buf;
    static const char *const suffixes[] = { ".tar.gz", ".tgz", ".tar", ".zip" };
    snprintf(name, n, "%s", base);
    for (size_t i = 0; i < 4; i++) {
        size_t bl = strlen(name), sl = strlen(suffixes[i]);
        if (bl > sl && strcmp(name + bl - sl, suffixes[i]) == 0) {
            name[bl - sl] = '\0';
            break;
        }
    }
}
