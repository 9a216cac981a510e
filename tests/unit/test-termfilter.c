// SPDX-License-Identifier: ISC
/*
 * test-termfilter.c - the relay's output filter: a table of sequences,
 * each with what must reach the terminal and what is counted as dropped;
 * every row fed whole, split at every byte boundary, and a byte at a time;
 * then the fast paths (runs of text, UTF-8 and SGR, whole CSIs) against
 * the filter a byte at a time, over random strings of the pieces escapes
 * are made of, split at every boundary.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/term-filter.h"
#include "lib/util.h"

#include "tap.h"

#define PASSED	(-1)

struct row {
	const char	*name;
	const char	*in;
	const char	*want;	/* what reaches the terminal */
	int		 kind;	/* the drop counted, or PASSED */
	unsigned	 more;	/* drops of other kinds counted too */
};

static const struct row rows[] = {
	/* What full-screen programs need. */
	{ "plain text", "hello\r\nworld", "hello\r\nworld", PASSED },
	{ "UTF-8 text", "caf\xc3\xa9 \xc4\x9b \xe2\x82\xac \xc2\xa0.",
	    "caf\xc3\xa9 \xc4\x9b \xe2\x82\xac \xc2\xa0.", PASSED },
	{ "UTF-8: continuation bytes 0x80..0x9f are not C1",
	    "\xe6\x97\xa5 \xe2\x94\x80\xe2\x94\x80 \xf0\x9f\x98\x80 \xc2\xbf",
	    "\xe6\x97\xa5 \xe2\x94\x80\xe2\x94\x80 \xf0\x9f\x98\x80 \xc2\xbf",
	    PASSED },
	{ "UTF-8 then a raw C1 OSC 52", "\xc3\xa9\x9d" "52;c;eA==\x9cz",
	    "\xc3\xa9z", TF_CLIP_WRITE },
	{ "UTF-8: 0x9b continuing a character is not CSI",
	    "\xe2\x94\x9b" "1mx", "\xe2\x94\x9b" "1mx", PASSED },
	{ "UTF-8 cut short: then 0x9b is CSI", "\xe2" "a\x9b" "1mx",
	    "\xe2" "a\033[1mx", PASSED },
	{ "SGR colours", "\033[1;31mred\033[38;2;1;2;3;48:5:7m\033[0m",
	    "\033[1;31mred\033[38;2;1;2;3;48:5:7m\033[0m", PASSED },
	{ "cursor movement", "\033[10;20H\033[2J\033[K\033[3A\0337\0338",
	    "\033[10;20H\033[2J\033[K\033[3A\0337\0338", PASSED },
	{ "alternate screen", "\033[?1049hX\033[?1049l",
	    "\033[?1049hX\033[?1049l", PASSED },
	{ "bracketed paste, mouse, sync", "\033[?2004h\033[?1000;1006h"
	    "\033[?2026h\033[?2026l", "\033[?2004h\033[?1000;1006h"
	    "\033[?2026h\033[?2026l", PASSED },
	{ "kitty keyboard", "\033[>1u\033[?u\033[=5;1u\033[<u",
	    "\033[>1u\033[?u\033[=5;1u\033[<u", PASSED },
	{ "title, BEL", "\033]0;my title\007x", "\033]0;my title\007x",
	    PASSED },
	{ "title, ST", "\033]2;t\033\\x", "\033]2;t\033\\x", PASSED },
	{ "hyperlink", "\033]8;;https://example.org/\033\\link\033]8;;\033\\",
	    "\033]8;;https://example.org/\033\\link\033]8;;\033\\", PASSED },
	{ "prompt mark", "\033]133;A\007", "\033]133;A\007", PASSED },
	{ "colour query", "\033]11;?\007", "\033]11;?\007", PASSED },
	{ "title stack", "\033[22;0t\033[23;0t", "\033[22;0t\033[23;0t",
	    PASSED },
	{ "cursor report", "\033[6n\033[c", "\033[6n\033[c", PASSED },
	{ "charset", "\033(0q\033(B", "\033(0q\033(B", PASSED },
	{ "C0 inside a CSI runs first", "\033[1\n;2m", "\n\033[1;2m",
	    PASSED },
	{ "8-bit CSI, in 7-bit form", "\x9b" "1m", "\033[1m", PASSED },
	{ "UTF-8 C1 CSI, in 7-bit form", "\xc2\x9b" "1m", "\033[1m", PASSED },

	/* The clipboard, both ways, in every form. */
	{ "OSC 52 write", "a\033]52;c;Y3VybCBldmlsIHwgc2g=\007b", "ab",
	    TF_CLIP_WRITE },
	{ "OSC 52 write, ST", "\033]52;;eA==\033\\", "", TF_CLIP_WRITE },
	{ "OSC 52 clear", "\033]52;c;\007", "", TF_CLIP_WRITE },
	{ "OSC 52 query", "\033]52;c;?\007", "", TF_CLIP_QUERY },
	{ "OSC 52, 8-bit", "\x9d" "52;c;eA==\x9c", "", TF_CLIP_WRITE },
	{ "OSC 52, UTF-8 C1", "\xc2\x9d" "52;c;eA==\xc2\x9c", "",
	    TF_CLIP_WRITE },
	{ "kitty clipboard", "\033]5522;type=write\007", "", TF_CLIP_WRITE },
	/* The DCS is dropped, and so is the OSC 52 it wraps. */
	{ "tmux passthrough", "\033Ptmux;\033\033]52;c;eA==\007\033\\", "",
	    TF_CLIP_WRITE, 1 },
	{ "screen passthrough", "\033P\033]52;c;eA==\007\033\\", "",
	    TF_CLIP_WRITE, 1 },
	/* File transfer, notifications, reports. */
	{ "iTerm2 File=", "\033]1337;File=name=eA==;inline=1:AAAA\007", "",
	    TF_TRANSFER },
	{ "iTerm2 other", "\033]1337;SetUserVar=a=b\007", "", TF_TRANSFER },
	{ "kitty transfer", "\033]5113;ac=send;id=1\033\\", "", TF_TRANSFER },
	{ "kitty notification", "\033]99;;hi\033\\", "", TF_NOTIFY },
	{ "urxvt notification", "\033]777;notify;a;b\007", "", TF_NOTIFY },
	{ "iTerm2 notification", "\033]9;hello\007", "", TF_NOTIFY },
	{ "title report", "\033[21t", "", TF_REPORT },
	{ "icon report", "\033[20t", "", TF_REPORT },
	{ "screen checksum", "\033[1;1;1;1;1;1*y", "", TF_REPORT },
	{ "answerback", "a\005b", "ab", TF_REPORT },
	{ "DECID", "\033Z", "", TF_REPORT },
	{ "DECRQSS", "\033P$qm\033\\", "", TF_STRING },
	{ "XTGETTCAP", "\033P+q544e\033\\", "", TF_STRING },
	{ "DECUDK", "\033P0|17/6c73\033\\", "", TF_STRING },
	{ "kitty graphics", "\033_Gf=100,t=f;L2V0Yy9wYXNzd2Q=\033\\", "",
	    TF_STRING },
	{ "PM", "\033^x\033\\", "", TF_STRING },
	{ "SOS", "\033Xx\033\\", "", TF_STRING },
	{ "unknown OSC", "\033]7;file://h/tmp\007", "", TF_STRING },
	{ "palette change", "\033]4;1;rgb:ff/00/00\007", "", TF_STRING },
	{ "background change", "\033]11;#000000\007", "", TF_STRING },
	{ "linux palette, up to its end", "\033]P0000000\007x", "x",
	    TF_STRING },
	{ "window resize", "\033[8;1;1t", "", TF_CONTROL },
	{ "printer", "\033[5i", "", TF_CONTROL },
	{ "malformed CSI", "\033[1?2h", "", TF_CONTROL },
	/* Aborts and ends. */
	{ "passed OSC aborted by ESC", "\033]0;t\033[1m",
	    "\033]0;t\033\\\033[1m", PASSED },
	{ "dropped OSC aborted by ESC", "\033]52;c;eA\033[1m", "\033[1m",
	    TF_CLIP_WRITE },
	{ "CSI cancelled", "\033[1\030x", "x", PASSED },
	{ "lone ST", "\033\\x", "x", PASSED },
};

static unsigned long
dropped_total(const struct termfilter *tf)
{
	unsigned long n = 0;
	int k;

	for (k = 0; k < TF_NKINDS; k++)
		n += tf->dropped[k];
	return n;
}

/* Feed r->in in pieces cut at the offsets in cut[0..ncut). */
static bool
run(const struct row *r, const size_t *cut, size_t ncut, bool report)
{
	struct termfilter tf;
	size_t n = strlen(r->in), at = 0, got = 0, i, end;
	char *out = xmalloc(2 * n + TF_SLACK + 1);
	bool good;

	termfilter_init(&tf, false);
	for (i = 0; i <= ncut; i++) {
		end = i < ncut ? cut[i] : n;
		got += termfilter_run(&tf, r->in + at, end - at, out + got);
		at = end;
	}
	good = got == strlen(r->want) && memcmp(out, r->want, got) == 0 &&
	    (r->kind == PASSED ? dropped_total(&tf) == 0 :
	    tf.dropped[r->kind] == 1 && dropped_total(&tf) == 1 + r->more);
	if (!good && report) {
		out[got] = '\0';
		diag("%s: got %zu bytes, %lu dropped", r->name, got,
		    dropped_total(&tf));
	}
	free(out);
	return good;
}

static void
test_row(const struct row *r)
{
	size_t n = strlen(r->in), c, *all = xcalloc(n + 1, sizeof(*all));
	bool split_ok = true;

	ok(run(r, NULL, 0, true), "%s: whole", r->name);
	for (c = 1; c < n && split_ok; c++)
		split_ok = run(r, &c, 1, true);
	ok(split_ok, "%s: split at every byte", r->name);
	for (c = 1; c < n; c++)
		all[c - 1] = c;
	ok(run(r, all, n ? n - 1 : 0, true), "%s: a byte at a time", r->name);
	free(all);
}

static void
test_clipboard_allowed(void)
{
	struct termfilter tf;
	char out[256];
	const char *w = "\033]52;c;eA==\007", *q = "\033]52;c;?\007";
	size_t n;

	termfilter_init(&tf, true);
	n = termfilter_run(&tf, w, strlen(w), out);
	ok(n == strlen(w) && memcmp(out, w, n) == 0,
	    "clipboard allowed: a write passes");
	n = termfilter_run(&tf, q, strlen(q), out);
	ok(n == 0 && tf.dropped[TF_CLIP_QUERY] == 1,
	    "clipboard allowed: a query is still dropped");
}

static bool
has(const char *s, size_t n, const char *what)
{
	return memmem(s, n, what, strlen(what)) != NULL;
}

static void
test_reset(void)
{
	struct termfilter tf;
	char out[TF_RESET_MAX + 512];
	const char *in = "x\033[8m\033[?25l\033[?1049h\033[>1u\033[>1u";
	size_t n;

	termfilter_init(&tf, false);
	n = termfilter_reset(&tf, out);
	ok(!has(out, n, "\033[?1049l") && !has(out, n, "\r\n") &&
	    has(out, n, "\033[0m"), "reset: main screen kept, no newline at "
	    "a line's start");
	termfilter_run(&tf, in, strlen(in), out);
	n = termfilter_reset(&tf, out);
	ok(n <= TF_RESET_MAX && has(out, n, "\033[?1049l") &&
	    has(out, n, "\033[0m") && has(out, n, "\033[?25h") &&
	    has(out, n, "\033[<2u") && has(out, n, "\033[?2004l") &&
	    has(out, n, "\033(B\017") && n >= 2 &&
	    memcmp(out + n - 2, "\r\n", 2) == 0,
	    "reset: leaves the alternate screen, pops kitty, fresh line");
}

static void
test_bulk(void)
{
	struct termfilter tf;
	size_t n = 1 << 20, i, got;
	char *in = xmalloc(n), *out = xmalloc(2 * n + TF_SLACK);

	for (i = 0; i < n; i++)
		in[i] = i % 64 == 63 ? '\n' : (char)('a' + i % 26);
	termfilter_init(&tf, false);
	got = termfilter_run(&tf, in, n, out);
	ok(got == n && memcmp(in, out, n) == 0 && tf.at_bol,
	    "1 MiB of text passes unchanged");
	free(in);
	free(out);
}

/* The pieces of the random strings: escapes, C1 in both forms, UTF-8. */
static const char *const pieces[] = {
	"\033", "[", "]", "0", "1", "5", "9", "22", "38;5;", ";", ":", "m",
	"h", "l", "?", ">", "<", "=", "$", "*", " ", "u", "t", "y", "H", "P",
	"\\", "Z", "(", "B", "\007", "\005", "\030", "\032", "\r", "\n",
	"\017", "\177", "a", "text ", "52;c;eA==", "0;title", "8;;http://x/",
	"\x9b", "\x9d", "\x9c", "\x90", "\x85", "\x80", "\x9f", "\xa0", "\xbf",
	"\xc2", "\xc2\x9b", "\xc2\xa9", "\xc3\xa9", "\xc3", "\xe2", "\xe2\x94",
	"\xe2\x94\x80", "\xe2\x94\x9b", "\xf0\x9f", "\xf0\x9f\x98\x80",
	"\xc0", "\xf5", "\xff", "\033[1;31m", "\033[0m", "\033[?1049h",
	"\033[?1049l", "\033]0;t\007", "\033\\", "abcdefghijklmnop",
};

static uint32_t seed = 20261202;

static uint32_t
rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 17;
	seed ^= seed << 5;
	return seed;
}

/* A random string of pieces, at most max bytes; sometimes a long CSI. */
static size_t
random_input(char *buf, size_t max)
{
	size_t n = 0, len = 1 + rnd() % (max / 2), k;
	const char *p;

	while (n < len) {
		if (rnd() % 64 == 0) {
			/* An SGR of 200..300 bytes: hold's limit, 256. */
			k = 200 + rnd() % 100;
			if (n + k + 3 > max)
				break;
			buf[n++] = '\033';
			buf[n++] = '[';
			for (; k > 0; k--)
				buf[n++] = k % 3 ? '1' : ';';
			buf[n++] = rnd() % 2 ? 'm' : 'H';
			continue;
		}
		p = pieces[rnd() % nitems(pieces)];
		if (n + strlen(p) > max)
			break;
		memcpy(buf + n, p, strlen(p));
		n += strlen(p);
	}
	return n;
}

/* The state both paths must agree on; the hold unless in the ground
 * state (0), where it is unused and an SGR run never fills it. */
static bool
same_state(const struct termfilter *a, const struct termfilter *b)
{
	return a->state == b->state && a->u8need == b->u8need &&
	    a->c2 == b->c2 && a->at_bol == b->at_bol &&
	    a->bol_main == b->bol_main && a->modes == b->modes &&
	    a->kitty_push == b->kitty_push &&
	    memcmp(a->dropped, b->dropped, sizeof(a->dropped)) == 0 &&
	    (a->state == 0 || (a->strkind == b->strkind &&
	    a->str_pass == b->str_pass && a->hold_len == b->hold_len &&
	    memcmp(a->hold, b->hold, a->hold_len) == 0));
}

/* in fed to the fast path in pieces cut at cut[0..ncut) vs the slow. */
static bool
same_as_slow(const char *in, size_t n, const size_t *cut, size_t ncut,
    char *want, char *got)
{
	struct termfilter slow, fast;
	size_t wn, gn = 0, at = 0, i, end;

	termfilter_init(&slow, false);
	termfilter_init(&fast, false);
	wn = termfilter_run_bytes(&slow, in, n, want);
	for (i = 0; i <= ncut; i++) {
		end = i < ncut ? cut[i] : n;
		gn += termfilter_run(&fast, in + at, end - at, got + gn);
		at = end;
	}
	return wn == gn && memcmp(want, got, wn) == 0 &&
	    same_state(&slow, &fast);
}

static void
test_differential(void)
{
	enum { ROUNDS = 4000, MAX = 640 };
	char in[MAX], *want = xmalloc(4 * MAX + 4 * TF_SLACK);
	char *got = xmalloc(4 * MAX + 4 * TF_SLACK);
	size_t r, n, c, cut[2], bad = 0, runs = 0;

	for (r = 0; r < ROUNDS && bad == 0; r++) {
		n = random_input(in, r % 8 ? MAX / 4 : MAX);
		for (c = 0; c <= n && bad == 0; c++, runs++)
			if (!same_as_slow(in, n, &c, 1, want, got))
				bad = c + 1;
		/* Three pieces: a CSI or a character cut twice. */
		cut[0] = rnd() % (n + 1);
		cut[1] = cut[0] + rnd() % (n - cut[0] + 1);
		if (bad == 0 && !same_as_slow(in, n, cut, 2, want, got))
			bad = n + 2;
		runs++;
	}
	if (bad) {
		diag("round %zu, %zu bytes, cut at %zu", r - 1, n, bad - 1);
		for (c = 0; c < n; c++)
			fprintf(stderr, "%02x%s", (unsigned char)in[c],
			    c % 32 == 31 ? "\n" : " ");
		fprintf(stderr, "\n");
	}
	ok(bad == 0, "fast paths = a byte at a time: %zu runs of random "
	    "escapes, C1 and UTF-8, split anywhere", runs);
	free(want);
	free(got);
}

int
main(void)
{
	size_t i;

	plan((int)(3 * nitems(rows) + 6));
	for (i = 0; i < nitems(rows); i++)
		test_row(&rows[i]);
	test_clipboard_allowed();
	test_reset();
	test_bulk();
	test_differential();
	return done();
}
