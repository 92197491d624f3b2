/* atomic.h — writing a whole file or none of it: PATH.tmp, written and closed, renamed over PATH.
 * flipkit common/writers/: particle frames, surfaces, previews, checkpoints and grade reports
 * all go through here, so a crash or a full disk never leaves half a file where a whole one
 * belongs. */
#ifndef FLIPKIT_ATOMIC_H
#define FLIPKIT_ATOMIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Writes the contents to f. Returns 0, or non-zero with errno set, or with a reason of its
 * own in why (why is "" on entry; e.g. "libpng: ..."). */
typedef int (*AtomicBody)(FILE *f, const void *ctx, char *why, size_t whylen);

/* Writes path through path.tmp with body, then renames it into place. durable: fsync before
 * the rename, for files a later run depends on (checkpoints, grades); frames that can be made
 * again skip it. Returns 0, or -1 with one line in err for the caller to put after the path:
 * "cannot create PATH.tmp: ...", "write failed: ..." or body's own reason. The .tmp file is
 * removed on failure. */
int atomic_write(const char *path, bool durable, AtomicBody body, const void *ctx, char *err,
                 size_t errlen);

/* Puts the written file tmp in path's place in one step, as rename(tmp, path) does (same
 * return and errno); for a file that replaces another, without ext4's flush (atomic.c). A
 * reader or a crashed process sees the old file or the new one, as with rename. After a
 * power failure, though, a replacing file written without fsync may come back empty, where
 * ext4's flush on rename would have kept the old or the new one: durable writes fsync first
 * and are not affected; frames, surfaces, previews and the USD stage can be made again. */
int atomic_replace(const char *tmp, const char *path);

#endif
