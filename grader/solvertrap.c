/* solvertrap.c — the given solver, as the runs that must not reach it have it: a trap.
 * flipkit grader/: linked before the kit's archive into every stage runner and the scene runner
 * of the student's jacobi, it takes given_solve_sor's place, so the archive's given_sor.o (the
 * real solver) is never pulled in there and no stage can hand it a solve. */
#include "given.h"
#include "guard.h"

/* Any call at all is a stage handing the pressure solve to the kit: the run stops, and the
 * supervisor's reason, which the stage cannot write, names the call. */
SolveResult given_solve_sor(const MacGrid *g, const float *rhs, float *p,
                            const PressureSettings *settings, float omega,
                            SolveHistory *history)
{
    (void)g, (void)rhs, (void)p, (void)settings, (void)omega, (void)history;
    guard_given_solver_called();
}
