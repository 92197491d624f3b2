/* clx.h — the small OpenCL helper of the reference: pick a device, build the kernels, say why
 * not. flipkit reference/: only the reference track touches OpenCL; every failure is one line
 * (or the compiler's log, with file:line) in err, never an exit. */
#ifndef FLIPKIT_CLX_H
#define FLIPKIT_CLX_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    cl_program program;
    char name[256];         /* "platform / device", for logs */
} Clx;

/* Lists every platform and device with the index pair that selects it. Returns the count. */
int clx_list_devices(FILE *out);
/* Opens a device: selector NULL or "" picks the first device of the first platform with one;
 * "P:D" picks device D of platform P ($FLIPKIT_CL_DEVICE is the same, when selector is NULL).
 * Returns 0, or -1 with one line in err (e.g. "no OpenCL platform found"). */
int clx_open(Clx *cx, const char *selector, char *err, size_t errlen);
/* Builds the program from the named files (e.g. "p2g.cl") found in the kernel directory.
 * On a compiler error err receives its log, whose lines name kernels/FILE.cl:LINE. */
int clx_build(Clx *cx, const char *const *files, int nfiles, char *err, size_t errlen);
void clx_close(Clx *cx);

/* The directory the .cl files are read from: $FLIPKIT_KERNELS, else kernels/ beside the
 * binary's directory or its parent (build/flipsim finds ./kernels), else ./kernels. */
const char *clx_kernel_dir(void);

/* A readable name of an OpenCL error code, e.g. "CL_OUT_OF_RESOURCES". */
const char *clx_error_name(cl_int code);
/* Whether code says an allocation failed (host memory, or a device buffer that could not be
 * made): the caller reports it as out of memory, not as a failure of the device. */
int clx_out_of_memory(cl_int code);

#endif
