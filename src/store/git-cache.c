// SPDX-License-Identifier: ISC
/*
 * store/git-cache.c - the user's git identity as git last gave it, so
 * that a run whose global git files have not changed does not start git
 * (a millisecond or two of every launch); see git-cache.h.
 *
 * Runs in: confine, on the host, before the plan.
 * MUST: read the file with a bound; write it under a temporary name, then
 * rename it.
 * MUST: give back an answer only for the very key it was kept under.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fdio.h"
#include "lib/sha256.h"
#include "lib/sys.h"
#include "lib/util.h"
#include "store/git-cache.h"

#define CACHE_MAGIC	"confine-git-identity 1 "
/* The header's bound: the magic, a digest, a status and a length. */
#define HEADER_MAX	(sizeof(CACHE_MAGIC) + 64 + 2 * 24)

static char *
cache_path(const char *state_home)
{
	return path_join(state_home, "confine/git-identity");
}

bool
git_cache_load(const char *state_home, const char *key, int *status,
    char *out, size_t max, size_t *len)
{
	autofree char *path = cache_path(state_home), *buf = NULL;
	autoclose int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	char digest[65], *p, *end;
	unsigned long long n;
	ssize_t got;
	long st;

	if (fd < 0 || (got = fd_read_all(fd, HEADER_MAX + max, &buf)) < 0)
		return false;
	sha256_hex(key, strlen(key), digest);
	p = buf;
	if ((size_t)got < sizeof(CACHE_MAGIC) - 1 + 65 ||
	    memcmp(p, CACHE_MAGIC, sizeof(CACHE_MAGIC) - 1) != 0)
		return false;
	p += sizeof(CACHE_MAGIC) - 1;
	if (memcmp(p, digest, 64) != 0 || p[64] != ' ')
		return false;
	p += 65;
	errno = 0;
	st = strtol(p, &end, 10);
	if (errno || end == p || *end != ' ')
		return false;
	p = end + 1;
	n = strtoull(p, &end, 10);
	if (errno || end == p || *end != '\n' || n > max ||
	    (size_t)(end + 1 - buf) + n != (size_t)got)
		return false;
	memcpy(out, end + 1, (size_t)n);
	*status = (int)st;
	*len = (size_t)n;
	return true;
}

void
git_cache_save(const char *state_home, const char *key, int status,
    const char *out, size_t len)
{
	autofree char *path = cache_path(state_home);
	autofree char *dir = path_join(state_home, "confine");
	autofree char *tmp = xasprintf("%s.XXXXXX", path);
	autofree char *head = NULL;
	char digest[65];
	int fd, r;

	if (sys_mkdirs(dir) < 0 || (fd = mkostemp(tmp, O_CLOEXEC)) < 0)
		return;
	sha256_hex(key, strlen(key), digest);
	head = xasprintf(CACHE_MAGIC "%s %d %zu\n", digest, status, len);
	r = fd_write_all(fd, head, strlen(head));
	if (r == 0)
		r = fd_write_all(fd, out, len);
	if (close(fd) < 0 || r < 0 || rename(tmp, path) < 0)
		unlink(tmp);
}
