/* sandbox.h — run one untrusted command in a child process, under limits, and say what it did.
 * flipkit grader/: flipgrade compiles and runs student code through this; the guard (guard.h)
 * inside the student's program and the limits here together make one outcome and one reason. */
#ifndef FLIPKIT_SANDBOX_H
#define FLIPKIT_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A zero field means "no limit", except output_kib: 0 keeps no output and any byte floods. */
typedef struct {
    double wall_seconds;   /* wall-clock timeout: the whole process group is SIGKILLed
                            * (the grader's backstop for a program that waits) */
    double cpu_seconds;    /* RLIMIT_CPU, rounded up to whole seconds; the hard limit is 2 s
                            * above, so SIGXCPU comes first */
    size_t memory_mib;     /* RLIMIT_AS */
    size_t file_mib;       /* RLIMIT_FSIZE */
    size_t output_kib;     /* stdout+stderr (merged, through a pipe) captured up to this;
                            * more -> killed, outcome SB_FLOOD */
    int processes;         /* RLIMIT_NPROC: per user, not per sandbox; root ignores it, so
                            * the guard is the real barrier */
    bool confine_writes;   /* Landlock: the child may create/write/remove files only beneath
                            * dir (and write to /dev/null) */
    const char *const *readable; /* with confine_writes: when not NULL, reading and executing
                            * are confined too, to dir, the directories programs are made of
                            * (/usr /lib /lib64 /bin /sbin), /etc/ld.so.cache, /dev/zero,
                            * /dev/urandom, /proc/self and these paths (NULL-terminated) */
    bool isolate;          /* untrusted code: new network, IPC, PID, mount and UTS namespaces
                            * (and a user namespace when not root) where the kernel allows
                            * (sandbox_isolation says which), and as user nobody when the
                            * grader is root */
    size_t disk_mib;       /* with isolate: dir becomes a tmpfs of this size for the run (the
                            * files in it are copied in, and regular files and directories
                            * back out at the end); 0: none */
    const char *const *keep; /* with disk_mib: what is copied back out of the tmpfs, as paths
                            * relative to dir (a directory with the files beneath it),
                            * NULL-terminated; NULL: every regular file and directory. The
                            * rest of what the run wrote is dropped with its tmpfs. */
    size_t keep_kib;       /* with disk_mib: copy back at most this much (what is left of the
                            * submission's disk budget); 0: no limit. More: SB_BUDGET */
    bool stage_calls;      /* the allow-list system-call filter (sbcalls.h) and its supervisor:
                            * for programs that run student stages (a compiler needs more) */
} SandboxLimits;

typedef enum {
    SB_OK,       /* exited 0 */
    SB_EXIT,     /* exited non-zero */
    SB_SIGNAL,   /* killed by a signal that is none of the below */
    SB_TIMEOUT,  /* ran past wall_seconds */
    SB_CPU,      /* SIGXCPU (or the hard CPU limit's SIGKILL) */
    SB_FILESIZE, /* SIGXFSZ */
    SB_MEMORY,   /* crashed near the memory limit (see sandbox.c for the evidence used) */
    SB_FLOOD,    /* more output than output_kib */
    SB_GUARD,    /* the supervisor stopped it: a forbidden system call, a write outside its
                  * directory, or the guard's out-of-memory report (sbcalls.h) */
    SB_DISK,     /* filled its disk budget (disk_mib) */
    SB_BUDGET,   /* what it left to be kept is more than keep_kib: only part was kept */
    SB_START,    /* could not start (or, with SIGCHLD ignored, be waited for): the reason
                  * says which step failed */
} SandboxOutcome;

typedef struct {
    SandboxOutcome outcome;
    int exit_status, signal;          /* exit status when it exited, signal when killed */
    double wall_seconds, cpu_seconds; /* wall from fork to reaping; user + system CPU */
    long maxrss_kib;
    char *output;                     /* captured output, capped, NUL-terminated;
                                       * free with sandbox_result_free */
    size_t output_len;
    char guard[256];  /* SB_GUARD: what the supervisor saw, e.g. "made a forbidden system
                       * call (socket)"; never text the program wrote */
    char settings[256]; /* what the run reported over the guard's channel ("" when nothing) */
    long disk_kib;    /* with disk_mib: what the run left in its directory */
    long kept_kib;    /* with disk_mib: what was copied back out of it (keep) */
    char reason[256]; /* one line a teacher reads: "killed after 100 s of wall clock, having used
                       * 0.0 of its 10 s of CPU", "crashed: SIGSEGV
                       * (segmentation fault)", "used more than 20 s of CPU", "wrote a file
                       * larger than 64 MiB", "flooded its output (more than 64 KiB)", "ran
                       * out of memory (limit 1024 MiB)", "exited with status 3", the guard's
                       * message, or "could not start: chdir sub/dir: No such file ..." */
} SandboxResult;

/* Runs argv in dir with envp (NULL: this process's environment). argv[0] is a path, not
 * searched in PATH, and a relative one is taken from inside dir. stdin is /dev/null. Returns
 * 0 when the command ran (whatever it did: see res->outcome) and -1 with SB_START when it
 * could not be started; res always has a reason and must be freed. Ignores SIGPIPE in this
 * process (the child gets every signal's default back); the caller must not ignore SIGCHLD.
 * Under confine_writes a compiler needs TMPDIR=dir in envp: /tmp is outside. */
int sandbox_run(const char *dir, char *const argv[], char *const envp[], const SandboxLimits *lim,
                SandboxResult *res);
void sandbox_result_free(SandboxResult *res);

/* The user (and group) a root grader's programs run as: one per grading process, so limits
 * counted per user are one student's (sbjail.h, SB_UID_BASE). */
uid_t sandbox_run_uid(void);
/* The one CPU isolated programs are pinned to (threads included), chosen once per process
 * from its affinity mask; -1 when it cannot be read. */
int sandbox_cpu(void);

/* A test hook (FLIPGRADE_TEST_FAIL_START, flipgrade.c): the starts numbered first to
 * first + count - 1 of this process (1 is its first sandbox_run) fail as a clone refused
 * with EAGAIN would, so a test can provoke the grader's own failure deterministically. */
void sandbox_test_fail_starts(int first, int count);

/* True when Landlock works on this kernel, i.e. confine_writes can be honoured. */
bool sandbox_can_confine(void);

/* One line on what isolate gives on this machine, for reports: the namespaces made, the
 * user, the disk budget, and what a missing one means. Probed once. */
const char *sandbox_isolation(void);

#endif
