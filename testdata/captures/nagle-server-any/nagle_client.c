/* nagle_client.c: write-write-read client (Nagle on unless argv[6]=="nodelay").
 * usage: nagle_client ADDR PORT HDR BODY COUNT [nodelay]; response size 64 B. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	if (argc < 6) return 2;
	int hdr = atoi(argv[3]), body = atoi(argv[4]), count = atoi(argv[5]);
	struct sockaddr_storage ss; socklen_t sl; memset(&ss, 0, sizeof ss);
	struct sockaddr_in *s4 = (void *)&ss; struct sockaddr_in6 *s6 = (void *)&ss;
	if (inet_pton(AF_INET, argv[1], &s4->sin_addr) == 1) { s4->sin_family = AF_INET; s4->sin_port = htons(atoi(argv[2])); sl = sizeof *s4; }
	else if (inet_pton(AF_INET6, argv[1], &s6->sin6_addr) == 1) { s6->sin6_family = AF_INET6; s6->sin6_port = htons(atoi(argv[2])); sl = sizeof *s6; }
	else return 2;
	int fd = socket(ss.ss_family, SOCK_STREAM, 0);
	if (argc > 6 && !strcmp(argv[6], "nodelay")) { int one = 1; setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); }
	if (connect(fd, (void *)&ss, sl) < 0) { perror("connect"); return 1; }
	char buf[65536]; memset(buf, 'q', sizeof buf);
	for (int i = 0; i < count; i++) {
		if (write(fd, buf, hdr) != hdr || write(fd, buf, body) != body) return 1;
		int got = 0;
		while (got < 64) { int n = read(fd, buf, 64 - got); if (n <= 0) return 1; got += n; }
	}
	close(fd);
	return 0;
}
