/* flipsim_main.c — main of the student-only flipsim (the tarball students get).
 * flipkit common/: it links only your stages; the kit's own flipsim (reference/
 * flipsim_main.c) links the reference track too. */
#include "cli.h"

int main(int argc, char **argv)
{
    return cli_main(argc, argv, &student_track, NULL, NULL);
}
