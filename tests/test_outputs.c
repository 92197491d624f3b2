/* test_outputs.c — issue 7's acceptance: ball_drop with every output on (the USD stage asked
 * for: it is opt-in), read back from disk.
 * flipkit tests/: surface PLYs closed, manifold, in the domain, out of solids; previews that show
 * the ball fall and spread; a USD stage with one sample per frame at the scene's rate; --slice. */
#include <math.h>
#include <png.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"
#include "harness.h"
#include "devices.h"
#include "ply.h"
#include "preview.h"
#include "reference.h"
#include "surface.h"

enum { FRAMES = 30, WIDTH = 800, HEIGHT = 600 };

/* ---- one run, shared by the cases ------------------------------------------------------ */

/* As the kit's flipsim: with the OpenCL pipeline, which `make run` uses when a device opens. */
static int run_cli(const char *tag, char **argv)
{
    return harness_run_cli(tag, argv, &student_track, &reference_track, &opencl_devices);
}

/* ball_drop as shipped with the USD stage turned on, and as `make run` runs it (on the OpenCL device when
 * one opens, so the device's surface path is what is checked), run once; each forked case
 * after the first finds the finished run on disk. The scratch directory is fixed in main. */
static const char *ball_drop_dir(void)
{
    static char dir[512];
    char done[600];
    snprintf(dir, sizeof dir, "%s/ball", harness_tmpdir());
    snprintf(done, sizeof done, "%s/.complete", dir);
    if (access(done, F_OK) == 0)
        return dir;
    char *argv[] = { "flipsim", "--quiet", "--out", dir, "--set", "output.usd=true",
                     "--set", "output.diffuse=true", "--set", "output.bricks=true",
                     "--set", "output.surface_anisotropic=true", "scenes/ball_drop.json", NULL };
    ck_assert_int_eq(run_cli("ball", argv), EXIT_OK);
    FILE *f = fopen(done, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    return dir;
}

static void load_scene(Scene *sc)
{
    char err[SCENE_ERR_MAX];
    ck_assert_msg(scene_load("scenes/ball_drop.json", NULL, 0, sc, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(sc->output.surface && !sc->output.usd && sc->output.preview,
                  "scenes/ball_drop.json: expected the surface and previews on, the USD stage opt-in");
    scene_free(sc);
    const char *usd_on[] = { "output.usd=true" }; /* as the runs here ask for it */
    ck_assert_msg(scene_load("scenes/ball_drop.json", usd_on, 1, sc, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(sc->frames, FRAMES);
}

/* ---- surface ---------------------------------------------------------------------------- */

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Reads a binary PLY of float vertices and triangle faces (the layout mesh_write_ply
 * documents), independently of surface.c. */
static void read_mesh(const char *path, Mesh *m)
{
    size_t len;
    char *buf = harness_slurp(path, &len);
    const char *end = strstr(buf, "end_header\n");
    size_t nv, nf;
    ck_assert_msg(end && strncmp(buf, "ply\nformat binary_little_endian 1.0\n", 36) == 0,
                  "%s: not a binary little-endian PLY", path);
    ck_assert_msg(sscanf(strstr(buf, "element vertex "), "element vertex %zu", &nv) == 1 &&
                  sscanf(strstr(buf, "element face "), "element face %zu", &nf) == 1,
                  "%s: no vertex or face counts", path);
    const unsigned char *p = (const unsigned char *)end + strlen("end_header\n");
    size_t body = (size_t)(p - (const unsigned char *)buf);
    ck_assert_msg(len == body + 12 * nv + 13 * nf, "%s: %zu bytes, expected %zu for %zu vertices "
                  "and %zu triangles", path, len, body + 12 * nv + 13 * nf, nv, nf);
    mesh_free(m);
    m->xyz = malloc(12 * nv + 1);
    m->tri = malloc(12 * nf + 1);
    ck_assert(m->xyz && m->tri);
    m->nverts = m->cap_verts = nv;
    m->ntris = m->cap_tris = nf;
    memcpy(m->xyz, p, 12 * nv); /* little-endian floats, as on this machine */
    p += 12 * nv;
    for (size_t t = 0; t < nf; t++, p += 13) {
        harness_require(p[0] == 3, "%s: face %zu has %d corners, expected 3", path, t, p[0]);
        for (int c = 0; c < 3; c++) {
            m->tri[3 * t + c] = le32(p + 1 + 4 * c);
            harness_require(m->tri[3 * t + c] < nv, "%s: face %zu: vertex %u of %zu", path, t,
                          m->tri[3 * t + c], nv);
        }
    }
    free(buf);
}

static void assert_closed(const Mesh *m, const char *path)
{
    MeshStats st;
    ck_assert_int_eq(mesh_stats(m, &st), 0);
    ck_assert_msg(st.boundary_edges == 0 && st.nonmanifold_edges == 0 && st.misoriented_edges == 0 &&
                  st.degenerate_tris == 0,
                  "%s: of %zu edges, %zu boundary, %zu non-manifold, %zu misoriented; %zu "
                  "degenerate triangles; expected all 0", path, st.edges, st.boundary_edges,
                  st.nonmanifold_edges, st.misoriented_edges, st.degenerate_tris);
    /* Counted edges: a closed triangle mesh has exactly 3F/2 of them. */
    ck_assert_msg(2 * st.edges == 3 * m->ntris, "%s: %zu edges for %zu triangles, expected 3F/2",
                  path, st.edges, m->ntris);
}

/* Every vertex strictly inside the domain and in a cell that is not SOLID (the outer layer
 * and the scene's solids). */
static void assert_inside(const Mesh *m, const MacGrid *g, const char *path)
{
    const int n[3] = { g->nx, g->ny, g->nz };
    for (size_t v = 0; v < m->nverts; v++) {
        const float *x = m->xyz + 3 * v;
        int c[3];
        for (int d = 0; d < 3; d++) {
            harness_require(x[d] > 0.0f && x[d] < (float)n[d] * g->dx, "%s: vertex %zu: %c = %g is "
                          "outside the domain (0, %g)", path, v, "xyz"[d], (double)x[d],
                          (double)((float)n[d] * g->dx));
            c[d] = (int)floorf(x[d] / g->dx);
        }
        harness_require(grid_cell_type(g, c[0], c[1], c[2]) != CELL_SOLID, "%s: vertex %zu (%g, %g, "
                      "%g) is in SOLID cell (%d,%d,%d)", path, v, (double)x[0], (double)x[1],
                      (double)x[2], c[0], c[1], c[2]);
    }
}

START_TEST(surface_closed_inside_every_frame)
{
    const char *dir = ball_drop_dir();
    Scene sc;
    Sim sim;
    load_scene(&sc);
    ck_assert_int_eq(sim_init(&sim, &sc, &reference_track), 0); /* its grid marks the solids */
    /* The fluid's volume: particles_per_cell particles fill a cell. */
    Particles ps;
    part_init(&ps);
    Mesh m;
    mesh_init(&m);
    char path[700], err[800];
    for (int f = 0; f <= FRAMES; f++) {
        snprintf(path, sizeof path, "%s/surface/%06d.ply", dir, f);
        read_mesh(path, &m);
        ck_assert_msg(m.ntris > 1000, "%s: %zu triangles, expected a ball's worth", path, m.ntris);
        assert_closed(&m, path);
        assert_inside(&m, &sim.grid, path);
        snprintf(path, sizeof path, "%s/particles/%06d.ply", dir, f);
        ck_assert_msg(ply_read_particles(path, &ps, err, sizeof err) == 0, "%s", err);
        double vol = mesh_volume(&m), fluid = surface_particle_volume(&ps, &sim.grid, sc.particles_per_cell);
        /* Splashes make thin sheets the field rounds off or thickens; a wrong orientation or a
         * lost component would be off by far more. */
        ck_assert_msg(fabs(vol - fluid) < 0.10 * fluid, "surface/%06d.ply encloses %.2f m^3; the "
                      "particles away from the walls fill %.2f m^3, expected within 10%%", f, vol,
                      fluid);
    }
    snprintf(path, sizeof path, "%s/surface/%06d.ply", dir, FRAMES + 1);
    ck_assert_msg(access(path, F_OK) != 0, "%s written, the scene has %d frames", path, FRAMES);
    mesh_free(&m);
    part_free(&ps);
    sim_free(&sim);
    scene_free(&sc);
}
END_TEST

/* ---- previews --------------------------------------------------------------------------- */

typedef struct { int rows, cols; unsigned char *rgb; } Image;

static void read_png(const char *path, Image *im)
{
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    ck_assert_msg(png_image_begin_read_from_file(&pi, path), "%s: %s", path, pi.message);
    pi.format = PNG_FORMAT_RGB;
    im->cols = (int)pi.width;
    im->rows = (int)pi.height;
    im->rgb = malloc(PNG_IMAGE_SIZE(pi));
    ck_assert_ptr_nonnull(im->rgb);
    ck_assert_msg(png_image_finish_read(&pi, NULL, im->rgb, 0, NULL), "%s: %s", path, pi.message);
}

/* Particles are drawn in viridis, which is saturated everywhere; the box, floor, walls and
 * text are greys. */
static bool is_particle(const unsigned char *px)
{
    int hi = px[0] > px[1] ? px[0] : px[1], lo = px[0] < px[1] ? px[0] : px[1];
    hi = px[2] > hi ? px[2] : hi;
    lo = px[2] < lo ? px[2] : lo;
    return hi - lo > 60;
}

typedef struct { int x0, x1, y0, y1; long count; double ymean; } Box;

static Box particle_pixels(const Image *im, int view_w)
{
    Box b = { im->cols, -1, im->rows, -1, 0, 0.0 };
    for (int y = 0; y < im->rows; y++)
        for (int x = 0; x < view_w; x++)
            if (is_particle(im->rgb + 3 * ((size_t)y * im->cols + x))) {
                b.x0 = x < b.x0 ? x : b.x0;
                b.x1 = x > b.x1 ? x : b.x1;
                b.y0 = y < b.y0 ? y : b.y0;
                b.y1 = y > b.y1 ? y : b.y1;
                b.count++;
                b.ymean += y;
            }
    b.ymean /= b.count > 0 ? (double)b.count : 1.0;
    return b;
}

/* Where the preview's camera puts the frame's particles, from the particle file. */
static Box projected_particles(const char *dir, int frame, const PreviewView *v)
{
    char path[700], err[800];
    Particles ps;
    part_init(&ps);
    snprintf(path, sizeof path, "%s/particles/%06d.ply", dir, frame);
    ck_assert_msg(ply_read_particles(path, &ps, err, sizeof err) == 0, "%s", err);
    Box b = { 1 << 30, -(1 << 30), 1 << 30, -(1 << 30), (long)ps.count, 0.0 };
    for (size_t p = 0; p < ps.count; p++) {
        double x, y, depth;
        harness_require(preview_project(v, ps.pos[p], &x, &y, &depth), "%s: particle %zu is behind "
                        "the preview's camera", path, p);
        b.x0 = (int)x < b.x0 ? (int)x : b.x0;
        b.x1 = (int)x > b.x1 ? (int)x : b.x1;
        b.y0 = (int)y < b.y0 ? (int)y : b.y0;
        b.y1 = (int)y > b.y1 ? (int)y : b.y1;
    }
    part_free(&ps);
    return b;
}

START_TEST(previews_show_the_ball_fall_and_spread)
{
    const char *dir = ball_drop_dir();
    Scene sc;
    Sim sim;
    load_scene(&sc);
    ck_assert_int_eq(sim_init(&sim, &sc, &reference_track), 0);
    PreviewView v;
    ck_assert_int_eq(preview_frame_view(&v, &sim.grid, WIDTH), 0);
    Box seen[FRAMES + 1];
    char path[700];
    Image im = { 0 };
    for (int f = 0; f <= FRAMES; f++) {
        snprintf(path, sizeof path, "%s/preview/%06d.png", dir, f);
        read_png(path, &im);
        ck_assert_msg(im.cols == WIDTH && im.rows == HEIGHT, "%s: %dx%d, expected %dx%d", path,
                      im.cols, im.rows, WIDTH, HEIGHT);
        seen[f] = particle_pixels(&im, v.view_w);
        Box want = projected_particles(dir, f, &v);
        /* Dots have a radius of a few pixels; 10 px covers it and the shading at the rim. */
        ck_assert_msg(abs(seen[f].x0 - want.x0) <= 10 && abs(seen[f].x1 - want.x1) <= 10 &&
                      abs(seen[f].y0 - want.y0) <= 10 && abs(seen[f].y1 - want.y1) <= 10,
                      "%s: particles drawn in x %d..%d, y %d..%d; the camera puts them at x "
                      "%d..%d, y %d..%d (10 px allowed)", path, seen[f].x0, seen[f].x1, seen[f].y0,
                      seen[f].y1, want.x0, want.x1, want.y0, want.y1);
        if (f == 0) {
            /* At rest: the colour of 0 m/s, and the colour bar runs from it to the top speed. */
            unsigned char slow[3], fast[3];
            preview_viridis(0.0, slow);
            preview_viridis(1.0, fast);
            const unsigned char *bottom = im.rgb + 3 * ((size_t)(v.bar_y1 - 1) * im.cols + (v.bar_x0 + v.bar_x1) / 2);
            const unsigned char *top = im.rgb + 3 * ((size_t)v.bar_y0 * im.cols + (v.bar_x0 + v.bar_x1) / 2);
            for (int c = 0; c < 3; c++) {
                ck_assert_msg(abs(bottom[c] - slow[c]) <= 8 && abs(top[c] - fast[c]) <= 8,
                              "%s: colour bar channel %d: bottom %d top %d, expected viridis "
                              "%d and %d", path, c, bottom[c], top[c], slow[c], fast[c]);
            }
        }
        free(im.rgb);
    }
    /* Falling: the top of the ball goes down the image for the first frames, */
    for (int f = 1; f <= 8; f++)
        ck_assert_msg(seen[f].y0 >= seen[f - 1].y0, "preview %06d: top of the water at row %d, "
                      "above frame %d's %d; expected the ball to fall", f, seen[f].y0, f - 1,
                      seen[f - 1].y0);
    ck_assert_msg(seen[12].y0 > seen[0].y0 + 40, "preview 000012: top at row %d, expected at least "
                  "40 rows below frame 0's %d", seen[12].y0, seen[0].y0);
    /* spreading: wider by the end, and most of the water low on the floor (the bounding box
     * is no measure of height: a few drops run up the walls). */
    int w0 = seen[0].x1 - seen[0].x0, w30 = seen[FRAMES].x1 - seen[FRAMES].x0;
    ck_assert_msg(w30 > w0 * 5 / 4, "preview %06d: water %d px wide, expected 1.25x frame 0's %d",
                  FRAMES, w30, w0);
    ck_assert_msg(seen[FRAMES].ymean > seen[0].ymean + 40, "preview %06d: the water's pixels "
                  "average row %.0f, expected at least 40 rows below frame 0's %.0f", FRAMES,
                  seen[FRAMES].ymean, seen[0].ymean);
    sim_free(&sim);
    scene_free(&sc);
}
END_TEST

/* ---- USD -------------------------------------------------------------------------------- */

/* The stage metadata's numeric value of key (e.g. "framesPerSecond"). */
static double usd_meta(const char *text, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "    %s = ", key);
    const char *at = strstr(text, pat);
    ck_assert_msg(at != NULL, "scene.usda: no %s in the stage metadata", key);
    return strtod(at + strlen(pat), NULL);
}

/* Checks that the attribute declared by decl inside prim has exactly one sample per frame
 * 0..FRAMES, in order, each on its own line; returns the text of the last sample. */
static const char *usd_samples(const char *text, const char *prim, const char *decl)
{
    const char *p = strstr(text, prim);
    ck_assert_msg(p != NULL, "scene.usda: no %s", prim);
    p = strstr(p, decl);
    ck_assert_msg(p != NULL, "scene.usda: %s has no %s", prim, decl);
    p = strchr(p, '\n') + 1;
    const char *last = NULL;
    int frame = 0;
    for (; strncmp(p, "        }", 9) != 0; frame++) {
        char *after;
        long t = strtol(p, &after, 10);
        ck_assert_msg(after != p && *after == ':', "scene.usda: %s %s: sample %d is not "
                      "\"TIME: value\"", prim, decl, frame);
        ck_assert_msg(t == frame, "scene.usda: %s %s: sample %d has time %ld, expected %d",
                      prim, decl, frame, t, frame);
        last = after + 1;
        p = strchr(p, '\n');
        ck_assert_ptr_nonnull(p);
        p++;
    }
    ck_assert_msg(frame == FRAMES + 1, "scene.usda: %s %s has %d samples, expected one per frame "
                  "(%d)", prim, decl, frame, FRAMES + 1);
    return last;
}

static size_t count_char(const char *s, char c, char stop)
{
    size_t n = 0;
    for (; *s && *s != stop; s++)
        n += *s == c;
    return n;
}

START_TEST(usd_one_sample_per_frame_at_the_scene_rate)
{
    const char *dir = ball_drop_dir();
    Scene sc;
    load_scene(&sc);
    char path[700];
    snprintf(path, sizeof path, "%s/scene.usda", dir);
    char *text = harness_slurp(path, NULL);
    ck_assert_msg(strncmp(text, "#usda 1.0\n", 10) == 0, "scene.usda: no #usda 1.0 header");
    ck_assert_msg(usd_meta(text, "framesPerSecond") == sc.frame_rate &&
                  usd_meta(text, "timeCodesPerSecond") == sc.frame_rate,
                  "scene.usda: framesPerSecond %g, timeCodesPerSecond %g; expected the scene's "
                  "frame rate %g for real-time playback", usd_meta(text, "framesPerSecond"),
                  usd_meta(text, "timeCodesPerSecond"), sc.frame_rate);
    ck_assert_msg(usd_meta(text, "startTimeCode") == 0 && usd_meta(text, "endTimeCode") == FRAMES,
                  "scene.usda: time codes %g..%g, expected 0..%d", usd_meta(text, "startTimeCode"),
                  usd_meta(text, "endTimeCode"), FRAMES);
    ck_assert_ptr_nonnull(strstr(text, "upAxis = \"Y\""));
    ck_assert_ptr_nonnull(strstr(text, "metersPerUnit = 1\n"));
    const char *pts = usd_samples(text, "def Points \"particles\"", "point3f[] points.timeSamples");
    /* The last sample holds every particle of the last frame. */
    Particles ps;
    part_init(&ps);
    char err[800];
    snprintf(path, sizeof path, "%s/particles/%06d.ply", dir, FRAMES);
    ck_assert_msg(ply_read_particles(path, &ps, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(count_char(pts, '(', '\n'), ps.count);
    part_free(&ps);
    usd_samples(text, "def Mesh \"surface\"", "point3f[] points.timeSamples");
    usd_samples(text, "def Mesh \"surface\"", "int[] faceVertexIndices.timeSamples");
    const char *counts = usd_samples(text, "def Mesh \"surface\"", "int[] faceVertexCounts.timeSamples");
    /* Triangles, as many as the last surface PLY has. */
    Mesh m;
    mesh_init(&m);
    snprintf(path, sizeof path, "%s/surface/%06d.ply", dir, FRAMES);
    read_mesh(path, &m);
    ck_assert_uint_eq(count_char(counts, '3', '\n'), m.ntris);
    mesh_free(&m);
    free(text);
    scene_free(&sc);
}
END_TEST

/* ---- --slice ---------------------------------------------------------------------------- */

START_TEST(slice_shows_cell_types)
{
    char dir[600];
    harness_scratch_dir("slice", dir, sizeof dir);
    char *argv[] = { "flipsim", "--quiet", "--out", dir, "--frames", "1", "--slice", "z=16",
                     "--set", "output.surface=false", "--set", "output.usd=false", "--set",
                     "output.preview=false", "scenes/ball_drop.json", NULL };
    ck_assert_int_eq(run_cli("slice", argv), EXIT_OK);
    Scene sc;
    Sim sim;
    load_scene(&sc);
    ck_assert_int_eq(sim_init(&sim, &sc, &reference_track), 0);
    PreviewSliceView v;
    /* The cell size output.c picks: 384 px over the slice's longer side, 2..16. */
    ck_assert_int_eq(preview_slice_view(&v, &sim.grid, 2, 16, 12), 0);
    char path[700];
    Image im;
    snprintf(path, sizeof path, "%s/slice-z16/%06d.png", dir, 0);
    read_png(path, &im);
    ck_assert_msg(im.cols == v.width && im.rows == v.height, "%s: %dx%d, expected %dx%d", path,
                  im.cols, im.rows, v.width, v.height);
    /* Frame 0: the ball's centre cell (16,16,16) is FLUID (blue), (16,30,16) AIR (white), the
     * floor (16,0,16) SOLID (grey). */
    static const struct { int j; const char *type; int blue; } cells[] = {
        { 16, "FLUID", 1 }, { 30, "AIR", 0 }, { 0, "SOLID", 0 } };
    for (int c = 0; c < 3; c++) {
        int x, y;
        preview_slice_pixel(&v, PREVIEW_PANEL_TYPES, 16, cells[c].j, 16, &x, &y);
        const unsigned char *px = im.rgb + 3 * ((size_t)y * im.cols + x);
        bool blue = px[2] > px[0] + 60, white = px[0] > 230 && px[1] > 230 && px[2] > 230;
        bool grey = !blue && !white && abs(px[0] - px[2]) < 20;
        bool ok = cells[c].blue ? blue : strcmp(cells[c].type, "AIR") == 0 ? white : grey;
        ck_assert_msg(ok, "%s: cell (16,%d,16) drawn (%d,%d,%d), expected %s", path, cells[c].j,
                      px[0], px[1], px[2], cells[c].type);
    }
    free(im.rgb);
    snprintf(path, sizeof path, "%s/slice-z16/%06d.png", dir, 1);
    read_png(path, &im);    /* every frame has its slice */
    free(im.rgb);
    sim_free(&sim);
    scene_free(&sc);
    harness_remove_tree(dir);
}
END_TEST

/* Counts the samples of the particles' points: the lines after its timeSamples opening. */
static int points_samples(const char *text)
{
    const char *p = strstr(strstr(text, "def Points \"particles\""), "point3f[] points.timeSamples");
    ck_assert_ptr_nonnull(p);
    int n = 0;
    for (p = strchr(p, '\n') + 1; strncmp(p, "        }", 9) != 0; p = strchr(p, '\n') + 1)
        n++;
    return n;
}

/* A resumed run rebuilds the stage's earlier frames from their PLY files (check_determinism
 * shows the result is byte for byte a one-go run's); a frame whose files are gone is left
 * out, and the run says so. */
START_TEST(resume_restages_earlier_frames)
{
    char dir[600], state[700], gone[700], path[700];
    harness_scratch_dir("resume", dir, sizeof dir);
    char *first[] = { "flipsim", "--quiet", "--out", dir, "--frames", "4", "--checkpoint-every", "4",
                      "--set", "grid.resolution=[16,16,16]", "--set", "grid.cell_size=0.5",
                      "--set", "output.usd=true", "scenes/ball_drop.json", NULL };
    ck_assert_int_eq(run_cli("resume1", first), EXIT_OK);
    snprintf(gone, sizeof gone, "%s/particles/000001.ply", dir);
    ck_assert_int_eq(unlink(gone), 0);
    snprintf(state, sizeof state, "%s/state/000004.state", dir);
    char *again[] = { "flipsim", "--out", dir, "--frames", "6", "--resume", state, NULL };
    ck_assert_int_eq(run_cli("resume2", again), EXIT_OK);
    snprintf(path, sizeof path, "%s/resume2.stderr", harness_tmpdir());
    char *err = harness_slurp(path, NULL);
    ck_assert_msg(strstr(err, "scene.usda leaves out 1 of frames 0-4: their PLY files are not in"),
                  "resume without frame 1's files: stderr \"%s\", expected a note that it is left out",
                  err);
    free(err);
    snprintf(path, sizeof path, "%s/scene.usda", dir);
    char *text = harness_slurp(path, NULL);
    ck_assert_msg(points_samples(text) == 6, "scene.usda: %d samples, expected 6 (frames 0, 2-6)",
                  points_samples(text));
    ck_assert_ptr_null(strstr(text, "\n            1: ["));
    ck_assert_ptr_nonnull(strstr(text, "\n            6: ["));
    /* A replay that fails half way (a truncated surface file) must not cost the stage. */
    size_t before_len, after_len;
    char *before = harness_slurp(path, &before_len);
    snprintf(gone, sizeof gone, "%s/surface/000003.ply", dir);
    ck_assert_int_eq(truncate(gone, 300), 0);
    ck_assert_int_eq(run_cli("resume3", again), EXIT_IO);
    char errpath[700];
    snprintf(errpath, sizeof errpath, "%s/resume3.stderr", harness_tmpdir());
    err = harness_slurp(errpath, NULL);
    ck_assert_msg(strstr(err, "surface/000003.ply: truncated:"), "truncated surface: stderr \"%s\", "
                  "expected it to name the file and say truncated", err);
    free(err);
    char *after = harness_slurp(path, &after_len);
    ck_assert_msg(after_len == before_len && memcmp(before, after, before_len) == 0,
                  "scene.usda changed (%zu -> %zu bytes) by a resume that failed", before_len,
                  after_len);
    free(before);
    free(after);
    free(text);
    harness_remove_tree(dir);
}
END_TEST

static void expect_input_error(const char *tag, char **argv, const char *needle)
{
    ck_assert_int_eq(run_cli(tag, argv), EXIT_INPUT);
    char path[700];
    snprintf(path, sizeof path, "%s/%s.stderr", harness_tmpdir(), tag);
    char *err = harness_slurp(path, NULL);
    ck_assert_msg(strstr(err, needle), "%s: stderr \"%s\", expected it to say \"%s\"", tag, err,
                  needle);
    free(err);
}

START_TEST(bad_slice_is_one_line)
{
    char out[600], log[700];
    harness_scratch_dir("badslice", out, sizeof out);
    /* An earlier run's log, which bad input must leave alone. */
    snprintf(log, sizeof log, "%s/log.txt", out);
    FILE *f = fopen(log, "w");
    ck_assert_ptr_nonnull(f);
    fputs("an earlier run\n", f);
    fclose(f);
    char *a[] = { "flipsim", "--out", out, "--slice", "y=32", "scenes/ball_drop.json", NULL };
    expect_input_error("slice_range", a, "--slice y=32: the grid has 32 cells along y; expected "
                       "an index from 0 to 31");
    char *b[] = { "flipsim", "--out", out, "--slice", "w=3", "scenes/ball_drop.json", NULL };
    expect_input_error("slice_axis", b, "--slice w=3: expected AXIS=INDEX");
    char *c[] = { "flipsim", "--out", out, "--slice", "x=-1", "scenes/ball_drop.json", NULL };
    expect_input_error("slice_negative", c, "--slice x=-1: expected AXIS=INDEX");
    char *d[] = { "flipsim", "--out", out, "--slice", "x=1", "--device", "opencl",
                  "scenes/ball_drop.json", NULL };
    expect_input_error("slice_device", d, "--slice draws the grid the C stages leave on the host; "
                       "it cannot run with --device opencl");
    char *text = harness_slurp(log, NULL);
    ck_assert_msg(strcmp(text, "an earlier run\n") == 0, "%s: now \"%s\"; bad options must not "
                  "touch an earlier run's files", log, text);
    free(text);
    harness_remove_tree(out);
}
END_TEST

/* A frame the writer thread cannot write (its preview directory turned into a file): the
 * failure comes back, naming the file, from the next call; that frame's particles, written
 * before its preview, are on disk, and no later frame is written (no gap in what is kept). */
START_TEST(writer_thread_failure_comes_back)
{
    char dir[600], path[800], err[1300], gone[800];
    harness_scratch_dir("writer", dir, sizeof dir);
    const char *sets[] = { "grid.resolution=[16,16,16]", "grid.cell_size=0.5", "output.surface=false" };
    Scene sc;
    ck_assert_msg(scene_load("scenes/ball_drop.json", sets, 3, &sc, err, sizeof err) == 0, "%s", err);
    Sim s;
    ck_assert_msg(sim_init(&s, &sc, &reference_track) == 0, "%s", s.error.message);
    snprintf(path, sizeof path, "%s/particles", dir);
    ck_assert_int_eq(mkdir(path, 0777), 0);
    Output o;
    ck_assert_msg(output_open(&o, dir, &sc, &s.grid, NULL, 0, -1, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(output_start_writer(&o, true), 0);
    ck_assert_msg(o.threaded, "no writer thread was started");
    ck_assert_msg(output_frame(&o, &s, err, sizeof err) == 0 && output_flush(&o, err, sizeof err) == 0,
                  "frame 0: %s", err);
    snprintf(path, sizeof path, "%s/preview", dir);
    snprintf(gone, sizeof gone, "%s/preview.gone", dir);
    ck_assert_int_eq(rename(path, gone), 0);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    ck_assert_int_eq(sim_advance_frame(&s), 0);
    ck_assert_msg(output_frame(&o, &s, err, sizeof err) == 0, "frame 1 was refused before the "
                  "writer had it: %s", err);
    ck_assert_int_eq(sim_advance_frame(&s), 0);
    err[0] = '\0';
    ck_assert_int_eq(output_frame(&o, &s, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "preview/000001.png"), "frame 2: \"%s\", expected frame 1's "
                  "failure naming preview/000001.png", err);
    ck_assert_int_eq(output_close(&o, err, sizeof err), -1);
    snprintf(path, sizeof path, "%s/particles/000001.ply", dir);
    ck_assert_msg(access(path, F_OK) == 0, "%s: missing; frame 1's particles come before its preview", path);
    snprintf(path, sizeof path, "%s/particles/000002.ply", dir);
    ck_assert_msg(access(path, F_OK) != 0, "%s: written after frame 1 failed", path);
    ck_assert_int_eq(o.frames_written, 1);
    sim_free(&s);
    scene_free(&sc);
    harness_remove_tree(dir);
}
END_TEST

/* "element vertex N" of a PLY file's header. */
static size_t ply_vertices(const char *dir, const char *sub, int frame)
{
    char path[800];
    snprintf(path, sizeof path, "%s/%s/%06d.ply", dir, sub, frame);
    char *text = harness_slurp(path, NULL);
    const char *at = strstr(text, "element vertex ");
    ck_assert_msg(at != NULL, "%s: no vertex element", path);
    size_t n = strtoul(at + strlen("element vertex "), NULL, 10);
    free(text);
    return n;
}

/* Spray, foam and bubbles only where the liquid splashes: none while the ball falls (it lands
 * near frame 7: its bottom falls 0.75 m at 25 m/s^2), thousands after; none in the
 * hydrostatic tank at any frame. */
START_TEST(diffuse_only_where_it_splashes)
{
    const char *dir = ball_drop_dir();
    for (int f = 0; f <= 6; f++)
        ck_assert_msg(ply_vertices(dir, "diffuse", f) == 0, "ball_drop frame %d: %zu diffuse "
                      "particles before the ball lands, expected 0", f, ply_vertices(dir, "diffuse", f));
    size_t last = ply_vertices(dir, "diffuse", FRAMES);
    ck_assert_msg(last >= 1000, "ball_drop frame %d: %zu diffuse particles after the splash, "
                  "expected at least 1000", FRAMES, last);
    char tank[600];
    harness_scratch_dir("tank", tank, sizeof tank);
    char *argv[] = { "flipsim", "--quiet", "--device", "cpu", "--out", tank, "--set",
                     "output.diffuse=true", "scenes/hydrostatic.json", NULL };
    ck_assert_int_eq(run_cli("tank", argv), EXIT_OK);
    for (int f = 0; f <= 60; f++)
        ck_assert_msg(ply_vertices(tank, "diffuse", f) == 0, "hydrostatic frame %d: %zu diffuse "
                      "particles in a tank at rest, expected 0", f, ply_vertices(tank, "diffuse", f));
    harness_remove_tree(tank);
}
END_TEST

/* The three brick files of a real frame agree: one colour triple per PLY vertex, as many
 * bricks in the texture. */
START_TEST(bricks_of_a_run_agree)
{
    const char *dir = ball_drop_dir();
    for (int f = 0; f <= FRAMES; f += 10) {
        size_t nv = ply_vertices(dir, "brick", f), ncol, ntex, nonzero = 0;
        char path[800];
        snprintf(path, sizeof path, "%s/brickcolor/%06d.data", dir, f);
        free(harness_slurp(path, &ncol));
        snprintf(path, sizeof path, "%s/bricktexture/%06d.data", dir, f);
        unsigned char *tex = (unsigned char *)harness_slurp(path, &ntex);
        for (size_t t = 0; t < ntex; t++)
            nonzero += tex[t] != 0;
        free(tex);
        /* ball_drop: 8 m box of 0.25 m cells, bricks of 2 x 2.4 x 2 cells: 16 x 14 x 16 */
        ck_assert_msg(nv > 50 && ncol == 3 * nv && nonzero == nv && ntex == 16 * 14 * 16,
                      "frame %d: %zu bricks, %zu colour bytes, %zu texture bricks of %zu; expected "
                      "> 50, 3 per brick, one each, 16x14x16", f, nv, ncol, nonzero, ntex);
    }
}
END_TEST

/* The anisotropic surface of a run: closed, inside the domain every tenth frame, and on the
 * still ball of frame 0 within 5% of the isotropic surface's volume. */
START_TEST(anisotropic_surface_of_a_run)
{
    const char *dir = ball_drop_dir();
    Scene sc;
    Sim sim;
    load_scene(&sc);
    ck_assert_int_eq(sim_init(&sim, &sc, &reference_track), 0);
    Mesh m, iso;
    mesh_init(&m);
    mesh_init(&iso);
    char path[700];
    for (int f = 0; f <= FRAMES; f += 10) {
        snprintf(path, sizeof path, "%s/anisotropic/%06d.ply", dir, f);
        read_mesh(path, &m);
        ck_assert_msg(m.ntris > 1000, "%s: %zu triangles, expected a ball's worth", path, m.ntris);
        assert_closed(&m, path);
        assert_inside(&m, &sim.grid, path);
        if (f == 0) {
            snprintf(path, sizeof path, "%s/surface/%06d.ply", dir, f);
            read_mesh(path, &iso);
            double va = mesh_volume(&m), vi = mesh_volume(&iso);
            ck_assert_msg(fabs(va - vi) <= 0.05 * vi, "frame 0: the anisotropic surface encloses "
                          "%.2f m^3, the isotropic one %.2f: expected within 5%%", va, vi);
        }
    }
    mesh_free(&m);
    mesh_free(&iso);
    sim_free(&sim);
    scene_free(&sc);
}
END_TEST

/* output.surface_refine = 2 on the run's particles, made here in C: closed and inside every
 * frame, at least 3 times the default surface's triangles (the run's files), and within 10%
 * of the particles' volume, as the default is (measured -7%..+5%). */
START_TEST(refine2_surface_of_a_run)
{
    const char *dir = ball_drop_dir();
    Scene sc;
    Sim sim;
    load_scene(&sc);
    ck_assert_int_eq(sim_init(&sim, &sc, &reference_track), 0);
    Particles ps;
    part_init(&ps);
    Mesh m, coarse;
    mesh_init(&m);
    mesh_init(&coarse);
    char path[700], err[800];
    const SurfaceSettings set = surface_defaults_at(2);
    double worst = 0.0;
    for (int f = 0; f <= FRAMES; f++) {
        snprintf(path, sizeof path, "%s/particles/%06d.ply", dir, f);
        ck_assert_msg(ply_read_particles(path, &ps, err, sizeof err) == 0, "%s", err);
        ck_assert_msg(surface_build(&ps, &sim.grid, &set, &m, err, sizeof err) == 0, "%s", err);
        snprintf(path, sizeof path, "ball_drop frame %d, refine 2", f);
        assert_closed(&m, path);
        assert_inside(&m, &sim.grid, path);
        snprintf(path, sizeof path, "%s/surface/%06d.ply", dir, f);
        read_mesh(path, &coarse);
        ck_assert_msg(m.ntris >= 3 * coarse.ntris, "frame %d: %zu triangles at refine 2, %zu at "
                      "the default: expected at least 3 times as many", f, m.ntris, coarse.ntris);
        double vol = mesh_volume(&m),
               fluid = surface_particle_volume_at(&ps, &sim.grid, sc.particles_per_cell, &set);
        worst = fabs(vol / fluid - 1.0) > worst ? fabs(vol / fluid - 1.0) : worst;
        ck_assert_msg(fabs(vol - fluid) < 0.10 * fluid, "frame %d: the refine-2 surface encloses "
                      "%.2f m^3; the particles away from the walls fill %.2f m^3, expected within "
                      "10%%", f, vol, fluid);
    }
    printf("test_outputs: ball_drop at refine 2: volume within %.1f%% of its particles'\n",
           100.0 * worst);
    mesh_free(&m);
    mesh_free(&coarse);
    part_free(&ps);
    sim_free(&sim);
    scene_free(&sc);
}
END_TEST

static Suite *outputs_suite(void)
{
    Suite *s = suite_create("outputs");
    TCase *run = tcase_create("ball_drop");
    tcase_add_test(run, surface_closed_inside_every_frame);
    tcase_add_test(run, previews_show_the_ball_fall_and_spread);
    tcase_add_test(run, usd_one_sample_per_frame_at_the_scene_rate);
    tcase_add_test(run, slice_shows_cell_types);
    tcase_add_test(run, diffuse_only_where_it_splashes);
    tcase_add_test(run, bricks_of_a_run_agree);
    tcase_add_test(run, anisotropic_surface_of_a_run);
    tcase_add_test(run, refine2_surface_of_a_run);
    tcase_set_timeout(run, 300); /* the first case runs the scene: ~10 s here, far more under valgrind */
    suite_add_tcase(s, run);
    TCase *resume = tcase_create("resume");
    tcase_add_test(resume, resume_restages_earlier_frames);
    tcase_set_timeout(resume, 120);
    suite_add_tcase(s, resume);
    TCase *bad = tcase_create("bad_input");
    tcase_add_test(bad, bad_slice_is_one_line);
    tcase_add_test(bad, writer_thread_failure_comes_back);
    suite_add_tcase(s, bad);
    return s;
}

int main(void)
{
    (void)harness_tmpdir(); /* fixed before Check forks, so the cases share the run */
    int rc = harness_run(outputs_suite());
    /* The run is ~250 MB; keep it only when a case failed, to look at. */
    char dir[600];
    snprintf(dir, sizeof dir, "%s/ball", harness_tmpdir());
    if (rc == 0)
        harness_remove_tree(dir);
    return rc;
}
