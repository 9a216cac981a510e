// SPDX-License-Identifier: ISC
/*
 * pxrelay.c - the least an HTTP CONNECT relay can do, for the proxy's
 * benchmarks to set beside confine's proxy: the CONNECT line read, the
 * target (an IPv4 address and a port) connected, "200", then each
 * direction spliced (splice(2)) through a pipe of 1 MiB, as confine's
 * proxy does, with nothing checked, counted or bounded.
 *
 *	pxrelay serve READYFILE
 *
 * Listens on 127.0.0.1, an ephemeral port, writes the port to READYFILE
 * (made whole by a rename) and serves each connection in a child process
 * of its own, until killed.  Its throughput and round trip are the
 * ceiling of any relay of this kind on the machine.  A benchmark's tool,
 * not part of confine.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define PIPE_BYTES	(1024 * 1024)

struct dir {
	int	in, out, pipe[2];
	size_t	len;
	int	eof;
	int	full;	/* the pipe took nothing: no room */
};

static void
fatal(const char *what)
{
	perror(what);
	exit(1);
}

/* Move what in has into the pipe and what the pipe holds into out. */
static int
pump(struct dir *d, int readable)
{
	ssize_t r;

	if (readable && !d->eof) {
		r = splice(d->in, NULL, d->pipe[1], NULL, PIPE_BYTES,
		    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (r > 0)
			d->len += (size_t)r;
		else if (r == 0)
			d->eof = 1;
		else if (d->len > 0)
			d->full = 1;
	}
	while (d->len > 0) {
		r = splice(d->pipe[0], NULL, d->out, NULL, d->len,
		    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (r <= 0)
			break;
		d->len -= (size_t)r;
		d->full = 0;
	}
	if (d->eof && d->len == 0)
		shutdown(d->out, SHUT_WR);
	return d->eof && d->len == 0;
}

static void
serve(int c)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	char head[1024], host[64];
	struct dir d[2];
	size_t n = 0;
	unsigned port;
	ssize_t r;
	int u, one = 1, i;

	/* The head, up to its blank line (the client sends nothing more
	 * before the 200). */
	while (n < sizeof(head) - 1 && (n < 4 ||
	    memcmp(head + n - 4, "\r\n\r\n", 4) != 0)) {
		if ((r = read(c, head + n, sizeof(head) - 1 - n)) <= 0)
			exit(1);
		n += (size_t)r;
	}
	head[n] = '\0';
	if (sscanf(head, "CONNECT %63[0-9.]:%u ", host, &port) != 2 ||
	    inet_pton(AF_INET, host, &a.sin_addr) != 1)
		exit(1);
	a.sin_port = htons((unsigned short)port);
	if ((u = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    connect(u, (struct sockaddr *)&a, sizeof(a)) < 0)
		exit(1);
	setsockopt(u, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (write(c, "HTTP/1.1 200 Connection established\r\n\r\n", 39) != 39)
		exit(1);
	d[0] = (struct dir){ .in = c, .out = u };
	d[1] = (struct dir){ .in = u, .out = c };
	for (i = 0; i < 2; i++) {
		if (pipe2(d[i].pipe, O_NONBLOCK) < 0)
			fatal("pipe2");
		fcntl(d[i].pipe[1], F_SETPIPE_SZ, PIPE_BYTES);
	}
	fcntl(c, F_SETFL, O_NONBLOCK);
	fcntl(u, F_SETFL, O_NONBLOCK);
	for (;;) {
		struct pollfd p[2] = {
			{ .fd = c, .events = d[0].eof || d[0].full ? 0 :
			    POLLIN },
			{ .fd = u, .events = d[1].eof || d[1].full ? 0 :
			    POLLIN },
		};
		int done = 0;

		if (d[0].len > 0)
			p[1].events |= POLLOUT;
		if (d[1].len > 0)
			p[0].events |= POLLOUT;
		if (poll(p, 2, -1) < 0)
			continue;
		done += pump(&d[0], p[0].revents & (POLLIN | POLLHUP | POLLERR));
		done += pump(&d[1], p[1].revents & (POLLIN | POLLHUP | POLLERR));
		if (done == 2 || (p[0].revents | p[1].revents) & POLLERR)
			exit(0);
	}
}

int
main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	char tmp[4096];
	FILE *f;
	int l, c;

	if (argc != 3 || strcmp(argv[1], "serve") != 0) {
		fprintf(stderr, "usage: pxrelay serve READYFILE\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGCHLD, SIG_IGN);
	if ((l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 64) < 0 ||
	    getsockname(l, (struct sockaddr *)&a, &al) < 0)
		fatal("listen");
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
	if ((f = fopen(tmp, "w")) == NULL ||
	    fprintf(f, "%u\n", ntohs(a.sin_port)) < 0 || fclose(f) != 0 ||
	    rename(tmp, argv[2]) < 0)
		fatal(argv[2]);
	for (;;) {
		if ((c = accept(l, NULL, NULL)) < 0)
			continue;
		if (fork() == 0) {
			close(l);
			serve(c);
		}
		close(c);
	}
}
