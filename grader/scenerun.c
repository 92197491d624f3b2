/* scenerun.c — main of the student's whole pipeline as the grader runs it, in the sandbox.
 * flipkit grader/: flipsim's student-only main (common/flipsim_main.c) on the command line the
 * guard kept from before any student constructor, reporting its settings to the supervisor. */
#include "cli.h"
#include "guard.h"
#include "runsettings.h"

static void report_settings(const Scene *scene, int last_frame)
{
    char line[256];
    runsettings_format(scene, last_frame, line, sizeof line);
    guard_report_settings(line);
}

int main(int argc, char **argv)
{
    (void)argc, (void)argv; /* a constructor may have rewritten these: the guard's copy */
    static const CliBuild runner = { .student = &student_track, .settings_final = report_settings };
    return cli_main(guard_argc(), guard_argv(), &runner);
}
