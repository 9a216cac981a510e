// SPDX-License-Identifier: ISC
/*
 * pxbench.c - the server and client of bench/proxy: plain TCP in C on
 * both ends, so that the direct side of a comparison is as fast as the
 * loopback (a Python server is not, and flatters the proxy).
 *
 *   pxbench serve READYFILE
 *	listen on 127.0.0.1 (a free port, written to READYFILE); each
 *	connection (a process of its own) reads one line: "GET N" sends N
 *	bytes and closes, "ECHO" echoes until the client closes
 *   pxbench relay READYFILE HOST PORT
 *	the floor of any relay: listen on 127.0.0.1 (the port written to
 *	READYFILE) and pass each connection on to HOST:PORT, no CONNECT, one
 *	process a direction, blocking splice(2) through a pipe: what a
 *	relay costs with no work of its own
 *   pxbench get [-x PROXYPORT] HOST PORT BYTES
 *	one download of BYTES: prints "bytes N seconds S mib_s R"
 *   pxbench rtt [-x PROXYPORT] HOST PORT ROUNDS
 *	ROUNDS round trips of one byte (TCP_NODELAY), after 200 unmeasured:
 *	prints "median_us M mean_us A"
 *   pxbench many [-x PROXYPORT] HOST PORT CONNS BYTES
 *	CONNS downloads of BYTES at once, every connection made first:
 *	prints "done CONNS bytes N seconds S"
 *   pxbench conns [-x PROXYPORT] HOST PORT N
 *	N connections one after the other, each a download of 6 bytes:
 *	prints "conns N seconds S per_s R"
 *
 * With -x, every connection is a CONNECT tunnel through the proxy on
 * 127.0.0.1:PROXYPORT, made before the clock starts.  A benchmark's tool,
 * not part of confine.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CHUNK	(256 * 1024)

static char	buf[CHUNK];

static void
fatal(const char *what)
{
	fprintf(stderr, "pxbench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
tcp_to(const char *host, unsigned port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
	    .sin_port = htons((uint16_t)port) };
	int fd, one = 1;

	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
		errno = EINVAL;
		fatal("the host is not an IPv4 address");
	}
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		fatal("connect");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* A connection to HOST:PORT, through the proxy when pport is not 0. */
static int
dial(unsigned pport, const char *host, unsigned port)
{
	char req[256], resp[512];
	size_t got = 0;
	ssize_t r;
	int fd, n;

	if (pport == 0)
		return tcp_to(host, port);
	fd = tcp_to("127.0.0.1", pport);
	n = snprintf(req, sizeof(req), "CONNECT %s:%u HTTP/1.1\r\n"
	    "Host: %s:%u\r\n\r\n", host, port, host, port);
	if (write(fd, req, (size_t)n) != n)
		fatal("write the CONNECT");
	/* The proxy's answer ends the head; nothing follows it unasked. */
	while (got < sizeof(resp) - 1) {
		if ((r = read(fd, resp + got, sizeof(resp) - 1 - got)) <= 0)
			fatal("read the proxy's answer");
		got += (size_t)r;
		resp[got] = '\0';
		if (strstr(resp, "\r\n\r\n"))
			break;
	}
	if (strncmp(resp, "HTTP/1.1 200", 12) != 0) {
		fprintf(stderr, "pxbench: the proxy refused: %.60s\n", resp);
		exit(1);
	}
	return fd;
}

static void
write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, p, n)) < 0) {
			if (errno == EINTR)
				continue;
			fatal("write");
		}
		p += w;
		n -= (size_t)w;
	}
}

static void
serve_one(int fd)
{
	char line[64];
	size_t got = 0;
	unsigned long long n;
	ssize_t r;

	while (got < sizeof(line) - 1 && (got == 0 || line[got - 1] != '\n')) {
		if ((r = read(fd, line + got, 1)) <= 0)
			_exit(0);
		got += (size_t)r;
	}
	line[got] = '\0';
	if (sscanf(line, "GET %llu", &n) == 1) {
		while (n > 0) {
			size_t k = n < CHUNK ? (size_t)n : CHUNK;

			write_all(fd, buf, k);
			n -= k;
		}
	} else if (strncmp(line, "ECHO", 4) == 0) {
		while ((r = read(fd, buf, sizeof(buf))) > 0)
			write_all(fd, buf, (size_t)r);
	}
	_exit(0);
}

/*
 * A listener on an ephemeral port of the loopback, its port written to
 * readyfile; children are not waited for.
 */
static int
listen_ready(const char *readyfile)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t l = sizeof(sa);
	FILE *f;
	int s;

	signal(SIGCHLD, SIG_IGN);
	if ((s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(s, 512) < 0 || getsockname(s, (struct sockaddr *)&sa, &l))
		fatal("listen");
	if ((f = fopen(readyfile, "w")) == NULL)
		fatal("the ready file");
	fprintf(f, "%u\n", ntohs(sa.sin_port));
	fclose(f);
	return s;
}

static void __attribute__((noreturn))
serve(const char *readyfile)
{
	int s, c, one = 1;

	s = listen_ready(readyfile);
	for (;;) {
		if ((c = accept(s, NULL, NULL)) < 0)
			continue;
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (fork() == 0) {
			close(s);
			serve_one(c);
		}
		close(c);
	}
}

/* One direction of the floor relay: in to out until in ends. */
static void
relay_way(int in, int out)
{
	int pfd[2];
	ssize_t r, w;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		fatal("pipe");
	(void)fcntl(pfd[1], F_SETPIPE_SZ, 256 * 1024);
	while ((r = splice(in, NULL, pfd[1], NULL, 256 * 1024,
	    SPLICE_F_MOVE)) > 0)
		while (r > 0 && (w = splice(pfd[0], NULL, out, NULL, (size_t)r,
		    SPLICE_F_MOVE)) > 0)
			r -= w;
	shutdown(out, SHUT_WR);
}

static void __attribute__((noreturn))
relay(const char *readyfile, const char *host, unsigned port)
{
	int s, c, u, one = 1;

	s = listen_ready(readyfile);
	for (;;) {
		if ((c = accept(s, NULL, NULL)) < 0)
			continue;
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (fork() == 0) {
			close(s);
			u = tcp_to(host, port);
			if (fork() == 0) {
				relay_way(u, c);
				_exit(0);
			}
			relay_way(c, u);
			_exit(0);
		}
		close(c);
	}
}

static unsigned long long
get_all(int fd, unsigned long long want)
{
	unsigned long long got = 0;
	ssize_t r;

	while (got < want && (r = read(fd, buf, sizeof(buf))) > 0)
		got += (unsigned long long)r;
	return got;
}

static int
get(unsigned pport, const char *host, unsigned port, unsigned long long n)
{
	char req[64];
	int fd = dial(pport, host, port), k;
	unsigned long long got;
	double t0, t;

	k = snprintf(req, sizeof(req), "GET %llu\n", n);
	t0 = now();
	write_all(fd, req, (size_t)k);
	got = get_all(fd, n);
	t = now() - t0;
	printf("bytes %llu seconds %.4f mib_s %.1f\n", got, t,
	    (double)got / t / 1048576);
	close(fd);
	return got == n ? 0 : 1;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int
rtt(unsigned pport, const char *host, unsigned port, int rounds)
{
	int fd = dial(pport, host, port), i;
	double *t = calloc((size_t)rounds, sizeof(*t)), sum = 0, t0;
	char c = 'x';

	if (t == NULL)
		fatal("calloc");
	write_all(fd, "ECHO\n", 5);
	for (i = -200; i < rounds; i++) {
		t0 = now();
		if (write(fd, &c, 1) != 1 || read(fd, &c, 1) != 1)
			fatal("the round trip");
		if (i >= 0)
			sum += t[i] = (now() - t0) * 1e6;
	}
	qsort(t, (size_t)rounds, sizeof(*t), cmp_double);
	printf("median_us %.1f mean_us %.1f\n", t[rounds / 2], sum / rounds);
	close(fd);
	return 0;
}

static int
many(unsigned pport, const char *host, unsigned port, int conns,
    unsigned long long n)
{
	struct pollfd *p = calloc((size_t)conns, sizeof(*p));
	unsigned long long *got = calloc((size_t)conns, sizeof(*got)), sum = 0;
	char req[64];
	int i, k, left = conns;
	double t0;
	ssize_t r;

	if (p == NULL || got == NULL)
		fatal("calloc");
	for (i = 0; i < conns; i++)
		p[i] = (struct pollfd){ .fd = dial(pport, host, port),
		    .events = POLLIN };
	k = snprintf(req, sizeof(req), "GET %llu\n", n);
	t0 = now();
	for (i = 0; i < conns; i++)
		write_all(p[i].fd, req, (size_t)k);
	while (left > 0) {
		if (poll(p, (nfds_t)conns, -1) < 0)
			fatal("poll");
		for (i = 0; i < conns; i++) {
			if (p[i].fd < 0 || !p[i].revents)
				continue;
			if ((r = read(p[i].fd, buf, sizeof(buf))) > 0) {
				got[i] += (unsigned long long)r;
				sum += (unsigned long long)r;
			}
			if (r <= 0 || got[i] >= n) {
				close(p[i].fd);
				p[i].fd = -1;
				left--;
			}
		}
	}
	printf("done %d bytes %llu seconds %.3f\n", conns, sum, now() - t0);
	fflush(stdout);
	return sum == n * (unsigned long long)conns ? 0 : 1;
}

static int
conns(unsigned pport, const char *host, unsigned port, int n)
{
	int i, fd, bad = 0;
	double t0 = now(), t;

	for (i = 0; i < n; i++) {
		fd = dial(pport, host, port);
		write_all(fd, "GET 6\n", 6);
		bad += get_all(fd, 6) != 6;
		close(fd);
	}
	t = now() - t0;
	printf("conns %d seconds %.3f per_s %.1f\n", n, t, n / t);
	return bad ? 1 : 0;
}

static void
usage(void)
{
	fprintf(stderr, "usage: pxbench serve READYFILE\n"
	    "       pxbench relay READYFILE HOST PORT\n"
	    "       pxbench get|rtt|conns [-x PROXYPORT] HOST PORT N\n"
	    "       pxbench many [-x PROXYPORT] HOST PORT CONNS BYTES\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	unsigned pport = 0, port;
	const char *cmd;

	if (argc < 3)
		usage();
	cmd = argv[1];
	if (strcmp(cmd, "serve") == 0)
		serve(argv[2]);
	if (strcmp(cmd, "relay") == 0 && argc >= 5)
		relay(argv[2], argv[3], (unsigned)strtoul(argv[4], NULL, 10));
	argv += 2;
	argc -= 2;
	if (argc >= 2 && strcmp(argv[0], "-x") == 0) {
		pport = (unsigned)strtoul(argv[1], NULL, 10);
		argv += 2;
		argc -= 2;
	}
	if (argc < 3)
		usage();
	port = (unsigned)strtoul(argv[1], NULL, 10);
	if (strcmp(cmd, "get") == 0)
		return get(pport, argv[0], port, strtoull(argv[2], NULL, 10));
	if (strcmp(cmd, "rtt") == 0)
		return rtt(pport, argv[0], port, atoi(argv[2]));
	if (strcmp(cmd, "conns") == 0)
		return conns(pport, argv[0], port, atoi(argv[2]));
	if (strcmp(cmd, "many") == 0 && argc >= 4)
		return many(pport, argv[0], port, atoi(argv[2]),
		    strtoull(argv[3], NULL, 10));
	usage();
	return 2;
}
