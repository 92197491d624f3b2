/* classrun.c — a class directory read with readdir and graded by fork+execv of flipgrade itself.
 * flipkit grader/: a submission's name is data: it is checked against the safe set, shown
 * escaped, and reaches a child only as one element of an argv array, never a shell or make. */
#define _GNU_SOURCE
#include "classrun.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "escape.h"
#include "grade.h"
#include "grading.h"
#include "intake.h"

/* ---- listing ----------------------------------------------------------------------------- */

static int classrun_by_entry(const void *a, const void *b)
{
    return strcmp(((const ClassrunEntry *)a)->entry, ((const ClassrunEntry *)b)->entry);
}

static int classrun_append(ClassrunList *list, const char *name)
{
    ClassrunEntry *grown = realloc(list->entries, (size_t)(list->n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    list->entries = grown;
    ClassrunEntry *e = &list->entries[list->n];
    *e = (ClassrunEntry){ .entry = strdup(name), .other = -1, .cpu = -1 };
    if (!e->entry)
        return -1;
    intake_name(name, e->student, sizeof e->student);
    e->verdict = escape_safe_name(name) && escape_safe_name(e->student) ? CLASSRUN_GRADE
                                                                        : CLASSRUN_UNSAFE;
    list->n++;
    return 0;
}

/* alice.zip and alice/ would both write REPORTS/alice: neither is graded, so neither report
 * overwrites the other's. The list is sorted, but alice.zip and alice-b sort between them, so
 * every pair is compared (a class is hundreds, not millions). */
static void classrun_mark_clashes(ClassrunList *list)
{
    for (int i = 0; i < list->n; i++)
        for (int j = i + 1; j < list->n; j++) {
            ClassrunEntry *a = &list->entries[i], *b = &list->entries[j];
            if (a->verdict == CLASSRUN_UNSAFE || b->verdict == CLASSRUN_UNSAFE ||
                strcmp(a->student, b->student) != 0)
                continue;
            if (a->verdict != CLASSRUN_CLASH)
                a->verdict = CLASSRUN_CLASH, a->other = j;
            b->verdict = CLASSRUN_CLASH, b->other = i;
        }
}

int classrun_list(const char *dir, ClassrunList *list, char *err, size_t errlen)
{
    *list = (ClassrunList){ 0 };
    DIR *d = opendir(dir);
    if (!d) {
        textf(err, errlen, "%s: cannot read the class directory: %s", dir, strerror(errno));
        return -1;
    }
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            rc = classrun_append(list, e->d_name);
    closedir(d);
    if (rc != 0) {
        textf(err, errlen, "%s: out of memory listing the class directory", dir);
        classrun_free(list);
        return -1;
    }
    if (list->n > 1)
        qsort(list->entries, (size_t)list->n, sizeof *list->entries, classrun_by_entry);
    classrun_mark_clashes(list);
    return 0;
}

void classrun_free(ClassrunList *list)
{
    for (int i = 0; i < list->n; i++)
        free(list->entries[i].entry);
    free(list->entries);
    *list = (ClassrunList){ 0 };
}

static bool classrun_safe_byte(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '-';
}

void classrun_why_unsafe(const char *entry, char *why, size_t n)
{
    char shown[64];
    size_t len = strlen(entry);
    if (escape_safe_name(entry)) {
        textf(why, n, "%s", "");
        return;
    }
    if (len == 0)
        textf(why, n, "it is empty");
    else if (len > 64)
        textf(why, n, "it is %zu bytes long, more than 64", len);
    else if (entry[0] == '-' || entry[0] == '.')
        textf(why, n, "it starts with '%c'", entry[0]);
    else {
        size_t i = 0;
        while (i < len && classrun_safe_byte(entry[i]))
            i++;
        /* a multi-byte character is shown whole when it is well formed */
        size_t k = 1;
        while (i + k < len && k < 4 && ((unsigned char)entry[i + k] & 0xC0) == 0x80)
            k++;
        escape_text(shown, sizeof shown, entry + i, (unsigned char)entry[i] < 0x80 ? 1 : k, 0);
        textf(why, n, "it holds '%s'", shown);
    }
}

/* ---- --only ------------------------------------------------------------------------------ */

/* Whether word (wlen bytes) is the entry's name or its student's. */
static bool classrun_names(const ClassrunEntry *e, const char *word, size_t wlen)
{
    return (strlen(e->entry) == wlen && memcmp(e->entry, word, wlen) == 0) ||
           (strlen(e->student) == wlen && memcmp(e->student, word, wlen) == 0);
}

/* Marks the entries word names as wanted; whether any was. */
static bool classrun_want(ClassrunList *list, bool *wanted, const char *word, size_t wlen)
{
    bool any = false;
    for (int i = 0; i < list->n; i++)
        if (classrun_names(&list->entries[i], word, wlen))
            wanted[i] = any = true;
    return any;
}

static void classrun_add_missing(char *missing, size_t cap, const char *word, size_t wlen)
{
    size_t used = strlen(missing);
    if (used + wlen + 2 > cap)
        return;
    if (used)
        missing[used++] = ' ';
    memcpy(missing + used, word, wlen);
    missing[used + wlen] = '\0';
}

int classrun_select(ClassrunList *list, char *const only[], int nonly, char *missing,
                    size_t missing_len)
{
    bool *wanted = calloc((size_t)list->n + 1, sizeof *wanted);
    if (missing_len)
        missing[0] = '\0';
    if (!wanted)
        return -1;
    for (int k = 0; k < nonly; k++)
        for (const char *w = only[k]; *w;) {
            size_t blank = strspn(w, " \t\n"), wlen;
            w += blank;
            wlen = strcspn(w, " \t\n");
            if (wlen && !classrun_want(list, wanted, w, wlen) && missing_len)
                classrun_add_missing(missing, missing_len, w, wlen);
            w += wlen;
        }
    int left = 0;
    for (int i = 0; i < list->n; i++) {
        ClassrunEntry *e = &list->entries[i];
        if (e->verdict == CLASSRUN_GRADE && !wanted[i])
            e->verdict = CLASSRUN_SKIP;
        left += e->verdict == CLASSRUN_GRADE;
    }
    free(wanted);
    return left;
}

/* ---- grading ----------------------------------------------------------------------------- */

int classrun_cpus(int *cpus, int cap)
{
    cpu_set_t set;
    int n = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 0;
    for (int c = 0; c < CPU_SETSIZE && n < cap; c++)
        if (CPU_ISSET(c, &set))
            cpus[n++] = c;
    return n;
}

typedef struct {
    pid_t pid;       /* 0: the slot is free */
    int entry;       /* the entry it grades */
} ClassrunSlot;

/* The child's side: its output into the log, stdin from /dev/null, its CPU, then flipgrade.
 * Only async-signal-safe calls between fork and exec. */
static void classrun_exec(int log_fd, int cpu, char *const argv[])
{
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null_fd >= 0)
        dup2(null_fd, 0);     /* dup2 clears O_CLOEXEC on 0, 1 and 2 only */
    dup2(log_fd, 1);
    dup2(log_fd, 2);
    if (cpu >= 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        sched_setaffinity(0, sizeof one, &one);   /* not pinned is still graded */
    }
    execv("/proc/self/exe", argv);
    static const char msg[] = "flipgrade: cannot start a grading of its own (execv /proc/self/exe)\n";
    if (write(2, msg, sizeof msg - 1) < 0)
        _exit(127);
    _exit(127);
}

/* The argv of one grading: the plan's options, --out, --, the submission. Strings in paths. */
static char **classrun_argv(const ClassrunPlan *plan, const char *out, const char *sub)
{
    int nopt = 0;
    while (plan->options[nopt])
        nopt++;
    char **argv = calloc((size_t)nopt + 6, sizeof *argv);
    if (!argv)
        return NULL;
    int k = 0;
    argv[k++] = "flipgrade";
    for (int i = 0; i < nopt; i++)
        argv[k++] = plan->options[i];
    argv[k++] = "--out";
    argv[k++] = (char *)out;
    argv[k++] = "--";
    argv[k++] = (char *)sub;
    argv[k] = NULL;
    return argv;
}

/* Starts entry i in slot s; the child's pid, or -1 (then the entry's status says so). */
static pid_t classrun_start(ClassrunList *list, int i, int cpu, const ClassrunPlan *plan)
{
    ClassrunEntry *e = &list->entries[i];
    char out[GRADE_PATH_MAX], sub[GRADE_PATH_MAX], path[GRADE_PATH_MAX + 32];
    textf(out, sizeof out, "%s/%s", plan->reports, e->student);
    textf(sub, sizeof sub, "%s/%s", plan->dir, e->entry);
    e->cpu = cpu;
    e->status = -1;
    if (grading_mkdirs(out) != 0)
        return -1;
    textf(path, sizeof path, "%s/report.json", out);
    unlink(path);              /* a grading that fails must not leave last time's report */
    textf(path, sizeof path, "%s/flipgrade.txt", out);
    int log_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    char **argv = classrun_argv(plan, out, sub);
    pid_t pid = log_fd >= 0 && argv ? fork() : -1;
    if (pid == 0)
        classrun_exec(log_fd, cpu, argv);
    if (log_fd >= 0)
        close(log_fd);
    free(argv);
    return pid;
}

static void classrun_report(const ClassrunList *list, int i, const ClassrunPlan *plan)
{
    char log[GRADE_PATH_MAX + 32];
    textf(log, sizeof log, "%s/%s/flipgrade.txt", plan->reports, list->entries[i].student);
    if (plan->finished)
        plan->finished(&list->entries[i], log, plan->ctx);
}

/* Waits for one child; frees its slot and records its status. */
static void classrun_reap(ClassrunList *list, ClassrunSlot *slots, int jobs, const ClassrunPlan *plan)
{
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, 0)) < 0 && errno == EINTR)
        ;
    for (int s = 0; pid > 0 && s < jobs; s++)
        if (slots[s].pid == pid) {
            ClassrunEntry *e = &list->entries[slots[s].entry];
            e->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            slots[s].pid = 0;
            classrun_report(list, slots[s].entry, plan);
        }
}

int classrun_grade(ClassrunList *list, const ClassrunPlan *plan)
{
    int cpus[CPU_SETSIZE];
    int ncpus = classrun_cpus(cpus, CPU_SETSIZE);
    int jobs = plan->jobs > 0 ? plan->jobs : (ncpus > 0 ? ncpus : 1);
    ClassrunSlot *slots = calloc((size_t)jobs, sizeof *slots);
    if (!slots)
        return list->n;
    int running = 0;
    for (int i = 0; i < list->n; i++) {
        if (list->entries[i].verdict != CLASSRUN_GRADE)
            continue;
        if (running == jobs) {
            classrun_reap(list, slots, jobs, plan);
            running--;
        }
        int s = 0;
        while (slots[s].pid != 0)
            s++;
        pid_t pid = classrun_start(list, i, ncpus > 0 ? cpus[s % ncpus] : -1, plan);
        if (pid > 0) {
            slots[s] = (ClassrunSlot){ .pid = pid, .entry = i };
            running++;
        } else
            classrun_report(list, i, plan);
    }
    while (running-- > 0)
        classrun_reap(list, slots, jobs, plan);
    free(slots);
    int failed = 0;
    for (int i = 0; i < list->n; i++)
        failed += list->entries[i].verdict == CLASSRUN_GRADE &&
                  !(list->entries[i].status == 0 || list->entries[i].status == 1);
    return failed;
}
