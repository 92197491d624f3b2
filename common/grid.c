/* grid.c — allocating the MAC grid, its staggering table, and the trilinear stencil.
 * flipkit common/: the face layout is filled in one place (grid_init) and every other
 * piece of code reads it from there. */
#include "grid.h"

#include <math.h>
#include <stdlib.h>

static void grid_set_layout(MacGrid *g)
{
    const int cells[3] = { g->nx, g->ny, g->nz };
    for (int a = 0; a < 3; a++) {
        for (int d = 0; d < 3; d++) {
            /* Along its own axis a component has one face more than cells and starts on the
             * cell's low side; across the other axes it sits at cell centres. */
            g->face[a].n[d] = cells[d] + (d == a);
            g->face[a].off[d] = (d == a) ? 0.0f : 0.5f;
        }
    }
}

static void grid_mark_outer_solid(MacGrid *g)
{
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                int outer = i == 0 || j == 0 || k == 0 || i == g->nx - 1 || j == g->ny - 1 ||
                            k == g->nz - 1;
                g->cell[grid_cell_index(g, i, j, k)] = outer ? CELL_SOLID : CELL_AIR;
            }
}

int grid_init(MacGrid *g, int nx, int ny, int nz, float dx)
{
    *g = (MacGrid){ .nx = nx, .ny = ny, .nz = nz, .dx = dx };
    if (nx < 3 || ny < 3 || nz < 3 || !(dx > 0.0f))
        return -1;
    grid_set_layout(g);
    g->cell = calloc(grid_cells(g), sizeof *g->cell);
    g->p = calloc(grid_cells(g), sizeof *g->p);
    int ok = g->cell && g->p;
    for (int a = 0; a < 3; a++) {
        g->vel[a] = calloc(grid_faces(g, a), sizeof(float));
        g->weight[a] = calloc(grid_faces(g, a), sizeof(float));
        ok = ok && g->vel[a] && g->weight[a];
    }
    if (!ok) {
        grid_free(g);
        return -1;
    }
    grid_mark_outer_solid(g);
    return 0;
}

void grid_free(MacGrid *g)
{
    free(g->cell);
    free(g->p);
    for (int a = 0; a < 3; a++) {
        free(g->vel[a]);
        free(g->weight[a]);
    }
    *g = (MacGrid){ 0 };
}

/* @level guided for p2g,g2p */
Stencil grid_stencil(const MacGrid *g, int a, Vec3 x)
{
    Stencil s;
    for (int d = 0; d < 3; d++) {
        float f = vec3_get(x, d) / g->dx - g->face[a].off[d];
        int top = g->face[a].n[d] - 2;  /* the last base whose +1 neighbour exists */
        /* Clamp as float first: converting NaN or a huge float to int is undefined. */
        f = !(f >= 0.0f) ? 0.0f : f > (float)(top + 1) ? (float)(top + 1) : f;
        int base = (int)floorf(f);
        base = base > top ? top : base;
        float t = f - (float)base;
        s.base[d] = base;
        s.t[d] = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
    }
    return s;
}
/* @level end */

void grid_cell_of(const MacGrid *g, Vec3 x, int *i, int *j, int *k)
{
    const int n[3] = { g->nx, g->ny, g->nz };
    int c[3];
    for (int d = 0; d < 3; d++) {
        float f = floorf(vec3_get(x, d) / g->dx);
        /* Compare as float first: converting an out-of-range float to int is undefined. */
        c[d] = !(f >= 0.0f) ? 0 : f >= (float)n[d] ? n[d] - 1 : (int)f;
    }
    *i = c[0];
    *j = c[1];
    *k = c[2];
}
