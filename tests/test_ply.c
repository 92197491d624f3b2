/* test_ply.c — Check suite for common/writers/ply.c: exact layout, bit-exact round trips, foreign
 * files, and one-line errors for broken ones (with a small fuzz). CK_FORK=no runs in-process
 * for gdb; CK_RUN_CASE=errors build/tests/test_ply runs one test case (see tcase_create). */
#include "atomic.h"
#include "harness.h"
#include "ply.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char header_fmt[] =
    "ply\n"
    "format binary_little_endian 1.0\n"
    "comment flipkit particles\n"
    "element vertex %zu\n"
    "property float x\n"
    "property float y\n"
    "property float z\n"
    "property float vx\n"
    "property float vy\n"
    "property float vz\n"
    "end_header\n";

/* ---- helpers ------------------------------------------------------------------------- */

static char *tmp_path(const char *name)
{
    static char buf[4][512];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", harness_tmpdir(), name);
    return p;
}

static size_t header_len(size_t n)
{
    char buf[512];
    return (size_t)snprintf(buf, sizeof buf, header_fmt, n);
}

static void spit(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

static int exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* Deterministic particles with awkward values: signed zeros, subnormals, huge, tiny. */
static void make_particles(Particles *ps, size_t n)
{
    static const float special[] = { 0.0f, -0.0f, 1e-45f, -3.4e38f, 1.0f / 3.0f, 1e-40f };
    Rng rng = rng_seeded(42);
    part_init(ps);
    for (size_t i = 0; i < n; i++) {
        Vec3 p = { rng_uniform(&rng) * 4 - 2, rng_uniform(&rng), -rng_uniform(&rng) * 1e6f };
        Vec3 v = { special[i % 6], rng_uniform(&rng) - 0.5f, (float)i };
        ck_assert_int_eq(part_push(ps, p, v), 0);
    }
}

/* A little-endian byte builder for hand-made files. */
typedef struct {
    unsigned char b[4096];
    size_t n;
} Buf;

static void put_text(Buf *b, const char *s)
{
    size_t n = strlen(s);
    ck_assert_uint_le(b->n + n, sizeof b->b);
    memcpy(b->b + b->n, s, n);
    b->n += n;
}

static void put_le(Buf *b, uint64_t v, int nbytes)
{
    ck_assert_uint_le(b->n + (size_t)nbytes, sizeof b->b);
    for (int i = 0; i < nbytes; i++)
        b->b[b->n++] = (unsigned char)(v >> (8 * i));
}

static void put_f32(Buf *b, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_le(b, u, 4);
}

static void put_f64(Buf *b, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    put_le(b, u, 8);
}

/* Reads path expecting failure; checks the message names the file and contains what. */
static void expect_error(const char *path, const char *what)
{
    Particles ps;
    char err[256] = "";
    part_init(&ps);
    ck_assert_int_eq(ply_read_particles(path, &ps, err, sizeof err), -1);
    ck_assert_uint_eq(ps.count, 0);
    ck_assert_msg(strncmp(err, path, strlen(path)) == 0 && strncmp(err + strlen(path), ": ", 2) == 0,
                  "error does not start with the path: %s", err);
    ck_assert_msg(strstr(err, what) != NULL, "expected \"%s\" in: %s", what, err);
    ck_assert_ptr_null(strchr(err, '\n'));
    part_free(&ps);
}

/* Writes a header (the text given) followed by n records of three floats. */
static void write_xyz_file(const char *path, const char *header, int n)
{
    Buf b = { .n = 0 };
    put_text(&b, header);
    for (int i = 0; i < n * 3; i++)
        put_f32(&b, (float)i);
    spit(path, b.b, b.n);
}

/* ---- cases --------------------------------------------------------------------------- */

START_TEST(roundtrip_exact)
{
    Particles a, b;
    char err[256] = "";
    const char *path = tmp_path("round.ply");
    make_particles(&a, 333);
    part_init(&b);
    ck_assert_msg(ply_write_particles(path, &a, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(ply_read_particles(path, &b, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(b.count, a.count);
    ck_assert_int_eq(memcmp(a.pos, b.pos, a.count * sizeof(Vec3)), 0);
    ck_assert_int_eq(memcmp(a.vel, b.vel, a.count * sizeof(Vec3)), 0);
    part_free(&a);
    part_free(&b);
}
END_TEST

START_TEST(roundtrip_nan_bits)
{
    /* A NaN with a payload must come back with the same bits, not as some other NaN. */
    Particles a, b;
    char err[256] = "";
    const char *path = tmp_path("nan.ply");
    uint32_t bits = 0x7fc12345u;
    float nan;
    memcpy(&nan, &bits, 4);
    part_init(&a);
    part_init(&b);
    ck_assert_int_eq(part_push(&a, (Vec3){ nan, INFINITY, -INFINITY }, (Vec3){ 0, 0, nan }), 0);
    ck_assert_int_eq(ply_write_particles(path, &a, err, sizeof err), 0);
    ck_assert_int_eq(ply_read_particles(path, &b, err, sizeof err), 0);
    ck_assert_int_eq(memcmp(a.pos, b.pos, sizeof(Vec3)), 0);
    ck_assert_int_eq(memcmp(a.vel, b.vel, sizeof(Vec3)), 0);
    part_free(&a);
    part_free(&b);
}
END_TEST

START_TEST(header_text_and_layout)
{
    Particles a;
    char err[256] = "", expect[512];
    const char *path = tmp_path("hdr.ply");
    make_particles(&a, 5);
    a.pos[0] = (Vec3){ 1.0f, -2.0f, 0.5f };
    ck_assert_int_eq(ply_write_particles(path, &a, err, sizeof err), 0);
    size_t len, hl = header_len(5);
    unsigned char *data = (unsigned char *)harness_slurp(path, &len);
    snprintf(expect, sizeof expect, header_fmt, (size_t)5);
    ck_assert_uint_eq(len, hl + 24 * 5);
    ck_assert_int_eq(memcmp(data, expect, hl), 0);
    /* The first float is 1.0f = 0x3f800000, little-endian; then -2.0f = 0xc0000000. */
    static const unsigned char first[8] = { 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xc0 };
    ck_assert_int_eq(memcmp(data + hl, first, 8), 0);
    free(data);
    part_free(&a);
}
END_TEST

START_TEST(byte_length)
{
    static const size_t sizes[] = { 1, 7, 255, 256, 257, 1000 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        Particles a;
        char err[256] = "";
        const char *path = tmp_path("len.ply");
        make_particles(&a, sizes[i]);
        ck_assert_int_eq(ply_write_particles(path, &a, err, sizeof err), 0);
        size_t len;
        free(harness_slurp(path, &len));
        ck_assert_uint_eq(len, header_len(sizes[i]) + 24 * sizes[i]);
        part_free(&a);
    }
}
END_TEST

START_TEST(zero_particles)
{
    Particles a, b;
    char err[256] = "";
    const char *path = tmp_path("empty.ply");
    part_init(&a);
    make_particles(&b, 10); /* must be replaced, not appended to */
    ck_assert_int_eq(ply_write_particles(path, &a, err, sizeof err), 0);
    size_t len;
    free(harness_slurp(path, &len));
    ck_assert_uint_eq(len, header_len(0));
    ck_assert_msg(ply_read_particles(path, &b, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(b.count, 0);
    part_free(&a);
    part_free(&b);
}
END_TEST

START_TEST(foreign_file)
{
    /* Doubles, other scalar types, extra properties, a skipped element before vertex, a
     * list element after it, and CRLF line ends: what other tools write. */
    Buf b = { .n = 0 };
    put_text(&b, "ply\r\nformat binary_little_endian 1.0\r\n"
                 "comment made by hand\nobj_info test\n"
                 "element camera 2\nproperty float a\nproperty uchar b\n"
                 "element vertex 3\n"
                 "property double x\nproperty uchar red\nproperty float64 y\nproperty double z\n"
                 "property float nx\nproperty int vx\nproperty short vy\nproperty float32 vz\n"
                 "element face 1\nproperty list uchar int vertex_indices\n"
                 "end_header\r\n");
    for (int i = 0; i < 2; i++) {
        put_f32(&b, 99.0f);
        put_le(&b, 7, 1);
    }
    for (int i = 0; i < 3; i++) {
        put_f64(&b, 1.5 + i);
        put_le(&b, 200, 1);
        put_f64(&b, -0.25 * i);
        put_f64(&b, 1e10);
        put_f32(&b, 123.0f);
        put_le(&b, (uint32_t)(-7 - i), 4);
        put_le(&b, (uint16_t)-300, 2);
        put_f32(&b, 0.125f);
    }
    put_le(&b, 3, 1); /* the face: never read */
    put_le(&b, 0, 4);
    const char *path = tmp_path("foreign.ply");
    spit(path, b.b, b.n);

    Particles ps;
    char err[256] = "";
    part_init(&ps);
    ck_assert_msg(ply_read_particles(path, &ps, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(ps.count, 3);
    for (int i = 0; i < 3; i++) {
        ck_assert(ps.pos[i].x == 1.5f + (float)i);
        ck_assert(ps.pos[i].y == -0.25f * (float)i);
        ck_assert(ps.pos[i].z == (float)1e10);
        ck_assert(ps.vel[i].x == (float)(-7 - i));
        ck_assert(ps.vel[i].y == -300.0f);
        ck_assert(ps.vel[i].z == 0.125f);
    }
    part_free(&ps);
}
END_TEST

START_TEST(velocity_optional)
{
    const char *path = tmp_path("xyz.ply");
    write_xyz_file(path, "ply\nformat binary_little_endian 1.0\nelement vertex 4\n"
                         "property float x\nproperty float y\nproperty float z\nend_header\n", 4);
    Particles ps;
    char err[256] = "";
    part_init(&ps);
    ck_assert_msg(ply_read_particles(path, &ps, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(ps.count, 4);
    ck_assert(ps.pos[3].x == 9.0f && ps.pos[3].y == 10.0f && ps.pos[3].z == 11.0f);
    for (int i = 0; i < 4; i++)
        ck_assert(ps.vel[i].x == 0.0f && ps.vel[i].y == 0.0f && ps.vel[i].z == 0.0f);
    part_free(&ps);
}
END_TEST

START_TEST(error_missing_file)
{
    expect_error(tmp_path("no-such-file.ply"), "cannot open");
}
END_TEST

START_TEST(error_format)
{
    const char *path = tmp_path("fmt.ply");
    write_xyz_file(path, "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n"
                         "property float y\nproperty float z\nend_header\n", 0);
    expect_error(path, "format is ascii; only binary_little_endian is supported");
    write_xyz_file(path, "ply\nformat binary_big_endian 1.0\nelement vertex 1\n"
                         "property float x\nproperty float y\nproperty float z\nend_header\n", 1);
    expect_error(path, "binary_big_endian");
    write_xyz_file(path, "PLY\nformat binary_little_endian 1.0\nend_header\n", 0);
    expect_error(path, "not a PLY file");
    write_xyz_file(path, "ply\nformat binary_little_endian 2.0\nend_header\n", 0);
    expect_error(path, "version 1.0");
}
END_TEST

START_TEST(error_truncated)
{
    Particles a;
    char err[256] = "", expect[600];
    const char *path = tmp_path("trunc.ply");
    make_particles(&a, 10);
    ck_assert_int_eq(ply_write_particles(path, &a, err, sizeof err), 0);
    size_t len;
    unsigned char *data = (unsigned char *)harness_slurp(path, &len);
    spit(path, data, len - 24 - 5); /* 8 whole records and part of a 9th */
    snprintf(expect, sizeof expect, "%s: truncated: header says 10 vertices, file holds 8", path);
    Particles b;
    make_particles(&b, 3);
    ck_assert_int_eq(ply_read_particles(path, &b, err, sizeof err), -1);
    ck_assert_str_eq(err, expect);
    ck_assert_uint_eq(b.count, 0);
    free(data);
    part_free(&a);
    part_free(&b);
}
END_TEST

START_TEST(error_properties)
{
    const char *path = tmp_path("props.ply");
    write_xyz_file(path, "ply\nformat binary_little_endian 1.0\nelement vertex 1\n"
                         "property float y\nproperty float z\nproperty float w\nend_header\n", 1);
    expect_error(path, "vertex element has no x property");
    write_xyz_file(path, "ply\nformat binary_little_endian 1.0\nelement vertex 1\n"
                         "property float x\nproperty float y\nproperty float z\n"
                         "property list uchar int idx\nend_header\n", 1);
    expect_error(path, "element vertex has a list property (idx)");
    write_xyz_file(path, "ply\nformat binary_little_endian 1.0\nelement face 1\n"
                         "property list uchar int idx\nelement vertex 1\nproperty float x\n"
                         "property float y\nproperty float z\nend_header\n", 1);
    expect_error(path, "lists are only allowed in elements after vertex");
    write_xyz_file(path, "ply\nformat binary_little_endian 1.0\nelement vertex 1\n"
                         "property half x\nproperty float y\nproperty float z\nend_header\n", 1);
    expect_error(path, "unknown property type half");
    write_xyz_file(path, "ply\nformat binary_little_endian 1.0\nelement face 1\n"
                         "property float x\nend_header\n", 1);
    expect_error(path, "no vertex element");
    write_xyz_file(path, "ply\nformat binary_little_endian 1.0\nelement vertex 1\n"
                         "property float x\nproperty float x\nproperty float y\nproperty float z\n"
                         "end_header\n", 2);
    expect_error(path, "declared twice");
}
END_TEST

START_TEST(error_huge_counts)
{
    /* Counts that would overflow or allocate the moon must be caught by the size check. */
    const char *path = tmp_path("huge.ply");
    write_xyz_file(path, "ply\nformat binary_little_endian 1.0\n"
                         "element vertex 18446744073709551615\n"
                         "property float x\nproperty float y\nproperty float z\nend_header\n", 2);
    expect_error(path, "truncated: header says 18446744073709551615 vertices, file holds 2");
    write_xyz_file(path, "ply\nformat binary_little_endian 1.0\n"
                         "element vertex 18446744073709551616\n"
                         "property float x\nproperty float y\nproperty float z\nend_header\n", 2);
    expect_error(path, "header line 3");
    write_xyz_file(path, "ply\nformat binary_little_endian 1.0\n"
                         "element junk 9223372036854775807\nproperty double a\n"
                         "element vertex 1\n"
                         "property float x\nproperty float y\nproperty float z\nend_header\n", 2);
    expect_error(path, "impossibly large");
    write_xyz_file(path, "ply\nformat binary_little_endian 1.0\n"
                         "element junk 1000000\nproperty double a\n"
                         "element vertex 1\n"
                         "property float x\nproperty float y\nproperty float z\nend_header\n", 2);
    expect_error(path, "truncated: file ends in the elements before vertex");
}
END_TEST

START_TEST(no_tmp_left)
{
    Particles a;
    char err[256] = "", tmp[600];
    const char *path = tmp_path("clean.ply");
    make_particles(&a, 20);
    ck_assert_int_eq(ply_write_particles(path, &a, err, sizeof err), 0);
    ck_assert_int_eq(ply_write_particles(path, &a, err, sizeof err), 0); /* overwrite */
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    ck_assert(exists(path));
    ck_assert(!exists(tmp));

    const char *bad = tmp_path("no-such-dir/x.ply");
    ck_assert_int_eq(ply_write_particles(bad, &a, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, bad));
    snprintf(tmp, sizeof tmp, "%s.tmp", bad);
    ck_assert(!exists(tmp));

    /* Renaming onto a directory fails after the temporary was written: it must go. */
    const char *dir = harness_tmpdir();
    ck_assert_int_eq(ply_write_particles(dir, &a, err, sizeof err), -1);
    snprintf(tmp, sizeof tmp, "%s.tmp", dir);
    ck_assert(!exists(tmp));
    part_free(&a);
}
END_TEST

START_TEST(fuzz_truncation)
{
    /* Every prefix of a valid file is an error with a message, never a crash. */
    Particles a;
    char err[256] = "";
    const char *path = tmp_path("fuzz.ply"), *cut = tmp_path("cut.ply");
    make_particles(&a, 3);
    ck_assert_int_eq(ply_write_particles(path, &a, err, sizeof err), 0);
    size_t len;
    unsigned char *data = (unsigned char *)harness_slurp(path, &len);
    for (size_t n = 0; n < len; n++) {
        spit(cut, data, n);
        expect_error(cut, "");
    }
    free(data);
    part_free(&a);
}
END_TEST

START_TEST(fuzz_corruption)
{
    /* Random bytes written over the header, biased to the characters that matter. */
    static const char alphabet[] = "0123456789 \n\r\t\0xyzvplyformatelementpropertylistend_-";
    Particles a, b;
    char err[256] = "";
    const char *path = tmp_path("fuzz.ply"), *bad = tmp_path("bad.ply");
    make_particles(&a, 4);
    part_init(&b);
    ck_assert_int_eq(ply_write_particles(path, &a, err, sizeof err), 0);
    size_t len, hl = header_len(4);
    unsigned char *data = (unsigned char *)harness_slurp(path, &len);
    unsigned char *copy = malloc(len + 64);
    uint64_t seed = 12345;
    for (int iter = 0; iter < 3000; iter++) {
        memcpy(copy, data, len);
        int flips = 1 + iter % 4;
        for (int k = 0; k < flips; k++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = (size_t)(seed >> 33) % hl;
            unsigned pick = (unsigned)(seed >> 20) % (sizeof alphabet + 16);
            copy[at] = pick < sizeof alphabet ? (unsigned char)alphabet[pick]
                                              : (unsigned char)(seed >> 40);
        }
        size_t n = len - (size_t)(iter % 3) * 7; /* and sometimes short as well */
        spit(bad, copy, n);
        err[0] = '\0';
        int rc = ply_read_particles(bad, &b, err, sizeof err);
        if (rc == 0)
            ck_assert_uint_le(b.count, len);
        else
            ck_assert_msg(strncmp(err, bad, strlen(bad)) == 0 && strlen(err) > strlen(bad) + 2,
                          "iteration %d: bad message '%s'", iter, err);
    }
    free(copy);
    free(data);
    part_free(&a);
    part_free(&b);
}
END_TEST

/* ---- atomic_write, which every file writer (PLY, surfaces, previews, states, reports) uses */

static int write_text(FILE *f, const void *text, char *why, size_t whylen)
{
    (void)why, (void)whylen;
    return fputs(text, f) < 0 ? -1 : 0;
}

static int fail_with_reason(FILE *f, const void *ctx, char *why, size_t whylen)
{
    (void)ctx;
    fputs("half", f);
    snprintf(why, whylen, "libpng: out of cheese");
    return -1;
}

static int fail_with_errno(FILE *f, const void *ctx, char *why, size_t whylen)
{
    (void)f, (void)ctx, (void)why, (void)whylen;
    errno = EIO;
    return -1;
}

START_TEST(atomic_write_all_or_nothing)
{
    char dir[600], path[700], tmp[720], err[800];
    harness_scratch_dir("atomic", dir, sizeof dir);
    snprintf(path, sizeof path, "%s/f.txt", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    for (int durable = 0; durable <= 1; durable++) {
        ck_assert_int_eq(atomic_write(path, durable, write_text, "whole\n", err, sizeof err), 0);
        ck_assert_str_eq(harness_slurp(path, NULL), "whole\n");
        ck_assert_msg(access(tmp, F_OK) != 0, "%s left behind after a success", tmp);
    }
    /* A failing body leaves the old file as it was, and no .tmp. */
    ck_assert_int_eq(atomic_write(path, false, fail_with_reason, NULL, err, sizeof err), -1);
    ck_assert_str_eq(err, "libpng: out of cheese");
    ck_assert_int_eq(atomic_write(path, true, fail_with_errno, NULL, err, sizeof err), -1);
    ck_assert_str_eq(err, "write failed: Input/output error");
    ck_assert_str_eq(harness_slurp(path, NULL), "whole\n");
    ck_assert_msg(access(tmp, F_OK) != 0, "%s left behind after a failure", tmp);
    /* A directory that does not exist: the .tmp cannot be made, and the message says so. */
    char missing[800], want[900];
    snprintf(missing, sizeof missing, "%s/no/such/f.txt", dir);
    snprintf(want, sizeof want, "cannot create %s.tmp: No such file or directory", missing);
    ck_assert_int_eq(atomic_write(missing, false, write_text, "x", err, sizeof err), -1);
    ck_assert_str_eq(err, want);
    harness_remove_tree(dir);
}
END_TEST

/* atomic_replace exchanges over a regular file (atomic.c says why) and must otherwise do what
 * rename does: the old file's readers keep it, no tmp is left, a directory is not replaced.
 * These are rename's results, so the test cannot tell which path ran (strace shows the
 * renameat2 with RENAME_EXCHANGE on ext4); it checks that the exchange changes none of them. */
static void ply_test_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

START_TEST(atomic_replace_as_rename)
{
    char dir[600], path[700], tmp[720], sub[720], link[720];
    harness_scratch_dir("replace", dir, sizeof dir);
    snprintf(path, sizeof path, "%s/stage.usda", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    /* nothing there yet */
    ply_test_write_file(tmp, "first\n");
    ck_assert_int_eq(atomic_replace(tmp, path), 0);
    ck_assert_str_eq(harness_slurp(path, NULL), "first\n");
    ck_assert_msg(access(tmp, F_OK) != 0, "%s left behind", tmp);
    /* over a file that a reader has open: the reader still reads the old one */
    FILE *reader = fopen(path, "rb");
    ck_assert_ptr_nonnull(reader);
    ply_test_write_file(tmp, "second\n");
    ck_assert_int_eq(atomic_replace(tmp, path), 0);
    ck_assert_str_eq(harness_slurp(path, NULL), "second\n");
    ck_assert_msg(access(tmp, F_OK) != 0, "%s (the old file after the exchange) left behind", tmp);
    char old[16] = "";
    ck_assert_ptr_nonnull(fgets(old, sizeof old, reader));
    ck_assert_str_eq(old, "first\n");
    fclose(reader);
    /* over a symbolic link: the link is replaced, the file it named is not touched */
    snprintf(link, sizeof link, "%s/link.usda", dir);
    ck_assert_int_eq(symlink(path, link), 0);
    snprintf(sub, sizeof sub, "%s/link.usda.tmp", dir);
    ply_test_write_file(sub, "third\n");
    ck_assert_int_eq(atomic_replace(sub, link), 0);
    ck_assert_str_eq(harness_slurp(link, NULL), "third\n");
    ck_assert_str_eq(harness_slurp(path, NULL), "second\n");
    /* over a directory: refused as rename refuses it; both stay as they were */
    snprintf(sub, sizeof sub, "%s/d", dir);
    ck_assert_int_eq(mkdir(sub, 0777), 0);
    ply_test_write_file(tmp, "fourth\n");
    errno = 0;
    ck_assert_int_eq(atomic_replace(tmp, sub), -1);
    ck_assert_int_eq(errno, EISDIR);
    struct stat st;
    ck_assert_int_eq(stat(sub, &st), 0);
    ck_assert(S_ISDIR(st.st_mode));
    ck_assert_str_eq(harness_slurp(tmp, NULL), "fourth\n");
    harness_remove_tree(dir);
}
END_TEST

static Suite *ply_suite(void)
{
    Suite *s = suite_create("ply");
    TCase *io = tcase_create("roundtrip");
    tcase_add_test(io, roundtrip_exact);
    tcase_add_test(io, roundtrip_nan_bits);
    tcase_add_test(io, header_text_and_layout);
    tcase_add_test(io, byte_length);
    tcase_add_test(io, zero_particles);
    tcase_add_test(io, foreign_file);
    tcase_add_test(io, velocity_optional);
    tcase_add_test(io, no_tmp_left);
    suite_add_tcase(s, io);

    TCase *errors = tcase_create("errors");
    tcase_add_test(errors, atomic_write_all_or_nothing);
    tcase_add_test(errors, atomic_replace_as_rename);
    tcase_add_test(errors, error_missing_file);
    tcase_add_test(errors, error_format);
    tcase_add_test(errors, error_truncated);
    tcase_add_test(errors, error_properties);
    tcase_add_test(errors, error_huge_counts);
    suite_add_tcase(s, errors);

    TCase *fuzz = tcase_create("fuzz");
    tcase_set_timeout(fuzz, 60);
    tcase_add_test(fuzz, fuzz_truncation);
    tcase_add_test(fuzz, fuzz_corruption);
    suite_add_tcase(s, fuzz);
    return s;
}

int main(void)
{
    return harness_run(ply_suite());
}
