/* scenepart.c — the whole-scene parts: the student's pipeline runs a scene, frame by frame
 * against the reference's frames. flipkit grader/: once with the student's jacobi and once
 * with the given Gauss-Seidel, so a wrong jacobi does not hide whether the rest is right. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grading.h"
#include "metrics.h"
#include "ply.h"
#include "render.h"
#include "sbcalls.h"

typedef struct {
    Grading *gr;
    GradePart *part;
    const GradeScene *sc;
    const char *solver;
    GradeRun run;                /* name, scene file, grid, command line */
    const char *name;            /* run.name: "<scene>.<solver>" */
    MetricGrid grid;
    char dir[GC_PATH + 128];     /* the run's directory */
    Particles s0;                /* frame 0 of the student's run */
    bool have_frames;            /* the data holds the reference's frames, not only their metrics */
    FrameSummary *ref;           /* the reference's side of frames 0..frames, or NULL */
    char missing[GRADE_REASON_MAX]; /* the reference's data could not be read: "" or why */
} SceneRun;

static void run_pipeline(SceneRun *r, const char *binary, SandboxResult *res)
{
    gradeconfig_run_argv(&r->run, r->sc, r->solver, binary, NULL, "frames");
    const char *scene = r->run.path;
    char *env[] = { "PATH=/usr/bin:/bin", "LANG=C", NULL };
    SandboxLimits lim = grading_limits(r->gr, r->gr->cfg->scene_seconds);
    char pipeline[GC_PATH + 16], scenes[sizeof r->run.path];   /* the program and the scene files */
    textf(pipeline, sizeof pipeline, "%s/pipeline", r->gr->work);
    textf(scenes, sizeof scenes, "%s", scene);
    char *slash = strrchr(scenes, '/');
    if (slash)
        *slash = '\0';
    const char *readable[] = { pipeline, scenes, NULL };
    /* what compare_frame and keep_run read; whatever else it wrote goes with its tmpfs */
    const char *keep[] = { "frames/particles", "frames/log.txt", NULL };
    lim.readable = readable;
    lim.keep = keep;
    grading_run(r->gr, r->dir, r->run.argv, env, &lim, res);
}

/* Pictures of the first failing frame: student, reference and their difference. */
static void draw_frame(SceneRun *r, const Particles *s, const Particles *ref)
{
    char dir[GC_PATH + 16], path[GC_PATH + 160], err[256];
    textf(dir, sizeof dir, "%s/images", r->gr->out);
    grading_mkdirs(dir);
    Vec3 box = { r->grid.n[0] * r->grid.dx, r->grid.n[1] * r->grid.dx, r->grid.n[2] * r->grid.dx };
    GradePart *p = r->part;
    textf(p->image_student, sizeof p->image_student, "images/%s-student.png", r->name);
    textf(p->image_reference, sizeof p->image_reference, "images/%s-reference.png", r->name);
    textf(p->image_diff, sizeof p->image_diff, "images/%s-diff.png", r->name);
    textf(path, sizeof path, "%s/%s", r->gr->out, p->image_student);
    int bad = render_particles_png(path, s->pos, s->count, box, 320, err, sizeof err);
    textf(path, sizeof path, "%s/%s", r->gr->out, p->image_reference);
    bad |= render_particles_png(path, ref->pos, ref->count, box, 320, err, sizeof err);
    textf(path, sizeof path, "%s/%s", r->gr->out, p->image_diff);
    bad |= render_diff_png(path, s->pos, s->count, ref->pos, ref->count, box, 320, err, sizeof err);
    if (bad) {
        grading_log(r->gr, p, "could not draw the frame: %s\n", err);
        p->image_student[0] = p->image_reference[0] = p->image_diff[0] = '\0';
    }
}

static void frame_paths(const SceneRun *r, int f, char *spath, char *rpath, size_t n)
{
    textf(spath, n, "%s/frames/particles/%06d.ply", r->dir, f);
    textf(rpath, n, "%s/frames/%s/particles/%06d.ply", r->gr->data, r->name, f);
}

/* The reference's side of every frame: summarised from its frames where the data has them (the
 * instructor's grader), else read from the metrics the student kit ships for the public scenes
 * (data/metrics/<run>.txt, written by make grade-data). Missing data is said once, as the
 * grader's fault, not the student's. */
static bool load_reference(SceneRun *r)
{
    int n = r->sc->frames + 1;
    char probe[GC_PATH + 200], spath[GC_PATH + 200], err[600];
    frame_paths(r, 0, spath, probe, sizeof probe);
    r->have_frames = access(probe, R_OK) == 0;
    r->ref = calloc((size_t)n, sizeof *r->ref);
    int rc = -1;
    if (r->ref && r->have_frames) {
        textf(probe, sizeof probe, "%s/frames/%s/particles", r->gr->data, r->name);
        rc = metrics_summarise_frames(r->gr->cfg, &r->grid, probe, r->ref, n, err, sizeof err);
    }
    else if (r->ref) {
        textf(probe, sizeof probe, "%s/metrics/%s.txt", r->gr->data, r->name);
        rc = metrics_read_summaries(probe, r->gr->cfg, &r->grid, r->ref, n, err, sizeof err);
    }
    if (rc == 0)
        return true;
    grading_log(r->gr, r->part, "the reference: %s (run `make grade-data`)\n", err);
    textf(r->gr->data_missing, sizeof r->gr->data_missing, "%s (run `make grade-data`)", err);
    textf(r->missing, sizeof r->missing, "the reference: %s (run `make grade-data`)", err);
    free(r->ref);
    r->ref = NULL;
    return false;
}

static void free_reference(SceneRun *r)
{
    for (int f = 0; r->ref && f <= r->sc->frames; f++)
        metrics_summary_free(&r->ref[f]);
    free(r->ref);
    r->ref = NULL;
}

/* Pictures of the first failing frame, where the reference's frames are there to draw. */
static void draw_first_fail(SceneRun *r, int f, const Particles *s)
{
    char spath[GC_PATH + 200], rpath[GC_PATH + 200], err[512];
    frame_paths(r, f, spath, rpath, sizeof rpath);
    Particles ref;
    part_init(&ref);
    if (r->have_frames && s->count && ply_read_particles(rpath, &ref, err, sizeof err) == 0 && ref.count)
        draw_frame(r, s, &ref);
    part_free(&ref);
}

/* Frame f against the reference's; returns true when it passes. */
static bool compare_frame(SceneRun *r, int f)
{
    char spath[GC_PATH + 200], rpath[GC_PATH + 200], err[512];
    frame_paths(r, f, spath, rpath, sizeof spath);
    Particles s;
    part_init(&s);
    bool pass = false;
    GradeFrameFail fail = { .frame = f };
    FrameMetrics m;
    if ((!grading_owned_file(r->dir, spath) &&
         textf(err, sizeof err, "not a file the run wrote in its directory") > 0) ||
        ply_read_particles(spath, &s, err, sizeof err) != 0) {
        textf(fail.metric, sizeof fail.metric, "frame written");
        grading_log(r->gr, r->part, "frame %d: not written (%s)\n", f, err);
    } else {
        pass = metrics_compare_summary(r->gr->cfg, &r->grid, (Frame){ &s, &r->s0 }, &r->ref[f], &m, &fail);
        grading_log(r->gr, r->part, "frame %3d: %s  count %ld/%ld  centre %.3f cells  height %.3f cells  "
                    "overlap %.3f  motion %.3f%s%s\n", f, pass ? "pass" : "FAIL", m.count_student,
                    m.count_reference, m.centre_cells, m.height_cells, m.overlap, m.motion,
                    pass ? "" : "  <- ", pass ? "" : fail.metric);
    }
    if (!pass && r->part->first_fail.frame == 0) {
        r->part->first_fail = fail;
        draw_first_fail(r, f, &s);
    }
    part_free(&s);
    return pass;
}

/* Whether this run calls stage s: every run calls the six around the solve; laplacian (the
 * residual) and jacobi only when the student's jacobi solves for pressure. */
static bool run_calls_stage(const GradeRun *run, int s)
{
    bool solve = strcmp(stage_names[s], "jacobi") == 0 || strcmp(stage_names[s], "laplacian") == 0;
    return run->own_jacobi || !solve;
}

/* The first stage, in the order a substep runs them, that this run calls and that lost points
 * on its own cases (its stage part): where the run most likely first went wrong, whichever
 * later stage first wrote a NaN. NULL when no stage part lost points or none was graded. */
static const char *first_wrong_stage(const SceneRun *r)
{
    static const char *const substep[] = { "p2g", "gravity", "divergence", "laplacian", "jacobi",
                                           "gradient", "g2p", "advect" };
    const GradeReport *rep = &r->gr->report;
    for (size_t i = 0; i < sizeof substep / sizeof substep[0]; i++) {
        int s = 0;
        while (s < STAGE_COUNT && strcmp(stage_names[s], substep[i]) != 0)
            s++;
        for (int k = 0; s < STAGE_COUNT && run_calls_stage(&r->run, s) && k < rep->nparts; k++)
            if (!rep->parts[k].is_scene && strcmp(rep->parts[k].name, substep[i]) == 0 &&
                !rep->parts[k].error && rep->parts[k].points < rep->parts[k].max)
                return substep[i];
    }
    return NULL;
}

static void describe(SceneRun *r, const SandboxResult *res)
{
    GradePart *p = r->part;
    char run[300] = "";
    if (res->outcome != SB_OK)
        textf(run, sizeof run, "the run stopped: %s%s; ", res->reason,
                 res->outcome == SB_EXIT && res->exit_status == 3 ? " (a stage produced NaN/Inf)" : "");
    if (p->passed == p->total)
        textf(p->reason, sizeof p->reason, "all %d frames match the reference", p->total);
    else if (strcmp(p->first_fail.metric, "frame written") == 0)
        textf(p->reason, sizeof p->reason, "%s%d of %d frames match; frame %d was not written", run,
              p->passed, p->total, p->first_fail.frame);
    else
        textf(p->reason, sizeof p->reason, "%s%d of %d frames match; frame %d: %s %.3g (limit %.3g)",
                 run, p->passed, p->total, p->first_fail.frame, p->first_fail.metric,
                 p->first_fail.got, p->first_fail.limit);
    const char *wrong = p->passed < p->total ? first_wrong_stage(r) : NULL;
    if (wrong)
        grading_log(r->gr, p, "the first stage of the substep that fails its own cases: %s (see its "
                    "part); a stage the run's log says wrote NaN or Inf may only be where it showed\n",
                    wrong);
}

/* Copies src to dst when src is a file the run wrote in dir; true when it was copied. */
static bool copy_owned(const char *dir, const char *src, const char *dst)
{
    if (!grading_owned_file(dir, src))
        return false;
    FILE *in = fopen(src, "rb"), *out = in ? fopen(dst, "wb") : NULL;
    char buf[1 << 16];
    size_t n;
    bool ok = in && out;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = fwrite(buf, 1, n, out) == n;
    ok = ok && !ferror(in);
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        ok = false;
    return ok;
}

/* A text file the run wrote, kept for a person: escaped, at most GRADING_KEPT_MAX bytes of it
 * (the run's log.txt: the student's code may have written anything into it). */
static void keep_escaped(const char *dir, const char *src, const char *dst)
{
    if (!grading_owned_file(dir, src))
        return;
    FILE *in = fopen(src, "rb");
    char *text = malloc(GRADING_KEPT_MAX + 1);   /* escaping never shrinks: this is enough */
    size_t n = in && text ? fread(text, 1, GRADING_KEPT_MAX + 1, in) : 0;
    long size = in && fseek(in, 0, SEEK_END) == 0 ? ftell(in) : -1;
    if (in)
        fclose(in);
    if (text && size >= 0) {
        /* what lies past the bytes read counts as not shown: pad the count, not the text */
        size_t shown = n > GRADING_KEPT_MAX ? GRADING_KEPT_MAX : n;
        grading_write_escaped(dst, text, shown, (size_t)size > shown ? (size_t)size - shown : 0);
    }
    free(text);
}

/* The run's scene.json, for the viewer: the grader's own copy of the scene it asked the run
 * to use (the run reported its hash in its settings), never the file the run wrote. */
static void keep_scene(SceneRun *r, const char *dst)
{
    char err[512];
    char *json = gradeconfig_run_json(&r->run, r->sc, r->solver, err, sizeof err);
    FILE *f = json ? fopen(dst, "w") : NULL;
    if (f) {
        fprintf(f, "%s\n", json);
        fclose(f);
    }
    free(json);
}

/* The `make view` line for a kept run: beside the reference's frames where the data has them;
 * else (the student kit, which ships only their metrics) beside the same scene run with the
 * given Gauss-Seidel in place of the student's jacobi, which make run writes first. */
static void view_line(SceneRun *r, const char *kept)
{
    GradePart *p = r->part;
    if (r->have_frames)
        textf(p->view, sizeof p->view, "make view RUN=%s VS=%s/frames/%s", kept, r->gr->data, r->name);
    else if (strcmp(r->solver, "jacobi") == 0)
        textf(p->view, sizeof p->view, "make run SCENE=%s/scene.json ARGS='--set use_gauss_seidel=true "
              "--out %s.gauss_seidel' && make view RUN=%s VS=%s.gauss_seidel", kept, kept, kept, kept);
    else
        textf(p->view, sizeof p->view, "make view RUN=%s", kept);
}

/* The first failing scene's run is kept in the report directory as run-<name>/ (its particle
 * frames, log.txt and scene.json: the work directory goes when grading ends), and the part
 * names the `make view` that shows it beside the reference's frames. Only the first: a class's
 * reports should not each hold every scene twice over. */
static void keep_run(SceneRun *r)
{
    const GradeReport *rep = &r->gr->report;
    for (int i = 0; i < rep->nparts; i++)
        if (rep->parts[i].view[0])
            return;
    char from[GC_PATH + 200], to[GC_PATH + 200], src[GC_PATH + 520], dst[GC_PATH + 520];
    textf(from, sizeof from, "%s/frames", r->dir);
    textf(to, sizeof to, "%s/run-%s/particles", r->gr->out, r->name);
    DIR *d = opendir(from);
    if (!d)
        return;
    closedir(d);
    textf(src, sizeof src, "%s/particles", from);
    if (grading_mkdirs(to) != 0 || !(d = opendir(src)))
        return;
    int copied = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len != 10 || strcmp(e->d_name + 6, ".ply") != 0 || strspn(e->d_name, "0123456789") != 6)
            continue;
        textf(src, sizeof src, "%s/particles/%s", from, e->d_name);
        textf(dst, sizeof dst, "%s/%s", to, e->d_name);
        copied += copy_owned(r->dir, src, dst);
    }
    closedir(d);
    to[strlen(to) - strlen("/particles")] = '\0';
    textf(src, sizeof src, "%s/log.txt", from);
    textf(dst, sizeof dst, "%s/log.txt", to);
    keep_escaped(r->dir, src, dst);
    textf(dst, sizeof dst, "%s/scene.json", to);
    keep_scene(r, dst);
    if (copied)
        view_line(r, to);
}

/* A run whose frames do not count at all, with the reason set: one that did not run what the
 * grader asked for (a constructor that rewrote argv, or a run that never got to report), or
 * one that called the given solver where its own jacobi is graded (so the run is not the
 * student's, whatever frames it wrote before). */
static bool run_refused(SceneRun *r, const SandboxResult *res)
{
    GradePart *p = r->part;
    bool changed = res->settings[0] && strcmp(res->settings, r->run.settings) != 0;
    if (changed || (!res->settings[0] && res->outcome == SB_OK)) {
        textf(p->reason, sizeof p->reason, "%s", res->settings[0]
              ? "the run changed its own settings: it did not run what the grader asked for"
              : "the run did not report its settings (the grader cannot tell what it ran)");
        grading_log(r->gr, p, "%s\nreported: %s\nasked:    %s\n", p->reason,
                    res->settings[0] ? res->settings : "(nothing)", r->run.settings);
        return true;
    }
    if (res->outcome == SB_GUARD && strcmp(res->guard, SBCALL_GIVEN_SOLVER_REASON) == 0) {
        textf(p->reason, sizeof p->reason, "%s: no frame of the run counts", res->guard);
        grading_log(r->gr, p, "%s\n", p->reason);
        return true;
    }
    return false;
}

/* A runner of the student's whole pipeline, linked when a run first needs it. Two: with the
 * given solver (the gauss_seidel runs) and without it (the runs that grade the student's
 * jacobi, where a stage could otherwise hand the solve to given_solve_sor). */
typedef struct {
    const char *file;             /* under the work directory's pipeline/ */
    const char *trap;             /* BUILD_SOLVER_TRAP, or NULL: the given solver linked in */
    char binary[GC_PATH + 32];
    int state;                    /* 0 not linked yet, 1 linked, -1 did not link, -2 the
                                   * grader could not run the linker (build_link) */
    char why[400];
} SceneRunner;

/* The runner's path, or NULL with why set when it does not link. */
static const char *runner_for(Grading *gr, SceneRunner *rn, const char **why)
{
    if (rn->state == 0) {
        char dir[GC_PATH + 16];
        textf(dir, sizeof dir, "%s/pipeline", gr->work);
        textf(rn->binary, sizeof rn->binary, "%s/%s", dir, rn->file);
        grading_mkdirs(dir);
        bool all[STAGE_COUNT];
        for (int s = 0; s < STAGE_COUNT; s++)
            all[s] = true;
        int rc = build_link(gr, dir, "scenerun.o", rn->trap, all, rn->binary, rn->why, sizeof rn->why);
        rn->state = rc == 0 ? 1 : rc;
    }
    *why = rn->why;
    return rn->state == 1 ? rn->binary : NULL;
}

/* A stage the grader could not compile: the run would have its stub in its place, and score
 * what the stub earns as if the student had written it. "" when every compile ran. */
static const char *unbuilt_stage(const Grading *gr)
{
    for (int s = 0; s < STAGE_COUNT; s++)
        if (gr->build_error[s])
            return gr->build_reason[s];
    return "";
}

/* A stage this run calls whose file was not built (it does not compile, is missing or was
 * refused): the run would grade the kit's stub in its place, so it scores 0 and says why.
 * True when it did. */
static bool refuse_stub_run(Grading *gr, const GradeRun *run, GradePart *part)
{
    for (int s = 0; s < STAGE_COUNT; s++)
        if (!gr->compiled[s] && !gr->build_error[s] && !gr->given[s] && run_calls_stage(run, s)) {
            textf(part->reason, sizeof part->reason, "not run: it calls %s, whose file was not "
                  "built (see the %s part); the kit's stub in its place would earn points for code "
                  "the student did not write", stage_names[s], stage_names[s]);
            grading_log(gr, part, "%s\n", part->reason);
            return true;
        }
    return false;
}

static void grade_run(Grading *gr, const GradeScene *sc, const char *solver, SceneRunner *given,
                      SceneRunner *own)
{
    SceneRun r = { .gr = gr, .sc = sc, .solver = solver };
    char err[1024], why[GRADE_REASON_MAX];
    if (gradeconfig_run(gr->kit, sc, solver, &r.run, err, sizeof err) != 0) {
        GradePart *p = grading_add_part(gr, sc->scene, true, gradeconfig_scene_points(gr->cfg, sc));
        textf(p->reason, sizeof p->reason, "grader/config: %s", err);
        return;
    }
    r.name = r.run.name;
    r.grid = (MetricGrid){ { r.run.n[0], r.run.n[1], r.run.n[2] }, r.run.dx };
    r.part = grading_add_part(gr, r.name, true, gradeconfig_scene_points(gr->cfg, sc));
    r.part->total = sc->frames;
    if (!grading_time_left(gr, why, sizeof why)) {
        textf(r.part->reason, sizeof r.part->reason, "%s", why);
        return;
    }
    if (unbuilt_stage(gr)[0]) {
        grading_mark_error(gr, r.part, unbuilt_stage(gr));
        return;
    }
    if (refuse_stub_run(gr, &r.run, r.part))
        return;
    const char *link_error = NULL;
    SceneRunner *runner = r.run.own_jacobi ? own : given;
    const char *binary = runner_for(gr, runner, &link_error);
    if (!binary && runner->state == -2) {
        textf(why, sizeof why, "linking the scene's runner, twice: %s", link_error);
        grading_mark_error(gr, r.part, why);
        return;
    }
    if (!binary) {
        textf(r.part->reason, sizeof r.part->reason, "the stages do not link together: %s", link_error);
        grading_log(gr, r.part, "%s\n", r.part->reason);
        return;
    }
    textf(r.dir, sizeof r.dir, "%s/scene/%s", gr->work, r.name);
    grading_mkdirs(r.dir);
    SandboxResult res;
    run_pipeline(&r, binary, &res);
    if (res.outcome != SB_OK)
        grading_log(gr, r.part, "the run: %s\n", res.reason);
    if (res.output)
        grading_log_output(gr, r.part, res.output, res.output_len);
    if (grading_failed_itself(&res)) {
        textf(why, sizeof why, "the run, twice: %s", res.reason);
        grading_mark_error(gr, r.part, why);
        grading_drop_run(gr, r.dir, res.kept_kib);
        sandbox_result_free(&res);
        return;
    }
    if (run_refused(&r, &res)) {
        grading_drop_run(gr, r.dir, res.kept_kib);
        sandbox_result_free(&res);
        return;
    }
    char spath[GC_PATH + 200], rpath[GC_PATH + 200];
    frame_paths(&r, 0, spath, rpath, sizeof spath);
    part_init(&r.s0);
    if (!grading_owned_file(r.dir, spath) || ply_read_particles(spath, &r.s0, err, sizeof err) != 0)
        grading_log(gr, r.part, "frame 0: %s\n", err);
    if (load_reference(&r))
        for (int f = 1; f <= sc->frames; f++)
            r.part->passed += compare_frame(&r, f);
    free_reference(&r);
    part_free(&r.s0);
    r.part->points = r.part->max * r.part->passed / r.part->total;
    if (r.part->passed < r.part->total)
        keep_run(&r);
    describe(&r, &res);
    if (r.missing[0])
        grading_mark_error(gr, r.part, r.missing);
    grading_drop_run(gr, r.dir, res.kept_kib);   /* compared, and kept_run has what it needs */
    sandbox_result_free(&res);
    /* logs only for failures, or for what the run printed */
    if (r.part->passed == r.part->total && r.part->detail_log[0] && !r.part->log_printed) {
        char log[GC_PATH + GRADE_PATH_MAX];
        textf(log, sizeof log, "%s/%s", gr->out, r.part->detail_log);
        remove(log);
        r.part->detail_log[0] = '\0';
    }
}

void grade_scenes(Grading *gr)
{
    SceneRunner given = { .file = "flipsim", .trap = NULL };
    SceneRunner own = { .file = "flipsim-own-jacobi", .trap = BUILD_SOLVER_TRAP };
    for (int i = 0; i < gr->cfg->nscenes; i++)
        for (int v = 0; v < gr->cfg->nsolvers; v++)
            grade_run(gr, &gr->cfg->scenes[i], gr->cfg->solvers[v], &given, &own);
}
