/* variant.h — per-student variants: a student's hidden cases and graded scenes drawn from the
 * class's seed (variants.* in grader/config) and a hash of the student's name, never the name.
 * flipkit grader/: only the drawing is here; flipgrade.c has the reference make each variant's data. */
#ifndef FLIPKIT_VARIANT_H
#define FLIPKIT_VARIANT_H

#include <stddef.h>

#include "gradeconfig.h"

enum {
    VARIANT_ATTEMPTS = 4,        /* draws of a case tried before its base case stands in */
    VARIANT_DRAWN_MAX = 2048,
};

typedef struct {
    int index;                   /* which of variants.count variants the student got */
    char key[17];                /* FNV-1a of everything drawn: its data directory's name */
    char drawn[VARIANT_DRAWN_MAX]; /* the scenes' draw, one line (the cases' is added when the
                                    * reference records them: a draw may be refused) */
    GradeConfig cfg;             /* the class's config with each scene's drawn overrides added */
} Variant;

/* Which variant a student gets: FNV-1a of the seed and the name's bytes, mod variants.count.
 * The name is only hashed: it reaches no path, command or text here. */
int variant_index(const GradeConfig *c, const char *student);
/* Draws variant index of c: every scene's grid size, particles per cell, seed and gravity as
 * --set overrides in v->cfg, and v->key over that and every case's first draw. Scenes are
 * read under kit. 0, or -1 with one line in err. */
int variant_draw(const char *kit, const GradeConfig *c, int index, Variant *v, char *err, size_t n);
/* Draw attempt (0 to VARIANT_ATTEMPTS - 1) of hidden case i of variant index, as the scene's
 * JSON text (a new string), its name in name ("ledge_11x7x8") and what was drawn in words in
 * what. NULL with one line in err when the case file cannot be read. */
char *variant_case(const GradeConfig *c, int index, int i, int attempt, char *name, size_t namelen,
                   char *what, size_t whatlen, char *err, size_t n);

#endif
