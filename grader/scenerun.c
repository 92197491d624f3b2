/* scenerun.c — main of the student's whole pipeline as the grader runs it, in the sandbox.
 * flipkit grader/: flipsim's student-only main (common/flipsim_main.c) with the guard installed
 * first, so the student's stages can neither fork nor write outside the run's directory. */
#include "cli.h"
#include "guard.h"

int main(int argc, char **argv)
{
    guard_install();
    return cli_main(argc, argv, &student_track, NULL, NULL);
}
