/* output.c — per frame: the particle and surface PLYs, a USD time sample, a preview PNG, slices.
 * flipkit common/writers/: the glue between the driver and ply.c, surface.c, usd.c, preview.c;
 * it decides paths and scales, and may write a frame on its own thread while the next runs. */
#include "output.h"

#include <errno.h>
#include <pthread.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "ply.h"
#include "preview.h"

#if defined(__GNUC__)
#define OUTPUT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define OUTPUT_PRINTF(f, a)
#endif

const char *const output_kind_names[OUTPUT_KINDS] = { "particles", "surface", "usd", "preview",
                                                      "slices", "bricks", "diffuse",
                                                      "anisotropic" };

/* A frame handed to the writer: what it writes. ps is the writer's one snapshot of the
 * particles when it runs on a thread of its own (the simulation goes on meanwhile), else the
 * simulation's own particles, written before output_frame returns. */
typedef struct {
    int frame;
    const Particles *ps;
    Mesh mesh;              /* the surface, when the scene writes one */
    Mesh aniso;             /* the anisotropic surface, when the device made it */
    bool aniso_made;        /* else the writer makes it in C from ps */
} OutputJob;

/* The writer thread and its two jobs: the driver makes one's surfaces while the thread writes
 * the other. The particles are copied once the thread is done with the last frame, into the
 * one snapshot both jobs point at (a copy of every particle fewer than one per job, issue 42:
 * 24 bytes a particle, for a copy made after the wait instead of before it), or not copied at
 * all on a device whose download waits for the writer (Output.lend_to). */
struct OutputWriter {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    OutputJob job[2];
    Particles snapshot;
    int fill;               /* the job the driver fills next */
    bool busy;              /* job[1 - fill] is handed over and not yet written */
    bool quit;
    int rc;                 /* the first failure, kept until output_close */
    char err[MESSAGE_MAX];
};

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

/* The frame's LEGO bricks into o->bricks, sized output.brick_cells x dx. */
static int output_build_bricks(Output *o, const Particles *ps, char *err, size_t errlen)
{
    const float *cells = o->scene->output.brick_cells;
    const float size[3] = { cells[0] * o->grid.dx, cells[1] * o->grid.dx, cells[2] * o->grid.dx };
    return bricks_build(&o->bricks, ps, &o->grid, size, o->scene->particles_per_cell, err, errlen);
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

/* The frame's USD sample: the particles, the surface when mesh is not NULL, and the diffuse
 * particles and bricks in o when the scene writes them. */
static int output_usd_frame(Output *o, int frame, const Particles *ps, const Mesh *mesh,
                            char *err, size_t errlen)
{
    const Scene *sc = o->scene;
    const Diffuse *d = &o->diffuse;
    const Bricks *b = &o->bricks;
    UsdFrame fr = { .frame = frame, .pos = ps->pos, .n = ps->count };
    if (mesh) {
        fr.mesh_xyz = mesh->xyz;
        fr.nverts = mesh->nverts;
        fr.tri = mesh->tri;
        fr.ntris = mesh->ntris;
    }
    if (sc->output.diffuse) {
        fr.diffuse_pos = d->pos;
        fr.diffuse_type = d->type;
        fr.ndiffuse = d->count;
    }
    if (sc->output.bricks) {
        fr.brick_xyz = b->centre;
        fr.brick_grey = b->colour;
        fr.nbricks = b->count;
    }
    if (sc->output.surface_anisotropic) {
        fr.aniso_xyz = o->aniso.xyz;
        fr.aniso_nverts = o->aniso.nverts;
        fr.aniso_tri = o->aniso.tri;
        fr.aniso_ntris = o->aniso.ntris;
    }
    return usd_add_frame_with(o->usd, &fr, err, errlen);
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
    if (o->scene->output.diffuse) {
        snprintf(path, sizeof path, "%s/diffuse/%06d.ply", o->dir, f);
        int rc = diffuse_read_ply(&o->diffuse, path, err, errlen);
        if (rc != 0)
            return rc;
    }
    if (o->scene->output.surface_anisotropic) {
        snprintf(path, sizeof path, "%s/anisotropic/%06d.ply", o->dir, f);
        int rc = output_read_mesh(path, &o->aniso, err, errlen);
        if (rc != 0)
            return rc;
    }
    /* the bricks are the particles' own: made again, not read */
    if (o->scene->output.bricks && output_build_bricks(o, ps, err, errlen) != 0)
        return -1;
    return output_usd_frame(o, f, ps, mesh ? &o->mesh : NULL, err, errlen);
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

/* A resumed run's diffuse particles go on from those written at its frame. */
static int output_resume_diffuse(Output *o, int resume_frame, char *err, size_t errlen)
{
    char path[1200];
    if (resume_frame < 0)
        return 0;
    snprintf(path, sizeof path, "%s/diffuse/%06d.ply", o->dir, resume_frame);
    int rc = diffuse_read_ply(&o->diffuse, path, err, errlen);
    o->diffuse_missing = rc == 1;
    return rc < 0 ? -1 : 0;
}

static int output_open_usd(Output *o, const MacGrid *g, int resume_frame, char *err,
                           size_t errlen)
{
    if (!o->scene->output.usd)
        return 0;
    /* Display diameter: the seeding spacing, dx over the particles per cell edge. */
    float width = g->dx / cbrtf((float)o->scene->particles_per_cell);
    const UsdOptions opt = { o->scene->frame_rate, width, o->scene->output.surface,
                             o->scene->output.diffuse,
                             o->scene->output.bricks ? o->scene->output.brick_cells[0] * g->dx : 0.0f,
                             o->scene->output.surface_anisotropic };
    o->usd = usd_open_with(o->dir, &opt, err, errlen);
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

static int output_scene_body(FILE *f, const void *ctx, char *why, size_t whylen)
{
    (void)why;
    (void)whylen;
    return fprintf(f, "%s\n", (const char *)ctx) < 0 ? -1 : 0;
}

/* OUT/scene.json: the scene as this run resolved it (defaults and --set applied), so that a
 * reader of the frames (the viewer: solids, grid, frame rate) needs nothing but OUT. */
static int output_write_scene(const Output *o, char *err, size_t errlen)
{
    char path[1200], why[1300];
    snprintf(path, sizeof path, "%s/scene.json", o->dir);
    if (!o->scene->json || atomic_write(path, false, output_scene_body, o->scene->json, why, sizeof why) != 0)
        return output_fail(err, errlen, "%s: %s", path, o->scene->json ? why : "no scene text");
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
    if (output_write_scene(o, err, errlen) != 0)
        return -1;
    o->speed_max = output_speed_scale(scene, g);
    /* The preview needs the grid's size and its solid cells, which last the whole run; the
     * writer thread must not read the live grid, which the next frame changes. */
    o->grid.nx = g->nx;
    o->grid.ny = g->ny;
    o->grid.nz = g->nz;
    o->grid.dx = g->dx;
    size_t ncells = (size_t)g->nx * g->ny * g->nz;
    o->grid.cell = malloc(ncells ? ncells : 1);
    if (!o->grid.cell)
        return output_fail(err, errlen, "out of memory for the preview's copy of the solid cells");
    for (size_t c = 0; c < ncells; c++)
        o->grid.cell[c] = g->cell && g->cell[c] == CELL_SOLID ? CELL_SOLID : CELL_AIR;
    bool bricks = scene->output.bricks;
    if ((scene->output.surface && output_mkdir(o, "surface", err, errlen)) ||
        (scene->output.preview && output_mkdir(o, "preview", err, errlen)) ||
        (bricks && (output_mkdir(o, "brick", err, errlen) || output_mkdir(o, "brickcolor", err, errlen) ||
                    output_mkdir(o, "bricktexture", err, errlen))))
        return -1;
    bricks_init(&o->bricks);
    mesh_init(&o->aniso);
    if (scene->output.surface_anisotropic && output_mkdir(o, "anisotropic", err, errlen))
        return -1;
    diffuse_init(&o->diffuse, (size_t)scene->output.diffuse_max);
    /* the stage's replay reads earlier frames' diffuse particles through o->diffuse, so the
     * resumed frame's are read after it */
    if ((scene->output.diffuse && output_mkdir(o, "diffuse", err, errlen)) ||
        output_open_usd(o, g, resume_frame, err, errlen) != 0)
        return -1;
    return scene->output.diffuse ? output_resume_diffuse(o, resume_frame, err, errlen) : 0;
}

_Static_assert(SCENE_SURFACE_REFINE_MAX == SURFACE_MAX_REFINE,
               "the scene loader and surface.c take the same output.surface_refine");

/* Both surfaces' settings, as the scene asks: the defaults at its output.surface_refine. */
static SurfaceSettings output_surface_settings(const Scene *sc)
{
    return surface_defaults_at(sc->output.surface_refine);
}

int output_mesh(OutputMesher mesher, Sim *s, const SurfaceSettings *set, Mesh *m)
{
    if (mesher && sim_backend_current(s))
        return mesher(s->backend, s, set, m);
    /* surface_build's messages already name it ("surface_build: ...") */
    return surface_build(&s->particles, &s->grid, set, m, s->error.message,
                         sizeof s->error.message);
}

static int output_preview(Output *o, const OutputJob *j, char *err, size_t errlen)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/preview/%06d.png", o->dir, j->frame);
    const Scene *sc = o->scene;
    const PreviewPoints diffuse = { o->diffuse.pos, o->diffuse.type, o->diffuse.count };
    const PreviewBricks bricks = { o->bricks.centre, o->bricks.colour, o->bricks.count,
                                   { o->bricks.size[0], o->bricks.size[1], o->bricks.size[2] } };
    const PreviewMesh aniso = { o->aniso.xyz, o->aniso.nverts, o->aniso.tri, o->aniso.ntris };
    /* what the frame wrote before the preview: output_write_job makes them first */
    const PreviewExtras x = { sc->output.diffuse ? &diffuse : NULL,
                              sc->output.bricks ? &bricks : NULL,
                              sc->output.surface_anisotropic ? &aniso : NULL };
    return preview_frame_png_extra(path, j->ps->pos, j->ps->vel, j->ps->count, &o->grid,
                                   sc->solids, sc->nsolids, OUTPUT_PREVIEW_WIDTH, o->speed_max, &x,
                                   err, errlen);
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

/* Adds the time since *t0 to kind, under the writer's lock when there is a writer thread
 * (the driver's meshing and the thread's writing both count). */
static void output_lap_locked(Output *o, OutputKind kind, bool on, double *t0)
{
    if (o->writer)
        pthread_mutex_lock(&o->writer->lock);
    output_lap(o, kind, on, t0);
    if (o->writer)
        pthread_mutex_unlock(&o->writer->lock);
}

/* Counts a mesh written into t, under the writer's lock as output_lap_locked. */
static void output_count_triangles(Output *o, OutputTriangles *t, size_t ntris)
{
    if (o->writer)
        pthread_mutex_lock(&o->writer->lock);
    t->frames++;
    t->sum += (double)ntris;
    t->max = ntris > t->max ? ntris : t->max;
    if (o->writer)
        pthread_mutex_unlock(&o->writer->lock);
}

static int output_bricks(Output *o, const OutputJob *j, char *err, size_t errlen)
{
    if (output_build_bricks(o, j->ps, err, errlen) != 0)
        return -1;
    return bricks_write(&o->bricks, o->dir, j->frame, err, errlen);
}

/* Steps the diffuse particles to the job's frame through its liquid, then writes them. */
static int output_diffuse(Output *o, const OutputJob *j, char *err, size_t errlen)
{
    const Scene *sc = o->scene;
    const DiffuseFrame f = { &o->grid, sc->gravity, (float)(1.0 / sc->frame_rate),
                             sc->particles_per_cell, sc->seed, j->frame };
    char path[1200];
    snprintf(path, sizeof path, "%s/diffuse/%06d.ply", o->dir, j->frame);
    if (diffuse_step(&o->diffuse, j->ps, &f, err, errlen) != 0)
        return -1;
    return diffuse_write_ply(&o->diffuse, path, err, errlen);
}

/* The anisotropic surface into o->aniso (the USD sample reads it there), then its PLY: the
 * device's, made by output_frame, or else made here in C from the job's particles (on the
 * writer thread, where it costs the run nothing while it is shorter than a frame). */
static int output_anisotropic(Output *o, OutputJob *j, char *err, size_t errlen)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/anisotropic/%06d.ply", o->dir, j->frame);
    if (j->aniso_made) {   /* swapped, not copied: each keeps reusing the other's arrays */
        Mesh t = o->aniso;
        o->aniso = j->aniso;
        j->aniso = t;
    } else {
        SurfaceSettings set = output_surface_settings(o->scene);
        if (surface_build_anisotropic(j->ps, &o->grid, &set, o->scene->particles_per_cell,
                                      &o->aniso, err, errlen) != 0)
            return -1;
    }
    return mesh_write_ply(path, &o->aniso, err, errlen);
}

/* Writes one frame's files from its job: the particles, the diffuse particles, the bricks,
 * the surface, the anisotropic surface, the USD sample and the preview. Runs on the writer thread, or on the driver's without one. */
static int output_write_job(Output *o, OutputJob *j, char *err, size_t errlen)
{
    const Scene *sc = o->scene;
    bool mesh = sc->output.surface;
    char path[1200];
    double t0 = output_clock();
    snprintf(path, sizeof path, "%s/particles/%06d.ply", o->dir, j->frame);
    if (sc->output.particles && ply_write_particles(path, j->ps, err, errlen) != 0)
        return -1;
    output_lap_locked(o, OUTPUT_PARTICLES, sc->output.particles, &t0);
    /* the diffuse particles first: the preview draws them, the USD stage holds them */
    if (sc->output.diffuse && output_diffuse(o, j, err, errlen) != 0)
        return -1;
    output_lap_locked(o, OUTPUT_DIFFUSE, sc->output.diffuse, &t0);
    if (sc->output.bricks && output_bricks(o, j, err, errlen) != 0)
        return -1;
    output_lap_locked(o, OUTPUT_BRICKS, sc->output.bricks, &t0);
    snprintf(path, sizeof path, "%s/surface/%06d.ply", o->dir, j->frame);
    if (mesh && mesh_write_ply(path, &j->mesh, err, errlen) != 0)
        return -1;
    if (mesh)
        output_count_triangles(o, &o->triangles, j->mesh.ntris);
    output_lap_locked(o, OUTPUT_SURFACE, mesh, &t0);
    if (sc->output.surface_anisotropic && output_anisotropic(o, j, err, errlen) != 0)
        return -1;
    if (sc->output.surface_anisotropic)
        output_count_triangles(o, &o->aniso_triangles, o->aniso.ntris);
    output_lap_locked(o, OUTPUT_ANISOTROPIC, sc->output.surface_anisotropic, &t0);
    if (o->usd && output_usd_frame(o, j->frame, j->ps, mesh ? &j->mesh : NULL, err, errlen) != 0)
        return -1;
    output_lap_locked(o, OUTPUT_USD, o->usd != NULL, &t0);
    if (sc->output.preview && output_preview(o, j, err, errlen) != 0)
        return -1;
    output_lap_locked(o, OUTPUT_PREVIEW, sc->output.preview, &t0);
    return 0;
}

static void *output_writer_main(void *arg)
{
    Output *o = arg;
    OutputWriter *w = o->writer;
    char err[sizeof w->err];
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->busy && !w->quit)
            pthread_cond_wait(&w->cond, &w->lock);
        if (!w->busy)
            break;  /* quit, with nothing left to write */
        OutputJob *j = &w->job[1 - w->fill];
        /* after a failure the frames that follow are not written: the files on disk stay a
         * run's first frames, with no gap */
        bool skip = w->rc != 0;
        pthread_mutex_unlock(&w->lock);
        int rc = skip ? 0 : output_write_job(o, j, err, sizeof err);
        pthread_mutex_lock(&w->lock);
        if (rc != 0 && w->rc == 0) {
            w->rc = rc;
            snprintf(w->err, sizeof w->err, "%s", err);
        }
        o->frames_written += rc == 0 && !skip;
        w->busy = false;
        pthread_cond_broadcast(&w->cond);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

static void output_free_jobs(OutputWriter *w)
{
    part_free(&w->snapshot);
    for (int k = 0; k < 2; k++) {
        mesh_free(&w->job[k].mesh);
        mesh_free(&w->job[k].aniso);
    }
}

int output_start_writer(Output *o, bool thread)
{
    OutputWriter *w = calloc(1, sizeof *w);
    if (!w)
        return -1;
    part_init(&w->snapshot);
    for (int k = 0; k < 2; k++) {
        w->job[k].ps = &w->snapshot;
        mesh_init(&w->job[k].mesh);
        mesh_init(&w->job[k].aniso);
    }
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    o->writer = w;
    o->threaded = thread && pthread_create(&w->thread, NULL, output_writer_main, o) == 0;
    return 0;
}

/* Waits until the writer has written every frame handed to it. Returns its first failure. */
static int output_wait(Output *o, char *err, size_t errlen)
{
    OutputWriter *w = o->writer;
    if (!w)
        return 0;
    pthread_mutex_lock(&w->lock);
    double t0 = output_clock();
    while (w->busy)
        pthread_cond_wait(&w->cond, &w->lock);
    o->waited += output_clock() - t0;
    int rc = w->rc;
    if (rc)
        snprintf(err, errlen, "%s", w->err);
    pthread_mutex_unlock(&w->lock);
    return rc;
}

int output_flush(Output *o, char *err, size_t errlen)
{
    return output_wait(o, err, errlen);
}

void output_wait_writer(void *ctx)
{
    char err[MESSAGE_MAX];
    output_wait(ctx, err, sizeof err); /* the failure stays in the writer for output_frame */
}

/* Copies the particles into the writer's snapshot (the writer is done with it). */
static int output_snapshot(OutputWriter *w, const Sim *s, char *err, size_t errlen)
{
    const Particles *ps = &s->particles;
    if (part_reserve(&w->snapshot, ps->count) != 0)
        return output_fail(err, errlen, "frame %d: out of memory copying %zu particles for the "
                           "writer", s->frame, ps->count);
    memcpy(w->snapshot.pos, ps->pos, ps->count * sizeof *ps->pos);
    memcpy(w->snapshot.vel, ps->vel, ps->count * sizeof *ps->vel);
    w->snapshot.count = ps->count;
    return 0;
}

/* Hands job j (its surfaces made) to the writer thread: once the thread has written the frame
 * before, the particles are copied into its snapshot, or lent when the sim runs on o->lend_to
 * (nothing writes them before that device's download, which waits for the writer: a copy of
 * every particle fewer, issue 42), and the thread is woken. */
static int output_hand_over(Output *o, OutputJob *j, const Sim *s, char *err, size_t errlen)
{
    OutputWriter *w = o->writer;
    bool lend = o->lend_to && s->backend == o->lend_to;
    int rc = output_wait(o, err, errlen);
    if (rc == 0 && !lend)
        rc = output_snapshot(w, s, err, errlen);
    if (rc == 0) {
        j->ps = lend ? &s->particles : &w->snapshot;
        pthread_mutex_lock(&w->lock);
        j->frame = s->frame;
        w->busy = true;
        w->fill = 1 - w->fill;
        pthread_cond_broadcast(&w->cond);
        pthread_mutex_unlock(&w->lock);
    }
    return rc;
}

int output_frame(Output *o, Sim *s, char *err, size_t errlen)
{
    OutputWriter *w = o->writer;
    OutputJob solo = { 0 };
    if (!w) {   /* output_start_writer failed to allocate: write from the driver's thread */
        mesh_init(&solo.mesh);
        mesh_init(&solo.aniso);
    }
    OutputJob *j = w ? &w->job[w->fill] : &solo;
    /* the surface is made here, where the device is (the writer never touches it) */
    double t0 = output_clock();
    int rc = 0;
    SurfaceSettings set = output_surface_settings(o->scene);
    if (o->scene->output.surface && output_mesh(o->mesher, s, &set, &j->mesh) != 0)
        rc = output_fail(err, errlen, "frame %d: %s", s->frame, s->error.message);
    output_lap_locked(o, OUTPUT_SURFACE, o->scene->output.surface, &t0);
    /* the anisotropic surface too, when the device can make it (else the writer, in C) */
    j->aniso_made = rc == 0 && o->scene->output.surface_anisotropic && o->aniso_mesher &&
                    sim_backend_current(s);
    if (j->aniso_made && o->aniso_mesher(s->backend, s, &set, &j->aniso) != 0)
        rc = output_fail(err, errlen, "frame %d: %s", s->frame, s->error.message);
    output_lap_locked(o, OUTPUT_ANISOTROPIC, j->aniso_made, &t0);
    /* slices read the grid, which the next frame changes: drawn here too */
    if (rc == 0)
        rc = output_slices(o, s, err, errlen);
    output_lap_locked(o, OUTPUT_SLICES, o->nslices > 0, &t0);
    if (rc == 0 && w && o->threaded) {
        rc = output_hand_over(o, j, s, err, errlen);
    } else if (rc == 0) {   /* written before the simulation goes on: its own particles */
        j->ps = &s->particles;
        j->frame = s->frame;
        rc = output_write_job(o, j, err, errlen);
        o->frames_written += rc == 0;
    }
    if (!w) {
        mesh_free(&solo.mesh);
        mesh_free(&solo.aniso);
    }
    return rc;
}

int output_close(Output *o, char *err, size_t errlen)
{
    OutputWriter *w = o->writer;
    int rc = output_wait(o, err, errlen);
    if (w && o->threaded) {
        pthread_mutex_lock(&w->lock);
        w->quit = true;
        pthread_cond_broadcast(&w->cond);
        pthread_mutex_unlock(&w->lock);
        pthread_join(w->thread, NULL);
    }
    if (w) {
        output_free_jobs(w);
        pthread_mutex_destroy(&w->lock);
        pthread_cond_destroy(&w->cond);
        free(w);
        o->writer = NULL;
    }
    double t0 = output_clock();
    bool on = o->usd != NULL;
    char closing[1300];
    int rc_usd = usd_close(o->usd, closing, sizeof closing);
    if (rc == 0 && rc_usd != 0)
        snprintf(err, errlen, "%s", closing);
    output_lap(o, OUTPUT_USD, on, &t0);
    o->usd = NULL;
    mesh_free(&o->mesh);
    free(o->grid.cell);
    o->grid.cell = NULL;
    bricks_free(&o->bricks);
    mesh_free(&o->aniso);
    diffuse_tally(&o->diffuse, &o->diffuse_end);
    diffuse_free(&o->diffuse);
    return rc ? rc : rc_usd;
}
