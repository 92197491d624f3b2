/* flipsim_main.c — main of the kit's flipsim: the student track and the reference track.
 * flipkit reference/: --track picks one; --use-reference mixes stages of both; --device
 * runs the reference as the OpenCL pipeline.
 * The student tarball builds common/flipsim_main.c instead. */
#include "cli.h"
#include "devices.h"
#include "reference.h"

int main(int argc, char **argv)
{
    static const CliBuild kit = { .student = &student_track, .reference = &reference_track,
                                  .devices = &opencl_devices };
    cli_keep_freed_memory();
    return cli_main(argc, argv, &kit);
}
