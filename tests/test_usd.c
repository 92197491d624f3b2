/* test_usd.c — Check suite for usd.c: the stage's metadata, one sample per frame, values read
 * back, the surface's topology, the doubling assembly, recovery after a kill, and errors.
 * CK_FORK=no runs in-process for gdb. usdchecker/usdcat are used when installed. */
#include "usd.h"
#include "harness.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------------------- */

/* Each test works in its own directory, made by setup and removed by teardown. */
static char base_dir[512];

static void setup(void)
{
    harness_scratch_dir("usd", base_dir, sizeof base_dir);
}

static void teardown(void)
{
    harness_remove_tree(base_dir);
}

static char *new_dir(void)
{
    static char buf[8][600];
    static int next;
    char *d = buf[next % 8];
    snprintf(d, sizeof buf[0], "%s/out%d", base_dir, next++);
    ck_assert_int_eq(mkdir(d, 0777), 0);
    return d;
}

static char *path_in(const char *dir, const char *name)
{
    static char buf[4][512];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", dir, name);
    return p;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The stage-metadata value of key ("    key = value"), as text up to the end of the line. */
static const char *meta_value(const char *text, const char *key, char *out, size_t n)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\n    %s = ", key);
    const char *end = strstr(text, "\n)\n");
    const char *p = strstr(text, pat);
    ck_assert_msg(p && end && p < end, "stage metadata has no %s", key);
    p += strlen(pat);
    size_t len = strcspn(p, "\n");
    snprintf(out, n, "%.*s", (int)len, p);
    return out;
}

/* The sample lines of prim's attribute decl ("point3f[] points"): points at the first one. */
static const char *samples_of(const char *text, const char *prim, const char *decl)
{
    const char *p = strstr(text, prim);
    ck_assert_msg(p != NULL, "no prim %s", prim);
    char pat[128];
    snprintf(pat, sizeof pat, "%s.timeSamples = {\n", decl);
    const char *q = strstr(p, pat);
    const char *close = strstr(p, "\n    }\n");
    ck_assert_msg(q && (!close || q < close), "%s has no %s.timeSamples", prim, decl);
    return q + strlen(pat);
}

/* Counts "N: [" lines up to the block's closing "        }", checking the keys are frames. */
static int count_samples(const char *s, const int *frames)
{
    int n = 0;
    while (strncmp(s, "        }\n", 10) != 0) {
        int key = -1, used = 0;
        ck_assert_msg(sscanf(s, " %d: [%n", &key, &used) == 1 && used > 0,
                      "sample %d: not 'N: [': %.40s", n, s);
        if (frames)
            ck_assert_msg(key == frames[n], "sample %d: time code %d, expected %d", n, key,
                          frames[n]);
        n++;
        s = strchr(s, '\n');
        ck_assert_ptr_nonnull(s);
        s++;
    }
    return n;
}

/* The line of sample `index`, just after its "N: [". */
static const char *sample_body(const char *s, int index)
{
    for (int i = 0; i < index; i++)
        s = strchr(s, '\n') + 1;
    return strchr(s, '[') + 1;
}

/* Reads "(x, y, z), (x, y, z)..." up to ']'; returns how many tuples. */
static size_t parse_tuples(const char *s, float *xyz, size_t max)
{
    size_t n = 0;
    while (*s == '(' || (*s == ',' && s[2] == '(')) {
        if (*s == ',')
            s += 2;
        char *end;
        for (int c = 0; c < 3; c++) {
            double v = strtod(s + 1, &end);
            ck_assert_msg(end != s + 1, "tuple %zu: bad number at %.20s", n, s);
            if (n < max)
                xyz[3 * n + c] = (float)v;
            s = end + (c < 2); /* skip ',' (strtod skips the blank) */
        }
        ck_assert_msg(*s == ')', "tuple %zu not closed: %.20s", n, s);
        s++;
        n++;
    }
    ck_assert_msg(*s == ']', "sample not closed: %.20s", s);
    return n;
}

static size_t parse_ints(const char *s, long *out, size_t max)
{
    size_t n = 0;
    while (*s != ']') {
        char *end;
        long v = strtol(s, &end, 10);
        ck_assert_msg(end != s, "bad integer at %.20s", s);
        if (n < max)
            out[n] = v;
        n++;
        s = end;
        if (*s == ',')
            s += 2;
    }
    return n;
}

static void make_particles(Vec3 *p, size_t n, int frame)
{
    /* Magnitudes from 1e-3 to 1e3 and both signs, to exercise %g's exponents. */
    for (size_t i = 0; i < n; i++) {
        float s = powf(10.0f, (float)((int)(i % 7) - 3));
        p[i] = (Vec3){ s * (1.2345678f + 0.1f * frame), -s * 0.7654321f, s * (float)i / 3.0f };
    }
}

static void add_frames(UsdWriter *w, const int *frames, int nf, size_t n)
{
    Vec3 p[64];
    char err[512];
    ck_assert_uint_le(n, 64);
    for (int f = 0; f < nf; f++) {
        make_particles(p, n, frames[f]);
        ck_assert_msg(usd_add_frame(w, frames[f], p, n, NULL, 0, NULL, 0, err, sizeof err) == 0,
                      "frame %d: %s", frames[f], err);
    }
}

static char *write_stage(const char *dir, double fps, const int *frames, int nf, size_t n)
{
    char err[512];
    UsdWriter *w = usd_open(dir, fps, 0.05f, false, err, sizeof err);
    ck_assert_msg(w != NULL, "%s", err);
    add_frames(w, frames, nf, n);
    ck_assert_msg(usd_close(w, err, sizeof err) == 0, "%s", err);
    return harness_slurp(path_in(dir, "scene.usda"), NULL);
}

/* ---- the stage ----------------------------------------------------------------------- */

START_TEST(metadata_and_one_sample_per_frame)
{
    const char *dir = new_dir();
    const int frames[3] = { 0, 1, 2 };
    char *s = write_stage(dir, 24, frames, 3, 10);
    char v[64];
    ck_assert_msg(strncmp(s, "#usda 1.0\n", 10) == 0, "first line: %.20s", s);
    ck_assert_str_eq(meta_value(s, "timeCodesPerSecond", v, sizeof v), "24");
    ck_assert_str_eq(meta_value(s, "framesPerSecond", v, sizeof v), "24");
    ck_assert_str_eq(meta_value(s, "startTimeCode", v, sizeof v), "0");
    ck_assert_str_eq(meta_value(s, "endTimeCode", v, sizeof v), "2");
    ck_assert_str_eq(meta_value(s, "upAxis", v, sizeof v), "\"Y\"");
    ck_assert_str_eq(meta_value(s, "metersPerUnit", v, sizeof v), "1");
    ck_assert_str_eq(meta_value(s, "defaultPrim", v, sizeof v), "\"World\"");
    ck_assert_ptr_nonnull(strstr(s, "\ndef Xform \"World\"\n"));
    const char *prim = "def Points \"particles\"";
    ck_assert_int_eq(count_samples(samples_of(s, prim, "point3f[] points"), frames), 3);
    ck_assert_int_eq(count_samples(samples_of(s, prim, "float3[] extent"), frames), 3);
    ck_assert_ptr_nonnull(strstr(s, "float[] widths = [0.05] (\n"
                                    "            interpolation = \"constant\"\n"));
    ck_assert_ptr_null(strstr(s, "def Mesh"));
    /* Every sample holds all ten particles. */
    float xyz[3 * 10];
    for (int f = 0; f < 3; f++)
        ck_assert_uint_eq(parse_tuples(sample_body(samples_of(s, prim, "point3f[] points"), f),
                                       xyz, 10), 10);
    ck_assert_msg(!exists(path_in(dir, ".usd")), "the parts were not removed");
    ck_assert_msg(!exists(path_in(dir, "scene.usda.tmp")), "a temporary file was left");
    free(s);
}
END_TEST

START_TEST(frame_numbers_are_time_codes)
{
    const char *dir = new_dir();
    const int frames[4] = { 5, 6, 9, 30 };
    char *s = write_stage(dir, 29.97, frames, 4, 3);
    char v[64];
    ck_assert_str_eq(meta_value(s, "startTimeCode", v, sizeof v), "5");
    ck_assert_str_eq(meta_value(s, "endTimeCode", v, sizeof v), "30");
    ck_assert_str_eq(meta_value(s, "timeCodesPerSecond", v, sizeof v), "29.97");
    ck_assert_str_eq(meta_value(s, "framesPerSecond", v, sizeof v), "29.97");
    ck_assert_int_eq(count_samples(samples_of(s, "\"particles\"", "point3f[] points"), frames), 4);
    free(s);
}
END_TEST

START_TEST(coordinates_read_back)
{
    enum { N = 50 };
    const char *dir = new_dir();
    const int frames[2] = { 0, 1 };
    char *s = write_stage(dir, 30, frames, 2, N);
    for (int f = 0; f < 2; f++) {
        Vec3 want[N];
        float got[3 * N];
        make_particles(want, N, f);
        const char *body = sample_body(samples_of(s, "\"particles\"", "point3f[] points"), f);
        ck_assert_uint_eq(parse_tuples(body, got, N), N);
        for (int i = 0; i < N; i++) {
            for (int c = 0; c < 3; c++) {
                double w = vec3_get(want[i], c), g = got[3 * i + c];
                ck_assert_msg(fabs(g - w) <= 1e-6 * fabs(w),
                              "frame %d particle %d axis %d: wrote %.9g, read %.9g (rel %.2g)",
                              f, i, c, w, g, fabs(g - w) / fabs(w));
            }
        }
        /* The extent holds every particle. */
        float ext[6];
        const char *eb = sample_body(samples_of(s, "\"particles\"", "float3[] extent"), f);
        ck_assert_uint_eq(parse_tuples(eb, ext, 2), 2);
        for (int i = 0; i < N; i++)
            for (int c = 0; c < 3; c++)
                ck_assert(got[3 * i + c] >= ext[c] && got[3 * i + c] <= ext[3 + c]);
    }
    free(s);
}
END_TEST

START_TEST(same_input_same_bytes)
{
    const int frames[3] = { 0, 1, 2 };
    char *a = write_stage(new_dir(), 30, frames, 3, 20);
    char *b = write_stage(new_dir(), 30, frames, 3, 20);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
}
END_TEST

START_TEST(surface_topology)
{
    /* A tetrahedron whose size changes per frame, with 4 triangles. */
    const float base[12] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    const uint32_t tri[12] = { 0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3 };
    const char *dir = new_dir();
    char err[512];
    UsdWriter *w = usd_open(dir, 24, 0.05f, true, err, sizeof err);
    ck_assert_msg(w != NULL, "%s", err);
    Vec3 p[3] = { { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 9 } };
    const int frames[3] = { 0, 1, 2 };
    for (int f = 0; f < 3; f++) {
        float xyz[12];
        for (int i = 0; i < 12; i++)
            xyz[i] = base[i] * (1.0f + (float)f);
        /* Frame 1 has one triangle only: the topology changes between samples. */
        size_t nt = f == 1 ? 1 : 4;
        ck_assert_msg(usd_add_frame(w, f, p, 3, xyz, 4, tri, nt, err, sizeof err) == 0, "%s", err);
    }
    ck_assert_msg(usd_close(w, err, sizeof err) == 0, "%s", err);
    char *s = harness_slurp(path_in(dir, "scene.usda"), NULL);
    const char *prim = "def Mesh \"surface\"";
    const char *attrs[4] = { "float3[] extent", "int[] faceVertexCounts", "int[] faceVertexIndices",
                             "point3f[] points" };
    for (int a = 0; a < 4; a++)
        ck_assert_int_eq(count_samples(samples_of(s, prim, attrs[a]), frames), 3);
    for (int f = 0; f < 3; f++) {
        size_t nt = f == 1 ? 1 : 4;
        long v[16];
        size_t nc = parse_ints(sample_body(samples_of(s, prim, attrs[1]), f), v, 16);
        ck_assert_msg(nc == nt, "frame %d: %zu face counts, expected %zu", f, nc, nt);
        for (size_t i = 0; i < nc; i++)
            ck_assert_msg(v[i] == 3, "frame %d face %zu: count %ld, expected 3", f, i, v[i]);
        size_t ni = parse_ints(sample_body(samples_of(s, prim, attrs[2]), f), v, 16);
        ck_assert_uint_eq(ni, 3 * nt);
        for (size_t i = 0; i < ni; i++) {
            ck_assert_msg(v[i] >= 0 && v[i] < 4, "frame %d index %zu: %ld", f, i, v[i]);
            ck_assert_int_eq(v[i], (long)tri[i]);
        }
        float xyz[12];
        ck_assert_uint_eq(parse_tuples(sample_body(samples_of(s, prim, attrs[3]), f), xyz, 4), 4);
        ck_assert_float_eq_tol(xyz[3], 1.0f + (float)f, 1e-6);
    }
    ck_assert_ptr_nonnull(strstr(s, "uniform token subdivisionScheme = \"none\""));
    free(s);
}
END_TEST

/* ---- streaming ----------------------------------------------------------------------- */

static int stage_samples(const char *dir)
{
    char *s = harness_slurp(path_in(dir, "scene.usda"), NULL);
    int n = count_samples(samples_of(s, "\"particles\"", "point3f[] points"), NULL);
    free(s);
    return n;
}

START_TEST(assembled_after_1_2_4_8_frames)
{
    const char *dir = new_dir();
    char err[512];
    UsdWriter *w = usd_open(dir, 30, 0.05f, false, err, sizeof err);
    ck_assert_msg(w != NULL, "%s", err);
    const int expect[10] = { 1, 2, 2, 4, 4, 4, 4, 8, 8, 8 };
    for (int f = 0; f < 10; f++) {
        add_frames(w, &f, 1, 4);
        ck_assert_msg(stage_samples(dir) == expect[f], "after frame %d: %d samples, expected %d",
                      f, stage_samples(dir), expect[f]);
    }
    ck_assert_msg(usd_close(w, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(stage_samples(dir), 10);
}
END_TEST

/* A child adds frames and dies without usd_close; usd_assemble recovers every committed
 * frame and ignores a torn line. */
START_TEST(killed_run_is_recovered)
{
    const char *dir = new_dir();
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        char err[512];
        UsdWriter *w = usd_open(dir, 30, 0.05f, true, err, sizeof err);
        Vec3 p[2] = { { 1, 1, 1 }, { 2, 2, 2 } };
        for (int f = 0; f < 3 && w; f++)
            if (usd_add_frame(w, f, p, 2, NULL, 0, NULL, 0, err, sizeof err) != 0)
                _exit(2);
        _exit(w ? 0 : 1);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child failed");
    ck_assert_int_eq(stage_samples(dir), 2); /* assembled after frame 2, not yet after 3 */
    /* A frame half written when the kill came: samples without a commit, a torn number. */
    FILE *f = fopen(path_in(dir, ".usd/particles_points"), "ab");
    fputs("            3: [(9, 9, 9)],\n            4: [(9,", f);
    fclose(f);
    f = fopen(path_in(dir, ".usd/frames"), "ab");
    fputs("3", f);
    fclose(f);
    char err[512];
    ck_assert_msg(usd_assemble(dir, err, sizeof err) == 0, "%s", err);
    const int frames[3] = { 0, 1, 2 };
    char *s = harness_slurp(path_in(dir, "scene.usda"), NULL);
    ck_assert_int_eq(count_samples(samples_of(s, "\"particles\"", "point3f[] points"), frames), 3);
    ck_assert_int_eq(count_samples(samples_of(s, "\"surface\"", "int[] faceVertexCounts"), frames),
                     3);
    char v[64];
    ck_assert_str_eq(meta_value(s, "endTimeCode", v, sizeof v), "2");
    ck_assert_str_eq(meta_value(s, "timeCodesPerSecond", v, sizeof v), "30");
    free(s);
}
END_TEST

/* Diffuse particles, bricks and the anisotropic mesh: their prims, one sample per frame with
 * the types and greys read back, per-point interpolation declared, the brick width. */
START_TEST(diffuse_and_bricks_prims)
{
    const char *dir = new_dir();
    char err[512];
    const UsdOptions opt = { 30, 0.05f, false, true, 0.2f, true };
    UsdWriter *w = usd_open_with(dir, &opt, err, sizeof err);
    ck_assert_msg(w != NULL, "%s", err);
    Vec3 p[2] = { { 1, 1, 1 }, { 2, 2, 2 } };
    Vec3 d[3] = { { 1, 2, 1 }, { 1.5f, 1, 1 }, { 2, 0.5f, 2 } };
    const uint8_t type[3] = { 0, 1, 2 };
    const float bricks[6] = { 0.1f, 0.1f, 0.1f, 0.3f, 0.1f, 0.1f };
    const uint8_t grey[2] = { 255, 51 };
    for (int f = 0; f < 3; f++) {
        static const float axyz[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
        static const uint32_t atri[3] = { 0, 1, 2 };
        UsdFrame fr = { .frame = f, .pos = p, .n = 2, .diffuse_pos = d, .diffuse_type = type,
                        .ndiffuse = (size_t)f, .brick_xyz = bricks, .brick_grey = grey, .nbricks = 2,
                        .aniso_xyz = axyz, .aniso_nverts = 3, .aniso_tri = atri, .aniso_ntris = 1 };
        ck_assert_msg(usd_add_frame_with(w, &fr, err, sizeof err) == 0, "frame %d: %s", f, err);
    }
    /* a count without its arrays writes nothing */
    UsdFrame bad = { .frame = 3, .pos = p, .n = 2, .ndiffuse = 1 };
    ck_assert_int_eq(usd_add_frame_with(w, &bad, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "diffuse count given without its arrays"), "err \"%s\"", err);
    ck_assert_msg(usd_close(w, err, sizeof err) == 0, "%s", err);
    const int frames[3] = { 0, 1, 2 };
    char *s = harness_slurp(path_in(dir, "scene.usda"), NULL);
    const char *types = samples_of(s, "\"diffuse\"", "int[] primvars:diffuseType");
    ck_assert_int_eq(count_samples(types, frames), 3);
    long t[4];
    ck_assert_int_eq(parse_ints(sample_body(types, 2), t, 4), 2);
    ck_assert_msg(t[0] == 0 && t[1] == 1, "frame 2 types %ld %ld, expected 0 1", t[0], t[1]);
    ck_assert_ptr_nonnull(strstr(s, "int[] primvars:diffuseType (\n            interpolation = \"vertex\""));
    const char *greys = samples_of(s, "\"bricks\"", "color3f[] primvars:displayColor");
    ck_assert_int_eq(count_samples(greys, frames), 3);
    float rgb[6];
    ck_assert_int_eq(parse_tuples(sample_body(greys, 1), rgb, 2), 2);
    ck_assert_msg(rgb[0] == 1.0f && fabsf(rgb[3] - 0.2f) < 1e-6f && rgb[4] == rgb[3] && rgb[5] == rgb[3],
                  "brick greys (%g, %g, %g) (%g ...), expected 1 and 51/255 = 0.2 in each channel",
                  rgb[0], rgb[1], rgb[2], rgb[3]);
    ck_assert_ptr_nonnull(strstr(strstr(s, "\"bricks\""), "float[] widths = [0.2]"));
    ck_assert_int_eq(count_samples(samples_of(s, "\"anisotropic\"", "int[] faceVertexIndices"), frames), 3);
    free(s);
}
END_TEST

/* ---- errors -------------------------------------------------------------------------- */

START_TEST(error_bad_directory)
{
    char err[512] = "";
    const char *bad = "/nonexistent/flipkit/out";
    UsdWriter *w = usd_open(bad, 24, 0.05f, false, err, sizeof err);
    ck_assert_ptr_null(w);
    ck_assert_msg(strstr(err, bad) != NULL && !strchr(err, '\n'), "err '%s' does not name %s",
                  err, bad);
    err[0] = '\0';
    ck_assert_int_eq(usd_assemble(bad, err, sizeof err), -1);
    ck_assert_msg(strstr(err, bad) != NULL, "err '%s' does not name %s", err, bad);
    err[0] = '\0';
    ck_assert_ptr_null(usd_open(new_dir(), 0, 0.05f, false, err, sizeof err));
    ck_assert_msg(strstr(err, "frame rate") != NULL, "err '%s'", err);
}
END_TEST

START_TEST(error_bad_frames_leave_no_trace)
{
    const char *dir = new_dir();
    char err[512];
    UsdWriter *w = usd_open(dir, 24, 0.05f, true, err, sizeof err);
    ck_assert_msg(w != NULL, "%s", err);
    Vec3 p[1] = { { 1, 2, 3 } };
    float xyz[9] = { 0 };
    uint32_t tri[3] = { 0, 1, 3 };
    ck_assert_int_eq(usd_add_frame(w, 4, p, 1, xyz, 3, tri, 1, err, sizeof err), -1);
    ck_assert_msg(strstr(err, dir) && strstr(err, "frame 4") && strstr(err, "vertex 3"), "err '%s'",
                  err);
    tri[2] = 2;
    ck_assert_msg(usd_add_frame(w, 4, p, 1, xyz, 3, tri, 1, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(usd_add_frame(w, 4, p, 1, xyz, 3, tri, 1, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "increase") != NULL, "err '%s'", err);
    ck_assert_msg(usd_close(w, err, sizeof err) == 0, "%s", err);
    const int frames[1] = { 4 };
    char *s = harness_slurp(path_in(dir, "scene.usda"), NULL);
    ck_assert_int_eq(count_samples(samples_of(s, "\"surface\"", "point3f[] points"), frames), 1);
    free(s);

    w = usd_open(dir, 24, 0.05f, false, err, sizeof err);
    ck_assert_int_eq(usd_add_frame(w, 0, p, 1, xyz, 3, tri, 1, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "without one") != NULL, "err '%s'", err);
    usd_close(w, err, sizeof err);
}
END_TEST

/* ---- Pixar's tools, when installed ----------------------------------------------------- */

/* The writer's own "%.7g" (printf's was a fifth of a ball_drop run) must write what printf
 * does: checked on edge cases, 300 000 floats of every magnitude and sign and as many in a box. */
static void expect_like_printf(float f)
{
    char mine[64], want[64];
    int n = usd_format_float(mine, f);
    snprintf(want, sizeof want, "%.7g", (double)f);
    ck_assert_msg(n == (int)strlen(mine) && strcmp(mine, want) == 0,
                  "usd_format_float(%a) wrote \"%s\" (%d chars), printf \"%%.7g\" writes \"%s\"",
                  (double)f, mine, n, want);
}

START_TEST(numbers_as_printf_writes_them)
{
    static const float edges[] = { 0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 8.0f, 0.25f, 1e-4f, 9.9999995e-5f,
                                   1e-5f, 1234567.0f, 9999999.0f, 1e7f, 12345678.0f, 1048576.5f,
                                   1048577.5f, 0.1f, 0.3f, 7.0308094f, 1e-38f, 1e-45f, 3.4028235e38f,
                                   -2.5e-7f, 99999.995f, 0.00012345675f };
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        expect_like_printf(edges[i]);
    /* the writer guesses the decimal exponent from the binary one: each power of ten, and
     * the floats either side of it, are where a wrong guess would show */
    for (int k = -45; k <= 38; k++) {
        char text[16];
        snprintf(text, sizeof text, "1e%d", k);
        float f = nextafterf(nextafterf(strtof(text, NULL), 0.0f), 0.0f);
        for (int n = 0; n < 5; n++, f = nextafterf(f, INFINITY)) {
            expect_like_printf(f);
            expect_like_printf(-f);
        }
    }
    uint64_t state = 0x9E3779B97F4A7C15u;
    for (int i = 0; i < 300000; i++) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        uint32_t bits = (uint32_t)(state >> 32);
        float f;
        memcpy(&f, &bits, sizeof f);
        if (isfinite(f))
            expect_like_printf(f);
        /* and metres in a box, where the coordinates live */
        expect_like_printf((float)(bits >> 8) * (16.0f / 16777216.0f));
    }
}
END_TEST

START_TEST(usd_tools_accept_the_stage)
{
    const char *tools[2] = { "usdchecker", "usdcat" };
    for (int t = 0; t < 2; t++) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", tools[t]);
        if (system(cmd) != 0) {
            printf("test_usd: %s not installed, skipped\n", tools[t]);
            continue;
        }
        const char *dir = new_dir();
        char err[512];
        UsdWriter *w = usd_open(dir, 24, 0.05f, true, err, sizeof err);
        const float xyz[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
        const uint32_t tri[3] = { 0, 1, 2 };
        Vec3 p[2] = { { 1, 2, 3 }, { 4, 5, 6 } };
        for (int f = 0; f < 3; f++)
            ck_assert_int_eq(usd_add_frame(w, f, p, 2, xyz, 3, tri, 1, err, sizeof err), 0);
        ck_assert_int_eq(usd_close(w, err, sizeof err), 0);
        snprintf(cmd, sizeof cmd, "%s %s/scene.usda >/dev/null", tools[t], dir);
        ck_assert_msg(system(cmd) == 0, "%s rejected %s/scene.usda", tools[t], dir);
    }
}
END_TEST

static Suite *usd_suite(void)
{
    Suite *s = suite_create("usd");
    TCase *stage = tcase_create("stage");
    tcase_add_test(stage, metadata_and_one_sample_per_frame);
    tcase_add_test(stage, frame_numbers_are_time_codes);
    tcase_add_test(stage, coordinates_read_back);
    tcase_add_test(stage, same_input_same_bytes);
    tcase_add_test(stage, surface_topology);
    tcase_add_test(stage, numbers_as_printf_writes_them);
    tcase_add_test(stage, diffuse_and_bricks_prims);
    tcase_add_checked_fixture(stage, setup, teardown);
    suite_add_tcase(s, stage);

    TCase *stream = tcase_create("streaming");
    tcase_add_test(stream, assembled_after_1_2_4_8_frames);
    tcase_add_test(stream, killed_run_is_recovered);
    tcase_add_checked_fixture(stream, setup, teardown);
    suite_add_tcase(s, stream);

    TCase *errors = tcase_create("errors");
    tcase_add_test(errors, error_bad_directory);
    tcase_add_test(errors, error_bad_frames_leave_no_trace);
    tcase_add_checked_fixture(errors, setup, teardown);
    suite_add_tcase(s, errors);

    /* Only where a USD tool is installed (not on this machine yet): a check that checks
     * nothing must not be counted as passed. */
    if (system("command -v usdchecker >/dev/null 2>&1 || command -v usdcat >/dev/null 2>&1") == 0) {
        TCase *tools = tcase_create("tools");
        tcase_add_test(tools, usd_tools_accept_the_stage);
        tcase_add_checked_fixture(tools, setup, teardown);
        suite_add_tcase(s, tools);
    }
    return s;
}

int main(void)
{
    return harness_run(usd_suite());
}
