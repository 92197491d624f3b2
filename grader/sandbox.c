/* sandbox.c — runs one untrusted command: own process group, rlimits, Landlock, capped output.
 * flipkit grader/: the child sets itself up and execs; the parent reads the merged output with
 * poll until the child exits, the wall limit passes or the output cap is hit, then names it. */
#define _GNU_SOURCE /* syscall, pipe2, O_PATH, close_range, memmem, sigabbrev_np, NSIG */
#include "sandbox.h"

#include "guard.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Newer than some distributions' <linux/landlock.h>; the kernel says which it knows. */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif

#define SB_NOFILE 64         /* descriptors the child may hold */
#define SB_CPU_GRACE 2       /* seconds between SIGXCPU and the hard CPU limit's SIGKILL */
#define SB_CHUNK 65536       /* bytes per read of the output pipe */
#define SB_SETUP_EXIT 127    /* the child's exit status when setting up failed */
#define SB_MIB ((rlim_t)1 << 20)

/* What the child sends back on its error pipe when a setup step fails; on success exec
 * closes the pipe (O_CLOEXEC) and the parent reads end-of-file instead. */
typedef struct {
    int err;
    char step[200];
} SbSetupError;

/* The parent's view of one run. */
typedef struct {
    pid_t pid;
    int out_fd, pid_fd;       /* output pipe, pidfd: -1 once closed */
    double start, deadline;   /* CLOCK_MONOTONIC seconds; deadline 0: no wall limit */
    char *buf;                /* captured output, cap + 1 bytes */
    size_t len, cap;
    bool exited, timed_out, flooded;
} SbRun;

static double sb_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- the child: only async-signal-safe calls between fork and execve ------------------ */

static size_t sb_copy(char *dst, size_t n, size_t size, const char *src)
{
    while (src && *src && n < size - 1)
        dst[n++] = *src++;
    dst[n] = '\0';
    return n;
}

static _Noreturn void sb_child_fail(int err_fd, const char *step, const char *detail)
{
    SbSetupError e;
    e.err = errno;
    size_t n = sb_copy(e.step, 0, sizeof e.step, step);
    if (detail) {
        n = sb_copy(e.step, n, sizeof e.step, " ");
        sb_copy(e.step, n, sizeof e.step, detail);
    }
    ssize_t written = write(err_fd, &e, sizeof e); /* one write under PIPE_BUF: atomic */
    (void)written;
    _exit(SB_SETUP_EXIT);
}

/* Handlers vanish at exec but ignored signals and the blocked mask do not: a student's program
 * must get SIGPIPE, SIGXCPU and SIGXFSZ as the default, whatever the grader does with them. */
static void sb_reset_signals(void)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; sig++)
        sigaction(sig, &dfl, NULL); /* SIGKILL, SIGSTOP and libc's own just refuse */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/* stdin from /dev/null, stdout and stderr into the pipe. The pipe end is moved above 2 first
 * so that no dup2 below can land on it, whatever descriptors the grader had closed. */
static int sb_redirect(int out_fd)
{
    int out = fcntl(out_fd, F_DUPFD, 3);
    int in = open("/dev/null", O_RDONLY);
    if (out < 0 || in < 0)
        return -1;
    if (dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 || dup2(out, STDERR_FILENO) < 0)
        return -1;
    return 0;
}

static int sb_limit(int resource, rlim_t soft, rlim_t hard)
{
    struct rlimit rl = {.rlim_cur = soft, .rlim_max = hard};
    return setrlimit(resource, &rl);
}

static int sb_limit_hard(int resource, rlim_t value)
{
    return sb_limit(resource, value, value);
}

/* The name of the limit that could not be set, or NULL. */
static const char *sb_set_rlimits(const SandboxLimits *lim)
{
    if (lim->cpu_seconds > 0) {
        rlim_t cpu = (rlim_t)lim->cpu_seconds;
        cpu += (double)cpu < lim->cpu_seconds; /* whole seconds, rounded up */
        if (sb_limit(RLIMIT_CPU, cpu, cpu + SB_CPU_GRACE) != 0)
            return "setrlimit(RLIMIT_CPU)";
    }
    if (lim->memory_mib && sb_limit_hard(RLIMIT_AS, lim->memory_mib * SB_MIB) != 0)
        return "setrlimit(RLIMIT_AS)";
    if (lim->file_mib && sb_limit_hard(RLIMIT_FSIZE, lim->file_mib * SB_MIB) != 0)
        return "setrlimit(RLIMIT_FSIZE)";
    if (lim->processes > 0 && sb_limit_hard(RLIMIT_NPROC, (rlim_t)lim->processes) != 0)
        return "setrlimit(RLIMIT_NPROC)";
    if (sb_limit_hard(RLIMIT_CORE, 0) != 0)
        return "setrlimit(RLIMIT_CORE)";
    if (sb_limit_hard(RLIMIT_NOFILE, SB_NOFILE) != 0)
        return "setrlimit(RLIMIT_NOFILE)";
    return NULL;
}

/* Every right that changes the file system, as far as this kernel's Landlock ABI knows them.
 * A right left out would simply be allowed everywhere. */
static uint64_t sb_write_rights(long abi)
{
    uint64_t rights = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                      LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                      LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                      LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                      LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
    if (abi >= 2)
        rights |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3)
        rights |= LANDLOCK_ACCESS_FS_TRUNCATE;
    return rights;
}

static long sb_landlock_abi(void)
{
    return syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
}

static int sb_allow(int ruleset, const char *path, uint64_t rights)
{
    struct landlock_path_beneath_attr beneath = {
        .allowed_access = rights,
        .parent_fd = open(path, O_PATH | O_CLOEXEC),
    };
    if (beneath.parent_fd < 0)
        return -1;
    return (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &beneath, 0);
}

enum { SB_READ_RIGHTS = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
                        LANDLOCK_ACCESS_FS_EXECUTE };

/* With readable: reading allowed beneath the system's directories and those paths only, so a
 * stage cannot read the reference's answers or sources. A missing path is skipped. */
static const char *sb_confine_reads(int ruleset, const char *const *readable)
{
    static const char *const system[] = { "/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc",
                                          "/dev", "/proc", NULL };
    for (int set = 0; set < 2; set++)
        for (const char *const *p = set ? readable : system; *p; p++) {
            struct stat st;
            if (stat(*p, &st) != 0)
                continue;
            uint64_t rights = S_ISDIR(st.st_mode) ? SB_READ_RIGHTS
                                                  : LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_EXECUTE;
            if (sb_allow(ruleset, *p, rights) != 0)
                return "landlock_add_rule (a readable path)";
        }
    return NULL;
}

/* Writes allowed beneath the working directory (already dir) and into /dev/null, nowhere
 * else; reading and executing allowed everywhere, or (readable not NULL) as sb_confine_reads
 * says. Returns the step that failed, or NULL. */
static const char *sb_confine(const char *const *readable)
{
    long abi = sb_landlock_abi();
    if (abi < 1)
        return "Landlock, needed to confine writes, is not available";
    struct landlock_ruleset_attr attr = {.handled_access_fs = sb_write_rights(abi) |
                                                              (readable ? SB_READ_RIGHTS : 0)};
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
    if (ruleset < 0)
        return "landlock_create_ruleset";
    if (sb_allow(ruleset, ".", attr.handled_access_fs) != 0)
        return "landlock_add_rule .";
    /* "> /dev/null" must not fail; only rights that make sense on a file can be given to one */
    uint64_t sink = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE;
    if (sb_allow(ruleset, "/dev/null", attr.handled_access_fs & (sink | LANDLOCK_ACCESS_FS_READ_FILE)) != 0)
        return "landlock_add_rule /dev/null";
    const char *failed = readable ? sb_confine_reads(ruleset, readable) : NULL;
    if (failed)
        return failed;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return "prctl(PR_SET_NO_NEW_PRIVS)";
    if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0)
        return "landlock_restrict_self";
    return NULL;
}

/* Nothing of the grader's but 0-2 survives the exec. close_range needs Linux 5.11. */
static void sb_close_on_exec(void)
{
    if (close_range(3, ~0u, CLOSE_RANGE_CLOEXEC) == 0)
        return;
    for (int fd = 3; fd < 1024; fd++)
        fcntl(fd, F_SETFD, FD_CLOEXEC);
}

static _Noreturn void sb_child(const char *dir, char *const argv[], char *const envp[],
                               const SandboxLimits *lim, int out_fd, int err_fd)
{
    if (setpgid(0, 0) != 0)
        sb_child_fail(err_fd, "setpgid", NULL);
    sb_reset_signals();
    if (sb_redirect(out_fd) != 0)
        sb_child_fail(err_fd, "redirecting stdin, stdout and stderr", NULL);
    if (chdir(dir) != 0)
        sb_child_fail(err_fd, "chdir", dir);
    const char *failed = sb_set_rlimits(lim);
    if (!failed && lim->confine_writes)
        failed = sb_confine(lim->readable);
    if (failed)
        sb_child_fail(err_fd, failed, NULL);
    sb_close_on_exec();
    execve(argv[0], argv, envp ? envp : environ);
    sb_child_fail(err_fd, "execve", argv[0]);
}

/* ---- the parent: start, watch, reap, judge ------------------------------------------ */

static int sb_no_start(SandboxResult *res, const char *step, int err)
{
    res->outcome = SB_START;
    snprintf(res->reason, sizeof res->reason, "could not start: %s: %s", step, strerror(err));
    return -1;
}

static void sb_close(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Both pipes close-on-exec: the child's dup2 copies of the output end survive, nothing else. */
static int sb_pipes(int out[2], int err[2])
{
    if (pipe2(out, O_CLOEXEC) != 0)
        return -1;
    if (pipe2(err, O_CLOEXEC) == 0)
        return 0;
    int e = errno;
    close(out[0]);
    close(out[1]);
    errno = e;
    return -1;
}

/* Blocks until the child has exec'd (end-of-file on err_fd) or reported a failed setup step,
 * then takes a pidfd so that the watch can poll for the child's exit with its output. */
static int sb_await_exec(SbRun *run, int err_fd, SandboxResult *res)
{
    SbSetupError e;
    ssize_t n;
    do
        n = read(err_fd, &e, sizeof e);
    while (n < 0 && errno == EINTR);
    close(err_fd);
    if (n == (ssize_t)sizeof e) {
        waitpid(run->pid, NULL, 0);
        return sb_no_start(res, e.step, e.err);
    }
    run->pid_fd = (int)syscall(SYS_pidfd_open, run->pid, 0);
    if (run->pid_fd < 0) {
        int err = errno;
        kill(-run->pid, SIGKILL);
        waitpid(run->pid, NULL, 0);
        return sb_no_start(res, "pidfd_open", err);
    }
    return 0;
}

static int sb_spawn(SbRun *run, const char *dir, char *const argv[], char *const envp[],
                    const SandboxLimits *lim, SandboxResult *res)
{
    int out[2], err[2];
    if (sb_pipes(out, err) != 0)
        return sb_no_start(res, "pipe", errno);
    run->start = sb_now();
    run->pid = fork();
    if (run->pid == 0)
        sb_child(dir, argv, envp, lim, out[1], err[1]);
    int fork_errno = errno;
    close(out[1]);
    close(err[1]);
    run->out_fd = out[0];
    if (run->pid < 0) {
        close(err[0]);
        return sb_no_start(res, "fork", fork_errno);
    }
    setpgid(run->pid, run->pid); /* as the child does: the group exists before we signal it */
    return sb_await_exec(run, err[0], res);
}

/* Milliseconds to the wall deadline for poll: -1 without one, 0 once it has passed. */
static int sb_ms_left(const SbRun *run)
{
    if (run->deadline <= 0)
        return -1;
    double left = run->deadline - sb_now();
    if (left <= 0)
        return 0;
    return left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
}

static void sb_read_output(SbRun *run)
{
    char chunk[SB_CHUNK];
    ssize_t n = read(run->out_fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
        return;
    if (n <= 0) {
        sb_close(&run->out_fd);
        return;
    }
    size_t room = run->cap - run->len;
    size_t keep = (size_t)n < room ? (size_t)n : room;
    memcpy(run->buf + run->len, chunk, keep);
    run->len += keep;
    run->flooded = (size_t)n > room;
}

/* The child has exited but is not reaped: its zombie still holds the pid, so the group id
 * cannot have been reused and this is the safe moment to kill what it left behind (which
 * may also be holding the pipe open). */
static void sb_on_exit(SbRun *run)
{
    run->exited = true;
    kill(-run->pid, SIGKILL);
}

/* Reads output until the child has exited and the pipe is closed, or until the wall limit
 * or the output cap; in those two cases kills the whole group. */
static void sb_watch(SbRun *run)
{
    while (run->out_fd >= 0 || !run->exited) {
        int ms = sb_ms_left(run);
        if (ms == 0) {
            run->timed_out = !run->exited; /* not if only a straggler holds the pipe */
            break;
        }
        struct pollfd fds[2];
        nfds_t n = 0;
        if (run->out_fd >= 0)
            fds[n++] = (struct pollfd){.fd = run->out_fd, .events = POLLIN};
        if (!run->exited)
            fds[n++] = (struct pollfd){.fd = run->pid_fd, .events = POLLIN};
        if (poll(fds, n, ms) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (nfds_t i = 0; i < n; i++) {
            if (fds[i].revents && fds[i].fd == run->pid_fd)
                sb_on_exit(run);
            else if (fds[i].revents)
                sb_read_output(run);
        }
        if (run->flooded)
            break;
    }
    if (!run->exited)
        kill(-run->pid, SIGKILL);
}

static double sb_seconds(struct timeval t)
{
    return (double)t.tv_sec + 1e-6 * (double)t.tv_usec;
}

static int sb_reap(SbRun *run, SandboxResult *res)
{
    int status;
    struct rusage ru;
    pid_t got;
    do
        got = wait4(run->pid, &status, 0, &ru);
    while (got < 0 && errno == EINTR);
    sb_close(&run->pid_fd);
    sb_close(&run->out_fd);
    if (got < 0) /* never a silent pass: the caller must not have SIGCHLD ignored */
        return sb_no_start(res, "wait4", errno);
    res->wall_seconds = sb_now() - run->start;
    res->cpu_seconds = sb_seconds(ru.ru_utime) + sb_seconds(ru.ru_stime);
    res->maxrss_kib = ru.ru_maxrss;
    if (WIFEXITED(status))
        res->exit_status = WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        res->signal = WTERMSIG(status);
    return 0;
}

/* The guard's message: the text after the last GUARD_PREFIX, to the end of its line. */
static bool sb_find_guard(SandboxResult *res)
{
    const char *end = res->output + res->output_len, *hit = NULL;
    size_t plen = strlen(GUARD_PREFIX);
    for (const char *p = res->output; (p = memmem(p, (size_t)(end - p), GUARD_PREFIX, plen));
         p += plen)
        hit = p + plen;
    if (!hit)
        return false;
    const char *eol = memchr(hit, '\n', (size_t)(end - hit));
    int len = (int)((eol ? eol : end) - hit);
    snprintf(res->guard, sizeof res->guard, "%.*s", len, hit);
    return true;
}

/* RLIMIT_AS makes allocation fail, and a program that does not check dies of the null
 * pointer (or aborts, or the OOM killer sends SIGKILL): a crash with its resident memory
 * within a quarter of the limit is counted as running out of memory. */
static bool sb_near_memory_limit(const SandboxLimits *lim, const SandboxResult *res)
{
    int sig = res->signal;
    bool crash = sig == SIGSEGV || sig == SIGBUS || sig == SIGABRT || sig == SIGKILL;
    size_t near_kib = lim->memory_mib * 1024 / 4 * 3;
    return crash && lim->memory_mib > 0 && (size_t)res->maxrss_kib >= near_kib;
}

static SandboxOutcome sb_outcome(const SbRun *run, const SandboxLimits *lim, SandboxResult *res)
{
    if (run->flooded)
        return SB_FLOOD;
    if (run->timed_out)
        return SB_TIMEOUT;
    if (!res->signal) {
        if (res->exit_status == GUARD_EXIT && sb_find_guard(res))
            return SB_GUARD;
        return res->exit_status == 0 ? SB_OK : SB_EXIT;
    }
    if (res->signal == SIGXCPU)
        return SB_CPU;
    if (res->signal == SIGXFSZ)
        return SB_FILESIZE;
    /* SIGXCPU caught or ignored: the hard limit's SIGKILL follows */
    if (res->signal == SIGKILL && lim->cpu_seconds > 0 && res->cpu_seconds >= lim->cpu_seconds)
        return SB_CPU;
    if (sb_near_memory_limit(lim, res))
        return SB_MEMORY;
    return SB_SIGNAL;
}

/* "crashed: SIGSEGV (segmentation fault)" */
static void sb_describe_signal(SandboxResult *res)
{
    const char *abbrev = sigabbrev_np(res->signal);
    char what[64];
    snprintf(what, sizeof what, "%s", strsignal(res->signal));
    if (what[0] >= 'A' && what[0] <= 'Z')
        what[0] = (char)(what[0] - 'A' + 'a');
    if (abbrev)
        snprintf(res->reason, sizeof res->reason, "crashed: SIG%s (%s)", abbrev, what);
    else
        snprintf(res->reason, sizeof res->reason, "crashed: signal %d (%s)", res->signal, what);
}

static void sb_describe(const SandboxLimits *lim, SandboxResult *res)
{
    char *r = res->reason;
    size_t n = sizeof res->reason;
    switch (res->outcome) {
    case SB_OK:
    case SB_EXIT: snprintf(r, n, "exited with status %d", res->exit_status); break;
    case SB_SIGNAL: sb_describe_signal(res); break;
    case SB_TIMEOUT: snprintf(r, n, "killed after %g s", lim->wall_seconds); break;
    case SB_CPU: snprintf(r, n, "used more than %g s of CPU", lim->cpu_seconds); break;
    case SB_FILESIZE: snprintf(r, n, "wrote a file larger than %zu MiB", lim->file_mib); break;
    case SB_MEMORY: snprintf(r, n, "ran out of memory (limit %zu MiB)", lim->memory_mib); break;
    case SB_FLOOD: snprintf(r, n, "flooded its output (more than %zu KiB)", lim->output_kib); break;
    case SB_GUARD: snprintf(r, n, "%s", res->guard); break;
    case SB_START: break; /* set where it failed */
    }
}

int sandbox_run(const char *dir, char *const argv[], char *const envp[], const SandboxLimits *lim,
                SandboxResult *res)
{
    memset(res, 0, sizeof *res);
    signal(SIGPIPE, SIG_IGN); /* this side only reads pipes; a caller that writes one is safe */
    SbRun run = {.pid = -1, .out_fd = -1, .pid_fd = -1, .cap = lim->output_kib * 1024};
    run.buf = malloc(run.cap + 1);
    if (!run.buf)
        return sb_no_start(res, "allocating the output buffer", ENOMEM);
    res->output = run.buf;
    run.buf[0] = '\0';
    if (sb_spawn(&run, dir, argv, envp, lim, res) != 0) {
        sb_close(&run.out_fd);
        return -1;
    }
    if (lim->wall_seconds > 0)
        run.deadline = run.start + lim->wall_seconds;
    sb_watch(&run);
    if (sb_reap(&run, res) != 0)
        return -1;
    run.buf[run.len] = '\0';
    res->output_len = run.len;
    res->outcome = sb_outcome(&run, lim, res);
    sb_describe(lim, res);
    return 0;
}

void sandbox_result_free(SandboxResult *res)
{
    free(res->output);
    res->output = NULL;
    res->output_len = 0;
}

bool sandbox_can_confine(void)
{
    return sb_landlock_abi() >= 1;
}
