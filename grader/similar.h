/* similar.h — how much of two stage files is the same code, by token streams, not by text.
 * flipkit grader/: the class report (classreport.c) compares every pair of submissions' files
 * of one stage; renamed identifiers and reordered functions still match, the stub does not count. */
#ifndef FLIPKIT_SIMILAR_H
#define FLIPKIT_SIMILAR_H

#include <stddef.h>

enum {
    SIMILAR_MIN_RUN = 12,   /* tokens: a shorter common run is taken for chance (a loop header) */
};

/* One C file as tokens: identifiers all one kind (a rename changes nothing), numbers one kind,
 * strings one kind, keywords and operators themselves; comments and preprocessor lines left
 * out. Each token keeps the line it starts on. shared[i] is set for tokens that are the stub's
 * own text (similar_leave_out), which never count. */
typedef struct {
    int *kind;
    int *line;
    unsigned char *shared;
    int n;
    int own;                /* tokens not shared with the stub */
} SimilarTokens;

/* Tokenises text (len bytes; any bytes: a student's). Returns 0, or -1 out of memory. */
int similar_tokenize(const char *text, size_t len, SimilarTokens *t);
void similar_free(SimilarTokens *t);

/* Marks the tokens of t that lie in a run of at least SIMILAR_MIN_RUN tokens also found in
 * stub (the starting code every student was given), so only what a student wrote is compared.
 * Returns 0, or -1 out of memory (t then unchanged). */
int similar_leave_out(SimilarTokens *t, const SimilarTokens *stub);

typedef struct {
    int a_first, a_last, b_first, b_last;   /* lines, 1-based, inclusive */
    int tokens;
} SimilarRun;

typedef struct {
    double score;           /* 2 * matched / (a.own + b.own), 0..1; 0 when either has no own tokens */
    int matched;            /* tokens of a in common runs (as many of b) */
    int nruns;
    SimilarRun *runs;       /* in a's order; malloc'd */
} SimilarResult;

/* Greedy string tiling of a's and b's own tokens: the longest common runs first, each token in
 * at most one run, runs of at least SIMILAR_MIN_RUN tokens, in any order in either file (so
 * functions moved around still match). Returns 0, or -1 out of memory. */
int similar_compare(const SimilarTokens *a, const SimilarTokens *b, SimilarResult *r);
void similar_result_free(SimilarResult *r);

#endif
