/* SPDX-License-Identifier: ISC */
/*
 * lib/fdio.h - reading and writing whole files through fds, with a bound.
 *
 * Every read of bytes another party wrote (the agent, the command, a
 * program confine runs) goes through here with the most it will take.
 */
#ifndef CONFINE_FDIO_H
#define CONFINE_FDIO_H

#include <stddef.h>

/*
 * Read fd to its end into *ret (NUL-terminated, heap), at most max bytes.
 * The length, or -errno: -EFBIG when there is more than max.
 */
ssize_t	fd_read_all(int fd, size_t max, char **ret);

#endif
