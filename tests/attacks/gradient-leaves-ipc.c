
/* Attack: leave a 256 MiB SysV shared-memory segment and a message queue behind, which
 * outlive the process and the grading. */
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/shm.h>

__attribute__((constructor)) static void attack_ipc(void)
{
    int id = shmget(IPC_PRIVATE, 256u << 20, IPC_CREAT | 0600);
    if (id >= 0)
        shmat(id, NULL, 0);
    msgget(IPC_PRIVATE, IPC_CREAT | 0600);
}
