/* simerror.c — how a run says it failed: its status and one line, in s->error.
 * flipkit common/: a file of its own because the driver (sim.c), its checks (watch.c) and the
 * backends all fail through it, and watch.c is called by sim.c: one file, no circle of calls. */
#include "sim.h"

#include <stdarg.h>
#include <stdio.h>

int sim_failv(Sim *s, RunStatus status, const char *fmt, va_list ap)
{
    vsnprintf(s->error.message, sizeof s->error.message, fmt, ap);
    s->error.status = status;
    return -1;
}

int sim_fail(Sim *s, RunStatus status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sim_failv(s, status, fmt, ap);
    va_end(ap);
    return -1;
}
