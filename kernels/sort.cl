/* sort.cl — particles sorted by cell with a counting sort, then moved into that order.
 * flipkit kernels/: the integer atomics here only count; after the scatter each cell's bucket
 * is put in particle-id order, so the sort's result is the same on every run. */

/* counts[c] = the particles in cell c (0 on entry: the last sort_scatter counted them down),
 * and (fresh == 0) keys[p] = the cell of particle p first; with fresh == 1 keep_inside left
 * the keys (pipe_sort_index says when). Each work-item walks `chunk` consecutive particles
 * and adds each run of equal keys with one atomic add: after the first sort the particles lie
 * in cell order and move less than a cell per substep, so a run is most of a cell's
 * particles. An atomic per particle, all on the same few counters one after the other, was
 * most of this kernel's time. The counts are the same in whatever order the adds land. */
__kernel void sort_keys(__global int *keys, __global int *counts, __global const float *pos,
                        int4 n4, float dx, int count, int chunk, int fresh)
{
    int lo = get_global_id(0) * chunk, hi = min(lo + chunk, count);
    int run_key = -1, run = 0;
    for (int p = lo; p < hi; p++) {
        int key;
        if (fresh) {
            key = keys[p];
        } else {
            key = cell_along(pos[3 * p], dx, n4.x) +
                  n4.x * (cell_along(pos[3 * p + 1], dx, n4.y) +
                          n4.y * cell_along(pos[3 * p + 2], dx, n4.z));
            keys[p] = key;
        }
        if (key != run_key) {
            if (run)
                atomic_add(&counts[run_key], run);
            run_key = key;
            run = 0;
        }
        run++;
    }
    if (run)
        atomic_add(&counts[run_key], run);
}

/* Exclusive prefix sum of counts[0..n) into start[0..n] in three launches, so that both cores
 * take part (one work-group did it all, on one core: 3 ms a substep at 128^3). Work-item g
 * owns the cells [g * chunk, (g + 1) * chunk): sort_scan_sums adds its counts, sort_scan_parts
 * turns those sums into each chunk's start, and sort_scan_write writes the chunk's starts.
 * Integers, so any order gives the same sums. */
__kernel void sort_scan_sums(__global int *sums, __global const int *counts, int n, int chunk,
                             int nparts)
{
    int g = get_global_id(0);
    if (g >= nparts)
        return;
    int lo = min(g * chunk, n), hi = min(lo + chunk, n), sum = 0;
    for (int c = lo; c < hi; c++)
        sum += counts[c];
    sums[g] = sum;
}

/* sums[g] = the sum of the sums before g; start[n] = the total (one work-item) */
__kernel void sort_scan_parts(__global int *sums, __global int *start, int n, int nparts)
{
    int run = 0;
    for (int g = 0; g < nparts; g++) {
        int t = sums[g];
        sums[g] = run;
        run += t;
    }
    start[n] = run;
}

__kernel void sort_scan_write(__global int *start, __global const int *counts,
                              __global const int *sums, int n, int chunk, int nparts)
{
    int g = get_global_id(0);
    if (g >= nparts)
        return;
    int lo = min(g * chunk, n), hi = min(lo + chunk, n), run = sums[g];
    for (int c = lo; c < hi; c++) {
        start[c] = run;
        run += counts[c];
    }
}

/* The same walk as sort_keys: a run of equal keys takes its places with one atomic add. It
 * counts its cell's count down (the places left, filled from the bucket's front), so every
 * count is 0 again afterwards, ready for the next sort's sort_keys: pipe_alloc_grid clears
 * them once. Which run lands where in a bucket depends on timing; sort_buckets puts each
 * bucket in id order. */
__kernel void sort_scatter(__global int *sorted, __global int *counts, __global const int *start,
                           __global const int *keys, int count, int chunk)
{
    int lo = get_global_id(0) * chunk, hi = min(lo + chunk, count);
    int p = lo;
    while (p < hi) {
        int key = keys[p], end = p + 1;
        while (end < hi && keys[end] == key)
            end++;
        int at = start[key + 1] - atomic_sub(&counts[key], end - p);
        for (; p < end; p++)
            sorted[at++] = p;
    }
}

/* Insertion sort of each cell's bucket by particle id (a bucket holds about 8). By id, not by
 * place: the places are last substep's order, or the host's after an upload, and a run
 * resumed from a checkpoint must sum each face in the same order as the run it continues. */
__kernel void sort_buckets(__global int *sorted, __global const int *start,
                           __global const int *id, int ncells)
{
    int c = get_global_id(0);
    if (c >= ncells)
        return;
    for (int q = start[c] + 1; q < start[c + 1]; q++) {
        int v = sorted[q], key = id[v], r = q - 1;
        while (r >= start[c] && id[sorted[r]] > key) {
            sorted[r + 1] = sorted[r];
            r--;
        }
        sorted[r + 1] = v;
    }
}

/* The particles themselves moved into sorted order, so p2g finds a cell row's particles in one
 * contiguous run and g2p, advect and keep_inside walk the grid in cell order (caches, not
 * memory). id follows each particle: its place in the host's arrays, for the download. One
 * array a launch (positions, velocities, ids), so that one spare array of float3 receives each
 * in turn (pipestate.c's pipe_sort): 16 bytes a particle fewer than spares for all three. */
__kernel void sort_permute3(__global float *out, __global const float *in,
                            __global const int *sorted, int count)
{
    int q = get_global_id(0);
    if (q >= count)
        return;
    vstore3(load3(in, (size_t)sorted[q]), (size_t)q, out);
}

__kernel void sort_permute1(__global int *out, __global const int *in,
                            __global const int *sorted, int count)
{
    int q = get_global_id(0);
    if (q >= count)
        return;
    out[q] = in[sorted[q]];
}

/* The whole sort and the three moves in one launch of one work-group, for so few particles
 * that the nine launches above cost more than their work (pipe_sort picks it by count): the
 * same steps with a barrier between them, so the same order (each bucket in id order), the
 * same starts, and the counts back at 0. The moves go as pipe_sort's three would: the ids into
 * keys (read for the last time by the scatter), positions into spare, then velocities into
 * the positions' old buffer; the host swaps the handles to match. */
__kernel void sort_small(__global int *keys, __global int *counts, __global int *start,
                         __global int *sorted, __global int *id, __global float *pos,
                         __global float *vel, __global float *spare, int4 n4, float dx,
                         int count, int fresh)
{
    int w = get_local_id(0), size = (int)get_local_size(0), ncells = n4.x * n4.y * n4.z;
    for (int p = w; p < count; p += size) {
        int key = fresh ? keys[p]
                        : cell_along(pos[3 * p], dx, n4.x) +
                              n4.x * (cell_along(pos[3 * p + 1], dx, n4.y) +
                                      n4.y * cell_along(pos[3 * p + 2], dx, n4.z));
        keys[p] = key;
        atomic_inc(&counts[key]);
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (w == 0) {
        int run = 0;
        for (int c = 0; c < ncells; c++) {
            start[c] = run;
            run += counts[c];
        }
        start[ncells] = run;
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (int p = w; p < count; p += size) {
        int key = keys[p];
        sorted[start[key + 1] - atomic_dec(&counts[key])] = p;
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (int c = w; c < ncells; c += size)
        for (int q = start[c] + 1; q < start[c + 1]; q++) { /* sort_buckets' insertion sort */
            int v = sorted[q], key = id[v], r = q - 1;
            while (r >= start[c] && id[sorted[r]] > key) {
                sorted[r + 1] = sorted[r];
                r--;
            }
            sorted[r + 1] = v;
        }
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (int q = w; q < count; q += size) {
        int from = sorted[q];
        keys[q] = id[from];
        vstore3(load3(pos, (size_t)from), (size_t)q, spare);
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (int q = w; q < count; q += size)
        vstore3(load3(vel, (size_t)sorted[q]), (size_t)q, pos);
}
