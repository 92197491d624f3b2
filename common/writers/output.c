/* output.c — per frame: the liquid surface PLY, a USD time sample, a preview PNG, slice PNGs.
 * flipkit common/writers/: the glue between the driver and surface.c, usd.c and preview.c; it
 * decides paths and scales, they do the work. Messages are one line and name the file. */
#include "output.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ply.h"
#include "preview.h"

#if defined(__GNUC__)
#define OUTPUT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define OUTPUT_PRINTF(f, a)
#endif

const char *const output_kind_names[OUTPUT_KINDS] = { "surface", "usd", "preview", "slices" };

static const char axis_names[3] = { 'x', 'y', 'z' };

static double output_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Adds the time since *t0 to kind, when this run writes that kind, and restarts the clock. */
static void output_lap(Output *o, OutputKind kind, bool on, double *t0)
{
    double now = output_clock();
    o->seconds[kind] += on ? now - *t0 : 0.0;
    o->on[kind] |= on;
    *t0 = now;
}

static int OUTPUT_PRINTF(3, 4) output_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

int output_parse_slice(const char *text, OutputSlice *sl, char *err, size_t errlen)
{
    const char *axes = "xyz";
    const char *at = text[0] ? strchr(axes, text[0]) : NULL;
    bool digits = at && text[1] == '=' && text[2];
    long index = 0;
    for (const char *c = text + 2; digits && *c; c++) {
        digits = *c >= '0' && *c <= '9';
        index = index < 100000 ? 10 * index + (*c - '0') : index; /* the grid check says more */
    }
    if (!digits)
        return output_fail(err, errlen, "--slice %s: expected AXIS=INDEX, AXIS x, y or z and "
                           "INDEX a cell index (e.g. --slice z=16)", text);
    sl->axis = (int)(at - axes);
    sl->index = (int)index;
    return 0;
}

/* Creates OUT/name (OUT exists already). */
static int output_mkdir(const Output *o, const char *name, char *err, size_t errlen)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", o->dir, name);
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return output_fail(err, errlen, "%s: cannot create: %s", path, strerror(errno));
    return 0;
}

static void output_slice_name(const OutputSlice *sl, char *buf, size_t n)
{
    snprintf(buf, n, "slice-%c%d", axis_names[sl->axis], sl->index);
}

int output_check_slice(const OutputSlice *sl, const int n[3], char *err, size_t errlen)
{
    if (sl->index >= n[sl->axis])
        return output_fail(err, errlen, "--slice %c=%d: the grid has %d cells along %c; "
                           "expected an index from 0 to %d", axis_names[sl->axis], sl->index,
                           n[sl->axis], axis_names[sl->axis], n[sl->axis] - 1);
    return 0;
}

/* One colour scale for the whole run, so that frames compare: the speed of a fall from the
 * top of the box to the floor (the fastest gravity alone can make), or the fastest velocity
 * the scene gives its fluid (at the start or in an event) when that is faster; rounded up by
 * preview_speed_max to 1, 2, 2.5 or 5 x 10^k. */
static float output_speed_scale(const Scene *sc, const MacGrid *g)
{
    double gmag = sqrt((double)sc->gravity.x * sc->gravity.x + (double)sc->gravity.y * sc->gravity.y +
                       (double)sc->gravity.z * sc->gravity.z);
    double fastest = sqrt(2.0 * gmag * g->ny * (double)g->dx);
    for (int e = -1; e < sc->nevents; e++) {
        const Shape *fluid = e < 0 ? sc->fluid : sc->events[e].fluid;
        int n = e < 0 ? sc->nfluid : sc->events[e].nfluid;
        for (int i = 0; i < n; i++) {
            Vec3 v = fluid[i].velocity;
            double speed = sqrt((double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z);
            fastest = speed > fastest ? speed : fastest;
        }
    }
    Vec3 probe = { 0.0f, (float)fastest, 0.0f };
    return preview_speed_max(&probe, 1);
}

static uint32_t output_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Reads back a surface written by mesh_write_ply (binary little-endian, float x y z, a uchar
 * count of 3 and three int indices per face; nothing else). Returns 0, 1 when the file does
 * not exist, or -1 with one line in err. */
static int output_read_mesh(const char *path, Mesh *m, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno == ENOENT ? 1 : output_fail(err, errlen, "%s: cannot read: %s", path, strerror(errno));
    char line[128];
    size_t nv = 0, nf = 0;
    int ok = fgets(line, sizeof line, f) && strcmp(line, "ply\n") == 0, binary = 0;
    while (ok && fgets(line, sizeof line, f) && strcmp(line, "end_header\n") != 0) {
        binary |= strcmp(line, "format binary_little_endian 1.0\n") == 0;
        sscanf(line, "element vertex %zu", &nv);
        sscanf(line, "element face %zu", &nf);
    }
    ok = ok && binary && !ferror(f) && !feof(f) && nv < UINT32_MAX && nf < SIZE_MAX / 16;
    if (!ok) {
        fclose(f);
        return output_fail(err, errlen, "%s: not a surface flipsim wrote (expected a binary "
                           "little-endian PLY header ending in end_header)", path);
    }
    size_t want = 12 * nv + 13 * nf, got = 0;
    unsigned char *body = malloc(want + 1);
    if (body)
        got = fread(body, 1, want, f);
    fclose(f);
    if (body && got != want) {
        free(body);
        return output_fail(err, errlen, "%s: truncated: %zu bytes after the header, expected %zu "
                           "for %zu vertices and %zu triangles", path, got, want, nv, nf);
    }
    ok = body != NULL;
    mesh_free(m);
    m->xyz = ok ? malloc(12 * nv + 1) : NULL;
    m->tri = ok ? malloc(12 * nf + 1) : NULL;
    ok = ok && m->xyz && m->tri;
    for (size_t t = 0; ok && t < nf; t++) {
        const unsigned char *face = body + 12 * nv + 13 * t;
        for (int c = 0; c < 3; c++)
            m->tri[3 * t + c] = output_le32(face + 1 + 4 * c);
        ok = face[0] == 3 && m->tri[3 * t] < nv && m->tri[3 * t + 1] < nv && m->tri[3 * t + 2] < nv;
    }
    if (ok) {
        memcpy(m->xyz, body, 12 * nv);  /* little-endian floats, as mesh_write_ply wrote them */
        m->nverts = m->cap_verts = nv;
        m->ntris = m->cap_tris = nf;
    }
    free(body);
    if (!ok) {
        mesh_free(m);
        return output_fail(err, errlen, "%s: out of memory, or a face that is not a triangle "
                           "of the file's %zu vertices", path, nv);
    }
    return 0;
}

/* Frame f of an earlier run into the stage, from its particle and surface files. Returns 0,
 * 1 when a file is missing (the frame is left out), or -1 with one line in err. */
static int output_restage_frame(Output *o, int f, Particles *ps, char *err, size_t errlen)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/particles/%06d.ply", o->dir, f);
    if (access(path, F_OK) != 0)
        return 1;
    if (ply_read_particles(path, ps, err, errlen) != 0)
        return -1;
    bool mesh = o->scene->output.surface;
    if (mesh) {
        snprintf(path, sizeof path, "%s/surface/%06d.ply", o->dir, f);
        int rc = output_read_mesh(path, &o->mesh, err, errlen);
        if (rc != 0)
            return rc;
    }
    return usd_add_frame(o->usd, f, ps->pos, ps->count, mesh ? o->mesh.xyz : NULL,
                         mesh ? o->mesh.nverts : 0, mesh ? o->mesh.tri : NULL,
                         mesh ? o->mesh.ntris : 0, err, errlen);
}

/* A resumed run's stage starts again from frame 0: the earlier frames come back from the
 * files the first run wrote (PLY keeps the floats exactly), so it ends up byte for byte the
 * stage of a run in one go. Frames whose files are gone are counted and left out. */
static int output_restage(Output *o, int last, char *err, size_t errlen)
{
    Particles ps;
    part_init(&ps);
    int rc = 0;
    for (int f = 0; f <= last && rc >= 0; f++) {
        rc = output_restage_frame(o, f, &ps, err, errlen);
        o->usd_missing += rc == 1;
    }
    part_free(&ps);
    return rc < 0 ? -1 : 0;
}

static int output_open_usd(Output *o, const MacGrid *g, int resume_frame, char *err,
                           size_t errlen)
{
    if (!o->scene->output.usd)
        return 0;
    /* Display diameter: the seeding spacing, dx over the particles per cell edge. */
    float width = g->dx / cbrtf((float)o->scene->particles_per_cell);
    o->usd = usd_open(o->dir, o->scene->frame_rate, width, o->scene->output.surface, err, errlen);
    if (!o->usd || resume_frame < 0)
        return o->usd ? 0 : -1;
    /* The stage on disk already shows frames 0..resume_frame; it stays until the replay is
     * done, and stays for good if the replay fails. */
    usd_defer_assembly(o->usd, true);
    if (output_restage(o, resume_frame, err, errlen) != 0) {
        usd_discard(o->usd);
        o->usd = NULL;
        return -1;
    }
    usd_defer_assembly(o->usd, false);
    return 0;
}

int output_open(Output *o, const char *out_dir, const Scene *scene, const MacGrid *g,
                const OutputSlice *slices, int nslices, int resume_frame, char *err,
                size_t errlen)
{
    memset(o, 0, sizeof *o);
    mesh_init(&o->mesh);
    o->scene = scene;
    snprintf(o->dir, sizeof o->dir, "%s", out_dir);
    if (nslices > OUTPUT_MAX_SLICES)
        return output_fail(err, errlen, "--slice: at most %d slices per run", OUTPUT_MAX_SLICES);
    for (int i = 0; i < nslices; i++) {
        char name[32];
        output_slice_name(&slices[i], name, sizeof name);
        const int n[3] = { g->nx, g->ny, g->nz };
        if (output_check_slice(&slices[i], n, err, errlen) || output_mkdir(o, name, err, errlen))
            return -1;
        o->slice[o->nslices++] = slices[i];
    }
    o->speed_max = output_speed_scale(scene, g);
    if ((scene->output.surface && output_mkdir(o, "surface", err, errlen)) ||
        (scene->output.preview && output_mkdir(o, "preview", err, errlen)))
        return -1;
    return output_open_usd(o, g, resume_frame, err, errlen);
}

int output_mesh(OutputMesher mesher, Sim *s, const SurfaceSettings *set, Mesh *m)
{
    if (mesher && sim_backend_current(s))
        return mesher(s->backend, s, set, m);
    /* surface_build's messages already name it ("surface_build: ...") */
    return surface_build(&s->particles, &s->grid, set, m, s->error.message,
                         sizeof s->error.message);
}

static int output_surface(Output *o, Sim *s, char *err, size_t errlen)
{
    char path[1200];
    if (output_mesh(o->mesher, s, NULL, &o->mesh) != 0)
        return output_fail(err, errlen, "frame %d: %s", s->frame, s->error.message);
    snprintf(path, sizeof path, "%s/surface/%06d.ply", o->dir, s->frame);
    return mesh_write_ply(path, &o->mesh, err, errlen);
}

static int output_preview(Output *o, const Sim *s, char *err, size_t errlen)
{
    char path[1200];
    const Particles *ps = &s->particles;
    snprintf(path, sizeof path, "%s/preview/%06d.png", o->dir, s->frame);
    return preview_frame_png(path, ps->pos, ps->vel, ps->count, &s->grid, o->scene->solids,
                             o->scene->nsolids, OUTPUT_PREVIEW_WIDTH, o->speed_max, err, errlen);
}

/* Cells drawn so that the slice's longer side is about 384 pixels, 2 to 16 per cell. */
static int output_slice_cell_px(const MacGrid *g, int axis)
{
    int n[3] = { g->nx, g->ny, g->nz };
    int a = n[(axis + 1) % 3], b = n[(axis + 2) % 3];
    int px = 384 / (a > b ? a : b);
    return px < 2 ? 2 : px > 16 ? 16 : px;
}

/* The grid as the frame's last substep left it: its cell types, the pressure, and the
 * divergence the pressure solve was given (before the projection removed it). */
static int output_slices(Output *o, const Sim *s, char *err, size_t errlen)
{
    for (int i = 0; i < o->nslices; i++) {
        const OutputSlice *sl = &o->slice[i];
        char name[32], path[1200];
        output_slice_name(sl, name, sizeof name);
        snprintf(path, sizeof path, "%s/%s/%06d.png", o->dir, name, s->frame);
        if (preview_slice_png(path, &s->grid, s->grid.p, s->div, sl->axis, sl->index,
                              output_slice_cell_px(&s->grid, sl->axis), err, errlen) != 0)
            return -1;
    }
    return 0;
}

int output_frame(Output *o, Sim *s, char *err, size_t errlen)
{
    const Scene *sc = o->scene;
    bool mesh = sc->output.surface;
    double t0 = output_clock();
    if (mesh && output_surface(o, s, err, errlen) != 0)
        return -1;
    output_lap(o, OUTPUT_SURFACE, mesh, &t0);
    if (o->usd && usd_add_frame(o->usd, s->frame, s->particles.pos, s->particles.count,
                                mesh ? o->mesh.xyz : NULL, mesh ? o->mesh.nverts : 0,
                                mesh ? o->mesh.tri : NULL, mesh ? o->mesh.ntris : 0,
                                err, errlen) != 0)
        return -1;
    output_lap(o, OUTPUT_USD, o->usd != NULL, &t0);
    if (sc->output.preview && output_preview(o, s, err, errlen) != 0)
        return -1;
    output_lap(o, OUTPUT_PREVIEW, sc->output.preview, &t0);
    int rc = output_slices(o, s, err, errlen);
    output_lap(o, OUTPUT_SLICES, o->nslices > 0, &t0);
    o->frames_written += rc == 0;
    return rc;
}

int output_close(Output *o, char *err, size_t errlen)
{
    double t0 = output_clock();
    bool on = o->usd != NULL;
    int rc = usd_close(o->usd, err, errlen);
    output_lap(o, OUTPUT_USD, on, &t0);
    o->usd = NULL;
    mesh_free(&o->mesh);
    return rc;
}
