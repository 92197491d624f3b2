/* feedback.h — a student's report made fit to hand back: no path of the grading machine, no
 * command a student cannot run, no frames, and within a stated size (make feedback).
 * flipkit grader/: reads a report directory that flipgrade wrote and writes a new one apart. */
#ifndef FLIPKIT_FEEDBACK_H
#define FLIPKIT_FEEDBACK_H

#include <stdbool.h>
#include <stddef.h>

/* What one student's feedback came to. */
typedef struct {
    long bytes;           /* the feedback directory's files, summed */
    int logs, logs_cut;   /* logs copied, and how many of them were cut to fit */
    int images_dropped;   /* pictures left out because they did not fit */
} FeedbackResult;

/* Text with every absolute path of the grading machine taken out, as a new string (NULL when
 * out of memory): a path under kit_root (absolute, no trailing '/') but not under its build/
 * becomes relative to it, as the student's kit has the same layout (scenes/ball_drop.json);
 * one under build/ (the instructor's reports, data, a TMPDIR there) and any other absolute path but
 * the system's (/usr, /lib, /bin, /sbin, /etc, /dev, /proc, /sys) is cut to its last name
 * (/tmp/x/bob.zip: bob.zip). */
char *feedback_scrub(const char *text, size_t len, const char *kit_root);

/* From report_dir (flipgrade's: report.json, logs/, images/, run-*) writes out_dir: report.json,
 * report.html and report.txt (the table, headed by the student's name), the logs and, when
 * they fit, the pictures, all scrubbed (feedback_scrub), no run-* frames and no make view
 * line, at most max_bytes in all (the logs are cut to fit, each ending with a line that says
 * so). out_dir is written as out_dir.tmp and renamed into place, replacing an old one.
 * Returns 0; 1 when the report has no grade (status error: nothing written, err says why);
 * -1 with one line in err naming the file. */
int feedback_student(const char *report_dir, const char *out_dir, const char *kit_root,
                     long max_bytes, FeedbackResult *res, char *err, size_t errlen);

#endif
