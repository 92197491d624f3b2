/* preview.h — PNG previews: a 3D view of a particle frame, and a debug slice of the grid.
 * flipkit common/writers/: OUT/preview/ frames (output.preview: a run looked at without
 * Blender) and flipsim --slice's debug images (cell types, pressure, divergence); output.c
 * calls both. */
#ifndef FLIPKIT_PREVIEW_H
#define FLIPKIT_PREVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "grid.h"
#include "scene.h"

/* ---- the frame view ------------------------------------------------------------------
 * A fixed perspective camera looks at the domain box [0, nx dx] x [0, ny dx] x [0, nz dx]
 * from the front (+z), right (+x) and above, y up, and is fitted so the whole box fills the
 * view area (the image minus the legend on the right). The image is width_px x
 * round(0.75 width_px). The box's floor is a light checkerboard, its back walls a light
 * grey, its 12 edges grey lines; particles are dots, drawn back to front, coloured by speed
 * with viridis (0 m/s dark violet .. speed_max yellow; faster is clamped to yellow); solids
 * are semi-transparent grey (the scene's boxes and spheres, or else the grid's SOLID cells
 * inside the outer wall). The colour bar on the right is labelled in m/s. */

typedef struct {
    int width, height;          /* the whole image, pixels */
    int view_w;                 /* the scene is drawn in columns [0, view_w) */
    double eye[3], right[3], up[3], fwd[3]; /* the camera, metres */
    double scale, cx, cy;       /* image plane (a, b) to pixel: x = cx + scale a, y = cy - scale b */
    double dot_world;           /* dot radius, metres (0.35 cells) before perspective */
    Vec3 domain;                /* the box's far corner */
    int text_scale;             /* 5x7 glyphs drawn at this many pixels per font pixel */
    /* The colour bar: columns [bar_x0, bar_x1), rows [bar_y0, bar_y1); row bar_y1 - 1 is
     * 0 m/s and row bar_y0 is speed_max. */
    int bar_x0, bar_x1, bar_y0, bar_y1;
} PreviewView;

/* Sets up the view of g's domain for an image width_px (64..4096) wide. Returns 0, or -1
 * when the width or the grid is out of range. */
int preview_frame_view(PreviewView *v, const MacGrid *g, int width_px);

/* Projects world point p: *x, *y in pixels (the point lies in pixel column floor(*x), row
 * floor(*y), rows from the top) and *depth its distance along the view direction. Returns
 * false for a point that is not finite or is behind the camera. A particle's dot is centred
 * on that pixel, which shows the particle's colour exactly. */
bool preview_project(const PreviewView *v, Vec3 p, double *x, double *y, double *depth);

/* Writes the frame to path (through path.tmp renamed into place; the same input gives the
 * same bytes). vel may be NULL (all at rest). speed_max > 0 fixes the colour scale so frames
 * of a run compare; speed_max <= 0 takes this frame's fastest particle (see
 * preview_speed_max). solids may be NULL with nsolids 0. Returns 0, or -1 with one line
 * in err naming path. */
int preview_frame_png(const char *path, const Vec3 *pos, const Vec3 *vel, size_t n,
                      const MacGrid *g, const Shape *solids, int nsolids, int width_px,
                      float speed_max, char *err, size_t errlen);

/* Diffuse particles to draw over a frame: small dots, white for spray (type 0), pale grey for
 * foam (1), pale blue for bubbles (2), hidden where the liquid is in front of them. */
typedef struct {
    const Vec3 *pos;
    const uint8_t *type;
    size_t n;
} PreviewPoints;
extern const unsigned char preview_diffuse_colours[3][3];

/* preview_frame_png with the diffuse particles drawn too (diffuse may be NULL). */
int preview_frame_png_with(const char *path, const Vec3 *pos, const Vec3 *vel, size_t n,
                           const MacGrid *g, const Shape *solids, int nsolids, int width_px,
                           float speed_max, const PreviewPoints *diffuse, char *err,
                           size_t errlen);

/* A triangle mesh to draw over a frame (the anisotropic surface): 3 floats per vertex, 3
 * indices per triangle. */
typedef struct {
    const float *xyz;
    size_t nverts;
    const uint32_t *tri;
    size_t ntris;
} PreviewMesh;

/* LEGO bricks to draw over a frame: the centres (3 floats each) and grey values of the
 * present bricks, each size[0] x size[1] x size[2] metres. */
typedef struct {
    const float *centre;
    const uint8_t *grey;
    size_t n;
    float size[3];
} PreviewBricks;

/* What a frame may draw besides the liquid particles; any may be NULL. */
typedef struct {
    const PreviewPoints *diffuse;
    const PreviewBricks *bricks;
    const PreviewMesh *surface;
} PreviewExtras;

/* The colours of the extras: a brick's square is its grey at PREVIEW_BRICK_ALPHA over what is
 * behind it, outlined in its grey times PREVIEW_BRICK_EDGE, and left out when the liquid at
 * its centre's pixel is more than half a brick nearer (only the front layer shows); the
 * surface is preview_water lit by its triangles' facing (0.6 to 1.1 times) at
 * PREVIEW_WATER_ALPHA over what lies behind it, hidden where a particle is more than a cell
 * (dx) in front of it. */
#define PREVIEW_BRICK_ALPHA 0.35
#define PREVIEW_BRICK_EDGE 0.6
#define PREVIEW_WATER_ALPHA 0.45
extern const unsigned char preview_water[3];

/* preview_frame_png with the extras drawn too (x may be NULL): diffuse particles, then the
 * bricks as squares of their grey, one per brick centred on its centre's pixel and as wide as
 * the brick looks there, far first; then the surface, translucent. */
int preview_frame_png_extra(const char *path, const Vec3 *pos, const Vec3 *vel, size_t n,
                            const MacGrid *g, const Shape *solids, int nsolids, int width_px,
                            float speed_max, const PreviewExtras *x, char *err, size_t errlen);

/* A round colour-bar top for the given particles: their largest speed rounded up to 1, 2,
 * 2.5 or 5 x 10^k (at least 0.1 m/s). For a run, call it on an early frame's velocities,
 * or use sqrt(2 |g| height) as the fastest free fall the box allows. */
float preview_speed_max(const Vec3 *vel, size_t n);

/* ---- the slice view ------------------------------------------------------------------
 * One layer of cells (axis 0/1/2 = the x/y/z index equals `index`) as three panels side by
 * side, each cell a cell_px square: cell types (FLUID blue, AIR white, SOLID grey), pressure
 * and divergence (blue - white - red, symmetric about 0, over FLUID cells; AIR hatched,
 * SOLID grey), each with a colour bar labelled -A, 0, +A and a line with the min and max.
 * Panel axes: x slice z right, y up; y slice x right, z down (seen from above); z slice x
 * right, y up. */

typedef struct {
    int width, height;
    int axis, index;
    int cols, rows, cell_px;
    int text_scale;
    int panel_x[3];     /* left column of each panel's cells */
    int cells_y;        /* top row of the cells */
    /* The colour bars of panels 1 (pressure) and 2 (divergence): columns
     * [panel_x[p], panel_x[p] + bar_w), rows [bar_y0, bar_y1); left is -A, right +A. */
    int bar_w, bar_y0, bar_y1;
} PreviewSliceView;

enum { PREVIEW_PANEL_TYPES, PREVIEW_PANEL_PRESSURE, PREVIEW_PANEL_DIVERGENCE };

/* Sets up the layout; returns 0, or -1 for an axis, index or cell_px (1..64) out of range. */
int preview_slice_view(PreviewSliceView *v, const MacGrid *g, int axis, int index, int cell_px);

/* The centre pixel of cell (i, j, k) (which must lie in the slice) in panel 0..2. */
void preview_slice_pixel(const PreviewSliceView *v, int panel, int i, int j, int k, int *x,
                         int *y);

/* Writes the slice; p and div hold one value per cell (e.g. g->p and the divergence the
 * pressure solve saw). Same atomic write and errors as preview_frame_png. */
int preview_slice_png(const char *path, const MacGrid *g, const float *p, const float *div,
                      int axis, int index, int cell_px, char *err, size_t errlen);

/* ---- the colour maps, for tests and legends ------------------------------------------ */

/* Viridis (perceptually uniform, readable with colour-blindness) at t in [0, 1], clamped. */
void preview_viridis(double t, unsigned char rgb[3]);
/* Blue (-1) - near white (0) - red (+1), ColorBrewer's colour-blind-safe RdBu, clamped. */
void preview_diverging(double t, unsigned char rgb[3]);

#endif
