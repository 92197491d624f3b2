/* buildcache.h — compiled stage objects and linked runners, kept by every byte that made them.
 * flipkit grader/: build.c asks before it compiles or links and stores what it made; a class
 * or the self-check builds the same files many times (stubs, the reference's stage files). */
#ifndef FLIPKIT_BUILDCACHE_H
#define FLIPKIT_BUILDCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Everything a build's output depends on, as bytes: the command, stamps of the kit's files and
 * the compiler, the student's source or objects. An entry is used only when its stored key
 * equals this one byte for byte; the hash only names the file, so a collision is a miss. */
typedef struct {
    char *bytes;
    size_t len, cap;
    bool failed;     /* out of memory or an input that could not be read: never fetch or store */
} BuildKey;

void bcache_key_text(BuildKey *k, const char *text);
/* The file's whole contents (a student's source or object). */
void bcache_key_file(BuildKey *k, const char *path);
/* The file's path, size, modification time and inode (the kit's objects, the compiler). */
void bcache_key_stamp(BuildKey *k, const char *path);
void bcache_key_free(BuildKey *k);

/* The directory the cache lives in, made (or made again) 0700; false when it is not a directory
 * of this user's or cannot be written (the grader then builds everything, as without one). */
bool bcache_open(const char *dir);
/* Writes the entry's output to out (mode) and returns true when dir holds an entry for k. */
bool bcache_fetch(const char *dir, const BuildKey *k, const char *out, mode_t mode);
enum { BCACHE_ENTRY_MAX = 16 << 20 };   /* an output larger than this is not kept: a stage's
                                         * object is ~50 KiB, a runner ~3 MiB */

/* Keeps made as the output for k, unless it is larger than BCACHE_ENTRY_MAX; a failure to
 * store only costs the next build its time. */
void bcache_store(const char *dir, const BuildKey *k, const char *made);
/* Removes the least recently used entries (a fetch counts as a use) until the entries take
 * at most cap_bytes; returns what they take then. */
unsigned long long bcache_trim(const char *dir, unsigned long long cap_bytes);

#endif
