// SPDX-License-Identifier: ISC
/*
 * lib/term-escape.c - escape what could drive a terminal (CSI, OSC 52 clipboard
 * writes, title reports) or mislead a reader (bidi overrides, "Trojan
 * Source", zero-width and tag characters, fillers) in file names, patch
 * text and commit messages the agent wrote.  Pure.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/term-escape.h"
#include "lib/util.h"

/* Length of a valid UTF-8 sequence at s (max n bytes), its code point. */
static size_t
utf8(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len, i;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		c = s[0] & 0x07;
	} else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms and surrogates are not valid. */
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 ||
	    c > 0x10ffff)) || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/*
 * Code points a terminal shows as nothing, or as something else: every
 * control (C0, DEL, C1), every format character (Unicode category Cf:
 * zero-width space and joiners, word joiner, soft hyphen, byte order
 * mark, bidi controls, invisible operators, interlinear annotation, the
 * prepended concatenation marks, tags), variation selectors, the Hangul,
 * Khmer and braille fillers and the other default-ignorable code points
 * (Unicode's DerivedCoreProperties), line and paragraph separators, and
 * the noncharacters.  Sorted ranges, inclusive.
 */
static const struct {
	uint32_t	lo, hi;
} hidden[] = {
	{ 0x0000, 0x001f }, { 0x007f, 0x009f }, { 0x00ad, 0x00ad },
	{ 0x034f, 0x034f }, { 0x0600, 0x0605 }, { 0x061c, 0x061c },
	{ 0x06dd, 0x06dd }, { 0x070f, 0x070f }, { 0x0890, 0x0891 },
	{ 0x08e2, 0x08e2 }, { 0x115f, 0x1160 }, { 0x17b4, 0x17b5 },
	{ 0x180b, 0x180f }, { 0x200b, 0x200f }, { 0x2028, 0x202e },
	{ 0x2060, 0x206f }, { 0x2800, 0x2800 }, { 0x3164, 0x3164 },
	{ 0xfdd0, 0xfdef }, { 0xfe00, 0xfe0f }, { 0xfeff, 0xfeff },
	{ 0xffa0, 0xffa0 }, { 0xfff0, 0xfffb }, { 0x110bd, 0x110bd },
	{ 0x110cd, 0x110cd }, { 0x13430, 0x1343f }, { 0x1bca0, 0x1bca3 },
	{ 0x1d173, 0x1d17a }, { 0xe0000, 0xe0fff },
};

static int
unsafe(uint32_t c)
{
	size_t lo = 0, hi = sizeof(hidden) / sizeof(hidden[0]);

	/* U+xFFFE and U+xFFFF of every plane: noncharacters. */
	if ((c & 0xfffe) == 0xfffe)
		return 1;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c < hidden[mid].lo)
			hi = mid;
		else if (c > hidden[mid].hi)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

char *
term_sanitize(const char *s, size_t len, int keep_nl)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = xmalloc(len * 10 + 1), *o = out;
	size_t i = 0, n;
	uint32_t c;

	while (i < len) {
		if (keep_nl && (p[i] == '\n' || p[i] == '\t')) {
			*o++ = (char)p[i++];
			continue;
		}
		n = utf8(p + i, len - i, &c);
		if (n == 0) {
			o += sprintf(o, "\\x%02x", p[i]);
			i++;
		} else if (unsafe(c)) {
			if (c < 0x80)
				o += sprintf(o, "\\x%02x", (unsigned)c);
			else
				o += sprintf(o, "\\u{%04x}", (unsigned)c);
			i += n;
		} else {
			memcpy(o, p + i, n);
			o += n;
			i += n;
		}
	}
	*o = '\0';
	return out;
}
