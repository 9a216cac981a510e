// SPDX-License-Identifier: ISC
/*
 * fdio.c - whole-file reads with a bound; see fdio.h.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/fdio.h"
#include "lib/util.h"

ssize_t
fd_read_all(int fd, size_t max, char **ret)
{
	size_t cap = max < 65536 ? max + 1 : 65536, len = 0;
	char *buf = xmalloc(cap);
	ssize_t n;

	for (;;) {
		if (len == cap) {
			if (len > max) {
				free(buf);
				return -EFBIG;
			}
			cap = cap > max / 2 ? max + 1 : cap * 2;
			buf = xreallocarray(buf, 1, cap);
		}
		if ((n = read(fd, buf + len, cap - len)) < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			free(buf);
			return n;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > max) {
		free(buf);
		return -EFBIG;
	}
	buf = xreallocarray(buf, 1, len + 1);
	buf[len] = '\0';
	*ret = buf;
	return (ssize_t)len;
}
