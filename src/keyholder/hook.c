// SPDX-License-Identifier: ISC
/*
 * hook.c - a request's headers, and freeing a request or a refusal; see
 * hook.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "keyholder/hook.h"
#include "lib/util.h"

void
kh_request_clear(struct kh_request *r)
{
	size_t i;

	free(r->method);
	free(r->target);
	for (i = 0; i < r->nheaders; i++) {
		free(r->headers[i].name);
		free(r->headers[i].value);
	}
	free(r->headers);
	free(r->untrusted_body);
	memset(r, 0, sizeof(*r));
}

void
kh_refusal_clear(struct kh_refusal *r)
{
	free(r->content_type);
	free(r->body);
	free(r->reason);
	memset(r, 0, sizeof(*r));
}

void
kh_header_add(struct kh_request *r, const char *name, const char *value)
{
	r->headers = xreallocarray(r->headers, r->nheaders + 1,
	    sizeof(*r->headers));
	r->headers[r->nheaders].name = xstrdup(name);
	r->headers[r->nheaders].value = xstrdup(value);
	r->nheaders++;
}

size_t
kh_header_remove(struct kh_request *r, const char *name)
{
	size_t i, j, n = 0;

	for (i = j = 0; i < r->nheaders; i++) {
		if (strcasecmp(r->headers[i].name, name) == 0) {
			free(r->headers[i].name);
			free(r->headers[i].value);
			n++;
			continue;
		}
		r->headers[j++] = r->headers[i];
	}
	r->nheaders = j;
	return n;
}

const char *
kh_header_get(const struct kh_request *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nheaders; i++)
		if (strcasecmp(r->headers[i].name, name) == 0)
			return r->headers[i].value;
	return NULL;
}
