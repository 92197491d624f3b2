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
} GradeScene;

typedef struct {
    double stage_points;
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

    double compile_seconds, case_seconds, scene_seconds;
    long memory_mib, file_mib, output_kib, processes;
} GradeConfig;

void gradeconfig_defaults(GradeConfig *c);
/* Loads path over the defaults. Returns 0, or -1 with one line in err ("FILE:LINE: ..."). */
int gradeconfig_load(const char *path, GradeConfig *c, char *err, size_t errlen);
/* The keys with their defaults, for --help. */
void gradeconfig_print_defaults(FILE *f);

#endif
