/* render.h — side-view PNGs of a particle frame, and of where two frames differ.
 * flipkit grader/: report.html shows the student's, the reference's and the difference
 * picture of a scene part's first failing frame. The PNGs are written with libpng. */
#ifndef FLIPKIT_RENDER_H
#define FLIPKIT_RENDER_H

#include <stddef.h>
#include "grid.h"

/* The geometry, shared by both pictures. The view looks along -z: x to the right, y up.
 * The image is width_px wide; its outermost ring of pixels is a thin grey frame and the box
 * [0, domain_max.x] x [0, domain_max.y] fills the w x h pixels inside it, where
 *     w = width_px - 2,  h = max(1, lround(w * domain_max.y / domain_max.x)),
 * so the image is (w + 2) x (h + 2). A particle at (x, y) falls in the pixel
 *     column 1 + floor(x / domain_max.x * w),  row 1 + (h - 1) - floor(y / domain_max.y * h)
 * (rows counted from the top). Particles outside the box are drawn on its nearest edge, so a
 * particle that leaks out is still seen; particles with a NaN or infinite coordinate are
 * not drawn. width_px is 8 to 4096 and h at most 4094; domain_max.x and .y are > 0. */

/* A density image: white where no particle is, blue getting darker with the number of
 * particles in a pixel (log-scaled, so a lone particle is still visible next to a dense
 * pool). Written through a temporary file renamed into place; the same input gives the same
 * bytes. Returns 0, or -1 with one line in err naming path. */
int render_particles_png(const char *path, const Vec3 *pos, size_t n, Vec3 domain_max,
                         int width_px, char *err, size_t errlen);

/* The difference picture of two frames: a pixel holding particles of the student only is
 * red, of the reference only blue, of both grey, of neither white. Same geometry, errors
 * and atomic write as render_particles_png. */
int render_diff_png(const char *path, const Vec3 *student, size_t ns, const Vec3 *reference,
                    size_t nr, Vec3 domain_max, int width_px, char *err, size_t errlen);

#endif
