/* watch.h — a run watches itself: cheap checks after the stages for values no correct stage makes.
 * flipkit common/: called by the outline (sim.c), never by a backend; a check that fails either
 * stops the substep (one line in s->error naming the stage) or leaves one warning for the CLI. */
#ifndef FLIPKIT_WATCH_H
#define FLIPKIT_WATCH_H

#include <stdbool.h>
#include <stddef.h>

typedef struct Sim Sim;

/* What the watch keeps between calls; zeroed by sim_init. */
typedef struct {
    double energy_before;   /* sum of face velocity^2 after gravity, before the projection */
    float start_speed;      /* the fastest particle at set-up and after each event (m/s) */
    char warning[512];      /* the latest warning, for the CLI to print once */
    bool warning_new;       /* set when warning changed; the CLI clears it */
    unsigned warned;        /* which warnings were given (each is given once per run) */
} SimWatch;

/* Host backend, after p2g: every face velocity is an average of particle velocities, so none
 * may be faster than the fastest particle along its axis. Returns 0, or -1 naming p2g. */
int watch_p2g(Sim *s);

/* Host backend, after gravity: a face may change by at most |gravity| dt (vel_old is the copy
 * made right after p2g, and nothing between changes a velocity). Returns 0, or -1. */
int watch_gravity(Sim *s, float dt);

/* Host backend: the projection takes the gradient of a pressure that removes divergence, which
 * never adds kinetic energy to the faces. watch_projection_start records it before the solve;
 * watch_projection, after gradient, stops a run whose projection added energy, naming the stage
 * whose sign is wrong when a one-cell probe of each suspect finds it. Returns 0, or -1. */
void watch_projection_start(Sim *s);
int watch_projection(Sim *s);

/* Both backends, from the speed the CFL step already reads: warns once when a particle is much
 * faster than its start and a fall across the whole box allow. */
void watch_speed(Sim *s, float vmax2);

/* Remembers the start speed of the particles from first on: those seeded at set-up (first = 0)
 * or by a frame's events, not those the run has sped up since. */
void watch_start(Sim *s, size_t first);

/* Both backends, at a frame's end (the host's particles are current): warns once when the
 * particles are piled into a few cells. */
void watch_frame(Sim *s);

#endif
