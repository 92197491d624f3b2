/* guard.c — the guard: the command line kept from before student code, and the supervisor's channel.
 * flipkit grader/: see guard.h. Messages are built by hand and written with write(2): they
 * run after malloc failed. */
#define _GNU_SOURCE /* syscall */
#include "guard.h"

#include "sbcalls.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define GUARD_ARGS_MAX 128
#define GUARD_ARGS_BYTES 8192

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);

/* ---- the command line, as the program was started --------------------------------------- */

static int guard_nargs;
static char *guard_args[GUARD_ARGS_MAX + 1];
static char guard_arg_bytes[GUARD_ARGS_BYTES];

/* Runs from .preinit_array, before every constructor: no malloc, only copies. A command line
 * too long for the copy keeps argc at 0, and the program refuses to run. */
static void guard_keep_argv(int argc, char **argv, char **envp)
{
    (void)envp;
    size_t used = 0;
    for (int i = 0; i < argc && i < GUARD_ARGS_MAX; i++) {
        size_t n = strlen(argv[i]) + 1;
        if (used + n > sizeof guard_arg_bytes)
            return;
        guard_args[i] = memcpy(guard_arg_bytes + used, argv[i], n);
        used += n;
    }
    guard_nargs = argc <= GUARD_ARGS_MAX ? argc : 0;
}
__attribute__((section(".preinit_array"), used)) static void (*const guard_preinit_entry)(int, char **, char **) =
    guard_keep_argv;

int guard_argc(void)
{
    return guard_nargs;
}

char **guard_argv(void)
{
    return guard_args;
}

/* ---- reports to the supervisor ----------------------------------------------------------- */

void guard_report_settings(const char *line)
{
    syscall(SBCALL_GUARD, SBCALL_SETTINGS, line); /* ENOSYS outside the sandbox: nothing to do */
}

_Noreturn void guard_given_solver_called(void)
{
    syscall(SBCALL_GUARD, SBCALL_GIVEN_SOLVER);
    static const char msg[] = SBCALL_GIVEN_SOLVER_REASON "\n";
    ssize_t written = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)written;
    _exit(99);
}

/* Decimal digits of v, written at the end of buf. */
static const char *guard_number(uintmax_t v, char buf[24])
{
    char *p = buf + 23;
    *p = '\0';
    do
        *--p = (char)('0' + v % 10);
    while (v /= 10);
    return p;
}

/* The supervisor stops the program on this call; outside the sandbox it returns, and the
 * program says so itself and exits. */
static _Noreturn void guard_out_of_memory(size_t size)
{
    syscall(SBCALL_GUARD, SBCALL_OUT_OF_MEMORY, size);
    char num[24], msg[96] = "ran out of memory (asked for ";
    strcat(msg, guard_number(size, num));
    strcat(msg, " bytes)\n");
    ssize_t written = write(STDERR_FILENO, msg, strlen(msg));
    (void)written;
    _exit(99);
}

void *__wrap_malloc(size_t size)
{
    void *p = __real_malloc(size);
    if (!p && size > 0)
        guard_out_of_memory(size);
    return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
    void *p = __real_calloc(n, size);
    if (!p && n > 0 && size > 0)
        guard_out_of_memory(n > SIZE_MAX / size ? SIZE_MAX : n * size); /* saturated */
    return p;
}

void *__wrap_realloc(void *p, size_t size)
{
    void *q = __real_realloc(p, size);
    if (!q && size > 0)
        guard_out_of_memory(size);
    return q;
}
