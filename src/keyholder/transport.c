// SPDX-License-Identifier: ISC
/*
 * keyholder/transport.c - HTTP/1.1 from the sandbox, verified TLS to the
 * provider (OpenSSL); see transport.h.
 *
 * One thread a connection, at most KH_CONNS at once (more wait in the
 * kernel's backlog), on small stacks.  Each thread reads a request whole,
 * hands it to the hook, and either sends the hook's refusal or forwards
 * the rewritten request over its own TLS connection to the provider
 * (opened when first needed, kept while both sides keep alive) and
 * relays the response as it arrives, through one buffer: an event stream
 * is never held back.
 *
 * Decisions: HTTP/1.0 is refused (505: the agents' SDKs speak 1.1);
 * "Expect: 100-continue" is answered (any other expectation gets 417)
 * and not forwarded, since the body is read whole first; the headers a
 * request's Connection header names are dropped with the hop-by-hop ones.
 *
 * Runs in: confine-keyholder, outside the sandbox.  The agent's bytes are
 * untrusted; the provider's are read with the same bounds.
 * MUST: parse a request strictly: one framing (Content-Length or chunked,
 *   never both, never twice), no bare CR or LF, no NUL, no obs-fold; bound
 *   the head (KH_HEAD_MAX), the body (KH_BODY_MAX) and the time to send
 *   them (head_seconds).
 * MUST: verify the provider (the trust store and ca_file, SNI, the host
 *   name, TLS 1.2 at least); anything else fails closed with 502.
 * MUST: never log a request's target, headers or body: they may hold a
 *   credential.
 */
#include "config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "keyholder/hook.h"
#include "keyholder/http.h"
#include "keyholder/transport.h"
#include "lib/fdio.h"
#include "lib/log.h"
#include "lib/util.h"

#define KH_CONNS		64	/* connections served at once */
/* getaddrinfo() and the TLS handshake need more than 64 KiB at times;
 * only the pages a thread touches count in the resident set. */
#define STACK_SIZE		(256 * 1024)
#define BUF_MAX			KH_HEAD_MAX	/* one read buffer a side */
#define KEEPALIVE_SECONDS	120	/* an idle agent connection */
#define DRAIN_SECONDS		10	/* in flight, after the stop */
#define LINGER_MAX		(1024 * 1024)

struct server {
	const struct kh_upstream *up;
	kh_hook		 hook;
	kh_renew	 renew;		/* or NULL */
	void		*arg;
	struct kh_stats	*stats;
	SSL_CTX		*ctx;
	int		 stop_fd;
	pthread_mutex_t	 lock;
	pthread_cond_t	 done;
	int		 fds[KH_CONNS];	/* the agents' sockets; -1: free */
	unsigned	 active;
};

/* Bytes read from one side, not yet used: buf[off, len). */
struct rd {
	int	 fd;
	SSL	*ssl;		/* the provider's side, or NULL */
	char	*buf;		/* BUF_MAX bytes */
	size_t	 off, len;
};

struct conn {
	struct server	*s;
	int		 slot;
	struct rd	 in;		/* the agent */
	struct rd	 up;		/* the provider, when up.ssl is set */
	struct addrinfo	*addrs;		/* the provider's, resolved once */
	char		 why[256];	/* the last upstream failure */
};

enum relay { R_DONE, R_CLOSE, R_RETRY, R_FAIL_BEFORE, R_FAIL_AFTER,
    R_UNAUTHORIZED };

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int
left_ms(int64_t deadline)
{
	int64_t d = deadline - now_ms();

	return d < 0 ? 0 : d > INT_MAX ? INT_MAX : (int)d;
}

static const char *
reason_phrase(int status)
{
	static const struct { int st; const char *s; } t[] = {
		{ 100, "Continue" }, { 400, "Bad Request" },
		{ 401, "Unauthorized" }, { 403, "Forbidden" },
		{ 404, "Not Found" }, { 405, "Method Not Allowed" },
		{ 408, "Request Timeout" }, { 413, "Content Too Large" },
		{ 417, "Expectation Failed" }, { 429, "Too Many Requests" },
		{ 431, "Request Header Fields Too Large" },
		{ 500, "Internal Server Error" }, { 501, "Not Implemented" },
		{ 502, "Bad Gateway" }, { 504, "Gateway Timeout" },
		{ 505, "HTTP Version Not Supported" },
	};
	size_t i;

	for (i = 0; i < nitems(t); i++)
		if (t[i].st == status)
			return t[i].s;
	return "Error";
}

static void
sink_add(struct sink *k, const char *p, size_t n)
{
	if (k->len + n + 1 > k->cap) {
		size_t cap = k->cap ? k->cap : 4096;

		while (cap < k->len + n + 1)
			cap *= 2;
		/* A body of KH_BODY_MAX takes no more than that. */
		if (cap > KH_BODY_MAX + 1 && k->len + n + 1 <= KH_BODY_MAX + 1)
			cap = KH_BODY_MAX + 1;
		k->p = xreallocarray(k->p, cap, 1);
		k->cap = cap;
	}
	memcpy(k->p + k->len, p, n);
	k->len += n;
	k->p[k->len] = '\0';
}

static void
sink_str(struct sink *k, const char *s)
{
	sink_add(k, s, strlen(s));
}

static int
up_send(SSL *ssl, const char *p, size_t n)
{
	size_t w;

	if (n == 0)
		return 0;
	ERR_clear_error();
	return SSL_write_ex(ssl, p, n, &w) == 1 ? 0 : -EIO;
}

/* Move the unread bytes to the start of the buffer. */
static void
rd_compact(struct rd *r)
{
	if (r->off > 0) {
		memmove(r->buf, r->buf + r->off, r->len - r->off);
		r->len -= r->off;
		r->off = 0;
	}
}

/*
 * More bytes from the agent, waiting ms at most: how many, 0 at its end,
 * or -errno (-ETIMEDOUT; -ENOBUFS when the buffer holds BUF_MAX unread).
 */
static ssize_t
fill_agent(struct rd *r, int ms)
{
	struct pollfd p = { .fd = r->fd, .events = POLLIN };
	ssize_t n;
	int e;

	rd_compact(r);
	if (r->len == BUF_MAX)
		return -ENOBUFS;
	while ((e = poll(&p, 1, ms)) < 0 && errno == EINTR)
		;
	if (e < 0)
		return -errno;
	if (e == 0)
		return -ETIMEDOUT;
	while ((n = read(r->fd, r->buf + r->len, BUF_MAX - r->len)) < 0 &&
	    errno == EINTR)
		;
	if (n < 0)
		return -errno;
	r->len += (size_t)n;
	return n;
}

/*
 * More bytes from the provider (its socket's SO_RCVTIMEO bounds the
 * wait): how many, 0 at its end, or -errno (-ETIMEDOUT).
 */
static ssize_t
fill_up(struct rd *r)
{
	size_t n, k;
	int e;

	rd_compact(r);
	if (r->len == BUF_MAX)
		return -ENOBUFS;
	ERR_clear_error();
	errno = 0;
	if (SSL_read_ex(r->ssl, r->buf + r->len, BUF_MAX - r->len, &n) == 1) {
		r->len += n;
		/* What OpenSSL holds already (read ahead): one send for it. */
		while (r->len < BUF_MAX && SSL_pending(r->ssl) > 0 &&
		    SSL_read_ex(r->ssl, r->buf + r->len, BUF_MAX - r->len,
		    &k) == 1) {
			r->len += k;
			n += k;
		}
		return (ssize_t)n;
	}
	e = SSL_get_error(r->ssl, 0);
	if (e == SSL_ERROR_ZERO_RETURN)
		return 0;
	if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE ||
	    (e == SSL_ERROR_SYSCALL && (errno == EAGAIN ||
	    errno == EWOULDBLOCK)))
		return -ETIMEDOUT;
	if (e == SSL_ERROR_SYSCALL)
		return errno ? -errno : -ECONNRESET;
	return -EPROTO;
}

/* Answer the agent with a status and "confine: why" as plain text. */
static int
answer(struct conn *c, int status, const char *why, bool close)
{
	char head[256], body[320];
	int bn, hn;

	bn = snprintf(body, sizeof(body), "confine: %s\n", why);
	if (bn < 0 || (size_t)bn >= sizeof(body))
		bn = (int)sizeof(body) - 1;
	hn = snprintf(head, sizeof(head), "HTTP/1.1 %d %s\r\nContent-Type: "
	    "text/plain; charset=utf-8\r\nContent-Length: %d\r\n%s\r\n",
	    status, reason_phrase(status), bn,
	    close ? "Connection: close\r\n" : "");
	if (fd_write_all(c->in.fd, head, (size_t)hn) < 0 ||
	    fd_write_all(c->in.fd, body, (size_t)bn) < 0)
		return -1;
	return 0;
}

/* RFC 9110 tchar. */
static bool
is_tchar(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	    (ch >= '0' && ch <= '9') || (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

static bool
is_token(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!is_tchar((unsigned char)p[i]))
			return false;
	return n > 0;
}

static bool
name_is(const char *p, size_t n, const char *name)
{
	return strlen(name) == n && strncasecmp(p, name, n) == 0;
}

/* Does the comma-separated list v[0, n) hold tok (without case)? */
static bool
has_token(const char *v, size_t n, const char *tok)
{
	size_t i = 0, s, e;

	while (i < n) {
		while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		s = i;
		while (i < n && v[i] != ',')
			i++;
		e = i;
		while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
			e--;
		if (e > s && name_is(v + s, e - s, tok))
			return true;
	}
	return false;
}

/* Headers the transport keeps to itself (hook.h) or does not forward. */
static bool
is_hop(const char *p, size_t n)
{
	static const char *const hop[] = { "host", "content-length",
	    "transfer-encoding", "connection", "keep-alive", "te", "upgrade",
	    "proxy-connection", "expect" };
	size_t i;

	for (i = 0; i < nitems(hop); i++)
		if (name_is(p, n, hop[i]))
			return true;
	return false;
}

/* Parses untrusted bytes: Content-Length's value, 1 to 19 digits. */
static int
parse_length(const char *v, size_t n, uint64_t *ret)
{
	uint64_t x = 0;
	size_t i;

	if (n == 0 || n > 19)
		return -1;
	for (i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	*ret = x;
	return 0;
}

/*
 * Parses untrusted bytes: one header line of a request, name and value
 * (blanks trimmed) at [p, p + n), no CR, LF or NUL in it.  A header of
 * the framing fills f; any other is added to req.  0, or a status.
 */
static int
request_header(const char *p, size_t n, struct kh_request *req,
    struct framing *f, const char **why)
{
	const char *colon = memchr(p, ':', n), *v;
	size_t nl, vl, i;
	autofree char *name = NULL, *value = NULL;

	if (colon == NULL || !is_token(p, (size_t)(colon - p))) {
		*why = "a malformed header line";
		return 400;
	}
	nl = (size_t)(colon - p);
	v = colon + 1;
	vl = n - nl - 1;
	while (vl > 0 && (*v == ' ' || *v == '\t'))
		v++, vl--;
	while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
		vl--;
	for (i = 0; i < vl; i++)
		if ((unsigned char)v[i] < 0x20 && v[i] != '\t') {
			*why = "a control character in a header";
			return 400;
		} else if (v[i] == 0x7f) {
			*why = "a control character in a header";
			return 400;
		}
	if (name_is(p, nl, "host")) {
		f->hosts++;
	} else if (name_is(p, nl, "content-length")) {
		if (f->has_length || parse_length(v, vl, &f->length) < 0) {
			*why = "a second or malformed Content-Length";
			return 400;
		}
		f->has_length = true;
	} else if (name_is(p, nl, "transfer-encoding")) {
		if (f->chunked) {
			*why = "a second Transfer-Encoding";
			return 400;
		}
		if (!name_is(v, vl, "chunked")) {
			*why = "a Transfer-Encoding other than chunked";
			return 501;
		}
		f->chunked = true;
	} else if (name_is(p, nl, "expect")) {
		if (!name_is(v, vl, "100-continue")) {
			*why = "an expectation other than 100-continue";
			return 417;
		}
		f->expect_continue = true;
	} else if (name_is(p, nl, "connection")) {
		f->close = f->close || has_token(v, vl, "close");
		value = f->untrusted_conn;
		f->untrusted_conn = xasprintf("%s,%.*s", value ? value : "",
		    (int)vl, v);
		free(steal_ptr(&value));
	}
	if (is_hop(p, nl))
		return 0;
	if (req->nheaders >= KH_HEADERS_MAX) {
		*why = "too many headers";
		return 431;
	}
	name = xstrndup(p, nl);
	value = xstrndup(v, vl);
	kh_header_add(req, name, value);
	return 0;
}

/* Parses untrusted bytes: "METHOD SP /target SP HTTP/1.1". */
static int
request_line(const char *p, size_t n, struct kh_request *req,
    const char **why)
{
	const char *sp1 = memchr(p, ' ', n), *sp2;
	size_t i;

	*why = "a malformed request line";
	if (sp1 == NULL || !is_token(p, (size_t)(sp1 - p)))
		return 400;
	sp2 = memchr(sp1 + 1, ' ', (size_t)(p + n - sp1 - 1));
	if (sp2 == NULL || sp2 == sp1 + 1 || sp1[1] != '/')
		return 400;
	for (i = 1; sp1 + i < sp2; i++)
		if ((unsigned char)sp1[i] <= 0x20 ||
		    (unsigned char)sp1[i] >= 0x7f)
			return 400;
	if ((size_t)(p + n - sp2 - 1) == 8 && memcmp(sp2 + 1, "HTTP/1.0", 8)
	    == 0) {
		*why = "HTTP/1.0 (the keyholder speaks HTTP/1.1)";
		return 505;
	}
	if ((size_t)(p + n - sp2 - 1) != 8 || memcmp(sp2 + 1, "HTTP/1.1", 8))
		return 400;
	req->method = xstrndup(p, (size_t)(sp1 - p));
	req->target = xstrndup(sp1 + 1, (size_t)(sp2 - sp1 - 1));
	return 0;
}

/* Drop the headers the request's Connection header names. */
static void
drop_named(struct kh_request *req, const char *untrusted_conn)
{
	autofree char *copy = xstrdup(untrusted_conn);
	char *tok, *save = NULL;

	for (tok = strtok_r(copy, ", \t", &save); tok;
	    tok = strtok_r(NULL, ", \t", &save))
		kh_header_remove(req, tok);
}

/* Parses untrusted bytes: see keyholder/http.h. */
int
kh_parse_head(const char *untrusted_head, size_t len,
    struct kh_request *req, struct framing *f, const char **why)
{
	const char *p = untrusted_head, *end = untrusted_head + len, *lf;
	size_t n;
	int st;

	if (memchr(p, '\0', len)) {
		*why = "a NUL byte in the request head";
		return 400;
	}
	for (; p < end; p = lf + 1) {
		lf = memchr(p, '\n', (size_t)(end - p));
		if (lf == NULL || lf == p || lf[-1] != '\r' ||
		    memchr(p, '\r', (size_t)(lf - 1 - p))) {
			*why = "a bare CR or LF in the request head";
			return 400;
		}
		n = (size_t)(lf - 1 - p);
		if (n == 0)
			break;
		if (p == untrusted_head)
			st = request_line(p, n, req, why);
		else if (*p == ' ' || *p == '\t') {
			*why = "a folded header line";
			st = 400;
		} else
			st = request_header(p, n, req, f, why);
		if (st)
			return st;
	}
	if (req->method == NULL) {
		*why = "no request line";
		return 400;
	}
	if (f->hosts != 1) {
		*why = "no Host header, or more than one";
		return 400;
	}
	if (f->has_length && f->chunked) {
		*why = "both Content-Length and Transfer-Encoding";
		return 400;
	}
	if (f->has_length && f->length > KH_BODY_MAX) {
		*why = "a request body over the keyholder's limit";
		return 413;
	}
	if (f->untrusted_conn)
		drop_named(req, f->untrusted_conn);
	return 0;
}

/* Parses untrusted bytes: see keyholder/http.h. */
ssize_t
kh_dechunk(struct chunk *ch, const char *p, size_t n, struct sink *out,
    size_t max)
{
	size_t i = 0, k;
	int d;

	while (i < n && ch->st != CH_DONE) {
		char x = p[i];

		switch (ch->st) {
		case CH_SIZE:
			d = x >= '0' && x <= '9' ? x - '0' :
			    x >= 'a' && x <= 'f' ? x - 'a' + 10 :
			    x >= 'A' && x <= 'F' ? x - 'A' + 10 : -1;
			if (d >= 0) {
				ch->size = ch->size * 16 + (uint64_t)d;
				ch->digits = true;
				if (ch->size > CHUNK_SIZE_MAX)
					return -1;
			} else if (!ch->digits)
				return -1;
			else if (x == ';' || x == ' ' || x == '\t')
				ch->st = CH_EXT;
			else if (x == '\r')
				ch->st = CH_SIZE_LF;
			else
				return -1;
			i++;
			break;
		case CH_EXT:
			if (x == '\n')
				return -1;
			if (x == '\r')
				ch->st = CH_SIZE_LF;
			i++;
			break;
		case CH_SIZE_LF:
			if (x != '\n')
				return -1;
			ch->st = ch->size ? CH_DATA : CH_TRAILER;
			i++;
			break;
		case CH_DATA:
			k = n - i < ch->size ? n - i : (size_t)ch->size;
			if (out && out->len + k > max)
				return -2;
			if (out)
				sink_add(out, p + i, k);
			ch->size -= k;
			i += k;
			if (ch->size == 0)
				ch->st = CH_DATA_CR;
			break;
		case CH_DATA_CR:
		case CH_DATA_LF:
			if (x != (ch->st == CH_DATA_CR ? '\r' : '\n'))
				return -1;
			ch->st = ch->st == CH_DATA_CR ? CH_DATA_LF : CH_SIZE;
			ch->digits = false;
			i++;
			break;
		case CH_TRAILER:
			if (x == '\n')
				return -1;
			ch->st = x == '\r' ? CH_END_LF : CH_TRAILER_LINE;
			i++;
			break;
		case CH_TRAILER_LINE:
			if (x == '\n')
				ch->st = CH_TRAILER;
			i++;
			break;
		case CH_END_LF:
			if (x != '\n')
				return -1;
			ch->st = CH_DONE;
			i++;
			break;
		case CH_DONE:
			break;
		}
	}
	return (ssize_t)i;
}

static int
body_length(struct conn *c, struct kh_request *req, uint64_t length,
    int64_t deadline, const char **why)
{
	struct rd *in = &c->in;
	size_t got, k;
	ssize_t n;

	req->untrusted_body = xmalloc((size_t)length + 1);
	got = in->len - in->off < length ? in->len - in->off : length;
	memcpy(req->untrusted_body, in->buf + in->off, got);
	in->off += got;
	while (got < length) {
		struct pollfd p = { .fd = in->fd, .events = POLLIN };
		int e = poll(&p, 1, left_ms(deadline));

		if (e < 0 && errno == EINTR)
			continue;
		if (e == 0) {
			*why = "the request body came too slowly";
			return 408;
		}
		/* Bounded: the declared length, at most KH_BODY_MAX. */
		n = e < 0 ? -1 : read(in->fd, req->untrusted_body + got,
		    length - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	k = (size_t)length;
	req->untrusted_body[k] = '\0';
	req->body_len = k;
	return 0;
}

static int
body_chunked(struct conn *c, struct kh_request *req, int64_t deadline,
    const char **why)
{
	struct chunk ch = { .st = CH_SIZE };
	struct sink out = { 0 };
	struct rd *in = &c->in;
	ssize_t n;

	sink_add(&out, "", 0);
	while (ch.st != CH_DONE) {
		if (in->off == in->len) {
			n = fill_agent(in, left_ms(deadline));
			if (n == -ETIMEDOUT) {
				*why = "the request body came too slowly";
				free(out.p);
				return 408;
			}
			if (n <= 0) {
				free(out.p);
				return -1;
			}
		}
		n = kh_dechunk(&ch, in->buf + in->off, in->len - in->off, &out,
		    KH_BODY_MAX);
		if (n < 0) {
			free(out.p);
			*why = n == -2 ? "a request body over the keyholder's "
			    "limit" : "a malformed chunked body";
			return n == -2 ? 413 : 400;
		}
		in->off += (size_t)n;
	}
	req->untrusted_body = out.p;
	req->body_len = out.len;
	return 0;
}

/*
 * Wait for a request's first byte: 1, or 0 when the connection is to end
 * (the agent closed it or idled too long, or the keyholder stops).
 */
static int
wait_request(struct conn *c)
{
	struct pollfd p[2] = { { .fd = c->in.fd, .events = POLLIN },
	    { .fd = c->s->stop_fd, .events = POLLIN } };
	int e;

	if (c->in.off < c->in.len)
		return 1;
	while ((e = poll(p, 2, KEEPALIVE_SECONDS * 1000)) < 0 &&
	    errno == EINTR)
		;
	return e > 0 && p[1].revents == 0 && (p[0].revents & POLLIN);
}

/*
 * Read one request, whole.  0; -1 when the connection is to end quietly;
 * or a status to answer with before closing it (and *why).
 */
static int
read_request(struct conn *c, struct kh_request *req, struct framing *f,
    const char **why)
{
	struct rd *in = &c->in;
	int64_t deadline;
	const char *end;
	size_t hlen;
	ssize_t n;
	int st;

	if (!wait_request(c))
		return -1;
	deadline = now_ms() + (int64_t)c->s->up->head_seconds * 1000;
	while ((end = memmem(in->buf + in->off, in->len - in->off, "\r\n\r\n",
	    4)) == NULL) {
		n = fill_agent(in, left_ms(deadline));
		if (n == -ENOBUFS) {
			*why = "a request head over the keyholder's limit";
			return 431;
		}
		if (n == -ETIMEDOUT) {
			*why = "the request head came too slowly";
			return 408;
		}
		if (n <= 0)
			return -1;
	}
	hlen = (size_t)(end + 4 - (in->buf + in->off));
	st = kh_parse_head(in->buf + in->off, hlen, req, f, why);
	in->off += hlen;
	if (st)
		return st;
	if (f->expect_continue && (f->chunked || f->length > 0) &&
	    fd_write_all(in->fd, "HTTP/1.1 100 Continue\r\n\r\n", 25) < 0)
		return -1;
	if (f->chunked)
		return body_chunked(c, req, deadline, why);
	return body_length(c, req, f->has_length ? f->length : 0, deadline,
	    why);
}

static void
up_close(struct conn *c)
{
	if (c->up.ssl) {
		SSL_free(c->up.ssl);
		c->up.ssl = NULL;
	}
	if (c->up.fd >= 0) {
		close(c->up.fd);
		c->up.fd = -1;
	}
	c->up.off = c->up.len = 0;
}

static void
set_timeouts(int fd, int seconds)
{
	struct timeval tv = { .tv_sec = seconds };

	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* Connect to one address by deadline: the socket, or -errno. */
static int
dial_one(const struct addrinfo *a, int64_t deadline)
{
	struct pollfd p = { .events = POLLOUT };
	socklen_t sl = sizeof(int);
	int fd, e, err = 0, one = 1;

	fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0);
	if (fd < 0)
		return -errno;
	p.fd = fd;
	if (connect(fd, a->ai_addr, a->ai_addrlen) < 0) {
		if (errno != EINPROGRESS) {
			err = -errno;
			close(fd);
			return err;
		}
		while ((e = poll(&p, 1, left_ms(deadline))) < 0 &&
		    errno == EINTR)
			;
		if (e <= 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl) <
		    0 || err) {
			err = e == 0 ? -ETIMEDOUT : err ? -err : -errno;
			close(fd);
			return err;
		}
	}
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* Resolve (once) and connect: 0, or a status (502, 504) and c->why. */
static int
dial(struct conn *c, int64_t deadline)
{
	const struct kh_upstream *up = c->s->up;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	const struct addrinfo *a;
	int e, fd = -ENOENT;

	if (c->addrs == NULL && (e = getaddrinfo(up->host, up->port, &hints,
	    &c->addrs)) != 0) {
		c->addrs = NULL;
		snprintf(c->why, sizeof(c->why), "cannot resolve the endpoint "
		    "%s: %s", up->host, gai_strerror(e));
		return 502;
	}
	for (a = c->addrs; a && left_ms(deadline) > 0; a = a->ai_next)
		if ((fd = dial_one(a, deadline)) >= 0) {
			c->up.fd = fd;
			return 0;
		}
	if (fd == -ETIMEDOUT || left_ms(deadline) == 0) {
		snprintf(c->why, sizeof(c->why), "the endpoint %s:%s did not "
		    "accept a connection within %d s", up->host, up->port,
		    up->connect_seconds);
		return 504;
	}
	snprintf(c->why, sizeof(c->why), "cannot connect to the endpoint "
	    "%s:%s: %s", up->host, up->port, strerror(-fd));
	return 502;
}

/* The handshake, verified: 0, or a status (502, 504) and c->why. */
static int
handshake(struct conn *c)
{
	const struct kh_upstream *up = c->s->up;
	unsigned char addr[16];
	unsigned long err;
	long v;
	int r;

	set_timeouts(c->up.fd, up->connect_seconds);
	if ((c->up.ssl = SSL_new(c->s->ctx)) == NULL ||
	    SSL_set_fd(c->up.ssl, c->up.fd) != 1 ||
	    SSL_set1_host(c->up.ssl, up->host) != 1 ||
	    (inet_pton(AF_INET, up->host, addr) != 1 && inet_pton(AF_INET6,
	    up->host, addr) != 1 && SSL_set_tlsext_host_name(c->up.ssl,
	    up->host) != 1)) {
		snprintf(c->why, sizeof(c->why), "cannot set up TLS");
		return 502;
	}
	ERR_clear_error();
	errno = 0;
	if ((r = SSL_connect(c->up.ssl)) == 1) {
		set_timeouts(c->up.fd, up->idle_seconds);
		return 0;
	}
	if ((v = SSL_get_verify_result(c->up.ssl)) != X509_V_OK) {
		snprintf(c->why, sizeof(c->why), "the endpoint's certificate "
		    "failed verification: %s", X509_verify_cert_error_string(v));
		return 502;
	}
	r = SSL_get_error(c->up.ssl, r);
	if (r == SSL_ERROR_WANT_READ || r == SSL_ERROR_WANT_WRITE ||
	    errno == EAGAIN) {
		snprintf(c->why, sizeof(c->why), "the endpoint %s did not "
		    "complete the TLS handshake within %d s", up->host,
		    up->connect_seconds);
		return 504;
	}
	err = ERR_get_error();
	snprintf(c->why, sizeof(c->why), "the TLS handshake with %s failed: "
	    "%s", up->host, err ? ERR_reason_error_string(err) :
	    errno ? strerror(errno) : "the connection closed");
	return 502;
}

static int
up_open(struct conn *c)
{
	int st;

	if ((st = dial(c, now_ms() + (int64_t)c->s->up->connect_seconds *
	    1000)) == 0 && (st = handshake(c)) == 0)
		return 0;
	up_close(c);
	return st;
}

/* Is a header the hook made one that can be sent as it is? */
static bool
header_ok(const struct kh_header *h)
{
	size_t n = strlen(h->name);

	/* The framing is the transport's: a hook that sets it is wrong. */
	return is_token(h->name, n) && !is_hop(h->name, n) &&
	    strpbrk(h->value, "\r\n") == NULL;
}

/* Can the request, as the hook left it, be sent as it is? */
static bool
request_ok(const struct kh_request *req)
{
	const char *t = req->target;
	size_t i;

	if (req->method == NULL || !is_token(req->method,
	    strlen(req->method)) || t == NULL || t[0] != '/')
		return false;
	for (i = 0; t[i]; i++)
		if ((unsigned char)t[i] <= 0x20 || (unsigned char)t[i] >= 0x7f)
			return false;
	for (i = 0; i < req->nheaders; i++)
		if (!header_ok(&req->headers[i]))
			return false;
	return true;
}

/* The request upstream: its head, and the body (with the head when small). */
static int
send_request(struct conn *c, const struct kh_request *req)
{
	const struct kh_upstream *up = c->s->up;
	struct sink h = { 0 };
	char line[64];
	size_t i;
	int r = 0;

	sink_str(&h, req->method);
	sink_str(&h, " ");
	sink_str(&h, req->target);
	sink_str(&h, " HTTP/1.1\r\nHost: ");
	sink_str(&h, up->host);
	if (!streq(up->port, "443")) {
		sink_str(&h, ":");
		sink_str(&h, up->port);
	}
	sink_str(&h, "\r\n");
	for (i = 0; i < req->nheaders; i++) {
		sink_str(&h, req->headers[i].name);
		sink_str(&h, ": ");
		sink_str(&h, req->headers[i].value);
		sink_str(&h, "\r\n");
	}
	if (req->body_len > 0 || (!streq(req->method, "GET") &&
	    !streq(req->method, "HEAD"))) {
		snprintf(line, sizeof(line), "Content-Length: %zu\r\n",
		    req->body_len);
		sink_str(&h, line);
	}
	sink_str(&h, "Connection: keep-alive\r\n\r\n");
	if (req->body_len <= 16384) {
		sink_add(&h, req->untrusted_body ? req->untrusted_body : "",
		    req->body_len);
		r = up_send(c->up.ssl, h.p, h.len);
	} else if ((r = up_send(c->up.ssl, h.p, h.len)) == 0)
		r = up_send(c->up.ssl, req->untrusted_body, req->body_len);
	free(h.p);
	return r;
}

/* What the provider's response head says of its body. */
struct resp {
	int		 status;
	bool		 chunked;
	bool		 has_length;
	uint64_t	 length;
	bool		 close;
};

/*
 * Parses the provider's bytes: a response head ending with CR LF CR LF.
 * Fills r and out (the head for the agent: hop-by-hop headers dropped).
 * 0, or -1 (malformed, c->why).
 */
static int
parse_response(struct conn *c, const char *p, size_t len, struct resp *r,
    struct sink *out)
{
	const char *end = p + len, *lf, *colon, *v;
	size_t n, nl, vl;
	bool first = true;

	snprintf(c->why, sizeof(c->why), "a malformed response head from the "
	    "endpoint");
	if (len < 14 || memcmp(p, "HTTP/1.", 7) || (p[7] != '0' && p[7] != '1')
	    || p[8] != ' ' || p[9] < '1' || p[9] > '5' || p[10] < '0' ||
	    p[10] > '9' || p[11] < '0' || p[11] > '9' || (p[12] != ' ' &&
	    p[12] != '\r'))
		return -1;
	r->status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
	r->close = p[7] == '0';
	for (; p < end; p = lf + 1, first = false) {
		if ((lf = memchr(p, '\n', (size_t)(end - p))) == NULL ||
		    lf == p || lf[-1] != '\r')
			return -1;
		n = (size_t)(lf - 1 - p);
		if (n == 0)
			break;
		if (first) {
			sink_add(out, p, n + 2);
			continue;
		}
		if ((colon = memchr(p, ':', n)) == NULL)
			return -1;
		nl = (size_t)(colon - p);
		for (v = colon + 1, vl = n - nl - 1; vl && (*v == ' ' ||
		    *v == '\t'); v++, vl--)
			;
		while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
			vl--;
		if (name_is(p, nl, "content-length")) {
			if (r->has_length || parse_length(v, vl, &r->length))
				return -1;
			r->has_length = true;
		} else if (name_is(p, nl, "transfer-encoding")) {
			if (r->chunked || !name_is(v, vl, "chunked"))
				return -1;
			r->chunked = true;
		} else if (name_is(p, nl, "connection"))
			r->close = r->close || has_token(v, vl, "close");
		if (!name_is(p, nl, "content-length") &&
		    !name_is(p, nl, "transfer-encoding") && is_hop(p, nl))
			continue;
		sink_add(out, p, n + 2);
	}
	if (r->has_length && r->chunked)
		return -1;
	return 0;
}

/* Relay a body of known length, chunked, or to the connection's end. */
static enum relay
relay_body(struct conn *c, const struct resp *r)
{
	struct chunk ch = { .st = CH_SIZE };
	uint64_t left = r->length;
	bool to_end = !r->chunked && !r->has_length;
	size_t k;
	ssize_t n;

	for (;;) {
		if (!to_end && (r->chunked ? ch.st == CH_DONE : left == 0))
			break;
		if (c->up.off == c->up.len) {
			if ((n = fill_up(&c->up)) == 0 && to_end)
				return R_CLOSE;
			if (n <= 0) {
				snprintf(c->why, sizeof(c->why), "the endpoint "
				    "%s mid-response", n == -ETIMEDOUT ?
				    "went silent" : "failed");
				return R_FAIL_AFTER;
			}
		}
		k = c->up.len - c->up.off;
		if (r->chunked) {
			if ((n = kh_dechunk(&ch, c->up.buf + c->up.off, k, NULL,
			    0)) < 0) {
				snprintf(c->why, sizeof(c->why), "malformed "
				    "chunks from the endpoint");
				return R_FAIL_AFTER;
			}
			k = (size_t)n;
		} else if (!to_end && k > left)
			k = (size_t)left;
		left -= to_end ? 0 : k;
		if (fd_write_all(c->in.fd, c->up.buf + c->up.off, k) < 0)
			return R_CLOSE;
		c->up.off += k;
	}
	/* The provider's end, or bytes past the response: not reused. */
	if (r->close || c->up.off != c->up.len)
		up_close(c);
	return R_DONE;
}

/* The length of a target's path (what -v may log: no query). */
static int
path_len(const char *target)
{
	size_t n = strcspn(target, "?#");

	return n > 200 ? 200 : (int)n;
}

/*
 * Relay the response to req: interim ones, then the final one.  R_DONE
 * (the agent's connection may go on; the provider's too, if still open),
 * R_CLOSE (close both), R_RETRY (the reused connection closed before a
 * byte came), R_FAIL_BEFORE (*status, c->why) or R_FAIL_AFTER (c->why);
 * with hold_401, R_UNAUTHORIZED for a final 401, its head left unread.
 */
static enum relay
relay_response(struct conn *c, const struct kh_request *req, bool reused,
    bool closing, bool hold_401, int *status)
{
	struct resp r;
	struct sink out;
	const char *end;
	size_t hlen;
	ssize_t n;
	bool any = false;
	int e;

	for (;;) {
		while ((end = memmem(c->up.buf + c->up.off, c->up.len -
		    c->up.off, "\r\n\r\n", 4)) == NULL) {
			if ((n = fill_up(&c->up)) > 0) {
				any = true;
				continue;
			}
			if (n == 0 && reused && !any)
				return R_RETRY;
			*status = n == -ETIMEDOUT ? 504 : 502;
			snprintf(c->why, sizeof(c->why), "%s",
			    n == -ETIMEDOUT ? "the endpoint did not answer in "
			    "time" : n == -ENOBUFS ? "a response head over the "
			    "keyholder's limit" : n == 0 ? "the endpoint closed"
			    " the connection" : "the endpoint's connection "
			    "failed");
			return R_FAIL_BEFORE;
		}
		hlen = (size_t)(end + 4 - (c->up.buf + c->up.off));
		memset(&r, 0, sizeof(r));
		memset(&out, 0, sizeof(out));
		if (parse_response(c, c->up.buf + c->up.off, hlen, &r, &out)) {
			free(out.p);
			*status = 502;
			return R_FAIL_BEFORE;
		}
		c->up.off += hlen;
		any = true;
		if (r.status == 101) {
			free(out.p);
			*status = 502;
			snprintf(c->why, sizeof(c->why), "the endpoint switched "
			    "protocols unasked");
			return R_FAIL_BEFORE;
		}
		if (r.status == 401 && hold_401) {
			c->up.off -= hlen;
			free(out.p);
			return R_UNAUTHORIZED;
		}
		if (r.status >= 200)
			break;
		sink_str(&out, "\r\n");
		e = fd_write_all(c->in.fd, out.p, out.len);
		free(out.p);
		if (e < 0)
			return R_CLOSE;
	}
	if (r.status >= 400)
		log_info("keyholder: %s answered %d to %s %.*s", c->s->up->host,
		    r.status, req->method, path_len(req->target), req->target);
	if (r.status == 204 || r.status == 304 || streq(req->method, "HEAD"))
		r.chunked = false, r.has_length = true, r.length = 0;
	if (!r.chunked && !r.has_length)
		r.close = closing = true;
	sink_str(&out, closing ? "Connection: close\r\n\r\n" :
	    "\r\n");
	e = fd_write_all(c->in.fd, out.p, out.len);
	free(out.p);
	if (e < 0)
		return R_CLOSE;
	return relay_body(c, &r);
}

/* An upstream failure: counted, logged (-v), answered. */
static void
failed(struct conn *c, const struct kh_request *req, int status)
{
	atomic_fetch_add(&c->s->stats->failed, 1);
	if (status)
		log_info("keyholder: %s %.*s to %s: answered %d: %s",
		    req->method, path_len(req->target), req->target,
		    c->s->up->host, status, c->why);
	else
		log_info("keyholder: %s %.*s to %s: response cut: %s",
		    req->method, path_len(req->target), req->target,
		    c->s->up->host, c->why);
	if (status)
		(void)answer(c, status, c->why, false);
}

/*
 * Send req, on the connection kept or a new one (once more on a new one
 * when the kept one turns out closed), and relay the response.
 */
static enum relay
forward_once(struct conn *c, const struct kh_request *req, bool closing,
    bool hold_401, bool *counted, int *st)
{
	enum relay rl = R_CLOSE;
	bool reused;
	int attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		reused = c->up.ssl != NULL;
		if (!reused && (*st = up_open(c)) != 0)
			return R_FAIL_BEFORE;
		if (send_request(c, req) < 0) {
			up_close(c);
			if (reused)
				continue;
			snprintf(c->why, sizeof(c->why), "cannot send the "
			    "request to the endpoint");
			*st = 502;
			return R_FAIL_BEFORE;
		}
		if (!*counted)
			atomic_fetch_add(&c->s->stats->forwarded, 1);
		*counted = true;
		rl = relay_response(c, req, reused, closing, hold_401, st);
		if (rl != R_RETRY)
			break;
		up_close(c);
	}
	return rl;
}

/*
 * Forward req and relay the response: whether the connection goes on.  A
 * 401 is shown to the renew hook once: when it renewed the credential
 * (and put it on req), req is sent again; else the 401 goes through.
 */
static bool
forward(struct conn *c, struct kh_request *req, bool closing)
{
	enum relay rl;
	bool counted = false;
	int st = 0;

	rl = forward_once(c, req, closing, c->s->renew != NULL, &counted,
	    &st);
	if (rl == R_UNAUTHORIZED) {
		log_info("keyholder: %s answered 401 to %s %.*s: renewing "
		    "the credential", c->s->up->host, req->method,
		    path_len(req->target), req->target);
		if (c->s->renew(c->s->arg, req)) {
			up_close(c);
			rl = forward_once(c, req, closing, false, &counted,
			    &st);
		} else
			rl = relay_response(c, req, false, closing, false,
			    &st);
	}
	switch (rl) {
	case R_DONE:
		return !closing;
	case R_FAIL_BEFORE:
		up_close(c);
		failed(c, req, st);
		return !closing;
	case R_FAIL_AFTER:
		failed(c, req, 0);
		/* FALLTHROUGH */
	case R_CLOSE:
	case R_RETRY:
	case R_UNAUTHORIZED:
		break;
	}
	up_close(c);
	return false;
}

static bool
refuse(struct conn *c, struct kh_refusal *ref, bool closing)
{
	char head[256];
	int n;

	atomic_fetch_add(&c->s->stats->refused, 1);
	log_info("keyholder: refused a request: %s", ref->reason ?
	    ref->reason : "by the policy");
	n = snprintf(head, sizeof(head), "HTTP/1.1 %d %s\r\nContent-Type: %s"
	    "\r\nContent-Length: %zu\r\n%s\r\n", ref->status,
	    reason_phrase(ref->status), ref->content_type &&
	    !strpbrk(ref->content_type, "\r\n") ? ref->content_type :
	    "text/plain", ref->body ? ref->body_len : 0,
	    closing ? "Connection: close\r\n" : "");
	if (n < 0 || (size_t)n >= sizeof(head) ||
	    fd_write_all(c->in.fd, head, (size_t)n) < 0 ||
	    (ref->body && fd_write_all(c->in.fd, ref->body, ref->body_len) < 0))
		return false;
	return !closing;
}

/* One request, read whole: whether the connection goes on. */
static bool
serve_one(struct conn *c)
{
	AUTO(kh_request_clear) struct kh_request req = { 0 };
	AUTO(kh_refusal_clear) struct kh_refusal ref = { 0 };
	struct framing f = { 0 };
	const char *why = "a malformed request";
	int st;

	st = read_request(c, &req, &f, &why);
	free(f.untrusted_conn);
	if (st != 0) {
		if (st > 0) {
			atomic_fetch_add(&c->s->stats->bad, 1);
			log_info("keyholder: answered %d: %s", st, why);
			(void)answer(c, st, why, true);
		}
		return false;
	}
	if (c->s->hook(c->s->arg, &req, &ref) == KH_REFUSE)
		return refuse(c, &ref, f.close);
	if (!request_ok(&req)) {
		log_info("keyholder: the policy made a malformed request");
		(void)answer(c, 500, "the policy made a malformed request",
		    true);
		return false;
	}
	return forward(c, &req, f.close);
}

/*
 * Close gently: a close with the agent's bytes unread would reset the
 * connection, and the agent might lose the answer it was sent (431, 413).
 * So say the end, and read what comes for a while (bounded: LINGER_MAX
 * bytes, a second).
 */
static void
linger(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int64_t deadline = now_ms() + 1000;
	char buf[4096];
	size_t total = 0;
	ssize_t n;

	if (shutdown(fd, SHUT_WR) < 0)
		return;
	while (total < LINGER_MAX && poll(&p, 1, left_ms(deadline)) > 0 &&
	    (n = read(fd, buf, sizeof(buf))) > 0)
		total += (size_t)n;
}

static void *
serve_conn(void *arg)
{
	struct conn *c = arg;
	struct server *s = c->s;

	while (serve_one(c))
		;
	linger(c->in.fd);
	up_close(c);
	if (c->addrs)
		freeaddrinfo(c->addrs);
	free(c->in.buf);
	free(c->up.buf);
	pthread_mutex_lock(&s->lock);
	close(s->fds[c->slot]);
	s->fds[c->slot] = -1;
	s->active--;
	pthread_cond_broadcast(&s->done);
	pthread_mutex_unlock(&s->lock);
	free(c);
	return NULL;
}

/* An OpenSSL hashed name: 8 hex digits, a dot, a number. */
static bool
hash_name(const char *s)
{
	size_t i;

	for (i = 0; i < 8; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s[8] == '.' && s[9] >= '0' && s[9] <= '9';
}

/*
 * The system's trust store.  Where the default certificate directory
 * holds OpenSSL's hashed names (Debian's /etc/ssl/certs, which
 * update-ca-certificates keeps beside the bundle), a certificate is read
 * from it when a chain needs it: the whole bundle, loaded, costs some
 * 1.3 MB of the keyholder's memory.  Elsewhere (a bundle only, or
 * SSL_CERT_FILE naming another file than OpenSSL's default bundle),
 * OpenSSL's default file and directory.  SSL_CERT_FILE and SSL_CERT_DIR
 * naming the default bundle and directory themselves (as some
 * environments set them) are the system's store: the same certificates.
 */
static bool
same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	    sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int
system_store(SSL_CTX *ctx)
{
	const char *dir = getenv(X509_get_default_cert_dir_env());
	const char *file = getenv(X509_get_default_cert_file_env());
	struct dirent *e;
	bool hashed = false;
	DIR *d;

	if ((file != NULL && !same_file(file, X509_get_default_cert_file())) ||
	    (dir != NULL && !same_file(dir, X509_get_default_cert_dir())))
		return SSL_CTX_set_default_verify_paths(ctx);
	if (dir == NULL)
		dir = X509_get_default_cert_dir();
	if ((d = opendir(dir)) != NULL) {
		while (!hashed && (e = readdir(d)) != NULL)
			hashed = hash_name(e->d_name);
		closedir(d);
	}
	return hashed ? SSL_CTX_set_default_verify_dir(ctx) :
	    SSL_CTX_set_default_verify_paths(ctx);
}

static int
tls_ctx(const struct kh_upstream *up, SSL_CTX **ret)
{
	SSL_CTX *ctx;

	if ((ctx = SSL_CTX_new(TLS_client_method())) == NULL ||
	    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1 ||
	    system_store(ctx) != 1) {
		log_warn("keyholder: cannot set up TLS");
		SSL_CTX_free(ctx);
		return -EIO;
	}
	if (up->ca_file && SSL_CTX_load_verify_locations(ctx, up->ca_file,
	    NULL) != 1) {
		log_warn("keyholder: cannot load the CA file \"%s\"",
		    up->ca_file);
		SSL_CTX_free(ctx);
		return -EINVAL;
	}
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	/* A response framed by the connection's end may end without
	 * close_notify; the framing of the others is checked. */
	SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
	/* Fewer, larger reads from the socket for a streamed response. */
	SSL_CTX_set_read_ahead(ctx, 1);
	*ret = ctx;
	return 0;
}

/* Take a free slot for fd: its index, or -1 when all are taken. */
static int
slot_take(struct server *s, int fd)
{
	int i;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < KH_CONNS && s->fds[i] >= 0; i++)
		;
	if (i < KH_CONNS) {
		s->fds[i] = fd;
		s->active++;
	}
	pthread_mutex_unlock(&s->lock);
	return i < KH_CONNS ? i : -1;
}

/* Serve the connection fd in a thread of its own (or close it). */
static void
start_conn(struct server *s, int fd, const pthread_attr_t *attr)
{
	struct timeval tv = { .tv_sec = s->up->idle_seconds };
	struct conn *c;
	pthread_t t;
	int slot, one = 1, e;

	if ((slot = slot_take(s, fd)) < 0) {
		close(fd);
		return;
	}
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	c = xcalloc(1, sizeof(*c));
	c->s = s;
	c->slot = slot;
	c->in.fd = fd;
	c->in.buf = xmalloc(BUF_MAX);
	c->up.fd = -1;
	c->up.buf = xmalloc(BUF_MAX);
	if ((e = pthread_create(&t, attr, serve_conn, c)) != 0) {
		log_warn("keyholder: cannot start a thread: %s", strerror(e));
		pthread_mutex_lock(&s->lock);
		s->fds[slot] = -1;
		s->active--;
		pthread_mutex_unlock(&s->lock);
		close(fd);
		free(c->in.buf);
		free(c->up.buf);
		free(c);
	}
}

/* Wait for the connections in flight; cut them after DRAIN_SECONDS. */
static void
drain(struct server *s)
{
	struct timespec ts;
	int i;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += DRAIN_SECONDS;
	pthread_mutex_lock(&s->lock);
	while (s->active > 0 && pthread_cond_timedwait(&s->done, &s->lock,
	    &ts) != ETIMEDOUT)
		;
	for (i = 0; s->active > 0 && i < KH_CONNS; i++)
		if (s->fds[i] >= 0)
			(void)shutdown(s->fds[i], SHUT_RDWR);
	while (s->active > 0)
		pthread_cond_wait(&s->done, &s->lock);
	pthread_mutex_unlock(&s->lock);
}

/*
 * Wait for a connection or the stop: 1 to accept, 0 to stop, -1 to look
 * again (all KH_CONNS slots taken: the next ones wait in the backlog).
 */
static int
wait_accept(struct server *s, int listen_fd)
{
	struct pollfd p[2] = { { .fd = s->stop_fd, .events = POLLIN },
	    { .fd = listen_fd, .events = POLLIN } };
	bool full;
	int e;

	pthread_mutex_lock(&s->lock);
	full = s->active >= KH_CONNS;
	pthread_mutex_unlock(&s->lock);
	e = poll(p, full ? 1 : 2, full ? 50 : -1);
	if (e < 0 && errno != EINTR)
		return 0;
	if (p[0].revents)
		return 0;
	return !full && p[1].revents ? 1 : -1;
}

static int
accept_loop(struct server *s, int listen_fd, const pthread_attr_t *attr)
{
	int fd, w;

	while ((w = wait_accept(s, listen_fd)) != 0) {
		if (w < 0)
			continue;
		fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0) {
			start_conn(s, fd, attr);
			continue;
		}
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
		    errno == ENOMEM)
			(void)poll(NULL, 0, 100);
		else if (errno != EINTR && errno != EAGAIN &&
		    errno != ECONNABORTED && errno != EPROTO)
			return -errno;
	}
	return 0;
}

/*
 * The response to a kh_fetch() request into *ret (at most max bytes of
 * body): its status, or -1 (c->why).  The provider's bytes, parsed as the
 * relay does.
 */
static int
fetch_response(struct conn *c, size_t max, struct sink *ret)
{
	struct chunk ch = { .st = CH_SIZE };
	struct resp r = { 0 };
	struct sink head = { 0 };
	const char *end;
	size_t hlen, k;
	ssize_t n;

	snprintf(c->why, sizeof(c->why), "the endpoint closed the connection "
	    "early");
	do {
		while ((end = memmem(c->up.buf + c->up.off, c->up.len -
		    c->up.off, "\r\n\r\n", 4)) == NULL)
			if (fill_up(&c->up) <= 0)
				return -1;
		hlen = (size_t)(end + 4 - (c->up.buf + c->up.off));
		memset(&r, 0, sizeof(r));
		head.len = 0;
		if (parse_response(c, c->up.buf + c->up.off, hlen, &r,
		    &head) < 0) {
			free(head.p);
			return -1;
		}
		c->up.off += hlen;
	} while (r.status < 200);
	free(head.p);
	sink_add(ret, "", 0);
	for (;;) {
		if (r.chunked ? ch.st == CH_DONE : r.has_length &&
		    ret->len == r.length)
			break;
		if (c->up.off == c->up.len) {
			if ((n = fill_up(&c->up)) == 0 && !r.chunked &&
			    !r.has_length)
				break;
			if (n <= 0) {
				snprintf(c->why, sizeof(c->why), "the "
				    "endpoint's answer was cut");
				return -1;
			}
		}
		k = c->up.len - c->up.off;
		if (r.chunked) {
			if ((n = kh_dechunk(&ch, c->up.buf + c->up.off, k, ret,
			    max)) < 0) {
				snprintf(c->why, sizeof(c->why), "%s",
				    n == -2 ? "the endpoint's answer is over "
				    "the keyholder's limit" : "malformed chunks "
				    "from the endpoint");
				return -1;
			}
			k = (size_t)n;
		} else {
			if (r.has_length && k > r.length - ret->len)
				k = (size_t)(r.length - ret->len);
			if (ret->len + k > max) {
				snprintf(c->why, sizeof(c->why), "the "
				    "endpoint's answer is over the keyholder's "
				    "limit");
				return -1;
			}
			sink_add(ret, c->up.buf + c->up.off, k);
		}
		c->up.off += k;
	}
	return r.status;
}

int
kh_fetch(const struct kh_upstream *up, const char *method,
    const char *target, const char *content_type, const char *body,
    size_t max, int *ret_status, char **ret_body, size_t *ret_len,
    char **why)
{
	struct server s = { .up = up };
	struct conn c = { .s = &s };
	struct kh_request req = { 0 };
	struct kh_header h[2] = { { (char *)"Content-Type",
	    (char *)content_type }, { (char *)"Accept",
	    (char *)"application/json" } };
	struct sink out = { 0 };
	int st, r;

	if ((r = tls_ctx(up, &s.ctx)) < 0) {
		*why = xstrdup("cannot set up TLS");
		return -1;
	}
	c.up.fd = -1;
	c.up.buf = xmalloc(BUF_MAX);
	req.method = (char *)method;
	req.target = (char *)target;
	req.headers = h;
	req.nheaders = nitems(h);
	req.untrusted_body = (char *)body;
	req.body_len = strlen(body);
	r = -1;
	if ((st = up_open(&c)) != 0)
		*why = xstrdup(c.why);
	else if (send_request(&c, &req) < 0)
		*why = xasprintf("cannot send the request to %s", up->host);
	else if ((st = fetch_response(&c, max, &out)) < 0)
		*why = xstrdup(c.why);
	else {
		*ret_status = st;
		*ret_body = steal_ptr(&out.p);
		*ret_len = out.len;
		r = 0;
	}
	if (out.p) {
		explicit_bzero(out.p, out.cap);
		free(out.p);
	}
	up_close(&c);
	if (c.addrs)
		freeaddrinfo(c.addrs);
	free(c.up.buf);
	SSL_CTX_free(s.ctx);
	return r;
}

int
kh_serve(int listen_fd, int stop_fd, const struct kh_upstream *up,
    kh_hook hook, void *arg, struct kh_stats *stats)
{
	return kh_serve_renewing(listen_fd, stop_fd, up, hook, NULL, arg,
	    stats);
}

int
kh_serve_renewing(int listen_fd, int stop_fd, const struct kh_upstream *up,
    kh_hook hook, kh_renew renew, void *arg, struct kh_stats *stats)
{
	struct server s = { .up = up, .hook = hook, .renew = renew,
	    .arg = arg, .stats = stats, .stop_fd = stop_fd };
	pthread_condattr_t ca;
	pthread_attr_t attr;
	sigset_t pipe, old;
	int i, r;

	if ((r = tls_ctx(up, &s.ctx)) < 0)
		return r;
	for (i = 0; i < KH_CONNS; i++)
		s.fds[i] = -1;
	/* A peer reset mid-accept must not block the loop. */
	(void)fcntl(listen_fd, F_SETFL, fcntl(listen_fd, F_GETFL) |
	    O_NONBLOCK);
	pthread_mutex_init(&s.lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s.done, &ca);
	pthread_condattr_destroy(&ca);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_SIZE);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* OpenSSL writes with write(2): a closed peer gives EPIPE, never
	 * SIGPIPE, in the threads, which inherit this mask. */
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe, &old);
	r = accept_loop(&s, listen_fd, &attr);
	drain(&s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	pthread_cond_destroy(&s.done);
	pthread_mutex_destroy(&s.lock);
	SSL_CTX_free(s.ctx);
	return r;
}
