/* fuzz_intake.c — libFuzzer target: the grader's intake (grader/intake.c) on any submission.
 * flipkit tests/: the first byte says what the rest is: an archive as it is (tar, tar.gz or zip:
 * libarchive tells), a tar made checksum-right, plain or gzipped (so mutations get past the header
 * check), a directory of odd files built from it (symlinks, FIFOs, sockets, devices, sparse and
 * huge files, names with newlines), or a FIFO given as the submission. Whatever it is, every
 * line the intake returns is one escaped line, a taken file is a regular file within the cap,
 * nothing outside the submission is ever taken, and no descriptor or file is left behind. */
#define _GNU_SOURCE /* memfd_create (fuzzfile.h), mkdtemp, mknodat */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <zlib.h>

#include "fuzzfile.h"
#include "intake.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FUZZ_ARCHIVE, FUZZ_TAR, FUZZ_TARGZ, FUZZ_DIRECTORY, FUZZ_FIFO, FUZZ_MODES };
enum { FUZZ_SECRET_BYTES = 4096, FUZZ_MAX_OPS = 48, FUZZ_MAX_DEPTH = INTAKE_MAX_DEPTH + 3 };

/* The process's private directory: sub/ (the submission, made anew per input), dst/ (what
 * the intake writes), secret (outside the submission: a link may point at it, the intake
 * must never take it) and fifo. */
static struct {
    char root[512], sub[600], dst[600], secret[600], fifo[600];
    unsigned char secret_bytes[FUZZ_SECRET_BYTES];  /* random: no input can hold them by chance */
} fz;

static int fuzz_lowest_free_fd(void)
{
    int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        abort();
    close(fd);
    return fd;
}

/* Removes everything inside the directory dfd (closed here), not following links. */
static void fuzz_empty(int dfd)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return;
    }
    for (bool again = true; again;) {   /* entries removed while reading may hide others */
        again = false;
        rewinddir(d);
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            again = true;
            if (unlinkat(dirfd(d), e->d_name, 0) == 0)
                continue;
            int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0)
                fuzz_empty(sub);
            if (unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) != 0)
                abort();   /* neither a file nor an emptied directory: it would leak */
        }
    }
    closedir(d);
}

static void fuzz_remove(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        fuzz_empty(fd);
        rmdir(dir);
    }
}

static void fuzz_cleanup(void)
{
    fuzz_remove(fz.root);
}

static void fuzz_setup(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(fz.root, sizeof fz.root, "%s/fuzz-intake.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(fz.root))
        abort();
    atexit(fuzz_cleanup);
    snprintf(fz.sub, sizeof fz.sub, "%s/sub", fz.root);
    snprintf(fz.dst, sizeof fz.dst, "%s/dst", fz.root);
    snprintf(fz.secret, sizeof fz.secret, "%s/secret", fz.root);
    snprintf(fz.fifo, sizeof fz.fifo, "%s/fifo", fz.root);
    int rnd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    FILE *f = fopen(fz.secret, "wb");
    if (rnd < 0 || read(rnd, fz.secret_bytes, sizeof fz.secret_bytes) != (ssize_t)sizeof fz.secret_bytes ||
        !f || fwrite(fz.secret_bytes, 1, sizeof fz.secret_bytes, f) != sizeof fz.secret_bytes ||
        fclose(f) != 0 || mkdir(fz.dst, 0755) != 0 || mkfifo(fz.fifo, 0644) != 0)
        abort();
    close(rnd);
}

/* ---- the checks ---------------------------------------------------------------------------- */

/* One line of at most cap - 1 bytes, with no control byte: what escape_text makes. */
static void fuzz_check_line(const char *s, size_t cap)
{
    const char *end = memchr(s, '\0', cap);
    if (!end)
        abort();
    for (const unsigned char *u = (const unsigned char *)s; u < (const unsigned char *)end; u++)
        if (*u < 0x20 || *u == 0x7f)
            abort();
}

static bool fuzz_is_secret(const unsigned char *buf, size_t n)
{
    return n == FUZZ_SECRET_BYTES && memcmp(buf, fz.secret_bytes, n) == 0;
}

/* A stage the intake says it found is a regular file of at most the cap in dst, never the
 * secret; one it did not find has no file. */
static void fuzz_check_taken(const IntakeResult *res, int s)
{
    static unsigned char buf[INTAKE_MAX_BYTES + 2];
    char path[700];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s.c", fz.dst, stage_names[s]);
    if (!res->found[s]) {
        if (lstat(path, &st) == 0)
            abort();   /* a file the intake says it did not take */
        return;
    }
    if (res->refused[s][0] || lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > INTAKE_MAX_BYTES)
        abort();
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (!f || fclose(f) != 0 || fuzz_is_secret(buf, n))
        abort();   /* followed a link out of the submission */
}

static void fuzz_clear_dst(void)
{
    char path[700];
    for (int s = 0; s < STAGE_COUNT; s++) {
        snprintf(path, sizeof path, "%s/%s.c", fz.dst, stage_names[s]);
        unlink(path);
    }
}

static void fuzz_intake(const char *submission)
{
    IntakeResult res;
    char err[1024] = "";
    /* counted around the call alone: libFuzzer keeps pipes to its symbolizer open once it
     * has named a new function */
    int free_fd = fuzz_lowest_free_fd();
    int rc = intake_submission(submission, fz.dst, &res, err, sizeof err);
    if (rc != 0 && (rc != -1 || !err[0]))
        abort();
    fuzz_check_line(err, sizeof err);
    fuzz_check_line(res.note, sizeof res.note);
    for (int s = 0; s < STAGE_COUNT; s++) {
        fuzz_check_line(res.from[s], sizeof res.from[s]);
        fuzz_check_line(res.refused[s], sizeof res.refused[s]);
        if (rc == 0)
            fuzz_check_taken(&res, s);
    }
    fuzz_clear_dst();
    if (fuzz_lowest_free_fd() != free_fd)
        abort();   /* the intake left a descriptor open */
}

/* ---- archives -------------------------------------------------------------------------------- */

/* Each 512-byte header of a tar gets its right checksum, found by the sizes the headers state
 * as a reader finds them; blocks of zeros (the end) stay zeros. */
static void fuzz_fix_tar(uint8_t *t, size_t n)
{
    static const uint8_t zeros[512];
    for (size_t at = 0; at + 512 <= n;) {
        uint8_t *h = t + at;
        if (memcmp(h, zeros, 512) == 0) {
            at += 512;
            continue;
        }
        memset(h + 148, ' ', 8);
        unsigned sum = 0;
        for (int i = 0; i < 512; i++)
            sum += h[i];
        char cks[8];
        snprintf(cks, sizeof cks, "%06o", sum & 0777777u);
        memcpy(h + 148, cks, 7);   /* six digits, a NUL, the space left as it was */
        unsigned long long size = 0;
        for (int i = 124; i < 136 && h[i] >= '0' && h[i] <= '7'; i++)
            size = size * 8 + (unsigned)(h[i] - '0');
        if (size > n)
            break;
        at += 512 + (size_t)((size + 511) & ~511ull);
    }
}

static void fuzz_tar(const uint8_t *data, size_t size, bool gzipped)
{
    uint8_t *tar = malloc(size ? size : 1);
    if (!tar)
        return;
    memcpy(tar, data, size);
    fuzz_fix_tar(tar, size);
    if (!gzipped) {
        fuzz_intake(fuzzfile_put(tar, size));
        free(tar);
        return;
    }
    z_stream z = { 0 };
    uLong cap = compressBound((uLong)size) + 64;
    uint8_t *gz = malloc(cap);
    if (gz && deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK) {
        z.next_in = tar, z.avail_in = (uInt)size, z.next_out = gz, z.avail_out = (uInt)cap;
        if (deflate(&z, Z_FINISH) == Z_STREAM_END)
            fuzz_intake(fuzzfile_put(gz, z.total_out));
        deflateEnd(&z);
    }
    free(gz);
    free(tar);
}

/* ---- directories ----------------------------------------------------------------------------- */

typedef struct {
    const uint8_t *p;
    size_t n;
} FuzzIn;   /* what is left of the input */

static unsigned fuzz_byte(FuzzIn *in)
{
    if (in->n == 0)
        return 0;
    in->n--;
    return *in->p++;
}

/* A name: a stage file's, "assignment", or raw bytes (newlines, control bytes, broken UTF-8:
 * all a file name may hold; '/' and NUL become '_'). */
static void fuzz_name(FuzzIn *in, char *name, size_t cap)
{
    unsigned k = fuzz_byte(in);
    if (k >= 0xC0) {
        snprintf(name, cap, "%s.c", stage_names[k % STAGE_COUNT]);
        return;
    }
    if (k >= 0xA0) {
        snprintf(name, cap, "assignment");
        return;
    }
    size_t len = k % 24 + 1, i = 0;
    for (; i < len && i + 1 < cap && in->n; i++) {
        unsigned c = fuzz_byte(in);
        name[i] = c == '/' || c == 0 ? '_' : (char)c;
    }
    name[i] = '\0';
    if (i == 0 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        snprintf(name, cap, "x");
}

/* A file of up to 64 KiB from the input; with apparent > 0 made sparse to that size. */
static void fuzz_file(FuzzIn *in, int dfd, const char *name, unsigned long long apparent)
{
    size_t len = fuzz_byte(in);
    len |= fuzz_byte(in) << 8;
    len = len < in->n ? len : in->n;
    int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    if (write(fd, in->p, len) != (ssize_t)len || (apparent && ftruncate(fd, (off_t)apparent) != 0)) {
        /* a file system without room for the apparent size: the file stays as written */
    }
    close(fd);
    in->p += len, in->n -= len;
}

/* Where a symbolic link points: out of the submission, at a FIFO, a device, itself. */
static void fuzz_link(FuzzIn *in, int dfd, const char *name)
{
    char target[64];
    unsigned k = fuzz_byte(in) % 6;
    const char *to = k == 0 ? fz.secret : k == 1 ? "../../secret" : k == 2 ? "/etc/shadow"
                   : k == 3 ? fz.fifo : k == 4 ? "/dev/zero" : NULL;
    if (!to) {
        fuzz_name(in, target, sizeof target);   /* a sibling, or nothing */
        to = target;
    }
    if (symlinkat(to, dfd, name) != 0) {
        /* the name is taken: the first entry stays */
    }
}

enum { OP_FILE, OP_DIR, OP_UP, OP_LINK, OP_FIFO, OP_SOCKET, OP_SPARSE, OP_DEVICE, OP_COUNT };

/* The input as up to FUZZ_MAX_OPS operations, each making one entry in the current directory
 * (or leaving it); the directory named rootfd is the submission. */
static void fuzz_build(FuzzIn *in, int rootfd)
{
    int stack[FUZZ_MAX_DEPTH + 1], depth = 0;
    stack[0] = rootfd;
    for (int ops = 0; ops < FUZZ_MAX_OPS && in->n; ops++) {
        int dfd = stack[depth], fd;
        unsigned op = fuzz_byte(in) % OP_COUNT;
        char name[64];
        if (op == OP_UP) {
            if (depth > 0)
                close(stack[depth--]);
            continue;
        }
        fuzz_name(in, name, sizeof name);
        switch (op) {
        case OP_FILE: fuzz_file(in, dfd, name, 0); break;
        case OP_SPARSE: fuzz_file(in, dfd, name, 1ull << (fuzz_byte(in) % 48)); break;
        case OP_LINK: fuzz_link(in, dfd, name); break;
        case OP_FIFO: mkfifoat(dfd, name, 0644); break;
        case OP_SOCKET: mknodat(dfd, name, S_IFSOCK | 0644, 0); break;
        case OP_DEVICE: mknodat(dfd, name, S_IFCHR | 0644, makedev(1, 3)); break;   /* /dev/null's; root only */
        case OP_DIR:
            if (depth < FUZZ_MAX_DEPTH && mkdirat(dfd, name, 0755) == 0 &&
                (fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0)
                stack[++depth] = fd;
            break;
        }
    }
    while (depth > 0)
        close(stack[depth--]);
}

static void fuzz_directory(const uint8_t *data, size_t size)
{
    if (mkdir(fz.sub, 0755) != 0)
        abort();   /* the last input's directory was left behind */
    int fd = open(fz.sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        abort();
    FuzzIn in = { data, size };
    fuzz_build(&in, fd);
    close(fd);
    fuzz_intake(fz.sub);
    fuzz_remove(fz.sub);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!fz.root[0])
        fuzz_setup();
    if (size == 0)
        return 0;
    switch (data[0] % FUZZ_MODES) {
    case FUZZ_ARCHIVE: fuzz_intake(fuzzfile_put(data + 1, size - 1)); break;
    case FUZZ_TAR: fuzz_tar(data + 1, size - 1, false); break;
    case FUZZ_TARGZ: fuzz_tar(data + 1, size - 1, true); break;
    case FUZZ_DIRECTORY: fuzz_directory(data + 1, size - 1); break;
    case FUZZ_FIFO: fuzz_intake(fz.fifo); break;   /* must not wait for a writer */
    }
    return 0;
}
