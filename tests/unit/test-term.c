// SPDX-License-Identifier: ISC
/*
 * test-term.c - term_sanitize: every control and invisible code point the
 * agent could put in a file name, a patch or a commit message is shown
 * escaped; printable text, and newlines and tabs when asked, are kept.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/term-escape.h"
#include "lib/util.h"

#include "tap.h"

static const struct {
	const char	*in;
	const char	*out;
	const char	*what;
} cases[] = {
	{ "plain ascii", "plain ascii", "printable ASCII kept" },
	{ "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac", "caf\xc3\xa9 \xe6\x97\xa5"
	    "\xe6\x9c\xac", "printable UTF-8 kept" },
	{ "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80", "an emoji kept" },
	{ "a\x1b[2Jb", "a\\x1b[2Jb", "ESC (C0)" },
	{ "\x7f", "\\x7f", "DEL" },
	{ "\xc2\x9b" "31m", "\\u{009b}31m", "CSI (C1) as UTF-8" },
	{ "a\xe2\x80\xae" "b", "a\\u{202e}b", "right-to-left override" },
	{ "\xe2\x81\xa6", "\\u{2066}", "left-to-right isolate" },
	{ "\xd8\x9c", "\\u{061c}", "Arabic letter mark" },
	{ "a\xe2\x80\x8b" "b", "a\\u{200b}b", "zero-width space" },
	{ "\xe2\x80\x8c\xe2\x80\x8d", "\\u{200c}\\u{200d}", "zero-width "
	    "(non-)joiner" },
	{ "\xe2\x81\xa0", "\\u{2060}", "word joiner" },
	{ "\xe2\x81\xa2", "\\u{2062}", "invisible times" },
	{ "\xc2\xad", "\\u{00ad}", "soft hyphen" },
	{ "\xef\xbb\xbf" "x", "\\u{feff}x", "byte order mark" },
	{ "\xf3\xa0\x80\x81", "\\u{e0001}", "language tag" },
	{ "\xf3\xa0\x81\xa1", "\\u{e0061}", "tag letter a" },
	{ "\xf3\xa0\x81\xbf", "\\u{e007f}", "cancel tag" },
	{ "\xf3\xa0\x84\x80", "\\u{e0100}", "variation selector 17" },
	{ "\xef\xb8\x8f", "\\u{fe0f}", "variation selector 16" },
	{ "\xe1\xa0\x8b", "\\u{180b}", "Mongolian free variation selector" },
	{ "\xe1\xa0\x8e", "\\u{180e}", "Mongolian vowel separator" },
	{ "\xef\xbf\xb9", "\\u{fff9}", "interlinear annotation anchor" },
	{ "\xe3\x85\xa4", "\\u{3164}", "Hangul filler" },
	{ "\xef\xbe\xa0", "\\u{ffa0}", "halfwidth Hangul filler" },
	{ "\xe1\x85\x9f", "\\u{115f}", "Hangul choseong filler" },
	{ "\xe1\x9e\xb4", "\\u{17b4}", "Khmer vowel inherent aq" },
	{ "\xe2\xa0\x80", "\\u{2800}", "braille pattern blank" },
	{ "\xcd\x8f", "\\u{034f}", "combining grapheme joiner" },
	{ "\xd8\x80", "\\u{0600}", "Arabic number sign (Cf)" },
	{ "\xf0\x9d\x85\xb3", "\\u{1d173}", "musical symbol begin beam" },
	{ "\xf0\x9b\xb2\xa0", "\\u{1bca0}", "shorthand format letter overlap" },
	{ "a\xe2\x80\xa8" "b", "a\\u{2028}b", "line separator" },
	{ "\xe2\x80\xa9", "\\u{2029}", "paragraph separator" },
	{ "\xef\xbf\xbe", "\\u{fffe}", "noncharacter" },
	{ "\xff", "\\xff", "invalid byte" },
	{ "\xc3", "\\xc3", "cut sequence" },
	{ "\xc0\xaf", "\\xc0\\xaf", "overlong form" },
	{ "\xed\xa0\x80", "\\xed\\xa0\\x80", "surrogate" },
	{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80", "beyond U+10FFFF" },
};

static void
test_table(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		autofree char *got = term_sanitize(cases[i].in,
		    strlen(cases[i].in), 0);

		is_str(got, cases[i].out, "%s", cases[i].what);
	}
}

static void
test_newlines(void)
{
	autofree char *kept = term_sanitize("a\nb\tc\r", 6, 1);
	autofree char *gone = term_sanitize("a\nb\tc", 5, 0);
	autofree char *nul = term_sanitize("a\0b", 3, 1);

	is_str(kept, "a\nb\tc\\x0d", "newline and tab kept when asked, CR not");
	is_str(gone, "a\\x0ab\\x09c", "newline and tab escaped otherwise");
	is_str(nul, "a\\x00b", "a NUL byte inside");
}

int
main(void)
{
	plan((int)(sizeof(cases) / sizeof(cases[0])) + 3);
	test_table();
	test_newlines();
	return done();
}
