/* fuzz_state.c — libFuzzer target: the state reader and the checkpoint loader on any bytes.
 * flipkit tests/: each input is read as it is (the checksum catches most changes), then again
 * with its last 8 bytes made the right checksum, so the fuzzer reaches the sections, the
 * counts and checkpoint_load's range checks. Seeds: checkpoints and golden cases. */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzzfile.h"
#include "scene.h"
#include "checkpoint.h"
#include "sim.h"
#include "state.h"
#include "track.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The checkpoints in the seed corpus are of this scene (the Makefile writes them with it). */
static const char fuzz_scene[] =
    "{\"name\": \"tiny\", \"grid\": {\"resolution\": [6, 5, 4], \"cell_size\": 0.5},"
    " \"fluid\": [{\"box\": {\"min\": [0.5, 0.5, 0.5], \"max\": [1.5, 1.5, 1.5]}}]}";

static Sim *fuzz_sim(void)
{
    static Scene sc;
    static Sim sim;
    static int ready;
    char err[SCENE_ERR_MAX];
    if (!ready) {
        if (scene_load_text(fuzz_scene, "tiny.json", NULL, 0, &sc, err, sizeof err) != 0 ||
            sim_init(&sim, &sc, &student_track) != 0)
            abort();
        ready = 1;
    }
    return &sim;
}

static void fuzz_read(const uint8_t *data, size_t size)
{
    const char *path = fuzzfile_put(data, size);
    StateFile sf;
    state_init(&sf);
    char err[1024] = "";
    if (state_read(&sf, path, err, sizeof err) != 0 && (!err[0] || strchr(err, '\n')))
        abort();
    state_free(&sf);
    err[0] = '\0';
    if (checkpoint_load(fuzz_sim(), path, err, sizeof err) != 0 && (!err[0] || strchr(err, '\n')))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_read(data, size);
    if (size < 8)
        return 0;
    uint8_t *fixed = malloc(size);
    if (!fixed)
        return 0;
    memcpy(fixed, data, size);
    uint64_t h = 1469598103934665603ull; /* FNV-1a 64, as state.h defines the checksum */
    for (size_t i = 0; i < size - 8; i++)
        h = (h ^ fixed[i]) * 1099511628211ull;
    for (int b = 0; b < 8; b++)
        fixed[size - 8 + b] = (uint8_t)(h >> (8 * b));
    fuzz_read(fixed, size);
    free(fixed);
    return 0;
}
