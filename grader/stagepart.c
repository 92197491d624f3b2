/* stagepart.c — the stage-isolated parts: each student stage alone on cases it has not seen.
 * flipkit grader/: a case is the reference's input and output of one stage (golden.h format);
 * the student's stage runs in the sandbox on the input only and the grader checks the output
 * with the stage suites' tolerances (tests/lib/stagecase.c), so one wrong stage costs only itself. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grading.h"
#include "stagecase.h"

enum { MAX_CASES = 64 };

static int cmp_names(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* The case files of a stage, sorted by name; returns how many. */
static int list_cases(const Grading *gr, const char *stage, char names[MAX_CASES][128])
{
    char dir[GC_PATH + 64];
    textf(dir, sizeof dir, "%s/%s/%s", gr->data, gr->public_cases ? "public" : "hidden", stage);
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) && n < MAX_CASES) {
        size_t len = strlen(e->d_name);
        if (len > 6 && len < 128 && strcmp(e->d_name + len - 6, ".state") == 0)
            textf(names[n++], 128, "%.*s", (int)(len - 6), e->d_name);
    }
    if (d)
        closedir(d);
    qsort(names, (size_t)n, 128, cmp_names);
    return n;
}

/* The case without the reference's answers, so a stage cannot read them. */
static int write_inputs(const StateFile *c, const char *path, char *err, size_t n)
{
    StateFile in;
    state_init(&in);
    for (size_t i = 0; i < c->nsections; i++) {
        const StateSection *s = &c->sections[i];
        if (strncmp(s->tag, "out.", 4) != 0)
            state_add(&in, s->tag, s->type, s->data, s->count);
    }
    int rc = state_write(&in, path, err, n);
    state_free(&in);
    return rc;
}

/* The first output section holding NaN or Inf, as "field at entry i", or "" when none. */
static void find_nonfinite(const StateFile *out, char *where, size_t n)
{
    where[0] = '\0';
    for (size_t i = 0; i < out->nsections; i++) {
        const StateSection *s = &out->sections[i];
        const float *v = s->data;
        for (uint64_t k = 0; s->type == STATE_F32 && k < s->count; k++)
            if (!isfinite(v[k])) {
                textf(where, n, "%s (entry %llu is %g)", s->tag + 4, (unsigned long long)k, (double)v[k]);
                return;
            }
    }
}

/* One line from a fielddiff text: its first line and the first place it lists. */
static void one_line(const char *msg, char *line, size_t n)
{
    size_t head = strcspn(msg, "\n");
    const char *place = msg[head] ? msg + head + 1 : "";
    while (*place == ' ')
        place++;
    size_t plen = strcspn(place, "\n");
    textf(line, n, "%.*s%s%.*s", (int)head, msg, plen ? " " : "", (int)plen, place);
}

typedef struct {
    Grading *gr;
    GradePart *part;
    const char *stage;
    char runner[GC_PATH + 64];
    char first[GRADE_REASON_MAX];    /* the first failure, one line */
    char last[GRADE_REASON_MAX];     /* the last case's failure, one line */
    bool timed_out;
    char error[GRADE_REASON_MAX];    /* the grader's own failure on some case, or "" */
} StageRun;

static void stage_fail(StageRun *st, int i, const char *name, const char *what, const char *log,
                       const SandboxResult *res)
{
    if (!st->first[0])
        textf(st->first, sizeof st->first, "%s on case %d (%s)", what, i, name);
    textf(st->last, sizeof st->last, "%s", what);
    grading_log(st->gr, st->part, "---- case %d (%s): %s\n%s\n", i, name, what, log ? log : "");
    if (res && res->output)
        grading_log_output(st->gr, st->part, res->output, res->output_len);
}

/* A case that passed but printed: the log shows what, so nothing a stage prints goes unseen
 * (and none of it unescaped). */
static void stage_printed(StageRun *st, int i, const char *name, const SandboxResult *res)
{
    if (!res->output || res->output_len == 0)
        return;
    grading_log(st->gr, st->part, "---- case %d (%s): passed\n", i, name);
    grading_log_output(st->gr, st->part, res->output, res->output_len);
}

/* Keeps case i's outcome in the part, for report.json's "cases" (the class report's). */
static void stage_note_case(StageRun *st, const char *name, bool passed)
{
    GradePart *p = st->part;
    if (p->ncases >= GRADE_MAX_CASES)
        return;
    GradeCase *c = &p->cases[p->ncases++];
    textf(c->name, sizeof c->name, "%s", name);
    c->passed = passed;
    textf(c->reason, sizeof c->reason, "%s", passed ? "" : st->last);
}

/* Runs case i; returns true when it passes. */
static bool run_case(StageRun *st, int i, const char *name)
{
    char casefile[GC_PATH + 256], dir[GC_PATH + 128], err[1024], what[GRADE_REASON_MAX];
    textf(casefile, sizeof casefile, "%s/%s/%s/%s.state", st->gr->data,
             st->gr->public_cases ? "public" : "hidden", st->stage, name);
    textf(dir, sizeof dir, "%s/run/%s/case%d", st->gr->work, st->stage, i);
    grading_mkdirs(dir);
    StateFile want, got;
    state_init(&want);
    state_init(&got);
    char inpath[GC_PATH + 160], outpath[GC_PATH + 160];
    textf(inpath, sizeof inpath, "%s/in.state", dir);
    textf(outpath, sizeof outpath, "%s/out.state", dir);
    bool pass = false;
    if (state_read(&want, casefile, err, sizeof err) != 0 || write_inputs(&want, inpath, err, sizeof err) != 0) {
        stage_fail(st, i, name, "the grader could not prepare the case", err, NULL);
        textf(st->error, sizeof st->error, "case %d (%s): could not prepare it: %s", i, name, err);
        goto done;
    }
    if (!grading_time_left(st->gr, what, sizeof what)) {
        stage_fail(st, i, name, what, NULL, NULL);
        st->timed_out = true;
        goto done;
    }
    char *argv[] = { st->runner, (char *)st->stage, "in.state", "out.state", NULL };
    char settings[256];
    textf(settings, sizeof settings, "stage=%s in=in.state out=out.state", st->stage);
    char *env[] = { "PATH=/usr/bin:/bin", "LANG=C", NULL };
    SandboxLimits lim = grading_limits(st->gr, st->gr->cfg->case_seconds);
    char runner_dir[GC_PATH + 64];   /* the runner and the cases' inputs; no answers there */
    textf(runner_dir, sizeof runner_dir, "%s/run/%s", st->gr->work, st->stage);
    const char *readable[] = { runner_dir, NULL };
    const char *keep[] = { "out.state", NULL };   /* whatever else it wrote goes with its tmpfs */
    lim.readable = readable;
    lim.keep = keep;
    SandboxResult res;
    grading_run(st->gr, dir, argv, env, &lim, &res);
    if (res.settings[0] && strcmp(res.settings, settings) != 0) {
        textf(what, sizeof what, "%s: the run changed its own settings (%s, not %s)", st->stage,
              res.settings, settings);
        stage_fail(st, i, name, what, NULL, &res);
    } else if (res.outcome != SB_OK) {
        textf(what, sizeof what, "%s: %s", st->stage, res.reason);
        stage_fail(st, i, name, what, NULL, &res);
        if (grading_failed_itself(&res))
            textf(st->error, sizeof st->error, "case %d (%s), twice: %s", i, name, res.reason);
        st->timed_out = res.outcome == SB_TIMEOUT || res.outcome == SB_CPU;
    } else if (!grading_owned_file(dir, outpath)) {
        textf(what, sizeof what, "%s: its output out.state is not a file it wrote (a link or a FIFO?)",
              st->stage);
        stage_fail(st, i, name, what, NULL, &res);
    } else if (state_read(&got, outpath, err, sizeof err) != 0) {
        textf(what, sizeof what, "%s: wrote no output the grader can read", st->stage);
        stage_fail(st, i, name, what, err, &res);
    } else {
        char where[200];
        static char msg[9216];
        find_nonfinite(&got, where, sizeof where);
        if (where[0]) {
            textf(what, sizeof what, "%s: produced NaN/Inf in %s", st->stage, where);
            stage_fail(st, i, name, what, NULL, &res);
        } else if (stagecase_check(st->stage, name, &want, &got, msg, sizeof msg) != 0) {
            one_line(msg, what, sizeof what);
            stage_fail(st, i, name, what, msg, &res);
        } else {
            pass = true;
            stage_printed(st, i, name, &res);
        }
    }
    grading_drop_run(st->gr, dir, res.kept_kib);   /* read: its bytes go back to the budget */
    sandbox_result_free(&res);
done:
    state_free(&want);
    state_free(&got);
    return pass;
}

static void grade_stage(Grading *gr, int s)
{
    const char *stage = stage_names[s];
    GradePart *part = grading_add_part(gr, stage, false, gradeconfig_stage_points(gr->cfg, stage));
    char names[MAX_CASES][128];
    part->total = list_cases(gr, stage, names);
    if (part->total == 0) {
        char why[GRADE_REASON_MAX];
        textf(why, sizeof why, "no cases in %s (run `make grade-data`)", gr->data);
        textf(gr->data_missing, sizeof gr->data_missing, "%s", why);
        grading_mark_error(gr, part, why);
        return;
    }
    if (gr->build_error[s]) {
        grading_mark_error(gr, part, gr->build_reason[s]);
        return;
    }
    if (!gr->compiled[s]) {
        textf(part->reason, sizeof part->reason, "%s: %s", stage, gr->build_reason[s]);
        grading_log(gr, part, "%s\n", part->reason);
        if (gr->compile_output[s])
            grading_log_output(gr, part, gr->compile_output[s], gr->compile_output_len[s]);
        return;
    }
    StageRun st = { .gr = gr, .part = part, .stage = stage };
    char dir[GC_PATH + 64], why[400];
    textf(dir, sizeof dir, "%s/run/%s", gr->work, stage);
    textf(st.runner, sizeof st.runner, "%s/stagerun", dir);
    grading_mkdirs(dir);
    bool only[STAGE_COUNT] = { false };
    only[s] = true;
    /* no stage's case is a pressure solve: the given solver is trapped here too, so a stage
     * that calls it is told so rather than failing its cases unexplained */
    int linked = build_link(gr, dir, "stagerun.o", BUILD_SOLVER_TRAP, only, st.runner, why, sizeof why);
    if (linked == -2) {
        char what[GRADE_REASON_MAX];
        textf(what, sizeof what, "linking the stage's runner, twice: %s", why);
        grading_mark_error(gr, part, what);
        return;
    }
    if (linked != 0) {
        textf(part->reason, sizeof part->reason, "%s: does not link: %s", stage, why);
        grading_log(gr, part, "%s\n", part->reason);
        return;
    }
    for (int i = 0; i < part->total; i++) {
        if (st.timed_out) {
            grading_log(gr, part, "---- case %d (%s): not run, the stage ran out of time before\n",
                        i + 1, names[i]);
            continue;
        }
        st.last[0] = '\0';
        bool pass = run_case(&st, i + 1, names[i]);
        part->passed += pass;
        stage_note_case(&st, names[i], pass);
    }
    part->points = part->max * part->passed / part->total;
    if (st.error[0])
        grading_mark_error(gr, part, st.error);
    else if (part->passed == part->total)
        textf(part->reason, sizeof part->reason, "all %d cases pass", part->total);
    else
        textf(part->reason, sizeof part->reason, "%d of %d cases pass; %s", part->passed,
                 part->total, st.first);
}

void grade_stages(Grading *gr)
{
    for (int s = 0; s < STAGE_COUNT; s++)
        if (!gr->given[s])   /* shipped compiled from the reference: no part, no points */
            grade_stage(gr, s);
}
