// SPDX-License-Identifier: ISC
/*
 * tap.h - a Test Anything Protocol writer for the unit tests.
 *
 * plan(n) announces n tests up front; without it, done() prints the plan
 * last.  ok(), is_str() and is_int() print one line each and return whether
 * the test passed; diag() prints a "# " comment.  main returns done(): 0
 * only when every test passed and as many ran as were planned.
 */
#ifndef CONFINE_TAP_H
#define CONFINE_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int tap_planned = -1, tap_run, tap_failed;

#define TAP_FMT		__attribute__((format(printf, 1, 2)))
#define TAP_FMT_AT(n)	__attribute__((format(printf, n, n + 1)))

static inline void
plan(int n)
{
	tap_planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

static inline void TAP_FMT
diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("# ", stdout);
	vprintf(fmt, ap);
	fputs("\n", stdout);
	va_end(ap);
	fflush(stdout);
}

static inline bool
vok(bool cond, const char *fmt, va_list ap)
{
	tap_run++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_run);
	vprintf(fmt, ap);
	fputs("\n", stdout);
	fflush(stdout);
	return cond;
}

static inline bool TAP_FMT_AT(2)
ok(bool cond, const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = vok(cond, fmt, ap);
	va_end(ap);
	return r;
}

/* Both may be NULL; NULL equals only NULL. */
static inline bool TAP_FMT_AT(3)
is_str(const char *got, const char *want, const char *fmt, ...)
{
	va_list ap;
	bool r = (got == NULL || want == NULL) ? got == want :
	    strcmp(got, want) == 0;

	va_start(ap, fmt);
	vok(r, fmt, ap);
	va_end(ap);
	if (!r) {
		diag("     got: %s%s%s", got ? "'" : "", got ? got : "NULL",
		    got ? "'" : "");
		diag("expected: %s%s%s", want ? "'" : "", want ? want : "NULL",
		    want ? "'" : "");
	}
	return r;
}

static inline bool TAP_FMT_AT(3)
is_int(long long got, long long want, const char *fmt, ...)
{
	va_list ap;
	bool r = got == want;

	va_start(ap, fmt);
	vok(r, fmt, ap);
	va_end(ap);
	if (!r)
		diag("     got: %lld (0x%llx)\n# expected: %lld (0x%llx)", got,
		    (unsigned long long)got, want, (unsigned long long)want);
	return r;
}

static inline void TAP_FMT
skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("ok %d # SKIP ", ++tap_run);
	vprintf(fmt, ap);
	fputs("\n", stdout);
	va_end(ap);
	fflush(stdout);
}

static inline int
done(void)
{
	if (tap_planned < 0)
		plan(tap_run);
	else if (tap_run != tap_planned) {
		diag("planned %d tests but ran %d", tap_planned, tap_run);
		return 1;
	}
	if (tap_failed)
		diag("failed %d of %d tests", tap_failed, tap_run);
	return tap_failed ? 1 : 0;
}

#endif
