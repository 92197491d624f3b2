/* A hostile p2g for the grader's check: it writes through a null pointer. */
#include "stages.h"

void p2g(const Particles *ps, MacGrid *g)
{
    volatile float *nowhere = 0;
    *nowhere = (float)ps->count + g->dx;
}
