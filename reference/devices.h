/* devices.h — the OpenCL pipeline as the command line and the Python binding take it.
 * flipkit reference/: common/ never names the pipeline; each main (flipsim, libflipkit.so's
 * pylib_main.c, the suites that run the CLI) hands this in. */
#ifndef FLIPKIT_DEVICES_H
#define FLIPKIT_DEVICES_H

#include "cli.h"

/* The pipeline's list, open, meshers and solver variants (reference/pipeline.h). */
extern const CliDevices opencl_devices;

#endif
