/* A hostile divergence for the grader's check: a constructor, which runs before main, forks
 * with a raw system call (no libc wrapper to catch it; the guard's seccomp filter must). */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <unistd.h>

#include "stages.h"

__attribute__((constructor)) static void early(void)
{
    syscall(SYS_fork);
}

void divergence(const MacGrid *g, float *div)
{
    div[0] = g->dx;
}
