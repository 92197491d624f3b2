/* pyapi.h — what a build hands the Python binding (pyapi.c), as a main hands cli_main a CliBuild.
 * flipkit common/: the kit's libflipkit.so calls pyapi_use from reference/pylib_main.c when it
 * is loaded; the student kit's calls nothing and runs the student's stages in C. */
#ifndef FLIPKIT_PYAPI_H
#define FLIPKIT_PYAPI_H

#include "cli.h"

/* reference: the track "reference" names (NULL: none, the default is then "student");
 * devices: the OpenCL pipeline for device "opencl" (NULL: none). */
void pyapi_use(const Track *reference, const CliDevices *devices);

#endif
