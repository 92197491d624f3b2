/* state.h — state files: a versioned, checksummed container of named arrays.
 * flipkit common/writers/: used for checkpoints and resume, for golden test cases and by the
 * grader.  Format, version 1, all integers little-endian: "FLIPKIT\0"            8 bytes magic
 * u32 version            = 1 u32 section count per section: char tag[16]         NUL-padded
 * name, e.g. "pos", "u", "cell", "scene" u32 type             1 = float32, 2 = int8, 3 = uint8
 * (text/bytes), 4 = float64, 5 = int32 u32 reserved         0 u64 count            number of
 * elements data                 count * sizeof(type) bytes, little-endian u64 checksum
 * FNV-1a 64 of every byte before it A reader rejects a wrong magic, an unknown version, a
 * truncated file or a bad checksum with one line saying which. */
#ifndef FLIPKIT_STATE_H
#define FLIPKIT_STATE_H

#include <stddef.h>
#include <stdint.h>

enum { STATE_F32 = 1, STATE_I8 = 2, STATE_U8 = 3, STATE_F64 = 4, STATE_I32 = 5 };
#define STATE_VERSION 1u
#define STATE_TAG_LEN 16

typedef struct {
    char tag[STATE_TAG_LEN];
    uint32_t type;
    uint64_t count;
    void *data;         /* owned copy */
} StateSection;

typedef struct {
    StateSection *sections;
    size_t nsections, capacity;
} StateFile;

void state_init(StateFile *sf);
void state_free(StateFile *sf);
/* Adds a copy of count elements of type under tag (replacing a section with the same tag,
 * whatever its type, in place). data may be NULL when count is 0, and may point into the
 * section being replaced. Returns 0, or -1 when out of memory, the tag is empty or longer
 * than 15 characters, or the type is unknown. */
int state_add(StateFile *sf, const char *tag, uint32_t type, const void *data, uint64_t count);
/* The section with this tag and type, or NULL (and *count = 0). *count receives its element
 * count; count may be NULL. An empty section still gives a non-NULL pointer. */
const void *state_find(const StateFile *sf, const char *tag, uint32_t type, uint64_t *count);
/* Writes atomically (temporary file, then rename). Returns 0, or -1 with one line in err. */
int state_write(const StateFile *sf, const char *path, char *err, size_t errlen);
/* Reads and verifies a file; sf must be initialised and is replaced. Returns 0, or -1 with
 * one line in err naming the file, and sf left as it was. Counts are checked against the
 * file size before anything is allocated, so a corrupt file cannot ask for huge memory. */
int state_read(StateFile *sf, const char *path, char *err, size_t errlen);

#endif
