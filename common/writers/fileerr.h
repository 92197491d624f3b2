/* fileerr.h — the one-line message that names a file: "PATH: what went wrong".
 * flipkit common/writers/: every reader and writer of files (PLY, states, previews, USD, the
 * grader's reports and images) says what failed this way, so the first word is always the file. */
#ifndef FLIPKIT_FILEERR_H
#define FLIPKIT_FILEERR_H

#include <stddef.h>

#if defined(__GNUC__)
#define FILEERR_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define FILEERR_PRINTF(f, a)
#endif

/* Writes "PATH: " and the formatted message into err (cut to errlen; nothing when err is NULL
 * or errlen 0). A NULL path is written "(null)". */
void fileerr_set(char *err, size_t errlen, const char *path, const char *fmt, ...)
    FILEERR_PRINTF(4, 5);

#endif
