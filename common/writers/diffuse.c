/* diffuse.c — spray, foam and bubbles after Ihmsen et al. 2012 ("Unified spray, foam and bubbles
 * for particle-based fluids"), on the sim's cells: potentials from the binned liquid, seeding by
 * a hashed random number per cell and frame, motion by type. flipkit common/writers/. */
#include "diffuse.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"

const char *const diffuse_type_names[DIFFUSE_TYPES] = { "spray", "foam", "bubble" };

/* The constants, and why. Speeds are measured against v_ref = sqrt(|g| dx), the speed a fall
 * of half a cell gives, so a scene at another scale or gravity seeds alike.
 *  - Potentials are clamped to [lo, hi] and mapped to [0, 1] (Ihmsen's Phi). A tank at rest
 *    has none (kinetic energy 0); ball_drop's splash reaches the top of each range.
 *  - Seeding rate: cells per second at full potential; ball_drop at 32^3 then seeds a few
 *    thousand particles over its splash, 64^3 about eight times as many.
 *  - Types by the liquid fraction around the particle (the binned count over
 *    particles_per_cell): spray below 0.3, bubble above 0.8, foam between (Ihmsen counts
 *    neighbours: < 6 spray, > 20 bubble).
 *  - Bubbles: buoyancy 0.8 |g| up, drag 0.5 toward the liquid per step (Ihmsen's k_b, k_d).
 *  - Foam lives 1 to 3 s (only foam ages, as in Ihmsen). */
#define DIFFUSE_TA_LO 1.0f
#define DIFFUSE_TA_HI 6.0f
#define DIFFUSE_WC_LO 0.1f
#define DIFFUSE_WC_HI 1.0f
#define DIFFUSE_K_LO 1.0f
#define DIFFUSE_K_HI 8.0f
#define DIFFUSE_RATE_TA 15.0f
#define DIFFUSE_RATE_WC 15.0f
#define DIFFUSE_SPRAY_BELOW 0.3f
#define DIFFUSE_BUBBLE_ABOVE 0.8f
#define DIFFUSE_BUOYANCY 0.8f
#define DIFFUSE_DRAG 0.5f
#define DIFFUSE_LIFE_MIN 1.0f
#define DIFFUSE_LIFE_MAX 3.0f
#define DIFFUSE_MAX_SUBSTEPS 16

void diffuse_init(Diffuse *d, size_t limit)
{
    memset(d, 0, sizeof *d);
    d->limit = limit;
}

static void diffuse_free_liquid(DiffuseLiquid *l)
{
    free(l->count);
    free(l->vel);
    free(l->normal);
    memset(l, 0, sizeof *l);
}

void diffuse_free(Diffuse *d)
{
    free(d->pos);
    free(d->vel);
    free(d->life);
    free(d->type);
    diffuse_free_liquid(&d->liquid);
    diffuse_init(d, d->limit);
}

static int diffuse_oom(char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "diffuse particles: out of memory for %s", what);
    return -1;
}

static int diffuse_reserve(Diffuse *d, size_t n)
{
    if (n <= d->capacity)
        return 0;
    size_t cap = d->capacity ? d->capacity : 1024;
    while (cap < n)
        cap *= 2;
    Vec3 *pos = realloc(d->pos, cap * sizeof *pos);
    d->pos = pos ? pos : d->pos;
    Vec3 *vel = realloc(d->vel, cap * sizeof *vel);
    d->vel = vel ? vel : d->vel;
    float *life = realloc(d->life, cap * sizeof *life);
    d->life = life ? life : d->life;
    uint8_t *type = realloc(d->type, cap);
    d->type = type ? type : d->type;
    if (!pos || !vel || !life || !type)
        return -1;
    d->capacity = cap;
    return 0;
}

/* ---- random numbers: a hash of (seed, frame, cell, draw), so no state crosses frames --- */

static uint64_t diffuse_mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15u;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static float diffuse_uniform(uint64_t key, uint64_t draw)
{
    return (float)(diffuse_mix(key ^ diffuse_mix(draw)) >> 40) * (1.0f / 16777216.0f);
}

/* ---- the liquid on the cells --------------------------------------------------------- */

static size_t diffuse_cell(const DiffuseLiquid *l, int i, int j, int k)
{
    return (size_t)i + (size_t)l->n[0] * ((size_t)j + (size_t)l->n[1] * (size_t)k);
}

static bool diffuse_cell_of(const DiffuseLiquid *l, Vec3 p, int c[3])
{
    const float x[3] = { p.x, p.y, p.z };
    for (int a = 0; a < 3; a++) {
        float q = floorf(x[a] / l->dx);
        if (!(q >= 0.0f && q < (float)l->n[a]))   /* NaN fails */
            return false;
        c[a] = (int)q;
    }
    return true;
}

static int diffuse_liquid_size(DiffuseLiquid *l, const MacGrid *g)
{
    size_t cells = (size_t)g->nx * g->ny * g->nz;
    if (l->count && l->n[0] == g->nx && l->n[1] == g->ny && l->n[2] == g->nz)
        return 0;
    diffuse_free_liquid(l);
    l->count = malloc(cells * sizeof *l->count);
    l->vel = malloc(cells * sizeof *l->vel);
    l->normal = malloc(cells * sizeof *l->normal);
    if (!l->count || !l->vel || !l->normal) {
        diffuse_free_liquid(l);
        return -1;
    }
    l->n[0] = g->nx;
    l->n[1] = g->ny;
    l->n[2] = g->nz;
    return 0;
}

static float diffuse_count_at(const DiffuseLiquid *l, int i, int j, int k)
{
    bool in = i >= 0 && j >= 0 && k >= 0 && i < l->n[0] && j < l->n[1] && k < l->n[2];
    return in ? l->count[diffuse_cell(l, i, j, k)] : 0.0f;
}

/* The outward normal where the liquid meets air: minus the count's gradient, normalised. */
static void diffuse_normals(DiffuseLiquid *l)
{
    for (int k = 0; k < l->n[2]; k++)
        for (int j = 0; j < l->n[1]; j++)
            for (int i = 0; i < l->n[0]; i++) {
                size_t c = diffuse_cell(l, i, j, k);
                Vec3 g = { diffuse_count_at(l, i + 1, j, k) - diffuse_count_at(l, i - 1, j, k),
                           diffuse_count_at(l, i, j + 1, k) - diffuse_count_at(l, i, j - 1, k),
                           diffuse_count_at(l, i, j, k + 1) - diffuse_count_at(l, i, j, k - 1) };
                float len = sqrtf(g.x * g.x + g.y * g.y + g.z * g.z);
                bool surface = l->count[c] > 0.0f && len > 0.0f;
                float s = surface ? -1.0f / len : 0.0f;
                l->normal[c] = (Vec3){ g.x * s, g.y * s, g.z * s };
            }
}

static int diffuse_bin(DiffuseLiquid *l, const Particles *ps, const MacGrid *g)
{
    if (diffuse_liquid_size(l, g) != 0)
        return -1;
    l->dx = g->dx;
    size_t cells = (size_t)l->n[0] * l->n[1] * l->n[2];
    memset(l->count, 0, cells * sizeof *l->count);
    memset(l->vel, 0, cells * sizeof *l->vel);
    for (size_t p = 0; p < ps->count; p++) {
        int c[3];
        if (!diffuse_cell_of(l, ps->pos[p], c))
            continue;
        size_t at = diffuse_cell(l, c[0], c[1], c[2]);
        l->count[at] += 1.0f;
        l->vel[at].x += ps->vel[p].x;
        l->vel[at].y += ps->vel[p].y;
        l->vel[at].z += ps->vel[p].z;
    }
    for (size_t c = 0; c < cells; c++) {
        float s = l->count[c] > 0.0f ? 1.0f / l->count[c] : 0.0f;
        l->vel[c] = (Vec3){ l->vel[c].x * s, l->vel[c].y * s, l->vel[c].z * s };
    }
    diffuse_normals(l);
    return 0;
}

/* Trilinear between cell centres, over the cells that hold liquid only: the liquid's velocity
 * at p (false when no liquid cell is among the eight), and its fraction (count over
 * particles_per_cell, air counting 0). */
static bool diffuse_sample(const DiffuseLiquid *l, Vec3 p, float ppc, Vec3 *vel, float *fraction)
{
    const float x[3] = { p.x / l->dx - 0.5f, p.y / l->dx - 0.5f, p.z / l->dx - 0.5f };
    int c0[3];
    float t[3];
    for (int a = 0; a < 3; a++) {
        float q = floorf(x[a]);
        c0[a] = (int)q;
        t[a] = x[a] - q;
    }
    Vec3 v = { 0, 0, 0 };
    float wsum = 0.0f, frac = 0.0f;
    for (int corner = 0; corner < 8; corner++) {
        int i = c0[0] + (corner & 1), j = c0[1] + (corner >> 1 & 1), k = c0[2] + (corner >> 2 & 1);
        float w = (corner & 1 ? t[0] : 1 - t[0]) * (corner >> 1 & 1 ? t[1] : 1 - t[1]) *
                  (corner >> 2 & 1 ? t[2] : 1 - t[2]);
        float n = diffuse_count_at(l, i, j, k);
        frac += w * n / ppc;
        if (n <= 0.0f)
            continue;
        Vec3 cv = l->vel[diffuse_cell(l, i, j, k)];
        v = (Vec3){ v.x + w * cv.x, v.y + w * cv.y, v.z + w * cv.z };
        wsum += w;
    }
    *fraction = frac;
    if (wsum <= 0.0f)
        return false;
    *vel = (Vec3){ v.x / wsum, v.y / wsum, v.z / wsum };
    return true;
}

/* ---- moving -------------------------------------------------------------------------- */

static DiffuseType diffuse_type_for(float fraction)
{
    return fraction < DIFFUSE_SPRAY_BELOW ? DIFFUSE_SPRAY
           : fraction > DIFFUSE_BUBBLE_ABOVE ? DIFFUSE_BUBBLE : DIFFUSE_FOAM;
}

/* One step of h seconds for particle p; false when it leaves the domain's inside or hits a
 * solid, or its foam life runs out. */
static bool diffuse_move(Diffuse *d, size_t p, const DiffuseFrame *f, float h)
{
    const DiffuseLiquid *l = &d->liquid;
    Vec3 u, x = d->pos[p], v = d->vel[p];
    float fraction;
    bool wet = diffuse_sample(l, x, (float)f->particles_per_cell, &u, &fraction);
    DiffuseType type = wet ? diffuse_type_for(fraction) : DIFFUSE_SPRAY;
    Vec3 g = f->gravity;
    if (type == DIFFUSE_SPRAY) {            /* ballistic */
        v = (Vec3){ v.x + h * g.x, v.y + h * g.y, v.z + h * g.z };
    } else if (type == DIFFUSE_FOAM) {      /* carried by the liquid's surface */
        v = u;
    } else {                                /* buoyant, dragged toward the liquid */
        float b = -DIFFUSE_BUOYANCY * h;
        v = (Vec3){ v.x + b * g.x + DIFFUSE_DRAG * (u.x - v.x), v.y + b * g.y + DIFFUSE_DRAG * (u.y - v.y),
                    v.z + b * g.z + DIFFUSE_DRAG * (u.z - v.z) };
    }
    x = (Vec3){ x.x + h * v.x, x.y + h * v.y, x.z + h * v.z };
    d->pos[p] = x;
    d->vel[p] = v;
    d->type[p] = (uint8_t)type;
    d->life[p] -= type == DIFFUSE_FOAM ? h : 0.0f;
    int c[3];
    const MacGrid *grid = f->grid;
    if (!diffuse_cell_of(l, x, c) || c[0] < 1 || c[1] < 1 || c[2] < 1 || c[0] >= l->n[0] - 1 ||
        c[1] >= l->n[1] - 1 || c[2] >= l->n[2] - 1)
        return false;
    bool solid = grid->cell && grid->cell[diffuse_cell(l, c[0], c[1], c[2])] == CELL_SOLID;
    return !solid && d->life[p] > 0.0f;
}

static int diffuse_substeps(const Diffuse *d, const DiffuseFrame *f)
{
    float fastest = 0.0f, g = sqrtf(f->gravity.x * f->gravity.x + f->gravity.y * f->gravity.y +
                                    f->gravity.z * f->gravity.z);
    for (size_t p = 0; p < d->count; p++) {
        Vec3 v = d->vel[p];
        float s = sqrtf(v.x * v.x + v.y * v.y + v.z * v.z);
        fastest = s > fastest ? s : fastest;
    }
    float cells = (fastest + g * f->dt) * f->dt / f->grid->dx;  /* at most a cell per step */
    int n = (int)ceilf(cells);
    return n < 1 ? 1 : n > DIFFUSE_MAX_SUBSTEPS ? DIFFUSE_MAX_SUBSTEPS : n;
}

/* Moves every particle over the frame, keeping the survivors in their order. */
static void diffuse_advance(Diffuse *d, const DiffuseFrame *f)
{
    int steps = diffuse_substeps(d, f);
    float h = f->dt / (float)steps;
    size_t kept = 0;
    for (size_t p = 0; p < d->count; p++) {
        bool alive = true;
        for (int s = 0; s < steps && alive; s++)
            alive = diffuse_move(d, p, f, h);
        if (!alive)
            continue;
        d->pos[kept] = d->pos[p];
        d->vel[kept] = d->vel[p];
        d->life[kept] = d->life[p];
        d->type[kept] = d->type[p];
        kept++;
    }
    d->count = kept;
}

/* ---- seeding ------------------------------------------------------------------------- */

static float diffuse_clamp(float v, float lo, float hi)
{
    return v <= lo ? 0.0f : v >= hi ? 1.0f : (v - lo) / (hi - lo);
}

static float diffuse_dot(Vec3 a, Vec3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

/* Ihmsen's trapped-air and wave-crest potentials of cell (i, j, k) over its 26 neighbours,
 * with weight 1 - r / 2dx; speeds over vref. */
static void diffuse_potentials(const DiffuseLiquid *l, int i, int j, int k, float vref,
                               float *trapped, float *crest)
{
    size_t c = diffuse_cell(l, i, j, k);
    Vec3 vi = l->vel[c], ni = l->normal[c];
    float ta = 0.0f, wc = 0.0f;
    float speed = sqrtf(diffuse_dot(vi, vi));
    bool moving_out = speed > 0.0f && diffuse_dot(vi, ni) >= 0.6f * speed;
    for (int dk = -1; dk <= 1; dk++)
        for (int dj = -1; dj <= 1; dj++)
            for (int di = -1; di <= 1; di++) {
                int a = i + di, b = j + dj, e = k + dk;
                if ((di | dj | dk) == 0 || diffuse_count_at(l, a, b, e) <= 0.0f)
                    continue;
                size_t n = diffuse_cell(l, a, b, e);
                float r = sqrtf((float)(di * di + dj * dj + dk * dk));
                float w = 1.0f - r / 2.0f;
                Vec3 xij = { -di / r, -dj / r, -dk / r };   /* from j to i, unit */
                Vec3 vij = { vi.x - l->vel[n].x, vi.y - l->vel[n].y, vi.z - l->vel[n].z };
                float rel = sqrtf(diffuse_dot(vij, vij));
                if (rel > 0.0f)
                    ta += rel * (1.0f - diffuse_dot(vij, xij) / rel) * w;
                /* convex where the neighbour lies behind the surface's normal */
                if (moving_out && diffuse_dot(xij, ni) > 0.0f)
                    wc += (1.0f - diffuse_dot(ni, l->normal[n])) * w;
            }
    *trapped = ta / vref;
    *crest = wc;
}

/* Seeds the cell's share: rate x dt particles, the fraction by a random draw; each at a random
 * point of the cell with the liquid's velocity. */
static void diffuse_seed_cell(Diffuse *d, const DiffuseFrame *f, int i, int j, int k, float rate)
{
    const DiffuseLiquid *l = &d->liquid;
    size_t c = diffuse_cell(l, i, j, k);
    uint64_t key = diffuse_mix(f->seed ^ diffuse_mix((uint64_t)(uint32_t)f->frame << 32 ^ c));
    float want = rate * f->dt;
    int n = (int)want + (diffuse_uniform(key, 0) < want - floorf(want));
    for (int s = 0; s < n; s++) {
        if (d->count >= d->limit) {
            d->dropped++;
            continue;
        }
        uint64_t draw = 1 + 4 * (uint64_t)s;
        Vec3 x = { (i + diffuse_uniform(key, draw)) * l->dx, (j + diffuse_uniform(key, draw + 1)) * l->dx,
                   (k + diffuse_uniform(key, draw + 2)) * l->dx };
        size_t p = d->count++;
        d->pos[p] = x;
        d->vel[p] = l->vel[c];
        d->life[p] = DIFFUSE_LIFE_MIN + (DIFFUSE_LIFE_MAX - DIFFUSE_LIFE_MIN) * diffuse_uniform(key, draw + 3);
        float fraction;
        Vec3 u;
        d->type[p] = (uint8_t)(diffuse_sample(l, x, (float)f->particles_per_cell, &u, &fraction)
                               ? diffuse_type_for(fraction) : DIFFUSE_SPRAY);
        d->seeded++;
    }
}

static int diffuse_seed(Diffuse *d, const DiffuseFrame *f)
{
    const DiffuseLiquid *l = &d->liquid;
    float g = sqrtf(diffuse_dot(f->gravity, f->gravity));
    float vref = g > 0.0f ? sqrtf(g * l->dx) : l->dx / f->dt;
    for (int k = 1; k < l->n[2] - 1; k++)
        for (int j = 1; j < l->n[1] - 1; j++)
            for (int i = 1; i < l->n[0] - 1; i++) {
                size_t c = diffuse_cell(l, i, j, k);
                if (l->count[c] <= 0.0f)
                    continue;
                Vec3 v = l->vel[c];
                float energy = diffuse_clamp(0.5f * diffuse_dot(v, v) / (vref * vref), DIFFUSE_K_LO,
                                             DIFFUSE_K_HI);
                if (energy <= 0.0f)
                    continue;
                float ta, wc;
                diffuse_potentials(l, i, j, k, vref, &ta, &wc);
                /* A blob in free fall is a crest on its leading face by Ihmsen's measure, but
                 * it does not break: crests seed only where the liquid also shears. */
                float shear = ta >= DIFFUSE_TA_LO ? 1.0f : ta / DIFFUSE_TA_LO;
                float rate = energy * (DIFFUSE_RATE_TA * diffuse_clamp(ta, DIFFUSE_TA_LO, DIFFUSE_TA_HI) +
                                       DIFFUSE_RATE_WC * shear * diffuse_clamp(wc, DIFFUSE_WC_LO, DIFFUSE_WC_HI));
                if (rate <= 0.0f)
                    continue;
                if (diffuse_reserve(d, d->count + (size_t)(rate * f->dt) + 1) != 0)
                    return -1;
                diffuse_seed_cell(d, f, i, j, k, rate);
            }
    return 0;
}

int diffuse_step(Diffuse *d, const Particles *liquid, const DiffuseFrame *f, char *err,
                 size_t errlen)
{
    if (diffuse_bin(&d->liquid, liquid, f->grid) != 0)
        return diffuse_oom(err, errlen, "the liquid's cells");
    diffuse_advance(d, f);
    if (diffuse_seed(d, f) != 0)
        return diffuse_oom(err, errlen, "new particles");
    return 0;
}

void diffuse_tally(const Diffuse *d, DiffuseTally *t)
{
    memset(t, 0, sizeof *t);
    for (size_t p = 0; p < d->count; p++)
        t->by_type[d->type[p] < DIFFUSE_TYPES ? d->type[p] : DIFFUSE_SPRAY]++;
    t->alive = d->count;
    t->seeded = d->seeded;
    t->dropped = d->dropped;
    t->limit = d->limit;
}

/* ---- the file ------------------------------------------------------------------------ */

static const char diffuse_header[] =
    "ply\nformat binary_little_endian 1.0\n"
    "comment flipkit diffuse particles: type 0 spray, 1 foam, 2 bubble; life in seconds\n"
    "element vertex %zu\nproperty float x\nproperty float y\nproperty float z\n"
    "property float vx\nproperty float vy\nproperty float vz\nproperty uchar type\n"
    "property float life\nend_header\n";
enum { DIFFUSE_RECORD = 29 };

static void diffuse_put_f32(unsigned char *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(u >> (8 * i));
}

static float diffuse_get_f32(const unsigned char *p)
{
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static int diffuse_body(FILE *f, const void *ctx, char *why, size_t whylen)
{
    (void)why;
    (void)whylen;
    const Diffuse *d = ctx;
    if (fprintf(f, diffuse_header, d->count) < 0)
        return -1;
    for (size_t p = 0; p < d->count; p++) {
        unsigned char rec[DIFFUSE_RECORD];
        const float v[6] = { d->pos[p].x, d->pos[p].y, d->pos[p].z, d->vel[p].x, d->vel[p].y, d->vel[p].z };
        for (int i = 0; i < 6; i++)
            diffuse_put_f32(rec + 4 * i, v[i]);
        rec[24] = d->type[p];
        diffuse_put_f32(rec + 25, d->life[p]);
        if (fwrite(rec, 1, sizeof rec, f) != sizeof rec)
            return -1;
    }
    return 0;
}

int diffuse_write_ply(const Diffuse *d, const char *path, char *err, size_t errlen)
{
    char why[600] = "";
    if (atomic_write(path, false, diffuse_body, d, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s: %s", path, why);
        return -1;
    }
    return 0;
}

int diffuse_read_ply(Diffuse *d, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT)
            return 1;
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    char head[1024];
    size_t got = fread(head, 1, sizeof head - 1, f), n = 0;
    head[got] = '\0';
    char *end = strstr(head, "end_header\n");
    int ok = end && sscanf(head, "ply\nformat binary_little_endian 1.0\ncomment flipkit diffuse "
                                 "particles: type 0 spray, 1 foam, 2 bubble; life in seconds\n"
                                 "element vertex %zu\n", &n) == 1;
    char want[sizeof diffuse_header + 24];
    snprintf(want, sizeof want, diffuse_header, n);
    size_t hlen = end ? (size_t)(end - head) + strlen("end_header\n") : 0;
    ok = ok && hlen == strlen(want) && memcmp(head, want, hlen) == 0 && n <= d->limit &&
         fseek(f, (long)hlen, SEEK_SET) == 0 && diffuse_reserve(d, n) == 0;
    d->count = 0;
    for (size_t p = 0; ok && p < n; p++) {
        unsigned char rec[DIFFUSE_RECORD];
        ok = fread(rec, 1, sizeof rec, f) == sizeof rec && rec[24] < DIFFUSE_TYPES;
        d->pos[p] = (Vec3){ diffuse_get_f32(rec), diffuse_get_f32(rec + 4), diffuse_get_f32(rec + 8) };
        d->vel[p] = (Vec3){ diffuse_get_f32(rec + 12), diffuse_get_f32(rec + 16), diffuse_get_f32(rec + 20) };
        d->type[p] = rec[24];
        d->life[p] = diffuse_get_f32(rec + 25);
        d->count = ok ? p + 1 : 0;
    }
    fclose(f);
    if (!ok) {
        d->count = 0;
        snprintf(err, errlen, "%s: not a diffuse-particle file flipsim wrote (its header, "
                 "a count within output.diffuse_max, and %d bytes per particle)", path, DIFFUSE_RECORD);
        return -1;
    }
    return 0;
}
