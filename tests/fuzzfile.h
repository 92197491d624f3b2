/* fuzzfile.h — the fuzz targets' shared piece: an input handed to a reader that takes a path.
 * flipkit tests/: the readers open files by name, so each input goes into one memfd, reached as
 * /proc/self/fd/N (no disk traffic per execution). */
#ifndef FLIPKIT_FUZZFILE_H
#define FLIPKIT_FUZZFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

/* The path that now holds exactly data[0..size). */
static inline const char *fuzzfile_put(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("fuzz-input", 0);
        if (fd < 0) {
            perror("memfd_create");
            abort();
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) {
        perror("fuzz input");
        abort();
    }
    return path;
}

#endif
