/* sbcalls.h — which system calls a student's program may make, and what a denied one means.
 * flipkit grader/: an allow-list seccomp filter whose every other answer goes to the sandbox's
 * supervisor (SECCOMP_RET_USER_NOTIF), which names the call, records why and stops the program. */
#ifndef FLIPKIT_SBCALLS_H
#define FLIPKIT_SBCALLS_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The guard's channel: a system call no program otherwise makes (afs_syscall, never
 * implemented on x86_64), always sent to the supervisor. Argument 0 says what is reported.
 * A stage can make the call itself, but it can only pick one of these fixed reports, with a
 * number or a short string the supervisor quotes; it cannot write the reason's text. */
#define SBCALL_GUARD 183
enum {
    SBCALL_OUT_OF_MEMORY = 1, /* argument 1: the bytes asked for */
    SBCALL_SETTINGS = 2,      /* argument 1: a NUL-terminated line, the run's settings */
    SBCALL_GIVEN_SOLVER = 3,  /* no argument: a run that must not reach the given solver (every
                               * stage case, the scene runs of the student's jacobi) called it;
                               * solvertrap.c stands in for it there */
};
/* The supervisor's reason for SBCALL_GIVEN_SOLVER, word for word: the grader tells the report
 * by it (a scene run that called the given solver scores no frame). */
#define SBCALL_GIVEN_SOLVER_REASON "called the given solver (given_solve_sor): only the gauss_seidel scene runs link it"

#define SBCALL_FILTER_MAX 256
typedef struct {
    struct sock_filter code[SBCALL_FILTER_MAX];
    unsigned short len;
} SbFilter;

/* The filter for a program whose pid (as it sees itself) is self. */
void sbcalls_build(SbFilter *f, uint32_t self);

/* What the supervisor does with one notification. */
typedef enum {
    SBCALL_CONTINUE, /* let the call run as asked */
    SBCALL_RETURN,   /* answer it with value 0 without running it (a settings report) */
    SBCALL_STOP,     /* kill the program; reason says why */
} SbVerdict;

/* The supervisor's state across one run's notifications. */
typedef struct {
    int execs;             /* execve calls seen: the first is the sandbox's own */
    char reason[256];      /* the first SBCALL_STOP's reason */
    char settings[256];    /* the last settings report, "" when none */
} SbCalls;

/* Decides on one notified call from process pid (the supervisor's view of it): nr, its
 * arguments. Reads strings it needs from the process's memory. */
SbVerdict sbcalls_judge(SbCalls *c, pid_t pid, int nr, const uint64_t args[6]);

#endif
