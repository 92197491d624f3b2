/* scene.h — a scene: the grid, the physics settings, the fluid and solid shapes, the events.
 * flipkit common/: loaded from strict JSON (see scenes/README.md for the schema). Every
 * error is one line naming the file and the place, e.g. "scenes/x.json: grid.cell_size: ...". */
#ifndef FLIPKIT_SCENE_H
#define FLIPKIT_SCENE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include "grid.h"

typedef enum { SHAPE_BOX, SHAPE_SPHERE } ShapeKind;

typedef struct {
    ShapeKind kind;
    Vec3 min, max;      /* box corners (world units); for a sphere its bounding box */
    Vec3 center;        /* sphere only */
    float radius;       /* sphere only */
    Vec3 velocity;      /* initial velocity of fluid seeded in this shape; default 0 */
} Shape;

typedef struct {
    int frame;          /* fires when the simulation reaches time frame/frame_rate */
    Shape *fluid;
    int nfluid;
} SceneEvent;

struct SolveHistory; /* track.h */

typedef struct {
    char solver[16];    /* jacobi | gauss_seidel | sor | pcg (reference track) */
    int iterations;     /* at most this many iterations per solve */
    double tolerance;   /* relative residual |b - Lp| / |b| to stop at */
    float jacobi_omega; /* weight of the Jacobi sweep (1 = plain Jacobi) */
    float sor_omega;    /* over-relaxation of the given Gauss-Seidel (1 = plain Gauss-Seidel) */
} PressureSettings;

typedef struct {
    char *path;         /* file it was loaded from, or the origin name given */
    char *name;
    char *description;
    int resolution[3];
    float cell_size;
    Vec3 gravity;       /* m/s^2 */
    float density;      /* kg/m^3 */
    double frame_rate;  /* frames per second */
    int frames;
    float cfl;          /* most cells any particle may travel in one substep */
    float pic_flip_alpha; /* 1 = PIC, 0 = FLIP */
    int particles_per_cell; /* a cube: 1, 8, 27, ... */
    uint32_t seed;
    PressureSettings pressure;
    bool use_gauss_seidel;
    /* Production stepping (the optional "production" group): on a track that has the
     * reference's particle step (Track.advect_grid), particles move through the projected grid
     * velocity with an RK2 or RK3 step and a substep may cross production.cfl cells. order 0:
     * no such group (or "integrator": "none"), the track's advect stage at cfl as always. The
     * student track and every mixed track ignore it. */
    struct {
        int order;      /* 0, 2 or 3 */
        float cfl;      /* replaces cfl when order > 0 */
    } production;
    Shape *fluid;   int nfluid;
    Shape *solids;  int nsolids;
    SceneEvent *events; int nevents;
    struct {            /* which files each frame writes */
        bool particles, surface, usd, preview, bricks, diffuse, surface_anisotropic;
        float brick_cells[3];   /* a brick's width, height, depth in cells */
        int diffuse_max;        /* the most diffuse particles alive at once */
        int surface_refine;     /* both surfaces' fine grid: this many cells per sim cell and
                                 * axis, 1..SCENE_SURFACE_REFINE_MAX (surface.h's refine) */
    } output;
    char *json;         /* the effective scene (defaults and overrides applied) as canonical
                         * JSON: sorted keys, compact, reals to 17 digits, so that
                         * scene_load_text(json) gives this same Scene back */
} Scene;

/* The largest output.surface_refine (surface.h's SURFACE_MAX_REFINE, checked equal in output.c). */
enum { SCENE_SURFACE_REFINE_MAX = 8 };

/* Room for any message but one quoting a very long key (such a message is cut, still one line). */
enum { SCENE_ERR_MAX = 1024 };

/* Loads and validates a scene. overrides are "key.path=value" strings (value is JSON, or a
 * bare string) applied before validation, like --set. On error returns -1 and writes one line
 * (no newline) to err; the scene is then empty and scene_free is still safe. out is
 * overwritten, not freed: scene_free a loaded scene before loading into it again. */
int scene_load(const char *path, const char *const *overrides, int noverrides,
               Scene *out, char *err, size_t errlen);
/* The same from JSON text; origin names it in error messages (e.g. the state file). */
int scene_load_text(const char *text, const char *origin, const char *const *overrides,
                    int noverrides, Scene *out, char *err, size_t errlen);
void scene_free(Scene *s);

/* The effective value of a dotted key (e.g. "frame_rate", "grid.resolution.0") as text:
 * strings bare, numbers as the shortest text that reads back exactly, arrays and objects
 * as compact JSON. Returns 0, or -1 when the scene has no such key. */
int scene_value_text(const Scene *s, const char *key, char *buf, size_t n);

/* Prints every key with its default and meaning, for --help. */
void scene_print_schema(FILE *out);

/* The names pressure.solver accepts, NULL-terminated. */
extern const char *const scene_solver_names[];

#endif
