/* rundir.c — the lock on a run's output directory, and clearing an earlier run's frames.
 * flipkit common/writers/: two runs into one OUT used to interleave their files; a shorter
 * rerun left the old run's later frames beside its own. See rundir.h. */
#define _DEFAULT_SOURCE /* flock, DT_DIR */
#include "rundir.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int rundir_mkdirs(const char *path)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* The pid the holder wrote into the lock file, or 0 when it cannot be read. */
static long rundir_holder(int fd)
{
    char text[32] = "";
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    text[n > 0 ? n : 0] = '\0';
    return strtol(text, NULL, 10);
}

int rundir_claim(const char *out, char *err, size_t errlen)
{
    char path[1100];
    if (rundir_mkdirs(out) != 0) {
        snprintf(err, errlen, "%s: cannot create: %s", out, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/.lock", out);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int busy = errno == EWOULDBLOCK;
        long pid = busy ? rundir_holder(fd) : 0;
        if (busy)
            snprintf(err, errlen, "%s: another flipsim (pid %ld) is writing there; wait for it "
                     "to finish or give another --out", out, pid);
        else
            snprintf(err, errlen, "%s: cannot lock: %s", path, strerror(errno));
        close(fd);
        return busy ? -2 : -1;
    }
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* The frame number of a file flipsim writes per frame or checkpoint: six digits, then ext
 * (".ply", ".png", ".state"), optionally ".tmp" (an atomic write cut short); else -1. */
static long rundir_frame_of(const char *name, const char *ext)
{
    for (int i = 0; i < 6; i++)
        if (!isdigit((unsigned char)name[i]))
            return -1;
    size_t n = strlen(ext);
    if (strncmp(name + 6, ext, n) != 0 || (name[6 + n] && strcmp(name + 6 + n, ".tmp") != 0))
        return -1;
    return strtol(name, NULL, 10);
}

/* Removes the frame files of one subdirectory past keep_frame; counts them into *removed. */
static int rundir_clear_frames(const char *dir, const char *ext, int keep_frame, long *removed,
                               char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? 0 : (snprintf(err, errlen, "%s: %s", dir, strerror(errno)), -1);
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d))) {
        long frame = rundir_frame_of(e->d_name, ext);
        if (frame < 0 || frame <= keep_frame)
            continue;
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (unlink(path) == 0)
            (*removed)++;
        else if (errno != ENOENT && rc == 0)
            rc = -1, snprintf(err, errlen, "%s: cannot remove: %s", path, strerror(errno));
    }
    closedir(d);
    return rc;
}

static int rundir_remove(const char *out, const char *name, long *removed, char *err, size_t errlen)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", out, name);
    if (unlink(path) == 0)
        (*removed)++;
    else if (errno != ENOENT)
        return snprintf(err, errlen, "%s: cannot remove: %s", path, strerror(errno)), -1;
    return 0;
}

long rundir_clear(const char *out, int keep_frame, char *err, size_t errlen)
{
    static const struct {
        const char *dir, *ext;
    } kinds[] = { { "particles", ".ply" }, { "surface", ".ply" }, { "preview", ".png" },
                  { "state", ".state" }, { "brick", ".ply" }, { "brickcolor", ".data" },
                  { "bricktexture", ".data" }, { "diffuse", ".ply" },
                  { "anisotropic", ".ply" } };
    long removed = 0;
    char dir[1100];
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        snprintf(dir, sizeof dir, "%s/%s", out, kinds[i].dir);
        if (rundir_clear_frames(dir, kinds[i].ext, keep_frame, &removed, err, errlen) != 0)
            return -1;
    }
    DIR *d = opendir(out); /* slice-x3/, slice-z16/, ...: one per --slice an earlier run had */
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strncmp(e->d_name, "slice-", 6) == 0) {
            snprintf(dir, sizeof dir, "%s/%s", out, e->d_name);
            if (rundir_clear_frames(dir, ".png", keep_frame, &removed, err, errlen) != 0) {
                closedir(d);
                return -1;
            }
        }
    if (d)
        closedir(d);
    /* scene.usda is rebuilt by a resumed run from its PLY files; the movie is of old previews */
    if (rundir_remove(out, "preview.mp4", &removed, err, errlen) != 0 ||
        (keep_frame < 0 && rundir_remove(out, "scene.usda", &removed, err, errlen) != 0))
        return -1;
    return removed;
}
