
/* Attack: take more than one core. RLIMIT_CPU counts all threads, but eight busy threads
 * still take eight cores of wall clock from the gradings beside it. The stage checks that it
 * may run on one CPU only and that four busy threads together get no more than one core's
 * time; otherwise it exits 43 (more than one CPU allowed) or 44 (more than one core's time),
 * so the grade shows it. Pinned, it keeps full marks. */
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double attack_clock(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *attack_spin(void *arg)
{
    double until = *(const double *)arg;
    volatile unsigned long x = 0;
    while (attack_clock(CLOCK_MONOTONIC) < until)
        x++;
    return NULL;
}

__attribute__((constructor)) static void attack_spin_threads(void)
{
    unsigned long mask[16] = { 0 };
    long got = syscall(SYS_sched_getaffinity, 0, sizeof mask, mask);
    int cpus = 0;
    for (long i = 0; i < got / (long)sizeof mask[0]; i++)
        cpus += __builtin_popcountl(mask[i]);
    if (cpus != 1) {
        printf("may run on %d CPUs\n", cpus);
        fflush(stdout);
        _exit(43);
    }
    double wall0 = attack_clock(CLOCK_MONOTONIC), cpu0 = attack_clock(CLOCK_PROCESS_CPUTIME_ID);
    double until = wall0 + 0.4;
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, attack_spin, &until);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    double wall = attack_clock(CLOCK_MONOTONIC) - wall0, cpu = attack_clock(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
    if (cpu > 1.25 * wall + 0.05) {
        printf("four threads got %.2f s of CPU in %.2f s\n", cpu, wall);
        fflush(stdout);
        _exit(44);
    }
}
