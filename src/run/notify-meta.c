// SPDX-License-Identifier: ISC
/*
 * run/notify-meta.c - chmod, fchmod, fchmodat, utimensat (by path and by fd), the
 * xattr(7) setters and removers and the inode flag ioctls, done by the
 * supervisor for the landlock backend's command (seccomp_unotify(2)); file
 * locks go to run/notify.c, decided here (lock_ok); the calls that name a
 * process by pid, decided here (pid_call).
 *
 * The call's arguments are the command's: its path is read once from its
 * memory and never again; its file is opened here, without following a
 * magic link, and must lie beneath one of the session's trees (the
 * workspace's copy, its home and tmp), where the command cannot bring a
 * host file (Landlock refuses links and renames from the host), and be the
 * caller's own.  The change is then made through that open file, never
 * the path; an ioctl through the command's own open file description
 * (pidfd_getfd(2)).  Anything else fails with EPERM, as before.
 *
 * With no pid namespace, a pid may name any host process: a call naming
 * one goes on only when its target is the session's, a descendant of the
 * keeper (a subreaper, so every orphan of the session stays below it).
 *
 * Runs in: the supervisor, which is outside the sandbox.
 * MUST: never let the kernel carry on with a call whose decision read the
 * command's memory (SECCOMP_USER_NOTIF_FLAG_CONTINUE would read it again);
 * the pid calls carry on, decided on a register only.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <linux/fs.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "lib/fdio.h"
#include "lib/sys.h"
#include "lib/util.h"
#include "run/notify-meta.h"
#include "run/notify.h"

struct call {
	int		 dirfd;		/* AT_FDCWD, or the command's fd */
	uint64_t	 path;		/* in the command's memory; 0: none */
	int		 fd;		/* fchmod: the command's fd */
	bool		 nofollow;
	bool		 chmod;		/* else utimensat */
	mode_t		 mode;
	uint64_t	 times;		/* utimensat: 0 for now */
};

/* len bytes of the command's memory: untrusted (lib/untrusted.h). */
static int
read_mem(pid_t pid, uint64_t addr, void *untrusted_buf, size_t len)
{
	struct iovec local = { untrusted_buf, len },
	    remote = { (void *)addr, len };
	/* Bounded: len, each caller's sizeof or checked length. */
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	return n == (ssize_t)len ? 0 : -EFAULT;
}

/*
 * A NUL-terminated path of the command's, at most len bytes with its NUL;
 * read in pieces, as it may end near a page.
 */
static int
read_path(pid_t pid, uint64_t addr, char *untrusted_buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		size_t chunk = 256 - ((addr + got) % 256);
		struct iovec local, remote;
		ssize_t n;

		if (chunk > len - got)
			chunk = len - got;
		local = (struct iovec){ untrusted_buf + got, chunk };
		remote = (struct iovec){ (void *)(addr + got), chunk };
		/* Bounded: chunk, at most len - got. */
		if ((n = process_vm_readv(pid, &local, 1, &remote, 1, 0)) <= 0)
			return -EFAULT;
		if (memchr(untrusted_buf + got, '\0', (size_t)n))
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
open_target(pid_t pid, const struct call *c, const char *untrusted_path)
{
	char proc[64];
	autoclose int dfd = -1;
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
	if (untrusted_path[0] != '/' && (dfd = open(proc, O_PATH |
	    O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	return fd_open_at(untrusted_path[0] == '/' ? AT_FDCWD : dfd,
	    untrusted_path, O_PATH | (c->nofollow ? O_NOFOLLOW : 0), 0,
	    FD_NO_MAGICLINKS);
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

/*
 * After what was read from the command: is the notification still its
 * (what was read was the command's while it waited), and is the file it
 * names beneath a root and the caller's own?  Its O_PATH fd into *fd and
 * a /proc/self/fd link to it into link, or -errno.
 */
static int
target(int listener, const struct seccomp_notif *r, const struct call *c,
    const char *untrusted_path, char *const *roots, uid_t uid, int *fd,
    char link[64])
{
	int e;

	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &r->id) < 0)
		return -ESRCH;
	if ((*fd = open_target(r->pid, c, c->fd >= 0 ? "" :
	    untrusted_path)) < 0)
		return *fd == -ENOENT || *fd == -ENOTDIR || *fd == -ELOOP ||
		    *fd == -ENAMETOOLONG ? *fd : -EPERM;
	if ((e = allowed(*fd, roots, uid)) < 0)
		return e;
	snprintf(link, 64, "/proc/self/fd/%d", *fd);
	return 0;
}

static int
handle(int listener, const struct seccomp_notif *r, char *const *roots,
    uid_t uid)
{
	char untrusted_path[PATH_MAX], link[64];
	struct timespec untrusted_ts[2];
	struct call c;
	autoclose int fd = -1;
	int e;

	if ((e = decode(r, &c)) < 0)
		return e;
	if (c.fd < 0 && (c.path == 0 ||
	    (e = read_path(r->pid, c.path, untrusted_path,
	    sizeof(untrusted_path))) < 0))
		return c.path == 0 ? -EFAULT : e;
	if (c.times && read_mem(r->pid, c.times, untrusted_ts,
	    sizeof(untrusted_ts)) < 0)
		return -EFAULT;
	if ((e = target(listener, r, &c, untrusted_path, roots, uid, &fd,
	    link)) < 0)
		return e;
	/* No setuid or setgid bit: a copy has no use for them. */
	if (c.chmod)
		return chmod(link, c.mode & 01777) < 0 ? -errno : 0;
	return utimensat(AT_FDCWD, link, c.times ? untrusted_ts : NULL, 0) < 0 ?
	    -errno : 0;
}

/* --- extended attributes and inode flags --- */

#ifndef XATTR_NAME_MAX
#define XATTR_NAME_MAX	255
#endif
#ifndef XATTR_SIZE_MAX
#define XATTR_SIZE_MAX	65536
#endif

/*
 * The names the command's own uid could set: user.* and the ACLs (which
 * need ownership only).  trusted.* and security.* need privileges the
 * supervisor may have (root) and the command must not borrow.
 */
static bool
xattr_name_ok(const char *untrusted_name)
{
	return strncmp(untrusted_name, "user.", 5) == 0 ||
	    streq(untrusted_name, "system.posix_acl_access") ||
	    streq(untrusted_name, "system.posix_acl_default");
}

static bool
is_xattr_call(int nr)
{
	return nr == SYS_setxattr || nr == SYS_lsetxattr ||
	    nr == SYS_fsetxattr || nr == SYS_removexattr ||
	    nr == SYS_lremovexattr || nr == SYS_fremovexattr;
}

/* setxattr(2) and removexattr(2), by path (l*: the link's) or by fd. */
static int
xattr_call(int listener, const struct seccomp_notif *r, char *const *roots,
    uid_t uid)
{
	char untrusted_path[PATH_MAX], untrusted_name[XATTR_NAME_MAX + 1];
	char link[64];
	struct call c = { .dirfd = AT_FDCWD, .fd = -1 };
	int nr = (int)r->data.nr, flags = 0, e;
	bool set = nr == SYS_setxattr || nr == SYS_lsetxattr ||
	    nr == SYS_fsetxattr;
	autofree char *untrusted_value = NULL;
	autoclose int fd = -1;
	size_t size = 0;

	c.nofollow = nr == SYS_lsetxattr || nr == SYS_lremovexattr;
	if (nr == SYS_fsetxattr || nr == SYS_fremovexattr)
		c.fd = (int)r->data.args[0];
	else if ((e = read_path(r->pid, r->data.args[0], untrusted_path,
	    sizeof(untrusted_path))) < 0)
		return e;
	if ((e = read_path(r->pid, r->data.args[1], untrusted_name,
	    sizeof(untrusted_name))) < 0)
		return e == -ENAMETOOLONG ? -ERANGE : e;
	if (set) {
		/* Read once, bounded like the kernel's own. */
		if ((size = (size_t)r->data.args[3]) > XATTR_SIZE_MAX)
			return -E2BIG;
		flags = (int)r->data.args[4];
		untrusted_value = xmalloc(size + 1);
		/* Bounded: size is at most XATTR_SIZE_MAX, checked above. */
		if (size && read_mem(r->pid, r->data.args[2], untrusted_value,
		    size) < 0)
			return -EFAULT;
	}
	if (!xattr_name_ok(untrusted_name))
		return -EPERM;
	if ((e = target(listener, r, &c, untrusted_path, roots, uid, &fd,
	    link)) < 0)
		return e;
	if (set)
		return setxattr(link, untrusted_name, untrusted_value, size,
		    flags) < 0 ? -errno : 0;
	return removexattr(link, untrusted_name) < 0 ? -errno : 0;
}

/* What only a capability may change: immutable, append-only, project. */
#define FLAGS_PRIV	(FS_IMMUTABLE_FL | FS_APPEND_FL)
#define XFLAGS_PRIV	(FS_XFLAG_IMMUTABLE | FS_XFLAG_APPEND)

/*
 * FS_IOC_SETFLAGS and FS_IOC_FSSETXATTR (chattr(1)) on the command's open
 * file description, taken here: what is checked is what is changed.  The
 * argument is read once; a change only a capability could make (the
 * supervisor may be root, the command has none) is refused.
 */
static int
flags_call(int listener, const struct seccomp_notif *r, char *const *roots,
    uid_t uid)
{
	unsigned long cmd = (unsigned long)(r->data.args[1] & 0xffffffffU);
	struct fsxattr untrusted_nx, ox;
	autoclose int fd = -1;
	int untrusted_nf, of, e;

	if ((fd = unotify_take_fd(r->pid, (int)r->data.args[0])) < 0)
		return fd;
	if (cmd == FS_IOC_FSSETXATTR) {
		if (read_mem(r->pid, r->data.args[2], &untrusted_nx,
		    sizeof(untrusted_nx)) < 0)
			return -EFAULT;
	} else if (read_mem(r->pid, r->data.args[2], &untrusted_nf,
	    sizeof(untrusted_nf)) < 0)
		return -EFAULT;
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &r->id) < 0)
		return -ESRCH;
	if ((e = allowed(fd, roots, uid)) < 0)
		return e;
	if (cmd == FS_IOC_FSSETXATTR) {
		if (ioctl(fd, FS_IOC_FSGETXATTR, &ox) < 0)
			return -errno;
		if (((untrusted_nx.fsx_xflags ^ ox.fsx_xflags) & XFLAGS_PRIV) ||
		    untrusted_nx.fsx_projid != ox.fsx_projid)
			return -EPERM;
		return ioctl(fd, FS_IOC_FSSETXATTR, &untrusted_nx) < 0 ?
		    -errno : 0;
	}
	if (ioctl(fd, FS_IOC_GETFLAGS, &of) < 0)
		return -errno;
	if ((untrusted_nf ^ of) & FLAGS_PRIV)
		return -EPERM;
	return ioctl(fd, FS_IOC_SETFLAGS, &untrusted_nf) < 0 ? -errno : 0;
}

/* --- calls that name a process --- */

/* A bound on the walk up to the keeper (a session's chain of processes
 * is bounded by the user's process limit, this is one more). */
#define DEPTH_MAX	(1L << 22)

/* The parent's pid (its thread group's) of the task /proc dir dfd; 0 at
 * the top, -1 when the task is gone. */
static pid_t
read_ppid(int dfd)
{
	char buf[2048], *p;
	autoclose int fd = openat(dfd, "status", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0 || (n = read(fd, buf, sizeof(buf) - 1)) <= 0)
		return -1;
	buf[n] = '\0';
	if ((p = strstr(buf, "\nPPid:\t")) == NULL)
		return -1;
	return (pid_t)strtol(p + 7, NULL, 10);
}

/*
 * Is the task of /proc dir target below the keeper?  Walked up by PPid,
 * a link at a time: the child's parent is read again after the parent's
 * /proc dir is opened, and a parent that has not exited (its children
 * would have been re-parented) still has its pid, so the dir opened is
 * it.  Being below the keeper never changes (a child is born below its
 * parent, an orphan goes up to a subreaper or init): links checked one
 * after the other make a true answer.  A dir of a task gone fails every
 * read, so the target still there at the end still has its pid.
 */
static bool
below_keeper(int target, pid_t keeper)
{
	char proc[32];
	int cur = -1, at, up;
	pid_t ppid;
	long depth;
	bool below = false;

	for (depth = 0; depth < DEPTH_MAX; depth++) {
		at = cur >= 0 ? cur : target;
		if ((ppid = read_ppid(at)) <= 0)
			break;
		if (ppid == keeper) {
			below = true;
			break;
		}
		snprintf(proc, sizeof(proc), "/proc/%d", (int)ppid);
		if ((up = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
			break;
		if (read_ppid(at) != ppid) {
			close(up);
			break;
		}
		if (cur >= 0)
			close(cur);
		cur = up;
	}
	if (cur >= 0)
		close(cur);
	return below && read_ppid(target) > 0;
}

/* The session's, not the keeper: a /proc dir of it (O_PATH), or -1. */
static int
session_task(pid_t pid, pid_t keeper)
{
	char proc[32];
	int dfd, i;

	if (pid <= 0 || pid == keeper)
		return -1;
	snprintf(proc, sizeof(proc), "/proc/%d", (int)pid);
	if ((dfd = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	/* An orphan moving up to the keeper meanwhile: try again. */
	for (i = 0; i < 3; i++)
		if (below_keeper(dfd, keeper))
			return dfd;
	close(dfd);
	return -1;
}

#ifndef SYS_pidfd_open
#define SYS_pidfd_open	434
#endif

/*
 * pidfd_open(2): the pidfd is made here, of the task whose /proc dir was
 * opened first and checked (still there at the end: the same pid), and
 * put in the command's table as the call's answer (SECCOMP_ADDFD_FLAG_SEND)
 * — nothing the kernel looks up again.  1: answered.
 */
static int
pidfd_call(int listener, const struct seccomp_notif *r, pid_t keeper)
{
	pid_t pid = (pid_t)r->data.args[0];
	struct seccomp_notif_addfd a = { .id = r->id,
	    .flags = SECCOMP_ADDFD_FLAG_SEND, .newfd_flags = O_CLOEXEC };
	char proc[32];
	autoclose int dfd = -1, pfd = -1;

	if (pid <= 0 || r->data.args[0] > INT_MAX)
		return -EINVAL;
	snprintf(proc, sizeof(proc), "/proc/%d", (int)pid);
	if ((dfd = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -ESRCH;
	if ((pfd = sys_pidfd_open(pid, (unsigned)r->data.args[1])) < 0)
		return -errno;
	if (pid == keeper || !below_keeper(dfd, keeper))
		return -EPERM;
	a.srcfd = (uint32_t)pfd;
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a) < 0)
		return errno == ENOENT ? 1 : -errno;
	return 1;
}

/*
 * prlimit64, the sched_* calls, get/setpriority and ioprio_get/set with a
 * pid (the filter sends only those, never pid 0): 1, go on, when the
 * target is the session's.  The pid is a register of the call: the kernel
 * reads what was checked.  What remains: the target exits and its pid
 * comes round to a host process between this answer and the kernel's
 * lookup (pid_max pids later, in microseconds).
 */
static int
pid_call(const struct seccomp_notif *r, pid_t keeper)
{
	int nr = (int)r->data.nr, dfd;
	pid_t pid = (pid_t)r->data.args[0];

	if (nr == SYS_setpriority || nr == SYS_getpriority ||
	    nr == SYS_ioprio_set || nr == SYS_ioprio_get)
		pid = (pid_t)r->data.args[1];
	if ((dfd = session_task(pid, keeper)) < 0)
		/* glibc's pthread_getattr_np takes ENOSYS as no affinity. */
		return nr == SYS_sched_getaffinity ? -ENOSYS : -EPERM;
	close(dfd);
	return 1;
}

static bool
is_pid_call(int nr)
{
	switch (nr) {
	case SYS_prlimit64: case SYS_sched_setaffinity:
	case SYS_sched_getaffinity: case SYS_sched_setscheduler:
	case SYS_sched_setparam: case SYS_sched_getscheduler:
	case SYS_sched_getparam: case SYS_sched_setattr:
	case SYS_sched_getattr: case SYS_sched_rr_get_interval:
	case SYS_setpriority: case SYS_getpriority:
	case SYS_ioprio_set: case SYS_ioprio_get:
		return true;
	}
	return false;
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
meta_answer(int listener, struct unotify_jobs *jobs, char *const *roots,
    uid_t uid, pid_t keeper)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	int nr, e;

	memset(&req, 0, sizeof(req));
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
		return errno == EINTR || errno == ENOENT ? 0 : -errno;
	if (unotify_lock(jobs, listener, &req, lock_ok, (void *)roots))
		return 0;
	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	nr = (int)req.data.nr;
	if (is_pid_call(nr))
		e = pid_call(&req, keeper);
	else if (nr == SYS_pidfd_open)
		e = pidfd_call(listener, &req, keeper);
	else if (is_xattr_call(nr))
		e = xattr_call(listener, &req, roots, uid);
	else if (nr == SYS_ioctl)
		e = flags_call(listener, &req, roots, uid);
	else
		e = handle(listener, &req, roots, uid);
	if (e > 0 && nr == SYS_pidfd_open)
		return 0;	/* answered with the fd */
	if (e > 0)
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	else
		resp.error = e;
	/* ENOENT: the command was killed meanwhile; nothing to answer. */
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0 &&
	    errno != ENOENT)
		return -errno;
	return 0;
}
