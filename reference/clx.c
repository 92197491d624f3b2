/* clx.c — choosing an OpenCL device and building the kernels from the .cl files in kernels/.
 * flipkit reference/: each source is prefixed with a #line directive naming its file, so
 * a compiler error reads kernels/p2g.cl:12:5 instead of a line of the concatenation. */
#include "clx.h"

#include "grid.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { CLX_MAX_PLATFORMS = 16, CLX_MAX_DEVICES = 16, CLX_MAX_FILES = 32 };

const char *clx_error_name(cl_int code)
{
    switch (code) {
    case CL_SUCCESS: return "CL_SUCCESS";
    case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
    case CL_INVALID_KERNEL_NAME: return "CL_INVALID_KERNEL_NAME";
    case CL_INVALID_KERNEL_ARGS: return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_ARG_INDEX: return "CL_INVALID_ARG_INDEX";
    case CL_INVALID_ARG_SIZE: return "CL_INVALID_ARG_SIZE";
    case CL_INVALID_ARG_VALUE: return "CL_INVALID_ARG_VALUE";
    case CL_INVALID_MEM_OBJECT: return "CL_INVALID_MEM_OBJECT";
    case CL_INVALID_WORK_GROUP_SIZE: return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_WORK_ITEM_SIZE: return "CL_INVALID_WORK_ITEM_SIZE";
    case CL_INVALID_GLOBAL_WORK_SIZE: return "CL_INVALID_GLOBAL_WORK_SIZE";
    case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_COMMAND_QUEUE: return "CL_INVALID_COMMAND_QUEUE";
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR (no OpenCL driver is installed)";
    default: return "an unknown OpenCL error";
    }
}

int clx_out_of_memory(cl_int code)
{
    return code == CL_OUT_OF_HOST_MEMORY || code == CL_MEM_OBJECT_ALLOCATION_FAILURE;
}

static int clx_platforms(cl_platform_id *ids, cl_uint *n)
{
    *n = 0;
    cl_int rc = clGetPlatformIDs(CLX_MAX_PLATFORMS, ids, n);
    return rc == CL_SUCCESS ? 0 : -1;
}

static void clx_device_name(cl_platform_id p, cl_device_id d, char *out, size_t n)
{
    char pn[128] = "?", dn[128] = "?";
    clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof pn, pn, NULL);
    clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof dn, dn, NULL);
    snprintf(out, n, "%s / %s", pn, dn);
}

int clx_list_devices(FILE *out)
{
    cl_platform_id plats[CLX_MAX_PLATFORMS];
    cl_uint np = 0;
    int count = 0;
    if (clx_platforms(plats, &np) != 0 || np == 0) {
        fprintf(out, "no OpenCL platform found (install an OpenCL driver, e.g. pocl-opencl-icd)\n");
        return 0;
    }
    for (cl_uint p = 0; p < np; p++) {
        cl_device_id devs[CLX_MAX_DEVICES];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, CLX_MAX_DEVICES, devs, &nd) != CL_SUCCESS)
            nd = 0;
        for (cl_uint d = 0; d < nd; d++) {
            char name[256];
            cl_uint units = 0;
            cl_ulong mem = 0;
            clx_device_name(plats[p], devs[d], name, sizeof name);
            clGetDeviceInfo(devs[d], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
            clGetDeviceInfo(devs[d], CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL);
            fprintf(out, "  %u:%u  %s (%u compute units, %.1f GiB)%s\n", p, d, name, units,
                    mem / 1073741824.0, count == 0 ? "  [default]" : "");
            count++;
        }
    }
    return count;
}

/* Device want_d of platform want_p (-1: the first there is) into cx->platform and device.
 * Returns how many platforms there are (0: none; cx->device stays NULL when none matched). */
static cl_uint clx_pick(Clx *cx, int want_p, int want_d)
{
    cl_platform_id plats[CLX_MAX_PLATFORMS];
    cl_uint np = 0;
    if (clx_platforms(plats, &np) != 0)
        return 0;
    for (cl_uint p = 0; p < np && !cx->device; p++) {
        if (want_p >= 0 && (cl_uint)want_p != p)
            continue;
        cl_device_id devs[CLX_MAX_DEVICES];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, CLX_MAX_DEVICES, devs, &nd) != CL_SUCCESS)
            continue;
        for (cl_uint d = 0; d < nd && !cx->device; d++)
            if (want_d < 0 || (cl_uint)want_d == d) {
                cx->platform = plats[p];
                cx->device = devs[d];
            }
    }
    return np;
}

int clx_open(Clx *cx, const char *selector, char *err, size_t errlen)
{
    memset(cx, 0, sizeof *cx);
    if (!selector)
        selector = getenv("FLIPKIT_CL_DEVICE");
    int want_p = -1, want_d = -1;
    if (selector && *selector && sscanf(selector, "%d:%d", &want_p, &want_d) != 2) {
        snprintf(err, errlen, "OpenCL device \"%s\": expected PLATFORM:DEVICE, e.g. 0:0 "
                              "(--list-devices shows them)", selector);
        return -1;
    }
    cl_uint np = clx_pick(cx, want_p, want_d);
    if (np == 0) {
        snprintf(err, errlen, "no OpenCL platform found (install an OpenCL driver, e.g. "
                              "pocl-opencl-icd)");
        return -1;
    }
    if (!cx->device) {
        if (selector && *selector)
            snprintf(err, errlen, "OpenCL device %s does not exist (--list-devices shows them)",
                     selector);
        else
            snprintf(err, errlen, "no OpenCL device found on %u platform(s)", np);
        return -1;
    }
    clx_device_name(cx->platform, cx->device, cx->name, sizeof cx->name);
    cl_int rc;
    cx->context = clCreateContext(NULL, 1, &cx->device, NULL, NULL, &rc);
    if (rc == CL_SUCCESS)
        /* profiling: the pipeline times its stages by their kernels' events (pipedev.c) */
        cx->queue = clCreateCommandQueue(cx->context, cx->device, CL_QUEUE_PROFILING_ENABLE, &rc);
    if (rc != CL_SUCCESS) {
        snprintf(err, errlen, "OpenCL device %s: cannot create a context and queue: %s", cx->name,
                 clx_error_name(rc));
        clx_close(cx);
        return -1;
    }
    return 0;
}

/* ---- finding and building the kernels ----------------------------------------------------- */

static int clx_dir_has_kernels(const char *dir)
{
    char probe[2 * PATH_MAX + 16];
    snprintf(probe, sizeof probe, "%s/common.cl", dir);
    return access(probe, R_OK) == 0;
}

const char *clx_kernel_dir(void)
{
    static char dir[2 * PATH_MAX];
    const char *env = getenv("FLIPKIT_KERNELS");
    if (env && *env)
        return env;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        /* build/flipsim -> build/../kernels; build/tests/test_x -> build/tests/../../kernels;
         * an install prefix/bin/flipsim -> prefix/share/flipkit/kernels. */
        static const char *const rel[] = { "/kernels", "/../kernels", "/../../kernels",
                                           "/../../../kernels", "/../share/flipkit/kernels" };
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        for (size_t q = 0; q < sizeof rel / sizeof *rel; q++) {
            snprintf(dir, sizeof dir, "%s%s", exe, rel[q]);
            if (clx_dir_has_kernels(dir))
                return dir;
        }
    }
    return "kernels";
}

static char *clx_read_source(const char *dir, const char *file, char *err, size_t errlen)
{
    char path[2 * PATH_MAX + 256];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open OpenCL source %s (set FLIPKIT_KERNELS to the kernels/ "
                              "directory)", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    size_t head = strlen(path) + 32;
    char *text = size >= 0 ? malloc((size_t)size + head + 2) : NULL;
    if (!text) {
        fclose(f);
        snprintf(err, errlen, "cannot read OpenCL source %s", path);
        return NULL;
    }
    int off = snprintf(text, head, "#line 1 \"kernels/%s\"\n", file);
    size_t got = fread(text + off, 1, (size_t)size, f);
    fclose(f);
    text[off + (long)got] = '\n';
    text[off + (long)got + 1] = '\0';
    return text;
}

/* common/constants.h as the C code was compiled with it (the Makefile turns the file into this
 * string literal), so the kernels read the very numbers the C does. */
static const char clx_constants[] =
#include "constants_cl.inc"
    ;

int clx_build(Clx *cx, const char *const *files, int nfiles, char *err, size_t errlen)
{
    const char *dir = clx_kernel_dir();
    char *src[CLX_MAX_FILES + 1] = { 0 };
    int rc = -1;
    if (nfiles > CLX_MAX_FILES) {
        snprintf(err, errlen, "too many kernel files (%d)", nfiles);
        return -1;
    }
    for (int q = 0; q < nfiles; q++)
        if (!(src[q + 1] = clx_read_source(dir, files[q], err, errlen)))
            goto done;
    src[0] = (char *)clx_constants;
    cl_int cr;
    cx->program = clCreateProgramWithSource(cx->context, (cl_uint)nfiles + 1, (const char **)src,
                                            NULL, &cr);
    if (cr != CL_SUCCESS) {
        snprintf(err, errlen, "cannot create the OpenCL program: %s", clx_error_name(cr));
        goto done;
    }
    /* No fast-math: the kernels must do the same float arithmetic as the C reference. */
    cr = clBuildProgram(cx->program, 1, &cx->device, "-cl-std=CL1.2", NULL, NULL);
    if (cr != CL_SUCCESS) {
        size_t used = (size_t)snprintf(err, errlen, "the OpenCL kernels in %s do not build "
                                                    "(%s):\n", dir, clx_error_name(cr));
        if (used < errlen)
            clGetProgramBuildInfo(cx->program, cx->device, CL_PROGRAM_BUILD_LOG, errlen - used,
                                  err + used, NULL);
        goto done;
    }
    rc = 0;
done:
    for (int q = 0; q < nfiles; q++)
        free(src[q + 1]);
    return rc;
}

void clx_close(Clx *cx)
{
    if (cx->program)
        clReleaseProgram(cx->program);
    if (cx->queue)
        clReleaseCommandQueue(cx->queue);
    if (cx->context)
        clReleaseContext(cx->context);
    memset(cx, 0, sizeof *cx);
}
