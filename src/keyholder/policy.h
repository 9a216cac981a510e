/* SPDX-License-Identifier: ISC */
/*
 * keyholder/policy.h - inference only, with the user's credential: the
 * hook (hook.h) of confine-keyholder.
 *
 * For each provider, an allow-list of methods and paths (inference,
 * token counting, models); every credential the agent sent is removed
 * (Authorization, x-api-key, x-goog-api-key, Cookie, Proxy-Authorization,
 * a key= query parameter) and the user's added; the JSON body of an
 * allowed request is parsed (jansson: bounded size and depth, duplicate
 * keys refused) and a request that asks the provider to reach the
 * network for the agent (server-side fetch, MCP servers and connectors,
 * URL context, code execution, any server-side tool type not on the
 * provider's allow-list) is refused, in the provider's own error format.
 *
 * Runs in: confine-keyholder, outside the sandbox.  Pure but for the
 * counters it keeps: no system call.
 */
#ifndef CONFINE_KEYHOLDER_POLICY_H
#define CONFINE_KEYHOLDER_POLICY_H

#include <stdbool.h>

#include "keyholder/hook.h"

enum kh_provider { KH_ANTHROPIC, KH_OPENAI, KH_GEMINI };

/* How the credential goes on a request. */
enum kh_cred_kind {
	KH_CRED_API_KEY,	/* x-api-key (Anthropic), Authorization:
				   Bearer (OpenAI), x-goog-api-key (Gemini) */
	KH_CRED_BEARER,		/* an OAuth access token: Authorization:
				   Bearer, whatever the provider */
};

struct kh_policy {
	enum kh_provider	 provider;
	enum kh_cred_kind	 kind;
	const char		*secret;	/* the user's credential */
	bool			 web_search;	/* server-side web search
						   allowed (a profile key) */
};

/* The hook: arg is a const struct kh_policy *. */
enum kh_verdict	kh_policy_hook(void *arg, struct kh_request *,
		    struct kh_refusal *);

/* "anthropic", "openai", "gemini" to the provider; -1 if none. */
int	kh_provider_from_name(const char *);

#endif
