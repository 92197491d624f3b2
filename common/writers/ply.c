/* ply.c — particles as binary little-endian PLY: an atomic writer and a strict reader.
 * flipkit common/writers/: frames for Blender, MeshLab, ParaView and the grader. The reader trusts
 * nothing in the file: every count is checked against the file size before it is used. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* fileno, fstat, fseeko */
#endif
#include "ply.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "atomic.h"
#include "fileerr.h"

/*
 * What the reader accepts (and why):
 *  - "ply", then "format binary_little_endian 1.0" before any element; ascii and big-endian
 *    files are rejected by name, so the message says what to re-export as.
 *  - "comment" and "obj_info" lines anywhere; lines may end in "\r\n".
 *  - exactly one "vertex" element, with scalar properties of the types below, converted to
 *    float. x y z are required; vx vy vz are optional (0 when absent); other properties
 *    (colours, normals, ...) are skipped. A list property in vertex is rejected, since a
 *    record would no longer have a fixed size.
 *  - elements before vertex are skipped if all their properties are scalar (a list there is
 *    rejected: the reader would have to parse it just to find where the vertices start);
 *    elements after vertex, lists or not (e.g. MeshLab's "face"), are ignored unread.
 *  - a header of at most PLY_MAX_HEADER bytes, lines of at most PLY_MAX_LINE bytes.
 * Bytes after the vertex data are ignored.
 */

#define PLY_MAX_HEADER 65536
#define PLY_MAX_LINE 1024
#define PLY_MAX_TOKENS 8
#define PLY_WRITE_CHUNK 256     /* particles per fwrite: 6 KiB on the stack */
#define PLY_READ_BYTES 65536    /* read buffer; whole records, at least one */

static const char ply_header_fmt[] =
    "ply\n"
    "format binary_little_endian 1.0\n"
    "comment flipkit particles\n"
    "element vertex %zu\n"
    "property float x\n"
    "property float y\n"
    "property float z\n"
    "property float vx\n"
    "property float vy\n"
    "property float vz\n"
    "end_header\n";

/* Property types; the enum value is only a name, ply_type_size gives the width. */
enum { PT_NONE, PT_I8, PT_U8, PT_I16, PT_U16, PT_I32, PT_U32, PT_F32, PT_F64 };

static const struct {
    const char *name;
    int type;
} ply_types[] = {
    { "char", PT_I8 },    { "int8", PT_I8 },     { "uchar", PT_U8 },    { "uint8", PT_U8 },
    { "short", PT_I16 },  { "int16", PT_I16 },   { "ushort", PT_U16 },  { "uint16", PT_U16 },
    { "int", PT_I32 },    { "int32", PT_I32 },   { "uint", PT_U32 },    { "uint32", PT_U32 },
    { "float", PT_F32 },  { "float32", PT_F32 }, { "double", PT_F64 },  { "float64", PT_F64 },
};

/* The six fields a particle needs, in the order they are stored in a Particles record. */
static const char *const ply_fields[6] = { "x", "y", "z", "vx", "vy", "vz" };

/* ---- writing ------------------------------------------------------------------------- */

/* Byte by byte, so the file is little-endian whatever the host is. */
static unsigned char *ply_put_f32(unsigned char *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    p[0] = (unsigned char)u;
    p[1] = (unsigned char)(u >> 8);
    p[2] = (unsigned char)(u >> 16);
    p[3] = (unsigned char)(u >> 24);
    return p + 4;
}

static int ply_write_body(FILE *f, const Particles *ps)
{
    unsigned char buf[PLY_WRITE_CHUNK * 24];
    if (fprintf(f, ply_header_fmt, ps->count) < 0)
        return -1;
    for (size_t i = 0; i < ps->count; i += PLY_WRITE_CHUNK) {
        size_t n = ps->count - i < PLY_WRITE_CHUNK ? ps->count - i : PLY_WRITE_CHUNK;
        unsigned char *p = buf;
        for (size_t k = i; k < i + n; k++) {
            p = ply_put_f32(p, ps->pos[k].x);
            p = ply_put_f32(p, ps->pos[k].y);
            p = ply_put_f32(p, ps->pos[k].z);
            p = ply_put_f32(p, ps->vel[k].x);
            p = ply_put_f32(p, ps->vel[k].y);
            p = ply_put_f32(p, ps->vel[k].z);
        }
        if (fwrite(buf, 1, (size_t)(p - buf), f) != (size_t)(p - buf))
            return -1;
    }
    return 0;
}

static int ply_body(FILE *f, const void *ps, char *why, size_t whylen)
{
    (void)why, (void)whylen;
    return ply_write_body(f, ps);
}

/* Not durable, unlike state_write: a frame is written every few milliseconds and can be
 * regenerated, so it is kept atomic against a crashed process but not against power loss. */
int ply_write_particles(const char *path, const Particles *ps, char *err, size_t errlen)
{
    char why[600];
    if (atomic_write(path, false, ply_body, ps, why, sizeof why) == 0)
        return 0;
    fileerr_set(err, errlen, path, "%s", why);
    return -1;
}

/* ---- reading: the header ------------------------------------------------------------- */

typedef struct {
    const char *path;
    char *err;
    size_t errlen;
    FILE *f;
    unsigned line;          /* current header line, from 1, for messages */
    uint64_t file_size;
    size_t header_bytes;    /* bytes consumed so far */
    int saw_format;
    int where;              /* which element the property lines belong to, see below */
    char elem[64];          /* its name, for messages */
    uint64_t elem_count, elem_size;
    uint64_t skip_bytes;    /* data of the elements before vertex */
    uint64_t nvertex;
    uint64_t stride;        /* bytes per vertex record */
    int field_type[6];      /* x y z vx vy vz: PT_NONE when absent */
    uint64_t field_off[6];
} PlyReader;

enum { IN_NONE, IN_BEFORE, IN_VERTEX, IN_AFTER };

static int ply_type_size(int type)
{
    switch (type) {
    case PT_I8: case PT_U8: return 1;
    case PT_I16: case PT_U16: return 2;
    case PT_I32: case PT_U32: case PT_F32: return 4;
    case PT_F64: return 8;
    default: return 0;
    }
}

static int ply_type_lookup(const char *name)
{
    for (size_t i = 0; i < sizeof ply_types / sizeof ply_types[0]; i++)
        if (strcmp(ply_types[i].name, name) == 0)
            return ply_types[i].type;
    return PT_NONE;
}

/* Reads one header line without its "\n". Returns 1 with a line, 0 on error (err set). */
static int ply_read_line(PlyReader *r, char *line)
{
    size_t n = 0;
    r->line++;
    for (;;) {
        int c = getc(r->f);
        if (c == EOF) {
            fileerr_set(r->err, r->errlen, r->path, ferror(r->f) ? "read error in header"
                       : r->header_bytes == 0 ? "empty file"
                       : "truncated header (no end_header line)");
            return 0;
        }
        if (++r->header_bytes > PLY_MAX_HEADER) {
            fileerr_set(r->err, r->errlen, r->path, "no end_header in the first %d bytes",
                       PLY_MAX_HEADER);
            return 0;
        }
        if (c == '\n')
            break;
        if (c == '\0' || n + 1 >= PLY_MAX_LINE) {
            fileerr_set(r->err, r->errlen, r->path, "header line %u is %s", r->line,
                       c == '\0' ? "not text" : "too long");
            return 0;
        }
        line[n++] = (char)c;
    }
    line[n] = '\0';
    return 1;
}

/* Splits on blanks in place; returns the token count, or PLY_MAX_TOKENS + 1 if too many. */
static int ply_tokenize(char *line, char **tok)
{
    int n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r')
            p++;
        if (!*p)
            return n;
        if (n == PLY_MAX_TOKENS)
            return n + 1;
        tok[n++] = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r')
            p++;
        if (*p)
            *p++ = '\0';
    }
}

/* Decimal digits only: no sign, no spaces, no overflow. */
static int ply_parse_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

static int ply_bad_line(PlyReader *r, const char *why)
{
    fileerr_set(r->err, r->errlen, r->path, "header line %u: %s", r->line, why);
    return -1;
}

static int ply_on_format(PlyReader *r, char **tok, int ntok)
{
    if (ntok != 3 || r->saw_format || r->where != IN_NONE)
        return ply_bad_line(r, "malformed or misplaced format line");
    if (strcmp(tok[1], "binary_little_endian") != 0) {
        fileerr_set(r->err, r->errlen, r->path,
                   "format is %.40s; only binary_little_endian is supported", tok[1]);
        return -1;
    }
    if (strcmp(tok[2], "1.0") != 0)
        return ply_bad_line(r, "only PLY version 1.0 is supported");
    r->saw_format = 1;
    return 0;
}

/* Ends the current element: a skipped element before vertex adds its bytes to skip. */
static int ply_close_element(PlyReader *r)
{
    if (r->where != IN_BEFORE)
        return 0;
    if (r->elem_size && r->elem_count > (UINT64_MAX - r->skip_bytes) / r->elem_size) {
        fileerr_set(r->err, r->errlen, r->path, "element %s is impossibly large", r->elem);
        return -1;
    }
    r->skip_bytes += r->elem_count * r->elem_size;
    return 0;
}

static int ply_on_element(PlyReader *r, char **tok, int ntok)
{
    uint64_t count;
    if (!r->saw_format)
        return ply_bad_line(r, "element before the format line");
    if (ntok != 3 || ply_parse_u64(tok[2], &count) != 0)
        return ply_bad_line(r, "expected 'element <name> <count>'");
    if (ply_close_element(r) != 0)
        return -1;
    snprintf(r->elem, sizeof r->elem, "%s", tok[1]);
    r->elem_count = count;
    r->elem_size = 0;
    if (strcmp(tok[1], "vertex") == 0) {
        if (r->where == IN_VERTEX || r->where == IN_AFTER)
            return ply_bad_line(r, "a second vertex element");
        r->where = IN_VERTEX;
        r->nvertex = count;
    } else {
        r->where = r->where == IN_NONE || r->where == IN_BEFORE ? IN_BEFORE : IN_AFTER;
    }
    return 0;
}

static int ply_on_list(PlyReader *r, char **tok, int ntok)
{
    if (ntok != 5)
        return ply_bad_line(r, "expected 'property list <count type> <item type> <name>'");
    if (r->where == IN_AFTER)
        return 0; /* never read, so its size does not matter */
    fileerr_set(r->err, r->errlen, r->path,
               "element %s has a list property (%.40s); %s", r->elem, tok[4],
               r->where == IN_VERTEX ? "vertex properties must be scalars"
                                     : "lists are only allowed in elements after vertex");
    return -1;
}

static int ply_on_vertex_property(PlyReader *r, const char *name, int type)
{
    for (int k = 0; k < 6; k++) {
        if (strcmp(name, ply_fields[k]) != 0)
            continue;
        if (r->field_type[k] != PT_NONE)
            return ply_bad_line(r, "a vertex property is declared twice");
        r->field_type[k] = type;
        r->field_off[k] = r->stride;
    }
    r->stride += (uint64_t)ply_type_size(type);
    return 0;
}

static int ply_on_property(PlyReader *r, char **tok, int ntok)
{
    if (r->where == IN_NONE)
        return ply_bad_line(r, "property before any element");
    if (ntok >= 2 && strcmp(tok[1], "list") == 0)
        return ply_on_list(r, tok, ntok);
    if (ntok != 3)
        return ply_bad_line(r, "expected 'property <type> <name>'");
    int type = ply_type_lookup(tok[1]);
    if (type == PT_NONE) {
        fileerr_set(r->err, r->errlen, r->path, "header line %u: unknown property type %.40s",
                   r->line, tok[1]);
        return -1;
    }
    if (r->where == IN_VERTEX)
        return ply_on_vertex_property(r, tok[2], type);
    r->elem_size += (uint64_t)ply_type_size(type);
    return 0;
}

/* At end_header: everything a particle needs must have been declared. */
static int ply_on_end(PlyReader *r)
{
    if (ply_close_element(r) != 0)
        return -1;
    if (!r->saw_format)
        return ply_bad_line(r, "end_header before the format line");
    if (r->where == IN_NONE || r->where == IN_BEFORE) {
        fileerr_set(r->err, r->errlen, r->path, "no vertex element");
        return -1;
    }
    for (int k = 0; k < 3; k++) {
        if (r->field_type[k] == PT_NONE) {
            fileerr_set(r->err, r->errlen, r->path, "vertex element has no %s property",
                       ply_fields[k]);
            return -1;
        }
    }
    return 0;
}

/* Returns 1 at end_header, 0 for a line handled, -1 on error. */
static int ply_on_line(PlyReader *r, char *line)
{
    char *tok[PLY_MAX_TOKENS];
    if (r->line == 1) {
        if (strcmp(line, "ply") == 0 || strcmp(line, "ply\r") == 0)
            return 0;
        fileerr_set(r->err, r->errlen, r->path, "not a PLY file (first line is not 'ply')");
        return -1;
    }
    int ntok = ply_tokenize(line, tok);
    if (ntok == 0)
        return ply_bad_line(r, "empty line");
    if (strcmp(tok[0], "comment") == 0 || strcmp(tok[0], "obj_info") == 0)
        return 0;
    if (ntok > PLY_MAX_TOKENS)
        return ply_bad_line(r, "too many words");
    if (strcmp(tok[0], "format") == 0)
        return ply_on_format(r, tok, ntok);
    if (strcmp(tok[0], "element") == 0)
        return ply_on_element(r, tok, ntok);
    if (strcmp(tok[0], "property") == 0)
        return ply_on_property(r, tok, ntok);
    if (strcmp(tok[0], "end_header") == 0 && ntok == 1)
        return ply_on_end(r) == 0 ? 1 : -1;
    return ply_bad_line(r, "not a PLY header line");
}

static int ply_read_header(PlyReader *r)
{
    char line[PLY_MAX_LINE];
    for (;;) {
        if (!ply_read_line(r, line))
            return -1;
        int rc = ply_on_line(r, line);
        if (rc != 0)
            return rc > 0 ? 0 : -1;
    }
}

/* ---- reading: the data --------------------------------------------------------------- */

static uint64_t ply_le(const unsigned char *p, int nbytes)
{
    uint64_t v = 0;
    for (int i = nbytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Stores one property as a float; float32 is copied bit for bit so NaNs survive. */
static void ply_store(float *dst, const unsigned char *p, int type)
{
    uint64_t v = ply_le(p, ply_type_size(type));
    switch (type) {
    case PT_I8: *dst = (float)(int8_t)v; break;
    case PT_U8: case PT_U16: case PT_U32: *dst = (float)v; break;
    case PT_I16: *dst = (float)(int16_t)v; break;
    case PT_I32: *dst = (float)(int32_t)v; break;
    case PT_F32: { uint32_t u = (uint32_t)v; memcpy(dst, &u, sizeof u); break; }
    case PT_F64: { double d; memcpy(&d, &v, sizeof d); *dst = (float)d; break; }
    default: *dst = 0.0f; break;
    }
}

static void ply_decode(const PlyReader *r, const unsigned char *rec, Vec3 *pos, Vec3 *vel)
{
    float *dst[6] = { &pos->x, &pos->y, &pos->z, &vel->x, &vel->y, &vel->z };
    for (int k = 0; k < 6; k++) {
        if (r->field_type[k] == PT_NONE)
            *dst[k] = 0.0f;
        else
            ply_store(dst[k], rec + r->field_off[k], r->field_type[k]);
    }
}

/* Checks the file holds everything the header promised, before anything is allocated. */
static int ply_check_size(PlyReader *r)
{
    uint64_t size = r->file_size;
    uint64_t data = size > r->header_bytes ? size - r->header_bytes : 0;
    if (data < r->skip_bytes) {
        fileerr_set(r->err, r->errlen, r->path,
                   "truncated: file ends in the elements before vertex");
        return -1;
    }
    uint64_t holds = (data - r->skip_bytes) / r->stride;
    if (holds < r->nvertex) {
        fileerr_set(r->err, r->errlen, r->path,
                   "truncated: header says %llu vertices, file holds %llu",
                   (unsigned long long)r->nvertex, (unsigned long long)holds);
        return -1;
    }
    /* Bounded by the file size now, but a Vec3 is bigger than a record may be. */
    if (r->nvertex > SIZE_MAX / (2 * sizeof(Vec3))) {
        fileerr_set(r->err, r->errlen, r->path, "too many vertices for this machine");
        return -1;
    }
    return 0;
}

static int ply_read_data(PlyReader *r, Particles *ps)
{
    /* A garbage header can declare thousands of properties, so size the buffer in bytes. */
    size_t chunk = PLY_READ_BYTES / r->stride ? PLY_READ_BYTES / r->stride : 1;
    unsigned char *buf = malloc(chunk * (size_t)r->stride);
    if (!buf || part_reserve(ps, (size_t)r->nvertex) != 0) {
        free(buf);
        fileerr_set(r->err, r->errlen, r->path, "out of memory for %llu particles",
                   (unsigned long long)r->nvertex);
        return -1;
    }
    size_t total = (size_t)r->nvertex;
    for (size_t i = 0; i < total; i += chunk) {
        size_t n = total - i < chunk ? total - i : chunk;
        if (fread(buf, (size_t)r->stride, n, r->f) != n) {
            /* The size was checked, so only a read error or a shrinking file gets here. */
            fileerr_set(r->err, r->errlen, r->path, "read error in vertex data");
            free(buf);
            return -1;
        }
        for (size_t k = 0; k < n; k++)
            ply_decode(r, buf + k * r->stride, &ps->pos[i + k], &ps->vel[i + k]);
    }
    free(buf);
    ps->count = total;
    return 0;
}

static int ply_read_open(PlyReader *r, Particles *ps)
{
    struct stat st;
    if (fstat(fileno(r->f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fileerr_set(r->err, r->errlen, r->path, "not a regular file");
        return -1;
    }
    r->file_size = (uint64_t)st.st_size;
    if (ply_read_header(r) != 0 || ply_check_size(r) != 0)
        return -1;
    if (r->skip_bytes && fseeko(r->f, (off_t)r->skip_bytes, SEEK_CUR) != 0) {
        fileerr_set(r->err, r->errlen, r->path, "cannot seek to the vertex data");
        return -1;
    }
    return ply_read_data(r, ps);
}

/* On error ps is left empty (count 0), never half filled. */
int ply_read_particles(const char *path, Particles *ps, char *err, size_t errlen)
{
    PlyReader r = { .path = path, .err = err, .errlen = errlen };
    ps->count = 0;
    r.f = fopen(path, "rb");
    if (!r.f) {
        fileerr_set(err, errlen, path, "cannot open: %s", strerror(errno));
        return -1;
    }
    int rc = ply_read_open(&r, ps);
    fclose(r.f);
    if (rc != 0)
        ps->count = 0;
    return rc;
}
