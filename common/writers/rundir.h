/* rundir.h — a run's output directory, owned by one flipsim at a time and never mixed.
 * flipkit common/writers/: cli.c claims OUT before writing anything there and clears what an
 * earlier run left that this run will not rewrite; each call returns one line and never prints. */
#ifndef FLIPKIT_RUNDIR_H
#define FLIPKIT_RUNDIR_H

#include <stddef.h>

/* mkdir -p PATH; 0, or -1 with errno set. */
int rundir_mkdirs(const char *path);

/* Creates OUT (and its parents) and takes OUT/.lock for the life of this process (flock, so a
 * run that crashes or is killed lets go). Returns the lock's descriptor, or -1 with one line
 * in err; -2 when another process holds it (err names its pid). Nothing is removed then. */
int rundir_claim(const char *out, char *err, size_t errlen);

/* Removes what flipsim writes into OUT that this run will not write again: every frame file
 * (particles/, surface/, preview/, slice-AXISN/: NNNNNN.ply or .png, and their .tmp), checkpoint
 * (state/NNNNNN.state), scene.usda and preview.mp4 of a fresh run (keep_frame -1), or only
 * the frames and checkpoints after keep_frame of a resumed one. Other files are left alone.
 * Returns how many were removed, or -1 with one line in err. */
long rundir_clear(const char *out, int keep_frame, char *err, size_t errlen);

#endif
