/* test_aniso.c — Check suite for the anisotropic surface (aniso.c, surface_build_anisotropic):
 * closed and manifold, the volume of the isotropic surface on a still box, flatter on a calm
 * surface, the same bytes twice, eigenvectors, drops and bad settings. flipkit tests/. */
#include "aniso.h"
#include "harness.h"
#include "surface.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The kit's seeding: 8 particles per cell on a jittered 2x2x2 lattice, in cells [lo, hi). */
static void seed_box(Particles *ps, const MacGrid *g, const int lo[3], const int hi[3], uint64_t seed)
{
    Rng rng = rng_seeded(seed);
    for (int k = lo[2]; k < hi[2]; k++)
        for (int j = lo[1]; j < hi[1]; j++)
            for (int i = lo[0]; i < hi[0]; i++)
                for (int s = 0; s < 8; s++) {
                    const int c[3] = { i, j, k };
                    float x[3];
                    for (int d = 0; d < 3; d++)
                        x[d] = (c[d] + 0.5f * ((s >> d & 1) + 0.5f + 0.5f * (rng_uniform(&rng) - 0.5f))) * g->dx;
                    ck_assert_int_eq(part_push(ps, (Vec3){ x[0], x[1], x[2] }, (Vec3){ 0, 0, 0 }), 0);
                }
}

/* Both surfaces at the given refine (0: the defaults). At refine 2 with the particle radius
 * of 0.35 cells the isotropic surface had until issue 42, for which these tests' figures were
 * measured (the default 0.42 inflates the isotropic surface by 2 to 3% more). */
static void build_both(const Particles *ps, const MacGrid *g, int refine, Mesh *iso, Mesh *an)
{
    char err[512];
    SurfaceSettings set = refine ? surface_defaults_at(refine) : surface_defaults();
    set.radius_cells = refine == 2 ? 0.35f : set.radius_cells;
    ck_assert_msg(surface_build(ps, g, &set, iso, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(surface_build_anisotropic(ps, g, &set, 8, an, err, sizeof err) == 0, "%s", err);
}

static void assert_closed(const Mesh *m, const char *what)
{
    MeshStats st;
    ck_assert_int_eq(mesh_stats(m, &st), 0);
    ck_assert_msg(m->ntris > 0 && st.boundary_edges == 0 && st.nonmanifold_edges == 0 &&
                  st.misoriented_edges == 0 && st.degenerate_tris == 0,
                  "%s: %zu triangles, %zu boundary, %zu non-manifold, %zu misoriented edges, %zu "
                  "degenerate triangles; expected a closed oriented manifold", what, m->ntris,
                  st.boundary_edges, st.nonmanifold_edges, st.misoriented_edges, st.degenerate_tris);
}

/* A still box of liquid: both surfaces closed, the anisotropic volume within 5% of the
 * isotropic one's at refine 2 (the default until issue 42; at the default refine 1 a fine
 * cell is as wide as the kernel, and the two differ by 6%, still closed). */
START_TEST(still_box_closed_same_volume)
{
    MacGrid g;
    ck_assert_int_eq(grid_init(&g, 24, 24, 24, 0.1f), 0);
    Particles ps;
    part_init(&ps);
    seed_box(&ps, &g, (int[3]){ 4, 1, 5 }, (int[3]){ 18, 12, 19 }, 3);
    Mesh iso, an;
    mesh_init(&iso);
    mesh_init(&an);
    build_both(&ps, &g, 0, &iso, &an);
    assert_closed(&iso, "still box, isotropic, default refine");
    assert_closed(&an, "still box, anisotropic, default refine");
    size_t coarse = an.ntris;
    build_both(&ps, &g, 2, &iso, &an);
    /* the anisotropic surface follows output.surface_refine as the isotropic one does */
    ck_assert_msg(an.ntris >= 3 * coarse, "still box: the anisotropic surface has %zu triangles "
                  "at refine 2, %zu at the default: expected at least 3 times as many", an.ntris,
                  coarse);
    assert_closed(&iso, "still box, isotropic");
    assert_closed(&an, "still box, anisotropic");
    double vi = mesh_volume(&iso), va = mesh_volume(&an);
    printf("test_aniso: still box: volume isotropic %.4f, anisotropic %.4f m^3 (seeded %.4f)\n",
           vi, va, 14 * 11 * 14 * 1e-3);
    ck_assert_msg(fabs(va - vi) <= 0.05 * vi, "still box: anisotropic volume %.4f m^3, isotropic "
                  "%.4f: expected within 5%%", va, vi);
    mesh_free(&iso);
    mesh_free(&an);
    part_free(&ps);
    grid_free(&g);
}
END_TEST

/* How far the top's vertices scatter in height (their standard deviation) over the middle of
 * a pool whose top is at about y_top: 0 for a plane. */
static double top_scatter(const Mesh *m, float y_top, float lo, float hi)
{
    double s = 0, s2 = 0;
    long n = 0;
    for (size_t v = 0; v < m->nverts; v++) {
        const float *p = m->xyz + 3 * v;
        if (fabsf(p[1] - y_top) > 0.1f || p[0] < lo || p[0] > hi || p[2] < lo || p[2] > hi)
            continue;
        s += p[1];
        s2 += (double)p[1] * p[1];
        n++;
    }
    ck_assert_msg(n > 100, "only %ld vertices on the pool's top", n);
    double mean = s / n;
    return sqrt(s2 / n - mean * mean);
}

/* A calm pool (the kit's jittered seeding): the anisotropic top is flatter, its vertex heights
 * scattered less than half as much as the isotropic one's, whose spheres show each particle.
 * At refine 2: at the default refine 1 the nodes are too few to show the particles' bumps on
 * either surface (measured 0.0028 m against 0.0034 m). */
START_TEST(calm_surface_is_flatter)
{
    MacGrid g;
    ck_assert_int_eq(grid_init(&g, 20, 16, 20, 0.1f), 0);
    Particles ps;
    part_init(&ps);
    seed_box(&ps, &g, (int[3]){ 1, 1, 1 }, (int[3]){ 19, 8, 19 }, 5);
    Mesh iso, an;
    mesh_init(&iso);
    mesh_init(&an);
    build_both(&ps, &g, 2, &iso, &an);
    assert_closed(&an, "pool, anisotropic");
    double si = top_scatter(&iso, 0.8f, 0.4f, 1.6f), sa = top_scatter(&an, 0.8f, 0.4f, 1.6f);
    printf("test_aniso: calm pool: top vertex heights scatter %.5f m isotropic, %.5f m "
           "anisotropic\n", si, sa);
    ck_assert_msg(sa < 0.5 * si, "calm pool: the anisotropic top's heights scatter %.5f m, the "
                  "isotropic one's %.5f m: expected less than half", sa, si);
    mesh_free(&iso);
    mesh_free(&an);
    part_free(&ps);
    grid_free(&g);
}
END_TEST

START_TEST(same_bytes_twice_and_drops)
{
    MacGrid g;
    ck_assert_int_eq(grid_init(&g, 16, 16, 16, 0.1f), 0);
    Particles ps;
    part_init(&ps);
    seed_box(&ps, &g, (int[3]){ 3, 1, 3 }, (int[3]){ 12, 6, 12 }, 9);
    /* a lone particle and a pair above: drops, not nothing */
    ck_assert_int_eq(part_push(&ps, (Vec3){ 0.8f, 1.2f, 0.8f }, (Vec3){ 0, 0, 0 }), 0);
    ck_assert_int_eq(part_push(&ps, (Vec3){ 0.5f, 1.3f, 0.5f }, (Vec3){ 0, 0, 0 }), 0);
    ck_assert_int_eq(part_push(&ps, (Vec3){ 0.53f, 1.3f, 0.5f }, (Vec3){ 0, 0, 0 }), 0);
    Mesh a, b;
    mesh_init(&a);
    mesh_init(&b);
    char err[512];
    ck_assert_msg(surface_build_anisotropic(&ps, &g, NULL, 8, &a, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(surface_build_anisotropic(&ps, &g, NULL, 8, &b, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(a.nverts == b.nverts && a.ntris == b.ntris &&
                  memcmp(a.xyz, b.xyz, 12 * a.nverts) == 0 && memcmp(a.tri, b.tri, 12 * a.ntris) == 0,
                  "two builds of the same particles differ (%zu/%zu vertices)", a.nverts, b.nverts);
    assert_closed(&a, "pool with drops");
    size_t high = 0;
    for (size_t v = 0; v < a.nverts; v++)
        high += a.xyz[3 * v + 1] > 1.0f;
    ck_assert_msg(high > 0, "the lone particle and the pair above the pool left no surface");
    /* nothing at all: an empty mesh, no error */
    Particles none;
    part_init(&none);
    ck_assert_int_eq(surface_build_anisotropic(&none, &g, NULL, 8, &a, err, sizeof err), 0);
    ck_assert_int_eq(a.ntris, 0);
    /* bad settings: one line naming the setting */
    SurfaceSettings bad = surface_defaults();
    bad.refine = 0;
    ck_assert_int_eq(surface_build_anisotropic(&ps, &g, &bad, 8, &a, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "refine") && !strchr(err, '\n'), "err \"%s\"", err);
    ck_assert_int_eq(surface_build_anisotropic(&ps, &g, NULL, 0, &a, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "particles_per_cell"), "err \"%s\"", err);
    mesh_free(&a);
    mesh_free(&b);
    part_free(&ps);
    grid_free(&g);
}
END_TEST

/* The Jacobi eigen-solver on a rotated diagonal matrix, and a slab's kernel: thin across the
 * slab (y), long along it. */
START_TEST(eigenvectors_and_a_flat_kernel)
{
    const double c = cos(0.3), s = sin(0.3);   /* rotation about z of diag(4, 2, 1) */
    double a[6] = { 4 * c * c + 2 * s * s, 4 * s * s + 2 * c * c, 1, (4 - 2) * c * s, 0, 0 };
    double value[3], v[3][3];
    aniso_eigen(a, value, v);
    ck_assert_msg(fabs(value[0] - 4) < 1e-12 && fabs(value[1] - 2) < 1e-12 && fabs(value[2] - 1) < 1e-12,
                  "eigenvalues %g %g %g, expected 4 2 1", value[0], value[1], value[2]);
    ck_assert_msg(fabs(fabs(v[0][0]) - c) < 1e-12 && fabs(fabs(v[1][0]) - s) < 1e-12,
                  "first eigenvector (%g, %g, %g), expected +-(cos 0.3, sin 0.3, 0)", v[0][0], v[1][0], v[2][0]);
    MacGrid g;
    ck_assert_int_eq(grid_init(&g, 16, 16, 16, 0.1f), 0);
    Particles ps;
    part_init(&ps);
    seed_box(&ps, &g, (int[3]){ 1, 1, 1 }, (int[3]){ 15, 6, 15 }, 11);
    AnisoKernel *k = malloc(ps.count * sizeof *k);
    ck_assert_int_eq(aniso_kernels(&ps, &g, g.dx, NULL, k), 0);
    /* a particle on the top layer, in the middle */
    size_t best = 0;
    for (size_t p = 0; p < ps.count; p++) {
        Vec3 x = ps.pos[p];
        if (fabsf(x.x - 0.8f) + fabsf(x.z - 0.8f) < fabsf(ps.pos[best].x - 0.8f) + fabsf(ps.pos[best].z - 0.8f) ||
            (x.y > ps.pos[best].y + 0.01f && fabsf(x.x - 0.8f) < 0.1f && fabsf(x.z - 0.8f) < 0.1f))
            best = p;
    }
    const AnisoKernel *t = &k[best];
    ck_assert_msg(t->half[1] < 0.8f * t->half[0] && t->half[1] < 0.8f * t->half[2],
                  "a top-layer particle at (%g, %g, %g): half extents %g %g %g, expected the y one "
                  "below 0.8 of the others (flat along the surface)", ps.pos[best].x,
                  ps.pos[best].y, ps.pos[best].z, t->half[0], t->half[1], t->half[2]);
    free(k);
    part_free(&ps);
    grid_free(&g);
}
END_TEST

/* Particles bunched far above the seeded density beside a solid block: the field deep in the
 * clump is many times its full value, and the search for solids near it must stay bounded
 * (it overran an array before the field was clamped at -r, as the isotropic one is). */
START_TEST(dense_clump_beside_a_solid)
{
    MacGrid g;
    ck_assert_int_eq(grid_init(&g, 16, 16, 16, 0.1f), 0);
    for (int k = 6; k < 10; k++)
        for (int j = 0; j < 5; j++)
            for (int i = 9; i < 12; i++)
                g.cell[grid_cell_index(&g, i, j, k)] = CELL_SOLID;
    Particles ps;
    part_init(&ps);
    Rng rng = rng_seeded(13);
    for (int p = 0; p < 3000; p++)   /* ~40 times the seeded density in a 2-cell ball */
        ck_assert_int_eq(part_push(&ps, (Vec3){ 0.8f + 0.1f * (rng_uniform(&rng) - 0.5f),
                                                0.3f + 0.1f * (rng_uniform(&rng) - 0.5f),
                                                0.8f + 0.1f * (rng_uniform(&rng) - 0.5f) },
                                   (Vec3){ 0, 0, 0 }), 0);
    Mesh m;
    mesh_init(&m);
    char err[512];
    ck_assert_msg(surface_build_anisotropic(&ps, &g, NULL, 8, &m, err, sizeof err) == 0, "%s", err);
    assert_closed(&m, "a dense clump beside a solid");
    for (size_t v = 0; v < m.nverts; v++) {
        int i = (int)floorf(m.xyz[3 * v] / g.dx), j = (int)floorf(m.xyz[3 * v + 1] / g.dx),
            k = (int)floorf(m.xyz[3 * v + 2] / g.dx);
        ck_assert_msg(g.cell[grid_cell_index(&g, i, j, k)] != CELL_SOLID, "vertex %zu inside the "
                      "solid block", v);
    }
    mesh_free(&m);
    part_free(&ps);
    grid_free(&g);
}
END_TEST

static Suite *aniso_suite(void)
{
    Suite *s = suite_create("aniso");
    TCase *t = tcase_create("aniso");
    tcase_add_test(t, still_box_closed_same_volume);
    tcase_add_test(t, calm_surface_is_flatter);
    tcase_add_test(t, same_bytes_twice_and_drops);
    tcase_add_test(t, eigenvectors_and_a_flat_kernel);
    tcase_add_test(t, dense_clump_beside_a_solid);
    tcase_set_timeout(t, 60);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return harness_run(aniso_suite());
}
