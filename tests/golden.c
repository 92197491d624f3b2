/* golden.c — finding, opening and reading golden cases (format in golden.h).
 * flipkit tests/: every failure here names the file and the section, and says how to make
 * the files when they are missing, because a student's first run may well be before that. */
#include "golden.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "stagecase.h"

/* Case names per stage, listed once when the suite is built (a forked test inherits them). */
static struct {
    char stage[16];
    char names[GOLDEN_MAX_CASES][GOLDEN_NAME_MAX];
    int count;
} golden_cases;

/* The kit records its golden cases into build/golden (make golden); the student tarball ships
 * them already recorded and builds with -DFLIPKIT_GOLDEN_DIR='"tests/golden/public"'. */
#ifndef FLIPKIT_GOLDEN_DIR
#define FLIPKIT_GOLDEN_DIR "build/golden"
#endif

const char *golden_dir(void)
{
    const char *d = getenv("FLIPKIT_GOLDEN");
    return d && *d ? d : FLIPKIT_GOLDEN_DIR;
}

static int golden_cmp(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

static void golden_list(const char *stage)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/%s", golden_dir(), stage);
    snprintf(golden_cases.stage, sizeof golden_cases.stage, "%s", stage);
    golden_cases.count = 0;
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) && golden_cases.count < GOLDEN_MAX_CASES) {
        size_t n = strlen(e->d_name);
        if (n <= 6 || n - 6 >= GOLDEN_NAME_MAX || strcmp(e->d_name + n - 6, ".state") != 0)
            continue;
        memcpy(golden_cases.names[golden_cases.count], e->d_name, n - 6);
        golden_cases.names[golden_cases.count][n - 6] = '\0';
        golden_cases.count++;
    }
    closedir(d);
    qsort(golden_cases.names, (size_t)golden_cases.count, GOLDEN_NAME_MAX, golden_cmp);
}

START_TEST(golden_cases_missing)
{
    ck_abort_msg("%s: no golden cases in %s/%s/: run `make golden` (the kit) or unpack the "
                 "handout's tests/golden data", golden_cases.stage, golden_dir(), golden_cases.stage);
}
END_TEST

void golden_add_tcase(Suite *s, const char *stage, const TTest *fn)
{
    golden_list(stage);
    TCase *tc = harness_tcase("golden", HARNESS_GOLDEN_SECONDS);
    if (golden_cases.count == 0)
        tcase_add_test(tc, golden_cases_missing);
    else
        tcase_add_loop_test(tc, fn, 0, golden_cases.count);
    suite_add_tcase(s, tc);
}

void golden_open(Golden *gc, const char *stage, int i)
{
    memset(gc, 0, sizeof *gc);
    state_init(&gc->sf);
    if (strcmp(golden_cases.stage, stage) != 0)
        golden_list(stage);
    ck_assert_msg(i >= 0 && i < golden_cases.count, "%s: golden case %d does not exist", stage, i);
    snprintf(gc->stage, sizeof gc->stage, "%s", stage);
    snprintf(gc->name, sizeof gc->name, "%s", golden_cases.names[i]);
    snprintf(gc->path, sizeof gc->path, "%s/%s/%s.state", golden_dir(), stage, gc->name);
    char err[512];
    if (state_read(&gc->sf, gc->path, err, sizeof err) != 0)
        ck_abort_msg("%s: cannot read golden case: %s (run `make golden` to remake it)", stage, err);
    uint64_t n = 0;
    const int32_t *dims = state_find(&gc->sf, "dims", STATE_I32, &n);
    ck_assert_msg(dims && n == 3, "%s: section \"dims\" missing or not 3 integers", gc->path);
    const float *dx = golden_f32(gc, "dx", 1);
    ck_assert_msg(grid_init(&gc->g, dims[0], dims[1], dims[2], dx[0]) == 0,
                  "%s: cannot make a %dx%dx%d grid", gc->path, dims[0], dims[1], dims[2]);
    const int8_t *cell = state_find(&gc->sf, "cell", STATE_I8, &n);
    ck_assert_msg(cell && n == grid_cells(&gc->g), "%s: section \"cell\" missing or not %zu cells",
                  gc->path, grid_cells(&gc->g));
    memcpy(gc->g.cell, cell, (size_t)n);
}

void golden_close(Golden *gc)
{
    grid_free(&gc->g);
    state_free(&gc->sf);
}

const float *golden_f32(const Golden *gc, const char *tag, size_t count)
{
    uint64_t n = 0;
    const float *v = state_find(&gc->sf, tag, STATE_F32, &n);
    ck_assert_msg(v != NULL, "%s: section \"%s\" is missing (run `make golden` to remake it)",
                  gc->path, tag);
    ck_assert_msg(n == count, "%s: section \"%s\" has %llu numbers, expected %zu", gc->path, tag,
                  (unsigned long long)n, count);
    return v;
}

float golden_param(const Golden *gc, const char *tag)
{
    return golden_f32(gc, tag, 1)[0];
}

Vec3 golden_vec3(const Golden *gc, const char *tag)
{
    const float *v = golden_f32(gc, tag, 3);
    Vec3 r = { v[0], v[1], v[2] };
    return r;
}

void golden_faces_ref(const Golden *gc, const char *prefix, const char *suffix, const float *out[3])
{
    for (int a = 0; a < 3; a++) {
        char tag[STATE_TAG_LEN];
        snprintf(tag, sizeof tag, "%s%c%s", prefix, grid_component_letter(a), suffix);
        out[a] = golden_f32(gc, tag, grid_faces(&gc->g, a));
    }
}

void golden_faces(const Golden *gc, const char *prefix, const char *suffix, float *dst[3])
{
    const float *src[3];
    golden_faces_ref(gc, prefix, suffix, src);
    for (int a = 0; a < 3; a++)
        memcpy(dst[a], src[a], grid_faces(&gc->g, a) * sizeof(float));
}

size_t golden_particle_count(const Golden *gc, const char *prefix)
{
    char tag[STATE_TAG_LEN];
    snprintf(tag, sizeof tag, "%spos", prefix);
    uint64_t n = 0;
    ck_assert_msg(state_find(&gc->sf, tag, STATE_F32, &n) != NULL && n % 3 == 0,
                  "%s: section \"%s\" missing or not 3 numbers per particle", gc->path, tag);
    return (size_t)(n / 3);
}

void golden_particles(const Golden *gc, const char *prefix, Particles *ps)
{
    size_t n = golden_particle_count(gc, prefix);
    char tag[STATE_TAG_LEN];
    snprintf(tag, sizeof tag, "%spos", prefix);
    const float *pos = golden_f32(gc, tag, 3 * n);
    snprintf(tag, sizeof tag, "%svel", prefix);
    const float *vel = golden_f32(gc, tag, 3 * n);
    ck_assert_int_eq(part_reserve(ps, n), 0);
    ps->count = n;
    memcpy(ps->pos, pos, n * sizeof(Vec3));
    memcpy(ps->vel, vel, n * sizeof(Vec3));
}

void golden_check(const Track *t, const char *stage, int i)
{
    Golden gc;
    golden_open(&gc, stage, i);
    StateFile got;
    state_init(&got);
    static char msg[9216];
    if (stagecase_run(t, stage, &gc.sf, &got, msg, sizeof msg) != 0)
        ck_abort_msg("%s: golden case %s: %s (run `make golden` to remake it)", stage, gc.name, msg);
    size_t differing = stagecase_check(stage, gc.name, &gc.sf, &got, msg, sizeof msg);
    state_free(&got);
    golden_close(&gc);
    ck_assert_msg(differing == 0, "%s", msg);
}
