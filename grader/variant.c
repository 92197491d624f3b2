/* variant.c — drawing a student's variant: grid sizes, particles per cell, seeds and gravity's
 * direction of the hidden cases and graded scenes, within the scene loader's limits.
 * flipkit grader/: deterministic (splitmix64 from FNV-1a of seed, variant and item); no runs here. */
#define _XOPEN_SOURCE 700   /* M_PI */
#include "variant.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"

static uint64_t variant_fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t variant_fnv_str(uint64_t h, const char *s)
{
    return variant_fnv(h, s, strlen(s) + 1);   /* with its NUL: "ab","c" is not "a","bc" */
}

/* splitmix64: one well-mixed number per call from a counter. */
static uint64_t variant_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double variant_unit(uint64_t *state)
{
    return (double)(variant_next(state) >> 11) / 9007199254740992.0;   /* [0, 1) */
}

int variant_index(const GradeConfig *c, const char *student)
{
    char seed[32];
    textf(seed, sizeof seed, "%ld", c->variant_seed);
    uint64_t h = variant_fnv_str(variant_fnv_str(0xcbf29ce484222325ull, "flipkit variant"), seed);
    h = variant_fnv(h, student, strlen(student));
    return (int)(variant_next(&h) % (uint64_t)c->variant_count);
}

/* The draw of one item (a case by its index, a scene by its path) of a variant. */
static uint64_t variant_stream(const GradeConfig *c, int index, const char *item, int attempt)
{
    char head[96];
    textf(head, sizeof head, "%ld/%d/%d", c->variant_seed, index, attempt);
    return variant_fnv_str(variant_fnv_str(0xcbf29ce484222325ull, head), item);
}

/* Gravity turned by a drawn angle of up to max_deg about a drawn axis across it, its length
 * kept: the same pull, a little sideways. A zero gravity stays zero. */
static void variant_tilt(double g[3], double max_deg, uint64_t *st)
{
    double m = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    double t = variant_unit(st) * max_deg * M_PI / 180.0, phi = variant_unit(st) * 2.0 * M_PI;
    if (m == 0.0)
        return;
    double d[3] = { g[0] / m, g[1] / m, g[2] / m };
    double a[3] = { fabs(d[0]) < 0.9 ? 1.0 : 0.0, fabs(d[0]) < 0.9 ? 0.0 : 1.0, 0.0 };
    double e1[3] = { a[1] * d[2] - a[2] * d[1], a[2] * d[0] - a[0] * d[2], a[0] * d[1] - a[1] * d[0] };
    double l = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
    for (int k = 0; k < 3; k++)
        e1[k] /= l;
    double e2[3] = { d[1] * e1[2] - d[2] * e1[1], d[2] * e1[0] - d[0] * e1[2], d[0] * e1[1] - d[1] * e1[0] };
    for (int k = 0; k < 3; k++) {
        double across = cos(phi) * e1[k] + sin(phi) * e2[k];
        g[k] = m * (cos(t) * d[k] + sin(t) * across);
        g[k] = round(g[k] * 1e6) / 1e6;   /* a short, exact decimal in the JSON and --set */
    }
}

/* The drawn grid, particles per cell, seed and gravity of one scene; res and g in, drawn out. */
typedef struct { int res[3]; int ppc; long seed; double g[3]; } VariantDraw;

static void variant_draw_one(const GradeConfig *c, uint64_t *st, const int *ppc, int nppc, VariantDraw *d)
{
    for (int a = 0; a < 3; a++)
        d->res[a] += (int)(variant_next(st) % (uint64_t)(c->variant_grow_cells + 1));
    d->ppc = ppc[variant_next(st) % (uint64_t)nppc];
    d->seed = 1 + (long)(variant_next(st) % 2147483646u);
    variant_tilt(d->g, c->variant_tilt_degrees, st);
}

/* Reads the three numbers of arr (a JSON array) into out; false when it is not that. */
static bool variant_vec(const json_t *arr, double out[3])
{
    if (json_array_size(arr) != 3)
        return false;
    for (int a = 0; a < 3; a++) {
        const json_t *v = json_array_get(arr, (size_t)a);
        if (!json_is_number(v))
            return false;
        out[a] = json_number_value(v);
    }
    return true;
}

/* "ledge_10x7x6" with the drawn grid becomes "ledge_11x7x8"; another name gets it appended. */
static void variant_case_name(const char *base, const int res[3], char *name, size_t n)
{
    size_t len = strlen(base), cut = len;
    while (cut > 0 && (isdigit((unsigned char)base[cut - 1]) || base[cut - 1] == 'x'))
        cut--;
    if (cut == len || cut == 0 || base[cut - 1] != '_')
        cut = len + 1;   /* no size at its end: keep it whole */
    textf(name, n, "%.*s_%dx%dx%d", (int)(cut - 1), base, res[0], res[1], res[2]);
}

char *variant_case(const GradeConfig *c, int index, int i, int attempt, char *name, size_t namelen,
                   char *what, size_t whatlen, char *err, size_t n)
{
    json_error_t jerr;
    json_t *root = json_load_file(c->cases[i], 0, &jerr);
    json_t *res = json_object_get(json_object_get(root, "grid"), "resolution");
    VariantDraw d = { .g = { 0.0, -9.81, 0.0 } };   /* the scene loader's default gravity */
    double r[3];
    const char *base = json_string_value(json_object_get(root, "name"));
    if (!root || !base || !variant_vec(res, r) || (json_object_get(root, "gravity") &&
                                                   !variant_vec(json_object_get(root, "gravity"), d.g))) {
        textf(err, n, "%s: %s", c->cases[i], root ? "expected a name, grid.resolution and gravity of 3 numbers"
                                                  : jerr.text);
        json_decref(root);
        return NULL;
    }
    for (int a = 0; a < 3; a++)
        d.res[a] = (int)r[a];
    uint64_t st = variant_stream(c, index, c->cases[i], attempt);
    variant_draw_one(c, &st, c->case_ppc, c->ncase_ppc, &d);
    variant_case_name(base, d.res, name, namelen);
    json_t *gravity = json_pack("[fff]", d.g[0], d.g[1], d.g[2]);
    json_array_set_new(res, 0, json_integer(d.res[0]));
    json_array_set_new(res, 1, json_integer(d.res[1]));
    json_array_set_new(res, 2, json_integer(d.res[2]));
    json_object_set_new(root, "gravity", gravity);
    json_object_set_new(root, "particles_per_cell", json_integer(d.ppc));
    json_object_set_new(root, "seed", json_integer(d.seed));
    json_object_set_new(root, "name", json_string(name));
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(9));
    json_decref(root);
    if (!text)
        textf(err, n, "%s: out of memory", c->cases[i]);
    textf(what, whatlen, "%s (%d per cell, seed %ld, gravity %g,%g,%g)", name, d.ppc, d.seed, d.g[0],
          d.g[1], d.g[2]);
    return text;
}

/* Scene sc's draw as --set overrides appended to it, and in words. */
static int variant_scene(const char *kit, const GradeConfig *c, int index, GradeScene *sc, char *words,
                         size_t wn, char *err, size_t n)
{
    static GradeRun run;
    if (gradeconfig_run(kit, sc, c->solvers[0], &run, err, n) != 0)
        return -1;
    char *json = gradeconfig_run_json(&run, sc, c->solvers[0], err, n);
    json_t *root = json ? json_loads(json, 0, NULL) : NULL;
    free(json);
    VariantDraw d = { { run.n[0], run.n[1], run.n[2] }, 0, 0, { 0, 0, 0 } };
    bool ok = root && variant_vec(json_object_get(root, "gravity"), d.g);
    json_decref(root);
    if (!ok || sc->nset + 4 > GC_MAX_SET) {
        textf(err, n, "%s: %s", sc->scene, ok ? "too many set overrides for a variant's four more"
                                              : "its effective scene has no gravity");
        return -1;
    }
    uint64_t st = variant_stream(c, index, sc->scene, 0);
    variant_draw_one(c, &st, c->scene_ppc, c->nscene_ppc, &d);
    textf(sc->set[sc->nset++], sizeof sc->set[0], "grid.resolution=[%d,%d,%d]", d.res[0], d.res[1], d.res[2]);
    textf(sc->set[sc->nset++], sizeof sc->set[0], "particles_per_cell=%d", d.ppc);
    textf(sc->set[sc->nset++], sizeof sc->set[0], "seed=%ld", d.seed);
    textf(sc->set[sc->nset++], sizeof sc->set[0], "gravity=[%.9g,%.9g,%.9g]", d.g[0], d.g[1], d.g[2]);
    const char *slash = strrchr(sc->scene, '/'), *base = slash ? slash + 1 : sc->scene;
    const char *dot = strrchr(base, '.');
    textf(words, wn, "%.*s %dx%dx%d (%d per cell, seed %ld, gravity %g,%g,%g)",
          (int)(dot ? (size_t)(dot - base) : strlen(base)), base,
          d.res[0], d.res[1], d.res[2], d.ppc, d.seed, d.g[0], d.g[1], d.g[2]);
    /* the drawn scene must load: a draw outside the loader's limits is the config's error */
    return gradeconfig_run(kit, sc, c->solvers[0], &run, err, n);
}

int variant_draw(const char *kit, const GradeConfig *c, int index, Variant *v, char *err, size_t n)
{
    v->cfg = *c;
    v->index = index;
    char params[256];
    textf(params, sizeof params, "seed %ld index %d count %ld grow %ld tilt %.17g ppc %d %d %d %d / %d %d %d %d "
          "frames %d", c->variant_seed, index, c->variant_count, c->variant_grow_cells,
          c->variant_tilt_degrees, c->case_ppc[0], c->case_ppc[1], c->case_ppc[2], c->case_ppc[3],
          c->scene_ppc[0], c->scene_ppc[1], c->scene_ppc[2], c->scene_ppc[3], c->variant_keep_frames);
    uint64_t h = variant_fnv_str(0xcbf29ce484222325ull, params);
    textf(v->drawn, sizeof v->drawn, "variant %d of %ld (seed %ld); scenes:", index, c->variant_count,
          c->variant_seed);
    for (int i = 0; i < c->nscenes; i++) {
        char words[256];
        if (variant_scene(kit, c, index, &v->cfg.scenes[i], words, sizeof words, err, n) != 0)
            return -1;
        textf(v->drawn + strlen(v->drawn), sizeof v->drawn - strlen(v->drawn), "%s %s", i ? "," : "", words);
        h = variant_fnv_str(h, v->cfg.scenes[i].scene);
        for (int k = 0; k < v->cfg.scenes[i].nset; k++)
            h = variant_fnv_str(h, v->cfg.scenes[i].set[k]);
    }
    for (int i = 0; i < c->ncases; i++) {
        char name[128], what[256];
        char *text = variant_case(c, index, i, 0, name, sizeof name, what, sizeof what, err, n);
        if (!text)
            return -1;
        h = variant_fnv_str(h, text);
        free(text);
    }
    textf(v->key, sizeof v->key, "%016llx", (unsigned long long)h);
    return 0;
}
