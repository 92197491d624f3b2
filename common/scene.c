/* scene.c — the scene loader: strict JSON (jansson) to a validated Scene, with --set overrides.
 * flipkit common/: every error is one line "file: json.path: expected X, got Y". Defaults are
 * merged into the tree, so Scene.json states every setting and reloads to the same Scene. */
#include "scene.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#if defined(__GNUC__)
#define SCENE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SCENE_PRINTF(f, a)
#endif

/* The defaults, as JSON. They are merged into every scene before validation (missing keys
 * only) and printed by scene_print_schema, so the loader, --help and Scene.json agree. */
static const char scene_defaults_json[] =
    "{\"description\": \"\", \"gravity\": [0, -9.81, 0], \"density\": 1.0,"
    " \"frame_rate\": 30, \"frames\": 30, \"cfl\": 1.0, \"pic_flip_alpha\": 0.05,"
    " \"particles_per_cell\": 8, \"seed\": 1,"
    " \"pressure\": {\"solver\": \"jacobi\", \"iterations\": 1000, \"tolerance\": 1e-6,"
    "                \"jacobi_omega\": 1.0, \"sor_omega\": 1.7},"
    " \"use_gauss_seidel\": false, \"fluid\": [], \"solids\": [], \"events\": [],"
    " \"output\": {\"particles\": true, \"surface\": false, \"usd\": false,"
    "            \"preview\": false, \"bricks\": false, \"brick_cells\": [2, 2.4, 2],"
    "            \"diffuse\": false, \"diffuse_max\": 1000000, \"surface_anisotropic\": false,"
    "            \"surface_refine\": 1}}";

/* Keys added after the grader's data was recorded, left out of Scene.json while they hold
 * their default: a scene that does not set them keeps the bytes it had (the grader's frames
 * keep their scene.json, checkpoints their scene), and reloads to the same Scene because the
 * default is merged in again. scene_value_text reads their default from the defaults. */
static const char *const scene_quiet_keys[][2] = { {"output", "surface_refine"} };

/* The known keys of every kind of object; anything else is an error with a suggestion. */
static const char *const top_keys[] = {
    "name", "description", "grid", "gravity", "density", "frame_rate", "frames", "cfl",
    "pic_flip_alpha", "particles_per_cell", "seed", "pressure", "use_gauss_seidel",
    "fluid", "solids", "events", "output", "production", NULL};
static const char *const grid_keys[] = {"resolution", "cell_size", NULL};
static const char *const pressure_keys[] = {
    "solver", "iterations", "tolerance", "jacobi_omega", "sor_omega", NULL};
static const char *const output_keys[] = {"particles", "surface", "usd", "preview", "bricks",
                                          "brick_cells", "diffuse", "diffuse_max",
                                          "surface_anisotropic", "surface_refine", NULL};
static const char *const production_keys[] = {"integrator", "cfl", NULL};
static const char *const production_integrators[] = {"none", "rk2", "rk3", NULL};
static const char *const shape_keys[] = {"box", "sphere", "velocity", NULL};
static const char *const box_keys[] = {"min", "max", NULL};
static const char *const sphere_keys[] = {"center", "radius", NULL};
static const char *const event_keys[] = {"frame", "fluid", NULL};
const char *const scene_solver_names[] = {"jacobi", "gauss_seidel", "sor", "pcg", "multigrid",
                                          "mgpcg", NULL};

/* The named levels, so a key put at the wrong level can say where it belongs. */
typedef struct { const char *name; const char *const *keys; } KeyLevel;
static const KeyLevel scene_levels[] = {
    {"", top_keys}, {"grid", grid_keys}, {"pressure", pressure_keys}, {"output", output_keys},
    {"production", production_keys}};
enum { SCENE_NLEVELS = sizeof scene_levels / sizeof scene_levels[0] };

enum { SCENE_PATH_MAX = 512, SCENE_NAME_MAX = 255 };
#define SCENE_FILE_MAX (16u << 20)

/* A closed or open interval; +-INFINITY means unbounded on that side. */
typedef struct { double lo, hi; bool lo_open, hi_open; } Range;
static const Range ANY_NUMBER = {-INFINITY, INFINITY, false, false};
static const Range POSITIVE = {0, INFINITY, true, false};

/* Where the loader is: the origin for messages, the JSON path of the value being read and
 * the overrides (to say when a bad value came from --set rather than the file). */
typedef struct {
    const char *origin;
    char *err;
    size_t errlen;
    char path[SCENE_PATH_MAX];
    size_t pathlen;
    const char *const *overrides;
    int noverrides;
    bool blame_deeper;  /* the error is about the whole value: a --set inside it is to blame */
    double domain[3];   /* resolution * cell_size, once the grid is read */
} Ctx;

/* ---- messages ---------------------------------------------------------------------------- */

/* Messages are one line whatever the input holds (keys and paths come from the file). */
static void scene_one_line(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

SCENE_PRINTF(3, 4)
static void scene_error(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    scene_one_line(err);
}

/* The override's key path in the loader's path notation: fluid.0.box -> fluid[0].box. */
static void scene_override_path(const char *ov, char *out, size_t n)
{
    size_t klen = strcspn(ov, "="), len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < klen && len < n; i++) {
        size_t clen = strcspn(ov + i, ".=");
        bool index = clen > 0 && strspn(ov + i, "0123456789") >= clen;
        if (index)
            len += (size_t)snprintf(out + len, n - len, "[%.*s]", (int)clen, ov + i);
        else
            len += (size_t)snprintf(out + len, n - len, "%s%.*s", len ? "." : "", (int)clen,
                                    ov + i);
        i += clen;
    }
}

/* Whether path a is b or lies inside it: "fluid[0].box" is inside "fluid". */
static bool scene_path_within(const char *a, const char *b)
{
    size_t n = strlen(b);
    return n && strncmp(a, b, n) == 0 && (a[n] == '\0' || a[n] == '.' || a[n] == '[');
}

/* The last --set that wrote the value at the error's path (or, for an unknown key, created
 * it by writing below it), or NULL when the value came from the file. */
static const char *scene_blame(const Ctx *c)
{
    for (int i = c->noverrides - 1; i >= 0; i--) {
        char p[SCENE_PATH_MAX];
        scene_override_path(c->overrides[i], p, sizeof p);
        if (scene_path_within(c->path, p) || (c->blame_deeper && scene_path_within(p, c->path)))
            return c->overrides[i];
    }
    return NULL;
}

/* Reports msg at the current path; always returns -1 so callers can "return scene_fail(...)". */
SCENE_PRINTF(2, 3)
static int scene_fail(Ctx *c, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *by = scene_blame(c);
    scene_error(c->err, c->errlen, "%s: %s%s%s%s%s%s", c->origin, c->path, c->path[0] ? ": " : "",
                msg, by ? " (set by --set " : "", by ? by : "", by ? ")" : "");
    return -1;
}

/* The shortest text that reads back as d. */
static void scene_real_text(double d, char *buf, size_t n)
{
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, n, "%.*g", p, d);
        if (strtod(buf, NULL) == d)
            break;
    }
}

static const char *scene_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE: case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

/* A string value quoted and cut short: messages should show it, not reprint a paragraph. */
static void scene_quote(const char *s, char *buf, size_t n)
{
    size_t len = strlen(s), keep = len > 40 ? 40 : len;
    while (keep < len && keep > 0 && ((unsigned char)s[keep] & 0xC0) == 0x80)
        keep--;   /* do not cut a UTF-8 sequence in two */
    snprintf(buf, n, "\"%.*s%s\"", (int)keep, s, keep < len ? "..." : "");
}

static void scene_scalar_text(const json_t *v, char *buf, size_t n)
{
    switch (json_typeof(v)) {
    case JSON_STRING: scene_quote(json_string_value(v), buf, n); break;
    case JSON_INTEGER: snprintf(buf, n, "%" JSON_INTEGER_FORMAT, json_integer_value(v)); break;
    case JSON_REAL:   /* "got 8.0", so a real where an integer belongs does not read as 8 */
        scene_real_text(json_real_value(v), buf, n);
        if (!strpbrk(buf, ".eEni") && strlen(buf) + 2 < n)
            strcat(buf, ".0");
        break;
    case JSON_TRUE: snprintf(buf, n, "true"); break;
    case JSON_FALSE: snprintf(buf, n, "false"); break;
    case JSON_NULL: snprintf(buf, n, "null"); break;
    default: snprintf(buf, n, "%s", scene_type_name(v)); break;
    }
}

/* What a value is, for "got ...": scalars and short arrays of scalars as written. */
static const char *scene_describe(const json_t *v, char *buf, size_t n)
{
    if (json_is_object(v))
        return "an object";
    if (!json_is_array(v)) {
        scene_scalar_text(v, buf, n);
        return buf;
    }
    size_t count = json_array_size(v);
    bool inline_ok = count <= 4;
    for (size_t i = 0; i < count && inline_ok; i++)
        inline_ok = !json_is_object(json_array_get(v, i)) && !json_is_array(json_array_get(v, i));
    if (!inline_ok) {
        snprintf(buf, n, "an array of %zu element%s", count, count == 1 ? "" : "s");
        return buf;
    }
    size_t len = (size_t)snprintf(buf, n, "[");
    for (size_t i = 0; i < count && len < n; i++) {
        char item[64];
        scene_scalar_text(json_array_get(v, i), item, sizeof item);
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", item);
    }
    if (len < n)
        snprintf(buf + len, n - len, "]");
    return buf;
}

static int scene_wrong(Ctx *c, const char *expected, const json_t *v)
{
    char got[256];
    return scene_fail(c, "expected %s, got %s", expected, scene_describe(v, got, sizeof got));
}

/* ---- the JSON path ----------------------------------------------------------------------- */

/* Appends to the path and returns the old length, to hand back to scene_path_pop. A path
 * too long for the buffer is cut short; the message stays one line either way. */
SCENE_PRINTF(2, 3)
static size_t scene_path_add(Ctx *c, const char *fmt, ...)
{
    size_t mark = c->pathlen;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(c->path + mark, sizeof c->path - mark, fmt, ap);
    va_end(ap);
    if (w > 0)
        c->pathlen = mark + (size_t)w >= sizeof c->path ? sizeof c->path - 1 : mark + (size_t)w;
    return mark;
}

static size_t scene_path_key(Ctx *c, const char *key)
{
    return c->pathlen ? scene_path_add(c, ".%s", key) : scene_path_add(c, "%s", key);
}

static size_t scene_path_index(Ctx *c, size_t i)
{
    return scene_path_add(c, "[%zu]", i);
}

static void scene_path_pop(Ctx *c, size_t mark)
{
    c->pathlen = mark;
    c->path[mark] = '\0';
}

/* ---- unknown keys and suggestions -------------------------------------------------------- */

/* Levenshtein distance, case-insensitive; SIZE_MAX for strings too long to be typos of a key. */
static size_t scene_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), row[64];
    if (la >= 64 || lb >= 64)
        return SIZE_MAX;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            bool same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
            size_t best = diag + !same;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static bool scene_in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (strcmp(*list, s) == 0)
            return true;
    return false;
}

/* The known word that word is most likely a typo of: close in edit distance (a third of its
 * length), or the only one it abbreviates ("desc" -> "description"). NULL if none is. */
static const char *scene_closest(const char *const *list, const char *word)
{
    const char *best = NULL, *prefix = NULL;
    size_t best_d = SIZE_MAX, nprefix = 0, wlen = strlen(word);
    for (; *list; list++) {
        size_t d = scene_distance(word, *list), limit = strlen(*list) / 3;
        if (d <= (limit > 1 ? limit : 1) && d < best_d) {
            best = *list;
            best_d = d;
        }
        if (wlen >= 3 && strncasecmp(*list, word, wlen) == 0) {
            prefix = *list;
            nprefix++;
        }
    }
    return best ? best : nprefix == 1 ? prefix : NULL;
}

/* "; did you mean ..." for an unknown key, or where it belongs, or the keys allowed here. */
static void scene_key_hint(const char *const *keys, const char *level, const char *key,
                           char *hint, size_t n)
{
    const char *near = scene_closest(keys, key);
    if (near) {
        snprintf(hint, n, "; did you mean \"%s\"?", near);
        return;
    }
    for (int i = 0; level && i < SCENE_NLEVELS; i++) {
        const KeyLevel *l = &scene_levels[i];
        if (strcmp(l->name, level) == 0 || !scene_in_list(l->keys, key))
            continue;
        if (!level[0])
            snprintf(hint, n, "; did you mean \"%s.%s\"?", l->name, key);
        else if (!l->name[0])
            snprintf(hint, n, "; \"%s\" belongs at the top level", key);
        else
            snprintf(hint, n, "; \"%s\" belongs in \"%s\"", key, l->name);
        return;
    }
    size_t len = (size_t)snprintf(hint, n, " (known keys here: ");
    for (const char *const *k = keys; *k && len < n; k++)
        len += (size_t)snprintf(hint + len, n - len, "%s%s", k == keys ? "" : ", ", *k);
    if (len < n)
        snprintf(hint + len, n - len, ")");
}

/* level names the object for "belongs in" hints: "" is the top level, NULL is a shape/event. */
static int scene_check_keys(Ctx *c, json_t *obj, const char *const *keys, const char *level)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        if (scene_in_list(keys, key))
            continue;
        char hint[320];
        scene_key_hint(keys, level, key, hint, sizeof hint);
        scene_path_key(c, key);
        c->blame_deeper = true;
        return scene_fail(c, "unknown key%s", hint);
    }
    return 0;
}

/* ---- typed values ------------------------------------------------------------------------ */

/* "> 0", "<= 10": the bounds are all short round numbers, so %g prints them as written. */
static void scene_bound_text(double b, bool open, const char *op, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s %g", op, open ? "" : "=", b);
}

/* "a number > 0 and <= 10", "a number from 0 to 1", "a number". */
static const char *scene_range_text(Range r, char *buf, size_t n)
{
    char lo[24], hi[24];
    bool has_lo = isfinite(r.lo), has_hi = isfinite(r.hi);
    scene_bound_text(r.lo, r.lo_open, ">", lo, sizeof lo);
    scene_bound_text(r.hi, r.hi_open, "<", hi, sizeof hi);
    if (has_lo && has_hi && !r.lo_open && !r.hi_open)
        snprintf(buf, n, "a number from %g to %g", r.lo, r.hi);
    else if (has_lo && has_hi)
        snprintf(buf, n, "a number %s and %s", lo, hi);
    else if (has_lo || has_hi)
        snprintf(buf, n, "a number %s", has_lo ? lo : hi);
    else
        snprintf(buf, n, "a number");
    return buf;
}

static int scene_number(Ctx *c, const json_t *v, Range r, double *out)
{
    char what[96], bound[24];
    if (!json_is_number(v))
        return scene_wrong(c, scene_range_text(r, what, sizeof what), v);
    double d = json_number_value(v);
    if (d < r.lo || (r.lo_open && d == r.lo)) {
        scene_bound_text(r.lo, r.lo_open, ">", bound, sizeof bound);
        snprintf(what, sizeof what, "a number %s", bound);
        return scene_wrong(c, what, v);
    }
    if (d > r.hi || (r.hi_open && d == r.hi)) {
        scene_bound_text(r.hi, r.hi_open, "<", bound, sizeof bound);
        snprintf(what, sizeof what, "a number %s", bound);
        return scene_wrong(c, what, v);
    }
    *out = d;
    return 0;
}

/* Stage data is float32: a value float cannot hold (or that a positive bound would see
 * rounded to 0) is an error here rather than an inf or a division by zero later. */
static int scene_float(Ctx *c, const json_t *v, Range r, float *out, double *exact)
{
    double d = 0;
    if (scene_number(c, v, r, &d))
        return -1;
    if (fabs(d) > FLT_MAX || (r.lo_open && r.lo == 0 && (float)d == 0.0f)) {
        char what[96], got[64];
        scene_real_text(d, got, sizeof got);
        return scene_fail(c, "expected %s, got %s, which a float cannot hold",
                          scene_range_text(r, what, sizeof what), got);
    }
    *out = (float)d;
    if (exact)
        *exact = d;
    return 0;
}

/* hi == INT_MAX means "no bound but the type's", and is left out of the description. */
static int scene_integer(Ctx *c, const json_t *v, long long lo, long long hi, long long *out)
{
    char what[96];
    if (hi == INT_MAX)
        snprintf(what, sizeof what, "an integer >= %lld", lo);
    else
        snprintf(what, sizeof what, "an integer from %lld to %lld", lo, hi);
    if (!json_is_integer(v))
        return scene_wrong(c, what, v);
    long long x = json_integer_value(v);
    if (x < lo || x > hi) {
        if (x < lo)
            snprintf(what, sizeof what, "an integer >= %lld", lo);
        else
            snprintf(what, sizeof what, "an integer <= %lld", hi);
        return scene_wrong(c, what, v);
    }
    *out = x;
    return 0;
}

static int scene_int(Ctx *c, const json_t *v, int lo, int hi, int *out)
{
    long long x;
    if (scene_integer(c, v, lo, hi, &x))
        return -1;
    *out = (int)x;
    return 0;
}

static int scene_vec3(Ctx *c, const json_t *v, Vec3 *out, double exact[3])
{
    float f[3];
    if (!json_is_array(v) || json_array_size(v) != 3)
        return scene_wrong(c, "an array of 3 numbers", v);
    for (size_t i = 0; i < 3; i++) {
        size_t mark = scene_path_index(c, i);
        if (scene_float(c, json_array_get(v, i), ANY_NUMBER, &f[i], exact ? &exact[i] : NULL))
            return -1;
        scene_path_pop(c, mark);
    }
    *out = (Vec3){f[0], f[1], f[2]};
    return 0;
}

static int scene_string(Ctx *c, const json_t *v, char **out)
{
    if (!json_is_string(v))
        return scene_wrong(c, "a string", v);
    *out = strdup(json_string_value(v));
    return *out ? 0 : scene_fail(c, "out of memory");
}

/* The name becomes a directory (out/<name>/): no '/', no "..", nothing a shell would mangle. */
static int scene_name(Ctx *c, const json_t *v, char **out)
{
    static const char allowed[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";
    const char *what = "a name of letters, digits, '_' and '-' (it names the output directory)";
    if (!json_is_string(v))
        return scene_wrong(c, what, v);
    size_t len = json_string_length(v);
    if (len == 0 || len > SCENE_NAME_MAX || strspn(json_string_value(v), allowed) != len)
        return scene_wrong(c, what, v);
    return scene_string(c, v, out);
}

/* ---- keys of an object ------------------------------------------------------------------- */

/* obj[key] with the path stepped into it (the caller steps out with scene_path_pop). The
 * defaults are merged in before validation, so only a required key can be missing here. */
static json_t *scene_enter(Ctx *c, json_t *obj, const char *key, size_t *mark)
{
    json_t *v = json_object_get(obj, key);
    if (!v) {
        scene_fail(c, "missing required key \"%s\"", key);
        return NULL;
    }
    *mark = scene_path_key(c, key);
    return v;
}

static int scene_get_float(Ctx *c, json_t *obj, const char *key, Range r, float *out, double *exact)
{
    size_t mark;
    json_t *v = scene_enter(c, obj, key, &mark);
    if (!v || scene_float(c, v, r, out, exact))
        return -1;
    scene_path_pop(c, mark);
    return 0;
}

static int scene_get_double(Ctx *c, json_t *obj, const char *key, Range r, double *out)
{
    size_t mark;
    json_t *v = scene_enter(c, obj, key, &mark);
    if (!v || scene_number(c, v, r, out))
        return -1;
    scene_path_pop(c, mark);
    return 0;
}

static int scene_get_int(Ctx *c, json_t *obj, const char *key, int lo, int hi, int *out)
{
    size_t mark;
    json_t *v = scene_enter(c, obj, key, &mark);
    if (!v || scene_int(c, v, lo, hi, out))
        return -1;
    scene_path_pop(c, mark);
    return 0;
}

static int scene_get_bool(Ctx *c, json_t *obj, const char *key, bool *out)
{
    size_t mark;
    json_t *v = scene_enter(c, obj, key, &mark);
    if (!v)
        return -1;
    if (!json_is_boolean(v))
        return scene_wrong(c, "true or false", v);
    *out = json_is_true(v);
    scene_path_pop(c, mark);
    return 0;
}

static int scene_get_vec3(Ctx *c, json_t *obj, const char *key, Vec3 *out, double exact[3])
{
    size_t mark;
    json_t *v = scene_enter(c, obj, key, &mark);
    if (!v || scene_vec3(c, v, out, exact))
        return -1;
    scene_path_pop(c, mark);
    return 0;
}

/* An object value with only known keys, with the path stepped into it. */
static json_t *scene_get_object(Ctx *c, json_t *obj, const char *key, const char *const *keys,
                                size_t *mark)
{
    json_t *v = scene_enter(c, obj, key, mark);
    if (!v)
        return NULL;
    if (!json_is_object(v)) {
        scene_wrong(c, "an object", v);
        return NULL;
    }
    return scene_check_keys(c, v, keys, key) ? NULL : v;
}

/* ---- shapes and events ------------------------------------------------------------------- */

/* Shapes must lie inside the domain. A bound past it by less than a millionth of the domain
 * is float rounding of a shape meant to touch the wall, not a mistake, so it passes. */
static int scene_inside(Ctx *c, ShapeKind kind, const double lo[3], const double hi[3])
{
    const double *L = c->domain;
    for (int a = 0; a < 3; a++) {
        double tol = 1e-6 * L[a];
        bool below = lo[a] < -tol;
        if (!below && hi[a] <= L[a] + tol)
            continue;
        char what[40], got[40];
        if (kind == SHAPE_BOX)
            snprintf(what, sizeof what, "%s[%d]", below ? "min" : "max", a);
        else
            snprintf(what, sizeof what, "center[%d] %c radius", a, below ? '-' : '+');
        snprintf(got, sizeof got, "%.9g", below ? lo[a] : hi[a]);   /* -0.05, not -0.0499..9 */
        c->blame_deeper = true;   /* e.g. --set fluid.0.sphere.radius=9 */
        return scene_fail(c, "%s extends outside the domain [0, %g] x [0, %g] x [0, %g] (%s is %s)",
                          kind == SHAPE_BOX ? "box" : "sphere", L[0], L[1], L[2], what, got);
    }
    return 0;
}

static int scene_box(Ctx *c, json_t *v, Shape *s)
{
    double lo[3], hi[3];
    if (!json_is_object(v))
        return scene_wrong(c, "an object {\"min\": [x, y, z], \"max\": [x, y, z]}", v);
    if (scene_check_keys(c, v, box_keys, NULL) || scene_get_vec3(c, v, "min", &s->min, lo) ||
        scene_get_vec3(c, v, "max", &s->max, hi))
        return -1;
    for (int a = 0; a < 3; a++)
        if (!(vec3_get(s->min, a) < vec3_get(s->max, a))) {
            char l[40], h[40];
            scene_real_text(lo[a], l, sizeof l);
            scene_real_text(hi[a], h, sizeof h);
            c->blame_deeper = true;
            return scene_fail(c, "expected min < max on every axis, got min[%d] = %s and "
                              "max[%d] = %s", a, l, a, h);
        }
    return scene_inside(c, SHAPE_BOX, lo, hi);
}

static int scene_sphere(Ctx *c, json_t *v, Shape *s)
{
    double ctr[3], r, lo[3], hi[3];
    if (!json_is_object(v))
        return scene_wrong(c, "an object {\"center\": [x, y, z], \"radius\": r}", v);
    if (scene_check_keys(c, v, sphere_keys, NULL) ||
        scene_get_vec3(c, v, "center", &s->center, ctr) ||
        scene_get_float(c, v, "radius", POSITIVE, &s->radius, &r))
        return -1;
    for (int a = 0; a < 3; a++) {
        lo[a] = ctr[a] - r;
        hi[a] = ctr[a] + r;
    }
    s->min = (Vec3){s->center.x - s->radius, s->center.y - s->radius, s->center.z - s->radius};
    s->max = (Vec3){s->center.x + s->radius, s->center.y + s->radius, s->center.z + s->radius};
    return scene_inside(c, SHAPE_SPHERE, lo, hi);
}

static int scene_shape(Ctx *c, json_t *v, Shape *s)
{
    if (!json_is_object(v))
        return scene_wrong(c, "a shape {\"box\": {...}} or {\"sphere\": {...}}", v);
    if (scene_check_keys(c, v, shape_keys, NULL))
        return -1;
    json_t *box = json_object_get(v, "box"), *sphere = json_object_get(v, "sphere");
    if (box && sphere)
        return scene_fail(c, "has both \"box\" and \"sphere\"; a shape is one or the other");
    if (!box && !sphere)
        return scene_fail(c, "expected \"box\" or \"sphere\" in a shape, got neither");
    s->kind = box ? SHAPE_BOX : SHAPE_SPHERE;
    size_t mark = scene_path_key(c, box ? "box" : "sphere");
    if (box ? scene_box(c, box, s) : scene_sphere(c, sphere, s))
        return -1;
    scene_path_pop(c, mark);
    s->velocity = (Vec3){0, 0, 0};
    if (!json_object_get(v, "velocity"))
        return 0;
    return scene_get_vec3(c, v, "velocity", &s->velocity, NULL);
}

/* Allocates n zeroed elements; the count is stored first so scene_free can clean up after a
 * failure part way through filling them. */
static void *scene_alloc(Ctx *c, const json_t *arr, size_t size, int *count)
{
    size_t n = json_array_size(arr);
    if (n == 0)
        return NULL;
    void *p = n <= INT_MAX ? calloc(n, size) : NULL;
    if (!p)
        scene_fail(c, "out of memory");
    else
        *count = (int)n;
    return p;
}

static int scene_shapes(Ctx *c, const json_t *arr, Shape **out, int *n)
{
    if (!json_is_array(arr))
        return scene_wrong(c, "an array of shapes", arr);
    *out = scene_alloc(c, arr, sizeof **out, n);
    if (!*out)
        return json_array_size(arr) ? -1 : 0;
    for (size_t i = 0; i < (size_t)*n; i++) {
        size_t mark = scene_path_index(c, i);
        if (scene_shape(c, json_array_get(arr, i), &(*out)[i]))
            return -1;
        scene_path_pop(c, mark);
    }
    return 0;
}

static int scene_get_shapes(Ctx *c, json_t *obj, const char *key, Shape **out, int *n)
{
    size_t mark;
    json_t *v = scene_enter(c, obj, key, &mark);
    if (!v || scene_shapes(c, v, out, n))
        return -1;
    scene_path_pop(c, mark);
    return 0;
}

static int scene_event(Ctx *c, json_t *v, SceneEvent *e)
{
    if (!json_is_object(v))
        return scene_wrong(c, "an event {\"frame\": n, \"fluid\": [shapes]}", v);
    return scene_check_keys(c, v, event_keys, NULL) ||
           scene_get_int(c, v, "frame", 0, INT_MAX, &e->frame) ||
           scene_get_shapes(c, v, "fluid", &e->fluid, &e->nfluid) ? -1 : 0;
}

static int scene_events(Ctx *c, json_t *root, Scene *s)
{
    size_t mark;
    json_t *arr = scene_enter(c, root, "events", &mark);
    if (!arr)
        return -1;
    if (!json_is_array(arr))
        return scene_wrong(c, "an array of events", arr);
    s->events = scene_alloc(c, arr, sizeof *s->events, &s->nevents);
    if (!s->events && json_array_size(arr))
        return -1;
    for (size_t i = 0; i < (size_t)s->nevents; i++) {
        size_t m = scene_path_index(c, i);
        if (scene_event(c, json_array_get(arr, i), &s->events[i]))
            return -1;
        scene_path_pop(c, m);
    }
    scene_path_pop(c, mark);
    return 0;
}

/* ---- the sections of a scene ------------------------------------------------------------- */

static int scene_grid(Ctx *c, json_t *root, Scene *s)
{
    size_t mark, m;
    double dx;
    json_t *grid = scene_get_object(c, root, "grid", grid_keys, &mark);
    if (!grid)
        return -1;
    json_t *res = scene_enter(c, grid, "resolution", &m);
    if (!res)
        return -1;
    if (!json_is_array(res) || json_array_size(res) != 3)
        return scene_wrong(c, "an array of 3 integers", res);
    for (size_t a = 0; a < 3; a++) {
        size_t mi = scene_path_index(c, a);
        if (scene_int(c, json_array_get(res, a), 3, 1024, &s->resolution[a]))
            return -1;
        scene_path_pop(c, mi);
    }
    scene_path_pop(c, m);
    if (scene_get_float(c, grid, "cell_size", POSITIVE, &s->cell_size, &dx))
        return -1;
    for (int a = 0; a < 3; a++)
        c->domain[a] = s->resolution[a] * dx;
    scene_path_pop(c, mark);
    return 0;
}

/* particles_per_cell is n^3: the seeder lays n particles along each axis of a cell. */
static int scene_particles_per_cell(Ctx *c, json_t *root, Scene *s)
{
    size_t mark;
    long long x;
    json_t *v = scene_enter(c, root, "particles_per_cell", &mark);
    if (!v)
        return -1;
    if (!json_is_integer(v) || ((x = json_integer_value(v)) != 1 && x != 8 && x != 27 && x != 64))
        return scene_wrong(c, "one of 1, 8, 27, 64 (a cube: n per axis)", v);
    s->particles_per_cell = (int)x;
    scene_path_pop(c, mark);
    return 0;
}

static int scene_seed(Ctx *c, json_t *root, Scene *s)
{
    size_t mark;
    long long x;
    json_t *v = scene_enter(c, root, "seed", &mark);
    if (!v || scene_integer(c, v, 0, UINT32_MAX, &x))
        return -1;
    s->seed = (uint32_t)x;
    scene_path_pop(c, mark);
    return 0;
}

static int scene_solver(Ctx *c, json_t *pressure, PressureSettings *ps)
{
    size_t mark;
    json_t *v = scene_enter(c, pressure, "solver", &mark);
    if (!v)
        return -1;
    const char *name = json_is_string(v) ? json_string_value(v) : NULL;
    if (!name || !scene_in_list(scene_solver_names, name)) {
        const char *near = name ? scene_closest(scene_solver_names, name) : NULL;
        char got[256];
        return scene_fail(c, "expected one of \"jacobi\", \"gauss_seidel\", \"sor\", \"pcg\", "
                          "\"multigrid\", \"mgpcg\", got %s%s%s%s",
                          scene_describe(v, got, sizeof got), near ? "; did you mean \"" : "",
                          near ? near : "", near ? "\"?" : "");
    }
    snprintf(ps->solver, sizeof ps->solver, "%s", name);
    scene_path_pop(c, mark);
    return 0;
}

static int scene_pressure(Ctx *c, json_t *root, PressureSettings *ps)
{
    static const Range tolerance = {0, 1, true, true}, jacobi = {0, 1, true, false},
                       sor = {0, 2, true, true};
    size_t mark;
    json_t *p = scene_get_object(c, root, "pressure", pressure_keys, &mark);
    if (!p || scene_solver(c, p, ps) ||
        scene_get_int(c, p, "iterations", 1, INT_MAX, &ps->iterations) ||
        scene_get_double(c, p, "tolerance", tolerance, &ps->tolerance) ||
        scene_get_float(c, p, "jacobi_omega", jacobi, &ps->jacobi_omega, NULL) ||
        scene_get_float(c, p, "sor_omega", sor, &ps->sor_omega, NULL))
        return -1;
    scene_path_pop(c, mark);
    return 0;
}

static int scene_physics(Ctx *c, json_t *root, Scene *s)
{
    static const Range cfl = {0, 10, true, false}, alpha = {0, 1, false, false};
    return scene_get_vec3(c, root, "gravity", &s->gravity, NULL) ||
           scene_get_float(c, root, "density", POSITIVE, &s->density, NULL) ||
           scene_get_double(c, root, "frame_rate", POSITIVE, &s->frame_rate) ||
           scene_get_int(c, root, "frames", 0, 999999, &s->frames) /* six-digit frame files */ ||
           scene_get_float(c, root, "cfl", cfl, &s->cfl, NULL) ||
           scene_get_float(c, root, "pic_flip_alpha", alpha, &s->pic_flip_alpha, NULL) ||
           scene_particles_per_cell(c, root, s) || scene_seed(c, root, s) ? -1 : 0;
}

/* The optional "production" group. It is not among the defaults, so a scene without it (and
 * every scene.json a run of one writes) reads as it always has; a group's missing keys take
 * integrator "rk3" and cfl 5 (scenes/README.md says why). */
enum { SCENE_PRODUCTION_ORDER = 3 };
#define SCENE_PRODUCTION_CFL 5.0

static int scene_integrator(Ctx *c, json_t *prod, int *order)
{
    size_t mark;
    json_t *v = scene_enter(c, prod, "integrator", &mark);
    if (!v)
        return -1;
    const char *name = json_is_string(v) ? json_string_value(v) : NULL;
    if (!name || !scene_in_list(production_integrators, name)) {
        const char *near = name ? scene_closest(production_integrators, name) : NULL;
        char got[256];
        return scene_fail(c, "expected one of \"none\", \"rk2\", \"rk3\", got %s%s%s%s",
                          scene_describe(v, got, sizeof got), near ? "; did you mean \"" : "",
                          near ? near : "", near ? "\"?" : "");
    }
    *order = strcmp(name, "rk2") == 0 ? 2 : strcmp(name, "rk3") == 0 ? 3 : 0;
    scene_path_pop(c, mark);
    return 0;
}

static int scene_production(Ctx *c, json_t *root, Scene *s)
{
    static const Range cfl = {0, 10, true, false};
    size_t mark;
    s->production.order = 0;
    s->production.cfl = s->cfl;
    if (!json_object_get(root, "production"))
        return 0;
    json_t *p = scene_get_object(c, root, "production", production_keys, &mark);
    if (!p)
        return -1;
    if (!json_object_get(p, "integrator"))
        json_object_set_new(p, "integrator", json_string("rk3"));
    if (!json_object_get(p, "cfl"))
        json_object_set_new(p, "cfl", json_real(SCENE_PRODUCTION_CFL));
    if (scene_integrator(c, p, &s->production.order) ||
        scene_get_float(c, p, "cfl", cfl, &s->production.cfl, NULL))
        return -1;
    scene_path_pop(c, mark);
    return 0;
}

/* A brick's width, height and depth in cells: each in (0, 64]. */
static int scene_brick_cells(Ctx *c, json_t *o, float out[3])
{
    static const Range cells = {0, 64, true, false};
    size_t mark;
    json_t *v = scene_enter(c, o, "brick_cells", &mark);
    if (!v)
        return -1;
    if (!json_is_array(v) || json_array_size(v) != 3)
        return scene_wrong(c, "an array of 3 numbers in (0, 64]: a brick's cells along x, y, z", v);
    for (size_t i = 0; i < 3; i++) {
        size_t at = scene_path_index(c, i);
        if (scene_float(c, json_array_get(v, i), cells, &out[i], NULL))
            return -1;
        scene_path_pop(c, at);
    }
    scene_path_pop(c, mark);
    return 0;
}

static int scene_output(Ctx *c, json_t *root, Scene *s)
{
    size_t mark;
    json_t *o = scene_get_object(c, root, "output", output_keys, &mark);
    if (!o || scene_get_bool(c, o, "particles", &s->output.particles) ||
        scene_get_bool(c, o, "surface", &s->output.surface) ||
        scene_get_bool(c, o, "usd", &s->output.usd) ||
        scene_get_bool(c, o, "preview", &s->output.preview) ||
        scene_get_bool(c, o, "bricks", &s->output.bricks) ||
        scene_brick_cells(c, o, s->output.brick_cells) ||
        scene_get_bool(c, o, "diffuse", &s->output.diffuse) ||
        scene_get_int(c, o, "diffuse_max", 1, 100000000, &s->output.diffuse_max) ||
        scene_get_bool(c, o, "surface_anisotropic", &s->output.surface_anisotropic) ||
        scene_get_int(c, o, "surface_refine", 1, SCENE_SURFACE_REFINE_MAX, &s->output.surface_refine))
        return -1;
    scene_path_pop(c, mark);
    return 0;
}

/* Validates the whole tree into s. Unknown keys come first: a misspelt required key is
 * better reported as a typo than as missing. */
static int scene_read(Ctx *c, json_t *root, Scene *s)
{
    size_t mark;
    json_t *v;
    if (scene_check_keys(c, root, top_keys, ""))
        return -1;
    if (!(v = scene_enter(c, root, "name", &mark)) || scene_name(c, v, &s->name))
        return -1;
    scene_path_pop(c, mark);
    if (!(v = scene_enter(c, root, "description", &mark)) || scene_string(c, v, &s->description))
        return -1;
    scene_path_pop(c, mark);
    return scene_grid(c, root, s) || scene_physics(c, root, s) ||
           scene_pressure(c, root, &s->pressure) ||
           scene_get_bool(c, root, "use_gauss_seidel", &s->use_gauss_seidel) ||
           scene_get_shapes(c, root, "fluid", &s->fluid, &s->nfluid) ||
           scene_get_shapes(c, root, "solids", &s->solids, &s->nsolids) ||
           scene_events(c, root, s) || scene_output(c, root, s) ||
           scene_production(c, root, s) ? -1 : 0;
}

/* ---- defaults and overrides -------------------------------------------------------------- */

/* Copies every default the scene lacks into it, one level into objects it has (so a scene
 * with "pressure": {"solver": "sor"} still gets the default iterations). */
static int scene_merge(json_t *dst, json_t *defaults)
{
    const char *key;
    json_t *dv;
    json_object_foreach(defaults, key, dv) {
        json_t *v = json_object_get(dst, key);
        if (!v) {
            if (json_object_set_new(dst, key, json_deep_copy(dv)))
                return -1;
        } else if (json_is_object(v) && json_is_object(dv) && scene_merge(v, dv)) {
            return -1;
        }
    }
    return 0;
}

static int scene_merge_defaults(Ctx *c, json_t *root)
{
    json_error_t je;
    json_t *defaults = json_loads(scene_defaults_json, 0, &je);
    int rc = defaults ? scene_merge(root, defaults) : -1;
    json_decref(defaults);
    return rc ? scene_fail(c, "out of memory") : 0;
}

SCENE_PRINTF(3, 4)
static int scene_set_fail(Ctx *c, const char *ov, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    scene_error(c->err, c->errlen, "--set %s: %s", ov, msg);
    return -1;
}

/* An all-digit path component (up to the next '.') indexes an array; SIZE_MAX if comp is
 * not one. */
static size_t scene_index(const char *comp)
{
    size_t len = strcspn(comp, ".");
    if (len == 0 || strspn(comp, "0123456789") != len)
        return SIZE_MAX;
    return len > 9 ? (size_t)INT_MAX : (size_t)strtoul(comp, NULL, 10);
}

/* Whether node[comp] can be reached: arrays take an index in range, objects a key name.
 * label names node in the message. */
static int scene_can_step(Ctx *c, const char *ov, const json_t *node, const char *label,
                          const char *comp)
{
    size_t idx = scene_index(comp), n = json_array_size(node);
    if (json_is_array(node) && idx == SIZE_MAX)
        return scene_set_fail(c, ov, "%s is an array; use a number index", label);
    if (json_is_array(node) && idx >= n)
        return scene_set_fail(c, ov, "index %s is out of range; %s has %zu element%s", comp,
                              label, n, n == 1 ? "" : "s");
    if (json_is_object(node) && idx != SIZE_MAX)
        return scene_set_fail(c, ov, "%s is an object; use a key name, not an index", label);
    if (!json_is_array(node) && !json_is_object(node))
        return scene_set_fail(c, ov, "%s is %s; it has no member \"%s\"", label,
                              scene_type_name(node), comp);
    return 0;
}

/* node[comp], creating a missing object member as {} so that "--set pressure.solver=sor"
 * works on a scene with no "pressure". next is the component after comp. */
static json_t *scene_child(Ctx *c, const char *ov, json_t *node, const char *comp, const char *next)
{
    if (json_is_array(node))
        return json_array_get(node, scene_index(comp));
    json_t *child = json_object_get(node, comp);
    if (child)
        return child;
    if (scene_index(next) != SIZE_MAX) {
        scene_set_fail(c, ov, "\"%s\" is not set, so it has no element %.*s", comp,
                       (int)strcspn(next, "."), next);
        return NULL;
    }
    if (json_object_set_new(node, comp, json_object())) {
        scene_set_fail(c, ov, "cannot create \"%s\" (a key must be UTF-8 text)", comp);
        return NULL;
    }
    return json_object_get(node, comp);
}

/* The value of an override: JSON if it parses, else the text itself as a string, so that
 * --set pressure.solver=sor needs no quotes but --set name='"true"' still makes a string. */
static json_t *scene_override_value(const char *text)
{
    json_error_t je;
    json_t *v = json_loads(text, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
    return v ? v : json_string(text);
}

/* Follows path (a writable copy of the key path) from root and stores value at its end.
 * value is always consumed. */
static int scene_walk(Ctx *c, const char *ov, json_t *root, char *path, json_t *value)
{
    json_t *node = root;
    char label[96] = "the top level";
    for (char *comp = path;; comp += strlen(comp) + 1) {
        char *dot = strchr(comp, '.');
        if (dot)
            *dot = '\0';
        if (!*comp || (dot && !dot[1])) {
            json_decref(value);
            return scene_set_fail(c, ov, "empty key in the path; expected key.path=value");
        }
        if (scene_can_step(c, ov, node, label, comp)) {
            json_decref(value);
            return -1;
        }
        if (!dot) {   /* the last component: store (both setters consume value) */
            int rc = json_is_array(node) ? json_array_set_new(node, scene_index(comp), value)
                                         : json_object_set_new(node, comp, value);
            if (rc)
                return scene_set_fail(c, ov, "cannot set \"%s\" (a key must be UTF-8 text)", comp);
            return 0;
        }
        if (!(node = scene_child(c, ov, node, comp, dot + 1))) {
            json_decref(value);
            return -1;
        }
        snprintf(label, sizeof label, "\"%s\"", comp);
    }
}

static int scene_apply_override(Ctx *c, json_t *root, const char *ov)
{
    const char *eq = strchr(ov, '=');
    if (!eq)
        return scene_set_fail(c, ov, "expected key.path=value");
    if (eq == ov)
        return scene_set_fail(c, ov, "empty key path; expected key.path=value");
    json_t *value = scene_override_value(eq + 1);
    if (!value)
        return scene_set_fail(c, ov, "the value is not valid UTF-8 text");
    char *path = strndup(ov, (size_t)(eq - ov));
    if (!path) {
        json_decref(value);
        return scene_set_fail(c, ov, "out of memory");
    }
    int rc = scene_walk(c, ov, root, path, value);
    free(path);
    return rc;
}

/* ---- loading ----------------------------------------------------------------------------- */

static void scene_syntax_error(Ctx *c, const json_error_t *je)
{
    int col = je->column > 0 ? je->column : 1;
    const char *near = strstr(je->text, " near ");
    if (json_error_code(je) == json_error_duplicate_key && near)
        scene_error(c->err, c->errlen, "%s:%d:%d: duplicate key %.*s", c->origin, je->line, col,
                    (int)strlen(near + 7) - 1, near + 7);   /* the key, from "near '"key"'" */
    else if (je->line > 0)
        scene_error(c->err, c->errlen, "%s:%d:%d: JSON syntax error: %s", c->origin, je->line,
                    col, je->text);
    else
        scene_error(c->err, c->errlen, "%s: JSON syntax error: %s", c->origin, je->text);
}

/* Drops each of scene_quiet_keys that equals its default from root. */
static int scene_drop_quiet_defaults(json_t *root)
{
    json_error_t je;
    json_t *defaults = json_loads(scene_defaults_json, 0, &je);
    if (!defaults)
        return -1;
    for (size_t i = 0; i < sizeof scene_quiet_keys / sizeof scene_quiet_keys[0]; i++) {
        json_t *o = json_object_get(root, scene_quiet_keys[i][0]);
        json_t *d = json_object_get(defaults, scene_quiet_keys[i][0]);
        json_t *v = o ? json_object_get(o, scene_quiet_keys[i][1]) : NULL;
        if (v && d && json_equal(v, json_object_get(d, scene_quiet_keys[i][1])))
            json_object_del(o, scene_quiet_keys[i][1]);
    }
    json_decref(defaults);
    return 0;
}

static int scene_finish(Ctx *c, json_t *root, Scene *s)
{
    /* "integrator": "none" is the same run as no group: the effective scene leaves it out,
     * so a run told --set production.integrator=none (the grader's) writes the scene.json a
     * scene without production stepping writes */
    if (s->production.order == 0)
        json_object_del(root, "production");
    if (scene_drop_quiet_defaults(root) != 0)
        return scene_fail(c, "out of memory");
    s->path = strdup(c->origin);
    s->json = json_dumps(root, JSON_SORT_KEYS | JSON_COMPACT | JSON_REAL_PRECISION(17));
    return s->path && s->json ? 0 : scene_fail(c, "out of memory");
}

static int scene_load_buffer(const char *text, size_t len, const char *origin,
                             const char *const *overrides, int noverrides, Scene *out,
                             char *err, size_t errlen)
{
    Ctx c = {.origin = origin ? origin : "(scene)", .err = err, .errlen = errlen,
             .overrides = overrides, .noverrides = overrides ? noverrides : 0};
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    int rc = -1;
    if (!root)
        scene_syntax_error(&c, &je);
    else if (!json_is_object(root))
        scene_wrong(&c, "a JSON object at the top level", root);
    else {
        /* Defaults go in before the overrides, so --set gravity.1=-1.6 finds a gravity to
         * change, and again after, to fill an object an override replaced whole. */
        rc = scene_merge_defaults(&c, root);
        for (int i = 0; i < c.noverrides && rc == 0; i++)
            rc = scene_apply_override(&c, root, overrides[i]);
        if (rc == 0)
            rc = scene_merge_defaults(&c, root) || scene_read(&c, root, out) ||
                 scene_finish(&c, root, out) ? -1 : 0;
    }
    json_decref(root);
    if (rc)
        scene_free(out);
    return rc;
}

int scene_load_text(const char *text, const char *origin, const char *const *overrides,
                    int noverrides, Scene *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!text) {
        scene_error(err, errlen, "%s: no scene text", origin ? origin : "(scene)");
        return -1;
    }
    return scene_load_buffer(text, strlen(text), origin, overrides, noverrides, out, err, errlen);
}

/* Reads a whole file; NULL after writing the error. The size cap keeps "flipsim /dev/zero"
 * from eating memory: a scene is a few kilobytes. */
static char *scene_read_file(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        scene_error(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap || n >= SCENE_FILE_MAX)
            break;
        char *bigger = realloc(buf, cap * 2);
        if (!bigger)
            free(buf);
        buf = bigger;
        cap *= 2;
    }
    int rerr = ferror(f) ? errno : 0;
    fclose(f);
    if (!buf)
        scene_error(err, errlen, "%s: cannot read: out of memory", path);
    else if (rerr || n >= SCENE_FILE_MAX) {
        scene_error(err, errlen, "%s: cannot read: %s", path,
                    rerr ? strerror(rerr) : "larger than 16 MiB; a scene is a small JSON file");
        free(buf);
        buf = NULL;
    }
    *len = n;
    return buf;
}

int scene_load(const char *path, const char *const *overrides, int noverrides,
               Scene *out, char *err, size_t errlen)
{
    size_t len;
    memset(out, 0, sizeof *out);
    if (!path) {
        scene_error(err, errlen, "(scene): no scene file given");
        return -1;
    }
    char *text = scene_read_file(path, &len, err, errlen);
    if (!text)
        return -1;
    int rc = scene_load_buffer(text, len, path, overrides, noverrides, out, err, errlen);
    free(text);
    return rc;
}

void scene_free(Scene *s)
{
    if (!s)
        return;
    free(s->path);
    free(s->name);
    free(s->description);
    free(s->json);
    free(s->fluid);
    free(s->solids);
    for (int i = 0; s->events && i < s->nevents; i++)
        free(s->events[i].fluid);
    free(s->events);
    memset(s, 0, sizeof *s);
}

/* ---- reading a value back ---------------------------------------------------------------- */

/* The value at a dotted key of root (array elements by index), or NULL. */
static json_t *scene_value_at(json_t *root, const char *key)
{
    json_t *v = root;
    char path[256];
    snprintf(path, sizeof path, "%s", key);
    for (char *comp = path, *next; v && comp; comp = next) {
        next = strchr(comp, '.');
        if (next)
            *next++ = '\0';
        if (json_is_array(v)) {     /* an index: digits only, so "x" or "1abc" is no key */
            char *end;
            unsigned long i = strtoul(comp, &end, 10);
            v = comp[0] >= '0' && comp[0] <= '9' && !*end ? json_array_get(v, i) : NULL;
        } else {
            v = json_object_get(v, comp);
        }
    }
    return v;
}

int scene_value_text(const Scene *s, const char *key, char *buf, size_t n)
{
    json_error_t je;
    json_t *root = s->json ? json_loads(s->json, 0, &je) : NULL;
    json_t *v = scene_value_at(root, key);
    if (!v && root) {   /* a quiet key at its default (scene_quiet_keys) */
        json_decref(root);
        root = json_loads(scene_defaults_json, 0, &je);
        v = scene_value_at(root, key);
    }
    int rc = v ? 0 : -1;
    if (json_is_string(v)) {
        snprintf(buf, n, "%s", json_string_value(v));
    } else if (json_is_real(v)) {
        /* The shortest text that reads back as the same double: 29.97, not 29.969999999999999;
         * at least the integer part's digits, so 30.0 is 30, not 3e+01. */
        double mag = fabs(json_real_value(v));
        int first = mag >= 1.0 && mag < 1e17 ? (int)floor(log10(mag)) + 1 : 1;
        for (int digits = first; digits <= 17; digits++) {
            snprintf(buf, n, "%.*g", digits, json_real_value(v));
            if (strtod(buf, NULL) == json_real_value(v))
                break;
        }
    } else if (v) {
        char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        snprintf(buf, n, "%s", text ? text : "");
        rc = text ? 0 : -1;
        free(text);
    }
    json_decref(root);
    return rc;
}

/* ---- --help ------------------------------------------------------------------------------ */

typedef struct { const char *key, *type, *meaning; } SchemaRow;
static const SchemaRow scene_schema[] = {
    {"name", "string", "scene name: A-Z a-z 0-9 _ -; out/<name>/"},
    {"description", "string", "free text for people"},
    {"grid.resolution", "3 integers", "cells along x, y, z; each 3 to 1024"},
    {"grid.cell_size", "number > 0", "cell edge, m; domain [0, res*cell_size]"},
    {"gravity", "3 numbers", "m/s^2; y is up"},
    {"density", "number > 0", "kg/m^3"},
    {"frame_rate", "number > 0", "frames per simulated second"},
    {"frames", "integer [0, 999999]", "frames to simulate and write"},
    {"cfl", "number (0, 10]", "most cells a particle moves in a substep"},
    {"pic_flip_alpha", "number [0, 1]", "1 = PIC (smooth), 0 = FLIP (lively)"},
    {"particles_per_cell", "1, 8, 27 or 64", "particles seeded per fluid cell (n^3)"},
    {"seed", "0 to 2^32-1", "random seed: the same seed, the same run"},
    {"pressure.solver", "string", "jacobi, gauss_seidel, sor, pcg, multigrid or mgpcg (the last three: reference track only)"},
    {"pressure.iterations", "integer >= 1", "most iterations per pressure solve"},
    {"pressure.tolerance", "number (0, 1)", "stop when |b - Lp| / |b| is below this"},
    {"pressure.jacobi_omega", "number (0, 1]", "Jacobi weight (1 = plain Jacobi)"},
    {"pressure.sor_omega", "number (0, 2)", "SOR factor (1 = plain Gauss-Seidel)"},
    {"use_gauss_seidel", "boolean", "the given Gauss-Seidel instead of your jacobi"},
    {"fluid", "shapes", "fluid at the start"},
    {"solids", "shapes", "solid obstacles"},
    {"events", "events", "fluid added later: {frame, fluid: [shapes]}"},
    {"production.integrator", "none, rk2, rk3", "reference track only: particles move through the projected grid velocity with this step (the group absent: the advect stage)"},
    {"production.cfl", "number (0, 10]", "reference track with production.integrator: replaces cfl (default 5)"},
    {"output.particles", "boolean", "write out/<name>/particles/NNNNNN.ply"},
    {"output.surface", "boolean", "write a closed liquid surface, out/<name>/surface/NNNNNN.ply"},
    {"output.usd", "boolean", "write out/<name>/scene.usda (Blender, usdview; real time)"},
    {"output.preview", "boolean", "write out/<name>/preview/NNNNNN.png (make movie joins them)"},
    {"output.surface_anisotropic", "boolean", "an anisotropic surface (Yu & Turk 2013), out/<name>/anisotropic/NNNNNN.ply; pale blue in the preview"},
    {"output.bricks", "boolean", "the liquid as LEGO bricks: brick/, brickcolor/, bricktexture/; grey squares in the preview"},
    {"output.brick_cells", "3 numbers (0, 64]", "a brick's width, height, depth in cells"},
    {"output.diffuse", "boolean", "spray, foam and bubble particles, out/<name>/diffuse/NNNNNN.ply"},
    {"output.diffuse_max", "integer [1, 1e8]", "most diffuse particles at once (more are not seeded)"},
    {"output.surface_refine", "integer [1, 8]", "the surfaces' resolution: marching cubes on a grid this many times finer than the sim's per axis (2: about 4x the triangles)"},
};
enum { SCENE_NSCHEMA = sizeof scene_schema / sizeof scene_schema[0] };

/* The default of a dotted key, read from the defaults JSON; "required" if it has none. */
static void scene_default_text(json_t *defaults, const char *key, char *buf, size_t n)
{
    const char *dot = strchr(key, '.');
    json_t *v = defaults;
    if (dot) {
        char head[32];
        snprintf(head, sizeof head, "%.*s", (int)(dot - key), key);
        v = json_object_get(v, head);
        key = dot + 1;
    }
    v = v ? json_object_get(v, key) : NULL;
    if (!v && strcmp(key, "integrator") == 0) /* the optional group's, scene_production's */
        snprintf(buf, n, "none; rk3 in a group");
    else if (!v && strcmp(key, "cfl") == 0 && dot)
        snprintf(buf, n, "%g", SCENE_PRODUCTION_CFL);
    else if (!v)
        snprintf(buf, n, "required");
    else if (json_is_real(v))
        snprintf(buf, n, "%g", json_real_value(v));   /* 1e-06 and 30, not 9.99e-07 or 30.0 */
    else
        scene_describe(v, buf, n);
}

void scene_print_schema(FILE *out)
{
    json_error_t je;
    json_t *defaults = json_loads(scene_defaults_json, 0, &je);
    char dflt[SCENE_NSCHEMA][64];
    int wk = 3, wt = 4, wd = 7;
    for (int i = 0; i < SCENE_NSCHEMA; i++) {
        const SchemaRow *r = &scene_schema[i];
        scene_default_text(defaults, r->key, dflt[i], sizeof dflt[i]);
        wk = (int)strlen(r->key) > wk ? (int)strlen(r->key) : wk;
        wt = (int)strlen(r->type) > wt ? (int)strlen(r->type) : wt;
        wd = (int)strlen(dflt[i]) > wd ? (int)strlen(dflt[i]) : wd;
    }
    json_decref(defaults);
    fprintf(out, "Scene file (strict JSON: an unknown key is an error; see scenes/README.md):\n");
    fprintf(out, "  %-*s  %-*s  %-*s  %s\n", wk, "key", wt, "type", wd, "default", "meaning");
    for (int i = 0; i < SCENE_NSCHEMA; i++)
        fprintf(out, "  %-*s  %-*s  %-*s  %s\n", wk, scene_schema[i].key, wt, scene_schema[i].type,
                wd, dflt[i], scene_schema[i].meaning);
    fprintf(out,
            "A shape is {\"box\": {\"min\": [x,y,z], \"max\": [x,y,z]}}\n"
            "  or {\"sphere\": {\"center\": [x,y,z], \"radius\": r}}, with an optional\n"
            "  \"velocity\": [x,y,z] (default [0,0,0]); it must lie inside the domain.\n"
            "An event adds its fluid when the run reaches time frame/frame_rate, into cells that\n"
            "  hold no particles and are not solid.\n"
            "--set key.path=value changes a key before validation (value: JSON, else a string):\n"
            "  --set frames=10  --set gravity=[0,-1.6,0]  --set fluid.0.sphere.radius=0.2\n"
            "  --set pressure.solver=sor  --set grid.resolution.1=48\n");
}
