/* escape.h — bytes a student chose (what a stage printed, a file or submission name), made
 * safe to show. flipkit grader/: every place that shows such bytes to a person or hands them
 * to a program that is not the grader's (a log, a terminal, a file name) goes through here. */
#ifndef FLIPKIT_ESCAPE_H
#define FLIPKIT_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

enum {
    ESCAPE_KEEP_NEWLINES = 1,   /* '\n' stays a line break (logs); otherwise it is "\n" */
};

/* Writes src (len bytes) into dst (cap bytes, always NUL-terminated when cap > 0) with every
 * byte that could act on a terminal or a reader shown as text instead: C0 controls and DEL as
 * \xNN (tab as \t, CR as \r, newline as \n unless kept), C1 controls, malformed UTF-8 and
 * lone bytes as \xNN per byte, bidirectional overrides and isolates (U+202A-202E,
 * U+2066-2069: they reorder what a reader sees) as \uNNNN, and a backslash as \\, so the
 * result reads back unambiguously. Printable UTF-8 is kept. When the escaped text does not
 * fit, it is cut at a character and ends in "..." (the cut is never inside an escape).
 * Returns the length written. */
size_t escape_text(char *dst, size_t cap, const char *src, size_t len, unsigned flags);

/* The text escape_text makes of the one character at the start of src (len > 0 bytes): its
 * bytes into out (no NUL), their count returned, and the bytes of src it stands for in *used.
 * For who must count or cut the text by character (a table's columns): every escape is
 * ASCII, so the text of one character is one column unless it is an escape. */
size_t escape_char(const char *src, size_t len, unsigned flags, char out[16], size_t *used);

/* The same into a new string of at most max_bytes (plus the NUL); NULL when out of memory.
 * *cut, when not NULL, says whether anything was left out. */
char *escape_dup(const char *src, size_t len, size_t max_bytes, unsigned flags, bool *cut);

/* Whether name is in the safe set for a submission's name: 1 to 64 bytes of letters, digits,
 * '.', '_' and '-', not starting with '-' or '.'. Anything else is refused by name. */
bool escape_safe_name(const char *name);

#endif
