/* surface.c — the liquid's surface: a particle field on a sparse fine grid, marching cubes.
 * flipkit common/writers/: called once per frame by the frame writer, so it touches only the bricks
 * of the fine grid near particles; nothing of the fine grid's full size is ever allocated. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "surface.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aniso.h"
#include "atomic.h"
#include "mcubes.h"

/*
 * The outline:
 *  1. Cells. Per sim cell: does a particle lie in it, is a SOLID cell near, and is it deep
 *     inside the liquid (every cell around it holds particles or is SOLID, see 4).
 *  2. Bricks. The fine grid (spacing h = dx / refine, nodes 0..n per axis) is cut into bricks
 *     of 8^3 nodes. Only bricks within a particle's kernel (plus one node) get memory.
 *  3. Splat. Each particle, in index order, adds k(s) = max(0, 1 - s^2)^3, s = |x - x_p| / R,
 *     and k(s) (x_p - x) to the nodes within R: Zhu & Bridson, "Animating Sand as a Fluid",
 *     SIGGRAPH 2005, the section on surface reconstruction. Index order makes the float
 *     sums, and so the mesh, the same on every run.
 *  4. Field. phi(x) = |xbar(x) - x| - r, xbar the kernel-weighted mean of the particles: the
 *     same paper's formula with every particle's radius r, so rbar = r. No particle within R:
 *     phi = R (outside). A shortcut: a node whose sim cell is deep (every cell within
 *     ceil(R / dx) holds particles or is SOLID) is taken as inside, phi = -r, without its
 *     sums, and a particle whose kernel reaches deep nodes only is not splatted at all. That
 *     skips most particles of a big body of liquid, and can only close gaps smaller than a
 *     cell where every cell around holds particles; every node that is not deep still gets
 *     every particle within R (the tests check vertices against the formula).
 *     Then phi = max(phi, c - dist(x, SOLID)) with c = h / 2, and phi >= c on the domain's
 *     faces: the nodes on a solid's or the domain's faces are outside, and the next layer, a
 *     fine cell in, is raised to -h / 2 at most. Solids are whole sim cells, whose faces lie
 *     on the fine grid's planes, so a node's distance to one is 0 or at least h: an inside
 *     node is at least h from every solid, and a vertex, at most (1 - T_MIN) h from it along
 *     an axis edge, stays outside them and inside the domain; the surface closes before the
 *     domain ends. It meets a wall of deep liquid 0.54 cells from it at the default refine 1
 *     (surface_particle_volume_at), where marching tetrahedra needed sqrt(3) h for their
 *     diagonal edges and left 0.87 cells. phi == 0 counts as outside.
 *  5. Marching cubes, with the case table mcubes.c derives from the cube's faces. Why this:
 *     the 64^3 ball_drop's surface was 16x the peer's triangles (marching tetrahedra, 6 per
 *     cube, at refine 2); the tetrahedra at refine 1 still made 66 k to 188 k a frame through
 *     the splash, over twice the peer's 63 k, where cubes at refine 1 make 22 k to 79 k (a
 *     tetrahedral split cuts each cube 2 to 3 times as often); welding or decimating a finer
 *     mesh would first make the 4x larger one, then need a manifold test per collapse. Cubes
 *     keep every vertex on a grid edge, so the field, the sharing of vertices between cubes
 *     and the OpenCL path stay as they were. A vertex sits on each axis edge with a sign
 *     change, made once and shared by every cube on the edge: through a per-brick table when
 *     all the edge's cubes are in one brick, else through a hash map keyed by (low node, edge
 *     direction). Bricks and cubes go in index order, so the vertex and triangle order is
 *     fixed too. Each cube's faces are cut by a rule that reads only the face's 4 corner
 *     signs, so neighbours agree, and each triangle's normal points toward positive phi: the
 *     mesh is a closed, consistently oriented 2-manifold (mcubes.c says why).
 * Step 5 alone is surface_polygonise, for a field made elsewhere in the same bricks (the
 * OpenCL path computes steps 1-4 on its device); surface_grid gives both paths one set of
 * constants.
 */

enum { BRICK = SURFACE_BRICK, BRICK3 = BRICK * BRICK * BRICK };
enum { PAD = BRICK + 1, PAD3 = PAD * PAD * PAD };
enum { ACC = 4 }; /* sums per node: weight, weighted offset x, y, z */
/* Nodes along one axis of a kernel: 2 R / h + 1 with R <= 4 dx, h >= dx / 8, and rounding. */
enum { SURFACE_MAX_KERNEL_NODES = 2 * 4 * SURFACE_MAX_REFINE + 3 };

/* A vertex never sits closer than this fraction of its edge to a node, so two vertices
 * never coincide and no triangle has zero area. It moves a vertex by at most 0.1% of h. */
#define SURFACE_T_MIN 1e-3f

#if defined(__GNUC__)
#define SURFACE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SURFACE_PRINTF(f, a)
#endif

typedef struct {
    SurfaceGrid grid;
    int32_t *slot;      /* per brick: its place in the pool, or -1 when no particle is near */
    int32_t *brick_of;  /* per slot: the brick, in increasing brick index */
    size_t nslots;
    float *acc;         /* per slot, BRICK3 x ACC sums, x fastest */
    float *phi;         /* per slot, PAD3 values: the brick's nodes and a +1 apron copied from
                         * its neighbours, so every cube finds its 8 corners in one array */
    uint8_t *flags;     /* per sim cell, CF_ bits */
    uint32_t *cell_of;  /* per particle: its sim cell, or NO_CELL outside the grid */
    uint8_t *solid_left;/* per sim cell: how many cells back along x the nearest SOLID cell
                         * is (0: this one; the cell before the grid counts), at most 255 */
    uint8_t *solid_right;/* the same forward */
    float support;      /* how far a particle's kernel reaches: R, or more for ellipsoids */
    const AnisoKernel *aniso; /* per particle, for the anisotropic field; NULL: isotropic */
    float full, iso;    /* the anisotropic field deep in the liquid, and its surface's value */
} Field;

#define NO_CELL UINT32_MAX

/* Per sim cell. "Within k" means in the (2k + 1)^3 block around the cell; cells beyond the
 * grid count as SOLID and empty. */
enum {
    CF_PARTICLE = 1,    /* a particle lies in the cell */
    CF_NEAR_SOLID = 2,  /* a SOLID cell within reach */
    CF_SHALLOW = 4,     /* a cell neither SOLID nor holding particles within kernel_cells:
                         * its nodes are not deep */
    CF_SPLAT = 8,       /* a CF_SHALLOW cell within kernel_cells + 1: a particle here may
                         * reach a node that is not deep (see surface_splat) */
};

/* ---- messages ------------------------------------------------------------------------ */

static void SURFACE_PRINTF(3, 4) surface_seterr(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ---- the mesh ------------------------------------------------------------------------ */

SurfaceSettings surface_defaults_at(int refine)
{
    SurfaceSettings s = { refine, SURFACE_DEFAULT_RADIUS_CELLS, SURFACE_DEFAULT_KERNEL_CELLS };
    return s;
}

SurfaceSettings surface_defaults(void)
{
    return surface_defaults_at(SURFACE_DEFAULT_REFINE);
}

void mesh_init(Mesh *m)
{
    *m = (Mesh){ 0 };
}

void mesh_free(Mesh *m)
{
    free(m->xyz);
    free(m->tri);
    mesh_init(m);
}

/* Grows an array of items of `each` bytes to hold at least need items, doubling. */
static int mesh_grow(void **p, size_t *cap, size_t need, size_t each)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 4096;
    while (c < need) {
        if (c > SIZE_MAX / 2 / each)
            return -1;
        c *= 2;
    }
    void *q = realloc(*p, c * each);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

static int mesh_add_vertex(Mesh *m, float x, float y, float z, uint32_t *index)
{
    if (m->nverts >= INT32_MAX) /* PLY stores indices as int */
        return -1;
    void *p = m->xyz;
    if (mesh_grow(&p, &m->cap_verts, m->nverts + 1, 3 * sizeof(float)) != 0)
        return -1;
    m->xyz = p;
    float *v = m->xyz + 3 * m->nverts;
    v[0] = x;
    v[1] = y;
    v[2] = z;
    *index = (uint32_t)m->nverts++;
    return 0;
}

static int mesh_add_tri(Mesh *m, uint32_t a, uint32_t b, uint32_t c)
{
    void *p = m->tri;
    if (mesh_grow(&p, &m->cap_tris, m->ntris + 1, 3 * sizeof(uint32_t)) != 0)
        return -1;
    m->tri = p;
    uint32_t *t = m->tri + 3 * m->ntris++;
    t[0] = a;
    t[1] = b;
    t[2] = c;
    return 0;
}

/* ---- settings and the field's life ---------------------------------------------------- */

/* Settings and grid checked, the fine grid derived; who names the caller in messages. */
static int surface_grid_for(const char *who, const MacGrid *g, const SurfaceSettings *set,
                            SurfaceGrid *out, char *err, size_t errlen)
{
    SurfaceSettings s = set ? *set : surface_defaults();
    if (s.refine < 1 || s.refine > SURFACE_MAX_REFINE) {
        surface_seterr(err, errlen, "%s: refine is %d; expected 1..%d", who, s.refine,
                       SURFACE_MAX_REFINE);
        return -1;
    }
    if (!(s.kernel_cells > 0.0f && s.kernel_cells <= 4.0f)) {
        surface_seterr(err, errlen, "%s: kernel_cells is %g; expected (0, 4]", who,
                       (double)s.kernel_cells);
        return -1;
    }
    if (!(s.radius_cells > 0.0f && s.radius_cells < s.kernel_cells)) {
        surface_seterr(err, errlen, "%s: radius_cells is %g; expected (0, kernel_cells = %g)",
                       who, (double)s.radius_cells, (double)s.kernel_cells);
        return -1;
    }
    if (g->nx < 1 || g->ny < 1 || g->nz < 1 || !(g->dx > 0.0f) || !g->cell) {
        surface_seterr(err, errlen, "%s: the grid is not initialised", who);
        return -1;
    }
    if (grid_cells(g) >= NO_CELL) {
        surface_seterr(err, errlen, "%s: %dx%dx%d cells are too many (at most 2^32 - 1)", who,
                       g->nx, g->ny, g->nz);
        return -1;
    }
    *out = (SurfaceGrid){ .refine = s.refine };
    const int cells[3] = { g->nx, g->ny, g->nz };
    size_t nbricks = 1;
    for (int d = 0; d < 3; d++) {
        out->n[d] = cells[d] * s.refine;
        out->nb[d] = out->n[d] / BRICK + 1; /* nodes 0..n need n + 1 places */
        nbricks *= (size_t)out->nb[d];
    }
    if (nbricks > INT32_MAX) {
        surface_seterr(err, errlen, "%s: a fine grid of %dx%dx%d cells has too many bricks "
                       "(at most 2^31 - 1)", who, out->n[0], out->n[1], out->n[2]);
        return -1;
    }
    out->h = g->dx / (float)s.refine;
    out->r = s.radius_cells * g->dx;
    out->R = s.kernel_cells * g->dx;
    out->far = out->R;
    out->clear = 0.5f * out->h;   /* see the outline, step 4 */
    /* phi >= -r, so a solid farther than clear + r never changes max(phi, clear - dist); the
     * cells within rho of a node lie within ceil(rho / dx) cells of the node's own cell. */
    out->reach = (int)ceilf((out->clear + out->r) / g->dx);
    out->kernel_cells = (int)ceilf(out->R / g->dx);
    return 0;
}

int surface_grid(const MacGrid *g, const SurfaceSettings *set, SurfaceGrid *out, char *err,
                 size_t errlen)
{
    return surface_grid_for("surface", g, set, out, err, errlen);
}

static int surface_field_init(Field *f, const SurfaceGrid *fine)
{
    *f = (Field){ .grid = *fine, .support = fine->R };
    size_t nbricks = (size_t)fine->nb[0] * (size_t)fine->nb[1] * (size_t)fine->nb[2];
    f->slot = calloc(nbricks, sizeof *f->slot);
    return f->slot ? 0 : -1;
}

static void surface_field_free(Field *f)
{
    free(f->slot);
    free(f->brick_of);
    free(f->acc);
    free(f->phi);
    free(f->flags);
    free(f->cell_of);
    free(f->solid_left);
    free(f->solid_right);
    *f = (Field){ 0 };
}

static size_t surface_brick_index(const Field *f, int bx, int by, int bz)
{
    return (size_t)bx + (size_t)f->grid.nb[0] * ((size_t)by + (size_t)f->grid.nb[1] * (size_t)bz);
}

/* ---- 1. cells ----------------------------------------------------------------------- */

/* The bits dilated in surface_classify_cells, each by its own reach. */
enum { DILATED = 3 };
static const uint8_t surface_dilated[DILATED] = { CF_NEAR_SOLID, CF_SHALLOW, CF_SPLAT };

/* out |= in & mask over len bytes, eight at a time (memcpy compiles to plain loads). */
static void surface_or_bytes(uint8_t *restrict out, const uint8_t *restrict in, size_t len,
                             uint8_t mask)
{
    const uint64_t m = mask * UINT64_C(0x0101010101010101);
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t a, b;
        memcpy(&a, out + i, 8);
        memcpy(&b, in + i, 8);
        a |= b & m;
        memcpy(out + i, &a, 8);
    }
    for (; i < len; i++)
        out[i] |= in[i] & mask;
}

/* The bits whose reach is at least |s|. */
static uint8_t surface_reaching(const int reach[DILATED], int s)
{
    uint8_t bits = 0;
    for (int b = 0; b < DILATED; b++)
        bits |= (uint8_t)(reach[b] >= (s < 0 ? -s : s) ? surface_dilated[b] : 0);
    return bits;
}

/* One axis of a cube dilation, in place: each DILATED bit is set where, before (in prev),
 * it was set within its reach along axis a; everything beyond the grid counts as set. */
static void surface_dilate_axis(uint8_t *restrict flags, const uint8_t *restrict prev,
                                const int n[3], int a, const int reach[DILATED], int most)
{
    const size_t stride[3] = { 1, (size_t)n[0], (size_t)n[0] * (size_t)n[1] };
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++) {
            const int at[3] = { 0, j, k };
            size_t row = stride[1] * (size_t)j + stride[2] * (size_t)k;
            uint8_t *out = flags + row;
            for (int s = -most; s <= most; s++) {
                uint8_t bits = surface_reaching(reach, s);
                if (s == 0 || !bits)
                    continue;
                if (a == 0) {
                    int lo = s < 0 ? -s : 0, hi = s > 0 ? n[0] - s : n[0]; /* i + s inside */
                    lo = lo < n[0] ? lo : n[0];
                    hi = hi > lo ? hi : lo;
                    for (int i = 0; i < lo; i++)
                        out[i] |= bits;
                    for (int i = hi; i < n[0]; i++)
                        out[i] |= bits;
                    surface_or_bytes(out + lo, prev + row + lo + s, (size_t)(hi - lo), bits);
                } else if (at[a] + s < 0 || at[a] + s >= n[a]) {
                    for (int i = 0; i < n[0]; i++)
                        out[i] |= bits;
                } else {
                    ptrdiff_t from = (ptrdiff_t)s * (ptrdiff_t)stride[a];
                    surface_or_bytes(out, prev + row + from, (size_t)n[0], bits);
                }
            }
        }
}

/* Dilation of each DILATED bit by a (2 reach + 1)^3 block: one pass per axis. */
static void surface_dilate(uint8_t *restrict flags, uint8_t *restrict prev, const int n[3],
                           const int reach[DILATED])
{
    size_t cells = (size_t)n[0] * n[1] * n[2];
    int most = 0;
    for (int b = 0; b < DILATED; b++)
        most = reach[b] > most ? reach[b] : most;
    for (int a = 0; a < 3; a++) {
        memcpy(prev, flags, cells);
        surface_dilate_axis(flags, prev, n, a, reach, most);
    }
}

/* The sim cell holding p, or NO_CELL when p is outside the grid (or not finite). Only
 * used for bounds with a node to spare, so x * (1 / dx) rounding differently from x / dx
 * does not matter. */
static uint32_t surface_cell_of(const MacGrid *g, float inv_dx, Vec3 p)
{
    const int n[3] = { g->nx, g->ny, g->nz };
    int c[3];
    for (int d = 0; d < 3; d++) {
        float x = vec3_get(p, d) * inv_dx;
        if (!(x >= 0.0f && x < (float)n[d]))
            return NO_CELL;
        c[d] = (int)x;
        c[d] = c[d] < n[d] ? c[d] : n[d] - 1;
    }
    return (uint32_t)grid_cell_index(g, c[0], c[1], c[2]);
}

/* solid_left and solid_right, one x-row at a time. Beyond 255 cells is as good as never:
 * no search reaches that far. */
static int surface_solid_rows(Field *f, const MacGrid *g)
{
    size_t cells = grid_cells(g);
    f->solid_left = malloc(cells);
    f->solid_right = malloc(cells);
    if (!f->solid_left || !f->solid_right)
        return -1;
    for (size_t row = 0; row < cells; row += (size_t)g->nx) {
        int last = -1;
        for (int i = 0; i < g->nx; i++) {
            last = g->cell[row + (size_t)i] == CELL_SOLID ? i : last;
            f->solid_left[row + (size_t)i] = (uint8_t)(i - last < 255 ? i - last : 255);
        }
        int next = g->nx;
        for (int i = g->nx - 1; i >= 0; i--) {
            next = g->cell[row + (size_t)i] == CELL_SOLID ? i : next;
            f->solid_right[row + (size_t)i] = (uint8_t)(next - i < 255 ? next - i : 255);
        }
    }
    return 0;
}

static int surface_classify_cells(Field *f, const MacGrid *g, const Particles *ps)
{
    const int n[3] = { g->nx, g->ny, g->nz };
    size_t cells = grid_cells(g);
    f->flags = calloc(cells, 1);
    f->cell_of = malloc((ps->count ? ps->count : 1) * sizeof *f->cell_of);
    uint8_t *prev = malloc(cells);
    if (!f->flags || !f->cell_of || !prev) {
        free(prev);
        return -1;
    }
    float inv_dx = 1.0f / g->dx;
    for (size_t q = 0; q < ps->count; q++) {
        uint32_t c = surface_cell_of(g, inv_dx, ps->pos[q]);
        f->cell_of[q] = c;
        if (c != NO_CELL)
            f->flags[c] = CF_PARTICLE;
    }
    for (size_t c = 0; c < cells; c++) {
        /* SOLID cells count as filled: a node they make deep is lifted out of the liquid by
         * the solid's own rule anyway when it is near them. */
        int solid = g->cell[c] == CELL_SOLID, filled = f->flags[c] || solid;
        f->flags[c] |= (uint8_t)(solid ? CF_NEAR_SOLID : 0);
        f->flags[c] |= (uint8_t)(filled ? 0 : CF_SHALLOW | CF_SPLAT);
    }
    /* A particle's kernel nodes lie in cells within kernel_cells of its own, + 1 for
     * rounding; with no shallow cell among those it can be skipped without a look. */
    const int kc = f->grid.kernel_cells, reach[DILATED] = { f->grid.reach, kc, 2 * kc + 1 };
    surface_dilate(f->flags, prev, n, reach);
    free(prev);
    return surface_solid_rows(f, g);
}

/* ---- 2. bricks ----------------------------------------------------------------------- */

/* The nodes within R of p along one axis, clamped to 0..n. Returns 0 when there are none
 * (p far outside the domain, or not finite). */
static int surface_axis_range(const Field *f, float x, int d, int *lo, int *hi)
{
    if (!isfinite(x))
        return 0;
    float a = ceilf((x - f->support) / f->grid.h), b = floorf((x + f->support) / f->grid.h);
    /* Clamp as float first: converting a huge float to int is undefined. */
    a = a < 0.0f ? 0.0f : a;
    b = b > (float)f->grid.n[d] ? (float)f->grid.n[d] : b;
    if (a > b)
        return 0;
    *lo = (int)a;
    *hi = (int)b;
    return 1;
}

static void surface_mark_range(Field *f, const int lo[3], const int hi[3])
{
    int a[3], b[3];
    for (int d = 0; d < 3; d++) {
        a[d] = (lo[d] < 1 ? 0 : lo[d] - 1) / BRICK; /* one node more each way, see below */
        b[d] = (hi[d] >= f->grid.n[d] ? f->grid.n[d] : hi[d] + 1) / BRICK;
    }
    for (int bz = a[2]; bz <= b[2]; bz++)
        for (int by = a[1]; by <= b[1]; by++)
            for (int bx = a[0]; bx <= b[0]; bx++)
                f->slot[surface_brick_index(f, bx, by, bz)] = 1;
}

/* Marks every brick holding a node within R of a particle, or next to one: a cube with an
 * inside corner then has all 8 corners in marked bricks. Particles inside the grid are
 * marked by their sim cell (no particle of the cell reaches beyond the cell's nodes +-
 * ceil(R / h)); the few outside it one by one. Extra bricks only cost time: phi at a node
 * does not depend on which bricks exist. */
static void surface_mark_bricks(Field *f, const MacGrid *g, const Particles *ps)
{
    for (size_t q = 0; q < ps->count; q++) {
        int lo[3], hi[3], ok = 1;
        if (f->cell_of[q] != NO_CELL)
            continue;
        for (int d = 0; d < 3 && ok; d++)
            ok = surface_axis_range(f, vec3_get(ps->pos[q], d), d, &lo[d], &hi[d]);
        if (ok)
            surface_mark_range(f, lo, hi);
    }
    int reach = (int)ceilf(f->support / f->grid.h);
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                if (!(f->flags[grid_cell_index(g, i, j, k)] & CF_PARTICLE))
                    continue;
                const int c[3] = { i, j, k };
                int lo[3], hi[3];
                for (int d = 0; d < 3; d++) {
                    lo[d] = c[d] * f->grid.refine - reach;
                    hi[d] = (c[d] + 1) * f->grid.refine + reach;
                    lo[d] = lo[d] < 0 ? 0 : lo[d];
                    hi[d] = hi[d] > f->grid.n[d] ? f->grid.n[d] : hi[d];
                }
                surface_mark_range(f, lo, hi);
            }
}

/* Numbers the marked bricks in index order and gives them zeroed memory. */
static int surface_allocate_bricks(Field *f)
{
    size_t nbricks = (size_t)f->grid.nb[0] * f->grid.nb[1] * f->grid.nb[2];
    size_t n = 0;
    for (size_t b = 0; b < nbricks; b++)
        n += f->slot[b] != 0;
    f->nslots = n;
    if (n == 0)
        return 0;
    f->brick_of = malloc(n * sizeof *f->brick_of);
    f->acc = calloc(n * BRICK3, ACC * sizeof(float));
    f->phi = malloc(n * PAD3 * sizeof(float));
    if (!f->brick_of || !f->acc || !f->phi)
        return -1;
    n = 0;
    for (size_t b = 0; b < nbricks; b++) {
        if (f->slot[b]) {
            f->brick_of[n] = (int32_t)b;
            f->slot[b] = (int32_t)n++;
        } else {
            f->slot[b] = -1;
        }
    }
    return 0;
}

/* ---- 3. splat ------------------------------------------------------------------------ */

/* Along one axis of a particle's kernel: the node offsets x_node - x_p and their squares
 * over R^2 (s^2 is the sum of three, so the node loop only adds). Along x the kernel spans
 * fewer nodes than a brick, so a row is in at most two bricks: nodes before split are in
 * the first, from its node lo % BRICK on, the others in the next one from its node 0. */
typedef struct {
    int lo, count, split;
    float off[SURFACE_MAX_KERNEL_NODES], q[SURFACE_MAX_KERNEL_NODES];
} KernelAxis;

static int surface_kernel_axis(const Field *f, float x, int d, KernelAxis *ax)
{
    int lo, hi;
    if (!surface_axis_range(f, x, d, &lo, &hi))
        return 0;
    ax->lo = lo;
    ax->count = hi - lo + 1;
    ax->split = BRICK - lo % BRICK;
    ax->split = ax->split < ax->count ? ax->split : ax->count;
    float inv_R2 = 1.0f / (f->grid.R * f->grid.R);
    for (int m = 0; m < ax->count; m++) {
        ax->off[m] = (float)(lo + m) * f->grid.h - x;
        ax->q[m] = ax->off[m] * ax->off[m] * inv_R2;
    }
    return 1;
}

/* Adds w and w (x_p - x) to nodes m0..m1-1 of a row (fixed j, k); node m0 is at a. */
static void surface_splat_run(float *a, const KernelAxis *ax, int m0, int m1, float qyz,
                              float oy, float oz)
{
    for (int m = m0; m < m1; m++) {
        float s2 = ax->q[m] + qyz;
        if (s2 >= 1.0f)
            continue;
        float u = 1.0f - s2, w = u * u * u;
        float *node = a + ACC * (m - m0);
        node[0] += w;
        node[1] -= w * ax->off[m]; /* w (x_p - x) */
        node[2] -= w * oy;
        node[3] -= w * oz;
    }
}

/* The sums of node (bx * BRICK, j, k); its brick is marked whenever this is called. */
static float *surface_row(const Field *f, int bx, int j, int k)
{
    size_t s = (size_t)f->slot[surface_brick_index(f, bx, j / BRICK, k / BRICK)];
    return f->acc + ACC * (s * BRICK3 + (size_t)(j % BRICK) * BRICK +
                           (size_t)(k % BRICK) * BRICK * BRICK);
}

/* Whether every node of the kernel's box is deep, so that no sum the particle would add is
 * ever read. A node's cell is the one above it on a cell face, as in surface_node_phi. */
static int surface_all_deep(const Field *f, const MacGrid *g, const KernelAxis ax[3])
{
    const int cells[3] = { g->nx, g->ny, g->nz };
    int lo[3], hi[3];
    for (int d = 0; d < 3; d++) {
        lo[d] = ax[d].lo / f->grid.refine;
        hi[d] = (ax[d].lo + ax[d].count - 1) / f->grid.refine;
        lo[d] = lo[d] < cells[d] ? lo[d] : cells[d] - 1;
        hi[d] = hi[d] < cells[d] ? hi[d] : cells[d] - 1;
    }
    for (int k = lo[2]; k <= hi[2]; k++)
        for (int j = lo[1]; j <= hi[1]; j++)
            for (int i = lo[0]; i <= hi[0]; i++)
                if (f->flags[grid_cell_index(g, i, j, k)] & CF_SHALLOW)
                    return 0;
    return 1;
}

static void surface_splat_one(Field *f, const MacGrid *g, Vec3 p)
{
    KernelAxis ax[3];
    for (int d = 0; d < 3; d++)
        if (!surface_kernel_axis(f, vec3_get(p, d), d, &ax[d]))
            return;
    if (surface_all_deep(f, g, ax))
        return;
    const KernelAxis *x = &ax[0];
    int bx = x->lo / BRICK, lx = x->lo % BRICK;
    for (int c = 0; c < ax[2].count; c++) {
        int k = ax[2].lo + c;
        for (int b = 0; b < ax[1].count; b++) {
            float qyz = ax[1].q[b] + ax[2].q[c];
            if (qyz >= 1.0f)
                continue;
            int j = ax[1].lo + b;
            float *first = surface_row(f, bx, j, k) + ACC * lx;
            surface_splat_run(first, x, 0, x->split, qyz, ax[1].off[b], ax[2].off[c]);
            if (x->split < x->count)
                surface_splat_run(surface_row(f, bx + 1, j, k), x, x->split, x->count, qyz,
                                  ax[1].off[b], ax[2].off[c]);
        }
    }
}

static void surface_splat(Field *f, const MacGrid *g, const Particles *ps)
{
    for (size_t q = 0; q < ps->count; q++)
        if (f->cell_of[q] == NO_CELL || f->flags[f->cell_of[q]] & CF_SPLAT)
            surface_splat_one(f, g, ps->pos[q]);
}

/* The anisotropic field (Yu & Turk 2013): each particle adds weight W(|G (x - centre)|), W(q)
 * = (1 - q^2)^3, to the nodes in its ellipsoid; acc[0] only. Nodes in the same order as the
 * isotropic splat, so the sums are the same on every run. */
static void surface_splat_ellipsoid(Field *f, const MacGrid *g, const AnisoKernel *k)
{
    KernelAxis ax[3];
    const float c[3] = { k->centre.x, k->centre.y, k->centre.z };
    for (int d = 0; d < 3; d++) {
        if (!isfinite(c[d]))
            return;
        float a = ceilf((c[d] - k->half[d]) / f->grid.h), b = floorf((c[d] + k->half[d]) / f->grid.h);
        a = a < 0.0f ? 0.0f : a;
        b = b > (float)f->grid.n[d] ? (float)f->grid.n[d] : b;
        if (a > b)
            return;
        ax[d].lo = (int)a;
        ax[d].count = (int)b - (int)a + 1;
    }
    if (surface_all_deep(f, g, ax))
        return;
    const float *G = k->g;
    for (int kz = ax[2].lo; kz < ax[2].lo + ax[2].count; kz++) {
        float z = (float)kz * f->grid.h - c[2];
        for (int j = ax[1].lo; j < ax[1].lo + ax[1].count; j++) {
            float y = (float)j * f->grid.h - c[1];
            for (int i = ax[0].lo; i < ax[0].lo + ax[0].count; i++) {
                float x = (float)i * f->grid.h - c[0];
                float u = G[0] * x + G[3] * y + G[4] * z, v = G[3] * x + G[1] * y + G[5] * z,
                      w = G[4] * x + G[5] * y + G[2] * z;
                float q2 = u * u + v * v + w * w;
                if (q2 >= 1.0f)
                    continue;
                int32_t slot = f->slot[surface_brick_index(f, i / BRICK, j / BRICK, kz / BRICK)];
                if (slot < 0)
                    continue;   /* never: the bricks within the support are marked */
                float t = 1.0f - q2;
                float *node = surface_row(f, i / BRICK, j, kz) + ACC * (i % BRICK);
                node[0] += k->weight * t * t * t;
            }
        }
    }
}

static void surface_splat_aniso(Field *f, const MacGrid *g, const Particles *ps)
{
    for (size_t q = 0; q < ps->count; q++)
        if (f->cell_of[q] == NO_CELL || f->flags[f->cell_of[q]] & CF_SPLAT)
            surface_splat_ellipsoid(f, g, &f->aniso[q]);
}

/* ---- 4. field ------------------------------------------------------------------------ */

/* Along one axis: the sim cells within rho of coordinate x and the gap from x to each. */
static int surface_gaps(float x, float rho, float dx, int cells, int *c0, float *gap)
{
    int lo = (int)floorf((x - rho) / dx), hi = (int)floorf((x + rho) / dx);
    lo = lo < -1 ? -1 : lo; /* one cell beyond the array is as SOLID as any further */
    hi = hi > cells ? cells : hi;
    for (int c = lo; c <= hi; c++) {
        float a = (float)c * dx - x, b = x - (float)(c + 1) * dx;
        float t = a > 0.0f ? a : b > 0.0f ? b : 0.0f;
        gap[c - lo] = t * t;
    }
    *c0 = lo;
    return hi - lo + 1;
}

/* Distance from node (i,j,k) to the nearest SOLID cell, or rho when none is nearer: over
 * the x-rows of cells within rho (pruned as the best so far shrinks), the nearest SOLID cell
 * of each row on either side comes from solid_left / solid_right. */
static float surface_solid_distance(const Field *f, const MacGrid *g, const int node[3], float rho)
{
    enum { MAXC = 16 }; /* rho <= clear + r < 2 dx + 4 dx spans at most 14 cells */
    const int cells[3] = { g->nx, g->ny, g->nz };
    int c0[3], nc[3];
    float gap[3][MAXC];
    for (int d = 1; d < 3; d++)
        nc[d] = surface_gaps((float)node[d] * f->grid.h, rho, g->dx, cells[d], &c0[d], gap[d]);
    float x = (float)node[0] * f->grid.h;
    int cx = node[0] / f->grid.refine < g->nx ? node[0] / f->grid.refine : g->nx - 1;
    float best = rho * rho;
    for (int z = 0; z < nc[2]; z++) {
        if (gap[2][z] >= best)
            continue;
        int cz = c0[2] + z;
        for (int y = 0; y < nc[1]; y++) {
            float gyz = gap[2][z] + gap[1][y], gx2 = 0.0f; /* rows beyond the grid: SOLID */
            int cy = c0[1] + y;
            if (gyz >= best)
                continue;
            if (cz >= 0 && cz < g->nz && cy >= 0 && cy < g->ny) {
                size_t c = grid_cell_index(g, cx, cy, cz);
                float lo = x - (float)(cx - f->solid_left[c] + 1) * g->dx,
                      hi = (float)(cx + f->solid_right[c]) * g->dx - x;
                float t = lo < hi ? lo : hi;
                t = t > 0.0f ? t : 0.0f;
                gx2 = t * t;
            }
            best = gyz + gx2 < best ? gyz + gx2 : best;
            if (best == 0.0f)
                return 0.0f;
        }
    }
    return sqrtf(best);
}

/* The particles' phi at a node: deep, from its sums, or far. */
static float surface_particle_phi(const Field *f, uint8_t flags, const float *acc)
{
    if (!(flags & CF_SHALLOW))
        return -f->grid.r;
    if (!(acc[0] > 0.0f))
        return f->grid.far;
    if (f->aniso) { /* the density below its surface value, in metres near the surface; at
                     * least -R (<= 4 dx), which bounds the search for solids as the isotropic
                     * field's -r does (a clamp at -r would bend the steep field near the top) */
        float phi = f->grid.R * (f->iso - acc[0]) / f->full;
        return phi > -f->grid.R ? phi : -f->grid.R;
    }
    float inv = 1.0f / acc[0];
    float ox = acc[1] * inv, oy = acc[2] * inv, oz = acc[3] * inv;
    return sqrtf(ox * ox + oy * oy + oz * oz) - f->grid.r;
}

/* phi at a node inside the domain, whose cell has the given flags. */
static float surface_node_phi(const Field *f, const MacGrid *g, uint8_t flags, const float *acc,
                              const int node[3])
{
    float phi = surface_particle_phi(f, flags, acc);
    for (int d = 0; d < 3; d++)
        if (node[d] == 0 || node[d] == f->grid.n[d])
            return phi > f->grid.clear ? phi : f->grid.clear;
    if (phi >= f->grid.clear || !(flags & CF_NEAR_SOLID))
        return phi; /* clear - dist <= clear: the solid cannot raise it */
    /* A solid farther than clear - phi cannot raise phi, so search no farther. */
    float dist = surface_solid_distance(f, g, node, f->grid.clear - phi);
    float lift = f->grid.clear - dist;
    return lift > phi ? lift : phi;
}

/* The sim cell of each node along one axis of a brick: the one above a node on a cell
 * face, the last one for the domain's end. */
static void surface_brick_cells(const Field *f, int base, int d, int cells, int *c)
{
    for (int x = 0; x < BRICK; x++) {
        int node = base + x < f->grid.n[d] ? base + x : f->grid.n[d];
        c[x] = node / f->grid.refine < cells ? node / f->grid.refine : cells - 1;
    }
}

/* phi at the brick's own nodes; nodes past the domain's end get far (never a cube corner). */
static void surface_evaluate(Field *f, const MacGrid *g)
{
    const int cells[3] = { g->nx, g->ny, g->nz };
    for (size_t s = 0; s < f->nslots; s++) {
        size_t b = (size_t)f->brick_of[s];
        int base[3] = { (int)(b % (size_t)f->grid.nb[0]) * BRICK,
                        (int)(b / (size_t)f->grid.nb[0] % (size_t)f->grid.nb[1]) * BRICK,
                        (int)(b / ((size_t)f->grid.nb[0] * (size_t)f->grid.nb[1])) * BRICK };
        int cell[3][BRICK];
        for (int d = 0; d < 3; d++)
            surface_brick_cells(f, base[d], d, cells[d], cell[d]);
        float *phi = f->phi + s * PAD3;
        const float *acc = f->acc + s * BRICK3 * ACC;
        for (int z = 0; z < BRICK; z++)
            for (int y = 0; y < BRICK; y++)
                for (int x = 0; x < BRICK; x++) {
                    int node[3] = { base[0] + x, base[1] + y, base[2] + z };
                    float *out = &phi[x + PAD * (y + PAD * z)];
                    if (node[0] > f->grid.n[0] || node[1] > f->grid.n[1] ||
                        node[2] > f->grid.n[2]) {
                        *out = f->grid.far;
                        continue;
                    }
                    size_t c = grid_cell_index(g, cell[0][x], cell[1][y], cell[2][z]);
                    int own = x + BRICK * (y + BRICK * z);
                    *out = surface_node_phi(f, g, f->flags[c], acc + ACC * own, node);
                }
    }
}

/* phi at any node, from its brick; nodes in unmarked bricks have no particle near: far. */
static float surface_phi_at(const Field *f, int i, int j, int k)
{
    if (i > f->grid.n[0] || j > f->grid.n[1] || k > f->grid.n[2])
        return f->grid.far;
    int32_t s = f->slot[surface_brick_index(f, i / BRICK, j / BRICK, k / BRICK)];
    if (s < 0)
        return f->grid.far;
    return f->phi[(size_t)s * PAD3 + (size_t)(i % BRICK) +
                  PAD * ((size_t)(j % BRICK) + PAD * (size_t)(k % BRICK))];
}

/* Copies the first layer of the +x, +y, +z neighbours into each brick's apron. */
static void surface_fill_apron(Field *f)
{
    for (size_t s = 0; s < f->nslots; s++) {
        size_t b = (size_t)f->brick_of[s];
        size_t nb0 = (size_t)f->grid.nb[0], nb1 = (size_t)f->grid.nb[1];
        int bx = (int)(b % nb0), by = (int)(b / nb0 % nb1), bz = (int)(b / (nb0 * nb1));
        float *phi = f->phi + s * PAD3;
        for (int z = 0; z < PAD; z++)
            for (int y = 0; y < PAD; y++)
                for (int x = 0; x < PAD; x++)
                    if (x == BRICK || y == BRICK || z == BRICK)
                        phi[x + PAD * (y + PAD * z)] = surface_phi_at(
                            f, bx * BRICK + x, by * BRICK + y, bz * BRICK + z);
    }
}

/* ---- 5. marching cubes -------------------------------------------------------------- */

typedef struct {
    uint64_t *key;      /* (low node << 3 | direction bits); 0 marks an empty place */
    uint32_t *vertex;
    size_t cap, count;  /* cap is a power of two, kept at least twice count */
    int bits;
} EdgeMap;

typedef struct {
    const SurfaceGrid *f;   /* the fine grid */
    const SurfaceBricks *in;
    Mesh *out;
    EdgeMap map;
    int base[3];        /* the cube's low node */
    const float *v;     /* phi at its 8 corners */
    unsigned inside;    /* bit q: corner q has phi < 0 */
    const McubesTable *table; /* marching cubes' cases (mcubes.c) */
    int brick[3];       /* the current brick's first node */
    uint32_t stamp;     /* the current brick's slot + 1: marks its entries in local */
    uint32_t *local;    /* per edge inside the brick, 7 directions x BRICK3 low nodes:
                         * stamp, vertex */
} Marcher;

static size_t surface_hash(uint64_t key, int bits)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - bits)); /* Fibonacci hashing */
}

static int surface_map_resize(EdgeMap *m, int bits)
{
    size_t cap = (size_t)1 << bits;
    uint64_t *key = calloc(cap, sizeof *key);
    uint32_t *vertex = malloc(cap * sizeof *vertex);
    if (!key || !vertex) {
        free(key);
        free(vertex);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->key[i])
            continue;
        size_t p = surface_hash(m->key[i], bits);
        while (key[p])
            p = (p + 1) & (cap - 1);
        key[p] = m->key[i];
        vertex[p] = m->vertex[i];
    }
    free(m->key);
    free(m->vertex);
    m->key = key;
    m->vertex = vertex;
    m->cap = cap;
    m->bits = bits;
    return 0;
}

/* A new vertex on the edge between cube corners ca and cb (one inside, one outside), at
 * the linear zero crossing measured from the inside corner. */
static int surface_new_vertex(Marcher *mc, int ca, int cb, uint32_t *index)
{
    int in = mc->v[ca] < 0.0f ? ca : cb, out = in == ca ? cb : ca;
    float t = mc->v[in] / (mc->v[in] - mc->v[out]);
    t = t < SURFACE_T_MIN ? SURFACE_T_MIN : t > 1.0f - SURFACE_T_MIN ? 1.0f - SURFACE_T_MIN : t;
    float xyz[3];
    for (int d = 0; d < 3; d++) {
        int a = in >> d & 1, b = out >> d & 1;
        xyz[d] = ((float)(mc->base[d] + a) + t * (float)(b - a)) * mc->f->h;
    }
    return mesh_add_vertex(mc->out, xyz[0], xyz[1], xyz[2], index);
}

/* An edge whose every cube lies in the current brick: its vertex lives in the brick's
 * table, no hashing. Returns the table entry, or NULL for an edge on the brick's border. */
static uint32_t *surface_local_entry(Marcher *mc, int low, int dir)
{
    int l[3];
    for (int d = 0; d < 3; d++) {
        l[d] = mc->base[d] + (low >> d & 1) - mc->brick[d];
        /* Along the edge the cubes start at the low node; across it, one node lower too. */
        if (l[d] > BRICK - 1 || (!(dir >> d & 1) && l[d] < 1))
            return NULL;
    }
    size_t node = (size_t)(l[0] + BRICK * (l[1] + BRICK * l[2]));
    return mc->local + 2 * ((size_t)(dir - 1) * BRICK3 + node);
}

/* An edge on a brick's border, shared with the next brick's cubes: through the hash map,
 * keyed by (low node, direction). */
static int surface_shared_vertex(Marcher *mc, int ca, int cb, uint32_t *index)
{
    const SurfaceGrid *f = mc->f;
    EdgeMap *m = &mc->map;
    int low = ca & cb;
    uint64_t node = (uint64_t)(mc->base[0] + (low & 1)) +
                    (uint64_t)(f->n[0] + 1) * ((uint64_t)(mc->base[1] + (low >> 1 & 1)) +
                                               (uint64_t)(f->n[1] + 1) *
                                                   (uint64_t)(mc->base[2] + (low >> 2 & 1)));
    uint64_t key = node << 3 | (uint64_t)(ca ^ cb);
    size_t p = surface_hash(key, m->bits);
    while (m->key[p]) {
        if (m->key[p] == key) {
            *index = m->vertex[p];
            return 0;
        }
        p = (p + 1) & (m->cap - 1);
    }
    if (surface_new_vertex(mc, ca, cb, index) != 0)
        return -1;
    m->key[p] = key;
    m->vertex[p] = *index;
    if (++m->count * 2 > m->cap)
        return surface_map_resize(m, m->bits + 1);
    return 0;
}

/* The vertex on the edge between cube corners ca and cb, made on first use: ca & cb is the
 * edge's low end and ca ^ cb its direction. */
static int surface_edge_vertex(Marcher *mc, int ca, int cb, uint32_t *index)
{
    uint32_t *entry = surface_local_entry(mc, ca & cb, ca ^ cb);
    if (!entry) {
        if (surface_shared_vertex(mc, ca, cb, index) != 0)
            return -1;
    } else if (entry[0] == mc->stamp) {
        *index = entry[1];
    } else {
        if (surface_new_vertex(mc, ca, cb, index) != 0)
            return -1;
        entry[0] = mc->stamp;
        entry[1] = *index;
    }
    return 0;
}

static float surface_dist2(const Mesh *m, uint32_t a, uint32_t b)
{
    const float *p = m->xyz + 3 * (size_t)a, *q = m->xyz + 3 * (size_t)b;
    float x = p[0] - q[0], y = p[1] - q[1], z = p[2] - q[2];
    return x * x + y * y + z * z;
}

/* One cube: its case's triangles (mcubes.c), each vertex on the crossed edge the case names.
 * A case that is one quad whose both diagonals run through the cube is cut along the shorter
 * one: better-shaped triangles, and no edge of it is shared with another cube either way. */
static int surface_cube(Marcher *mc)
{
    const McubesCase *cs = &mc->table->c[mc->inside];
    uint32_t vert[MCUBES_EDGES];
    uint16_t made = 0;
    for (int t = 0; t < cs->ntris; t++)
        for (int q = 0; q < 3; q++) {
            int e = cs->tri[t][q];
            if (made >> e & 1)
                continue;
            if (surface_edge_vertex(mc, mcubes_edge[e][0], mcubes_edge[e][1], &vert[e]) != 0)
                return -1;
            made |= (uint16_t)(1u << e);
        }
    if (cs->quad) {
        const uint8_t *l = cs->loop;
        uint32_t a = vert[l[0]], b = vert[l[1]], c = vert[l[2]], d = vert[l[3]];
        if (surface_dist2(mc->out, b, d) < surface_dist2(mc->out, a, c))
            return mesh_add_tri(mc->out, a, b, d) || mesh_add_tri(mc->out, b, c, d);
    }
    for (int t = 0; t < cs->ntris; t++)
        if (mesh_add_tri(mc->out, vert[cs->tri[t][0]], vert[cs->tri[t][1]], vert[cs->tri[t][2]]))
            return -1;
    return 0;
}

/* Which nodes of each row (y, z) of a brick and its apron are inside: bit x of in[z][y].
 * Returns how many are. */
static int surface_row_signs(const float *phi, uint16_t in[PAD][PAD])
{
    int count = 0;
    for (int z = 0; z < PAD; z++)
        for (int y = 0; y < PAD; y++) {
            const float *row = phi + PAD * (y + PAD * z);
            unsigned bits = 0;
            for (int x = 0; x < PAD; x++) {
                bits |= (unsigned)(row[x] < 0.0f) << x;
                count += row[x] < 0.0f;
            }
            in[z][y] = (uint16_t)bits;
        }
    return count;
}

/* The cubes of row (y, z) with corners on both sides, as bits x: a cube's corners are bits
 * x and x + 1 of four rows, so it is mixed where their OR has a 1 and their AND a 0. */
static unsigned surface_mixed_cubes(const uint16_t in[PAD][PAD], int y, int z)
{
    unsigned any = (unsigned)(in[z][y] | in[z][y + 1] | in[z + 1][y] | in[z + 1][y + 1]);
    unsigned all = (unsigned)(in[z][y] & in[z][y + 1] & in[z + 1][y] & in[z + 1][y + 1]);
    return (any | any >> 1) & ~(all & all >> 1) & ((1u << BRICK) - 1);
}

static int surface_march_brick(Marcher *mc, size_t s)
{
    const SurfaceGrid *f = mc->f;
    const float *phi = mc->in->phi + s * PAD3;
    uint16_t in[PAD][PAD];
    int inside = surface_row_signs(phi, in);
    if (inside == 0 || inside == PAD3) /* all on one side: no surface here */
        return 0;
    size_t b = (size_t)mc->in->brick[s];
    int base[3] = { (int)(b % (size_t)f->nb[0]) * BRICK,
                    (int)(b / (size_t)f->nb[0] % (size_t)f->nb[1]) * BRICK,
                    (int)(b / ((size_t)f->nb[0] * (size_t)f->nb[1])) * BRICK };
    int corner[8];
    for (int q = 0; q < 8; q++)
        corner[q] = (q & 1) + PAD * ((q >> 1 & 1) + PAD * (q >> 2 & 1));
    for (int d = 0; d < 3; d++)
        mc->brick[d] = base[d];
    mc->stamp = (uint32_t)s + 1;
    /* cubes up to the domain's end only */
    int nx = f->n[0] - base[0] < BRICK ? f->n[0] - base[0] : BRICK;
    for (int z = 0; z < BRICK && base[2] + z < f->n[2]; z++)
        for (int y = 0; y < BRICK && base[1] + y < f->n[1]; y++) {
            unsigned mixed = surface_mixed_cubes(in, y, z) & ((1u << nx) - 1);
            for (int x = 0; mixed >> x; x++) {
                if (!(mixed >> x & 1))
                    continue;
                const float *p = phi + x + PAD * (y + PAD * z);
                float v[8];
                for (int q = 0; q < 8; q++)
                    v[q] = p[corner[q]];
                mc->base[0] = base[0] + x;
                mc->base[1] = base[1] + y;
                mc->base[2] = base[2] + z;
                mc->v = v;
                mc->inside = 0;
                for (int q = 0; q < 8; q++)
                    mc->inside |= (unsigned)(v[q] < 0.0f) << q;
                if (surface_cube(mc) != 0)
                    return -1;
            }
        }
    return 0;
}

static int surface_march(const SurfaceBricks *b, Mesh *out)
{
    Marcher mc = { .f = b->grid, .in = b, .out = out };
    McubesTable *table = malloc(sizeof *table);
    mc.table = table;
    mc.local = calloc(2 * 7 * BRICK3, sizeof *mc.local);
    int rc = table && mc.local && mcubes_table(table) == 0 ? surface_map_resize(&mc.map, 14) : -1;
    for (size_t s = 0; s < b->count && rc == 0; s++)
        rc = surface_march_brick(&mc, s);
    free(table);
    free(mc.local);
    free(mc.map.key);
    free(mc.map.vertex);
    return rc;
}

/* The one failure of marching, for both callers' messages. */
static void surface_march_failed(const char *who, const SurfaceGrid *f, size_t bricks,
                                 Mesh *out, char *err, size_t errlen)
{
    surface_seterr(err, errlen, "%s: out of memory, or past 2^31 vertices (fine grid "
                   "%dx%dx%d, %zu bricks, %zu vertices, %zu triangles)", who, f->n[0], f->n[1],
                   f->n[2], bricks, out->nverts, out->ntris);
    out->nverts = out->ntris = 0;
}

int surface_polygonise(const SurfaceBricks *b, Mesh *out, char *err, size_t errlen)
{
    out->nverts = out->ntris = 0;
    if (surface_march(b, out) != 0) {
        surface_march_failed("surface_polygonise", b->grid, b->count, out, err, errlen);
        return -1;
    }
    return 0;
}

/* The kernels of the particles that are splatted (the others only mark bricks). */
static AnisoKernel *surface_kernels(const Field *f, const MacGrid *g, const Particles *ps);

/* Steps 1-5 on a field set up by surface_field_init: cells, bricks, the splat (spheres, or
 * the particles' ellipsoids when aniso), the field, its apron, marching cubes. */
static int surface_run(Field *f, const MacGrid *g, const Particles *ps, bool aniso, Mesh *out)
{
    AnisoKernel *kernels = NULL;
    int rc = surface_classify_cells(f, g, ps);
    if (rc == 0) {
        surface_mark_bricks(f, g, ps);
        rc = surface_allocate_bricks(f);
    }
    if (rc == 0 && f->nslots > 0 && aniso) {
        kernels = surface_kernels(f, g, ps);
        rc = kernels ? 0 : -1;
        f->aniso = kernels;
    }
    if (rc == 0 && f->nslots > 0) {
        if (aniso)
            surface_splat_aniso(f, g, ps);
        else
            surface_splat(f, g, ps);
        surface_evaluate(f, g);
        surface_fill_apron(f);
        SurfaceBricks b = { &f->grid, f->nslots, f->brick_of, f->phi };
        rc = surface_march(&b, out);
    }
    f->aniso = NULL;
    free(kernels);
    return rc;
}

int surface_build(const Particles *ps, const MacGrid *g, const SurfaceSettings *set, Mesh *out,
                  char *err, size_t errlen)
{
    out->nverts = out->ntris = 0;
    SurfaceGrid fine;
    if (surface_grid_for("surface_build", g, set, &fine, err, errlen) != 0)
        return -1;
    Field f;
    int rc = surface_field_init(&f, &fine);
    if (rc == 0)
        rc = surface_run(&f, g, ps, false, out);
    if (rc != 0)
        surface_march_failed("surface_build", &fine, f.nslots, out, err, errlen);
    surface_field_free(&f);
    return rc;
}

/* The kernels of the particles that are splatted (the others only mark bricks). */
static AnisoKernel *surface_kernels(const Field *f, const MacGrid *g, const Particles *ps)
{
    AnisoKernel *k = malloc((ps->count ? ps->count : 1) * sizeof *k);
    uint8_t *want = malloc(ps->count ? ps->count : 1);
    if (!k || !want) {
        free(k);
        free(want);
        return NULL;
    }
    for (size_t q = 0; q < ps->count; q++)
        want[q] = f->cell_of[q] == NO_CELL || f->flags[f->cell_of[q]] & CF_SPLAT;
    int rc = aniso_kernels(ps, g, f->grid.R, want, k);
    free(want);
    if (rc != 0) {
        free(k);
        return NULL;
    }
    return k;
}

int surface_grid_anisotropic(const char *who, const MacGrid *g, const SurfaceSettings *set,
                             int particles_per_cell, SurfaceGrid *out, AnisoConsts *a, char *err,
                             size_t errlen)
{
    if (surface_grid_for(who, g, set, out, err, errlen) != 0)
        return -1;
    if (particles_per_cell < 1) {
        surface_seterr(err, errlen, "%s: particles_per_cell is %d; expected >= 1", who,
                       particles_per_cell);
        return -1;
    }
    /* ellipsoids reach farther than R: the cells and bricks a particle touches grow with them */
    *a = (AnisoConsts){ .support = ANISO_SUPPORT * out->R };
    out->kernel_cells = (int)ceilf(a->support / g->dx);
    /* deep in the liquid: particles_per_cell x (R / dx)^3 x the integral of W over the unit
     * ball, 4 pi 16 / 315 */
    double rr = (double)out->R / g->dx;
    a->full = (float)(particles_per_cell * rr * rr * rr * 4.0 * 3.14159265358979323846 * 16.0 / 315.0);
    a->iso = SURFACE_ANISO_ISO * a->full;
    return 0;
}

int surface_build_anisotropic(const Particles *ps, const MacGrid *g, const SurfaceSettings *set,
                              int particles_per_cell, Mesh *out, char *err, size_t errlen)
{
    out->nverts = out->ntris = 0;
    SurfaceGrid fine;
    AnisoConsts a;
    if (surface_grid_anisotropic("surface_build_anisotropic", g, set, particles_per_cell, &fine,
                                 &a, err, errlen) != 0)
        return -1;
    Field f;
    int rc = surface_field_init(&f, &fine);
    f.support = a.support;
    f.full = a.full;
    f.iso = a.iso;
    if (rc == 0)
        rc = surface_run(&f, g, ps, true, out);
    if (rc != 0)
        surface_march_failed("surface_build_anisotropic", &fine, f.nslots, out, err, errlen);
    surface_field_free(&f);
    return rc;
}

/* How far from a wall the surface at these settings meets it, deep liquid against the wall:
 * the node on the wall has phi = clear = h / 2, the next one, h in, max(-r, -h / 2) (the
 * outline, step 4); the vertex is their linear crossing. */
static double surface_wall_gap(const MacGrid *g, const SurfaceSettings *set)
{
    double h = (double)g->dx / set->refine, clear = 0.5 * h;
    double inside = (double)set->radius_cells * g->dx < clear ? (double)set->radius_cells * g->dx
                                                              : clear;
    return h * (1.0 - inside / (inside + clear));
}

double surface_particle_volume_at(const Particles *ps, const MacGrid *g, int particles_per_cell,
                                  const SurfaceSettings *set)
{
    const SurfaceSettings s = set ? *set : surface_defaults();
    const double dx = g->dx, band = surface_wall_gap(g, &s);
    const double hi[3] = { (g->nx - 1) * dx - band, (g->ny - 1) * dx - band, (g->nz - 1) * dx - band };
    size_t kept = 0;
    for (size_t p = 0; p < ps->count; p++) {
        const double x[3] = { ps->pos[p].x, ps->pos[p].y, ps->pos[p].z };
        int in = 1;
        for (int d = 0; d < 3; d++)
            in &= x[d] > dx + band && x[d] < hi[d];
        kept += (size_t)in;
    }
    return (double)kept * dx * dx * dx / particles_per_cell;
}

double surface_particle_volume(const Particles *ps, const MacGrid *g, int particles_per_cell)
{
    return surface_particle_volume_at(ps, g, particles_per_cell, NULL);
}

/* ---- PLY ----------------------------------------------------------------------------- */

static const char mesh_header_fmt[] =
    "ply\n"
    "format binary_little_endian 1.0\n"
    "comment flipkit surface\n"
    "element vertex %zu\n"
    "property float x\n"
    "property float y\n"
    "property float z\n"
    "element face %zu\n"
    "property list uchar int vertex_indices\n"
    "end_header\n";

enum { MESH_CHUNK = 1024 }; /* records per fwrite: at most 13 KiB on the stack */

/* Byte by byte, so the file is little-endian whatever the host is. */
static unsigned char *mesh_put_u32(unsigned char *p, uint32_t u)
{
    p[0] = (unsigned char)u;
    p[1] = (unsigned char)(u >> 8);
    p[2] = (unsigned char)(u >> 16);
    p[3] = (unsigned char)(u >> 24);
    return p + 4;
}

static int mesh_write_vertices(FILE *f, const Mesh *m)
{
    unsigned char buf[MESH_CHUNK * 12];
    for (size_t i = 0; i < m->nverts; i += MESH_CHUNK) {
        size_t n = m->nverts - i < MESH_CHUNK ? m->nverts - i : MESH_CHUNK;
        unsigned char *p = buf;
        for (size_t k = 3 * i; k < 3 * (i + n); k++) {
            uint32_t u;
            memcpy(&u, &m->xyz[k], sizeof u);
            p = mesh_put_u32(p, u);
        }
        if (fwrite(buf, 1, (size_t)(p - buf), f) != (size_t)(p - buf))
            return -1;
    }
    return 0;
}

static int mesh_write_faces(FILE *f, const Mesh *m)
{
    unsigned char buf[MESH_CHUNK * 13];
    for (size_t i = 0; i < m->ntris; i += MESH_CHUNK) {
        size_t n = m->ntris - i < MESH_CHUNK ? m->ntris - i : MESH_CHUNK;
        unsigned char *p = buf;
        for (size_t t = i; t < i + n; t++) {
            *p++ = 3;
            for (int c = 0; c < 3; c++)
                p = mesh_put_u32(p, m->tri[3 * t + (size_t)c]);
        }
        if (fwrite(buf, 1, (size_t)(p - buf), f) != (size_t)(p - buf))
            return -1;
    }
    return 0;
}

static int mesh_write_body(FILE *f, const Mesh *m)
{
    if (fprintf(f, mesh_header_fmt, m->nverts, m->ntris) < 0)
        return -1;
    return mesh_write_vertices(f, m) || mesh_write_faces(f, m) ? -1 : 0;
}

/* No fsync, like ply_write_particles: a frame can be regenerated, so it is kept atomic
 * against a crashed process but not against power loss. */
static int mesh_body(FILE *f, const void *m, char *why, size_t whylen)
{
    (void)why, (void)whylen;
    return mesh_write_body(f, m);
}

int mesh_write_ply(const char *path, const Mesh *m, char *err, size_t errlen)
{
    if (m->nverts > INT32_MAX) {
        surface_seterr(err, errlen, "%s: %zu vertices do not fit PLY's int indices", path,
                       m->nverts);
        return -1;
    }
    char why[600];
    if (atomic_write(path, false, mesh_body, m, why, sizeof why) == 0)
        return 0;
    surface_seterr(err, errlen, "%s: %s", path, why);
    return -1;
}

/* ---- stats --------------------------------------------------------------------------- */

static int mesh_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int mesh_is_degenerate(const Mesh *m, const uint32_t *t)
{
    if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2])
        return 1;
    const float *a = m->xyz + 3 * (size_t)t[0], *b = m->xyz + 3 * (size_t)t[1],
                *c = m->xyz + 3 * (size_t)t[2];
    double u[3], v[3];
    for (int d = 0; d < 3; d++) {
        u[d] = (double)b[d] - (double)a[d];
        v[d] = (double)c[d] - (double)a[d];
    }
    double x = u[1] * v[2] - u[2] * v[1], y = u[2] * v[0] - u[0] * v[2],
           z = u[0] * v[1] - u[1] * v[0];
    return x == 0.0 && y == 0.0 && z == 0.0;
}

/* Half-edge (a, b) as one sortable number: min << 33 | max << 1 | (a < b). */
static uint64_t mesh_half_edge(uint32_t a, uint32_t b)
{
    uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
    return lo << 33 | hi << 1 | (uint64_t)(a < b);
}

/* Counts one run of equal undirected edges: uses, and how many go from low to high. */
static void mesh_count_edge(MeshStats *st, size_t uses, size_t forward)
{
    st->edges++;
    if (uses == 1)
        st->boundary_edges++;
    else if (uses > 2)
        st->nonmanifold_edges++;
    else if (forward != 1)
        st->misoriented_edges++;
}

double mesh_volume(const Mesh *m)
{
    double v = 0.0;
    for (size_t t = 0; t < m->ntris; t++) {
        const uint32_t *k = m->tri + 3 * t;
        const float *a = m->xyz + 3 * (size_t)k[0], *b = m->xyz + 3 * (size_t)k[1],
                    *c = m->xyz + 3 * (size_t)k[2];
        v += (double)a[0] * ((double)b[1] * c[2] - (double)b[2] * c[1]) +
             (double)a[1] * ((double)b[2] * c[0] - (double)b[0] * c[2]) +
             (double)a[2] * ((double)b[0] * c[1] - (double)b[1] * c[0]);
    }
    return v / 6.0;
}

int mesh_stats(const Mesh *m, MeshStats *st)
{
    *st = (MeshStats){ 0 };
    if (m->nverts > INT32_MAX || m->ntris > SIZE_MAX / 3 / sizeof(uint64_t))
        return -1;
    size_t nh = 3 * m->ntris;
    uint64_t *he = malloc(nh ? nh * sizeof *he : 1);
    if (!he)
        return -1;
    for (size_t t = 0; t < m->ntris; t++) {
        const uint32_t *v = m->tri + 3 * t;
        st->degenerate_tris += (size_t)mesh_is_degenerate(m, v);
        for (int c = 0; c < 3; c++)
            he[3 * t + (size_t)c] = mesh_half_edge(v[c], v[(c + 1) % 3]);
    }
    qsort(he, nh, sizeof *he, mesh_cmp_u64);
    for (size_t i = 0; i < nh;) {
        size_t j = i, forward = 0;
        while (j < nh && he[j] >> 1 == he[i] >> 1)
            forward += (size_t)(he[j++] & 1);
        mesh_count_edge(st, j - i, forward);
        i = j;
    }
    free(he);
    return 0;
}
