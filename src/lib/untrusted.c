// SPDX-License-Identifier: ISC
/*
 * untrusted.c - the ways to use the agent's bytes; see untrusted.h.
 *
 * Runs in: wherever agent data is handled (the supervisor, the export).
 * MUST: never read past len, nor rely on a NUL the agent was to write.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "lib/fdio.h"
#include "lib/term-escape.h"
#include "lib/untrusted.h"
#include "lib/util.h"

char *
untrusted_display(struct untrusted u, int keep_nl)
{
	return term_sanitize(u.untrusted_bytes, u.len, keep_nl);
}

int
untrusted_copy(struct untrusted u, size_t max, char **ret)
{
	if (u.len > max)
		return -EFBIG;
	if (memchr(u.untrusted_bytes, '\0', u.len))
		return -EINVAL;
	*ret = xstrndup(u.untrusted_bytes, u.len);
	return 0;
}

int
untrusted_open_beneath(int root, struct untrusted path, int flags)
{
	autofree char *p = NULL;
	int r;

	if (path.len == 0)
		return -EINVAL;
	if ((r = untrusted_copy(path, PATH_MAX - 1, &p)) < 0)
		return r == -EFBIG ? -ENAMETOOLONG : r;
	return fd_open_at(root, p, flags, 0, FD_BENEATH);
}
