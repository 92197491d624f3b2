/* metrics.c — frame metrics: particle count, centre of mass, height quantiles, cell overlap.
 * flipkit grader/: each is in cells, not metres, so one threshold suits every scene; the
 * limits come from grader/config, calibrated on the reference in C against OpenCL. Motion is
 * there because the others forgive small differences, and a pipeline whose particles never
 * move differs only a little from the reference in the first frames. */
#include "metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ply.h"

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

static size_t grid_cells_of(const MetricGrid *g)
{
    return (size_t)g->n[0] * g->n[1] * g->n[2];
}

/* Bit 1: some student particle in the cell; bit 2: some reference particle (from its summary). */
static double overlap(const MetricGrid *g, const Particles *s, const unsigned char *r)
{
    size_t cells = grid_cells_of(g);
    unsigned char *occ = calloc(cells, 1);
    if (!occ || !r) {
        free(occ);
        return 0.0;
    }
    for (size_t p = 0; p < s->count; p++) {
        long c = cell_of(g, s->pos[p]);
        if (c >= 0)
            occ[c] |= 1;
    }
    size_t both = 0, either = 0;
    for (size_t c = 0; c < cells; c++) {
        occ[c] |= r[c] ? 2 : 0;
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
static double motion_ratio(const MetricGrid *g, Frame s, double dr)
{
    double ds = mean_displacement(s);
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

bool metrics_summarise(const GradeConfig *c, const MetricGrid *g, Frame f, FrameSummary *out)
{
    memset(out, 0, sizeof *out);
    const Particles *r = f.now;
    out->count = (long)r->count;
    out->finite = all_finite(r);
    centre_of_mass(r, out->centre);
    out->nquantiles = c->nquantiles;
    float *y = sorted_heights(r);
    for (int i = 0; i < c->nquantiles; i++)
        out->heights[i] = y ? quantile(y, r->count, c->quantiles[i]) : NAN;
    free(y);
    out->displacement = mean_displacement(f);
    out->occupied = calloc(grid_cells_of(g), 1);
    if (!out->occupied)
        return false;
    for (size_t p = 0; p < r->count; p++) {
        long cell = cell_of(g, r->pos[p]);
        if (cell >= 0)
            out->occupied[cell] = 1;
    }
    return true;
}

void metrics_summary_free(FrameSummary *s)
{
    free(s->occupied);
    s->occupied = NULL;
}

/* The largest |quantile difference| of y, m (infinite when either side has no particle). */
static double height_difference(const GradeConfig *c, const Particles *s, const FrameSummary *r)
{
    float *ys = sorted_heights(s);
    double worst = ys && r->count ? 0.0 : INFINITY;
    for (int i = 0; i < c->nquantiles && ys && r->count; i++) {
        double d = fabs(quantile(ys, s->count, c->quantiles[i]) - r->heights[i]);
        worst = d > worst ? d : worst;
    }
    free(ys);
    return worst;
}

bool metrics_compare_summary(const GradeConfig *c, const MetricGrid *g, Frame sf, const FrameSummary *r,
                             FrameMetrics *m, GradeFrameFail *fail)
{
    const Particles *s = sf.now;
    memset(m, 0, sizeof *m);
    m->count_student = (long)s->count;
    m->count_reference = r->count;
    if (!all_finite(s))
        return fails(fail, "finite positions (a particle is NaN or Inf)", 0, 0);
    if (s->count == 0 || r->count == 0 || (c->metric_count && (long)s->count != r->count))
        return fails(fail, "particle count", (double)s->count, (double)r->count);
    double cs[3];
    centre_of_mass(s, cs);
    const double *cr = r->centre;
    m->centre_cells = sqrt((cs[0] - cr[0]) * (cs[0] - cr[0]) + (cs[1] - cr[1]) * (cs[1] - cr[1]) +
                           (cs[2] - cr[2]) * (cs[2] - cr[2])) / g->dx;
    m->height_cells = height_difference(c, s, r) / g->dx;
    m->overlap = overlap(g, s, r->occupied);
    m->motion = motion_ratio(g, sf, r->displacement);
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

bool metrics_compare(const GradeConfig *c, const MetricGrid *g, Frame sf, Frame rf, FrameMetrics *m,
                     GradeFrameFail *fail)
{
    FrameSummary r;
    bool ok = metrics_summarise(c, g, rf, &r) && metrics_compare_summary(c, g, sf, &r, m, fail);
    if (!r.occupied && !ok) {
        memset(m, 0, sizeof *m);
        fails(fail, "out of memory", 0, 0);
    }
    metrics_summary_free(&r);
    return ok;
}

int metrics_summarise_frames(const GradeConfig *c, const MetricGrid *g, const char *dir, FrameSummary *out,
                             int n, char *err, size_t errn)
{
    Particles r0, rf;
    part_init(&r0);
    part_init(&rf);
    int f = 0;
    for (; f < n; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%06d.ply", dir, f);
        Particles *now = f == 0 ? &r0 : &rf;
        if (ply_read_particles(path, now, err, errn) != 0)
            break;
        if (!metrics_summarise(c, g, (Frame){ now, &r0 }, &out[f])) {
            snprintf(err, errn, "%s: out of memory", path);
            f++;
            break;
        }
    }
    part_free(&r0);
    part_free(&rf);
    if (f == n && out[n - 1].occupied)
        return 0;
    for (int i = 0; i < f; i++)
        metrics_summary_free(&out[i]);
    return -1;
}

/* ---- summaries on disk ---------------------------------------------------------------------- */

#define METRICS_MAGIC "flipkit-metrics 1"

static void write_occupied(FILE *f, const MetricGrid *g, const unsigned char *occ)
{
    size_t cells = grid_cells_of(g), runs = 0;
    for (size_t c = 0; c < cells; c++)
        runs += occ[c] && (c == 0 || !occ[c - 1]);
    fprintf(f, " occupied %zu", runs);
    for (size_t c = 0; c < cells; c++)
        if (occ[c] && (c == 0 || !occ[c - 1])) {
            size_t end = c;
            while (end < cells && occ[end])
                end++;
            fprintf(f, " %zu %zu", c, end - c);
        }
}

int metrics_write_summaries(const char *path, const char *run, const GradeConfig *c, const MetricGrid *g,
                            const FrameSummary *frames, int n, char *err, size_t errn)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return snprintf(err, errn, "%s: cannot write", path), -1;
    fprintf(f, "%s %s\ngrid %d %d %d %.9g\nquantiles", METRICS_MAGIC, run, g->n[0], g->n[1], g->n[2],
            (double)g->dx);
    for (int i = 0; i < c->nquantiles; i++)
        fprintf(f, " %.17g", c->quantiles[i]);
    fprintf(f, "\nframes %d\n", n);
    for (int k = 0; k < n; k++) {
        const FrameSummary *s = &frames[k];
        fprintf(f, "frame %d count %ld finite %d centre %.17g %.17g %.17g heights", k, s->count, s->finite,
                s->centre[0], s->centre[1], s->centre[2]);
        for (int i = 0; i < s->nquantiles; i++)
            fprintf(f, " %.17g", s->heights[i]);
        fprintf(f, " displacement %.17g", s->displacement);
        write_occupied(f, g, s->occupied);
        fputc('\n', f);
    }
    if (fclose(f) != 0)
        return snprintf(err, errn, "%s: cannot write", path), -1;
    return 0;
}

/* One frame line of the file into *s; false when it is not what the writer writes. */
static bool read_frame(FILE *f, const MetricGrid *g, int want, int nq, FrameSummary *s)
{
    int k, finite;
    size_t runs, cells = grid_cells_of(g);
    memset(s, 0, sizeof *s);
    if (fscanf(f, " frame %d count %ld finite %d centre %lf %lf %lf heights", &k, &s->count, &finite,
               &s->centre[0], &s->centre[1], &s->centre[2]) != 6 || k != want)
        return false;
    s->finite = finite != 0;
    s->nquantiles = nq;
    for (int i = 0; i < nq; i++)
        if (fscanf(f, "%lf", &s->heights[i]) != 1)
            return false;
    if (fscanf(f, " displacement %lf occupied %zu", &s->displacement, &runs) != 2 || !(s->occupied = calloc(cells, 1)))
        return false;
    for (size_t r = 0; r < runs; r++) {
        size_t at, len;
        if (fscanf(f, "%zu %zu", &at, &len) != 2 || at > cells || len > cells - at)
            return false;
        memset(s->occupied + at, 1, len);
    }
    return true;
}

int metrics_read_summaries(const char *path, const GradeConfig *c, const MetricGrid *g, FrameSummary *frames,
                           int n, char *err, size_t errn)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return snprintf(err, errn, "%s: cannot open", path), -1;
    char magic[64] = "", run[128] = "";
    int gn[3], nframes = 0;
    double dx, q;
    bool ok = fscanf(f, "%63s %*s %127s grid %d %d %d %lf quantiles", magic, run, &gn[0], &gn[1], &gn[2], &dx) == 6 &&
              strcmp(magic, "flipkit-metrics") == 0 && gn[0] == g->n[0] && gn[1] == g->n[1] && gn[2] == g->n[2] &&
              (float)dx == g->dx;
    for (int i = 0; ok && i < c->nquantiles; i++)
        ok = fscanf(f, "%lf", &q) == 1 && q == c->quantiles[i];
    ok = ok && fscanf(f, " frames %d", &nframes) == 1;
    if (!ok) {
        fclose(f);
        return snprintf(err, errn, "%s: not the reference's metrics for this grid and grader/config's "
                        "height_quantiles (unpack the kit again)", path), -1;
    }
    int k = 0;
    for (; k < n && k < nframes && read_frame(f, g, k, c->nquantiles, &frames[k]); k++)
        ;
    fclose(f);
    if (k < n) {
        for (int i = 0; i <= k && i < n; i++)
            metrics_summary_free(&frames[i]);
        return snprintf(err, errn, "%s: frame %d is missing or malformed (%d of %d frames read)", path, k, k, n), -1;
    }
    return 0;
}
