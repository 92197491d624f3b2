/* guard.c — the guard: a seccomp filter and link-time wrappers around a student's code.
 * flipkit grader/: see guard.h for what is caught and how to link it. Messages are built by
 * hand and written with write(2): they run in a SIGSYS handler or after malloc failed. */
#define _GNU_SOURCE /* syscall, O_TMPFILE, si_syscall, the *64 declarations */
#include "guard.h"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#if !defined(__x86_64__)
#error "guard.c: the seccomp filter is written for x86_64 system-call numbers"
#endif

#define GUARD_SI_SECCOMP 1        /* si_code of a SIGSYS sent by seccomp (asm-generic/siginfo.h) */
#define GUARD_X32_BIT 0x40000000u /* x32 calls share the arch word but not the numbers */
#define GUARD_MSG_MAX 512

/* The wrappers: the linker sends the program's calls to X to __wrap_X, and __real_X is X. */
void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
FILE *__real_fopen(const char *path, const char *mode);
FILE *__real_fopen64(const char *path, const char *mode);
int __real_open(const char *path, int flags, ...);
int __real_open64(const char *path, int flags, ...);
int __real_openat(int dirfd, const char *path, int flags, ...);
int __real_openat64(int dirfd, const char *path, int flags, ...);
int __real_creat(const char *path, mode_t mode);
int __real_creat64(const char *path, mode_t mode);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
FILE *__wrap_fopen(const char *path, const char *mode);
FILE *__wrap_fopen64(const char *path, const char *mode);
int __wrap_open(const char *path, int flags, ...);
int __wrap_open64(const char *path, int flags, ...);
int __wrap_openat(int dirfd, const char *path, int flags, ...);
int __wrap_openat64(int dirfd, const char *path, int flags, ...);
int __wrap_creat(const char *path, mode_t mode);
int __wrap_creat64(const char *path, mode_t mode);
pid_t __wrap_fork(void);
pid_t __wrap_vfork(void);
int __wrap_system(const char *command);
FILE *__wrap_popen(const char *command, const char *mode);
int __wrap_execv(const char *path, char *const argv[]);
int __wrap_execvp(const char *file, char *const argv[]);
int __wrap_execve(const char *path, char *const argv[], char *const envp[]);
int __wrap_execl(const char *path, const char *arg, ...);
int __wrap_execlp(const char *file, const char *arg, ...);
int __wrap_execle(const char *path, const char *arg, ...);
int __wrap_execvpe(const char *file, char *const argv[], char *const envp[]);
int __wrap_posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
                       const posix_spawnattr_t *attr, char *const argv[], char *const envp[]);
int __wrap_posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
                        const posix_spawnattr_t *attr, char *const argv[], char *const envp[]);

/* ---- messages ------------------------------------------------------------------------ */

static size_t guard_append(char *msg, size_t n, const char *s)
{
    while (*s && n < GUARD_MSG_MAX - 1)
        msg[n++] = *s++;
    return n;
}

/* One line, GUARD_PREFIX a b c, in a single write so it cannot be split by other output. */
static _Noreturn void guard_die(const char *a, const char *b, const char *c)
{
    char msg[GUARD_MSG_MAX];
    size_t n = guard_append(msg, 0, GUARD_PREFIX);
    n = guard_append(msg, n, a);
    n = guard_append(msg, n, b);
    n = guard_append(msg, n, c);
    msg[n++] = '\n';
    ssize_t written = write(STDERR_FILENO, msg, n);
    (void)written; /* nothing better to do if stderr is gone */
    _exit(GUARD_EXIT);
}

/* Decimal digits of v, written at the end of buf; no printf in a signal handler. */
static const char *guard_number(uintmax_t v, char buf[24])
{
    char *p = buf + 23;
    *p = '\0';
    do
        *--p = (char)('0' + v % 10);
    while (v /= 10);
    return p;
}

/* ---- the seccomp filter -------------------------------------------------------------- */

typedef enum {
    GUARD_TRAP,          /* always SIGSYS */
    GUARD_UNLESS_THREAD, /* clone: a thread is fine (CLONE_THREAD), a process is not */
    GUARD_UNLESS_SELF,   /* kill, tkill, tgkill: fine at our own pid (raise, abort) or 0 */
    GUARD_UNLESS_READ,   /* prlimit64: reading a limit is fine, setting one is not (root
                          * could raise its own hard limits) */
    GUARD_NOSYS,         /* clone3: its flags sit behind a pointer the filter cannot read, so
                          * it fails with ENOSYS and glibc's pthread_create falls back to clone */
} GuardRule;

typedef struct {
    int nr;
    const char *name;
    GuardRule rule;
} GuardCall;

static const GuardCall guard_calls[] = {
    {__NR_fork, "fork", GUARD_TRAP},           {__NR_vfork, "vfork", GUARD_TRAP},
    {__NR_clone, "clone", GUARD_UNLESS_THREAD}, {__NR_clone3, "clone3", GUARD_NOSYS},
    {__NR_execve, "execve", GUARD_TRAP},       {__NR_execveat, "execveat", GUARD_TRAP},
    {__NR_ptrace, "ptrace", GUARD_TRAP},       {__NR_setsid, "setsid", GUARD_TRAP},
    {__NR_setpgid, "setpgid", GUARD_TRAP},     {__NR_kill, "kill", GUARD_UNLESS_SELF},
    {__NR_tkill, "tkill", GUARD_UNLESS_SELF},  {__NR_tgkill, "tgkill", GUARD_UNLESS_SELF},
    {__NR_setrlimit, "setrlimit", GUARD_TRAP}, {__NR_prlimit64, "prlimit64", GUARD_UNLESS_READ},
    {__NR_rt_sigqueueinfo, "rt_sigqueueinfo", GUARD_UNLESS_SELF},
    {__NR_rt_tgsigqueueinfo, "rt_tgsigqueueinfo", GUARD_UNLESS_SELF},
    {__NR_pidfd_open, "pidfd_open", GUARD_TRAP},  {__NR_pidfd_send_signal, "pidfd_send_signal", GUARD_TRAP},
    {__NR_pidfd_getfd, "pidfd_getfd", GUARD_TRAP},
    {__NR_process_vm_readv, "process_vm_readv", GUARD_TRAP},
    {__NR_process_vm_writev, "process_vm_writev", GUARD_TRAP},
};
#define GUARD_NCALLS (sizeof guard_calls / sizeof guard_calls[0])
#define GUARD_FILTER_MAX (8 + 7 * GUARD_NCALLS) /* header, at most 7 per call, the allow */

typedef struct {
    struct sock_filter code[GUARD_FILTER_MAX];
    unsigned short len;
} GuardFilter;

/* The instructions used, as values (BPF_STMT and BPF_JUMP are bare initializers). */
#define GUARD_STMT(code, k) ((struct sock_filter)BPF_STMT((code), (k)))
#define GUARD_JUMP(op, k, jt, jf) \
    ((struct sock_filter)BPF_JUMP(BPF_JMP | (op) | BPF_K, (k), (jt), (jf)))
#define GUARD_LOAD(field) GUARD_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define GUARD_RET(action) GUARD_STMT(BPF_RET | BPF_K, (action))
#define GUARD_IF_EQ(k, jt, jf) GUARD_JUMP(BPF_JEQ, (k), (jt), (jf))

static void guard_emit(GuardFilter *f, struct sock_filter s)
{
    f->code[f->len++] = s;
}

/* One call's block. It starts with the number in A and either returns or, when the number
 * is not this call's, falls through to the next block with A unchanged. Jumps count the
 * instructions skipped. "args" is the low 32 bits of argument 0 (little-endian), which is
 * all the kernel reads of an int pid or of clone's flags. */
static void guard_emit_call(GuardFilter *f, const GuardCall *c, uint32_t self)
{
    uint32_t nr = (uint32_t)c->nr;
    switch (c->rule) {
    case GUARD_TRAP:
    case GUARD_NOSYS:
        guard_emit(f, GUARD_IF_EQ(nr, 0, 1));
        guard_emit(f, GUARD_RET(c->rule == GUARD_TRAP ? SECCOMP_RET_TRAP
                                                      : SECCOMP_RET_ERRNO | ENOSYS));
        break;
    case GUARD_UNLESS_THREAD:
        guard_emit(f, GUARD_IF_EQ(nr, 0, 4));
        guard_emit(f, GUARD_LOAD(args));
        guard_emit(f, GUARD_JUMP(BPF_JSET, CLONE_THREAD, 1, 0));
        guard_emit(f, GUARD_RET(SECCOMP_RET_TRAP));
        guard_emit(f, GUARD_RET(SECCOMP_RET_ALLOW));
        break;
    case GUARD_UNLESS_SELF:
        guard_emit(f, GUARD_IF_EQ(nr, 0, 5));
        guard_emit(f, GUARD_LOAD(args));
        guard_emit(f, GUARD_IF_EQ(self, 2, 0));
        guard_emit(f, GUARD_IF_EQ(0, 1, 0));
        guard_emit(f, GUARD_RET(SECCOMP_RET_TRAP));
        guard_emit(f, GUARD_RET(SECCOMP_RET_ALLOW));
        break;
    case GUARD_UNLESS_READ: /* argument 2, the new limit, must be NULL: both halves zero */
        guard_emit(f, GUARD_IF_EQ(nr, 0, 6));
        guard_emit(f, GUARD_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])));
        guard_emit(f, GUARD_IF_EQ(0, 0, 2));
        guard_emit(f, GUARD_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2]) + 4));
        guard_emit(f, GUARD_IF_EQ(0, 1, 0));
        guard_emit(f, GUARD_RET(SECCOMP_RET_TRAP));
        guard_emit(f, GUARD_RET(SECCOMP_RET_ALLOW));
        break;
    }
}

/* Anything but a native x86_64 call (i386 through int 0x80, x32) is killed outright: the
 * numbers below would mean other calls there. */
static void guard_build(GuardFilter *f, uint32_t self)
{
    f->len = 0;
    guard_emit(f, GUARD_LOAD(arch));
    guard_emit(f, GUARD_IF_EQ(AUDIT_ARCH_X86_64, 1, 0));
    guard_emit(f, GUARD_RET(SECCOMP_RET_KILL_PROCESS));
    guard_emit(f, GUARD_LOAD(nr));
    guard_emit(f, GUARD_JUMP(BPF_JGE, GUARD_X32_BIT, 0, 1));
    guard_emit(f, GUARD_RET(SECCOMP_RET_KILL_PROCESS));
    for (size_t i = 0; i < GUARD_NCALLS; i++)
        guard_emit_call(f, &guard_calls[i], self);
    guard_emit(f, GUARD_RET(SECCOMP_RET_ALLOW));
}

static const char *guard_call_name(int nr, char num[24])
{
    for (size_t i = 0; i < GUARD_NCALLS; i++)
        if (guard_calls[i].nr == nr)
            return guard_calls[i].name;
    return guard_number((uintmax_t)nr, num);
}

static void guard_on_sigsys(int sig, siginfo_t *info, void *context)
{
    (void)sig;
    (void)context;
    char num[24];
    const char *name = "unknown";
    if (info->si_code == GUARD_SI_SECCOMP)
        name = guard_call_name(info->si_syscall, num);
    guard_die("made a forbidden system call (", name, ")");
}

static _Noreturn void guard_setup_failed(const char *what)
{
    char num[24];
    guard_die(what, " failed, errno ", guard_number((uintmax_t)errno, num));
}

void guard_install(void)
{
    static int installed;   /* once: the preinit entry below and main may both call it */
    if (installed++)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = guard_on_sigsys;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSYS, &sa, NULL) != 0)
        guard_setup_failed("installing the SIGSYS handler");

    static GuardFilter filter;
    guard_build(&filter, (uint32_t)getpid());
    struct sock_fprog prog = {.len = filter.len, .filter = filter.code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        guard_setup_failed("prctl(PR_SET_NO_NEW_PRIVS)");
    /* TSYNC: every thread gets the filter, should a library have started one already. */
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0)
        guard_setup_failed("installing the seccomp filter");
}

/* The filter goes on before any constructor runs: a student's __attribute__((constructor))
 * would otherwise run unguarded before main. The runners link guard.o before any student
 * object, and .preinit_array entries run in link order, before every .init_array entry. */
static void guard_preinit(void)
{
    guard_install();
}
__attribute__((section(".preinit_array"), used)) static void (*const guard_preinit_entry)(void) =
    guard_preinit;

/* ---- allocation ---------------------------------------------------------------------- */

static _Noreturn void guard_out_of_memory(size_t size)
{
    char num[24];
    guard_die("ran out of memory (asked for ", guard_number(size, num), " bytes)");
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

/* ---- files --------------------------------------------------------------------------- */

/* Absolute, or climbing out with a ".." component ("a/../../x", "..", but not "a..b"). */
static bool guard_is_outside(const char *path)
{
    if (path[0] == '/')
        return true;
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return true;
        p += n;
        p += strspn(p, "/");
    }
    return false;
}

static void guard_check_path(const char *path, bool writes)
{
    if (writes && path && guard_is_outside(path))
        guard_die("tried to write outside its directory (", path, ")");
}

static bool guard_flags_write(int flags)
{
    return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC | O_APPEND)) != 0;
}

static bool guard_mode_writes(const char *mode)
{
    return mode && strpbrk(mode, "wa+") != NULL;
}

/* open's third argument is there only with O_CREAT or O_TMPFILE; reading it otherwise would
 * read garbage, so look at the flags first (as glibc does). */
static mode_t guard_mode_arg(int flags, va_list ap)
{
    bool has_mode = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
    return has_mode ? (mode_t)va_arg(ap, unsigned int) : 0;
}

FILE *__wrap_fopen(const char *path, const char *mode)
{
    guard_check_path(path, guard_mode_writes(mode));
    return __real_fopen(path, mode);
}

FILE *__wrap_fopen64(const char *path, const char *mode)
{
    guard_check_path(path, guard_mode_writes(mode));
    return __real_fopen64(path, mode);
}

int __wrap_open(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = guard_mode_arg(flags, ap);
    va_end(ap);
    guard_check_path(path, guard_flags_write(flags));
    return __real_open(path, flags, mode);
}

int __wrap_open64(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = guard_mode_arg(flags, ap);
    va_end(ap);
    guard_check_path(path, guard_flags_write(flags));
    return __real_open64(path, flags, mode);
}

/* A relative path is judged as if against the working directory; a dirfd opened elsewhere
 * slips past this message, not past Landlock. */
int __wrap_openat(int dirfd, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = guard_mode_arg(flags, ap);
    va_end(ap);
    guard_check_path(path, guard_flags_write(flags));
    return __real_openat(dirfd, path, flags, mode);
}

int __wrap_openat64(int dirfd, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = guard_mode_arg(flags, ap);
    va_end(ap);
    guard_check_path(path, guard_flags_write(flags));
    return __real_openat64(dirfd, path, flags, mode);
}

int __wrap_creat(const char *path, mode_t mode)
{
    guard_check_path(path, true);
    return __real_creat(path, mode);
}

int __wrap_creat64(const char *path, mode_t mode)
{
    guard_check_path(path, true);
    return __real_creat64(path, mode);
}

/* ---- processes: none, ever; the wrappers only name the function before seccomp would ---- */

static _Noreturn void guard_no_process(const char *function)
{
    guard_die("tried to start a process (", function, ")");
}

pid_t __wrap_fork(void)
{
    guard_no_process("fork");
}

pid_t __wrap_vfork(void)
{
    guard_no_process("vfork");
}

int __wrap_system(const char *command)
{
    if (!command)
        return 0; /* "is there a shell?" - no */
    guard_no_process("system");
}

FILE *__wrap_popen(const char *command, const char *mode)
{
    (void)command;
    (void)mode;
    guard_no_process("popen");
}

int __wrap_execv(const char *path, char *const argv[])
{
    (void)path;
    (void)argv;
    guard_no_process("execv");
}

int __wrap_execvp(const char *file, char *const argv[])
{
    (void)file;
    (void)argv;
    guard_no_process("execvp");
}

int __wrap_execve(const char *path, char *const argv[], char *const envp[])
{
    (void)path;
    (void)argv;
    (void)envp;
    guard_no_process("execve");
}

int __wrap_execl(const char *path, const char *arg, ...)
{
    (void)path;
    (void)arg;
    guard_no_process("execl");
}

int __wrap_execlp(const char *file, const char *arg, ...)
{
    (void)file;
    (void)arg;
    guard_no_process("execlp");
}

int __wrap_execle(const char *path, const char *arg, ...)
{
    (void)path;
    (void)arg;
    guard_no_process("execle");
}

int __wrap_execvpe(const char *file, char *const argv[], char *const envp[])
{
    (void)file;
    (void)argv;
    (void)envp;
    guard_no_process("execvpe");
}

/* posix_spawn blocks every signal around its clone, so without these the seccomp trap would
 * kill the process by SIGSYS with no message. */
int __wrap_posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
                       const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    (void)pid, (void)path, (void)actions, (void)attr, (void)argv, (void)envp; /* unused */
    guard_no_process("posix_spawn");
}

int __wrap_posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
                        const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    (void)pid, (void)file, (void)actions, (void)attr, (void)argv, (void)envp; /* unused */
    guard_no_process("posix_spawnp");
}
