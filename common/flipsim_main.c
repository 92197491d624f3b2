/* flipsim_main.c — main of the student-only flipsim (the tarball students get).
 * flipkit common/: it links your stages, and the reference's compiled stages only when the
 * instructor shipped them; the kit's own flipsim (reference/flipsim_main.c) links both. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#ifdef FLIPKIT_REFERENCE_OBJECTS
/* lib/reference_stages.a: the reference's eight stages, compiled, for --use-reference. */
extern const Track reference_stages_track;
#endif

int main(int argc, char **argv)
{
#ifdef FLIPKIT_REFERENCE_OBJECTS
    /* With both tracks linked the CLI would default to the reference; a student kit runs the
     * student's track unless told otherwise, so "--track student" goes first (a later
     * --track wins). */
    char **args = malloc(((size_t)argc + 3) * sizeof *args);   /* 2 more words and the NULL */
    if (!args) {
        fputs("flipsim: out of memory\n", stderr);
        return EXIT_IO;
    }
    args[0] = argv[0];
    args[1] = "--track";
    args[2] = "student";
    memcpy(args + 3, argv + 1, (size_t)argc * sizeof *args);  /* the rest and the NULL */
    static const CliBuild kit = { .student = &student_track, .reference = &reference_stages_track };
    int rc = cli_main(argc + 2, args, &kit);
    free(args);
    return rc;
#else
    static const CliBuild kit = { .student = &student_track };
    return cli_main(argc, argv, &kit);
#endif
}
