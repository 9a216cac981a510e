// SPDX-License-Identifier: ISC
/*
 * mount.c - build the new root (mount(2), pivot_root(2), mount_setattr(2)).
 *
 * The layout follows bubblewrap: a private tmpfs becomes the root, the host
 * root is moved under it at /oldroot, the sandbox's root is assembled at
 * /newroot from /oldroot, then /newroot becomes the root and everything
 * else is detached.
 *
 * Runs in: the sandbox's first process, before Landlock and seccomp.
 * MUST: fail on any mount that does not apply; never skip one, except a
 * socket mask whose socket is gone.
 * MUST: reach mount targets one component at a time, refusing symlinks, and
 * mount through /proc/self/fd, so no path is followed out of the new root.
 */
#include "config.h"

#include <errno.h>
#include <linux/magic.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mount.h"
#include "sys.h"
#include "util.h"

#define OLDROOT	"/oldroot"
#define NEWROOT	"/newroot"
#define MASK	"/mask"

static int newroot_fd = -1;
static const struct plan_mount *first_mount;

/* The path through which mount(2) reaches an fd, via the host's procfs. */
static const char *
fdpath(int fd)
{
	static char buf[2][64];
	static int i;

	i ^= 1;
	snprintf(buf[i], sizeof(buf[i]), OLDROOT "/proc/self/fd/%d", fd);
	return buf[i];
}

/*
 * Open path (absolute, in the new root) as O_PATH, one component at a
 * time without following symlinks; with mkdirs, make missing directories.
 */
static int
walk(const char *path, bool mkdirs)
{
	autofree char *copy = xstrdup(path);
	char *comp, *save = NULL;
	int fd, next;
	struct stat st;

	if ((fd = dup(newroot_fd)) < 0)
		return -errno;
	for (comp = strtok_r(copy, "/", &save); comp;
	    comp = strtok_r(NULL, "/", &save)) {
		next = openat(fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && mkdirs) {
			if (mkdirat(fd, comp, 0755) < 0 && errno != EEXIST) {
				close(fd);
				return -errno;
			}
			next = openat(fd, comp, O_PATH | O_NOFOLLOW |
			    O_CLOEXEC);
		}
		close(fd);
		if (next < 0)
			return -errno;
		fd = next;
		if (fstat(fd, &st) < 0) {
			close(fd);
			return -errno;
		}
		if (S_ISLNK(st.st_mode)) {
			close(fd);
			return -ELOOP;
		}
	}
	return fd;
}

static int
set_attr(int fd, uint64_t set, bool recursive)
{
	struct confine_mount_attr attr = { .attr_set = set };

	if (sys_mount_setattr(fd, "", AT_EMPTY_PATH |
	    (recursive ? AT_RECURSIVE : 0), &attr, sizeof(attr)) < 0)
		return -errno;
	return 0;
}

static int
mount_fs(const char *dst, bool mkdirs, const char *type, unsigned long flags,
    const char *data)
{
	autoclose int fd = -1;

	if ((fd = walk(dst, mkdirs)) < 0)
		return fd;
	if (mount(type, fdpath(fd), type, flags, data) < 0)
		return -errno;
	return 0;
}

static int
root(void)
{
	autoclose int fd = -1;

	if (mount(OLDROOT, NEWROOT, NULL, MS_BIND | MS_REC, NULL) < 0)
		return -errno;
	if ((fd = open(NEWROOT, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	newroot_fd = fd;
	fd = -1;
	return set_attr(newroot_fd, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NODEV, true);
}

/* Bind a path onto itself and make the copy read-only. */
static int
ro_self(const char *path)
{
	autoclose int fd = -1, top = -1;
	int r;

	if ((fd = walk(path, false)) < 0)
		return fd == -ENOENT ? 0 : fd;
	if (mount(fdpath(fd), fdpath(fd), NULL, MS_BIND | MS_REC, NULL) < 0)
		return -errno;
	if ((top = walk(path, false)) < 0)
		return top;
	r = set_attr(top, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, true);
	return r;
}

static int
proc(const struct plan_mount *m)
{
	static const char *const ro[] = { "sys", "sysrq-trigger", "irq",
	    "bus" };
	size_t i;
	int r;

	if ((r = mount_fs(m->dst, false, "proc", MS_NOSUID | MS_NODEV |
	    MS_NOEXEC, NULL)) < 0)
		return r;
	for (i = 0; i < nitems(ro); i++) {
		autofree char *p = path_join(m->dst, ro[i]);

		if ((r = ro_self(p)) < 0)
			return r;
	}
	return 0;
}

static int
dev_node(int devfd, const char *name)
{
	autofree char *host = xasprintf(OLDROOT "/dev/%s", name);
	autoclose int src = -1, dst = -1;
	struct stat st;

	if ((src = open(host, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -errno;
	if (fstat(src, &st) < 0)
		return -errno;
	if (!S_ISCHR(st.st_mode))
		return -ENODEV;
	if ((dst = openat(devfd, name, O_CREAT | O_EXCL | O_WRONLY |
	    O_CLOEXEC, 0666)) < 0)
		return -errno;
	close(dst);
	if ((dst = openat(devfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -errno;
	if (mount(fdpath(src), fdpath(dst), NULL, MS_BIND, NULL) < 0)
		return -errno;
	return 0;
}

static int
dev(const struct plan_mount *m, char *const *nodes, const char **where)
{
	static const char *const links[][2] = {
		{ "/proc/self/fd", "fd" }, { "/proc/self/fd/0", "stdin" },
		{ "/proc/self/fd/1", "stdout" }, { "/proc/self/fd/2", "stderr" },
		{ "pts/ptmx", "ptmx" },
	};
	autoclose int devfd = -1, sub = -1;
	size_t i;
	int r;

	if ((r = mount_fs(m->dst, false, "tmpfs", MS_NOSUID | MS_NOEXEC,
	    "mode=0755")) < 0)
		return r;
	if ((devfd = walk(m->dst, false)) < 0)
		return devfd;
	/* An O_PATH fd cannot be used with mkdirat; get a real one. */
	r = openat(devfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(devfd);
	if ((devfd = r) < 0)
		return -errno;
	for (i = 0; nodes[i]; i++) {
		if ((r = dev_node(devfd, nodes[i])) < 0) {
			*where = nodes[i];
			return r;
		}
	}
	*where = "/dev/pts";
	if (mkdirat(devfd, "pts", 0755) < 0)
		return -errno;
	if ((sub = openat(devfd, "pts", O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -errno;
	if (mount("devpts", fdpath(sub), "devpts", MS_NOSUID | MS_NOEXEC,
	    "newinstance,ptmxmode=0666,mode=620") < 0)
		return -errno;
	close(sub);
	*where = "/dev/shm";
	if (mkdirat(devfd, "shm", 01777) < 0)
		return -errno;
	if ((sub = openat(devfd, "shm", O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -errno;
	if (mount("tmpfs", fdpath(sub), "tmpfs", MS_NOSUID | MS_NODEV |
	    MS_NOEXEC, "mode=1777") < 0)
		return -errno;
	*where = m->dst;
	for (i = 0; i < nitems(links); i++)
		if (symlinkat(links[i][0], devfd, links[i][1]) < 0)
			return -errno;
	/* Nothing new may appear in /dev itself; pts and shm stay writable. */
	return set_attr(devfd, MOUNT_ATTR_RDONLY, false);
}

/* overlayfs option values: escape the characters its parser splits on. */
static char *
ovl_escape(const char *prefix, const char *path)
{
	size_t n = strlen(prefix) + 2 * strlen(path) + 1;
	char *s = xmalloc(n), *o = s;

	o = stpcpy(o, prefix);
	for (; *path; path++) {
		if (*path == '\\' || *path == ',' || *path == ':')
			*o++ = '\\';
		*o++ = *path;
	}
	*o = '\0';
	return s;
}

static int
overlay(const struct plan_mount *m)
{
	autofree char *lower = ovl_escape(OLDROOT, m->src);
	autofree char *upper = ovl_escape(OLDROOT, m->upper);
	autofree char *work = ovl_escape(OLDROOT, m->work);
	/*
	 * volatile: no sync of the upper filesystem, not even at unmount
	 * (which would otherwise sync the whole host filesystem on every
	 * exit).  The session is scratch until exported; a host crash can
	 * lose it, never the host's tree.
	 */
	autofree char *opts = xasprintf("lowerdir=%s,upperdir=%s,workdir=%s,"
	    "userxattr,volatile", lower, upper, work);

	return mount_fs(m->dst, true, "overlay", MS_NOSUID | MS_NODEV, opts);
}


/*
 * The host's path, opened O_PATH under the old root: symlinks in the
 * user's own tree (a dotfile linked elsewhere) resolve inside it.
 */
static int
host_open(const char *path)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
	    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	autoclose int root = -1;
	int fd;

	if ((root = open(OLDROOT, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	if ((fd = (int)syscall(SYS_openat2, root, path, &how, sizeof(how))) < 0)
		return -errno;
	return fd;
}

/* A mount point for a file or a directory at dst, made where missing. */
static int
target(const char *dst, bool dir)
{
	autofree char *parent = xstrdup(dst);
	autoclose int pfd = -1;
	char *slash = strrchr(parent, '/');
	const char *name = slash + 1;
	int fd;

	if (dir)
		return walk(dst, true);
	*slash = '\0';
	if ((pfd = walk(parent[0] ? parent : "/", true)) < 0)
		return pfd;
	if ((fd = openat(pfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC)) >= 0 ||
	    errno != ENOENT)
		return fd < 0 ? -errno : fd;
	{
		autoclose int real = openat(pfd, ".", O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC);
		int c;

		if (real < 0)
			return -errno;
		if ((c = openat(real, name, O_CREAT | O_EXCL | O_WRONLY |
		    O_CLOEXEC, 0600)) < 0)
			return -errno;
		close(c);
		if ((fd = openat(real, name, O_PATH | O_NOFOLLOW |
		    O_CLOEXEC)) < 0)
			return -errno;
	}
	return fd;
}

/* Show the host's path again, read-only or (direct) writable. */
static int
bind_host(const struct plan_mount *m, bool writable)
{
	autoclose int src = -1, dst = -1, top = -1;
	struct stat st;

	if ((src = host_open(m->dst)) < 0)
		/* Nothing to show; but a direct path must exist. */
		return src == -ENOENT && !writable ? 0 : src;
	if (fstat(src, &st) < 0)
		return -errno;
	if (m->file_only && !S_ISREG(st.st_mode))
		return -EISDIR;
	if ((dst = target(m->dst, S_ISDIR(st.st_mode))) < 0)
		return dst;
	if (mount(fdpath(src), fdpath(dst), NULL, MS_BIND | MS_REC, NULL) < 0)
		return -errno;
	if ((top = walk(m->dst, false)) < 0)
		return top;
	return set_attr(top, (writable ? 0 : MOUNT_ATTR_RDONLY) |
	    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, true);
}

/*
 * Cover dst (an fd of it): an empty read-only tmpfs over a directory, the
 * empty mask file over anything else.
 */
static int
cover(int fd, const struct stat *st, const char *dst)
{
	autoclose int top = -1;

	if (S_ISDIR(st->st_mode)) {
		if (mount("tmpfs", fdpath(fd), "tmpfs", MS_NOSUID | MS_NODEV |
		    MS_NOEXEC, "mode=0755") < 0)
			return -errno;
	} else if (mount(MASK, fdpath(fd), NULL, MS_BIND, NULL) < 0)
		return -errno;
	if ((top = walk(dst, false)) < 0)
		return top;
	return set_attr(top, MOUNT_ATTR_RDONLY, false);
}

/* hide, and mask (a host socket): nothing there is nothing to cover. */
static int
hide(const struct plan_mount *m, bool sockets_only)
{
	autoclose int fd = -1;
	struct stat st;

	/*
	 * The plan lists sockets seen at start-up; one may be gone since.  A
	 * socket in a directory this user cannot search (another user's,
	 * seen by root) the command cannot reach either: nothing to cover.
	 */
	if ((fd = walk(m->dst, false)) < 0)
		return fd == -ENOENT || (sockets_only && fd == -EACCES) ? 0 :
		    fd;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (sockets_only && !S_ISSOCK(st.st_mode))
		return 0;
	return cover(fd, &st, m->dst);
}

/*
 * A sysfs of this network namespace shows its interfaces only (lo); the
 * kernel allows it in a user namespace that owns the network namespace,
 * unless the host's sysfs is partly covered (a container's masks).  Then
 * cover the host's net directories: class/net, devices/virtual/net and
 * each device's; an interface plugged in later under a new device shows.
 */
static int
sysfs(const struct plan_mount *m)
{
	char **dirs;
	size_t i;
	int r;

	r = mount_fs(m->dst, false, "sysfs", MS_RDONLY | MS_NOSUID | MS_NODEV |
	    MS_NOEXEC, NULL);
	if (r != -EPERM && r != -EACCES)
		return r;
	dirs = sys_net_dirs(OLDROOT "/sys");
	for (i = 0, r = 0; dirs[i] && r == 0; i++) {
		struct plan_mount h = { .kind = PLAN_MOUNT_HIDE,
		    .dst = dirs[i] };

		r = hide(&h, false);
	}
	strv_free(dirs);
	return r;
}

/* Copy a host file into the staging tmpfs, for a scratch file. */
static int
copy_file(int src, const char *name)
{
	autoclose int in = -1, out = -1;
	char buf[65536];
	ssize_t n;

	/* Reopen the O_PATH fd for reading through the host's procfs. */
	if ((in = open(fdpath(src), O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	if ((out = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) < 0)
		return -errno;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			return -EIO;
	return n < 0 ? -errno : 0;
}

/* Is the nearest existing ancestor of path, in the new root, a tmpfs? */
static bool
in_tmpfs(const char *path)
{
	autofree char *p = xstrdup(path);
	struct statfs sf;
	char *slash;
	int fd;

	while ((slash = strrchr(p, '/')) != NULL) {
		*slash = '\0';
		if ((fd = walk(p[0] ? p : "/", false)) >= 0) {
			bool tmpfs = fstatfs(fd, &sf) == 0 &&
			    sf.f_type == TMPFS_MAGIC;

			close(fd);
			return tmpfs;
		}
		if (fd != -ENOENT)
			return false;
	}
	return false;
}

static int
scratch(const struct plan_mount *m, unsigned int index)
{
	autoclose int src = -1, dst = -1;
	autofree char *opts = NULL, *upper = NULL, *work = NULL, *copy = NULL;
	struct stat st;
	int r;

	if ((src = host_open(m->dst)) < 0) {
		if (src != -ENOENT)
			return src;
		/*
		 * Missing on the host.  In a tmpfs of the sandbox (the home):
		 * nothing to do, it is scratch already, and the command makes
		 * it a file or a directory as it likes.  Elsewhere an empty
		 * writable directory; in a read-only part of the host, EROFS
		 * says to create it there.
		 */
		if (in_tmpfs(m->dst))
			return 0;
		return mount_fs(m->dst, true, "tmpfs", MS_NOSUID | MS_NODEV,
		    "mode=0700");
	}
	if (fstat(src, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode)) {
		upper = ovl_escape(OLDROOT, m->upper);
		work = ovl_escape(OLDROOT, m->work);
		opts = xasprintf("lowerdir=%s,upperdir=%s,workdir=%s,userxattr,"
		    "volatile", fdpath(src), upper, work);
		return mount_fs(m->dst, true, "overlay", MS_NOSUID | MS_NODEV,
		    opts);
	}
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	copy = xasprintf("/scratch-%u", index);
	if ((r = copy_file(src, copy)) < 0)
		return r;
	if ((dst = target(m->dst, false)) < 0)
		return dst;
	if (mount(copy, fdpath(dst), NULL, MS_BIND, NULL) < 0)
		return -errno;
	return 0;
}

static int
apply(const struct plan_mount *m, char *const *nodes, const char **where)
{
	char mode[32];

	*where = m->dst;
	switch (m->kind) {
	case PLAN_MOUNT_ROOT:
		return root();
	case PLAN_MOUNT_PROC:
		return proc(m);
	case PLAN_MOUNT_DEV:
		return dev(m, nodes, where);
	case PLAN_MOUNT_SYSFS:
		return sysfs(m);
	case PLAN_MOUNT_TMPFS:
		snprintf(mode, sizeof(mode), "mode=%04o", m->mode);
		return mount_fs(m->dst, true, "tmpfs", MS_NOSUID | MS_NODEV |
		    (m->exec ? 0 : MS_NOEXEC), mode);
	case PLAN_MOUNT_OVERLAY:
		return overlay(m);
	case PLAN_MOUNT_MASK:
		return hide(m, true);
	case PLAN_MOUNT_BIND_RO:
		return bind_host(m, false);
	case PLAN_MOUNT_BIND_RW:
		return bind_host(m, true);
	case PLAN_MOUNT_SCRATCH:
		return scratch(m, (unsigned int)(m - first_mount));
	case PLAN_MOUNT_HIDE:
		return hide(m, false);
	case PLAN_MOUNT_COPY:
	case PLAN_MOUNT_LINK:
		/* The other backends' (policy.c never plans them here). */
		break;
	}
	return -EINVAL;
}

int
mount_setup(const struct plan_mounts *ms, const char **where)
{
	autoclose int fd = -1;
	size_t i;
	int r;

	/* Nothing we mount may propagate back to the host. */
	*where = "make / private";
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -errno;
	*where = "the staging tmpfs";
	if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,
	    "mode=0755") < 0)
		return -errno;
	if (chdir("/tmp") < 0 || mkdir("newroot", 0755) < 0 ||
	    mkdir("oldroot", 0755) < 0)
		return -errno;
	if ((fd = open("mask", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC,
	    0)) < 0)
		return -errno;
	*where = "pivot_root to the staging tmpfs";
	if (sys_pivot_root(".", "oldroot") < 0 || chdir("/") < 0)
		return -errno;

	if (ms->n == 0 || ms->v[0].kind != PLAN_MOUNT_ROOT)
		return -EINVAL;
	first_mount = ms->v;
	for (i = 0; i < ms->n; i++)
		if ((r = apply(&ms->v[i], ms->dev_nodes, where)) < 0)
			return r;

	/*
	 * pivot_root(".", ".") stacks the old root on top of the new one;
	 * detaching it drops the host's tree from this namespace
	 * (pivot_root(2), NOTES).
	 */
	*where = "pivot_root to the new root";
	if (fchdir(newroot_fd) < 0 || sys_pivot_root(".", ".") < 0)
		return -errno;
	if (umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
		return -errno;
	close(newroot_fd);
	newroot_fd = -1;
	return 0;
}
