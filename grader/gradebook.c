/* gradebook.c — the ids file that maps submission names to gradebook student ids, read
 * strictly, and the names of the gradebook layouts. flipkit grader/: report.c writes the
 * Canvas and Moodle CSVs with them; everything here is the instructor's file, checked anyway. */
#include "gradebook.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "escape.h"

enum { GRADEBOOK_LINE_MAX = 1024 };   /* bytes of one line of the ids file, its newline included */

static const char *const format_names[] = { "flipkit", "canvas", "moodle" };

int gradebook_format_parse(const char *word, GradebookFormat *f)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(word, format_names[i]) == 0) {
            *f = (GradebookFormat)i;
            return 0;
        }
    return -1;
}

const char *gradebook_format_name(GradebookFormat f)
{
    return format_names[f];
}

/* A spreadsheet runs a cell that starts with one of these (report.c guards them in the CSV
 * too); a gradebook id or column that starts so is a mistake, refused before it is written. */
static bool gradebook_formula_start(char c)
{
    return c == '=' || c == '+' || c == '-' || c == '@';
}

static bool gradebook_id_byte(unsigned char c)
{
    return c > ' ' && c < 0x7f && c != ',' && c != '"' && c != '\'' && c != '\\';
}

/* Why id is not a gradebook id, or NULL when it is one. */
static const char *gradebook_why_bad_id(const char *id)
{
    size_t n = strlen(id);
    if (n > GRADEBOOK_ID_MAX)
        return "is longer than 128 bytes";
    if (gradebook_formula_start(id[0]))
        return "starts with = + - or @, which a spreadsheet runs as a formula";
    for (size_t i = 0; i < n; i++)
        if (!gradebook_id_byte((unsigned char)id[i]))
            return "holds a byte other than printable ASCII without blanks, commas, quotes or backslashes";
    return NULL;
}

/* One line's words into name and id; -1 with err set when it is not "NAME ID". */
static int gradebook_split(const char *path, int line, char *text, char **name, char **id, char *err,
                           size_t errlen)
{
    static const char blanks[] = " \t";
    char shown[160];
    escape_text(shown, sizeof shown, text, strlen(text), 0);
    *name = strtok(text, blanks);
    *id = *name ? strtok(NULL, blanks) : NULL;
    char *more = *id ? strtok(NULL, blanks) : NULL;
    if (*name && *id && !more)
        return 0;
    snprintf(err, errlen, "%s:%d: \"%s\": expected \"NAME ID\", a submission's name and its "
             "student's gradebook id, two words", path, line, shown);
    return -1;
}

/* Checks one line's name and id against the rules and the lines before it. */
static int gradebook_check_pair(const GradebookIds *ids, int line, const char *name, const char *id,
                                char *err, size_t errlen)
{
    char shown[300];
    const char *why = gradebook_why_bad_id(id);
    if (!escape_safe_name(name)) {
        escape_text(shown, sizeof shown, name, strlen(name), 0);
        snprintf(err, errlen, "%s:%d: \"%s\" is not a submission's name (expected 1 to 64 letters, "
                 "digits, '.', '_' or '-', not starting with '-' or '.')", ids->path, line, shown);
        return -1;
    }
    if (why) {
        escape_text(shown, sizeof shown, id, strlen(id), 0);
        snprintf(err, errlen, "%s:%d: %s's id \"%s\" %s", ids->path, line, name, shown, why);
        return -1;
    }
    for (int i = 0; i < ids->n; i++) {
        const GradebookId *e = &ids->ids[i];
        if (strcmp(e->name, name) == 0 || strcmp(e->id, id) == 0) {
            bool same_name = strcmp(e->name, name) == 0;
            snprintf(err, errlen, "%s:%d: %s \"%s\" again (line %d has it): expected one line per "
                     "submission and one submission per student", ids->path, line,
                     same_name ? "name" : "id", same_name ? name : id, e->line);
            return -1;
        }
    }
    return 0;
}

/* Adds one line's pair, or returns -1 with err. */
static int gradebook_add_line(GradebookIds *ids, int line, char *text, char *err, size_t errlen)
{
    char *name, *id;
    if (gradebook_split(ids->path, line, text, &name, &id, err, errlen) != 0 ||
        gradebook_check_pair(ids, line, name, id, err, errlen) != 0)
        return -1;
    GradebookId *grown = realloc(ids->ids, (size_t)(ids->n + 1) * sizeof *grown);
    if (!grown) {
        snprintf(err, errlen, "%s: out of memory", ids->path);
        return -1;
    }
    ids->ids = grown;
    GradebookId *e = &ids->ids[ids->n++];
    snprintf(e->name, sizeof e->name, "%s", name);
    snprintf(e->id, sizeof e->id, "%s", id);
    e->line = line;
    return 0;
}

int gradebook_ids_load(const char *path, GradebookIds *ids, char *err, size_t errlen)
{
    *ids = (GradebookIds){ .path = path };
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open the ids file: %s", path, strerror(errno));
        return -1;
    }
    char *text = NULL;
    size_t cap = 0;
    ssize_t n;
    int line = 0, rc = 0;
    while (rc == 0 && (n = getline(&text, &cap, f)) >= 0) {
        line++;
        const char *what = (size_t)n > GRADEBOOK_LINE_MAX ? "a line longer than 1024 bytes"
                         : strlen(text) != (size_t)n ? "a NUL byte" : NULL;
        if (what) {
            snprintf(err, errlen, "%s:%d: %s (expected \"NAME ID\" as text)", path, line, what);
            rc = -1;
            break;
        }
        text[strcspn(text, "\r\n")] = '\0';
        size_t lead = strspn(text, " \t");
        if (text[lead] == '\0' || text[lead] == '#')
            continue;
        rc = gradebook_add_line(ids, line, text, err, errlen);
    }
    free(text);
    if (rc == 0 && ferror(f)) {
        snprintf(err, errlen, "%s: cannot read the ids file: %s", path, strerror(errno));
        rc = -1;
    }
    fclose(f);
    if (rc != 0)
        gradebook_ids_free(ids);
    return rc;
}

void gradebook_ids_free(GradebookIds *ids)
{
    free(ids->ids);
    ids->ids = NULL;
    ids->n = 0;
}

const GradebookId *gradebook_id_of(const GradebookIds *ids, const char *name)
{
    for (int i = 0; ids && i < ids->n; i++)
        if (strcmp(ids->ids[i].name, name) == 0)
            return &ids->ids[i];
    return NULL;
}

int gradebook_check_column(const char *title, char *err, size_t errlen)
{
    size_t n = strlen(title);
    bool printable = n > 0 && n <= GRADEBOOK_COLUMN_MAX && !gradebook_formula_start(title[0]);
    for (size_t i = 0; printable && i < n; i++)
        printable = (unsigned char)title[i] >= ' ' && (unsigned char)title[i] < 0x7f;
    if (printable)
        return 0;
    char shown[300];
    escape_text(shown, sizeof shown, title, n, 0);
    snprintf(err, errlen, "--column \"%s\": expected 1 to 128 printable ASCII bytes, not starting "
             "with = + - or @", shown);
    return -1;
}
