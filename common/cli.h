/* cli.h — the flipsim command line: options, the run loop's printing, files written.
 * flipkit common/: each binary's main hands in the tracks it links (the student tarball has
 * only the student's; the kit's flipsim has both). */
#ifndef FLIPKIT_CLI_H
#define FLIPKIT_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "output.h"
#include "sim.h"
#include "track.h"

/* What a build offers besides the C stages: the kit's flipsim hands in the OpenCL pipeline
 * (reference/pipeline.h); the student's flipsim hands in NULL. */
typedef struct {
    int (*list)(FILE *out);     /* prints the devices; returns how many */
    SimBackend *(*open)(const char *selector, char *err, size_t errlen);
    OutputMesher surface;       /* the device's own mesher for its particles, or NULL */
    const char *(*solver_variant)(const char *name); /* what a solver name runs there */
    OutputMesher surface_anisotropic; /* the device's anisotropic mesher, or NULL */
} CliDevices;

/* Exit statuses: 0 done, 1 could not write output, 2 bad input (options, scene, state file,
 * or --out held by another run), 3 the simulation produced NaN/Inf (frames written so far
 * are kept), 4 out of memory (a scene too big for this machine is refused before it starts). */
enum { EXIT_OK = 0, EXIT_IO = 1, EXIT_INPUT = 2, EXIT_BLOWUP = 3, EXIT_MEMORY = 4 };

/* Called once the run's settings are final (scene loaded, every override applied), before
 * the first frame: the grader's runner reports them to its sandbox. NULL: nothing. */
extern void (*cli_settings_hook)(const Scene *scene, int last_frame);

/* Keeps freed memory in the process for the next frame's buffers of the same size (cli.c says
 * why). The reference flipsim calls it before cli_main, and so does make bench, so that it
 * times what flipsim runs. */
void cli_keep_freed_memory(void);

/* reference and devices may be NULL (the student-only build). */
int cli_main(int argc, char **argv, const Track *student, const Track *reference,
             const CliDevices *devices);

#endif
