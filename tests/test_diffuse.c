/* test_diffuse.c — Check suite for diffuse.c: nothing from liquid at rest or in free fall, a
 * seeded band where two streams collide, spray that falls as a body falls, the limit, the
 * same particles twice, and the PLY read back. flipkit tests/. */
#include "diffuse.h"
#include "harness.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 24, FRAMES = 10 };
static const float DX = 0.1f;

/* 8 particles per cell on a 2x2x2 lattice in cells [lo, hi) of each axis, with velocity v(x). */
static void fill(Particles *ps, const int lo[3], const int hi[3], Vec3 (*v)(Vec3))
{
    for (int k = lo[2]; k < hi[2]; k++)
        for (int j = lo[1]; j < hi[1]; j++)
            for (int i = lo[0]; i < hi[0]; i++)
                for (int s = 0; s < 8; s++) {
                    Vec3 x = { (i + 0.25f + 0.5f * (s & 1)) * DX, (j + 0.25f + 0.5f * (s >> 1 & 1)) * DX,
                               (k + 0.25f + 0.5f * (s >> 2 & 1)) * DX };
                    ck_assert_int_eq(part_push(ps, x, v(x)), 0);
                }
}

static Vec3 at_rest(Vec3 x) { (void)x; return (Vec3){ 0, 0, 0 }; }
static Vec3 falling(Vec3 x) { (void)x; return (Vec3){ 0, -6.0f, 0 }; }
/* two streams meeting head on at x = 1.2 m */
static Vec3 colliding(Vec3 x) { return (Vec3){ x.x < 1.2f ? 4.0f : -4.0f, 0, 0 }; }

static DiffuseFrame frame_of(const MacGrid *g, int frame)
{
    return (DiffuseFrame){ g, { 0, -9.81f, 0 }, 1.0f / 30.0f, 8, 1, frame };
}

/* Steps d over FRAMES frames of the same liquid; returns the most alive at once. */
static size_t run(Diffuse *d, const Particles *liquid, const MacGrid *g)
{
    char err[256];
    size_t most = 0;
    for (int f = 1; f <= FRAMES; f++) {
        DiffuseFrame fr = frame_of(g, f);
        ck_assert_msg(diffuse_step(d, liquid, &fr, err, sizeof err) == 0, "%s", err);
        most = d->count > most ? d->count : most;
    }
    return most;
}

START_TEST(none_from_liquid_at_rest_or_falling_whole)
{
    MacGrid g;
    ck_assert_int_eq(grid_init(&g, N, N, N, DX), 0);
    Particles ps;
    part_init(&ps);
    fill(&ps, (int[3]){ 1, 1, 1 }, (int[3]){ N - 1, 10, N - 1 }, at_rest);
    Diffuse d;
    diffuse_init(&d, 100000);
    size_t most = run(&d, &ps, &g);
    ck_assert_msg(most == 0 && d.seeded == 0, "a tank at rest: %zu diffuse particles seeded, expected 0", d.seeded);
    part_free(&ps);
    part_init(&ps);
    fill(&ps, (int[3]){ 8, 8, 8 }, (int[3]){ 16, 16, 16 }, falling);   /* a block in free fall */
    most = run(&d, &ps, &g);
    ck_assert_msg(d.seeded == 0, "a block falling whole at 6 m/s: %zu seeded, expected 0 (it does "
                  "not splash)", d.seeded);
    diffuse_free(&d);
    part_free(&ps);
    grid_free(&g);
}
END_TEST

START_TEST(streams_that_collide_seed_at_the_collision)
{
    MacGrid g;
    ck_assert_int_eq(grid_init(&g, N, N, N, DX), 0);
    Particles ps;
    part_init(&ps);
    fill(&ps, (int[3]){ 4, 4, 4 }, (int[3]){ 20, 12, 20 }, colliding);
    Diffuse d;
    diffuse_init(&d, 100000);
    char err[256];
    DiffuseFrame fr = frame_of(&g, 1);
    ck_assert_msg(diffuse_step(&d, &ps, &fr, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(d.count >= 50, "two 4 m/s streams meeting: %zu seeded in a frame, expected at least 50", d.count);
    for (size_t p = 0; p < d.count; p++)
        ck_assert_msg(fabsf(d.pos[p].x - 1.2f) <= 2 * DX, "particle %zu seeded at x = %g, expected "
                      "within two cells of the collision plane x = 1.2", p, d.pos[p].x);
    /* the same inputs, the same particles */
    Diffuse e;
    diffuse_init(&e, 100000);
    ck_assert_int_eq(diffuse_step(&e, &ps, &fr, err, sizeof err), 0);
    ck_assert_msg(e.count == d.count && memcmp(e.pos, d.pos, d.count * sizeof *d.pos) == 0 &&
                  memcmp(e.type, d.type, d.count) == 0, "a second run seeded %zu (first %zu) or "
                  "other positions", e.count, d.count);
    /* the limit: no more alive than it, and the rest counted */
    Diffuse f;
    diffuse_init(&f, 10);
    ck_assert_int_eq(diffuse_step(&f, &ps, &fr, err, sizeof err), 0);
    ck_assert_msg(f.count == 10 && f.dropped == d.count - 10, "limit 10: %zu alive, %zu dropped; "
                  "expected 10 and %zu", f.count, f.dropped, d.count - 10);
    diffuse_free(&d);
    diffuse_free(&e);
    diffuse_free(&f);
    part_free(&ps);
    grid_free(&g);
}
END_TEST

/* A spray particle alone in the air falls as a body falls: after a frame, y = y0 + v0 t - g t^2 / 2
 * within the substeps' error (g t h / 2, h = t / steps <= t). */
START_TEST(spray_is_ballistic)
{
    MacGrid g;
    ck_assert_int_eq(grid_init(&g, N, N, N, DX), 0);
    Particles none;
    part_init(&none);
    Diffuse d;
    diffuse_init(&d, 10);
    char err[256], path[700], dir[600];
    harness_scratch_dir("diffuse", dir, sizeof dir);
    /* one particle, written and read back: the way a resumed run starts */
    FILE *f;
    snprintf(path, sizeof path, "%s/one.ply", dir);
    {
        Diffuse w;
        diffuse_init(&w, 10);
        Particles one;
        part_init(&one);
        ck_assert_int_eq(part_push(&one, (Vec3){ 1.2f, 1.8f, 1.2f }, (Vec3){ 1.0f, 2.0f, 0 }), 0);
        w.pos = malloc(sizeof *w.pos);
        w.vel = malloc(sizeof *w.vel);
        w.life = malloc(sizeof *w.life);
        w.type = malloc(1);
        w.capacity = w.count = 1;
        w.pos[0] = one.pos[0];
        w.vel[0] = one.vel[0];
        w.life[0] = 2.0f;
        w.type[0] = DIFFUSE_SPRAY;
        ck_assert_msg(diffuse_write_ply(&w, path, err, sizeof err) == 0, "%s", err);
        ck_assert_msg(diffuse_read_ply(&d, path, err, sizeof err) == 0, "%s", err);
        ck_assert_msg(d.count == 1 && memcmp(d.pos, w.pos, sizeof *w.pos) == 0 && d.life[0] == 2.0f &&
                      d.type[0] == DIFFUSE_SPRAY, "read back: %zu particles or other values", d.count);
        diffuse_free(&w);
        part_free(&one);
    }
    DiffuseFrame fr = frame_of(&g, 3);
    ck_assert_msg(diffuse_step(&d, &none, &fr, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(d.count, 1);
    double t = 1.0 / 30.0, y = 1.8 + 2.0 * t - 0.5 * 9.81 * t * t, x = 1.2 + 1.0 * t;
    ck_assert_msg(fabs(d.pos[0].y - y) <= 0.5 * 9.81 * t * t + 1e-6 && fabs(d.pos[0].x - x) < 1e-5,
                  "spray after a frame at (%g, %g), expected (%g, %g) within g t^2 / 2 in y",
                  d.pos[0].x, d.pos[0].y, x, y);
    ck_assert_msg(fabsf(d.vel[0].y - (float)(2.0 - 9.81 * t)) < 1e-4f, "spray vy %g, expected %g",
                  d.vel[0].y, 2.0 - 9.81 * t);
    ck_assert_msg(d.life[0] == 2.0f, "spray aged to %g; only foam ages", d.life[0]);
    /* a file that is not one is one line naming it */
    f = fopen(path, "wb");
    fputs("ply\nformat ascii 1.0\nend_header\n", f);
    fclose(f);
    ck_assert_int_eq(diffuse_read_ply(&d, path, err, sizeof err), -1);
    ck_assert_msg(strstr(err, path) && !strchr(err, '\n'), "bad file: \"%s\"", err);
    ck_assert_int_eq(diffuse_read_ply(&d, "/nonexistent/000001.ply", err, sizeof err), 1);
    harness_remove_tree(dir);
    diffuse_free(&d);
    part_free(&none);
    grid_free(&g);
}
END_TEST

static Suite *diffuse_suite(void)
{
    Suite *s = suite_create("diffuse");
    TCase *t = tcase_create("diffuse");
    tcase_add_test(t, none_from_liquid_at_rest_or_falling_whole);
    tcase_add_test(t, streams_that_collide_seed_at_the_collision);
    tcase_add_test(t, spray_is_ballistic);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return harness_run(diffuse_suite());
}
