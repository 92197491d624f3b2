/* compare.c — field comparison with failure messages that point at the spot.
 * flipkit tests/: the message is built first and the test fails once with all of it, so a
 * student sees every listed difference, not only the first assertion that tripped. */
#include "compare.h"

#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    char text[8192];
    size_t len;
    size_t differing;
} Report;

static void report_add(Report *r, const char *fmt, ...)
{
    if (r->len >= sizeof r->text - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(r->text + r->len, sizeof r->text - r->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        r->len += (size_t)n < sizeof r->text - r->len ? (size_t)n : sizeof r->text - r->len - 1;
}

static bool within(float expected, float got, Tol tol)
{
    if (!isfinite(got))
        return false;
    return fabsf(got - expected) <= tol.abs + tol.rel * fabsf(expected);
}

static void report_finish(const char *file, int line, Report *r, const char *stage, const char *field, size_t total,
                          const char *unit, Tol tol)
{
    if (r->differing == 0)
        return;
    if (r->differing > COMPARE_SHOW)
        report_add(r, "\n  ... and %zu more", r->differing - COMPARE_SHOW);
    _ck_assert_failed(file, line, "Failed", "%s: %s differs at %zu of %zu %s (tolerance %g + %g * "
                      "|expected|):%s", stage, field, r->differing, total, unit, (double)tol.abs,
                      (double)tol.rel, r->text);
}

const char *cell_type_name(int type)
{
    return type == CELL_FLUID ? "FLUID" : type == CELL_AIR ? "AIR" : type == CELL_SOLID ? "SOLID" : "?";
}

float max_abs(const float *v, size_t n)
{
    float m = 0.0f;
    for (size_t i = 0; i < n; i++)
        m = fabsf(v[i]) > m ? fabsf(v[i]) : m;
    return m;
}

void compare_cells_at(const char *file, int line, const char *stage, const char *field,
                      const MacGrid *g, const float *expected,
                   const float *got, Tol tol, Explain explain, const void *ctx)
{
    Report r = { .len = 0, .differing = 0 };
    r.text[0] = '\0';
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                size_t c = grid_cell_index(g, i, j, k);
                if (within(expected[c], got[c], tol))
                    continue;
                if (++r.differing > COMPARE_SHOW)
                    continue;
                report_add(&r, "\n  cell (%d,%d,%d) %s: expected %.7g, got %.7g", i, j, k,
                           cell_type_name(g->cell[c]), (double)expected[c], (double)got[c]);
                if (explain) {
                    char extra[1024] = "";
                    explain(extra, sizeof extra, g, i, j, k, ctx);
                    report_add(&r, "%s", extra);
                }
            }
    report_finish(file, line, &r, stage, field, grid_cells(g), "cells", tol);
}

void compare_faces_at(const char *file, int line, const char *stage, const char *field,
                      const MacGrid *g, int a,
                   const float *expected, const float *got, Tol tol)
{
    static const char letters[3] = { 'u', 'v', 'w' };
    const int *n = g->face[a].n;
    Report r = { .len = 0, .differing = 0 };
    r.text[0] = '\0';
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++) {
                size_t f = grid_face_index(g, a, i, j, k);
                if (within(expected[f], got[f], tol))
                    continue;
                if (++r.differing > COMPARE_SHOW)
                    continue;
                report_add(&r, "\n  %c(%d,%d,%d), the face between %s cell (%d,%d,%d) and %s cell "
                           "(%d,%d,%d): expected %.7g, got %.7g", letters[a], i, j, k,
                           cell_type_name(grid_face_below(g, a, i, j, k)), i - (a == 0),
                           j - (a == 1), k - (a == 2), cell_type_name(grid_face_above(g, a, i, j, k)),
                           i, j, k, (double)expected[f], (double)got[f]);
            }
    char what[96];
    snprintf(what, sizeof what, "%c %s", letters[a], field);
    report_finish(file, line, &r, stage, what, grid_faces(g, a), "faces", tol);
}

void compare_faces3_at(const char *file, int line, const char *stage, const char *field, const MacGrid *g,
                    const float *const expected[3], float *const got[3], Tol tol)
{
    for (int a = 0; a < 3; a++)
        compare_faces_at(file, line, stage, field, g, a, expected[a], got[a], tol);
}

void compare_particles_at(const char *file, int line, const char *stage, const char *field,
                          const Vec3 *expected,
                       const Vec3 *got, size_t count, Tol tol)
{
    Report r = { .len = 0, .differing = 0 };
    r.text[0] = '\0';
    for (size_t p = 0; p < count; p++) {
        const float e[3] = { expected[p].x, expected[p].y, expected[p].z };
        const float o[3] = { got[p].x, got[p].y, got[p].z };
        if (within(e[0], o[0], tol) && within(e[1], o[1], tol) && within(e[2], o[2], tol))
            continue;
        if (++r.differing > COMPARE_SHOW)
            continue;
        report_add(&r, "\n  particle %zu: expected (%.7g, %.7g, %.7g), got (%.7g, %.7g, %.7g)", p,
                   (double)e[0], (double)e[1], (double)e[2], (double)o[0], (double)o[1], (double)o[2]);
    }
    report_finish(file, line, &r, stage, field, count, "particles", tol);
}

void explain_neighbours(char *buf, size_t n, const MacGrid *g, int i, int j, int k, const void *ctx)
{
    static const int nb[6][3] = { { -1, 0, 0 }, { 1, 0, 0 }, { 0, -1, 0 },
                                  { 0, 1, 0 },  { 0, 0, -1 }, { 0, 0, 1 } };
    const float *p = ctx;
    size_t len = (size_t)snprintf(buf, n, "\n    p here = %.7g; neighbours:", (double)p[grid_cell_index(g, i, j, k)]);
    int count = 0;
    for (int q = 0; q < 6 && len < n; q++) {
        int ni = i + nb[q][0], nj = j + nb[q][1], nk = k + nb[q][2];
        int t = grid_cell_type(g, ni, nj, nk);
        count += t != CELL_SOLID;
        const char *role = t == CELL_FLUID ? "in the sum and in N"
                           : t == CELL_AIR ? "p = 0, counts in N" : "dropped (not in N)";
        if (t == CELL_SOLID && (ni < 0 || nj < 0 || nk < 0 || ni >= g->nx || nj >= g->ny || nk >= g->nz))
            len += (size_t)snprintf(buf + len, n - len, " (%d,%d,%d) outside: %s;", ni, nj, nk, role);
        else
            len += (size_t)snprintf(buf + len, n - len, " (%d,%d,%d) %s p=%.7g: %s;", ni, nj, nk,
                                    cell_type_name(t), (double)p[grid_cell_index(g, ni, nj, nk)], role);
    }
    if (len < n)
        snprintf(buf + len, n - len, " so N = %d, dx = %g", count, (double)g->dx);
}
