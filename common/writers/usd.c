/* usd.c — streams particle (and surface) frames into one ASCII USD stage, OUT/scene.usda.
 * flipkit common/writers/: each frame's samples are appended to part files in OUT/.usd, which are
 * assembled into the stage now and then and at the end, so a killed run loses nothing. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* mkdir */
#endif
#include "usd.h"

#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "atomic.h"
#include "fileerr.h"

#define USD_WORK_DIR ".usd"
#define USD_STAGE "scene.usda"
#define USD_BUF 65536          /* formatting buffer per part write */
#define USD_NUM 32             /* longest number "%.7g" prints, with room to spare */
#define USD_INDENT "            " /* a sample line sits three levels in */

/* The time-sampled attributes, in the order they appear in the stage. Each has a part file
 * holding one line per frame, "<frame>: [ ... ],", exactly as the stage shows it. */
enum { PART_P_EXTENT, PART_P_POINTS, PART_S_EXTENT, PART_S_COUNTS, PART_S_INDICES,
       PART_S_POINTS, PART_D_EXTENT, PART_D_POINTS, PART_D_TYPE, PART_B_EXTENT, PART_B_POINTS,
       PART_B_COLOUR, PART_A_EXTENT, PART_A_COUNTS, PART_A_INDICES, PART_A_POINTS, PART_COUNT };
static const struct {
    const char *file;
    const char *decl;
} usd_parts[PART_COUNT] = {
    { "particles_extent", "float3[] extent" },
    { "particles_points", "point3f[] points" },
    { "surface_extent", "float3[] extent" },
    { "surface_counts", "int[] faceVertexCounts" },
    { "surface_indices", "int[] faceVertexIndices" },
    { "surface_points", "point3f[] points" },
    { "diffuse_extent", "float3[] extent" },
    { "diffuse_points", "point3f[] points" },
    { "diffuse_type", "int[] primvars:diffuseType" },
    { "bricks_extent", "float3[] extent" },
    { "bricks_points", "point3f[] points" },
    { "bricks_colour", "color3f[] primvars:displayColor" },
    { "aniso_extent", "float3[] extent" },
    { "aniso_counts", "int[] faceVertexCounts" },
    { "aniso_indices", "int[] faceVertexIndices" },
    { "aniso_points", "point3f[] points" },
};

/* What the assembler needs besides the parts; also written to .usd/meta for usd_assemble. */
typedef struct {
    double fps;
    float width;
    bool surface;
    bool diffuse;
    float brick_width;      /* 0: no bricks */
    bool anisotropic;       /* a second mesh, the anisotropic surface */
} UsdMeta;

struct UsdWriter {
    char *out_dir;
    char *work;              /* out_dir/.usd */
    UsdMeta meta;
    FILE *part[PART_COUNT];  /* NULL for the surface parts of a writer without a surface */
    FILE *frames;            /* the commit record: one frame number per line */
    long nframes;
    int last_frame;
    long next_assembly;      /* assemble when nframes reaches this; doubles each time */
    long assembled;          /* frames in scene.usda as last assembled */
    bool deferred;           /* usd_defer_assembly: commit frames, leave scene.usda alone */
    bool broken;             /* a write failed: the parts may be ragged, so stop appending */
    char buf[USD_BUF];
    size_t len;
};

static char *usd_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *s = malloc(a + b + 2);
    if (s) {
        memcpy(s, dir, a);
        s[a] = '/';
        memcpy(s + a + 1, name, b + 1);
    }
    return s;
}

/* ---- numbers ------------------------------------------------------------------------- */

/* printf writes the locale's decimal point; USD wants '.', so swap it back if a host
 * program called setlocale. */
static void usd_fix_point(char *s)
{
    char dp = localeconv()->decimal_point[0];
    if (dp == '.' || dp == '\0')
        return;
    for (; *s; s++)
        if (*s == dp)
            *s = '.';
}

/* USD's text format spells the specials inf, -inf and nan (never "-nan"). */
static int usd_format_real(char *dst, double v, int digits)
{
    if (isnan(v))
        return snprintf(dst, USD_NUM, "nan");
    if (isinf(v))
        return snprintf(dst, USD_NUM, v > 0 ? "inf" : "-inf");
    int n = snprintf(dst, USD_NUM, "%.*g", digits, v);
    usd_fix_point(dst);
    return n;
}

/* Powers of ten 1e-52 .. 1e52 as exact as doubles hold them: floats span 1e-45 .. 3.4e38. */
static double usd_pow10(int e)
{
    static double table[105];
    static bool ready;
    if (!ready) {   /* strtod rounds each correctly; repeated multiplication would drift */
        for (int i = 0; i < 105; i++) {
            char text[16];
            snprintf(text, sizeof text, "1e%d", i - 52);
            table[i] = strtod(text, NULL);
        }
        ready = true;
    }
    return table[e + 52];
}

/* Writes the digits of m (exactly 7 of them) as "%.7g" lays out d.dddddd x 10^x: fixed for
 * -4 <= x < 7, else with an exponent; trailing zeros and a bare point dropped. Returns the
 * length; dst is NUL-terminated. */
static int usd_layout7(char *dst, bool negative, uint32_t m, int x)
{
    char d[7];
    for (int i = 6; i >= 0; i--, m /= 10)
        d[i] = (char)('0' + m % 10);
    int last = 6;   /* the last digit to keep */
    while (last > 0 && d[last] == '0')
        last--;
    int n = 0;
    if (negative)
        dst[n++] = '-';
    if (x < -4 || x >= 7) {
        dst[n++] = d[0];
        if (last > 0)
            dst[n++] = '.';
        for (int i = 1; i <= last; i++)
            dst[n++] = d[i];
        return n + snprintf(dst + n, USD_NUM - (size_t)n, "e%c%02d", x < 0 ? '-' : '+', abs(x));
    }
    if (x < 0) {
        dst[n++] = '0';
        dst[n++] = '.';
        for (int i = 0; i < -x - 1; i++)
            dst[n++] = '0';
        for (int i = 0; i <= last; i++)
            dst[n++] = d[i];
    } else {
        for (int i = 0; i <= x; i++)
            dst[n++] = d[i];
        if (last > x)
            dst[n++] = '.';
        for (int i = x + 1; i <= last; i++)
            dst[n++] = d[i];
    }
    dst[n] = '\0';
    return n;
}

/* rint for 0 <= v < 2^52 in the default rounding mode (ties to even): adding 2^52 leaves no
 * fraction bits, so the addition itself rounds. Without -msse4.1 rint is a libm call. */
static double usd_rint_small(double v)
{
    volatile double big = 0x1p52; /* volatile: the compiler must not fold (v + big) - big */
    return (v + big) - big;
}

/* "%.7g" of a float without printf, whose exact decimal conversion was a fifth of a whole
 * ball_drop run. The float is exact in a double, and scaling it by a power of ten changes it
 * by at most an ulp of the double, far below the half-unit of the 7th digit, so rounding to
 * the nearest integer, ties to even (as printf), rounds it the same way; test_usd compares the
 * two on 600 000 floats. The binary exponent comes from the float's bits (frexp only for
 * subnormals) and its decimal estimate from an integer product: (e * 78913) >> 18 is
 * floor(e log10 2) for |e| <= 1650, without libm's floor and log. */
static int usd_format_float7(char *dst, float f)
{
    double v = f;
    if (!isfinite(v) || v == 0.0)
        return v == 0.0 ? snprintf(dst, USD_NUM, signbit(v) ? "-0" : "0") : usd_format_real(dst, v, 7);
    bool negative = v < 0.0;
    double a = fabs(v);
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    int biased = (int)((bits >> 23) & 0xffu), e2;
    if (biased == 0)
        frexp(a, &e2); /* subnormal: a in [2^(e2-1), 2^e2) */
    else
        e2 = biased - 126; /* a = 1.m x 2^(biased-127), in [2^(e2-1), 2^e2) */
    int x = ((e2 - 1) * 78913) >> 18; /* the decimal exponent, or one less */
    double m = usd_rint_small(x >= 6 ? a / usd_pow10(x - 6) : a * usd_pow10(6 - x));
    while (m >= 1e7) {  /* the exponent was one less, or 9999999.5 rounded up to 10^7 */
        x++;
        m = usd_rint_small(x >= 6 ? a / usd_pow10(x - 6) : a * usd_pow10(6 - x));
    }
    return usd_layout7(dst, negative, (uint32_t)m, x);
}

int usd_format_float(char *dst, float f)
{
    return usd_format_float7(dst, f);
}

/* ---- buffered part writing ----------------------------------------------------------- */

static int usd_flush_buf(UsdWriter *w, FILE *f)
{
    size_t n = w->len;
    w->len = 0;
    return fwrite(w->buf, 1, n, f) == n ? 0 : -1;
}

/* Appends s; writes the buffer out first when s might not fit. */
static int usd_put(UsdWriter *w, FILE *f, const char *s, size_t n)
{
    if (w->len + n > sizeof w->buf && usd_flush_buf(w, f) != 0)
        return -1;
    if (n > sizeof w->buf)
        return fwrite(s, 1, n, f) == n ? 0 : -1;
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    return 0;
}

static int usd_put_str(UsdWriter *w, FILE *f, const char *s)
{
    return usd_put(w, f, s, strlen(s));
}

static int usd_put_vec(UsdWriter *w, FILE *f, float x, float y, float z, bool first)
{
    char s[4 + 3 * USD_NUM + 8];
    size_t n = 0;
    const float v[3] = { x, y, z };
    if (!first) {
        s[n++] = ',';
        s[n++] = ' ';
    }
    s[n++] = '(';
    for (int c = 0; c < 3; c++) {
        if (c) {
            s[n++] = ',';
            s[n++] = ' ';
        }
        n += (size_t)usd_format_float7(s + n, v[c]);
    }
    s[n++] = ')';
    return usd_put(w, f, s, n);
}

static int usd_begin_sample(UsdWriter *w, FILE *f, int frame)
{
    char s[64];
    int n = snprintf(s, sizeof s, USD_INDENT "%d: [", frame);
    return usd_put(w, f, s, (size_t)n);
}

static int usd_end_sample(UsdWriter *w, FILE *f)
{
    if (usd_put_str(w, f, "],\n") != 0 || usd_flush_buf(w, f) != 0)
        return -1;
    return fflush(f) == 0 ? 0 : -1;
}

/* ---- one frame's samples ------------------------------------------------------------- */

static int usd_write_points(UsdWriter *w, FILE *f, int frame, const float *xyz, size_t n,
                            size_t stride)
{
    if (usd_begin_sample(w, f, frame) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const float *p = xyz + i * stride;
        if (usd_put_vec(w, f, p[0], p[1], p[2], i == 0) != 0)
            return -1;
    }
    return usd_end_sample(w, f);
}

/* The bounding box of the finite points, grown by pad on every side; renderers cull by it. */
static int usd_write_extent(UsdWriter *w, FILE *f, int frame, const float *xyz, size_t n,
                            size_t stride, float pad)
{
    float lo[3] = { 0, 0, 0 }, hi[3] = { 0, 0, 0 };
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        const float *p = xyz + i * stride;
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
            continue;
        for (int c = 0; c < 3; c++) {
            lo[c] = any && lo[c] < p[c] ? lo[c] : p[c];
            hi[c] = any && hi[c] > p[c] ? hi[c] : p[c];
        }
        any = true;
    }
    if (any)
        for (int c = 0; c < 3; c++) {
            lo[c] -= pad;
            hi[c] += pad;
        }
    if (usd_begin_sample(w, f, frame) != 0 || usd_put_vec(w, f, lo[0], lo[1], lo[2], true) != 0 ||
        usd_put_vec(w, f, hi[0], hi[1], hi[2], false) != 0)
        return -1;
    return usd_end_sample(w, f);
}

/* Triangles only, so every face count is 3. */
static int usd_write_counts(UsdWriter *w, FILE *f, int frame, size_t ntris)
{
    if (usd_begin_sample(w, f, frame) != 0)
        return -1;
    for (size_t t = 0; t < ntris; t++)
        if (usd_put_str(w, f, t ? ", 3" : "3") != 0)
            return -1;
    return usd_end_sample(w, f);
}

/* ", 123" (or "123" for the first): the decimal digits without printf, which was a tenth of
 * the writer's time on a splash's surface. Returns the length. */
static int usd_format_index(char *dst, uint32_t v, bool first)
{
    char d[10];
    int nd = 0, n = 0;
    do {
        d[nd++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (!first) {
        dst[n++] = ',';
        dst[n++] = ' ';
    }
    while (nd)
        dst[n++] = d[--nd];
    return n;
}

static int usd_write_indices(UsdWriter *w, FILE *f, int frame, const uint32_t *tri, size_t ntris)
{
    if (usd_begin_sample(w, f, frame) != 0)
        return -1;
    for (size_t i = 0; i < 3 * ntris; i++) {
        char s[16];
        int n = usd_format_index(s, tri[i], i == 0);
        if (usd_put(w, f, s, (size_t)n) != 0)
            return -1;
    }
    return usd_end_sample(w, f);
}

static int usd_write_types(UsdWriter *w, FILE *f, int frame, const uint8_t *type, size_t n)
{
    if (usd_begin_sample(w, f, frame) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char s[16];
        int len = usd_format_index(s, type[i], i == 0);
        if (usd_put(w, f, s, (size_t)len) != 0)
            return -1;
    }
    return usd_end_sample(w, f);
}

/* A brick's grey, its colour byte over 255, in each channel. */
static int usd_write_greys(UsdWriter *w, FILE *f, int frame, const uint8_t *grey, size_t n)
{
    if (usd_begin_sample(w, f, frame) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        float c = grey[i] / 255.0f;
        if (usd_put_vec(w, f, c, c, c, i == 0) != 0)
            return -1;
    }
    return usd_end_sample(w, f);
}

/* ---- assembling the stage ------------------------------------------------------------ */

/* The committed frames: how many, and the first and last frame number. */
typedef struct {
    long count;
    int first, last;
} UsdFrames;

/* Reads .usd/frames; a last line without its newline was being written when the run died,
 * so it does not count. */
static int usd_read_frames(const char *work, UsdFrames *fr, char *err, size_t errlen)
{
    char *path = usd_join(work, "frames");
    if (!path) {
        fileerr_set(err, errlen, work, "out of memory");
        return -1;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        fileerr_set(err, errlen, path, "cannot open: %s", strerror(errno));
        free(path);
        return -1;
    }
    *fr = (UsdFrames){ 0, 0, 0 };
    char line[64];
    int bad = 0;
    while (fgets(line, sizeof line, f)) {
        char *end;
        long v = strtol(line, &end, 10);
        if (*end != '\n')
            break; /* the torn last line */
        if (end == line || v < INT_MIN || v > INT_MAX || (fr->count && v <= fr->last)) {
            fileerr_set(err, errlen, path, "line %ld: '%.*s' is not a frame after %d",
                       fr->count + 1, (int)(end - line), line, fr->last);
            bad = 1;
            break;
        }
        fr->first = fr->count ? fr->first : (int)v;
        fr->last = (int)v;
        fr->count++;
    }
    fclose(f);
    free(path);
    return bad ? -1 : 0;
}

/* Copies the first `lines` lines of a part file. Returns 0; -1 with err set when the part
 * cannot be read or is short; 1 when writing out failed (the caller names the stage). */
static int usd_copy_lines(FILE *out, const char *work, const char *name, long lines, char *err,
                          size_t errlen)
{
    char *path = usd_join(work, name);
    char *buf = malloc(USD_BUF);
    FILE *in = path && buf ? fopen(path, "rb") : NULL;
    if (!in) {
        fileerr_set(err, errlen, path ? path : work, "cannot open: %s",
                   path && buf ? strerror(errno) : "out of memory");
        free(path);
        free(buf);
        return -1;
    }
    size_t got;
    int rc = 0;
    while (lines > 0 && (got = fread(buf, 1, USD_BUF, in)) > 0) {
        size_t take = got;
        for (char *p = buf; lines > 0 && (p = memchr(p, '\n', (size_t)(buf + got - p))); p++)
            if (--lines == 0)
                take = (size_t)(p - buf) + 1;
        if (fwrite(buf, 1, take, out) != take) {
            rc = 1;
            break;
        }
    }
    if (rc == 0 && lines > 0) {
        fileerr_set(err, errlen, path, "%ld frame%s short of the frames record", lines,
                   lines == 1 ? "" : "s");
        rc = -1;
    }
    fclose(in);
    free(path);
    free(buf);
    return rc;
}

static void usd_write_header(FILE *out, const UsdMeta *m, const UsdFrames *fr)
{
    char fps[USD_NUM];
    usd_format_real(fps, m->fps, 15);
    fprintf(out,
            "#usda 1.0\n"
            "(\n"
            "    defaultPrim = \"World\"\n"
            "    doc = \"flipkit: the particles%s of one run, one time sample per frame\"\n"
            "    endTimeCode = %d\n"
            "    framesPerSecond = %s\n"
            "    metersPerUnit = 1\n"
            "    startTimeCode = %d\n"
            "    timeCodesPerSecond = %s\n"
            "    upAxis = \"Y\"\n"
            ")\n\n"
            "def Xform \"World\"\n"
            "{\n",
            m->surface ? " and surface" : "", fr->last, fps, fr->first, fps);
}

static int usd_write_attr(FILE *out, const char *work, int part, long frames, char *err,
                          size_t errlen)
{
    fprintf(out, "        %s.timeSamples = {\n", usd_parts[part].decl);
    int rc = usd_copy_lines(out, work, usd_parts[part].file, frames, err, errlen);
    fputs("        }\n", out);
    return rc;
}

/* A mesh prim (/World/surface, /World/anisotropic) from its four parts, extent first. */
static int usd_write_mesh_prim(FILE *out, const char *work, const char *name, int first,
                               long frames, char *err, size_t errlen)
{
    fprintf(out, "\n    def Mesh \"%s\"\n    {\n        uniform bool doubleSided = 1\n", name);
    int rc = 0;
    for (int p = first; p <= first + 3 && rc == 0; p++)
        rc = usd_write_attr(out, work, p, frames, err, errlen);
    if (rc != 0)
        return rc;
    fputs("        uniform token subdivisionScheme = \"none\"\n    }\n", out);
    return 0;
}

/* Returns as usd_copy_lines does. */
static int usd_write_prims(FILE *out, const char *work, const UsdMeta *m, long frames,
                           char *err, size_t errlen)
{
    char width[USD_NUM];
    usd_format_real(width, m->width, 7);
    fputs("    def Points \"particles\"\n    {\n", out);
    int rc = 0;
    for (int p = PART_P_EXTENT; p <= PART_P_POINTS && rc == 0; p++)
        rc = usd_write_attr(out, work, p, frames, err, errlen);
    if (rc != 0)
        return rc;
    fprintf(out,
            "        color3f[] primvars:displayColor = [(0.2, 0.45, 0.85)] (\n"
            "            interpolation = \"constant\"\n"
            "        )\n"
            "        float[] widths = [%s] (\n"
            "            interpolation = \"constant\"\n"
            "        )\n"
            "    }\n",
            width);
    return m->surface ? usd_write_mesh_prim(out, work, "surface", PART_S_EXTENT, frames, err,
                                            errlen) : 0;
}

/* Spray, foam and bubbles: points with their type (0, 1, 2) as a per-point primvar. */
static int usd_write_diffuse_prim(FILE *out, const char *work, const UsdMeta *m, long frames,
                                  char *err, size_t errlen)
{
    char width[USD_NUM];
    usd_format_real(width, 0.5 * m->width, 7);
    fputs("\n    def Points \"diffuse\"\n    {\n", out);
    int rc = 0;
    for (int p = PART_D_EXTENT; p <= PART_D_POINTS && rc == 0; p++)
        rc = usd_write_attr(out, work, p, frames, err, errlen);
    if (rc != 0)
        return rc;
    fprintf(out, "        %s (\n            interpolation = \"vertex\"\n        )\n",
            usd_parts[PART_D_TYPE].decl);
    rc = usd_write_attr(out, work, PART_D_TYPE, frames, err, errlen);
    if (rc != 0)
        return rc;
    fprintf(out,
            "        color3f[] primvars:displayColor = [(0.95, 0.97, 1)] (\n"
            "            interpolation = \"constant\"\n"
            "        )\n"
            "        float[] widths = [%s] (\n"
            "            interpolation = \"constant\"\n"
            "        )\n"
            "    }\n", width);
    return 0;
}

/* LEGO bricks: their centres, each with its grey (the normalised density) as displayColor,
 * drawn as points as wide as a brick (a renderer instances a brick model on them). */
static int usd_write_bricks_prim(FILE *out, const char *work, const UsdMeta *m, long frames,
                                 char *err, size_t errlen)
{
    char width[USD_NUM];
    usd_format_real(width, m->brick_width, 7);
    fputs("\n    def Points \"bricks\"\n    {\n", out);
    int rc = 0;
    for (int p = PART_B_EXTENT; p <= PART_B_POINTS && rc == 0; p++)
        rc = usd_write_attr(out, work, p, frames, err, errlen);
    if (rc != 0)
        return rc;
    fprintf(out, "        %s (\n            interpolation = \"vertex\"\n        )\n",
            usd_parts[PART_B_COLOUR].decl);
    rc = usd_write_attr(out, work, PART_B_COLOUR, frames, err, errlen);
    if (rc != 0)
        return rc;
    fprintf(out,
            "        float[] widths = [%s] (\n"
            "            interpolation = \"constant\"\n"
            "        )\n"
            "    }\n", width);
    return 0;
}

/* Writes out_dir/scene.usda.tmp from the parts and puts it in place (atomic_replace). No
 * fsync, as in ply.c: the stage is rebuilt from the parts if the machine dies. */
static int usd_assemble_from(const char *out_dir, const char *work, const UsdMeta *m, char *err,
                             size_t errlen)
{
    UsdFrames fr;
    if (usd_read_frames(work, &fr, err, errlen) != 0)
        return -1;
    char *path = usd_join(out_dir, USD_STAGE);
    char *tmp = usd_join(out_dir, USD_STAGE ".tmp");
    FILE *out = path && tmp ? fopen(tmp, "wb") : NULL;
    if (!out) {
        int e = errno;
        if (path && tmp)
            fileerr_set(err, errlen, path, "cannot create %s: %s", tmp, strerror(e));
        else
            fileerr_set(err, errlen, out_dir, "out of memory");
        free(path);
        free(tmp);
        return -1;
    }
    errno = 0;
    usd_write_header(out, m, &fr);
    int rc = usd_write_prims(out, work, m, fr.count, err, errlen);
    if (rc == 0 && m->diffuse)
        rc = usd_write_diffuse_prim(out, work, m, fr.count, err, errlen);
    if (rc == 0 && m->brick_width > 0)
        rc = usd_write_bricks_prim(out, work, m, fr.count, err, errlen);
    if (rc == 0 && m->anisotropic)
        rc = usd_write_mesh_prim(out, work, "anisotropic", PART_A_EXTENT, fr.count, err, errlen);
    int bad = rc < 0 ? 2 : rc > 0 ? 1 : 0;
    if (!bad) {
        fputs("}\n", out);
        bad = fflush(out) != 0 || ferror(out);
    }
    int saved = errno;
    if (fclose(out) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    if (!bad && atomic_replace(tmp, path) != 0) {
        bad = 1;
        saved = errno;
    }
    if (bad == 1)
        fileerr_set(err, errlen, path, "write failed: %s", saved ? strerror(saved) : "I/O error");
    if (bad)
        remove(tmp);
    free(path);
    free(tmp);
    return bad ? -1 : 0;
}

/* ---- the meta record ----------------------------------------------------------------- */

static int usd_write_meta(const char *work, const UsdMeta *m, char *err, size_t errlen)
{
    char *path = usd_join(work, "meta");
    FILE *f = path ? fopen(path, "wb") : NULL;
    if (!f) {
        fileerr_set(err, errlen, path ? path : work, "cannot create: %s",
                   path ? strerror(errno) : "out of memory");
        free(path);
        return -1;
    }
    fprintf(f, "flipkit-usd-parts 3\nfps %.17g\nwidth %.9g\nsurface %d\ndiffuse %d\n"
            "brick_width %.9g\nanisotropic %d\n", m->fps, (double)m->width, m->surface ? 1 : 0,
            m->diffuse ? 1 : 0, (double)m->brick_width, m->anisotropic ? 1 : 0);
    int bad = fclose(f) != 0;
    if (bad)
        fileerr_set(err, errlen, path, "write failed: %s", strerror(errno));
    free(path);
    return bad ? -1 : 0;
}

static int usd_read_meta(const char *work, UsdMeta *m, char *err, size_t errlen)
{
    char *path = usd_join(work, "meta");
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f) {
        fileerr_set(err, errlen, path ? path : work, "cannot open: %s",
                   path ? strerror(errno) : "out of memory");
        free(path);
        return -1;
    }
    int version = 0, surface = 0, diffuse = 0, aniso = 0;
    double width = 0, brick_width = 0;
    int got = fscanf(f, "flipkit-usd-parts %d fps %lf width %lf surface %d", &version, &m->fps,
                     &width, &surface);
    /* version 1 (before diffuse particles and bricks) has neither, 2 no anisotropic mesh */
    bool v2 = got == 4 && version >= 2 &&
              fscanf(f, " diffuse %d brick_width %lf", &diffuse, &brick_width) == 2;
    bool v3 = v2 && version == 3 && fscanf(f, " anisotropic %d", &aniso) == 1;
    fclose(f);
    if (got != 4 || !(version == 1 || (version == 2 && v2) || v3) || !(m->fps > 0) ||
        !(width > 0) || !(brick_width >= 0)) {
        fileerr_set(err, errlen, path, "not a flipkit USD meta record (version 1 to 3)");
        free(path);
        return -1;
    }
    free(path);
    m->width = (float)width;
    m->surface = surface != 0;
    m->diffuse = diffuse != 0;
    m->brick_width = (float)brick_width;
    m->anisotropic = aniso != 0;
    return 0;
}

int usd_assemble(const char *out_dir, char *err, size_t errlen)
{
    char *work = usd_join(out_dir, USD_WORK_DIR);
    if (!work) {
        fileerr_set(err, errlen, out_dir, "out of memory");
        return -1;
    }
    UsdMeta m;
    int rc = usd_read_meta(work, &m, err, errlen) == 0 &&
             usd_assemble_from(out_dir, work, &m, err, errlen) == 0 ? 0 : -1;
    free(work);
    return rc;
}

/* ---- the writer ---------------------------------------------------------------------- */

static bool usd_part_used(const UsdWriter *w, int p)
{
    if (p >= PART_A_EXTENT)
        return w->meta.anisotropic;
    if (p >= PART_B_EXTENT)
        return w->meta.brick_width > 0;
    if (p >= PART_D_EXTENT)
        return w->meta.diffuse;
    return p <= PART_P_POINTS || w->meta.surface;
}

static void usd_free(UsdWriter *w)
{
    for (int p = 0; p < PART_COUNT; p++)
        if (w->part[p])
            fclose(w->part[p]);
    if (w->frames)
        fclose(w->frames);
    free(w->out_dir);
    free(w->work);
    free(w);
}

/* Opens (truncating) one part file of the work directory. */
static FILE *usd_create_part(const char *work, const char *name, char *err, size_t errlen)
{
    char *path = usd_join(work, name);
    FILE *f = path ? fopen(path, "wb") : NULL;
    if (!f)
        fileerr_set(err, errlen, path ? path : work, "cannot create: %s",
                   path ? strerror(errno) : "out of memory");
    free(path);
    return f;
}

static int usd_make_work(UsdWriter *w, char *err, size_t errlen)
{
    if (mkdir(w->work, 0777) != 0 && errno != EEXIST) {
        fileerr_set(err, errlen, w->out_dir, "cannot create %s: %s", w->work, strerror(errno));
        return -1;
    }
    if (usd_write_meta(w->work, &w->meta, err, errlen) != 0)
        return -1;
    for (int p = 0; p < PART_COUNT; p++)
        if (usd_part_used(w, p) && !(w->part[p] = usd_create_part(w->work, usd_parts[p].file,
                                                                   err, errlen)))
            return -1;
    w->frames = usd_create_part(w->work, "frames", err, errlen);
    return w->frames ? 0 : -1;
}

UsdWriter *usd_open(const char *out_dir, double fps, float point_width, bool with_surface,
                    char *err, size_t errlen)
{
    const UsdOptions opt = { fps, point_width, with_surface, false, 0.0f, false };
    return usd_open_with(out_dir, &opt, err, errlen);
}

UsdWriter *usd_open_with(const char *out_dir, const UsdOptions *opt, char *err, size_t errlen)
{
    double fps = opt->fps;
    float point_width = opt->point_width;
    if (!(fps > 0) || !isfinite(fps) || !(point_width > 0) || !isfinite(point_width) ||
        !(opt->brick_width >= 0) || !isfinite(opt->brick_width)) {
        fileerr_set(err, errlen, out_dir, "frame rate %g and point width %g must be positive, "
                    "brick width %g not negative", fps, (double)point_width, (double)opt->brick_width);
        return NULL;
    }
    UsdWriter *w = calloc(1, sizeof *w);
    if (!w) {
        fileerr_set(err, errlen, out_dir, "out of memory");
        return NULL;
    }
    w->meta = (UsdMeta){ fps, point_width, opt->surface, opt->diffuse, opt->brick_width,
                         opt->anisotropic };
    w->next_assembly = 1;
    w->out_dir = strdup(out_dir);
    w->work = usd_join(out_dir, USD_WORK_DIR);
    if (!w->out_dir || !w->work) {
        fileerr_set(err, errlen, out_dir, "out of memory");
        usd_free(w);
        return NULL;
    }
    if (usd_make_work(w, err, errlen) != 0) {
        usd_free(w);
        return NULL;
    }
    return w;
}

/* Checks one frame's input before anything is written, so a bad call leaves no trace. */
static int usd_check_frame(const UsdWriter *w, const UsdFrame *fr, char *err, size_t errlen)
{
    int frame = fr->frame;
    const Vec3 *pos = fr->pos;
    size_t n = fr->n, nverts = fr->nverts, ntris = fr->ntris;
    const float *mesh_xyz = fr->mesh_xyz;
    const uint32_t *tri = fr->tri;
    const char *why = NULL;
    if (w->broken)
        why = "an earlier write failed; the stage keeps the frames before it";
    else if (w->nframes > 0 && frame <= w->last_frame)
        why = "frames must increase";
    else if (n > 0 && !pos)
        why = "particle count given without positions";
    else if (!w->meta.surface && (nverts > 0 || ntris > 0))
        why = "surface given but the stage was opened without one";
    else if ((nverts > 0 && !mesh_xyz) || (ntris > 0 && !tri))
        why = "surface count given without its array";
    else if (!w->meta.diffuse && fr->ndiffuse > 0)
        why = "diffuse particles given but the stage was opened without them";
    else if (fr->ndiffuse > 0 && (!fr->diffuse_pos || !fr->diffuse_type))
        why = "diffuse count given without its arrays";
    else if (!(w->meta.brick_width > 0) && fr->nbricks > 0)
        why = "bricks given but the stage was opened without them";
    else if (fr->nbricks > 0 && (!fr->brick_xyz || !fr->brick_grey))
        why = "brick count given without its arrays";
    else if (!w->meta.anisotropic && (fr->aniso_nverts > 0 || fr->aniso_ntris > 0))
        why = "anisotropic surface given but the stage was opened without one";
    else if ((fr->aniso_nverts > 0 && !fr->aniso_xyz) || (fr->aniso_ntris > 0 && !fr->aniso_tri))
        why = "anisotropic surface count given without its array";
    if (why) {
        fileerr_set(err, errlen, w->out_dir, "frame %d: %s", frame, why);
        return -1;
    }
    for (size_t i = 0; i < 3 * fr->aniso_ntris; i++) {
        if (fr->aniso_tri[i] >= fr->aniso_nverts) {
            fileerr_set(err, errlen, w->out_dir, "frame %d: anisotropic triangle %zu uses vertex "
                        "%lu of %zu", frame, i / 3, (unsigned long)fr->aniso_tri[i], fr->aniso_nverts);
            return -1;
        }
    }
    for (size_t i = 0; i < 3 * ntris; i++) {
        if (tri[i] >= nverts) {
            fileerr_set(err, errlen, w->out_dir, "frame %d: triangle %zu uses vertex %lu of %zu",
                       frame, i / 3, (unsigned long)tri[i], nverts);
            return -1;
        }
    }
    return 0;
}

static int usd_write_diffuse(UsdWriter *w, const UsdFrame *fr)
{
    const float *xyz = fr->ndiffuse ? &fr->diffuse_pos[0].x : NULL;
    size_t stride = sizeof(Vec3) / sizeof(float);
    return usd_write_extent(w, w->part[PART_D_EXTENT], fr->frame, xyz, fr->ndiffuse, stride,
                            0.25f * w->meta.width) != 0 ||
           usd_write_points(w, w->part[PART_D_POINTS], fr->frame, xyz, fr->ndiffuse, stride) != 0 ||
           usd_write_types(w, w->part[PART_D_TYPE], fr->frame, fr->diffuse_type, fr->ndiffuse) != 0
               ? -1 : 0;
}

static int usd_write_bricks(UsdWriter *w, const UsdFrame *fr)
{
    return usd_write_extent(w, w->part[PART_B_EXTENT], fr->frame, fr->brick_xyz, fr->nbricks, 3,
                            0.5f * w->meta.brick_width) != 0 ||
           usd_write_points(w, w->part[PART_B_POINTS], fr->frame, fr->brick_xyz, fr->nbricks, 3) != 0 ||
           usd_write_greys(w, w->part[PART_B_COLOUR], fr->frame, fr->brick_grey, fr->nbricks) != 0
               ? -1 : 0;
}

/* One frame of a mesh into its four parts, extent first (surface or anisotropic). */
static int usd_write_mesh(UsdWriter *w, int first, int frame, const float *xyz, size_t nverts,
                          const uint32_t *tri, size_t ntris)
{
    return usd_write_extent(w, w->part[first], frame, xyz, nverts, 3, 0) != 0 ||
           usd_write_counts(w, w->part[first + 1], frame, ntris) != 0 ||
           usd_write_indices(w, w->part[first + 2], frame, tri, ntris) != 0 ||
           usd_write_points(w, w->part[first + 3], frame, xyz, nverts, 3) != 0 ? -1 : 0;
}

static int usd_write_frame(UsdWriter *w, const UsdFrame *fr)
{
    int frame = fr->frame;
    const float *pxyz = fr->n ? &fr->pos[0].x : NULL;
    size_t pstride = sizeof(Vec3) / sizeof(float);
    float pad = 0.5f * w->meta.width;
    if (usd_write_extent(w, w->part[PART_P_EXTENT], frame, pxyz, fr->n, pstride, pad) != 0 ||
        usd_write_points(w, w->part[PART_P_POINTS], frame, pxyz, fr->n, pstride) != 0)
        return -1;
    if (w->meta.surface &&
        usd_write_mesh(w, PART_S_EXTENT, frame, fr->mesh_xyz, fr->nverts, fr->tri, fr->ntris) != 0)
        return -1;
    if (w->meta.diffuse && usd_write_diffuse(w, fr) != 0)
        return -1;
    if (w->meta.brick_width > 0 && usd_write_bricks(w, fr) != 0)
        return -1;
    return w->meta.anisotropic ? usd_write_mesh(w, PART_A_EXTENT, frame, fr->aniso_xyz,
                                                fr->aniso_nverts, fr->aniso_tri, fr->aniso_ntris) : 0;
}

int usd_add_frame(UsdWriter *w, int frame, const Vec3 *pos, size_t n, const float *mesh_xyz,
                  size_t nverts, const uint32_t *tri, size_t ntris, char *err, size_t errlen)
{
    const UsdFrame fr = { .frame = frame, .pos = pos, .n = n, .mesh_xyz = mesh_xyz,
                          .nverts = nverts, .tri = tri, .ntris = ntris };
    return usd_add_frame_with(w, &fr, err, errlen);
}

int usd_add_frame_with(UsdWriter *w, const UsdFrame *fr, char *err, size_t errlen)
{
    int frame = fr->frame;
    if (!w) {
        fileerr_set(err, errlen, "usd", "no writer");
        return -1;
    }
    if (usd_check_frame(w, fr, err, errlen) != 0)
        return -1;
    errno = 0;
    w->len = 0;
    /* Samples first, the commit record last: a frame is in the stage only once all its
     * samples are on disk. */
    if (usd_write_frame(w, fr) != 0 ||
        fprintf(w->frames, "%d\n", frame) < 0 || fflush(w->frames) != 0) {
        w->broken = true;
        fileerr_set(err, errlen, w->work, "frame %d: write failed: %s", frame,
                   errno ? strerror(errno) : "I/O error");
        return -1;
    }
    w->nframes++;
    w->last_frame = frame;
    if (w->deferred || w->nframes < w->next_assembly)
        return 0;
    while (w->next_assembly <= w->nframes)
        w->next_assembly *= 2;
    if (usd_assemble_from(w->out_dir, w->work, &w->meta, err, errlen) != 0)
        return -1;
    w->assembled = w->nframes;
    return 0;
}

static void usd_remove_work(UsdWriter *w)
{
    for (int p = 0; p < PART_COUNT; p++) {
        if (w->part[p]) {
            fclose(w->part[p]);
            w->part[p] = NULL;
        }
        char *path = usd_join(w->work, usd_parts[p].file);
        if (path)
            remove(path);
        free(path);
    }
    const char *extra[] = { "frames", "meta" };
    for (int i = 0; i < 2; i++) {
        char *path = usd_join(w->work, extra[i]);
        if (path)
            remove(path);
        free(path);
    }
    rmdir(w->work);
}

void usd_defer_assembly(UsdWriter *w, bool defer)
{
    w->deferred = defer;
}

void usd_discard(UsdWriter *w)
{
    if (!w)
        return;
    if (w->frames)
        fclose(w->frames);
    w->frames = NULL;
    usd_remove_work(w);
    usd_free(w);
}

int usd_close(UsdWriter *w, char *err, size_t errlen)
{
    if (!w)
        return 0;
    int rc = 0;
    if (w->assembled != w->nframes || w->nframes == 0)
        rc = usd_assemble_from(w->out_dir, w->work, &w->meta, err, errlen);
    if (rc == 0) {
        if (w->frames)
            fclose(w->frames);
        w->frames = NULL;
        usd_remove_work(w);
    }
    usd_free(w);
    return rc;
}
