/* opencl.h — the reference on OpenCL: the stage-by-stage track the tests run (TRACK=opencl).
 * flipkit reference/: the pipeline's own stage kernels, one stage at a time (opencl_track.c). */
#ifndef FLIPKIT_OPENCL_H
#define FLIPKIT_OPENCL_H

#include <stddef.h>

#include "track.h"

/* The eight stages as the OpenCL pipeline runs them (reference/pipestages.c and its kernels);
 * each call copies its case to the device and its outputs back. The first call opens
 * the default device (or $FLIPKIT_CL_DEVICE) unless opencl_track_open did. A call that fails
 * writes NaN to its outputs and keeps the reason for opencl_track_error. */
extern const Track opencl_track;

/* Opens the device ("P:D", or NULL for the default) and builds the kernels. Returns 0, or -1
 * with one line (or the compiler log) in err. */
int opencl_track_open(const char *selector, char *err, size_t errlen);
/* "platform / device" of the open device. */
const char *opencl_track_device(void);
/* The first failure of a stage call, as one line, or NULL while there has been none. */
const char *opencl_track_error(void);

#endif
