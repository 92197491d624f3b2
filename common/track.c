/* track.c — mixing two tracks (for --use-reference=p2g,g2p) and recording solve histories.
 * flipkit common/: the stages are stagelist.h's, their slots stagetable.c's; nothing here
 * names a stage. */
#include "track.h"

#include "stagetable.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Copies one stage's function pointer (the slot the table names); every slot is a function
 * pointer of its own type, so the bytes are copied, not the value through another type. */
static void track_take(Track *dst, const Track *src, const StageInfo *st)
{
    memcpy((char *)dst + st->slot, (const char *)src + st->slot, sizeof dst->advect);
}

/* "advect, gravity, ..." for the message that lists the stages. */
static void track_list_stages(char *out, size_t n)
{
    size_t used = 0;
    out[0] = '\0';
    for (int q = 0; q < STAGE_COUNT && used < n; q++)
        used += (size_t)snprintf(out + used, n - used, "%s%s", q ? ", " : "", stage_table[q].name);
}

int track_mix(Track *dst, const Track *base, const Track *other, const char *list,
              char *err, size_t errlen)
{
    *dst = *base;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *name = strtok_r(buf, ",", &save); name;
         name = strtok_r(NULL, ",", &save)) {
        const StageInfo *st = stage_find(name);
        if (strcmp(name, "all") == 0) {
            for (int q = 0; q < STAGE_COUNT; q++)
                track_take(dst, other, &stage_table[q]);
        } else if (st) {
            track_take(dst, other, st);
        } else {
            char stages[256];
            track_list_stages(stages, sizeof stages);
            snprintf(err, errlen, "--use-reference=%s: \"%s\" is not a stage (stages: %s)", list,
                     name, stages);
            return -1;
        }
    }
    dst->name = "mixed";
    dst->advect_grid = NULL; /* a mix runs the teaching stepping: see Track */
    return 0;
}

void track_record_residual(SolveHistory *h, int iteration, double residual)
{
    if (!h || iteration < 0 || iteration >= h->capacity)
        return;
    /* A solver that skipped an iteration leaves a gap the lab can see, not a stale value. */
    for (int q = h->count; q < iteration; q++)
        h->residual[q] = NAN;
    h->residual[iteration] = residual;
    if (iteration >= h->count)
        h->count = iteration + 1;
}
