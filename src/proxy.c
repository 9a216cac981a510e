// SPDX-License-Identifier: ISC
/*
 * proxy.c - an HTTP CONNECT proxy with an allow-list, run by the
 * supervisor (research/sandbox-runtime.md: the parser differences and
 * bypasses sandbox-runtime's users found).
 *
 * Runs in: the supervisor, outside the sandbox, in the host's network.
 * Clients are the sandboxed command: untrusted.
 * MUST: decide on the parsed, canonical name; resolve it here, refuse a
 * name that resolves to loopback or unspecified addresses unless the rule
 * names that address literally, and connect to the address that was
 * checked (no second resolution).
 * MUST: bound everything a client controls: header size, time to send it,
 * buffered bytes.
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "proxy.h"
#include "util.h"

#define HEAD_MAX	8192
#define HEAD_SECONDS	10
#define BUF		(128 * 1024)
#define MAX_CONNS	256

enum state { S_HEAD, S_RESOLVING, S_CONNECTING, S_RELAY, S_DONE };

struct pbuf {
	char	*data;
	size_t	 len;
};

struct conn {
	enum state	 state;
	char		*dest;		/* "host:port", once parsed */
	bool		 literal;	/* the host is an IP literal */
	int		 client, upstream;
	time_t		 started;
	struct pbuf	 head;		/* the request head, while reading it */
	struct pbuf	 up, down;	/* client->upstream, upstream->client */
	bool		 client_eof, upstream_eof;
};

struct proxy {
	int		 listener;
	char *const	*allow, *const *endpoint;
	struct conn	*c[MAX_CONNS];
	size_t		 n;
	int		 resolved[2];	/* resolver threads -> the loop */
	unsigned	 allowed, refused;
	char		**refusals;	/* the first 100, for the report */
	size_t		 nrefusals;
	/* Which conn and side each pollfd of the last proxy_poll was. */
	struct { size_t conn; int side; } map[1 + 2 * MAX_CONNS];
};

bool
proxy_rule_matches(const char *rule, const char *host, unsigned port)
{
	char rh[300];
	const char *rp = NULL, *colon;
	size_t n;

	if (rule[0] == '[') {
		const char *close = strchr(rule, ']');

		if (close == NULL || (size_t)(close - rule - 1) >= sizeof(rh))
			return false;
		n = (size_t)(close - rule - 1);
		memcpy(rh, rule + 1, n);
		rh[n] = '\0';
		if (close[1] == ':')
			rp = close + 2;
	} else {
		colon = strchr(rule, ':');
		n = colon ? (size_t)(colon - rule) : strlen(rule);
		if (n >= sizeof(rh))
			return false;
		memcpy(rh, rule, n);
		rh[n] = '\0';
		if (colon)
			rp = colon + 1;
	}
	if (rp && (unsigned)strtoul(rp, NULL, 10) != port)
		return false;
	if (strncmp(rh, "*.", 2) == 0) {
		/* Names below the domain, not the domain itself. */
		size_t hl = strlen(host), dl = strlen(rh + 1);

		return hl > dl && streq(host + hl - dl, rh + 1);
	}
	return strcasecmp(rh, host) == 0;
}

int
proxy_parse_connect(const char *head, size_t len, char **ret_host,
    unsigned *ret_port, const char **why)
{
	const char *p = head, *end, *sp, *colon;
	char host[256];
	size_t i, hl;
	unsigned long port;
	char *e;

	if (memchr(head, '\0', len)) {
		*why = "a NUL byte in the request";
		return -1;
	}
	if (len < 8 || strncmp(p, "CONNECT ", 8) != 0) {
		*why = "not a CONNECT request (only CONNECT is proxied)";
		return -1;
	}
	p += 8;
	if ((end = memchr(p, '\n', len - 8)) == NULL ||
	    (sp = memchr(p, ' ', (size_t)(end - p))) == NULL) {
		*why = "a malformed request line";
		return -1;
	}
	if (strncmp(sp, " HTTP/1.", 8) != 0) {
		*why = "not HTTP/1.x";
		return -1;
	}
	if (*p == '[') {
		const char *close = memchr(p, ']', (size_t)(sp - p));

		if (close == NULL || close[1] != ':') {
			*why = "a malformed IPv6 destination";
			return -1;
		}
		hl = (size_t)(close - p - 1);
		colon = close + 1;
		p++;
	} else {
		colon = memchr(p, ':', (size_t)(sp - p));
		if (colon == NULL || memchr(colon + 1, ':',
		    (size_t)(sp - colon - 1))) {
			*why = "the destination is not host:port";
			return -1;
		}
		hl = (size_t)(colon - p);
	}
	if (hl == 0 || hl >= sizeof(host)) {
		*why = "an empty or over-long host";
		return -1;
	}
	for (i = 0; i < hl; i++) {
		unsigned char ch = (unsigned char)p[i];

		if (ch <= 0x20 || ch >= 0x7f || strchr("@/?#%\\\"'", ch)) {
			*why = "a character that has no place in a host name "
			    "(names are ASCII: IDNA names come as punycode)";
			return -1;
		}
		host[i] = (char)tolower(ch);
	}
	host[hl] = '\0';
	if (host[hl - 1] == '.') {
		*why = "a trailing dot";
		return -1;
	}
	if (colon + 1 >= sp || sp - colon - 1 > 5 ||
	    strspn(colon + 1, "0123456789") != (size_t)(sp - colon - 1) ||
	    colon[1] == '0' || (port = strtoul(colon + 1, &e, 10)) == 0 ||
	    port > 65535) {
		*why = "the port is not 1 to 65535";
		return -1;
	}
	*ret_host = xstrdup(host);
	*ret_port = (unsigned)port;
	return 0;
}

static bool
listed(char *const *rules, const char *host, unsigned port)
{
	size_t i;

	for (i = 0; rules && rules[i]; i++)
		if (proxy_rule_matches(rules[i], host, port))
			return true;
	return false;
}

/* Loopback, unspecified, link-local: the host itself, never by a name. */
static bool
local_address(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET) {
		uint32_t a = ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr);

		return (a >> 24) == 127 || a == 0 || (a >> 16) == 0xa9fe;
	}
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a =
		    &((const struct sockaddr_in6 *)sa)->sin6_addr;

		if (IN6_IS_ADDR_V4MAPPED(a)) {
			uint32_t v4;

			memcpy(&v4, &a->s6_addr[12], 4);
			v4 = ntohl(v4);
			return (v4 >> 24) == 127 || v4 == 0;
		}
		return IN6_IS_ADDR_LOOPBACK(a) || IN6_IS_ADDR_UNSPECIFIED(a) ||
		    IN6_IS_ADDR_LINKLOCAL(a);
	}
	return true;
}

static bool
is_literal(const char *host)
{
	unsigned char b[16];

	return inet_pton(AF_INET, host, b) == 1 ||
	    inet_pton(AF_INET6, host, b) == 1;
}

static void
reply(int fd, const char *status)
{
	char msg[128];
	int n = snprintf(msg, sizeof(msg), "HTTP/1.1 %s\r\nContent-Length: 0"
	    "\r\nConnection: close\r\n\r\n", status);

	if (write(fd, msg, (size_t)n) < 0) {
		/* The client is gone: nothing to tell. */
	}
}

static void
refuse(struct proxy *px, struct conn *c, const char *dest, const char *why)
{
	px->refused++;
	log_info("proxy: refused %s: %s", dest, why);
	if (px->nrefusals < 100)
		strv_push(&px->refusals, &px->nrefusals, xasprintf("%s: %s",
		    dest, why));
	reply(c->client, "403 Forbidden");
	c->state = S_DONE;
}

/*
 * A name is resolved in a thread of its own, so a slow resolver holds up
 * that one tunnel, not the supervisor's loop (nor the terminal it relays).
 * The job is self-contained: the loop matches it to a live connection.
 */
struct job {
	struct conn	*conn;
	char		*host;
	char		 port[8];
	int		 err;
	struct addrinfo	*res;
	int		 fd;		/* the loop's pipe */
};

static void *
resolve(void *arg)
{
	struct job *j = arg;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };

	j->err = getaddrinfo(j->host, j->port, &hints, &j->res);
	if (write(j->fd, &j, sizeof(j)) != sizeof(j)) {
		/* The proxy is gone: nobody wants the answer. */
		if (j->res)
			freeaddrinfo(j->res);
		free(j->host);
		free(j);
	}
	return NULL;
}

/* The addresses are known: check them, start connecting. */
static void
connect_to(struct proxy *px, struct conn *c, struct addrinfo *res)
{
	struct addrinfo *a;

	/* A name may not lead to the host itself; a literal rule may. */
	for (a = res; a; a = a->ai_next)
		if (!c->literal && local_address(a->ai_addr)) {
			refuse(px, c, c->dest, "it resolves to an address of "
			    "this host (allow the address itself to reach it)");
			return;
		}
	c->upstream = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0);
	if (c->upstream < 0 || (connect(c->upstream, res->ai_addr,
	    res->ai_addrlen) < 0 && errno != EINPROGRESS)) {
		px->refused++;
		reply(c->client, "502 Bad Gateway");
		c->state = S_DONE;
		return;
	}
	px->allowed++;
	log_info("proxy: %s", c->dest);
	c->state = S_CONNECTING;
}

/* The head is complete: check, then resolve (a literal at once). */
static void
start(struct proxy *px, struct conn *c)
{
	autofree char *host = NULL;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
	    .ai_flags = AI_NUMERICHOST }, *res = NULL;
	char portstr[8];
	const char *why;
	unsigned port;
	struct job *j;
	pthread_t t;
	pthread_attr_t attr;

	if (proxy_parse_connect(c->head.data, c->head.len, &host, &port,
	    &why) < 0) {
		refuse(px, c, "(unparsed request)", why);
		return;
	}
	c->dest = xasprintf("%s:%u", host, port);
	if (!listed(px->allow, host, port) && !listed(px->endpoint, host, port)) {
		refuse(px, c, c->dest, "not in the allow-list");
		return;
	}
	snprintf(portstr, sizeof(portstr), "%u", port);
	if ((c->literal = is_literal(host))) {
		if (getaddrinfo(host, portstr, &hints, &res) != 0 || !res) {
			refuse(px, c, c->dest, "not an address");
			return;
		}
		connect_to(px, c, res);
		freeaddrinfo(res);
		return;
	}
	j = xcalloc(1, sizeof(*j));
	j->conn = c;
	j->host = steal_ptr(&host);
	memcpy(j->port, portstr, sizeof(j->port));
	j->fd = px->resolved[1];
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, resolve, j) != 0) {
		free(j->host);
		free(j);
		refuse(px, c, c->dest, "cannot start resolving it");
	} else
		c->state = S_RESOLVING;
	pthread_attr_destroy(&attr);
}

/* Answers from the resolver threads. */
static void
resolved(struct proxy *px)
{
	struct job *j;
	size_t i;

	while (read(px->resolved[0], &j, sizeof(j)) == sizeof(j)) {
		for (i = 0; i < px->n && px->c[i] != j->conn; i++)
			;
		if (i < px->n && px->c[i]->state == S_RESOLVING) {
			if (j->err || j->res == NULL)
				refuse(px, px->c[i], px->c[i]->dest,
				    "the name does not resolve");
			else
				connect_to(px, px->c[i], j->res);
		}
		if (j->res)
			freeaddrinfo(j->res);
		free(j->host);
		free(j);
	}
}

struct proxy *
proxy_new(int listen_fd, char *const *allow, char *const *endpoint)
{
	struct proxy *px = xcalloc(1, sizeof(*px));

	px->listener = listen_fd;
	if (pipe2(px->resolved, O_NONBLOCK | O_CLOEXEC) < 0)
		die_errno(errno, "proxy: pipe");
	px->allow = allow;
	px->endpoint = endpoint;
	fcntl(listen_fd, F_SETFL, fcntl(listen_fd, F_GETFL) | O_NONBLOCK);
	return px;
}

static void
conn_free(struct conn *c)
{
	if (c->client >= 0)
		close(c->client);
	if (c->upstream >= 0)
		close(c->upstream);
	free(c->head.data);
	free(c->up.data);
	free(c->down.data);
	free(c);
}

size_t
proxy_poll(struct proxy *px, struct pollfd *p, size_t max)
{
	size_t n = 0, i;
	time_t now = time(NULL);

	/* Drop finished connections and clients too slow to ask. */
	for (i = 0; i < px->n; ) {
		struct conn *c = px->c[i];

		if (c->state == S_HEAD && now - c->started > HEAD_SECONDS)
			refuse(px, c, "(request)", "too slow to send its request");
		if (c->state == S_DONE || (c->state == S_RELAY &&
		    c->client_eof && c->upstream_eof && !c->up.len &&
		    !c->down.len)) {
			conn_free(c);
			px->c[i] = px->c[--px->n];
			continue;
		}
		i++;
	}
	if (n < max && px->n < MAX_CONNS) {
		p[n] = (struct pollfd){ .fd = px->listener, .events = POLLIN };
		px->map[n].side = -1;
		n++;
	}
	if (n < max) {
		p[n] = (struct pollfd){ .fd = px->resolved[0], .events = POLLIN };
		px->map[n].side = -2;
		n++;
	}
	for (i = 0; i < px->n && n + 2 <= max; i++) {
		struct conn *c = px->c[i];
		short ce = 0, ue = 0;

		switch (c->state) {
		case S_HEAD:
			ce = POLLIN;
			break;
		case S_CONNECTING:
			ue = POLLOUT;
			break;
		case S_RELAY:
			ce = (short)((!c->client_eof && c->up.len < BUF ?
			    POLLIN : 0) | (c->down.len ? POLLOUT : 0));
			ue = (short)((!c->upstream_eof && c->down.len < BUF ?
			    POLLIN : 0) | (c->up.len ? POLLOUT : 0));
			break;
		case S_RESOLVING:
		case S_DONE:
			break;
		}
		if (ce) {
			p[n] = (struct pollfd){ .fd = c->client, .events = ce };
			px->map[n].conn = i;
			px->map[n++].side = 0;
		}
		if (ue) {
			p[n] = (struct pollfd){ .fd = c->upstream, .events = ue };
			px->map[n].conn = i;
			px->map[n++].side = 1;
		}
	}
	return n;
}

static void
buf_fill(struct pbuf *b, int fd, bool *eof)
{
	ssize_t r;

	if (b->data == NULL)
		b->data = xmalloc(BUF);
	r = read(fd, b->data + b->len, BUF - b->len);
	if (r > 0)
		b->len += (size_t)r;
	else if (r == 0 || (errno != EAGAIN && errno != EINTR))
		*eof = true;
}

static bool
buf_drain(struct pbuf *b, int fd)
{
	ssize_t w = send(fd, b->data, b->len, MSG_NOSIGNAL | MSG_DONTWAIT);

	if (w < 0)
		return errno == EAGAIN || errno == EINTR;
	memmove(b->data, b->data + w, b->len - (size_t)w);
	b->len -= (size_t)w;
	return true;
}

static void
head_read(struct proxy *px, struct conn *c)
{
	ssize_t r;

	if (c->head.data == NULL)
		c->head.data = xmalloc(HEAD_MAX + 1);
	r = read(c->client, c->head.data + c->head.len, HEAD_MAX - c->head.len);
	if (r <= 0) {
		if (r == 0 || (errno != EAGAIN && errno != EINTR))
			c->state = S_DONE;
		return;
	}
	c->head.len += (size_t)r;
	c->head.data[c->head.len] = '\0';
	if (memmem(c->head.data, c->head.len, "\r\n\r\n", 4) ||
	    memmem(c->head.data, c->head.len, "\n\n", 2))
		start(px, c);
	else if (c->head.len == HEAD_MAX)
		refuse(px, c, "(request)", "a request head over 8 KiB");
}

void
proxy_step(struct proxy *px, const struct pollfd *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct conn *c;

		if (p[i].revents == 0)
			continue;
		if (px->map[i].side == -2) {
			resolved(px);
			continue;
		}
		if (px->map[i].side < 0) {
			int fd = accept4(px->listener, NULL, NULL,
			    SOCK_NONBLOCK | SOCK_CLOEXEC);

			if (fd >= 0 && px->n < MAX_CONNS) {
				c = xcalloc(1, sizeof(*c));
				c->client = fd;
				c->upstream = -1;
				c->started = time(NULL);
				px->c[px->n++] = c;
			} else if (fd >= 0)
				close(fd);
			continue;
		}
		if (px->map[i].conn >= px->n)
			continue;
		c = px->c[px->map[i].conn];
		if (c->state == S_HEAD && px->map[i].side == 0)
			head_read(px, c);
		else if (c->state == S_CONNECTING && px->map[i].side == 1) {
			int err = 0;
			socklen_t l = sizeof(err);

			getsockopt(c->upstream, SOL_SOCKET, SO_ERROR, &err, &l);
			if (err) {
				reply(c->client, "502 Bad Gateway");
				c->state = S_DONE;
				continue;
			}
			reply(c->client, "200 Connection established");
			c->state = S_RELAY;
		} else if (c->state == S_RELAY) {
			int fd = px->map[i].side ? c->upstream : c->client;
			struct pbuf *in = px->map[i].side ? &c->down : &c->up;
			struct pbuf *out = px->map[i].side ? &c->up : &c->down;
			bool *eof = px->map[i].side ? &c->upstream_eof :
			    &c->client_eof;

			if (p[i].revents & (POLLIN | POLLHUP | POLLERR)) {
				int other = px->map[i].side ? c->client :
				    c->upstream;

				buf_fill(in, fd, eof);
				/* Pass it on at once: a poll round saved. */
				if (in->len && !buf_drain(in, other))
					c->state = S_DONE;
			}
			if ((p[i].revents & POLLOUT) && out->len &&
			    !buf_drain(out, fd))
				c->state = S_DONE;
			/* Half-close: pass an EOF on once the data is out. */
			if (c->client_eof && !c->up.len && c->upstream >= 0)
				shutdown(c->upstream, SHUT_WR);
			if (c->upstream_eof && !c->down.len)
				shutdown(c->client, SHUT_WR);
			if (p[i].revents & POLLERR)
				c->state = S_DONE;
		}
	}
}

void
proxy_counts(const struct proxy *px, unsigned *allowed, unsigned *refused)
{
	*allowed = px->allowed;
	*refused = px->refused;
}

char *const *
proxy_refusals(const struct proxy *px)
{
	static char *const none[] = { NULL };

	return px->refusals ? px->refusals : none;
}

void
proxy_free(struct proxy *px)
{
	size_t i;

	if (px == NULL)
		return;
	strv_free(px->refusals);
	for (i = 0; i < px->n; i++)
		conn_free(px->c[i]);
	close(px->listener);
	/*
	 * A thread still resolving gets EPIPE and frees its own job.  The
	 * write end stays open: closed, its number could be reused by a file
	 * the thread would then write into.
	 */
	close(px->resolved[0]);
	free(px);
}
