/* flipclass.c — make class-report's program: a graded class's report.json files and stage files
 * in, build/grades/class.json and class.html out (classreport.h). flipkit grader/: it reads what
 * `flipgrade --class` left and the submissions, and never builds or runs a student's code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classreport.h"
#include "grade.h"
#include "gradeconfig.h"
#include "similar.h"

static void flipclass_usage(FILE *f)
{
    fprintf(f,
"usage: flipclass --class DIR [options]     after flipgrade --class DIR (make grade SUBMISSIONS=DIR/):\n"
"                                           OUT/class.json and OUT/class.html (make class-report)\n"
"Reads REPORTS/<name>/report.json of every entry of DIR whose name is in the safe set (the others\n"
"are listed as refused) and the entry's stage files as the grader takes them; builds and runs\n"
"nothing. The page: score histograms (in all and per part), every stage case and whole-scene part\n"
"with its pass rate, most common failing place and reason and who failed it, hardest first; pairs\n"
"of stage files that share more than the threshold of their token streams (identifiers renamed\n"
"or functions moved still match; the stub's own text is left out), each beside the other; the\n"
"slowest gradings. A similarity is a reason to look, not a proof (grader/README.md).\n\n"
"options (default in brackets):\n"
"  --class DIR        the class's submissions, as graded\n"
"  --reports DIR      where their reports are [build/grades]\n"
"  --out DIR          where class.json and class.html go [REPORTS]\n"
"  --stubs DIR        the stubs every student started from, <stage>.c [assignment]\n"
"  --reference DIR    the kit's reference/<stage>.c, compared with every student too [reference]\n"
"  --no-reference     do not compare with the kit's reference\n"
"  --config FILE      the grader's config: its similarity group [grader/config]\n"
"  --threshold X      list pairs with a similarity of at least X, 0 to 1 [similarity.threshold]\n"
"  --min-tokens N     compare only files with at least N tokens of their own [similarity.min_tokens]\n"
"  --work DIR         parent of the scratch copy of each submission's files [$TMPDIR or /tmp]\n"
"  --help             this text\n"
"exit status: 0 written; 2 bad option, no report, reports of two gradings, or a file not written.\n");
}

/* A number option's value in [lo, hi]; exits 2 with one line when it is not one. */
static double flipclass_number(const char *opt, const char *s, double lo, double hi)
{
    char *end;
    double v = s ? strtod(s, &end) : 0;
    if (!s || end == s || *end || !(v >= lo && v <= hi)) {
        fprintf(stderr, "flipclass: %s: expected a number from %g to %g, got \"%s\"\n", opt, lo, hi,
                s ? s : "");
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    ClassReportOptions o = { .reports = "build/grades", .stubs = "assignment", .reference = "reference",
                             .threshold = -1, .min_tokens = -1 };
    const char *config = "grader/config";
    const char *tmp = getenv("TMPDIR");
    o.work = tmp && *tmp ? tmp : "/tmp";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0) {
            flipclass_usage(stdout);
            return 0;
        } else if (strcmp(a, "--no-reference") == 0) {
            o.reference = NULL;
            continue;
        }
        if (!v) {
            fprintf(stderr, "flipclass: %s: unknown option or missing value (see --help)\n", a);
            return 2;
        }
        if (strcmp(a, "--class") == 0) o.class_dir = v;
        else if (strcmp(a, "--reports") == 0) o.reports = v;
        else if (strcmp(a, "--out") == 0) o.out = v;
        else if (strcmp(a, "--stubs") == 0) o.stubs = v;
        else if (strcmp(a, "--reference") == 0) o.reference = v;
        else if (strcmp(a, "--work") == 0) o.work = v;
        else if (strcmp(a, "--config") == 0) config = v;
        else if (strcmp(a, "--threshold") == 0) o.threshold = flipclass_number(a, v, 0, 1);
        else if (strcmp(a, "--min-tokens") == 0) o.min_tokens = (int)flipclass_number(a, v, 0, 1e6);
        else {
            fprintf(stderr, "flipclass: %s: unknown option (see --help)\n", a);
            return 2;
        }
        i++;
    }
    if (!o.class_dir) {
        fprintf(stderr, "flipclass: --class DIR is needed: the submissions graded (see --help)\n");
        return 2;
    }
    if (!o.out)
        o.out = o.reports;
    char err[1024];
    GradeConfig *cfg = malloc(sizeof *cfg);
    if (!cfg || gradeconfig_load(config, cfg, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", cfg ? err : "flipclass: out of memory");
        return 2;
    }
    if (o.threshold < 0)
        o.threshold = cfg->similarity_threshold;
    if (o.min_tokens < 0)
        o.min_tokens = (int)cfg->similarity_min_tokens;
    free(cfg);
    if (classreport_write(&o, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    printf("flipclass: %s/class.html and class.json\n", o.out);
    return 0;
}
