/* compare.c — field comparison as a failed Check test (see compare.h).
 * flipkit tests/: the text is fielddiff.c's; here it only becomes one failure at the caller's
 * line, so a student sees every listed difference, not only the first assertion that tripped. */
#include "compare.h"

#include <check.h>

enum { MSG_MAX = 9216 };

static void fail_if_any(const char *file, int line, size_t differing, const char *msg)
{
    if (differing > 0)
        _ck_assert_failed(file, line, "Failed", "%s", msg);
}

void compare_cells_at(const char *file, int line, const char *stage, const char *field,
                      const MacGrid *g, const float *expected, const float *got, Tol tol,
                      Explain explain, const void *ctx)
{
    static char msg[MSG_MAX];
    fail_if_any(file, line, fielddiff_cells(msg, sizeof msg, stage, field, g, expected, got, tol,
                                            explain, ctx), msg);
}

void compare_faces_at(const char *file, int line, const char *stage, const char *field,
                      const MacGrid *g, int a, const float *expected, const float *got, Tol tol)
{
    static char msg[MSG_MAX];
    fail_if_any(file, line, fielddiff_faces(msg, sizeof msg, stage, field, g, a, expected, got, tol),
                msg);
}

void compare_faces3_at(const char *file, int line, const char *stage, const char *field,
                       const MacGrid *g, const float *const expected[3], float *const got[3], Tol tol)
{
    for (int a = 0; a < 3; a++)
        compare_faces_at(file, line, stage, field, g, a, expected[a], got[a], tol);
}

void compare_particles_at(const char *file, int line, const char *stage, const char *field,
                          const Vec3 *expected, const Vec3 *got, size_t count, Tol tol)
{
    static char msg[MSG_MAX];
    fail_if_any(file, line, fielddiff_particles(msg, sizeof msg, stage, field, expected, got,
                                                count, tol), msg);
}
