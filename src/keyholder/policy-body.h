/* SPDX-License-Identifier: ISC */
/*
 * keyholder/policy-body.h - the JSON body of an inference request: parsed
 * with jansson (duplicate keys refused, depth bounded) and checked for
 * what would make the provider reach the network, or its stores, for the
 * agent.  Internal to the policy (policy.c); see policy.h.
 *
 * Runs in: confine-keyholder, outside the sandbox.  The body is the
 * agent's: untrusted.  Pure: no system call.
 */
#ifndef CONFINE_KEYHOLDER_POLICY_BODY_H
#define CONFINE_KEYHOLDER_POLICY_BODY_H

#include <stdbool.h>
#include <stddef.h>

#include "keyholder/policy.h"

/* Containers nested at most (the body's object is depth 1). */
#define KH_JSON_DEPTH_MAX	64

/* Which check a route's body gets. */
enum kh_body {
	KH_BODY_EMPTY,		/* GET: no body at all */
	KH_BODY_ANTHROPIC,	/* Messages API */
	KH_BODY_RESPONSES,	/* OpenAI Responses API */
	KH_BODY_CHAT,		/* OpenAI Chat Completions */
	KH_BODY_GEMINI,		/* generateContent and its kin */
};

/* Why a request is refused; policy.c turns it into the provider's error. */
struct kh_why {
	bool	 malformed;	/* 400 (the request is wrong) not 403 */
	char	*msg;		/* "confine: ...": printable ASCII, heap */
};

/*
 * Check an untrusted body (untrusted_len bytes, NUL after) for the route's
 * kind.  0 when it may go; -1 with *ret filled when it may not.
 */
int	kh_body_check(enum kh_body, const struct kh_policy *,
	    const char *untrusted_body, size_t untrusted_len,
	    struct kh_why *ret);

/* A copy of s for a message: printable ASCII ('?' for the rest), at most
   max bytes (then "..."). */
char	*kh_printable(const char *s, size_t max);

#endif
