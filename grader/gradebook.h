/* gradebook.h — what a gradebook's CSV import needs beyond grades.csv: its layout (Canvas,
 * Moodle) and the instructor's file that says which gradebook student each submission is.
 * flipkit grader/: `flipgrade --class-csv OUT --format canvas|moodle --ids FILE`; report.c writes. */
#ifndef FLIPKIT_GRADEBOOK_H
#define FLIPKIT_GRADEBOOK_H

#include <stddef.h>

typedef enum { GRADEBOOK_FLIPKIT, GRADEBOOK_CANVAS, GRADEBOOK_MOODLE } GradebookFormat;

enum { GRADEBOOK_ID_MAX = 128, GRADEBOOK_COLUMN_MAX = 128 };

typedef struct {
    char name[65];                     /* a submission's name, in the safe set */
    char id[GRADEBOOK_ID_MAX + 1];     /* the gradebook's id of its student */
    int line;                          /* where the ids file says so */
} GradebookId;

typedef struct {
    const char *path;
    int n;
    GradebookId *ids;
} GradebookIds;

/* "flipkit", "canvas" or "moodle" into *f: 0, or -1 for any other word. */
int gradebook_format_parse(const char *word, GradebookFormat *f);
const char *gradebook_format_name(GradebookFormat f);

/* Reads the ids file strictly: lines of "NAME ID" (blanks or tabs between), blank lines and
 * lines starting with '#' skipped. NAME is a submission's name in the safe set; ID is 1 to 128
 * printable ASCII bytes without blanks, commas, quotes or backslashes, not starting with a
 * character a spreadsheet reads as a formula (= + - @); neither NAME nor ID twice. Returns 0,
 * or -1 with one line in err: "FILE:LINE: what was found, what was expected". */
int gradebook_ids_load(const char *path, GradebookIds *ids, char *err, size_t errlen);
void gradebook_ids_free(GradebookIds *ids);
/* The id of the submission named name, or NULL when the file has no line for it. */
const GradebookId *gradebook_id_of(const GradebookIds *ids, const char *name);

/* Checks a gradebook column's title (--column): 1 to 128 printable bytes, not starting with
 * a formula character. 0, or -1 with one line in err. */
int gradebook_check_column(const char *title, char *err, size_t errlen);

#endif
