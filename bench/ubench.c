// SPDX-License-Identifier: ISC
/*
 * ubench.c - the cost of a call the supervisor answers (src/run/notify.c):
 * connect(2) to a unix socket of the sandbox's own, a datagram sent with
 * an address, connect(2) over TCP on loopback (which goes on in the
 * kernel after a look at its family), and flock(2) on an own file.
 *
 * usage: ubench DIR N
 * Prints "NAME N us-per-call" for each.  DIR: where its sockets and file
 * go (the workspace, or the sandbox's tmp).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void *
acceptor(void *v)
{
	int l = *(int *)v, c;

	while ((c = accept(l, NULL, NULL)) >= 0)
		close(c);
	return NULL;
}

int
main(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX }, d = a;
	struct sockaddr_in in = { .sin_family = AF_INET };
	socklen_t il = sizeof(in);
	pthread_t t, t2;
	int l, dg, tl, n, i, fd;
	double t0;

	if (argc != 3)
		return 2;
	n = atoi(argv[2]);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/ubench.s", argv[1]);
	snprintf(d.sun_path, sizeof(d.sun_path), "%s/ubench.d", argv[1]);
	unlink(a.sun_path);
	unlink(d.sun_path);
	l = socket(AF_UNIX, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(l, 128) < 0) {
		/* The landlock backend below ABI 9 refuses socket(AF_UNIX). */
		printf("unix - unavailable\n");
		goto tcp;
	}
	pthread_create(&t, NULL, acceptor, &l);
	t0 = now();
	for (i = 0; i < n; i++) {
		int c = socket(AF_UNIX, SOCK_STREAM, 0);

		if (connect(c, (struct sockaddr *)&a, sizeof(a)) < 0) {
			perror("unix connect");
			return 1;
		}
		close(c);
	}
	printf("unix_connect %d %.1f\n", n, (now() - t0) / n);

	dg = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (bind(dg, (struct sockaddr *)&d, sizeof(d)) < 0) {
		perror("unix dgram");
		return 1;
	}
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	t0 = now();
	for (i = 0; i < n; i++) {
		char c;

		if (sendto(fd, "x", 1, 0, (struct sockaddr *)&d,
		    sizeof(d)) != 1 || read(dg, &c, 1) != 1) {
			perror("unix sendto");
			return 1;
		}
	}
	printf("unix_sendto %d %.1f\n", n, (now() - t0) / n);
tcp:

	tl = socket(AF_INET, SOCK_STREAM, 0);
	in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (tl >= 0 && bind(tl, (struct sockaddr *)&in, sizeof(in)) == 0 &&
	    listen(tl, 128) == 0 &&
	    getsockname(tl, (struct sockaddr *)&in, &il) == 0) {
		pthread_create(&t2, NULL, acceptor, &tl);
		t0 = now();
		for (i = 0; i < n; i++) {
			int c = socket(AF_INET, SOCK_STREAM, 0);

			if (connect(c, (struct sockaddr *)&in, sizeof(in)) < 0) {
				perror("tcp connect");
				return 1;
			}
			close(c);
		}
		printf("tcp_connect %d %.1f\n", n, (now() - t0) / n);
	} else
		printf("tcp_connect - unavailable\n");

	snprintf(a.sun_path, sizeof(a.sun_path), "%s/ubench.f", argv[1]);
	fd = open(a.sun_path, O_RDWR | O_CREAT, 0644);
	t0 = now();
	for (i = 0; i < n; i++)
		if (flock(fd, LOCK_EX) < 0 || flock(fd, LOCK_UN) < 0) {
			perror("flock");
			return 1;
		}
	printf("flock %d %.1f\n", n, (now() - t0) / n);
	unlink(a.sun_path);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/ubench.s", argv[1]);
	unlink(a.sun_path);
	unlink(d.sun_path);
	return 0;
}
