/* opencl_track.c — the eight stages run as OpenCL kernels, one call at a time (TRACK=opencl).
 * flipkit reference/: the third implementation under the stage harness. Each call copies its
 * inputs to the device and its outputs back, which is slow and simple: the device-resident
 * pipeline keeps the data there instead, with the same kernels. */
#include "opencl.h"

#include <stdlib.h>
#include <string.h>

#include "clx.h"

static Clx cl;
static int cl_ready;

enum { CL_MAX_KERNELS = 32 };
static struct { const char *name; cl_kernel k; } cl_kernels[CL_MAX_KERNELS];

const char *const opencl_sources[] = { "common.cl", "sort.cl", "stages.cl", NULL };

int opencl_track_open(const char *selector, char *err, size_t errlen)
{
    if (cl_ready)
        return 0;
    int nfiles = 0;
    while (opencl_sources[nfiles])
        nfiles++;
    if (clx_open(&cl, selector, err, errlen) != 0)
        return -1;
    if (clx_build(&cl, opencl_sources, nfiles, err, errlen) != 0) {
        clx_close(&cl);
        return -1;
    }
    cl_ready = 1;
    return 0;
}

const char *opencl_track_device(void)
{
    return cl_ready ? cl.name : "(not open)";
}

/* A stage has no way to return an error, and a half-done stage would be a wrong answer, so an
 * OpenCL failure here ends the process with one line (a test reports it as that test's error). */
static void cl_check(cl_int rc, const char *what)
{
    if (rc == CL_SUCCESS)
        return;
    fprintf(stderr, "opencl track: %s failed: %s\n", what, clx_error_name(rc));
    exit(1);
}

static void cl_ensure_open(void)
{
    char err[8192];
    if (opencl_track_open(NULL, err, sizeof err) != 0) {
        fprintf(stderr, "opencl track: %s\n", err);
        exit(1);
    }
}

static cl_kernel cl_kernel_named(const char *name)
{
    cl_ensure_open();
    int q = 0;
    for (; q < CL_MAX_KERNELS && cl_kernels[q].name; q++)
        if (strcmp(cl_kernels[q].name, name) == 0)
            return cl_kernels[q].k;
    if (q == CL_MAX_KERNELS)
        cl_check(CL_OUT_OF_RESOURCES, "the kernel table");
    cl_int rc;
    cl_kernels[q].k = clCreateKernel(cl.program, name, &rc);
    cl_check(rc, name);
    cl_kernels[q].name = name;
    return cl_kernels[q].k;
}

/* A device copy of bytes at data (or zeros when data is NULL); never empty. */
static cl_mem cl_upload(const void *data, size_t bytes)
{
    cl_int rc;
    size_t size = bytes ? bytes : 4;
    cl_mem m = clCreateBuffer(cl.context, CL_MEM_READ_WRITE, size, NULL, &rc);
    cl_check(rc, "clCreateBuffer");
    if (data && bytes)
        cl_check(clEnqueueWriteBuffer(cl.queue, m, CL_TRUE, 0, bytes, data, 0, NULL, NULL),
                 "clEnqueueWriteBuffer");
    else {
        int zero = 0;
        cl_check(clEnqueueFillBuffer(cl.queue, m, &zero, sizeof zero, 0, size, 0, NULL, NULL),
                 "clEnqueueFillBuffer");
    }
    return m;
}

static void cl_download(cl_mem m, void *dst, size_t bytes)
{
    if (bytes)
        cl_check(clEnqueueReadBuffer(cl.queue, m, CL_TRUE, 0, bytes, dst, 0, NULL, NULL),
                 "clEnqueueReadBuffer");
}

static void cl_arg(cl_kernel k, cl_uint index, size_t size, const void *value)
{
    cl_check(clSetKernelArg(k, index, size, value), "clSetKernelArg");
}

static void cl_run(cl_kernel k, size_t x, size_t y, size_t z)
{
    size_t global[3] = { x ? x : 1, y ? y : 1, z ? z : 1 };
    cl_check(clEnqueueNDRangeKernel(cl.queue, k, 3, NULL, global, NULL, 0, NULL, NULL),
             "clEnqueueNDRangeKernel");
    cl_check(clFinish(cl.queue), "clFinish");
}

static cl_int4 cl_dims(const MacGrid *g)
{
    cl_int4 n = { { g->nx, g->ny, g->nz, 0 } };
    return n;
}

static size_t cl_face_bytes(const MacGrid *g, int a)
{
    return grid_faces(g, a) * sizeof(float);
}

/* ---- the stages ----------------------------------------------------------------------------- */

static void cl_advect(Particles *ps, float dt)
{
    size_t bytes = ps->count * sizeof(Vec3);
    cl_mem pos = cl_upload(ps->pos, bytes), vel = cl_upload(ps->vel, bytes);
    cl_kernel k = cl_kernel_named("advect");
    cl_int count = (cl_int)ps->count;
    cl_arg(k, 0, sizeof pos, &pos);
    cl_arg(k, 1, sizeof vel, &vel);
    cl_arg(k, 2, sizeof dt, &dt);
    cl_arg(k, 3, sizeof count, &count);
    cl_run(k, ps->count, 1, 1);
    cl_download(pos, ps->pos, bytes);
    clReleaseMemObject(pos);
    clReleaseMemObject(vel);
}

static void cl_gravity(MacGrid *g, Vec3 gravity_ms2, float dt)
{
    cl_mem cell = cl_upload(g->cell, grid_cells(g));
    cl_kernel k = cl_kernel_named("gravity");
    cl_int4 n = cl_dims(g);
    for (cl_int a = 0; a < 3; a++) {
        cl_mem vel = cl_upload(g->vel[a], cl_face_bytes(g, a));
        float dv = dt * vec3_get(gravity_ms2, a);
        cl_arg(k, 0, sizeof vel, &vel);
        cl_arg(k, 1, sizeof cell, &cell);
        cl_arg(k, 2, sizeof n, &n);
        cl_arg(k, 3, sizeof a, &a);
        cl_arg(k, 4, sizeof dv, &dv);
        const int *fn = g->face[a].n;
        cl_run(k, (size_t)fn[0], (size_t)fn[1], (size_t)fn[2]);
        cl_download(vel, g->vel[a], cl_face_bytes(g, a));
        clReleaseMemObject(vel);
    }
    clReleaseMemObject(cell);
}

/* Sorts the particles by cell on the device: cell_start (ncells + 1) and sorted (count). */
static void cl_sort(const MacGrid *g, cl_mem pos, size_t count, cl_mem *start, cl_mem *sorted)
{
    size_t ncells = grid_cells(g);
    cl_mem keys = cl_upload(NULL, count * sizeof(cl_int));
    cl_mem counts = cl_upload(NULL, ncells * sizeof(cl_int));
    cl_mem cursor = cl_upload(NULL, ncells * sizeof(cl_int));
    *start = cl_upload(NULL, (ncells + 1) * sizeof(cl_int));
    *sorted = cl_upload(NULL, count * sizeof(cl_int));
    cl_int4 n = cl_dims(g);
    cl_int cnt = (cl_int)count, nc = (cl_int)ncells;
    float dx = g->dx;

    cl_kernel k = cl_kernel_named("sort_keys");
    cl_arg(k, 0, sizeof keys, &keys);
    cl_arg(k, 1, sizeof counts, &counts);
    cl_arg(k, 2, sizeof pos, &pos);
    cl_arg(k, 3, sizeof n, &n);
    cl_arg(k, 4, sizeof dx, &dx);
    cl_arg(k, 5, sizeof cnt, &cnt);
    cl_run(k, count, 1, 1);

    k = cl_kernel_named("sort_scan");
    size_t local = 64;
    cl_arg(k, 0, sizeof *start, start);
    cl_arg(k, 1, sizeof cursor, &cursor);
    cl_arg(k, 2, sizeof counts, &counts);
    cl_arg(k, 3, sizeof nc, &nc);
    cl_arg(k, 4, local * sizeof(cl_int), NULL);
    cl_check(clEnqueueNDRangeKernel(cl.queue, k, 1, NULL, &local, &local, 0, NULL, NULL), "sort_scan");

    k = cl_kernel_named("sort_scatter");
    cl_arg(k, 0, sizeof *sorted, sorted);
    cl_arg(k, 1, sizeof cursor, &cursor);
    cl_arg(k, 2, sizeof keys, &keys);
    cl_arg(k, 3, sizeof cnt, &cnt);
    cl_run(k, count, 1, 1);

    /* Buckets in particle order: here a particle's id is its index in the host's arrays. */
    cl_int *iota = malloc((count ? count : 1) * sizeof *iota);
    if (!iota)
        cl_check(CL_OUT_OF_HOST_MEMORY, "sorting the particles");
    for (size_t p = 0; p < count; p++)
        iota[p] = (cl_int)p;
    cl_mem id = cl_upload(iota, count * sizeof(cl_int));
    free(iota);
    k = cl_kernel_named("sort_buckets");
    cl_arg(k, 0, sizeof *sorted, sorted);
    cl_arg(k, 1, sizeof *start, start);
    cl_arg(k, 2, sizeof id, &id);
    cl_arg(k, 3, sizeof nc, &nc);
    cl_run(k, ncells, 1, 1);

    clReleaseMemObject(id);
    clReleaseMemObject(keys);
    clReleaseMemObject(counts);
    clReleaseMemObject(cursor);
}

static void cl_p2g(const Particles *ps, MacGrid *g)
{
    size_t bytes = ps->count * sizeof(Vec3);
    cl_mem pos = cl_upload(ps->pos, bytes), pvel = cl_upload(ps->vel, bytes);
    cl_mem start, sorted;
    cl_sort(g, pos, ps->count, &start, &sorted);
    cl_kernel k = cl_kernel_named("p2g");
    cl_int4 n = cl_dims(g);
    float dx = g->dx;
    for (cl_int a = 0; a < 3; a++) {
        cl_mem vel = cl_upload(NULL, cl_face_bytes(g, a)), w = cl_upload(NULL, cl_face_bytes(g, a));
        cl_arg(k, 0, sizeof vel, &vel);
        cl_arg(k, 1, sizeof w, &w);
        cl_arg(k, 2, sizeof pos, &pos);
        cl_arg(k, 3, sizeof pvel, &pvel);
        cl_arg(k, 4, sizeof start, &start);
        cl_arg(k, 5, sizeof sorted, &sorted);
        cl_arg(k, 6, sizeof n, &n);
        cl_arg(k, 7, sizeof dx, &dx);
        cl_arg(k, 8, sizeof a, &a);
        const int *fn = g->face[a].n;
        cl_run(k, (size_t)fn[0], (size_t)fn[1], (size_t)fn[2]);
        cl_download(vel, g->vel[a], cl_face_bytes(g, a));
        cl_download(w, g->weight[a], cl_face_bytes(g, a));
        clReleaseMemObject(vel);
        clReleaseMemObject(w);
    }
    clReleaseMemObject(pos);
    clReleaseMemObject(pvel);
    clReleaseMemObject(start);
    clReleaseMemObject(sorted);
}

static void cl_g2p(Particles *ps, const MacGrid *g, float *const vel_old[3], float alpha)
{
    size_t bytes = ps->count * sizeof(Vec3);
    cl_mem pos = cl_upload(ps->pos, bytes), pvel = cl_upload(ps->vel, bytes);
    cl_mem f[3], f_old[3];
    for (int a = 0; a < 3; a++) {
        f[a] = cl_upload(g->vel[a], cl_face_bytes(g, a));
        f_old[a] = cl_upload(vel_old[a], cl_face_bytes(g, a));
    }
    cl_kernel k = cl_kernel_named("g2p");
    cl_int4 n = cl_dims(g);
    float dx = g->dx;
    cl_int count = (cl_int)ps->count;
    cl_arg(k, 0, sizeof pvel, &pvel);
    cl_arg(k, 1, sizeof pos, &pos);
    for (int a = 0; a < 3; a++) {
        cl_arg(k, (cl_uint)(2 + a), sizeof f[a], &f[a]);
        cl_arg(k, (cl_uint)(5 + a), sizeof f_old[a], &f_old[a]);
    }
    cl_arg(k, 8, sizeof n, &n);
    cl_arg(k, 9, sizeof dx, &dx);
    cl_arg(k, 10, sizeof alpha, &alpha);
    cl_arg(k, 11, sizeof count, &count);
    cl_run(k, ps->count, 1, 1);
    cl_download(pvel, ps->vel, bytes);
    for (int a = 0; a < 3; a++) {
        clReleaseMemObject(f[a]);
        clReleaseMemObject(f_old[a]);
    }
    clReleaseMemObject(pos);
    clReleaseMemObject(pvel);
}

static void cl_divergence(const MacGrid *g, float *div)
{
    cl_mem out = cl_upload(NULL, grid_cells(g) * sizeof(float));
    cl_mem cell = cl_upload(g->cell, grid_cells(g));
    cl_mem f[3];
    for (int a = 0; a < 3; a++)
        f[a] = cl_upload(g->vel[a], cl_face_bytes(g, a));
    cl_kernel k = cl_kernel_named("divergence");
    cl_int4 n = cl_dims(g);
    float dx = g->dx;
    cl_arg(k, 0, sizeof out, &out);
    for (int a = 0; a < 3; a++)
        cl_arg(k, (cl_uint)(1 + a), sizeof f[a], &f[a]);
    cl_arg(k, 4, sizeof cell, &cell);
    cl_arg(k, 5, sizeof n, &n);
    cl_arg(k, 6, sizeof dx, &dx);
    cl_run(k, (size_t)g->nx, (size_t)g->ny, (size_t)g->nz);
    cl_download(out, div, grid_cells(g) * sizeof(float));
    for (int a = 0; a < 3; a++)
        clReleaseMemObject(f[a]);
    clReleaseMemObject(cell);
    clReleaseMemObject(out);
}

static void cl_laplacian(const MacGrid *g, const float *p, float *out)
{
    size_t bytes = grid_cells(g) * sizeof(float);
    cl_mem o = cl_upload(NULL, bytes), pin = cl_upload(p, bytes), cell = cl_upload(g->cell, grid_cells(g));
    cl_kernel k = cl_kernel_named("laplacian");
    cl_int4 n = cl_dims(g);
    float dx = g->dx;
    cl_arg(k, 0, sizeof o, &o);
    cl_arg(k, 1, sizeof pin, &pin);
    cl_arg(k, 2, sizeof cell, &cell);
    cl_arg(k, 3, sizeof n, &n);
    cl_arg(k, 4, sizeof dx, &dx);
    cl_run(k, (size_t)g->nx, (size_t)g->ny, (size_t)g->nz);
    cl_download(o, out, bytes);
    clReleaseMemObject(o);
    clReleaseMemObject(pin);
    clReleaseMemObject(cell);
}

static void cl_jacobi(const MacGrid *g, const float *p, const float *rhs, float omega, float *p_out)
{
    size_t bytes = grid_cells(g) * sizeof(float);
    cl_mem o = cl_upload(NULL, bytes), pin = cl_upload(p, bytes), r = cl_upload(rhs, bytes);
    cl_mem cell = cl_upload(g->cell, grid_cells(g));
    cl_kernel k = cl_kernel_named("jacobi");
    cl_int4 n = cl_dims(g);
    float dx = g->dx;
    cl_arg(k, 0, sizeof o, &o);
    cl_arg(k, 1, sizeof pin, &pin);
    cl_arg(k, 2, sizeof r, &r);
    cl_arg(k, 3, sizeof cell, &cell);
    cl_arg(k, 4, sizeof n, &n);
    cl_arg(k, 5, sizeof dx, &dx);
    cl_arg(k, 6, sizeof omega, &omega);
    cl_run(k, (size_t)g->nx, (size_t)g->ny, (size_t)g->nz);
    cl_download(o, p_out, bytes);
    clReleaseMemObject(o);
    clReleaseMemObject(pin);
    clReleaseMemObject(r);
    clReleaseMemObject(cell);
}

static void cl_gradient(MacGrid *g, const float *p, float scale)
{
    cl_mem pin = cl_upload(p, grid_cells(g) * sizeof(float)), cell = cl_upload(g->cell, grid_cells(g));
    cl_kernel k = cl_kernel_named("gradient");
    cl_int4 n = cl_dims(g);
    float dx = g->dx;
    for (cl_int a = 0; a < 3; a++) {
        cl_mem vel = cl_upload(g->vel[a], cl_face_bytes(g, a));
        cl_arg(k, 0, sizeof vel, &vel);
        cl_arg(k, 1, sizeof pin, &pin);
        cl_arg(k, 2, sizeof cell, &cell);
        cl_arg(k, 3, sizeof n, &n);
        cl_arg(k, 4, sizeof dx, &dx);
        cl_arg(k, 5, sizeof scale, &scale);
        cl_arg(k, 6, sizeof a, &a);
        const int *fn = g->face[a].n;
        cl_run(k, (size_t)fn[0], (size_t)fn[1], (size_t)fn[2]);
        cl_download(vel, g->vel[a], cl_face_bytes(g, a));
        clReleaseMemObject(vel);
    }
    clReleaseMemObject(pin);
    clReleaseMemObject(cell);
}

const Track opencl_track = {
    .name = "opencl",
    .advect = cl_advect,
    .gravity = cl_gravity,
    .p2g = cl_p2g,
    .g2p = cl_g2p,
    .divergence = cl_divergence,
    .laplacian = cl_laplacian,
    .jacobi = cl_jacobi,
    .gradient = cl_gradient,
    .solvers = NULL,
};
