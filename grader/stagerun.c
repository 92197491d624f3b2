/* stagerun.c — main of the program that runs one student stage on one case, in the sandbox.
 * flipkit grader/: linked with one student stage file (stubs for the other seven) and the
 * guard; it reads in.state, runs the stage, writes out.state. The grader does the checking. */
#include <stdio.h>
#include <string.h>

#include "guard.h"
#include "stagecase.h"

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: stagerun STAGE IN.state OUT.state\n");
        return 2;
    }
    char err[1024];
    StateFile in, out;
    state_init(&in);
    state_init(&out);
    if (state_read(&in, argv[2], err, sizeof err) != 0) {
        fprintf(stderr, "stagerun: %s\n", err);
        return 2;
    }
    /* From here on the student's code may run: no forks, no writes outside this directory. */
    guard_install();
    if (stagecase_run(&student_track, argv[1], &in, &out, err, sizeof err) != 0) {
        fprintf(stderr, "stagerun: %s: %s\n", argv[2], err);
        return 2;
    }
    if (state_write(&out, argv[3], err, sizeof err) != 0) {
        fprintf(stderr, "stagerun: %s\n", err);
        return 2;
    }
    state_free(&in);
    state_free(&out);
    return 0;
}
