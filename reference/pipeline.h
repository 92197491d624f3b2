/* pipeline.h — the reference on OpenCL as one device-resident pipeline: whole substeps on the
 * device, only frames and the CFL maximum read back. flipkit reference/: plugs into the driver
 * as a SimBackend (common/sim.h), so common/ never includes OpenCL. */
#ifndef FLIPKIT_PIPELINE_H
#define FLIPKIT_PIPELINE_H

#include <stddef.h>
#include <stdio.h>

#include "output.h"
#include "sim.h"

/* Opens device selector ("P:D"; NULL or "" for $FLIPKIT_CL_DEVICE or the first device) and
 * builds the kernels. Returns the device, or NULL with one line (or the build log) in err. */
SimBackend *pipeline_open(const char *selector, char *err, size_t errlen);

/* The liquid surface of the device's own particles, as surface_build would make it, into m (an
 * OutputMesher: output_mesh calls it when the device's particles are current). Returns 0, or
 * -1 with one line in s->error. b must be pipeline_open's. */
int pipeline_surface(SimBackend *b, Sim *s, const SurfaceSettings *set, Mesh *m);

/* The anisotropic surface of the device's own particles (Yu & Turk 2013), as
 * surface_build_anisotropic would make it from them with s->scene's particles_per_cell, into
 * m: the kernels and the field on the device (kernels/aniso.cl), the marching on the host.
 * Float sums in another order and a float eigensolver: its vertices agree with the C path's
 * within tolerances (test_pipeline), not bit for bit; two calls give the same bytes. An
 * OutputMesher; returns 0, or -1 with one line in s->error. */
int pipeline_surface_anisotropic(SimBackend *b, Sim *s, const SurfaceSettings *set, Mesh *m);

/* Where the last pipeline_surface or pipeline_surface_anisotropic call spent its time, in
 * seconds: the field on the device with its transfers, and the host's surface_polygonise. b
 * must be pipeline_open's. */
typedef struct { double field, polygonise; } PipelineSurfaceTimes;
PipelineSurfaceTimes pipeline_surface_times(const SimBackend *b);

/* Which algorithm pressure.solver name runs on the pipeline, for the log and --help (pcg there
 * is CG with another preconditioner than the C reference's MIC(0)). */
const char *pipeline_solver_variant(const char *name);

/* For tests: how many cells' sort counts are not 0, read back from b (pipeline_open's), or -1
 * if they cannot be read. The counting sort leaves every count at 0 for the next sort to
 * count from (kernels/sort.cl); a count left over would put particles in the wrong buckets. */
long pipeline_leftover_counts(SimBackend *b);
/* Has b's download, before it writes the host's particles, call wait(ctx): the frame writer's
 * wait, so that it may write a frame from the host's particles themselves while the next frame
 * runs on the device (output.c; cli.c sets it). wait NULL: none. */
void pipeline_guard_download(SimBackend *b, void (*wait)(void *ctx), void *ctx);

/* Prints every OpenCL platform and device with its selector; returns how many devices. */
int pipeline_list_devices(FILE *out);

#endif
