// SPDX-License-Identifier: ISC
/*
 * fdio.c - openat2(2) opens, resolved as named, and whole-file reads with
 * a bound; see fdio.h.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "lib/fdio.h"
#include "lib/util.h"

static unsigned long long
resolve_flags(enum fd_resolve how)
{
	switch (how) {
	case FD_BENEATH:
		break;
	case FD_IN_ROOT:
		return RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
	case FD_NO_MAGICLINKS:
		return RESOLVE_NO_MAGICLINKS;
	case FD_NO_SYMLINKS:
		return RESOLVE_NO_SYMLINKS;
	case FD_IN_ROOT_NO_SYMLINKS:
		return RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS;
	}
	/* FD_BENEATH, and the strictest for anything else. */
	return RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
}

int
fd_open_at(int dirfd, const char *path, int flags, mode_t mode,
    enum fd_resolve how)
{
	struct open_how oh = {
		.flags = (unsigned long long)flags | O_CLOEXEC,
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = resolve_flags(how),
	};
	int fd;

	if ((fd = (int)syscall(SYS_openat2, dirfd, path, &oh, sizeof(oh))) < 0)
		return -errno;
	return fd;
}

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

int
fd_write_all(int fd, const char *buf, size_t len)
{
	ssize_t w;

	while (len > 0) {
		/* send(2) on a socket, so that a peer gone is EPIPE only. */
		if ((w = send(fd, buf, len, MSG_NOSIGNAL)) < 0 &&
		    errno == ENOTSOCK)
			w = write(fd, buf, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

ssize_t
fd_read_owned(const char *path, size_t max, char **ret)
{
	autoclose int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)))
		return -EPERM;
	return fd_read_all(fd, max, ret);
}

int
fd_write_replace(const char *path, const char *buf, size_t len)
{
	autofree char *tmp = xasprintf("%s.XXXXXX", path);
	int fd, r;

	/* mkostemp: O_EXCL, mode 0600. */
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0)
		return -errno;
	r = fd_write_all(fd, buf, len);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}

ssize_t
fd_read_path(const char *path, size_t max, char **ret)
{
	autoclose int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	return fd_read_all(fd, max, ret);
}

/* The buffer of a dir_reader: as much as glibc's DIR takes. */
#define DIR_BUF		32768

void
dir_begin(struct dir_reader *d, int fd)
{
	*d = (struct dir_reader){ .fd = fd };
}

const char *
dir_next(struct dir_reader *d, unsigned char *type)
{
	for (;;) {
		const struct dirent64 *e;
		ssize_t n;

		if (d->pos < d->len) {
			e = (const struct dirent64 *)(d->buf + d->pos);
			d->pos += e->d_reclen;
			if (e->d_name[0] == '.' && (e->d_name[1] == '\0' ||
			    (e->d_name[1] == '.' && e->d_name[2] == '\0')))
				continue;
			if (type)
				*type = e->d_type;
			return e->d_name;
		}
		if (d->err || d->fd < 0)
			return NULL;
		if (d->buf == NULL)
			d->buf = xmalloc(DIR_BUF);
		if ((n = getdents64(d->fd, d->buf, DIR_BUF)) <= 0) {
			if (n < 0)
				d->err = errno;
			d->fd = -1;	/* the end: not read again */
			return NULL;
		}
		d->pos = 0;
		d->len = (size_t)n;
	}
}

void
dir_done(struct dir_reader *d)
{
	free(d->buf);
	d->buf = NULL;
}
