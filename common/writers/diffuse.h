/* diffuse.h — spray, foam and bubble particles: a post-pass on each frame's liquid particles that
 * seeds them where the liquid is aerated, moves them by type, ages and removes them.
 * flipkit common/writers/: output.diffuse; after Ihmsen et al. 2012 (constants in diffuse.c). */
#ifndef FLIPKIT_DIFFUSE_H
#define FLIPKIT_DIFFUSE_H

#include <stddef.h>
#include <stdint.h>
#include "grid.h"
#include "particles.h"

typedef enum { DIFFUSE_SPRAY, DIFFUSE_FOAM, DIFFUSE_BUBBLE, DIFFUSE_TYPES } DiffuseType;
extern const char *const diffuse_type_names[DIFFUSE_TYPES];

/* The liquid as diffuse.c sees it: per cell, the particle count and the mean velocity. */
typedef struct {
    int n[3];
    float dx;
    float *count;           /* particles in the cell */
    Vec3 *vel;              /* their mean velocity; 0 where count is 0 */
    Vec3 *normal;           /* outward unit normal of the liquid, 0 away from the surface */
} DiffuseLiquid;

typedef struct {
    size_t count, capacity;
    size_t limit;           /* the most diffuse particles alive at once */
    Vec3 *pos, *vel;
    float *life;            /* seconds left; only foam ages */
    uint8_t *type;          /* DiffuseType */
    size_t seeded;          /* born so far */
    size_t dropped;         /* not seeded because the limit was reached */
    DiffuseLiquid liquid;   /* scratch, rebuilt each frame */
} Diffuse;

/* What a frame's step needs from the run. */
typedef struct {
    const MacGrid *grid;    /* nx, ny, nz, dx and the SOLID cells */
    Vec3 gravity;
    float dt;               /* the frame's length, 1 / frame_rate */
    int particles_per_cell;
    uint32_t seed;          /* the scene's */
    int frame;              /* the frame being made: the random numbers depend on it only */
} DiffuseFrame;

void diffuse_init(Diffuse *d, size_t limit);
void diffuse_free(Diffuse *d);

/* One frame: moves the diffuse particles over f->dt through the liquid (spray falls freely,
 * foam rides the liquid, bubbles rise against it), retypes them by where they are, ages the
 * foam, removes the expired and those that left the liquid's domain or hit a solid, then
 * seeds new ones where the liquid traps air or crests with enough kinetic energy, until
 * d->limit. Deterministic: the same inputs give the same particles in the same order.
 * Returns 0, or -1 with one line in err (out of memory). */
int diffuse_step(Diffuse *d, const Particles *liquid, const DiffuseFrame *f, char *err,
                 size_t errlen);

/* What a run's diffuse particles came to, for its summary. */
typedef struct {
    size_t alive, by_type[DIFFUSE_TYPES], seeded, dropped, limit;
} DiffuseTally;

void diffuse_tally(const Diffuse *d, DiffuseTally *t);

/* Binary little-endian PLY: element vertex with float x y z vx vy vz, uchar type (0 spray,
 * 1 foam, 2 bubble), float life; through path.tmp. Returns 0, or -1 with one line in err. */
int diffuse_write_ply(const Diffuse *d, const char *path, char *err, size_t errlen);

/* Reads back a file diffuse_write_ply wrote (a resumed run's diffuse particles) into d, whose
 * limit stays. Returns 0, 1 when the file does not exist, or -1 with one line in err. */
int diffuse_read_ply(Diffuse *d, const char *path, char *err, size_t errlen);

#endif
