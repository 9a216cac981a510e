// SPDX-License-Identifier: ISC
/*
 * proxy-fuzzer.c - libFuzzer harness for the proxy's request head
 * (run/proxy.h): the input bytes are what a client in the sandbox sends
 * before its CONNECT is answered, given to proxy_parse_connect, and an
 * accepted destination is then matched against a few allow rules as the
 * proxy does.  Built only with ./configure --enable-fuzzing CC=clang (see
 * fuzz/fuzz.mk, fuzz/run.sh).
 *
 * Besides what ASan, UBSan and LSan report, the harness aborts when the
 * parser breaks its contract: a refusal without a why, or an accepted host
 * that is empty, upper-case, not printable ASCII, ends in a dot, or a port
 * outside 1-65535.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/untrusted.h"
#include "run/proxy.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check_host(const char *host, unsigned port)
{
	const char *p;

	if (host == NULL || host[0] == '\0' || port == 0 || port > 65535)
		abort();
	for (p = host; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || (*p >= 'A' && *p <= 'Z'))
			abort();
	if (p[-1] == '.')
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const rules[] = { "example.com", "*.example.org",
	    "api.example.net:443", "127.0.0.1", "[::1]:8080" };
	const char *why = NULL;
	char *host = NULL;
	unsigned port = 0;
	size_t i;

	if (proxy_parse_connect(untrusted_wrap((const char *)data, size),
	    &host, &port, &why) < 0) {
		if (why == NULL)
			abort();
		return 0;
	}
	check_host(host, port);
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		(void)proxy_rule_matches(rules[i], host, port);
	free(host);
	return 0;
}
