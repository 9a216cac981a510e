// SPDX-License-Identifier: ISC
/*
 * term.c - escape what could drive a terminal (CSI, OSC 52 clipboard
 * writes, title reports) or mislead a reader (bidi overrides, "Trojan
 * Source") in file names and patch text the agent wrote.  Pure.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "term.h"
#include "util.h"

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

static int
unsafe(uint32_t c)
{
	return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) ||
	    (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) ||
	    c == 0x200e || c == 0x200f || c == 0x061c;
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
