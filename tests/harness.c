/* harness.c — running a Check suite the same way in every flipkit test binary.
 * flipkit tests/: fork mode by default, so a crashing case is reported as that case's
 * crash; CK_FORK=no and CK_RUN_CASE are Check's own variables and pass straight through. */
#include "harness.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef FLIPKIT_HAVE_REFERENCE
#include "opencl.h"
#include "reference.h"
#endif

static void harness_die(const char *msg, const char *value)
{
    fprintf(stderr, "test: %s%s\n", msg, value);
    exit(2);
}

const Track *harness_track(void)
{
    static Track chosen;
    static bool ready;
    if (ready)
        return &chosen;
    const char *name = getenv("FLIPKIT_TRACK");
    chosen = student_track;
    if (name && *name && strcmp(name, "student") != 0) {
#ifdef FLIPKIT_HAVE_REFERENCE
        const char *swap = getenv("FLIPKIT_STUDENT_STAGES");
        const Track *base = strcmp(name, "reference") == 0 ? &reference_track
                            : strcmp(name, "opencl") == 0    ? &opencl_track
                                                             : NULL;
        if (!base)
            harness_die("FLIPKIT_TRACK must be student, reference or opencl, not ", name);
        static char err[16384];
        if (base == &opencl_track && opencl_track_open(NULL, err, sizeof err) != 0)
            harness_die("TRACK=opencl: ", err);
        chosen = *base;
        if (swap && *swap && track_mix(&chosen, base, &student_track, swap, err, sizeof err) != 0)
            harness_die("FLIPKIT_STUDENT_STAGES: ", err);
#else
        harness_die("this kit has no reference track; FLIPKIT_TRACK can only be student, not ", name);
#endif
    }
    ready = true;
    return &chosen;
}

int harness_run_stage(Suite *s)
{
    const char *swap = getenv("FLIPKIT_STUDENT_STAGES");
    const char *name = harness_track()->name;
    if (strcmp(name, "student") == 0)
        printf("Testing the student track (your code in assignment/)\n");
    else if (strcmp(name, "mixed") == 0)
        printf("Testing the reference track with the student's %s\n", swap);
#ifdef FLIPKIT_HAVE_REFERENCE
    else if (strcmp(name, "opencl") == 0)
        printf("Testing the opencl track on %s\n", opencl_track_device());
#endif
    else
        printf("Testing the %s track\n", name);
    fflush(stdout);
    int failed = harness_run(s);
#ifdef FLIPKIT_HAVE_REFERENCE
    /* A stage that could not run on the device wrote NaN; this says why. */
    if (strcmp(name, "opencl") == 0 && opencl_track_error())
        printf("%s\n", opencl_track_error());
#endif
    return failed;
}

int harness_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    /* An OpenCL runtime's threads do not survive fork(), so the opencl track runs in one
     * process (it is the kit's own code, not a student's that might crash). */
    const char *track = getenv("FLIPKIT_TRACK");
    if (track && strcmp(track, "opencl") == 0 && !getenv("CK_FORK"))
        srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

const char *harness_tmpdir(void)
{
    static char dir[256];
    if (!dir[0]) {
        mkdir("build", 0777);
        mkdir("build/tmp", 0777);
        snprintf(dir, sizeof dir, "build/tmp/test-%ld", (long)getpid());
        mkdir(dir, 0777);
    }
    return dir;
}

void harness_scratch_dir(const char *prefix, char *dir, size_t n)
{
    snprintf(dir, n, "%s/%s.XXXXXX", harness_tmpdir(), prefix);
    if (!mkdtemp(dir))
        harness_die("cannot create a scratch directory under ", harness_tmpdir());
}

void harness_remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char sub[1024];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            struct stat st;
            if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
                harness_remove_tree(sub);
            else
                unlink(sub);
        }
        closedir(d);
    }
    rmdir(path);
}

char *harness_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s: cannot open", path);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    ck_assert_int_ge(n, 0);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = (size_t)n;
    return buf;
}

int harness_run_cli(const char *tag, char **argv, const Track *student, const Track *reference,
                    const CliDevices *devices)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    char out[600], err[600];
    snprintf(out, sizeof out, "%s/%s.stdout", harness_tmpdir(), tag);
    snprintf(err, sizeof err, "%s/%s.stderr", harness_tmpdir(), tag);
    fflush(stdout);
    fflush(stderr);
    ck_assert_ptr_nonnull(freopen(out, "w", stdout));
    ck_assert_ptr_nonnull(freopen(err, "w", stderr));
    optind = 1;     /* getopt starts over for every run in this process */
    int rc = cli_main(argc, argv, student, reference, devices);
    fflush(stdout);
    fflush(stderr);
    return rc;
}
