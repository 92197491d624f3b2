
/* Attack: fill the disk through the grader. Each run's directory is a 256 MiB tmpfs; when all
 * of it was copied back and kept until the grading ended, one stage that wrote 180 MiB of junk
 * in every case took the work directory past a gigabyte and still kept full marks. Only
 * out.state is copied back now: the stage keeps full marks, and check_grader.sh checks the
 * kept work directory stays small. */
#include <stdio.h>
#include <string.h>

__attribute__((constructor)) static void attack_fill_disk(void)
{
    static char junk[1 << 20];
    memset(junk, 'j', sizeof junk);
    for (int f = 0; f < 3; f++) {   /* three files of 60 MiB: under file_mib (64) each */
        char name[32];
        snprintf(name, sizeof name, "junk%d.bin", f);
        FILE *out = fopen(name, "wb");
        for (int mib = 0; out && mib < 60; mib++)
            fwrite(junk, 1, sizeof junk, out);
        if (out)
            fclose(out);
    }
}
