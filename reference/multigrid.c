/* multigrid.c — geometric multigrid for the pressure equation on the irregular fluid domain.
 * flipkit reference/: a V-cycle used alone ("multigrid") or as the preconditioner of CG
 * ("mgpcg"), in the spirit of McAdams, Sifakis and Teran, SCA 2010. */
#include "multigrid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Coarsening stops when a level would be smaller than this along any axis. Four smoothing
 * sweeps each way, not two: on the hydrostatic tank solved from p = 0, MGPCG needed 10 and 12
 * iterations at 64^3 and 128^3 instead of 13 and 17, in slightly less time (make bench). Since
 * the wall's weight is folded onto the parent (mg_parents) it is 8 and 9 against 9 and 10, and
 * through ball_drop's splash at 64^3 on OpenCL two sweeps took 31% more V-cycles for the
 * same pressure time: four stay. */

typedef struct {
    int n[3];
    size_t cells;
    int8_t *type;       /* FLUID / AIR / SOLID per cell; outside the array counts as SOLID */
    uint8_t *count;     /* N: non-SOLID neighbours of each FLUID cell */
    float *x, *b, *r;   /* solution, right-hand side, residual (scratch) */
} MgLevel;

struct Multigrid {
    int levels;
    MgLevel level[MG_MAX_LEVELS];
};

static inline size_t mg_index(const MgLevel *l, int i, int j, int k)
{
    return (size_t)i + (size_t)l->n[0] * ((size_t)j + (size_t)l->n[1] * (size_t)k);
}

static inline int mg_type(const MgLevel *l, int i, int j, int k)
{
    if (i < 0 || j < 0 || k < 0 || i >= l->n[0] || j >= l->n[1] || k >= l->n[2])
        return CELL_SOLID;
    return l->type[mg_index(l, i, j, k)];
}

static int mg_alloc_level(MgLevel *l, int nx, int ny, int nz)
{
    l->n[0] = nx;
    l->n[1] = ny;
    l->n[2] = nz;
    l->cells = (size_t)nx * ny * nz;
    l->type = calloc(l->cells, 1);
    l->count = calloc(l->cells, 1);
    l->x = calloc(l->cells, sizeof(float));
    l->b = calloc(l->cells, sizeof(float));
    l->r = calloc(l->cells, sizeof(float));
    return l->type && l->count && l->x && l->b && l->r ? 0 : -1;
}

static void mg_count_neighbours(MgLevel *l)
{
    for (int k = 0; k < l->n[2]; k++)
        for (int j = 0; j < l->n[1]; j++)
            for (int i = 0; i < l->n[0]; i++) {
                size_t c = mg_index(l, i, j, k);
                if (l->type[c] != CELL_FLUID)
                    continue;
                l->count[c] = (uint8_t)mg_nonsolid_neighbours(l->type, l->n[0], l->n[1], l->n[2],
                                                              i, j, k);
            }
}

/* McAdams et al.: a coarse cell is AIR (Dirichlet) if any child is AIR, else FLUID if any
 * child is FLUID, else SOLID. Keeping air wherever it was keeps the free surface pinned. */
static void mg_coarsen_types(const MgLevel *fine, MgLevel *coarse)
{
    for (int k = 0; k < coarse->n[2]; k++)
        for (int j = 0; j < coarse->n[1]; j++)
            for (int i = 0; i < coarse->n[0]; i++) {
                int air = 0, fluid = 0;
                for (int dk = 0; dk < 2; dk++)
                    for (int dj = 0; dj < 2; dj++)
                        for (int di = 0; di < 2; di++) {
                            int t = mg_type(fine, 2 * i + di, 2 * j + dj, 2 * k + dk);
                            air |= t == CELL_AIR;
                            fluid |= t == CELL_FLUID;
                        }
                coarse->type[mg_index(coarse, i, j, k)] =
                    (int8_t)(air ? CELL_AIR : fluid ? CELL_FLUID : CELL_SOLID);
            }
}

Multigrid *mg_create(const MacGrid *g)
{
    Multigrid *mg = calloc(1, sizeof *mg);
    if (!mg)
        return NULL;
    int n[3] = { g->nx, g->ny, g->nz };
    for (;;) {
        MgLevel *l = &mg->level[mg->levels];
        if (mg_alloc_level(l, n[0], n[1], n[2]) != 0) {
            mg_free(mg);
            return NULL;
        }
        if (mg->levels == 0)
            memcpy(l->type, g->cell, l->cells);
        else
            mg_coarsen_types(&mg->level[mg->levels - 1], l);
        mg_count_neighbours(l);
        mg->levels++;
        int next[3] = { (n[0] + 1) / 2, (n[1] + 1) / 2, (n[2] + 1) / 2 };
        if (mg->levels == MG_MAX_LEVELS || next[0] < MG_MIN_CELLS || next[1] < MG_MIN_CELLS ||
            next[2] < MG_MIN_CELLS)
            break;
        memcpy(n, next, sizeof n);
    }
    return mg;
}

void mg_free(Multigrid *mg)
{
    if (!mg)
        return;
    for (int q = 0; q < mg->levels; q++) {
        free(mg->level[q].type);
        free(mg->level[q].count);
        free(mg->level[q].x);
        free(mg->level[q].b);
        free(mg->level[q].r);
    }
    free(mg);
}

int mg_levels(const Multigrid *mg)
{
    return mg->levels;
}

/* Sum of x over the FLUID neighbours of cell (i,j,k): AIR holds 0, SOLID drops out. */
static inline float mg_neighbour_sum(const MgLevel *l, const float *x, int i, int j, int k)
{
    float s = 0.0f;
    size_t c = mg_index(l, i, j, k);
    size_t sy = (size_t)l->n[0], sz = (size_t)l->n[0] * l->n[1];
    if (mg_type(l, i - 1, j, k) == CELL_FLUID) s += x[c - 1];
    if (mg_type(l, i + 1, j, k) == CELL_FLUID) s += x[c + 1];
    if (mg_type(l, i, j - 1, k) == CELL_FLUID) s += x[c - sy];
    if (mg_type(l, i, j + 1, k) == CELL_FLUID) s += x[c + sy];
    if (mg_type(l, i, j, k - 1) == CELL_FLUID) s += x[c - sz];
    if (mg_type(l, i, j, k + 1) == CELL_FLUID) s += x[c + sz];
    return s;
}

/* One Gauss-Seidel half-sweep over the cells of one colour ((i+j+k) % 2 == colour) of
 * A x = b, with A = N on the diagonal and -1 to each FLUID neighbour. */
static void mg_sweep_colour(const MgLevel *l, const float *b, float *x, float omega, int colour)
{
    for (int k = 0; k < l->n[2]; k++)
        for (int j = 0; j < l->n[1]; j++)
            for (int i = (j + k + colour) & 1; i < l->n[0]; i += 2) {
                size_t c = mg_index(l, i, j, k);
                if (l->type[c] != CELL_FLUID || l->count[c] == 0)
                    continue;
                float gs = (b[c] + mg_neighbour_sum(l, x, i, j, k)) / (float)l->count[c];
                x[c] += omega * (gs - x[c]);
            }
}

static void mg_smooth_colour(MgLevel *l, int colour)
{
    mg_sweep_colour(l, l->b, l->x, 1.0f, colour);
}

void mg_sor_sweep(const Multigrid *mg, const float *b, float *x, float omega)
{
    mg_sweep_colour(&mg->level[0], b, x, omega, 0);
    mg_sweep_colour(&mg->level[0], b, x, omega, 1);
}

/* r = b - A x in FLUID cells, 0 elsewhere. */
static void mg_residual(MgLevel *l)
{
    for (int k = 0; k < l->n[2]; k++)
        for (int j = 0; j < l->n[1]; j++)
            for (int i = 0; i < l->n[0]; i++) {
                size_t c = mg_index(l, i, j, k);
                l->r[c] = l->type[c] == CELL_FLUID
                              ? l->b[c] - ((float)l->count[c] * l->x[c] -
                                           mg_neighbour_sum(l, l->x, i, j, k))
                              : 0.0f;
            }
}

/* Trilinear weights of a cell-centred fine cell i on its coarse parents (nc of them along the
 * axis): 3/4 on i/2 and 1/4 on the neighbour on the fine cell's side. Past the grid's two ends
 * that neighbour lies in the wall, where the pressure's normal gradient is 0: the correction
 * there equals the parent's, so the parent takes the whole weight. (Level 0's outer layer is
 * SOLID itself, so this acts from level 1 down, on the coarse cells along the walls.) Dropping
 * the 1/4 instead made every correction next to a wall a quarter too small; the hydrostatic
 * tank from p = 0 took 24 V-cycles alone and 10 as CG's preconditioner at 64^3, against 13 and
 * 8 (make solvers). A SOLID neighbour inside the grid still drops its weight: so does the top
 * end of an odd-sized axis, whose last coarse cell holds only the SOLID layer (multigrid at
 * 31^3 and 33^3 takes 19 and 15 V-cycles, at 32^3 11), and a solid inside the scene. */
static inline void mg_parents(int i, int nc, int *lo, int *hi, float *wlo, float *whi)
{
    int parent = i / 2, other = (i & 1) ? parent + 1 : parent - 1;
    int in_grid = other >= 0 && other < nc;
    *lo = parent;
    *hi = other;
    *wlo = in_grid ? 0.75f : 1.0f;
    *whi = in_grid ? 0.25f : 0.0f;
}

/* coarse->b = (1/2) P^T fine->r. P is trilinear interpolation; the 1/2 makes the coarse
 * equation, written with the same integer stencil at spacing 2h, match the fine one
 * (P^T A_h P is about 2 A_2h for this stencil). Coarse cells that are not FLUID get 0. */
static void mg_restrict(const MgLevel *fine, MgLevel *coarse)
{
    memset(coarse->b, 0, coarse->cells * sizeof(float));
    for (int k = 0; k < fine->n[2]; k++) {
        int K[2]; float wk[2];
        mg_parents(k, coarse->n[2], &K[0], &K[1], &wk[0], &wk[1]);
        for (int j = 0; j < fine->n[1]; j++) {
            int J[2]; float wj[2];
            mg_parents(j, coarse->n[1], &J[0], &J[1], &wj[0], &wj[1]);
            for (int i = 0; i < fine->n[0]; i++) {
                float r = fine->r[mg_index(fine, i, j, k)];
                if (r == 0.0f)
                    continue;
                int I[2]; float wi[2];
                mg_parents(i, coarse->n[0], &I[0], &I[1], &wi[0], &wi[1]);
                for (int c = 0; c < 8; c++) {
                    int a = c & 1, b = (c >> 1) & 1, d = c >> 2;
                    if (mg_type(coarse, I[a], J[b], K[d]) != CELL_FLUID)
                        continue;
                    coarse->b[mg_index(coarse, I[a], J[b], K[d])] += 0.5f * wi[a] * wj[b] * wk[d] * r;
                }
            }
        }
    }
}

/* fine->x += P coarse->x in FLUID fine cells. */
static void mg_prolong_add(const MgLevel *coarse, MgLevel *fine)
{
    for (int k = 0; k < fine->n[2]; k++) {
        int K[2]; float wk[2];
        mg_parents(k, coarse->n[2], &K[0], &K[1], &wk[0], &wk[1]);
        for (int j = 0; j < fine->n[1]; j++) {
            int J[2]; float wj[2];
            mg_parents(j, coarse->n[1], &J[0], &J[1], &wj[0], &wj[1]);
            for (int i = 0; i < fine->n[0]; i++) {
                size_t f = mg_index(fine, i, j, k);
                if (fine->type[f] != CELL_FLUID)
                    continue;
                int I[2]; float wi[2];
                mg_parents(i, coarse->n[0], &I[0], &I[1], &wi[0], &wi[1]);
                float e = 0.0f;
                for (int c = 0; c < 8; c++) {
                    int a = c & 1, b = (c >> 1) & 1, d = c >> 2;
                    if (mg_type(coarse, I[a], J[b], K[d]) != CELL_FLUID)
                        continue;
                    e += wi[a] * wj[b] * wk[d] * coarse->x[mg_index(coarse, I[a], J[b], K[d])];
                }
                fine->x[f] += e;
            }
        }
    }
}

/* A symmetric V-cycle from x = 0: red-black sweeps down, black-red sweeps up, so the cycle is
 * a symmetric operator and CG may use it as a preconditioner. */
static void mg_vcycle_level(Multigrid *mg, int q)
{
    MgLevel *l = &mg->level[q];
    memset(l->x, 0, l->cells * sizeof(float));
    int sweeps = q == mg->levels - 1 ? MG_COARSE_SWEEPS : MG_SMOOTH;
    for (int s = 0; s < sweeps; s++) {
        mg_smooth_colour(l, 0);
        mg_smooth_colour(l, 1);
    }
    if (q < mg->levels - 1) {
        mg_residual(l);
        mg_restrict(l, &mg->level[q + 1]);
        mg_vcycle_level(mg, q + 1);
        mg_prolong_add(&mg->level[q + 1], l);
    }
    for (int s = 0; s < sweeps; s++) {
        mg_smooth_colour(l, 1);
        mg_smooth_colour(l, 0);
    }
}

void mg_vcycle(Multigrid *mg, const float *r, float *z)
{
    MgLevel *top = &mg->level[0];
    for (size_t c = 0; c < top->cells; c++)
        top->b[c] = top->type[c] == CELL_FLUID ? r[c] : 0.0f;
    mg_vcycle_level(mg, 0);
    memcpy(z, top->x, top->cells * sizeof(float));
}

void mg_apply(const Multigrid *mg, const float *x, float *out)
{
    const MgLevel *l = &mg->level[0];
    for (int k = 0; k < l->n[2]; k++)
        for (int j = 0; j < l->n[1]; j++)
            for (int i = 0; i < l->n[0]; i++) {
                size_t c = mg_index(l, i, j, k);
                out[c] = l->type[c] == CELL_FLUID
                             ? (float)l->count[c] * x[c] - mg_neighbour_sum(l, x, i, j, k)
                             : 0.0f;
            }
}

/* r = b - A x with x in double, on the finest level; returns |r|. The iterate is double for
 * the reason given in pcg.c: in float32 a deep tank's residual stalls above 1e-6. */
double mg_residual_double(const Multigrid *mg, const float *b, const double *x, double *r)
{
    const MgLevel *l = &mg->level[0];
    size_t sy = (size_t)l->n[0], sz = (size_t)l->n[0] * l->n[1];
    double sum2 = 0.0;
    for (int k = 0; k < l->n[2]; k++)
        for (int j = 0; j < l->n[1]; j++)
            for (int i = 0; i < l->n[0]; i++) {
                size_t c = mg_index(l, i, j, k);
                if (l->type[c] != CELL_FLUID) {
                    r[c] = 0.0;
                    continue;
                }
                double s = 0.0;
                if (mg_type(l, i - 1, j, k) == CELL_FLUID) s += x[c - 1];
                if (mg_type(l, i + 1, j, k) == CELL_FLUID) s += x[c + 1];
                if (mg_type(l, i, j - 1, k) == CELL_FLUID) s += x[c - sy];
                if (mg_type(l, i, j + 1, k) == CELL_FLUID) s += x[c + sy];
                if (mg_type(l, i, j, k - 1) == CELL_FLUID) s += x[c - sz];
                if (mg_type(l, i, j, k + 1) == CELL_FLUID) s += x[c + sz];
                r[c] = b[c] - ((double)l->count[c] * x[c] - s);
                sum2 += r[c] * r[c];
            }
    return sqrt(sum2);
}

/* ---- the "multigrid" solver: V-cycles on the residual until it is small ------------------ */

static double mg_norm(const float *v, size_t n)
{
    double s = 0.0;
    for (size_t c = 0; c < n; c++)
        s += (double)v[c] * v[c];
    return sqrt(s);
}

SolveResult ref_solve_multigrid(const MacGrid *g, const float *rhs, float *p,
                                const PressureSettings *set, SolveHistory *history)
{
    SolveResult res = { .residual = INFINITY };
    size_t n = grid_cells(g);
    Multigrid *mg = mg_create(g);
    float *b = malloc(n * sizeof *b), *rf = malloc(n * sizeof *rf), *z = malloc(n * sizeof *z);
    double *x = malloc(n * sizeof *x), *r = malloc(n * sizeof *r);
    if (mg && b && rf && z && x && r) {
        float dx2 = g->dx * g->dx;
        for (size_t c = 0; c < n; c++) {
            b[c] = g->cell[c] == CELL_FLUID ? -dx2 * rhs[c] : 0.0f;
            x[c] = g->cell[c] == CELL_FLUID ? p[c] : 0.0;
        }
        double bnorm = mg_norm(b, n);
        for (;;) {
            double rnorm = mg_residual_double(mg, b, x, r);
            res.residual = bnorm > 0.0 ? rnorm / bnorm : 0.0;
            track_record_residual(history, res.iterations, res.residual);
            if (res.residual <= set->tolerance || res.iterations >= set->iterations ||
                !isfinite(res.residual))
                break;
            for (size_t c = 0; c < n; c++)
                rf[c] = (float)r[c];
            mg_vcycle(mg, rf, z);
            for (size_t c = 0; c < n; c++)
                x[c] += z[c];
            res.iterations++;
        }
        for (size_t c = 0; c < n; c++)
            p[c] = (float)x[c];
        res.converged = res.residual <= set->tolerance;
    } else {
        res.status = RUN_OUT_OF_MEMORY;
    }
    free(b);
    free(rf);
    free(z);
    free(x);
    free(r);
    mg_free(mg);
    return res;
}
