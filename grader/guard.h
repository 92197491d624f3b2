/* guard.h — the guard linked into every program that runs a student's stages.
 * flipkit grader/: it turns "the student's code did something it must not" into one line on
 * stderr, "flipgrade-guard: <message>", and exit status GUARD_EXIT; sandbox.c reads both. */
#ifndef FLIPKIT_GUARD_H
#define FLIPKIT_GUARD_H

#define GUARD_EXIT 86                    /* exit status after a guard message */
#define GUARD_PREFIX "flipgrade-guard: " /* how the message line starts */

/* The link-time half: the program's own calls to these go to guard.c's __wrap_X first. Put
 * the list on the link line of every program that links guard.o, e.g. in the Makefile:
 *
 *   GUARD_WRAPPED := malloc calloc realloc fopen fopen64 open open64 openat openat64 creat
 *   GUARD_WRAPPED += creat64 fork vfork system popen execv execvp execve execl execlp execle
 *   GUARD_WRAPPED += execvpe posix_spawn posix_spawnp
 *   GUARD_WRAP    := $(GUARD_WRAPPED:%=-Wl,--wrap=%)
 *
 * Without it the link fails on __real_malloc, which is the reminder. GUARD_WRAP_FLAGS is the
 * same list as one word, for a program that runs the compiler itself. The wrappers see only
 * calls from the program's own objects, not calls made inside shared libraries. */
#define GUARD_WRAP_FLAGS                                                                   \
    "-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=fopen,--wrap=fopen64,"          \
    "--wrap=open,--wrap=open64,--wrap=openat,--wrap=openat64,--wrap=creat,--wrap=creat64," \
    "--wrap=fork,--wrap=vfork,--wrap=system,--wrap=popen,--wrap=execv,--wrap=execvp,"      \
    "--wrap=execve,--wrap=execl,--wrap=execlp,--wrap=execle,--wrap=execvpe,"               \
    "--wrap=posix_spawn,--wrap=posix_spawnp"

/* The system-call half. It runs by itself before any constructor (a .preinit_array entry,
 * when guard.o is linked before the student's objects); calling it again does nothing. A
 * seccomp filter makes fork, vfork, clone (except for a thread), execve, execveat, ptrace,
 * setsid, setpgid, setrlimit, pidfd and process_vm calls, and kill/tkill/tgkill/sigqueue at
 * another process raise SIGSYS, whose handler prints the
 * message; clone3 fails with ENOSYS so that pthread_create falls back to clone. Root ignores
 * RLIMIT_NPROC, so this is the real barrier against new processes. Writes are stopped by the
 * sandbox's Landlock rules; the wrappers only name them. If the filter cannot be installed
 * this prints a guard message and exits: student code never runs unguarded. x86_64 only. */
void guard_install(void);

#endif
