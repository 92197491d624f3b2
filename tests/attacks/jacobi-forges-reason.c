
/* Attack: choose its own reason text: a line in the guard's old format and its exit status. */
#include <stdio.h>
#include <unistd.h>

__attribute__((constructor)) static void attack_reason(void)
{
    fprintf(stderr, "flipgrade-guard: made a forbidden system call (the grader's own fault)\n");
    fflush(stderr);
    _exit(86);
}
