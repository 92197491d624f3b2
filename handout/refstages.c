/* refstages.c — the reference's eight stages as a track, for a student kit that ships them compiled.
 * flipkit handout/: make handout compiles it with reference/<stage>.c into lib/reference_stages.a
 * when grader/config has handout.reference_objects = true; this source never ships. */
#include "reference.h"

/* No solvers beyond the given ones: the reference's advanced solvers are not part of the deal. */
/* One slot per line of stagelist.h: a stage added there and not here fails to compile. */
#define REF_SLOT(number, stage) .stage = ref_##stage,
const Track reference_stages_track = {
    .name = "reference",
    STAGE_LIST(REF_SLOT)
    .solvers = NULL,
};
#undef REF_SLOT
