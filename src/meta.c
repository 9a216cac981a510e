// SPDX-License-Identifier: ISC
/*
 * meta.c - chmod, fchmod, fchmodat and utimensat (by path and by fd), done
 * by the supervisor for the landlock backend's command (seccomp_unotify(2));
 * file locks go to unotify.c, decided here (lock_ok).
 *
 * The call's arguments are the command's: its path is read once from its
 * memory and never again; its file is opened here, without following a
 * magic link, and must lie beneath one of the session's trees (the
 * workspace's copy, its home and tmp), where the command cannot bring a
 * host file (Landlock refuses links and renames from the host), and be the
 * caller's own.  The change is then made through that open file, never
 * the path.  Anything else fails with EPERM, as before.
 *
 * Runs in: the supervisor, which is outside the sandbox.
 * MUST: never let the kernel carry on with the command's call
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE would re-read its memory).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "meta.h"
#include "unotify.h"
#include "util.h"

struct call {
	int		 dirfd;		/* AT_FDCWD, or the command's fd */
	uint64_t	 path;		/* in the command's memory; 0: none */
	int		 fd;		/* fchmod: the command's fd */
	bool		 nofollow;
	bool		 chmod;		/* else utimensat */
	mode_t		 mode;
	uint64_t	 times;		/* utimensat: 0 for now */
};

static int
read_mem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)addr, len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	return n == (ssize_t)len ? 0 : -EFAULT;
}

/* A NUL-terminated path; read in pieces, as it may end near a page. */
static int
read_path(pid_t pid, uint64_t addr, char *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		size_t chunk = 256 - ((addr + got) % 256);
		struct iovec local, remote;
		ssize_t n;

		if (chunk > len - got)
			chunk = len - got;
		local = (struct iovec){ buf + got, chunk };
		remote = (struct iovec){ (void *)(addr + got), chunk };
		if ((n = process_vm_readv(pid, &local, 1, &remote, 1, 0)) <= 0)
			return -EFAULT;
		if (memchr(buf + got, '\0', (size_t)n))
			return 0;
		got += (size_t)n;
	}
	return -ENAMETOOLONG;
}

static int
decode(const struct seccomp_notif *r, struct call *c)
{
	memset(c, 0, sizeof(*c));
	c->dirfd = AT_FDCWD;
	c->fd = -1;
	switch (r->data.nr) {
#ifdef SYS_chmod
	case SYS_chmod:
		c->path = r->data.args[0];
		c->mode = (mode_t)r->data.args[1];
		c->chmod = true;
		return 0;
#endif
	case SYS_fchmodat:
		c->dirfd = (int)r->data.args[0];
		c->path = r->data.args[1];
		c->mode = (mode_t)r->data.args[2];
		c->chmod = true;
		return 0;
	case SYS_fchmod:
		c->fd = (int)r->data.args[0];
		c->mode = (mode_t)r->data.args[1];
		c->chmod = true;
		return 0;
	case SYS_utimensat:
		/* No path: futimens(), the times of the fd's file. */
		if (r->data.args[1] == 0)
			c->fd = (int)r->data.args[0];
		else
			c->dirfd = (int)r->data.args[0];
		c->path = r->data.args[1];
		c->times = r->data.args[2];
		c->nofollow = (r->data.args[3] & AT_SYMLINK_NOFOLLOW) != 0;
		if (r->data.args[3] & ~(uint64_t)AT_SYMLINK_NOFOLLOW)
			return -EINVAL;
		return 0;
	}
	return -ENOSYS;
}

/* The command's file, opened here: an O_PATH fd, or -errno. */
static int
open_target(pid_t pid, const struct call *c, const char *path)
{
	char proc[64];
	autoclose int dfd = -1;
	struct open_how how = { .flags = O_PATH | O_CLOEXEC |
	    (c->nofollow ? O_NOFOLLOW : 0), .resolve = RESOLVE_NO_MAGICLINKS };
	int fd;

	if (c->fd >= 0) {
		/* The fd's file, as the command holds it. */
		snprintf(proc, sizeof(proc), "/proc/%d/fd/%d", (int)pid, c->fd);
		return (fd = open(proc, O_PATH | O_CLOEXEC)) < 0 ? -errno : fd;
	}
	if (c->dirfd == AT_FDCWD)
		snprintf(proc, sizeof(proc), "/proc/%d/cwd", (int)pid);
	else
		snprintf(proc, sizeof(proc), "/proc/%d/fd/%d", (int)pid,
		    c->dirfd);
	if (path[0] != '/' && (dfd = open(proc, O_PATH | O_DIRECTORY |
	    O_CLOEXEC)) < 0)
		return -errno;
	fd = (int)syscall(SYS_openat2, path[0] == '/' ? AT_FDCWD : dfd, path,
	    &how, sizeof(how));
	return fd < 0 ? -errno : fd;
}

/* Is fd's file beneath a root, and the caller's own? */
static int
allowed(int fd, char *const *roots, uid_t uid)
{
	char link[64], where[PATH_MAX];
	struct stat st;
	ssize_t n;
	size_t i;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((n = readlink(link, where, sizeof(where) - 1)) < 0)
		return -EPERM;
	where[n] = '\0';
	if (fstat(fd, &st) < 0 || st.st_uid != uid || S_ISLNK(st.st_mode))
		return -EPERM;
	for (i = 0; roots[i]; i++)
		if (path_has_prefix(where, roots[i]))
			return 0;
	return -EPERM;
}

static int
handle(int listener, const struct seccomp_notif *r, char *const *roots,
    uid_t uid)
{
	char path[PATH_MAX], link[64];
	struct timespec ts[2];
	struct call c;
	autoclose int fd = -1;
	int e;

	if ((e = decode(r, &c)) < 0)
		return e;
	if (c.fd < 0 && (c.path == 0 ||
	    (e = read_path(r->pid, c.path, path, sizeof(path))) < 0))
		return c.path == 0 ? -EFAULT : e;
	if (c.times && read_mem(r->pid, c.times, ts, sizeof(ts)) < 0)
		return -EFAULT;
	/* What was read was the command's, while it waited: still so? */
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &r->id) < 0)
		return -ESRCH;
	if ((fd = open_target(r->pid, &c, c.fd >= 0 ? "" : path)) < 0)
		return fd == -ENOENT || fd == -ENOTDIR || fd == -ELOOP ||
		    fd == -ENAMETOOLONG ? fd : -EPERM;
	if ((e = allowed(fd, roots, uid)) < 0)
		return e;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	/* No setuid or setgid bit: a copy has no use for them. */
	if (c.chmod)
		return chmod(link, c.mode & 01777) < 0 ? -errno : 0;
	return utimensat(AT_FDCWD, link, c.times ? ts : NULL, 0) < 0 ?
	    -errno : 0;
}

/* A lock on fd's file: beneath a root, or no file of the host's tree (a
 * pipe, a socket); a host file's lock would block host programs. */
static int
lock_ok(int fd, void *arg)
{
	char *const *roots = arg;
	char link[64], where[PATH_MAX];
	struct stat st;
	ssize_t n;
	size_t i;

	if (fstat(fd, &st) < 0)
		return -EBADF;
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((n = readlink(link, where, sizeof(where) - 1)) < 0)
		return -EPERM;
	where[n] = '\0';
	for (i = 0; roots[i]; i++)
		if (path_has_prefix(where, roots[i]))
			return 0;
	return -EPERM;
}

int
meta_answer(int listener, char *const *roots, uid_t uid)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;

	memset(&req, 0, sizeof(req));
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
		return errno == EINTR || errno == ENOENT ? 0 : -errno;
	if (unotify_lock(listener, &req, lock_ok, (void *)roots))
		return 0;
	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	resp.error = handle(listener, &req, roots, uid);
	/* ENOENT: the command was killed meanwhile; nothing to answer. */
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0 &&
	    errno != ENOENT)
		return -errno;
	return 0;
}
