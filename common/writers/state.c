/* state.c — state files: named arrays in a versioned, checksummed, little-endian container.
 * flipkit common/writers/: checkpoints, golden test cases and the grader. The reader trusts
 * nothing: counts are checked against the bytes left in the file before anything is allocated. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* fileno, fstat, fsync */
#endif
#include "state.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "atomic.h"
#include "fileerr.h"

#define STATE_MAGIC "FLIPKIT\0"   /* 8 bytes with the NUL */
#define STATE_HEAD_BYTES 16       /* magic, version, section count */
#define STATE_SECTION_BYTES 32    /* tag, type, reserved, count */
#define STATE_CHECKSUM_BYTES 8
#define STATE_CHUNK 65536         /* bytes per buffered write */

#define FNV_OFFSET 14695981039346656037ull
#define FNV_PRIME 1099511628211ull

/* Bytes per element, or 0 for a type this version does not know. */
static size_t state_type_size(uint32_t type)
{
    switch (type) {
    case STATE_I8: case STATE_U8: return 1;
    case STATE_F32: case STATE_I32: return 4;
    case STATE_F64: return 8;
    default: return 0;
    }
}

static uint64_t state_fnv(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= FNV_PRIME;
    }
    return h;
}

/* Little-endian encoding by shifts, so the same code is right on any host. */
static void state_put_le(unsigned char *p, uint64_t v, size_t nbytes)
{
    for (size_t i = 0; i < nbytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t state_get_le(const unsigned char *p, size_t nbytes)
{
    uint64_t v = 0;
    for (size_t i = nbytes; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* Converts n elements between host order and little-endian in place. A byte reversal (or
 * nothing, on little-endian hosts) is its own inverse, so reading and writing share it. */
static void state_swap_le(unsigned char *p, size_t esize, size_t n)
{
    if (esize == 1)
        return;
    for (size_t i = 0; i < n; i++, p += esize) {
        uint64_t v;
        if (esize == 4) {
            uint32_t u;
            memcpy(&u, p, sizeof u);
            v = u;
        } else {
            memcpy(&v, p, sizeof v);
        }
        state_put_le(p, v, esize);
    }
}

/* ---- the in-memory container --------------------------------------------------------- */

void state_init(StateFile *sf)
{
    *sf = (StateFile){ 0 };
}

void state_free(StateFile *sf)
{
    for (size_t i = 0; i < sf->nsections; i++)
        free(sf->sections[i].data);
    free(sf->sections);
    state_init(sf);
}

static StateSection *state_lookup(const StateFile *sf, const char *tag)
{
    for (size_t i = 0; i < sf->nsections; i++)
        if (strncmp(sf->sections[i].tag, tag, STATE_TAG_LEN) == 0)
            return &sf->sections[i];
    return NULL;
}

static int state_grow(StateFile *sf)
{
    if (sf->nsections < sf->capacity)
        return 0;
    size_t cap = sf->capacity ? sf->capacity * 2 : 8;
    if (cap > SIZE_MAX / sizeof(StateSection))
        return -1;
    StateSection *s = realloc(sf->sections, cap * sizeof *s);
    if (!s)
        return -1;
    sf->sections = s;
    sf->capacity = cap;
    return 0;
}

/* Tags are 1 to 15 printable ASCII characters, so the 16-byte field always keeps a
 * terminating NUL and a reader's message can quote a tag on one line. */
static int state_tag_ok(const char *tag)
{
    if (!tag || !tag[0] || strlen(tag) >= STATE_TAG_LEN)
        return 0;
    for (const char *c = tag; *c; c++)
        if (*c < 0x20 || *c > 0x7e)
            return 0;
    return 1;
}

/* Takes ownership of data (malloc'd, at least one byte even for count 0, so that
 * state_find can return non-NULL for an empty section). */
static int state_put(StateFile *sf, const char *tag, uint32_t type, void *data, uint64_t count)
{
    StateSection *s = state_lookup(sf, tag);
    if (!s) {
        if (state_grow(sf) != 0)
            return -1;
        s = &sf->sections[sf->nsections++];
        memset(s->tag, 0, sizeof s->tag);
        memcpy(s->tag, tag, strlen(tag));
    } else {
        free(s->data);
    }
    s->type = type;
    s->count = count;
    s->data = data;
    return 0;
}

int state_add(StateFile *sf, const char *tag, uint32_t type, const void *data, uint64_t count)
{
    size_t esize = state_type_size(type);
    if (!state_tag_ok(tag) || esize == 0 || count > SIZE_MAX / esize || (count && !data))
        return -1;
    size_t bytes = (size_t)count * esize;
    /* Copy before touching the old section: data may point into it. */
    void *copy = malloc(bytes ? bytes : 1);
    if (!copy)
        return -1;
    if (bytes)
        memcpy(copy, data, bytes);
    if (state_put(sf, tag, type, copy, count) != 0) {
        free(copy);
        return -1;
    }
    return 0;
}

const void *state_find(const StateFile *sf, const char *tag, uint32_t type, uint64_t *count)
{
    const StateSection *s = tag ? state_lookup(sf, tag) : NULL;
    if (!s || s->type != type) {
        if (count)
            *count = 0;
        return NULL;
    }
    if (count)
        *count = s->count;
    return s->data;
}

/* ---- writing ------------------------------------------------------------------------- */

typedef struct {
    FILE *f;
    uint64_t hash;
    int failed;
    unsigned char buf[STATE_CHUNK];
} StateWriter;

static void state_emit(StateWriter *w, const unsigned char *p, size_t n)
{
    w->hash = state_fnv(w->hash, p, n);
    if (!w->failed && fwrite(p, 1, n, w->f) != n)
        w->failed = 1;
}

static void state_emit_section(StateWriter *w, const StateSection *s)
{
    unsigned char head[STATE_SECTION_BYTES] = { 0 };
    size_t esize = state_type_size(s->type);
    memcpy(head, s->tag, strnlen(s->tag, STATE_TAG_LEN - 1));
    state_put_le(head + 16, s->type, 4);
    state_put_le(head + 24, s->count, 8);
    state_emit(w, head, sizeof head);

    const unsigned char *src = s->data;
    size_t per = STATE_CHUNK / esize;
    for (uint64_t i = 0; i < s->count; i += per) {
        size_t n = s->count - i < per ? (size_t)(s->count - i) : per;
        memcpy(w->buf, src + (size_t)i * esize, n * esize);
        state_swap_le(w->buf, esize, n);
        state_emit(w, w->buf, n * esize);
    }
}

/* Sections are checked before the file is created, so a bad one leaves nothing behind. */
static int state_check_sections(const StateFile *sf, const char *path, char *err,
                                size_t errlen)
{
    for (size_t i = 0; i < sf->nsections; i++) {
        const StateSection *s = &sf->sections[i];
        size_t esize = state_type_size(s->type);
        if (esize == 0 || s->count > SIZE_MAX / esize || (s->count && !s->data)) {
            fileerr_set(err, errlen, path, "section %zu (\"%.*s\") is invalid", i + 1,
                         STATE_TAG_LEN - 1, s->tag);
            return -1;
        }
    }
    return 0;
}

static int state_write_body(const StateFile *sf, FILE *f)
{
    StateWriter *w = malloc(sizeof *w);
    if (!w) {
        errno = ENOMEM;
        return -1;
    }
    w->f = f;
    w->hash = FNV_OFFSET;
    w->failed = 0;
    unsigned char head[STATE_HEAD_BYTES];
    memcpy(head, STATE_MAGIC, 8);
    state_put_le(head + 8, STATE_VERSION, 4);
    state_put_le(head + 12, sf->nsections, 4);
    state_emit(w, head, sizeof head);
    for (size_t i = 0; i < sf->nsections; i++)
        state_emit_section(w, &sf->sections[i]);
    unsigned char sum[STATE_CHECKSUM_BYTES];
    state_put_le(sum, w->hash, sizeof sum);
    if (!w->failed && fwrite(sum, 1, sizeof sum, f) != sizeof sum)
        w->failed = 1;
    int rc = w->failed ? -1 : 0;
    free(w);
    return rc;
}

static int state_body(FILE *f, const void *sf, char *why, size_t whylen)
{
    (void)why, (void)whylen;
    return state_write_body(sf, f);
}

int state_write(const StateFile *sf, const char *path, char *err, size_t errlen)
{
    if (sf->nsections > UINT32_MAX) {
        fileerr_set(err, errlen, path, "too many sections");
        return -1;
    }
    if (state_check_sections(sf, path, err, errlen) != 0)
        return -1;
    /* Durable, unlike PLY frames: a checkpoint is written rarely and is what a resumed run
     * depends on, so it should survive a power cut as well as a crash. */
    char why[600];
    if (atomic_write(path, true, state_body, sf, why, sizeof why) == 0)
        return 0;
    fileerr_set(err, errlen, path, "%s", why);
    return -1;
}

/* ---- reading ------------------------------------------------------------------------- */

typedef struct {
    const char *path;
    char *err;
    size_t errlen;
    FILE *f;
    uint64_t size;      /* file size */
    uint64_t pos;       /* bytes read so far */
    uint64_t hash;
} StateReader;

/* Reads exactly n bytes into p and hashes them; 0 if the file ended or failed first. */
static int state_take(StateReader *r, void *p, size_t n)
{
    if (fread(p, 1, n, r->f) != n)
        return 0;
    r->hash = state_fnv(r->hash, p, n);
    r->pos += n;
    return 1;
}

/* Bytes left for sections, i.e. before the trailing checksum. */
static uint64_t state_left(const StateReader *r)
{
    uint64_t end = r->size - STATE_CHECKSUM_BYTES;
    return r->pos < end ? end - r->pos : 0;
}

static int state_read_head(StateReader *r, uint32_t *nsections)
{
    unsigned char head[STATE_HEAD_BYTES] = { 0 };
    size_t got = fread(head, 1, sizeof head, r->f);
    if (got == 0 || memcmp(head, STATE_MAGIC, got < 8 ? got : 8) != 0) {
        fileerr_set(r->err, r->errlen, r->path, "not a flipkit state file (bad magic)");
        return -1;
    }
    if (got < sizeof head || r->size < STATE_HEAD_BYTES + STATE_CHECKSUM_BYTES) {
        fileerr_set(r->err, r->errlen, r->path, "truncated in the file header");
        return -1;
    }
    r->hash = state_fnv(r->hash, head, sizeof head);
    r->pos = sizeof head;
    uint32_t version = (uint32_t)state_get_le(head + 8, 4);
    if (version > STATE_VERSION) {
        fileerr_set(r->err, r->errlen, r->path, "version %u is newer than this build reads (%u)",
                     (unsigned)version, (unsigned)STATE_VERSION);
        return -1;
    }
    if (version != STATE_VERSION) {
        fileerr_set(r->err, r->errlen, r->path, "unknown version %u (this build reads %u)",
                     (unsigned)version, (unsigned)STATE_VERSION);
        return -1;
    }
    *nsections = (uint32_t)state_get_le(head + 12, 4);
    return 0;
}

static int state_truncated(StateReader *r, uint32_t index, const char *tag)
{
    if (tag)
        fileerr_set(r->err, r->errlen, r->path, "truncated in section %u (\"%s\")",
                     (unsigned)index, tag);
    else
        fileerr_set(r->err, r->errlen, r->path, "truncated in section %u", (unsigned)index);
    return -1;
}

/* Reads the 32-byte section header into tag/type/count and checks what it can. */
static int state_read_section_head(StateReader *r, uint32_t index, char *tag, uint32_t *type,
                                   uint64_t *count)
{
    unsigned char head[STATE_SECTION_BYTES];
    if (state_left(r) < sizeof head || !state_take(r, head, sizeof head))
        return state_truncated(r, index, NULL);
    if (memchr(head, '\0', STATE_TAG_LEN) == NULL || !state_tag_ok((const char *)head)) {
        fileerr_set(r->err, r->errlen, r->path, "section %u has a malformed tag",
                     (unsigned)index);
        return -1;
    }
    memcpy(tag, head, STATE_TAG_LEN);
    /* reserved (head + 20) is not checked: the checksum already covers a damaged one. */
    *type = (uint32_t)state_get_le(head + 16, 4);
    *count = state_get_le(head + 24, 8);
    if (state_type_size(*type) == 0) {
        fileerr_set(r->err, r->errlen, r->path, "section %u (\"%s\") has unknown type %u",
                     (unsigned)index, tag, (unsigned)*type);
        return -1;
    }
    return 0;
}

static int state_read_section(StateReader *r, StateFile *out, uint32_t index)
{
    char tag[STATE_TAG_LEN];
    uint32_t type;
    uint64_t count;
    if (state_read_section_head(r, index, tag, &type, &count) != 0)
        return -1;
    if (state_lookup(out, tag)) {
        fileerr_set(r->err, r->errlen, r->path, "section %u: tag \"%s\" appears twice",
                     (unsigned)index, tag);
        return -1;
    }
    /* Never trust count: it must fit in what is left of the file before any malloc. */
    size_t esize = state_type_size(type);
    if (count > state_left(r) / esize)
        return state_truncated(r, index, tag);
    size_t bytes = (size_t)count * esize;
    unsigned char *data = malloc(bytes ? bytes : 1);
    if (!data) {
        fileerr_set(r->err, r->errlen, r->path, "out of memory for section %u (\"%s\")",
                     (unsigned)index, tag);
        return -1;
    }
    /* The size was checked, so a short read means the file shrank or a read error. */
    if (!state_take(r, data, bytes)) {
        free(data);
        return state_truncated(r, index, tag);
    }
    state_swap_le(data, esize, (size_t)count);
    if (state_put(out, tag, type, data, count) != 0) {
        free(data);
        fileerr_set(r->err, r->errlen, r->path, "out of memory");
        return -1;
    }
    return 0;
}

static int state_read_checksum(StateReader *r)
{
    if (r->pos + STATE_CHECKSUM_BYTES != r->size) {
        fileerr_set(r->err, r->errlen, r->path, "%llu unexpected bytes after the last section",
                     (unsigned long long)(r->size - r->pos - STATE_CHECKSUM_BYTES));
        return -1;
    }
    unsigned char sum[STATE_CHECKSUM_BYTES];
    if (fread(sum, 1, sizeof sum, r->f) != sizeof sum) {
        fileerr_set(r->err, r->errlen, r->path, "truncated in the checksum");
        return -1;
    }
    if (state_get_le(sum, sizeof sum) != r->hash) {
        fileerr_set(r->err, r->errlen, r->path, "checksum mismatch (file is corrupt)");
        return -1;
    }
    return 0;
}

static int state_read_all(StateReader *r, StateFile *out)
{
    struct stat st;
    if (fstat(fileno(r->f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fileerr_set(r->err, r->errlen, r->path, "not a regular file");
        return -1;
    }
    r->size = (uint64_t)st.st_size;
    uint32_t nsections;
    if (state_read_head(r, &nsections) != 0)
        return -1;
    for (uint32_t i = 0; i < nsections; i++)
        if (state_read_section(r, out, i + 1) != 0)
            return -1;
    return state_read_checksum(r);
}

/* On error sf is left as it was. */
int state_read(StateFile *sf, const char *path, char *err, size_t errlen)
{
    StateReader r = { .path = path, .err = err, .errlen = errlen, .hash = FNV_OFFSET };
    r.f = fopen(path, "rb");
    if (!r.f) {
        fileerr_set(err, errlen, path, "cannot open: %s", strerror(errno));
        return -1;
    }
    StateFile out;
    state_init(&out);
    int rc = state_read_all(&r, &out);
    fclose(r.f);
    if (rc != 0) {
        state_free(&out);
        return -1;
    }
    state_free(sf);
    *sf = out;
    return 0;
}
