/* A hostile g2p for the grader's check: a fork bomb. */
#include <unistd.h>

#include "stages.h"

void g2p(Particles *ps, const MacGrid *g, float *const vel_old[3], float alpha)
{
    (void)ps, (void)g, (void)vel_old, (void)alpha;
    for (;;)
        fork();
}
