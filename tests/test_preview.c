/* test_preview.c — Check suite for preview.c: PNGs that decode at the stated size, particle
 * colours where the exposed projection puts them, a falling ball that moves down the
 * picture, slice colours per cell type, monotonic colour bars, and one-line errors. */
#include "preview.h"
#include "harness.h"

#include <check.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------------------- */

typedef struct {
    int w, h;
    unsigned char *rgb;
} Image;

/* Each test writes into its own directory, made by setup, removed by teardown. */
static char dir[512];

static void setup(void)
{
    harness_scratch_dir("preview", dir, sizeof dir);
}

static void teardown(void)
{
    harness_remove_tree(dir);
}

static char *tmp_png(const char *name)
{
    static char buf[4][600];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", dir, name);
    return p;
}

/* Decodes with libpng itself, so the test does not trust the writer. */
static Image load_png(const char *path)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    ck_assert_msg(png_image_begin_read_from_file(&img, path), "%s: %s", path, img.message);
    img.format = PNG_FORMAT_RGB;
    Image out = { (int)img.width, (int)img.height, malloc(PNG_IMAGE_SIZE(img)) };
    ck_assert_ptr_nonnull(out.rgb);
    ck_assert_msg(png_image_finish_read(&img, NULL, out.rgb, 0, NULL), "%s: %s", path,
                  img.message);
    return out;
}

static const unsigned char *pixel(const Image *im, int x, int y)
{
    harness_require(x >= 0 && y >= 0 && x < im->w && y < im->h, "pixel (%d, %d) outside %dx%d", x,
                  y, im->w, im->h);
    return im->rgb + 3 * ((size_t)y * im->w + x);
}

static double luma(const unsigned char *p)
{
    return 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
}

/* Where on a colour map a colour sits: the t in [lo, hi] whose colour is nearest. */
static double map_position(void (*map)(double, unsigned char *), double lo, double hi,
                           const unsigned char *c)
{
    double best = lo, best_d = INFINITY;
    for (int i = 0; i <= 4096; i++) {
        double t = lo + (hi - lo) * i / 4096.0;
        unsigned char m[3];
        map(t, m);
        double d = 0;
        for (int k = 0; k < 3; k++)
            d += (double)(m[k] - c[k]) * (m[k] - c[k]);
        if (d < best_d) {
            best_d = d;
            best = t;
        }
    }
    return best;
}

static void assert_rgb(const unsigned char *got, const unsigned char *want, const char *what)
{
    ck_assert_msg(memcmp(got, want, 3) == 0, "%s: got (%d, %d, %d), expected (%d, %d, %d)", what,
                  got[0], got[1], got[2], want[0], want[1], want[2]);
}

static MacGrid box_grid(int n, float dx)
{
    MacGrid g;
    ck_assert_int_eq(grid_init(&g, n, n, n, dx), 0);
    return g;
}

static void write_frame(const char *path, const Vec3 *pos, const Vec3 *vel, size_t n,
                        const MacGrid *g, const Shape *solids, int nsolids, int width)
{
    char err[512];
    ck_assert_msg(preview_frame_png(path, pos, vel, n, g, solids, nsolids, width, 10.0f, err,
                                    sizeof err) == 0, "%s", err);
}

/* ---- the frame ----------------------------------------------------------------------- */

START_TEST(frame_png_decodes_at_stated_size)
{
    MacGrid g = box_grid(16, 0.5f);
    Vec3 p[1] = { { 4, 4, 4 } };
    const int widths[3] = { 200, 640, 1001 };
    for (int i = 0; i < 3; i++) {
        PreviewView v;
        ck_assert_int_eq(preview_frame_view(&v, &g, widths[i]), 0);
        ck_assert_int_eq(v.width, widths[i]);
        ck_assert_int_eq(v.height, (int)lround(0.75 * widths[i]));
        char *path = tmp_png("size.png");
        write_frame(path, p, NULL, 1, &g, NULL, 0, widths[i]);
        Image im = load_png(path);
        ck_assert_int_eq(im.w, v.width);
        ck_assert_int_eq(im.h, v.height);
        ck_assert_msg(access(tmp_png("size.png.tmp"), F_OK) != 0, "temporary file left");
        free(im.rgb);
    }
    grid_free(&g);
}
END_TEST

/* A slow and a fast particle show viridis(0) and viridis(1) at their projected pixels. */
START_TEST(frame_particle_colours_at_projection)
{
    MacGrid g = box_grid(16, 0.5f);
    Vec3 pos[2] = { { 3.0f, 4.0f, 5.0f }, { 5.5f, 2.5f, 2.0f } };
    Vec3 vel[2] = { { 0, 0, 0 }, { 0, -10.0f, 0 } };
    char *path = tmp_png("two.png");
    write_frame(path, pos, vel, 2, &g, NULL, 0, 640);
    Image im = load_png(path);
    PreviewView v;
    ck_assert_int_eq(preview_frame_view(&v, &g, 640), 0);
    unsigned char want[2][3];
    preview_viridis(0, want[0]);
    preview_viridis(1, want[1]);
    for (int i = 0; i < 2; i++) {
        double x, y, depth;
        ck_assert(preview_project(&v, pos[i], &x, &y, &depth));
        ck_assert_msg(x >= 0 && x < v.view_w && y >= 0 && y < v.height, "particle %d off view", i);
        char what[64];
        snprintf(what, sizeof what, "particle %d at pixel (%d, %d)", i, (int)floor(x),
                 (int)floor(y));
        assert_rgb(pixel(&im, (int)floor(x), (int)floor(y)), want[i], what);
    }
    free(im.rgb);
    grid_free(&g);
}
END_TEST

/* Diffuse particles show their type's colour at their projected pixel; one behind a liquid
 * particle (farther along the same line of sight) is hidden by it. */
START_TEST(frame_diffuse_colours_and_hidden_behind_liquid)
{
    MacGrid g = box_grid(16, 0.5f);
    PreviewView v;
    ck_assert_int_eq(preview_frame_view(&v, &g, 640), 0);
    Vec3 liquid[1] = { { 3.0f, 4.0f, 5.0f } };
    double d[3] = { liquid[0].x - v.eye[0], liquid[0].y - v.eye[1], liquid[0].z - v.eye[2] };
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    Vec3 pts[3] = { { 5.5f, 2.5f, 2.0f }, { 2.0f, 6.0f, 3.0f },
                    { (float)(liquid[0].x + 0.4 * d[0] / len), (float)(liquid[0].y + 0.4 * d[1] / len),
                      (float)(liquid[0].z + 0.4 * d[2] / len) } };
    const uint8_t type[3] = { 0, 1, 2 };
    const PreviewPoints diffuse = { pts, type, 3 };
    char *path = tmp_png("diffuse.png"), err[512];
    ck_assert_msg(preview_frame_png_with(path, liquid, NULL, 1, &g, NULL, 0, 640, 10.0f, &diffuse,
                                         err, sizeof err) == 0, "%s", err);
    Image im = load_png(path);
    for (int i = 0; i < 2; i++) {
        double x, y, depth;
        ck_assert(preview_project(&v, pts[i], &x, &y, &depth));
        char what[80];
        snprintf(what, sizeof what, "%s particle at pixel (%d, %d)", i ? "foam" : "spray",
                 (int)floor(x), (int)floor(y));
        assert_rgb(pixel(&im, (int)floor(x), (int)floor(y)), preview_diffuse_colours[i], what);
    }
    double x, y, depth;
    ck_assert(preview_project(&v, liquid[0], &x, &y, &depth));
    unsigned char still[3];
    preview_viridis(0, still);
    assert_rgb(pixel(&im, (int)floor(x), (int)floor(y)), still,
               "a bubble behind a liquid particle: the liquid's colour at its pixel");
    free(im.rgb);
    grid_free(&g);
}
END_TEST

/* The centroid of the pixels that particles change, against an empty frame, in the view
 * below the particle count (which changes too). */
/* Renders the empty room, then with extras x; both decoded. */
static void render_pair(const MacGrid *g, const Vec3 *pos, size_t n, const PreviewExtras *x,
                        Image *plain, Image *with)
{
    char *a = tmp_png("plain.png"), *b = tmp_png("extras.png"), err[512];
    ck_assert_msg(preview_frame_png_extra(a, pos, NULL, n, g, NULL, 0, 640, 10.0f, NULL, err,
                                          sizeof err) == 0, "%s", err);
    ck_assert_msg(preview_frame_png_extra(b, pos, NULL, n, g, NULL, 0, 640, 10.0f, x, err,
                                          sizeof err) == 0, "%s", err);
    *plain = load_png(a);
    *with = load_png(b);
}

/* A brick is a square of its grey at PREVIEW_BRICK_ALPHA over the room, centred on its
 * centre's pixel, with a rim of its grey x PREVIEW_BRICK_EDGE; beyond the rim the picture
 * is as without it; a brick behind the liquid is left out. */
START_TEST(frame_bricks_are_squares_of_their_grey)
{
    MacGrid g = box_grid(16, 0.5f);
    PreviewView v;
    ck_assert_int_eq(preview_frame_view(&v, &g, 640), 0);
    const float centre[6] = { 4.0f, 4.0f, 4.0f, 6.0f, 2.0f, 3.0f };
    const uint8_t grey[2] = { 200, 160 };
    const PreviewBricks bricks = { centre, grey, 1, { 1.0f, 1.2f, 1.0f } };
    const PreviewExtras x = { NULL, &bricks, NULL };
    Image plain, with;
    render_pair(&g, NULL, 0, &x, &plain, &with);
    double px, py, depth;
    ck_assert(preview_project(&v, (Vec3){ 4.0f, 4.0f, 4.0f }, &px, &py, &depth));
    int cx = (int)floor(px), cy = (int)floor(py);
    int r = (int)fmax(lround(0.5 * v.scale * 1.0 / depth), 1);
    ck_assert_msg(r >= 4, "a brick 1 m wide looks %d px wide; expected a visible square", 2 * r);
    const unsigned char *bg = pixel(&plain, cx, cy), *got = pixel(&with, cx, cy);
    for (int k = 0; k < 3; k++) {
        double want = bg[k] + PREVIEW_BRICK_ALPHA * (200 - bg[k]);
        ck_assert_msg(fabs(got[k] - want) <= 1.0, "brick centre (%d, %d) channel %d: got %d, "
                      "expected %.1f +- 1 (grey 200 at %.2f over %d)", cx, cy, k, got[k], want,
                      PREVIEW_BRICK_ALPHA, bg[k]);
    }
    const unsigned char rim[3] = { 120, 120, 120 };   /* 200 x PREVIEW_BRICK_EDGE */
    assert_rgb(pixel(&with, cx + r, cy), rim, "the brick's right rim");
    assert_rgb(pixel(&with, cx, cy - r), rim, "the brick's top rim");
    assert_rgb(pixel(&with, cx + r + 2, cy), pixel(&plain, cx + r + 2, cy), "beside the brick");
    free(plain.rgb);
    free(with.rgb);
    /* the same brick behind a liquid particle a metre in front of it: hidden */
    double d[3] = { v.eye[0] - 4.0, v.eye[1] - 4.0, v.eye[2] - 4.0 };
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    Vec3 front = { (float)(4.0 + d[0] / len), (float)(4.0 + d[1] / len), (float)(4.0 + d[2] / len) };
    render_pair(&g, &front, 1, &x, &plain, &with);
    assert_rgb(pixel(&with, cx + r, cy), pixel(&plain, cx + r, cy),
               "a brick behind the liquid: its rim is not drawn");
    free(plain.rgb);
    free(with.rgb);
    grid_free(&g);
}
END_TEST

/* The surface (a closed box mesh here) is preview_water, lit 0.6 to 1.1 times, at
 * PREVIEW_WATER_ALPHA over the room; outside its outline the picture is as without it; a
 * particle well in front of it keeps its own colour. */
START_TEST(frame_surface_is_translucent_water)
{
    MacGrid g = box_grid(16, 0.5f);
    PreviewView v;
    ck_assert_int_eq(preview_frame_view(&v, &g, 640), 0);
    const float lo = 3.0f, hi = 5.0f;
    float xyz[24];
    for (int c = 0; c < 8; c++) {
        xyz[3 * c] = c & 1 ? hi : lo;
        xyz[3 * c + 1] = c & 2 ? hi : lo;
        xyz[3 * c + 2] = c & 4 ? hi : lo;
    }
    static const uint32_t tri[36] = { 0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                      2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5 };
    const PreviewMesh mesh = { xyz, 8, tri, 12 };
    const PreviewExtras x = { NULL, NULL, &mesh };
    Image plain, with;
    render_pair(&g, NULL, 0, &x, &plain, &with);
    double px, py, depth;
    ck_assert(preview_project(&v, (Vec3){ 4.0f, 4.0f, hi }, &px, &py, &depth));
    int cx = (int)floor(px), cy = (int)floor(py);
    const unsigned char *bg = pixel(&plain, cx, cy), *got = pixel(&with, cx, cy);
    for (int k = 0; k < 3; k++) {
        double a = bg[k] + PREVIEW_WATER_ALPHA * (0.6 * preview_water[k] - bg[k]);
        double b = bg[k] + PREVIEW_WATER_ALPHA * (fmin(1.1 * preview_water[k], 255) - bg[k]);
        ck_assert_msg(got[k] >= fmin(a, b) - 1 && got[k] <= fmax(a, b) + 1, "the box's front "
                      "face at (%d, %d) channel %d: got %d, expected %.1f .. %.1f", cx, cy, k,
                      got[k], fmin(a, b), fmax(a, b));
    }
    ck_assert_msg(got[2] >= got[0] + 30, "the box's front face at (%d, %d) is not blue: (%d, %d, "
                  "%d)", cx, cy, got[0], got[1], got[2]);
    ck_assert(preview_project(&v, (Vec3){ 7.0f, 7.0f, 1.0f }, &px, &py, &depth));
    assert_rgb(pixel(&with, (int)floor(px), (int)floor(py)),
               pixel(&plain, (int)floor(px), (int)floor(py)), "outside the surface");
    free(plain.rgb);
    free(with.rgb);
    /* a particle two cells in front of the front face's centre */
    Vec3 spray = { 4.0f, 4.0f, hi + 2 * g.dx };
    render_pair(&g, &spray, 1, &x, &plain, &with);
    ck_assert(preview_project(&v, spray, &px, &py, &depth));
    unsigned char still[3];
    preview_viridis(0, still);
    assert_rgb(pixel(&with, (int)floor(px), (int)floor(py)), still,
               "a particle in front of the surface: its own colour");
    free(plain.rgb);
    free(with.rgb);
    grid_free(&g);
}
END_TEST

static void particle_centroid(const char *path, const Image *empty, int view_w, double *cx,
                              double *cy)
{
    Image im = load_png(path);
    double sx = 0, sy = 0;
    long n = 0;
    for (int y = 40; y < im.h; y++)
        for (int x = 0; x < view_w; x++)
            if (memcmp(pixel(&im, x, y), pixel(empty, x, y), 3) != 0) {
                sx += x;
                sy += y;
                n++;
            }
    ck_assert_msg(n > 100, "%s: only %ld particle pixels", path, n);
    *cx = sx / n;
    *cy = sy / n;
    free(im.rgb);
}

static size_t make_ball(Vec3 *out, Vec3 c, float r, float h)
{
    size_t n = 0;
    for (float z = -r; z <= r; z += h)
        for (float y = -r; y <= r; y += h)
            for (float x = -r; x <= r; x += h)
                if (x * x + y * y + z * z <= r * r)
                    out[n++] = (Vec3){ c.x + x, c.y + y, c.z + z };
    return n;
}

START_TEST(frame_falling_ball_moves_down)
{
    MacGrid g = box_grid(32, 0.25f);
    static Vec3 top[5000], bottom[5000];
    size_t n = make_ball(top, (Vec3){ 4, 6, 4 }, 1.2f, 0.125f);
    ck_assert_uint_eq(make_ball(bottom, (Vec3){ 4, 1.5f, 4 }, 1.2f, 0.125f), n);
    ck_assert_uint_lt(n, 5000);
    write_frame(tmp_png("empty.png"), NULL, NULL, 0, &g, NULL, 0, 640);
    Image empty = load_png(tmp_png("empty.png"));
    write_frame(tmp_png("top.png"), top, NULL, n, &g, NULL, 0, 640);
    write_frame(tmp_png("bottom.png"), bottom, NULL, n, &g, NULL, 0, 640);
    PreviewView v;
    preview_frame_view(&v, &g, 640);
    double tx, ty, bx, by;
    particle_centroid(tmp_png("top.png"), &empty, v.view_w, &tx, &ty);
    particle_centroid(tmp_png("bottom.png"), &empty, v.view_w, &bx, &by);
    /* A fall of 4.5 m in an 8 m box is far more than a tenth of the picture. */
    ck_assert_msg(by - ty > 0.1 * empty.h, "centroid row %.1f at the top, %.1f at the bottom", ty,
                  by);
    ck_assert_msg(fabs(bx - tx) < 0.05 * empty.w, "centroid column moved %.1f px", bx - tx);
    /* And where the projection says: the ball's centre projects near the centroid. */
    double x, y, depth;
    preview_project(&v, (Vec3){ 4, 1.5f, 4 }, &x, &y, &depth);
    ck_assert_msg(fabs(x - bx) < 10 && fabs(y - by) < 10, "centre (%.1f, %.1f), centroid (%.1f, "
                  "%.1f)", x, y, bx, by);
    free(empty.rgb);
    grid_free(&g);
}
END_TEST

START_TEST(frame_solids_are_grey)
{
    MacGrid g = box_grid(16, 0.5f);
    Shape s[2] = { { .kind = SHAPE_SPHERE, .center = { 2, 2, 6 }, .radius = 1,
                     .min = { 1, 1, 5 }, .max = { 3, 3, 7 } },
                   { .kind = SHAPE_BOX, .min = { 5, 0, 1 }, .max = { 7, 2, 3 } } };
    write_frame(tmp_png("solids.png"), NULL, NULL, 0, &g, s, 2, 640);
    Image im = load_png(tmp_png("solids.png"));
    PreviewView v;
    preview_frame_view(&v, &g, 640);
    const Vec3 inside[2] = { { 2, 2, 6 }, { 6, 1, 2 } };
    for (int i = 0; i < 2; i++) {
        double x, y, depth;
        preview_project(&v, inside[i], &x, &y, &depth);
        const unsigned char *p = pixel(&im, (int)floor(x), (int)floor(y));
        ck_assert_msg(abs(p[0] - p[1]) < 12 && abs(p[1] - p[2]) < 12 && luma(p) < 225 &&
                      luma(p) > 100, "solid %d: (%d, %d, %d) is not grey", i, p[0], p[1], p[2]);
    }
    free(im.rgb);
    grid_free(&g);
}
END_TEST

/* Bottom to top, the bar runs through viridis: each row's place on the map (the nearest
 * map colour) never goes back by more than the 8-bit rounding, and the ends are exact. */
START_TEST(frame_colour_bar_is_monotonic)
{
    MacGrid g = box_grid(16, 0.5f);
    write_frame(tmp_png("bar.png"), NULL, NULL, 0, &g, NULL, 0, 640);
    Image im = load_png(tmp_png("bar.png"));
    PreviewView v;
    preview_frame_view(&v, &g, 640);
    int x = (v.bar_x0 + v.bar_x1) / 2;
    unsigned char lo[3], hi[3];
    preview_viridis(0, lo);
    preview_viridis(1, hi);
    assert_rgb(pixel(&im, x, v.bar_y1 - 1), lo, "bar bottom");
    assert_rgb(pixel(&im, x, v.bar_y0), hi, "bar top");
    double prev = 0;
    for (int y = v.bar_y1 - 1; y >= v.bar_y0; y--) {
        double t = map_position(preview_viridis, 0, 1, pixel(&im, x, y));
        ck_assert_msg(t >= prev - 1.0 / 256, "bar row %d is at %.4f on the map, below %.4f", y, t,
                      prev);
        prev = fmax(prev, t);
    }
    ck_assert_msg(v.bar_y1 - v.bar_y0 > 100, "bar only %d px tall", v.bar_y1 - v.bar_y0);
    free(im.rgb);
    grid_free(&g);
}
END_TEST

START_TEST(frame_same_input_same_bytes)
{
    MacGrid g = box_grid(16, 0.5f);
    static Vec3 p[3000], vel[3000];
    size_t n = make_ball(p, (Vec3){ 4, 4, 4 }, 1.5f, 0.2f);
    for (size_t i = 0; i < n; i++)
        vel[i] = (Vec3){ p[i].x - 4, 0, 0 };
    write_frame(tmp_png("a.png"), p, vel, n, &g, NULL, 0, 400);
    write_frame(tmp_png("b.png"), p, vel, n, &g, NULL, 0, 400);
    FILE *fa = fopen(tmp_png("a.png"), "rb"), *fb = fopen(tmp_png("b.png"), "rb");
    int ca, cb;
    long at = 0;
    do {
        ca = getc(fa);
        cb = getc(fb);
        harness_require(ca == cb, "byte %ld differs", at);
        at++;
    } while (ca != EOF);
    fclose(fa);
    fclose(fb);
    grid_free(&g);
}
END_TEST

/* ---- the slice ----------------------------------------------------------------------- */

static void set_type(MacGrid *g, int i, int j, int k, int type)
{
    g->cell[grid_cell_index(g, i, j, k)] = (int8_t)type;
}

START_TEST(slice_cells_coloured_by_type)
{
    MacGrid g;
    ck_assert_int_eq(grid_init(&g, 12, 10, 8, 0.1f), 0);
    float *div = calloc(grid_cells(&g), sizeof *div);
    set_type(&g, 3, 4, 5, CELL_FLUID);
    set_type(&g, 4, 4, 5, CELL_FLUID);
    set_type(&g, 5, 4, 5, CELL_SOLID); /* an inner solid, besides the outer wall */
    g.p[grid_cell_index(&g, 3, 4, 5)] = 50;
    g.p[grid_cell_index(&g, 4, 4, 5)] = -20;
    for (int axis = 0; axis < 3; axis++) {
        const int index[3] = { 3, 4, 5 };
        char err[512], *path = tmp_png("slice.png");
        ck_assert_msg(preview_slice_png(path, &g, g.p, div, axis, index[axis], 6, err,
                                        sizeof err) == 0, "%s", err);
        Image im = load_png(path);
        PreviewSliceView v;
        ck_assert_int_eq(preview_slice_view(&v, &g, axis, index[axis], 6), 0);
        ck_assert_int_eq(im.w, v.width);
        ck_assert_int_eq(im.h, v.height);
        int x, y;
        preview_slice_pixel(&v, PREVIEW_PANEL_TYPES, 3, 4, 5, &x, &y);
        const unsigned char *p = pixel(&im, x, y);
        ck_assert_msg(p[2] > p[0] + 80 && p[2] > p[1] + 40, "axis %d: FLUID cell (%d, %d, %d) is "
                      "not blue", axis, p[0], p[1], p[2]);
        /* The wall cell at the low end of the first in-slice axis, and the inner solid. */
        const int wall[3][3] = { { 3, 0, 5 }, { 0, 4, 5 }, { 0, 4, 5 } };
        const int *cells[2] = { wall[axis], (const int[3]){ 5, 4, 5 } };
        for (int c = 0; c < (axis == 0 ? 1 : 2); c++) {
            preview_slice_pixel(&v, PREVIEW_PANEL_TYPES, cells[c][0], cells[c][1], cells[c][2],
                                &x, &y);
            p = pixel(&im, x, y);
            ck_assert_msg(p[0] == p[1] && p[1] == p[2] && p[0] > 100 && p[0] < 200,
                          "axis %d: SOLID cell (%d, %d, %d) is (%d, %d, %d), not grey", axis,
                          cells[c][0], cells[c][1], cells[c][2], p[0], p[1], p[2]);
        }
        /* AIR is white in the types panel. */
        preview_slice_pixel(&v, PREVIEW_PANEL_TYPES, axis == 0 ? 3 : 2, axis == 1 ? 4 : 2,
                            axis == 2 ? 5 : 2, &x, &y);
        const unsigned char white[3] = { 255, 255, 255 };
        assert_rgb(pixel(&im, x, y), white, "AIR cell");
        /* Pressure: +50 is the top of the range (red), -20 bluish. */
        unsigned char red[3];
        preview_diverging(1, red);
        preview_slice_pixel(&v, PREVIEW_PANEL_PRESSURE, 3, 4, 5, &x, &y);
        assert_rgb(pixel(&im, x, y), red, "pressure +50");
        if (axis != 0) {
            preview_slice_pixel(&v, PREVIEW_PANEL_PRESSURE, 4, 4, 5, &x, &y);
            p = pixel(&im, x, y);
            ck_assert_msg(p[2] > p[0], "pressure -20: (%d, %d, %d) not bluish", p[0], p[1], p[2]);
        }
        free(im.rgb);
    }
    free(div);
    grid_free(&g);
}
END_TEST

/* Left to right the diverging bar goes from blue to red, never back (as above). */
START_TEST(slice_colour_bars_are_monotonic)
{
    MacGrid g;
    ck_assert_int_eq(grid_init(&g, 20, 20, 20, 0.1f), 0);
    float *div = calloc(grid_cells(&g), sizeof *div);
    char err[512];
    ck_assert_msg(preview_slice_png(tmp_png("bars.png"), &g, g.p, div, 1, 10, 8, err,
                                    sizeof err) == 0, "%s", err);
    Image im = load_png(tmp_png("bars.png"));
    PreviewSliceView v;
    preview_slice_view(&v, &g, 1, 10, 8);
    int y = (v.bar_y0 + v.bar_y1) / 2;
    for (int panel = PREVIEW_PANEL_PRESSURE; panel <= PREVIEW_PANEL_DIVERGENCE; panel++) {
        int x0 = v.panel_x[panel], x1 = x0 + v.bar_w - 1;
        unsigned char lo[3], hi[3];
        preview_diverging(-1, lo);
        preview_diverging(1, hi);
        assert_rgb(pixel(&im, x0, y), lo, "bar left end");
        assert_rgb(pixel(&im, x1, y), hi, "bar right end");
        double prev = -1;
        for (int x = x0; x <= x1; x++) {
            double t = map_position(preview_diverging, -1, 1, pixel(&im, x, y));
            ck_assert_msg(t >= prev - 2.0 / 256, "panel %d bar column %d at %.4f, below %.4f",
                          panel, x, t, prev);
            prev = fmax(prev, t);
        }
    }
    free(im.rgb);
    free(div);
    grid_free(&g);
}
END_TEST

/* ---- errors -------------------------------------------------------------------------- */

START_TEST(errors_name_the_path)
{
    MacGrid g = box_grid(8, 1.0f);
    char err[512] = "";
    const char *bad = "/nonexistent/flipkit/frame.png";
    Vec3 p[1] = { { 4, 4, 4 } };
    ck_assert_int_eq(preview_frame_png(bad, p, NULL, 1, &g, NULL, 0, 400, 1, err, sizeof err), -1);
    ck_assert_msg(strstr(err, bad) == err && !strchr(err, '\n'), "err '%s'", err);
    err[0] = '\0';
    ck_assert_int_eq(preview_slice_png(bad, &g, g.p, g.p, 0, 3, 4, err, sizeof err), -1);
    ck_assert_msg(strstr(err, bad) == err, "err '%s'", err);
    err[0] = '\0';
    char *ok = tmp_png("w.png");
    ck_assert_int_eq(preview_frame_png(ok, p, NULL, 1, &g, NULL, 0, 50, 1, err, sizeof err), -1);
    ck_assert_msg(strstr(err, ok) == err && strstr(err, "width"), "err '%s'", err);
    ck_assert_int_eq(preview_slice_png(ok, &g, g.p, g.p, 1, 8, 4, err, sizeof err), -1);
    ck_assert_msg(strstr(err, ok) == err && strstr(err, "index 8"), "err '%s'", err);
    ck_assert_int_eq(preview_frame_png(ok, NULL, NULL, 3, &g, NULL, 0, 400, 1, err, sizeof err),
                     -1);
    ck_assert_msg(access(ok, F_OK) != 0, "a picture was written after an error");
    grid_free(&g);
}
END_TEST

START_TEST(speed_max_is_round)
{
    Vec3 v[2] = { { 3, 4, 0 }, { 0, 0, 1 } }; /* fastest 5 */
    ck_assert_float_eq(preview_speed_max(v, 2), 5.0f);
    v[0] = (Vec3){ 0, -7.3f, 0 };
    ck_assert_float_eq(preview_speed_max(v, 2), 10.0f);
    v[0] = (Vec3){ 0, 2.2f, 0 };
    ck_assert_float_eq(preview_speed_max(v, 2), 2.5f);
    ck_assert_float_eq(preview_speed_max(v, 0), 0.1f);
}
END_TEST

static Suite *preview_suite(void)
{
    Suite *s = suite_create("preview");
    TCase *frame = tcase_create("frame");
    tcase_set_timeout(frame, 30);
    tcase_add_test(frame, frame_png_decodes_at_stated_size);
    tcase_add_test(frame, frame_particle_colours_at_projection);
    tcase_add_test(frame, frame_diffuse_colours_and_hidden_behind_liquid);
    tcase_add_test(frame, frame_bricks_are_squares_of_their_grey);
    tcase_add_test(frame, frame_surface_is_translucent_water);
    tcase_add_test(frame, frame_falling_ball_moves_down);
    tcase_add_test(frame, frame_solids_are_grey);
    tcase_add_test(frame, frame_colour_bar_is_monotonic);
    tcase_add_test(frame, frame_same_input_same_bytes);
    tcase_add_test(frame, speed_max_is_round);
    tcase_add_checked_fixture(frame, setup, teardown);
    suite_add_tcase(s, frame);

    TCase *slice = tcase_create("slice");
    tcase_add_test(slice, slice_cells_coloured_by_type);
    tcase_add_test(slice, slice_colour_bars_are_monotonic);
    tcase_add_checked_fixture(slice, setup, teardown);
    suite_add_tcase(s, slice);

    TCase *errors = tcase_create("errors");
    tcase_add_test(errors, errors_name_the_path);
    tcase_add_checked_fixture(errors, setup, teardown);
    suite_add_tcase(s, errors);
    return s;
}

int main(void)
{
    return harness_run(preview_suite());
}
