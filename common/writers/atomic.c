/* atomic.c — PATH.tmp, then rename: the one way flipkit writes a file that someone reads whole.
 * flipkit common/writers/: rename within a directory replaces the old file in one step, so a
 * reader sees the old file or the new one, never a mixture; on failure the old file is left as
 * it was. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* renameat2 */
#endif
#include "atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Over an existing regular file the two are exchanged and the old one (now at tmp) removed:
 * as atomic for a reader as rename, but ext4 (auto_da_alloc) makes a rename that replaces a
 * file write out the new file's blocks first, a wait as long as the write itself for a large
 * USD stage (reference/PERFORMANCE.md). Anything else (no file there yet, a directory, a file
 * system or C library without RENAME_EXCHANGE) gets rename's own behaviour. */
int atomic_replace(const char *tmp, const char *path)
{
#ifdef RENAME_EXCHANGE
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
        renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE) == 0) {
        /* What came back is the file lstat saw, unless something replaced it in between: a
         * directory goes back where it was, and rename then refuses as it would have. */
        if (lstat(tmp, &st) == 0 && S_ISREG(st.st_mode)) {
            remove(tmp); /* if it fails, the old contents stay at tmp; path is right either way */
            return 0;
        }
        if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE) != 0)
            return -1;
    }
#endif
    return rename(tmp, path);
}

int atomic_write(const char *path, bool durable, AtomicBody body, const void *ctx, char *err,
                 size_t errlen)
{
    size_t len = strlen(path);
    char *tmp = malloc(len + 5);
    if (!tmp) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmp", 5);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    char why[512] = "";
    errno = 0;
    int bad = body(f, ctx, why, sizeof why) != 0 || fflush(f) != 0 || ferror(f) ||
              (durable && fsync(fileno(f)) != 0);
    int saved = errno;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    if (!bad && atomic_replace(tmp, path) != 0) {
        bad = 1;
        saved = errno;
    }
    if (bad) {
        if (why[0])
            snprintf(err, errlen, "%s", why);
        else
            snprintf(err, errlen, "write failed: %s", saved ? strerror(saved) : "I/O error");
        remove(tmp);
    }
    free(tmp);
    return bad ? -1 : 0;
}
