/* intake.c — the eight stage files from a directory or an archive (libarchive).
 * flipkit grader/: only regular files named like a stage are read, by content, into the work
 * directory under fixed names, so no path in a submission ever decides where a file goes; no
 * size, type or name the submission states is trusted (intake.h has the caps). */
#include "intake.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"

#define INTAKE_MAX_TOTAL ((long long)INTAKE_MAX_TOTAL_MIB << 20)

_Static_assert(INTAKE_MAX_BYTES == 1 << 20, "the refusals say 1 MiB");

typedef enum { CAND_NONE, CAND_TAKEN, CAND_REFUSED } Candidate;

typedef struct {
    IntakeResult *res;
    Candidate cand[STAGE_COUNT];  /* what became of the stage's best file so far */
    int rank[STAGE_COUNT];        /* its rank: lower is better, see intake_better */
    const char *dst;
    char name[200];               /* the submission's path, escaped, for messages */
    char *buf;                    /* INTAKE_MAX_BYTES + 1 bytes: one stage file's contents */
    long entries;                 /* entries looked at so far */
    long long bytes;              /* an archive's entry data read so far */
    char *err;
    size_t errlen;
} Intake;

static int intake_stage_of(const char *path)
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
static int intake_rank_of(const char *path)
{
    const char *base = strrchr(path, '/');
    size_t dirlen = base ? (size_t)(base - path) : 0, len = strlen(path);
    int in_assignment = dirlen >= 10 && strncmp(path + dirlen - 10, "assignment", 10) == 0 &&
                        (dirlen == 10 || path[dirlen - 11] == '/');
    /* a path longer than the gap between the two classes must not cross it */
    return (in_assignment ? 0 : 100000) + (int)(len < 99999 ? len : 99999);
}

/* Whether a file at path decides stage s instead of what decides it so far. */
static bool intake_better(const Intake *in, int s, const char *path)
{
    return in->cand[s] == CAND_NONE || intake_rank_of(path) < in->rank[s];
}

static void intake_mark(Intake *in, int s, const char *path, Candidate c)
{
    in->cand[s] = c;
    in->rank[s] = intake_rank_of(path);
    in->res->found[s] = c == CAND_TAKEN;
    escape_text(in->res->from[s], sizeof in->res->from[s], path, strlen(path), 0);
    in->res->refused[s][0] = '\0';
}

static int intake_stage_path(const Intake *in, int s, char *out, size_t n)
{
    int len = snprintf(out, n, "%s/%s.c", in->dst, stage_names[s]);
    return len < 0 || (size_t)len >= n ? -1 : 0;
}

static int intake_take(Intake *in, int s, const char *path, const char *data, size_t n)
{
    char out[PATH_MAX];
    FILE *f = intake_stage_path(in, s, out, sizeof out) == 0 ? fopen(out, "wb") : NULL;
    if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
        snprintf(in->err, in->errlen, "%.300s/%s.c: cannot write: %s", in->dst, stage_names[s], strerror(errno));
        return -1;
    }
    intake_mark(in, s, path, CAND_TAKEN);
    return 0;
}

/* The file at path decides stage s and cannot be taken: the stage is not found, and why is
 * said on one line naming the file. Returns 0: the rest of the submission is still read. */
__attribute__((format(printf, 4, 5)))
static int intake_refuse(Intake *in, int s, const char *path, const char *fmt, ...)
{
    char out[PATH_MAX], name[160], *line = in->res->refused[s];
    if (in->cand[s] == CAND_TAKEN && intake_stage_path(in, s, out, sizeof out) == 0)
        unlink(out);   /* a worse file taken before must not be graded in its place */
    intake_mark(in, s, path, CAND_REFUSED);
    escape_text(name, sizeof name, path, strlen(path), 0);   /* cut: the why must fit too */
    int len = snprintf(line, INTAKE_LINE_MAX, "%s: refused: ", name);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + len, INTAKE_LINE_MAX - (size_t)len, fmt, ap);
    va_end(ap);
    return 0;
}

/* Why reading stopped before the end; the first cap reached is the one said. */
__attribute__((format(printf, 2, 3)))
static void intake_note(Intake *in, const char *fmt, ...)
{
    if (in->res->note[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(in->res->note, sizeof in->res->note, fmt, ap);
    va_end(ap);
}

/* Counts one more entry; false (with a note) once past the cap. */
static bool intake_count_entry(Intake *in, const char *what)
{
    if (++in->entries <= INTAKE_MAX_ENTRIES)
        return true;
    intake_note(in, "%s: more than %d %s; the rest was not looked at", in->name, INTAKE_MAX_ENTRIES, what);
    return false;
}

/* ---- directories ------------------------------------------------------------------------------- */

static const char *intake_kind_of(mode_t mode)
{
    return S_ISLNK(mode) ? "a symbolic link" : S_ISFIFO(mode) ? "a FIFO" : S_ISSOCK(mode) ? "a socket"
         : S_ISCHR(mode) || S_ISBLK(mode) ? "a device" : S_ISDIR(mode) ? "a directory" : "not a file";
}

/* At most cap bytes from fd, whatever its size said; 0, or -1 with errno. */
static int intake_read_fd(int fd, char *buf, size_t cap, size_t *n)
{
    *n = 0;
    while (*n < cap) {
        ssize_t r = read(fd, buf + *n, cap - *n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        *n += (size_t)r;
    }
    return 0;
}

/* name in the directory dfd, lstat'ed as seen: taken only when what is opened, without
 * following a link or waiting on a FIFO, is a regular file, and only its first
 * INTAKE_MAX_BYTES + 1 bytes are read (a sparse or growing file says any size). */
static int intake_take_file(Intake *in, int s, int dfd, const char *name, const char *rel, const struct stat *seen)
{
    if (!S_ISREG(seen->st_mode))
        return intake_refuse(in, s, rel, "%s, not a regular file", intake_kind_of(seen->st_mode));
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return intake_refuse(in, s, rel, "cannot be opened: %s", strerror(errno));
    struct stat st;
    size_t n = 0;
    int rc = 0;
    if (fstat(fd, &st) != 0)
        rc = intake_refuse(in, s, rel, "cannot be read: %s", strerror(errno));
    else if (!S_ISREG(st.st_mode))  /* swapped since the lstat */
        rc = intake_refuse(in, s, rel, "%s, not a regular file", intake_kind_of(st.st_mode));
    else if (intake_read_fd(fd, in->buf, INTAKE_MAX_BYTES + 1, &n) != 0)
        rc = intake_refuse(in, s, rel, "cannot be read: %s", strerror(errno));
    else if (n > INTAKE_MAX_BYTES)
        rc = intake_refuse(in, s, rel, "larger than 1 MiB");
    else
        rc = intake_take(in, s, rel, in->buf, n);
    close(fd);
    return rc;
}

/* Walks the directory dfd (closed here), rel its path in the submission (PATH_MAX bytes, put
 * back as it was): directories are opened without following links, to INTAKE_MAX_DEPTH. */
static int intake_walk(Intake *in, int dfd, char *rel, int depth)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return 0;
    }
    size_t len = strlen(rel);
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) && intake_count_entry(in, "directory entries")) {
        struct stat st;
        int s = intake_stage_of(e->d_name);
        if (e->d_name[0] == '.' || len + strlen(e->d_name) + 2 > PATH_MAX ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        snprintf(rel + len, PATH_MAX - len, "%s%s", len ? "/" : "", e->d_name);
        if (S_ISDIR(st.st_mode) && depth < INTAKE_MAX_DEPTH) {
            int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0)
                rc = intake_walk(in, sub, rel, depth + 1);
        } else if (!S_ISDIR(st.st_mode) && s >= 0 && intake_better(in, s, rel)) {
            rc = intake_take_file(in, s, dirfd(d), e->d_name, rel, &st);
        }
        rel[len] = '\0';
    }
    closedir(d);
    return rc;
}

static int intake_directory(Intake *in, int fd)
{
    char rel[PATH_MAX] = "";
    return intake_walk(in, fd, rel, 0);
}

/* ---- archives ---------------------------------------------------------------------------------- */

/* libarchive's message, which may quote an entry's name, escaped. */
static const char *intake_archive_error(struct archive *a, char *buf, size_t n)
{
    const char *msg = archive_error_string(a);
    msg = msg ? msg : "unknown error";
    escape_text(buf, n, msg, strlen(msg), 0);
    return buf;
}

/* The archive's work so far. A tar's stream past decompression holds its headers too (a pax
 * header may be 1 MiB), so it counts; a zip's entries are decompressed one by one, all of
 * them here, and its stream's position only says where it seeked to. */
static long long intake_archive_bytes(const Intake *in, struct archive *a)
{
    if ((archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) != ARCHIVE_FORMAT_TAR)
        return in->bytes;
    long long stream = (long long)archive_filter_bytes(a, 0);
    return stream > in->bytes ? stream : in->bytes;
}

typedef enum { DRAIN_OK, DRAIN_ERROR, DRAIN_BUDGET } Drain;

/* Reads the rest of the entry's data a block at a time, counting it against the archive's
 * budget; with keep, its first INTAKE_MAX_BYTES + 1 bytes are in in->buf (*n of them).
 * libarchive would skip an entry itself, but it skips a compressed entry by decompressing
 * it: a header claiming terabytes of zeros would cost that much, unbounded. */
static Drain intake_drain(Intake *in, struct archive *a, bool keep, size_t *n)
{
    *n = 0;
    for (;;) {
        bool keeping = keep && *n <= INTAKE_MAX_BYTES;
        /* past the cap the bytes only need counting: buf is then a scratch block */
        char *at = keeping ? in->buf + *n : in->buf;
        size_t room = keeping ? INTAKE_MAX_BYTES + 1 - *n : 65536;
        la_ssize_t r = archive_read_data(a, at, room);
        if (r < 0)
            return DRAIN_ERROR;
        if (r == 0)
            return DRAIN_OK;
        in->bytes += r;
        if (keeping)
            *n += (size_t)r;
        if (intake_archive_bytes(in, a) > INTAKE_MAX_TOTAL)
            return DRAIN_BUDGET;
    }
}

static void intake_note_budget(Intake *in)
{
    intake_note(in, "%s: more than %d MiB of data once decompressed; the rest of the archive was not read",
                in->name, INTAKE_MAX_TOTAL_MIB);
}

/* Why an entry that decides stage s cannot be taken before reading it, or NULL: its type or
 * its header's size. Said in why (n bytes). */
static const char *intake_entry_unfit(struct archive_entry *e, char *why, size_t n)
{
    la_int64_t size = archive_entry_size(e);
    if (archive_entry_hardlink(e))
        snprintf(why, n, "a hard link, not a regular file with contents");
    else if (archive_entry_filetype(e) != AE_IFREG)
        snprintf(why, n, "%s, not a regular file",
                 intake_kind_of((mode_t)archive_entry_filetype(e)));
    else if (archive_entry_size_is_set(e) && size < 0)
        snprintf(why, n, "the archive header gives size %lld (expected 0 to 1 MiB)", (long long)size);
    else if (archive_entry_size_is_set(e) && size > INTAKE_MAX_BYTES)
        snprintf(why, n, "larger than 1 MiB: the archive header gives %lld bytes",
                 (long long)size);
    else
        return NULL;
    return why;
}

/* One entry: its data is always read here, bounded, and kept only when the entry decides a
 * stage and its type and size are fit. Returns 0, 1 to stop reading (a cap), or -1. */
static int intake_entry(Intake *in, struct archive *a, struct archive_entry *e)
{
    const char *path = archive_entry_pathname(e);
    int s = path ? intake_stage_of(path) : -1;
    char why[INTAKE_LINE_MAX], msg[200];
    /* a directory named like a stage holds files; it is no candidate itself */
    bool decides = s >= 0 && archive_entry_filetype(e) != AE_IFDIR && intake_better(in, s, path);
    bool fit = decides && !intake_entry_unfit(e, why, sizeof why);
    if (decides && !fit)
        intake_refuse(in, s, path, "%s", why);
    size_t n;
    Drain d = intake_drain(in, a, fit, &n);
    if (d == DRAIN_BUDGET) {
        intake_note_budget(in);
        if (fit)
            intake_refuse(in, s, path, "not read: the archive passes %d MiB of data here", INTAKE_MAX_TOTAL_MIB);
        return 1;
    }
    if (!fit)
        return 0;
    la_int64_t size = archive_entry_size(e);
    if (d == DRAIN_ERROR)
        return intake_refuse(in, s, path, "cannot be read: %s", intake_archive_error(a, msg, sizeof msg));
    if (n > INTAKE_MAX_BYTES)
        return intake_refuse(in, s, path, "larger than 1 MiB");
    if (archive_entry_size_is_set(e) && (size_t)size != n)
        return intake_refuse(in, s, path, "the archive header gives size %lld, the entry holds %zu bytes",
                             (long long)size, n);
    return intake_take(in, s, path, in->buf, n);
}

/* Only the compressions done in-process by libraries; filter_all would also run external
 * programs, and so would one of these where libarchive was built without its library (it
 * then says ARCHIVE_WARN): such a filter is tried on a throwaway reader and left out. */
static struct archive *intake_archive_new(void)
{
    int (*const filters[])(struct archive *) = { archive_read_support_filter_gzip,
                                                  archive_read_support_filter_bzip2,
                                                  archive_read_support_filter_xz };
    struct archive *a = archive_read_new();
    if (!a)
        return NULL;
    for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++) {
        struct archive *probe = archive_read_new();
        bool in_process = probe && filters[i](probe) == ARCHIVE_OK;
        archive_read_free(probe);
        if (in_process)
            filters[i](a);
    }
    archive_read_support_format_tar(a);
    archive_read_support_format_zip(a);
    return a;
}

static int intake_archive(Intake *in, int fd)
{
    char msg[200];
    struct archive *a = intake_archive_new();
    if (!a || archive_read_open_fd(a, fd, 65536) != ARCHIVE_OK) {
        snprintf(in->err, in->errlen, "%s: not a directory nor a .tar.gz/.zip archive I can read: %s",
                 in->name, a ? intake_archive_error(a, msg, sizeof msg) : "out of memory");
        archive_read_free(a);
        return -1;
    }
    struct archive_entry *e;
    int rc = 0, r;
    /* ARCHIVE_WARN: the entry is there, e.g. a name not in this locale's charset */
    while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
        if (!intake_count_entry(in, "archive entries"))
            break;
        if (intake_archive_bytes(in, a) > INTAKE_MAX_TOTAL) {
            intake_note_budget(in);
            break;
        }
        if ((rc = intake_entry(in, a, e)) != 0)
            break;
    }
    if (rc < 0 || (rc == 0 && !in->res->note[0] && r != ARCHIVE_EOF)) {
        if (rc == 0)
            snprintf(in->err, in->errlen, "%s: a broken archive: %s", in->name, intake_archive_error(a, msg, sizeof msg));
        rc = -1;
    } else {
        rc = 0;
    }
    archive_read_free(a);
    return rc;
}

/* ---- the submission ---------------------------------------------------------------------------- */

/* Opened without waiting (a FIFO given as a submission must not block the grader), then
 * read as what fstat says it is. */
static int intake_open(Intake *in, const char *submission)
{
    int fd = open(submission, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(in->err, in->errlen, "%s: no such submission (a directory or a .tar.gz/.zip): %s", in->name,
                 strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (S_ISDIR(st.st_mode))
        return intake_directory(in, fd);   /* closes fd */
    int rc = -1;
    if (S_ISREG(st.st_mode))
        rc = intake_archive(in, fd);
    else
        snprintf(in->err, in->errlen, "%s: %s, not a directory nor a .tar.gz/.zip archive", in->name,
                 intake_kind_of(st.st_mode));
    close(fd);
    return rc;
}

int intake_submission(const char *submission, const char *dst, IntakeResult *res, char *err, size_t errlen)
{
    Intake in;
    memset(&in, 0, sizeof in);
    memset(res, 0, sizeof *res);
    in.res = res, in.dst = dst, in.err = err, in.errlen = errlen;
    escape_text(in.name, sizeof in.name, submission, strlen(submission), 0);
    in.buf = malloc(INTAKE_MAX_BYTES + 1);
    if (!in.buf) {
        snprintf(err, errlen, "%s: out of memory to read it", in.name);
        return -1;
    }
    int rc = intake_open(&in, submission);
    free(in.buf);
    return rc;
}

void intake_name(const char *submission, char *name, size_t n)
{
    size_t len = strlen(submission);
    while (len > 1 && submission[len - 1] == '/')
        len--;
    size_t start = len;
    while (start > 0 && submission[start - 1] != '/')
        start--;
    static const char *const suffixes[] = { ".tar.gz", ".tgz", ".tar", ".zip" };
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t sl = strlen(suffixes[i]);
        if (len - start > sl && memcmp(submission + len - sl, suffixes[i], sl) == 0) {
            len -= sl;
            break;
        }
    }
    snprintf(name, n, "%.*s", (int)(len - start < 4096 ? len - start : 4096), submission + start);
}
