/* A hostile gradient for the grader's check: it makes every face velocity NaN. */
#include <math.h>

#include "stages.h"

void gradient(MacGrid *g, const float *p, float scale)
{
    (void)p, (void)scale;
    for (int a = 0; a < 3; a++)
        for (size_t f = 0; f < grid_faces(g, a); f++)
            g->vel[a][f] = NAN;
}
