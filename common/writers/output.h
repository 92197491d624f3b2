/* output.h — the files a frame writes besides the particles: surface, USD stage, previews, slices.
 * flipkit common/writers/: the scene's output.* keys and flipsim's --slice choose them; each
 * call returns what went wrong as one line and never prints (cli.c prints). */
#ifndef FLIPKIT_OUTPUT_H
#define FLIPKIT_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "bricks.h"
#include "diffuse.h"
#include "sim.h"
#include "surface.h"
#include "usd.h"

enum { OUTPUT_MAX_SLICES = 8, OUTPUT_PREVIEW_WIDTH = 800 };

/* What output_frame spends its time on, for the driver's summary. */
typedef enum { OUTPUT_PARTICLES, OUTPUT_SURFACE, OUTPUT_USD, OUTPUT_PREVIEW, OUTPUT_SLICES,
               OUTPUT_BRICKS, OUTPUT_DIFFUSE, OUTPUT_ANISOTROPIC, OUTPUT_KINDS } OutputKind;
extern const char *const output_kind_names[OUTPUT_KINDS];

/* A surface maker that runs where a backend keeps its particles (the reference's OpenCL
 * mesher, reference/pipeline.h): the liquid surface of b's particles, as surface_build would
 * make it, into m. Returns 0, or -1 with one line in s->error. */
typedef int (*OutputMesher)(SimBackend *b, Sim *s, const SurfaceSettings *set, Mesh *m);

/* One --slice AXIS=INDEX: the cells whose index along axis (0 x, 1 y, 2 z) is index. */
typedef struct { int axis, index; } OutputSlice;
typedef struct OutputWriter OutputWriter;

/* Triangles of the meshes a run wrote, over its frames (make bench's triangles per frame). */
typedef struct {
    int frames;                 /* meshes written */
    double sum;                 /* their triangles, added */
    size_t max;                 /* the most in one */
} OutputTriangles;

typedef struct {
    char dir[1024];             /* OUT */
    const Scene *scene;
    UsdWriter *usd;             /* NULL: output.usd off */
    Mesh mesh;                  /* a resumed run's earlier surfaces, read back one by one */
    MacGrid grid;               /* for the previews: the size and the solid cells only */
    Bricks bricks;              /* the frame's LEGO bricks (output.bricks), reused */
    Mesh aniso;                 /* the frame's anisotropic surface, reused (writer thread) */
    Diffuse diffuse;            /* spray, foam and bubbles (output.diffuse), frame to frame */
    bool diffuse_missing;       /* a resume found no diffuse file at its frame: started empty */
    DiffuseTally diffuse_end;   /* set by output_close */
    OutputWriter *writer;       /* output_start_writer's: the frames handed over */
    bool threaded;              /* a thread writes them while the driver goes on */
    double waited;              /* seconds output_frame waited for the writer thread */
    OutputMesher mesher;        /* NULL: surface_build on the host (set after output_open) */
    OutputMesher aniso_mesher;  /* NULL: surface_build_anisotropic on the writer thread */
    /* A device whose download calls output_wait_writer before it writes the host's particles
     * (set by the driver, with the writer thread): while the sim runs on it, the writer writes
     * a frame from the sim's own particles, not a copy. NULL: copied. */
    const SimBackend *lend_to;
    float speed_max;            /* the previews' fixed colour scale, m/s */
    OutputSlice slice[OUTPUT_MAX_SLICES];
    int nslices;
    /* Set by output_open on a resume, for the driver to tell the user: earlier frames whose
     * files are gone from OUT, and so left out of scene.usda. */
    int usd_missing;
    double seconds[OUTPUT_KINDS]; /* wall time in output_frame (and output_close for USD) */
    bool on[OUTPUT_KINDS];      /* the kinds this run has written */
    int frames_written;         /* output_frame calls that succeeded */
    OutputTriangles triangles;  /* of the surfaces written (output.surface) */
    OutputTriangles aniso_triangles; /* of the anisotropic ones (output.surface_anisotropic) */
} Output;

/* Parses "AXIS=INDEX" (AXIS x, y or z; INDEX a whole number) into sl. Returns 0, or -1 with
 * one line in err saying what was expected. The index is checked against the grid by
 * output_open. */
int output_parse_slice(const char *text, OutputSlice *sl, char *err, size_t errlen);

/* Checks a slice against a grid of n[0] x n[1] x n[2] cells: 0, or -1 with one line in err. */
int output_check_slice(const OutputSlice *sl, const int n[3], char *err, size_t errlen);

/* Prepares OUT's subdirectories and the USD stage for a run of scene on grid g, writing the
 * given slices too. resume_frame >= 0: the run continues an earlier one from that frame, and
 * the stage's frames 0..resume_frame are read back from the PLY files in OUT (so scene.usda
 * comes out as a run in one go writes it); -1 for a fresh run. Returns 0, or -1 with one line
 * in err (a slice outside the grid, a directory or file that cannot be written or read). */
int output_open(Output *o, const char *out_dir, const Scene *scene, const MacGrid *g,
                const OutputSlice *slices, int nslices, int resume_frame, char *err,
                size_t errlen);

/* Gets ready to write frames; thread: on a thread of their own, each while the next frame
 * simulates (without one, or when no thread can be made, each is written before output_frame
 * returns). The files are the same bytes either way. Returns 0, or -1 when out of memory. */
int output_start_writer(Output *o, bool thread);
/* Waits until the writer thread has written every frame handed to it (ctx: the Output); its
 * failure, if any, output_frame or output_close returns. What a device's download calls first
 * when o->lend_to is that device. */
void output_wait_writer(void *ctx);
/* Writes frame s->frame: particles/NNNNNN.ply, surface/NNNNNN.ply, a USD sample,
 * preview/NNNNNN.png and slice-AXISINDEX/NNNNNN.png (e.g. slice-z16/), as the scene and the
 * slices ask. The surface and slices are made before it returns; with a writer thread the
 * rest is written from copies after it returns, and a failure there is returned by the next
 * call, output_flush or output_close (frames after a failed one are not written). Returns 0,
 * or -1 with one line. */
int output_frame(Output *o, Sim *s, char *err, size_t errlen);
/* Waits until every frame handed over is on disk (before a checkpoint, so a resume finds
 * them). Returns 0, or -1 with the writer's first failure. */
int output_flush(Output *o, char *err, size_t errlen);

/* The liquid surface of s's particles into m: with mesher when it is not NULL and s's backend
 * holds the current particles (sim_backend_current), else surface_build on the host's copy.
 * Returns 0, or -1 with one line in s->error. */
int output_mesh(OutputMesher mesher, Sim *s, const SurfaceSettings *set, Mesh *m);

/* Writes what is still handed over, stops the writer, closes the USD stage (scene.usda then
 * holds every frame written, also after an error) and frees o. Safe on a zeroed or half-opened Output. Returns 0, or -1 with one line in err. */
int output_close(Output *o, char *err, size_t errlen);

#endif
