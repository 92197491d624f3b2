/* A hostile gravity for the grader's check: it allocates (and touches) memory until it dies. */
#include <stdlib.h>
#include <string.h>

#include "stages.h"

void gravity(MacGrid *g, Vec3 gravity_ms2, float dt)
{
    (void)g, (void)gravity_ms2, (void)dt;
    for (;;) {
        char *p = malloc(1 << 20);
        memset(p, 1, 1 << 20);
    }
}
