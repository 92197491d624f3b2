/* refstages.c — the reference's eight stages as a track, for a student kit that ships them compiled.
 * flipkit handout/: make handout compiles it with reference/<stage>.c into lib/reference_stages.a
 * when grader/config has handout.reference_objects = true; this source never ships. */
#include "reference.h"

/* No solvers beyond the given ones: the reference's advanced solvers are not part of the deal. */
const Track reference_stages_track = {
    .name = "reference",
    .advect = ref_advect,
    .gravity = ref_gravity,
    .p2g = ref_p2g,
    .g2p = ref_g2p,
    .divergence = ref_divergence,
    .laplacian = ref_laplacian,
    .jacobi = ref_jacobi,
    .gradient = ref_gradient,
    .solvers = NULL,
};
