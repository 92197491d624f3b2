/* flipgrade.c — the grader's main: one submission in, a grade table, report.json and report.html out.
 * flipkit grader/: reads the command line and grader/config, sets up a Grading (grading.h) and
 * runs the parts (build.c, stagepart.c, scenepart.c); only here is anything printed. */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buildcache.h"
#include "classrun.h"
#include "escape.h"
#include "feedback.h"
#include "gradescope.h"
#include "grading.h"
#include "intake.h"
#include "metrics.h"
#include "report.h"
#include "scene.h"
#include "variant.h"

typedef struct {
    const char *config, *out, *data, *objs, *kit, *work_parent;
    const char *mkgolden, *flipsim;     /* --prepare and variants: the reference's programs */
    const char *variants;               /* --variants DIR: each drawn variant's reference data */
    const char *parts;                  /* "all", "stages" or "scenes" */
    const char *cache;                  /* --cache DIR: the build cache (buildcache.h) */
    const char *cache_mib;              /* --cache-mib N: its cap */
    bool public_cases, keep, quiet, prepare, unconfined, no_cache;
    const char *csv;                    /* --class-csv OUT */
    const char *format;                 /* --format flipkit|canvas|moodle: the CSV's layout */
    const char *ids;                    /* --ids FILE: submission name -> gradebook id */
    const char *column;                 /* --column TITLE: the gradebook's grade column */
    const char *print;                  /* --print WHAT: a fact of the config, for make handout */
    const char *class_dir;              /* --class DIR: grade every entry of DIR */
    const char *reports;                /* --reports DIR: where a class's report directories go */
    const char *jobs;                   /* --jobs N: gradings of a class at once */
    const char *feedback;               /* --feedback OUT: the reports made fit to hand back */
    const char *gradescope;             /* --gradescope-results OUT: results.json from a report */
    const char *public_report;          /* --public-report: the self-check's, for it */
    const char *log;                    /* --log: what the grading printed, for it */
    bool list;                          /* --list: say what --class would grade, grade nothing */
    int nonly;
    char **only;                        /* --only NAMES, each a word list; argv's own strings */
    int nargs;
    char **args;
} Options;

static void usage(FILE *f)
{
    fprintf(f,
"usage: flipgrade [options] SUBMISSION      grade a directory or .tar.gz/.zip of assignment/*.c\n"
"       flipgrade --prepare [options]       make the reference's cases and frames (make grade-data)\n"
"       flipgrade --class DIR [--jobs N] [--only NAMES]... [--class-csv OUT.csv] [options]\n"
"                                           grade every entry of DIR (make grade SUBMISSIONS=DIR/)\n"
"       flipgrade --class DIR --list [--only NAMES]...   what --class would grade; grades nothing\n"
"       flipgrade --class-csv OUT.csv [--format canvas|moodle --ids FILE [--column TITLE]]\n"
"                 REPORT.json...          one row per student from these reports\n"
"       flipgrade --feedback OUT [--reports DIR] [--only NAMES]...   each report of DIR made fit\n"
"                                           to hand back, in OUT/<name>/ (make feedback)\n"
"       flipgrade --gradescope-results OUT.json [--public-report P.json] [--log FILE] REPORT.json\n"
"                                           Gradescope's results.json from a grading's report\n"
"       flipgrade --print grading-table|reference-objects|given-objects|reference-frames|\n"
"                         github-classroom|stage-points|level|levels|given-stages|job-limits\n"
"                                           what make handout and grader/slurm.sh take from the config\n"
"Only the eight stage files are taken from SUBMISSION (assignment/<stage>.c preferred); each is\n"
"compiled on its own, so one that does not compile scores 0 and the others are still graded.\n"
"Every build and run is sandboxed and denied what it does not need: new namespaces (network,\n"
"IPC, PID, mount), a root holding only what it may read and a /proc of its own, a user of its\n"
"own per grading when run as root, one CPU, a system-call allow-list for the stages, no writes\n"
"outside its own tmpfs directory (Landlock), time, memory, file size, disk and output limits;\n"
"a stage that breaks them is reported by what it did (grader/README.md, Isolation).\n"
"A submission's name must be in the safe set: 1 to 64 letters, digits, '.', '_' or '-', not\n"
"starting with '-' or '.'. --class refuses any other entry by name (one line each) and grades\n"
"the rest; SUBMISSION by hand is refused (exit 2) unless --out says where its report goes.\n");
    fprintf(f,
"A stage file is taken only as a regular file of at most %d MiB (a link, FIFO or device, or an\n"
"archive header that lies about its size, is refused by name); an archive is read up to %d\n"
"entries and %d MiB decompressed (grader/README.md, The intake).\n\n",
            INTAKE_MAX_BYTES >> 20, INTAKE_MAX_ENTRIES, INTAKE_MAX_TOTAL_MIB);
    fprintf(f,
"options (default in brackets):\n"
"  --config FILE      the grader's config [grader/config]\n"
"  --out DIR          where report.json, report.html, logs/ and images/ go [build/grades/<name>]\n"
"  --class DIR        grade each entry of DIR (a directory or archive per student) by a\n"
"                     flipgrade of its own, started with an argv array and no shell, then\n"
"                     write the CSV of --class-csv from every entry's report; the kit's\n"
"                     reference/ is graded first and must get full marks, or no one is\n"
"  --jobs N           --class: at most N gradings at once, each pinned to a CPU of its own\n"
"                     (the i-th running on the i-th CPU this process may use); 0: one per\n"
"                     such CPU [1]\n"
"  --only NAMES       --class: grade only these entries (blank-separated, repeatable; an entry\n"
"                     or its name without .zip/.tar.gz/.tgz/.tar); the CSV still holds every\n"
"                     entry that has a report [every entry]\n"
"  --reports DIR      --class: each entry's report goes in DIR/<name>/, with what its grading\n"
"                     printed in DIR/<name>/flipgrade.txt [build/grades]\n"
"  --class-csv OUT    --class: where the class's CSV goes [REPORTS/grades.csv]\n"
"  --format F         the CSV's layout: flipkit (student, every part, total, max, status),\n"
"                     canvas (Student,ID,SIS User ID,SIS Login ID,Section,TITLE: Canvas's\n"
"                     gradebook import, the id in SIS User ID) or moodle (Student,ID,TITLE: map\n"
"                     ID to the id's kind and TITLE to the grade item on import); the last\n"
"                     two hold each student's total, and need --ids [flipkit]\n"
"  --ids FILE         canvas, moodle: lines \"NAME ID\", a submission's name and its student's\n"
"                     gradebook id ('#' comments); a report without a line there, or without\n"
"                     a grade, is left out, named on stderr, and the exit status is 1\n"
"  --column TITLE     canvas, moodle: the grade column's title (Canvas: \"Name (assignment\n"
"                     id)\" updates that assignment, a new name makes one) [flipkit]\n"
"  --feedback OUT     for each DIR/<name>/report.json of --reports (names in the safe set,\n"
"                     .reference left out), OUT/<name>/: report.json, report.html, report.txt,\n"
"                     logs and pictures with no path of this machine, no make view line, no\n"
"                     frames, at most feedback.max_kib in all; a report without a grade\n"
"                     (status error) gets none; --only: just those names\n"
"  --gradescope-results OUT   results.json for Gradescope (grader/gradescope/run_autograder):\n"
"                     one test per part of REPORT.json with its points and reason, visible\n"
"                     as gradescope.hidden_visibility says; one visible test without points\n"
"                     per stage of --public-report; without a readable REPORT.json, score 0\n"
"                     and why, with the last 2 KiB of --log [off]\n"
"  --public-report P  --gradescope-results: a --public --parts stages grading's report.json\n"
"  --log FILE         --gradescope-results: what the grading of REPORT.json printed\n"
"  --list             --class: print \"grade ENTRY NAME\" or \"skip ENTRY NAME\" (not in --only)\n"
"                     for each safe entry, refuse the others by name, and grade nothing\n"
"  --public           the students' self-check: the public golden cases, not the hidden ones [off]\n"
"  --parts all|stages|scenes   which parts to grade [all]\n"
"  --kit DIR          the kit's root (common/, scenes/) [.]\n"
"  --objects DIR      the kit's prebuilt objects [build/grader/kit]\n"
"  --data DIR         the reference's cases and frames, or only the frames' metrics (metrics/,\n"
"                     what the student kit ships) [build/grader/data]\n"
"  --work DIR         parent of the temporary work directory [$TMPDIR or /tmp]\n"
"  --keep             keep the work directory (its path is printed) [off]\n"
"  --cache DIR        keep what each compile and link made, and take it from there when a\n"
"                     stage file or set of objects comes again byte for byte, against the same\n"
"                     kit, compiler and grader [build/grader/cache]\n"
"  --cache-mib N      after every store, the least recently used entries are removed until\n"
"                     the cache holds at most N MiB; an output over 16 MiB is never kept [256]\n"
"  --no-cache         compile and link everything afresh [off]\n"
"  --unconfined       grade hidden cases even without Landlock (student code could then read\n"
"                     the answers and write anywhere you can) [off: refuse]\n"
"  --mkgolden PATH    --prepare and variants: the reference's case maker [build/maintainer/mkgolden]\n"
"  --flipsim PATH     --prepare and variants: the reference's simulator [build/flipsim]\n"
"  --variants DIR     with variants.enabled in the config: the reference's data of each drawn\n"
"                     variant, made by the reference when a student first gets it, in DIR/<key>/\n"
"                     (key: a hash of what was drawn) [build/grader/variants]\n"
"  --quiet            print only the table\n"
"  --print WHAT       grading-table: the graded scenes, parts and points as Markdown (the\n"
"                     handout's block under How it is graded);\n"
"                     reference-objects: true or false (handout.reference_objects);\n"
"                     given-objects: true or false (handout.given_objects);\n"
"                     reference-frames: true or false (handout.reference_frames);\n"
"                     github-classroom: true or false (handout.github_classroom);\n"
"                     stage-points: \"STAGE POINTS\" a line, the eight stages in order (the\n"
"                     GitHub Classroom workflow's max-score of each stage's test);\n"
"                     level: the whole handout's level, guided, standard or open (handout.level);\n"
"                     levels: \"STAGE=LEVEL\" per stage, in the stages' order, LEVEL \"given\" for a\n"
"                     stage of handout.given_stages (handout.level_by_stage, else handout.level);\n"
"                     given-stages: the stages shipped compiled, not assigned, space-separated\n"
"                     job-limits: a batch job's limits for one submission, as shell words\n"
"                     (minutes= the submission budget plus a quarter and a minute,\n"
"                     mem_mib= twice limits.memory_mib, cpus=1)\n"
"  --help             this text\n\n"
"exit status: 0 full marks; 1 not full marks; 2 bad option, config, submission or data, or a\n"
"  part the grader itself failed on twice (could not start a run: then the report says error).\n"
"  --class: 0 every entry graded (whatever its marks) and the CSV written; 1 some entry not\n"
"  graded (refused by name, its grading failed, or an --only name not found) or left out of a\n"
"  --format canvas|moodle CSV, the CSV holding the rest; --class-csv alone: 1 when it left a\n"
"  report out; 2 nothing graded (bad option, no such directory, kit or data missing, or the kit's\n"
"  reference/, graded first, did not get full marks).\n\n");
    gradeconfig_print_defaults(f);
}

/* The options that belong to --class used without it, and a mode's arguments. */
static int check_modes(const Options *o)
{
    const char *class_only = o->list ? "--list" : o->nonly ? "--only" : o->jobs ? "--jobs"
                           : o->reports ? "--reports" : NULL;
    if (o->feedback && (o->class_dir || o->nargs || o->prepare || o->print || o->csv || o->list)) {
        fprintf(stderr, "flipgrade: --feedback OUT reads the reports of --reports DIR: no "
                "SUBMISSION, --class, --class-csv, --prepare or --print with it (see --help)\n");
        return 2;
    }
    if ((o->public_report || o->log) && !o->gradescope) {
        fprintf(stderr, "flipgrade: --public-report and --log go with --gradescope-results (see --help)\n");
        return 2;
    }
    if (o->gradescope && (o->class_dir || o->feedback || o->prepare || o->print || o->csv || o->nargs != 1)) {
        fprintf(stderr, "flipgrade: --gradescope-results OUT takes one REPORT.json and no --class, "
                "--feedback, --class-csv, --prepare or --print (see --help)\n");
        return 2;
    }
    if (o->feedback && !o->list && !o->jobs)
        class_only = NULL;   /* --reports and --only choose whose feedback */
    if (!o->class_dir && class_only) {
        fprintf(stderr, "flipgrade: %s goes with --class DIR (see --help)\n", class_only);
        return 2;
    }
    if (o->class_dir && (o->nargs != 0 || o->out || o->prepare || o->print)) {
        fprintf(stderr, "flipgrade: --class DIR grades DIR's entries: no SUBMISSION, --out, "
                "--prepare or --print with it (see --help)\n");
        return 2;
    }
    if (o->jobs) {
        char *end;
        long n = strtol(o->jobs, &end, 10);
        if (*o->jobs == '\0' || *end != '\0' || n < 0 || n > 4096) {
            fprintf(stderr, "flipgrade: --jobs must be a whole number from 0 to 4096, not \"%s\"\n",
                    o->jobs);
            return 2;
        }
    }
    if (!o->class_dir && !o->prepare && !o->csv && !o->print && !o->feedback && o->nargs != 1) {
        fprintf(stderr, "flipgrade: expected one SUBMISSION (a directory or .tar.gz/.zip; see --help)\n");
        return 2;
    }
    return 0;
}

/* --class: DIR without its trailing slashes (its entries are DIR/NAME, as make named them),
 * the reports under build/grades, the CSV beside them. */
static void class_defaults(Options *o)
{
    static char dir[PATH_MAX], csv[PATH_MAX];
    textf(dir, sizeof dir, "%s", o->class_dir);
    for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--)
        dir[n - 1] = '\0';
    o->class_dir = dir;
    if (!o->reports)
        o->reports = "build/grades";
    if (!o->csv) {
        textf(csv, sizeof csv, "%s/grades.csv", o->reports);
        o->csv = csv;
    }
}

/* --format, --ids and --column: a gradebook layout needs the ids, and they need one. */
static int check_gradebook(Options *o)
{
    GradebookFormat f = GRADEBOOK_FLIPKIT;
    char err[512];
    if (o->format && gradebook_format_parse(o->format, &f) != 0) {
        fprintf(stderr, "flipgrade: --format must be flipkit, canvas or moodle, not \"%s\"\n", o->format);
        return 2;
    }
    if ((o->format || o->ids || o->column) && !o->csv && !o->class_dir) {
        fprintf(stderr, "flipgrade: --format, --ids and --column shape the CSV of --class-csv or "
                "--class (see --help)\n");
        return 2;
    }
    if (f == GRADEBOOK_FLIPKIT && (o->ids || o->column)) {
        fprintf(stderr, "flipgrade: --ids and --column go with --format canvas or moodle\n");
        return 2;
    }
    if (f != GRADEBOOK_FLIPKIT && !o->ids) {
        fprintf(stderr, "flipgrade: --format %s needs --ids FILE: which gradebook student each "
                "submission is (see --help)\n", o->format);
        return 2;
    }
    if (!o->column)
        o->column = "flipkit";
    GradebookIds ids = { 0 };
    /* The ids file is read now too, so a class is not graded before a typo in it is found. */
    if (gradebook_check_column(o->column, err, sizeof err) != 0 ||
        (f != GRADEBOOK_FLIPKIT && gradebook_ids_load(o->ids, &ids, err, sizeof err) != 0)) {
        fprintf(stderr, "flipgrade: %s\n", err);
        return 2;
    }
    gradebook_ids_free(&ids);
    return 0;
}

static int parse_options(int argc, char **argv, Options *o)
{
    *o = (Options){ .config = "grader/config", .data = "build/grader/data", .objs = "build/grader/kit",
                    .cache = "build/grader/cache", .cache_mib = "256",
                    .kit = ".", .mkgolden = "build/maintainer/mkgolden", .flipsim = "build/flipsim",
                    .variants = "build/grader/variants",
                    .parts = "all" };
    static const char *const valued[] = { "--config", "--out", "--parts", "--kit", "--objects", "--data",
                                          "--work", "--mkgolden", "--flipsim", "--class-csv", "--print",
                                          "--cache", "--cache-mib", "--class", "--reports", "--jobs",
                                          "--only", "--feedback",
                                          "--gradescope-results", "--public-report", "--log",
                                          "--format", "--ids", "--column", "--variants" };
    const char *only_last = NULL;
    const char **slots[] = { &o->config, &o->out, &o->parts, &o->kit, &o->objs, &o->data,
                             &o->work_parent, &o->mkgolden, &o->flipsim, &o->csv, &o->print,
                             &o->cache, &o->cache_mib, &o->class_dir, &o->reports, &o->jobs, &only_last,
                             &o->feedback, &o->gradescope, &o->public_report, &o->log,
                             &o->format, &o->ids, &o->column, &o->variants };
    o->only = calloc((size_t)argc, sizeof *o->only);
    if (!o->only) {
        fprintf(stderr, "flipgrade: out of memory\n");
        return 2;
    }
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        size_t v = 0;
        while (v < sizeof valued / sizeof valued[0] && strcmp(a, valued[v]) != 0)
            v++;
        if (v < sizeof valued / sizeof valued[0]) {
            if (i + 1 >= argc) {
                fprintf(stderr, "flipgrade: %s needs a value (see --help)\n", a);
                return 2;
            }
            *slots[v] = argv[++i];
            if (slots[v] == &only_last)   /* --only adds to the names, the others replace */
                o->only[o->nonly++] = argv[i];
        } else if (strcmp(a, "--") == 0) { i++; break; }   /* a SUBMISSION that starts with '-' */
        else if (strcmp(a, "--list") == 0) o->list = true;
        else if (strcmp(a, "--public") == 0) o->public_cases = true;
        else if (strcmp(a, "--keep") == 0) o->keep = true;
        else if (strcmp(a, "--no-cache") == 0) o->no_cache = true;
        else if (strcmp(a, "--quiet") == 0) o->quiet = true;
        else if (strcmp(a, "--prepare") == 0) o->prepare = true;
        else if (strcmp(a, "--unconfined") == 0) o->unconfined = true;
        else if (strcmp(a, "--help") == 0) { usage(stdout); return 1; }
        else {
            fprintf(stderr, "flipgrade: unknown option %s (see --help)\n", a);
            return 2;
        }
    }
    o->nargs = argc - i;
    o->args = argv + i;
    char *end;
    long mib = strtol(o->cache_mib, &end, 10);
    if (*end || end == o->cache_mib || mib < 1 || mib > (1L << 20)) {
        fprintf(stderr, "flipgrade: --cache-mib must be a whole number of MiB from 1 to %ld, not \"%s\"\n",
                1L << 20, o->cache_mib);
        return 2;
    }
    if (strcmp(o->parts, "all") && strcmp(o->parts, "stages") && strcmp(o->parts, "scenes")) {
        fprintf(stderr, "flipgrade: --parts must be all, stages or scenes, not \"%s\"\n", o->parts);
        return 2;
    }
    static const char *const prints[] = { "grading-table", "reference-objects", "given-objects",
                                          "reference-frames", "github-classroom", "stage-points",
                                          "level", "levels", "given-stages", "job-limits" };
    bool known = false;
    for (size_t p = 0; o->print && p < sizeof prints / sizeof prints[0]; p++)
        known |= strcmp(o->print, prints[p]) == 0;
    if (o->print && !known) {
        fprintf(stderr, "flipgrade: --print must be grading-table, reference-objects, given-objects, "
                "reference-frames, github-classroom, stage-points, level, levels, given-stages or "
                "job-limits, not \"%s\"\n", o->print);
        return 2;
    }
    int rc = check_gradebook(o);
    if (rc == 0)
        rc = check_modes(o);
    if (rc == 0 && o->class_dir)
        class_defaults(o);
    return rc;
}

/* ---- the work directory ------------------------------------------------------------------------ */


/* What a grading writes into its report directory, and nothing else there. */
static void clear_report(const char *outdir)
{
    static const char *const ours[] = { "report.json", "report.html", "logs", "images" };
    for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++) {
        char path[PATH_MAX];
        textf(path, sizeof path, "%s/%s", outdir, ours[i]);
        grading_remove_tree(path);
    }
    DIR *d = opendir(outdir); /* and run-<part>/, the first failing scene's run (scenepart.c) */
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strncmp(e->d_name, "run-", 4) != 0)
            continue;
        char path[PATH_MAX];
        textf(path, sizeof path, "%s/%s", outdir, e->d_name);
        grading_remove_tree(path);
    }
    if (d)
        closedir(d);
}

static int absolute(const char *path, char *out, const char *what)
{
    if (!realpath(path, out)) {
        fprintf(stderr, "flipgrade: %s: %s: %s\n", what, path, strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- preparing the reference's data ------------------------------------------------------------- */

static int run_reference_as(char *const argv[], const char *what, bool quiet)
{
    char *env[] = { "PATH=/usr/bin:/bin", "LANG=C", NULL };
    SandboxLimits lim = { .wall_seconds = 3600, .cpu_seconds = 36000, .memory_mib = 1 << 16,
                          .file_mib = 1 << 14, .output_kib = 1024, .processes = 4096 };
    SandboxResult res;
    sandbox_run(".", argv, env, &lim, &res);
    int rc = res.outcome == SB_OK ? 0 : -1;
    if (rc && !quiet)
        fprintf(stderr, "flipgrade: %s: %s\n%s", what, res.reason, res.output ? res.output : "");
    sandbox_result_free(&res);
    return rc;
}

static int run_reference(char *const argv[], const char *what)
{
    return run_reference_as(argv, what, false);
}

static int prepare_cases(const Options *o, const char *sub, char (*cases)[GC_PATH], int n)
{
    char dir[PATH_MAX];
    textf(dir, sizeof dir, "%s/%s", o->data, sub);
    grading_remove_tree(dir);
    grading_mkdirs(dir);
    char *argv[GC_MAX_CASES + 4];
    int a = 0;
    argv[a++] = (char *)o->mkgolden;
    if (strcmp(sub, "hidden") == 0)   /* the public ones are the students' golden scenes */
        argv[a++] = "--every-boundary";
    argv[a++] = dir;
    for (int i = 0; i < n; i++)
        argv[a++] = cases[i];
    argv[a] = NULL;
    return run_reference(argv, sub);
}

/* The metrics of the reference's frames of one run (data/metrics/<run>.txt): all the scene
 * parts compare with, so the student kit ships these in place of the frames. */
static int write_metrics(const Options *o, const GradeConfig *c, const GradeScene *sc, const GradeRun *run)
{
    int n = sc->frames + 1;
    MetricGrid g = { { run->n[0], run->n[1], run->n[2] }, run->dx };
    FrameSummary *frames = calloc((size_t)n, sizeof *frames);
    char dir[PATH_MAX], path[PATH_MAX], err[1024];
    textf(dir, sizeof dir, "%s/metrics", o->data);
    grading_mkdirs(dir);
    textf(path, sizeof path, "%s/%s.txt", dir, run->name);
    textf(dir, sizeof dir, "%s/frames/%s/particles", o->data, run->name);
    textf(err, sizeof err, "out of memory");
    int rc = frames ? metrics_summarise_frames(c, &g, dir, frames, n, err, sizeof err) : -1;
    if (rc == 0) {
        rc = metrics_write_summaries(path, run->name, c, &g, frames, n, err, sizeof err);
        for (int f = 0; f < n; f++)
            metrics_summary_free(&frames[f]);
    }
    free(frames);
    if (rc != 0)
        fprintf(stderr, "flipgrade: the reference's metrics: %s\n", err);
    return rc;
}

static int prepare_frames(const Options *o, const GradeConfig *c, const GradeScene *sc, const char *solver)
{
    static GradeRun run;
    char err[SCENE_ERR_MAX], dir[PATH_MAX];
    if (gradeconfig_run(o->kit, sc, solver, &run, err, sizeof err) != 0) {
        fprintf(stderr, "flipgrade: %s: %s\n", o->config, err);
        return -1;
    }
    textf(dir, sizeof dir, "%s/frames/%s", o->data, run.name);
    grading_remove_tree(dir);
    static const char *const reference_cpu[] = { "--device", "cpu", "--track", "reference", NULL };
    gradeconfig_run_argv(&run, sc, solver, o->flipsim, reference_cpu, dir);
    if (run_reference(run.argv, dir) != 0)
        return -1;
    return write_metrics(o, c, sc, &run);
}

static int prepare(const Options *o, GradeConfig *c)
{
    if (grading_mkdirs(o->data) != 0) {
        fprintf(stderr, "flipgrade: cannot make %s: %s\n", o->data, strerror(errno));
        return 2;
    }
    if (prepare_cases(o, "hidden", c->cases, c->ncases) || prepare_cases(o, "public", c->public_cases, c->npublic))
        return 2;
    for (int i = 0; i < c->nscenes; i++)
        for (int v = 0; v < c->nsolvers; v++)
            if (prepare_frames(o, c, &c->scenes[i], c->solvers[v]) != 0)
                return 2;
    if (!o->quiet)
        printf("flipgrade: the reference's cases and frames are in %s\n", o->data);
    return 0;
}

static bool newer(const struct stat *a, const struct stat *b);

/* ---- a student's variant: the reference's data of what was drawn (variant.h) -------------------- */

/* The states mkgolden recorded of one case into try/<stage>/, moved into dir/hidden/<stage>/
 * (one per stage; named by the case's "name", which the draw set). */
static int variant_take_case(const char *try, const char *dir)
{
    int moved = 0;
    for (int s = 0; s < STAGE_COUNT; s++) {
        char from[PATH_MAX], to[PATH_MAX];
        textf(to, sizeof to, "%s/hidden/%s", dir, stage_names[s]);
        grading_mkdirs(to);
        textf(from, sizeof from, "%s/%s", try, stage_names[s]);
        DIR *d = opendir(from);
        for (struct dirent *e; d && (e = readdir(d));) {
            if (!strstr(e->d_name, ".state"))
                continue;
            textf(from, sizeof from, "%s/%s/%s", try, stage_names[s], e->d_name);
            textf(to, sizeof to, "%s/hidden/%s/%s", dir, stage_names[s], e->d_name);
            if (rename(from, to) != 0) {
                fprintf(stderr, "flipgrade: a variant's case: %s: %s\n", from, strerror(errno));
                closedir(d);
                return -1;
            }
            moved++;
        }
        if (d)
            closedir(d);
    }
    return moved == STAGE_COUNT ? 0 : -1;
}

/* Hidden case i of the variant recorded by the reference into dir/hidden/: the first draw whose
 * recorded substep has FLUID beside SOLID and beside AIR (mkgolden --every-boundary), else the
 * case as the config gives it. What was recorded, in words, is added to words. */
static int variant_record_case(const Options *o, const GradeConfig *c, const Variant *v, int i,
                               const char *dir, char *words, size_t wn)
{
    char try[PATH_MAX], file[PATH_MAX], name[128], what[256], err[1024];
    textf(try, sizeof try, "%s/try", dir);
    for (int attempt = 0; attempt <= VARIANT_ATTEMPTS; attempt++) {
        const char *scene = c->cases[i];
        if (attempt < VARIANT_ATTEMPTS) {
            char *text = variant_case(c, v->index, i, attempt, name, sizeof name, what, sizeof what, err, sizeof err);
            textf(file, sizeof file, "%s/cases/%s.json", dir, name);
            FILE *f = text ? fopen(file, "w") : NULL;
            bool written = f && fputs(text, f) >= 0;
            if (f && fclose(f) != 0)
                written = false;
            if (!written)
                fprintf(stderr, "flipgrade: variant %d: %s\n", v->index, text ? file : err);
            free(text);
            if (!written)
                return -1;
            scene = file;
        } else {   /* no draw passed: the case itself, which make grade-data recorded so */
            textf(what, sizeof what, "%s as in the config (no draw kept FLUID beside SOLID and AIR)", scene);
        }
        grading_remove_tree(try);
        char *argv[] = { (char *)o->mkgolden, "--every-boundary", try, (char *)scene, NULL };
        if (run_reference_as(argv, scene, attempt < VARIANT_ATTEMPTS) == 0) {
            textf(words + strlen(words), wn - strlen(words), "%s %s", i ? "," : " hidden cases:", what);
            int rc = variant_take_case(try, dir);
            grading_remove_tree(try);
            return rc;
        }
    }
    return -1;
}

/* The variant's data is whole (.made) and newer than the data make grade-data made last. */
static bool variant_fresh(const Options *o, const char *dir)
{
    char path[PATH_MAX];
    struct stat mine, base;
    textf(path, sizeof path, "%s/.made", dir);
    if (stat(path, &mine) != 0)
        return false;
    textf(path, sizeof path, "%s/.made", o->data);
    return stat(path, &base) != 0 || !newer(&base, &mine);
}

/* Everything a grading reads of the variant, made by the reference in a new directory beside
 * the others and renamed into place whole: a grading never sees half of it, and two gradings
 * that make the same variant at once keep one of the two (the same bytes). */
static int variant_make(const Options *o, const GradeConfig *c, const Variant *v, const char *final)
{
    char dir[PATH_MAX], path[PATH_MAX], words[VARIANT_DRAWN_MAX + 1024];
    textf(dir, sizeof dir, "%s/.making.XXXXXX", o->variants);
    if (grading_mkdirs(o->variants) != 0 || !mkdtemp(dir)) {
        fprintf(stderr, "flipgrade: cannot make a directory in %s: %s\n", o->variants, strerror(errno));
        return -1;
    }
    textf(words, sizeof words, "%s;", v->drawn);
    textf(path, sizeof path, "%s/cases", dir);
    grading_mkdirs(path);
    Options at = *o;
    at.data = dir;
    int rc = 0;
    for (int i = 0; rc == 0 && i < c->ncases; i++)
        rc = variant_record_case(o, c, v, i, dir, words, sizeof words);
    for (int i = 0; rc == 0 && i < v->cfg.nscenes; i++)
        for (int s = 0; rc == 0 && s < v->cfg.nsolvers; s++)
            rc = prepare_frames(&at, &v->cfg, &v->cfg.scenes[i], v->cfg.solvers[s]);
    if (rc == 0 && !c->variant_keep_frames) {
        textf(path, sizeof path, "%s/frames", dir);
        grading_remove_tree(path);
    }
    textf(path, sizeof path, "%s/variant.txt", dir);
    FILE *f = rc == 0 ? fopen(path, "w") : NULL;
    if (rc == 0 && (!f || fprintf(f, "%s\n", words) < 0 || fclose(f) != 0))
        rc = -1;
    textf(path, sizeof path, "%s/.made", dir);
    if (rc == 0 && ((f = fopen(path, "w")) == NULL || fclose(f) != 0))
        rc = -1;
    if (rc == 0 && !variant_fresh(o, final)) {   /* else another grading's copy came first */
        char stale[PATH_MAX];   /* one from before make grade-data: moved aside in one step */
        textf(stale, sizeof stale, "%s.stale.%ld", final, (long)getpid());
        if (rename(final, stale) == 0)
            grading_remove_tree(stale);
        if (rename(dir, final) != 0 && errno != EEXIST && errno != ENOTEMPTY)
            rc = -1;
    }
    grading_remove_tree(dir);   /* left when another grading's copy came first, or on failure */
    return rc;
}

/* The student's variant: drawn from the seed and a hash of their name, its data made by the
 * reference when no grading made it before, gr's config and data switched to it, and the
 * report told which it is. The reference's data of the class stays the report's data_hash, so
 * one CSV still holds the whole class. 0, or 2 with one line: nothing graded. */
static int use_variant(Grading *gr, const Options *o, const GradeConfig *cfg, Variant *v)
{
    char err[1024], dir[PATH_MAX], path[PATH_MAX];
    GradeReport *r = &gr->report;
    if (variant_draw(o->kit, cfg, variant_index(cfg, r->student), v, err, sizeof err) != 0) {
        fprintf(stderr, "flipgrade: %s: variants: %s (nothing was graded)\n", o->config, err);
        return 2;
    }
    textf(dir, sizeof dir, "%s/%s", o->variants, v->key);
    if (!variant_fresh(o, dir)) {
        double t0 = grading_now();
        if (variant_make(o, cfg, v, dir) != 0 || !variant_fresh(o, dir)) {
            fprintf(stderr, "flipgrade: the reference's data of variant %d (%s) could not be made in "
                    "%s (nothing was graded)\n", v->index, v->key, o->variants);
            return 2;
        }
        if (!o->quiet)
            printf("flipgrade: the reference made the data of variant %d in %.0f s (%s)\n", v->index,
                   grading_now() - t0, dir);
    }
    textf(path, sizeof path, "%s/variant.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f || !fgets(r->variant_drawn, sizeof r->variant_drawn, f))
        textf(r->variant_drawn, sizeof r->variant_drawn, "%s", v->drawn);
    if (f)
        fclose(f);
    r->variant_drawn[strcspn(r->variant_drawn, "\n")] = '\0';
    if (absolute(dir, gr->data, "--variants") != 0)
        return 2;
    r->has_variant = true;
    r->variant = v->index;
    textf(r->variant_key, sizeof r->variant_key, "%s", v->key);
    grading_hash_tree(gr->data, r->variant_data_hash);
    gr->cfg = &v->cfg;
    return 0;
}

/* ---- what the handout says about grading -------------------------------------------------------- */

static const char *solver_words(const char *solver)
{
    return strcmp(solver, "jacobi") == 0 ? "all eight of your stages"
                                         : "your stages, the given Gauss-Seidel (SOR, `pressure.sor_omega`) in place of `jacobi`";
}

/* The scene's name as the handout says it: its file's name without folder or .json. */
static void scene_short_name(const char *scene, char *out, size_t cap)
{
    const char *base = strrchr(scene, '/');
    textf(out, cap, "%s", base ? base + 1 : scene);
    char *dot = strrchr(out, '.');
    if (dot && strcmp(dot, ".json") == 0)
        *dot = '\0';
}

/* Which runs a scene gets, in words that hold for any solvers list the config may give. */
static const char *solvers_sentence(const GradeConfig *c)
{
    bool jacobi = false, gs = false;
    for (int v = 0; v < c->nsolvers; v++) {
        jacobi |= strcmp(c->solvers[v], "jacobi") == 0;
        gs |= strcmp(c->solvers[v], "gauss_seidel") == 0;
    }
    if (jacobi && gs)
        return "Each runs twice: once with your `jacobi` and once with the given Gauss-Seidel, so a "
               "wrong `jacobi` does not hide whether the other seven stages are right.";
    return jacobi ? "Each runs once, with your `jacobi`."
                  : "Each runs once, with the given Gauss-Seidel in place of your `jacobi`.";
}

/* The handout's sentence on the whole scenes: which, how many frames, what the config sets.
 * Made here, not written in the handout, so a scene dropped from the config leaves it too. */
static void print_scenes_prose(const GradeConfig *c)
{
    printf("**The whole scenes graded** (`scenes.list` in `grader/config`)%s\n\n", c->nscenes ? ":" : ": none.");
    for (int i = 0; i < c->nscenes; i++) {
        char name[GC_PATH];
        scene_short_name(c->scenes[i].scene, name, sizeof name);
        printf("- `%s`: %d frames", name, c->scenes[i].frames);
        for (int k = 0; k < c->scenes[i].nset; k++)
            printf("%s`%s`", k == 0 ? ", the scene file with " : k + 1 == c->scenes[i].nset ? " and " : ", ",
                   c->scenes[i].set[k]);
        printf("\n");
    }
    if (c->nscenes)
        printf("\n%s\n", solvers_sentence(c));
    printf("\n");
}

/* The handout's grading table, made from the config so the two cannot disagree. */
static int print_grading_table(const Options *o, const GradeConfig *c)
{
    double total = 0;
    print_scenes_prose(c);
    printf("| part | graded on | points |\n|---|---|---:|\n");
    for (int s = 0; s < STAGE_COUNT; s++) {
        if (gradeconfig_stage_given(c, stage_names[s]))
            continue;   /* listed below the table: given, not graded */
        printf("| `%s` | the stage alone, on %d hidden cases (tolerances of `make test`) | %g |\n",
               stage_names[s], c->ncases, gradeconfig_stage_points(c, stage_names[s]));
        total += gradeconfig_stage_points(c, stage_names[s]);
    }
    for (int i = 0; i < c->nscenes; i++)
        for (int v = 0; v < c->nsolvers; v++) {
            static GradeRun run;
            char err[SCENE_ERR_MAX];
            if (gradeconfig_run(o->kit, &c->scenes[i], c->solvers[v], &run, err, sizeof err) != 0) {
                fprintf(stderr, "flipgrade: %s: %s\n", o->config, err);
                return 2;
            }
            printf("| `%s` | `%s` run with %s; %d frames against the reference's | %g |\n",
                   run.name, c->scenes[i].scene, solver_words(c->solvers[v]), c->scenes[i].frames,
                   gradeconfig_scene_points(c, &c->scenes[i]));
            total += gradeconfig_scene_points(c, &c->scenes[i]);
        }
    printf("| **total** | | **%g** |\n\n", total);
    printf("A stage scores its points times the fraction of its cases it passes. A scene run scores "
           "its points times the fraction of frames that pass; a frame passes when ");
    if (c->metric_count)
        printf("it has the reference's particle count, ");
    printf("its centre of mass is within %g cells of the reference's, its", c->centre_cells);
    for (int q = 0; q < c->nquantiles; q++)
        printf("%s %g %%", q == 0 ? "" : q + 1 == c->nquantiles ? " and" : ",", 100 * c->quantiles[q]);
    printf(" height quantiles are each within %g cells, the cells its particles occupy overlap the "
           "reference's by at least %g (intersection over union), and its particles have moved "
           "between 1/%g and %g times as far since frame 0.\n",
           c->height_cells, c->overlap, c->motion, c->motion);
    const char *sep = "\nGiven, not graded (your kit has them compiled, from the reference): ";
    for (int s = 0; s < STAGE_COUNT; s++)
        if (gradeconfig_stage_given(c, stage_names[s]))
            printf("%s`%s`", sep, stage_names[s]), sep = ", ";
    if (*sep == ',')
        printf(".\n");
    return 0;
}

/* ---- grading one submission ---------------------------------------------------------------------- */

/* A submission that cannot be read is graded as empty, so a class run goes on and the reason
 * reaches the student's row; a file that is refused, or a cap that stopped the reading, is said
 * in the reason of each stage it leaves without a file, and the other stages are graded. */
static void take_submission(Grading *gr, const Options *o, const char *sub, const char *src)
{
    char err[1024];
    IntakeResult *in = &gr->intake;
    if (intake_submission(sub, src, in, err, sizeof err) != 0) {
        memset(in, 0, sizeof *in);
        textf(gr->intake_error, sizeof gr->intake_error, "%s", err);
        if (!o->quiet)
            fprintf(stderr, "flipgrade: %s\n", err);   /* intake.c escapes what it quotes */
        return;
    }
    textf(gr->intake_error, sizeof gr->intake_error, "%s", in->note);
    for (int s = 0; s < STAGE_COUNT && !o->quiet; s++)
        if (in->refused[s][0])
            fprintf(stderr, "flipgrade: %s\n", in->refused[s]);
    if (in->note[0] && !o->quiet)
        fprintf(stderr, "flipgrade: %s\n", in->note);
}

static int setup(Grading *gr, const Options *o)
{
    const char *sub = o->args[0];
    GradeReport *r = &gr->report;
    textf(r->submission, sizeof r->submission, "%s", sub);
    intake_name(sub, r->student, sizeof r->student);
    textf(r->mode, sizeof r->mode, "%s", o->public_cases ? "public" : "hidden");
    gr->public_cases = o->public_cases;
    gr->quiet = o->quiet;
    char outdir[PATH_MAX];
    if (o->out)
        textf(outdir, sizeof outdir, "%s", o->out);
    else
        textf(outdir, sizeof outdir, "build/grades/%s", r->student);
    struct stat st;
    if (stat(sub, &st) != 0) {
        fprintf(stderr, "flipgrade: %s: no such submission (a directory or a .tar.gz/.zip)\n", sub);
        return -1;
    }
    if (grading_mkdirs(outdir) != 0) {
        fprintf(stderr, "flipgrade: cannot make the report directory %s: %s\n", outdir, strerror(errno));
        return -1;
    }
    clear_report(outdir);     /* a report never mixes two gradings */
    if (absolute(o->kit, gr->kit, "--kit") || absolute(o->objs, gr->objs, "--objects (run make grade)") ||
        absolute(o->data, gr->data, "--data (run make grade-data)") || absolute(outdir, gr->out, "--out"))
        return -1;
    const char *parent = o->work_parent ? o->work_parent : getenv("TMPDIR");
    textf(gr->work, sizeof gr->work, "%s/flipgrade.XXXXXX", parent && *parent ? parent : "/tmp");
    if (!mkdtemp(gr->work)) {
        fprintf(stderr, "flipgrade: cannot make a work directory %s: %s\n", gr->work, strerror(errno));
        return -1;
    }
    char made[PATH_MAX];   /* absolute: programs run from their own directories inside it */
    if (absolute(gr->work, made, "--work") != 0)
        return -1;
    textf(gr->work, sizeof gr->work, "%s", made);
    /* Not under --objects: links may read all of that, and the cache holds other students'
     * objects. A cache that cannot be made or used is off, not an error. */
    if (o->no_cache || !bcache_open(o->cache) || !realpath(o->cache, gr->cache))
        gr->cache[0] = '\0';
    gr->cache_mib = strtol(o->cache_mib, NULL, 10);   /* checked by parse_options; 0 would empty it */
    char src[GC_PATH + 8];
    textf(src, sizeof src, "%s/src", gr->work);
    grading_mkdirs(src);
    take_submission(gr, o, sub, src);
    return 0;
}

static int write_reports(Grading *gr)
{
    char path[GC_PATH + 32], err[512];
    textf(path, sizeof path, "%s/report.json", gr->out);
    if (report_write_json(path, &gr->report, err, sizeof err) != 0) {
        fprintf(stderr, "flipgrade: %s\n", err);
        return -1;
    }
    textf(path, sizeof path, "%s/report.html", gr->out);
    if (report_write_html(path, &gr->report, err, sizeof err) != 0) {
        fprintf(stderr, "flipgrade: %s\n", err);
        return -1;
    }
    return 0;
}

/* ---- is everything there? ------------------------------------------------------------------- */

/* One line naming what is missing or stale and the make target that fixes it; 2. */
__attribute__((format(printf, 2, 3)))
static int not_ready(const char *target, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("flipgrade: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "; run `make %s` first (nothing was graded)\n", target);
    return 2;
}

static bool newer(const struct stat *a, const struct stat *b)
{
    return a->st_mtim.tv_sec > b->st_mtim.tv_sec ||
           (a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec > b->st_mtim.tv_nsec);
}

/* The prebuilt objects every build links, and the headers a stage compiles against, made
 * after the last change to the kit's headers. */
static int check_kit(const Options *o, const GradeConfig *cfg)
{
    static const char *const files[] = { "include/.made", "include/stages.h", "libkit.a", "track.o",
                                         "guard.o", "stagerun.o", "scenerun.o" };
    char path[PATH_MAX];
    struct stat st, made;
    for (size_t i = 0; i < sizeof files / sizeof files[0] + STAGE_COUNT; i++) {
        if (i < sizeof files / sizeof files[0])
            textf(path, sizeof path, "%s/%s", o->objs, files[i]);
        else
            textf(path, sizeof path, "%s/stub_%s.o", o->objs, stage_names[i - sizeof files / sizeof files[0]]);
        if (stat(path, &st) != 0)
            return not_ready("grade-kit", "%s is missing: the grader's kit is not built", path);
    }
    for (int s = 0; s < STAGE_COUNT; s++) {   /* a given stage links the reference's object */
        textf(path, sizeof path, "%s/given_%s.o", o->objs, stage_names[s]);
        if (gradeconfig_stage_given(cfg, stage_names[s]) && stat(path, &st) != 0)
            return not_ready("grade-kit", "%s is missing: %s is in handout.given_stages, and the "
                             "grader's kit has no compiled reference of it", path, stage_names[s]);
    }
    textf(path, sizeof path, "%s/include/.made", o->objs);
    stat(path, &made);
    char dir[PATH_MAX];
    textf(dir, sizeof dir, "%s/common", o->kit);
    DIR *d = opendir(dir);
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        textf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (n > 2 && strcmp(e->d_name + n - 2, ".h") == 0 && stat(path, &st) == 0 && newer(&st, &made))
            rc = not_ready("grade-kit", "%s changed after the grader's kit was made", path);
    }
    if (d)
        closedir(d);
    return rc;
}

/* Cases for every stage, the reference's frames for every scene run, made after the last
 * change to the config. */
static int check_data(const Options *o, const GradeConfig *cfg)
{
    const char *mode = o->public_cases ? "public" : "hidden";
    char path[PATH_MAX];
    struct stat st, made, config;
    if (strcmp(o->parts, "scenes") != 0)
        for (int s = 0; s < STAGE_COUNT; s++) {
            if (gradeconfig_stage_given(cfg, stage_names[s]))
                continue;   /* not graded: the kit ships no cases of it */
            textf(path, sizeof path, "%s/%s/%s", o->data, mode, stage_names[s]);
            DIR *d = opendir(path);
            bool any = false;
            struct dirent *e;
            while (d && !any && (e = readdir(d)))
                any = strstr(e->d_name, ".state") != NULL;
            if (d)
                closedir(d);
            if (!any)
                return not_ready(o->public_cases ? "golden" : "grade-data", "no %s cases for %s in %s",
                                 mode, stage_names[s], path);
        }
    if (strcmp(o->parts, "stages") != 0 && !o->public_cases)
        for (int i = 0; i < cfg->nscenes; i++)
            for (int v = 0; v < cfg->nsolvers; v++) {
                GradeRun run;
                char err[1024];
                if (gradeconfig_run(o->kit, &cfg->scenes[i], cfg->solvers[v], &run, err, sizeof err) != 0)
                    continue; /* the part will say so */
                textf(path, sizeof path, "%s/frames/%s/particles/%06d.ply", o->data, run.name, cfg->scenes[i].frames);
                if (stat(path, &st) != 0)
                    return not_ready("grade-data", "%s is missing: the reference's frames of %s are not made",
                                     path, run.name);
            }
    /* make grade-data records the data from the kit's grader/config (.made is its stamp) */
    char kit_config[PATH_MAX];
    textf(kit_config, sizeof kit_config, "%s/grader/config", o->kit);
    textf(path, sizeof path, "%s/.made", o->data);
    if (stat(path, &made) == 0 && stat(kit_config, &config) == 0 && newer(&config, &made))
        return not_ready("grade-data", "%s changed after the reference's data in %s was made", kit_config, o->data);
    return 0;
}

/* The safe-set rule in words, for every refusal. */
#define SAFE_SET_RULE "a submission's name must be 1 to 64 letters, digits, '.', '_' or '-', " \
                      "not starting with '-' or '.' (grader/README.md)"

/* Without --out the report directory is named after the submission: only a safe name may do
 * that. One line, 2. */
static int refuse_unsafe_submission(const Options *o)
{
    char name[1024], shown[300], why[200];
    intake_name(o->args[0], name, sizeof name);
    if (o->out || escape_safe_name(name))
        return 0;
    escape_text(shown, sizeof shown, name, strlen(name), 0);
    classrun_why_unsafe(name, why, sizeof why);
    fprintf(stderr, "flipgrade: refused \"%s\": %s; %s; rename it, or give --out DIR for its "
            "report (nothing was graded)\n", shown, why, SAFE_SET_RULE);
    return 2;
}

/* Under the table: the stages of handout.given_stages, which have no part and no points. */
static void print_given_note(const Grading *gr)
{
    const char *sep = "given, not graded (handout.given_stages; the reference's code ran in their place): ";
    for (int s = 0; s < STAGE_COUNT; s++)
        if (gr->given[s])
            printf("%s%s", sep, stage_names[s]), sep = ", ";
    if (*sep == ',')
        printf("\n");
}

/* The self-check's last words: what the total is out of, and for each scene part that lost
 * points, its first failing frame and the line that shows the run. */
static void print_self_check_notes(const GradeReport *r)
{
    bool scenes = false;
    for (int i = 0; i < r->nparts; i++)
        scenes |= r->parts[i].is_scene;
    printf("total %.1f / %.1f (public %s; your instructor also runs hidden cases and scenes)\n", r->total,
           r->max, scenes ? "cases and scenes, scored here with the grader's own code" : "cases only");
    for (int i = 0; i < r->nparts; i++) {
        const GradePart *p = &r->parts[i];
        if (!p->is_scene || p->passed == p->total || !p->first_fail.metric[0])
            continue;
        char name[200];
        escape_text(name, sizeof name, p->name, strlen(p->name), 0);
        printf("%s: first failing frame %d: %s %.3g (limit %.3g)\n", name, p->first_fail.frame,
               p->first_fail.metric, p->first_fail.got, p->first_fail.limit);
        if (p->view[0])
            printf("  to see it: %s\n", p->view);
    }
}

/* The test hook FLIPGRADE_TEST_FAIL_START=NAME:FIRST[:COUNT] (grader/README.md): in the
 * grading of NAME, sandbox starts FIRST to FIRST + COUNT - 1 fail as a refused clone would. */
static void arm_test_hook(const char *student)
{
    const char *hook = getenv("FLIPGRADE_TEST_FAIL_START");
    const char *colon = hook ? strchr(hook, ':') : NULL;
    if (!colon || strlen(student) != (size_t)(colon - hook) || strncmp(hook, student, strlen(student)) != 0)
        return;
    int first = 0, count = 1;
    if (sscanf(colon + 1, "%d:%d", &first, &count) >= 1 && first > 0 && count > 0)
        sandbox_test_fail_starts(first, count);
}

extern const char flipgrade_version[];   /* written when flipgrade is linked (grader/kit.mk) */

/* What the grade is made with, for an audit: the grader, the config, the data, the time. */
static void stamp_report(GradeReport *r, const Options *o, const Grading *gr)
{
    char self[17];
    grading_hash_file("/proc/self/exe", self);
    textf(r->grader, sizeof r->grader, "%s (binary %s)", flipgrade_version, self);
    grading_hash_file(o->config, r->config_hash);
    grading_hash_tree(gr->data, r->data_hash);
    time_t now = time(NULL);
    struct tm utc;
    if (!gmtime_r(&now, &utc) || strftime(r->graded_at, sizeof r->graded_at, "%Y-%m-%dT%H:%M:%SZ", &utc) == 0)
        textf(r->graded_at, sizeof r->graded_at, "unknown");
}

/* The parts the grader failed on, by name, comma-separated. */
static void error_parts(const GradeReport *r, char *out, size_t n)
{
    out[0] = '\0';
    for (int i = 0; i < r->nparts; i++)
        if (r->parts[i].error)
            textf(out + strlen(out), n - strlen(out), "%s%s", out[0] ? ", " : "", r->parts[i].name);
}

static int grade(const Options *o, const GradeConfig *cfg)
{
    /* Each check returns 0 when it found nothing wrong, else the exit status to stop with. */
    int refused = refuse_unsafe_submission(o);
    if (!refused)
        refused = check_kit(o, cfg);
    if (!refused)
        refused = check_data(o, cfg);
    if (refused)
        return refused;
    static Grading gr;
    memset(&gr, 0, sizeof gr);
    gr.cfg = cfg;
    for (int s = 0; s < STAGE_COUNT; s++)
        gr.given[s] = gradeconfig_stage_given(cfg, stage_names[s]);
    double t0 = grading_now();
    gr.deadline = t0 + cfg->submission_seconds;
    gr.disk_left_kib = (long long)cfg->submission_disk_mib * 1024;
    textf(gr.report.sandbox, sizeof gr.report.sandbox, "%s", sandbox_isolation());
    if (setup(&gr, o) != 0) {
        if (gr.work[0] && !o->keep)
            grading_remove_tree(gr.work);
        return 2;
    }
    if (!sandbox_can_confine() && !o->public_cases && !o->unconfined) {
        fprintf(stderr, "flipgrade: this kernel has no Landlock, so student code could read the "
                        "hidden answers and write anywhere; refusing (--unconfined to grade anyway)\n");
        grading_remove_tree(gr.work);
        return 2;
    }
    arm_test_hook(gr.report.student);
    stamp_report(&gr.report, o, &gr);
    static Variant variant;
    if (cfg->variants_on && !o->public_cases) {   /* the self-check has the public cases only */
        if (use_variant(&gr, o, cfg, &variant) != 0) {
            grading_remove_tree(gr.work);
            return 2;
        }
        gr.deadline = grading_now() + cfg->submission_seconds;   /* the reference's time is not the student's */
    }
    char student[sizeof gr.report.student * 4];   /* the submission's name: the student's */
    escape_text(student, sizeof student, gr.report.student, strlen(gr.report.student), 0);
    if (!o->quiet)
        printf("flipgrade: grading %s (%s cases)%s\n", student, gr.report.mode,
               sandbox_can_confine() ? "" : "; warning: no Landlock on this kernel, so student "
                                            "code is not confined to its directory");
    if (!o->quiet)
        printf("flipgrade: sandbox: %s\n", gr.report.sandbox);
    if (!o->quiet && gr.report.has_variant)
        printf("flipgrade: %s\n", gr.report.variant_drawn);
    build_stages(&gr);
    if (strcmp(o->parts, "scenes") != 0)
        grade_stages(&gr);
    if (strcmp(o->parts, "stages") != 0)
        grade_scenes(&gr);
    GradeReport *r = &gr.report;
    for (int i = 0; i < r->nparts; i++) {
        r->total += r->parts[i].points;
        r->max += r->parts[i].max;
    }
    r->seconds = grading_now() - t0;
    grading_finish_logs(&gr);
    grading_free(&gr);
    report_print_table(stdout, r);
    print_given_note(&gr);
    if (o->public_cases)
        print_self_check_notes(r);
    int rc = write_reports(&gr) != 0 ? 2 : r->total >= r->max - 1e-9 ? 0 : 1;
    if (gr.data_missing[0] || r->nparts == 0) {
        fprintf(stderr, "flipgrade: %s\n", r->nparts ? gr.data_missing : "nothing to grade (--parts, config)");
        rc = 2;   /* not the student's fault: no grade */
    }
    if (!o->quiet)
        printf("flipgrade: %.0f s; report in %s/report.html\n", r->seconds, gr.out);
    if (o->keep)
        printf("flipgrade: work directory kept: %s\n", gr.work);
    else
        grading_remove_tree(gr.work);
    if (r->errors) {   /* last, so that a class run shows this line as the reason */
        char names[1024];
        error_parts(r, names, sizeof names);
        fflush(stdout);
        fprintf(stderr, "flipgrade: no grade for %s: the grader failed on %d part%s (%s), not "
                "the submission; grade it again\n", student, r->errors, r->errors == 1 ? "" : "s", names);
        rc = 2;
    }
    return rc;
}

/* ---- grading a class ---------------------------------------------------------------------- */

/* Each refused entry in one line, its name escaped, and why. How many there were. */
static int print_refusals(const Options *o, const ClassrunList *list)
{
    int refused = 0;
    for (int i = 0; i < list->n; i++) {
        const ClassrunEntry *e = &list->entries[i];
        char shown[300], other[300], why[200];
        escape_text(shown, sizeof shown, e->entry, strlen(e->entry), 0);
        if (e->verdict == CLASSRUN_UNSAFE) {
            classrun_why_unsafe(escape_safe_name(e->entry) ? e->student : e->entry, why, sizeof why);
            fprintf(stderr, "flipgrade: refused \"%s\": %s; %s\n", shown, why, SAFE_SET_RULE);
        } else if (e->verdict == CLASSRUN_CLASH) {
            const char *o_entry = list->entries[e->other].entry;
            escape_text(other, sizeof other, o_entry, strlen(o_entry), 0);
            fprintf(stderr, "flipgrade: refused \"%s\": \"%s\" would share its report directory "
                    "%s/%s; rename one of them\n", shown, other, o->reports, e->student);
        } else
            continue;
        refused++;
    }
    return refused;
}

/* What every grading of the class is given: this run's options, and --quiet. */
static char **class_child_options(const Options *o)
{
    const char *pairs[][2] = { { "--config", o->config }, { "--parts", o->parts },
                               { "--kit", o->kit }, { "--objects", o->objs }, { "--data", o->data },
                               { "--cache", o->cache }, { "--cache-mib", o->cache_mib },
                               { "--work", o->work_parent }, { "--variants", o->variants },
                               { "--mkgolden", o->mkgolden }, { "--flipsim", o->flipsim } };
    const struct { bool on; const char *flag; } flags[] = {
        { true, "--quiet" }, { o->no_cache, "--no-cache" }, { o->unconfined, "--unconfined" },
        { o->public_cases, "--public" }, { o->keep, "--keep" } };
    char **v = calloc(2 * sizeof pairs / sizeof pairs[0] + sizeof flags / sizeof flags[0] + 1, sizeof *v);
    int k = 0;
    for (size_t i = 0; v && i < sizeof flags / sizeof flags[0]; i++)
        if (flags[i].on)
            v[k++] = (char *)flags[i].flag;
    for (size_t i = 0; v && i < sizeof pairs / sizeof pairs[0]; i++)
        if (pairs[i][1]) {
            v[k++] = (char *)pairs[i][0];
            v[k++] = (char *)pairs[i][1];
        }
    return v;
}

/* The last line of a grading's output that holds anything, into line. */
static void last_line(const char *text, char *line, size_t n)
{
    size_t end = strlen(text);
    while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == ' '))
        end--;
    size_t start = end;
    while (start > 0 && text[start - 1] != '\n')
        start--;
    textf(line, n, "%.*s", (int)(end - start), text + start);
}

/* As each grading ends: what it printed (its table), escaped; and if it did not grade, why. */
static void class_finished(const ClassrunEntry *e, const char *log_path, void *ctx)
{
    (void)ctx;
    char buf[1 << 16], shown[300], line[512];
    FILE *f = fopen(log_path, "rb");
    size_t got = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[got] = '\0';
    char *text = escape_dup(buf, got, sizeof buf * 4, ESCAPE_KEEP_NEWLINES, NULL);
    escape_text(shown, sizeof shown, e->entry, strlen(e->entry), 0);
    const char *slash = strrchr(log_path, '/');   /* its report directory holds the log */
    printf("== %s: %.*s/\n", shown, slash ? (int)(slash - log_path) : 0, log_path);   /* tables
                                                      * that come in parallel name their student */
    fputs(text ? text : "", stdout);
    fflush(stdout);
    last_line(text ? text : "", line, sizeof line);
    if (e->status == -1)
        fprintf(stderr, "flipgrade: \"%s\" not graded: its grading could not be started (%s)\n",
                shown, log_path);
    else if (e->status > 128)
        fprintf(stderr, "flipgrade: \"%s\" not graded: its grading was killed by signal %d\n",
                shown, e->status - 128);
    else if (e->status > 1)
        fprintf(stderr, "flipgrade: \"%s\" not graded: flipgrade exit %d: %s\n", shown, e->status, line);
    free(text);
}

/* The class's CSV at --class-csv from these reports, in the layout of --format: grades.csv's,
 * or a gradebook's with the ids of --ids (the reports it leaves out are named on stderr and
 * counted in *left_out). 0, or -1 with one line in err and the CSV as it was. */
static int write_csv(const Options *o, char *const reports[], int n, int *left_out, char *err, size_t errlen)
{
    GradebookFormat f = GRADEBOOK_FLIPKIT;
    *left_out = 0;
    if (o->format)
        gradebook_format_parse(o->format, &f);   /* check_gradebook vouched for it */
    if (f == GRADEBOOK_FLIPKIT)
        return report_write_class_csv(o->csv, reports, n, err, errlen);
    GradebookIds ids;
    if (gradebook_ids_load(o->ids, &ids, err, errlen) != 0)
        return -1;
    ReportGradebook gb = { f, &ids, o->column };
    int rc = report_write_gradebook_csv(o->csv, reports, n, &gb, stderr, left_out, err, errlen);
    if (rc == 0)
        printf("flipgrade: %d of %d report%s in %s (%s, ids from %s)%s\n", n - *left_out, n,
               n == 1 ? "" : "s", o->csv, o->format, o->ids,
               *left_out ? ", the others left out as said above" : "");
    gradebook_ids_free(&ids);
    return rc;
}

/* The report of every safe entry graded now or before (--only), in the list's order. */
static char **class_reports(const Options *o, const ClassrunList *list, int *n)
{
    char **paths = calloc((size_t)list->n + 1, sizeof *paths);
    *n = 0;
    for (int i = 0; paths && i < list->n; i++) {
        const ClassrunEntry *e = &list->entries[i];
        char path[PATH_MAX];
        struct stat st;
        textf(path, sizeof path, "%s/%s/report.json", o->reports, e->student);
        if ((e->verdict == CLASSRUN_GRADE || e->verdict == CLASSRUN_SKIP) && stat(path, &st) == 0)
            paths[(*n)++] = strdup(path);
    }
    return paths;
}

/* --list: the safe entries, one a line, for grader/slurm.sh; names in the safe set hold no
 * blank, so the words split back exactly. */
static void print_class_list(const ClassrunList *list)
{
    for (int i = 0; i < list->n; i++) {
        const ClassrunEntry *e = &list->entries[i];
        if (e->verdict == CLASSRUN_GRADE || e->verdict == CLASSRUN_SKIP)
            printf("%s %s %s\n", e->verdict == CLASSRUN_GRADE ? "grade" : "skip", e->entry, e->student);
    }
}

/* One line before the gradings: how many, how many at once, on which CPUs. */
static void print_class_start(const Options *o, int todo, int total, int jobs)
{
    int cpus[64];
    int ncpus = classrun_cpus(cpus, 64);
    char shown[300], list[256] = "";
    escape_text(shown, sizeof shown, o->class_dir, strlen(o->class_dir), 0);
    for (int i = 0; i < ncpus && i < (jobs ? jobs : ncpus); i++)
        textf(list + strlen(list), sizeof list - strlen(list), "%s%d", i ? "," : "", cpus[i]);
    printf("flipgrade: grading %d of the %d entries of %s, %d at a time, each pinned to a CPU "
           "(%s)%s\n", todo, total, shown, jobs ? jobs : ncpus, list,
           jobs > ncpus ? "; more at a time than CPUs: gradings share CPUs (the time limits "
                          "count CPU time, so the grades hold, but each takes longer)" : "");
}

/* The names of the entries whose grading failed, blank-separated, for --only. */
static void failed_names(const ClassrunList *list, char *out, size_t n)
{
    out[0] = '\0';
    for (int i = 0; i < list->n; i++) {
        const ClassrunEntry *e = &list->entries[i];
        if (e->verdict == CLASSRUN_GRADE && e->status != 0 && e->status != 1)
            textf(out + strlen(out), n - strlen(out), "%s%s", out[0] ? " " : "", e->student);
    }
}

/* What the reference check printed, escaped, when it did not get full marks. */
static void reference_finished(const ClassrunEntry *e, const char *log_path, void *ctx)
{
    (void)log_path;
    if (e->status != 0)
        class_finished(e, log_path, ctx);
}

/* Before any student: the kit's own reference/ graded as a submission, with the class's
 * options, must get full marks. If it does not, the grading is broken on this machine (a
 * stale kit, a config the reference fails, a sandbox that cannot start), and every student
 * would be graded by it. Its report goes in REPORTS/.reference/reference/ (no student's name
 * starts with '.'). 0, or 2 with one line. */
static int grade_reference(const Options *o, char **options)
{
    char dir[PATH_MAX], reports[PATH_MAX];
    textf(dir, sizeof dir, "%s/reference", o->kit);
    textf(reports, sizeof reports, "%s/.reference", o->reports);
    ClassrunEntry e = { .entry = "reference", .student = "reference", .verdict = CLASSRUN_GRADE,
                        .other = -1, .cpu = -1 };
    ClassrunList one = { .entries = &e, .n = 1 };
    ClassrunPlan plan = { .options = options, .dir = o->kit, .reports = reports, .jobs = 1,
                          .finished = reference_finished };
    printf("flipgrade: first the reference's own files (%s), which must get full marks\n", dir);
    fflush(stdout);
    classrun_grade(&one, &plan);
    if (e.status == 0)
        return 0;
    fprintf(stderr, "flipgrade: the reference's own files did not get full marks (flipgrade exit "
            "%d; report in %s/reference/): the grading is broken here, so no student was graded\n",
            e.status, reports);
    return 2;
}

/* Grades the safe entries of the class, writes the CSV from every report; the summary. */
static int grade_listed(const Options *o, ClassrunList *list, int todo, int total, int refused)
{
    int jobs = o->jobs ? atoi(o->jobs) : 1;
    char **options = class_child_options(o);
    if (!options) {
        fprintf(stderr, "flipgrade: out of memory\n");
        return 2;
    }
    ClassrunPlan plan = { .options = options, .dir = o->class_dir, .reports = o->reports,
                          .jobs = jobs, .finished = class_finished };
    if (grade_reference(o, options) != 0) {
        free(options);
        return 2;
    }
    print_class_start(o, todo, total, jobs);
    int failed = classrun_grade(list, &plan);
    free(options);
    int nreports = 0;
    char **reports = class_reports(o, list, &nreports), err[1024];
    int left_out = 0;
    int rc = !reports || write_csv(o, reports, nreports, &left_out, err, sizeof err) != 0;
    if (rc)
        fprintf(stderr, "flipgrade: %s\n", reports ? err : "out of memory");
    if (!rc && nreports > 0) {
        fputs("flipgrade: the CSV's ", stdout);
        if (report_class_summary(stdout, reports, nreports, err, sizeof err) != 0)
            fprintf(stderr, "flipgrade: %s\n", err);
    }
    for (int i = 0; reports && i < nreports; i++)
        free(reports[i]);
    free(reports);
    if (rc)
        return 2;
    printf("flipgrade: %d graded, %d not graded, %d refused by name; %d rows in %s\n",
           todo - failed, failed, refused, nreports - left_out, o->csv);
    if (failed) {
        char names[4096], dir[1024];
        failed_names(list, names, sizeof names);
        escape_text(dir, sizeof dir, o->class_dir, strlen(o->class_dir), 0);
        fprintf(stderr, "flipgrade: not graded: %s; grade them again alone with: make grade "
                "SUBMISSIONS=%s/ ONLY='%s' (and the same GRADE_* settings), or flipgrade --class "
                "%s --only '%s'\n", names, dir, names, dir, names);
    }
    return failed || refused || left_out ? 1 : 0;
}

/* --class DIR: every entry of DIR refused by name or graded; 0, 1 or 2 as --help says. */
static int grade_class(const Options *o, const GradeConfig *cfg)
{
    ClassrunList list;
    char err[1024], missing[1024] = "";
    if (classrun_list(o->class_dir, &list, err, sizeof err) != 0) {
        fprintf(stderr, "flipgrade: %s\n", err);
        return 2;
    }
    int rc = 2, refused = print_refusals(o, &list);
    int todo = o->nonly ? classrun_select(&list, o->only, o->nonly, missing, sizeof missing) : 0;
    for (int i = 0; !o->nonly && i < list.n; i++)
        todo += list.entries[i].verdict == CLASSRUN_GRADE;
    if (missing[0]) {
        char shown[2048];
        escape_text(shown, sizeof shown, missing, strlen(missing), 0);
        fprintf(stderr, "flipgrade: --only names no entry of the class: %s\n", shown);
        refused++;
    }
    if (list.n == 0)
        fprintf(stderr, "flipgrade: %s holds no submissions\n", o->class_dir);
    else if (o->list) {
        print_class_list(&list);
        rc = refused ? 1 : 0;
    } else if (todo == 0)
        fprintf(stderr, "flipgrade: nothing of %s to grade (nothing was graded)\n", o->class_dir);
    else if ((rc = check_kit(o, cfg)) == 0 && (rc = check_data(o, cfg)) == 0)
        rc = grade_listed(o, &list, todo, list.n, refused);
    classrun_free(&list);
    return rc;
}

/* ---- make feedback ------------------------------------------------------------------------------ */

/* Whether --only names this report directory (every one without --only). */
static bool feedback_wanted(const Options *o, const char *name)
{
    if (o->nonly == 0)
        return true;
    for (int i = 0; i < o->nonly; i++) {
        const char *w = o->only[i];
        size_t n = strlen(name);
        for (const char *p = strstr(w, name); p; p = strstr(p + 1, name))
            if ((p == w || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
                return true;
    }
    return false;
}

/* One student's feedback and its line: 0 written, 1 not (no grade), -1 failed. */
static int feedback_one(const Options *o, const char *kit, long max, const char *name)
{
    char src[PATH_MAX], dst[PATH_MAX], err[1024];
    textf(src, sizeof src, "%s/%s", o->reports, name);
    textf(dst, sizeof dst, "%s/%s", o->feedback, name);
    FeedbackResult r;
    int rc = feedback_student(src, dst, kit, max, &r, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "flipgrade: no feedback for %s: %s\n", name, err);
        return rc;
    }
    printf("feedback %s: %ld KiB in %s/ (%d log%s, %d cut to fit; %d picture%s left out to fit)\n",
           name, (r.bytes + 1023) / 1024, dst, r.logs, r.logs == 1 ? "" : "s", r.logs_cut,
           r.images_dropped, r.images_dropped == 1 ? "" : "s");
    return 0;
}

/* --feedback OUT: every safe report directory of --reports made fit to hand back. 0 when each
 * got its feedback, 1 when some did not (a report without a grade, a file that failed),
 * 2 when none did. */
static int give_feedback(const Options *o, const GradeConfig *cfg)
{
    const char *reports = o->reports ? o->reports : "build/grades";
    char kit[PATH_MAX];
    DIR *d = opendir(reports);
    if (!d || !realpath(o->kit, kit) || (mkdir(o->feedback, 0755) != 0 && errno != EEXIST)) {
        fprintf(stderr, "flipgrade: --feedback: %s: %s\n", d ? o->feedback : reports, strerror(errno));
        if (d)
            closedir(d);
        return 2;
    }
    Options with = *o;
    with.reports = reports;
    int written = 0, missed = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char json[PATH_MAX];
        struct stat st;
        textf(json, sizeof json, "%s/%s/report.json", reports, e->d_name);
        if (!escape_safe_name(e->d_name) || stat(json, &st) != 0 || !feedback_wanted(o, e->d_name))
            continue;   /* .reference, the CSV, the slurm/ files: no student's report */
        int rc = feedback_one(&with, kit, cfg->feedback_max_kib * 1024, e->d_name);
        written += rc == 0;
        missed += rc != 0;
    }
    closedir(d);
    printf("flipgrade: feedback for %d student%s in %s/, at most %ld KiB each, fit to hand back; "
           "the instructor's reports stay in %s/\n", written, written == 1 ? "" : "s", o->feedback,
           cfg->feedback_max_kib, reports);
    return written == 0 ? 2 : missed ? 1 : 0;
}

/* One submission's batch-job limits (grader/slurm.sh): its own wall-clock budget with room for
 * unpacking, the kit's link and the report; memory for one sandboxed process at its address-
 * space limit beside flipgrade itself; one core, which the sandbox pins every program to. */
static int print_job_limits(const GradeConfig *cfg)
{
    long minutes = (long)ceil((1.25 * cfg->submission_seconds + 60.0) / 60.0);
    return printf("minutes=%ld mem_mib=%ld cpus=1\n", minutes, 2 * cfg->memory_mib) < 0;
}

/* The config's total: what a results.json without a report gives 0 of. */
static double config_total(const GradeConfig *cfg)
{
    double total = 0;
    for (int s = 0; s < STAGE_COUNT; s++)
        total += gradeconfig_stage_points(cfg, stage_names[s]);
    for (int i = 0; i < cfg->nscenes; i++)
        total += cfg->nsolvers * gradeconfig_scene_points(cfg, &cfg->scenes[i]);
    return total;
}

/* --gradescope-results OUT REPORT.json: 0 when OUT was written (a grade, or why there is none),
 * 2 when it could not be. */
static int gradescope_results(const Options *o, const GradeConfig *cfg)
{
    GradescopeInput in = { .report = o->args[0], .public_report = o->public_report, .log = o->log,
                           .visibility = cfg->gradescope_hidden, .max_points = config_total(cfg) };
    char err[1024];
    if (gradescope_write_results(o->gradescope, &in, err, sizeof err) != 0) {
        fprintf(stderr, "flipgrade: %s\n", err);
        return 2;
    }
    return 0;
}

/* Each assigned stage's points, a line each in the stage table's order, for the GitHub
 * Classroom workflow that make handout writes (handout/mkdist.sh): one test per stage. A stage
 * of handout.given_stages has no suite in the kit and no points, so no line. */
static int print_stage_points(const GradeConfig *cfg)
{
    for (int s = 0; s < STAGE_COUNT; s++)
        if (!gradeconfig_stage_given(cfg, stage_names[s]) &&
            printf("%s %.15g\n", stage_names[s], gradeconfig_stage_points(cfg, stage_names[s])) < 0)
            return 1;
    return 0;
}

/* --print levels and given-stages: what make handout builds the kit's pages and stages from. */
static int print_levels(const GradeConfig *cfg, bool given_only)
{
    int rc = 0;
    const char *sep = "";
    for (int s = 0; s < STAGE_COUNT; s++) {
        bool given = gradeconfig_stage_given(cfg, stage_names[s]);
        if (!given_only)
            rc |= printf("%s=%s\n", stage_names[s], given ? "given" : gradeconfig_stage_level(cfg, stage_names[s])) < 0;
        else if (given)
            rc |= printf("%s%s", sep, stage_names[s]) < 0, sep = " ";
    }
    if (given_only)
        rc |= printf("\n") < 0;
    return rc;
}

int main(int argc, char **argv)
{
    Options o;
    int rc = parse_options(argc, argv, &o);
    if (rc)
        return rc == 1 ? 0 : rc;
    if (o.csv && !o.class_dir) {
        char err[1024];
        int left_out = 0;
        if (write_csv(&o, o.args, o.nargs, &left_out, err, sizeof err) != 0) {
            fprintf(stderr, "flipgrade: %s\n", err);
            return 2;
        }
        return left_out ? 1 : 0;
    }
    static GradeConfig cfg;
    char err[1024];
    gradeconfig_defaults(&cfg);
    if (gradeconfig_load(o.config, &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "flipgrade: %s\n", err);
        return 2;
    }
    if (o.print && strcmp(o.print, "reference-objects") == 0)
        return printf("%s\n", cfg.reference_objects ? "true" : "false") < 0;
    if (o.print && strcmp(o.print, "given-objects") == 0)
        return printf("%s\n", cfg.given_objects ? "true" : "false") < 0;
    if (o.print && strcmp(o.print, "reference-frames") == 0)
        return printf("%s\n", cfg.reference_frames ? "true" : "false") < 0;
    if (o.print && strcmp(o.print, "level") == 0)
        return printf("%s\n", cfg.level) < 0;
    if (o.print && (strcmp(o.print, "levels") == 0 || strcmp(o.print, "given-stages") == 0))
        return print_levels(&cfg, strcmp(o.print, "given-stages") == 0);
    if (o.print && strcmp(o.print, "job-limits") == 0)
        return print_job_limits(&cfg);
    if (o.print && strcmp(o.print, "github-classroom") == 0)
        return printf("%s\n", cfg.github_classroom ? "true" : "false") < 0;
    if (o.print && strcmp(o.print, "stage-points") == 0)
        return print_stage_points(&cfg);
    if (o.print)
        return print_grading_table(&o, &cfg);
    if (o.class_dir)
        return grade_class(&o, &cfg);
    if (o.feedback)
        return give_feedback(&o, &cfg);
    if (o.gradescope)
        return gradescope_results(&o, &cfg);
    return o.prepare ? prepare(&o, &cfg) : grade(&o, &cfg);
}
