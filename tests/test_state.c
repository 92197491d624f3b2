/* test_state.c — Check suite for common/writers/state.c: the byte layout, exact round trips of every
 * type, and one-line errors for corrupt, truncated or foreign files. CK_FORK=no runs
 * in-process for gdb; CK_RUN_CASE=errors build/tests/test_state runs one test case. */
#include "harness.h"
#include "scene.h"
#include "checkpoint.h"
#include "sim.h"
#include "state.h"

#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------------------- */

static char *tmp_path(const char *name)
{
    static char buf[4][512];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", harness_tmpdir(), name);
    return p;
}

static void spit(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

/* Our own FNV-1a 64 and little-endian helpers, written from the spec in state.h. */
static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static uint64_t get_le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void set_le(unsigned char *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* Rewrites the trailing checksum, so a test can reach the checks that come before it. */
static void fix_checksum(unsigned char *data, size_t len)
{
    set_le(data + len - 8, fnv1a(data, len - 8), 8);
}

/* Reads path expecting failure with exactly "<path>: <what>". */
static void expect_error(const char *path, const char *what)
{
    StateFile sf;
    char err[256] = "", expect[800];
    state_init(&sf);
    ck_assert_int_eq(state_read(&sf, path, err, sizeof err), -1);
    snprintf(expect, sizeof expect, "%s: %s", path, what);
    ck_assert_str_eq(err, expect);
    ck_assert_uint_eq(sf.nsections, 0);
    state_free(&sf);
}

/* A file with two float sections, "pos" (6 floats) then "vel" (6 floats). */
static void write_pos_vel(const char *path)
{
    static const float pos[6] = { 1, 2, 3, 4, 5, 6 }, vel[6] = { -1, -2, -3, -4, -5, -6 };
    StateFile sf;
    char err[256] = "";
    state_init(&sf);
    ck_assert_int_eq(state_add(&sf, "pos", STATE_F32, pos, 6), 0);
    ck_assert_int_eq(state_add(&sf, "vel", STATE_F32, vel, 6), 0);
    ck_assert_msg(state_write(&sf, path, err, sizeof err) == 0, "%s", err);
    state_free(&sf);
}

/* ---- cases --------------------------------------------------------------------------- */

START_TEST(fnv_reference)
{
    /* Published FNV-1a 64 test vectors, so the test's own hash is known to be right. */
    ck_assert_uint_eq(fnv1a((const unsigned char *)"", 0), 0xcbf29ce484222325ull);
    ck_assert_uint_eq(fnv1a((const unsigned char *)"a", 1), 0xaf63dc4c8601ec8cull);
    ck_assert_uint_eq(fnv1a((const unsigned char *)"foobar", 6), 0x85944171f73967e8ull);
}
END_TEST

START_TEST(byte_layout)
{
    StateFile sf;
    char err[256] = "";
    const char *path = tmp_path("layout.state");
    static const int32_t cells[2] = { -2, 0x01020304 };
    state_init(&sf);
    ck_assert_int_eq(state_add(&sf, "scene", STATE_U8, "{}\n", 3), 0);
    ck_assert_int_eq(state_add(&sf, "cell", STATE_I32, cells, 2), 0);
    ck_assert_int_eq(state_write(&sf, path, err, sizeof err), 0);
    size_t len;
    unsigned char *d = (unsigned char *)harness_slurp(path, &len);
    ck_assert_uint_eq(len, 16 + (32 + 3) + (32 + 8) + 8);
    ck_assert_int_eq(memcmp(d, "FLIPKIT\0", 8), 0);
    ck_assert_uint_eq(get_le(d + 8, 4), 1);
    ck_assert_uint_eq(get_le(d + 12, 4), 2);
    static const unsigned char tag1[16] = "scene";
    ck_assert_int_eq(memcmp(d + 16, tag1, 16), 0);
    ck_assert_uint_eq(get_le(d + 32, 4), STATE_U8);
    ck_assert_uint_eq(get_le(d + 36, 4), 0);
    ck_assert_uint_eq(get_le(d + 40, 8), 3);
    ck_assert_int_eq(memcmp(d + 48, "{}\n", 3), 0);
    const unsigned char *s2 = d + 51;
    static const unsigned char tag2[16] = "cell";
    ck_assert_int_eq(memcmp(s2, tag2, 16), 0);
    ck_assert_uint_eq(get_le(s2 + 16, 4), STATE_I32);
    ck_assert_uint_eq(get_le(s2 + 24, 8), 2);
    static const unsigned char data2[8] = { 0xfe, 0xff, 0xff, 0xff, 0x04, 0x03, 0x02, 0x01 };
    ck_assert_int_eq(memcmp(s2 + 32, data2, 8), 0);
    ck_assert_uint_eq(get_le(d + len - 8, 8), fnv1a(d, len - 8));
    free(d);
    state_free(&sf);
}
END_TEST

START_TEST(roundtrip_every_type)
{
    uint32_t nan_bits = 0x7fa5a5a5u; /* a NaN with a payload: must survive bit for bit */
    float f32[7] = { 0.0f, -0.0f, INFINITY, -FLT_MAX, 1e-45f, 1.0f / 3.0f, 0 };
    memcpy(&f32[6], &nan_bits, 4);
    static const int8_t i8[4] = { -128, -1, 0, 127 };
    static const uint8_t u8[5] = { 'a', 0, 255, '\n', 'z' };
    static const double f64[5] = { -0.0, DBL_MIN / 4, DBL_MAX, 0.1, -INFINITY };
    static const int32_t i32[4] = { INT32_MIN, -1, 0, INT32_MAX };
    static const char long_tag[] = "fifteen_chars_x";
    struct { const char *tag; uint32_t type; const void *data; uint64_t count; size_t size; }
    want[] = {
        { "pos", STATE_F32, f32, 7, 4 }, { "flags", STATE_I8, i8, 4, 1 },
        { "scene", STATE_U8, u8, 5, 1 }, { "p", STATE_F64, f64, 5, 8 },
        { "cell", STATE_I32, i32, 4, 4 }, { "empty", STATE_F64, NULL, 0, 8 },
        { long_tag, STATE_U8, "x", 1, 1 },
    };
    size_t nwant = sizeof want / sizeof want[0];
    StateFile sf, back;
    char err[256] = "";
    const char *path = tmp_path("all.state");
    state_init(&sf);
    state_init(&back);
    ck_assert_int_eq(state_add(&back, "stale", STATE_U8, "old", 3), 0); /* gets replaced */
    for (size_t i = 0; i < nwant; i++)
        ck_assert_int_eq(state_add(&sf, want[i].tag, want[i].type, want[i].data, want[i].count), 0);
    ck_assert_msg(state_write(&sf, path, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(state_read(&back, path, err, sizeof err) == 0, "%s", err);

    ck_assert_uint_eq(back.nsections, nwant);
    ck_assert_ptr_null(state_find(&back, "stale", STATE_U8, NULL));
    for (size_t i = 0; i < nwant; i++) {
        const StateSection *s = &back.sections[i]; /* order is kept */
        ck_assert_str_eq(s->tag, want[i].tag);
        ck_assert_uint_eq(s->type, want[i].type);
        uint64_t count = 99;
        const void *data = state_find(&back, want[i].tag, want[i].type, &count);
        ck_assert_ptr_nonnull(data); /* even for an empty section */
        ck_assert_uint_eq(count, want[i].count);
        if (count)
            ck_assert_int_eq(memcmp(data, want[i].data, (size_t)count * want[i].size), 0);
    }
    state_free(&sf);
    state_free(&back);
}
END_TEST

START_TEST(replace_and_find)
{
    static const float three[3] = { 1, 2, 3 };
    static const int32_t five[5] = { 5, 4, 3, 2, 1 };
    StateFile sf;
    uint64_t count = 7;
    state_init(&sf);
    ck_assert_int_eq(state_add(&sf, "pos", STATE_F32, three, 3), 0);
    ck_assert_int_eq(state_add(&sf, "vel", STATE_F32, three, 3), 0);
    ck_assert_int_eq(state_add(&sf, "pos", STATE_I32, five, 5), 0);
    ck_assert_uint_eq(sf.nsections, 2);
    ck_assert_str_eq(sf.sections[0].tag, "pos");

    ck_assert_ptr_null(state_find(&sf, "pos", STATE_F32, &count)); /* wrong type */
    ck_assert_uint_eq(count, 0);
    ck_assert_ptr_null(state_find(&sf, "nope", STATE_F32, &count));
    const int32_t *got = state_find(&sf, "pos", STATE_I32, &count);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(count, 5);
    ck_assert_int_eq(memcmp(got, five, sizeof five), 0);

    /* Replacing a section with (part of) its own data must copy before freeing. */
    ck_assert_int_eq(state_add(&sf, "pos", STATE_I32, got + 1, 3), 0);
    got = state_find(&sf, "pos", STATE_I32, &count);
    ck_assert_uint_eq(count, 3);
    ck_assert_int_eq(got[0], 4);
    ck_assert_int_eq(got[2], 2);
    state_free(&sf);
}
END_TEST

START_TEST(add_rejects)
{
    StateFile sf;
    state_init(&sf);
    ck_assert_int_eq(state_add(&sf, "sixteen_chars_xx", STATE_U8, "a", 1), -1);
    ck_assert_int_eq(state_add(&sf, "", STATE_U8, "a", 1), -1);
    ck_assert_int_eq(state_add(&sf, "bad", 0, "a", 1), -1);
    ck_assert_int_eq(state_add(&sf, "bad", 6, "a", 1), -1);
    ck_assert_int_eq(state_add(&sf, "bad", STATE_F64, "a", UINT64_MAX), -1);
    ck_assert_int_eq(state_add(&sf, "bad", STATE_U8, NULL, 1), -1);
    ck_assert_uint_eq(sf.nsections, 0);
    ck_assert_int_eq(state_add(&sf, "fifteen_chars_x", STATE_U8, "a", 1), 0);
    state_free(&sf);
}
END_TEST

START_TEST(no_tmp_left)
{
    StateFile sf;
    char err[256] = "", tmp[600];
    const char *path = tmp_path("clean.state");
    write_pos_vel(path);
    write_pos_vel(path); /* overwrite */
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    ck_assert_int_eq(access(path, F_OK), 0);
    ck_assert_int_ne(access(tmp, F_OK), 0);

    state_init(&sf);
    const char *bad = tmp_path("no-such-dir/x.state");
    ck_assert_int_eq(state_write(&sf, bad, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, bad));
    const char *dir = harness_tmpdir(); /* rename onto a directory fails late */
    ck_assert_int_eq(state_write(&sf, dir, err, sizeof err), -1);
    snprintf(tmp, sizeof tmp, "%s.tmp", dir);
    ck_assert_int_ne(access(tmp, F_OK), 0);
    state_free(&sf);
}
END_TEST

START_TEST(error_checksum)
{
    const char *path = tmp_path("sum.state");
    write_pos_vel(path);
    size_t len;
    unsigned char *d = (unsigned char *)harness_slurp(path, &len);
    d[16 + 32 + 5] ^= 0x01; /* one bit of pos data */
    spit(path, d, len);
    expect_error(path, "checksum mismatch (file is corrupt)");
    d[16 + 32 + 5] ^= 0x01;
    d[len - 1] ^= 0x80; /* the checksum itself */
    spit(path, d, len);
    expect_error(path, "checksum mismatch (file is corrupt)");
    free(d);
}
END_TEST

START_TEST(error_truncated)
{
    const char *path = tmp_path("trunc.state");
    write_pos_vel(path);
    size_t len;
    unsigned char *d = (unsigned char *)harness_slurp(path, &len);
    spit(path, d, len - 8 - 3); /* checksum and part of vel's data gone */
    expect_error(path, "truncated in section 2 (\"vel\")");
    spit(path, d, 16 + 32 + 10); /* inside pos's data */
    expect_error(path, "truncated in section 1 (\"pos\")");
    spit(path, d, 16 + 20); /* inside pos's section header: no tag yet */
    expect_error(path, "truncated in section 1");
    spit(path, d, 12);
    expect_error(path, "truncated in the file header");
    spit(path, d, len + 0); /* and the whole file still reads */
    StateFile sf;
    char err[256] = "";
    state_init(&sf);
    ck_assert_msg(state_read(&sf, path, err, sizeof err) == 0, "%s", err);
    state_free(&sf);
    free(d);
}
END_TEST

START_TEST(error_header)
{
    const char *path = tmp_path("head.state");
    write_pos_vel(path);
    size_t len;
    unsigned char *d = (unsigned char *)harness_slurp(path, &len);
    d[3] = 'X';
    spit(path, d, len);
    expect_error(path, "not a flipkit state file (bad magic)");
    spit(path, "", 0);
    expect_error(path, "not a flipkit state file (bad magic)");
    d[3] = 'P';
    set_le(d + 8, 7, 4);
    spit(path, d, len);
    expect_error(path, "version 7 is newer than this build reads (1)");
    set_le(d + 8, 0, 4);
    spit(path, d, len);
    expect_error(path, "unknown version 0 (this build reads 1)");
    expect_error(tmp_path("missing.state"), "cannot open: No such file or directory");
    expect_error(harness_tmpdir(), "not a regular file");
    free(d);
}
END_TEST

START_TEST(error_structure)
{
    /* Lying counts, with a valid checksum, so only the structural checks can catch them. */
    const char *path = tmp_path("lie.state");
    write_pos_vel(path);
    size_t len;
    unsigned char *d = (unsigned char *)harness_slurp(path, &len), *c = malloc(len + 4);

    memcpy(c, d, len);
    set_le(c + 16 + 24, UINT64_MAX / 4 + 1, 8); /* count * 4 overflows 64 bits */
    fix_checksum(c, len);
    spit(path, c, len);
    expect_error(path, "truncated in section 1 (\"pos\")");

    memcpy(c, d, len);
    set_le(c + 12, UINT32_MAX, 4); /* 4 billion sections */
    fix_checksum(c, len);
    spit(path, c, len);
    expect_error(path, "truncated in section 3");

    memcpy(c, d, len);
    set_le(c + 12, 1, 4); /* one section, then vel is left over */
    fix_checksum(c, len);
    spit(path, c, len);
    expect_error(path, "56 unexpected bytes after the last section");

    memcpy(c, d, len);
    set_le(c + 16 + 16, 9, 4);
    fix_checksum(c, len);
    spit(path, c, len);
    expect_error(path, "section 1 (\"pos\") has unknown type 9");

    memcpy(c, d, len);
    memcpy(c + 16 + 56, "pos", 4); /* vel renamed pos */
    fix_checksum(c, len);
    spit(path, c, len);
    expect_error(path, "section 2: tag \"pos\" appears twice");

    memcpy(c, d, len);
    memset(c + 16, 'A', 16); /* no NUL in the tag */
    fix_checksum(c, len);
    spit(path, c, len);
    expect_error(path, "section 1 has a malformed tag");

    memcpy(c, d, len);
    memcpy(c + 16, "p\n\xe6", 4); /* a newline and a stray byte: the message must stay one line */
    set_le(c + 16 + 16, 9, 4);
    fix_checksum(c, len);
    spit(path, c, len);
    expect_error(path, "section 1 has a malformed tag");
    free(c);
    free(d);
}
END_TEST

START_TEST(error_keeps_old_contents)
{
    StateFile sf;
    char err[256] = "";
    const char *path = tmp_path("bad.state");
    spit(path, "garbage", 7);
    state_init(&sf);
    ck_assert_int_eq(state_add(&sf, "keep", STATE_U8, "me", 2), 0);
    ck_assert_int_eq(state_read(&sf, path, err, sizeof err), -1);
    ck_assert_ptr_nonnull(state_find(&sf, "keep", STATE_U8, NULL));
    state_free(&sf);
}
END_TEST

START_TEST(fuzz_every_byte)
{
    /* Any one changed byte must be an error with a one-line message (FNV-1a catches every
     * single-byte change), and every prefix must be one too. Never a crash. */
    const char *path = tmp_path("fuzz.state"), *bad = tmp_path("fuzzbad.state");
    write_pos_vel(path);
    size_t len;
    unsigned char *d = (unsigned char *)harness_slurp(path, &len), *c = malloc(len);
    static const unsigned char values[] = { 0x00, 0x01, 0x7f, 0x80, 0xff };
    for (size_t at = 0; at < len; at++) {
        for (size_t v = 0; v < sizeof values; v++) {
            if (d[at] == values[v])
                continue;
            memcpy(c, d, len);
            c[at] = values[v];
            spit(bad, c, len);
            StateFile sf;
            char err[256] = "";
            state_init(&sf);
            ck_assert_msg(state_read(&sf, bad, err, sizeof err) == -1, "byte %zu", at);
            ck_assert_msg(strncmp(err, bad, strlen(bad)) == 0 && !strchr(err, '\n'), "%s", err);
            state_free(&sf);
        }
    }
    for (size_t n = 0; n < len; n++) {
        StateFile sf;
        char err[256] = "";
        spit(bad, d, n);
        state_init(&sf);
        ck_assert_int_eq(state_read(&sf, bad, err, sizeof err), -1);
        ck_assert_msg(strncmp(err, bad, strlen(bad)) == 0, "%s", err);
        state_free(&sf);
    }
    free(c);
    free(d);
}
END_TEST

/* ---- meaning: a checkpoint with a good checksum and a value out of range ---------------- */

static const char meaning_scene[] =
    "{\"name\": \"tiny\", \"grid\": {\"resolution\": [6, 5, 4], \"cell_size\": 0.5},"
    " \"fluid\": [{\"box\": {\"min\": [0.5, 0.5, 0.5], \"max\": [1.5, 1.5, 1.5]}}]}";

/* A real checkpoint of the tiny scene, then one section replaced (the checksum is rewritten
 * with it); checkpoint_load must refuse it with a message that has want in it. */
static void expect_refused(const char *tag, uint32_t type, const void *data, uint64_t count,
                           uint64_t index, const char *want)
{
    Scene sc;
    char err[1024];
    ck_assert_msg(scene_load_text(meaning_scene, "tiny.json", NULL, 0, &sc, err, sizeof err) == 0, "%s", err);
    Sim sim;
    ck_assert_int_eq(sim_init(&sim, &sc, harness_track()), 0);
    const char *path = tmp_path("meaning.state");
    ck_assert_msg(checkpoint_save(&sim, path, err, sizeof err) == 0, "%s", err);
    StateFile sf;
    state_init(&sf);
    ck_assert_int_eq(state_read(&sf, path, err, sizeof err), 0);
    if (data) {
        ck_assert_int_eq(state_add(&sf, tag, type, data, count), 0);
    } else { /* poke one float of an existing section */
        uint64_t n;
        float *f = (float *)state_find(&sf, tag, STATE_F32, &n);
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_lt(index, n);
        f[index] = type == 1 ? NAN : 1e6f;
    }
    ck_assert_int_eq(state_write(&sf, path, err, sizeof err), 0);
    state_free(&sf);
    err[0] = '\0';
    ck_assert_int_eq(checkpoint_load(&sim, path, err, sizeof err), -1);
    ck_assert_msg(strstr(err, want) != NULL, "message \"%s\" does not say \"%s\"", err, want);
    ck_assert_msg(strstr(err, path) != NULL, "message \"%s\" does not name the file", err);
    sim_free(&sim);
    scene_free(&sc);
}

START_TEST(meaning_counters)
{
    int32_t frame = -5, big = INT32_MAX;
    double nan = NAN, early = 0.5, huge = 1e300, half = 2.5;
    expect_refused("frame", STATE_I32, &frame, 1, 0, "frame is -5; expected 0 to 999999");
    expect_refused("frame", STATE_I32, &big, 1, 0, "frame is 2147483647");
    expect_refused("time", STATE_F64, &nan, 1, 0, "time is nan s");
    expect_refused("time", STATE_F64, &early, 1, 0, "time is 0.5 s; expected 0 s");
    expect_refused("substeps", STATE_F64, &huge, 1, 0, "substeps is 1e+300");
    expect_refused("substeps", STATE_F64, &half, 1, 0, "substeps is 2.5");
}
END_TEST

START_TEST(meaning_fields)
{
    expect_refused("pos", 1, NULL, 0, 4, "pos of particle 1, y = nan");
    expect_refused("pos", 2, NULL, 0, 0, "pos of particle 0, x = 1e+06; expected a number from 0 to 3 m");
    expect_refused("vel", 1, NULL, 0, 2, "vel of particle 0, z = nan");
    expect_refused("p", 1, NULL, 0, 7, "p of cell 7 is nan");
    float two[2] = { 1, 1 };
    expect_refused("pos", STATE_F32, two, 2, 0, "section \"vel\" is missing or has the wrong size");
    int32_t dims[3] = { 6, 5, 5 };
    expect_refused("grid", STATE_I32, dims, 3, 0, "saved grid 6x5x5 does not match");
}
END_TEST

/* ---- backends: sim_substep's outline runs whatever backend it is handed ------------------ */

static int closed;
static void count_close(SimBackend *b)
{
    (void)b;
    closed++;
}

/* A backend without a phase is refused when it is handed over, naming what it lacks, and
 * closed; the run keeps the host's. A copy of the host's calls runs the same substeps. */
START_TEST(backend_lacking_a_phase_is_refused)
{
    Scene sc;
    char err[1024];
    ck_assert_msg(scene_load_text(meaning_scene, "tiny.json", NULL, 0, &sc, err, sizeof err) == 0, "%s", err);
    Sim a, b;
    ck_assert_int_eq(sim_init(&a, &sc, harness_track()), 0);
    ck_assert_int_eq(sim_init(&b, &sc, harness_track()), 0);
    SimBackend lacking = sim_host_backend;
    lacking.name = "lacking";
    lacking.gradient = NULL;
    lacking.close = count_close;
    closed = 0;
    ck_assert_int_eq(sim_use_backend(&a, &lacking), -1);
    ck_assert_msg(strstr(a.error.message, "backend lacking has no gradient") != NULL &&
                  strchr(a.error.message, '\n') == NULL, "message \"%s\"", a.error.message);
    ck_assert_int_eq(closed, 1);
    ck_assert_ptr_eq(a.backend, &sim_host_backend);
    SimBackend copy = sim_host_backend;
    copy.name = "copy";
    ck_assert_int_eq(sim_use_backend(&b, &copy), 0);
    for (int f = 0; f < 3; f++) {
        ck_assert_msg(sim_advance_frame(&a) == 0, "%s", a.error.message);
        ck_assert_msg(sim_advance_frame(&b) == 0, "%s", b.error.message);
    }
    ck_assert_int_eq(a.stats.substeps, b.stats.substeps);
    ck_assert_uint_eq(a.particles.count, b.particles.count);
    ck_assert(memcmp(a.particles.pos, b.particles.pos, a.particles.count * sizeof(Vec3)) == 0);
    sim_free(&a);
    sim_free(&b);
    scene_free(&sc);
}
END_TEST

static Suite *state_suite(void)
{
    Suite *s = suite_create("state");
    TCase *io = tcase_create("roundtrip");
    tcase_add_test(io, fnv_reference);
    tcase_add_test(io, byte_layout);
    tcase_add_test(io, roundtrip_every_type);
    tcase_add_test(io, replace_and_find);
    tcase_add_test(io, add_rejects);
    tcase_add_test(io, no_tmp_left);
    suite_add_tcase(s, io);

    TCase *errors = tcase_create("errors");
    tcase_add_test(errors, error_checksum);
    tcase_add_test(errors, error_truncated);
    tcase_add_test(errors, error_header);
    tcase_add_test(errors, error_structure);
    tcase_add_test(errors, error_keeps_old_contents);
    suite_add_tcase(s, errors);

    TCase *meaning = tcase_create("meaning");
    tcase_add_test(meaning, meaning_counters);
    tcase_add_test(meaning, meaning_fields);
    tcase_add_test(meaning, backend_lacking_a_phase_is_refused);
    suite_add_tcase(s, meaning);

    TCase *fuzz = tcase_create("fuzz");
    tcase_set_timeout(fuzz, 60);
    tcase_add_test(fuzz, fuzz_every_byte);
    suite_add_tcase(s, fuzz);
    return s;
}

int main(void)
{
    return harness_run(state_suite());
}
