// SPDX-License-Identifier: ISC
/*
 * lib/term-filter.c - the command's output on its way to the user's terminal:
 * a parser in the manner of the DEC VT500 state machine (Paul Williams'
 * "A parser for DEC's ANSI-compatible video terminals"; ECMA-48), which
 * keeps its state between calls so a sequence may be split anywhere.
 *
 * Runs in: the supervisor, over untrusted bytes (the command's output).
 * Pure: no system call, no allocation.
 * MUST: strings (OSC, DCS, APC, PM, SOS) pass only by an allow-list:
 * OSC 0, 1, 2 (titles), 8 (hyperlinks), 133 (prompt marks), 10/11/12
 * queries (the colours) and, when allowed, OSC 52 writes; never a
 * clipboard query, never a DCS, APC, PM or SOS string.
 * MUST: the 8-bit C1 forms (raw, or UTF-8 encoded U+0080..U+009F) are
 * parsed as their ESC forms, and passed only in the 7-bit form.
 * MUST: nothing a program could read back as input and choose the text of
 * (the title report CSI 20/21 t, a screen checksum, ENQ's answerback, a
 * setting report by DECRQSS or XTGETTCAP, which are DCS) passes.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "lib/term-filter.h"

enum {
	S_GROUND,
	S_ESC,		/* ESC seen; hold = ESC */
	S_ESC_INT,	/* ESC, intermediates */
	S_ESC_IGNORE,	/* too long: dropped up to its final byte */
	S_CSI,		/* hold = ESC [ params intermediates */
	S_CSI_IGNORE,
	S_STR_HEAD,	/* OSC being decided: hold = ESC ] head */
	S_STR,		/* a string, passed or dropped (str_pass) */
	S_STR_ESC,	/* ESC inside a string: ST, or an abort */
};

enum { UNDECIDED = -2, PASS = -1 };

#define ESC	0x1b
#define BEL	0x07
#define ENQ	0x05
#define CAN	0x18
#define SUB	0x1a
#define DEL	0x7f

#define ONES	0x0101010101010101ULL
#define HIGHS	0x8080808080808080ULL
#define HASZERO(v)	(((v) - ONES) & ~(v) & HIGHS)

struct out {
	unsigned char	*p;
};

static void	feed(struct termfilter *, unsigned char, struct out *);

static void
put(struct out *o, const void *s, size_t n)
{
	memcpy(o->p, s, n);
	o->p += n;
}

#define PUTS(o, s)	put((o), (s), sizeof(s) - 1)

static void
put1(struct out *o, unsigned char c)
{
	*o->p++ = c;
}

static void
drop(struct termfilter *tf, int kind)
{
	if (kind >= 0 && kind < TF_NKINDS)
		tf->dropped[kind]++;
}

/*
 * Runs that pass as they are, from the ground state: text, C0 controls
 * but ESC and ENQ, UTF-8 (byte()'s decoder) and SGR sequences (ESC [
 * digits ; : m, which csi_verdict passes with no mode to track).  An
 * automaton in the shift form: a state is a bit offset, and a byte's
 * 64-bit row holds its next state from every state, 6 bits each, so the
 * next state is (row[byte] >> state) & 63.  The row's load does not wait
 * for the state, and plain_run() keeps the row whole (a shift reads its
 * count mod 64): the chain from byte to byte is one shift.
 */
#define UG	0	/* ground: no UTF-8 continuation due */
#define UN1	6	/* 1, 2, 3 continuation bytes due */
#define UN2	12
#define UN3	18
#define UC2	24	/* after 0xc2: 0xa0..0xbf must follow */
#define UE	30	/* after ESC: [ must follow */
#define UP	36	/* an SGR's parameters: digits ; : up to m */
#define USTOP	42	/* stop before this byte: byte() decides */
#define UBACK	48	/* stop before the 0xc2 that came before */
#define UBESC	54	/* stop before the ESC that came before */

/* A byte's row: its next state from each of the 7 states above. */
#define UROW(g, n1, n2, n3, c2, e, p) ((uint64_t)(g) << UG | \
	(uint64_t)(n1) << UN1 | (uint64_t)(n2) << UN2 | \
	(uint64_t)(n3) << UN3 | (uint64_t)(c2) << UC2 | \
	(uint64_t)(e) << UE | (uint64_t)(p) << UP)
/* A byte that ends any character: from 0xc2, ESC or a CSI, stop. */
#define U_END(x)	UROW(x, x, x, x, UBACK, UBESC, UBESC)
#define U_ASCII	U_END(UG)
#define U_STOP	U_END(USTOP)			/* ENQ */
#define U_ESC	U_END(UE)
#define U_LBRKT	UROW(UG, UG, UG, UG, UBACK, UP, UBESC)
#define U_PARAM	UROW(UG, UG, UG, UG, UBACK, UBESC, UP)	/* 0-9 ; : */
#define U_SGR	UROW(UG, UG, UG, UG, UBACK, UBESC, UG)	/* m */
/* 0x80..0x9f: C1 at a character's start, else a continuation. */
#define U_C1	UROW(USTOP, UG, UN1, UN2, UBACK, UBESC, UBESC)
/* 0xa0..0xbf: alone it passes (byte() passes it too). */
#define U_CONT	UROW(UG, UG, UN1, UN2, UG, UBESC, UBESC)
#define U_C2	U_END(UC2)
#define U_LEAD2	U_END(UN1)			/* 0xc3..0xdf */
#define U_LEAD3	U_END(UN2)			/* 0xe0..0xef */
#define U_LEAD4	U_END(UN3)			/* 0xf0..0xf4 */
#define U_OTHER	U_END(UG)			/* 0xc0, 0xc1, 0xf5.. */

static const uint64_t u8row[256] = {
	[0x00 ... 0x04] = U_ASCII, [0x05] = U_STOP, [0x06 ... 0x1a] = U_ASCII,
	[0x1b] = U_ESC, [0x1c ... 0x2f] = U_ASCII, ['0' ... ';'] = U_PARAM,
	['<' ... 'Z'] = U_ASCII, ['['] = U_LBRKT, ['\\' ... 'l'] = U_ASCII,
	['m'] = U_SGR, ['n' ... 0x7f] = U_ASCII,
	[0x80 ... 0x9f] = U_C1, [0xa0 ... 0xbf] = U_CONT,
	[0xc0 ... 0xc1] = U_OTHER, [0xc2] = U_C2, [0xc3 ... 0xdf] = U_LEAD2,
	[0xe0 ... 0xef] = U_LEAD3, [0xf0 ... 0xf4] = U_LEAD4,
	[0xf5 ... 0xff] = U_OTHER,
};

/* Bytes taken by the automaton between tries of 8 ASCII bytes at once. */
#define U_STRETCH	32

/* 8 bytes of ASCII with no ESC and no ENQ: passed whatever the state. */
static inline bool
ascii8(const unsigned char *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
	return !(w & HIGHS) && !HASZERO(w ^ (ONES * ESC)) &&
	    !HASZERO(w ^ (ONES * ENQ));
}

/* The ESC before p + i that started the SGR in progress. */
static size_t
esc_before(const unsigned char *p, size_t i)
{
	while (p[--i] != ESC)
		;
	return i;
}

/*
 * The length of a run that passes as it is from the ground state.  It
 * ends before ESC or ENQ (but an SGR whole in this buffer, and fitting in
 * hold, is part of it), before a C1 control (0x80..0x9f starting a
 * character, or 0xc2 and one of those), and before a 0xc2 whose next byte
 * is not in this buffer.  Keeps the UTF-8 decoder's state as byte() would;
 * where the run stops, byte() starts a character.
 */
static size_t
plain_run(struct termfilter *tf, const unsigned char *p, size_t n)
{
	uint64_t w = tf->u8need * UN1;	/* the state in its low 6 bits */
	unsigned s = (unsigned)w;
	size_t i = 0, end;

	for (;;) {
		if (s == UG)
			while (i + 8 <= n && ascii8(p + i))
				i += 8;
		end = n - i < U_STRETCH ? n : i + U_STRETCH;
		for (; i < end; i++) {
			w = u8row[p[i]] >> (w & 63);
			if ((s = (unsigned)w & 63) >= USTOP)
				goto stop;
		}
		if (i >= n)
			break;
		/* An SGR whose m could lie past hold: csi_whole decides. */
		if ((s == UE || s == UP) &&
		    i - esc_before(p, i) + U_STRETCH > TF_HOLD - 1) {
			s = UBESC;
			goto stop;
		}
	}
	if (s <= UN3) {
		tf->u8need = (uint8_t)(s / UN1);
		return i;
	}
	/* Cut by the buffer's end: as if stopped by a byte at n. */
	s = s == UC2 ? UBACK : UBESC;
stop:
	tf->u8need = 0;
	if (s == UBACK)
		return i - 1;
	return s == UBESC ? esc_before(p, i) : i;
}

/* The length of a CSI's parameters and intermediates that fit in hold. */
static size_t
csi_run(struct termfilter *tf, const unsigned char *p, size_t n)
{
	size_t i = 0;

	while (i < n && p[i] >= 0x20 && p[i] <= 0x3f &&
	    tf->hold_len < TF_HOLD - 1)
		tf->hold[tf->hold_len++] = p[i++];
	return i;
}

/*
 * After a run: at a line's start if its last newline ends it, carriage
 * returns and SGRs (ESC [ digits ; : m; in a run, an ESC starts only
 * those) aside.
 */
static void
bol_after(struct termfilter *tf, const unsigned char *p, size_t k)
{
	size_t j;

	while (k > 0) {
		if (p[k - 1] == '\r') {
			k--;
			continue;
		}
		if (p[k - 1] != 'm')
			break;
		for (j = k - 1; j > 0 && ((p[j - 1] >= '0' && p[j - 1] <= '9') ||
		    p[j - 1] == ';' || p[j - 1] == ':'); j--)
			;
		if (j < 2 || p[j - 1] != '[' || p[j - 2] != ESC)
			break;
		k = j - 2;
	}
	if (k > 0)
		tf->at_bol = p[k - 1] == '\n';
}

static void
hold_start(struct termfilter *tf, int state)
{
	tf->hold[0] = ESC;
	tf->hold_len = 1;
	tf->state = (uint8_t)state;
}

static void
hold_add(struct termfilter *tf, unsigned char c, int overflow_state)
{
	if (tf->hold_len < TF_HOLD)
		tf->hold[tf->hold_len++] = c;
	else
		tf->state = (uint8_t)overflow_state;
}

static void
ground_byte(struct termfilter *tf, unsigned char c, struct out *o)
{
	if (c == ESC) {
		hold_start(tf, S_ESC);
		return;
	}
	if (c == ENQ) {
		/* The answerback: a string the terminal types back. */
		drop(tf, TF_REPORT);
		return;
	}
	put1(o, c);
	if (c == '\n')
		tf->at_bol = true;
	else if (c != '\r')
		tf->at_bol = false;
}

/* A C0 control inside a sequence: executed at once, as a VT500 does. */
static bool
c0_in_sequence(struct termfilter *tf, unsigned char c, struct out *o)
{
	if (c == ESC) {
		hold_start(tf, S_ESC);
		return true;
	}
	if (c == CAN || c == SUB) {
		tf->state = S_GROUND;
		return true;
	}
	if (c == ENQ) {
		drop(tf, TF_REPORT);
		return true;
	}
	if (c < 0x20) {
		put1(o, c);
		if (c == '\n')
			tf->at_bol = true;
		return true;
	}
	return c == DEL;
}

static void
esc_final(struct termfilter *tf, unsigned char c, struct out *o)
{
	tf->state = S_GROUND;
	if (tf->hold_len == 1 && c == 'Z') {
		drop(tf, TF_REPORT);	/* DECID: the terminal answers */
		return;
	}
	if (tf->hold_len == 1 && c == '\\')
		return;			/* a lone ST ends nothing */
	put(o, tf->hold, tf->hold_len);
	put1(o, c);
	tf->at_bol = false;
}

static void
esc_byte(struct termfilter *tf, unsigned char c, struct out *o)
{
	if (c0_in_sequence(tf, c, o))
		return;
	if (c >= 0x80) {
		tf->state = S_GROUND;
		ground_byte(tf, c, o);
		return;
	}
	switch (c) {
	case '[':
		hold_add(tf, c, S_CSI_IGNORE);
		tf->state = S_CSI;
		return;
	case ']':
		hold_add(tf, c, S_STR);
		tf->state = S_STR_HEAD;
		tf->strkind = c;
		return;
	case 'P':
	case 'X':
	case '^':
	case '_':
		/* DCS, SOS, PM, APC: none is on the allow-list. */
		drop(tf, TF_STRING);
		tf->strkind = c;
		tf->str_pass = false;
		tf->state = S_STR;
		return;
	}
	if (c < 0x30) {
		hold_add(tf, c, S_ESC_IGNORE);
		tf->state = S_ESC_INT;
		return;
	}
	esc_final(tf, c, o);
}

static void
esc_int_byte(struct termfilter *tf, unsigned char c, struct out *o)
{
	if (c0_in_sequence(tf, c, o))
		return;
	if (c >= 0x80) {
		tf->state = S_GROUND;
		ground_byte(tf, c, o);
	} else if (c < 0x30) {
		if (tf->state == S_ESC_INT)
			hold_add(tf, c, S_ESC_IGNORE);
	} else if (tf->state == S_ESC_IGNORE) {
		drop(tf, TF_CONTROL);
		tf->state = S_GROUND;
	} else
		esc_final(tf, c, o);
}

struct csi {
	unsigned char	priv;		/* < = > ? or 0 */
	unsigned char	inter;		/* the first intermediate, or 0 */
	unsigned char	final;
	unsigned	np;
	unsigned	p[16];
};

/* Split hold (ESC [ ... final) into its parts; false if malformed. */
static bool
csi_parse(const struct termfilter *tf, struct csi *c)
{
	const unsigned char *s = tf->hold + 2, *end = tf->hold + tf->hold_len - 1;
	bool digits = false;

	memset(c, 0, sizeof(*c));
	c->final = *end;
	if (s < end && *s >= 0x3c && *s <= 0x3f)
		c->priv = *s++;
	for (; s < end && *s >= 0x30 && *s <= 0x3f; s++) {
		if (*s >= '0' && *s <= '9') {
			if (c->np < 16 && c->p[c->np] < 100000)
				c->p[c->np] = c->p[c->np] * 10 + (*s - '0');
			digits = true;
		} else if (*s == ';' || *s == ':') {
			if (c->np < 16)
				c->np++;
			digits = false;
		} else
			return false;	/* a private marker in the middle */
	}
	if (digits || c->np)
		c->np = c->np < 16 ? c->np + 1 : 16;
	if (s < end)
		c->inter = *s;
	for (; s < end; s++)
		if (*s < 0x20 || *s > 0x2f)
			return false;
	return true;
}

static void
track_modes(struct termfilter *tf, const struct csi *c)
{
	unsigned i;

	for (i = 0; i < c->np; i++) {
		if (c->p[i] != 47 && c->p[i] != 1047 && c->p[i] != 1049)
			continue;
		if (c->final == 'h' && !(tf->modes & TF_MODE_ALT)) {
			tf->bol_main = tf->at_bol;
			tf->modes |= TF_MODE_ALT;
		} else if (c->final == 'l' && (tf->modes & TF_MODE_ALT)) {
			tf->at_bol = tf->bol_main;
			tf->modes &= ~TF_MODE_ALT;
		}
	}
}

static void
track_kitty(struct termfilter *tf, const struct csi *c)
{
	unsigned n = c->np && c->p[0] ? c->p[0] : 1;

	if (c->priv == '>' && tf->kitty_push < 4096)
		tf->kitty_push++;
	else if (c->priv == '<')
		tf->kitty_push -= n < tf->kitty_push ? n : tf->kitty_push;
	else if (c->priv == '=')
		tf->modes |= TF_MODE_KITTY;
}

/* PASS, or the kind it is dropped as. */
static int
csi_verdict(struct termfilter *tf, const struct csi *c)
{
	unsigned p0 = c->np ? c->p[0] : 0;

	if (c->final == 't' && c->priv == 0 && c->inter == 0) {
		/* Window operations: only the title stack (vim uses it). */
		if (p0 == 22 || p0 == 23)
			return PASS;
		return p0 >= 11 && p0 <= 21 ? TF_REPORT : TF_CONTROL;
	}
	if (c->final == 't')
		return TF_CONTROL;
	if (c->final == 'i')
		return TF_CONTROL;	/* media copy: the printer */
	if ((c->final == 'y' && c->inter == '*') ||	/* DECRQCRA */
	    (c->inter == '$' && (c->final == 'w' || c->final == 'u')))
		return TF_REPORT;	/* the screen's contents read back */
	if (c->priv == '?' && (c->final == 'h' || c->final == 'l'))
		track_modes(tf, c);
	if (c->final == 'u' && c->inter == 0)
		track_kitty(tf, c);
	return PASS;
}

static void
csi_final(struct termfilter *tf, unsigned char ch, struct out *o)
{
	struct csi c;
	int v;

	tf->state = S_GROUND;
	tf->hold[tf->hold_len++] = ch;	/* hold_add left room for it */
	if (!csi_parse(tf, &c)) {
		drop(tf, TF_CONTROL);
		return;
	}
	if ((v = csi_verdict(tf, &c)) != PASS) {
		drop(tf, v);
		return;
	}
	put(o, tf->hold, tf->hold_len);
	if (ch != 'm')
		tf->at_bol = false;
}

static void
csi_byte(struct termfilter *tf, unsigned char c, struct out *o)
{
	if (c0_in_sequence(tf, c, o) || c >= 0x80)
		return;
	if (c >= 0x40) {
		if (tf->state == S_CSI_IGNORE) {
			drop(tf, TF_CONTROL);
			tf->state = S_GROUND;
		} else
			csi_final(tf, c, o);
		return;
	}
	/* Keep one byte of room for the final. */
	if (tf->state == S_CSI && tf->hold_len < TF_HOLD - 1)
		tf->hold[tf->hold_len++] = c;
	else
		tf->state = S_CSI_IGNORE;
}

/*
 * A CSI at p (ESC [ parameters intermediates final) whole in this
 * buffer and fitting in hold, with nothing byte() treats otherwise (no C0,
 * DEL or byte >= 0x80 inside), decided at once; returns its length, or 0
 * for byte() to take it.
 */
static size_t
csi_whole(struct termfilter *tf, const unsigned char *p, size_t n,
    struct out *o)
{
	size_t j = 2;

	if (n < 3 || p[1] != '[')
		return 0;
	while (j < n && p[j] >= 0x20 && p[j] <= 0x3f)
		j++;
	if (j >= n || j > TF_HOLD - 1 || p[j] < 0x40 || p[j] > 0x7e)
		return 0;
	tf->u8need = 0;
	memcpy(tf->hold, p, j);
	tf->hold_len = j;
	csi_final(tf, p[j], o);
	return j + 1;
}

/* OSC 52: PASS when allowed and a write, else the kind; or UNDECIDED. */
static int
osc52(const struct termfilter *tf, const unsigned char *s, size_t n,
    bool complete)
{
	const unsigned char *sep = memchr(s, ';', n);

	if (sep == NULL)
		return complete ? TF_CLIP_WRITE : UNDECIDED;
	if (sep + 1 == s + n)
		return complete ? (tf->allow_clip ? PASS : TF_CLIP_WRITE) :
		    UNDECIDED;
	if (sep[1] == '?')
		return TF_CLIP_QUERY;
	return tf->allow_clip ? PASS : TF_CLIP_WRITE;
}

/*
 * The verdict on an OSC from its head (after ESC ]): PASS, the kind it is
 * dropped as, or UNDECIDED while more is needed.  complete: the string
 * ended (or was aborted) here.
 */
static int
osc_verdict(const struct termfilter *tf, bool complete)
{
	const unsigned char *s = tf->hold + 2;
	size_t n = tf->hold_len - 2, i;
	unsigned long num = 0;

	for (i = 0; i < n && s[i] >= '0' && s[i] <= '9' && i < 6; i++)
		num = num * 10 + (unsigned long)(s[i] - '0');
	if (i == 0 || i == 6 || (i < n && s[i] != ';'))
		return i == n && !complete ? UNDECIDED : TF_STRING;
	if (i == n && !complete)
		return UNDECIDED;
	s += i + 1;
	n = i < n ? n - i - 1 : 0;
	switch (num) {
	case 0: case 1: case 2:		/* titles */
	case 8:				/* hyperlinks */
	case 133:			/* prompt marks */
		return PASS;
	case 10: case 11: case 12:
		/* A colour query's answer is rgb:..; a change is dropped. */
		if (n == 0)
			return complete ? TF_STRING : UNDECIDED;
		return s[0] == '?' ? PASS : TF_STRING;
	case 52:
		return osc52(tf, s, n, complete);
	case 5522:			/* kitty's clipboard protocol */
		return TF_CLIP_WRITE;
	case 1337:			/* iTerm2: File=, and all else */
	case 5113:			/* kitty file transfer */
		return TF_TRANSFER;
	case 9: case 99: case 777:	/* desktop notifications */
		return TF_NOTIFY;
	default:
		return TF_STRING;
	}
}

static void
osc_decided(struct termfilter *tf, int v, struct out *o)
{
	tf->state = S_STR;
	tf->str_pass = v == PASS;
	if (v == PASS) {
		put(o, tf->hold, tf->hold_len);
		tf->at_bol = false;
	} else
		drop(tf, v);
}

static void
str_head_byte(struct termfilter *tf, unsigned char c, struct out *o)
{
	int v;

	if (c == BEL || c == ESC || c == CAN || c == SUB) {
		osc_decided(tf, osc_verdict(tf, true), o);
		feed(tf, c, o);		/* S_STR ends or aborts it */
		return;
	}
	if (tf->hold_len == TF_HOLD) {
		osc_decided(tf, TF_STRING, o);
		return;
	}
	tf->hold[tf->hold_len++] = c;
	if ((v = osc_verdict(tf, false)) != UNDECIDED)
		osc_decided(tf, v, o);
}

static void
str_byte(struct termfilter *tf, unsigned char c, struct out *o)
{
	if (c == ESC) {
		tf->state = S_STR_ESC;
		return;
	}
	if (c == CAN || c == SUB || (c == BEL && tf->strkind == ']')) {
		if (tf->str_pass)
			put1(o, c);
		tf->state = S_GROUND;
		return;
	}
	if (tf->str_pass)
		put1(o, c);
}

static void
str_esc_byte(struct termfilter *tf, unsigned char c, struct out *o)
{
	/* ESC \ is ST; ESC and anything else ends the string too. */
	if (tf->str_pass)
		PUTS(o, "\033\\");
	tf->state = S_GROUND;
	if (c != '\\') {
		hold_start(tf, S_ESC);
		esc_byte(tf, c, o);
	}
}

/* One byte, ESC-form: C1 controls arrive here as ESC and c - 0x40. */
static void
feed(struct termfilter *tf, unsigned char c, struct out *o)
{
	switch (tf->state) {
	case S_GROUND:
		ground_byte(tf, c, o);
		break;
	case S_ESC:
		esc_byte(tf, c, o);
		break;
	case S_ESC_INT:
	case S_ESC_IGNORE:
		esc_int_byte(tf, c, o);
		break;
	case S_CSI:
	case S_CSI_IGNORE:
		csi_byte(tf, c, o);
		break;
	case S_STR_HEAD:
		str_head_byte(tf, c, o);
		break;
	case S_STR:
		str_byte(tf, c, o);
		break;
	case S_STR_ESC:
		str_esc_byte(tf, c, o);
		break;
	}
}

static void
c1(struct termfilter *tf, unsigned char c, struct out *o)
{
	feed(tf, ESC, o);
	feed(tf, (unsigned char)(c - 0x40), o);
}

/*
 * One byte, through the UTF-8 decoder: a C1 control is 0x80..0x9f not
 * continuing a UTF-8 sequence, or U+0080..U+009F encoded (0xc2 0x80..).
 */
static void
byte(struct termfilter *tf, unsigned char c, struct out *o)
{
	if (tf->c2) {
		tf->c2 = false;
		if (c >= 0x80 && c <= 0x9f) {
			c1(tf, c, o);
			return;
		}
		feed(tf, 0xc2, o);
		tf->u8need = 1;
	}
	if (c < 0x80) {
		tf->u8need = 0;
		feed(tf, c, o);
		return;
	}
	if (tf->u8need && c <= 0xbf) {
		tf->u8need--;
		feed(tf, c, o);
		return;
	}
	tf->u8need = 0;
	if (c <= 0x9f) {
		c1(tf, c, o);
		return;
	}
	if (c == 0xc2) {
		tf->c2 = true;
		return;
	}
	if (c >= 0xc3 && c <= 0xdf)
		tf->u8need = 1;
	else if (c >= 0xe0 && c <= 0xef)
		tf->u8need = 2;
	else if (c >= 0xf0 && c <= 0xf4)
		tf->u8need = 3;
	feed(tf, c, o);
}

void
termfilter_init(struct termfilter *tf, bool allow_clipboard_write)
{
	memset(tf, 0, sizeof(*tf));
	tf->allow_clip = allow_clipboard_write;
	tf->at_bol = true;
}

/* What is not a run that passes as it is: one byte, or more at once. */
static size_t
step(struct termfilter *tf, const unsigned char *p, size_t n, struct out *o)
{
	size_t k;

	if (tf->state == S_GROUND && !tf->c2 && p[0] == ESC &&
	    (k = csi_whole(tf, p, n, o)) > 0)
		return k;		/* a cursor move, a mode */
	if (tf->state == S_CSI && !tf->c2 && (k = csi_run(tf, p, n)) > 0) {
		/* A CSI's parameters, split across reads: held in bulk. */
		tf->u8need = 0;
		return k;
	}
	byte(tf, p[0], o);
	return 1;
}

size_t
termfilter_run(struct termfilter *tf, const char *untrusted_in, size_t n,
    char *out)
{
	const unsigned char *in = (const unsigned char *)untrusted_in;
	struct out o = { .p = (unsigned char *)out };
	size_t i = 0, from = 0, k;

	/* in[from..i) passes as it is: copied in one piece when it ends. */
	while (i < n) {
		if (tf->state == S_GROUND && !tf->c2) {
			k = plain_run(tf, in + i, n - i);
			bol_after(tf, in + i, k);
			if ((i += k) == n)
				break;
		}
		if (i > from)
			put(&o, in + from, i - from);
		i += step(tf, in + i, n - i, &o);
		from = i;
	}
	put(&o, in + from, i - from);
	return (size_t)(o.p - (unsigned char *)out);
}

size_t
termfilter_run_bytes(struct termfilter *tf, const char *untrusted_in,
    size_t n, char *out)
{
	struct out o = { .p = (unsigned char *)out };
	size_t i;

	for (i = 0; i < n; i++)
		byte(tf, (unsigned char)untrusted_in[i], &o);
	return (size_t)(o.p - (unsigned char *)out);
}

size_t
termfilter_reset(const struct termfilter *tf, char *out)
{
	struct out o = { .p = (unsigned char *)out };
	bool bol = (tf->modes & TF_MODE_ALT) ? tf->bol_main : tf->at_bol;
	int n;

	/* An unfinished synchronized update would hide what follows. */
	PUTS(&o, "\033[?2026l");
	/* Only if entered: leaving also restores a saved cursor. */
	if (tf->modes & TF_MODE_ALT)
		PUTS(&o, "\033[?1049l");
	/* The scrolling region; DECSTBM homes the cursor, so save it. */
	PUTS(&o, "\0337\033[r\0338");
	/* Attributes, cursor, paste, mouse, cursor keys, keypad. */
	PUTS(&o, "\033[0m\033[?25h\033[?2004l");
	PUTS(&o, "\033[?9;1000;1001;1002;1003;1004;1005;1006;1015;1016l");
	PUTS(&o, "\033[?1l\033>");
	if (tf->kitty_push) {
		n = snprintf((char *)o.p, 16, "\033[<%uu", tf->kitty_push);
		o.p += n;
	}
	if (tf->modes & TF_MODE_KITTY)
		PUTS(&o, "\033[=0;1u");
	/* G0 is ASCII, and shifted in. */
	PUTS(&o, "\033(B\017");
	if (!bol)
		PUTS(&o, "\r\n");
	return (size_t)(o.p - (unsigned char *)out);
}

const char *
termfilter_kind_name(enum tf_kind k, unsigned long count)
{
	static const char *const one[TF_NKINDS] = {
		"clipboard write", "clipboard query", "file transfer",
		"notification", "terminal report", "other string",
		"other control" };
	static const char *const many[TF_NKINDS] = {
		"clipboard writes", "clipboard queries", "file transfers",
		"notifications", "terminal reports", "other strings",
		"other controls" };

	if ((unsigned)k >= TF_NKINDS)
		return "?";
	return count == 1 ? one[k] : many[k];
}
