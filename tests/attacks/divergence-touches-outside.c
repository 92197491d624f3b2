
/* Attack: change the metadata of a file beside the grader's work directory (the check puts
 * FLIPKIT_ATTACK_VICTIM there): mode, owner, times, an extended attribute. Landlock does not
 * cover these; the same path could make a set-uid shell. */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

__attribute__((constructor)) static void attack_metadata(void)
{
    /* from work/run/divergence/caseN (or work/scene/NAME): four levels up is --work */
    static const char *const victims[] = { "../../../../victim", "../../../victim" };
    for (int i = 0; i < 2; i++) {
        chmod(victims[i], 04777);
        chown(victims[i], 12345, 12345);
        utimensat(AT_FDCWD, victims[i], NULL, 0);
        setxattr(victims[i], "user.owned", "1", 1, 0);
    }
}
