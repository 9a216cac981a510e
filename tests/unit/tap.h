// SPDX-License-Identifier: ISC
/*
 * tap.h - a Test Anything Protocol writer for the unit tests.
 *
 * plan(n) announces n tests; without it, done() prints the plan last.
 * ok(), is_str() and is_int() print one result line and yield whether the
 * test passed; diag() prints a "# " line.  main returns done(): 0 only when
 * every test passed and as many ran as were planned.
 */
#ifndef CONFINE_TAP_H
#define CONFINE_TAP_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

static int tap_planned = -1, tap_run, tap_failed;

#define plan(n)		(tap_planned = (n), printf("1..%d\n", tap_planned))
#define diag(...)	(printf("# "), printf(__VA_ARGS__), printf("\n"), \
    fflush(stdout))
#define ok(cond, ...) ({ \
	bool tap_ok_ = (cond); \
	tap_failed += !tap_ok_; \
	printf("%sok %d - ", tap_ok_ ? "" : "not ", ++tap_run); \
	printf(__VA_ARGS__), printf("\n"), fflush(stdout); \
	tap_ok_; })
/* NULL equals only NULL. */
#define is_str(got, want, ...) ({ \
	const char *tap_g_ = (got), *tap_w_ = (want); \
	bool tap_r_ = ok(tap_g_ && tap_w_ ? strcmp(tap_g_, tap_w_) == 0 : \
	    tap_g_ == tap_w_, __VA_ARGS__); \
	if (!tap_r_) \
		diag("     got: %s\n# expected: %s", tap_g_ ? tap_g_ : \
		    "(NULL)", tap_w_ ? tap_w_ : "(NULL)"); \
	tap_r_; })
#define is_int(got, want, ...) ({ \
	long long tap_g_ = (got), tap_w_ = (want); \
	bool tap_r_ = ok(tap_g_ == tap_w_, __VA_ARGS__); \
	if (!tap_r_) \
		diag("     got: %lld (%#llx)\n# expected: %lld (%#llx)", \
		    tap_g_, (unsigned long long)tap_g_, tap_w_, \
		    (unsigned long long)tap_w_); \
	tap_r_; })

/* A string vector as one string, entries between brackets (for diag). */
static inline char *
tap_strv(char *const *v)
{
	char *s = xstrdup(""), *t;
	size_t i;

	if (v == NULL)
		return xstrdup("(NULL)");
	for (i = 0; v[i]; i++) {
		t = xasprintf("%s[%s]", s, v[i]);
		free(s);
		s = t;
	}
	return s;
}

static inline int
done(void)
{
	if (tap_planned < 0)
		plan(tap_run);
	if (tap_run != tap_planned)
		diag("planned %d tests, ran %d", tap_planned, tap_run);
	return tap_failed || tap_run != tap_planned;
}

#endif
