/* watch.c — a run watches itself: bounds no correct stage can break, checked after the stages.
 * flipkit common/: the outline (sim.c) calls these; each costs a pass over the faces or the
 * particles, less than the stage it checks, so they stay on. Only the CLI prints. */
#include "watch.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/* Float sums of at most a few hundred terms stay within this fraction of their bound. */
#define WATCH_ROUNDING 1e-3f
/* The projection may add this fraction of the energy before it when the solve is not
 * converged (a capped jacobi); a wrong sign adds about three times what it should remove. */
#define WATCH_ENERGY_SLACK 0.05
/* A particle this many times faster than its start and a fall across the whole box allow. */
#define WATCH_SPEED_FACTOR 2.0f
/* The particles are piled up when a cell they occupy holds this many times particles_per_cell
 * on average (a resting pool holds about particles_per_cell). */
#define WATCH_PILE_FACTOR 4.0

enum { WATCH_WARNED_SPEED = 1u, WATCH_WARNED_PILE = 2u };

static int watch_fail(Sim *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sim_failv(s, RUN_COULD_NOT_RUN, fmt, ap);
    va_end(ap);
    return -1;
}

/* One warning per kind per run: a run that goes wrong goes wrong every frame after. */
static void watch_warn(Sim *s, unsigned kind, const char *fmt, ...)
{
    if (s->watch.warned & kind)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->watch.warning, sizeof s->watch.warning, fmt, ap);
    va_end(ap);
    s->watch.warned |= kind;
    s->watch.warning_new = true;
}

static void watch_face_place(const MacGrid *g, int a, size_t f, int ijk[3])
{
    const int *n = g->face[a].n;
    ijk[0] = (int)(f % (size_t)n[0]);
    ijk[1] = (int)(f / (size_t)n[0] % (size_t)n[1]);
    ijk[2] = (int)(f / ((size_t)n[0] * (size_t)n[1]));
}

/* ---- p2g and gravity: bounds on each face -------------------------------------------------- */

static void watch_fastest_particle(const Particles *ps, float out[3])
{
    out[0] = out[1] = out[2] = 0.0f;
    for (size_t p = 0; p < ps->count; p++)
        for (int a = 0; a < 3; a++) {
            float v = fabsf(vec3_get(ps->vel[p], a));
            out[a] = v > out[a] ? v : out[a];
        }
}

int watch_p2g(Sim *s)
{
    const MacGrid *g = &s->grid;
    float fastest[3];
    watch_fastest_particle(&s->particles, fastest);
    for (int a = 0; a < 3; a++) {
        float bound = fastest[a] * (1.0f + WATCH_ROUNDING) + 1e-6f;
        for (size_t f = 0; f < grid_faces(g, a); f++)
            if (fabsf(g->vel[a][f]) > bound) {
                int ijk[3];
                watch_face_place(g, a, f, ijk);
                return watch_fail(s, "stage p2g wrote %g to %s at face (%d,%d,%d), faster than any "
                                  "particle (the fastest moves at %g m/s along %s): a face's velocity "
                                  "is an average of the particles' velocities (weight %g there)",
                                  g->vel[a][f], grid_component_name(a), ijk[0], ijk[1], ijk[2],
                                  fastest[a], grid_component_name(a), g->weight[a][f]);
            }
    }
    return 0;
}

int watch_gravity(Sim *s, float dt)
{
    const MacGrid *g = &s->grid;
    for (int a = 0; a < 3; a++) {
        float dv = fabsf(vec3_get(s->scene->gravity, a)) * dt;
        for (size_t f = 0; f < grid_faces(g, a); f++) {
            float old = s->vel_old[a][f], change = fabsf(g->vel[a][f] - old);
            /* float rounding of old + dv is a few ulps of |old| */
            if (change > dv * (1.0f + WATCH_ROUNDING) + 4e-7f * fabsf(old) + 1e-7f) {
                int ijk[3];
                watch_face_place(g, a, f, ijk);
                return watch_fail(s, "stage gravity changed %s at face (%d,%d,%d) from %g to %g, by "
                                  "more than |gravity.%c| dt = %g m/s", grid_component_name(a), ijk[0],
                                  ijk[1], ijk[2], old, g->vel[a][f], "xyz"[a], dv);
            }
        }
    }
    return 0;
}

/* ---- the projection: energy, and probes that name the stage ------------------------------ */

/* Faces between two AIR cells are left out: gradient may write anything there (the contract
 * leaves them to the extrapolation, which rewrites every one a particle can reach). */
static double watch_face_energy(const MacGrid *g)
{
    double e = 0.0;
    for (int a = 0; a < 3; a++) {
        const int *n = g->face[a].n;
        for (int k = 0; k < n[2]; k++)
            for (int j = 0; j < n[1]; j++)
                for (int i = 0; i < n[0]; i++) {
                    if (grid_face_below(g, a, i, j, k) == CELL_AIR &&
                        grid_face_above(g, a, i, j, k) == CELL_AIR)
                        continue;
                    double v = g->vel[a][grid_face_index(g, a, i, j, k)];
                    e += v * v;
                }
    }
    return e;
}

void watch_projection_start(Sim *s)
{
    s->watch.energy_before = watch_face_energy(&s->grid);
}

/* A FLUID cell whose +x neighbour is not SOLID, so a probe there has a face to look at. */
static long watch_probe_cell(const MacGrid *g)
{
    for (int k = 1; k < g->nz - 1; k++)
        for (int j = 1; j < g->ny - 1; j++)
            for (int i = 1; i < g->nx - 2; i++)
                if (grid_cell_type(g, i, j, k) == CELL_FLUID &&
                    grid_cell_type(g, i + 1, j, k) != CELL_SOLID)
                    return (long)grid_cell_index(g, i, j, k);
    return -1;
}

static void watch_zero_fields(MacGrid *g, float *a, float *b)
{
    for (int ax = 0; ax < 3; ax++)
        memset(g->vel[ax], 0, grid_faces(g, ax) * sizeof(float));
    memset(a, 0, grid_cells(g) * sizeof *a);
    memset(b, 0, grid_cells(g) * sizeof *b);
    memset(g->p, 0, grid_cells(g) * sizeof *g->p);
}

/* Each suspect once on the probe grid (the run's cell types), one value at cell c: the answer
 * only has to have the right sign. Returns the stage that got it wrong, or NULL. */
static const char *watch_wrong_sign(const Sim *s, MacGrid *g, size_t c, float *a, float *b)
{
    int i = (int)(c % (size_t)g->nx), j = (int)(c / (size_t)g->nx % (size_t)g->ny);
    int k = (int)(c / ((size_t)g->nx * (size_t)g->ny));
    size_t face = grid_face_index(g, 0, i + 1, j, k); /* the face on c's +x side */
    watch_zero_fields(g, a, b);
    g->vel[0][face] = 1.0f;                           /* flow out of c: positive divergence */
    s->track.divergence(g, a);
    if (a[c] < 0.0f)
        return "divergence";
    watch_zero_fields(g, a, b);
    a[c] = 1.0f;                                      /* a pressure peak at c pushes out of it */
    s->track.gradient(g, a, 1.0f);
    if (g->vel[0][face] < 0.0f)
        return "gradient";
    if (s->solver)                                    /* not the track's jacobi: not a suspect */
        return NULL;
    s->track.laplacian(g, a, b);                      /* a peak's laplacian is negative */
    if (b[c] > 0.0f)
        return "laplacian";
    watch_zero_fields(g, a, b);
    a[c] = 1.0f;                                      /* L p = 1 > 0 wants p below its neighbours */
    s->track.jacobi(g, b, a, 1.0f, g->p);             /* from p = 0 */
    return g->p[c] > 0.0f ? "jacobi" : NULL;
}

/* Runs the probes on a grid of the run's size and cell types; NULL when none names a stage. */
static const char *watch_name_culprit(const Sim *s)
{
    const MacGrid *run = &s->grid;
    long c = watch_probe_cell(run);
    MacGrid g;
    if (c < 0 || grid_init(&g, run->nx, run->ny, run->nz, run->dx) != 0)
        return NULL;
    float *a = calloc(grid_cells(&g), sizeof *a), *b = calloc(grid_cells(&g), sizeof *b);
    const char *who = NULL;
    if (a && b) {
        memcpy(g.cell, run->cell, grid_cells(&g));
        who = watch_wrong_sign(s, &g, (size_t)c, a, b);
    }
    free(a);
    free(b);
    grid_free(&g);
    return who;
}

int watch_projection(Sim *s)
{
    double before = s->watch.energy_before, after = watch_face_energy(&s->grid);
    if (after <= before * (1.0 + WATCH_ENERGY_SLACK) + 1e-12)
        return 0;
    const char *who = watch_name_culprit(s);
    const char *solve = s->solver ? s->solver_name : "jacobi";
    if (who)
        return watch_fail(s, "stage %s has its sign reversed: the projection added kinetic energy "
                          "(sum of face velocity^2 %.4g before divergence, %.4g after gradient), and "
                          "a probe with one value at one cell gave %s the wrong sign", who, before,
                          after, who);
    return watch_fail(s, "the projection added kinetic energy (sum of face velocity^2 %.4g before "
                      "divergence, %.4g after gradient), which removing divergence never does: look "
                      "at divergence, %s and gradient", before, after, solve);
}

/* ---- both backends: speed and crowding --------------------------------------------------- */

/* How fast a particle can get by falling across the whole box from its start speed. */
static float watch_speed_bound(const Sim *s)
{
    const MacGrid *g = &s->grid;
    Vec3 gr = s->scene->gravity;
    float gmag = sqrtf(gr.x * gr.x + gr.y * gr.y + gr.z * gr.z);
    float diag = g->dx * sqrtf((float)g->nx * g->nx + (float)g->ny * g->ny + (float)g->nz * g->nz);
    float v0 = s->watch.start_speed;
    return sqrtf(v0 * v0 + 2.0f * gmag * diag);
}

void watch_speed(Sim *s, float vmax2)
{
    float bound = WATCH_SPEED_FACTOR * watch_speed_bound(s);
    if (vmax2 > bound * bound)
        watch_warn(s, WATCH_WARNED_SPEED, "a particle moves at %.3g m/s, more than %g times what "
                   "falling across the whole box allows (%.3g m/s): substeps shrink to match, "
                   "so the run slows down; a stage adds energy", sqrtf(vmax2),
                   (double)WATCH_SPEED_FACTOR, watch_speed_bound(s));
}

void watch_start(Sim *s, size_t first)
{
    float vmax2 = 0.0f;
    for (size_t p = first; p < s->particles.count; p++) {
        Vec3 v = s->particles.vel[p];
        float v2 = v.x * v.x + v.y * v.y + v.z * v.z;
        vmax2 = v2 > vmax2 ? v2 : vmax2;
    }
    s->watch.start_speed = fmaxf(s->watch.start_speed, sqrtf(vmax2));
}

/* Cells holding at least one particle; -1 when out of memory (the check is skipped then). */
static long watch_occupied_cells(const Sim *s)
{
    const MacGrid *g = &s->grid;
    unsigned char *seen = calloc(grid_cells(g), 1);
    if (!seen)
        return -1;
    long n = 0;
    for (size_t p = 0; p < s->particles.count; p++) {
        Vec3 x = s->particles.pos[p];
        int i = (int)floorf(x.x / g->dx), j = (int)floorf(x.y / g->dx), k = (int)floorf(x.z / g->dx);
        if (i < 0 || j < 0 || k < 0 || i >= g->nx || j >= g->ny || k >= g->nz)
            continue;
        size_t c = grid_cell_index(g, i, j, k);
        n += !seen[c];
        seen[c] = 1;
    }
    free(seen);
    return n;
}

void watch_frame(Sim *s)
{
    if (s->watch.warned & WATCH_WARNED_PILE || s->particles.count == 0)
        return;
    long cells = watch_occupied_cells(s);
    double per_cell = cells > 0 ? (double)s->particles.count / (double)cells : 0.0;
    if (cells > 0 && per_cell > WATCH_PILE_FACTOR * s->scene->particles_per_cell)
        watch_warn(s, WATCH_WARNED_PILE, "the %zu particles are piled into %ld cells, %.0f a cell "
                   "where the scene seeds %d: the liquid is being squeezed; the projection "
                   "(divergence, the pressure solve, gradient) is not keeping its volume",
                   s->particles.count, cells, per_cell, s->scene->particles_per_cell);
}
