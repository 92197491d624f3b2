/* checkpoint.h — saving a run to OUT/state/NNNNNN.state and continuing from one.
 * flipkit common/writers/: a state file (state.h) holds the scene's JSON, the grid's size, the
 * frame, time and substep count, the particles and p: all a run needs to continue bit for bit. */
#ifndef FLIPKIT_CHECKPOINT_H
#define FLIPKIT_CHECKPOINT_H

#include <stddef.h>

#include "sim.h"

/* Checkpoints: everything a run needs to continue bit for bit, and the scene itself. */
int checkpoint_save(const Sim *s, const char *path, char *err, size_t errlen);
/* Restores particles, pressure, frame and time saved by checkpoint_save into an initialised
 * sim of the same scene. Returns 0, or -1 with one line in err. */
int checkpoint_load(Sim *s, const char *path, char *err, size_t errlen);

/* The scene JSON saved in a state file (malloc'd), or NULL with one line in err. */
char *checkpoint_scene(const char *path, char *err, size_t errlen);

#endif
