/* A hostile jacobi for the grader's check: it prints without end. */
#include <stdio.h>

#include "stages.h"

void jacobi(const MacGrid *g, const float *p, const float *rhs, float omega, float *p_out)
{
    (void)g, (void)p, (void)rhs, (void)omega, (void)p_out;
    for (;;)
        puts("debug: still here, still printing, still here, still printing");
}
