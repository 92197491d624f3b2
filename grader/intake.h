/* intake.h — taking the eight stage files out of a submission, and nothing else.
 * flipkit grader/: a submission is a directory or a .tar.gz/.tgz/.tar/.zip archive (read with
 * libarchive) holding assignment/<stage>.c; everything else in it is ignored. */
#ifndef FLIPKIT_INTAKE_H
#define FLIPKIT_INTAKE_H

#include <stdbool.h>
#include <stddef.h>

#include "track.h"

enum { INTAKE_MAX_BYTES = 1 << 20 };   /* a stage file larger than this is not taken */

/* Writes dst/<stage>.c for every stage found. A stage file is a regular file named <stage>.c;
 * when several are, the one under a directory named assignment/ wins, then the shortest path.
 * found[s] tells which stages were there (in stage_names order) and from[s] their paths inside
 * the submission. Returns 0, or -1 with one line in err (cannot read, not an archive). */
int intake_submission(const char *submission, const char *dst, bool found[STAGE_COUNT],
                      char from[STAGE_COUNT][256], char *err, size_t errlen);

/* The student's name: the submission's last path component without .tar.gz/.tgz/.tar/.zip. */
void intake_name(const char *submission, char *name, size_t n);

#endif
