// SPDX-License-Identifier: ISC
/*
 * netbench.c - a TCP server and three clients for the proxy's benchmarks:
 * bulk throughput, round-trip latency and many downloads at once, each
 * either directly or through an HTTP CONNECT proxy (one tunnel a
 * connection), so that the same code runs on both sides of a comparison.
 *
 *	netbench serve READYFILE
 *	netbench get  [-x HOST:PORT] HOST:PORT BYTES
 *	netbench rtt  [-x HOST:PORT] HOST:PORT COUNT [SIZE]
 *	netbench many [-x HOST:PORT] HOST:PORT CONNS BYTES
 *
 * serve listens on 127.0.0.1, an ephemeral port, writes the port to
 * READYFILE (made whole by a rename, so a reader never sees half of it)
 * and serves each connection in a child process of its own.  A
 * connection's first line says what it wants: "S BYTES\n", that many
 * bytes (zeros, from a buffer in memory: the server costs as little as a
 * server can) and then end of file; "E\n", every byte echoed until end of
 * file.  Written in C on purpose: a server in Python is slower than the
 * proxy it is meant to measure.
 *
 * get fetches BYTES in one connection and prints "BYTES SECONDS MIB/S",
 * timed from the request to the last byte.  rtt sends SIZE bytes (default
 * 1) and reads them back, COUNT times after 100 untimed, with TCP_NODELAY,
 * and prints the median, p10, p90 and mean round trip in microseconds.
 * many opens CONNS connections (through the proxy: CONNS tunnels), asks
 * each for BYTES, reads them all at once with poll(2), and prints
 * "CONNS BYTES SECONDS" once every byte has come.  -x goes through the
 * proxy at HOST:PORT: "CONNECT HOST:PORT", and the reply must be a 200.
 *
 * A benchmark tool: any failure (a refused tunnel, a short transfer) is
 * one line on stderr and exit status 1; bad usage is status 2.
 */
#define _GNU_SOURCE

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BUFSZ		(256 * 1024)
#define LINE_MAX_	64
#define RTT_WARMUP	100
#define MAXCONNS	4096

static char buf[BUFSZ];

static noreturn void
usage(void)
{
	fprintf(stderr, "usage: netbench serve READYFILE\n"
	    "       netbench get  [-x HOST:PORT] HOST:PORT BYTES\n"
	    "       netbench rtt  [-x HOST:PORT] HOST:PORT COUNT [SIZE]\n"
	    "       netbench many [-x HOST:PORT] HOST:PORT CONNS BYTES\n");
	exit(2);
}

static noreturn void
fail(const char *fmt, ...)
{
	va_list ap;

	fputs("netbench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static long long
number(const char *s, long long min, long long max)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "netbench: bad number '%s' (want %lld..%lld)\n",
		    s, min, max);
		exit(2);
	}
	return v;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "HOST:PORT" with a numeric IPv4 host, as the benchmarks use. */
static struct sockaddr_in
parse_addr(const char *s)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char host[INET_ADDRSTRLEN];
	const char *colon = strrchr(s, ':');

	if (colon == NULL || (size_t)(colon - s) >= sizeof(host))
		fail("'%s': want IPV4:PORT", s);
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		fail("'%s': want IPV4:PORT", s);
	sa.sin_port = htons((uint16_t)number(colon + 1, 1, 65535));
	return sa;
}

static void
write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, c, n)) < 0) {
			if (errno == EINTR)
				continue;
			fail("write: %s", strerror(errno));
		}
		c += w;
		n -= (size_t)w;
	}
}

/* Read exactly n bytes into p; 0, or -1 at an early end of file. */
static int
read_exact(int fd, void *p, size_t n)
{
	char *c = p;
	ssize_t r;

	while (n > 0) {
		if ((r = read(fd, c, n)) < 0) {
			if (errno == EINTR)
				continue;
			fail("read: %s", strerror(errno));
		}
		if (r == 0)
			return -1;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

/*
 * Connect to DEST, through the proxy when there is one: CONNECT, then the
 * reply's head read a byte at a time, so that nothing after it is taken.
 */
static int
dial(const char *proxy, const char *dest)
{
	struct sockaddr_in sa = parse_addr(proxy ? proxy : dest);
	char head[1024], req[256];
	size_t n = 0;
	int fd, one = 1;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		fail("socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		fail("connect %s: %s", proxy ? proxy : dest, strerror(errno));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (proxy == NULL)
		return fd;
	snprintf(req, sizeof(req), "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n",
	    dest, dest);
	write_all(fd, req, strlen(req));
	for (;;) {
		if (n == sizeof(head) - 1)
			fail("proxy: reply head too long");
		if (read_exact(fd, head + n, 1) < 0)
			fail("proxy: closed during the reply");
		n++;
		if (n >= 4 && memcmp(head + n - 4, "\r\n\r\n", 4) == 0)
			break;
	}
	head[n] = '\0';
	if (strncmp(head, "HTTP/1.1 200", 12) != 0 &&
	    strncmp(head, "HTTP/1.0 200", 12) != 0)
		fail("proxy refused %s: %.*s", dest, (int)strcspn(head, "\r"),
		    head);
	return fd;
}

static void
serve_one(int fd)
{
	char line[LINE_MAX_];
	size_t n = 0;
	long long want;
	ssize_t r;

	while (n < sizeof(line) - 1) {
		if (read_exact(fd, line + n, 1) < 0)
			_exit(0);
		if (line[n++] == '\n')
			break;
	}
	line[n] = '\0';
	if (line[0] == 'S' && line[1] == ' ') {
		line[n - 1] = '\0';
		want = number(line + 2, 0, 1LL << 50);
		while (want > 0) {
			size_t k = want < BUFSZ ? (size_t)want : BUFSZ;

			write_all(fd, buf, k);
			want -= (long long)k;
		}
	} else if (strcmp(line, "E\n") == 0) {
		int one = 1;

		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		while ((r = read(fd, buf, sizeof(buf))) > 0)
			write_all(fd, buf, (size_t)r);
	}
	_exit(0);
}

static int
serve(const char *ready)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sigaction sig = { .sa_handler = SIG_IGN,
	    .sa_flags = SA_NOCLDWAIT };
	socklen_t len = sizeof(sa);
	char tmp[4096];
	FILE *f;
	int lfd, fd;

	sigaction(SIGCHLD, &sig, NULL);
	if ((lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(lfd, 1024) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &len) < 0)
		fail("listen: %s", strerror(errno));
	snprintf(tmp, sizeof(tmp), "%s.tmp", ready);
	if ((f = fopen(tmp, "w")) == NULL)
		fail("%s: %s", tmp, strerror(errno));
	fprintf(f, "%u\n", ntohs(sa.sin_port));
	if (fclose(f) != 0 || rename(tmp, ready) < 0)
		fail("%s: %s", ready, strerror(errno));
	for (;;) {
		if ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			fail("accept: %s", strerror(errno));
		}
		switch (fork()) {
		case -1:
			fail("fork: %s", strerror(errno));
		case 0:
			close(lfd);
			serve_one(fd);
		}
		close(fd);
	}
}

static int
get(const char *proxy, const char *dest, long long bytes)
{
	char req[LINE_MAX_];
	long long got = 0;
	double t0, t;
	ssize_t r;
	int fd = dial(proxy, dest);

	snprintf(req, sizeof(req), "S %lld\n", bytes);
	t0 = now();
	write_all(fd, req, strlen(req));
	while ((r = read(fd, buf, sizeof(buf))) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			fail("read: %s", strerror(errno));
		}
		got += r;
	}
	t = now() - t0;
	if (got != bytes)
		fail("got %lld bytes, not %lld", got, bytes);
	printf("%lld %.6f %.1f\n", got, t, (double)got / t / 1048576);
	return 0;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int
rtt(const char *proxy, const char *dest, long count, size_t size)
{
	double *v, t0, sum = 0;
	long i;
	int fd = dial(proxy, dest);

	if ((v = calloc((size_t)count, sizeof(*v))) == NULL)
		fail("out of memory");
	write_all(fd, "E\n", 2);
	for (i = -RTT_WARMUP; i < count; i++) {
		t0 = now();
		write_all(fd, buf, size);
		if (read_exact(fd, buf, size) < 0)
			fail("echo closed after %ld round trips", i);
		if (i >= 0)
			sum += v[i] = (now() - t0) * 1e6;
	}
	qsort(v, (size_t)count, sizeof(*v), cmp_double);
	printf("%.2f %.2f %.2f %.2f\n", v[count / 2], v[count / 10],
	    v[count * 9 / 10], sum / (double)count);
	free(v);
	return 0;
}

static int
many(const char *proxy, const char *dest, int conns, long long bytes)
{
	struct pollfd *p;
	long long *left, total = 0;
	char req[LINE_MAX_];
	double t0;
	int i, open_;
	ssize_t r;

	if ((p = calloc((size_t)conns, sizeof(*p))) == NULL ||
	    (left = calloc((size_t)conns, sizeof(*left))) == NULL)
		fail("out of memory");
	snprintf(req, sizeof(req), "S %lld\n", bytes);
	for (i = 0; i < conns; i++) {
		p[i].fd = dial(proxy, dest);
		p[i].events = POLLIN;
		left[i] = bytes;
	}
	t0 = now();
	for (i = 0; i < conns; i++)
		write_all(p[i].fd, req, strlen(req));
	for (open_ = conns; open_ > 0;) {
		if (poll(p, (nfds_t)conns, -1) < 0) {
			if (errno == EINTR)
				continue;
			fail("poll: %s", strerror(errno));
		}
		for (i = 0; i < conns; i++) {
			if (p[i].fd < 0 || p[i].revents == 0)
				continue;
			if ((r = read(p[i].fd, buf, sizeof(buf))) < 0) {
				if (errno == EINTR || errno == EAGAIN)
					continue;
				fail("read: %s", strerror(errno));
			}
			if (r == 0) {
				if (left[i] != 0)
					fail("connection %d ended %lld bytes "
					    "short", i, left[i]);
				close(p[i].fd);
				p[i].fd = -1;
				open_--;
				continue;
			}
			left[i] -= r;
			total += r;
		}
	}
	printf("%d %lld %.6f\n", conns, total, now() - t0);
	free(p);
	free(left);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *proxy = NULL, *cmd;

	if (argc < 2)
		usage();
	cmd = argv[1];
	argv++;
	argc--;
	if (argc >= 3 && strcmp(argv[1], "-x") == 0) {
		proxy = argv[2];
		argv += 2;
		argc -= 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (strcmp(cmd, "serve") == 0 && argc == 2 && proxy == NULL)
		return serve(argv[1]);
	if (strcmp(cmd, "get") == 0 && argc == 3)
		return get(proxy, argv[1], number(argv[2], 0, 1LL << 50));
	if (strcmp(cmd, "rtt") == 0 && (argc == 3 || argc == 4))
		return rtt(proxy, argv[1], (long)number(argv[2], 1, 100000000),
		    argc == 4 ? (size_t)number(argv[3], 1, BUFSZ) : 1);
	if (strcmp(cmd, "many") == 0 && argc == 4)
		return many(proxy, argv[1], (int)number(argv[2], 1, MAXCONNS),
		    number(argv[3], 0, 1LL << 50));
	usage();
}
