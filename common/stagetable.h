/* stagetable.h — per stage: its number, its Track slot, the case sections it reads and writes,
 * and how closely each output must match the reference's. flipkit common/: one row per line of
 * stagelist.h; track_mix, the stage harness (tests/), mkgolden and the grader loop over it.
 * Students need not read it: the contract is stages.h. */
#ifndef FLIPKIT_STAGETABLE_H
#define FLIPKIT_STAGETABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "track.h"

typedef enum {
#define STAGE_ID(number, name) STAGE_ID_##name,
    STAGE_LIST(STAGE_ID)
#undef STAGE_ID
} StageId;

typedef enum { FIELD_PARTICLES, FIELD_FACES, FIELD_CELLS } StageFieldKind;
/* What an output's absolute tolerance is multiplied by (the size of the numbers it adds up):
 * 1; 1 + max |expected|; 1 + max |in.p| / dx^2 (laplacian); 1 + scale max |in.p| / dx (gradient). */
typedef enum { TOL_FIXED, TOL_OUT_MAX, TOL_P_OVER_DX2, TOL_GRADIENT_TERM } StageTolScale;
/* What a failure message adds about the cell that differs. */
typedef enum { EXPLAIN_NONE, EXPLAIN_FACE_TERMS, EXPLAIN_NEIGHBOURS } StageExplain;

typedef struct {
    const char *tag;            /* its section; for faces the prefix of the u, v, w sections */
    StageFieldKind kind;
    const char *field;          /* its name in a failure message */
    const char *param;          /* a case parameter the message quotes, or NULL */
    float abs, rel;             /* passes when |got - want| <= abs * scale + rel * |want| */
    StageTolScale scale;
    StageExplain explain;
    bool free_air_faces;        /* faces: those between two AIR cells are not compared (the
                                 * contract leaves them free: no run can depend on them) */
} StageOutput;

enum { STAGE_MAX_OUTPUTS = 2 };

typedef struct {
    const char *name;
    int number;                 /* 1..STAGE_COUNT, the handout's order */
    size_t slot;                /* offsetof(Track, <name>) */
    const char *inputs;         /* the case sections it reads besides dims, dx and cell */
    StageOutput outputs[STAGE_MAX_OUTPUTS]; /* checked in this order; a NULL tag ends them */
} StageInfo;

extern const StageInfo stage_table[STAGE_COUNT];

/* The row of a stage by name, or NULL when name is not a stage. */
const StageInfo *stage_find(const char *name);

#endif
