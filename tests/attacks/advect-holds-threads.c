
/* Attack: hold every task it may start. RLIMIT_NPROC counts per user, so when every student
 * runs as the same user, a stage that parks threads up to the limit stops the stages of
 * another student graded beside it from starting at all ("could not start: execve ...
 * Resource temporarily unavailable"). check_grader.sh grades an honest submission while this
 * one holds them (it waits until they are there); with a user per grading that one keeps
 * full marks, and so does this stage. */
#include <pthread.h>
#include <time.h>

static void *attack_park(void *arg)
{
    (void)arg;
    struct timespec t = { 4, 0 };
    nanosleep(&t, NULL);
    return NULL;
}

__attribute__((constructor)) static void attack_hold_threads(void)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 << 10);
    pthread_t t;
    for (int i = 0; i < 4096 && pthread_create(&t, &attr, attack_park, NULL) == 0; i++)
        pthread_detach(t);
    struct timespec hold = { 1, 800000000 }; /* then the stage runs, while they still sleep */
    nanosleep(&hold, NULL);
}
