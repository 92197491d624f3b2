/* mcubes.c — marching cubes' 256 cases, derived from the cube's faces when the table is made.
 * flipkit common/writers/: surface.c calls mcubes_table once per mesh (microseconds) and marches
 * with it; everything here is the cube's own geometry, no table is written out by hand. */
#include "mcubes.h"

#include <string.h>

/*
 * How a case is made, and why the mesh it builds is closed and manifold:
 *  1. Faces. On each of the cube's 6 faces the surface crosses the edges whose corners differ
 *     in sign: 0, 2 or 4 of them. Two crossings are joined by a segment. Four (inside corners
 *     diagonal to each other) are joined so that each inside corner is cut off alone: the
 *     liquid's corners stay apart and the outside runs through the face's middle. This rule
 *     reads only the face's 4 corner signs, which the neighbour sharing the face sees too, so
 *     both cubes put the same segments on it.
 *  2. Direction. Each segment runs with the face's inside corners on its right, seen from
 *     outside the cube. The neighbour sees the face from the other side, so it runs the same
 *     segment the other way: across every face the two triangles on a segment are oriented
 *     consistently, and the triangles face the outside corners.
 *  3. Loops. Every crossed edge lies on 2 faces and so ends one segment and starts one: the
 *     segments form closed loops, which are followed from the lowest unvisited edge.
 *  4. Triangles. A loop of k edges becomes k - 2 triangles that keep its order. A diagonal
 *     between two of its vertices must not lie on a cube face: the neighbour might draw the
 *     same diagonal, and an edge of four triangles is not manifold. Two vertices on one face
 *     are only ever joined by a segment unless the face has four crossings, so this matters
 *     for few loops; among the triangulations allowed, the one with the shortest diagonals
 *     (measured between edge midpoints) is taken, the first found on a tie.
 * A segment is used by one triangle in each of the two cubes on its face, a diagonal by two
 * triangles of its own cube: every edge of the mesh has exactly two triangles.
 */

const uint8_t mcubes_edge[MCUBES_EDGES][2] = {
    { 0, 1 }, { 2, 3 }, { 4, 5 }, { 6, 7 },   /* along x */
    { 0, 2 }, { 1, 3 }, { 4, 6 }, { 5, 7 },   /* along y */
    { 0, 4 }, { 1, 5 }, { 2, 6 }, { 3, 7 },   /* along z */
};

enum { NO_EDGE = 0xff, NONE = -1 };

/* The edge joining corners a and b, or NO_EDGE. */
static int mcubes_edge_of(int a, int b)
{
    for (int e = 0; e < MCUBES_EDGES; e++)
        if ((mcubes_edge[e][0] == a && mcubes_edge[e][1] == b) ||
            (mcubes_edge[e][0] == b && mcubes_edge[e][1] == a))
            return e;
    return NO_EDGE;
}

/* The faces an edge lies on, as bits 2 axis + side. */
static unsigned mcubes_faces_of(int e)
{
    int lo = mcubes_edge[e][0], dir = mcubes_edge[e][0] ^ mcubes_edge[e][1];
    unsigned faces = 0;
    for (int a = 0; a < 3; a++)
        if (!(dir >> a & 1))
            faces |= 1u << (2 * a + (lo >> a & 1));
    return faces;
}

/* Twice the position of corner q, or of edge e's midpoint: whole numbers. */
static void mcubes_corner2(int q, int p[3])
{
    for (int d = 0; d < 3; d++)
        p[d] = 2 * (q >> d & 1);
}

static void mcubes_mid2(int e, int p[3])
{
    int a[3], b[3];
    mcubes_corner2(mcubes_edge[e][0], a);
    mcubes_corner2(mcubes_edge[e][1], b);
    for (int d = 0; d < 3; d++)
        p[d] = (a[d] + b[d]) / 2;
}

/* Whether segment e1 -> e2 on the face of axis a, side s, has corner q on its right seen from
 * outside the cube: the outward normal n = (2s - 1) e_a against (m2 - m1) x (q - m1). */
static int mcubes_on_right(int e1, int e2, int q, int a, int s)
{
    int m1[3], m2[3], c[3], d[3], w[3];
    mcubes_mid2(e1, m1);
    mcubes_mid2(e2, m2);
    mcubes_corner2(q, c);
    for (int k = 0; k < 3; k++) {
        d[k] = m2[k] - m1[k];
        w[k] = c[k] - m1[k];
    }
    int cross = d[(a + 1) % 3] * w[(a + 2) % 3] - d[(a + 2) % 3] * w[(a + 1) % 3];
    return (2 * s - 1) * cross < 0;
}

/* Step 1 and 2 on one face: sets next[e1] = e2 for each directed segment. */
static void mcubes_face(unsigned inside, int a, int s, int next[MCUBES_EDGES])
{
    int b = (a + 1) % 3, c = (a + 2) % 3, q[4];
    q[0] = s << a;
    q[1] = q[0] | 1 << b;
    q[2] = q[1] | 1 << c;
    q[3] = q[0] | 1 << c;
    int in[4], cut[4], ncut = 0;
    for (int k = 0; k < 4; k++)
        in[k] = (int)(inside >> q[k] & 1);
    for (int k = 0; k < 4; k++)   /* edge k runs from q[k] to q[k + 1] */
        if (in[k] != in[(k + 1) % 4])
            cut[ncut++] = k;
    if (ncut == 2) {
        int e1 = mcubes_edge_of(q[cut[0]], q[(cut[0] + 1) % 4]);
        int e2 = mcubes_edge_of(q[cut[1]], q[(cut[1] + 1) % 4]);
        int corner = in[0] ? q[0] : in[1] ? q[1] : in[2] ? q[2] : q[3];
        if (mcubes_on_right(e1, e2, corner, a, s))
            next[e1] = e2;
        else
            next[e2] = e1;
    } else if (ncut == 4) {
        for (int k = 0; k < 4; k++) {
            if (!in[k])
                continue;   /* cut each inside corner off by the edges beside it */
            int e1 = mcubes_edge_of(q[(k + 3) % 4], q[k]), e2 = mcubes_edge_of(q[k], q[(k + 1) % 4]);
            if (mcubes_on_right(e1, e2, q[k], a, s))
                next[e1] = e2;
            else
                next[e2] = e1;
        }
    }
}

static int mcubes_dist2(int e1, int e2)
{
    int p[3], q[3], d2 = 0;
    mcubes_mid2(e1, p);
    mcubes_mid2(e2, q);
    for (int d = 0; d < 3; d++)
        d2 += (p[d] - q[d]) * (p[d] - q[d]);
    return d2;
}

/* Step 4 for one loop v[0..k-1]: the cheapest triangulation whose diagonals all run through
 * the cube (dynamic programming over the polygon, cost the sum of the squared lengths), its
 * triangles appended to cs. Returns 0, or -1 when there is none. */
static int mcubes_triangulate(const uint8_t *v, int k, McubesCase *cs)
{
    enum { BIG = 1 << 28 };
    int cost[MCUBES_EDGES][MCUBES_EDGES], split[MCUBES_EDGES][MCUBES_EDGES];
    int ok[MCUBES_EDGES][MCUBES_EDGES];
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            int side = j == i + 1 || i == j + 1 || (i == 0 && j == k - 1) || (j == 0 && i == k - 1);
            ok[i][j] = side || !(mcubes_faces_of(v[i]) & mcubes_faces_of(v[j]));
        }
    for (int len = 1; len < k; len++)
        for (int i = 0; i + len < k; i++) {
            int j = i + len;
            cost[i][j] = len == 1 ? 0 : BIG;
            split[i][j] = NONE;
            for (int m = i + 1; m < j; m++) {
                if (!ok[i][m] || !ok[m][j] || cost[i][m] >= BIG || cost[m][j] >= BIG)
                    continue;
                int c = cost[i][m] + cost[m][j] + (m - i > 1 ? mcubes_dist2(v[i], v[m]) : 0) +
                        (j - m > 1 ? mcubes_dist2(v[m], v[j]) : 0);
                if (c < cost[i][j]) {
                    cost[i][j] = c;
                    split[i][j] = m;
                }
            }
        }
    if (cost[0][k - 1] >= BIG)
        return -1;
    /* the triangles, outermost first, from an explicit stack */
    int stack[MCUBES_EDGES][2], top = 0;
    stack[top][0] = 0;
    stack[top++][1] = k - 1;
    while (top > 0) {
        top--;
        int i = stack[top][0], j = stack[top][1], m = split[i][j];
        if (j - i < 2)
            continue;
        if (cs->ntris >= MCUBES_MAX_TRIS)
            return -1;
        uint8_t *t = cs->tri[cs->ntris++];
        t[0] = v[i];
        t[1] = v[m];
        t[2] = v[j];
        stack[top][0] = i;
        stack[top++][1] = m;
        stack[top][0] = m;
        stack[top++][1] = j;
    }
    return 0;
}

/* One case: faces, loops, triangles. */
static int mcubes_case(unsigned inside, McubesCase *cs)
{
    int next[MCUBES_EDGES];
    for (int e = 0; e < MCUBES_EDGES; e++)
        next[e] = NONE;
    for (int a = 0; a < 3; a++)
        for (int s = 0; s < 2; s++)
            mcubes_face(inside, a, s, next);
    memset(cs, 0, sizeof *cs);
    int seen[MCUBES_EDGES] = { 0 }, at = 0;
    for (int e = 0; e < MCUBES_EDGES; e++) {
        if (next[e] == NONE || seen[e])
            continue;
        if (cs->nloops >= MCUBES_MAX_LOOPS)
            return -1;
        int len = 0;
        for (int f = e; !seen[f]; f = next[f]) {
            if (next[f] == NONE)
                return -1;   /* a segment that ends nowhere: never, each edge is on 2 faces */
            seen[f] = 1;
            cs->loop[at + len++] = (uint8_t)f;
        }
        cs->loop_len[cs->nloops++] = (uint8_t)len;
        if (mcubes_triangulate(cs->loop + at, len, cs) != 0)
            return -1;
        at += len;
    }
    const uint8_t *v = cs->loop;
    cs->quad = cs->nloops == 1 && cs->loop_len[0] == 4 &&
               !(mcubes_faces_of(v[0]) & mcubes_faces_of(v[2])) &&
               !(mcubes_faces_of(v[1]) & mcubes_faces_of(v[3]));
    if (cs->quad) {   /* the table's cut is along v[0]-v[2]; the marcher may take v[1]-v[3] */
        cs->tri[0][0] = v[0], cs->tri[0][1] = v[1], cs->tri[0][2] = v[2];
        cs->tri[1][0] = v[0], cs->tri[1][1] = v[2], cs->tri[1][2] = v[3];
    }
    return 0;
}

int mcubes_table(McubesTable *t)
{
    for (unsigned c = 0; c < MCUBES_CASES; c++)
        if (mcubes_case(c, &t->c[c]) != 0)
            return -1;
    return 0;
}
