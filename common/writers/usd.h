/* usd.h — one ASCII USD stage per run: the particles, and optionally a surface, per frame.
 * flipkit common/writers/: OUT/scene.usda plays in real time (one time code per frame,
 * timeCodesPerSecond = framesPerSecond = the frame rate); output.c writes it when a scene sets
 * output.usd. */
#ifndef FLIPKIT_USD_H
#define FLIPKIT_USD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "grid.h"

/*
 * The stage (y up, metres, defaultPrim "World"):
 *   /World/particles  Points: points and extent time-sampled, widths constant
 *   /World/surface    Mesh (only with_surface): points, faceVertexCounts, faceVertexIndices
 *                     and extent time-sampled; subdivisionScheme "none"
 *   /World/diffuse    Points (only with diffuse): points, extent and primvars:diffuseType
 *                     (int per point, vertex interpolation: 0 spray, 1 foam, 2 bubble)
 *                     time-sampled; widths (half the particles') constant
 *   /World/bricks     Points (only with a brick width): the brick centres, extent and
 *                     primvars:displayColor (per point: the brick's grey, colour / 255)
 *                     time-sampled; widths (the brick width) constant
 *   /World/anisotropic  Mesh (only with anisotropic): as /World/surface
 * Time code = frame number, startTimeCode/endTimeCode = first/last frame written.
 * Numbers are printed "%.7g" (relative error at most 5e-7 against the float written),
 * with '.' whatever the locale; the same frames give the same bytes.
 *
 * Streaming: usd_add_frame appends each attribute's sample to its own part file in
 * OUT/.usd/ and flushes it, then appends the frame number to OUT/.usd/frames, the commit
 * record: a frame counts once its number is there. OUT/scene.usda is assembled from the
 * parts (temporary file renamed into place) after frames 1, 2, 4, 8, ... and by usd_close,
 * which then removes OUT/.usd. Doubling keeps the total copying under twice the final file
 * (assembling after every frame would copy ~frames/2 times the final size: 0.8 GB for
 * 58k particles x 31 frames). If the run is killed, the parts still hold every committed
 * frame and usd_assemble(OUT) rebuilds scene.usda from them.
 */

typedef struct UsdWriter UsdWriter;

/* What a stage holds besides the particles. */
typedef struct {
    double fps;             /* > 0: the scene's frame rate */
    float point_width;      /* > 0: the particles' display diameter, metres */
    bool surface;           /* a /World/surface mesh */
    bool diffuse;           /* a /World/diffuse points prim */
    float brick_width;      /* > 0: a /World/bricks points prim of this width; 0: none */
    bool anisotropic;       /* a /World/anisotropic mesh */
} UsdOptions;

/* One frame's samples; the arrays a stage was opened without stay NULL with count 0. */
typedef struct {
    int frame;
    const Vec3 *pos;
    size_t n;
    const float *mesh_xyz;
    size_t nverts;
    const uint32_t *tri;
    size_t ntris;
    const Vec3 *diffuse_pos;
    const uint8_t *diffuse_type;
    size_t ndiffuse;
    const float *brick_xyz;         /* 3 floats per brick */
    const uint8_t *brick_grey;      /* one colour byte per brick */
    size_t nbricks;
    const float *aniso_xyz;         /* the anisotropic surface, as mesh_xyz and tri */
    size_t aniso_nverts;
    const uint32_t *aniso_tri;
    size_t aniso_ntris;
} UsdFrame;

/* Starts a stage in out_dir (which must exist): creates out_dir/.usd, discarding the parts of
 * any earlier run there. fps > 0 is the scene's frame rate; point_width > 0 is the particles'
 * display diameter in metres (e.g. half a cell). Returns NULL with one line in err naming
 * the path on failure. */
UsdWriter *usd_open(const char *out_dir, double fps, float point_width, bool with_surface,
                    char *err, size_t errlen);

/* usd_open with the diffuse and brick prims as opt says. */
UsdWriter *usd_open_with(const char *out_dir, const UsdOptions *opt, char *err, size_t errlen);

/* usd_add_frame with every prim's samples (those the stage was opened with). */
int usd_add_frame_with(UsdWriter *w, const UsdFrame *f, char *err, size_t errlen);

/* Appends frame `frame` (time code; greater than the previous frame's): n particle
 * positions and, when the writer has a surface, nverts vertices (mesh_xyz, 3 floats each)
 * and ntris triangles (tri, 3 vertex indices each, all < nverts). A writer without a surface
 * takes mesh_xyz = tri = NULL and 0 counts. Returns 0, or -1 with one line in err: bad
 * input writes nothing; a failed assembly (after frames 1, 2, 4, ...) leaves the frame
 * committed in the parts, for usd_close or usd_assemble to pick up. */
int usd_add_frame(UsdWriter *w, int frame, const Vec3 *pos, size_t n, const float *mesh_xyz,
                  size_t nverts, const uint32_t *tri, size_t ntris, char *err, size_t errlen);

/* Assembles out_dir/scene.usda from every committed frame, removes the parts and frees w
 * (always, even on failure; the parts are then kept for usd_assemble). NULL is a no-op.
 * Returns 0, or -1 with one line in err. */
int usd_close(UsdWriter *w, char *err, size_t errlen);

/* While defer is true, frames are committed to the parts but scene.usda is not rebuilt after
 * frames 1, 2, 4, ... (a resumed run replaying frames an existing stage already shows keeps
 * that stage until the replay is done); usd_close assembles as always. */
void usd_defer_assembly(UsdWriter *w, bool defer);
/* Frees w and removes its parts without assembling, leaving scene.usda as it was (a replay
 * that failed half way). NULL is a no-op. */
void usd_discard(UsdWriter *w);
/* Recovery after a killed run: rebuilds out_dir/scene.usda from out_dir/.usd (its frame rate,
 * width and surface flag are in .usd/meta) and keeps the parts. Returns 0, or -1 with one
 * line in err. */
int usd_assemble(const char *out_dir, char *err, size_t errlen);

/* f as printf's "%.7g" writes it in the C locale (what the stage uses for coordinates), into
 * dst (room for 32 bytes); returns the length. For tests. */
int usd_format_float(char *dst, float f);

#endif
