/* A hostile advect for the grader's check: it writes a file outside its directory. */
#include <stdio.h>

#include "stages.h"

void advect(Particles *ps, float dt)
{
    FILE *f = fopen("/tmp/flipkit-hostile-escape", "w");
    if (f) {
        fprintf(f, "escaped\n");
        fclose(f);
    }
    for (size_t p = 0; p < ps->count; p++)
        ps->pos[p].y += dt * ps->vel[p].y;
}
