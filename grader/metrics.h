/* metrics.h — is a student's particle frame close enough to the reference's frame?
 * flipkit grader/: FLIP is chaotic, so a correct pipeline drifts from the reference particle
 * by particle; these compare what a viewer sees: count, centre of mass, heights, occupancy. */
#ifndef FLIPKIT_METRICS_H
#define FLIPKIT_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "grade.h"
#include "gradeconfig.h"
#include "particles.h"

typedef struct {
    int n[3];       /* grid cells along x, y, z */
    float dx;       /* cell size, m */
} MetricGrid;

/* The measured values of one comparison (for calibration and the report). */
typedef struct {
    long count_student, count_reference;
    double centre_cells;            /* |centre of mass difference| / dx */
    double height_cells;            /* largest |quantile difference| of y / dx */
    double overlap;                 /* |S and R| / |S or R| of occupied cells */
    double motion;                  /* mean particle displacement since frame 0, student's over
                                     * reference's (1 when the reference has hardly moved) */
} FrameMetrics;

/* The particles of two runs at one frame, and at frame 0 (for how far they have moved). */
typedef struct {
    const Particles *now, *start;
} Frame;

/* All a comparison needs of the reference's side of one frame: the student kit ships these for
 * the public scenes (data/metrics/<run>.txt) instead of the reference's frames. */
typedef struct {
    long count;
    bool finite;                        /* every position finite */
    double centre[3];                   /* centre of mass, m */
    int nquantiles;
    double heights[GC_MAX_QUANTILES];   /* y at the config's height quantiles, m */
    double displacement;                /* mean |x - x(frame 0)|, m; -1 when the counts differ */
    unsigned char *occupied;            /* one byte per grid cell: 1 when a particle is in it */
} FrameSummary;

/* Summarises frame f (its particles now and at frame 0) on the grid; false when out of memory. */
bool metrics_summarise(const GradeConfig *c, const MetricGrid *g, Frame f, FrameSummary *out);
void metrics_summary_free(FrameSummary *s);
/* Summarises a run's frames DIR/000000.ply .. n-1 into out[0..n-1]; -1 with one line in err
 * when a frame cannot be read (out then holds nothing to free). */
int metrics_summarise_frames(const GradeConfig *c, const MetricGrid *g, const char *dir, FrameSummary *out,
                             int n, char *err, size_t errn);

/* Measures s against the reference's summary r; returns true when every metric the config
 * enables holds. On a failure *fail names the first metric that broke, its value and limit. */
bool metrics_compare_summary(const GradeConfig *c, const MetricGrid *g, Frame s, const FrameSummary *r,
                             FrameMetrics *m, GradeFrameFail *fail);
/* The same against the reference's particles (summarised first: one code path for both). */
bool metrics_compare(const GradeConfig *c, const MetricGrid *g, Frame s, Frame r, FrameMetrics *m,
                     GradeFrameFail *fail);

/* A run's summaries, frames 0..n-1, as text: a header naming the run, grid and quantiles, then
 * a line a frame, occupied cells as runs of indices. Written at `make grade-data`. */
int metrics_write_summaries(const char *path, const char *run, const GradeConfig *c, const MetricGrid *g,
                            const FrameSummary *frames, int n, char *err, size_t errn);
/* Reads what metrics_write_summaries wrote into frames[0..n-1] (n: frames wanted); fails with
 * one line when the file is not for this grid or these quantiles, or holds fewer frames. */
int metrics_read_summaries(const char *path, const GradeConfig *c, const MetricGrid *g, FrameSummary *frames,
                           int n, char *err, size_t errn);

#endif
