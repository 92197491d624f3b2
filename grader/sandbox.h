/* sandbox.h — run one untrusted command in a child process, under limits, and say what it did.
 * flipkit grader/: flipgrade compiles and runs student code through this; the guard (guard.h)
 * inside the student's program and the limits here together make one outcome and one reason. */
#ifndef FLIPKIT_SANDBOX_H
#define FLIPKIT_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>

/* A zero field means "no limit", except output_kib: 0 keeps no output and any byte floods. */
typedef struct {
    double wall_seconds;   /* wall-clock timeout: the whole process group is SIGKILLed */
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
                            * are confined too, to dir, the system's directories (/usr /lib
                            * /lib64 /bin /etc /dev /proc) and these paths (NULL-terminated) */
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
    SB_GUARD,    /* the guard stopped it: exit GUARD_EXIT and a guard line in the output */
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
    char guard[256];  /* SB_GUARD: the text after "flipgrade-guard: " on its line */
    char reason[256]; /* one line a teacher reads: "killed after 10 s", "crashed: SIGSEGV
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

/* True when Landlock works on this kernel, i.e. confine_writes can be honoured. */
bool sandbox_can_confine(void);

#endif
