// SPDX-License-Identifier: ISC
/*
 * term-fuzzer.c - libFuzzer harness for what reaches the user's terminal:
 * lib/term-escape.h's term_sanitize (through lib/untrusted.h's
 * untrusted_display too) and lib/term-filter.h's output filter.  Built
 * only with ./configure --enable-fuzzing CC=clang (see fuzz/fuzz.mk,
 * fuzz/run.sh).
 *
 * The input: one byte of settings (bit 0, the clipboard write allowed;
 * bit 1, keep newlines), one byte n, n split points (one byte each,
 * relative: the length of the next piece), then the output of the command,
 * the rest.  The filter is fed the pieces one call each, and the whole
 * again a byte at a time.
 *
 * The invariants checked do not depend on how the code works:
 *  - term_sanitize: a NUL-terminated string with no byte below 0x20 but a
 *    kept newline or tab, no DEL, no C1 control in UTF-8 (0xc2 0x80-0x9f);
 *  - the filter: its output within 2 * n + TF_SLACK of each call; no
 *    OSC 52 introducer (ESC ] 52 ;) unless the clipboard is allowed; never
 *    a DCS, SOS, PM or APC introducer (ESC P, ESC X, ESC ^, ESC _, or
 *    their 8-bit forms in UTF-8); the same bytes whatever the split and
 *    with the byte-at-a-time path; its reset within TF_RESET_MAX.
 */
#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/term-escape.h"
#include "lib/term-filter.h"
#include "lib/untrusted.h"
#include "lib/util.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check_sanitized(const char *s, bool keep_nl)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i;

	if (s == NULL)
		abort();
	for (i = 0; p[i]; i++) {
		if ((p[i] < 0x20 && !(keep_nl && (p[i] == '\n' ||
		    p[i] == '\t'))) || p[i] == 0x7f)
			abort();
		if (p[i] == 0xc2 && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f)
			abort();
	}
}

static bool
has(const char *p, size_t n, const char *what, size_t wn)
{
	return memmem(p, n, what, wn) != NULL;
}

static void
check_filtered(const char *out, size_t n, bool clip)
{
	static const char *const never[] = { "\x1bP", "\x1bX", "\x1b^",
	    "\x1b_", "\xc2\x90", "\xc2\x98", "\xc2\x9e", "\xc2\x9f" };
	size_t i;

	for (i = 0; i < nitems(never); i++)
		if (has(out, n, never[i], strlen(never[i]))) {
			fprintf(stderr, "the filter passed a string "
			    "introducer (%zu)\n", i);
			abort();
		}
	if (!clip && (has(out, n, "\x1b]52;", 5) ||
	    has(out, n, "\xc2\x9d" "52;", 5))) {
		fprintf(stderr, "the filter passed an OSC 52\n");
		abort();
	}
}

/* Filter in the pieces the split points say; the output in *ret. */
static size_t
filter_split(const char *in, size_t n, const uint8_t *cuts, size_t ncuts,
    bool clip, char *out)
{
	struct termfilter tf;
	size_t off = 0, len = 0, piece, i = 0, w;

	termfilter_init(&tf, clip);
	while (off < n) {
		piece = i < ncuts && cuts[i] ? cuts[i] : n - off;
		i++;
		if (piece > n - off)
			piece = n - off;
		w = termfilter_run(&tf, in + off, piece, out + len);
		if (w > 2 * piece + TF_SLACK)
			abort();
		len += w;
		off += piece;
	}
	if (termfilter_reset(&tf, out + len) > TF_RESET_MAX)
		abort();
	return len;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *cuts;
	const char *in;
	char *s, *out1, *out2;
	size_t ncuts, n, len1, len2;
	struct termfilter tf;
	bool clip, keep_nl;

	if (size < 2 || size > 65536)
		return 0;
	clip = data[0] & 1;
	keep_nl = data[0] & 2;
	ncuts = data[1];
	if (ncuts > size - 2)
		ncuts = size - 2;
	cuts = data + 2;
	in = (const char *)data + 2 + ncuts;
	n = size - 2 - ncuts;

	s = term_sanitize(in, n, keep_nl);
	check_sanitized(s, keep_nl);
	free(s);
	s = untrusted_display(untrusted_wrap(in, n), keep_nl);
	check_sanitized(s, keep_nl);
	free(s);

	/* Room for every call's 2 * piece + TF_SLACK, and the reset. */
	out1 = xmalloc(2 * n + (n + 1) * TF_SLACK + TF_RESET_MAX);
	out2 = xmalloc(2 * n + TF_SLACK + TF_RESET_MAX);
	len1 = filter_split(in, n, cuts, ncuts, clip, out1);
	check_filtered(out1, len1, clip);
	termfilter_init(&tf, clip);
	len2 = termfilter_run_bytes(&tf, in, n, out2);
	if (len1 != len2 || memcmp(out1, out2, len1) != 0) {
		fprintf(stderr, "the output depends on the split\n");
		abort();
	}
	free(out1);
	free(out2);
	return 0;
}
