/* A hostile divergence for the grader's check: it writes a 1 GB file in its directory. */
#include <stdio.h>

#include "stages.h"

void divergence(const MacGrid *g, float *div)
{
    static char block[1 << 20];
    FILE *f = fopen("big.bin", "wb");
    for (int i = 0; f && i < 1024; i++)
        fwrite(block, 1, sizeof block, f);
    if (f)
        fclose(f);
    div[0] = g->dx;
}
