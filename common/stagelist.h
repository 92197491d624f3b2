/* stagelist.h — the eight stages, numbered in the handout's order: the one list of them.
 * flipkit common/: C reads it through STAGE_LIST (track.h); the Makefile, handout/student.mk
 * and the scripts read the same lines (common/rules.mk's STAGES). Edit here and nowhere else. */
#ifndef FLIPKIT_STAGELIST_H
#define FLIPKIT_STAGELIST_H

#define STAGE_LIST(X) \
    X(1, advect)      \
    X(2, gravity)     \
    X(3, p2g)         \
    X(4, g2p)         \
    X(5, divergence)  \
    X(6, laplacian)   \
    X(7, jacobi)      \
    X(8, gradient)

#endif
