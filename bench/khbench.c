// SPDX-License-Identifier: ISC
/*
 * khbench.c - the client of bench/keyholder: HTTP/1.1 on one keep-alive
 * connection, over TLS (OpenSSL, as the keyholder) or plain TCP.
 *
 *   khbench latency HOST PORT tls|plain N PATH [CA_FILE]
 *	N sequential GETs of PATH: prints "median_us MEDIAN mean_us MEAN"
 *   khbench throughput HOST PORT tls|plain 1 PATH [CA_FILE]
 *	one GET of PATH, its body read to the end: prints "bytes N
 *	seconds S mib_s R"
 *
 * The connection (and handshake) is made before the clock starts.  A
 * benchmark's tool, not part of confine.
 */
#define _GNU_SOURCE
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BUF_MAX	(256 * 1024)

struct cl {
	int	 fd;
	SSL	*ssl;
	char	 buf[BUF_MAX];
	size_t	 off, len;
};

static void
fatal(const char *what)
{
	fprintf(stderr, "khbench: %s\n", what);
	ERR_print_errors_fp(stderr);
	exit(1);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
cl_open(struct cl *c, const char *host, const char *port, int tls,
    const char *ca)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *a;
	SSL_CTX *ctx;
	int one = 1;

	if (getaddrinfo(host, port, &hints, &res) != 0)
		fatal("cannot resolve");
	for (c->fd = -1, a = res; a && c->fd < 0; a = a->ai_next) {
		c->fd = socket(a->ai_family, SOCK_STREAM, 0);
		if (c->fd >= 0 && connect(c->fd, a->ai_addr, a->ai_addrlen)) {
			close(c->fd);
			c->fd = -1;
		}
	}
	if (c->fd < 0)
		fatal("cannot connect");
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (!tls)
		return;
	if ((ctx = SSL_CTX_new(TLS_client_method())) == NULL ||
	    SSL_CTX_set_default_verify_paths(ctx) != 1 ||
	    (ca && SSL_CTX_load_verify_locations(ctx, ca, NULL) != 1))
		fatal("cannot set up TLS");
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	if ((c->ssl = SSL_new(ctx)) == NULL || SSL_set_fd(c->ssl, c->fd) != 1 ||
	    SSL_set_tlsext_host_name(c->ssl, host) != 1 ||
	    SSL_set1_host(c->ssl, host) != 1 || SSL_connect(c->ssl) != 1)
		fatal("TLS handshake failed");
}

static size_t
cl_fill(struct cl *c)
{
	size_t n = 0;
	ssize_t r;

	if (c->off == c->len)
		c->off = c->len = 0;
	if (c->ssl) {
		if (SSL_read_ex(c->ssl, c->buf + c->len, BUF_MAX - c->len,
		    &n) != 1)
			fatal("read failed");
	} else {
		if ((r = read(c->fd, c->buf + c->len, BUF_MAX - c->len)) <= 0)
			fatal("read failed");
		n = (size_t)r;
	}
	c->len += n;
	return n;
}

static void
cl_write(struct cl *c, const char *p, size_t n)
{
	size_t w;

	if (c->ssl ? SSL_write_ex(c->ssl, p, n, &w) != 1 :
	    write(c->fd, p, n) != (ssize_t)n)
		fatal("write failed");
}

/* One GET on the connection, its body read whole: the body's length. */
static unsigned long long
cl_get(struct cl *c, const char *host, const char *path)
{
	char req[512], *end, *cl;
	unsigned long long len, got;
	size_t k;

	snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: %s\r\n"
	    "x-api-key: bench\r\n\r\n", path, host);
	cl_write(c, req, strlen(req));
	while ((end = memmem(c->buf + c->off, c->len - c->off, "\r\n\r\n", 4))
	    == NULL) {
		if (c->len == BUF_MAX) {
			memmove(c->buf, c->buf + c->off, c->len - c->off);
			c->len -= c->off;
			c->off = 0;
		}
		cl_fill(c);
	}
	*end = '\0';
	if ((cl = strcasestr(c->buf + c->off, "\r\ncontent-length:")) == NULL)
		fatal("no Content-Length in the response");
	len = strtoull(cl + 17, NULL, 10);
	c->off = (size_t)(end + 4 - c->buf);
	for (got = 0; got < len; ) {
		if (c->off == c->len)
			cl_fill(c);
		k = c->len - c->off;
		if (k > len - got)
			k = (size_t)(len - got);
		got += k;
		c->off += k;
	}
	return len;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	static struct cl c;
	double t, sum = 0, *lat;
	unsigned long long n;
	int i, count;

	if (argc < 7)
		fatal("usage: khbench latency|throughput HOST PORT tls|plain "
		    "N PATH [CA_FILE]");
	cl_open(&c, argv[2], argv[3], strcmp(argv[4], "tls") == 0,
	    argc > 7 ? argv[7] : NULL);
	count = atoi(argv[5]);
	if (strcmp(argv[1], "throughput") == 0) {
		t = now();
		n = cl_get(&c, argv[2], argv[6]);
		t = now() - t;
		printf("bytes %llu seconds %.3f mib_s %.1f\n", n, t,
		    (double)n / 1048576 / t);
		return 0;
	}
	lat = calloc((size_t)count, sizeof(*lat));
	cl_get(&c, argv[2], argv[6]);	/* warm up */
	for (i = 0; i < count; i++) {
		t = now();
		cl_get(&c, argv[2], argv[6]);
		lat[i] = (now() - t) * 1e6;
		sum += lat[i];
	}
	qsort(lat, (size_t)count, sizeof(*lat), cmp);
	printf("median_us %.0f mean_us %.0f\n", lat[count / 2], sum / count);
	return 0;
}
