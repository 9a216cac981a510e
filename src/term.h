/* SPDX-License-Identifier: ISC */
/*
 * term.h - agent-written text made safe for the user's terminal.  Pure.
 */
#ifndef CONFINE_TERM_H
#define CONFINE_TERM_H

#include <stddef.h>

/*
 * A copy of s (len bytes) in which nothing can act on a terminal: control
 * characters (C0, DEL, C1 as UTF-8), invalid UTF-8, and bidirectional
 * overrides become \xNN or \u{NNNN}; printable UTF-8 and, when keep_nl,
 * newlines and tabs are kept.  Heap string.
 */
char	*term_sanitize(const char *s, size_t len, int keep_nl);

#endif
