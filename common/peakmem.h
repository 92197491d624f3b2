/* peakmem.h — the process's peak resident memory (Linux's VmHWM) and its reset, for the
 * bytes-per-particle figures make bench prints.
 * flipkit common/: reads /proc/self/status and writes /proc/self/clear_refs; elsewhere each
 * call says it could not, and the caller says so too. */
#ifndef FLIPKIT_PEAKMEM_H
#define FLIPKIT_PEAKMEM_H

#include <stddef.h>

/* The value of `key` (e.g. "VmHWM") in the text of a /proc/PID/status file, in bytes: the
 * line "key:   1234 kB". Returns 0, or -1 with one line in err when the line is missing or
 * is not a count of kB. */
int peakmem_parse(const char *status, const char *key, size_t *bytes, char *err, size_t errlen);
/* This process's VmHWM (peak resident memory) and VmRSS (now), in bytes. Returns 0, or -1
 * with one line in err. */
int peakmem_read(size_t *peak, size_t *now, char *err, size_t errlen);
/* Sets VmHWM back to the resident memory now (writes "5" to /proc/self/clear_refs, Linux
 * 4.0 and later), so that the next peakmem_read gives the peak since. Returns 0, or -1 with
 * one line in err (no /proc, an older kernel, or not permitted). */
int peakmem_reset(char *err, size_t errlen);

#endif
