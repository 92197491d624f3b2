/* sbcalls.c — the allow-list a student's program runs under, and the supervisor's verdicts.
 * flipkit grader/: every call not on the list is sent to the supervisor, which names it in a
 * reason the program cannot write itself; see sbcalls.h. x86_64 system-call numbers. */
#define _GNU_SOURCE /* process_vm_readv, CLONE_* */
#include "sbcalls.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <termios.h>

#if !defined(__x86_64__)
#error "sbcalls.c: the filter is written for x86_64 system-call numbers"
#endif

#define SBCALL_X32_BIT 0x40000000u /* x32 calls share the arch word but not the numbers */
#define SBCALL_WRITE_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)

/* What C programs, libc, the dynamic loader, threads and the kit's own file writing need.
 * Paths are Landlock's business (sandbox.c): reading outside the allowed directories and
 * writing outside the run's directory fail there whatever the call. */
static const int sbcalls_allowed[] = {
    SYS_read, SYS_write, SYS_readv, SYS_writev, SYS_pread64, SYS_pwrite64, SYS_lseek, SYS_close,
    SYS_close_range, SYS_fstat, SYS_newfstatat, SYS_statx, SYS_stat, SYS_lstat, SYS_access,
    SYS_faccessat, SYS_faccessat2, SYS_readlink, SYS_readlinkat, SYS_getdents64, SYS_getcwd,
    SYS_fcntl, SYS_dup, SYS_dup2, SYS_dup3, SYS_fsync, SYS_fdatasync, SYS_ftruncate, SYS_flock,
    SYS_mkdir, SYS_mkdirat, SYS_rename, SYS_renameat, SYS_renameat2, SYS_unlink, SYS_unlinkat,
    SYS_rmdir, SYS_brk, SYS_mmap, SYS_munmap, SYS_mremap, SYS_mprotect, SYS_madvise,
    SYS_arch_prctl, SYS_set_tid_address, SYS_set_robust_list, SYS_get_robust_list, SYS_rseq,
    SYS_getrlimit, SYS_getpid, SYS_gettid, SYS_getppid, SYS_getuid, SYS_geteuid, SYS_getgid,
    SYS_getegid, SYS_getpgrp, SYS_uname, SYS_getrandom, SYS_clock_gettime, SYS_clock_getres,
    SYS_gettimeofday, SYS_time, SYS_nanosleep, SYS_clock_nanosleep, SYS_sched_yield,
    SYS_sched_getaffinity, SYS_futex, SYS_rt_sigaction, SYS_rt_sigprocmask, SYS_rt_sigreturn,
    SYS_sigaltstack, SYS_exit, SYS_exit_group, SYS_restart_syscall, SYS_getrusage, SYS_times,
    SYS_sysinfo, SYS_poll, SYS_ppoll,
};

/* Names for the report: the calls that matter, and every one on the list above. */
static const struct {
    int nr;
    const char *name;
} sbcalls_names[] = {
    {SYS_fork, "fork"}, {SYS_vfork, "vfork"}, {SYS_clone, "clone"}, {SYS_clone3, "clone3"},
    {SYS_execve, "execve"}, {SYS_execveat, "execveat"}, {SYS_ptrace, "ptrace"},
    {SYS_kill, "kill"}, {SYS_tkill, "tkill"}, {SYS_tgkill, "tgkill"},
    {SYS_rt_sigqueueinfo, "rt_sigqueueinfo"}, {SYS_rt_tgsigqueueinfo, "rt_tgsigqueueinfo"},
    {SYS_setsid, "setsid"}, {SYS_setpgid, "setpgid"}, {SYS_setrlimit, "setrlimit"},
    {SYS_prlimit64, "prlimit64"}, {SYS_ioctl, "ioctl"}, {SYS_socket, "socket"},
    {SYS_socketpair, "socketpair"}, {SYS_connect, "connect"}, {SYS_bind, "bind"},
    {SYS_sendto, "sendto"}, {SYS_sendmsg, "sendmsg"}, {SYS_chmod, "chmod"}, {SYS_fchmod, "fchmod"},
    {SYS_fchmodat, "fchmodat"}, {SYS_chown, "chown"}, {SYS_fchown, "fchown"}, {SYS_lchown, "lchown"},
    {SYS_fchownat, "fchownat"}, {SYS_utime, "utime"}, {SYS_utimes, "utimes"},
    {SYS_utimensat, "utimensat"}, {SYS_futimesat, "futimesat"}, {SYS_setxattr, "setxattr"},
    {SYS_lsetxattr, "lsetxattr"}, {SYS_fsetxattr, "fsetxattr"}, {SYS_removexattr, "removexattr"},
    {SYS_lremovexattr, "lremovexattr"}, {SYS_fremovexattr, "fremovexattr"}, {SYS_reboot, "reboot"},
    {SYS_sethostname, "sethostname"}, {SYS_setdomainname, "setdomainname"},
    {SYS_settimeofday, "settimeofday"}, {SYS_clock_settime, "clock_settime"},
    {SYS_adjtimex, "adjtimex"}, {SYS_chroot, "chroot"}, {SYS_pivot_root, "pivot_root"},
    {SYS_unshare, "unshare"}, {SYS_setns, "setns"}, {SYS_mount, "mount"}, {SYS_umount2, "umount2"},
    {SYS_memfd_create, "memfd_create"}, {SYS_shmget, "shmget"}, {SYS_shmat, "shmat"},
    {SYS_msgget, "msgget"}, {SYS_msgsnd, "msgsnd"}, {SYS_semget, "semget"},
    {SYS_mq_open, "mq_open"}, {SYS_symlink, "symlink"}, {SYS_symlinkat, "symlinkat"},
    {SYS_link, "link"}, {SYS_linkat, "linkat"}, {SYS_mknod, "mknod"}, {SYS_mknodat, "mknodat"},
    {SYS_process_vm_readv, "process_vm_readv"}, {SYS_process_vm_writev, "process_vm_writev"},
    {SYS_setuid, "setuid"}, {SYS_setgid, "setgid"}, {SYS_setreuid, "setreuid"},
    {SYS_setresuid, "setresuid"}, {SYS_setgroups, "setgroups"}, {SYS_personality, "personality"},
    {SYS_bpf, "bpf"}, {SYS_perf_event_open, "perf_event_open"}, {SYS_userfaultfd, "userfaultfd"},
    {SYS_io_uring_setup, "io_uring_setup"}, {SYS_keyctl, "keyctl"}, {SYS_add_key, "add_key"},
    {SYS_init_module, "init_module"}, {SYS_kexec_load, "kexec_load"}, {SYS_swapon, "swapon"},
    {SYS_acct, "acct"}, {SYS_prctl, "prctl"}, {SYS_seccomp, "seccomp"},
    {SYS_pidfd_open, "pidfd_open"}, {SYS_pidfd_getfd, "pidfd_getfd"},
    {SYS_pidfd_send_signal, "pidfd_send_signal"}, {SYS_open, "open"}, {SYS_openat, "openat"},
    {SYS_openat2, "openat2"}, {SYS_creat, "creat"}, {SYS_truncate, "truncate"},
    {SYS_fallocate, "fallocate"}, {SYS_inotify_init1, "inotify_init1"}, {SYS_pipe, "pipe"},
    {SYS_pipe2, "pipe2"}, {SYS_eventfd2, "eventfd2"}, {SYS_timer_create, "timer_create"},
    {SYS_setitimer, "setitimer"}, {SYS_alarm, "alarm"}, {SYS_syslog, "syslog"},
    {SYS_sched_setaffinity, "sched_setaffinity"}, {SYS_setpriority, "setpriority"},
    {SYS_quotactl, "quotactl"}, {SYS_afs_syscall, "afs_syscall"},
};

/* ---- the filter ---------------------------------------------------------------------- */

#define SB_STMT(code, k) ((struct sock_filter)BPF_STMT((code), (k)))
#define SB_JUMP(op, k, jt, jf) ((struct sock_filter)BPF_JUMP(BPF_JMP | (op) | BPF_K, (k), (jt), (jf)))
#define SB_LOAD_AT(off) SB_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define SB_LOAD(field) SB_LOAD_AT(offsetof(struct seccomp_data, field))
#define SB_ARG_LO(i) SB_LOAD_AT(offsetof(struct seccomp_data, args[i]))
#define SB_ARG_HI(i) SB_LOAD_AT(offsetof(struct seccomp_data, args[i]) + 4)
#define SB_RET(action) SB_STMT(BPF_RET | BPF_K, (action))
#define SB_IF_EQ(k, jt, jf) SB_JUMP(BPF_JEQ, (k), (jt), (jf))

#define SB_ALLOW SECCOMP_RET_ALLOW
#define SB_NOTIFY SECCOMP_RET_USER_NOTIF

static void sb_emit(SbFilter *f, struct sock_filter s)
{
    if (f->len < SBCALL_FILTER_MAX)
        f->code[f->len++] = s;
}

/* Each block starts with the call's number in A and either returns or, when the number is
 * not its call's, falls through to the next block with A unchanged. Jumps count the
 * instructions skipped. The low 32 bits of an argument are all the kernel reads of an int. */
static void sb_plain(SbFilter *f, int nr, uint32_t action)
{
    sb_emit(f, SB_IF_EQ((uint32_t)nr, 0, 1));
    sb_emit(f, SB_RET(action));
}

/* Allowed when argument arg, masked with bits, is zero (or, when set, is not); else the
 * supervisor decides. */
static void sb_by_bits(SbFilter *f, int nr, int arg, uint32_t bits, bool allow_when_set)
{
    sb_emit(f, SB_IF_EQ((uint32_t)nr, 0, 4));
    sb_emit(f, SB_ARG_LO(arg));
    sb_emit(f, allow_when_set ? SB_JUMP(BPF_JSET, bits, 1, 0) : SB_JUMP(BPF_JSET, bits, 0, 1));
    sb_emit(f, SB_RET(SB_NOTIFY));
    sb_emit(f, SB_RET(SB_ALLOW));
}

/* Allowed when argument arg equals a or b. */
static void sb_if_arg(SbFilter *f, int nr, int arg, uint32_t a, uint32_t b)
{
    sb_emit(f, SB_IF_EQ((uint32_t)nr, 0, 5));
    sb_emit(f, SB_ARG_LO(arg));
    sb_emit(f, SB_IF_EQ(a, 2, 0));
    sb_emit(f, SB_IF_EQ(b, 1, 0));
    sb_emit(f, SB_RET(SB_NOTIFY));
    sb_emit(f, SB_RET(SB_ALLOW));
}

void sbcalls_build(SbFilter *f, uint32_t self)
{
    f->len = 0;
    sb_emit(f, SB_LOAD(arch));
    sb_emit(f, SB_IF_EQ(AUDIT_ARCH_X86_64, 1, 0));
    sb_emit(f, SB_RET(SECCOMP_RET_KILL_PROCESS)); /* i386 numbers would mean other calls */
    sb_emit(f, SB_LOAD(nr));
    sb_emit(f, SB_JUMP(BPF_JGE, SBCALL_X32_BIT, 0, 1));
    sb_emit(f, SB_RET(SECCOMP_RET_KILL_PROCESS));
    for (size_t i = 0; i < sizeof sbcalls_allowed / sizeof sbcalls_allowed[0]; i++)
        sb_plain(f, sbcalls_allowed[i], SB_ALLOW);
    /* a thread is fine, a process is not */
    sb_by_bits(f, SYS_clone, 0, CLONE_THREAD, true);
    /* reading files is Landlock's business; opening to write is checked by the supervisor */
    sb_by_bits(f, SYS_openat, 2, SBCALL_WRITE_FLAGS, false);
    sb_by_bits(f, SYS_open, 1, SBCALL_WRITE_FLAGS, false);
    /* signals only at itself (raise, abort) or its own group */
    static const int signalling[] = { SYS_kill, SYS_tkill, SYS_tgkill, SYS_rt_sigqueueinfo,
                                      SYS_rt_tgsigqueueinfo };
    for (size_t i = 0; i < sizeof signalling / sizeof signalling[0]; i++)
        sb_if_arg(f, signalling[i], 0, self, 0);
    /* isatty and the window size; never TIOCSTI, which types into a terminal */
    sb_if_arg(f, SYS_ioctl, 1, TCGETS, TIOCGWINSZ);
    /* reading a limit is fine; setting one is not (argument 2, the new limit, must be NULL) */
    sb_emit(f, SB_IF_EQ(SYS_prlimit64, 0, 6));
    sb_emit(f, SB_ARG_LO(2));
    sb_emit(f, SB_IF_EQ(0, 0, 2));
    sb_emit(f, SB_ARG_HI(2));
    sb_emit(f, SB_IF_EQ(0, 1, 0));
    sb_emit(f, SB_RET(SB_NOTIFY));
    sb_emit(f, SB_RET(SB_ALLOW));
    /* clone3's flags sit behind a pointer: ENOSYS, and glibc falls back to clone */
    sb_plain(f, SYS_clone3, SECCOMP_RET_ERRNO | ENOSYS);
    sb_emit(f, SB_RET(SB_NOTIFY));
}

/* ---- the supervisor's side ----------------------------------------------------------- */

static const char *sb_name(int nr, char buf[32])
{
    for (size_t i = 0; i < sizeof sbcalls_names / sizeof sbcalls_names[0]; i++)
        if (sbcalls_names[i].nr == nr)
            return sbcalls_names[i].name;
    snprintf(buf, 32, "number %d", nr);
    return buf;
}

/* Printable ASCII only, and no quotes: what the program wrote is quoted, never trusted. */
static void sb_clean(char *s)
{
    for (; *s; s++)
        if (*s < 0x20 || *s > 0x7e || *s == '"' || *s == '\\')
            *s = '?';
}

/* A string from the program's memory, at most n - 1 bytes, read a page at a time so that
 * one ending just before an unmapped page still reads. Returns false when nothing could be. */
static bool sb_read_string(pid_t pid, uint64_t addr, char *buf, size_t n)
{
    size_t got = 0;
    while (got < n - 1) {
        size_t page_left = 4096 - (size_t)((addr + got) & 4095);
        size_t want = n - 1 - got < page_left ? n - 1 - got : page_left;
        struct iovec local = {buf + got, want}, remote = {(void *)(uintptr_t)(addr + got), want};
        ssize_t r = process_vm_readv(pid, &local, 1, &remote, 1, 0);
        if (r <= 0)
            break;
        if (memchr(buf + got, '\0', (size_t)r)) {
            got += (size_t)r;
            break;
        }
        got += (size_t)r;
    }
    buf[got] = '\0';
    return got > 0;
}

/* Absolute, or climbing out with a ".." component ("a/../../x", "..", but not "a..b"). */
static bool sb_is_outside(const char *path)
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

static SbVerdict sb_stop(SbCalls *c, const char *fmt, const char *what)
{
    if (!c->reason[0])
        snprintf(c->reason, sizeof c->reason, fmt, what);
    return SBCALL_STOP;
}

/* An open for writing: fine inside the run's directory (Landlock holds the line there too;
 * this only names the attempt). A relative path against another descriptor is judged as
 * if against the working directory, as Landlock judges it anyway. */
static SbVerdict sb_judge_open(SbCalls *c, pid_t pid, uint64_t path_addr)
{
    char path[160];
    if (!sb_read_string(pid, path_addr, path, sizeof path) || !sb_is_outside(path))
        return SBCALL_CONTINUE;
    sb_clean(path);
    return sb_stop(c, "tried to write outside its directory (%s)", path);
}

static SbVerdict sb_judge_guard(SbCalls *c, pid_t pid, const uint64_t args[6])
{
    char text[32];
    switch (args[0]) {
    case SBCALL_OUT_OF_MEMORY:
        snprintf(text, sizeof text, "%llu", (unsigned long long)args[1]);
        return sb_stop(c, "ran out of memory (asked for %s bytes)", text);
    case SBCALL_GIVEN_SOLVER:
        return sb_stop(c, "%s", SBCALL_GIVEN_SOLVER_REASON);
    case SBCALL_SETTINGS:
        if (!sb_read_string(pid, args[1], c->settings, sizeof c->settings))
            c->settings[0] = '\0';
        sb_clean(c->settings);
        return SBCALL_RETURN;
    default:
        return sb_stop(c, "made a forbidden system call (%s)", "afs_syscall");
    }
}

static SbVerdict sb_judge_ioctl(SbCalls *c, uint64_t request)
{
    char name[32];
    if (request == TIOCSTI)
        snprintf(name, sizeof name, "ioctl TIOCSTI");
    else if (request == TIOCLINUX)
        snprintf(name, sizeof name, "ioctl TIOCLINUX");
    else
        snprintf(name, sizeof name, "ioctl 0x%llx", (unsigned long long)request);
    return sb_stop(c, "made a forbidden system call (%s)", name);
}

SbVerdict sbcalls_judge(SbCalls *c, pid_t pid, int nr, const uint64_t args[6])
{
    char buf[32];
    switch (nr) {
    case SYS_execve:
    case SYS_execveat:
        if (c->execs++ == 0)
            return SBCALL_CONTINUE; /* the sandbox starting the program itself */
        return sb_stop(c, "tried to start a process (%s)", sb_name(nr, buf));
    case SYS_fork:
        return sb_stop(c, "tried to start a process (%s)", "fork");
    case SYS_vfork:
        return sb_stop(c, "tried to start a process (%s)", "vfork");
    case SYS_clone: /* glibc's fork and posix_spawn, as the program wrote them */
        return sb_stop(c, "tried to start a process (%s)", args[0] & CLONE_VFORK ? "vfork" : "fork");
    case SYS_open:
    case SYS_creat:
        return sb_judge_open(c, pid, args[0]);
    case SYS_openat:
        return sb_judge_open(c, pid, args[1]);
    case SBCALL_GUARD:
        return sb_judge_guard(c, pid, args);
    case SYS_ioctl:
        return sb_judge_ioctl(c, args[1]);
    default:
        return sb_stop(c, "made a forbidden system call (%s)", sb_name(nr, buf));
    }
}
