/* metrics.c — frame metrics: particle count, centre of mass, height quantiles, cell overlap.
 * flipkit grader/: each is in cells, not metres, so one threshold suits every scene; the
 * limits come from grader/config, calibrated on the reference in C against OpenCL. Motion is
 * there because the others forgive small differences, and a pipeline whose particles never
 * move differs only a little from the reference in the first frames. */
#include "metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void centre_of_mass(const Particles *ps, double c[3])
{
    c[0] = c[1] = c[2] = 0.0;
    for (size_t p = 0; p < ps->count; p++) {
        c[0] += ps->pos[p].x;
        c[1] += ps->pos[p].y;
        c[2] += ps->pos[p].z;
    }
    for (int a = 0; a < 3 && ps->count; a++)
        c[a] /= (double)ps->count;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Heights sorted ascending (NULL when out of memory or empty). */
static float *sorted_heights(const Particles *ps)
{
    float *y = ps->count ? malloc(ps->count * sizeof *y) : NULL;
    if (!y)
        return NULL;
    for (size_t p = 0; p < ps->count; p++)
        y[p] = ps->pos[p].y;
    qsort(y, ps->count, sizeof *y, cmp_float);
    return y;
}

static double quantile(const float *sorted, size_t n, double q)
{
    double at = q * (double)(n - 1);
    size_t lo = (size_t)at;
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    return sorted[lo] + (at - (double)lo) * (sorted[hi] - sorted[lo]);
}

static double height_difference(const GradeConfig *c, const Particles *s, const Particles *r)
{
    float *ys = sorted_heights(s), *yr = sorted_heights(r);
    double worst = ys && yr ? 0.0 : INFINITY;
    for (int i = 0; i < c->nquantiles && ys && yr; i++) {
        double d = fabs(quantile(ys, s->count, c->quantiles[i]) - quantile(yr, r->count, c->quantiles[i]));
        worst = d > worst ? d : worst;
    }
    free(ys);
    free(yr);
    return worst;
}

static long cell_of(const MetricGrid *g, Vec3 x)
{
    float v[3] = { x.x, x.y, x.z };
    long idx[3];
    for (int a = 0; a < 3; a++) {
        if (!isfinite(v[a]))
            return -1;
        long i = (long)floorf(v[a] / g->dx);
        idx[a] = i < 0 ? 0 : i >= g->n[a] ? g->n[a] - 1 : i;
    }
    return idx[0] + (long)g->n[0] * (idx[1] + (long)g->n[1] * idx[2]);
}

/* Bit 1: some student particle in the cell; bit 2: some reference particle. */
static double overlap(const MetricGrid *g, const Particles *s, const Particles *r)
{
    size_t cells = (size_t)g->n[0] * g->n[1] * g->n[2];
    unsigned char *occ = calloc(cells, 1);
    if (!occ)
        return 0.0;
    for (size_t p = 0; p < s->count; p++) {
        long c = cell_of(g, s->pos[p]);
        if (c >= 0)
            occ[c] |= 1;
    }
    for (size_t p = 0; p < r->count; p++) {
        long c = cell_of(g, r->pos[p]);
        if (c >= 0)
            occ[c] |= 2;
    }
    size_t both = 0, either = 0;
    for (size_t c = 0; c < cells; c++) {
        both += occ[c] == 3;
        either += occ[c] != 0;
    }
    free(occ);
    return either ? (double)both / (double)either : 1.0;
}

static bool all_finite(const Particles *ps)
{
    for (size_t p = 0; p < ps->count; p++)
        if (!isfinite(ps->pos[p].x) || !isfinite(ps->pos[p].y) || !isfinite(ps->pos[p].z))
            return false;
    return true;
}

/* Mean |x(now) - x(start)| over particles (both keep their order from seeding), in metres. */
static double mean_displacement(Frame f)
{
    if (f.now->count != f.start->count || f.now->count == 0)
        return -1.0;
    double sum = 0.0;
    for (size_t p = 0; p < f.now->count; p++) {
        double dx = f.now->pos[p].x - f.start->pos[p].x, dy = f.now->pos[p].y - f.start->pos[p].y,
               dz = f.now->pos[p].z - f.start->pos[p].z;
        sum += sqrt(dx * dx + dy * dy + dz * dz);
    }
    return sum / (double)f.now->count;
}

/* Student's displacement over the reference's; 1 while the reference has moved < 0.01 cell. */
static double motion_ratio(const MetricGrid *g, Frame s, Frame r)
{
    double ds = mean_displacement(s), dr = mean_displacement(r);
    if (ds < 0.0 || dr < 0.0)
        return 1.0;   /* counts differ: the count metric judges that, when it is on */
    return dr < 0.01 * g->dx ? 1.0 : ds / dr;
}

static bool fails(GradeFrameFail *fail, const char *metric, double got, double limit)
{
    snprintf(fail->metric, sizeof fail->metric, "%s", metric);
    fail->got = got;
    fail->limit = limit;
    return false;
}

bool metrics_compare(const GradeConfig *c, const MetricGrid *g, Frame sf, Frame rf, FrameMetrics *m,
                     GradeFrameFail *fail)
{
    const Particles *s = sf.now, *r = rf.now;
    memset(m, 0, sizeof *m);
    m->count_student = (long)s->count;
    m->count_reference = (long)r->count;
    if (!all_finite(s))
        return fails(fail, "finite positions (a particle is NaN or Inf)", 0, 0);
    if (s->count == 0 || r->count == 0 || (c->metric_count && s->count != r->count))
        return fails(fail, "particle count", (double)s->count, (double)r->count);
    double cs[3], cr[3];
    centre_of_mass(s, cs);
    centre_of_mass(r, cr);
    m->centre_cells = sqrt((cs[0] - cr[0]) * (cs[0] - cr[0]) + (cs[1] - cr[1]) * (cs[1] - cr[1]) +
                           (cs[2] - cr[2]) * (cs[2] - cr[2])) / g->dx;
    m->height_cells = height_difference(c, s, r) / g->dx;
    m->overlap = overlap(g, s, r);
    m->motion = motion_ratio(g, sf, rf);
    if (m->centre_cells > c->centre_cells)
        return fails(fail, "centre of mass (cells off)", m->centre_cells, c->centre_cells);
    if (m->height_cells > c->height_cells)
        return fails(fail, "height quantile (cells off)", m->height_cells, c->height_cells);
    if (m->overlap < c->overlap)
        return fails(fail, "occupied-cell overlap", m->overlap, c->overlap);
    if (m->motion < 1.0 / c->motion || m->motion > c->motion)
        return fails(fail, "motion since frame 0 (student / reference)", m->motion,
                     m->motion < 1.0 ? 1.0 / c->motion : c->motion);
    return true;
}
