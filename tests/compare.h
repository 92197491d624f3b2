/* compare.h — comparing a stage's output with the expected one, and saying where it differs.
 * flipkit tests/: a failure names the stage, the field, the cell (i,j,k), face or particle,
 * what was expected, what came out and the tolerance; the first few places, then a count. */
#ifndef FLIPKIT_COMPARE_H
#define FLIPKIT_COMPARE_H

#include <stddef.h>

#include "grid.h"

enum { COMPARE_SHOW = 5 };   /* differences listed in full before "... and N more" */

/* A value passes when |got - expected| <= abs + rel * |expected|. NaN and Inf never pass. */
typedef struct { float abs, rel; } Tol;

/* Adds lines to a failure message about one cell or face (e.g. the face terms of a cell's
 * divergence). buf has room for n characters; write nothing when there is nothing to add. */
typedef void (*Explain)(char *buf, size_t n, const MacGrid *g, int i, int j, int k, const void *ctx);

/* An Explain for cell stencils: the six neighbours of (i,j,k) with their type, their p (ctx is
 * the pressure array) and whether they count in the sum and in N, as stages.h defines them. */
void explain_neighbours(char *buf, size_t n, const MacGrid *g, int i, int j, int k, const void *ctx);

/* "FLUID", "AIR" or "SOLID". */
const char *cell_type_name(int type);

/* Each compares every entry and, if any differ, fails the current test with one message
 * listing the first COMPARE_SHOW differences. stage and field name them in the message. */
void compare_cells_at(const char *file, int line, const char *stage, const char *field,
                      const MacGrid *g, const float *expected,
                   const float *got, Tol tol, Explain explain, const void *ctx);
/* Component a (0 = u, 1 = v, 2 = w) of a face field. field is e.g. "velocity" or "weight". */
void compare_faces_at(const char *file, int line, const char *stage, const char *field,
                      const MacGrid *g, int a,
                   const float *expected, const float *got, Tol tol);
/* All three components, u then v then w. */
void compare_faces3_at(const char *file, int line, const char *stage, const char *field, const MacGrid *g,
                    const float *const expected[3], float *const got[3], Tol tol);
/* Particle vectors (positions or velocities), by particle index. */
void compare_particles_at(const char *file, int line, const char *stage, const char *field,
                          const Vec3 *expected,
                       const Vec3 *got, size_t count, Tol tol);

/* The failure points at the test's own line, not at this file. */
#define compare_cells(...) compare_cells_at(__FILE__, __LINE__, __VA_ARGS__)
#define compare_faces(...) compare_faces_at(__FILE__, __LINE__, __VA_ARGS__)
#define compare_faces3(...) compare_faces3_at(__FILE__, __LINE__, __VA_ARGS__)
#define compare_particles(...) compare_particles_at(__FILE__, __LINE__, __VA_ARGS__)

/* The largest |v| over n floats, for tolerances relative to a field's size. */
float max_abs(const float *v, size_t n);

#endif
