/* mcubes.h — the case table of marching cubes, generated here from the cube's geometry.
 * flipkit common/writers/: surface.c marches the liquid's field with it; no table is copied
 * from elsewhere, mcubes_table derives every case from one face rule (see mcubes.c). */
#ifndef FLIPKIT_MCUBES_H
#define FLIPKIT_MCUBES_H

#include <stdint.h>

/* Corners are numbered x + 2y + 4z. Edge e joins corners mcubes_edge[e][0] (the low one) and
 * mcubes_edge[e][1]; edges 0-3 run along x, 4-7 along y, 8-11 along z. */
enum { MCUBES_EDGES = 12, MCUBES_CASES = 256, MCUBES_MAX_LOOPS = 4, MCUBES_MAX_TRIS = 5 };
extern const uint8_t mcubes_edge[MCUBES_EDGES][2];

/* One case: bit q of the case number set when corner q is inside. Its surface is ntris
 * triangles, 3 edges each (the vertex sits on that edge), counter-clockwise seen from the
 * outside corners. quad: the case is a single loop of 4 edges whose two diagonals both run
 * through the cube's inside, so the marcher may cut it along the shorter one: tri holds the
 * cut along loop[0]-loop[2], the other is loop[1]-loop[3]. */
typedef struct {
    uint8_t ntris, nloops, quad;
    uint8_t loop_len[MCUBES_MAX_LOOPS];
    uint8_t loop[MCUBES_EDGES];      /* the loops' edges one after another, in order */
    uint8_t tri[MCUBES_MAX_TRIS][3];
} McubesCase;

typedef struct {
    McubesCase c[MCUBES_CASES];
} McubesTable;

/* Fills t. Returns 0, or -1 when some loop has no triangulation that keeps every diagonal off
 * the cube's faces (never, for this cube: test_surface checks all 256 cases). */
int mcubes_table(McubesTable *t);

#endif
