// SPDX-License-Identifier: ISC
/*
 * run/copy-progress.c - a progress line for the copy of a large workspace.
 *
 * Runs in: the supervisor, before the sandbox starts and before the relay
 * puts the terminal in raw mode.
 * MUST: cost nothing but a read of the coarse clock a file while no line
 * is due (a small copy never has one, and never counts its total); draw
 * nothing at all when stderr is not a terminal or with -q.
 * MUST: leave the terminal's line as it found it (the line is padded over
 * with spaces, so that no escape sequence is needed, even on a dumb one).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lib/log.h"
#include "run/copy-progress.h"
#include "store/session-store.h"

#define FIRST_NS	250000000LL	/* a small copy's line: after 0.25 s */
#define REDRAW_NS	200000000LL	/* at most five lines a second */
#define ETA_NS		500000000LL	/* a rate is a guess before 0.5 s */

static long long
ns_between(const struct timespec *a, const struct timespec *b)
{
	return (long long)(b->tv_sec - a->tv_sec) * 1000000000LL +
	    (b->tv_nsec - a->tv_nsec);
}

static void
put(const char *s, size_t len)
{
	ssize_t n;

	/* A terminal that cannot take the line loses it: not an error. */
	while (len > 0) {
		if ((n = write(STDERR_FILENO, s, len)) < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

/* "<1 s", "42 s", "3 min 05 s" */
static void
eta_format(long long secs, char *buf, size_t len)
{
	if (secs < 1)
		snprintf(buf, len, "<1 s");
	else if (secs < 60)
		snprintf(buf, len, "%lld s", secs);
	else
		snprintf(buf, len, "%lld min %02lld s", secs / 60, secs % 60);
}

static void
draw(struct copy_progress *pg, const struct copy_stats *st,
    long long elapsed)
{
	char line[512], bytes[16], rate[16], eta[48], files[48];
	size_t len, width = pg->cols > 1 ? pg->cols - 1 : 79;
	int n;

	session_size_format(st->bytes, bytes, sizeof(bytes));
	if (st->total >= st->files)
		snprintf(files, sizeof(files), "%zu/%zu files", st->files,
		    st->total);
	else
		snprintf(files, sizeof(files), "%zu files", st->files);
	n = snprintf(line, sizeof(line), "\rconfine: copying %s: %s, %s",
	    pg->what, files, bytes);
	if (elapsed >= ETA_NS && n > 0 && (size_t)n < sizeof(line)) {
		session_size_format((uint64_t)((double)st->bytes * 1e9 /
		    (double)elapsed), rate, sizeof(rate));
		n += snprintf(line + n, sizeof(line) - (size_t)n, " at %s/s",
		    rate);
		if (st->files > 0 && st->total > st->files &&
		    (size_t)n < sizeof(line)) {
			/* From the files' rate: the count has no sizes. */
			eta_format((long long)((double)elapsed / 1e9 *
			    (double)(st->total - st->files) /
			    (double)st->files), eta, sizeof(eta));
			n += snprintf(line + n, sizeof(line) - (size_t)n,
			    ", %s left", eta);
		}
	}
	if (n < 0)
		return;
	len = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
	/* One terminal line, never wrapped ("\r" is no column); a cut
	 * multibyte character is cut whole. */
	if (len - 1 > width) {
		len = width + 1;
		while (len > 1 && ((unsigned char)line[len] & 0xc0) == 0x80)
			len--;
	}
	/* Over a longer line drawn before: spaces. */
	while (len - 1 < pg->drawn && len < sizeof(line))
		line[len++] = ' ';
	put(line, len);
	pg->drawn = len - 1;
}

void
copy_progress_begin(struct copy_progress *pg, const char *what)
{
	struct winsize ws;

	memset(pg, 0, sizeof(*pg));
	pg->what = what;
	pg->on = log_get_level() >= LOG_NORMAL && isatty(STDERR_FILENO);
	if (pg->on && ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0)
		pg->cols = ws.ws_col;
	clock_gettime(CLOCK_MONOTONIC, &pg->start);
	clock_gettime(CLOCK_MONOTONIC_COARSE, &pg->next);
}

bool
copy_progress_show(const struct copy_stats *st, void *arg)
{
	struct copy_progress *pg = arg;
	struct timespec now;
	long long elapsed;

	if (!pg->on)
		return false;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	if (ns_between(&pg->next, &now) < 0)
		return false;
	elapsed = ns_between(&pg->start, &now);
	if (pg->drawn == 0 && st->files < COPY_PROGRESS_FILES &&
	    elapsed < FIRST_NS)
		return false;
	/* A line is due: the total first, for the time left. */
	if (!pg->counted) {
		pg->counted = true;
		return true;
	}
	draw(pg, st, elapsed);
	pg->next = now;
	pg->next.tv_nsec += REDRAW_NS;
	if (pg->next.tv_nsec >= 1000000000L) {
		pg->next.tv_sec++;
		pg->next.tv_nsec -= 1000000000L;
	}
	return false;
}

void
copy_progress_end(struct copy_progress *pg, const struct copy_stats *st,
    bool ok)
{
	struct timespec now;
	char line[512], bytes[16];
	size_t len;

	if (pg->drawn > 0) {
		len = pg->drawn + 2 < sizeof(line) ? pg->drawn + 2 :
		    sizeof(line);
		memset(line, ' ', len);
		line[0] = '\r';
		line[len - 1] = '\r';
		put(line, len);
		pg->drawn = 0;
	}
	if (!ok)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	session_size_format(st->bytes, bytes, sizeof(bytes));
	log_info("copy of %s: %zu files, %s in %.2f s (%zu reflinked)",
	    pg->what, st->files, bytes, (double)ns_between(&pg->start, &now) /
	    1e9, st->cloned);
}
