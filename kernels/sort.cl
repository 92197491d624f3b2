/* sort.cl — particles sorted by cell with a counting sort, then moved into that order.
 * flipkit kernels/: the integer atomics here only count; after the scatter each cell's bucket
 * is put in particle-id order, so the sort's result is the same on every run. */

/* counts[c] = the particles in cell c, and (fresh == 0) keys[p] = the cell of particle p first;
 * with fresh == 1 keep_inside left the keys (pipe_sort_index says when). Each work-item walks
 * `chunk` consecutive particles and adds each run of equal keys with one atomic add: after the
 * first sort the particles lie in cell order and move less than a cell per substep, so a run
 * is most of a cell's particles. An atomic per particle, all on the same few counters one
 * after the other, was most of this kernel's time. The counts are the same in whatever order
 * the adds land. */
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

/* Exclusive prefix sum of counts[0..n) into start[0..n], by one work-group: each work-item
 * sums a contiguous chunk, the chunk totals are scanned in local memory, then each work-item
 * writes its chunk. cursor receives a copy of start for the scatter. */
__kernel void sort_scan(__global int *start, __global int *cursor, __global const int *counts,
                        int n, __local int *totals)
{
    int id = get_local_id(0), size = get_local_size(0);
    int chunk = (n + size - 1) / size;
    int lo = min(id * chunk, n), hi = min(lo + chunk, n);
    int sum = 0;
    for (int c = lo; c < hi; c++)
        sum += counts[c];
    totals[id] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (id == 0) {
        int run = 0;
        for (int q = 0; q < size; q++) {
            int t = totals[q];
            totals[q] = run;
            run += t;
        }
        start[n] = run;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int run = totals[id];
    for (int c = lo; c < hi; c++) {
        start[c] = run;
        cursor[c] = run;
        run += counts[c];
    }
}

/* The same walk as sort_keys: a run of equal keys takes its places with one atomic add. Which
 * run lands first in a bucket depends on timing; sort_buckets puts each bucket in id order. */
__kernel void sort_scatter(__global int *sorted, __global int *cursor, __global const int *keys,
                           int count, int chunk)
{
    int lo = get_global_id(0) * chunk, hi = min(lo + chunk, count);
    int p = lo;
    while (p < hi) {
        int key = keys[p], end = p + 1;
        while (end < hi && keys[end] == key)
            end++;
        int at = atomic_add(&cursor[key], end - p);
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
 * memory). id follows each particle: its place in the host's arrays, for the download. */
__kernel void sort_permute(__global float *pos_out, __global float *vel_out, __global int *id_out,
                           __global const float *pos, __global const float *vel,
                           __global const int *id, __global const int *sorted, int count)
{
    int q = get_global_id(0);
    if (q >= count)
        return;
    int p = sorted[q];
    vstore3(load3(pos, (size_t)p), (size_t)q, pos_out);
    vstore3(load3(vel, (size_t)p), (size_t)q, vel_out);
    id_out[q] = id[p];
}
