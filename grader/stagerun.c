/* stagerun.c — main of the program that runs one student stage on one case, in the sandbox.
 * flipkit grader/: linked with one student stage file (stubs for the other seven) and the
 * guard; it reads in.state, runs the stage, writes out.state. The grader does the checking.
 * The sandbox's filter and supervisor watch it from its first instruction. */
#include <stdio.h>
#include <string.h>

#include "guard.h"
#include "stagecase.h"

int main(int argc, char **argv)
{
    argc = guard_argc(); /* as started: a constructor may have rewritten the real ones */
    argv = guard_argv();
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
    char settings[256];
    snprintf(settings, sizeof settings, "stage=%s in=%s out=%s", argv[1], argv[2], argv[3]);
    guard_report_settings(settings);
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
