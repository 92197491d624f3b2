/* particles.h — the particle set: positions and velocities, structure of arrays.
 * flipkit common/: particles carry the fluid; the grid only helps them stay incompressible.
 * Seeding is deterministic: the same shapes and seed give the same particles, bit for bit. */
#ifndef FLIPKIT_PARTICLES_H
#define FLIPKIT_PARTICLES_H

#include <stddef.h>
#include <stdint.h>
#include "grid.h"

typedef struct {
    size_t count, capacity;
    Vec3 *pos;   /* world position, metres */
    Vec3 *vel;   /* velocity, m/s */
} Particles;

void part_init(Particles *ps);
void part_free(Particles *ps);
/* Makes room for n particles; returns 0, or -1 when out of memory. */
int part_reserve(Particles *ps, size_t n);
int part_push(Particles *ps, Vec3 pos, Vec3 vel);

/* A small, fast, portable RNG (splitmix64) so seeding is the same on every machine. */
typedef struct { uint64_t state; } Rng;
Rng rng_seeded(uint64_t seed);
float rng_uniform(Rng *r); /* in [0, 1) */

#endif
