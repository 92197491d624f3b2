/* checkphysics.c — `make check-physics`: the handout's physics checks, run with your own stages.
 * flipkit tests/: the measures are make validate's (maintainer/validate.c in the full kit), on the
 * student track; one verdict line per check, exit 1 when any fails. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim.h"
#include "surface.h"
#include "track.h"

/* The still tank (scenes/hydrostatic.json) after 2 s: its fastest particle against 1% of the
 * tank's shallow-water wave speed sqrt(g h), h = 1.2 m, as validate.c judges it. */
#define TANK_SECONDS 2.0
#define TANK_DEPTH 1.2
/* Martin & Moyce (scenes/martin_moyce.json, a = 2.25 in, 16 cells per a) at frame 45,
 * T = t sqrt(2 g / a) = 4.17: the experiment's front there (Fig. 3, interpolated between
 * T = 4.034 and 4.418) and the reference's (the handout's "How good is this simulator?"). The
 * front must lie between the experiment and Ritter's frictionless front 1 + 2T, as in validate. */
#define MM_A 0.05715
#define MM_FRAME 45
#define MM_EXPERIMENT 5.28
#define MM_REFERENCE 5.9
/* Volume: the liquid's surface encloses its particles' volume within 10% (validate.c's tolerance). */
#define VOLUME_TOLERANCE 0.10

/* Loads scene and runs it `frames` frames on the student track; 0, or -1 with why. */
static int phys_run(const char *path, int frames, Scene *sc, Sim *s, char *why, size_t n)
{
    if (scene_load(path, NULL, 0, sc, why, n) != 0)
        return -1;
    if (sim_init(s, sc, &student_track) != 0) {
        snprintf(why, n, "%s", s->error.message);
        scene_free(sc);
        return -1;
    }
    for (int f = 0; f < frames; f++)
        if (sim_advance_frame(s) != 0) {
            snprintf(why, n, "frame %d: %.300s", f + 1, s->error.message);
            sim_free(s);
            scene_free(sc);
            return -1;
        }
    return 0;
}

static double phys_max_speed(const Particles *ps)
{
    double top = 0;
    for (size_t p = 0; p < ps->count; p++) {
        Vec3 v = ps->vel[p];
        double sp = sqrt((double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z);
        top = sp > top || isnan(sp) ? sp : top;
    }
    return top;
}

/* The surge front over a, as validate.c measures it: walking from the wall in one-cell bins,
 * where the liquid stops (two bins in a row with less than a cell's worth of particles). */
static double phys_front(const Sim *s, int ppc)
{
    const MacGrid *g = &s->grid;
    int bins = g->nx;
    int *count = calloc((size_t)bins, sizeof *count);
    if (!count)
        return NAN;
    for (size_t p = 0; p < s->particles.count; p++) {
        int b = (int)floorf(s->particles.pos[p].x / g->dx);
        if (b >= 0 && b < bins)
            count[b]++;
    }
    int front = 1;
    while (front + 1 < bins && (count[front] >= ppc || count[front + 1] >= ppc))
        front++;
    free(count);
    return (front * g->dx - g->dx) / MM_A;
}

static int phys_tank(void)
{
    Scene sc;
    Sim s;
    char why[512];
    int frames = 60;   /* 2 s at the scene's 30 fps; checked below */
    if (phys_run("scenes/hydrostatic.json", frames, &sc, &s, why, sizeof why) != 0) {
        printf("FAIL still tank: %s\n", why);
        return 1;
    }
    double bound = 0.01 * sqrt(-sc.gravity.y * TANK_DEPTH), v = phys_max_speed(&s.particles);
    int ok = v <= bound && fabs(s.time - TANK_SECONDS) < 1e-6;
    printf("%s still tank (scenes/hydrostatic.json): fastest particle after %.1f s %.3g m/s (limit %.3g m/s, 1%% of sqrt(g h))\n",
           ok ? "ok  " : "FAIL", s.time, v, bound);
    sim_free(&s);
    scene_free(&sc);
    return !ok;
}

/* The dam break, judged on its front and on the volume its surface encloses. */
static int phys_dam(void)
{
    Scene sc;
    Sim s;
    char why[512];
    if (phys_run("scenes/martin_moyce.json", MM_FRAME, &sc, &s, why, sizeof why) != 0) {
        printf("FAIL Martin & Moyce: %s\n", why);
        printf("FAIL volume kept: the dam break did not run\n");
        return 2;
    }
    double T = s.time * sqrt(-2 * sc.gravity.y / MM_A), Z = phys_front(&s, sc.particles_per_cell);
    int front_ok = Z >= MM_EXPERIMENT && Z <= 1 + 2 * T;
    printf("%s Martin & Moyce (scenes/martin_moyce.json): front at T = %.2f (frame %d) Z = %.2f a; "
           "the experiment %.2f, the reference %.1f, Ritter's frictionless front %.2f (pass: between the experiment and Ritter's)\n",
           front_ok ? "ok  " : "FAIL", T, MM_FRAME, Z, MM_EXPERIMENT, MM_REFERENCE, 1 + 2 * T);
    Mesh m;
    mesh_init(&m);
    double ratio = 0;
    /* At refine 2: the slab is 4 cells thick, and a surface at the sim's own resolution (the
     * default) encloses 82% of it at this frame however well the run kept its volume. */
    const SurfaceSettings fine = surface_defaults_at(2);
    int built = surface_build(&s.particles, &s.grid, &fine, &m, why, sizeof why) == 0;
    double mass = surface_particle_volume_at(&s.particles, &s.grid, sc.particles_per_cell, &fine);
    if (built && mass > 0)
        ratio = mesh_volume(&m) / mass;
    int vol_ok = built && fabs(ratio - 1) <= VOLUME_TOLERANCE;
    printf("%s volume kept: at frame %d the surface encloses %.1f%% of the particles' volume (limit %.0f%% off)\n",
           vol_ok ? "ok  " : "FAIL", MM_FRAME, 100 * ratio, 100 * VOLUME_TOLERANCE);
    mesh_free(&m);
    sim_free(&s);
    scene_free(&sc);
    return !front_ok + !vol_ok;
}

int main(void)
{
    int failed = phys_tank() + phys_dam();
    if (failed)
        printf("check-physics: %d of 3 checks failed with your stages (handout/README.md, \"How good is this simulator?\")\n", failed);
    else
        printf("check-physics: all 3 checks pass with your stages\n");
    return failed ? 1 : 0;
}
