// SPDX-License-Identifier: ISC
/*
 * keyholder-policy-fuzzer.c - libFuzzer harness for the keyholder's policy
 * (keyholder/policy.h): the input bytes are one request from the agent,
 * given to kh_policy_hook as the transport would.  Built only with
 * ./configure --enable-fuzzing CC=clang (see fuzz/fuzz.mk, fuzz/run.sh).
 *
 * The input: one byte of settings (provider: the byte modulo 3; bit 2,
 * an OAuth bearer; bit 3, web search allowed), then the method line, the
 * target line, "name: value" header lines up to an empty line, and the
 * body, the rest (NUL bytes and all).
 *
 * Besides what ASan, UBSan and LSan report, the harness aborts when the
 * hook breaks its contract: a forwarded request that does not carry the
 * user's credential exactly once, in the header its provider and kind
 * name, or a refusal that is not JSON or has no printable reason.
 */
#include "config.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "keyholder/hook.h"
#include "keyholder/policy.h"
#include "lib/util.h"

#define SECRET	"fuzz-user-secret"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The next line of [*p, end), without its '\n'; NULL at the end. */
static char *
next_line(const char **p, const char *end)
{
	const char *nl;
	char *s;

	if (*p >= end)
		return NULL;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	if (!nl)
		nl = end;
	s = xstrndup(*p, (size_t)(nl - *p));
	*p = nl < end ? nl + 1 : end;
	return s;
}

static void
parse(struct kh_request *r, const char *p, const char *end)
{
	char *line, *colon;
	size_t n;

	r->method = next_line(&p, end);
	r->target = next_line(&p, end);
	if (!r->method)
		r->method = xstrdup("");
	if (!r->target)
		r->target = xstrdup("");
	while ((line = next_line(&p, end)) && *line &&
	    r->nheaders < KH_HEADERS_MAX) {
		colon = strchr(line, ':');
		if (colon) {
			*colon = '\0';
			kh_header_add(r, line, colon + 1 + strspn(colon + 1,
			    " "));
		}
		free(line);
	}
	free(line);
	n = (size_t)(end - p);
	r->untrusted_body = xmalloc(n + 1);
	memcpy(r->untrusted_body, p, n);
	r->untrusted_body[n] = '\0';
	r->body_len = n;
}

/* Forwarded: the user's credential once, in its header, nowhere else. */
static void
check_forward(const struct kh_policy *pol, const struct kh_request *r)
{
	const char *want = pol->kind == KH_CRED_BEARER ||
	    pol->provider == KH_OPENAI ? "authorization" :
	    pol->provider == KH_ANTHROPIC ? "x-api-key" : "x-goog-api-key";
	size_t i, n = 0;

	for (i = 0; i < r->nheaders; i++) {
		if (strcasecmp(r->headers[i].name, "authorization") == 0 ||
		    strcasecmp(r->headers[i].name, "x-api-key") == 0 ||
		    strcasecmp(r->headers[i].name, "x-goog-api-key") == 0 ||
		    strcasecmp(r->headers[i].name, "cookie") == 0 ||
		    strcasecmp(r->headers[i].name,
		    "proxy-authorization") == 0) {
			if (strcasecmp(r->headers[i].name, want) != 0 ||
			    !strstr(r->headers[i].value, SECRET))
				abort();
			n++;
		}
	}
	if (n != 1 || r->target[0] != '/' || strstr(r->target, "//") ||
	    strchr(r->target, '#') || strstr(r->target, "?key=") ||
	    strstr(r->target, "&key="))
		abort();
}

/* Refused: JSON, a status, a printable one-line reason. */
static void
check_refusal(const struct kh_refusal *ref)
{
	json_t *j;
	size_t i;

	if (ref->status < 400 || ref->status > 599 || !ref->body ||
	    !ref->reason || !ref->content_type)
		abort();
	j = json_loadb(ref->body, ref->body_len, JSON_REJECT_DUPLICATES,
	    NULL);
	if (!json_is_object(j))
		abort();
	json_decref(j);
	for (i = 0; ref->reason[i]; i++)
		if (ref->reason[i] < 0x20 || ref->reason[i] > 0x7e)
			abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kh_policy pol = { .secret = SECRET };
	struct kh_request r = { 0 };
	struct kh_refusal ref = { 0 };

	if (size < 1 || size > KH_HEAD_MAX + 1024 * 1024)
		return 0;
	pol.provider = (enum kh_provider)(data[0] % 3);
	pol.kind = data[0] & 4 ? KH_CRED_BEARER : KH_CRED_API_KEY;
	pol.web_search = data[0] & 8;
	parse(&r, (const char *)data + 1, (const char *)data + size);
	if (kh_policy_hook(&pol, &r, &ref) == KH_FORWARD)
		check_forward(&pol, &r);
	else
		check_refusal(&ref);
	kh_refusal_clear(&ref);
	kh_request_clear(&r);
	return 0;
}
