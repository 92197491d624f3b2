
/* Attack: root's powers, should the stage run as root: rename the host, set the clock, change
 * root, make namespaces of its own (CLONE_NEWUSER | CLONE_NEWNET), reboot. Raw calls: the
 * stage is compiled as POSIX C, which declares none of them. */
#include <sys/syscall.h>

long syscall(long number, ...);

__attribute__((constructor)) static void attack_root(void)
{
    syscall(SYS_sethostname, "owned", 5);
    long tv[2] = {0, 0};
    syscall(SYS_settimeofday, tv, 0);
    syscall(SYS_chroot, "/");
    syscall(SYS_unshare, 0x10000000 | 0x40000000);
    syscall(SYS_reboot, 0, 0, 0, 0);
}
