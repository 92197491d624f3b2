
/* Not an attack: a correct stage that starts one worker thread, as a student's parallel
 * loop would. check_grader.sh appends it to the reference's g2p for the submission it grades
 * beside a stage that holds every task it may start: with all students as one user, its
 * thread could not start (it exits 45); with a user per grading it keeps full marks. */
#include <pthread.h>
#include <stdlib.h>

static void *honest_work(void *arg)
{
    return arg;
}

__attribute__((constructor)) static void honest_uses_a_thread(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, honest_work, NULL) != 0)
        exit(45);
    pthread_join(t, NULL);
}
