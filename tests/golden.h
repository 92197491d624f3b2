/* golden.h — golden cases: one stage's inputs and the reference's outputs, in a state file.
 * flipkit tests/: build/maintainer/mkgolden writes them (`make golden`), the stage suites and the
 * grader read them. Not committed: the reference regenerates them, byte for byte.
 *
 * A case lives in GOLDEN_DIR/<stage>/<case>.state (state.h format) with these sections:
 *   "dims"  i32[3]  nx ny nz        "dx" f32[1]        "cell" i8[nx*ny*nz] (classified)
 *   parameters, f32: "dt"[1] "gravity"[3] "alpha"[1] "omega"[1] "scale"[1]
 *   "in.<field>" the stage's input and "out.<field>" the reference's output, where <field> is
 *     u v w            face velocities          wu wv ww   p2g weights
 *     u_old v_old w_old grid velocity after p2g  p rhs div Lp   per cell
 *     pos vel          particles, f32 x 3 each
 * Each stage's suite knows which of them its stage reads and writes (see maintainer/mkgolden.c). */
#ifndef FLIPKIT_GOLDEN_H
#define FLIPKIT_GOLDEN_H

#include <check.h>
#include <stddef.h>

#include "grid.h"
#include "particles.h"
#include "state.h"
#include "track.h"

enum { GOLDEN_MAX_CASES = 32, GOLDEN_NAME_MAX = 64 };

typedef struct {
    char stage[16];
    char name[GOLDEN_NAME_MAX];
    char path[512];
    StateFile sf;
    MacGrid g;          /* dims, dx and cell types from the file; every field zero */
} Golden;

/* Where golden cases are read from: $FLIPKIT_GOLDEN, else build/golden. */
const char *golden_dir(void);
/* Adds a TCase "golden" to s that runs fn once per case of this stage (a Check loop test:
 * _i is the case number; golden_open(&gc, stage, _i) opens it). With no cases on disk it adds
 * one failing test that says to run `make golden`. */
void golden_add_tcase(Suite *s, const char *stage, const TTest *fn);
/* Opens case number i of the stage (in sorted order); fails the test when it cannot. */
void golden_open(Golden *gc, const char *stage, int i);
void golden_close(Golden *gc);

/* Section accessors; each fails the test (naming file and section) when the section is
 * missing or has the wrong size. */
const float *golden_f32(const Golden *gc, const char *tag, size_t count);
float golden_param(const Golden *gc, const char *tag);
Vec3 golden_vec3(const Golden *gc, const char *tag);
/* The three face arrays "<prefix>u", "<prefix>v", "<prefix>w" (suffix after the letter), e.g.
 * golden_faces(gc, "in.", "", dst) or golden_faces(gc, "in.", "_old", dst). */
void golden_faces(const Golden *gc, const char *prefix, const char *suffix, float *dst[3]);
/* The pointers to those sections, without copying. */
void golden_faces_ref(const Golden *gc, const char *prefix, const char *suffix, const float *out[3]);
/* Fills ps (initialised) with "<prefix>pos" and "<prefix>vel". */
void golden_particles(const Golden *gc, const char *prefix, Particles *ps);
/* Number of particles in "<prefix>pos". */
size_t golden_particle_count(const Golden *gc, const char *prefix);

/* Case number i of the stage: runs the stage of track t on its inputs and fails the test with
 * stagecase_check's text when the output differs from the reference's (stagecase.h). */
void golden_check(const Track *t, const char *stage, int i);

#endif
