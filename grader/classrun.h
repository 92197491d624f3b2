/* classrun.h — a class directory graded entry by entry, N at a time, with no shell in the way.
 * flipkit grader/: `flipgrade --class DIR` lists DIR with readdir, refuses by name every entry
 * outside the safe set (escape.h) or sharing a report directory, and grades the others. */
#ifndef FLIPKIT_CLASSRUN_H
#define FLIPKIT_CLASSRUN_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    CLASSRUN_GRADE,     /* to be graded now */
    CLASSRUN_UNSAFE,    /* its name is outside the safe set: refused */
    CLASSRUN_CLASH,     /* another entry has the same report directory: both refused */
    CLASSRUN_SKIP,      /* safe, but not named by --only: its earlier report is kept */
} ClassrunVerdict;

typedef struct {
    char *entry;             /* its name in the class directory, byte for byte */
    char student[80];        /* the report directory's name: entry without .tar.gz/.tgz/.tar/.zip */
    ClassrunVerdict verdict;
    int other;               /* CLASSRUN_CLASH: the index of the entry it clashes with */
    int status;              /* once graded: flipgrade's exit status, 128 + a signal that
                              * killed it, or -1 when it could not be started */
    int cpu;                 /* the CPU its grading was pinned to, or -1 */
} ClassrunEntry;

typedef struct {
    ClassrunEntry *entries;  /* sorted by entry, bytewise */
    int n;
} ClassrunList;

/* Reads every entry of dir but "." and ".." and sorts them; each gets CLASSRUN_GRADE, or
 * CLASSRUN_UNSAFE / CLASSRUN_CLASH (the safe set and the report directories are checked here).
 * Returns 0, or -1 with one line in err (dir cannot be read, out of memory). */
int classrun_list(const char *dir, ClassrunList *list, char *err, size_t errlen);

void classrun_free(ClassrunList *list);

/* Why entry is outside the safe set, in a few words ("it starts with '-'", "it holds '$'"),
 * with any byte of it shown escaped; "" when it is safe. */
void classrun_why_unsafe(const char *entry, char *why, size_t n);

/* Keeps only the safe entries whose entry or student name is one of the words in only[] (each
 * may hold several names separated by blanks) to be graded; the other safe ones become
 * CLASSRUN_SKIP. A word that names no entry is copied to missing (blank-separated, cut at
 * missing_len). Returns how many entries are left to grade. */
int classrun_select(ClassrunList *list, char *const only[], int nonly, char *missing,
                    size_t missing_len);

typedef struct {
    char *const *options;    /* flipgrade's options for each grading, NULL-terminated; the
                              * runner adds --out REPORTS/<student> -- DIR/<entry> */
    const char *dir;         /* the class directory */
    const char *reports;     /* the parent of every report directory */
    int jobs;                /* at most this many gradings at once; 0: one per allowed CPU */
    /* called in the parent as each grading ends, with the path of what it printed */
    void (*finished)(const ClassrunEntry *e, const char *log_path, void *ctx);
    void *ctx;
} ClassrunPlan;

/* The CPUs this process may run on, in order, into cpus (at most cap); how many. */
int classrun_cpus(int *cpus, int cap);

/* Grades every CLASSRUN_GRADE entry: each by fork and execv of this program
 * (/proc/self/exe), with an argv array and no shell, its output in REPORTS/<student>/
 * flipgrade.txt, its report.json removed first (so a grading that fails leaves none), and the
 * child pinned before exec to one CPU: slot i of the jobs runs on the i-th CPU this process may
 * use (modulo their count), so two gradings never share a core while jobs <= CPUs. Fills each
 * entry's status and cpu. Returns how many gradings did not end with status 0 or 1. */
int classrun_grade(ClassrunList *list, const ClassrunPlan *plan);

#endif
