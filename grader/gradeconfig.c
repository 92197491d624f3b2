/* gradeconfig.c — reading grader/config (libconfig), strictly, over the defaults.
 * flipkit grader/: one table names every key, its type, its default and its bounds, so the
 * loader, the unknown-key check and --help cannot disagree. */
#include "gradeconfig.h"
#include "runsettings.h"

#include <libconfig.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "scene.h"
#include "sim.h"
#include "stagetable.h"
#include "track.h"

typedef enum { K_NUM, K_INT, K_BOOL, K_STRS, K_NUMS, K_SOLVERS, K_SCENES, K_STAGE_POINTS, K_VISIBILITY,
               K_PPC, K_LEVEL, K_STAGE_LEVELS, K_STAGE_NAMES } KeyType;

typedef struct {
    const char *group, *name;
    KeyType type;
    size_t offset;              /* into GradeConfig */
    double min, max;            /* bounds of numbers (and of list lengths) */
    const char *help;
} Key;

#define OFF(f) offsetof(GradeConfig, f)
static const Key keys[] = {
    { "stages", "points", K_NUM, OFF(stage_points), 0, 1e6, "points per stage" },
    { "stages", "points_by_stage", K_STAGE_POINTS, OFF(stage_points_by), 0, 1e6,
      "{ p2g = 15.0; ... }: these stages' own points instead of stages.points" },
    { "stages", "cases", K_STRS, OFF(cases), 1, GC_MAX_CASES, "hidden case scenes (grader/cases/*.json)" },
    { "stages", "public_cases", K_STRS, OFF(public_cases), 1, GC_MAX_CASES, "self-check case scenes (tests/golden/*.json)" },
    { "scenes", "points", K_NUM, OFF(scene_points), 0, 1e6, "points per scene and solver" },
    { "scenes", "solvers", K_SOLVERS, OFF(solvers), 0, GC_MAX_SOLVERS, "\"jacobi\" and/or \"gauss_seidel\"" },
    { "scenes", "list", K_SCENES, OFF(scenes), 0, GC_MAX_SCENES, "({scene; frames; set; points}, ...): points per solver's run, else scenes.points" },
    { "metrics", "count", K_BOOL, OFF(metric_count), 0, 1, "same particle count as the reference" },
    { "metrics", "centre_cells", K_NUM, OFF(centre_cells), 0, 1e6, "centre of mass within this many cells" },
    { "metrics", "height_quantiles", K_NUMS, OFF(quantiles), 0, 1, "quantiles of particle height compared" },
    { "metrics", "height_cells", K_NUM, OFF(height_cells), 0, 1e6, "each within this many cells" },
    { "metrics", "overlap", K_NUM, OFF(overlap), 0, 1, "occupied cells: |S and R| / |S or R| at least" },
    { "metrics", "motion", K_NUM, OFF(motion), 1, 1e6, "mean displacement since frame 0 within this ratio" },
    { "limits", "compile_seconds", K_NUM, OFF(compile_seconds), 1, 3600, "CPU time per process of a compile or link" },
    { "limits", "case_seconds", K_NUM, OFF(case_seconds), 0.5, 3600, "CPU time per stage case" },
    { "limits", "scene_seconds", K_NUM, OFF(scene_seconds), 1, 36000, "CPU time per whole-scene run" },
    { "limits", "wall_factor", K_NUM, OFF(wall_factor), 1, 1000,
      "wall-clock backstop per run: this many times its CPU limit" },
    { "limits", "memory_mib", K_INT, OFF(memory_mib), 64, 1 << 20, "address space per process, MiB" },
    { "limits", "file_mib", K_INT, OFF(file_mib), 1, 1 << 20, "largest file written, MiB" },
    { "limits", "output_kib", K_INT, OFF(output_kib), 1, 1 << 20, "printed output kept per process, KiB" },
    { "limits", "processes", K_INT, OFF(processes), 1, 1 << 16, "RLIMIT_NPROC" },
    { "limits", "disk_mib", K_INT, OFF(disk_mib), 1, 1 << 20, "files a run may leave in its directory, MiB" },
    { "limits", "submission_disk_mib", K_INT, OFF(submission_disk_mib), 1, 1 << 20,
      "what one submission's builds and runs may keep in the work directory at once, MiB" },
    { "limits", "submission_seconds", K_NUM, OFF(submission_seconds), 1, 360000,
      "wall clock for all of one submission's builds and runs" },
    { "handout", "given_objects", K_BOOL, OFF(given_objects), 0, 1,
      "make handout ships common/given_sor.c compiled (lib/given_sor.o), not its source" },
    { "handout", "reference_objects", K_BOOL, OFF(reference_objects), 0, 1,
      "make handout ships compiled reference stages (--use-reference)" },
    { "handout", "reference_frames", K_BOOL, OFF(reference_frames), 0, 1,
      "make handout ships the reference's particle frames of the graded scenes (make view beside them)" },
    { "handout", "github_classroom", K_BOOL, OFF(github_classroom), 0, 1,
      "make handout ships GitHub Classroom's workflow: make test-<stage> worth its points" },
    { "handout", "level", K_LEVEL, OFF(level), 0, 0,
      "\"guided\", \"standard\" or \"open\": how much the handout gives (handout/README.md)" },
    { "handout", "level_by_stage", K_STAGE_LEVELS, OFF(level_by), 0, 0,
      "{ p2g = \"standard\"; ... }: these stages' own level instead of handout.level" },
    { "handout", "given_stages", K_STAGE_NAMES, OFF(given_stages), 0, 7,
      "[ \"advect\", ... ]: stages shipped compiled from the reference, not assigned or graded" },
    { "feedback", "max_kib", K_INT, OFF(feedback_max_kib), 64, 1 << 20,
      "make feedback: at most this many KiB per student (logs cut, pictures dropped to fit)" },
    { "gradescope", "hidden_visibility", K_VISIBILITY, OFF(gradescope_hidden), 0, 0,
      "make gradescope: when students see the hidden cases' and scenes' tests: \"after_published\", \"after_due_date\" or \"hidden\"" },
    { "variants", "enabled", K_BOOL, OFF(variants_on), 0, 1,
      "draw each student's hidden cases and scenes from the seed and their name" },
    { "variants", "seed", K_INT, OFF(variant_seed), 0, 2147483647, "the class's seed of every draw" },
    { "variants", "count", K_INT, OFF(variant_count), 1, 1000000,
      "variants drawn; a student gets hash(seed, name) mod count" },
    { "variants", "grow_cells", K_INT, OFF(variant_grow_cells), 0, 8,
      "each grid axis grows by 0 to this many cells" },
    { "variants", "tilt_degrees", K_NUM, OFF(variant_tilt_degrees), 0, 30,
      "gravity turned by up to this many degrees, its length kept" },
    { "variants", "case_particles_per_cell", K_PPC, OFF(case_ppc), 1, 4,
      "the hidden cases' particles_per_cell, drawn from these (1, 8, 27, 64)" },
    { "variants", "scene_particles_per_cell", K_PPC, OFF(scene_ppc), 1, 4,
      "the scenes' particles_per_cell, drawn from these (1, 8, 27, 64)" },
    { "variants", "keep_frames", K_BOOL, OFF(variant_keep_frames), 0, 1,
      "keep each variant's reference frames (report pictures), not only their metrics" },
    { "similarity", "threshold", K_NUM, OFF(similarity_threshold), 0, 1,
      "make class-report: list pairs of stage files sharing at least this fraction of their own tokens" },
    { "similarity", "min_tokens", K_INT, OFF(similarity_min_tokens), 0, 1 << 20,
      "make class-report: compare only stage files with at least this many tokens of their own" },
};
#undef OFF
enum { NKEYS = sizeof keys / sizeof keys[0] };

void gradeconfig_defaults(GradeConfig *c)
{
    memset(c, 0, sizeof *c);
    c->stage_points = 10.0;
    /* No hidden cases by default: grader/config names them, and the students' copy of the
     * grader (make handout) has none to name. */
    c->ncases = 0;
    static const char *const pub[] = { "tests/golden/full_9x6x5.json", "tests/golden/pocket_7x5x6.json",
                                       "tests/golden/shelf_8x7x5.json", "tests/golden/sparse_6x8x7.json" };
    for (c->npublic = 0; c->npublic < 4; c->npublic++)
        snprintf(c->public_cases[c->npublic], GC_PATH, "%s", pub[c->npublic]);
    c->scene_points = 5.0;
    c->feedback_max_kib = 1024;
    snprintf(c->gradescope_hidden, sizeof c->gradescope_hidden, "after_published");
    c->variant_seed = 1;
    c->variant_count = 16;
    c->variant_grow_cells = 2;
    c->variant_tilt_degrees = 10.0;
    c->ncase_ppc = 2, c->case_ppc[0] = 8, c->case_ppc[1] = 27;
    c->nscene_ppc = 1, c->scene_ppc[0] = 8;
    c->variant_keep_frames = true;
    snprintf(c->level, sizeof c->level, "guided");
    c->similarity_threshold = 0.6;
    c->similarity_min_tokens = 40;
    c->nsolvers = 2;
    snprintf(c->solvers[0], sizeof c->solvers[0], "jacobi");
    snprintf(c->solvers[1], sizeof c->solvers[1], "gauss_seidel");
    c->nscenes = 1;
    snprintf(c->scenes[0].scene, GC_PATH, "scenes/ball_drop.json");
    c->scenes[0].frames = 20;
    c->scenes[0].points = -1;   /* scenes.points */
    c->scenes[0].nset = 2;
    snprintf(c->scenes[0].set[0], 256, "pressure.solver=\"jacobi\"");
    snprintf(c->scenes[0].set[1], 256, "pressure.iterations=200");
    c->metric_count = true;
    c->centre_cells = 0.1;
    c->height_cells = 0.25;
    c->overlap = 0.9;
    c->motion = 1.1;
    c->nquantiles = 3;
    c->quantiles[0] = 0.1, c->quantiles[1] = 0.5, c->quantiles[2] = 0.9;
    c->compile_seconds = 30.0;
    c->case_seconds = 10.0;
    c->scene_seconds = 30.0;
    c->wall_factor = 10.0;
    c->memory_mib = 1024;
    c->file_mib = 64;
    c->output_kib = 64;
    c->processes = 64;
    c->disk_mib = 256;
    c->submission_disk_mib = 512;
    c->submission_seconds = 300.0;
}

/* ---- loading ---------------------------------------------------------------------------------- */

typedef struct {
    const char *path;
    char *err;
    size_t errlen;
    int failed;
} Ctx;

static int fail(Ctx *x, const config_setting_t *s, const char *fmt, ...)
{
    if (x->failed++)
        return -1;
    int n = snprintf(x->err, x->errlen, "%s:%d: ", x->path, s ? config_setting_source_line(s) : 0);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < x->errlen)
        vsnprintf(x->err + n, x->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static int is_number(const config_setting_t *s)
{
    int t = config_setting_type(s);
    return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64 || t == CONFIG_TYPE_FLOAT;
}

static double number_of(const config_setting_t *s)
{
    int t = config_setting_type(s);
    return t == CONFIG_TYPE_FLOAT ? config_setting_get_float(s)
           : t == CONFIG_TYPE_INT64 ? (double)config_setting_get_int64(s)
                                    : (double)config_setting_get_int(s);
}

static int read_number(Ctx *x, const Key *k, const config_setting_t *s, double *out)
{
    if (!is_number(s))
        return fail(x, s, "%s.%s: expected a number (%s)", k->group, k->name, k->help);
    double v = number_of(s);
    if (v < k->min || v > k->max)
        return fail(x, s, "%s.%s: %g is out of range [%g, %g]", k->group, k->name, v, k->min, k->max);
    if (k->type == K_INT && v != (double)(long)v)
        return fail(x, s, "%s.%s: expected an integer, not %g", k->group, k->name, v);
    *out = v;
    return 0;
}

/* An array or list of n within the key's bounds; returns n or -1. */
static int read_length(Ctx *x, const Key *k, const config_setting_t *s)
{
    if (!config_setting_is_aggregate(s) || config_setting_is_group(s))
        return fail(x, s, "%s.%s: expected a [list] (%s)", k->group, k->name, k->help);
    int n = config_setting_length(s);
    if (n < k->min || n > k->max)
        return fail(x, s, "%s.%s: has %d entries, expected %g to %g", k->group, k->name, n, k->min,
                    k->max);
    return n;
}

static int read_strings(Ctx *x, const Key *k, const config_setting_t *s, char (*dst)[GC_PATH], int *count)
{
    int n = read_length(x, k, s);
    for (int i = 0; i < n; i++) {
        const char *v = config_setting_get_string_elem(s, i);
        if (!v || strlen(v) >= GC_PATH)
            return fail(x, s, "%s.%s[%d]: expected a path (a string)", k->group, k->name, i);
        snprintf(dst[i], GC_PATH, "%s", v);
    }
    if (n >= 0)
        *count = n;
    return n < 0 ? -1 : 0;
}

static int read_solvers(Ctx *x, const Key *k, const config_setting_t *s, GradeConfig *c)
{
    int n = read_length(x, k, s);
    for (int i = 0; i < n; i++) {
        const char *v = config_setting_get_string_elem(s, i);
        if (!v || (strcmp(v, "jacobi") != 0 && strcmp(v, "gauss_seidel") != 0))
            return fail(x, s, "scenes.solvers[%d]: expected \"jacobi\" or \"gauss_seidel\"", i);
        snprintf(c->solvers[i], sizeof c->solvers[i], "%s", v);
    }
    if (n >= 0)
        c->nsolvers = n;
    return n < 0 ? -1 : 0;
}

/* particles_per_cell choices: n^3 for n = 1 to 4, as the scene loader takes them. */
static int read_ppc(Ctx *x, const Key *k, const config_setting_t *s, GradeConfig *c)
{
    int n = read_length(x, k, s);
    int *dst = (int *)((char *)c + k->offset);
    for (int i = 0; i < n; i++) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        double v = e && is_number(e) ? number_of(e) : 0;
        if (v != 1 && v != 8 && v != 27 && v != 64)
            return fail(x, s, "%s.%s[%d]: expected 1, 8, 27 or 64", k->group, k->name, i);
        dst[i] = (int)v;
    }
    if (n >= 0)
        *(dst == c->case_ppc ? &c->ncase_ppc : &c->nscene_ppc) = n;
    return n < 0 ? -1 : 0;
}

static int read_scene(Ctx *x, const config_setting_t *e, int i, GradeScene *sc)
{
    if (!config_setting_is_group(e))
        return fail(x, e, "scenes.list[%d]: expected a group { scene = ...; frames = ...; }", i);
    memset(sc, 0, sizeof *sc);
    sc->frames = 20;
    sc->points = -1;
    for (int m = 0; m < config_setting_length(e); m++) {
        const config_setting_t *s = config_setting_get_elem(e, (unsigned)m);
        const char *name = config_setting_name(s);
        if (strcmp(name, "scene") == 0) {
            const char *v = config_setting_get_string(s);
            if (!v || strlen(v) >= GC_PATH)
                return fail(x, s, "scenes.list[%d].scene: expected a path (a string)", i);
            snprintf(sc->scene, GC_PATH, "%s", v);
        } else if (strcmp(name, "frames") == 0) {
            if (config_setting_type(s) != CONFIG_TYPE_INT || config_setting_get_int(s) < 1 ||
                config_setting_get_int(s) > 10000)
                return fail(x, s, "scenes.list[%d].frames: expected an integer 1 to 10000", i);
            sc->frames = config_setting_get_int(s);
        } else if (strcmp(name, "set") == 0) {
            int n = config_setting_is_array(s) || config_setting_is_list(s) ? config_setting_length(s) : -1;
            if (n < 0 || n > GC_MAX_SET)
                return fail(x, s, "scenes.list[%d].set: expected up to %d strings \"KEY=JSON\"", i, GC_MAX_SET);
            for (int j = 0; j < n; j++) {
                const char *v = config_setting_get_string_elem(s, j);
                if (!v || !strchr(v, '=') || strlen(v) >= 256)
                    return fail(x, s, "scenes.list[%d].set[%d]: expected \"KEY=JSON\"", i, j);
                snprintf(sc->set[j], 256, "%s", v);
            }
            sc->nset = n;
        } else if (strcmp(name, "points") == 0) {
            int t = config_setting_type(s);
            double v = t == CONFIG_TYPE_FLOAT ? config_setting_get_float(s)
                     : t == CONFIG_TYPE_INT ? config_setting_get_int(s) : -1;
            if (v < 0 || v > 1e6)
                return fail(x, s, "scenes.list[%d].points: expected a number from 0 to 1e6", i);
            sc->points = v;
        } else {
            return fail(x, s, "scenes.list[%d]: unknown key \"%s\" (scene, frames, set, points)", i, name);
        }
    }
    if (!sc->scene[0])
        return fail(x, e, "scenes.list[%d]: \"scene\" is required", i);
    return 0;
}

static int read_scenes(Ctx *x, const Key *k, const config_setting_t *s, GradeConfig *c)
{
    int n = read_length(x, k, s);
    for (int i = 0; i < n; i++)
        if (read_scene(x, config_setting_get_elem(s, (unsigned)i), i, &c->scenes[i]) != 0)
            return -1;
    if (n >= 0)
        c->nscenes = n;
    return n < 0 ? -1 : 0;
}

/* stages.points_by_stage = { p2g = 15.0; gravity = 5.0; }: each name a stage of the table. */
static int read_stage_points(Ctx *x, const Key *k, const config_setting_t *s, GradeConfig *c)
{
    if (!config_setting_is_group(s))
        return fail(x, s, "stages.points_by_stage: expected a group { p2g = 15.0; ... }");
    int n = config_setting_length(s);
    for (int i = 0; i < n && i < 16; i++) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        const char *name = config_setting_name(e);
        int t = config_setting_type(e);
        double v = t == CONFIG_TYPE_FLOAT ? config_setting_get_float(e)
                 : t == CONFIG_TYPE_INT ? config_setting_get_int(e) : -1;
        if (!stage_find(name) || strlen(name) >= sizeof c->stage_points_by[0].stage)
            return fail(x, e, "stages.points_by_stage: \"%s\" is not a stage (expected advect, "
                        "gravity, p2g, g2p, divergence, laplacian, jacobi or gradient)", name);
        if (v < k->min || v > k->max)
            return fail(x, e, "stages.points_by_stage.%s: expected a number from %g to %g", name,
                        k->min, k->max);
        snprintf(c->stage_points_by[i].stage, sizeof c->stage_points_by[i].stage, "%s", name);
        c->stage_points_by[i].points = v;
        c->nstage_points = i + 1;
    }
    return 0;
}

/* gradescope.hidden_visibility: one of Gradescope's visibilities that keep a test from the
 * students until later or for good; "visible" would show the hidden cases' reasons (their
 * grids, fields and first differing places) on every resubmission. */
static int read_visibility(Ctx *x, const Key *k, const config_setting_t *s, char *field)
{
    static const char *const ok[] = { "after_published", "after_due_date", "hidden" };
    const char *v = config_setting_type(s) == CONFIG_TYPE_STRING ? config_setting_get_string(s) : NULL;
    for (size_t i = 0; v && i < sizeof ok / sizeof ok[0]; i++)
        if (strcmp(v, ok[i]) == 0) {
            snprintf(field, sizeof ((GradeConfig *)0)->gradescope_hidden, "%s", v);
            return 0;
        }
    return fail(x, s, "%s.%s: expected \"after_published\", \"after_due_date\" or \"hidden\"%s%s%s",
                k->group, k->name, v ? ", not \"" : " (a string)", v ? v : "", v ? "\"" : "");
}

/* The levels a handout can be made at (handout/level.awk knows the same three). */
static int is_level(const char *v)
{
    return v && (strcmp(v, "guided") == 0 || strcmp(v, "standard") == 0 || strcmp(v, "open") == 0);
}

static int read_level(Ctx *x, const config_setting_t *s, const char *key, char *dst, size_t n)
{
    const char *v = config_setting_get_string(s);
    if (!is_level(v))
        return fail(x, s, "%s: expected \"guided\", \"standard\" or \"open\"", key);
    snprintf(dst, n, "%s", v);
    return 0;
}

static const char stage_word_list[] = "advect, gravity, p2g, g2p, divergence, laplacian, jacobi or gradient";

/* handout.level_by_stage = { p2g = "standard"; g2p = "standard"; }: each name a stage. */
static int read_stage_levels(Ctx *x, const config_setting_t *s, GradeConfig *c)
{
    if (!config_setting_is_group(s))
        return fail(x, s, "handout.level_by_stage: expected a group { p2g = \"standard\"; ... }");
    int n = config_setting_length(s);
    for (int i = 0; i < n && i < 16; i++) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        const char *name = config_setting_name(e);
        if (!stage_find(name) || strlen(name) >= sizeof c->level_by[0].stage)
            return fail(x, e, "handout.level_by_stage: \"%s\" is not a stage (expected %s)", name,
                        stage_word_list);
        char key[64];
        snprintf(key, sizeof key, "handout.level_by_stage.%s", name);
        if (read_level(x, e, key, c->level_by[i].level, sizeof c->level_by[i].level) != 0)
            return -1;
        snprintf(c->level_by[i].stage, sizeof c->level_by[i].stage, "%s", name);
        c->nlevel_by = i + 1;
    }
    return 0;
}

/* handout.given_stages = [ "advect", "gravity" ]: stages, each once, at least one left to assign. */
static int read_given_stages(Ctx *x, const Key *k, const config_setting_t *s, GradeConfig *c)
{
    int n = read_length(x, k, s);
    for (int i = 0; i < n; i++) {
        const char *v = config_setting_get_string_elem(s, i);
        if (!v || !stage_find(v) || strlen(v) >= sizeof c->given_stages[0])
            return fail(x, s, "handout.given_stages[%d]: expected a stage name (%s)", i, stage_word_list);
        for (int j = 0; j < i; j++)
            if (strcmp(c->given_stages[j], v) == 0)
                return fail(x, s, "handout.given_stages[%d]: \"%s\" is named twice", i, v);
        snprintf(c->given_stages[i], sizeof c->given_stages[i], "%s", v);
    }
    if (n >= 0)
        c->ngiven = n;
    return n < 0 ? -1 : 0;
}

const char *gradeconfig_stage_level(const GradeConfig *c, const char *stage)
{
    for (int i = 0; i < c->nlevel_by; i++)
        if (strcmp(c->level_by[i].stage, stage) == 0)
            return c->level_by[i].level;
    return c->level;
}

bool gradeconfig_stage_given(const GradeConfig *c, const char *stage)
{
    for (int i = 0; i < c->ngiven; i++)
        if (strcmp(c->given_stages[i], stage) == 0)
            return true;
    return false;
}

double gradeconfig_stage_points(const GradeConfig *c, const char *stage)
{
    for (int i = 0; i < c->nstage_points; i++)
        if (strcmp(c->stage_points_by[i].stage, stage) == 0)
            return c->stage_points_by[i].points;
    return c->stage_points;
}

double gradeconfig_scene_points(const GradeConfig *c, const GradeScene *sc)
{
    return sc->points >= 0 ? sc->points : c->scene_points;
}

static int read_key(Ctx *x, const Key *k, const config_setting_t *s, GradeConfig *c)
{
    char *field = (char *)c + k->offset;
    double v = 0;
    switch (k->type) {
    case K_NUM:
        return read_number(x, k, s, &v) ? -1 : (*(double *)field = v, 0);
    case K_INT:
        return read_number(x, k, s, &v) ? -1 : (*(long *)field = (long)v, 0);
    case K_BOOL:
        if (config_setting_type(s) != CONFIG_TYPE_BOOL)
            return fail(x, s, "%s.%s: expected true or false", k->group, k->name);
        *(bool *)field = config_setting_get_bool(s);
        return 0;
    case K_STRS:
        return read_strings(x, k, s, (char (*)[GC_PATH])field,
                            field == (char *)c->cases ? &c->ncases : &c->npublic);
    case K_NUMS: {
        Key lengths = *k;   /* min and max bound the quantiles; the list holds 1 to 8 */
        lengths.min = 1, lengths.max = GC_MAX_QUANTILES;
        int n = read_length(x, &lengths, s);
        for (int i = 0; i < n; i++) {
            const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
            if (read_number(x, k, e, &c->quantiles[i]) != 0)
                return -1;
        }
        if (n >= 0)
            c->nquantiles = n;
        return n < 0 ? -1 : 0;
    }
    case K_SOLVERS:
        return read_solvers(x, k, s, c);
    case K_SCENES:
        return read_scenes(x, k, s, c);
    case K_STAGE_POINTS:
        return read_stage_points(x, k, s, c);
    case K_VISIBILITY:
        return read_visibility(x, k, s, (char *)field);
    case K_PPC:
        return read_ppc(x, k, s, c);
    case K_LEVEL:
        return read_level(x, s, "handout.level", c->level, sizeof c->level);
    case K_STAGE_LEVELS:
        return read_stage_levels(x, s, c);
    case K_STAGE_NAMES:
        return read_given_stages(x, k, s, c);
    }
    return -1;
}

static const Key *find_key(const char *group, const char *name)
{
    for (int i = 0; i < NKEYS; i++)
        if (strcmp(keys[i].group, group) == 0 && strcmp(keys[i].name, name) == 0)
            return &keys[i];
    return NULL;
}

static int read_group(Ctx *x, const config_setting_t *g, GradeConfig *c)
{
    const char *group = config_setting_name(g);
    int known = 0;
    for (int i = 0; i < NKEYS; i++)
        known |= strcmp(keys[i].group, group) == 0;
    if (!known || !config_setting_is_group(g))
        return fail(x, g, "unknown key \"%s\" (expected the groups stages, scenes, metrics, limits, handout, feedback, gradescope, variants, similarity)",
                    group);
    for (int m = 0; m < config_setting_length(g); m++) {
        const config_setting_t *s = config_setting_get_elem(g, (unsigned)m);
        const Key *k = find_key(group, config_setting_name(s));
        if (!k)
            return fail(x, s, "%s: unknown key \"%s\"", group, config_setting_name(s));
        if (read_key(x, k, s, c) != 0)
            return -1;
    }
    return 0;
}

/* GitHub Classroom's command grader reads a test's max-score as a whole number (parseInt), so
 * with handout.github_classroom on, a stage worth 2.5 would show as 2 there: refused here, at
 * the line that turned the workflow on. */
static void check_classroom_points(Ctx *x, const config_t *cfg, const GradeConfig *c)
{
    if (!c->github_classroom || x->failed)
        return;
    for (int s = 0; s < STAGE_COUNT; s++) {
        double p = gradeconfig_stage_points(c, stage_names[s]);
        if (p != (double)(long)p) {
            fail(x, config_lookup(cfg, "handout.github_classroom"),
                 "handout.github_classroom: stage %s is worth %g points, and GitHub Classroom's "
                 "autograding gives whole points only (expected whole stages.points and "
                 "stages.points_by_stage)", stage_names[s], p);
            return;
        }
    }
}

int gradeconfig_load(const char *path, GradeConfig *c, char *err, size_t errlen)
{
    config_t cfg;
    config_init(&cfg);
    Ctx x = { path, err, errlen, 0 };
    if (config_read_file(&cfg, path) != CONFIG_TRUE) {
        if (config_error_type(&cfg) == CONFIG_ERR_FILE_IO)
            snprintf(err, errlen, "%s: cannot read the grader's config", path);
        else
            snprintf(err, errlen, "%s:%d: %s", path, config_error_line(&cfg), config_error_text(&cfg));
        config_destroy(&cfg);
        return -1;
    }
    const config_setting_t *root = config_root_setting(&cfg);
    for (int i = 0; i < config_setting_length(root) && !x.failed; i++)
        read_group(&x, config_setting_get_elem(root, (unsigned)i), c);
    check_classroom_points(&x, &cfg, c);
    config_destroy(&cfg);
    return x.failed ? -1 : 0;
}

void gradeconfig_print_defaults(FILE *f)
{
    GradeConfig d;
    gradeconfig_defaults(&d);
    fprintf(f, "grader/config keys (libconfig syntax; default in brackets):\n");
    for (int i = 0; i < NKEYS; i++) {
        const Key *k = &keys[i];
        char def[160] = "";
        const char *field = (const char *)&d + k->offset;
        if (k->type == K_NUM)
            snprintf(def, sizeof def, "%g", *(const double *)field);
        else if (k->type == K_INT)
            snprintf(def, sizeof def, "%ld", *(const long *)field);
        else if (k->type == K_BOOL)
            snprintf(def, sizeof def, "%s", *(const bool *)field ? "true" : "false");
        else if (k->type == K_STRS)
            snprintf(def, sizeof def, "%d scenes", field == (const char *)d.cases ? d.ncases : d.npublic);
        else if (k->type == K_NUMS)
            snprintf(def, sizeof def, "%g, %g, %g", d.quantiles[0], d.quantiles[1], d.quantiles[2]);
        else if (k->type == K_SOLVERS)
            snprintf(def, sizeof def, "jacobi, gauss_seidel");
        else if (k->type == K_STAGE_POINTS)
            snprintf(def, sizeof def, "none: every stage stages.points");
        else if (k->type == K_VISIBILITY)
            snprintf(def, sizeof def, "%s", d.gradescope_hidden);
        else if (k->type == K_PPC)
            snprintf(def, sizeof def, "%s", field == (const char *)d.case_ppc ? "8, 27" : "8");
        else if (k->type == K_LEVEL)
            snprintf(def, sizeof def, "%s", d.level);
        else if (k->type == K_STAGE_LEVELS)
            snprintf(def, sizeof def, "none: every stage handout.level");
        else if (k->type == K_STAGE_NAMES)
            snprintf(def, sizeof def, "none: all eight assigned");
        else
            snprintf(def, sizeof def, "ball_drop, 20 frames");
        fprintf(f, "  %s.%-18s %-44s [%s]\n", k->group, k->name, k->help, def);
    }
}

/* ---- a graded run ------------------------------------------------------------------------- */

/* Grading compares particle frames; the surface, USD stage and previews a scene may turn on
 * would only cost time and disk in every run. And every graded run takes the teaching stepping:
 * the reference's production stepping (a scene's production group) is not what the student's
 * track runs, and the recorded frames, cases and calibration were made without it. */
static const char *const gc_outputs_off[] = { "output.surface=false", "output.usd=false",
                                              "output.preview=false", "production.integrator=none" };
#define GC_NOUTPUTS_OFF (sizeof gc_outputs_off / sizeof gc_outputs_off[0])

/* Which solver the student's pipeline runs: the student track adds no solvers of its own
 * (assignment/track.c), so the sim's own rule decides. A "jacobi" run exists to grade the
 * student's jacobi; a set that hands its solve to the given solver would grade that instead. */
static int gc_check_own_jacobi(GradeRun *run, const Scene *s, const char *solver, char *err,
                               size_t errlen)
{
    static const Track student_like = { .name = "student", .solvers = NULL };
    run->own_jacobi = !sim_runs_given_solver(s, &student_like);
    if (strcmp(solver, "jacobi") == 0 && !run->own_jacobi) {
        snprintf(err, errlen, "%s: pressure.solver=\"%s\" runs the given solver, in a run that "
                 "grades the student's jacobi", run->name, s->pressure.solver);
        return -1;
    }
    return 0;
}

/* The scene a run resolves: the file under the overrides in gradeconfig_run_argv's order, so
 * that its settings line is the one the run reports. */
static int gc_load_run_scene(const char *path, const GradeScene *sc, const char *solver, Scene *s,
                             char *err, size_t errlen)
{
    const char *over[GC_MAX_SET + GC_NOUTPUTS_OFF + 1];
    int nover = 0;
    for (size_t i = 0; i < GC_NOUTPUTS_OFF; i++)
        over[nover++] = gc_outputs_off[i];
    for (int i = 0; i < sc->nset; i++)
        over[nover++] = sc->set[i];
    over[nover++] = strcmp(solver, "gauss_seidel") == 0 ? "use_gauss_seidel=true" : "use_gauss_seidel=false";
    return scene_load(path, over, nover, s, err, errlen);
}

char *gradeconfig_run_json(const GradeRun *run, const GradeScene *sc, const char *solver, char *err,
                           size_t errlen)
{
    Scene s;
    if (gc_load_run_scene(run->path, sc, solver, &s, err, errlen) != 0)
        return NULL;
    char *json = s.json ? strdup(s.json) : NULL;
    if (!json)
        snprintf(err, errlen, "%s: out of memory", run->path);
    scene_free(&s);
    return json;
}

int gradeconfig_run(const char *kit, const GradeScene *sc, const char *solver, GradeRun *run,
                    char *err, size_t errlen)
{
    memset(run, 0, sizeof *run);
    snprintf(run->path, sizeof run->path, "%s/%s", kit, sc->scene);
    snprintf(run->frames, sizeof run->frames, "%d", sc->frames);
    Scene s;
    if (gc_load_run_scene(run->path, sc, solver, &s, err, errlen) != 0)
        return -1;
    runsettings_format(&s, sc->frames, run->settings, sizeof run->settings);
    snprintf(run->name, sizeof run->name, "%.120s.%s", s.name, solver);
    if (gc_check_own_jacobi(run, &s, solver, err, errlen) != 0) {
        scene_free(&s);
        return -1;
    }
    for (int a = 0; a < 3; a++)
        run->n[a] = s.resolution[a];
    run->dx = s.cell_size;
    scene_free(&s);
    return 0;
}

void gradeconfig_run_argv(GradeRun *run, const GradeScene *sc, const char *solver,
                          const char *program, const char *const *pre, const char *out)
{
    char **argv = run->argv;
    int n = 0;
    argv[n++] = (char *)program;
    for (; pre && *pre; pre++)
        argv[n++] = (char *)*pre;
    const char *fixed[] = { "--quiet", "--frames", run->frames, "--out", out };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        argv[n++] = (char *)fixed[i];
    for (size_t i = 0; i < GC_NOUTPUTS_OFF; i++) {
        argv[n++] = "--set";
        argv[n++] = (char *)gc_outputs_off[i];
    }
    for (int i = 0; i < sc->nset; i++) {
        argv[n++] = "--set";
        argv[n++] = (char *)sc->set[i];
    }
    argv[n++] = "--set";
    argv[n++] = strcmp(solver, "gauss_seidel") == 0 ? "use_gauss_seidel=true" : "use_gauss_seidel=false";
    argv[n++] = run->path;
    argv[n] = NULL;
}
