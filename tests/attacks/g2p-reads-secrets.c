
/* Attack: read the host's secrets: /etc/shadow, /etc/gshadow, and the environment of every
 * process it can see (the grader's holds the kit's path and whatever tokens it was given).
 * If any read works the stage crashes on purpose, so the grade shows it; refused, the stage
 * is the reference's and keeps full marks. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int attack_read(const char *path)
{
    char buf[64];
    int fd = open(path, O_RDONLY);
    int got = fd >= 0 && read(fd, buf, sizeof buf) > 0;
    if (fd >= 0)
        close(fd);
    if (got)
        fprintf(stderr, "read %s\n", path);
    return got;
}

__attribute__((constructor)) static void attack_secrets(void)
{
    int leaked = attack_read("/etc/shadow") + attack_read("/etc/gshadow");
    char self[32] = "";
    ssize_t n = readlink("/proc/self", self, sizeof self - 1); /* its pid as /proc numbers it */
    self[n > 0 ? n : 0] = '\0';
    for (int pid = 1; pid < 65536; pid++) {
        char path[64], num[16];
        snprintf(num, sizeof num, "%d", pid);
        snprintf(path, sizeof path, "/proc/%d/environ", pid);
        if (strcmp(num, self) != 0) /* its own environment is no secret */
            leaked += attack_read(path);
    }
    if (leaked)
        raise(SIGSEGV);
}
