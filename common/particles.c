/* particles.c — the particle arrays and the portable RNG used for seeding.
 * flipkit common/: growth doubles the capacity so seeding millions of particles stays
 * linear; splitmix64 makes the same seed give the same particles on every machine. */
#include "particles.h"

#include <stdint.h>
#include <stdlib.h>

void part_init(Particles *ps)
{
    *ps = (Particles){ 0 };
}

void part_free(Particles *ps)
{
    free(ps->pos);
    free(ps->vel);
    part_init(ps);
}

int part_reserve(Particles *ps, size_t n)
{
    if (n <= ps->capacity)
        return 0;
    if (n > SIZE_MAX / 2 / sizeof(Vec3))
        return -1; /* doubling below would overflow */
    size_t cap = ps->capacity ? ps->capacity : 1024;
    while (cap < n)
        cap *= 2;
    Vec3 *pos = realloc(ps->pos, cap * sizeof *pos);
    if (!pos)
        return -1;
    ps->pos = pos;
    Vec3 *vel = realloc(ps->vel, cap * sizeof *vel);
    if (!vel)
        return -1;
    ps->vel = vel;
    ps->capacity = cap;
    return 0;
}

int part_push(Particles *ps, Vec3 pos, Vec3 vel)
{
    if (part_reserve(ps, ps->count + 1) != 0)
        return -1;
    ps->pos[ps->count] = pos;
    ps->vel[ps->count] = vel;
    ps->count++;
    return 0;
}

Rng rng_seeded(uint64_t seed)
{
    Rng r = { seed };
    return r;
}

float rng_uniform(Rng *r)
{
    /* splitmix64 (Steele, Lea & Flood 2014): one add, three xor-shift-multiplies. */
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (float)(z >> 40) * (1.0f / 16777216.0f); /* 24 bits: exact in a float, < 1 */
}
