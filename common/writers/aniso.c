/* aniso.c — per-particle anisotropic kernels: neighbours through a counting sort by cell, a
 * weighted mean and covariance, Jacobi eigenvectors, clamped axes (Yu & Turk 2013).
 * flipkit common/writers/: deterministic (neighbours in cell then index order, sums in double). */
#include "aniso.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- eigenvectors of a symmetric 3x3 ------------------------------------------------ */

void aniso_eigen(const double a[6], double value[3], double v[3][3])
{
    double m[3][3] = { { a[0], a[3], a[4] }, { a[3], a[1], a[5] }, { a[4], a[5], a[2] } };
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            v[i][j] = i == j;
    for (int sweep = 0; sweep < 32; sweep++) {
        double off = m[0][1] * m[0][1] + m[0][2] * m[0][2] + m[1][2] * m[1][2];
        double scale = m[0][0] * m[0][0] + m[1][1] * m[1][1] + m[2][2] * m[2][2];
        if (off <= 1e-30 * scale || off == 0.0)
            break;
        for (int p = 0; p < 2; p++)
            for (int q = p + 1; q < 3; q++) {
                if (m[p][q] == 0.0)
                    continue;
                double theta = (m[q][q] - m[p][p]) / (2.0 * m[p][q]);
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int k = 0; k < 3; k++) {   /* m = J^T m J, v = v J */
                    double mkp = m[k][p], mkq = m[k][q];
                    m[k][p] = c * mkp - s * mkq;
                    m[k][q] = s * mkp + c * mkq;
                }
                for (int k = 0; k < 3; k++) {
                    double mpk = m[p][k], mqk = m[q][k];
                    m[p][k] = c * mpk - s * mqk;
                    m[q][k] = s * mpk + c * mqk;
                }
                for (int k = 0; k < 3; k++) {
                    double vkp = v[k][p], vkq = v[k][q];
                    v[k][p] = c * vkp - s * vkq;
                    v[k][q] = s * vkp + c * vkq;
                }
            }
    }
    int order[3] = { 0, 1, 2 };   /* descending, ties in index order */
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (m[order[j]][order[j]] > m[order[i]][order[i]]) {
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
    double vs[3][3];
    for (int i = 0; i < 3; i++) {
        value[i] = m[order[i]][order[i]];
        for (int k = 0; k < 3; k++)
            vs[k][i] = v[k][order[i]];
    }
    memcpy(v, vs, sizeof vs);
}

/* ---- neighbours ------------------------------------------------------------------------ */

typedef struct {
    int n[3];
    float dx;
    size_t *start;      /* per cell + 1: the first of its particles in order[] */
    uint32_t *order;    /* particle indices sorted by cell, in index order within a cell */
    Vec3 *sorted;       /* their positions in that order: a cell's neighbours are contiguous */
} AnisoBins;

static long aniso_cell_of(const AnisoBins *b, Vec3 p, int c[3])
{
    const float x[3] = { p.x, p.y, p.z };
    for (int d = 0; d < 3; d++) {
        float q = floorf(x[d] / b->dx);
        if (!(q >= 0.0f && q < (float)b->n[d]))
            return -1;
        c[d] = (int)q;
    }
    return (long)c[0] + (long)b->n[0] * ((long)c[1] + (long)b->n[1] * c[2]);
}

static int aniso_bin(AnisoBins *b, const Particles *ps, const MacGrid *g)
{
    b->n[0] = g->nx;
    b->n[1] = g->ny;
    b->n[2] = g->nz;
    b->dx = g->dx;
    size_t cells = (size_t)g->nx * g->ny * g->nz;
    b->start = calloc(cells + 2, sizeof *b->start);
    b->order = malloc((ps->count ? ps->count : 1) * sizeof *b->order);
    b->sorted = malloc((ps->count ? ps->count : 1) * sizeof *b->sorted);
    if (!b->start || !b->order || !b->sorted)
        return -1;
    int c[3];
    for (size_t p = 0; p < ps->count; p++) {
        long at = aniso_cell_of(b, ps->pos[p], c);
        if (at >= 0)
            b->start[at + 2]++;
    }
    for (size_t k = 2; k < cells + 2; k++)
        b->start[k] += b->start[k - 1];
    for (size_t p = 0; p < ps->count; p++) {
        long at = aniso_cell_of(b, ps->pos[p], c);
        if (at >= 0) {
            b->sorted[b->start[at + 1]] = ps->pos[p];
            b->order[b->start[at + 1]++] = (uint32_t)p;
        }
    }
    return 0;   /* start[k] .. start[k + 1] are cell k's */
}

/* The squared gap along one axis from x to cell c's extent [c dx, (c + 1) dx]. */
static float aniso_gap2(float x, int c, float dx)
{
    float lo = (float)c * dx - x, hi = x - (float)(c + 1) * dx;
    float t = lo > 0.0f ? lo : hi > 0.0f ? hi : 0.0f;
    return t * t;
}

/* The weighted mean and covariance of p's neighbours within reach, and how many there are.
 * Cells wholly beyond reach are skipped; distances are compared squared, in float (the sums
 * are in double). */
static int aniso_moments(const AnisoBins *b, const Particles *ps, size_t p, float reach,
                         double mean[3], double cov[6])
{
    int c[3], span = (int)ceilf(reach / b->dx);
    Vec3 x = ps->pos[p];
    double w_sum = 0, m[3] = { 0, 0, 0 }, s[6] = { 0, 0, 0, 0, 0, 0 };
    int count = 0;
    float reach2 = reach * reach, inv = 1.0f / reach;
    if (aniso_cell_of(b, x, c) < 0)
        return 0;
    for (int k = c[2] - span; k <= c[2] + span; k++) {
        if (k < 0 || k >= b->n[2])
            continue;
        float gz = aniso_gap2(x.z, k, b->dx);
        for (int j = c[1] - span; j <= c[1] + span; j++) {
            if (j < 0 || j >= b->n[1])
                continue;
            float gyz = gz + aniso_gap2(x.y, j, b->dx);
            if (gyz >= reach2)
                continue;
            for (int i = c[0] - span; i <= c[0] + span; i++) {
                if (i < 0 || i >= b->n[0] || gyz + aniso_gap2(x.x, i, b->dx) >= reach2)
                    continue;
                size_t cell = (size_t)i + (size_t)b->n[0] * ((size_t)j + (size_t)b->n[1] * (size_t)k);
                for (size_t e = b->start[cell]; e < b->start[cell + 1]; e++) {
                    Vec3 y = b->sorted[e];
                    float dx = y.x - x.x, dy = y.y - x.y, dz = y.z - x.z;
                    float d2 = dx * dx + dy * dy + dz * dz;
                    if (d2 >= reach2)
                        continue;
                    float r = sqrtf(d2) * inv;
                    double w = 1.0 - (double)(r * r * r);
                    w_sum += w;
                    count++;
                    /* about p's own position: the sums stay small, the cancellation mild */
                    m[0] += w * dx;
                    m[1] += w * dy;
                    m[2] += w * dz;
                    s[0] += w * dx * dx;
                    s[1] += w * dy * dy;
                    s[2] += w * dz * dz;
                    s[3] += w * dx * dy;
                    s[4] += w * dx * dz;
                    s[5] += w * dy * dz;
                }
            }
        }
    }
    for (int a = 0; a < 3; a++)
        m[a] /= w_sum;
    cov[0] = s[0] / w_sum - m[0] * m[0];
    cov[1] = s[1] / w_sum - m[1] * m[1];
    cov[2] = s[2] / w_sum - m[2] * m[2];
    cov[3] = s[3] / w_sum - m[0] * m[1];
    cov[4] = s[4] / w_sum - m[0] * m[2];
    cov[5] = s[5] / w_sum - m[1] * m[2];
    mean[0] = x.x + m[0];
    mean[1] = x.y + m[1];
    mean[2] = x.z + m[2];
    return count;
}

/* ---- the kernel ------------------------------------------------------------------------ */

/* Axes a_k = R s_k along the eigenvectors: G = sum_k e_k e_k^T / a_k; half extent along d is
 * |row d of G^-1| = sqrt(sum_k a_k^2 e_kd^2). */
static void aniso_make(AnisoKernel *k, Vec3 centre, const double axis[3], double e[3][3], float R)
{
    double g[3][3] = { { 0 } }, ext[3] = { 0, 0, 0 };
    for (int a = 0; a < 3; a++) {
        double len = R * axis[a];
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 3; c++)
                g[r][c] += e[r][a] * e[c][a] / len;
            ext[r] += len * len * e[r][a] * e[r][a];
        }
    }
    k->centre = centre;
    k->g[0] = (float)g[0][0];
    k->g[1] = (float)g[1][1];
    k->g[2] = (float)g[2][2];
    k->g[3] = (float)g[0][1];
    k->g[4] = (float)g[0][2];
    k->g[5] = (float)g[1][2];
    k->weight = (float)(1.0 / (axis[0] * axis[1] * axis[2]));
    for (int d = 0; d < 3; d++)
        k->half[d] = (float)sqrt(ext[d]);
}

static void aniso_one(const AnisoBins *b, const Particles *ps, size_t p, float R, AnisoKernel *k)
{
    double mean[3], cov[6], value[3], e[3][3];
    int count = aniso_moments(b, ps, p, ANISO_REACH * R, mean, cov);
    Vec3 x = ps->pos[p];
    if (count < ANISO_NEPS) {   /* too few to fit: a small sphere, a drop */
        const double axis[3] = { ANISO_KN, ANISO_KN, ANISO_KN };
        double id[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
        aniso_make(k, x, axis, id, R);
        return;
    }
    Vec3 c = { (float)((1.0 - ANISO_LAMBDA) * x.x + ANISO_LAMBDA * mean[0]),
               (float)((1.0 - ANISO_LAMBDA) * x.y + ANISO_LAMBDA * mean[1]),
               (float)((1.0 - ANISO_LAMBDA) * x.z + ANISO_LAMBDA * mean[2]) };
    aniso_eigen(cov, value, e);
    double s[3];
    double top = value[0] > 0.0 ? value[0] : 0.0;
    for (int a = 0; a < 3; a++) {   /* spread along the axis, at least 1/k_r of the most */
        double v = value[a] > top / ANISO_KR ? value[a] : top / ANISO_KR;
        s[a] = v > 0.0 ? v : 1.0;
    }
    double scale = cbrt(s[0] * s[1] * s[2]);   /* the volume of the sphere of radius R */
    double axis[3];
    for (int a = 0; a < 3; a++) {
        axis[a] = s[a] / scale;
        axis[a] = axis[a] < ANISO_MAX_AXIS ? axis[a] : ANISO_MAX_AXIS;
    }
    aniso_make(k, c, axis, e, R);
}

int aniso_kernels(const Particles *ps, const MacGrid *g, float R, const uint8_t *want,
                  AnisoKernel *out)
{
    AnisoBins b = { 0 };
    int rc = aniso_bin(&b, ps, g);
    for (size_t p = 0; rc == 0 && p < ps->count; p++)
        if (!want || want[p])
            aniso_one(&b, ps, p, R, &out[p]);
    free(b.start);
    free(b.order);
    free(b.sorted);
    return rc;
}
