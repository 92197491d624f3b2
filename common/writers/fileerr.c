/* fileerr.c — "PATH: message" into a caller's buffer, for every module that reads or writes files.
 * flipkit common/writers/: modules return the message and never print it (only the driver
 * prints), so this formats and nothing more. */
#include "fileerr.h"

#include <stdarg.h>
#include <stdio.h>

void fileerr_set(char *err, size_t errlen, const char *path, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    int n = snprintf(err, errlen, "%s: ", path ? path : "(null)");
    if (n < 0 || (size_t)n >= errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
}
