/* fielddiff.c — field comparison as text that points at the spot (see fielddiff.h).
 * flipkit tests/: shared by the stage suites (through compare.c) and by the grader, so a
 * student reads the same words from `make test` and from the grade report. */
#include "fielddiff.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
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

/* ---- which differences to show: where a student should look first ----------------------- */

/* rank: 0 where there is fluid, 1 air, 2 solid only; err: how far off (a NaN is the worst). */
typedef struct {
    size_t index;
    int rank;
    float err;
} Diff;

static int diff_order(const void *pa, const void *pb)
{
    const Diff *a = pa, *b = pb;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->err != b->err)
        return a->err > b->err ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

static float diff_error(float expected, float got)
{
    float e = fabsf(got - expected);
    return isnan(e) ? INFINITY : e;
}

/* The differing entries, fluid first, then largest first (then in index order); NULL with
 * *count set when there is no memory, and the caller lists them in index order instead. */
typedef struct {
    Diff *d;
    size_t count, cap;
} Diffs;

static void diffs_add(Diffs *ds, size_t index, int rank, float err)
{
    if (ds->count == ds->cap) {
        size_t cap = ds->cap ? 2 * ds->cap : 64;
        Diff *d = realloc(ds->d, cap * sizeof *d);
        if (!d) {
            ds->count++; /* counted, not listed */
            return;
        }
        ds->d = d, ds->cap = cap;
    }
    ds->d[ds->count++] = (Diff){ index, rank, err };
}

static size_t diffs_sorted(Diffs *ds)
{
    size_t listed = ds->count < ds->cap ? ds->count : ds->cap;
    if (ds->d)
        qsort(ds->d, listed, sizeof *ds->d, diff_order);
    return listed < COMPARE_SHOW ? listed : COMPARE_SHOW;
}

static int rank_of_cell(int type)
{
    return type == CELL_FLUID ? 0 : type == CELL_AIR ? 1 : 2;
}

static size_t report_finish(char *msg, size_t n, Report *r, const char *stage, const char *field,
                            size_t total, const char *unit, Tol tol)
{
    if (r->differing == 0)
        return 0;
    if (r->differing > COMPARE_SHOW)
        report_add(r, "\n  ... and %zu more", r->differing - COMPARE_SHOW);
    snprintf(msg, n, "%s: %s differs at %zu of %zu %s (tolerance %g + %g * |expected|; %s"
             "largest first):%s", stage, field, r->differing, total, unit, (double)tol.abs,
             (double)tol.rel, strcmp(unit, "particles") == 0 ? "" : "fluid first, then ", r->text);
    return r->differing;
}

const char *cell_type_name(int type)
{
    return grid_cell_type_name(type);
}

float max_abs(const float *v, size_t n)
{
    float m = 0.0f;
    for (size_t i = 0; i < n; i++)
        m = fabsf(v[i]) > m ? fabsf(v[i]) : m;
    return m;
}

size_t fielddiff_cells(char *msg, size_t n, const char *stage, const char *field, const MacGrid *g,
                       const float *expected, const float *got, Tol tol, Explain explain,
                       const void *ctx)
{
    Report r = { .len = 0, .differing = 0 };
    r.text[0] = '\0';
    Diffs ds = { 0 };
    for (size_t c = 0; c < grid_cells(g); c++)
        if (!within(expected[c], got[c], tol))
            diffs_add(&ds, c, rank_of_cell(g->cell[c]), diff_error(expected[c], got[c]));
    r.differing = ds.count;
    for (size_t q = 0, show = diffs_sorted(&ds); q < show; q++) {
        size_t c = ds.d[q].index;
        int i = (int)(c % (size_t)g->nx), j = (int)(c / (size_t)g->nx % (size_t)g->ny);
        int k = (int)(c / ((size_t)g->nx * (size_t)g->ny));
        report_add(&r, "\n  cell (%d,%d,%d) %s: expected %.7g, got %.7g", i, j, k,
                   cell_type_name(g->cell[c]), (double)expected[c], (double)got[c]);
        if (explain) {
            char extra[1024] = "";
            explain(extra, sizeof extra, g, i, j, k, ctx);
            report_add(&r, "%s", extra);
        }
    }
    free(ds.d);
    return report_finish(msg, n, &r, stage, field, grid_cells(g), "cells", tol);
}

size_t fielddiff_faces(char *msg, size_t n, const char *stage, const char *field, const MacGrid *g,
                       int a, const float *expected, const float *got, Tol tol)
{
    const int *fn = g->face[a].n;
    Report r = { .len = 0, .differing = 0 };
    r.text[0] = '\0';
    Diffs ds = { 0 };
    for (int k = 0; k < fn[2]; k++)
        for (int j = 0; j < fn[1]; j++)
            for (int i = 0; i < fn[0]; i++) {
                size_t f = grid_face_index(g, a, i, j, k);
                if (within(expected[f], got[f], tol))
                    continue;
                /* a face is as interesting as the more interesting of its two cells */
                int below = rank_of_cell(grid_face_below(g, a, i, j, k));
                int above = rank_of_cell(grid_face_above(g, a, i, j, k));
                diffs_add(&ds, f, below < above ? below : above, diff_error(expected[f], got[f]));
            }
    r.differing = ds.count;
    for (size_t q = 0, show = diffs_sorted(&ds); q < show; q++) {
        size_t f = ds.d[q].index;
        int i = (int)(f % (size_t)fn[0]), j = (int)(f / (size_t)fn[0] % (size_t)fn[1]);
        int k = (int)(f / ((size_t)fn[0] * (size_t)fn[1]));
        report_add(&r, "\n  %c(%d,%d,%d), the face between %s cell (%d,%d,%d) and %s cell "
                   "(%d,%d,%d): expected %.7g, got %.7g", grid_component_letter(a), i, j, k,
                   cell_type_name(grid_face_below(g, a, i, j, k)), i - (a == 0),
                   j - (a == 1), k - (a == 2), cell_type_name(grid_face_above(g, a, i, j, k)),
                   i, j, k, (double)expected[f], (double)got[f]);
    }
    free(ds.d);
    char what[96];
    snprintf(what, sizeof what, "%c %s", grid_component_letter(a), field);
    return report_finish(msg, n, &r, stage, what, grid_faces(g, a), "faces", tol);
}

size_t fielddiff_particles(char *msg, size_t n, const char *stage, const char *field,
                           const Vec3 *expected, const Vec3 *got, size_t count, Tol tol)
{
    Report r = { .len = 0, .differing = 0 };
    r.text[0] = '\0';
    Diffs ds = { 0 };
    for (size_t p = 0; p < count; p++) {
        const float e[3] = { expected[p].x, expected[p].y, expected[p].z };
        const float o[3] = { got[p].x, got[p].y, got[p].z };
        if (within(e[0], o[0], tol) && within(e[1], o[1], tol) && within(e[2], o[2], tol))
            continue;
        float err = fmaxf(diff_error(e[0], o[0]), fmaxf(diff_error(e[1], o[1]), diff_error(e[2], o[2])));
        diffs_add(&ds, p, 0, err);
    }
    r.differing = ds.count;
    for (size_t q = 0, show = diffs_sorted(&ds); q < show; q++) {
        size_t p = ds.d[q].index;
        report_add(&r, "\n  particle %zu: expected (%.7g, %.7g, %.7g), got (%.7g, %.7g, %.7g)", p,
                   (double)expected[p].x, (double)expected[p].y, (double)expected[p].z,
                   (double)got[p].x, (double)got[p].y, (double)got[p].z);
    }
    free(ds.d);
    return report_finish(msg, n, &r, stage, field, count, "particles", tol);
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

/* For a failing cell: the six face terms as stages.h defines them, so a student sees which
 * one is wrong (a swapped index, a sign, a solid face that should count 0). */
void explain_face_terms(char *buf, size_t n, const MacGrid *g, int i, int j, int k, const void *ctx)
{
    (void)ctx;
    size_t len = (size_t)snprintf(buf, n, "\n    div = (");
    for (int a = 0; a < 3 && len < n; a++)
        for (int side = 1; side >= 0 && len < n; side--) {
            int fi = i + (a == 0 && side), fj = j + (a == 1 && side), fk = k + (a == 2 && side);
            float v = g->vel[a][grid_face_index(g, a, fi, fj, fk)];
            if (grid_face_is_solid(g, a, fi, fj, fk))
                len += (size_t)snprintf(buf + len, n - len, " %c %c(%d,%d,%d)=0 [solid face; stored %g]",
                                        side ? '+' : '-', grid_component_letter(a), fi, fj, fk,
                                        (double)v);
            else
                len += (size_t)snprintf(buf + len, n - len, " %c %c(%d,%d,%d)=%g", side ? '+' : '-',
                                        grid_component_letter(a), fi, fj, fk, (double)v);
        }
    if (len < n)
        snprintf(buf + len, n - len, " ) / dx, dx = %g", (double)g->dx);
}
