/* test_surface.c — Check suite for surface.c: closed oriented manifolds, genus, volume, solids,
 * determinism and the PLY file. flipkit tests/: every assertion is a number with a tolerance,
 * and a failure names the case and the value; CK_FORK=no runs in-process for gdb. */
#include "surface.h"
#include "mcubes.h"
#include "harness.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------------------- */

static const double pi = 3.14159265358979323846;

static void make_grid(MacGrid *g, int n, float dx)
{
    ck_assert_int_eq(grid_init(g, n, n, n, dx), 0);
}

static void set_solid_box(MacGrid *g, const int lo[3], const int hi[3])
{
    for (int k = lo[2]; k < hi[2]; k++)
        for (int j = lo[1]; j < hi[1]; j++)
            for (int i = lo[0]; i < hi[0]; i++)
                g->cell[grid_cell_index(g, i, j, k)] = CELL_SOLID;
}

/* The kit's sampling (common/seed.c): 8 particles per non-solid cell on a jittered 2x2x2
 * lattice, kept when inside the shape. Shapes are in cells: a ball (radius > 0) or a box. */
typedef struct { double c[3], radius, lo[3], hi[3]; } TestShape;

static int shape_has(const TestShape *s, const double x[3])
{
    if (s->radius > 0.0) {
        double d2 = 0.0;
        for (int d = 0; d < 3; d++)
            d2 += (x[d] - s->c[d]) * (x[d] - s->c[d]);
        return d2 <= s->radius * s->radius;
    }
    for (int d = 0; d < 3; d++)
        if (x[d] < s->lo[d] || x[d] > s->hi[d])
            return 0;
    return 1;
}

static void seed_cell(Particles *ps, const MacGrid *g, const TestShape *s, int i, int j, int k,
                      Rng *rng)
{
    const int c[3] = { i, j, k };
    for (int sub = 0; sub < 8; sub++) {
        double x[3];
        for (int d = 0; d < 3; d++)
            x[d] = c[d] + 0.5 * ((sub >> d & 1) + 0.5 + 0.5 * (rng_uniform(rng) - 0.5));
        if (!shape_has(s, x))
            continue;
        Vec3 p = { (float)(x[0] * g->dx), (float)(x[1] * g->dx), (float)(x[2] * g->dx) };
        Vec3 zero = { 0.0f, 0.0f, 0.0f };
        harness_require(part_push(ps, p, zero) == 0, "part_push failed at particle %zu", ps->count);
    }
}

static void seed_shape(Particles *ps, const MacGrid *g, const TestShape *s, uint64_t seed)
{
    Rng rng = rng_seeded(seed);
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++)
                if (grid_cell_type(g, i, j, k) != CELL_SOLID)
                    seed_cell(ps, g, s, i, j, k, &rng);
}

static void seed_ball(Particles *ps, const MacGrid *g, double cx, double cy, double cz,
                      double radius, uint64_t seed)
{
    TestShape s = { { cx, cy, cz }, radius, { 0, 0, 0 }, { 0, 0, 0 } };
    seed_shape(ps, g, &s, seed);
}

static void build(const Particles *ps, const MacGrid *g, const SurfaceSettings *set, Mesh *m)
{
    char err[256] = "";
    int rc = surface_build(ps, g, set, m, err, sizeof err);
    ck_assert_msg(rc == 0, "surface_build failed: %s", err);
}

/* Checks the mesh is a closed, consistently oriented 2-manifold and returns V - E + F. */
static long assert_closed(const Mesh *m, const char *what)
{
    MeshStats st;
    ck_assert_int_eq(mesh_stats(m, &st), 0);
    ck_assert_msg(st.boundary_edges == 0 && st.nonmanifold_edges == 0 &&
                      st.misoriented_edges == 0 && st.degenerate_tris == 0,
                  "%s: %zu edges: boundary %zu, non-manifold %zu, misoriented %zu, "
                  "degenerate triangles %zu; expected all 0",
                  what, st.edges, st.boundary_edges, st.nonmanifold_edges,
                  st.misoriented_edges, st.degenerate_tris);
    return (long)m->nverts - (long)st.edges + (long)m->ntris;
}

/* Every vertex strictly inside the domain and at least tol cells from every SOLID cell. */
static void assert_vertices_clear(const Mesh *m, const MacGrid *g, const char *what)
{
    const int n[3] = { g->nx, g->ny, g->nz };
    const double tol = 1e-5;
    for (size_t v = 0; v < m->nverts; v++) {
        const float *x = m->xyz + 3 * v;
        int lo[3], hi[3];
        for (int d = 0; d < 3; d++) {
            harness_require(x[d] > 0.0f && x[d] < (float)n[d] * g->dx,
                          "%s: vertex %zu axis %d at %g is outside the domain (0, %g)", what,
                          v, d, (double)x[d], (double)((float)n[d] * g->dx));
            lo[d] = (int)floor((double)x[d] / g->dx - tol);
            hi[d] = (int)floor((double)x[d] / g->dx + tol);
        }
        for (int k = lo[2]; k <= hi[2]; k++)
            for (int j = lo[1]; j <= hi[1]; j++)
                for (int i = lo[0]; i <= hi[0]; i++)
                    harness_require(grid_cell_type(g, i, j, k) != CELL_SOLID,
                                  "%s: vertex %zu (%g, %g, %g) is in or on SOLID cell (%d,%d,%d)",
                                  what, v, (double)x[0], (double)x[1], (double)x[2], i, j, k);
    }
}

static char *tmp_path(const char *name)
{
    static char buf[2][512];
    static int next;
    char *p = buf[next++ % 2];
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(p, sizeof buf[0], "%s/test_surface_%ld_%s", dir, (long)getpid(), name);
    return p;
}

/* Parses the header written by mesh_write_ply; returns its length in bytes. */
static size_t parse_header(const unsigned char *buf, size_t len, size_t *nv, size_t *nf)
{
    const char *end = strstr((const char *)buf, "end_header\n");
    ck_assert_msg(end != NULL, "no end_header in the file");
    ck_assert_int_eq(strncmp((const char *)buf, "ply\nformat binary_little_endian 1.0\n", 36), 0);
    const char *v = strstr((const char *)buf, "element vertex ");
    const char *f = strstr((const char *)buf, "element face ");
    ck_assert(v && f && v < f && f < end);
    ck_assert_int_eq(sscanf(v, "element vertex %zu", nv), 1);
    ck_assert_int_eq(sscanf(f, "element face %zu", nf), 1);
    ck_assert_ptr_nonnull(strstr((const char *)buf, "property list uchar int vertex_indices\n"));
    size_t hl = (size_t)(end - (const char *)buf) + strlen("end_header\n");
    ck_assert_uint_le(hl, len);
    return hl;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- 1. closed, genus 0 -------------------------------------------------------------- */

static void one_particle_distances(const Mesh *mp, Vec3 p, double r);

START_TEST(test_one_particle)
{
    MacGrid g;
    make_grid(&g, 16, 0.1f);
    Particles ps;
    part_init(&ps);
    Vec3 p = { 0.8123f, 0.7771f, 0.8049f }, zero = { 0, 0, 0 };
    ck_assert_int_eq(part_push(&ps, p, zero), 0);
    Mesh m;
    mesh_init(&m);
    /* refine 2, the default until issue 42; then the default, refine 1 */
    SurfaceSettings fine = surface_defaults_at(2);
    build(&ps, &g, &fine, &m);
    ck_assert_uint_gt(m.ntris, 8);
    long chi = assert_closed(&m, "one particle");
    ck_assert_msg(chi == 2, "one particle: V - E + F = %ld, expected 2", chi);
    /* One particle's field is |x - x_p| - r exactly (R = dx > r + h, so every edge that
     * crosses the sphere ends within the kernel or at phi = R beyond it). A linear
     * interpolant of a convex function puts every vertex on or inside the sphere, and with
     * h = 0.05 not nearer the centre than r / 4. */
    one_particle_distances(&m, p, fine.radius_cells * 0.1);
    /* h = dx: only the node 0.27 dx from the particle is inside, an octahedron around it */
    build(&ps, &g, NULL, &m);
    ck_assert_uint_eq(m.ntris, 8);
    chi = assert_closed(&m, "one particle, default refine");
    ck_assert_msg(chi == 2, "one particle, default refine: V - E + F = %ld, expected 2", chi);
    one_particle_distances(&m, p, surface_defaults().radius_cells * 0.1);
    mesh_free(&m);
    part_free(&ps);
    grid_free(&g);
}
END_TEST

static void one_particle_distances(const Mesh *mp, Vec3 p, double r)
{
    const Mesh m = *mp;
    double nearest = 1.0, farthest = 0.0;
    for (size_t v = 0; v < m.nverts; v++) {
        double d2 = 0.0;
        for (int d = 0; d < 3; d++) {
            double e = (double)m.xyz[3 * v + (size_t)d] - (double)vec3_get(p, d);
            d2 += e * e;
        }
        nearest = sqrt(d2) < nearest ? sqrt(d2) : nearest;
        farthest = sqrt(d2) > farthest ? sqrt(d2) : farthest;
    }
    ck_assert_msg(nearest > 0.25 * r && farthest <= r * 1.0001,
                  "one particle: vertices at distances %g..%g from it, expected (%g, %g]",
                  nearest, farthest, 0.25 * r, r);
}

START_TEST(test_ball_closed)
{
    MacGrid g;
    make_grid(&g, 24, 0.1f);
    Particles ps;
    part_init(&ps);
    seed_ball(&ps, &g, 12.0, 11.7, 12.3, 5.0, 1);
    Mesh m;
    mesh_init(&m);
    for (int refine = 1; refine <= 3; refine++) {
        SurfaceSettings set = surface_defaults_at(refine);
        build(&ps, &g, &set, &m);
        char what[64];
        snprintf(what, sizeof what, "ball r=5 cells, refine %d", refine);
        long chi = assert_closed(&m, what);
        ck_assert_msg(chi == 2, "%s: V - E + F = %ld, expected 2 (one sphere)", what, chi);
        ck_assert_uint_gt(m.ntris, 100);
    }
    mesh_free(&m);
    part_free(&ps);
    grid_free(&g);
}
END_TEST

/* Distance from x to the nearest SOLID cell (cells beyond the grid included). */
static double solid_distance(const MacGrid *g, const double x[3])
{
    double best = 1e30;
    for (int k = -1; k <= g->nz; k++)
        for (int j = -1; j <= g->ny; j++)
            for (int i = -1; i <= g->nx; i++) {
                if (grid_cell_type(g, i, j, k) != CELL_SOLID)
                    continue;
                const int c[3] = { i, j, k };
                double d2 = 0.0;
                for (int d = 0; d < 3; d++) {
                    double a = c[d] * (double)g->dx - x[d], b = x[d] - (c[d] + 1) * (double)g->dx;
                    double t = a > 0.0 ? a : b > 0.0 ? b : 0.0;
                    d2 += t * t;
                }
                best = d2 < best ? d2 : best;
            }
    return sqrt(best);
}

/* The Zhu & Bridson field at x, straight from the formula over every particle. */
static double brute_phi(const Particles *ps, const double x[3], double r, double R)
{
    double w = 0.0, xbar[3] = { 0.0, 0.0, 0.0 };
    for (size_t q = 0; q < ps->count; q++) {
        double d2 = 0.0;
        for (int d = 0; d < 3; d++) {
            double e = x[d] - (double)vec3_get(ps->pos[q], d);
            d2 += e * e;
        }
        double s2 = d2 / (R * R);
        if (s2 >= 1.0)
            continue;
        double k = (1.0 - s2) * (1.0 - s2) * (1.0 - s2);
        w += k;
        for (int d = 0; d < 3; d++)
            xbar[d] += k * (double)vec3_get(ps->pos[q], d);
    }
    if (w == 0.0)
        return R;
    double d2 = 0.0;
    for (int d = 0; d < 3; d++)
        d2 += (x[d] - xbar[d] / w) * (x[d] - xbar[d] / w);
    return sqrt(d2) - r;
}

/* Every vertex lies on the field's zero set, up to linear interpolation along an edge of
 * h: a check on the splat, the deep-interior shortcut and the crossing. */
START_TEST(test_vertices_on_zero_set)
{
    MacGrid g;
    const float dx = 0.1f;
    make_grid(&g, 16, dx);
    Particles ps;
    part_init(&ps);
    seed_ball(&ps, &g, 8.0, 8.2, 7.9, 4.5, 51);
    Mesh m;
    mesh_init(&m);
    /* refine 2 (the default until issue 42), then the default: h / 4 of each */
    for (int refine = 2; refine >= 1; refine--) {
    SurfaceSettings set = surface_defaults_at(refine);
    build(&ps, &g, &set, &m);
    const double r = set.radius_cells * dx, R = set.kernel_cells * dx, h = dx / refine;
    double worst = 0.0;
    size_t at = 0;
    for (size_t v = 0; v < m.nverts; v++) {
        double x[3] = { m.xyz[3 * v], m.xyz[3 * v + 1], m.xyz[3 * v + 2] };
        double phi = fabs(brute_phi(&ps, x, r, R));
        if (phi > worst) {
            worst = phi;
            at = v;
        }
    }
    ck_assert_msg(worst < 0.25 * h,
                  "refine %d: vertex %zu (%g, %g, %g): phi = %g there, expected |phi| < %g (h / 4)",
                  refine, at, (double)m.xyz[3 * at], (double)m.xyz[3 * at + 1],
                  (double)m.xyz[3 * at + 2], worst, 0.25 * h);
    }
    mesh_free(&m);
    part_free(&ps);
    grid_free(&g);
}
END_TEST

/* ---- 2. volume ----------------------------------------------------------------------- */

START_TEST(test_ball_volume)
{
    MacGrid g;
    const float dx = 0.25f;
    make_grid(&g, 32, dx);
    Particles ps;
    part_init(&ps);
    const double rho = 8.0; /* cells */
    seed_ball(&ps, &g, 16.0, 16.0, 16.0, rho, 7);
    Mesh m;
    mesh_init(&m);
    build(&ps, &g, NULL, &m);
    long chi = assert_closed(&m, "ball r=8 cells");
    ck_assert_msg(chi == 2, "ball r=8 cells: V - E + F = %ld, expected 2", chi);
    double want = 4.0 / 3.0 * pi * pow(rho * dx, 3.0);
    double got = mesh_volume(&m);
    double rel = (got - want) / want;
    ck_assert_msg(fabs(rel) < 0.10,
                  "ball r=8 cells: enclosed volume %g m^3, expected %g (4/3 pi R^3), error %+.1f%% "
                  "(tolerance 10%%; negative means inward-facing triangles)",
                  got, want, 100.0 * rel);
    mesh_free(&m);
    part_free(&ps);
    grid_free(&g);
}
END_TEST

/* ---- 3. solids and walls ------------------------------------------------------------- */

START_TEST(test_ball_on_block)
{
    MacGrid g;
    make_grid(&g, 24, 0.1f);
    const int lo[3] = { 6, 6, 1 }, hi[3] = { 18, 18, 8 };
    set_solid_box(&g, lo, hi);
    Particles ps;
    part_init(&ps);
    seed_ball(&ps, &g, 12.0, 12.0, 12.0, 4.0, 3); /* lowest particles a quarter cell above z = 8 */
    float lowest = 1e9f;
    for (size_t q = 0; q < ps.count; q++)
        lowest = ps.pos[q].z < lowest ? ps.pos[q].z : lowest;
    ck_assert_msg(lowest < 0.8f + 0.05f, "the ball does not touch the block: lowest z %g",
                  (double)lowest);
    Mesh m;
    mesh_init(&m);
    build(&ps, &g, NULL, &m);
    long chi = assert_closed(&m, "ball on a block");
    ck_assert_msg(chi == 2, "ball on a block: V - E + F = %ld, expected 2", chi);
    assert_vertices_clear(&m, &g, "ball on a block");
    ck_assert_double_gt(mesh_volume(&m), 0.0);
    mesh_free(&m);
    part_free(&ps);
    grid_free(&g);
}
END_TEST

START_TEST(test_pool_against_walls)
{
    MacGrid g;
    const int n = 20;
    make_grid(&g, n, 0.1f);
    Particles ps;
    part_init(&ps);
    TestShape pool = { { 0, 0, 0 }, 0.0, { 0.0, 0.0, 0.0 }, { n, n, 7.0 } };
    seed_shape(&ps, &g, &pool, 5); /* every non-solid cell with z < 7: all four walls, floor */
    Mesh m;
    mesh_init(&m);
    SurfaceSettings fine = surface_defaults_at(2);
    build(&ps, &g, &fine, &m);
    long chi = assert_closed(&m, "pool");
    ck_assert_msg(chi == 2, "pool: V - E + F = %ld, expected 2", chi);
    assert_vertices_clear(&m, &g, "pool");
    /* The liquid fills 18 x 18 x 6 cells; at refine 2 the surface keeps under a cell from
     * the walls and floor and bulges slightly above the top: between (16.2^2 x 5.0) and the
     * box. */
    double cell3 = 1e-3, got = mesh_volume(&m) / cell3;
    ck_assert_msg(got > 16.2 * 16.2 * 5.0 && got < 18.0 * 18.0 * 6.0,
                  "pool: volume %g cells, expected between %g and %g", got,
                  16.2 * 16.2 * 5.0, 18.0 * 18.0 * 6.0);
    /* The default, refine 1: the nodes on the walls are outside and the next ones a cell in,
     * so the surface meets each wall 0.5 to 1 cell from it: between (16^2 x 4.5) and the box. */
    build(&ps, &g, NULL, &m);
    chi = assert_closed(&m, "pool, default refine");
    ck_assert_msg(chi == 2, "pool, default refine: V - E + F = %ld, expected 2", chi);
    assert_vertices_clear(&m, &g, "pool, default refine");
    got = mesh_volume(&m) / cell3;
    printf("test_surface: pool of 18 x 18 x 6 cells: %.0f cells enclosed at the default refine\n", got);
    ck_assert_msg(got > 16.0 * 16.0 * 4.5 && got < 18.0 * 18.0 * 6.0,
                  "pool, default refine: volume %g cells, expected between %g and %g", got,
                  16.0 * 16.0 * 4.5, 18.0 * 18.0 * 6.0);
    mesh_free(&m);
    part_free(&ps);
    grid_free(&g);
}
END_TEST

/* Axes of different lengths, so a swapped index or stride shows; and the zero-set check. */
START_TEST(test_grid_not_cubic)
{
    MacGrid g;
    const float dx = 0.1f;
    ck_assert_int_eq(grid_init(&g, 22, 13, 17, dx), 0);
    const int lo[3] = { 12, 1, 1 }, hi[3] = { 21, 5, 9 };
    set_solid_box(&g, lo, hi);
    Particles ps;
    part_init(&ps);
    seed_ball(&ps, &g, 6.0, 6.5, 8.0, 4.2, 61);
    seed_ball(&ps, &g, 16.0, 7.0, 12.0, 3.5, 62);
    Mesh m;
    mesh_init(&m);
    build(&ps, &g, NULL, &m);   /* the default: closed and clear */
    long chi = assert_closed(&m, "22x13x17 grid, default refine");
    ck_assert_msg(chi == 4, "22x13x17 grid, default refine: V - E + F = %ld, expected 4 (two "
                  "balls)", chi);
    assert_vertices_clear(&m, &g, "22x13x17 grid, default refine");
    SurfaceSettings fine = surface_defaults_at(2);
    build(&ps, &g, &fine, &m);
    chi = assert_closed(&m, "22x13x17 grid");
    ck_assert_msg(chi == 4, "22x13x17 grid: V - E + F = %ld, expected 4 (two balls)", chi);
    assert_vertices_clear(&m, &g, "22x13x17 grid");
    /* Away from solids (2 sqrt(3) h) every vertex is on the zero set. */
    const double r = fine.radius_cells * dx, R = fine.kernel_cells * dx, h = dx / 2;
    size_t checked = 0;
    for (size_t v = 0; v < m.nverts; v++) {
        double x[3] = { m.xyz[3 * v], m.xyz[3 * v + 1], m.xyz[3 * v + 2] };
        if (solid_distance(&g, x) < 2.0 * sqrt(3.0) * h)
            continue;
        double phi = brute_phi(&ps, x, r, R);
        ck_assert_msg(fabs(phi) < 0.25 * h, "22x13x17 grid: vertex %zu (%g, %g, %g) has phi %g",
                      v, x[0], x[1], x[2], phi);
        checked++;
    }
    ck_assert_uint_gt(checked, m.nverts / 2);
    mesh_free(&m);
    part_free(&ps);
    grid_free(&g);
}
END_TEST

/* Random scenes: clouds, blocks, particles in solids and beyond the walls, and random
 * settings. Whatever comes in, the mesh is closed, oriented and clear of every solid. */
START_TEST(test_random_scenes)
{
    Rng rng = rng_seeded(2024);
    for (int scene = 0; scene < 24; scene++) {
        MacGrid g;
        int n[3];
        for (int d = 0; d < 3; d++)
            n[d] = 6 + (int)(rng_uniform(&rng) * 12.0f);
        ck_assert_int_eq(grid_init(&g, n[0], n[1], n[2], 0.1f), 0);
        int lo[3], hi[3];
        for (int d = 0; d < 3; d++) {
            lo[d] = (int)(rng_uniform(&rng) * (float)n[d]);
            hi[d] = lo[d] + 1 + (int)(rng_uniform(&rng) * 4.0f);
            hi[d] = hi[d] < n[d] ? hi[d] : n[d];
        }
        set_solid_box(&g, lo, hi);
        Particles ps;
        part_init(&ps);
        int clouds = 1 + (int)(rng_uniform(&rng) * 4.0f);
        for (int c = 0; c < clouds; c++) {
            float centre[3], spread = 0.05f + 0.3f * rng_uniform(&rng);
            for (int d = 0; d < 3; d++)
                centre[d] = (float)n[d] * 0.1f * (rng_uniform(&rng) * 1.2f - 0.1f);
            int count = (int)(rng_uniform(&rng) * 400.0f);
            for (int q = 0; q < count; q++) {
                Vec3 p = { centre[0] + spread * (rng_uniform(&rng) - 0.5f),
                           centre[1] + spread * (rng_uniform(&rng) - 0.5f),
                           centre[2] + spread * (rng_uniform(&rng) - 0.5f) };
                Vec3 zero = { 0, 0, 0 };
                ck_assert_int_eq(part_push(&ps, p, zero), 0);
            }
        }
        SurfaceSettings set;
        set.refine = 1 + (int)(rng_uniform(&rng) * 3.0f);
        set.kernel_cells = 0.5f + 1.5f * rng_uniform(&rng);
        set.radius_cells = set.kernel_cells * (0.2f + 0.6f * rng_uniform(&rng));
        Mesh m;
        mesh_init(&m);
        build(&ps, &g, &set, &m);
        char what[160];
        snprintf(what, sizeof what,
                 "random scene %d (%dx%dx%d, %zu particles, refine %d, r %.3g, R %.3g)", scene,
                 n[0], n[1], n[2], ps.count, set.refine, (double)set.radius_cells,
                 (double)set.kernel_cells);
        long chi = assert_closed(&m, what);
        ck_assert_msg(chi % 2 == 0 && chi <= 2 * (long)ps.count,
                      "%s: V - E + F = %ld, expected even", what, chi);
        assert_vertices_clear(&m, &g, what);
        mesh_free(&m);
        part_free(&ps);
        grid_free(&g);
    }
}
END_TEST

/* ---- 4. two components --------------------------------------------------------------- */

START_TEST(test_two_balls)
{
    MacGrid g;
    make_grid(&g, 32, 0.1f);
    Particles ps;
    part_init(&ps);
    seed_ball(&ps, &g, 9.0, 16.0, 16.0, 4.0, 11);
    seed_ball(&ps, &g, 22.0, 16.0, 16.0, 4.0, 12); /* 5 cells apart: R = dx cannot bridge */
    Mesh m;
    mesh_init(&m);
    build(&ps, &g, NULL, &m);
    long chi = assert_closed(&m, "two balls");
    ck_assert_msg(chi == 4, "two balls: V - E + F = %ld, expected 4 (two spheres)", chi);
    mesh_free(&m);
    part_free(&ps);
    grid_free(&g);
}
END_TEST

/* ---- 5. determinism ------------------------------------------------------------------ */

START_TEST(test_deterministic)
{
    MacGrid g;
    make_grid(&g, 24, 0.1f);
    Particles ps;
    part_init(&ps);
    seed_ball(&ps, &g, 10.0, 12.0, 11.0, 5.0, 21);
    seed_ball(&ps, &g, 15.0, 12.5, 13.0, 4.0, 22); /* overlapping: one blob */
    Mesh a, b;
    mesh_init(&a);
    mesh_init(&b);
    build(&ps, &g, NULL, &a);
    /* b first holds another mesh, so reused arrays must not leak into the result. */
    Particles one;
    part_init(&one);
    seed_ball(&one, &g, 6.0, 6.0, 6.0, 3.0, 23);
    build(&one, &g, NULL, &b);
    build(&ps, &g, NULL, &b);
    ck_assert_uint_eq(a.nverts, b.nverts);
    ck_assert_uint_eq(a.ntris, b.ntris);
    ck_assert_uint_gt(a.ntris, 0);
    ck_assert_int_eq(memcmp(a.xyz, b.xyz, a.nverts * 3 * sizeof(float)), 0);
    ck_assert_int_eq(memcmp(a.tri, b.tri, a.ntris * 3 * sizeof(uint32_t)), 0);
    long chi = assert_closed(&a, "two overlapping balls");
    ck_assert_msg(chi == 2, "two overlapping balls: V - E + F = %ld, expected 2", chi);
    mesh_free(&a);
    mesh_free(&b);
    part_free(&one);
    part_free(&ps);
    grid_free(&g);
}
END_TEST

START_TEST(test_ignores_stray_particles)
{
    MacGrid g;
    make_grid(&g, 16, 0.1f);
    Particles ps;
    part_init(&ps);
    seed_ball(&ps, &g, 8.0, 8.0, 8.0, 3.0, 31);
    Mesh a, b;
    mesh_init(&a);
    mesh_init(&b);
    build(&ps, &g, NULL, &a);
    Vec3 zero = { 0, 0, 0 }, nan3 = { NAN, 0.5f, 0.5f }, far = { 1e30f, -1e30f, 0.5f },
         beyond = { 5.0f, 5.0f, 5.0f };
    ck_assert_int_eq(part_push(&ps, nan3, zero), 0);
    ck_assert_int_eq(part_push(&ps, far, zero), 0);
    ck_assert_int_eq(part_push(&ps, beyond, zero), 0);
    build(&ps, &g, NULL, &b);
    ck_assert_uint_eq(a.ntris, b.ntris);
    ck_assert_uint_eq(a.nverts, b.nverts);
    ck_assert_int_eq(memcmp(a.xyz, b.xyz, a.nverts * 3 * sizeof(float)), 0);
    mesh_free(&a);
    mesh_free(&b);
    part_free(&ps);
    grid_free(&g);
}
END_TEST

/* ---- 6, 7. PLY ----------------------------------------------------------------------- */

static void check_ply_file(const char *path, const Mesh *m)
{
    size_t len, nv, nf;
    unsigned char *buf = (unsigned char *)harness_slurp(path, &len);
    size_t hl = parse_header(buf, len, &nv, &nf);
    ck_assert_uint_eq(nv, m->nverts);
    ck_assert_uint_eq(nf, m->ntris);
    ck_assert_msg(len == hl + 12 * nv + 13 * nf, "%s: %zu bytes, expected %zu", path, len,
                  hl + 12 * nv + 13 * nf);
    for (size_t v = 0; v < nv; v++)
        for (int d = 0; d < 3; d++) {
            uint32_t u;
            memcpy(&u, &m->xyz[3 * v + (size_t)d], sizeof u);
            ck_assert_uint_eq(le32(buf + hl + 12 * v + 4 * (size_t)d), u);
        }
    const unsigned char *face = buf + hl + 12 * nv;
    for (size_t t = 0; t < nf; t++) {
        ck_assert_uint_eq(face[13 * t], 3);
        for (int c = 0; c < 3; c++)
            ck_assert_uint_eq(le32(face + 13 * t + 1 + 4 * (size_t)c), m->tri[3 * t + (size_t)c]);
    }
    free(buf);
}

START_TEST(test_ply_write)
{
    MacGrid g;
    make_grid(&g, 16, 0.1f);
    Particles ps;
    part_init(&ps);
    seed_ball(&ps, &g, 8.0, 8.0, 8.0, 3.0, 41);
    Mesh m;
    mesh_init(&m);
    build(&ps, &g, NULL, &m);
    ck_assert_uint_gt(m.ntris, 0);
    char err[256] = "";
    const char *path = tmp_path("ball.ply");
    ck_assert_msg(mesh_write_ply(path, &m, err, sizeof err) == 0, "mesh_write_ply: %s", err);
    check_ply_file(path, &m);
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    ck_assert_msg(access(tmp, F_OK) != 0, "%s was left behind", tmp);
    remove(path);

    const char *bad = "/nonexistent-flipkit-dir/frame.ply";
    err[0] = '\0';
    ck_assert_int_eq(mesh_write_ply(bad, &m, err, sizeof err), -1);
    ck_assert_msg(strstr(err, bad) != NULL, "error does not name the path: '%s'", err);
    ck_assert_ptr_null(strchr(err, '\n'));
    mesh_free(&m);
    part_free(&ps);
    grid_free(&g);
}
END_TEST

START_TEST(test_empty)
{
    MacGrid g;
    make_grid(&g, 8, 0.1f);
    Particles ps;
    part_init(&ps);
    Mesh m;
    mesh_init(&m);
    build(&ps, &g, NULL, &m);
    ck_assert_uint_eq(m.nverts, 0);
    ck_assert_uint_eq(m.ntris, 0);
    MeshStats st;
    ck_assert_int_eq(mesh_stats(&m, &st), 0);
    ck_assert_uint_eq(st.edges, 0);
    char err[256] = "";
    const char *path = tmp_path("empty.ply");
    ck_assert_msg(mesh_write_ply(path, &m, err, sizeof err) == 0, "mesh_write_ply: %s", err);
    check_ply_file(path, &m);
    remove(path);
    mesh_free(&m);
    grid_free(&g);
}
END_TEST

/* ---- surface_polygonise on a field given by the caller -------------------------------- */

/* phi = |x - c| - rho sampled on every node of a grid's fine grid, brick by brick with the
 * aprons, all bricks listed: the marcher alone, as the OpenCL path uses it. */
START_TEST(test_polygonise_sphere)
{
    MacGrid g;
    make_grid(&g, 8, 0.1f);
    SurfaceGrid fine;
    char err[256] = "";
    SurfaceSettings set = surface_defaults_at(2);   /* h = 0.05: the sphere 5 h across */
    ck_assert_msg(surface_grid(&g, &set, &fine, err, sizeof err) == 0, "surface_grid: %s", err);
    ck_assert_int_eq(fine.n[0], 8 * 2);
    enum { P = SURFACE_BRICK + 1 };
    size_t count = (size_t)fine.nb[0] * fine.nb[1] * fine.nb[2];
    int32_t *brick = malloc(count * sizeof *brick);
    float *phi = malloc(count * P * P * P * sizeof *phi);
    ck_assert(brick && phi);
    const double c[3] = { 0.41, 0.38, 0.43 }, rho = 0.25;
    for (size_t b = 0; b < count; b++) {
        brick[b] = (int32_t)b;
        int base[3] = { (int)(b % (size_t)fine.nb[0]) * SURFACE_BRICK,
                        (int)(b / (size_t)fine.nb[0] % (size_t)fine.nb[1]) * SURFACE_BRICK,
                        (int)(b / ((size_t)fine.nb[0] * fine.nb[1])) * SURFACE_BRICK };
        for (int z = 0; z < P; z++)
            for (int y = 0; y < P; y++)
                for (int x = 0; x < P; x++) {
                    double d2 = 0.0;
                    const int at[3] = { base[0] + x, base[1] + y, base[2] + z };
                    for (int d = 0; d < 3; d++)
                        d2 += ((double)at[d] * fine.h - c[d]) * ((double)at[d] * fine.h - c[d]);
                    phi[b * P * P * P + (size_t)(x + P * (y + P * z))] = (float)(sqrt(d2) - rho);
                }
    }
    SurfaceBricks in = { &fine, count, brick, phi };
    Mesh m;
    mesh_init(&m);
    ck_assert_msg(surface_polygonise(&in, &m, err, sizeof err) == 0, "surface_polygonise: %s",
                  err);
    long chi = assert_closed(&m, "polygonised sphere");
    ck_assert_msg(chi == 2, "polygonised sphere: V - E + F = %ld, expected 2", chi);
    /* Each vertex is the linear crossing on an edge h long, within h^2 / rho of the sphere;
     * the triangles between them cut chords of it, inside. */
    double v = mesh_volume(&m), exact = 4.0 / 3.0 * pi * rho * rho * rho;
    ck_assert_msg(fabs(v / exact - 1.0) < 0.03, "polygonised sphere: volume %g, expected %g "
                  "within 3%%", v, exact);
    for (size_t q = 0; q < m.nverts; q++) {
        double d2 = 0.0;
        for (int d = 0; d < 3; d++) {
            double o = (double)m.xyz[3 * q + (size_t)d] - c[d];
            d2 += o * o;
        }
        ck_assert_msg(fabs(sqrt(d2) - rho) < fine.h * fine.h / rho, "polygonised sphere: vertex "
                      "%zu is %g from the centre, expected %g within %g", q, sqrt(d2), rho,
                      fine.h * fine.h / rho);
    }
    mesh_free(&m);
    free(brick);
    free(phi);
    grid_free(&g);
}
END_TEST


/* ---- marching cubes' table (mcubes.c) ------------------------------------------------ */

/* phi given on every node 0..n[d] of a fine grid of spacing 1 (a sim grid of n cells, dx 1,
 * refine 1), polygonised brick by brick with the aprons, every brick listed. */
static void polygonise_nodes(const int n[3], const float *phi, Mesh *m)
{
    MacGrid g;
    ck_assert_int_eq(grid_init(&g, n[0], n[1], n[2], 1.0f), 0);
    SurfaceSettings set = surface_defaults();
    set.refine = 1;
    SurfaceGrid fine;
    char err[256] = "";
    ck_assert_msg(surface_grid(&g, &set, &fine, err, sizeof err) == 0, "surface_grid: %s", err);
    enum { P = SURFACE_BRICK + 1 };
    size_t count = (size_t)fine.nb[0] * fine.nb[1] * fine.nb[2];
    int32_t *brick = malloc(count * sizeof *brick);
    float *bphi = malloc(count * P * P * P * sizeof *bphi);
    ck_assert(brick && bphi);
    for (size_t b = 0; b < count; b++) {
        brick[b] = (int32_t)b;
        int base[3] = { (int)(b % (size_t)fine.nb[0]) * SURFACE_BRICK,
                        (int)(b / (size_t)fine.nb[0] % (size_t)fine.nb[1]) * SURFACE_BRICK,
                        (int)(b / ((size_t)fine.nb[0] * fine.nb[1])) * SURFACE_BRICK };
        for (int z = 0; z < P; z++)
            for (int y = 0; y < P; y++)
                for (int x = 0; x < P; x++) {
                    const int at[3] = { base[0] + x, base[1] + y, base[2] + z };
                    float v = 1.0f;   /* past the grid's last node: outside, never a corner */
                    if (at[0] <= n[0] && at[1] <= n[1] && at[2] <= n[2])
                        v = phi[at[0] + (n[0] + 1) * (at[1] + (n[1] + 1) * at[2])];
                    bphi[b * P * P * P + (size_t)(x + P * (y + P * z))] = v;
                }
    }
    SurfaceBricks in = { &fine, count, brick, bphi };
    ck_assert_msg(surface_polygonise(&in, m, err, sizeof err) == 0, "surface_polygonise: %s", err);
    free(brick);
    free(bphi);
    grid_free(&g);
}

/* The inside nodes' components, nodes joined along grid edges only: the table keeps inside
 * corners that touch across a face or the cube apart. */
static int inside_components(const int n[3], const float *phi)
{
    size_t count = (size_t)(n[0] + 1) * (n[1] + 1) * (n[2] + 1);
    int *label = calloc(count, sizeof *label), *stack = malloc(count * sizeof *stack);
    ck_assert(label && stack);
    const size_t stride[3] = { 1, (size_t)n[0] + 1, (size_t)(n[0] + 1) * (n[1] + 1) };
    int comps = 0;
    for (size_t start = 0; start < count; start++) {
        if (!(phi[start] < 0.0f) || label[start])
            continue;
        comps++;
        size_t top = 0;
        stack[top++] = (int)start;
        label[start] = comps;
        while (top > 0) {
            size_t v = (size_t)stack[--top];
            int at[3] = { (int)(v % stride[1]), (int)(v / stride[1] % ((size_t)n[1] + 1)),
                          (int)(v / stride[2]) };
            for (int d = 0; d < 3; d++)
                for (int s = -1; s <= 1; s += 2) {
                    if (at[d] + s < 0 || at[d] + s > n[d])
                        continue;
                    size_t w = (size_t)((ptrdiff_t)v + s * (ptrdiff_t)stride[d]);
                    if (phi[w] < 0.0f && !label[w]) {
                        label[w] = comps;
                        stack[top++] = (int)w;
                    }
                }
        }
    }
    free(label);
    free(stack);
    return comps;
}

/* Every vertex on a grid edge whose ends differ in sign, at the linear crossing (the marcher
 * clamps it to 1/1000 of the edge from either end). h = 1, so two coordinates are whole. */
static void assert_on_crossings(const Mesh *m, const int n[3], const float *phi, const char *what)
{
    for (size_t v = 0; v < m->nverts; v++) {
        const float *x = m->xyz + 3 * v;
        int along = -1, lo[3];
        for (int d = 0; d < 3; d++) {
            lo[d] = (int)floorf(x[d]);
            if ((float)lo[d] != x[d]) {
                harness_require(along < 0, "%s: vertex %zu (%g, %g, %g) is on no grid edge", what,
                                v, (double)x[0], (double)x[1], (double)x[2]);
                along = d;
            }
        }
        harness_require(along >= 0, "%s: vertex %zu sits on a node", what, v);
        int hi[3] = { lo[0], lo[1], lo[2] };
        hi[along]++;
        float a = phi[lo[0] + (n[0] + 1) * (lo[1] + (n[1] + 1) * lo[2])];
        float b = phi[hi[0] + (n[0] + 1) * (hi[1] + (n[1] + 1) * hi[2])];
        harness_require((a < 0.0f) != (b < 0.0f), "%s: vertex %zu on an edge without a sign change "
                        "(%g, %g)", what, v, (double)a, (double)b);
        double t = (double)a / ((double)a - (double)b), got = (double)x[along] - lo[along];
        t = t < 1e-3 ? 1e-3 : t > 1.0 - 1e-3 ? 1.0 - 1e-3 : t;
        harness_require(fabs(got - t) < 1e-5, "%s: vertex %zu at %g along its edge, the crossing "
                        "is at %g", what, v, got, t);
    }
}

/* Each of the 256 cases alone in a 2x2x2 block of nodes, outside all around, with random
 * magnitudes: closed, oriented, no degenerate triangle, every vertex on its crossing, and one
 * sphere (V - E + F = 2) per component of inside nodes joined along edges. */
START_TEST(test_cubes_every_case)
{
    const int n[3] = { 3, 3, 3 };
    float phi[4 * 4 * 4];
    Rng rng = rng_seeded(42);
    Mesh m;
    mesh_init(&m);
    McubesTable *table = malloc(sizeof *table);
    ck_assert(table && mcubes_table(table) == 0);
    for (int c = 0; c < 256; c++) {
        for (int q = 0; q < 64; q++)
            phi[q] = 0.2f + 0.8f * rng_uniform(&rng);
        for (int q = 0; q < 8; q++)
            if (c >> q & 1)
                phi[(1 + (q & 1)) + 4 * ((1 + (q >> 1 & 1)) + 4 * (1 + (q >> 2 & 1)))] *= -1.0f;
        polygonise_nodes(n, phi, &m);
        char what[64];
        snprintf(what, sizeof what, "case %d (inside corners 0x%02x)", c, c);
        long chi = assert_closed(&m, what);
        int comps = inside_components(n, phi);
        ck_assert_msg(chi == 2 * comps, "%s: V - E + F = %ld, expected %d (%d components)", what,
                      chi, 2 * comps, comps);
        ck_assert_msg(c == 0 ? m.ntris == 0 : mesh_volume(&m) > 0.0, "%s: %zu triangles, volume "
                      "%g: expected none for no inside corner, else a positive volume", what,
                      m.ntris, mesh_volume(&m));
        assert_on_crossings(&m, n, phi, what);
        /* the table's own count: a loop of k edges is k - 2 triangles */
        const McubesCase *cs = &table->c[c];
        int want = 0, edges = 0;
        for (int l = 0; l < cs->nloops; l++) {
            want += cs->loop_len[l] - 2;
            edges += cs->loop_len[l];
        }
        int crossed = 0;
        for (int e = 0; e < MCUBES_EDGES; e++)
            crossed += (c >> mcubes_edge[e][0] & 1) != (c >> mcubes_edge[e][1] & 1);
        ck_assert_msg(cs->ntris == want && edges == crossed, "case %d: %d triangles for loops of "
                      "%d edges in all (expected %d), %d edges crossed", c, cs->ntris, edges,
                      want, crossed);
    }
    free(table);
    mesh_free(&m);
}
END_TEST

/* Random sign fields on a 13x9x11 grid (bricks meet inside it), nodes on the domain's faces
 * outside: closed, oriented, every vertex on its crossing, V - E + F even, and a positive
 * volume whenever a node is inside. */
START_TEST(test_cubes_random_fields)
{
    const int n[3] = { 13, 9, 11 };
    size_t count = (size_t)14 * 10 * 12;
    float *phi = malloc(count * sizeof *phi);
    ck_assert(phi);
    Rng rng = rng_seeded(7);
    Mesh m;
    mesh_init(&m);
    for (int field = 0; field < 60; field++) {
        float p_in = 0.1f + 0.8f * rng_uniform(&rng);
        int any = 0;
        for (int k = 0; k <= n[2]; k++)
            for (int j = 0; j <= n[1]; j++)
                for (int i = 0; i <= n[0]; i++) {
                    int face = i == 0 || j == 0 || k == 0 || i == n[0] || j == n[1] || k == n[2];
                    float mag = 0.05f + rng_uniform(&rng);
                    int in = !face && rng_uniform(&rng) < p_in;
                    any |= in;
                    phi[i + (n[0] + 1) * (j + (n[1] + 1) * k)] = in ? -mag : mag;
                }
        polygonise_nodes(n, phi, &m);
        char what[64];
        snprintf(what, sizeof what, "random field %d (%.0f%% inside)", field, 100.0 * p_in);
        long chi = assert_closed(&m, what);
        ck_assert_msg(chi % 2 == 0, "%s: V - E + F = %ld, expected even", what, chi);
        ck_assert_msg(!any || mesh_volume(&m) > 0.0, "%s: volume %g", what, mesh_volume(&m));
        assert_on_crossings(&m, n, phi, what);
    }
    mesh_free(&m);
    free(phi);
}
END_TEST

/* The default's budget: a seeded ball of radius 8 cells (area 804 cells^2) at the default
 * refine within 4 triangles per cell^2 of its area (measured 3.3), and refine 2 at least
 * 3 times that (measured 3.9x): the setting changes the resolution. */
START_TEST(test_ball_triangle_budget)
{
    MacGrid g;
    make_grid(&g, 32, 0.25f);
    Particles ps;
    part_init(&ps);
    seed_ball(&ps, &g, 16.0, 16.0, 16.0, 8.0, 7);
    Mesh m;
    mesh_init(&m);
    build(&ps, &g, NULL, &m);
    double area = 4.0 * pi * 8.0 * 8.0;
    size_t coarse = m.ntris;
    ck_assert_msg(coarse > area && coarse < 4.0 * area, "ball r=8 cells, default refine: %zu "
                  "triangles, expected between %.0f and %.0f (1 to 4 per cell^2 of its area)",
                  coarse, area, 4.0 * area);
    SurfaceSettings fine = surface_defaults_at(2);
    build(&ps, &g, &fine, &m);
    printf("test_surface: ball r=8 cells: %zu triangles at the default refine, %zu at 2\n", coarse, m.ntris);
    ck_assert_msg(m.ntris >= 3 * coarse, "ball r=8 cells: %zu triangles at refine 2, %zu at the "
                  "default: expected at least 3 times as many", m.ntris, coarse);
    mesh_free(&m);
    part_free(&ps);
    grid_free(&g);
}
END_TEST

/* ---- settings and mesh_stats itself -------------------------------------------------- */

START_TEST(test_bad_settings)
{
    MacGrid g;
    make_grid(&g, 8, 0.1f);
    Particles ps;
    part_init(&ps);
    Mesh m;
    mesh_init(&m);
    char err[256] = "";
    SurfaceSettings bad[5];
    const char *names[5] = { "refine", "refine", "radius_cells", "radius_cells", "kernel_cells" };
    for (int i = 0; i < 5; i++)
        bad[i] = surface_defaults();
    bad[0].refine = 0;
    bad[1].refine = SURFACE_MAX_REFINE + 1;
    bad[2].radius_cells = NAN;
    bad[3].radius_cells = bad[3].kernel_cells; /* the drop must fit in the kernel */
    bad[4].kernel_cells = 4.5f;
    for (int i = 0; i < 5; i++) {
        err[0] = '\0';
        ck_assert_msg(surface_build(&ps, &g, &bad[i], &m, err, sizeof err) == -1,
                      "bad settings %d accepted", i);
        ck_assert_msg(strstr(err, names[i]) != NULL,
                      "bad settings %d: error does not name %s: '%s'", i, names[i], err);
        ck_assert_ptr_null(strchr(err, '\n'));
    }
    mesh_free(&m);
    grid_free(&g);
}
END_TEST

/* A tetrahedron with outward faces, then broken one way at a time. */
START_TEST(test_stats_detects_defects)
{
    float xyz[12] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    uint32_t good[12] = { 0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3 };
    uint32_t tri[15];
    Mesh m = { xyz, 4, 4, tri, 4, 5 };
    MeshStats st;

    memcpy(tri, good, sizeof good);
    ck_assert_int_eq(mesh_stats(&m, &st), 0);
    ck_assert_uint_eq(st.edges, 6);
    ck_assert_uint_eq(st.boundary_edges + st.nonmanifold_edges + st.misoriented_edges +
                          st.degenerate_tris, 0);
    ck_assert_double_eq_tol(mesh_volume(&m), 1.0 / 6.0, 1e-12);

    tri[3] = 1; tri[4] = 0; /* flip face 1 */
    ck_assert_int_eq(mesh_stats(&m, &st), 0);
    ck_assert_uint_eq(st.misoriented_edges, 3);

    memcpy(tri, good, sizeof good);
    m.ntris = 3; /* drop face 3 */
    ck_assert_int_eq(mesh_stats(&m, &st), 0);
    ck_assert_uint_eq(st.boundary_edges, 3);

    memcpy(tri + 12, good + 9, 3 * sizeof(uint32_t));
    m.ntris = 5; /* face 3 twice */
    ck_assert_int_eq(mesh_stats(&m, &st), 0);
    ck_assert_uint_eq(st.nonmanifold_edges, 3);

    memcpy(tri, good, sizeof good);
    m.ntris = 4;
    xyz[9] = 0.5f; xyz[10] = 0.5f; xyz[11] = 0.0f; /* vertex 3 into the plane of 0 1 2 */
    ck_assert_int_eq(mesh_stats(&m, &st), 0);
    ck_assert_uint_eq(st.degenerate_tris, 1); /* face 3 (1 2 3) is a line segment */
}
END_TEST

static Suite *surface_suite(void)
{
    Suite *s = suite_create("surface");
    TCase *shape = tcase_create("shape");
    tcase_add_test(shape, test_one_particle);
    tcase_add_test(shape, test_ball_closed);
    tcase_add_test(shape, test_ball_volume);
    tcase_add_test(shape, test_vertices_on_zero_set);
    tcase_add_test(shape, test_two_balls);
    tcase_set_timeout(shape, 60);
    suite_add_tcase(s, shape);
    TCase *solid = tcase_create("solid");
    tcase_add_test(solid, test_ball_on_block);
    tcase_add_test(solid, test_pool_against_walls);
    tcase_add_test(solid, test_grid_not_cubic);
    tcase_add_test(solid, test_random_scenes);
    tcase_set_timeout(solid, 60);
    suite_add_tcase(s, solid);
    TCase *repeat = tcase_create("repeat");
    tcase_add_test(repeat, test_deterministic);
    tcase_add_test(repeat, test_ignores_stray_particles);
    tcase_set_timeout(repeat, 60);
    suite_add_tcase(s, repeat);
    TCase *io = tcase_create("io");
    tcase_add_test(io, test_ply_write);
    tcase_add_test(io, test_empty);
    tcase_add_test(io, test_bad_settings);
    tcase_add_test(io, test_polygonise_sphere);
    tcase_add_test(io, test_stats_detects_defects);
    tcase_add_test(io, test_cubes_every_case);
    tcase_add_test(io, test_cubes_random_fields);
    tcase_add_test(io, test_ball_triangle_budget);
    suite_add_tcase(s, io);
    return s;
}

int main(void)
{
    return harness_run(surface_suite());
}
