/* track.c — stage names, mixing two tracks (for --use-reference=p2g,g2p), solve histories.
 * flipkit common/: the one list of the eight stage names; tests, the grader and the CLI
 * all take names from here so a stage is spelled the same everywhere. */
#include "track.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const stage_names[STAGE_COUNT] = {
    "advect", "gravity", "p2g", "g2p", "divergence", "laplacian", "jacobi", "gradient",
};

/* Copies one stage's function pointer; returns 0, or -1 for a name that is not a stage. */
static int track_take(Track *dst, const Track *src, const char *name)
{
    if (strcmp(name, "advect") == 0) dst->advect = src->advect;
    else if (strcmp(name, "gravity") == 0) dst->gravity = src->gravity;
    else if (strcmp(name, "p2g") == 0) dst->p2g = src->p2g;
    else if (strcmp(name, "g2p") == 0) dst->g2p = src->g2p;
    else if (strcmp(name, "divergence") == 0) dst->divergence = src->divergence;
    else if (strcmp(name, "laplacian") == 0) dst->laplacian = src->laplacian;
    else if (strcmp(name, "jacobi") == 0) dst->jacobi = src->jacobi;
    else if (strcmp(name, "gradient") == 0) dst->gradient = src->gradient;
    else return -1;
    return 0;
}

int track_mix(Track *dst, const Track *base, const Track *other, const char *list,
              char *err, size_t errlen)
{
    *dst = *base;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *name = strtok_r(buf, ",", &save); name;
         name = strtok_r(NULL, ",", &save)) {
        if (strcmp(name, "all") == 0) {
            for (int q = 0; q < STAGE_COUNT; q++)
                track_take(dst, other, stage_names[q]);
        } else if (track_take(dst, other, name) != 0) {
            snprintf(err, errlen,
                     "--use-reference=%s: \"%s\" is not a stage (stages: advect, gravity, p2g, "
                     "g2p, divergence, laplacian, jacobi, gradient)", list, name);
            return -1;
        }
    }
    dst->name = "mixed";
    return 0;
}

void track_record_residual(SolveHistory *h, int iteration, double residual)
{
    if (!h || iteration < 0 || iteration >= h->capacity)
        return;
    /* A solver that skipped an iteration leaves a gap the lab can see, not a stale value. */
    for (int q = h->count; q < iteration; q++)
        h->residual[q] = NAN;
    h->residual[iteration] = residual;
    if (iteration >= h->count)
        h->count = iteration + 1;
}
