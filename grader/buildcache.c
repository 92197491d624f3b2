/* buildcache.c — compiled stage objects and linked runners, kept by every byte that made them.
 * flipkit grader/: one file per entry (its key, then its output), written whole and renamed, so
 * parallel gradings of a class never see half an entry and a hash collision is only a miss. */
#define _GNU_SOURCE /* O_NOFOLLOW, O_CLOEXEC */
#include "buildcache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char bcache_magic[] = "flipkit-buildcache 1\n";
enum { BCACHE_MAX_BYTES = 256 << 20 };   /* no runner or object comes near this */

static void bcache_append(BuildKey *k, const void *p, size_t n)
{
    if (k->failed)
        return;
    if (k->len + n > k->cap) {
        size_t cap = k->cap ? k->cap : 4096;
        while (cap < k->len + n)
            cap *= 2;
        char *grown = realloc(k->bytes, cap);
        if (!grown) {
            k->failed = true;
            return;
        }
        k->bytes = grown, k->cap = cap;
    }
    memcpy(k->bytes + k->len, p, n);
    k->len += n;
}

void bcache_key_text(BuildKey *k, const char *text)
{
    bcache_append(k, text, strlen(text) + 1);   /* with its NUL: "ab"+"c" is not "a"+"bc" */
}

/* The whole of an open file into a new buffer; NULL when it cannot be read or is too big. */
static char *bcache_slurp(int fd, size_t *n)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > BCACHE_MAX_BYTES)
        return NULL;
    char *buf = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (buf && got < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    if (buf && got != (size_t)st.st_size) {
        free(buf);
        return NULL;
    }
    *n = got;
    return buf;
}

static char *bcache_read(const char *path, size_t *n)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char *buf = bcache_slurp(fd, n);
    close(fd);
    return buf;
}

void bcache_key_file(BuildKey *k, const char *path)
{
    size_t n = 0;
    char *buf = bcache_read(path, &n);
    if (!buf) {
        k->failed = true;
        return;
    }
    uint64_t len = n;
    bcache_append(k, &len, sizeof len);
    bcache_append(k, buf, n);
    free(buf);
}

void bcache_key_stamp(BuildKey *k, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        k->failed = true;
        return;
    }
    char line[128];
    snprintf(line, sizeof line, " %lld %lld.%09ld %llu", (long long)st.st_size,
             (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (unsigned long long)st.st_ino);
    bcache_key_text(k, path);
    bcache_key_text(k, line);
}

void bcache_key_free(BuildKey *k)
{
    free(k->bytes);
    *k = (BuildKey){0};
}

bool bcache_open(const char *dir)
{
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return false;
    struct stat st;
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
        return false;
    /* only the grader's user: it holds every student's objects */
    if ((st.st_mode & 077) != 0 && chmod(dir, 0700) != 0)
        return false;
    return access(dir, W_OK | X_OK) == 0;
}

/* The entry's file: FNV-1a of the key names it. */
static void bcache_entry(const char *dir, const BuildKey *k, char *path, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < k->len; i++)
        h = (h ^ (unsigned char)k->bytes[i]) * 1099511628211ull;
    snprintf(path, n, "%s/%016llx", dir, (unsigned long long)h);
}

static int bcache_write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w, n -= (size_t)w;
    }
    return 0;
}

bool bcache_fetch(const char *dir, const BuildKey *k, const char *out, mode_t mode)
{
    if (k->failed || k->len == 0)
        return false;
    char path[4096];
    bcache_entry(dir, k, path, sizeof path);
    size_t n = 0;
    char *e = bcache_read(path, &n);
    size_t head = sizeof bcache_magic - 1;
    uint64_t klen = 0, olen = 0;
    bool hit = e && n >= head + 2 * sizeof klen && memcmp(e, bcache_magic, head) == 0;
    if (hit) {
        memcpy(&klen, e + head, sizeof klen);
        hit = klen == k->len && n - head - sizeof klen >= klen + sizeof olen &&
              memcmp(e + head + sizeof klen, k->bytes, k->len) == 0;
    }
    if (hit) {
        const char *o = e + head + sizeof klen + klen;
        memcpy(&olen, o, sizeof olen);
        hit = olen == n - head - 2 * sizeof klen - klen;
        int fd = hit ? open(out, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode) : -1;
        hit = fd >= 0 && bcache_write_all(fd, o + sizeof olen, olen) == 0 && fchmod(fd, mode) == 0;
        if (fd >= 0 && close(fd) != 0)
            hit = false;
        if (!hit && fd >= 0)
            unlink(out);   /* never half an object where the link would take it whole */
    }
    if (hit)
        utimensat(AT_FDCWD, path, NULL, 0);   /* its time is its last use: trimming goes by it */
    free(e);
    return hit;
}

void bcache_store(const char *dir, const BuildKey *k, const char *made)
{
    struct stat st;
    if (k->failed || k->len == 0 || stat(made, &st) != 0 || st.st_size > BCACHE_ENTRY_MAX)
        return;
    size_t n = 0;
    char *o = bcache_read(made, &n);
    if (!o)
        return;
    char path[4096], tmp[4200];
    static unsigned serial;
    bcache_entry(dir, k, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.%ld.%u.tmp", path, (long)getpid(), serial++);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    uint64_t klen = k->len, olen = n;
    bool ok = fd >= 0 && bcache_write_all(fd, bcache_magic, sizeof bcache_magic - 1) == 0 &&
              bcache_write_all(fd, &klen, sizeof klen) == 0 && bcache_write_all(fd, k->bytes, k->len) == 0 &&
              bcache_write_all(fd, &olen, sizeof olen) == 0 && bcache_write_all(fd, o, n) == 0;
    if (fd >= 0 && close(fd) != 0)
        ok = false;
    if (fd >= 0 && (!ok || rename(tmp, path) != 0))
        unlink(tmp);
    free(o);
}

/* ---- trimming ----------------------------------------------------------------------------- */

typedef struct {
    char name[24];
    struct timespec used;
    off_t size;
} BcacheEntry;

static bool bcache_is_entry_name(const char *name)
{
    return strlen(name) == 16 && strspn(name, "0123456789abcdef") == 16;
}

static int bcache_older_first(const void *a, const void *b)
{
    const BcacheEntry *x = a, *y = b;
    if (x->used.tv_sec != y->used.tv_sec)
        return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
    return (x->used.tv_nsec > y->used.tv_nsec) - (x->used.tv_nsec < y->used.tv_nsec);
}

/* The cache's entries with their sizes and last use; NULL when it cannot be read. */
static BcacheEntry *bcache_list(const char *dir, size_t *n, unsigned long long *total)
{
    DIR *d = opendir(dir);
    BcacheEntry *all = NULL;
    size_t cap = 0;
    *n = 0, *total = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        struct stat st;
        if (!bcache_is_entry_name(e->d_name) || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(st.st_mode))
            continue;
        if (*n == cap) {
            BcacheEntry *grown = realloc(all, (cap = cap ? 2 * cap : 64) * sizeof *all);
            if (!grown)
                break;
            all = grown;
        }
        BcacheEntry *x = &all[(*n)++];
        memcpy(x->name, e->d_name, 17);   /* 16 hex digits and the NUL: checked above */
        x->used = st.st_mtim, x->size = st.st_size;
        *total += (unsigned long long)st.st_size;
    }
    if (d)
        closedir(d);
    return all;
}

unsigned long long bcache_trim(const char *dir, unsigned long long cap_bytes)
{
    size_t n;
    unsigned long long total;
    BcacheEntry *all = bcache_list(dir, &n, &total);
    if (all && total > cap_bytes) {
        qsort(all, n, sizeof *all, bcache_older_first);
        char path[4096];
        for (size_t i = 0; i < n && total > cap_bytes; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, all[i].name);
            if (unlink(path) == 0)
                total -= (unsigned long long)all[i].size;
        }
    }
    free(all);
    return total;
}
