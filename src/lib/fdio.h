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
#include <sys/types.h>

/*
 * How fd_open_at() resolves a path (openat2(2) RESOLVE_*).  FD_BENEATH is
 * the one for trees the agent writes; the others are for paths another
 * process sees (the command's, under /proc/PID/root or cwd), resolved as
 * it would, short of what could only be a trick.
 */
enum fd_resolve {
	FD_BENEATH,	/* below dirfd, no symlink, no magic link:
			 * BENEATH | NO_SYMLINKS | NO_MAGICLINKS */
	FD_IN_ROOT,	/* dirfd is the root: symlinks resolve inside it;
			 * no magic link: IN_ROOT | NO_MAGICLINKS */
	FD_NO_MAGICLINKS, /* anywhere, dirfd or AT_FDCWD: symlinks followed
			 * (".." too), no magic link: NO_MAGICLINKS */
	FD_NO_SYMLINKS,	/* anywhere, ".." too; no symlink of any kind
			 * (magic links are symlinks): NO_SYMLINKS */
	FD_IN_ROOT_NO_SYMLINKS, /* dirfd is the root, no symlink of any
			 * kind: IN_ROOT | NO_SYMLINKS */
};

/*
 * openat2(2) of path from dirfd with flags | O_CLOEXEC (mode for O_CREAT),
 * resolved as how says.  The fd, or -errno.
 */
int	fd_open_at(int dirfd, const char *path, int flags, mode_t mode,
	    enum fd_resolve how);

/*
 * Read fd to its end into *ret (NUL-terminated, heap), at most max bytes.
 * The length, or -errno: -EFBIG when there is more than max.
 */
ssize_t	fd_read_all(int fd, size_t max, char **ret);

/* fd_read_all() of path, opened O_NOFOLLOW (a /proc or /sys file). */
ssize_t	fd_read_path(const char *path, size_t max, char **ret);

/* Write all of buf (EINTR retried; on a socket, no SIGPIPE): 0 or -errno. */
int	fd_write_all(int fd, const char *buf, size_t len);

/*
 * Read a file confine keeps for itself (a cache, a note between runs):
 * at most max bytes, as fd_read_all(), and only when it is a regular file,
 * not a symlink, owned by the effective uid and writable by nobody else
 * (-EPERM).  A file that fails these is one confine did not write.
 */
ssize_t	fd_read_owned(const char *path, size_t max, char **ret);

/*
 * Replace path with buf, whole or not at all: a new file (mode 0600) in
 * the same directory, renamed over it.  0 or -errno.
 */
int	fd_write_replace(const char *path, const char *buf, size_t len);

/*
 * A directory's entries, read with getdents64(2) straight from an fd the
 * caller keeps open and closes (no dup(2), fstat(2) and fcntl(2) as
 * fdopendir(3) makes for each directory: a walk of a tree opens many),
 * "." and ".." left out.  dir_next(): the next entry's name, valid until
 * the next call, and its type (DT_*; DT_UNKNOWN where the filesystem
 * gives none), or NULL at the end, or when a read failed (d->err, the
 * errno).  dir_done() frees the buffer, not the fd.
 */
struct dir_reader {
	int		 fd;
	int		 err;
	size_t		 pos, len;
	char		*buf;
};

void		 dir_begin(struct dir_reader *, int fd);
const char	*dir_next(struct dir_reader *, unsigned char *type);
void		 dir_done(struct dir_reader *);

#endif
