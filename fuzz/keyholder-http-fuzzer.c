// SPDX-License-Identifier: ISC
/*
 * keyholder-http-fuzzer.c - libFuzzer harness for the keyholder's HTTP/1.1
 * parsers (keyholder/http.h): the input's first byte picks one.  Even: the
 * rest is a request head, cut after its first CR LF CR LF as the transport
 * cuts it (or CR LF CR LF added), given to kh_parse_head.  Odd: the rest
 * is a chunked body, given to kh_dechunk in pieces whose lengths the
 * input's second byte seeds, and a byte at a time.  Built only with
 * ./configure --enable-fuzzing CC=clang (see fuzz/fuzz.mk, fuzz/run.sh).
 *
 * Besides what ASan, UBSan and LSan report, the harness aborts when a
 * parser breaks its contract: a refusal without a status of 4xx or 5xx
 * and a why; an accepted head without a method and a target, with both a
 * length and chunked framing, or a length over KH_BODY_MAX; a chunked
 * body that takes more bytes than given, decodes to more than it was
 * given, or decodes differently when split.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keyholder/hook.h"
#include "keyholder/http.h"
#include "lib/util.h"

/* A small limit, so that the -2 path is reached too. */
#define FUZZ_BODY_MAX	4096

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
head(const char *data, size_t size)
{
	struct kh_request req = { 0 };
	struct framing f = { 0 };
	const char *why = NULL, *end;
	char *buf;
	size_t len;
	int st;

	end = memmem(data, size, "\r\n\r\n", 4);
	len = end ? (size_t)(end + 4 - data) : size + 4;
	buf = xmalloc(len);
	memcpy(buf, data, end ? len : size);
	if (!end)
		memcpy(buf + size, "\r\n\r\n", 4);
	st = kh_parse_head(buf, len, &req, &f, &why);
	if (st != 0 && (st < 400 || st > 599 || why == NULL))
		abort();
	if (st == 0 && (req.method == NULL || req.target == NULL ||
	    (f.has_length && f.chunked) || (f.has_length &&
	    f.length > KH_BODY_MAX)))
		abort();
	kh_request_clear(&req);
	free(f.untrusted_conn);
	free(buf);
}

/* Feed it all in pieces; the result as kh_dechunk's last, out filled. */
static ssize_t
dechunk(const char *p, size_t n, unsigned seed, struct sink *out)
{
	struct chunk ch = { 0 };
	size_t off = 0, piece;
	ssize_t r = 0;

	while (off < n && ch.st != CH_DONE) {
		piece = seed ? 1 + (off * 31 + seed) % seed : n - off;
		if (piece > n - off)
			piece = n - off;
		r = kh_dechunk(&ch, p + off, piece, out, FUZZ_BODY_MAX);
		if (r < 0)
			return r;
		if ((size_t)r > piece)
			abort();
		off += (size_t)r;
		if ((size_t)r < piece && ch.st != CH_DONE)
			abort();
	}
	if (out->len > n)
		abort();
	return ch.st == CH_DONE ? (ssize_t)off : 0;
}

static void
body(const char *p, size_t n, unsigned seed)
{
	struct sink a = { 0 }, b = { 0 };
	ssize_t ra, rb;

	ra = dechunk(p, n, 0, &a);
	rb = dechunk(p, n, seed, &b);
	if (ra != rb || (ra >= 0 && (a.len != b.len ||
	    (a.len && memcmp(a.p, b.p, a.len) != 0)))) {
		fprintf(stderr, "the chunked body decodes differently split\n");
		abort();
	}
	free(a.p);
	free(b.p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2 || size > KH_HEAD_MAX)
		return 0;
	if (data[0] & 1)
		body((const char *)data + 2, size - 2, data[1]);
	else
		head((const char *)data + 1, size - 1);
	return 0;
}
