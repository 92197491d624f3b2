/* gradeconfig.h — grader/config: what the grader grades, how strictly, within which limits.
 * flipkit grader/: read with libconfig, strictly (an unknown key or a wrong type is an error
 * naming the file and line); every key has a default, which `flipgrade --help` lists. */
#ifndef FLIPKIT_GRADECONFIG_H
#define FLIPKIT_GRADECONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum { GC_MAX_CASES = 32, GC_MAX_SCENES = 8, GC_MAX_SET = 16, GC_MAX_SOLVERS = 2,
       GC_MAX_QUANTILES = 8, GC_PATH = 512 };

typedef struct {
    char scene[GC_PATH];
    int frames;
    int nset;
    char set[GC_MAX_SET][256];      /* flipsim --set KEY=JSON overrides */
    double points;                  /* per solver's run of it; < 0: scenes.points */
} GradeScene;

typedef struct {
    double stage_points;
    int nstage_points;                        /* stages.points_by_stage: these stages' own */
    struct { char stage[16]; double points; } stage_points_by[16];
    int ncases, npublic;
    char cases[GC_MAX_CASES][GC_PATH];        /* hidden case scenes */
    char public_cases[GC_MAX_CASES][GC_PATH]; /* the self-check's case scenes */

    double scene_points;
    int nsolvers, nscenes;
    char solvers[GC_MAX_SOLVERS][16];         /* "jacobi" and/or "gauss_seidel" */
    GradeScene scenes[GC_MAX_SCENES];

    bool metric_count;
    double centre_cells, height_cells, overlap, motion;
    int nquantiles;
    double quantiles[GC_MAX_QUANTILES];

    double compile_seconds, case_seconds, scene_seconds;   /* CPU time of one run */
    double wall_factor;       /* a run's wall clock backstop: this times its CPU limit */
    long memory_mib, file_mib, output_kib, processes, disk_mib, submission_disk_mib;
    double submission_seconds;

    bool reference_objects;   /* make handout: ship the reference stages as objects */
    bool given_objects;       /* make handout: ship the given SOR solve compiled, not as source */
    bool reference_frames;    /* make handout: ship the reference's frames of the public scenes */
    bool github_classroom;    /* make handout: ship GitHub Classroom's autograding workflow */
    /* Assignment levels (issue 39): how much the handout gives a student. "guided" is today's
     * kit; "standard" drops the stencil helpers, the numbers of the analytic cases and the
     * "Stuck?" sections; "open" leaves only the conventions and each stage's inputs/outputs. */
    char level[16];                           /* handout.level: every stage's, unless ... */
    int nlevel_by;                            /* ... handout.level_by_stage names its own */
    struct { char stage[16]; char level[16]; } level_by[16];
    int ngiven;                               /* handout.given_stages: shipped compiled from the */
    char given_stages[16][16];                /* reference, not assigned, not graded */
    long feedback_max_kib;    /* make feedback: what one student's copy may hold */
    char gradescope_hidden[16];   /* results.json's visibility of the tests that carry the points
                                   * (hidden cases, whole scenes): "after_published",
                                   * "after_due_date" or "hidden" */

    /* per-student variants (variant.h): off by default; on, each student's hidden cases and
     * graded scenes are drawn from (variants.seed, the student's name) */
    bool variants_on;
    long variant_seed, variant_count, variant_grow_cells;
    double variant_tilt_degrees;
    int ncase_ppc, nscene_ppc;
    int case_ppc[4], scene_ppc[4];  /* particles_per_cell drawn from: 1, 8, 27 or 64 */
    bool variant_keep_frames;        /* keep each variant's reference frames (pictures, make view) */

    double similarity_threshold;  /* make class-report: pairs of stage files at least this similar */
    long similarity_min_tokens;   /* make class-report: files with fewer own tokens not compared */
} GradeConfig;

/* One graded run of a scene with a solver, as the student's pipeline, the reference's data
 * (--prepare) and the calibration all run it: one definition, so they cannot drift apart. */
typedef struct {
    char name[160];          /* "<scene name>.<solver>", e.g. "ball_drop.jacobi" */
    char path[GC_PATH * 2];  /* the scene file: <kit>/<scene> */
    int n[3];                /* grid cells along x, y, z */
    float dx;                /* cell size, m */
    char frames[16];         /* the frame count, as text for --frames */
    char settings[256];      /* what the run must report (runsettings.h) */
    bool own_jacobi;         /* the student's jacobi solves for pressure, not the given solver:
                              * the run is linked without the given solver (solvertrap.c) */
    char *argv[24 + 2 * GC_MAX_SET];   /* see gradeconfig_run_argv */
} GradeRun;

/* Loads sc under kit with its overrides and fills run (not argv). Returns 0, or -1 with
 * one line in err. */
int gradeconfig_run(const char *kit, const GradeScene *sc, const char *solver, GradeRun *run,
                    char *err, size_t errlen);
/* The effective scene of a run that gradeconfig_run filled, as the run's scene.json holds
 * it (scene->json): a new string to free, or NULL with one line in err. The grader keeps
 * this copy, not the run's file, which the student's code could have written. */
char *gradeconfig_run_json(const GradeRun *run, const GradeScene *sc, const char *solver, char *err,
                           size_t errlen);
/* run->argv: program, the NULL-terminated words of pre (e.g. "--device", "cpu"), --quiet
 * --frames N --out OUT, the output.surface/usd/preview=false overrides (grading reads only
 * particles), the scene's --set overrides, use_gauss_seidel for the solver, then
 * the scene file. It points into run, sc, pre and out, which must outlive it. */
void gradeconfig_run_argv(GradeRun *run, const GradeScene *sc, const char *solver,
                          const char *program, const char *const *pre, const char *out);

/* A stage's points: its stages.points_by_stage entry, else stages.points. */
double gradeconfig_stage_points(const GradeConfig *c, const char *stage);
/* A stage's level: its handout.level_by_stage entry, else handout.level. */
const char *gradeconfig_stage_level(const GradeConfig *c, const char *stage);
/* Whether handout.given_stages names stage (it ships compiled and is not graded). */
bool gradeconfig_stage_given(const GradeConfig *c, const char *stage);
/* A scene run's points: its scenes.list entry's points, else scenes.points. */
double gradeconfig_scene_points(const GradeConfig *c, const GradeScene *sc);

void gradeconfig_defaults(GradeConfig *c);
/* Loads path over the defaults. Returns 0, or -1 with one line in err ("FILE:LINE: ..."). */
int gradeconfig_load(const char *path, GradeConfig *c, char *err, size_t errlen);
/* The keys with their defaults, for --help. */
void gradeconfig_print_defaults(FILE *f);

#endif
