// SPDX-License-Identifier: ISC
/*
 * store/copy-mark.c - what a copy's changes are told by; see copy-mark.h.
 *
 * Runs in: the supervisor and the export; the files read are confine's
 * own, in the session directory.
 * MUST: read the recent file whole with a bound, and refuse it (never use
 * part of it) when it is over the bound or malformed: an entry left out
 * would never be missed, but one misread could hide a change.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fdio.h"
#include "lib/util.h"
#include "store/copy-mark.h"
#include "store/session-meta.h"

static int
by_ino(const void *a, const void *b)
{
	uint64_t x = ((const struct copy_recent *)a)->ino;
	uint64_t y = ((const struct copy_recent *)b)->ino;

	return x < y ? -1 : x > y;
}

void
copy_mark_sort(struct copy_mark *m)
{
	if (m->nrecent > 1)
		qsort(m->recent, m->nrecent, sizeof(*m->recent), by_ino);
}

bool
copy_mark_unchanged(const struct copy_mark *m, const struct stat *st)
{
	struct copy_recent key = { .ino = (uint64_t)st->st_ino };
	const struct copy_recent *r;

	if (m->since.tv_sec == 0 && m->since.tv_nsec == 0)
		return false;
	if (!timespec_ge(&st->st_ctim, &m->since))
		return true;
	if (m->nrecent == 0 || (r = bsearch(&key, m->recent, m->nrecent,
	    sizeof(*m->recent), by_ino)) == NULL)
		return false;
	return r->ctime.tv_sec == st->st_ctim.tv_sec &&
	    r->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

static bool
ns_of(const char *s, struct timespec *ret)
{
	char *end;
	long long ns;

	errno = 0;
	ns = strtoll(s, &end, 10);
	if (errno || *end || end == s || ns <= 0)
		return false;
	ret->tv_sec = (time_t)(ns / 1000000000LL);
	ret->tv_nsec = (long)(ns % 1000000000LL);
	return true;
}

/* "INO SEC NSEC\n" a line, confine's own. */
static int
parse(char *buf, size_t len, struct copy_mark *m)
{
	char *p = buf, *end = buf + len, *nl;
	unsigned long long ino;
	long long sec;
	long nsec;
	int used;

	while (p < end) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			return -EINVAL;
		*nl = '\0';
		if (sscanf(p, "%llu %lld %ld%n", &ino, &sec, &nsec, &used) != 3 ||
		    p + used != nl || nsec < 0 || nsec >= 1000000000L)
			return -EINVAL;
		m->recent = xreallocarray(m->recent, m->nrecent + 1,
		    sizeof(*m->recent));
		m->recent[m->nrecent].ino = ino;
		m->recent[m->nrecent].ctime.tv_sec = (time_t)sec;
		m->recent[m->nrecent++].ctime.tv_nsec = nsec;
		p = nl + 1;
	}
	copy_mark_sort(m);
	return 0;
}

int
copy_mark_load(const char *session_dir, struct copy_mark *ret)
{
	autofree char *since = session_meta_get(session_dir, "copy_since_ns");
	autofree char *started = NULL, *path = NULL, *buf = NULL;
	autoclose int fd = -1;
	struct copy_mark m = { 0 };
	ssize_t n;
	int r;

	memset(ret, 0, sizeof(*ret));
	if (since == NULL) {
		/* An older confine's session: its own rule, nothing recent. */
		started = session_meta_get(session_dir, "started_ns");
		if (started == NULL || !ns_of(started, &m.since))
			return -ENOENT;
		*ret = m;
		return 0;
	}
	if (!ns_of(since, &m.since))
		return -EINVAL;
	path = path_join(session_dir, COPY_RECENT_FILE);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		if (errno != ENOENT)
			return -errno;
		*ret = m;
		return 0;
	}
	if ((n = fd_read_all(fd, COPY_RECENT_MAX, &buf)) < 0)
		return (int)n;
	if ((r = parse(buf, (size_t)n, &m)) < 0) {
		copy_mark_free(&m);
		return r;
	}
	*ret = m;
	return 0;
}

void
copy_mark_free(struct copy_mark *m)
{
	free(m->recent);
	memset(m, 0, sizeof(*m));
}

int
copy_mark_write_recent(int session_fd, const struct copy_recent *v, size_t n)
{
	AUTO(fclose_p) FILE *f = NULL;
	size_t i;
	int fd;

	unlinkat(session_fd, COPY_RECENT_FILE ".tmp", 0);
	if ((fd = openat(session_fd, COPY_RECENT_FILE ".tmp", O_WRONLY |
	    O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0)
		return -errno;
	if ((f = fdopen(fd, "w")) == NULL) {
		close(fd);
		return -errno;
	}
	for (i = 0; i < n; i++)
		fprintf(f, "%" PRIu64 " %lld %ld\n", v[i].ino,
		    (long long)v[i].ctime.tv_sec, v[i].ctime.tv_nsec);
	if (fflush(f) != 0 || ferror(f))
		return -EIO;
	if (renameat(session_fd, COPY_RECENT_FILE ".tmp", session_fd,
	    COPY_RECENT_FILE) < 0)
		return -errno;
	return 0;
}
