// SPDX-License-Identifier: ISC
/*
 * khrelay.c - the least a TLS-terminating relay can do, for bench/keyholder
 * to set beside the keyholder: plain TCP in, verified TLS out (OpenSSL,
 * as the keyholder: the system's store and CA_FILE, SNI, the host name
 * checked, read ahead), the bytes passed both ways as they come, with
 * 64 KiB buffers and nothing parsed, replaced or counted.
 *
 *   khrelay HOST PORT CA_FILE
 *	listens on 127.0.0.1, prints "port N", then serves one client
 *	at a time until killed.
 *
 * No HTTP, no credential, no policy: its throughput is the ceiling of any
 * relay of this kind on the machine.  A benchmark's tool, not part of
 * confine.
 */
#define _GNU_SOURCE
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BUF_MAX	(64 * 1024)

static void
fatal(const char *what)
{
	fprintf(stderr, "khrelay: %s\n", what);
	ERR_print_errors_fp(stderr);
	exit(1);
}

static int
dial(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *a;
	int fd = -1, one = 1;

	if (getaddrinfo(host, port, &hints, &res) != 0)
		return -1;
	for (a = res; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) < 0) {
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* Write all of p to fd; -1 when the peer is gone. */
static int
put(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, p, n)) <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void
serve(SSL_CTX *ctx, int cfd, const char *host, const char *port)
{
	static char buf[BUF_MAX];
	struct pollfd p[2];
	size_t n, w;
	ssize_t r;
	SSL *ssl;
	int ufd;

	if ((ufd = dial(host, port)) < 0)
		return;
	if ((ssl = SSL_new(ctx)) == NULL ||
	    SSL_set_tlsext_host_name(ssl, host) != 1 ||
	    SSL_set1_host(ssl, host) != 1 || SSL_set_fd(ssl, ufd) != 1 ||
	    SSL_connect(ssl) != 1) {
		ERR_print_errors_fp(stderr);
		goto out;
	}
	p[0] = (struct pollfd){ .fd = cfd, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = ufd, .events = POLLIN };
	for (;;) {
		if (!SSL_has_pending(ssl) && poll(p, 2, -1) < 0)
			break;
		if (p[0].revents) {
			if ((r = read(cfd, buf, sizeof(buf))) <= 0 ||
			    SSL_write_ex(ssl, buf, (size_t)r, &w) != 1)
				break;
			p[0].revents = 0;
		}
		if (p[1].revents || SSL_has_pending(ssl)) {
			if (SSL_read_ex(ssl, buf, sizeof(buf), &n) != 1 ||
			    put(cfd, buf, n) < 0)
				break;
			/* What OpenSSL holds already: one write for it. */
			p[1].revents = 0;
		}
	}
out:
	if (ssl)
		SSL_free(ssl);
	close(ufd);
}

int
main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	SSL_CTX *ctx;
	int lfd, cfd, one = 1;

	if (argc != 4)
		fatal("usage: khrelay HOST PORT CA_FILE");
	signal(SIGPIPE, SIG_IGN);
	if ((ctx = SSL_CTX_new(TLS_client_method())) == NULL ||
	    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1 ||
	    SSL_CTX_set_default_verify_paths(ctx) != 1 ||
	    SSL_CTX_load_verify_locations(ctx, argv[3], NULL) != 1)
		fatal("cannot set up TLS");
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	SSL_CTX_set_read_ahead(ctx, 1);
	if ((lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(lfd, 8) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&a, &al) < 0)
		fatal("cannot listen");
	printf("port %u\n", ntohs(a.sin_port));
	fflush(stdout);
	for (;;) {
		if ((cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) < 0)
			continue;
		setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		serve(ctx, cfd, argv[1], argv[2]);
		close(cfd);
	}
}
