
/* Attack: sleep just under the case limit in every case, costing the grader minutes per
 * submission while the stage itself passes. */
#include <time.h>

__attribute__((constructor)) static void attack_time(void)
{
    struct timespec t = {2, 500000000};
    nanosleep(&t, NULL);
}
