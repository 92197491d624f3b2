
/* Attack: write to the instructor's terminal through what the stage prints, in every case: an
 * OSC 52 clipboard write, a title change, "\r\e[2K" and a fake score line over the log's "| "
 * quote, a C1 CSI (0xC2 0x9B: "clear the screen" where C1 counts) and a bidi override that
 * reverses what follows. The stage is otherwise the reference's: it keeps full marks, and its
 * log shows every one of these as text (\x1b]52, \r, \xc2\x9b, \u202e), never as the bytes. */
#include <stdio.h>

__attribute__((constructor)) static void attack_escapes(void)
{
    fputs("\x1b]52;c;ZWNobyBwd25lZA==\x07", stdout);
    fputs("\x1b]0;advect: 10.0 / 10.0\x07", stdout);
    fputs("debug\r\x1b[2Kadvect                    10.0    10.0  all 7 cases pass\n", stdout);
    fputs("\xc2\x9b" "2J\xe2\x80\xae" "01 / 0.01 derocs\n", stdout);
    fflush(stdout);
}
