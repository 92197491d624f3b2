/* handin.c — `make submission`'s check: the archive a student hands in, read by the grader's own intake.
 * flipkit grader/: links intake.c as flipgrade does, so what it says was taken is what grading will
 * take; each stage is compared with the student's assignment/ file and with the untouched stub. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "intake.h"
#include "track.h"

/* What became of one stage between assignment/ and the grader's work directory. */
typedef enum { HANDIN_TAKEN, HANDIN_STUB, HANDIN_MISSING, HANDIN_REFUSED, HANDIN_DIFFERS } HandinVerdict;

/* Reads a whole small file into a new buffer; NULL when it cannot be read. */
static char *handin_slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    long n = 0;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = n;
    return buf;
}

/* Whether two files hold the same bytes (false when either cannot be read). */
static bool handin_same(const char *a, const char *b)
{
    long na, nb;
    char *x = handin_slurp(a, &na), *y = handin_slurp(b, &nb);
    bool same = x && y && na == nb && memcmp(x, y, (size_t)na) == 0;
    free(x);
    free(y);
    return same;
}

/* The stage's verdict: the intake took a file, it is the student's own, and it is not the stub. */
static HandinVerdict handin_judge(const IntakeResult *in, int s, const char *taken, const char *mine,
                                  const char *stubs)
{
    if (in->refused[s][0])
        return HANDIN_REFUSED;
    if (!in->found[s])
        return HANDIN_MISSING;
    if (!handin_same(taken, mine))
        return HANDIN_DIFFERS;
    char stub[PATH_MAX];
    snprintf(stub, sizeof stub, "%s/%s.c", stubs ? stubs : "", stage_names[s]);
    return stubs && handin_same(taken, stub) ? HANDIN_STUB : HANDIN_TAKEN;
}

static void handin_say(HandinVerdict v, const IntakeResult *in, int s, const char *assignment, long bytes)
{
    const char *name = stage_names[s];
    switch (v) {
    case HANDIN_TAKEN:
        printf("  %-10s %s (%ld bytes): taken\n", name, in->from[s], bytes);
        break;
    case HANDIN_STUB:
        printf("  %-10s %s (%ld bytes): taken, but it is still the untouched stub\n",
               name, in->from[s], bytes);
        break;
    case HANDIN_MISSING:
        printf("  %-10s MISSING: no %s/%s.c to pack, so the grader would score %s 0\n", name, assignment, name, name);
        break;
    case HANDIN_REFUSED:
        printf("  %-10s REFUSED by the grader's intake: %s\n", name, in->refused[s]);
        break;
    case HANDIN_DIFFERS:
        printf("  %-10s DIFFERS: the archive's %s is not your %s/%s.c (changed while packing?)\n",
               name, in->from[s], assignment, name);
        break;
    }
}

static int handin_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: handin ARCHIVE ASSIGNMENT_DIR [STUBS_DIR]   (make submission runs it)\n");
        return 2;
    }
    const char *archive = argv[1], *assignment = argv[2], *stubs = argc == 4 ? argv[3] : NULL;
    const char *tmp = getenv("TMPDIR");
    char work[1024];   /* short of PATH_MAX: a stage's name goes after it */
    snprintf(work, sizeof work, "%s/handin.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(work)) {
        fprintf(stderr, "make submission: cannot make a directory in %s: %s\n", work, strerror(errno));
        return 2;
    }
    IntakeResult in;
    char err[1024];
    int rc = intake_submission(archive, work, &in, err, sizeof err);
    if (rc != 0) {
        printf("make submission: the grader cannot read %s: %s\n", archive, err);
        nftw(work, handin_rm, 16, FTW_DEPTH | FTW_PHYS);
        return 2;
    }
    printf("make submission: %s, read as the grader's intake will read it:\n", archive);
    int bad = 0, stubbed = 0;
    for (int s = 0; s < STAGE_COUNT; s++) {
        char taken[PATH_MAX], mine[PATH_MAX];
        snprintf(taken, sizeof taken, "%s/%s.c", work, stage_names[s]);
        snprintf(mine, sizeof mine, "%s/%s.c", assignment, stage_names[s]);
        HandinVerdict v = handin_judge(&in, s, taken, mine, stubs);
        long bytes = 0;
        free(handin_slurp(taken, &bytes));
        handin_say(v, &in, s, assignment, bytes);
        bad += v == HANDIN_MISSING || v == HANDIN_REFUSED || v == HANDIN_DIFFERS;
        stubbed += v == HANDIN_STUB;
    }
    if (in.note[0])
        printf("  the intake stopped early: %s\n", in.note), bad++;
    nftw(work, handin_rm, 16, FTW_DEPTH | FTW_PHYS);
    char where[PATH_MAX];
    if (!realpath(archive, where))
        snprintf(where, sizeof where, "%s", archive);
    if (bad)
        printf("make submission: %d of %d stage files would not be graded as yours: fix the lines above "
               "and run make submission again\n", bad, STAGE_COUNT);
    else
        printf("make submission: hand in %s: this one file, where your course collects the assignment "
               "(handout/README.md, \"Handing in\")%s\n", where,
               stubbed ? "; the stages marked stub are not done yet" : "");
    return bad ? 1 : 0;
}
