// SPDX-License-Identifier: ISC
/*
 * run/disk-quota.c - the disk budget as a project quota (quotactl(2) on
 * PRJQUOTA, FS_IOC_FSSETXATTR): XFS, or ext4 with the project feature,
 * mounted with project quotas enforced, and confine running as root.
 *
 * Only the directories the command writes get the project id: changes.patch,
 * the report and the metadata are written beside them in the session
 * directory, outside the project, so that the export works when the
 * budget is spent.
 *
 * Runs in: the supervisor, before the command runs (the sandbox may be
 * setting itself up; the trees hold confine's copy, or on a re-entered
 * session what an earlier command wrote) and after it is gone.
 * MUST: treat every name in the trees as untrusted: reached relative to its
 * directory's fd, never through a symlink, opened only when fstatat(2)
 * says it is a regular file or a directory.
 * MUST: limit nothing when any step fails (the watch takes the budget).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/dqblk_xfs.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/quota.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/sys.h"
#include "lib/util.h"
#include "run/disk-quota.h"

/* How deep the start's walk tags files; new files inherit the id anyway. */
#define TAG_DEPTH	128

/* One quotactl(2) on the project quota of fd's filesystem: 0 or -errno. */
static int
qctl(int fd, unsigned int cmd, uint32_t id, void *addr)
{
	if (sys_quotactl_fd(fd, QCMD(cmd, PRJQUOTA), (int)id, addr) < 0)
		return -errno;
	return 0;
}

/*
 * 1: the id has nothing recorded, or its usage and limits are all zero;
 * 0: it is in use; -errno (-EPERM: not root).
 */
static int
id_free(int fd, uint32_t id)
{
	struct dqblk d = { 0 };
	int r;

	if ((r = qctl(fd, Q_GETQUOTA, id, &d)) == -ENOENT)
		return 1;
	if (r < 0)
		return r;
	return d.dqb_curspace == 0 && d.dqb_curinodes == 0 &&
	    d.dqb_bhardlimit == 0 && d.dqb_bsoftlimit == 0 &&
	    d.dqb_ihardlimit == 0 && d.dqb_isoftlimit == 0;
}

/* FNV-1a of the session id: the same session, the same first choice. */
static uint32_t
first_id(const char *session_id)
{
	uint32_t h = 2166136261U;

	for (; *session_id; session_id++)
		h = (h ^ (unsigned char)*session_id) * 16777619U;
	return DISK_QUOTA_ID_BASE + h % DISK_QUOTA_IDS;
}

static int
set_projid(int fd, uint32_t id, bool dir)
{
	struct fsxattr fsx;

	if (ioctl(fd, FS_IOC_FSGETXATTR, &fsx) < 0)
		return -errno;
	fsx.fsx_projid = id;
	if (dir)
		fsx.fsx_xflags |= FS_XFLAG_PROJINHERIT;
	if (ioctl(fd, FS_IOC_FSSETXATTR, &fsx) < 0)
		return -errno;
	return 0;
}

/*
 * Tag dfd (a directory) and what it holds with the project id: regular
 * files and directories, depth levels down at most.  0 or -errno.
 */
static int
tag_tree(int dfd, uint32_t id, int depth)
{
	DIR *d;
	struct dirent *e;
	int r, fd;

	if ((r = set_projid(dfd, id, true)) < 0) {
		close(dfd);
		return r;
	}
	if ((d = fdopendir(dfd)) == NULL) {
		r = -errno;
		close(dfd);
		return r;
	}
	while (r == 0 && (e = readdir(d)) != NULL) {
		const char *untrusted_name = e->d_name;
		struct stat st;
		bool is_dir;

		if (streq(untrusted_name, ".") || streq(untrusted_name, ".."))
			continue;
		if (fstatat(dirfd(d), untrusted_name, &st,
		    AT_SYMLINK_NOFOLLOW) < 0) {
			r = errno == ENOENT ? 0 : -errno;
			continue;
		}
		is_dir = S_ISDIR(st.st_mode);
		if (!is_dir && !S_ISREG(st.st_mode))
			continue;	/* no blocks of their own */
		if (is_dir && depth <= 0)
			continue;
		if ((fd = openat(dirfd(d), untrusted_name, O_RDONLY |
		    O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
		    (is_dir ? O_DIRECTORY : 0))) < 0) {
			r = -errno;
			continue;
		}
		if (is_dir)
			r = tag_tree(fd, id, depth - 1);
		else {
			r = set_projid(fd, id, false);
			close(fd);
		}
	}
	closedir(d);
	return r;
}

/*
 * The session directory's trees the command writes (run/session-dir.c):
 * the upper layer or the copy, overlayfs's work directory (its copy-up
 * renames into the upper layer, which a project boundary would refuse),
 * the scratch paths' layers or copies, and the landlock backend's home
 * and /tmp.  Not its own files, nor commits/ (the export's).
 */
static const char *const writable[] = { "upper", "work", "scratch", "home",
    "tmp" };

/* Tag the session's writable trees that are there. */
static int
tag_session(int sdir, uint32_t id, dev_t dev)
{
	struct stat st;
	size_t i;
	int r, fd;

	for (i = 0; i < nitems(writable); i++) {
		if (fstatat(sdir, writable[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue;
			return -errno;
		}
		if (!S_ISDIR(st.st_mode))
			return -ENOTDIR;
		if (st.st_dev != dev)
			return -EXDEV;
		if ((fd = openat(sdir, writable[i], O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) < 0)
			return -errno;
		if ((r = tag_tree(fd, id, TAG_DEPTH)) < 0)
			return r;
	}
	return 0;
}

int
disk_quota_start(const struct plan *p, int sdir, uint64_t budget,
    struct disk_quota *q, const char **why)
{
	autoclose int fd = -1, state = -1;
	struct fs_quota_statv sv = { .qs_version = FS_QSTATV_VERSION1 };
	struct dqblk d = { 0 };
	struct stat st, sst;
	struct statfs sf;
	uint32_t id, first;
	size_t tries;
	int r;

	*why = "no project quota here";
	if ((fd = openat(sdir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    fstat(fd, &st) < 0 || fstatfs(fd, &sf) < 0)
		return -errno;
	if ((r = qctl(fd, Q_XGETQSTATV, 0, &sv)) < 0)
		return r;
	if (!(sv.qs_flags & FS_QUOTA_PDQ_ENFD)) {
		*why = "project quotas are not enforced here";
		return -EOPNOTSUPP;
	}
	if (p->state_dir) {
		*why = "the profile's kept state is on another filesystem";
		if ((state = open(p->state_dir, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) < 0 || fstat(state, &sst) < 0)
			return -errno;
		if (sst.st_dev != st.st_dev)
			return -EXDEV;
	}
	*why = "no project id free";
	first = id = first_id(p->session_id);
	for (tries = 0; (r = id_free(fd, id)) == 0; tries++) {
		if (tries == 64)
			return -EBUSY;
		id = DISK_QUOTA_ID_BASE + (id - DISK_QUOTA_ID_BASE + 1) %
		    DISK_QUOTA_IDS;
		if (id == first)
			return -EBUSY;
	}
	if (r < 0) {
		*why = r == -EPERM ? "not root: no project quota" :
		    "cannot read the project quotas";
		return r;
	}
	/* Setting a limit needs CAP_SYS_ADMIN: find out before tagging. */
	*why = "cannot set a project quota";
	if ((r = qctl(fd, Q_SETQUOTA, id, &(struct dqblk){
	    .dqb_valid = QIF_BLIMITS })) < 0)
		return r;
	*why = "cannot give the session's directories a project id";
	if ((r = tag_session(sdir, id, st.st_dev)) < 0)
		return r;
	if (state >= 0 && (r = tag_tree(steal_fd(&state), id, TAG_DEPTH)) < 0)
		return r;
	*why = "cannot read the project's usage";
	if ((r = qctl(fd, Q_GETQUOTA, id, &d)) < 0)
		return r;
	q->start = d.dqb_curspace;
	q->limit = q->start + budget;
	memset(&d, 0, sizeof(d));
	/* In 1 KiB blocks (QIF_DQBLKSIZE); 0 would be no limit at all. */
	d.dqb_bhardlimit = q->limit / QIF_DQBLKSIZE;
	if (d.dqb_bhardlimit == 0)
		d.dqb_bhardlimit = 1;
	d.dqb_valid = QIF_BLIMITS;
	*why = "cannot set a project quota";
	if ((r = qctl(fd, Q_SETQUOTA, id, &d)) < 0)
		return r;
	q->id = id;
	q->dir = p->session_dir;
	/* XFS refuses past a project's limit with ENOSPC; the VFS quotas
	 * (ext4) with EDQUOT. */
	q->refusal = sf.f_type == XFS_SUPER_MAGIC ? "ENOSPC" : "EDQUOT";
	q->on = true;
	return 0;
}

/* The quotactl(2) of q's project, on its filesystem: 0 or -errno. */
static int
qctl_dir(const struct disk_quota *q, unsigned int cmd, void *addr)
{
	autoclose int fd = open(q->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	return qctl(fd, cmd, q->id, addr);
}

int64_t
disk_quota_used(const struct disk_quota *q)
{
	struct dqblk d = { 0 };
	int r;

	if ((r = qctl_dir(q, Q_GETQUOTA, &d)) < 0)
		return r;
	return (int64_t)d.dqb_curspace;
}

bool
disk_quota_end(struct disk_quota *q)
{
	int64_t used = disk_quota_used(q);
	uint64_t slack = (q->limit - q->start) / 64;
	bool reached;
	int r;

	/* A write that would pass the limit is refused whole or in part:
	 * the usage stops short of it by less than that write. */
	if (slack < 1024 * 1024)
		slack = 1024 * 1024;
	reached = used >= 0 && (uint64_t)used + slack >= q->limit;
	if ((r = qctl_dir(q, Q_SETQUOTA, &(struct dqblk){
	    .dqb_valid = QIF_BLIMITS })) < 0)
		log_warn("disk: cannot lift the session's project quota %u: %s",
		    q->id, strerror(-r));
	q->on = false;
	return reached;
}
