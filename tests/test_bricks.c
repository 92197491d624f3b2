/* test_bricks.c — Check suite for bricks.c: a hand-worked brick grid against the seed's formulas
 * (N = ceil(W/w), texture index i + jN + kNM, colour = normalised density), and the three
 * files of a frame read back and checked against each other. flipkit tests/. */
#include "bricks.h"
#include "harness.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* n particles spread over the brick (i, j, k) of size w (metres), strictly inside it. */
static void fill_brick(Particles *ps, int i, int j, int k, float w, int n)
{
    for (int p = 0; p < n; p++) {
        float f = (p + 0.5f) / (float)n;    /* in (0, 1) */
        Vec3 x = { (i + f) * w, (j + 0.5f) * w, (k + 1.0f - f) * w };
        ck_assert_int_eq(part_push(ps, x, (Vec3){ 0, 0, 0 }), 0);
    }
}

/* A 5 x 4 x 4 grid of 1 m cells, 8 particles per full cell, bricks of 2 x 2 x 2 m: worked
 * by hand from the formulas in bricks.h. */
START_TEST(hand_worked_brick_grid)
{
    MacGrid g;
    ck_assert_int_eq(grid_init(&g, 5, 4, 4, 1.0f), 0);
    Particles ps;
    part_init(&ps);
    fill_brick(&ps, 0, 0, 0, 2.0f, 64);  /* 8 cells x 8: density 1 -> 255 */
    fill_brick(&ps, 1, 0, 0, 2.0f, 40);  /* 40 / 64 = 0.625 -> round(159.375) = 159 */
    fill_brick(&ps, 0, 1, 0, 2.0f, 16);  /* 0.25: below half full, no brick */
    /* brick (2,0,0) is cut by the domain's face x = 5: 1 x 2 x 2 cells inside, full at 32 */
    for (int p = 0; p < 20; p++)         /* 20 / 32 = 0.625 -> 159 */
        ck_assert_int_eq(part_push(&ps, (Vec3){ 4.5f, 1.0f + p * 0.01f, 1.0f }, (Vec3){ 0, 0, 0 }), 0);
    for (int p = 0; p < 40; p++)         /* 40 / 32 clamps to 1 -> 255 */
        ck_assert_int_eq(part_push(&ps, (Vec3){ 4.2f, 2.5f, 3.0f + p * 0.01f }, (Vec3){ 0, 0, 0 }), 0);
    ck_assert_int_eq(part_push(&ps, (Vec3){ -0.1f, 1, 1 }, (Vec3){ 0, 0, 0 }), 0);   /* outside */
    ck_assert_int_eq(part_push(&ps, (Vec3){ NAN, 1, 1 }, (Vec3){ 0, 0, 0 }), 0);     /* not counted */
    Bricks b;
    bricks_init(&b);
    char err[256];
    const float size[3] = { 2, 2, 2 };
    ck_assert_msg(bricks_build(&b, &ps, &g, size, 8, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(b.n[0] == 3 && b.n[1] == 2 && b.n[2] == 2, "brick grid %dx%dx%d, expected "
                  "ceil(5/2) x ceil(4/2) x ceil(4/2) = 3x2x2", b.n[0], b.n[1], b.n[2]);
    static const struct { int index; float c[3]; uint8_t colour; } want[] = {
        { 0, { 1, 1, 1 }, 255 }, { 1, { 3, 1, 1 }, 159 }, { 2, { 5, 1, 1 }, 159 },
        { 2 + 1 * 3 + 1 * 6, { 5, 3, 3 }, 255 },
    };
    ck_assert_msg(b.count == 4, "%zu bricks, expected 4 (the quarter-full one left out)", b.count);
    for (size_t i = 0; i < 4; i++) {
        for (int d = 0; d < 3; d++)
            ck_assert_msg(fabsf(b.centre[3 * i + d] - want[i].c[d]) < 1e-6f, "brick %zu centre[%d] "
                          "%g, expected %g", i, d, b.centre[3 * i + d], want[i].c[d]);
        ck_assert_msg(b.colour[i] == want[i].colour, "brick %zu colour %d, expected %d", i,
                      b.colour[i], want[i].colour);
        ck_assert_int_eq(b.texture[want[i].index], want[i].colour);
    }
    for (int t = 0; t < 12; t++)
        if (t != 0 && t != 1 && t != 2 && t != 11)
            ck_assert_msg(b.texture[t] == 0, "texture[%d] = %d, expected 0 (no brick)", t, b.texture[t]);
    /* a bad size is one line naming the key */
    const float bad[3] = { 2, 0, 2 };
    ck_assert_int_eq(bricks_build(&b, &ps, &g, bad, 8, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "output.brick_cells") && !strchr(err, '\n'), "bad size: err \"%s\", "
                  "expected one line naming output.brick_cells", err);
    bricks_free(&b);
    part_free(&ps);
    grid_free(&g);
}
END_TEST

static uint8_t *slurp(const char *dir, const char *sub, const char *ext, size_t *len)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s/000007.%s", dir, sub, ext);
    return (uint8_t *)harness_slurp(path, len);
}

static float le_f32(const uint8_t *p)
{
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* A ball of particles: every brick in the PLY has its colour at its index in the colour list
 * and at i + jN + kNM of the texture, computed from its position as the seed says. */
START_TEST(files_agree_with_each_other)
{
    MacGrid g;
    ck_assert_int_eq(grid_init(&g, 24, 20, 16, 0.05f), 0);
    Particles ps;
    part_init(&ps);
    Rng rng = rng_seeded(7);
    for (int p = 0; p < 30000; p++) {
        Vec3 x = { 0.6f + 0.35f * (rng_uniform(&rng) - 0.5f), 0.5f + 0.35f * (rng_uniform(&rng) - 0.5f),
                   0.4f + 0.3f * (rng_uniform(&rng) - 0.5f) };
        ck_assert_int_eq(part_push(&ps, x, (Vec3){ 0, 0, 0 }), 0);
    }
    Bricks b;
    bricks_init(&b);
    char err[1300], dir[600], sub[700];
    const float size[3] = { 0.1f, 0.12f, 0.1f };
    ck_assert_msg(bricks_build(&b, &ps, &g, size, 8, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(b.count > 10, "%zu bricks in a dense box of particles, expected more than 10", b.count);
    harness_scratch_dir("bricks", dir, sizeof dir);
    const char *subs[3] = { "brick", "brickcolor", "bricktexture" };
    for (int i = 0; i < 3; i++) {
        snprintf(sub, sizeof sub, "%s/%s", dir, subs[i]);
        ck_assert_int_eq(mkdir(sub, 0777), 0);
    }
    ck_assert_msg(bricks_write(&b, dir, 7, err, sizeof err) == 0, "%s", err);
    size_t nply, ncol, ntex;
    uint8_t *ply = slurp(dir, "brick", "ply", &nply), *col = slurp(dir, "brickcolor", "data", &ncol),
            *tex = slurp(dir, "bricktexture", "data", &ntex);
    const char *end = strstr((char *)ply, "end_header\n");
    ck_assert_ptr_nonnull(end);
    size_t nv = 0;
    ck_assert_int_eq(sscanf(strstr((char *)ply, "element vertex "), "element vertex %zu", &nv), 1);
    ck_assert_ptr_nonnull(strstr((char *)ply, "property uchar red\nproperty uchar green\nproperty uchar blue\n"));
    const uint8_t *body = (const uint8_t *)end + strlen("end_header\n");
    ck_assert_msg(nv == b.count && (size_t)(ply + nply - body) == 15 * nv, "brick PLY: %zu vertices "
                  "and %zu body bytes, expected %zu and %zu", nv, (size_t)(ply + nply - body),
                  b.count, 15 * b.count);
    ck_assert_msg(ncol == 3 * nv, "brickcolor: %zu bytes, expected 3 per brick (%zu)", ncol, 3 * nv);
    int N = (int)ceil(24 * 0.05 / 0.1 - 1e-9), M = (int)ceil(20 * 0.05 / 0.12), P = (int)ceil(16 * 0.05 / 0.1 - 1e-9);
    ck_assert_msg(ntex == (size_t)N * M * P, "bricktexture: %zu bytes, expected N x M x P = %dx%dx%d",
                  ntex, N, M, P);
    size_t listed = 0;
    for (size_t i = 0; i < nv; i++) {
        const uint8_t *v = body + 15 * i;
        float x = le_f32(v), y = le_f32(v + 4), z = le_f32(v + 8);
        int bi = (int)floorf(x / 0.1f), bj = (int)floorf(y / 0.12f), bk = (int)floorf(z / 0.1f);
        uint8_t r = v[12];
        ck_assert_msg(v[13] == r && v[14] == r, "brick %zu: red %d green %d blue %d, expected one grey", i, r, v[13], v[14]);
        ck_assert_msg(col[3 * i] == r && col[3 * i + 1] == r && col[3 * i + 2] == r, "brick %zu: "
                      "brickcolor %d %d %d, the PLY says %d", i, col[3 * i], col[3 * i + 1], col[3 * i + 2], r);
        ck_assert_msg(tex[bi + bj * N + bk * N * M] == r, "brick %zu at (%d,%d,%d): bricktexture[i + jN "
                      "+ kNM] = %d, the PLY says %d", i, bi, bj, bk, tex[bi + bj * N + bk * N * M], r);
        ck_assert_msg(r >= 128, "brick %zu: colour %d, a present brick is at least half full (>= 128)", i, r);
    }
    for (size_t t = 0; t < ntex; t++)
        listed += tex[t] != 0;
    ck_assert_msg(listed == nv, "bricktexture has %zu non-zero bricks, the PLY %zu", listed, nv);
    free(ply);
    free(col);
    free(tex);
    harness_remove_tree(dir);
    bricks_free(&b);
    part_free(&ps);
    grid_free(&g);
}
END_TEST

static Suite *bricks_suite(void)
{
    Suite *s = suite_create("bricks");
    TCase *t = tcase_create("bricks");
    tcase_add_test(t, hand_worked_brick_grid);
    tcase_add_test(t, files_agree_with_each_other);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return harness_run(bricks_suite());
}
