/* flipsim_main.c — main of the kit's flipsim: the student track and the reference track.
 * flipkit reference/: --track picks one; --use-reference mixes stages of both.
 * The student tarball builds common/flipsim_main.c instead. */
#include "cli.h"
#include "reference.h"

int main(int argc, char **argv)
{
    return cli_main(argc, argv, &student_track, &reference_track);
}
