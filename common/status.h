/* status.h — one error style for the simulator, its solvers and their callers: a status the
 * caller tests (out of memory, could not run), never the words of a message, and one size for
 * a message. flipkit common/: track.h (SolveResult) and the CLI read it; so does sim.h's error. */
#ifndef FLIPKIT_STATUS_H
#define FLIPKIT_STATUS_H

/* What happened, beside the message that says it to a person. */
typedef enum {
    RUN_OK = 0,          /* it ran (a solve may still have stopped short of its tolerance) */
    RUN_OUT_OF_MEMORY,   /* an allocation failed: flipsim exits EXIT_MEMORY */
    RUN_COULD_NOT_RUN    /* it could not start or go on: a device, a file, a bad state */
} RunStatus;

/* One line for a person: a stage's or a file's message with the path or scene it names. */
enum { MESSAGE_MAX = 1300 };

#endif
