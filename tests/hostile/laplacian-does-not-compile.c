/* A hostile laplacian for the grader's check: it does not compile. */
#include "stages.h"

void laplacian(const MacGrid *g, const float *p, float *out)
{
    out[0] = p[0] / g->dx    /* a missing semicolon */
}
