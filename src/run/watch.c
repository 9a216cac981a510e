// SPDX-License-Identifier: ISC
/*
 * run/watch.c - the supervisor's watch of the limits (confine(1) LIMITS).
 *
 * Disk: with a project quota (run/disk-quota.c) the filesystem refuses
 * the writes past the budget; otherwise each tick takes statfs(2) of the
 * session store's filesystem, and only when its free space fell by more
 * than a step since the last measure walks the session's writable trees
 * (the session directory and the profile's kept state) for the blocks
 * they hold, less what they held at start.  At the budget, or when the
 * filesystem's free space falls below the reserve, the sandbox is
 * stopped.  Tasks and memory, when no cgroup enforces them: the sandbox's
 * processes, from its first one down through /proc/PID/task/TID/children,
 * their threads counted and their own memory (the proportional share of
 * their private and shared pages, smaps_rollup) summed, no more often
 * than a tenth of the supervisor's time allows.
 *
 * Sampled: a burst between two ticks can pass a limit briefly; the line
 * says "watched".  At the end the trees are walked once more, whatever
 * the free space says: a burst that ended between two ticks is said.
 *
 * Runs in: the supervisor.
 * MUST: read every name of the trees as untrusted (the command wrote
 * them): relative to its directory's fd, never through a symlink, to a
 * bounded depth.
 * MUST: bound every walk and every read: a tree deeper than the bound, or
 * a directory it cannot read, counts the filesystem's whole fall in free
 * space since the start as the session's (fail closed).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "enforce/cgroup.h"
#include "lib/fdio.h"
#include "lib/log.h"
#include "lib/sys.h"
#include "lib/util.h"
#include "run/disk-quota.h"
#include "run/session-dir.h"
#include "run/watch.h"
#include "store/session-meta.h"
#include "store/session-usage.h"

#define KiB		1024ULL
#define MiB		(1024 * KiB)
#define GiB		(1024 * MiB)

/* How deep the walk of the session's trees goes. */
#define WALK_DEPTH	128
/* The reserve: 5% of the filesystem, at most this. */
#define RESERVE_MAX	GiB
/* A walk when free space fell by 1/16 of what is left, at least this. */
#define STEP_MIN	(16 * MiB)
/* The most a children file may hold (pids, a space after each). */
#define CHILDREN_MAX	(1024 * 1024)

/* Which bit of PLAN_LIMIT_* a line of rs->limit_hit stands for. */
enum { HIT_MEMORY, HIT_TASKS, HIT_CPUS, HIT_DISK };

struct watch {
	const struct plan *p;		/* borrowed */
	int		 tfd;		/* the timer; -1: not ticking */
	bool		 stopped;	/* the sandbox was stopped */
	/* disk; budget 0: not watched */
	uint64_t	 budget;	/* bytes the session may add */
	uint64_t	 reserve;	/* bytes that stay free */
	uint64_t	 free_start;
	uint64_t	 free_last;	/* at the last walk, or higher */
	uint64_t	 used_start;	/* the trees, at start */
	bool		 measure;	/* used_start is yet to be taken */
	uint64_t	 growth;	/* at the last walk */
	struct disk_quota q;		/* !q.on: no quota */
	/* tasks and memory (0: not watched) */
	uint64_t	 tasks;
	uint64_t	 memory;
	/* The overlays' work directories (overlayfs's own, mode 0): not
	 * walked. */
	struct stat	*work;
	size_t		 nwork;
	/* The workspaces' copies: walked apart, what each held at start
	 * kept, which stands at the end for a copy found unchanged. */
	struct watch_copy {
		char		*dir;
		struct stat	 st;
		uint64_t	 bytes;
	}		*copies;
	size_t		 ncopies;
	/* Memory is read again no sooner than ten times what reading it
	 * took (CLOCK_MONOTONIC, ns): the watch's cost at most a tenth. */
	uint64_t	 mem_next;
};

struct usage {
	uint64_t	bytes;
	bool		partial;	/* something was not counted */
};

/*
 * The blocks of dfd's tree, depth levels down: a file linked n times
 * counts 1/n of its blocks at each name.  Takes dfd.
 */
static bool
same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* A directory the walk leaves out: a work directory, or a copy (walked
 * apart). */
static bool
left_out(const struct watch *w, const struct stat *st)
{
	size_t i;

	for (i = 0; i < w->nwork; i++)
		if (same_file(&w->work[i], st))
			return true;
	for (i = 0; i < w->ncopies; i++)
		if (same_file(&w->copies[i].st, st))
			return true;
	return false;
}

static void
tree_usage(const struct watch *w, int dfd, int depth, struct usage *u)
{
	struct dir_reader d;
	const char *untrusted_name;
	struct stat st;
	int fd;

	if (fstat(dfd, &st) == 0)
		u->bytes += (uint64_t)st.st_blocks * 512;
	dir_begin(&d, dfd);
	while ((untrusted_name = dir_next(&d, NULL)) != NULL) {
		if (fstatat(dfd, untrusted_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT)
				u->partial = true;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			u->bytes += (uint64_t)st.st_blocks * 512 /
			    (st.st_nlink ? st.st_nlink : 1);
			continue;
		}
		if (left_out(w, &st))
			continue;
		if (depth <= 0) {
			u->partial = true;
			continue;
		}
		if ((fd = openat(dfd, untrusted_name, O_RDONLY |
		    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			if (errno != ENOENT)
				u->partial = true;
			continue;
		}
		tree_usage(w, fd, depth - 1, u);
	}
	if (d.err)
		u->partial = true;
	dir_done(&d);
	close(dfd);
}

/* The blocks of the tree at dir (an absolute path), into u; one that is
 * not there counts nothing when it may be absent. */
static void
path_usage(const struct watch *w, const char *dir, bool may_be_absent,
    struct usage *u)
{
	int fd;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		u->partial |= !(may_be_absent && errno == ENOENT);
	else
		tree_usage(w, fd, WALK_DEPTH, u);
}

/*
 * The session directory's trees and the profile's kept state.  The
 * copies: walked, and what each holds noted when start; or, unchanged
 * (the command gone and each found unchanged since its mark, which every
 * change of a file, its size and its blocks sets), what each held at
 * start.
 */
static struct usage
session_usage(struct watch *w, bool start, bool copies_unchanged)
{
	struct usage u = { 0 };
	size_t i;

	path_usage(w, w->p->session_dir, false, &u);
	if (w->p->state_dir)
		path_usage(w, w->p->state_dir, true, &u);
	for (i = 0; i < w->ncopies; i++) {
		struct usage c = { 0 };

		if (copies_unchanged) {
			u.bytes += w->copies[i].bytes;
			continue;
		}
		path_usage(w, w->copies[i].dir, false, &c);
		if (start)
			w->copies[i].bytes = c.bytes;
		u.bytes += c.bytes;
		u.partial |= c.partial;
	}
	return u;
}

/* The session store filesystem's free space and size, in bytes. */
static int
fs_space(const char *dir, uint64_t *ret_free, uint64_t *ret_size)
{
	struct statfs sf;

	if (statfs(dir, &sf) < 0)
		return -errno;
	*ret_free = (uint64_t)sf.f_bfree * (uint64_t)sf.f_frsize;
	if (ret_size)
		*ret_size = (uint64_t)sf.f_blocks * (uint64_t)sf.f_frsize;
	return 0;
}

/* pid is in list, a children file's pids. */
static bool
listed(const char *list, pid_t pid)
{
	const char *s;
	char *end;

	for (s = list; s; s = end) {
		long v = strtol(s, &end, 10);

		if (end == s)
			return false;
		if (v == (long)pid)
			return true;
	}
	return false;
}

/*
 * Stop the sandbox.  native: its first process is pid 1 of its pid
 * namespace, whose end kills the rest; bwrap: bwrap, whose sandbox dies
 * with it (--die-with-parent).  landlock: the keeper ends the session
 * (kill(-1) in its domain) when its command dies: the keeper's children
 * are killed, each through a pidfd taken while it was still listed as
 * the keeper's child (the command comes first: the keeper forks it before
 * anything else is there).
 */
static void
stop_sandbox(const struct watch *w, const struct run_state *rs)
{
	pid_t child = rs->child;
	autofree char *path = NULL;
	autofree char *list = NULL, *again = NULL;
	int pidfd[64], fd;
	pid_t pid[64];
	size_t n = 0, i;
	char *s, *end;

	/* A cgroup holds every process of the sandbox: all at once. */
	if (rs->cgroup_fd >= 0 && cgroup_kill(rs->cgroup_fd) == 0)
		return;
	if (w->p->backend != PLAN_BACKEND_LANDLOCK) {
		kill(child, SIGKILL);
		return;
	}
	path = xasprintf("/proc/%d/task/%d/children", (int)child, (int)child);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	if (fd_read_all(fd, CHILDREN_MAX, &list) < 0)
		list = NULL;
	close(fd);
	for (s = list; s && n < nitems(pid); s = end) {
		long v = strtol(s, &end, 10);

		if (end == s)
			break;
		if (v > 0 && (pidfd[n] = sys_pidfd_open((pid_t)v, 0)) >= 0)
			pid[n++] = (pid_t)v;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		if (fd_read_all(fd, CHILDREN_MAX, &again) < 0)
			again = NULL;
		close(fd);
	}
	for (i = 0; i < n; i++) {
		/* Still the keeper's: the pidfd is that child's. */
		if (listed(again, pid[i]))
			syscall(SYS_pidfd_send_signal, pidfd[i], SIGKILL, NULL,
			    0);
		close(pidfd[i]);
	}
	/*
	 * No child listed: the command is gone, and the keeper is ending the
	 * session.  Never the keeper itself: its orphans would go to the
	 * host's init, out of reach.
	 */
}

/* At a limit: its line (which: the PLAN_LIMIT_* bit's position). */
static void
hit(struct watch *w, struct run_state *rs, int which, const char *line)
{
	snprintf(rs->limit_hit[which], sizeof(rs->limit_hit[which]), "%s",
	    line);
	if (!w->stopped)
		stop_sandbox(w, rs);
	w->stopped = true;
}

static void
tick_procs(struct watch *w, struct run_state *rs)
{
	char words[32], line[192];
	struct session_usage u = { 0 };
	uint64_t t0 = monotonic_ns(), t1;
	bool mem = w->memory && t0 >= w->mem_next;
	int r;

	r = session_tree_usage(rs->child, mem, w->tasks, &u);
	if (mem) {
		t1 = monotonic_ns();
		w->mem_next = t1 + 10 * (t1 - t0);
	}
	/* Gone: the supervisor reaps it. */
	if (r < 0)
		return;
	if (w->tasks && u.tasks > w->tasks) {
		snprintf(line, sizeof(line), "task limit %" PRIu64 " reached "
		    "(watched): the command was stopped", w->tasks);
		hit(w, rs, HIT_TASKS, line);
	} else if (mem && u.memory > w->memory) {
		plan_size_name(w->memory, words);
		snprintf(line, sizeof(line), "memory limit %s reached (watched "
		    "by the supervisor): the command was stopped", words);
		hit(w, rs, HIT_MEMORY, line);
	}
}

static void
tick_disk(struct watch *w, struct run_state *rs)
{
	uint64_t avail = 0, step, left;
	struct usage u;
	char words[32], line[192];
	int64_t used;

	if (fs_space(w->p->session_dir, &avail, NULL) < 0)
		return;
	if (avail > w->free_last)
		w->free_last = avail;
	if (avail < w->reserve && avail < w->free_start) {
		/* The session's own writes: did it grow at all? */
		if (w->q.on)
			used = disk_quota_used(&w->q);
		else {
			u = session_usage(w, false, false);
			used = u.partial ? (int64_t)(w->used_start + 1) :
			    (int64_t)u.bytes;
		}
		if (used > 0 && (w->q.on ? (uint64_t)used > w->q.start :
		    (uint64_t)used > w->used_start)) {
			plan_size_name(w->reserve, words);
			snprintf(line, sizeof(line), "disk reserve reached: %s "
			    "stays free on the session store's filesystem "
			    "(watched): the command was stopped", words);
			hit(w, rs, HIT_DISK, line);
			return;
		}
	}
	if (w->q.on) {
		/* The quota refuses past its limit; usage past it means it
		 * was not applied to some writer (ext4 lets CAP_SYS_RESOURCE
		 * pass): the watch stops it. */
		if (w->free_last - avail < STEP_MIN)
			return;
		w->free_last = avail;
		if ((used = disk_quota_used(&w->q)) >= 0 &&
		    (uint64_t)used > w->q.limit) {
			plan_size_name(w->budget, words);
			snprintf(line, sizeof(line), "disk budget %s reached "
			    "(watched: past the project quota): the command "
			    "was stopped", words);
			hit(w, rs, HIT_DISK, line);
		}
		return;
	}
	left = w->budget > w->growth ? w->budget - w->growth : 0;
	step = left / 16 < STEP_MIN ? STEP_MIN : left / 16;
	/* Near the budget, whatever fell may be the session's last bytes. */
	if (step > left)
		step = left ? left : 1;
	if (w->free_last - avail < step)
		return;
	u = session_usage(w, false, false);
	w->growth = u.bytes > w->used_start ? u.bytes - w->used_start : 0;
	/* Not all of it seen: the filesystem's whole fall is counted. */
	if (u.partial && w->free_start > avail &&
	    w->free_start - avail > w->growth)
		w->growth = w->free_start - avail;
	w->free_last = avail;
	if (w->growth >= w->budget) {
		plan_size_name(w->budget, words);
		snprintf(line, sizeof(line), "disk budget %s reached (watched, "
		    "no project quota here): the command was stopped", words);
		hit(w, rs, HIT_DISK, line);
	}
}

/*
 * The disk budget's start, once the session's trees hold what confine put
 * there and nothing of the command's: the filesystem's free space, and a
 * project quota on the trees; else the watch's walk of them.
 */
static void
disk_prepare(struct watch *w)
{
	const struct plan *p = w->p;
	uint64_t size = 0, room;
	const char *why = "cannot open the session directory";
	autoclose int sdir = -1;
	size_t i;
	int r;

	if (fs_space(w->p->session_dir, &w->free_start, &size) < 0) {
		log_warn("limits: cannot measure the session store's "
		    "filesystem: %s", strerror(errno));
		w->budget = 0;
		return;
	}
	w->free_last = w->free_start;
	/* The policy's reserve and budget (policy/limits.c), from the same
	 * statfs a moment ago; the reserve again if it could not say. */
	w->reserve = p->limits.disk_reserve;
	if (w->reserve == 0)
		w->reserve = size / 20 < RESERVE_MAX ? size / 20 : RESERVE_MAX;
	room = w->free_start > w->reserve ? w->free_start - w->reserve : 0;
	if ((sdir = open(p->session_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		r = -errno;
	else
		r = disk_quota_start(p, sdir, room < w->budget ? room :
		    w->budget, &w->q, &why);
	if (r == 0) {
		log_info("disk: a project quota (id %u) bounds the session's "
		    "writes", w->q.id);
		return;
	}
	log_info("disk: %s (%s): the supervisor watches the budget", why,
	    strerror(-r));
	for (i = 0; i < p->mounts.n; i++) {
		const char *work = p->mounts.v[i].work;
		struct stat st;

		if (work && stat(work, &st) == 0) {
			w->work = xreallocarray(w->work, w->nwork + 1,
			    sizeof(*w->work));
			w->work[w->nwork++] = st;
		}
	}
	for (i = 0; i < p->nworkspaces; i++) {
		autofree char *dir = workspace_copy_dir(p, i);
		struct stat st;

		if (dir && stat(dir, &st) == 0) {
			w->copies = xreallocarray(w->copies, w->ncopies + 1,
			    sizeof(*w->copies));
			w->copies[w->ncopies++] = (struct watch_copy){
			    .dir = steal_ptr(&dir), .st = st };
		}
	}
	w->used_start = session_usage(w, true, false).bytes;
}

struct watch *
watch_new(const struct plan *p)
{
	struct watch *w;

	if (p->limits.disk == 0 && p->limits.memory == 0 &&
	    p->limits.tasks == 0)
		return NULL;
	w = xcalloc(1, sizeof(*w));
	w->p = p;
	w->tfd = -1;
	/* Measured once the trees hold what confine put there. */
	w->budget = p->limits.disk;
	w->measure = w->budget != 0;
	return w;
}

void
watch_measure(struct watch *w)
{
	if (w == NULL || !w->measure)
		return;
	w->measure = false;
	disk_prepare(w);
}

void
watch_start(struct watch *w, const struct run_state *rs)
{
	struct itimerspec its = {
		.it_interval = { 0, WATCH_TICK_MS * 1000000L },
		.it_value = { 0, WATCH_TICK_MS * 1000000L },
	};

	if (w == NULL)
		return;
	/* What no cgroup's controller enforces, the watch does. */
	if (!(rs->limits_cgroup & PLAN_LIMIT_TASKS))
		w->tasks = w->p->limits.tasks;
	if (!(rs->limits_cgroup & PLAN_LIMIT_MEMORY))
		w->memory = w->p->limits.memory;
	if (w->budget == 0 && w->tasks == 0 && w->memory == 0)
		return;
	if ((w->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC |
	    TFD_NONBLOCK)) < 0 || timerfd_settime(w->tfd, 0, &its, NULL) < 0)
		die_errno(errno, "limits: cannot start the watch's timer");
}

int
watch_fd(const struct watch *w)
{
	return w && !w->stopped ? w->tfd : -1;
}

void
watch_tick(struct watch *w, struct run_state *rs)
{
	uint64_t n;

	if (read(w->tfd, &n, sizeof(n)) < 0 || w->stopped)
		return;
	if (w->tasks || w->memory)
		tick_procs(w, rs);
	if (!w->stopped && w->budget)
		tick_disk(w, rs);
}

void
watch_end(struct watch *w, struct run_state *rs, bool copies_unchanged)
{
	uint64_t avail = 0, growth;
	char words[32];
	struct usage u;
	size_t i;

	if (w == NULL)
		return;
	/*
	 * A burst between two looks, and the command ended: passed all the
	 * same, and said.  Always a walk: the filesystem's free space is no
	 * filter here, others free space on it while the session writes.
	 * A copy the command left as it was holds what it held at start.
	 */
	if (w->tfd >= 0 && w->budget && !w->q.on && !w->stopped) {
		u = session_usage(w, false, copies_unchanged);
		growth = u.bytes > w->used_start ? u.bytes - w->used_start : 0;
		/* Not all of it seen: the filesystem's whole fall is counted. */
		if (u.partial && fs_space(w->p->session_dir, &avail,
		    NULL) == 0 && w->free_start > avail &&
		    w->free_start - avail > growth)
			growth = w->free_start - avail;
		if (growth >= w->budget) {
			plan_size_name(w->budget, words);
			snprintf(rs->limit_hit[HIT_DISK],
			    sizeof(rs->limit_hit[0]), "disk budget %s passed "
			    "(watched, no project quota here): the command "
			    "ended before the watch could stop it", words);
		}
	}
	if (w->q.on && disk_quota_end(&w->q) &&
	    rs->limit_hit[HIT_DISK][0] == '\0') {
		plan_size_name(w->budget, words);
		snprintf(rs->limit_hit[HIT_DISK], sizeof(rs->limit_hit[0]),
		    "disk budget %s reached: writes refused with %s", words,
		    w->q.refusal);
	}
	if (w->tfd >= 0)
		close(w->tfd);
	free(w->work);
	for (i = 0; i < w->ncopies; i++)
		free(w->copies[i].dir);
	free(w->copies);
	free(w);
}
