/* fuzz_ply.c — libFuzzer target: the PLY particle reader on any bytes (make fuzz, check-fuzz).
 * flipkit tests/: every input must read or be refused with one line. Seeds: frames flipsim
 * wrote (build/fuzz/corpus/ply). */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzzfile.h"
#include "particles.h"
#include "ply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Particles ps;
    part_init(&ps);
    char err[1024] = "";
    if (ply_read_particles(fuzzfile_put(data, size), &ps, err, sizeof err) != 0 &&
        (!err[0] || strchr(err, '\n')))
        abort();
    part_free(&ps);
    return 0;
}
