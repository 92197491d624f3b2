/* intake.h — taking the eight stage files out of a submission, and nothing else.
 * flipkit grader/: a submission is a directory or a .tar.gz/.tgz/.tar/.zip archive (read with
 * libarchive) holding assignment/<stage>.c; everything else in it is ignored. */
#ifndef FLIPKIT_INTAKE_H
#define FLIPKIT_INTAKE_H

#include <stdbool.h>
#include <stddef.h>

#include "track.h"

/* Every byte of a submission is the student's, headers and names included: these bound what
 * one submission can make the grader read, whatever its headers or st_size say. */
enum {
    INTAKE_MAX_BYTES = 1 << 20,      /* a stage file larger than this is refused */
    INTAKE_MAX_ENTRIES = 10000,      /* archive entries, or directory entries, looked at */
    INTAKE_MAX_DEPTH = 6,            /* directories below the submission's own that are walked */
    INTAKE_MAX_TOTAL_MIB = 256,      /* an archive's bytes decompressed (gzip and zip bombs) */
    INTAKE_FROM_MAX = 256,           /* from[s]: an escaped path, cut with "..." */
    INTAKE_LINE_MAX = 400,           /* refused[s] and note: one line each */
};

typedef struct {
    bool found[STAGE_COUNT];                     /* in stage_names order */
    char from[STAGE_COUNT][INTAKE_FROM_MAX];     /* its path in the submission (escape_text) */
    /* Why the file that would be taken for the stage was not: "assignment/p2g.c: refused:
     * larger than 1 MiB"; "" when none was or it was taken. */
    char refused[STAGE_COUNT][INTAKE_LINE_MAX];
    char note[INTAKE_LINE_MAX];      /* why the intake stopped before the end (a cap), or "" */
} IntakeResult;

/* Writes dst/<stage>.c for every stage found. A stage file is a regular file named <stage>.c;
 * when several are, the one under a directory named assignment/ is the one, then the shortest
 * path, and when that one cannot be taken (not a regular file, larger than INTAKE_MAX_BYTES,
 * an archive header that lies about its size) the stage is not found and refused[s] says why.
 * Names in res are escaped (escape.h): a name may hold newlines and control bytes. Returns 0
 * (res filled, perhaps with a note), or -1 with one line in err: the submission cannot be
 * read at all (no such file, not a directory or archive, a broken archive). */
int intake_submission(const char *submission, const char *dst, IntakeResult *res, char *err, size_t errlen);

/* The student's name: the submission's last path component without .tar.gz/.tgz/.tar/.zip. */
void intake_name(const char *submission, char *name, size_t n);

#endif
