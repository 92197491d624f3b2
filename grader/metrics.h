/* metrics.h — is a student's particle frame close enough to the reference's frame?
 * flipkit grader/: FLIP is chaotic, so a correct pipeline drifts from the reference particle
 * by particle; these compare what a viewer sees: count, centre of mass, heights, occupancy. */
#ifndef FLIPKIT_METRICS_H
#define FLIPKIT_METRICS_H

#include <stdbool.h>

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

/* Measures s against r on the grid; returns true when every metric the config enables holds.
 * On a failure *fail names the first metric that broke, its value and its limit. */
bool metrics_compare(const GradeConfig *c, const MetricGrid *g, Frame s, Frame r, FrameMetrics *m,
                     GradeFrameFail *fail);

#endif
