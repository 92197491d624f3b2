/* sbjail.c — the sandbox's child side: a supervisor in new namespaces and the program under it.
 * flipkit grader/: the supervisor (pid 1 of its PID namespace when there is one) mounts the run's
 * directory, starts the program, answers its denied calls, copies its files back, reports. */
#define _GNU_SOURCE /* syscall, setresuid, pidfd, O_PATH, close_range, mount */
#include "sbjail.h"

#include "sbcalls.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <limits.h>
#include <sys/syscall.h>
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

#define SB_NOFILE 64         /* descriptors the program may hold */
#define SB_CPU_GRACE 2       /* seconds between SIGXCPU and the hard CPU limit's SIGKILL */
#define SB_MIB ((rlim_t)1 << 20)
#define SB_INODES 4096       /* files and directories the run's tmpfs may hold */
#define SB_COPY_DEPTH 16     /* directory levels copied back */

/* ---- setup steps (only async-signal-safe calls until the program's execve) -------------- */

static size_t sb_copy(char *dst, size_t n, size_t size, const char *src)
{
    while (src && *src && n < size - 1)
        dst[n++] = *src++;
    dst[n] = '\0';
    return n;
}

static _Noreturn void sb_fail(int err_fd, const char *step, const char *detail)
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

/* The name of the limit that could not be set, or NULL. */
static const char *sb_set_rlimits(const SandboxLimits *lim)
{
    if (lim->cpu_seconds > 0) {
        rlim_t cpu = (rlim_t)lim->cpu_seconds;
        cpu += (double)cpu < lim->cpu_seconds; /* whole seconds, rounded up */
        if (sb_limit(RLIMIT_CPU, cpu, cpu + SB_CPU_GRACE) != 0)
            return "setrlimit(RLIMIT_CPU)";
    }
    if (lim->memory_mib && sb_limit(RLIMIT_AS, lim->memory_mib * SB_MIB, lim->memory_mib * SB_MIB) != 0)
        return "setrlimit(RLIMIT_AS)";
    if (lim->file_mib && sb_limit(RLIMIT_FSIZE, lim->file_mib * SB_MIB, lim->file_mib * SB_MIB) != 0)
        return "setrlimit(RLIMIT_FSIZE)";
    if (lim->processes > 0 && sb_limit(RLIMIT_NPROC, (rlim_t)lim->processes, (rlim_t)lim->processes) != 0)
        return "setrlimit(RLIMIT_NPROC)";
    if (sb_limit(RLIMIT_CORE, 0, 0) != 0)
        return "setrlimit(RLIMIT_CORE)";
    if (sb_limit(RLIMIT_NOFILE, SB_NOFILE, SB_NOFILE) != 0)
        return "setrlimit(RLIMIT_NOFILE)";
    if (sb_limit(RLIMIT_MSGQUEUE, 0, 0) != 0)
        return "setrlimit(RLIMIT_MSGQUEUE)";
    return NULL;
}

/* One core for the program and every thread it starts: RLIMIT_CPU counts all threads' time,
 * but only this keeps a stage that runs eight threads from taking eight cores' worth of wall
 * clock from the gradings beside it. sched_setaffinity is refused by the filter (sbcalls.c). */
static const char *sb_pin_cpu(int cpu)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    return sched_setaffinity(0, sizeof one, &one) == 0 ? NULL : "sched_setaffinity";
}

/* ---- Landlock ------------------------------------------------------------------------ */

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

long sbjail_landlock_abi(void)
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
    int rc = (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &beneath, 0);
    close(beneath.parent_fd);
    return rc;
}

enum { SB_READ_RIGHTS = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
                        LANDLOCK_ACCESS_FS_EXECUTE };

/* With readable: reading allowed beneath the directories programs and compilers are made of,
 * the few system files libc opens, and those paths; not /etc, /proc or /dev wholesale, so
 * not /etc/shadow, another process's environment or a terminal. A missing path is skipped. */
static const char *sb_confine_reads(int ruleset, const char *const *readable)
{
    static const char *const system[] = { "/usr", "/lib", "/lib64", "/bin", "/sbin",
                                          "/etc/ld.so.cache", "/dev/zero", "/dev/urandom",
                                          "/proc/self", NULL };
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
    long abi = sbjail_landlock_abi();
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
    close(ruleset);
    return NULL;
}

/* ---- the program's identity ------------------------------------------------------------ */

/* Root's program runs as the grading's own user (sbjail.h), keeping one power: reading and
 * searching directories it has no permission bits for (CAP_DAC_READ_SEARCH), because the
 * grader's files sit under directories only root may enter (a mktemp -d checkout, the 0700
 * work directory). Landlock still decides what it may read; it can write nothing of root's
 * and signal nothing. */
static const char *sb_become_run_user(uid_t id)
{
    if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0)
        return "prctl(PR_SET_KEEPCAPS)";
    if (setgroups(0, NULL) != 0)
        return "setgroups";
    if (setresgid((gid_t)id, (gid_t)id, (gid_t)id) != 0)
        return "setresgid";
    if (setresuid(id, id, id) != 0)
        return "setresuid";
    struct __user_cap_header_struct head = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    uint32_t read_search = 1u << CAP_DAC_READ_SEARCH;
    data[0].effective = data[0].permitted = data[0].inheritable = read_search;
    if (syscall(SYS_capset, &head, data) != 0)
        return "capset";
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_DAC_READ_SEARCH, 0, 0) != 0)
        return "prctl(PR_CAP_AMBIENT_RAISE)";
    if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) != 0)
        return "prctl(PR_SET_KEEPCAPS, 0)";
    return NULL;
}

/* A user namespace (not root): the same ids inside as outside, so files keep their owner;
 * setgroups must be denied before an unprivileged process may write its gid map. */
static int sb_write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

const char *sbjail_map_user(uid_t uid, gid_t gid)
{
    char map[64];
    if (sb_write_file("/proc/self/setgroups", "deny") != 0)
        return "writing /proc/self/setgroups";
    snprintf(map, sizeof map, "%u %u 1", (unsigned)uid, (unsigned)uid);
    if (sb_write_file("/proc/self/uid_map", map) != 0)
        return "writing /proc/self/uid_map";
    snprintf(map, sizeof map, "%u %u 1", (unsigned)gid, (unsigned)gid);
    if (sb_write_file("/proc/self/gid_map", map) != 0)
        return "writing /proc/self/gid_map";
    return NULL;
}

/* ---- the program ------------------------------------------------------------------------ */

/* The filter goes on last, after every setup step: its listener is handed to the supervisor,
 * which must hold it before execve (the first call the supervisor is asked about). */
static void sb_install_filter(const SbJob *job, int sock)
{
    SbFilter filter;
    sbcalls_build(&filter, (uint32_t)getpid());
    if (filter.len >= SBCALL_FILTER_MAX)
        sb_fail(job->err_fd, "building the system-call filter (too long)", NULL);
    struct sock_fprog prog = {.len = filter.len, .filter = filter.code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        sb_fail(job->err_fd, "prctl(PR_SET_NO_NEW_PRIVS)", NULL);
    int listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
    if (listener < 0)
        sb_fail(job->err_fd, "installing the seccomp filter", NULL);
    char ack;
    if (write(sock, &listener, sizeof listener) != (ssize_t)sizeof listener || read(sock, &ack, 1) != 1)
        sb_fail(job->err_fd, "handing the filter to the supervisor", NULL);
    close(listener);
    close(sock);
}

static _Noreturn void sb_program(const SbJob *job, int sock)
{
    const SandboxLimits *lim = job->lim;
    if (setpgid(0, 0) != 0) /* its own group: what the supervisor kills at the end */
        sb_fail(job->err_fd, "setpgid", NULL);
    if (sb_redirect(job->out_fd) != 0)
        sb_fail(job->err_fd, "redirecting stdin, stdout and stderr", NULL);
    if (chdir(job->dir) != 0)
        sb_fail(job->err_fd, "chdir", job->dir);
    int exe = open(job->argv[0], O_PATH | O_CLOEXEC); /* before its user: no search rights then */
    if (exe < 0)
        sb_fail(job->err_fd, "execve", job->argv[0]); /* what the caller knows it as */
    const char *failed = sb_set_rlimits(lim);
    if (!failed && job->cpu >= 0)
        failed = sb_pin_cpu(job->cpu);
    if (!failed && lim->confine_writes)
        failed = sb_confine(lim->readable);
    if (!failed && job->drop_user)
        failed = sb_become_run_user(job->run_uid);
    if (failed)
        sb_fail(job->err_fd, failed, NULL);
    if (close_range(3, ~0u, CLOSE_RANGE_CLOEXEC) != 0)
        for (int fd = 3; fd < 1024; fd++)
            fcntl(fd, F_SETFD, FD_CLOEXEC);
    if (lim->stage_calls)
        sb_install_filter(job, sock);
    syscall(SYS_execveat, exe, "", job->argv, job->envp, AT_EMPTY_PATH);
    sb_fail(job->err_fd, "execve", job->argv[0]);
}

/* ---- the run's directory as a tmpfs of its own ------------------------------------------- */

/* One copy between a run's directory and its tmpfs: bytes are counted against a budget (the
 * copy back only: the copy in is the grader's own files), and the first failure is named. */
typedef struct {
    unsigned long long left;   /* bytes that may still be copied */
    unsigned long long done;   /* bytes copied */
    bool over;                 /* a file did not fit in what was left: copying stopped */
    char what[200];            /* the first failure */
} SbCopy;

static int sb_copy_file(int from, int to, const char *name, SbCopy *c)
{
    int src = openat(from, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (src < 0)
        return -1;
    struct stat st;
    int dst = -1, rc = -1;
    if (fstat(src, &st) != 0 || !S_ISREG(st.st_mode)) /* changed under us: not copied */
        goto done;
    if ((unsigned long long)st.st_size > c->left) {
        c->over = true;
        goto done;
    }
    unlinkat(to, name, 0);
    /* the permission bits (a linked program stays executable), never set-id bits */
    dst = openat(to, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, st.st_mode & 0755);
    if (dst < 0)
        goto done;
    char buf[65536];
    ssize_t n;
    unsigned long long copied = 0;
    while (copied <= (unsigned long long)st.st_size && (n = read(src, buf, sizeof buf)) > 0) {
        if (write(dst, buf, (size_t)n) != n)
            goto done;
        copied += (unsigned long long)n;
    }
    c->left -= copied < c->left ? copied : c->left;
    c->done += copied;
    rc = copied == (unsigned long long)st.st_size ? 0 : -1;
done:
    if (dst >= 0)
        close(dst);
    close(src);
    return rc;
}

static int sb_copy_tree(int from, int to, int depth, SbCopy *c);

/* The directory name beneath from, made beneath to and copied into it. */
static int sb_copy_dir(int from, int to, const char *name, int depth, SbCopy *c)
{
    mkdirat(to, name, 0755);
    int a = openat(from, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int b = openat(to, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int rc = a >= 0 && b >= 0 ? sb_copy_tree(a, b, depth + 1, c) : -1;
    if ((a < 0 || b < 0) && !c->what[0])
        snprintf(c->what, sizeof c->what, "%.120s/: %s", name, strerror(errno));
    if (a >= 0)
        close(a);
    if (b >= 0)
        close(b);
    return rc;
}

/* Regular files and directories only: a link, FIFO or device the program made never leaves
 * its tmpfs. Returns 0, or -1 with the name that failed in c->what. */
static int sb_copy_tree(int from, int to, int depth, SbCopy *c)
{
    int dup_fd = dup(from);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d)
        return snprintf(c->what, sizeof c->what, "a directory: %s", strerror(errno)), -1;
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        struct stat st;
        if (fstatat(from, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (S_ISREG(st.st_mode)) {
            if (sb_copy_file(from, to, e->d_name, c) != 0) {
                rc = -1;
                if (!c->what[0])
                    snprintf(c->what, sizeof c->what, "%.120s: %s", e->d_name,
                             c->over ? "over the budget" : strerror(errno));
            }
        } else if (S_ISDIR(st.st_mode) && depth < SB_COPY_DEPTH) {
            rc = sb_copy_dir(from, to, e->d_name, depth, c);
        }
    }
    closedir(d);
    return rc;
}

/* One path of SandboxLimits.keep, relative to both directories: its parent directories are
 * followed in from (never through a link) and made in to, then the file or directory is
 * copied. A path the run did not leave is no error: the grader says what was missing. */
static int sb_copy_kept(int from, int to, const char *path, SbCopy *c)
{
    char part[256];
    int a = dup(from), b = dup(to), rc = 0;
    while (a >= 0 && b >= 0 && rc == 0) {
        size_t len = strcspn(path, "/");
        if (len == 0 || len >= sizeof part)
            break;
        memcpy(part, path, len);
        part[len] = '\0';
        struct stat st;
        if (fstatat(a, part, &st, AT_SYMLINK_NOFOLLOW) != 0)
            break;
        if (path[len] == '\0') {
            if (S_ISREG(st.st_mode) && sb_copy_file(a, b, part, c) != 0)
                rc = -1;
            else if (S_ISDIR(st.st_mode))
                rc = sb_copy_dir(a, b, part, 0, c);
            if (rc && !c->what[0])
                snprintf(c->what, sizeof c->what, "%.120s: %s", part, c->over ? "over the budget" : strerror(errno));
            break;
        }
        if (!S_ISDIR(st.st_mode))
            break;
        mkdirat(b, part, 0755);
        int na = openat(a, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int nb = openat(b, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(a), close(b);
        a = na, b = nb;
        path += len + 1;
    }
    if (a >= 0)
        close(a);
    if (b >= 0)
        close(b);
    return rc;
}

/* Mounts a tmpfs of the budget's size over dir, with the files the grader put there copied
 * in; old_fd keeps the directory underneath, where the run's files go back at the end. */
static void sb_mount_scratch(const SbJob *job, int *old_fd, int *new_fd)
{
    *old_fd = open(job->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (*old_fd < 0)
        sb_fail(job->err_fd, "open", job->dir);
    char opts[160];
    unsigned owner_uid = job->drop_user ? (unsigned)job->run_uid : (unsigned)job->uid;
    unsigned owner_gid = job->drop_user ? (unsigned)job->run_uid : (unsigned)job->gid;
    snprintf(opts, sizeof opts, "size=%zum,nr_inodes=%d,mode=0700,uid=%u,gid=%u", job->lim->disk_mib,
             SB_INODES, owner_uid, owner_gid);
    if (mount("flipgrade", job->dir, "tmpfs", MS_NOSUID | MS_NODEV, opts) != 0)
        sb_fail(job->err_fd, "mounting the run's tmpfs on", job->dir);
    *new_fd = open(job->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    SbCopy in = {.left = ~0ull};
    if (*new_fd < 0 || sb_copy_tree(*old_fd, *new_fd, 0, &in) != 0)
        sb_fail(job->err_fd, "copying the run's inputs into its tmpfs", NULL);
    if (fchown(*new_fd, owner_uid, owner_gid) != 0)
        sb_fail(job->err_fd, "chown of the run's tmpfs", NULL);
}

/* ---- the run's root: only what it may read ----------------------------------------------- */

/* Landlock decides what may be read, not what may be looked at: stat answers everywhere. So
 * the program gets a root of its own, a small read-only tmpfs holding, at the same paths, only
 * what it may read (bound read-only), its directory and /dev/null (bound writable), and a /proc
 * of its PID namespace: stat of /etc/shadow, of another process or of the grader's files
 * answers "No such file or directory". The root is made at SB_ROOT_AT, hidden by it in this
 * mount namespace only, then becomes / by pivot_root. */
#define SB_ROOT_AT "/tmp"
#define SB_ROOT_MAX 32

typedef struct {
    const char *path;   /* absolute: where the program sees it */
    int fd;             /* O_PATH of what is bound there; -1: a symbolic link */
    char link[256];     /* the link's target, for a symbolic link */
    bool dir, writable;
} SbRootEntry;

/* Symbolic links among the system's paths stay links (/bin -> usr/bin on a merged /usr, cc
 * through /etc/alternatives), so what they lead to must be bound as well. */
static const char *const sb_root_system[] = { "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin",
                                              "/sbin", "/etc/ld.so.cache", "/etc/alternatives",
                                              "/dev/zero", "/dev/urandom", NULL };

static void sb_root_add(SbRootEntry *e, int *n, const char *path, bool writable, bool system, int err_fd)
{
    struct stat st;
    if (*n >= SB_ROOT_MAX)
        sb_fail(err_fd, "making the run's root (too many paths)", NULL);
    if (lstat(path, &st) != 0)
        return; /* a path this system lacks */
    SbRootEntry *x = &e[*n];
    *x = (SbRootEntry){.path = path, .fd = -1, .writable = writable};
    if (system && S_ISLNK(st.st_mode)) {
        ssize_t len = readlink(path, x->link, sizeof x->link - 1);
        if (len <= 0)
            return;
        x->link[len] = '\0';
    } else {
        x->fd = open(path, O_PATH | O_CLOEXEC);
        if (x->fd < 0 || fstat(x->fd, &st) != 0)
            sb_fail(err_fd, "making the run's root: open", path);
        x->dir = S_ISDIR(st.st_mode);
    }
    (*n)++;
}

/* Shorter paths first, so a directory is bound before anything beneath it. */
static void sb_root_sort(SbRootEntry *e, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strlen(e[j].path) < strlen(e[j - 1].path); j--) {
            SbRootEntry t = e[j];
            e[j] = e[j - 1];
            e[j - 1] = t;
        }
}

/* Whether path lies beneath an earlier directory entry (already bound with it). */
static bool sb_root_covered(const SbRootEntry *e, int i)
{
    for (int j = 0; j < i; j++) {
        size_t len = strlen(e[j].path);
        if (e[j].dir && e[j].fd >= 0 && strncmp(e[i].path, e[j].path, len) == 0 && e[i].path[len] == '/')
            return true;
    }
    return false;
}

/* mkdir -p of path's parents under the root being made (at into, the root's own path). */
static void sb_root_parents(char *at)
{
    for (char *p = at + strlen(SB_ROOT_AT) + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        mkdir(at, 0755);
        *p = '/';
    }
}

/* Bind-mounts an entry read-only (or writable), keeping the flags a user namespace may not
 * drop (nosuid, nodev, noexec and the atime ones of the mount it comes from). */
static int sb_root_bind(const SbRootEntry *x, const char *at)
{
    char from[32];
    snprintf(from, sizeof from, "/proc/self/fd/%d", x->fd);
    if (mount(from, at, NULL, MS_BIND | MS_REC, NULL) != 0)
        return -1;
    if (x->writable)
        return 0;
    struct statvfs sv;
    if (statvfs(at, &sv) != 0)
        return -1;
    unsigned long keep = (sv.f_flag & ST_NOSUID ? MS_NOSUID : 0) | (sv.f_flag & ST_NODEV ? MS_NODEV : 0) |
                         (sv.f_flag & ST_NOEXEC ? MS_NOEXEC : 0) | (sv.f_flag & ST_NOATIME ? MS_NOATIME : 0) |
                         (sv.f_flag & ST_NODIRATIME ? MS_NODIRATIME : 0) |
                         (sv.f_flag & ST_RELATIME ? MS_RELATIME : 0);
    return mount(NULL, at, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | keep, NULL);
}

static void sb_root_place(const SbRootEntry *x, int err_fd)
{
    char at[PATH_MAX];
    if (snprintf(at, sizeof at, "%s%s", SB_ROOT_AT, x->path) >= (int)sizeof at)
        sb_fail(err_fd, "making the run's root (path too long)", x->path);
    sb_root_parents(at);
    if (x->fd < 0) {
        if (symlink(x->link, at) != 0 && errno != EEXIST)
            sb_fail(err_fd, "making the run's root: symlink", x->path);
        return;
    }
    if (x->dir)
        mkdir(at, 0755);
    else
        close(open(at, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
    if (sb_root_bind(x, at) != 0)
        sb_fail(err_fd, "making the run's root: bind", x->path);
}

int sbjail_mount_proc(const char *path)
{
    unsigned long flags = MS_NOSUID | MS_NODEV | MS_NOEXEC;
    return mount("proc", path, "proc", flags, "hidepid=invisible,subset=pid") == 0 ||
                   mount("proc", path, "proc", flags, "hidepid=2") == 0
               ? 0
               : -1;
}

/* The root described above, made and entered; the supervisor keeps its descriptors of the
 * run's directory for copying files back. Without a PID namespace there is no /proc (one
 * would show the machine's processes). */
static void sb_make_root(const SbJob *job)
{
    SbRootEntry e[SB_ROOT_MAX];
    int n = 0;
    for (const char *const *p = sb_root_system; *p; p++)
        sb_root_add(e, &n, *p, false, true, job->err_fd);
    sb_root_add(e, &n, "/dev/null", true, true, job->err_fd);
    for (const char *const *p = job->lim->readable; *p; p++)
        sb_root_add(e, &n, *p, false, false, job->err_fd);
    sb_root_add(e, &n, job->dir, true, false, job->err_fd);
    sb_root_sort(e, n);
    if (mount("flipgrade-root", SB_ROOT_AT, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=1024,mode=0755") != 0)
        sb_fail(job->err_fd, "making the run's root: tmpfs on", SB_ROOT_AT);
    for (int i = 0; i < n; i++)
        if (!sb_root_covered(e, i) || e[i].writable)
            sb_root_place(&e[i], job->err_fd);
    for (int i = 0; i < n; i++)
        if (e[i].fd >= 0)
            close(e[i].fd);
    if (job->ns & CLONE_NEWPID) {
        mkdir(SB_ROOT_AT "/proc", 0555);
        if (sbjail_mount_proc(SB_ROOT_AT "/proc") != 0)
            sb_fail(job->err_fd, "making the run's root: mounting its /proc", NULL);
    }
    if (chdir(SB_ROOT_AT) != 0 || syscall(SYS_pivot_root, ".", ".") != 0)
        sb_fail(job->err_fd, "making the run's root: pivot_root", NULL);
    if (umount2(".", MNT_DETACH) != 0 || chdir("/") != 0)
        sb_fail(job->err_fd, "making the run's root: leaving the old one", NULL);
    if (mount(NULL, "/", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) != 0)
        sb_fail(job->err_fd, "making the run's root read-only", NULL);
}

/* ---- supervising ------------------------------------------------------------------------ */

static volatile sig_atomic_t sb_stop_asked; /* SIGUSR1 from the grader: flood, or its backstop */

static void sb_on_usr1(int sig)
{
    (void)sig;
    sb_stop_asked = 1;
}

typedef struct {
    pid_t pid;
    int pid_fd, listener;
    double deadline;
    SbCalls calls;
    SbFinal fin;
} SbWatch;

double sbjail_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void sb_kill_program(SbWatch *w)
{
    kill(-w->pid, SIGKILL);
    kill(w->pid, SIGKILL);
}

static void sb_answer(SbWatch *w)
{
    struct seccomp_notif req;
    memset(&req, 0, sizeof req); /* the kernel insists */
    if (ioctl(w->listener, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0)
        return; /* the caller died meanwhile */
    SbVerdict v = sbcalls_judge(&w->calls, (pid_t)req.pid, req.data.nr, (const uint64_t *)req.data.args);
    struct seccomp_notif_resp resp = {.id = req.id};
    if (v == SBCALL_CONTINUE)
        resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    if (v == SBCALL_STOP) {
        sb_kill_program(w); /* before the answer, so the call never returns to it */
        w->fin.stopped = 1;
        resp.error = -EPERM;
    }
    ioctl(w->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

static int sb_ms_left(const SbWatch *w)
{
    if (w->deadline <= 0)
        return -1;
    double left = w->deadline - sbjail_now();
    return left <= 0 ? 0 : left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
}

/* Until the program has exited: answers its calls, kills it at the wall limit or when the
 * grader asks (SIGUSR1). */
static void sb_supervise(SbWatch *w)
{
    for (;;) {
        int ms = sb_ms_left(w);
        if (ms == 0 || sb_stop_asked) {
            w->fin.timed_out |= ms == 0;
            sb_kill_program(w);
            w->deadline = 0;
            sb_stop_asked = 0;
        }
        struct pollfd fds[2] = {{.fd = w->pid_fd, .events = POLLIN},
                                {.fd = w->listener, .events = POLLIN}};
        nfds_t n = w->listener >= 0 ? 2 : 1;
        if (poll(fds, n, ms) < 0)
            continue; /* EINTR: SIGUSR1 */
        if (fds[0].revents)
            return;
        if (n == 2 && (fds[1].revents & POLLIN))
            sb_answer(w);
        else if (n == 2 && fds[1].revents) { /* every filtered task is gone */
            close(w->listener);
            w->listener = -1;
        }
    }
}

/* The listener, taken from the program with pidfd_getfd; it then may go on to execve. */
static int sb_take_listener(const SbJob *job, SbWatch *w, int sock)
{
    if (!job->lim->stage_calls)
        return -1;
    int number;
    if (read(sock, &number, sizeof number) != (ssize_t)sizeof number)
        return -1; /* its setup failed before: the error pipe says why */
    int fd = (int)syscall(SYS_pidfd_getfd, w->pid_fd, number, 0);
    if (fd < 0) {
        sb_kill_program(w);
        snprintf(w->fin.reason, sizeof w->fin.reason, "could not start: pidfd_getfd: %s", strerror(errno));
        w->fin.stopped = 1;
        return -1;
    }
    char ack = 1;
    if (write(sock, &ack, 1) != 1)
        sb_kill_program(w);
    return fd;
}

/* What the grader keeps of the program's tmpfs (SandboxLimits.keep, within keep_kib) goes
 * back to the directory underneath; the rest goes with the tmpfs. */
static void sb_copy_back(SbWatch *w, int old_fd, int new_fd, const SandboxLimits *lim)
{
    struct statfs fs;
    if (fstatfs(new_fd, &fs) == 0) {
        w->fin.disk_kib = (long)((fs.f_blocks - fs.f_bfree) * (unsigned long)fs.f_bsize / 1024);
        w->fin.disk_full = (size_t)w->fin.disk_kib + 256 >= lim->disk_mib * 1024 || fs.f_ffree == 0;
    }
    SbCopy c = {.left = lim->keep_kib ? (unsigned long long)lim->keep_kib * 1024 : ~0ull};
    int rc = 0;
    if (!lim->keep)
        rc = sb_copy_tree(new_fd, old_fd, 0, &c);
    for (const char *const *k = lim->keep; k && *k && rc == 0; k++)
        rc = sb_copy_kept(new_fd, old_fd, *k, &c);
    w->fin.kept_kib = (long)((c.done + 1023) / 1024);
    w->fin.over_keep = c.over;
    if (rc != 0)
        snprintf(w->fin.copy_error, sizeof w->fin.copy_error, "%s", c.what[0] ? c.what : "copying back");
}

/* The run's directory and readable paths made absolute: in the run's own root, a path relative
 * to the grader's working directory would mean nothing. A path that cannot be resolved stays
 * as given (it is skipped where it is missing). */
static void sb_absolute_paths(SbJob *job, SandboxLimits *lim)
{
    static char dir[PATH_MAX], read[SB_ROOT_MAX][PATH_MAX];
    static const char *list[SB_ROOT_MAX + 1];
    if (realpath(job->dir, dir))
        job->dir = dir;
    if (!lim->readable)
        return;
    int n = 0;
    for (const char *const *p = lim->readable; *p && n < SB_ROOT_MAX; p++, n++)
        list[n] = realpath(*p, read[n]) ? read[n] : *p;
    list[n] = NULL;
    lim->readable = list;
}

_Noreturn void sbjail_init(const SbJob *given)
{
    SbJob copy = *given;
    SandboxLimits lim = *given->lim;
    sb_absolute_paths(&copy, &lim);
    copy.lim = &lim;
    const SbJob *job = &copy;
    if (setsid() < 0) /* a new session: no controlling terminal to type into */
        sb_fail(job->err_fd, "setsid", NULL);
    sb_reset_signals();
    const char *failed = job->ns & CLONE_NEWUSER ? sbjail_map_user(job->uid, job->gid) : NULL;
    if (failed)
        sb_fail(job->err_fd, failed, NULL);
    if ((job->ns & CLONE_NEWNS) && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        sb_fail(job->err_fd, "making the mounts private", NULL);
    int old_fd = -1, new_fd = -1;
    if ((job->ns & CLONE_NEWNS) && job->lim->disk_mib)
        sb_mount_scratch(job, &old_fd, &new_fd);
    if ((job->ns & CLONE_NEWNS) && job->lim->readable)
        sb_make_root(job);
    int sock[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sock) != 0)
        sb_fail(job->err_fd, "socketpair", NULL);
    struct sigaction usr1 = {.sa_handler = sb_on_usr1};
    sigaction(SIGUSR1, &usr1, NULL);

    SbWatch w = {.listener = -1};
    w.pid = fork();
    if (w.pid == 0) {
        close(sock[0]);
        sb_program(job, sock[1]);
    }
    if (w.pid < 0)
        sb_fail(job->err_fd, "fork", NULL);
    close(sock[1]);
    close(job->out_fd);
    close(job->err_fd);
    w.pid_fd = (int)syscall(SYS_pidfd_open, w.pid, 0);
    if (w.pid_fd < 0) {
        sb_kill_program(&w);
        waitpid(w.pid, NULL, 0);
        _exit(SB_SETUP_EXIT);
    }
    if (job->lim->wall_seconds > 0)
        w.deadline = sbjail_now() + job->lim->wall_seconds;
    w.listener = sb_take_listener(job, &w, sock[0]);
    close(sock[0]);
    sb_supervise(&w);

    int status;
    if (wait4(w.pid, &status, 0, &w.fin.ru) == w.pid)
        w.fin.have_status = 1, w.fin.status = status;
    if (job->ns & CLONE_NEWPID)
        kill(-1, SIGKILL); /* everything else in the namespace: its leftovers */
    else
        kill(-w.pid, SIGKILL);
    if (new_fd >= 0)
        sb_copy_back(&w, old_fd, new_fd, job->lim);
    snprintf(w.fin.settings, sizeof w.fin.settings, "%s", w.calls.settings);
    if (w.calls.reason[0])
        snprintf(w.fin.reason, sizeof w.fin.reason, "%s", w.calls.reason);
    ssize_t written = write(job->final_fd, &w.fin, sizeof w.fin);
    (void)written;
    _exit(0);
}
