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
    /* Has the device's download wait(ctx) before it writes the host's particles (the frame
     * writer then writes them without a copy), or NULL */
    void (*guard_download)(SimBackend *b, void (*wait)(void *ctx), void *ctx);
} CliDevices;

/* Exit statuses: 0 done, 1 could not write output, 2 bad input (options, scene, state file,
 * or --out held by another run), 3 the simulation produced NaN/Inf (frames written so far
 * are kept), 4 out of memory (a scene too big for this machine is refused before it starts). */
enum { EXIT_OK = 0, EXIT_IO = 1, EXIT_INPUT = 2, EXIT_BLOWUP = 3, EXIT_MEMORY = 4 };

/* What a binary's main hands cli_main: the tracks and devices it links, and what it wants
 * told. The kit's flipsim hands in both tracks and the OpenCL pipeline; the student's flipsim
 * its own track; the grader's runner its track and where the settings go. */
typedef struct {
    const Track *student;
    const Track *reference;      /* NULL: the student-only build */
    const CliDevices *devices;   /* NULL: this build runs only the C stages */
    /* Called once the run's settings are final (scene loaded, every override applied),
     * before the first frame: the grader's runner reports them to its sandbox. NULL: nothing. */
    void (*settings_final)(const Scene *scene, int last_frame);
} CliBuild;

/* Keeps freed blocks up to 1 MiB in the process for the next frame's buffers of the same
 * size (cli.c says why, and why no larger). The reference flipsim calls it before cli_main,
 * and so does make bench, so that it times what flipsim runs. */
void cli_keep_freed_memory(void);

int cli_main(int argc, char **argv, const CliBuild *build);

#endif
