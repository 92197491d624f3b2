/* bench.cl — the memory-bandwidth probe of `make bench`: a STREAM-style triad on the device.
 * flipkit kernels/: not part of the simulation; the benchmark compares its stages with it. */

__kernel void bench_triad(__global float *a, __global const float *b, __global const float *c,
                          float s, int n)
{
    int i = get_global_id(0);
    if (i < n)
        a[i] = b[i] + s * c[i];
}
