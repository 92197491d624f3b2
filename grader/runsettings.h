/* runsettings.h — one line that says what a graded run does, as the run and the grader see it.
 * flipkit grader/: the runner reports it to the sandbox's supervisor once the scene is loaded
 * (guard_report_settings); the grader builds the same line from its config and compares. */
#ifndef FLIPKIT_RUNSETTINGS_H
#define FLIPKIT_RUNSETTINGS_H

#include <stdint.h>
#include <stdio.h>

#include "scene.h"

/* The solver switch and the last frame in words (what a cheat would change), and a hash of
 * the effective scene (defaults and every override applied, scene->json) for the rest. */
static inline void runsettings_format(const Scene *s, int last_frame, char *buf, size_t n)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const char *p = s->json; p && *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    snprintf(buf, n, "last_frame=%d solver=%s use_gauss_seidel=%s scene=%016llx", last_frame,
             s->pressure.solver, s->use_gauss_seidel ? "true" : "false", (unsigned long long)h);
}

#endif
