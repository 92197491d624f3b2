/* sandbox.c — runs one untrusted command: a supervisor in new namespaces, rlimits, Landlock,
 * flipkit grader/: a system-call allow-list, a tmpfs budget, capped output. The supervisor and
 * the program are sbjail.c's; this side starts them, reads the output, reaps, and names it. */
#define _GNU_SOURCE /* syscall, pipe2, clone flags, sigabbrev_np, NSIG */
#include "sandbox.h"

#include "sbjail.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SB_CHUNK 65536       /* bytes per read of the output pipe */
#define SB_GRACE 10.0        /* seconds past the wall limit for the supervisor to finish */

/* The parent's view of one run. */
typedef struct {
    pid_t pid;                      /* the supervisor */
    int out_fd, pid_fd, final_fd;   /* output pipe, pidfd, the supervisor's report: -1 once closed */
    double start, deadline;         /* CLOCK_MONOTONIC seconds; deadline 0: no wall limit */
    char *buf;                      /* captured output, cap + 1 bytes */
    size_t len, cap;
    bool exited, timed_out, flooded, asked_stop;
    bool have_final;
    SbFinal fin;
} SbRun;

/* ---- what isolation this machine gives (probed once) ------------------------------------ */

static struct {
    bool probed;
    unsigned long ns;
    char text[1024];
} sb_iso;

/* A child cloned with flags that exits 0 when it could do what a supervisor must with them. */
static bool sb_try_clone(unsigned long flags)
{
    uid_t uid = getuid();
    gid_t gid = getgid();
    pid_t pid = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, 0);
    if (pid == 0) {
        if ((flags & CLONE_NEWUSER) && sbjail_map_user(uid, gid))
            _exit(1);
        if ((flags & CLONE_NEWNS) && (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
                                      mount("probe", "/tmp", "tmpfs", 0, "size=1m") != 0))
            _exit(1);
        _exit(0);
    }
    int status;
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void sb_probe(void)
{
    static const struct {
        unsigned long flag;
        const char *name, *without;
    } kinds[] = {
        {CLONE_NEWNET, "network", "a stage could reach services on this machine's loopback (the "
                                  "system-call filter still refuses socket)"},
        {CLONE_NEWIPC, "IPC", "SysV IPC a compiler leaves is not removed (stages cannot make any)"},
        {CLONE_NEWPID, "PID", "a run's processes see the machine's; leftovers are killed by group"},
        {CLONE_NEWNS, "mount", "no per-run disk budget (RLIMIT_FSIZE still caps each file)"},
        {CLONE_NEWUTS, "UTS", "nothing that matters here"},
    };
    sb_iso.probed = true;
    bool root = geteuid() == 0;
    unsigned long base = root ? 0 : CLONE_NEWUSER;
    char made[128] = "", missing[384] = "";
    if (base && !sb_try_clone(base)) {
        snprintf(sb_iso.text, sizeof sb_iso.text, "no namespaces (unprivileged user namespaces are "
                 "off): a stage could reach loopback services; no per-run disk budget");
        return;
    }
    sb_iso.ns = base;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        char *into = sb_try_clone(base | kinds[i].flag) ? made : missing;
        size_t n = strlen(into), size = into == made ? sizeof made : sizeof missing;
        if (into == made)
            sb_iso.ns |= kinds[i].flag;
        snprintf(into + n, size - n, "%s%s%s%s", n ? (into == made ? ", " : "; ") : "", kinds[i].name,
                 into == made ? "" : ": ", into == made ? "" : kinds[i].without);
    }
    snprintf(sb_iso.text, sizeof sb_iso.text, "%s; namespaces: %s%s%s%s",
             root ? "runs as a user of its own (uid 0x70000000 + the grader's pid) on one CPU"
                  : "runs as you, in a user namespace of its own, on one CPU",
             made[0] ? made : "none", missing[0] ? "; unavailable: " : "", missing,
             (sb_iso.ns & CLONE_NEWNS) ? "; disk: a tmpfs per run" : "");
}

const char *sandbox_isolation(void)
{
    if (!sb_iso.probed)
        sb_probe();
    return sb_iso.text;
}

uid_t sandbox_run_uid(void)
{
    return (uid_t)(SB_UID_BASE + (unsigned)getpid());
}

/* Once per process: the only CPU of its affinity mask (a Slurm task's, or a slot of a class
 * run, which pins each grading), else the (pid mod count)-th of them, so that gradings
 * started side by side by hand spread over the cores rather than all taking the first. */
int sandbox_cpu(void)
{
    static int cpu = -2;
    if (cpu != -2)
        return cpu;
    cpu_set_t mask;
    cpu = -1;
    if (sched_getaffinity(0, sizeof mask, &mask) != 0 || CPU_COUNT(&mask) == 0)
        return cpu;
    int pick = (int)((unsigned)getpid() % (unsigned)CPU_COUNT(&mask));
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &mask) && pick-- == 0)
            return cpu = c;
    return cpu;
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

/* The three pipes close-on-exec: the program's dup2 copies of the output end survive its
 * exec, nothing else does. */
static int sb_pipes(int out[2], int err[2], int fin[2])
{
    int *all[3] = {out, err, fin};
    for (int i = 0; i < 3; i++)
        if (pipe2(all[i], O_CLOEXEC) != 0) {
            int e = errno;
            for (int j = 0; j < i; j++)
                close(all[j][0]), close(all[j][1]);
            errno = e;
            return -1;
        }
    return 0;
}

/* Blocks until the program has exec'd (end-of-file on err_fd: the supervisor closes its copy
 * after starting it) or a setup step has failed, then takes a pidfd on the supervisor. */
static int sb_await_exec(SbRun *run, int err_fd, SandboxResult *res)
{
    SbSetupError e;
    ssize_t n;
    do
        n = read(err_fd, &e, sizeof e);
    while (n < 0 && errno == EINTR);
    close(err_fd);
    if (n == (ssize_t)sizeof e) {
        kill(run->pid, SIGKILL);
        waitpid(run->pid, NULL, 0);
        return sb_no_start(res, e.step, e.err);
    }
    run->pid_fd = (int)syscall(SYS_pidfd_open, run->pid, 0);
    if (run->pid_fd < 0) {
        int err = errno;
        kill(run->pid, SIGKILL);
        waitpid(run->pid, NULL, 0);
        return sb_no_start(res, "pidfd_open", err);
    }
    return 0;
}

static int sb_spawn(SbRun *run, const char *dir, char *const argv[], char *const envp[],
                    const SandboxLimits *lim, SandboxResult *res)
{
    int out[2], err[2], fin[2];
    /* its user writes in dir: into its own tmpfs, or (no mount namespace) into dir itself */
    SbJob job = {.dir = dir, .argv = argv, .envp = envp ? envp : environ, .lim = lim,
                 .ns = lim->isolate ? (sandbox_isolation(), sb_iso.ns) : 0,
                 .drop_user = lim->isolate && geteuid() == 0, .run_uid = sandbox_run_uid(),
                 .cpu = lim->isolate ? sandbox_cpu() : -1, .uid = getuid(), .gid = getgid()};
    bool scratch = (job.ns & CLONE_NEWNS) && lim->disk_mib;
    if (job.drop_user && !scratch && chown(dir, job.run_uid, job.run_uid) != 0)
        return sb_no_start(res, "chown of the run's directory", errno);
    if (sb_pipes(out, err, fin) != 0)
        return sb_no_start(res, "pipe", errno);
    job.out_fd = out[1], job.err_fd = err[1], job.final_fd = fin[1];
    run->start = sbjail_now();
    run->pid = (pid_t)syscall(SYS_clone, job.ns | SIGCHLD, NULL, NULL, NULL, 0);
    if (run->pid == 0) {
        close(out[0]), close(err[0]), close(fin[0]);
        sbjail_init(&job);
    }
    int clone_errno = errno;
    close(out[1]), close(err[1]), close(fin[1]);
    run->out_fd = out[0];
    run->final_fd = fin[0];
    if (run->pid < 0) {
        close(err[0]);
        return sb_no_start(res, "clone", clone_errno);
    }
    return sb_await_exec(run, err[0], res);
}

/* Milliseconds to the deadline for poll: -1 without one, 0 once it has passed. */
static int sb_ms_left(const SbRun *run)
{
    if (run->deadline <= 0)
        return -1;
    double left = run->deadline - sbjail_now();
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
    run->flooded |= (size_t)n > room;
}

/* Asks the supervisor to stop the program and finish (copy its files back, report): once,
 * with SB_GRACE more seconds before everything is killed. */
static void sb_ask_stop(SbRun *run)
{
    if (run->asked_stop || run->exited)
        return;
    run->asked_stop = true;
    kill(run->pid, SIGUSR1);
    run->deadline = sbjail_now() + SB_GRACE;
}

/* Reads output until the supervisor has exited and the pipe is closed. The supervisor keeps
 * the wall limit itself; this side's deadline is the backstop, SB_GRACE seconds later. */
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
            if (fds[i].revents && fds[i].fd == run->pid_fd) {
                run->exited = true;
                kill(-run->pid, SIGKILL); /* its group, should anything of it be left */
            } else if (fds[i].revents) {
                sb_read_output(run);
            }
        }
        if (run->flooded) {
            sb_ask_stop(run);
            sb_close(&run->out_fd); /* read no more */
        }
    }
    if (!run->exited)
        kill(-run->pid, SIGKILL);
}

static double sb_seconds(struct timeval t)
{
    return (double)t.tv_sec + 1e-6 * (double)t.tv_usec;
}

/* The supervisor's status, and its report of the program's end when it got to write it. */
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
    if (got < 0) { /* never a silent pass: the caller must not have SIGCHLD ignored */
        sb_close(&run->final_fd);
        return sb_no_start(res, "wait4", errno);
    }
    fcntl(run->final_fd, F_SETFL, O_NONBLOCK);
    run->have_final = read(run->final_fd, &run->fin, sizeof run->fin) == (ssize_t)sizeof run->fin;
    sb_close(&run->final_fd);
    res->wall_seconds = sbjail_now() - run->start;
    if (run->have_final && run->fin.have_status) {
        status = run->fin.status;
        ru = run->fin.ru;
    }
    res->cpu_seconds = sb_seconds(ru.ru_utime) + sb_seconds(ru.ru_stime);
    res->maxrss_kib = ru.ru_maxrss;
    if (WIFEXITED(status))
        res->exit_status = WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        res->signal = WTERMSIG(status);
    if (run->have_final) {
        snprintf(res->settings, sizeof res->settings, "%s", run->fin.settings);
        res->disk_kib = run->fin.disk_kib;
        res->kept_kib = run->fin.kept_kib;
    }
    return 0;
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
    if (run->timed_out || (run->have_final && run->fin.timed_out))
        return SB_TIMEOUT;
    if (run->have_final && run->fin.stopped) {
        snprintf(res->guard, sizeof res->guard, "%s", run->fin.reason);
        return SB_GUARD;
    }
    if (run->have_final && run->fin.disk_full)
        return SB_DISK;
    if (run->have_final && run->fin.copy_error[0] && !run->fin.over_keep)
        snprintf(res->guard, sizeof res->guard, "its files could not be copied back: %s", run->fin.copy_error);
    if (run->have_final && (run->fin.over_keep || run->fin.copy_error[0]))
        return SB_BUDGET;
    if (!res->signal)
        return res->exit_status == 0 ? SB_OK : SB_EXIT;
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
    case SB_TIMEOUT: /* the CPU it used says whether it waited or computed */
        if (lim->cpu_seconds > 0)
            snprintf(r, n, "killed after %.3g s of wall clock, having used %.1f of its %g s of CPU",
                     lim->wall_seconds, res->cpu_seconds, lim->cpu_seconds);
        else
            snprintf(r, n, "killed after %.3g s of wall clock", lim->wall_seconds);
        break;
    case SB_CPU: snprintf(r, n, "used more than %g s of CPU", lim->cpu_seconds); break;
    case SB_FILESIZE: snprintf(r, n, "wrote a file larger than %zu MiB", lim->file_mib); break;
    case SB_MEMORY: snprintf(r, n, "ran out of memory (limit %zu MiB)", lim->memory_mib); break;
    case SB_FLOOD: snprintf(r, n, "flooded its output (more than %zu KiB)", lim->output_kib); break;
    case SB_GUARD: snprintf(r, n, "%s", res->guard); break;
    case SB_DISK: snprintf(r, n, "filled its disk budget (%zu MiB)", lim->disk_mib); break;
    case SB_BUDGET:
        if (res->guard[0])
            snprintf(r, n, "%s", res->guard);
        else
            snprintf(r, n, "left more files than the submission's disk budget has room for "
                           "(%zu KiB left)", lim->keep_kib);
        break;
    case SB_START: break; /* set where it failed */
    }
}

static struct { int first, count, starts; } sb_test_fail;

void sandbox_test_fail_starts(int first, int count)
{
    sb_test_fail.first = first, sb_test_fail.count = count;
}

/* Whether this start is one the test hook fails; counts every start. */
static bool sb_test_fails_start(void)
{
    int n = ++sb_test_fail.starts;
    return sb_test_fail.count > 0 && n >= sb_test_fail.first && n < sb_test_fail.first + sb_test_fail.count;
}

int sandbox_run(const char *dir, char *const argv[], char *const envp[], const SandboxLimits *lim,
                SandboxResult *res)
{
    memset(res, 0, sizeof *res);
    signal(SIGPIPE, SIG_IGN); /* this side only reads pipes; a caller that writes one is safe */
    SbRun run = {.pid = -1, .out_fd = -1, .pid_fd = -1, .final_fd = -1, .cap = lim->output_kib * 1024};
    run.buf = malloc(run.cap + 1);
    if (!run.buf)
        return sb_no_start(res, "allocating the output buffer", ENOMEM);
    res->output = run.buf;
    run.buf[0] = '\0';
    if (sb_test_fails_start())
        return sb_no_start(res, "clone (test hook)", EAGAIN);
    if (sb_spawn(&run, dir, argv, envp, lim, res) != 0) {
        sb_close(&run.out_fd);
        sb_close(&run.final_fd);
        return -1;
    }
    if (lim->wall_seconds > 0)
        run.deadline = run.start + lim->wall_seconds + SB_GRACE;
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
    return sbjail_landlock_abi() >= 1;
}
