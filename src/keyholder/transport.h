/* SPDX-License-Identifier: ISC */
/*
 * keyholder/transport.h - HTTP/1.1 from the sandbox, TLS to the provider.
 *
 * The agent connects to the keyholder's listener on the sandbox's own
 * loopback and speaks plain HTTP/1.1 (keep-alive, Content-Length or
 * chunked request bodies).  For each request the transport reads the head
 * and the whole body (bounded: KH_HEAD_MAX, KH_BODY_MAX), calls the hook
 * (hook.h), and either answers with the hook's refusal or sends the
 * rewritten request to the provider over TLS, verified against the
 * system's trust store (and ca_file), with SNI and the host name checked,
 * and streams the response back as it arrives: an event stream (SSE) is
 * never held back.  Failures upstream (connect, TLS, timeout) are answered
 * with 502 or 504 and a one-line reason, in the body and in the log.
 *
 * Runs in: confine-keyholder, outside the sandbox.  The agent's bytes are
 * untrusted.
 */
#ifndef CONFINE_KEYHOLDER_TRANSPORT_H
#define CONFINE_KEYHOLDER_TRANSPORT_H

#include <stdatomic.h>

#include "keyholder/hook.h"

struct kh_upstream {
	const char	*host;		/* the name TLS checks and SNI carries */
	const char	*port;		/* "443" */
	const char	*ca_file;	/* also trusted, or NULL */
	int		 connect_seconds;	/* connect and TLS handshake */
	int		 head_seconds;	/* the agent's request head and body */
	int		 idle_seconds;	/* silence upstream, mid-response */
};

/* What happened, for confine's count at exit (updated atomically). */
struct kh_stats {
	atomic_ulong	 forwarded;	/* requests sent upstream */
	atomic_ulong	 refused;	/* the hook's refusals */
	atomic_ulong	 failed;	/* upstream failures: 502, 504 */
	atomic_ulong	 bad;		/* malformed or oversized requests */
};

/*
 * Serve the connections accepted on listen_fd (a listening socket) until
 * stop_fd becomes readable or reaches its end; then stop accepting, and
 * return once the connections in flight are done.  0, or -errno.
 */
int	kh_serve(int listen_fd, int stop_fd, const struct kh_upstream *,
	    kh_hook, void *arg, struct kh_stats *);

/* As kh_serve, with a renew hook (hook.h), given the same arg. */
int	kh_serve_renewing(int listen_fd, int stop_fd,
	    const struct kh_upstream *, kh_hook, kh_renew, void *arg,
	    struct kh_stats *);

/*
 * One request to up over verified TLS, on a connection of its own closed
 * after it (the keyholder's own, to a login's token endpoint): method,
 * target, a Content-Type and the body.  The response's status and body
 * (heap, NUL after it, at most max bytes; the caller wipes and frees it)
 * in *ret_status, *ret_body and *ret_len; 0, or -1 with *why (a heap
 * line: never the request's body, nor the response's).
 */
int	kh_fetch(const struct kh_upstream *up, const char *method,
	    const char *target, const char *content_type, const char *body,
	    size_t max, int *ret_status, char **ret_body, size_t *ret_len,
	    char **why);

#endif
