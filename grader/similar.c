/* similar.c — token streams of C files and their longest common runs (greedy string tiling).
 * flipkit grader/: what the class report's similarity is made of; the text is a student's, so
 * the tokenizer reads any bytes and never trusts a comment or string to end. */
#include "similar.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { KIND_IDENT = 1, KIND_NUMBER = 2, KIND_STRING = 3, KIND_FIXED = 16 };

static const char *const similar_keywords[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while", "_Bool", "bool",
};

/* Operators longest first, so "<<=" is one token and not "<<" "=". */
static const char *const similar_ops[] = {
    "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
    "+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=",
};

/* A fixed token's kind: its text hashed (FNV-1a) above the classes' kinds. */
static int similar_fixed_kind(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return KIND_FIXED + (int)(h % 1000000007u);
}

static bool similar_is_ident_start(unsigned char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

static bool similar_is_ident(unsigned char c)
{
    return similar_is_ident_start(c) || (c >= '0' && c <= '9');
}

static int similar_push(SimilarTokens *t, int *cap, int kind, int line)
{
    if (t->n == *cap) {
        int ncap = *cap ? 2 * *cap : 256;
        int *k = realloc(t->kind, (size_t)ncap * sizeof *k);
        if (!k)
            return -1;
        t->kind = k;
        int *l = realloc(t->line, (size_t)ncap * sizeof *l);
        if (!l)
            return -1;
        t->line = l;
        *cap = ncap;
    }
    t->kind[t->n] = kind;
    t->line[t->n] = line;
    t->n++;
    return 0;
}

/* The end of a comment, string, or preprocessor line starting at i (whatever the bytes: an
 * unterminated one ends the text); *line counts the newlines passed. */
static size_t similar_skip(const char *s, size_t len, size_t i, int *line)
{
    if (s[i] == '/' && i + 1 < len && s[i + 1] == '/') {
        while (i < len && s[i] != '\n')
            i++;
        return i;
    }
    if (s[i] == '/' && i + 1 < len && s[i + 1] == '*') {
        for (i += 2; i < len && !(s[i] == '*' && i + 1 < len && s[i + 1] == '/'); i++)
            *line += s[i] == '\n';
        return i + 2 <= len ? i + 2 : len;
    }
    if (s[i] == '#') {                     /* to the end of the line, continuations included */
        for (; i < len && s[i] != '\n'; i++)
            if (s[i] == '\\' && i + 1 < len && s[i + 1] == '\n') {
                i++;
                (*line)++;
            }
        return i;
    }
    char q = s[i];                        /* a string or character literal */
    for (i++; i < len && s[i] != q && s[i] != '\n'; i++)
        if (s[i] == '\\' && i + 1 < len && s[i + 1] != '\n')
            i++;
    return i < len && s[i] == q ? i + 1 : i;
}

static bool similar_keyword(const char *s, size_t n)
{
    for (size_t k = 0; k < sizeof similar_keywords / sizeof *similar_keywords; k++)
        if (strlen(similar_keywords[k]) == n && memcmp(similar_keywords[k], s, n) == 0)
            return true;
    return false;
}

/* The length of the operator at s (at least 1: any other byte is a token of its own). */
static size_t similar_op_len(const char *s, size_t left)
{
    for (size_t k = 0; k < sizeof similar_ops / sizeof *similar_ops; k++) {
        size_t n = strlen(similar_ops[k]);
        if (n <= left && memcmp(similar_ops[k], s, n) == 0)
            return n;
    }
    return 1;
}

int similar_tokenize(const char *s, size_t len, SimilarTokens *t)
{
    memset(t, 0, sizeof *t);
    int cap = 0, line = 1;
    bool line_start = true;
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n') {
            line++;
            line_start = true;
            i++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            i++;
            continue;
        }
        int kind, at = line;
        if ((c == '#' && line_start) || (c == '/' && i + 1 < len && (s[i + 1] == '/' || s[i + 1] == '*'))) {
            i = similar_skip(s, len, i, &line);
            continue;
        }
        line_start = false;
        if (c == '"' || c == '\'') {
            i = similar_skip(s, len, i, &line);
            kind = KIND_STRING;
        } else if (similar_is_ident_start(c)) {
            size_t b = i;
            while (i < len && similar_is_ident((unsigned char)s[i]))
                i++;
            kind = similar_keyword(s + b, i - b) ? similar_fixed_kind(s + b, i - b) : KIND_IDENT;
        } else if ((c >= '0' && c <= '9') || (c == '.' && i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '9')) {
            while (i < len && (similar_is_ident((unsigned char)s[i]) || s[i] == '.' ||
                               ((s[i] == '+' || s[i] == '-') && (s[i - 1] == 'e' || s[i - 1] == 'E'))))
                i++;
            kind = KIND_NUMBER;
        } else {
            size_t n = similar_op_len(s + i, len - i);
            kind = similar_fixed_kind(s + i, n);
            i += n;
        }
        if (similar_push(t, &cap, kind, at) != 0) {
            similar_free(t);
            return -1;
        }
    }
    t->shared = calloc((size_t)t->n + 1, 1);
    if (!t->shared) {
        similar_free(t);
        return -1;
    }
    t->own = t->n;
    return 0;
}

void similar_free(SimilarTokens *t)
{
    free(t->kind);
    free(t->line);
    free(t->shared);
    memset(t, 0, sizeof *t);
}

/* The common run at a[i], b[j] over tokens neither marked nor shared. */
static int similar_run(const SimilarTokens *a, const unsigned char *ma, int i,
                       const SimilarTokens *b, const unsigned char *mb, int j)
{
    int k = 0;
    while (i + k < a->n && j + k < b->n && a->kind[i + k] == b->kind[j + k] && !ma[i + k] &&
           !mb[j + k])
        k++;
    return k;
}

typedef struct {
    int i, j, len;
} SimilarTile;

/* Greedy string tiling (Wise, 1993): each round finds the longest runs left and tiles those
 * that do not overlap one tiled already, until no run of min_run is left. ma and mb start as
 * the tokens that may not take part (1) and end with every tiled token marked too. tile(ctx)
 * is told of each tile. Returns 0, or -1 out of memory. */
static int similar_tile(const SimilarTokens *a, unsigned char *ma, const SimilarTokens *b,
                        unsigned char *mb, int min_run,
                        int (*tile)(void *ctx, int i, int j, int len), void *ctx)
{
    SimilarTile *found = NULL;
    int cap = 0, best;
    do {
        int n = 0;
        best = min_run;
        for (int i = 0; i < a->n; i++) {
            if (ma[i])
                continue;
            for (int j = 0; j < b->n; j++) {
                if (mb[j] || a->kind[i] != b->kind[j])
                    continue;
                int k = similar_run(a, ma, i, b, mb, j);
                if (k < best)
                    continue;
                if (k > best) {
                    best = k;
                    n = 0;
                }
                if (n == cap) {
                    cap = cap ? 2 * cap : 16;
                    SimilarTile *f = realloc(found, (size_t)cap * sizeof *f);
                    if (!f) {
                        free(found);
                        return -1;
                    }
                    found = f;
                }
                found[n++] = (SimilarTile){ i, j, k };
            }
        }
        for (int t = 0; t < n; t++) {
            const SimilarTile *f = &found[t];
            if (similar_run(a, ma, f->i, b, mb, f->j) < f->len)
                continue;                   /* overlaps a tile of this round */
            memset(ma + f->i, 1, (size_t)f->len);
            memset(mb + f->j, 1, (size_t)f->len);
            if (tile && tile(ctx, f->i, f->j, f->len) != 0) {
                free(found);
                return -1;
            }
        }
        if (n == 0)
            break;
    } while (best > min_run);
    free(found);
    return 0;
}

int similar_leave_out(SimilarTokens *t, const SimilarTokens *stub)
{
    unsigned char *ms = calloc((size_t)stub->n + 1, 1);
    unsigned char *mt = malloc((size_t)t->n + 1);
    int rc = -1;
    if (ms && mt) {
        memcpy(mt, t->shared, (size_t)t->n);
        rc = similar_tile(t, mt, stub, ms, SIMILAR_MIN_RUN, NULL, NULL);
        if (rc == 0)
            memcpy(t->shared, mt, (size_t)t->n);   /* every token tiled against the stub is its text */
    }
    free(ms);
    free(mt);
    t->own = 0;
    for (int i = 0; i < t->n; i++)
        t->own += !t->shared[i];
    return rc;
}

typedef struct {
    const SimilarTokens *a, *b;
    SimilarResult *r;
    int cap;
} SimilarCtx;

static int similar_add_run(void *vctx, int i, int j, int len)
{
    SimilarCtx *c = vctx;
    SimilarResult *r = c->r;
    if (r->nruns == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 8;
        SimilarRun *runs = realloc(r->runs, (size_t)c->cap * sizeof *runs);
        if (!runs)
            return -1;
        r->runs = runs;
    }
    r->runs[r->nruns++] = (SimilarRun){ c->a->line[i], c->a->line[i + len - 1], c->b->line[j],
                                        c->b->line[j + len - 1], len };
    r->matched += len;
    return 0;
}

static int similar_by_a(const void *x, const void *y)
{
    const SimilarRun *p = x, *q = y;
    return p->a_first != q->a_first ? (p->a_first > q->a_first) - (p->a_first < q->a_first)
                                    : (p->b_first > q->b_first) - (p->b_first < q->b_first);
}

int similar_compare(const SimilarTokens *a, const SimilarTokens *b, SimilarResult *r)
{
    memset(r, 0, sizeof *r);
    unsigned char *ma = malloc((size_t)a->n + 1), *mb = malloc((size_t)b->n + 1);
    int rc = -1;
    if (ma && mb) {
        memcpy(ma, a->shared, (size_t)a->n);
        memcpy(mb, b->shared, (size_t)b->n);
        SimilarCtx ctx = { a, b, r, 0 };
        rc = similar_tile(a, ma, b, mb, SIMILAR_MIN_RUN, similar_add_run, &ctx);
    }
    free(ma);
    free(mb);
    if (rc != 0) {
        similar_result_free(r);
        return -1;
    }
    qsort(r->runs, (size_t)r->nruns, sizeof *r->runs, similar_by_a);
    r->score = a->own > 0 && b->own > 0 ? 2.0 * r->matched / (a->own + b->own) : 0.0;
    return 0;
}

void similar_result_free(SimilarResult *r)
{
    free(r->runs);
    memset(r, 0, sizeof *r);
}
