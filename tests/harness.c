/* harness.c — running a Check suite the same way in every flipkit test binary.
 * flipkit tests/: fork mode by default, so a crashing case is reported as that case's
 * crash; CK_FORK=no and CK_RUN_CASE are Check's own variables and pass straight through. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int harness_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

const char *harness_tmpdir(void)
{
    static char dir[256];
    if (!dir[0]) {
        mkdir("build", 0777);
        mkdir("build/tmp", 0777);
        snprintf(dir, sizeof dir, "build/tmp/test-%ld", (long)getpid());
        mkdir(dir, 0777);
    }
    return dir;
}
