/* fielddiff.h — comparing a stage's output with the expected one, as text that points at the spot.
 * flipkit tests/: no Check here, so the grader shares it; compare.h turns a difference into a
 * failed Check test. A text names the stage, the field, the cell (i,j,k), face or particle,
 * what was expected, what came out and the tolerance; the first few places, then a count. */
#ifndef FLIPKIT_FIELDDIFF_H
#define FLIPKIT_FIELDDIFF_H

#include <stddef.h>

#include "grid.h"

enum { COMPARE_SHOW = 5 };   /* differences listed in full before "... and N more" */

/* A value passes when |got - expected| <= abs + rel * |expected|. NaN and Inf never pass. */
typedef struct { float abs, rel; } Tol;

/* Adds lines to a failure text about one cell or face (e.g. the face terms of a cell's
 * divergence). buf has room for n characters; write nothing when there is nothing to add. */
typedef void (*Explain)(char *buf, size_t n, const MacGrid *g, int i, int j, int k, const void *ctx);

/* An Explain for cell stencils: the six neighbours of (i,j,k) with their type, their p (ctx is
 * the pressure array) and whether they count in the sum and in N, as stages.h defines them. */
void explain_neighbours(char *buf, size_t n, const MacGrid *g, int i, int j, int k, const void *ctx);
/* An Explain for divergence: the six face terms of (i,j,k), solid faces marked (ctx unused). */
void explain_face_terms(char *buf, size_t n, const MacGrid *g, int i, int j, int k, const void *ctx);

/* "FLUID", "AIR" or "SOLID". */
const char *cell_type_name(int type);

/* Each compares every entry and returns how many differ. When any do, it writes the failure
 * text into msg (room for n characters): "stage: field differs at D of T cells (tolerance ...):"
 * and COMPARE_SHOW places: those at a FLUID cell first, then AIR, then SOLID-only ones (a face
 * counts as its more interesting cell), and among them the largest errors first, so a student
 * reads where to look before the walls. msg is left alone when nothing differs. */
size_t fielddiff_cells(char *msg, size_t n, const char *stage, const char *field, const MacGrid *g,
                       const float *expected, const float *got, Tol tol, Explain explain,
                       const void *ctx);
/* Component a (0 = u, 1 = v, 2 = w) of a face field. field is e.g. "velocity" or "weight". */
size_t fielddiff_faces(char *msg, size_t n, const char *stage, const char *field, const MacGrid *g,
                       int a, const float *expected, const float *got, Tol tol);
/* Particle vectors (positions or velocities), by particle index. */
size_t fielddiff_particles(char *msg, size_t n, const char *stage, const char *field,
                           const Vec3 *expected, const Vec3 *got, size_t count, Tol tol);

/* The largest |v| over n floats, for tolerances relative to a field's size. */
float max_abs(const float *v, size_t n);

#endif
