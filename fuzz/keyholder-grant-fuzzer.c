// SPDX-License-Identifier: ISC
/*
 * keyholder-grant-fuzzer.c - libFuzzer harness for the keyholder's reading
 * of a login's token endpoint (kh_login_parse_grant, keyholder/
 * credential.h): the endpoint's answer to a refresh.  Built only with
 * ./configure --enable-fuzzing CC=clang (see fuzz/fuzz.mk, fuzz/run.sh).
 *
 * The input: one byte, the status (even: 200; odd: 400), then the body.
 *
 * Besides what ASan, UBSan and LSan report, the harness aborts when the
 * parser breaks its contract: a success without an access token a header
 * can carry, or an expiry not after now; a failure without a reason, or
 * with one that holds a byte that is not printable.
 */
#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "keyholder/credential.h"

#define NOW_MS	1800000000000LL

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static bool
header_value(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > KH_CRED_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] > '~')
			return false;
	return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kh_login login = { 0 };
	char *access = NULL, *why = NULL, *body;
	const char *p;
	int status, r;

	if (size < 1)
		return 0;
	status = data[0] & 1 ? 400 : 200;
	body = malloc(size);
	if (body == NULL)
		return 0;
	memcpy(body, data + 1, size - 1);
	body[size - 1] = '\0';
	r = kh_login_parse_grant(status, body, size - 1, NOW_MS, &access,
	    &login, &why);
	if (r == 0) {
		if (status != 200 || access == NULL || !header_value(access) ||
		    login.expires_ms <= NOW_MS || (login.refresh &&
		    !header_value(login.refresh)) || why != NULL)
			abort();
	} else {
		if (r != -1 || why == NULL || access != NULL)
			abort();
		for (p = why; *p; p++)
			if (*p < ' ' || *p > '~')
				abort();
	}
	free(access);
	free(why);
	kh_login_clear(&login);
	free(body);
	return 0;
}
