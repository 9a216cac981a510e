/* SPDX-License-Identifier: ISC */
/*
 * lib/term-filter.h - the filter between the command's pty and the user's
 * terminal: a VT500-style parser that passes what full-screen programs
 * need and drops what could reach past the terminal (clipboard, file
 * transfer, notifications, reports a program could read back).  Pure; no
 * allocation.  The list is in confine(1), TERMINAL OUTPUT.
 */
#ifndef CONFINE_TERMFILTER_H
#define CONFINE_TERMFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What was dropped, by kind. */
enum tf_kind {
	TF_CLIP_WRITE,		/* OSC 52 set */
	TF_CLIP_QUERY,		/* OSC 52 query: the clipboard sent back */
	TF_TRANSFER,		/* iTerm2 OSC 1337, kitty OSC 5113 */
	TF_NOTIFY,		/* OSC 9, 99, 777 */
	TF_REPORT,		/* answers a program could read back */
	TF_STRING,		/* any other OSC, DCS, APC, PM, SOS string */
	TF_CONTROL,		/* other escapes: window ops, printing */
	TF_NKINDS
};

/* Modes the command turned on, for the reset at the end. */
#define TF_MODE_ALT	(1U << 0)	/* alternate screen */
#define TF_MODE_KITTY	(1U << 1)	/* kitty keyboard flags set (CSI = u) */

/* The longest escape sequence held while undecided. */
#define TF_HOLD		256
/* Output of one call is at most 2 * input + this. */
#define TF_SLACK	(TF_HOLD + 8)
/* The reset written at the end fits in this. */
#define TF_RESET_MAX	256

struct termfilter {
	uint8_t		state;
	uint8_t		u8need;		/* UTF-8 continuation bytes due */
	uint8_t		strkind;	/* the string being read: OSC, DCS.. */
	bool		c2;		/* held a 0xc2: maybe a C1 control */
	bool		str_pass;	/* the string in progress is passed */
	bool		allow_clip;	/* pass OSC 52 writes */
	bool		at_bol;		/* nothing after the last newline */
	bool		bol_main;	/* at_bol of the main screen */
	uint32_t	modes;		/* TF_MODE_* */
	unsigned	kitty_push;	/* kitty keyboard pushes not popped */
	size_t		hold_len;
	unsigned char	hold[TF_HOLD];	/* the sequence being decided */
	unsigned long	dropped[TF_NKINDS];
};

void	termfilter_init(struct termfilter *, bool allow_clipboard_write);
/*
 * Filter n bytes of the command's output (untrusted) into out, which has
 * room for 2 * n + TF_SLACK bytes (a 1-byte C1 control becomes ESC and a
 * byte).  State is kept between calls, so a
 * sequence may be split anywhere.  Returns the bytes written to out.
 */
size_t	termfilter_run(struct termfilter *, const char *untrusted_in, size_t n,
	    char *out);
/* The same, a byte at a time with no fast path: for the tests, which
 * compare the two. */
size_t	termfilter_run_bytes(struct termfilter *, const char *untrusted_in,
	    size_t n, char *out);
/*
 * The bytes that give the terminal back clean (see lib/term-filter.c), then a
 * newline if the cursor may not be at the start of a line; at most
 * TF_RESET_MAX.  Returns the length written to out.
 */
size_t	termfilter_reset(const struct termfilter *, char *out);
/* A short noun for a kind: "clipboard write". */
const char *termfilter_kind_name(enum tf_kind, unsigned long count);

#endif
