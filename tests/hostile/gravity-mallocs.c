/* A hostile gravity for the grader's check: it allocates memory until it dies (touching one
 * byte per MiB, so it dies of the address-space limit quickly, not of page faults). The
 * pointer escapes through a volatile, or the compiler would drop the allocation. */
#include <stdlib.h>

#include "stages.h"

static char *volatile sink;

void gravity(MacGrid *g, Vec3 gravity_ms2, float dt)
{
    (void)g, (void)gravity_ms2, (void)dt;
    for (;;) {
        char *p = malloc(1 << 20);
        p[0] = 1;
        sink = p;
    }
}
