// SPDX-License-Identifier: ISC
/*
 * policy.c - inference only, with the user's credential: the keyholder's
 * hook.  The route (method, path, query) must be on the provider's table;
 * every credential the agent sent is removed and the user's added; the
 * body is checked (policy-body.c); a refusal is answered in the
 * provider's own error format.  See policy.h and confine-profile(5),
 * INJECTED ENDPOINTS.
 *
 * Runs in: confine-keyholder, outside the sandbox, on the agent's request;
 * from several threads at once: it keeps no state.
 * MUST: match the target only when it is a plain normal origin-form path:
 *       no percent-encoding, no dot segment, no "//", no fragment.
 * MUST: remove every header that may carry a credential before adding the
 *       user's, so the request carries exactly one, the user's.
 * MUST: refuse a header that asks for another method than the request
 *       line's, on which the route was judged.
 * MUST: build the error body with jansson, so it is JSON whatever the
 *       agent's strings held.
 * The caller (main.c) seeds jansson's hash once, json_object_seed(0),
 * before the first request: otherwise jansson reads /dev/urandom on its
 * first object, from whichever thread, under whatever filter applies then.
 * The refusals are counted by the transport (struct kh_stats, refused).
 */
#include "config.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "keyholder/hook.h"
#include "keyholder/policy-body.h"
#include "keyholder/policy.h"
#include "lib/util.h"

/*
 * A route: "{...}" in the path matches one identifier (letters, digits,
 * '-', '.', '_'); query lists the parameters it takes, "name=value" for
 * that value only, "name=" for any (a key= parameter is removed from
 * every route before this is looked at).
 */
struct route {
	const char	*method;
	const char	*path;
	const char	*query;
	enum kh_body	 body;
};

static const struct route anthropic_routes[] = {
	{ "POST", "/v1/messages", "beta=true", KH_BODY_ANTHROPIC },
	{ "POST", "/v1/messages/count_tokens", "beta=true", KH_BODY_ANTHROPIC },
	{ "GET", "/v1/models", "beta=true limit= after_id= before_id=",
	    KH_BODY_EMPTY },
	{ "GET", "/v1/models/{model}", "beta=true", KH_BODY_EMPTY },
	{ NULL, NULL, NULL, KH_BODY_EMPTY },
};

static const struct route openai_routes[] = {
	{ "POST", "/v1/responses", "", KH_BODY_RESPONSES },
	{ "POST", "/v1/chat/completions", "", KH_BODY_CHAT },
	{ "GET", "/v1/models", "", KH_BODY_EMPTY },
	{ "GET", "/v1/models/{model}", "", KH_BODY_EMPTY },
	{ NULL, NULL, NULL, KH_BODY_EMPTY },
};

static const struct route gemini_routes[] = {
	{ "POST", "/v1beta/models/{model}:generateContent", "",
	    KH_BODY_GEMINI },
	{ "POST", "/v1beta/models/{model}:streamGenerateContent", "alt=sse",
	    KH_BODY_GEMINI },
	{ "POST", "/v1beta/models/{model}:countTokens", "", KH_BODY_GEMINI },
	{ "GET", "/v1beta/models", "pageSize= pageToken=", KH_BODY_EMPTY },
	{ "GET", "/v1beta/models/{model}", "", KH_BODY_EMPTY },
	{ NULL, NULL, NULL, KH_BODY_EMPTY },
};

/* A header whose name holds one of these may carry a credential. */
static const char *const credential_words[] = {
	"auth", "token", "key", "cookie", "secret", "credential", "password",
};

/* Added to anthropic-beta for an OAuth access token (as Claude Code does). */
static const char OAUTH_BETA[] = "oauth-2025-04-20";

static const char *const provider_names[] = {
	[KH_ANTHROPIC] = "anthropic",
	[KH_OPENAI] = "openai",
	[KH_GEMINI] = "gemini",
};

static bool
is_id(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
}

/* Characters a path may hold here: no '%', so nothing is encoded. */
static bool
is_path_char(char c)
{
	return is_id(c) || c == '/' || c == ':' || c == '~';
}

static bool
is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
}

/* A query value: identifiers and percent-escapes of two hex digits. */
static bool
value_is_plain(const char *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (is_id(v[i]) || v[i] == '~')
			continue;
		if (v[i] != '%' || i + 2 >= n || !is_hex(v[i + 1]) ||
		    !is_hex(v[i + 2]))
			return false;
		i += 2;
	}
	return true;
}

static int
malformed(struct kh_why *ret, const char *msg)
{
	ret->malformed = true;
	ret->msg = xstrdup(msg);
	return -1;
}

/* The path part of a target: plain and normal, or refused. */
static int
path_check(const char *path, size_t n, struct kh_why *ret)
{
	size_t i;

	if (n == 0 || path[0] != '/')
		return malformed(ret, "confine: the target is not an "
		    "origin-form path");
	for (i = 0; i < n; i++) {
		if (!is_path_char(path[i]))
			return malformed(ret, "confine: the target's path "
			    "holds a character confine does not take "
			    "(percent-encoding, a fragment, a blank)");
		if (path[i] != '/')
			continue;
		if (i + 1 < n && path[i + 1] == '/')
			return malformed(ret, "confine: the target's path "
			    "holds \"//\"");
		if ((i + 2 == n || (i + 2 < n && path[i + 2] == '/')) &&
		    path[i + 1] == '.')
			return malformed(ret, "confine: the target's path "
			    "holds a \".\" segment");
		if (i + 2 < n && path[i + 1] == '.' && path[i + 2] == '.' &&
		    (i + 3 == n || path[i + 3] == '/'))
			return malformed(ret, "confine: the target's path "
			    "holds a \"..\" segment");
	}
	return 0;
}

static bool
path_matches(const char *pat, const char *path, size_t n)
{
	const char *end = path + n;
	size_t k;

	while (*pat) {
		if (*pat == '{') {
			for (k = 0; path + k < end && is_id(path[k]); k++)
				;
			if (k == 0)
				return false;
			path += k;
			pat = strchr(pat, '}') + 1;
			continue;
		}
		if (path == end || *pat++ != *path++)
			return false;
	}
	return path == end;
}

/* Is name=value (n bytes) among the route's "query" words? */
static bool
param_allowed(const char *allowed, const char *param, size_t n)
{
	const char *w = allowed, *eq = memchr(param, '=', n);
	size_t len;

	while (*w) {
		len = strcspn(w, " ");
		if ((len == n && memcmp(w, param, n) == 0) ||
		    (w[len - 1] == '=' && eq && (size_t)(eq - param) + 1 ==
		    len && memcmp(w, param, len) == 0))
			return true;
		w += len + (w[len] == ' ');
	}
	return false;
}

/*
 * The query: every parameter the route takes, once, with a plain value;
 * key= dropped.  *ret_query is what goes upstream ("" for none).
 */
static int
query_check(const char *q, const char *allowed, char **ret_query,
    struct kh_why *ret)
{
	autofree char *out = xstrdup("");
	const char *p = q, *eq;
	char *tmp;
	size_t n;

	while (*p) {
		n = strcspn(p, "&");
		eq = memchr(p, '=', n);
		if (n == 0 || !eq)
			return malformed(ret, "confine: the target's query "
			    "is not name=value pairs");
		if (eq - p != 3 || memcmp(p, "key", 3) != 0) {
			if (!value_is_plain(eq + 1, n - (size_t)(eq + 1 - p)) ||
			    !param_allowed(allowed, p, n))
				return malformed(ret, "confine: the target's "
				    "query holds a parameter this route does "
				    "not take");
			tmp = xasprintf("%s%s%.*s", out, *out ? "&" : "?",
			    (int)n, p);
			free(out);
			out = tmp;
		}
		p += n + (p[n] == '&');
		if (p[-1] == '&' && *p == '\0')
			return malformed(ret, "confine: the target's query "
			    "ends with '&'");
	}
	*ret_query = steal_ptr(&out);
	return 0;
}

/* A parameter named twice could be read differently upstream. */
static bool
query_has_repeats(const char *q)
{
	const char *a, *b;
	size_t na, nb;

	for (a = q; *a; a += na + (a[na] == '&')) {
		na = strcspn(a, "&");
		if (strncmp(a, "key=", 4) == 0)
			continue;
		b = a + na + (a[na] == '&');
		for (; *b; b += nb + (b[nb] == '&')) {
			nb = strcspn(b, "&");
			if (strcspn(a, "=&") == strcspn(b, "=&") &&
			    memcmp(a, b, strcspn(a, "=&")) == 0)
				return true;
		}
	}
	return false;
}

static const struct route *
routes_of(enum kh_provider provider)
{
	switch (provider) {
	case KH_ANTHROPIC:
		return anthropic_routes;
	case KH_OPENAI:
		return openai_routes;
	case KH_GEMINI:
		return gemini_routes;
	}
	return NULL;
}

/* The route of req, its target rewritten without key=; or refused. */
static int
route_check(const struct kh_policy *p, struct kh_request *req,
    const struct route **ret_route, struct kh_why *ret)
{
	const struct route *r = routes_of(p->provider);
	const char *t = req->target, *q;
	autofree char *query = NULL, *target = NULL;
	size_t n;

	if (!r || !t || !req->method)
		return malformed(ret, "confine: no request line");
	n = strcspn(t, "?");
	if (path_check(t, n, ret) < 0)
		return -1;
	q = t[n] == '?' ? t + n + 1 : t + n;
	if (t[n] == '?' && *q == '\0')
		return malformed(ret, "confine: the target's query is empty");
	if (query_has_repeats(q))
		return malformed(ret, "confine: the target's query names a "
		    "parameter twice");
	for (; r->method; r++)
		if (streq(r->method, req->method) &&
		    path_matches(r->path, t, n))
			break;
	if (!r->method) {
		autofree char *path = xstrndup(t, n);
		autofree char *what = kh_printable(req->method, 16);
		autofree char *where = kh_printable(path, 128);

		ret->malformed = false;
		ret->msg = xasprintf("confine: %s %s refused: only inference, "
		    "token counting and models go through confine's endpoint "
		    "(confine-profile(5), INJECTED ENDPOINTS)", what, where);
		return -1;
	}
	if (query_check(q, r->query, &query, ret) < 0)
		return -1;
	target = xasprintf("%.*s%s", (int)n, t, query);
	free(req->target);
	req->target = steal_ptr(&target);
	*ret_route = r;
	return 0;
}

static bool
is_credential_header(const char *name)
{
	size_t i;

	if (strcasecmp(name, "proxy-authorization") == 0)
		return true;
	for (i = 0; i < nitems(credential_words); i++)
		if (strcasestr(name, credential_words[i]))
			return true;
	return false;
}

/* The agent's anthropic-beta flags, merged into one list with the OAuth
   flag; each flag plain, or refused. */
static int
anthropic_beta_merge(struct kh_request *req, struct kh_why *ret)
{
	autofree char *list = xstrdup("");
	const char *v, *f;
	char *tmp;
	size_t n;

	while ((v = kh_header_get(req, "anthropic-beta"))) {
		for (f = v; *f; f += n) {
			f += strspn(f, " ,");
			n = strcspn(f, " ,");
			if (n == 0)
				continue;
			if (!value_is_plain(f, n) || memchr(f, '%', n))
				return malformed(ret, "confine: an "
				    "anthropic-beta flag is not plain");
			tmp = xasprintf("%s%s%.*s", list, *list ? "," : "",
			    (int)n, f);
			free(list);
			list = tmp;
		}
		kh_header_remove(req, "anthropic-beta");
	}
	if (!strstr(list, OAUTH_BETA)) {
		tmp = xasprintf("%s%s%s", list, *list ? "," : "", OAUTH_BETA);
		free(list);
		list = tmp;
	}
	kh_header_add(req, "anthropic-beta", list);
	return 0;
}

/*
 * Headers that ask a server to take another method than the request
 * line's (Google's front ends honour X-HTTP-Method-Override on a POST):
 * the route was judged by the request line's, so none is taken.
 */
static const char *const method_overrides[] = {
	"x-http-method-override", "x-http-method", "x-method-override",
};

static int
method_override_check(const struct kh_request *req, struct kh_why *ret)
{
	size_t i;

	for (i = 0; i < nitems(method_overrides); i++)
		if (kh_header_get(req, method_overrides[i]))
			return malformed(ret, "confine: a method override "
			    "header (X-HTTP-Method-Override) is refused: the "
			    "method is the request line's");
	return 0;
}

/* Remove the agent's credentials, add the user's. */
static int
credential_swap(const struct kh_policy *p, struct kh_request *req,
    struct kh_why *ret)
{
	autofree char *bearer = NULL;
	const char *s;
	size_t i = 0;

	for (s = p->secret; s && *s; s++)
		if (*s < 0x21 || *s > 0x7e)
			break;
	if (!p->secret || !*p->secret || *s)
		return malformed(ret, "confine: the user's credential cannot "
		    "go in a header");
	while (i < req->nheaders) {
		if (is_credential_header(req->headers[i].name)) {
			autofree char *name = xstrdup(req->headers[i].name);

			kh_header_remove(req, name);
			i = 0;
			continue;
		}
		i++;
	}
	bearer = xasprintf("Bearer %s", p->secret);
	if (p->kind == KH_CRED_BEARER || p->provider == KH_OPENAI)
		kh_header_add(req, "Authorization", bearer);
	else if (p->provider == KH_ANTHROPIC)
		kh_header_add(req, "x-api-key", p->secret);
	else
		kh_header_add(req, "x-goog-api-key", p->secret);
	if (p->provider == KH_ANTHROPIC && p->kind == KH_CRED_BEARER)
		return anthropic_beta_merge(req, ret);
	return 0;
}

/* A JSON body is sent as JSON, as confine parsed it. */
static void
body_headers(struct kh_request *req)
{
	kh_header_remove(req, "content-type");
	kh_header_remove(req, "content-encoding");
	kh_header_add(req, "Content-Type", "application/json");
}

static json_t *
error_json(enum kh_provider provider, const struct kh_why *w, int status)
{
	switch (provider) {
	case KH_ANTHROPIC:
		return json_pack("{s:s, s:{s:s, s:s}}", "type", "error",
		    "error", "type", w->malformed ? "invalid_request_error" :
		    "permission_error", "message", w->msg);
	case KH_OPENAI:
		return json_pack("{s:{s:s, s:s, s:n, s:s}}", "error",
		    "message", w->msg, "type", "invalid_request_error",
		    "param", "code", "confine_refused");
	case KH_GEMINI:
		return json_pack("{s:{s:i, s:s, s:s}}", "error", "code",
		    status, "message", w->msg, "status", w->malformed ?
		    "INVALID_ARGUMENT" : "PERMISSION_DENIED");
	}
	return NULL;
}

static void
refusal_fill(enum kh_provider provider, const struct kh_why *w,
    struct kh_refusal *ret)
{
	int status = w->malformed ? 400 : 403;
	json_t *j = error_json(provider, w, status);
	char *body = j ? json_dumps(j, JSON_COMPACT) : NULL;

	json_decref(j);
	ret->status = status;
	ret->content_type = xstrdup("application/json");
	ret->body = body ? body : xstrdup("{\"error\":\"confine: refused\"}");
	ret->body_len = strlen(ret->body);
	ret->reason = kh_printable(w->msg, 400);
}

enum kh_verdict
kh_policy_hook(void *arg, struct kh_request *req, struct kh_refusal *ret)
{
	const struct kh_policy *p = arg;
	const struct route *r = NULL;
	struct kh_why w = { 0 };

	if (route_check(p, req, &r, &w) < 0 ||
	    method_override_check(req, &w) < 0 ||
	    credential_swap(p, req, &w) < 0 ||
	    kh_body_check(r->body, p, req->untrusted_body, req->body_len,
	    &w) < 0) {
		refusal_fill(p->provider, &w, ret);
		free(w.msg);
		return KH_REFUSE;
	}
	if (r->body != KH_BODY_EMPTY)
		body_headers(req);
	return KH_FORWARD;
}

int
kh_provider_from_name(const char *name)
{
	size_t i;

	for (i = 0; name && i < nitems(provider_names); i++)
		if (streq(name, provider_names[i]))
			return (int)i;
	return -1;
}
