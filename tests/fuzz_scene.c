/* fuzz_scene.c — libFuzzer target: the scene loader on any text (make fuzz, make check-fuzz).
 * flipkit tests/: every input must load or be refused with one line; a loaded scene's memory
 * estimate must not overflow. Seeds: scenes/, tests/golden/, grader/cases/, tests/bad_scenes/. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"
#include "sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    Scene sc;
    char err[SCENE_ERR_MAX];
    if (scene_load_text(text, "fuzz.json", NULL, 0, &sc, err, sizeof err) == 0) {
        size_t particles;
        (void)sim_memory_need(&sc, &particles);
        scene_free(&sc);
    } else if (!err[0] || strchr(err, '\n')) {
        abort(); /* a refusal is one line, never none */
    }
    free(text);
    return 0;
}
