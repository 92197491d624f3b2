/* stagecase.c — run a stage on a golden case; check its output with the stage's tolerances.
 * flipkit tests/: the tolerances below are the stage suites' golden tolerances, each with the
 * reason for its size; the grader uses them unchanged (its calibration checks they suffice). */
#include "stagecase.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fielddiff.h"

static const char letters[3] = { 'u', 'v', 'w' };

/* ---- reading a case -------------------------------------------------------------------------- */

typedef struct {
    const StateFile *sf;
    char *err;
    size_t errlen;
    int failed;
} Reader;

static void reader_fail(Reader *rd, const char *fmt, ...)
{
    if (rd->failed++)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rd->err, rd->errlen, fmt, ap);
    va_end(ap);
}

/* Section tag as count floats; NULL (and a failure) when missing or of another size. */
static const float *read_f32(Reader *rd, const char *tag, size_t count)
{
    uint64_t n = 0;
    const float *v = state_find(rd->sf, tag, STATE_F32, &n);
    if (!v)
        reader_fail(rd, "section \"%s\" is missing", tag);
    else if (n != count)
        reader_fail(rd, "section \"%s\" has %llu numbers, expected %zu", tag, (unsigned long long)n,
                    count);
    return v && n == count ? v : NULL;
}

static float read_param(Reader *rd, const char *tag)
{
    const float *v = read_f32(rd, tag, 1);
    return v ? v[0] : 0.0f;
}

static size_t read_particle_count(Reader *rd, const char *prefix)
{
    char tag[STATE_TAG_LEN];
    snprintf(tag, sizeof tag, "%spos", prefix);
    uint64_t n = 0;
    if (!state_find(rd->sf, tag, STATE_F32, &n) || n % 3 != 0) {
        reader_fail(rd, "section \"%s\" missing or not 3 numbers per particle", tag);
        return 0;
    }
    return (size_t)(n / 3);
}

static void read_particles(Reader *rd, const char *prefix, Particles *ps)
{
    size_t n = read_particle_count(rd, prefix);
    char tag[STATE_TAG_LEN];
    snprintf(tag, sizeof tag, "%spos", prefix);
    const float *pos = read_f32(rd, tag, 3 * n);
    snprintf(tag, sizeof tag, "%svel", prefix);
    const float *vel = read_f32(rd, tag, 3 * n);
    if (!pos || !vel)
        return;
    if (part_reserve(ps, n) != 0) {
        reader_fail(rd, "out of memory for %zu particles", n);
        return;
    }
    ps->count = n;
    memcpy(ps->pos, pos, n * sizeof(Vec3));
    memcpy(ps->vel, vel, n * sizeof(Vec3));
}

/* Face sections "<prefix>u<suffix>" ... into dst[a] (grid-sized arrays). */
static void read_faces(Reader *rd, const MacGrid *g, const char *prefix, const char *suffix,
                       float *const dst[3])
{
    for (int a = 0; a < 3; a++) {
        char tag[STATE_TAG_LEN];
        snprintf(tag, sizeof tag, "%s%c%s", prefix, letters[a], suffix);
        const float *v = read_f32(rd, tag, grid_faces(g, a));
        if (v)
            memcpy(dst[a], v, grid_faces(g, a) * sizeof(float));
    }
}

int stagecase_grid(const StateFile *sf, MacGrid *g, char *err, size_t errlen)
{
    uint64_t n = 0;
    const int32_t *dims = state_find(sf, "dims", STATE_I32, &n);
    const float *dx = state_find(sf, "dx", STATE_F32, NULL);
    if (!dims || n != 3 || !dx) {
        snprintf(err, errlen, "section \"dims\" or \"dx\" missing");
        return -1;
    }
    if (grid_init(g, dims[0], dims[1], dims[2], dx[0]) != 0) {
        snprintf(err, errlen, "cannot make a %dx%dx%d grid", dims[0], dims[1], dims[2]);
        return -1;
    }
    const int8_t *cell = state_find(sf, "cell", STATE_I8, &n);
    if (!cell || n != grid_cells(g)) {
        snprintf(err, errlen, "section \"cell\" missing or not %zu cells", grid_cells(g));
        grid_free(g);
        return -1;
    }
    memcpy(g->cell, cell, (size_t)n);
    return 0;
}

/* ---- writing outputs ------------------------------------------------------------------------- */

static void add_faces(StateFile *out, const char *prefix, const MacGrid *g, float *const f[3])
{
    for (int a = 0; a < 3; a++) {
        char tag[STATE_TAG_LEN];
        snprintf(tag, sizeof tag, "%s%c", prefix, letters[a]);
        state_add(out, tag, STATE_F32, f[a], grid_faces(g, a));
    }
}

static void add_particles(StateFile *out, const Particles *ps)
{
    state_add(out, "out.pos", STATE_F32, ps->pos, 3 * ps->count);
    state_add(out, "out.vel", STATE_F32, ps->vel, 3 * ps->count);
}

static void fill_faces(MacGrid *g, float *const f[3], float v)
{
    for (int a = 0; a < 3; a++)
        for (size_t i = 0; i < grid_faces(g, a); i++)
            f[a][i] = v;
}

static float *alloc_cells(Reader *rd, const MacGrid *g, float fill)
{
    float *v = malloc(grid_cells(g) * sizeof *v);
    if (!v) {
        reader_fail(rd, "out of memory");
        return NULL;
    }
    for (size_t c = 0; c < grid_cells(g); c++)
        v[c] = fill;
    return v;
}

/* ---- running: each stage's inputs, the call, its outputs -------------------------------------- */

/* Particle arrays hold spare room past ps->count, as in a real run; the slots there carry a
 * sentinel a stage must leave alone (contract: only p < ps->count are particles). */
enum { SPARE_SLOTS = 8 };
static const Vec3 spare_pos = { 0.25f, 0.25f, 0.25f }, spare_vel = { 1234.5f, -1234.5f, 1234.5f };

static void add_spare_slots(Particles *ps)
{
    if (part_reserve(ps, ps->count + SPARE_SLOTS) != 0)
        return;
    for (size_t p = ps->count; p < ps->count + SPARE_SLOTS; p++)
        ps->pos[p] = spare_pos, ps->vel[p] = spare_vel;
}

/* "out.spare": how many spare slots the stage changed (0 when it kept to ps->count). */
static void add_spare_changes(StateFile *out, const Particles *ps)
{
    int32_t changed = 0;
    for (size_t p = ps->count; p < ps->count + SPARE_SLOTS && p < ps->capacity; p++)
        changed += memcmp(&ps->pos[p], &spare_pos, sizeof spare_pos) != 0 ||
                   memcmp(&ps->vel[p], &spare_vel, sizeof spare_vel) != 0;
    state_add(out, "out.spare", STATE_I32, &changed, 1);
}

/* The stage once on another, smaller grid before the case's (its output thrown away): the
 * driver and the grader call a stage on many grids in one process, and a stage that keeps the
 * first one's sizes or cell types in a static gets every later one wrong. */
static void run_decoy(const Track *t, const char *stage)
{
    MacGrid d;
    if (grid_init(&d, 4, 5, 3, 0.3f) != 0)
        return;
    for (int k = 1; k < d.nz - 1; k++)
        for (int j = 1; j < d.ny - 1; j++)
            for (int i = 1; i < d.nx - 1; i++)
                d.cell[grid_cell_index(&d, i, j, k)] = CELL_FLUID;
    size_t n = grid_cells(&d);
    float *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b), *c = calloc(n, sizeof *c);
    float *old[3] = { calloc(grid_faces(&d, 0), sizeof(float)), calloc(grid_faces(&d, 1), sizeof(float)),
                      calloc(grid_faces(&d, 2), sizeof(float)) };
    Particles none;
    part_init(&none);
    if (a && b && c && old[0] && old[1] && old[2]) {
        if (!strcmp(stage, "advect")) t->advect(&none, 0.01f);
        else if (!strcmp(stage, "p2g")) t->p2g(&none, &d);
        else if (!strcmp(stage, "g2p")) t->g2p(&none, &d, old, 0.5f);
        else if (!strcmp(stage, "gravity")) t->gravity(&d, (Vec3){ 0, -9.81f, 0 }, 0.01f);
        else if (!strcmp(stage, "gradient")) t->gradient(&d, a, 0.01f);
        else if (!strcmp(stage, "divergence")) t->divergence(&d, a);
        else if (!strcmp(stage, "laplacian")) t->laplacian(&d, a, b);
        else if (!strcmp(stage, "jacobi")) t->jacobi(&d, a, b, 1.0f, c);
    }
    free(a), free(b), free(c), free(old[0]), free(old[1]), free(old[2]);
    grid_free(&d);
}

static void run_particle_stage(const Track *t, const char *stage, Reader *rd, MacGrid *g,
                               StateFile *out)
{
    Particles ps;
    part_init(&ps);
    read_particles(rd, "in.", &ps);
    add_spare_slots(&ps);
    if (strcmp(stage, "advect") == 0) {
        float dt = read_param(rd, "dt");
        if (!rd->failed)
            t->advect(&ps, dt);
    } else if (strcmp(stage, "p2g") == 0) {
        fill_faces(g, g->vel, 123.0f);
        fill_faces(g, g->weight, 123.0f);
        if (!rd->failed) {
            t->p2g(&ps, g);
            add_faces(out, "out.", g, g->vel);
            add_faces(out, "out.w", g, g->weight);
        }
    } else { /* g2p */
        float *old[3] = { NULL, NULL, NULL };
        for (int a = 0; a < 3; a++)
            if (!(old[a] = calloc(grid_faces(g, a), sizeof(float))))
                reader_fail(rd, "out of memory");
        read_faces(rd, g, "in.", "", g->vel);
        if (!rd->failed)
            read_faces(rd, g, "in.", "_old", old);
        float alpha = read_param(rd, "alpha");
        if (!rd->failed)
            t->g2p(&ps, g, old, alpha);
        for (int a = 0; a < 3; a++)
            free(old[a]);
    }
    if (!rd->failed && strcmp(stage, "p2g") != 0)
        add_particles(out, &ps);
    if (!rd->failed)
        add_spare_changes(out, &ps);
    part_free(&ps);
}

static void run_cell_stage(const Track *t, const char *stage, Reader *rd, MacGrid *g,
                           StateFile *out)
{
    size_t n = grid_cells(g);
    float *got = alloc_cells(rd, g, 999.0f);
    if (strcmp(stage, "divergence") == 0) {
        read_faces(rd, g, "in.", "", g->vel);
        if (!rd->failed) {
            t->divergence(g, got);
            state_add(out, "out.div", STATE_F32, got, n);
        }
    } else if (strcmp(stage, "laplacian") == 0) {
        const float *p = read_f32(rd, "in.p", n);
        if (!rd->failed) {
            t->laplacian(g, p, got);
            state_add(out, "out.Lp", STATE_F32, got, n);
        }
    } else { /* jacobi */
        const float *p = read_f32(rd, "in.p", n), *rhs = read_f32(rd, "in.rhs", n);
        float omega = read_param(rd, "omega");
        if (!rd->failed) {
            t->jacobi(g, p, rhs, omega, got);
            state_add(out, "out.p", STATE_F32, got, n);
        }
    }
    free(got);
}

static void run_face_stage(const Track *t, const char *stage, Reader *rd, MacGrid *g,
                           StateFile *out)
{
    read_faces(rd, g, "in.", "", g->vel);
    float dt_or_scale = read_param(rd, strcmp(stage, "gravity") == 0 ? "dt" : "scale");
    if (strcmp(stage, "gravity") == 0) {
        const float *gr = read_f32(rd, "gravity", 3);
        if (!rd->failed)
            t->gravity(g, (Vec3){ gr[0], gr[1], gr[2] }, dt_or_scale);
    } else { /* gradient */
        const float *p = read_f32(rd, "in.p", grid_cells(g));
        if (!rd->failed)
            t->gradient(g, p, dt_or_scale);
    }
    if (!rd->failed)
        add_faces(out, "out.", g, g->vel);
}

int stagecase_run(const Track *t, const char *stage, const StateFile *in, StateFile *out,
                  char *err, size_t errlen)
{
    if (!stagecase_outputs(stage)) {
        snprintf(err, errlen, "no stage \"%s\"", stage);
        return -1;
    }
    MacGrid g;
    if (stagecase_grid(in, &g, err, errlen) != 0)
        return -1;
    Reader rd = { in, err, errlen, 0 };
    run_decoy(t, stage);
    if (!strcmp(stage, "advect") || !strcmp(stage, "p2g") || !strcmp(stage, "g2p"))
        run_particle_stage(t, stage, &rd, &g, out);
    else if (!strcmp(stage, "gravity") || !strcmp(stage, "gradient"))
        run_face_stage(t, stage, &rd, &g, out);
    else
        run_cell_stage(t, stage, &rd, &g, out);
    grid_free(&g);
    return rd.failed ? -1 : 0;
}

const char *const *stagecase_outputs(const char *stage)
{
    static const char *const particles[] = { "out.pos", "out.vel", NULL };
    static const char *const faces[] = { "out.u", "out.v", "out.w", NULL };
    static const char *const p2g[] = { "out.u", "out.v", "out.w", "out.wu", "out.wv", "out.ww", NULL };
    static const char *const div[] = { "out.div", NULL }, *const lp[] = { "out.Lp", NULL },
                             *const p[] = { "out.p", NULL };
    static const struct { const char *stage; const char *const *out; } table[] = {
        { "advect", particles }, { "gravity", faces }, { "p2g", p2g }, { "g2p", particles },
        { "divergence", div },   { "laplacian", lp },  { "jacobi", p }, { "gradient", faces },
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].stage, stage) == 0)
            return table[i].out;
    return NULL;
}

/* ---- checking ---------------------------------------------------------------------------------- */

typedef struct {
    const char *stage, *name;
    Reader want, got;       /* the case (expected + inputs) and the stage's output */
    MacGrid g;
    char *msg;
    size_t msglen, differing;
} Check;

static void check_fail_section(Check *c)
{
    const char *why = c->want.failed ? c->want.err : c->got.err;
    snprintf(c->msg, c->msglen, "%s: golden case %s: %s%s", c->stage, c->name,
             c->want.failed ? "the case file: " : "the stage's output: ", why);
    c->differing++;
}

static void check_faces(Check *c, const char *prefix, const char *field, Tol tol)
{
    for (int a = 0; a < 3 && !c->differing; a++) {
        char tag[STATE_TAG_LEN];
        snprintf(tag, sizeof tag, "%s%c", prefix, letters[a]);
        const float *want = read_f32(&c->want, tag, grid_faces(&c->g, a));
        const float *got = read_f32(&c->got, tag, grid_faces(&c->g, a));
        if (!want || !got)
            check_fail_section(c);
        else
            c->differing += fielddiff_faces(c->msg, c->msglen, c->stage, field, &c->g, a, want, got,
                                            tol);
    }
}

static void check_cells(Check *c, const char *tag, const char *field, Tol tol, Explain explain,
                        const void *ctx)
{
    if (c->differing)
        return;
    size_t n = grid_cells(&c->g);
    const float *want = read_f32(&c->want, tag, n), *got = read_f32(&c->got, tag, n);
    if (!want || !got)
        check_fail_section(c);
    else
        c->differing += fielddiff_cells(c->msg, c->msglen, c->stage, field, &c->g, want, got, tol,
                                        explain, ctx);
}

static void check_particles(Check *c, const char *tag, const char *field, Tol tol)
{
    if (c->differing)
        return;
    size_t n = read_particle_count(&c->want, "in.");
    const float *want = read_f32(&c->want, tag, 3 * n), *got = read_f32(&c->got, tag, 3 * n);
    if (!want || !got)
        check_fail_section(c);
    else
        c->differing += fielddiff_particles(c->msg, c->msglen, c->stage, field, (const Vec3 *)want,
                                            (const Vec3 *)got, n, tol);
}

static float faces_max(Check *c, const char *prefix)
{
    float m = 0.0f;
    for (int a = 0; a < 3; a++) {
        char tag[STATE_TAG_LEN];
        snprintf(tag, sizeof tag, "%s%c", prefix, letters[a]);
        const float *v = read_f32(&c->want, tag, grid_faces(&c->g, a));
        float ma = v ? max_abs(v, grid_faces(&c->g, a)) : 0.0f;
        m = ma > m ? ma : m;
    }
    return m;
}

/* The tolerances: each is the rounding of the stage's float arithmetic, with room. */
static void check_advect(Check *c, char *what, size_t n)
{
    /* pos + dt v in float: one rounding per component; positions are a few metres. */
    snprintf(what, n, "position (golden case %s, dt %g)", c->name, (double)read_param(&c->want, "dt"));
    check_particles(c, "out.pos", what, (Tol){ 1e-5f, 1e-6f });
    snprintf(what, n, "velocity, which advect must not change (golden case %s)", c->name);
    check_particles(c, "out.vel", what, (Tol){ 0.0f, 0.0f });
}

static void check_p2g(Check *c, char *what, size_t n)
{
    /* Sums of up to ~30 weighted terms in float, then a division: relative 1e-5. */
    float vmax = faces_max(c, "out.");
    snprintf(what, n, "weight (golden case %s)", c->name);
    check_faces(c, "out.w", what, (Tol){ 1e-5f, 1e-5f });
    snprintf(what, n, "velocity (golden case %s)", c->name);
    check_faces(c, "out.", what, (Tol){ 1e-5f * (1.0f + vmax), 1e-5f });
}

static void check_g2p(Check *c, char *what, size_t n)
{
    /* Two 8-term weighted sums and a blend in float: relative 1e-5 of the velocities. */
    size_t np = read_particle_count(&c->want, "in.");
    const float *want = read_f32(&c->want, "out.vel", 3 * np);
    float vmax = want ? max_abs(want, 3 * np) : 0.0f;
    snprintf(what, n, "velocity (golden case %s, alpha %g)", c->name,
             (double)read_param(&c->want, "alpha"));
    check_particles(c, "out.vel", what, (Tol){ 1e-5f * (1.0f + vmax), 1e-5f });
    snprintf(what, n, "position, which g2p must not change (golden case %s)", c->name);
    check_particles(c, "out.pos", what, (Tol){ 0.0f, 0.0f });
}

static void check_cell_stage(Check *c, char *what, size_t n)
{
    size_t cells = grid_cells(&c->g);
    if (strcmp(c->stage, "divergence") == 0) {
        float *const vel[3] = { c->g.vel[0], c->g.vel[1], c->g.vel[2] };
        read_faces(&c->want, &c->g, "in.", "", vel); /* for the face terms in the text */
        const float *want = read_f32(&c->want, "out.div", cells);
        snprintf(what, n, "div (golden case %s)", c->name);
        check_cells(c, "out.div", what, (Tol){ 1e-5f * (1.0f + (want ? max_abs(want, cells) : 0.0f)), 1e-5f },
                    explain_face_terms, NULL);
    } else if (strcmp(c->stage, "laplacian") == 0) {
        /* (sum - N p) / dx^2 cancels: the rounding is about 8 eps max|p| / dx^2. */
        const float *p = read_f32(&c->want, "in.p", cells);
        float scale = p ? max_abs(p, cells) / (c->g.dx * c->g.dx) : 0.0f;
        snprintf(what, n, "L p (golden case %s)", c->name);
        check_cells(c, "out.Lp", what, (Tol){ 1e-5f * (1.0f + scale), 1e-5f }, explain_neighbours, p);
    } else { /* jacobi */
        /* A few float operations on values of size max|p|: relative 1e-5 of that. */
        const float *p = read_f32(&c->want, "in.p", cells), *want = read_f32(&c->want, "out.p", cells);
        snprintf(what, n, "p_out (golden case %s, omega %g)", c->name,
                 (double)read_param(&c->want, "omega"));
        check_cells(c, "out.p", what, (Tol){ 1e-5f * (1.0f + (want ? max_abs(want, cells) : 0.0f)), 1e-5f },
                    explain_neighbours, p);
    }
}

static void check_face_stage(Check *c, char *what, size_t n)
{
    if (strcmp(c->stage, "gravity") == 0) {
        /* One float addition per face: rounding is 1e-7 of the velocity. */
        snprintf(what, n, "velocity (golden case %s)", c->name);
        check_faces(c, "out.", what, (Tol){ 1e-6f, 1e-6f });
        return;
    }
    /* gradient: one subtraction per face of a term of size scale max|p| / dx. */
    size_t cells = grid_cells(&c->g);
    const float *p = read_f32(&c->want, "in.p", cells);
    float scale = read_param(&c->want, "scale");
    snprintf(what, n, "velocity (golden case %s, scale %g)", c->name, (double)scale);
    float term = p ? scale * max_abs(p, cells) / c->g.dx : 0.0f;
    check_faces(c, "out.", what, (Tol){ 1e-5f * (1.0f + term), 1e-5f });
}

size_t stagecase_check(const char *stage, const char *name, const StateFile *expected,
                       const StateFile *got, char *msg, size_t msglen)
{
    char werr[256] = "", gerr[256] = "", what[160];
    Check c = { .stage = stage, .name = name, .want = { expected, werr, sizeof werr, 0 },
                .got = { got, gerr, sizeof gerr, 0 }, .msg = msg, .msglen = msglen };
    if (!stagecase_outputs(stage)) {
        snprintf(msg, msglen, "no stage \"%s\"", stage);
        return 1;
    }
    if (stagecase_grid(expected, &c.g, werr, sizeof werr) != 0) {
        snprintf(msg, msglen, "%s: golden case %s: %s", stage, name, werr);
        return 1;
    }
    uint64_t nspare;
    const int32_t *spare = state_find(got, "out.spare", STATE_I32, &nspare);
    if (spare && nspare == 1 && spare[0] > 0) {
        snprintf(msg, msglen, "%s: golden case %s: changed %d of the %d particle slots past ps->count "
                 "(only p < ps->count are particles; loop to count, not to the capacity)", stage,
                 name, (int)spare[0], SPARE_SLOTS);
        grid_free(&c.g);
        return 1;
    }
    if (strcmp(stage, "advect") == 0)
        check_advect(&c, what, sizeof what);
    else if (strcmp(stage, "p2g") == 0)
        check_p2g(&c, what, sizeof what);
    else if (strcmp(stage, "g2p") == 0)
        check_g2p(&c, what, sizeof what);
    else if (!strcmp(stage, "gravity") || !strcmp(stage, "gradient"))
        check_face_stage(&c, what, sizeof what);
    else
        check_cell_stage(&c, what, sizeof what);
    grid_free(&c.g);
    return c.differing;
}
