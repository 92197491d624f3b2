/* test_peakmem.c — Check suite for peakmem.c: the VmHWM and VmRSS lines of a status text
 * parsed to bytes (and a missing or malformed line refused, naming it), then this process's
 * own peak rising with 64 MiB touched, staying after they are unmapped, and reset. flipkit tests/. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "peakmem.h"
#include "harness.h"

#include <check.h>
#include <string.h>
#include <sys/mman.h>

/* A /proc/self/status as Linux 6 writes it, cut to the lines around the two we read. */
static const char status_text[] =
    "Name:\ttest_peakmem\n"
    "VmPeak:\t  412345 kB\n"
    "VmSize:\t  400000 kB\n"
    "VmHWM:\t  123456 kB\n"
    "VmRSS:\t   98765 kB\n"
    "RssAnon:\t   50000 kB\n"
    "Threads:\t1\n";

START_TEST(parses_the_two_lines)
{
    size_t bytes = 0;
    char err[256] = "";
    ck_assert_int_eq(peakmem_parse(status_text, "VmHWM", &bytes, err, sizeof err), 0);
    ck_assert_uint_eq(bytes, (size_t)123456 * 1024);
    ck_assert_int_eq(peakmem_parse(status_text, "VmRSS", &bytes, err, sizeof err), 0);
    ck_assert_uint_eq(bytes, (size_t)98765 * 1024);
    /* the first line, and a last line with no newline after it */
    ck_assert_int_eq(peakmem_parse("VmHWM: 7 kB", "VmHWM", &bytes, err, sizeof err), 0);
    ck_assert_uint_eq(bytes, 7 * 1024);
}
END_TEST

/* A key must start its line and end at the colon: RssAnon is not VmRSS, XVmHWM not VmHWM. */
START_TEST(refuses_a_missing_line)
{
    size_t bytes = 42;
    char err[256] = "";
    const char *no_hwm = "Name:\tx\nXVmHWM:\t 5 kB\nVmHWMs:\t 6 kB\nVmRSS:\t 1 kB\n";
    ck_assert_int_eq(peakmem_parse(no_hwm, "VmHWM", &bytes, err, sizeof err), -1);
    ck_assert_uint_eq(bytes, 42);
    ck_assert_msg(strstr(err, "no VmHWM line") != NULL, "message: %s", err);
    ck_assert_int_eq(peakmem_parse("", "VmRSS", &bytes, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "no VmRSS line") != NULL, "message: %s", err);
}
END_TEST

/* A count that is not a number of kB is refused, never read as 0 or as far as it goes. */
START_TEST(refuses_a_malformed_line)
{
    static const char *const bad[] = { "VmHWM:\t\n", "VmHWM:\t 12 MB\n", "VmHWM:\t kB\n",
                                       "VmHWM:\t 12kB\n", "VmHWM:\t 12 kB extra\n",
                                       "VmHWM:\t -12 kB\n",
                                       "VmHWM:\t 99999999999999999999999 kB\n" };
    for (size_t q = 0; q < sizeof bad / sizeof *bad; q++) {
        size_t bytes = 42;
        char err[256] = "";
        ck_assert_msg(peakmem_parse(bad[q], "VmHWM", &bytes, err, sizeof err) == -1,
                      "accepted \"%s\"", bad[q]);
        ck_assert_uint_eq(bytes, 42);
        ck_assert_msg(strstr(err, "VmHWM") != NULL, "message for \"%s\": %s", bad[q], err);
    }
}
END_TEST

enum { MIB = 1024 * 1024, TOUCHED = 64 * MIB };

/* This process: 64 MiB touched raise the peak by about that; unmapped, the resident memory
 * falls and the peak stays; reset, the peak comes back to the resident memory. Linux keeps
 * the counts per thread and adds them up now and then, so two reads may differ by tens of kB
 * with nothing done in between: the checks allow a MiB or more. */
START_TEST(follows_this_process)
{
    size_t peak0, now0, peak1, now1, peak2, now2, peak3, now3;
    char err[256] = "";
    ck_assert_msg(peakmem_reset(err, sizeof err) == 0, "%s", err);
    ck_assert_msg(peakmem_read(&peak0, &now0, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_gt(now0, 0);
    ck_assert_uint_ge(peak0, now0);
    unsigned char *m = mmap(NULL, TOUCHED, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                            -1, 0);
    ck_assert_ptr_ne(m, MAP_FAILED);
    memset(m, 1, TOUCHED);
    ck_assert_int_eq(peakmem_read(&peak1, &now1, err, sizeof err), 0);
    ck_assert_uint_ge(now1, now0 + TOUCHED - 4 * MIB);
    ck_assert_uint_ge(peak1, now1);
    ck_assert_int_eq(munmap(m, TOUCHED), 0);
    ck_assert_int_eq(peakmem_read(&peak2, &now2, err, sizeof err), 0);
    ck_assert_uint_le(now2, now1 - TOUCHED + 4 * MIB);
    ck_assert_uint_ge(peak2 + MIB, peak1);
    ck_assert_int_eq(peakmem_reset(err, sizeof err), 0);
    ck_assert_int_eq(peakmem_read(&peak3, &now3, err, sizeof err), 0);
    ck_assert_uint_lt(peak3, now3 + 4 * MIB);
    ck_assert_uint_lt(peak3, peak2 - TOUCHED + 8 * MIB);
}
END_TEST

static Suite *peakmem_suite(void)
{
    Suite *s = suite_create("peakmem");
    TCase *t = tcase_create("peakmem");
    tcase_add_test(t, parses_the_two_lines);
    tcase_add_test(t, refuses_a_missing_line);
    tcase_add_test(t, refuses_a_malformed_line);
    tcase_add_test(t, follows_this_process);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return harness_run(peakmem_suite());
}
