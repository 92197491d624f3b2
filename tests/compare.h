/* compare.h — a stage's output against the expected one, as a failed Check test.
 * flipkit tests/: the text comes from fielddiff.h (shared with the grader); the failure points
 * at the test's own line. The message is built first, so a student sees every listed place. */
#ifndef FLIPKIT_COMPARE_H
#define FLIPKIT_COMPARE_H

#include "fielddiff.h"

void compare_cells_at(const char *file, int line, const char *stage, const char *field,
                      const MacGrid *g, const float *expected, const float *got, Tol tol,
                      Explain explain, const void *ctx);
void compare_faces_at(const char *file, int line, const char *stage, const char *field,
                      const MacGrid *g, int a, const float *expected, const float *got, Tol tol);
/* All three components, u then v then w. */
void compare_faces3_at(const char *file, int line, const char *stage, const char *field,
                       const MacGrid *g, const float *const expected[3], float *const got[3], Tol tol);
void compare_particles_at(const char *file, int line, const char *stage, const char *field,
                          const Vec3 *expected, const Vec3 *got, size_t count, Tol tol);

#define compare_cells(...) compare_cells_at(__FILE__, __LINE__, __VA_ARGS__)
#define compare_faces(...) compare_faces_at(__FILE__, __LINE__, __VA_ARGS__)
#define compare_faces3(...) compare_faces3_at(__FILE__, __LINE__, __VA_ARGS__)
#define compare_particles(...) compare_particles_at(__FILE__, __LINE__, __VA_ARGS__)

#endif
