/* checkpoint.c — a run saved to a state file and restored from one, bit for bit.
 * flipkit common/writers/: the sections are state.h's; every value read back is checked for
 * range before it is used, and a failure is one line naming the file and the field. */
#include "checkpoint.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"

_Static_assert(sizeof(Vec3) == 3 * sizeof(float), "Vec3 must be three packed floats");

int checkpoint_save(const Sim *s, const char *path, char *err, size_t errlen)
{
    StateFile sf;
    state_init(&sf);
    const MacGrid *g = &s->grid;
    int32_t dims[3] = { g->nx, g->ny, g->nz }, frame = s->frame;
    double time = s->time, substeps = (double)s->stats.substeps;
    const char *json = s->scene->json ? s->scene->json : "";
    int rc = state_add(&sf, "scene", STATE_U8, json, strlen(json)) |
             state_add(&sf, "grid", STATE_I32, dims, 3) |
             state_add(&sf, "frame", STATE_I32, &frame, 1) |
             state_add(&sf, "time", STATE_F64, &time, 1) |
             state_add(&sf, "substeps", STATE_F64, &substeps, 1) |
             state_add(&sf, "pos", STATE_F32, s->particles.pos, 3 * (uint64_t)s->particles.count) |
             state_add(&sf, "vel", STATE_F32, s->particles.vel, 3 * (uint64_t)s->particles.count) |
             state_add(&sf, "p", STATE_F32, g->p, grid_cells(g));
    if (rc != 0)
        snprintf(err, errlen, "%s: out of memory building the state", path);
    else
        rc = state_write(&sf, path, err, errlen);
    state_free(&sf);
    return rc ? -1 : 0;
}

/* A section that must exist with this many elements (or any count when want == 0). */
static const void *checkpoint_section(const StateFile *sf, const char *path, const char *tag,
                               uint32_t type, uint64_t want, uint64_t *count, char *err,
                               size_t errlen)
{
    const void *d = state_find(sf, tag, type, count);
    if (!d || (want && *count != want)) {
        snprintf(err, errlen, "%s: section \"%s\" is missing or has the wrong size", path, tag);
        return NULL;
    }
    return d;
}

/* The checksum says the file is what was written, not that it makes sense: every value is
 * checked for range before it is used (a frame of -5 would name files "-00001.ply", a
 * substep count of 1e300 does not fit a long). Returns 0, or -1 naming the field. */
static int checkpoint_check_counters(const Scene *scene, const char *path, int32_t frame, double time,
                              double substeps, char *err, size_t errlen)
{
    if (frame < 0 || frame > SIM_MAX_FRAME)
        return snprintf(err, errlen, "%s: frame is %ld; expected 0 to %d", path, (long)frame,
                        SIM_MAX_FRAME), -1;
    /* a checkpoint is taken at a frame's end: its time is frame / frame_rate */
    if (!isfinite(time) || time < 0 || fabs(time * scene->frame_rate - frame) > 0.5)
        return snprintf(err, errlen, "%s: time is %g s; expected %g s (frame %ld at %g frames/s)",
                        path, time, frame / scene->frame_rate, (long)frame, scene->frame_rate), -1;
    if (!isfinite(substeps) || substeps < 0 || substeps > 9007199254740992.0 || substeps != floor(substeps))
        return snprintf(err, errlen, "%s: substeps is %g; expected a whole number from 0 to 2^53",
                        path, substeps), -1;
    return 0;
}

/* Particles finite and inside the domain, velocities and pressures finite. */
static int checkpoint_check_fields(const MacGrid *g, const char *path, const float *pos, const float *vel,
                            uint64_t np, const float *p, char *err, size_t errlen)
{
    const float box[3] = { (float)g->nx * g->dx, (float)g->ny * g->dx, (float)g->nz * g->dx };
    for (uint64_t i = 0; i < np; i++) {
        int a = (int)(i % 3);
        if (!isfinite(pos[i]) || pos[i] < 0 || pos[i] > box[a])
            return snprintf(err, errlen, "%s: pos of particle %llu, %c = %g; expected a number "
                            "from 0 to %g m (inside the domain)", path, (unsigned long long)(i / 3),
                            "xyz"[a], pos[i], box[a]), -1;
        if (!isfinite(vel[i]))
            return snprintf(err, errlen, "%s: vel of particle %llu, %c = %g; expected a finite "
                            "number", path, (unsigned long long)(i / 3), "xyz"[a], vel[i]), -1;
    }
    size_t cells = grid_cells(g);
    for (size_t c = 0; c < cells; c++)
        if (!isfinite(p[c]))
            return snprintf(err, errlen, "%s: p of cell %zu is %g; expected a finite number", path,
                            c, p[c]), -1;
    return 0;
}

int checkpoint_load(Sim *s, const char *path, char *err, size_t errlen)
{
    StateFile sf;
    state_init(&sf);
    int rc = -1;
    uint64_t n, np;
    MacGrid *g = &s->grid;
    const int32_t *dims, *frame;
    const double *time, *substeps;
    const float *pos, *vel, *p;
    if (state_read(&sf, path, err, errlen) != 0)
        goto done;
    if (!(dims = checkpoint_section(&sf, path, "grid", STATE_I32, 3, &n, err, errlen)) ||
        !(frame = checkpoint_section(&sf, path, "frame", STATE_I32, 1, &n, err, errlen)) ||
        !(time = checkpoint_section(&sf, path, "time", STATE_F64, 1, &n, err, errlen)) ||
        !(substeps = checkpoint_section(&sf, path, "substeps", STATE_F64, 1, &n, err, errlen)) ||
        !(p = checkpoint_section(&sf, path, "p", STATE_F32, grid_cells(g), &n, err, errlen)) ||
        !(pos = checkpoint_section(&sf, path, "pos", STATE_F32, 0, &np, err, errlen)) ||
        !(vel = checkpoint_section(&sf, path, "vel", STATE_F32, np, &n, err, errlen)))
        goto done;
    if (dims[0] != g->nx || dims[1] != g->ny || dims[2] != g->nz) {
        snprintf(err, errlen, "%s: saved grid %dx%dx%d does not match the scene's %dx%dx%d", path,
                 dims[0], dims[1], dims[2], g->nx, g->ny, g->nz);
        goto done;
    }
    if (np % 3 != 0) {
        snprintf(err, errlen, "%s: pos has %llu numbers; expected 3 per particle", path,
                 (unsigned long long)np);
        goto done;
    }
    if (checkpoint_check_counters(s->scene, path, frame[0], time[0], substeps[0], err, errlen) != 0 ||
        checkpoint_check_fields(g, path, pos, vel, np, p, err, errlen) != 0)
        goto done;
    s->particles.count = 0;
    if (part_reserve(&s->particles, (size_t)(np / 3)) != 0) {
        snprintf(err, errlen, "%s: out of memory for %llu particles", path,
                 (unsigned long long)(np / 3));
        goto done;
    }
    memcpy(s->particles.pos, pos, np * sizeof(float));
    memcpy(s->particles.vel, vel, np * sizeof(float));
    s->particles.count = (size_t)(np / 3);
    memcpy(g->p, p, grid_cells(g) * sizeof(float));
    s->frame = frame[0];
    s->time = time[0];
    s->stats.substeps = (long)substeps[0];
    given_classify(g, s->solid, &s->particles);
    s->backend_stale = true;
    rc = 0;
done:
    state_free(&sf);
    return rc;
}

char *checkpoint_scene(const char *path, char *err, size_t errlen)
{
    StateFile sf;
    state_init(&sf);
    char *json = NULL;
    uint64_t n;
    if (state_read(&sf, path, err, errlen) == 0) {
        const char *text = checkpoint_section(&sf, path, "scene", STATE_U8, 0, &n, err, errlen);
        if (text && (json = malloc((size_t)n + 1))) {
            memcpy(json, text, (size_t)n);
            json[n] = '\0';
        }
    }
    state_free(&sf);
    return json;
}
