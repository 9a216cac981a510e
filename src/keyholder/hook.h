/* SPDX-License-Identifier: ISC */
/*
 * keyholder/hook.h - what the keyholder's transport (transport.c: HTTP/1.1
 * from the sandbox, TLS to the provider) and its policy (policy.c: which
 * requests are inference, whose credential they carry) tell each other.
 *
 * The transport reads one request from the agent, whole (head and body,
 * de-chunked, bounded), and hands it to the hook; the hook rewrites it in
 * place (credential headers removed, the user's added) and says forward,
 * or fills a refusal the transport sends back as the response.  The
 * transport then owns the framing: it sends Host, Content-Length and
 * Connection itself, so the hook never sees or sets them.
 *
 * Runs in: confine-keyholder, outside the sandbox.  Everything in a
 * request is the agent's: untrusted.
 */
#ifndef CONFINE_KEYHOLDER_HOOK_H
#define CONFINE_KEYHOLDER_HOOK_H

#include <stdbool.h>
#include <stddef.h>

/* A request body the keyholder takes at most (a long agent context). */
#define KH_BODY_MAX	(64UL * 1024 * 1024)
/* A request head (request line and headers) at most. */
#define KH_HEAD_MAX	(64UL * 1024)
/* Headers a request may have at most. */
#define KH_HEADERS_MAX	128

struct kh_header {
	char	*name;		/* as sent; compared without case */
	char	*value;		/* leading and trailing blanks removed */
};

struct kh_request {
	char		*method;	/* "POST" */
	char		*target;	/* origin-form: "/v1/messages?beta=true" */
	struct kh_header *headers;	/* all but Host, Content-Length,
					   Transfer-Encoding, Connection,
					   Keep-Alive, TE, Upgrade,
					   Proxy-Connection, which the
					   transport keeps to itself */
	size_t		 nheaders;
	char		*untrusted_body;	/* the whole body, NUL after */
	size_t		 body_len;
};

/* The response to a refused request, made by the hook (heap strings). */
struct kh_refusal {
	int		 status;	/* 403, 400, 413, ... */
	char		*content_type;	/* "application/json" */
	char		*body;
	size_t		 body_len;
	char		*reason;	/* one line for confine's log and count */
};

enum kh_verdict {
	KH_FORWARD,	/* send the (rewritten) request upstream */
	KH_REFUSE,	/* answer with the refusal, forward nothing */
};

/*
 * The hook: decide on req and rewrite it; arg is the hook's own.  On
 * KH_REFUSE, *ret is filled (the transport frees its strings).  Called
 * from several threads at once: it must not change shared state but
 * through atomics or a lock of its own.
 */
typedef enum kh_verdict (*kh_hook)(void *arg, struct kh_request *req,
    struct kh_refusal *ret);

/*
 * The renew hook, optional: the provider answered 401 to req, which the
 * hook let through.  Renew the credential if it can (serialised: called
 * from several threads at once) and put the new one on req: true, and the
 * transport sends req once more (the 401 is never seen); false, and the
 * 401 goes to the agent as it came.
 */
typedef bool (*kh_renew)(void *arg, struct kh_request *req);

/* Free what a request or a refusal holds (not the struct itself). */
void	kh_request_clear(struct kh_request *);
void	kh_refusal_clear(struct kh_refusal *);

/* Add a header (copies of name and value) / remove every one named so. */
void	kh_header_add(struct kh_request *, const char *name,
	    const char *value);
size_t	kh_header_remove(struct kh_request *, const char *name);
/* The first header named so, or NULL. */
const char *kh_header_get(const struct kh_request *, const char *name);

#endif
