// SPDX-License-Identifier: ISC
/*
 * input/bwrap-cache.c - bwrap's version, remembered between runs in
 * $XDG_STATE_HOME/confine/bwrap-version, keyed on the binary's identity.
 *
 * Asking "bwrap --version" is an exec of its own on every launch; the
 * answer changes only with the binary.  The file holds one line: the
 * binary's device, inode, size, mtime and ctime (seconds and
 * nanoseconds), then the version's major and minor.  Any difference in
 * the key (the binary replaced or changed in place: its ctime moves) asks
 * bwrap again.
 *
 * The file is the user's own, in confine's state directory, which no
 * sandbox shows (the home is a tmpfs there) unless a profile makes the
 * state directory itself direct: what it says only chooses whether
 * --disable-userns is passed, and a wrong word there makes bwrap fail,
 * except an older version claimed, which would leave it out; hence the
 * checks below, and a file that fails any is ignored, never trusted.
 *
 * Runs in: the supervisor: read before the plan is computed, written
 * when a run (not --dry-run) goes on to start.
 * MUST: trust the file only when it is a regular file of this user's,
 * writable by nobody else, read with a bound, and its key is the
 * binary's as it is now; on any doubt ask bwrap.
 * MUST: never fail a run: a cache that cannot be read or written is no
 * cache.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/bwrap-cache.h"
#include "lib/fdio.h"
#include "lib/sys.h"
#include "lib/util.h"

#define CACHE_NAME	"confine/bwrap-version"
#define CACHE_MAX	256

/* The key and value, as written; one line. */
static int
format(char *buf, size_t len, const struct stat *st, int major, int minor)
{
	return snprintf(buf, len, "%llu %llu %lld %lld %ld %lld %ld %d %d\n",
	    (unsigned long long)st->st_dev, (unsigned long long)st->st_ino,
	    (long long)st->st_size, (long long)st->st_mtim.tv_sec,
	    st->st_mtim.tv_nsec, (long long)st->st_ctim.tv_sec,
	    st->st_ctim.tv_nsec, major, minor);
}

int
bwrap_cache_get(const char *state_home, const struct stat *bin,
    int *ret_major, int *ret_minor)
{
	autofree char *path = path_join(state_home, CACHE_NAME);
	autofree char *buf = NULL;
	char want[CACHE_MAX];
	int major, minor, n;
	ssize_t len;
	char *sp;

	if ((len = fd_read_owned(path, CACHE_MAX, &buf)) < 0)
		return len == -EPERM ? -EPERM : len == -EFBIG ? -EINVAL :
		    -ENOENT;
	if (len == 0)
		return -EINVAL;
	/* The key, compared as text; then exactly two numbers and "\n". */
	if (format(want, sizeof(want), bin, 0, 0) >= (int)sizeof(want) ||
	    (sp = strrchr(want, ' ')) == NULL ||
	    (sp = memrchr(want, ' ', (size_t)(sp - want))) == NULL)
		return -EINVAL;
	sp[1] = '\0';
	if (strncmp(buf, want, strlen(want)) != 0)
		return -ESTALE;
	if (sscanf(buf + strlen(want), "%3d %3d\n%n", &major, &minor,
	    &n) != 2 || (size_t)n != strlen(buf + strlen(want)) ||
	    major < 0 || minor < 0)
		return -EINVAL;
	*ret_major = major;
	*ret_minor = minor;
	return 0;
}

void
bwrap_cache_put(const char *state_home, const struct stat *bin, int major,
    int minor)
{
	autofree char *path = path_join(state_home, CACHE_NAME);
	autofree char *dir = xstrdup(path);
	char buf[CACHE_MAX];
	int n;

	*strrchr(dir, '/') = '\0';
	if (sys_mkdirs(dir) < 0)
		return;
	n = format(buf, sizeof(buf), bin, major, minor);
	if (n > 0 && n < (int)sizeof(buf))
		fd_write_replace(path, buf, (size_t)n);
}
