/* SPDX-License-Identifier: ISC */
/*
 * lib/term-escape.h - agent-written text made safe for the user's terminal.  Pure.
 */
#ifndef CONFINE_TERM_H
#define CONFINE_TERM_H

#include <stddef.h>

/*
 * A copy of s (len bytes) in which nothing can act on a terminal or hide
 * from its reader: control characters (C0, DEL, C1), invalid UTF-8 and
 * every invisible code point (format characters, bidi controls,
 * variation selectors, fillers, other default-ignorables, line and
 * paragraph separators, noncharacters) become \xNN (a byte) or \u{NNNN}
 * (a code point); printable UTF-8 and, when keep_nl, newlines and tabs
 * are kept.  Heap string.
 */
char	*term_sanitize(const char *s, size_t len, int keep_nl);

#endif
