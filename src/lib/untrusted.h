/* SPDX-License-Identifier: ISC */
/*
 * lib/untrusted.h - bytes the agent controls, named and typed as such
 * (STYLE.md section 6).
 *
 * The rule, for every file that handles them:
 *
 *  - A variable, parameter or field that holds bytes the agent wrote or
 *    chose is named untrusted_*: a path found in the upper layer or the
 *    workspace's copy, a file's content read there, the proxy's request
 *    head, a path or name read from the command's memory.  A function
 *    that takes one says so in its parameter's name.
 *  - Where such bytes are passed on as a buffer they are a struct
 *    untrusted: a pointer and a length, never trusted to be
 *    NUL-terminated or free of NUL.  Its bytes are reached only through
 *    the functions below (to show them, to open them as a path beneath a
 *    root, to copy them with a bound) or by a parser that validates them,
 *    which names itself as such in its comment ("Parses untrusted
 *    bytes").  Anything else that reads u.untrusted_bytes is a bug.
 *  - Every read of them has a bound: fd_read_all() with its max, a fixed
 *    buffer read with sizeof, or a bound named on the read's own line
 *    (tests/check-bounded-reads.sh holds the export, the keyholder, the
 *    proxy, the notify supervisor, the kept state, the session commands
 *    and the terminal relay to it).
 */
#ifndef CONFINE_UNTRUSTED_H
#define CONFINE_UNTRUSTED_H

#include <stddef.h>

struct untrusted {
	const char	*untrusted_bytes;	/* borrowed; see above */
	size_t		 len;
};

/* Mark len bytes at p (borrowed) as the agent's. */
static inline struct untrusted
untrusted_wrap(const char *p, size_t len)
{
	struct untrusted u = { p, len };

	return u;
}

/* The bytes as the user's terminal may show them (term_sanitize). Heap. */
char	*untrusted_display(struct untrusted, int keep_nl);

/*
 * A NUL-terminated heap copy in *ret, when the bytes hold no NUL and are
 * at most max.  0, -EINVAL (a NUL) or -EFBIG.
 */
int	untrusted_copy(struct untrusted, size_t max, char **ret);

/*
 * Open the bytes as a relative path beneath root (fd_open_at(FD_BENEATH):
 * no "..", no absolute path, no symlink, no magic link).  The fd, or
 * -errno: -EINVAL for an empty path or one holding a NUL,
 * -ENAMETOOLONG past PATH_MAX.
 */
int	untrusted_open_beneath(int root, struct untrusted path, int flags);

#endif
