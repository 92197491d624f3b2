/* devices.c — the OpenCL pipeline's entry points in the one struct the CLI and the binding take.
 * flipkit reference/: written once here, so flipsim, libflipkit.so and the suites hand in the
 * same devices. */
#include "devices.h"
#include "pipeline.h"

const CliDevices opencl_devices = { pipeline_list_devices, pipeline_open, pipeline_surface,
                                    pipeline_solver_variant, pipeline_surface_anisotropic,
                                    pipeline_guard_download };
