// SPDX-License-Identifier: ISC
/*
 * run/proxy.c - an HTTP CONNECT proxy with an allow-list, run by the
 * supervisor (research/sandbox-runtime.md: the parser differences and
 * bypasses sandbox-runtime's users found).
 *
 * Runs in: the supervisor, outside the sandbox, in the host's network.
 * Clients are the sandboxed command: untrusted.
 * MUST: decide on the parsed, canonical name; resolve it here, refuse a
 * name that resolves to an address of this host (proxy_host_address())
 * unless the rule names that address literally, and connect to the
 * addresses that were checked (no second resolution): each in turn, in
 * the resolver's order, one attempt at a time, until one answers.
 * MUST: bound everything a client controls: header size, time to send it,
 * buffered bytes.
 * MUST: run where SIGPIPE is ignored (the supervisor ignores it): splice(2)
 * into a socket whose peer is gone has no MSG_NOSIGNAL.
 *
 * A tunnel's bytes never come up to this process: each direction is
 * spliced (splice(2)) from one socket into a pipe of its own and from the
 * pipe into the other socket, so the kernel moves the pages and the
 * pipe's capacity is the direction's buffer.  Its input is read only
 * while the pipe has room, which is the backpressure a slow reader puts
 * on its sender.  A pipe starts at the system's default (16 pages); one
 * that fills (a download faster than its reader) grows to PIPE_BYTES,
 * which halves the proxy's work per byte, within PIPE_BUDGET for all:
 * pipe pages count against the user's limit (pipe-user-pages-soft in
 * proc(5)), which the sandboxed command shares.
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/untrusted.h"
#include "lib/util.h"
#include "run/proxy.h"

#define HEAD_MAX	8192
#define HEAD_SECONDS	10
#define MAX_CONNS	256
/* Each tunnel's fds: two sockets and a pipe each way. */
#define CONN_FDS	6
/* What a full pipe grows to (fcntl(2) F_SETPIPE_SZ), and for all pipes
 * together at most (a quarter of the default pipe-user-pages-soft). */
#define PIPE_BYTES	(1024 * 1024)
#define PIPE_BUDGET	(16 * 1024 * 1024)

enum state { S_HEAD, S_RESOLVING, S_CONNECTING, S_RELAY, S_DONE };

struct pbuf {
	char	*data;
	size_t	 len;
};

/* One direction of a tunnel: its input socket, a pipe, its output socket. */
struct tube {
	int	 pipe[2];	/* -1 until the first byte comes */
	size_t	 len;		/* bytes in the pipe */
	size_t	 grown;		/* its size, once grown (of the budget) */
	bool	 full;		/* the pipe took nothing more: wait for out */
	bool	 eof;		/* the input is at its end (or failed) */
	bool	 shut;		/* and that end passed on (SHUT_WR) */
};

struct conn {
	enum state	 state;
	char		*dest;		/* "host:port", once parsed */
	bool		 literal;	/* the host is an IP literal */
	int		 client, upstream;
	time_t		 started;
	struct pbuf	 untrusted_head;	/* the request head, as read */
	struct tube	 up, down;	/* client->upstream, upstream->client */
	struct addrinfo	*res;		/* the checked addresses, once known */
	struct addrinfo	*next;		/* the next of them to try */
	unsigned	 tried;		/* how many were tried */
	char		 addr[INET6_ADDRSTRLEN + 8];	/* the last tried */
};

struct proxy {
	int		 listener;
	char *const	*allow, *const *endpoint;
	const char	*injected;	/* reached through the keyholder only */
	const char	*refresh;	/* a login's token endpoint: likewise */
	struct conn	*c[MAX_CONNS];
	size_t		 n;
	int		 resolved[2];	/* resolver threads -> the loop */
	unsigned	 allowed, refused, failed;
	size_t		 pipe_budget;	/* what pipes may still grow by */
	struct sockaddr_storage *own;	/* this host's interface addresses */
	size_t		 nown;
	bool		 own_ok;	/* listed at least once */
	int		 nl;		/* address changes (rtnetlink), or -1 */
	char		**refusals;	/* the first 100, for the report */
	size_t		 nrefusals;
	char		**failures;	/* likewise, the upstream failures */
	size_t		 nfailures;
	bool		 moved;		/* a tunnel passed bytes this step */
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

/* Parses untrusted bytes (lib/untrusted.h): never past len. */
int
proxy_parse_connect(struct untrusted untrusted_head, char **ret_host,
    unsigned *ret_port, const char **why)
{
	const char *head = untrusted_head.untrusted_bytes;
	size_t len = untrusted_head.len;
	const char *p = head, *end, *sp, *colon;
	char host[256];
	size_t i, hl;
	unsigned long port;
	char *e;

	if (memchr(head, '\0', len)) {
		*why = "a NUL byte in the request";
		return -1;
	}
	if (len < 8 || memcmp(p, "CONNECT ", 8) != 0) {
		*why = "not a CONNECT request (only CONNECT is proxied)";
		return -1;
	}
	p += 8;
	if ((end = memchr(p, '\n', len - 8)) == NULL ||
	    (sp = memchr(p, ' ', (size_t)(end - p))) == NULL) {
		*why = "a malformed request line";
		return -1;
	}
	/* Within the line: the head is not NUL-terminated. */
	if ((size_t)(end - sp) < 8 || memcmp(sp, " HTTP/1.", 8) != 0) {
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

/*
 * IPv4 addresses that are the host itself or nothing to tunnel to: this
 * network (0/8, 0.0.0.0 is the host), loopback, link-local, multicast,
 * reserved and broadcast (240/4).
 */
static bool
v4_special(uint32_t a)
{
	return (a >> 24) == 0 || (a >> 24) == 127 || (a >> 16) == 0xa9fe ||
	    (a >> 28) == 0xe || (a >> 28) == 0xf;
}

static bool
v4_host(uint32_t a, const struct sockaddr_storage *own, size_t nown)
{
	size_t i;

	if (v4_special(a))
		return true;
	for (i = 0; i < nown; i++)
		if (own[i].ss_family == AF_INET && ntohl(((const struct
		    sockaddr_in *)&own[i])->sin_addr.s_addr) == a)
			return true;
	return false;
}

/* The 32 bits at b (network order) as a number. */
static uint32_t
v4_at(const uint8_t *b)
{
	uint32_t v;

	memcpy(&v, b, 4);
	return ntohl(v);
}

bool
proxy_host_address(const struct sockaddr *sa,
    const struct sockaddr_storage *own, size_t nown)
{
	static const uint8_t nat64[12] = { 0, 0x64, 0xff, 0x9b };
	static const uint8_t siit[12] = { [8] = 0xff, [9] = 0xff };
	const struct in6_addr *a;
	const uint8_t *b;
	size_t i;

	if (sa->sa_family == AF_INET)
		return v4_host(ntohl(((const struct sockaddr_in *)sa)->
		    sin_addr.s_addr), own, nown);
	if (sa->sa_family != AF_INET6)
		return true;
	a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
	b = a->s6_addr;
	/*
	 * Forms that reach an IPv4 address: mapped (::ffff:a.b.c.d), the
	 * old compatible form (::a.b.c.d, holding :: and ::1), SIIT's
	 * translated form (::ffff:0:a.b.c.d), the NAT64 well-known prefix
	 * (64:ff9b::/96: the host when it translates itself) and 6to4
	 * (2002:AABB:CCDD::/48).  Each stands for the address it holds.
	 */
	if (IN6_IS_ADDR_V4MAPPED(a) || IN6_IS_ADDR_V4COMPAT(a) ||
	    IN6_IS_ADDR_UNSPECIFIED(a) || IN6_IS_ADDR_LOOPBACK(a) ||
	    memcmp(b, siit, 12) == 0 || memcmp(b, nat64, 12) == 0)
		return v4_host(v4_at(b + 12), own, nown);
	if (b[0] == 0x20 && b[1] == 0x02 && v4_host(v4_at(b + 2), own, nown))
		return true;
	/* Link-local, site-local (fec0::/10, deprecated), multicast. */
	if (b[0] == 0xfe && (b[1] & 0x80) == 0x80)
		return true;
	if (b[0] == 0xff)
		return true;
	for (i = 0; i < nown; i++)
		if (own[i].ss_family == AF_INET6 && memcmp(&((const struct
		    sockaddr_in6 *)&own[i])->sin6_addr, a, sizeof(*a)) == 0)
			return true;
	return false;
}

/* List this host's interface addresses; keep the old list on failure. */
static void
own_load(struct proxy *px)
{
	struct ifaddrs *ifa, *i;
	size_t n = 0;

	if (getifaddrs(&ifa) < 0) {
		log_warn("proxy: cannot list this host's addresses: %s",
		    strerror(errno));
		return;
	}
	free(px->own);
	px->own = NULL;
	px->nown = 0;
	for (i = ifa; i; i = i->ifa_next)
		n += i->ifa_addr && (i->ifa_addr->sa_family == AF_INET ||
		    i->ifa_addr->sa_family == AF_INET6);
	px->own = xcalloc(n + 1, sizeof(*px->own));
	for (i = ifa; i; i = i->ifa_next) {
		if (i->ifa_addr == NULL)
			continue;
		if (i->ifa_addr->sa_family == AF_INET)
			memcpy(&px->own[px->nown++], i->ifa_addr,
			    sizeof(struct sockaddr_in));
		else if (i->ifa_addr->sa_family == AF_INET6)
			memcpy(&px->own[px->nown++], i->ifa_addr,
			    sizeof(struct sockaddr_in6));
	}
	freeifaddrs(ifa);
	px->own_ok = true;
}

/*
 * Keep the list current at little cost: the kernel tells a netlink
 * socket of every address added or removed; the list is read again only
 * after such news (or a lost message: ENOBUFS).  Without that socket, on
 * every check.
 */
static void
own_refresh(struct proxy *px)
{
	char buf[8192];
	bool news = px->nl < 0 || !px->own_ok;
	ssize_t r;

	while (px->nl >= 0 && ((r = recv(px->nl, buf, sizeof(buf),
	    MSG_DONTWAIT)) > 0 || (r < 0 && errno == ENOBUFS)))
		news = true;
	if (news)
		own_load(px);
}

static int
own_watch(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
	    .nl_groups = RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    NETLINK_ROUTE);

	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
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

/*
 * An allowed destination that cannot be reached: 502 with what failed,
 * the name, the address and the error (or the resolver's answer for a
 * name it does not find), for the agent to show; counted apart from the
 * refusals.
 */
static void
fail_why(struct proxy *px, struct conn *c, const char *why)
{
	autofree char *msg = NULL;
	int n;

	px->failed++;
	log_info("proxy: failed %s", why);
	if (px->nfailures < 100)
		strv_push(&px->failures, &px->nfailures, xstrdup(why));
	msg = xasprintf("HTTP/1.1 502 Bad Gateway\r\nContent-Type: "
	    "text/plain\r\nContent-Length: %zu\r\nConnection: close\r\n"
	    "\r\nconfine: proxy: %s\n", strlen(why) + 17, why);
	n = (int)strlen(msg);
	if (write(c->client, msg, (size_t)n) < 0) {
		/* The client is gone: nothing to tell. */
	}
	c->state = S_DONE;
}

/* Every address failed: the last one tried and its error. */
static void
fail(struct proxy *px, struct conn *c, int err)
{
	autofree char *of = c->tried > 1 ? xasprintf(" (the last of %u "
	    "addresses)", c->tried) : xstrdup("");
	autofree char *why = xasprintf("%s: connect to %s%s: %s", c->dest,
	    c->addr[0] ? c->addr : "(no address)", of, strerror(err));

	fail_why(px, c, why);
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

/*
 * A relay adds no delay of its own: each end chose how it coalesces its
 * writes, and Nagle's algorithm here, against the far end's delayed
 * acknowledgements, would hold a small write back by tens of ms.
 */
static void
nodelay(int fd)
{
	int one = 1;

	if (fd >= 0)
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
		    sizeof(one));
}

/*
 * Start connecting to the next address that takes a connection attempt;
 * when none is left, the conn fails with ERR, the last attempt's error.
 */
static void
connect_next(struct proxy *px, struct conn *c, int err)
{
	while (c->next) {
		struct addrinfo *a = c->next;
		char h[INET6_ADDRSTRLEN], sv[8];

		c->next = a->ai_next;
		c->tried++;
		if (getnameinfo(a->ai_addr, a->ai_addrlen, h, sizeof(h), sv,
		    sizeof(sv), NI_NUMERICHOST | NI_NUMERICSERV) == 0)
			snprintf(c->addr, sizeof(c->addr), a->ai_family ==
			    AF_INET6 ? "[%s]:%s" : "%s:%s", h, sv);
		if (c->upstream >= 0)
			close(c->upstream);
		c->upstream = socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0);
		if (c->upstream < 0) {
			err = errno;
			continue;
		}
		nodelay(c->upstream);
		if (connect(c->upstream, a->ai_addr, a->ai_addrlen) < 0 &&
		    errno != EINPROGRESS) {
			err = errno;
			log_debug("proxy: %s: connect to %s: %s", c->dest,
			    c->addr, strerror(err));
			continue;
		}
		c->state = S_CONNECTING;
		return;
	}
	fail(px, c, err);
}

/* The addresses are known (RES, now the conn's): check them, connect. */
static void
connect_to(struct proxy *px, struct conn *c, struct addrinfo *res)
{
	struct addrinfo *a;

	c->res = res;
	/* A name may not lead to the host itself; a literal rule may. */
	if (!c->literal)
		own_refresh(px);
	if (!c->literal && !px->own_ok) {
		refuse(px, c, c->dest, "this host's addresses are unknown");
		return;
	}
	for (a = res; a; a = a->ai_next)
		if (!c->literal && proxy_host_address(a->ai_addr, px->own,
		    px->nown)) {
			refuse(px, c, c->dest, "it resolves to an address of "
			    "this host (allow the address itself to reach it)");
			return;
		}
	c->next = res;
	connect_next(px, c, EHOSTUNREACH);
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

	if (proxy_parse_connect(untrusted_wrap(c->untrusted_head.data,
	    c->untrusted_head.len), &host, &port, &why) < 0) {
		refuse(px, c, "(unparsed request)", why);
		return;
	}
	c->dest = xasprintf("%s:%u", host, port);
	/* Every request there carries the user's credential, no other. */
	if (px->injected && proxy_rule_matches(px->injected, host, port)) {
		refuse(px, c, c->dest, "the injected endpoint: through "
		    "confine's keyholder only");
		return;
	}
	/* The login's tokens are renewed there by the keyholder alone. */
	if (px->refresh && proxy_rule_matches(px->refresh, host, port)) {
		refuse(px, c, c->dest, "the injected login's token endpoint: "
		    "through confine's keyholder only");
		return;
	}
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
			if (j->err || j->res == NULL) {
				/* Allowed, but not found: the upstream's. */
				autofree char *why = xasprintf("%s: resolve "
				    "%s: %s", px->c[i]->dest, j->host,
				    j->err ? gai_strerror(j->err) :
				    "no address");

				fail_why(px, px->c[i], why);
			} else {
				connect_to(px, px->c[i], j->res);
				j->res = NULL;
			}
		}
		if (j->res)
			freeaddrinfo(j->res);
		free(j->host);
		free(j);
	}
}

struct proxy *
proxy_new(int listen_fd, char *const *allow, char *const *endpoint,
    const char *injected, const char *refresh)
{
	struct proxy *px = xcalloc(1, sizeof(*px));
	const rlim_t want = 256 + MAX_CONNS * CONN_FDS;
	struct rlimit rl;

	/*
	 * Room for every tunnel's fds: the soft limit raised towards the
	 * hard one (a soft limit of 1024 is common).  Only this process's:
	 * the sandbox is already running with its own.  Past the hard
	 * limit, a tunnel that cannot have its pipe is closed.
	 */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < want) {
		rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			log_debug("proxy: cannot raise RLIMIT_NOFILE: %s",
			    strerror(errno));
	}
	px->listener = listen_fd;
	px->pipe_budget = PIPE_BUDGET;
	if (pipe2(px->resolved, O_NONBLOCK | O_CLOEXEC) < 0)
		die_errno(errno, "proxy: pipe");
	px->allow = allow;
	px->endpoint = endpoint;
	px->injected = injected;
	px->refresh = refresh;
	px->nl = own_watch();
	own_load(px);
	fcntl(listen_fd, F_SETFL, fcntl(listen_fd, F_GETFL) | O_NONBLOCK);
	return px;
}

static void
tube_close(struct proxy *px, struct tube *t)
{
	if (t->pipe[0] >= 0) {
		close(t->pipe[0]);
		close(t->pipe[1]);
	}
	t->pipe[0] = t->pipe[1] = -1;
	px->pipe_budget += t->grown;
	t->grown = 0;
}

static void
conn_free(struct proxy *px, struct conn *c)
{
	if (c->client >= 0)
		close(c->client);
	if (c->upstream >= 0)
		close(c->upstream);
	if (c->res)
		freeaddrinfo(c->res);
	free(c->untrusted_head.data);
	free(c->dest);
	tube_close(px, &c->up);
	tube_close(px, &c->down);
	free(c);
}

/* Both ways at their end, and everything passed on. */
static bool
relay_over(const struct conn *c)
{
	return c->up.eof && c->down.eof && !c->up.len && !c->down.len;
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
		    relay_over(c))) {
			conn_free(px, c);
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
			/* Read only what the pipe has room for. */
			ce = (short)((!c->up.eof && !c->up.full ? POLLIN : 0) |
			    (c->down.len ? POLLOUT : 0));
			ue = (short)((!c->down.eof && !c->down.full ? POLLIN :
			    0) | (c->up.len ? POLLOUT : 0));
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

/*
 * Move what in has into t's pipe (when readable) and what the pipe holds
 * into out, as far as both go without blocking; pass an end on once
 * everything before it is out.  False when the tunnel must end: out
 * failed, or no pipe could be made.
 */
static bool
tube_pump(struct proxy *px, const struct conn *c, struct tube *t, int in,
    int out, bool readable)
{
	ssize_t r;
	int size;

	if (readable && !t->eof && t->pipe[0] < 0) {
		if (pipe2(t->pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
			log_warn("proxy: %s: cannot make a pipe: %s", c->dest,
			    strerror(errno));
			t->pipe[0] = t->pipe[1] = -1;
			return false;
		}
	}
	if (readable && !t->eof && !t->full) {
		/* Bounded: at most PIPE_BYTES, and the pipe's room. */
		r = splice(in, NULL, t->pipe[1], NULL, PIPE_BYTES,
		    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (r > 0)
			t->len += (size_t)r;
		else if (r == 0 || (errno != EAGAIN && errno != EINTR))
			t->eof = true;
		else if (t->len > 0 && !t->grown &&
		    px->pipe_budget >= PIPE_BYTES &&
		    (size = fcntl(t->pipe[1], F_SETPIPE_SZ, PIPE_BYTES)) > 0) {
			/* Full: fewer, larger moves from now on.  Where the
			 * system allows no more (pipe-max-size, the user's
			 * pipe pages), the pipe stays as it is. */
			t->grown = (size_t)size < px->pipe_budget ?
			    (size_t)size : px->pipe_budget;
			px->pipe_budget -= t->grown;
		} else if (t->len > 0)
			/* No room (a pipe counts pages, not bytes): wait
			 * for out to take some. */
			t->full = true;
	}
	if (t->len > 0) {
		/* Bounded: what the pipe holds. */
		r = splice(t->pipe[0], NULL, out, NULL, t->len,
		    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (r > 0) {
			t->len -= (size_t)r;
			t->full = false;
			px->moved = true;
		} else if (r < 0 && errno != EAGAIN && errno != EINTR)
			return false;
	}
	/* Half-close: the end passed on once the data is out. */
	if (t->eof && t->len == 0 && !t->shut) {
		shutdown(out, SHUT_WR);
		t->shut = true;
		tube_close(px, t);
	}
	return true;
}

static void
head_read(struct proxy *px, struct conn *c)
{
	ssize_t r;

	if (c->untrusted_head.data == NULL)
		c->untrusted_head.data = xmalloc(HEAD_MAX + 1);
	/* Bounded: at most HEAD_MAX in all. */
	r = read(c->client, c->untrusted_head.data + c->untrusted_head.len,
	    HEAD_MAX - c->untrusted_head.len);
	if (r <= 0) {
		if (r == 0 || (errno != EAGAIN && errno != EINTR))
			c->state = S_DONE;
		return;
	}
	c->untrusted_head.len += (size_t)r;
	c->untrusted_head.data[c->untrusted_head.len] = '\0';
	if (memmem(c->untrusted_head.data, c->untrusted_head.len,
	    "\r\n\r\n", 4) || memmem(c->untrusted_head.data,
	    c->untrusted_head.len, "\n\n", 2)) {
		start(px, c);
		/* Parsed: its buffer is not kept for the tunnel's life. */
		free(c->untrusted_head.data);
		c->untrusted_head.data = NULL;
		c->untrusted_head.len = 0;
	} else if (c->untrusted_head.len == HEAD_MAX)
		refuse(px, c, "(request)", "a request head over 8 KiB");
}

bool
proxy_step(struct proxy *px, const struct pollfd *p, size_t n)
{
	size_t i;

	px->moved = false;
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
				nodelay(fd);
				c = xcalloc(1, sizeof(*c));
				c->client = fd;
				c->upstream = -1;
				c->up.pipe[0] = c->up.pipe[1] = -1;
				c->down.pipe[0] = c->down.pipe[1] = -1;
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

			if (getsockopt(c->upstream, SOL_SOCKET, SO_ERROR, &err,
			    &l) < 0)
				err = errno;
			if (err) {
				/* This address failed: the next, if any. */
				log_debug("proxy: %s: connect to %s: %s", c->dest,
				    c->addr, strerror(err));
				connect_next(px, c, err);
				continue;
			}
			freeaddrinfo(c->res);
			c->res = c->next = NULL;
			/* Counted once it is one. */
			px->allowed++;
			log_info("proxy: %s", c->dest);
			reply(c->client, "200 Connection established");
			c->state = S_RELAY;
		} else if (c->state == S_RELAY) {
			bool up = px->map[i].side == 0;
			/* What this fd sends on, and what it is sent. */
			struct tube *in = up ? &c->up : &c->down;
			struct tube *out = up ? &c->down : &c->up;
			bool readable = p[i].revents & (POLLIN | POLLHUP |
			    POLLERR);

			/* In and passed on at once: a poll round saved. */
			if (!tube_pump(px, c, in, up ? c->client :
			    c->upstream, up ? c->upstream : c->client,
			    readable) ||
			    !tube_pump(px, c, out, up ? c->upstream : c->client,
			    up ? c->client : c->upstream, false) ||
			    (p[i].revents & POLLERR))
				c->state = S_DONE;
		}
	}
	return px->moved;
}

void
proxy_counts(const struct proxy *px, unsigned *allowed, unsigned *refused,
    unsigned *failed)
{
	*allowed = px->allowed;
	*refused = px->refused;
	*failed = px->failed;
}

char *const *
proxy_failures(const struct proxy *px)
{
	static char *const none[] = { NULL };

	return px->failures ? px->failures : none;
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
	strv_free(px->failures);
	for (i = 0; i < px->n; i++)
		conn_free(px, px->c[i]);
	close(px->listener);
	/*
	 * A thread still resolving gets EPIPE and frees its own job.  The
	 * write end stays open: closed, its number could be reused by a file
	 * the thread would then write into.
	 */
	close(px->resolved[0]);
	if (px->nl >= 0)
		close(px->nl);
	free(px->own);
	free(px);
}
