/* stagecase.h — one stage run on one golden case, and its output checked against the reference's.
 * flipkit tests/: the stage suites' golden tests and the grader share it (no Check here), so
 * `make test` and the grade report apply the same tolerances and say the same words. The case
 * format is golden.h's; the grader runs stagecase_run in a sandbox and stagecase_check outside. */
#ifndef FLIPKIT_STAGECASE_H
#define FLIPKIT_STAGECASE_H

#include <stddef.h>

#include "state.h"
#include "track.h"

/* The grid of a case: dims, dx and the classified cells from "dims", "dx", "cell"; every field
 * zero. Returns 0, or -1 with one line in err. */
int stagecase_grid(const StateFile *sf, MacGrid *g, char *err, size_t errlen);

/* Runs `stage` of track t on the case's inputs (its parameters and "in.*" sections) and adds
 * what the stage wrote to out as the sections the reference's output has ("out.u", "out.div",
 * ...). Outputs are pre-filled with 123 or 999, so an entry the stage forgets shows. Returns 0,
 * or -1 with one line in err (unknown stage, a section missing, out of memory). */
int stagecase_run(const Track *t, const char *stage, const StateFile *in, StateFile *out,
                  char *err, size_t errlen);

/* Compares the "out.*" sections of got with those of the case (its inputs set the tolerances).
 * Returns the number of differing entries, 0 when all pass; on a difference msg receives the
 * text of the first field that differs (stage, field, place, expected, got). A section missing
 * from got counts as a difference and says so. name is the case's name, for the text. */
size_t stagecase_check(const char *stage, const char *name, const StateFile *expected,
                       const StateFile *got, char *msg, size_t msglen);

/* The "out.*" sections of a stage's output, NULL-terminated; NULL for an unknown stage. */
const char *const *stagecase_outputs(const char *stage);

#endif
