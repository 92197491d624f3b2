
/* Attack: look where it cannot read. Landlock refuses the read, but stat would still answer
 * for /etc/shadow (size, time), for every host process in /proc (who runs what) and for the
 * grader's own files and the hidden answers (ATTACK_KIT, set by check_grader.sh to the kit
 * the grader reads). Anything that answers is printed and the stage exits 42, so the grade
 * shows it; in its own root nothing answers and the stage keeps full marks. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int attack_sees(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0;
    printf("sees %s\n", path);
    return 1;
}

__attribute__((constructor)) static void attack_look_around(void)
{
    static const char *const host[] = { "/etc/shadow", "/etc/passwd", "/etc/hostname", "/root", "/home",
                                        "/var", "/run", "/sys", "/boot", "/work", "/proc/1",
                                        "/proc/cpuinfo", "/proc/mounts", "/proc/sys", NULL };
#ifdef ATTACK_KIT
    static const char *const kit[] = { ATTACK_KIT, ATTACK_KIT "/grader/config", ATTACK_KIT "/flipgrade",
                                       ATTACK_KIT "/build/grader/data/hidden", ATTACK_KIT "/build/grader/cache",
                                       NULL };
#else
    static const char *const kit[] = { NULL };
#endif
    int seen = 0;
    for (const char *const *p = host; *p; p++)
        seen += attack_sees(*p);
    for (const char *const *p = kit; *p; p++)
        seen += attack_sees(*p);
    char self[32] = "", path[32], num[16];
    ssize_t n = readlink("/proc/self", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    for (int pid = 1; pid < 32768; pid++) { /* the grader, its supervisor, anyone's process */
        snprintf(num, sizeof num, "%d", pid);
        snprintf(path, sizeof path, "/proc/%d", pid);
        if (strcmp(num, self) != 0)
            seen += attack_sees(path);
    }
    if (seen) {
        fflush(stdout);
        _exit(42);
    }
}
