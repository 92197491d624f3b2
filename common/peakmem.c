/* peakmem.c — the process's peak resident memory from /proc/self/status, and its reset.
 * flipkit common/: make bench divides the peak by the particle count (issue 42's bytes per
 * particle); a figure it cannot read is reported as such, never as 0. */
#include "peakmem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The line that starts with "key:" (at the start of the text or after a newline). */
static const char *peakmem_find(const char *status, const char *key)
{
    size_t n = strlen(key);
    for (const char *line = status; line;) {
        if (strncmp(line, key, n) == 0 && line[n] == ':')
            return line + n + 1;
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    return NULL;
}

int peakmem_parse(const char *status, const char *key, size_t *bytes, char *err, size_t errlen)
{
    const char *at = peakmem_find(status, key);
    if (!at) {
        snprintf(err, errlen, "/proc/self/status: no %s line (expected \"%s:  N kB\")", key, key);
        return -1;
    }
    while (*at == ' ' || *at == '\t')
        at++;
    size_t kb = 0;
    const char *digits = at;
    for (; *at >= '0' && *at <= '9'; at++) {
        if (kb > (SIZE_MAX / 1024 - 9) / 10) {
            snprintf(err, errlen, "/proc/self/status: %s: the count is too large", key);
            return -1;
        }
        kb = 10 * kb + (size_t)(*at - '0');
    }
    if (at == digits || strncmp(at, " kB", 3) != 0 || (at[3] != '\n' && at[3] != '\0')) {
        snprintf(err, errlen, "/proc/self/status: %s: expected a count of kB (\"%s:  N kB\")",
                 key, key);
        return -1;
    }
    *bytes = kb * 1024;
    return 0;
}

int peakmem_read(size_t *peak, size_t *now, char *err, size_t errlen)
{
    char text[8192];
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) {
        snprintf(err, errlen, "/proc/self/status: cannot read: %s", strerror(errno));
        return -1;
    }
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return peakmem_parse(text, "VmHWM", peak, err, errlen) != 0 ||
           peakmem_parse(text, "VmRSS", now, err, errlen) != 0 ? -1 : 0;
}

int peakmem_reset(char *err, size_t errlen)
{
    int fd = open("/proc/self/clear_refs", O_WRONLY);
    int ok = fd >= 0 && write(fd, "5", 1) == 1;
    int why = errno;
    if (fd >= 0)
        close(fd);
    if (!ok)
        snprintf(err, errlen, "/proc/self/clear_refs: cannot reset the peak: %s", strerror(why));
    return ok ? 0 : -1;
}
