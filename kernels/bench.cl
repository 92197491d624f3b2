/* bench.cl — the probes of `make bench`: a STREAM-style triad on the device, and a one-item
 * kernel for what a launch costs. flipkit kernels/: not part of the simulation; the benchmark
 * compares its stages with them. */

__kernel void bench_triad(__global float *a, __global const float *b, __global const float *c,
                          float s, int n)
{
    int i = get_global_id(0);
    if (i < n)
        a[i] = b[i] + s * c[i];
}

/* The smallest launch: one item, one float. */
__kernel void bench_tick(__global float *a)
{
    a[get_global_id(0)] += 1.0f;
}
