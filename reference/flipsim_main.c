/* flipsim_main.c — main of the kit's flipsim: the student track and the reference track.
 * flipkit reference/: --track picks one; --use-reference mixes stages of both; --device
 * runs the reference as the OpenCL pipeline.
 * The student tarball builds common/flipsim_main.c instead. */
#include "cli.h"
#include "pipeline.h"
#include "reference.h"

int main(int argc, char **argv)
{
    static const CliDevices opencl = { pipeline_list_devices, pipeline_open, pipeline_surface,
                                         pipeline_solver_variant,
                                         pipeline_surface_anisotropic };
    cli_keep_freed_memory();
    return cli_main(argc, argv, &student_track, &reference_track, &opencl);
}
