
/* Attack: send the working directory to a listener on this machine's loopback (the check
 * starts one on a port of its own and writes it over 47613 here). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

__attribute__((constructor)) static void attack_network(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(47613)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    char cwd[256] = "?";
    if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) == 0 && getcwd(cwd, sizeof cwd))
        write(s, cwd, strlen(cwd));
}
