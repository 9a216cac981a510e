// SPDX-License-Identifier: ISC
/*
 * enforce/mounts.c - build the new root (mount(2), pivot_root(2), mount_setattr(2)).
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
 * MUST: bound every tmpfs it makes with the plan's size= and nr_inodes=.
 * MUST: show the host's trees read-only through overlayfs (no upper layer),
 * never a plain bind: a socket, a FIFO, a lock or a lease reached through
 * an overlay is the overlay inode's, not the host's, so no host service
 * listening on a path, and no host program taking a lock, can be reached
 * or blocked from inside, whenever its socket was bound.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/magic.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "enforce/mounts.h"
#include "lib/fdio.h"
#include "lib/sys.h"
#include "lib/util.h"

#define OLDROOT	"/oldroot"
#define NEWROOT	"/newroot"
#define MASK	"/mask"
#define EMPTY	"/empty"	/* the second lower layer of a read-only overlay */
#define STAGE	"/stage"	/* overlays whose files are bound elsewhere */

/* A file shown on its own is copied into the sandbox up to this size. */
#define COPY_MAX	(1 << 20)


/*
 * The new root as it is built: mount_setup()'s, in its frame, handed to
 * every step; nothing of it outlives the call.
 */
struct mnt {
	const struct plan_mounts *plan;
	int		 newroot;	/* NEWROOT, O_PATH; -1 before */
	bool		 empty_root;	/* the allow-list view: a tmpfs root */
	/* The host's mount points (under OLDROOT) and their types. */
	char		**hm_path;
	char		**hm_type;
	size_t		 nhm;
	/* Skeleton tmpfs mounts (directories holding a host mount point). */
	int		*skel;
	size_t		 nskel;
	unsigned int	 nstage;	/* the next name in STAGE */
	/* The plan's fresh sysfs, mounted where the host's /sys is met
	 * (sysfs_early()): 1 mounted, -errno refused, 0 not tried. */
	int		 sysfs;
	char		*hint;		/* why a step failed, for the user */
};

/*
 * The path through which mount(2) reaches an fd, via the host's procfs:
 * returned by value, used as fdpath(fd).s within one expression.
 */
struct fdpath {
	char	s[64];
};

static struct fdpath
fdpath(int fd)
{
	struct fdpath p;

	snprintf(p.s, sizeof(p.s), OLDROOT "/proc/self/fd/%d", fd);
	return p;
}

/*
 * Open path (absolute, in the new root) as O_PATH, one component at a
 * time without following symlinks; with mkdirs, make missing directories.
 */
static int
walk(struct mnt *mc, const char *path, bool mkdirs)
{
	autofree char *copy = xstrdup(path);
	char *comp, *save = NULL;
	int fd, next;
	struct stat st;

	if ((fd = dup(mc->newroot)) < 0)
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

/*
 * A tmpfs's options: its mode, then the plan's bounds, the same on every
 * tmpfs of the sandbox, the staging one included (its files are bound
 * writable: scratch copies): size= the memory limit, nr_inodes= a bound
 * on the kernel memory its inodes take, which size= does not count
 * (confine(1), LIMITS).
 */
struct tmpfs_opts {
	char	s[96];
};

static struct tmpfs_opts
tmpfs_opts(const struct mnt *mc, const char *mode)
{
	const struct plan_mounts *ms = mc->plan;
	struct tmpfs_opts o;

	if (ms->tmpfs_size)
		snprintf(o.s, sizeof(o.s), "%s,size=%llu,nr_inodes=%llu", mode,
		    (unsigned long long)ms->tmpfs_size,
		    (unsigned long long)ms->tmpfs_inodes);
	else
		snprintf(o.s, sizeof(o.s), "%s", mode);
	return o;
}

static int
mount_fs(struct mnt *mc, const char *dst, bool mkdirs, const char *type,
    unsigned long flags, const char *data)
{
	autoclose int fd = -1;

	if ((fd = walk(mc, dst, mkdirs)) < 0)
		return fd;
	if (mount(type, fdpath(fd).s, type, flags, data) < 0)
		return -errno;
	return 0;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void
unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
			    (s[3] - '0'));
			s += 3;
		} else
			*o++ = *s;
	}
	*o = '\0';
}

/*
 * The host's mounts, as this namespace (a copy) has them: "ID PARENT
 * MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER".
 * The kernel writes it; the lines are still read with a bound.
 */
static int
host_mounts(struct mnt *mc)
{
	AUTO(fclose_p) FILE *f = NULL;
	autofree char *line = NULL;
	size_t cap = 0, n = 0, nt = 0;
	ssize_t len;

	mc->hm_path = xcalloc(1, sizeof(char *));
	mc->hm_type = xcalloc(1, sizeof(char *));
	if ((f = fopen(OLDROOT "/proc/self/mountinfo", "re")) == NULL)
		return -errno;
	while ((len = getline(&line, &cap, f)) > 0) {
		char *field[5], *dash, *save = NULL, *type;
		int i;

		if (len > 65536)
			return -E2BIG;
		if ((dash = strstr(line, " - ")) == NULL)
			return -EINVAL;
		*dash = '\0';
		field[0] = strtok_r(line, " ", &save);
		for (i = 1; i < 5 && field[i - 1]; i++)
			field[i] = strtok_r(NULL, " ", &save);
		save = NULL;
		type = strtok_r(dash + 3, " ", &save);
		if (i < 5 || field[4] == NULL || type == NULL)
			return -EINVAL;
		unescape(field[4]);
		strv_push(&mc->hm_path, &n, xstrdup(field[4]));
		strv_push(&mc->hm_type, &nt, xstrdup(type));
	}
	mc->nhm = n;
	return ferror(f) ? -EIO : 0;
}

/* Is a host mount point strictly below path (under OLDROOT)? */
static bool
mounts_below(struct mnt *mc, const char *path)
{
	size_t i;

	for (i = 0; i < mc->nhm; i++)
		if (path_has_prefix(mc->hm_path[i], path) &&
		    !streq(mc->hm_path[i], path))
			return true;
	return false;
}

/*
 * Kernel filesystems with no mknod, so no socket or FIFO can be bound in
 * them: bound as they are (with what is mounted below them, if it is of
 * the same kind).  A lock on one of their files is the host's (said in
 * SECURITY.md); host programs do not lock them.
 */
static bool
pseudo_fs(const char *type)
{
	static const char *const t[] = { "sysfs", "cgroup", "cgroup2",
	    "debugfs", "tracefs", "securityfs", "pstore", "bpf", "efivarfs",
	    "binfmt_misc", "configfs", "fusectl", "selinuxfs" };
	size_t i;

	for (i = 0; i < nitems(t); i++)
		if (streq(type, t[i]))
			return true;
	return false;
}

/* The type of the host mount holding path, or "". */
static const char *
mount_type(struct mnt *mc, const char *path)
{
	size_t i, best = 0, len = 0;

	for (i = 0; i < mc->nhm; i++)
		if (path_has_prefix(path, mc->hm_path[i]) &&
		    strlen(mc->hm_path[i]) >= len) {
			len = strlen(mc->hm_path[i]);
			best = i + 1;
		}
	return best ? mc->hm_type[best - 1] : "";
}

static bool
pseudo_tree(struct mnt *mc, const char *path)
{
	size_t i;

	if (!pseudo_fs(mount_type(mc, path)))
		return false;
	for (i = 0; i < mc->nhm; i++)
		if (path_has_prefix(mc->hm_path[i], path) &&
		    !pseudo_fs(mc->hm_type[i]))
			return false;
	return true;
}

/*
 * The host directory src (an fd) read-only at dst through an overlay
 * with no upper layer (overlayfs wants two lower layers then: the second
 * is empty).  EINVAL: the kernel refuses it as a lower layer (a file
 * system it does not support, or stacking too deep).
 */
static int
ro_overlay(struct mnt *mc, int src, int dst, const char *host)
{
	autofree char *opts = xasprintf("lowerdir=%s:" EMPTY, fdpath(src).s);

	if (mount("overlay", fdpath(dst).s, "overlay", MS_RDONLY | MS_NOSUID |
	    MS_NODEV, opts) < 0) {
		if (errno == EINVAL && mc->hint == NULL)
			mc->hint = xasprintf("'%s' cannot be a read-only "
			    "overlayfs lower layer here (a file system overlayfs "
			    "does not support, or overlays stacked too deep); "
			    "confine shows the host's trees only through one, "
			    "so that no host socket, lock or lease is reached",
			    host + strlen(OLDROOT));
		return -errno;
	}
	return 0;
}

/* Bind from (a path) at dst, then make it read-only (reached at in). */
static int
ro_bind(struct mnt *mc, const char *from, int dst, const char *in, bool rec)
{
	autoclose int top = -1;

	if (mount(from, fdpath(dst).s, NULL, MS_BIND | (rec ? MS_REC : 0),
	    NULL) < 0)
		return -errno;
	if ((top = walk(mc, in, false)) < 0)
		return top;
	return set_attr(top, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NODEV, rec);
}

/* A copy of the host's file (an O_PATH fd) at path, in the staging tmpfs. */
static int copy_file(int src, const char *name);

/*
 * The host's regular file, shown on its own at dst (an existing file):
 * through an overlay of its directory when it has no mount point below;
 * else a copy up to COPY_MAX; else, the last resort, a read-only bind
 * (its locks are the host's: said in SECURITY.md).
 */
static int
show_file(struct mnt *mc, int src, const struct stat *st, int dst,
    const char *host, const char *in)
{
	autofree char *dir = xstrdup(host), *stage = NULL, *file = NULL;
	autoclose int pfd = -1, sfd = -1, ffd = -1;
	char *slash = strrchr(dir, '/');
	int r;

	*slash = '\0';
	if (!mounts_below(mc, dir) && (pfd = open(dir, O_PATH | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) >= 0) {
		stage = xasprintf(STAGE "/%u", mc->nstage++);
		if (mkdir(stage, 0700) < 0 ||
		    (sfd = open(stage, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
			return -errno;
		if ((r = ro_overlay(mc, pfd, sfd, dir)) < 0)
			return r;
		file = path_join(stage, slash + 1);
		if ((ffd = open(file, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0)
			return -errno;
		return ro_bind(mc, fdpath(ffd).s, dst, in, false);
	}
	if (st->st_size <= COPY_MAX) {
		file = xasprintf(STAGE "/%u", mc->nstage++);
		r = copy_file(src, file);
		/* Its mode (no set-id bits); the owner is the caller. */
		if (r == 0 && chmod(file, st->st_mode & 0777) < 0)
			r = -errno;
		if (r == 0)
			return ro_bind(mc, file, dst, in, false);
		/*
		 * Unreadable by this user: nothing inside can open it either,
		 * and a lock or a lease needs an open file.
		 */
		if (r != -EACCES)
			return r;
	}
	return ro_bind(mc, fdpath(src).s, dst, in, false);
}

/* Will a later mount of the plan replace dst whole (a fresh tree)? */
static bool
covered(struct mnt *mc, const char *dst)
{
	size_t i;

	for (i = 0; i < mc->plan->n; i++) {
		const struct plan_mount *m = &mc->plan->v[i];

		if ((m->kind == PLAN_MOUNT_PROC || m->kind == PLAN_MOUNT_DEV ||
		    m->kind == PLAN_MOUNT_TMPFS || m->kind == PLAN_MOUNT_HIDE) &&
		    streq(m->dst, dst))
			return true;
	}
	return false;
}

static int show_dir(struct mnt *mc, int src, int dst, const char *host,
    const char *in);

static const unsigned long sysfs_flags = MS_RDONLY | MS_NOSUID | MS_NODEV |
    MS_NOEXEC;

/*
 * The host's directory at dst (in the new root), about to be rebuilt: is
 * it where the plan mounts a fresh sysfs?  Then mount it now, in its
 * place: the host's /sys, a tree of kernel mounts, is rebuilt only when
 * the kernel refuses a new sysfs here (sysfs(), which then covers the
 * host's network directories).  True when mounted.
 */
static bool
sysfs_early(struct mnt *mc, const char *dst)
{
	size_t i;

	for (i = 0; i < mc->plan->n; i++) {
		const struct plan_mount *m = &mc->plan->v[i];

		if (m->kind != PLAN_MOUNT_SYSFS || !streq(m->dst, dst))
			continue;
		if (mc->sysfs == 0 && (mc->sysfs = mount_fs(mc, dst, false,
		    "sysfs", sysfs_flags, NULL)) == 0)
			mc->sysfs = 1;
		return mc->sysfs > 0;
	}
	return false;
}

/* One entry of a host directory rebuilt in a skeleton tmpfs. */
static int
show_entry(struct mnt *mc, int srcdir, int dstdir, const char *name,
    const char *host, const char *in)
{
	autofree char *h = path_join(host, name), *d = path_join(in, name);
	autoclose int src = -1, dst = -1;
	char link[PATH_MAX];
	struct stat st;
	ssize_t n;

	if (fstatat(srcdir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	/*
	 * Another procfs (the host's processes) or a namespace file mounted
	 * somewhere the sandbox sees: an empty directory or file in its
	 * place, never the host's.
	 */
	if (streq(mount_type(mc, h), "proc") ||
	    streq(mount_type(mc, h), "nsfs")) {
		if (S_ISDIR(st.st_mode))
			return mkdirat(dstdir, name, 0755) < 0 ? -errno : 0;
		if ((dst = openat(dstdir, name, O_CREAT | O_EXCL | O_WRONLY |
		    O_CLOEXEC, 0444)) < 0)
			return -errno;
		return 0;
	}
	if (S_ISLNK(st.st_mode)) {
		if ((n = readlinkat(srcdir, name, link, sizeof(link) - 1)) < 0)
			return errno == ENOENT ? 0 : -errno;
		link[n] = '\0';
		return symlinkat(link, dstdir, name) < 0 ? -errno : 0;
	}
	if (S_ISDIR(st.st_mode)) {
		if (mkdirat(dstdir, name, st.st_mode & 07777) < 0)
			return -errno;
		if (covered(mc, d) || sysfs_early(mc, d))
			return 0;
		if ((src = openat(srcdir, name, O_PATH | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) < 0)
			/* Not searchable by this user: an empty directory. */
			return errno == EACCES || errno == ENOENT ? 0 : -errno;
		if ((dst = openat(dstdir, name, O_PATH | O_NOFOLLOW |
		    O_CLOEXEC)) < 0)
			return -errno;
		return show_dir(mc, src, dst, h, d);
	}
	/* Sockets, FIFOs and device nodes of the host are left out. */
	if (!S_ISREG(st.st_mode))
		return 0;
	if ((dst = openat(dstdir, name, O_CREAT | O_EXCL | O_WRONLY |
	    O_CLOEXEC, 0600)) < 0)
		return -errno;
	close(dst);
	if ((dst = openat(dstdir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    (src = openat(srcdir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -errno;
	return show_file(mc, src, &st, dst, h, d);
}

/* Rebuild the host directory src in the skeleton tmpfs rd, entry by entry. */
static int
populate(struct mnt *mc, int src, int rd, const char *host, const char *in)
{
	struct stat st;
	struct dirent *de;
	DIR *dir;
	int fd, r = 0;

	/* Skeleton tmpfs mounts turn read-only once everything is on them. */
	if ((fd = open(fdpath(rd).s, O_PATH | O_CLOEXEC)) < 0)
		return -errno;
	mc->skel = xreallocarray(mc->skel, mc->nskel + 1, sizeof(*mc->skel));
	mc->skel[mc->nskel++] = fd;
	if (fstat(src, &st) == 0)
		fchmod(rd, st.st_mode & 07777);
	/*
	 * A directory this user cannot list (root's, another user's) stays
	 * empty: its entries could not be listed inside either.
	 */
	if ((fd = open(fdpath(src).s, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return errno == EACCES ? 0 : -errno;
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return -errno;
	}
	while (r == 0 && (errno = 0, de = readdir(dir)) != NULL) {
		if (streq(de->d_name, ".") || streq(de->d_name, ".."))
			continue;
		r = show_entry(mc, dirfd(dir), rd, de->d_name, host, in);
	}
	if (r == 0 && errno != 0)
		r = -errno;
	closedir(dir);
	return r;
}

/*
 * The host directory src (host: its path under OLDROOT; in: its path in
 * the sandbox) read-only at dst.  overlayfs does not cross mount points
 * and refuses a lower layer with host mounts below it (they are locked
 * in this namespace), so a directory holding a mount point is rebuilt:
 * a tmpfs with its entries, each shown the same way, read-only at the end.
 */
static int
show_dir(struct mnt *mc, int src, int dst, const char *host, const char *in)
{
	autoclose int rd = -1;

	if (pseudo_tree(mc, host))
		return ro_bind(mc, fdpath(src).s, dst, in, true);
	if (!mounts_below(mc, host))
		return ro_overlay(mc, src, dst, host);
	if (mount("tmpfs", fdpath(dst).s, "tmpfs", MS_NOSUID | MS_NODEV,
	    tmpfs_opts(mc, "mode=0755").s) < 0)
		return -errno;
	/* dst is the directory under the tmpfs: reach the tmpfs by path. */
	if ((rd = walk(mc, in, false)) < 0)
		return rd;
	{
		int real = openat(rd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		close(rd);
		if ((rd = real) < 0)
			return -errno;
	}
	return populate(mc, src, rd, host, in);
}

/*
 * What both roots start from: the host's mount points listed (show_dir
 * rebuilds a directory holding one), the overlays' empty layer and stage,
 * and an empty tmpfs on NEWROOT.
 */
static int
root_begin(struct mnt *mc)
{
	int r;

	if ((r = host_mounts(mc)) < 0)
		return r;
	if (mkdir(EMPTY, 0755) < 0 || mkdir(STAGE, 0700) < 0)
		return -errno;
	if (mount("tmpfs", NEWROOT, "tmpfs", MS_NOSUID | MS_NODEV,
	    tmpfs_opts(mc, "mode=0755").s) < 0)
		return -errno;
	if ((mc->newroot = open(NEWROOT, O_PATH | O_DIRECTORY |
	    O_CLOEXEC)) < 0)
		return -errno;
	return 0;
}

/*
 * The new root: the host's /, rebuilt as show_dir does (the host's root
 * always holds mount points: /proc, /sys, /dev).
 */
static int
root(struct mnt *mc)
{
	autoclose int src = -1, rd = -1;
	int r;

	if ((r = root_begin(mc)) < 0)
		return r;
	if ((src = open(OLDROOT, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (rd = open(NEWROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	return populate(mc, src, rd, OLDROOT, "/");
}

/*
 * The allow-list view: the new root is an empty tmpfs, where only the
 * plan's trees appear, shown as root() shows them; made read-only once
 * they are all there.
 */
static int
root_empty(struct mnt *mc)
{
	int r;

	if ((r = root_begin(mc)) < 0)
		return r;
	mc->empty_root = true;
	return 0;
}

/* A symlink at dst, to the text in src, as the host has it. */
static int
symlink_make(struct mnt *mc, const struct plan_mount *m)
{
	autofree char *parent = xstrdup(m->dst);
	autoclose int pfd = -1, real = -1;
	char *slash = strrchr(parent, '/');

	*slash = '\0';
	if ((pfd = walk(mc, parent[0] ? parent : "/", true)) < 0)
		return pfd;
	if ((real = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	if (symlinkat(m->src, real, slash + 1) < 0)
		return -errno;
	return 0;
}

/* Bind a path onto itself and make the copy read-only. */
static int
ro_self(struct mnt *mc, const char *path)
{
	autoclose int fd = -1, top = -1;
	int r;

	if ((fd = walk(mc, path, false)) < 0)
		return fd == -ENOENT ? 0 : fd;
	if (mount(fdpath(fd).s, fdpath(fd).s, NULL, MS_BIND | MS_REC, NULL) < 0)
		return -errno;
	if ((top = walk(mc, path, false)) < 0)
		return top;
	r = set_attr(top, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, true);
	return r;
}

static int
proc(struct mnt *mc, const struct plan_mount *m)
{
	static const char *const ro[] = { "sys", "sysrq-trigger", "irq",
	    "bus" };
	size_t i;
	int r;

	if ((r = mount_fs(mc, m->dst, true, "proc", MS_NOSUID | MS_NODEV |
	    MS_NOEXEC, NULL)) < 0)
		return r;
	for (i = 0; i < nitems(ro); i++) {
		autofree char *p = path_join(m->dst, ro[i]);

		if ((r = ro_self(mc, p)) < 0)
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
	if (mount(fdpath(src).s, fdpath(dst).s, NULL, MS_BIND, NULL) < 0)
		return -errno;
	return 0;
}

static int
dev(struct mnt *mc, const struct plan_mount *m, char *const *nodes,
    const char **where)
{
	static const char *const links[][2] = {
		{ "/proc/self/fd", "fd" }, { "/proc/self/fd/0", "stdin" },
		{ "/proc/self/fd/1", "stdout" }, { "/proc/self/fd/2", "stderr" },
		{ "pts/ptmx", "ptmx" },
	};
	autoclose int devfd = -1, sub = -1;
	size_t i;
	int r;

	if ((r = mount_fs(mc, m->dst, true, "tmpfs", MS_NOSUID | MS_NOEXEC,
	    tmpfs_opts(mc, "mode=0755").s)) < 0)
		return r;
	if ((devfd = walk(mc, m->dst, false)) < 0)
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
	if (mount("devpts", fdpath(sub).s, "devpts", MS_NOSUID | MS_NOEXEC,
	    "newinstance,ptmxmode=0666,mode=620") < 0)
		return -errno;
	close(sub);
	*where = "/dev/shm";
	if (mkdirat(devfd, "shm", 01777) < 0)
		return -errno;
	if ((sub = openat(devfd, "shm", O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -errno;
	if (mount("tmpfs", fdpath(sub).s, "tmpfs", MS_NOSUID | MS_NODEV |
	    MS_NOEXEC, tmpfs_opts(mc, "mode=1777").s) < 0)
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
overlay(struct mnt *mc, const struct plan_mount *m)
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

	return mount_fs(mc, m->dst, true, "overlay", MS_NOSUID | MS_NODEV,
	    opts);
}


/*
 * The host's path, opened O_PATH under the old root: symlinks in the
 * user's own tree (a dotfile linked elsewhere) resolve inside it.
 */
static int
host_open(const char *path)
{
	autoclose int root = -1;

	if ((root = open(OLDROOT, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	return fd_open_at(root, path, O_PATH, 0, FD_IN_ROOT);
}

/* A mount point for a file or a directory at dst, made where missing. */
static int
target(struct mnt *mc, const char *dst, bool dir)
{
	autofree char *parent = xstrdup(dst);
	autoclose int pfd = -1;
	char *slash = strrchr(parent, '/');
	const char *name = slash + 1;
	int fd;

	if (dir)
		return walk(mc, dst, true);
	*slash = '\0';
	if ((pfd = walk(mc, parent[0] ? parent : "/", true)) < 0)
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

/*
 * Show the host's path again: read-only as the root's trees are (an
 * overlay; a file through an overlay of its directory), or (direct)
 * writable, a plain bind: a direct path is the host's own, its sockets
 * and locks too, as its writes are.
 */
static int
bind_host(struct mnt *mc, const struct plan_mount *m, bool writable)
{
	autoclose int src = -1, dst = -1, top = -1;
	char host[PATH_MAX];
	struct stat st;
	ssize_t n;

	if ((src = host_open(m->dst)) < 0)
		/* Nothing to show; but a direct path must exist. */
		return src == -ENOENT && !writable ? 0 : src;
	if (fstat(src, &st) < 0)
		return -errno;
	if (m->file_only && !S_ISREG(st.st_mode))
		return -EISDIR;
	if ((dst = target(mc, m->dst, S_ISDIR(st.st_mode))) < 0)
		return dst;
	if (!writable) {
		/* Where the link led, under OLDROOT: for the mount points. */
		if ((n = readlink(fdpath(src).s, host, sizeof(host) - 1)) < 0)
			return -errno;
		host[n] = '\0';
		if (S_ISDIR(st.st_mode))
			return sysfs_early(mc, m->dst) ? 0 :
			    show_dir(mc, src, dst, host, m->dst);
		/* A socket, a FIFO or a device is not shown from the host. */
		if (!S_ISREG(st.st_mode))
			return 0;
		return show_file(mc, src, &st, dst, host, m->dst);
	}
	if (mount(fdpath(src).s, fdpath(dst).s, NULL, MS_BIND | MS_REC,
	    NULL) < 0)
		return -errno;
	if ((top = walk(mc, m->dst, false)) < 0)
		return top;
	return set_attr(top, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, true);
}

/*
 * Cover dst (an fd of it): an empty read-only tmpfs over a directory, the
 * empty mask file over anything else.
 */
static int
cover(struct mnt *mc, int fd, const struct stat *st, const char *dst)
{
	autoclose int top = -1;

	if (S_ISDIR(st->st_mode)) {
		if (mount("tmpfs", fdpath(fd).s, "tmpfs", MS_NOSUID | MS_NODEV |
		    MS_NOEXEC, tmpfs_opts(mc, "mode=0755").s) < 0)
			return -errno;
	} else if (mount(MASK, fdpath(fd).s, NULL, MS_BIND, NULL) < 0)
		return -errno;
	if ((top = walk(mc, dst, false)) < 0)
		return top;
	return set_attr(top, MOUNT_ATTR_RDONLY, false);
}

/* hide, and mask (a host socket): nothing there is nothing to cover. */
static int
hide(struct mnt *mc, const struct plan_mount *m, bool sockets_only)
{
	autoclose int fd = -1;
	struct stat st;

	/*
	 * The plan lists sockets seen at start-up; one may be gone since.  A
	 * socket in a directory this user cannot search (another user's,
	 * seen by root) the command cannot reach either: nothing to cover.
	 */
	if ((fd = walk(mc, m->dst, false)) < 0)
		return fd == -ENOENT || (sockets_only && fd == -EACCES) ? 0 :
		    fd;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (sockets_only && !S_ISSOCK(st.st_mode))
		return 0;
	return cover(mc, fd, &st, m->dst);
}

/*
 * A sysfs of this network namespace shows its interfaces only (lo); the
 * kernel allows it in a user namespace that owns the network namespace,
 * unless the host's sysfs is partly covered (a container's masks).  Then
 * cover the host's net directories: class/net, devices/virtual/net and
 * each device's; an interface plugged in later under a new device shows.
 */
static int
sysfs(struct mnt *mc, const struct plan_mount *m)
{
	char **dirs;
	size_t i;
	int r;

	/* Met while the root was built: mounted, or refused already. */
	if (mc->sysfs > 0)
		return 0;
	r = mc->sysfs < 0 ? mc->sysfs : mount_fs(mc, m->dst, false, "sysfs",
	    sysfs_flags, NULL);
	if (r != -EPERM && r != -EACCES)
		return r;
	dirs = sys_net_dirs(OLDROOT "/sys");
	for (i = 0, r = 0; dirs[i] && r == 0; i++) {
		struct plan_mount h = { .kind = PLAN_MOUNT_HIDE,
		    .dst = dirs[i] };

		r = hide(mc, &h, false);
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
	if ((in = open(fdpath(src).s, O_RDONLY | O_CLOEXEC)) < 0)
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
in_tmpfs(struct mnt *mc, const char *path)
{
	autofree char *p = xstrdup(path);
	struct statfs sf;
	char *slash;
	int fd;

	while ((slash = strrchr(p, '/')) != NULL) {
		*slash = '\0';
		if ((fd = walk(mc, p[0] ? p : "/", false)) >= 0) {
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

/*
 * A persistent file: its copy in the profile's state, made by the
 * supervisor (run/agent-state.c), bound writable.  -ENOENT: none kept.
 */
static int
kept_file(struct mnt *mc, const struct plan_mount *m)
{
	autofree char *path = path_join(m->state, "copy");
	autoclose int root = -1, src = -1, dst = -1, top = -1;
	struct stat st;

	if ((root = open(OLDROOT, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	/* The last component is not followed: a link is refused. */
	if ((src = fd_open_at(root, path, O_PATH | O_NOFOLLOW, 0,
	    FD_IN_ROOT)) < 0)
		return src;
	if (fstat(src, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -ENOENT : -ELOOP;
	if ((dst = target(mc, m->dst, false)) < 0)
		return dst;
	if (mount(fdpath(src).s, fdpath(dst).s, NULL, MS_BIND, NULL) < 0)
		return -errno;
	if ((top = walk(mc, m->dst, false)) < 0)
		return top;
	return set_attr(top, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, false);
}

static int
scratch(struct mnt *mc, const struct plan_mount *m, unsigned int index)
{
	autoclose int src = -1, dst = -1;
	autofree char *opts = NULL, *upper = NULL, *work = NULL, *copy = NULL;
	struct stat st;
	int r;

	src = host_open(m->dst);
	/* Persistent, and not a directory on the host: its kept copy. */
	if (m->state && (src < 0 || (fstat(src, &st) == 0 &&
	    !S_ISDIR(st.st_mode))) && (r = kept_file(mc, m)) != -ENOENT)
		return r;
	if (src < 0) {
		if (src != -ENOENT)
			return src;
		/*
		 * Missing on the host.  In a tmpfs of the sandbox (the home):
		 * nothing to do, it is scratch already, and the command makes
		 * it a file or a directory as it likes.  Elsewhere an empty
		 * writable directory; in a read-only part of the host, EROFS
		 * says to create it there.
		 */
		if (in_tmpfs(mc, m->dst))
			return 0;
		return mount_fs(mc, m->dst, true, "tmpfs", MS_NOSUID | MS_NODEV,
		    tmpfs_opts(mc, "mode=0700").s);
	}
	if (fstat(src, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode)) {
		upper = ovl_escape(OLDROOT, m->upper);
		work = ovl_escape(OLDROOT, m->work);
		/* Kept (persistent): synced as any file of the user's. */
		opts = xasprintf("lowerdir=%s,upperdir=%s,workdir=%s,userxattr"
		    "%s", fdpath(src).s, upper, work, m->state ? "" :
		    ",volatile");
		return mount_fs(mc, m->dst, true, "overlay", MS_NOSUID |
		    MS_NODEV, opts);
	}
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	copy = xasprintf("/scratch-%u", index);
	if ((r = copy_file(src, copy)) < 0)
		return r;
	if ((dst = target(mc, m->dst, false)) < 0)
		return dst;
	if (mount(copy, fdpath(dst).s, NULL, MS_BIND, NULL) < 0)
		return -errno;
	return 0;
}

/*
 * A file of confine's over the host's (its machine id): written in the
 * staging tmpfs, bound read-only.  Where the host has none there is
 * nothing of the host's to replace.
 */
static int
data_file(struct mnt *mc, const struct plan_mount *m, unsigned int index)
{
	autofree char *name = xasprintf("/data-%u", index);
	autoclose int fd = -1, dst = -1, top = -1;
	size_t len = strlen(m->data);

	if ((dst = walk(mc, m->dst, false)) < 0)
		return dst == -ENOENT ? 0 : dst;
	if ((fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0444)) < 0)
		return -errno;
	if (write(fd, m->data, len) != (ssize_t)len)
		return -EIO;
	if (mount(name, fdpath(dst).s, NULL, MS_BIND, NULL) < 0)
		return -errno;
	if ((top = walk(mc, m->dst, false)) < 0)
		return top;
	return set_attr(top, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, false);
}

static int
apply(struct mnt *mc, const struct plan_mount *m, char *const *nodes,
    const char **where)
{
	char mode[32];

	*where = m->dst;
	switch (m->kind) {
	case PLAN_MOUNT_ROOT:
		return root(mc);
	case PLAN_MOUNT_PROC:
		return proc(mc, m);
	case PLAN_MOUNT_DEV:
		return dev(mc, m, nodes, where);
	case PLAN_MOUNT_SYSFS:
		return sysfs(mc, m);
	case PLAN_MOUNT_TMPFS:
		snprintf(mode, sizeof(mode), "mode=%04o", m->mode);
		return mount_fs(mc, m->dst, true, "tmpfs", MS_NOSUID |
		    MS_NODEV | (m->exec ? 0 : MS_NOEXEC),
		    tmpfs_opts(mc, mode).s);
	case PLAN_MOUNT_OVERLAY:
		return overlay(mc, m);
	case PLAN_MOUNT_MASK:
		return hide(mc, m, true);
	case PLAN_MOUNT_BIND_RO:
		return bind_host(mc, m, false);
	case PLAN_MOUNT_BIND_RW:
		return bind_host(mc, m, true);
	case PLAN_MOUNT_SCRATCH:
		return scratch(mc, m, (unsigned int)(m - mc->plan->v));
	case PLAN_MOUNT_HIDE:
		return hide(mc, m, false);
	case PLAN_MOUNT_EMPTY_ROOT:
		return root_empty(mc);
	case PLAN_MOUNT_SYMLINK:
		return symlink_make(mc, m);
	case PLAN_MOUNT_DATA:
		return data_file(mc, m, (unsigned int)(m - mc->plan->v));
	case PLAN_MOUNT_COPY:
	case PLAN_MOUNT_LINK:
		/* The other backends' (policy/compute.c never plans them here). */
		break;
	}
	return -EINVAL;
}

/* What is left of the build when mount_setup() returns, on any path. */
static void
mnt_clear(struct mnt *mc)
{
	size_t i;

	for (i = 0; i < mc->nskel; i++)
		close(mc->skel[i]);
	free(mc->skel);
	strv_free(mc->hm_path);
	strv_free(mc->hm_type);
	if (mc->newroot >= 0)
		close(mc->newroot);
	free(mc->hint);
}

static int
build(struct mnt *mc, const struct plan_mounts *ms, const char **where)
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
	    tmpfs_opts(mc, "mode=0755").s) < 0)
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

	if (ms->n == 0 || (ms->v[0].kind != PLAN_MOUNT_ROOT &&
	    ms->v[0].kind != PLAN_MOUNT_EMPTY_ROOT))
		return -EINVAL;
	for (i = 0; i < ms->n; i++)
		if ((r = apply(mc, &ms->v[i], ms->dev_nodes, where)) < 0)
			return r;
	/* The rebuilt directories: nothing more is mounted on them. */
	*where = "make the host's view read-only";
	for (i = 0; i < mc->nskel; i++)
		if ((r = set_attr(mc->skel[i], MOUNT_ATTR_RDONLY, false)) < 0)
			return r;
	while (mc->nskel > 0)
		close(mc->skel[--mc->nskel]);

	*where = "make the new root read-only";
	if (mc->empty_root && (r = set_attr(mc->newroot, MOUNT_ATTR_RDONLY |
	    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, false)) < 0)
		return r;

	/*
	 * pivot_root(".", ".") stacks the old root on top of the new one;
	 * detaching it drops the host's tree from this namespace
	 * (pivot_root(2), NOTES).
	 */
	*where = "pivot_root to the new root";
	if (fchdir(mc->newroot) < 0 || sys_pivot_root(".", ".") < 0)
		return -errno;
	if (umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
		return -errno;
	return 0;
}

int
mount_setup(const struct plan_mounts *ms, const char **where,
    char **ret_hint)
{
	AUTO(mnt_clear) struct mnt mc = { .plan = ms, .newroot = -1 };
	int r = build(&mc, ms, where);

	*ret_hint = NULL;
	if (r < 0) {
		*ret_hint = mc.hint;
		mc.hint = NULL;
	}
	return r;
}
