/* A hostile advect for the grader's check: it never returns. */
#include "stages.h"

void advect(Particles *ps, float dt)
{
    volatile size_t spin = 0;
    for (;;)
        spin += ps->count + (size_t)dt;
}
