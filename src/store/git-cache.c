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
	char digest[65], *p, *end;
	unsigned long long n;
	ssize_t got;
	long st;

	if ((got = fd_read_owned(path, HEADER_MAX + max, &buf)) < 0)
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
	autofree char *text = NULL;
	char digest[65];
	int head;

	if (sys_mkdirs(dir) < 0)
		return;
	sha256_hex(key, strlen(key), digest);
	head = snprintf(NULL, 0, CACHE_MAGIC "%s %d %zu\n", digest, status,
	    len);
	text = xmalloc((size_t)head + len + 1);
	snprintf(text, (size_t)head + 1, CACHE_MAGIC "%s %d %zu\n", digest,
	    status, len);
	memcpy(text + head, out, len);
	fd_write_replace(path, text, (size_t)head + len);
}
