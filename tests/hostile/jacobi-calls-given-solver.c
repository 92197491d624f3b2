/* A hostile jacobi for the grader's check: the kit's own SOR (as the graded scenes' given solver
 * runs it) solves the pressure on the first sweep of each solve, and every later sweep only
 * copies. Its stage cases fail; a whole-scene run that grades jacobi must not take its frames. */
#include <stdlib.h>
#include <string.h>

#include "given.h"
#include "stages.h"

/* A new solve is a new right-hand side: the driver keeps it fixed over one solve's sweeps. */
static int new_solve(const float *rhs, size_t n)
{
    static float *seen;
    static size_t seen_n;
    if (seen && seen_n == n && memcmp(seen, rhs, n * sizeof *rhs) == 0)
        return 0;
    free(seen);
    seen = malloc(n * sizeof *rhs);
    seen_n = seen ? n : 0;
    if (seen)
        memcpy(seen, rhs, n * sizeof *rhs);
    return 1;
}

void jacobi(const MacGrid *g, const float *p, const float *rhs, float omega, float *p_out)
{
    (void)omega;
    size_t n = grid_cells(g);
    memcpy(p_out, p, n * sizeof *p_out);
    if (new_solve(rhs, n)) {
        PressureSettings set = { .iterations = 200, .tolerance = 1e-6, .sor_omega = 1.7f };
        given_solve_sor(g, rhs, p_out, &set, set.sor_omega, NULL);
    }
}
