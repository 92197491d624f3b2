/* opencl.h — the reference on OpenCL: the stage-by-stage track the tests run (TRACK=opencl).
 * flipkit reference/: kernels live in kernels/; clx.h finds them and picks the device. */
#ifndef FLIPKIT_OPENCL_H
#define FLIPKIT_OPENCL_H

#include <stddef.h>

#include "track.h"

/* The kernel files of the reference, in build order (common.cl first), NULL-terminated. */
extern const char *const opencl_sources[];

/* The eight stages as kernels; each call copies its data to the device and back. The first
 * call opens the default device (or $FLIPKIT_CL_DEVICE) unless opencl_track_open did. */
extern const Track opencl_track;

/* Opens the device ("P:D", or NULL for the default) and builds the kernels. Returns 0, or -1
 * with one line (or the compiler log) in err. */
int opencl_track_open(const char *selector, char *err, size_t errlen);
/* "platform / device" of the open device. */
const char *opencl_track_device(void);

#endif
