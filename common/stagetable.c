/* stagetable.c — the stage table: what each stage reads and writes, and its golden tolerances.
 * flipkit common/: each tolerance is the rounding of the stage's float arithmetic with room,
 * the reason beside it; the grader uses them unchanged (its calibration checks they suffice). */
#include "stagetable.h"

#include <string.h>

#define STAGE_NAME(number, name) #name,
const char *const stage_names[STAGE_COUNT] = { STAGE_LIST(STAGE_NAME) };
#undef STAGE_NAME

#define ROW(stage) .name = #stage, .number = 1 + STAGE_ID_##stage, .slot = offsetof(Track, stage)

const StageInfo stage_table[STAGE_COUNT] = {
    [STAGE_ID_advect] = {
        ROW(advect), .inputs = "in.pos in.vel dt",
        /* pos + dt v in float: one rounding per component; positions are a few metres. */
        .outputs = { { "out.pos", FIELD_PARTICLES, "position", "dt", 1e-5f, 1e-6f, TOL_FIXED, EXPLAIN_NONE, false },
                     { "out.vel", FIELD_PARTICLES, "velocity, which advect must not change", NULL,
                       0.0f, 0.0f, TOL_FIXED, EXPLAIN_NONE, false } },
    },
    [STAGE_ID_gravity] = {
        ROW(gravity), .inputs = "in.u in.v in.w gravity dt",
        /* One float addition per face: rounding is 1e-7 of the velocity. */
        .outputs = { { "out.", FIELD_FACES, "velocity", NULL, 1e-6f, 1e-6f, TOL_FIXED, EXPLAIN_NONE, false } },
    },
    [STAGE_ID_p2g] = {
        ROW(p2g), .inputs = "in.pos in.vel",
        /* Sums of up to ~30 weighted terms in float, then a division: relative 1e-5. */
        .outputs = { { "out.w", FIELD_FACES, "weight", NULL, 1e-5f, 1e-5f, TOL_FIXED, EXPLAIN_NONE, false },
                     { "out.", FIELD_FACES, "velocity", NULL, 1e-5f, 1e-5f, TOL_OUT_MAX, EXPLAIN_NONE, false } },
    },
    [STAGE_ID_g2p] = {
        ROW(g2p), .inputs = "in.pos in.vel in.u in.v in.w in.u_old in.v_old in.w_old alpha",
        /* Two 8-term weighted sums and a blend in float: relative 1e-5 of the velocities. */
        .outputs = { { "out.vel", FIELD_PARTICLES, "velocity", "alpha", 1e-5f, 1e-5f, TOL_OUT_MAX, EXPLAIN_NONE, false },
                     { "out.pos", FIELD_PARTICLES, "position, which g2p must not change", NULL,
                       0.0f, 0.0f, TOL_FIXED, EXPLAIN_NONE, false } },
    },
    [STAGE_ID_divergence] = {
        ROW(divergence), .inputs = "in.u in.v in.w",
        /* Six face terms summed in float: relative 1e-5 of the largest divergence. */
        .outputs = { { "out.div", FIELD_CELLS, "div", NULL, 1e-5f, 1e-5f, TOL_OUT_MAX, EXPLAIN_FACE_TERMS, false } },
    },
    [STAGE_ID_laplacian] = {
        ROW(laplacian), .inputs = "in.p",
        /* (sum - N p) / dx^2 cancels: the rounding is about 8 eps max|p| / dx^2. */
        .outputs = { { "out.Lp", FIELD_CELLS, "L p", NULL, 1e-5f, 1e-5f, TOL_P_OVER_DX2, EXPLAIN_NEIGHBOURS, false } },
    },
    [STAGE_ID_jacobi] = {
        ROW(jacobi), .inputs = "in.p in.rhs omega",
        /* A few float operations on values of size max|p|: relative 1e-5 of that. */
        .outputs = { { "out.p", FIELD_CELLS, "p_out", "omega", 1e-5f, 1e-5f, TOL_OUT_MAX, EXPLAIN_NEIGHBOURS, false } },
    },
    [STAGE_ID_gradient] = {
        ROW(gradient), .inputs = "in.u in.v in.w in.p scale",
        /* One subtraction per face of a term of size scale max|p| / dx. The faces between
         * two AIR cells are free: the extrapolation rewrites every one a particle can reach
         * (tests/test_physics.c, air_air_faces_reach_no_particle). */
        .outputs = { { "out.", FIELD_FACES, "velocity", "scale", 1e-5f, 1e-5f, TOL_GRADIENT_TERM, EXPLAIN_NONE,
                       true } },
    },
};

#undef ROW

const StageInfo *stage_find(const char *name)
{
    for (int q = 0; q < STAGE_COUNT; q++)
        if (strcmp(stage_table[q].name, name) == 0)
            return &stage_table[q];
    return NULL;
}
