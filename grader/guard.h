/* guard.h — the guard linked into every program that runs a student's stages.
 * flipkit grader/: it keeps the run's command line from before any student code and reports
 * to the sandbox's supervisor over a channel whose reasons the student cannot write. */
#ifndef FLIPKIT_GUARD_H
#define FLIPKIT_GUARD_H

/* The link-time half: the program's own calls to malloc, calloc and realloc go to guard.c's
 * __wrap_X first, which reports running out of memory to the supervisor (sbcalls.h) instead
 * of handing the student a NULL to crash on. Put the list on the link line of every program
 * that links guard.o; without it the link fails on __real_malloc, which is the reminder. */
#define GUARD_WRAP_FLAGS "-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc"

/* Everything else the guard once did in-process (refusing forks, naming writes outside) is
 * the sandbox's now: its allow-list filter and supervisor (sbcalls.c, sbjail.c) see every
 * system call, and nothing a stage prints or exits with can pass for their reasons. */

/* The command line as it was before any constructor ran: guard.o's .preinit_array entry
 * copies it (guard.o is linked before the student's objects), so a constructor that
 * rewrites argv changes what the program was given, not what it runs. */
int guard_argc(void);
char **guard_argv(void);

/* Reports the settings the run uses (one line) to the supervisor, which hands them to the
 * grader to compare with what it asked for. Outside the sandbox it does nothing. */
void guard_report_settings(const char *line);

/* Reports that the program called the given solver where it must not (solvertrap.c), and
 * stops: the supervisor kills it on the report; outside the sandbox it says so and exits. */
_Noreturn void guard_given_solver_called(void);

#endif
