/* stagecase.c — run a stage on a golden case; check its output with the stage's tolerances.
 * flipkit tests/: which sections a stage reads and writes and how closely each must match are
 * common/stagetable.c's; the calls, by stage, are here. The grader uses both unchanged. */
#include "stagecase.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fielddiff.h"
#include "stagetable.h"

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
        snprintf(tag, sizeof tag, "%s%c%s", prefix, grid_component_letter(a), suffix);
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
        snprintf(tag, sizeof tag, "%s%c", prefix, grid_component_letter(a));
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
static void run_decoy(const Track *t, StageId stage)
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
        switch (stage) {
        case STAGE_ID_advect: t->advect(&none, 0.01f); break;
        case STAGE_ID_p2g: t->p2g(&none, &d); break;
        case STAGE_ID_g2p: t->g2p(&none, &d, old, 0.5f); break;
        case STAGE_ID_gravity: t->gravity(&d, (Vec3){ 0, -9.81f, 0 }, 0.01f); break;
        case STAGE_ID_gradient: t->gradient(&d, a, 0.01f); break;
        case STAGE_ID_divergence: t->divergence(&d, a); break;
        case STAGE_ID_laplacian: t->laplacian(&d, a, b); break;
        case STAGE_ID_jacobi: t->jacobi(&d, a, b, 1.0f, c); break;
        }
    }
    free(a), free(b), free(c), free(old[0]), free(old[1]), free(old[2]);
    grid_free(&d);
}

/* The same grid, at the same address, first with other cell types: every cell inside the
 * walls FLUID. A stage that keeps anything of a grid between calls (its FLUID cells, keyed by
 * the grid's address) then answers the real call with the decoy's types; run_decoy's other
 * grid cannot show that, since in a run the grid is always the same one. The real inputs
 * are read afterwards, so a stage without such a cache answers exactly as it would have. */
static void run_same_grid_decoy(const Track *t, StageId stage, MacGrid *g)
{
    if (stage != STAGE_ID_divergence && stage != STAGE_ID_laplacian && stage != STAGE_ID_jacobi &&
        stage != STAGE_ID_gradient && stage != STAGE_ID_gravity)
        return;
    size_t n = grid_cells(g);
    int8_t *real = malloc(n);
    float *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b), *c = calloc(n, sizeof *c);
    if (real && a && b && c) {
        memcpy(real, g->cell, n);
        for (int k = 0; k < g->nz; k++)
            for (int j = 0; j < g->ny; j++)
                for (int i = 0; i < g->nx; i++) {
                    bool wall = i == 0 || j == 0 || k == 0 || i == g->nx - 1 || j == g->ny - 1 || k == g->nz - 1;
                    g->cell[grid_cell_index(g, i, j, k)] = wall ? CELL_SOLID : CELL_FLUID;
                }
        switch (stage) {
        case STAGE_ID_gravity: t->gravity(g, (Vec3){ 0, -9.81f, 0 }, 0.01f); break;
        case STAGE_ID_gradient: t->gradient(g, a, 0.01f); break;
        case STAGE_ID_divergence: t->divergence(g, a); break;
        case STAGE_ID_laplacian: t->laplacian(g, a, b); break;
        case STAGE_ID_jacobi: t->jacobi(g, a, b, 1.0f, c); break;
        default: break;
        }
        memcpy(g->cell, real, n);
    }
    free(real), free(a), free(b), free(c);
}

static void run_particle_stage(const Track *t, StageId stage, Reader *rd, MacGrid *g,
                               StateFile *out)
{
    Particles ps;
    part_init(&ps);
    read_particles(rd, "in.", &ps);
    add_spare_slots(&ps);
    if (stage == STAGE_ID_advect) {
        float dt = read_param(rd, "dt");
        if (!rd->failed)
            t->advect(&ps, dt);
    } else if (stage == STAGE_ID_p2g) {
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
    if (!rd->failed && stage != STAGE_ID_p2g)
        add_particles(out, &ps);
    if (!rd->failed)
        add_spare_changes(out, &ps);
    part_free(&ps);
}

static void run_cell_stage(const Track *t, StageId stage, Reader *rd, MacGrid *g,
                           StateFile *out)
{
    size_t n = grid_cells(g);
    float *got = alloc_cells(rd, g, 999.0f);
    if (stage == STAGE_ID_divergence) {
        read_faces(rd, g, "in.", "", g->vel);
        if (!rd->failed) {
            t->divergence(g, got);
            state_add(out, "out.div", STATE_F32, got, n);
        }
    } else if (stage == STAGE_ID_laplacian) {
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

static void run_face_stage(const Track *t, StageId stage, Reader *rd, MacGrid *g,
                           StateFile *out)
{
    read_faces(rd, g, "in.", "", g->vel);
    float dt_or_scale = read_param(rd, stage == STAGE_ID_gravity ? "dt" : "scale");
    if (stage == STAGE_ID_gravity) {
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

/* Every section the table says the stage reads, before it runs: one line naming the first
 * one missing, rather than a stage run on half a case. */
static void require_inputs(Reader *rd, const StageInfo *st)
{
    char list[256];
    snprintf(list, sizeof list, "%s", st->inputs);
    for (char *save = NULL, *tag = strtok_r(list, " ", &save); tag && !rd->failed;
         tag = strtok_r(NULL, " ", &save))
        if (!state_find(rd->sf, tag, STATE_F32, NULL))
            reader_fail(rd, "section \"%s\" is missing", tag);
}

int stagecase_run(const Track *t, const char *stage, const StateFile *in, StateFile *out,
                  char *err, size_t errlen)
{
    const StageInfo *st = stage_find(stage);
    if (!st) {
        snprintf(err, errlen, "no stage \"%s\"", stage);
        return -1;
    }
    MacGrid g;
    if (stagecase_grid(in, &g, err, errlen) != 0)
        return -1;
    Reader rd = { in, err, errlen, 0 };
    StageId id = (StageId)(st->number - 1);
    require_inputs(&rd, st);
    run_decoy(t, id);
    run_same_grid_decoy(t, id, &g);
    if (rd.failed)
        ;
    else if (strncmp(st->inputs, "in.pos", 6) == 0) /* advect, p2g, g2p */
        run_particle_stage(t, id, &rd, &g, out);
    else if (st->outputs[0].kind == FIELD_FACES)
        run_face_stage(t, id, &rd, &g, out);
    else
        run_cell_stage(t, id, &rd, &g, out);
    grid_free(&g);
    return rd.failed ? -1 : 0;
}

const char *const *stagecase_outputs(const char *stage)
{
    /* Each stage's section names, spelled out from the table once (faces as their u, v, w). */
    enum { MAX_TAGS = 3 * STAGE_MAX_OUTPUTS + 1 };
    static char names[STAGE_COUNT][MAX_TAGS][STATE_TAG_LEN];
    static const char *lists[STAGE_COUNT][MAX_TAGS];
    const StageInfo *st = stage_find(stage);
    if (!st)
        return NULL;
    int q = st->number - 1, n = 0;
    for (int o = 0; o < STAGE_MAX_OUTPUTS && st->outputs[o].tag; o++)
        for (int a = 0; a < (st->outputs[o].kind == FIELD_FACES ? 3 : 1); a++) {
            if (st->outputs[o].kind == FIELD_FACES)
                snprintf(names[q][n], STATE_TAG_LEN, "%s%c", st->outputs[o].tag,
                         grid_component_letter(a));
            else
                snprintf(names[q][n], STATE_TAG_LEN, "%s", st->outputs[o].tag);
            lists[q][n] = names[q][n];
            n++;
        }
    lists[q][n] = NULL;
    return lists[q];
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

/* The stage's output with each face between two AIR cells taken from the case: a value the
 * contract leaves free is never a difference. NULL when out of memory (then every face is
 * compared: stricter, never laxer). */
static float *faces_with_air_free(const MacGrid *g, int a, const float *want, const float *got)
{
    float *mixed = malloc(grid_faces(g, a) * sizeof *mixed);
    if (!mixed)
        return NULL;
    const int *n = g->face[a].n;
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++) {
                size_t f = grid_face_index(g, a, i, j, k);
                int free_face = grid_face_below(g, a, i, j, k) == CELL_AIR &&
                                grid_face_above(g, a, i, j, k) == CELL_AIR;
                mixed[f] = free_face ? want[f] : got[f];
            }
    return mixed;
}

static void check_faces(Check *c, const StageOutput *o, const char *field, Tol tol)
{
    for (int a = 0; a < 3 && !c->differing; a++) {
        char tag[STATE_TAG_LEN];
        snprintf(tag, sizeof tag, "%s%c", o->tag, grid_component_letter(a));
        const float *want = read_f32(&c->want, tag, grid_faces(&c->g, a));
        const float *got = read_f32(&c->got, tag, grid_faces(&c->g, a));
        float *mixed = want && got && o->free_air_faces ? faces_with_air_free(&c->g, a, want, got) : NULL;
        if (!want || !got)
            check_fail_section(c);
        else
            c->differing += fielddiff_faces(c->msg, c->msglen, c->stage, field, &c->g, a, want,
                                            mixed ? mixed : got, tol);
        free(mixed);
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
        snprintf(tag, sizeof tag, "%s%c", prefix, grid_component_letter(a));
        const float *v = read_f32(&c->want, tag, grid_faces(&c->g, a));
        float ma = v ? max_abs(v, grid_faces(&c->g, a)) : 0.0f;
        m = ma > m ? ma : m;
    }
    return m;
}

/* The largest |value| of a section (faces: of its u, v and w) of the case, or 0. */
static float section_max(Check *c, const StageOutput *o)
{
    if (o->kind == FIELD_FACES)
        return faces_max(c, o->tag);
    size_t n = o->kind == FIELD_CELLS ? grid_cells(&c->g) : 3 * read_particle_count(&c->want, "in.");
    const float *v = read_f32(&c->want, o->tag, n);
    return v ? max_abs(v, n) : 0.0f;
}

/* The table's tolerance for output o of this case: abs times the size of what it adds up. */
static Tol output_tolerance(Check *c, const StageOutput *o)
{
    float scale = 1.0f;
    size_t cells = grid_cells(&c->g);
    const float *p = o->scale == TOL_P_OVER_DX2 || o->scale == TOL_GRADIENT_TERM
                         ? read_f32(&c->want, "in.p", cells) : NULL;
    if (o->scale == TOL_OUT_MAX)
        scale = 1.0f + section_max(c, o);
    else if (o->scale == TOL_P_OVER_DX2)
        scale = 1.0f + (p ? max_abs(p, cells) / (c->g.dx * c->g.dx) : 0.0f);
    else if (o->scale == TOL_GRADIENT_TERM)
        scale = 1.0f + (p ? read_param(&c->want, "scale") * max_abs(p, cells) / c->g.dx : 0.0f);
    return (Tol){ o->abs * scale, o->rel };
}

/* One output, checked as the table says: "velocity (golden case c, alpha 0.05)". */
static void check_output(Check *c, const StageOutput *o)
{
    char what[160];
    if (o->param)
        snprintf(what, sizeof what, "%s (golden case %s, %s %g)", o->field, c->name, o->param,
                 (double)read_param(&c->want, o->param));
    else
        snprintf(what, sizeof what, "%s (golden case %s)", o->field, c->name);
    Tol tol = output_tolerance(c, o);
    if (o->kind == FIELD_PARTICLES) {
        check_particles(c, o->tag, what, tol);
    } else if (o->kind == FIELD_FACES) {
        check_faces(c, o, what, tol);
    } else if (o->explain == EXPLAIN_FACE_TERMS) {
        float *const vel[3] = { c->g.vel[0], c->g.vel[1], c->g.vel[2] };
        read_faces(&c->want, &c->g, "in.", "", vel); /* for the face terms in the text */
        check_cells(c, o->tag, what, tol, explain_face_terms, NULL);
    } else {
        const float *p = read_f32(&c->want, "in.p", grid_cells(&c->g));
        check_cells(c, o->tag, what, tol, o->explain == EXPLAIN_NEIGHBOURS ? explain_neighbours : NULL, p);
    }
}

size_t stagecase_check(const char *stage, const char *name, const StateFile *expected,
                       const StateFile *got, char *msg, size_t msglen)
{
    char werr[256] = "", gerr[256] = "";
    Check c = { .stage = stage, .name = name, .want = { expected, werr, sizeof werr, 0 },
                .got = { got, gerr, sizeof gerr, 0 }, .msg = msg, .msglen = msglen };
    const StageInfo *st = stage_find(stage);
    if (!st) {
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
    for (int o = 0; o < STAGE_MAX_OUTPUTS && st->outputs[o].tag; o++)
        check_output(&c, &st->outputs[o]);
    grid_free(&c.g);
    return c.differing;
}
