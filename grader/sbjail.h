/* sbjail.h — the sandbox's child side: the supervisor (init) and the program it starts.
 * flipkit grader/: sandbox.c clones the supervisor into new namespaces; the supervisor sets up
 * the run's directory, starts the program, answers its denied calls and reports the end. */
#ifndef FLIPKIT_SBJAIL_H
#define FLIPKIT_SBJAIL_H

#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "sandbox.h"

/* A root grader's programs run as a user of their own, SB_UID_BASE + the grader's pid (the
 * same for group): no account has these ids, and two gradings running at once never share
 * one, so RLIMIT_NPROC (counted per user) is one student's alone. Above the ranges Debian,
 * systemd and container tools hand out (systemd-nspawn's end at 0x6FFFFFFF), below 2^31. */
#define SB_UID_BASE 0x70000000u
#define SB_SETUP_EXIT 127  /* a setup step failed (the error pipe says which) */

/* What the parent hands the supervisor: built before the clone, only read after it. */
typedef struct {
    const char *dir;
    char *const *argv, *const *envp;
    const SandboxLimits *lim;
    int out_fd, err_fd, final_fd; /* write ends: the program's output, setup errors, the end */
    unsigned long ns;             /* the CLONE_NEW* flags the supervisor was cloned with */
    bool drop_user;               /* started as root: the program runs as run_uid */
    uid_t run_uid;                /* with drop_user: its user and group (SB_UID_BASE + pid) */
    int cpu;                      /* with isolate: the one CPU it may run on; -1: any */
    uid_t uid;                    /* the caller's ids, for a user namespace's maps */
    gid_t gid;
} SbJob;

/* A setup step that failed, on the error pipe; exec closes the pipe on success. */
typedef struct {
    int err;
    char step[200];
} SbSetupError;

/* What the supervisor writes on the final pipe when the program has ended: one write. */
typedef struct {
    int have_status, status;  /* the program's wait status */
    struct rusage ru;         /* the program's (and anything it waited for) */
    int timed_out;            /* the supervisor killed it at the wall limit */
    int stopped;              /* the supervisor stopped it for a denied call: reason says why */
    int disk_full;            /* its directory's tmpfs was (nearly) full at the end */
    long disk_kib;            /* what it left in its directory's tmpfs */
    long kept_kib;            /* what was copied back of it (SandboxLimits.keep) */
    int over_keep;            /* what was to be kept is more than keep_kib: copying stopped */
    char reason[256];         /* with stopped */
    char settings[256];       /* what the run reported over the guard's channel, or "" */
    char copy_error[200];     /* copying the files back failed: which and why */
} SbFinal;

/* CLOCK_MONOTONIC in seconds: the supervisor's and the parent's clocks for the wall limit. */
double sbjail_now(void);

/* Landlock's ABI version on this kernel, below 1 when there is none. */
long sbjail_landlock_abi(void);

/* In a new user namespace: the same uid and gid inside as outside. NULL, or the failed step. */
const char *sbjail_map_user(uid_t uid, gid_t gid);

/* In a new mount namespace: a fresh proc of this PID namespace mounted at path, showing only
 * the processes of the caller's user (hidepid) and no system files (subset=pid) where the
 * kernel knows those options. 0, or -1. */
int sbjail_mount_proc(const char *path);

/* The supervisor's whole life; never returns. */
_Noreturn void sbjail_init(const SbJob *job);

#endif
