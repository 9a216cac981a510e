// SPDX-License-Identifier: ISC
/*
 * run/notify.c - unix socket connects and sends, and file locks, done by the
 * supervisor for the command (seccomp_unotify(2)).
 *
 * Host unix sockets (bwrap): a host program may bind a socket after the
 * session began, in any directory the sandbox sees; connect(2) finds it by
 * its inode, across namespaces.  So every connect, sendto with an address,
 * sendmsg and sendmmsg comes here.  The command's socket is taken with
 * pidfd_getfd(2) and every call is made here, on that socket, decided on
 * that same socket: another thread may dup2(2) another socket over the fd
 * at any time (a TCP connect, or send with an address, held to the
 * command's Landlock rule, which the supervisor does not have).  A unix
 * address is read once; a pathname is resolved in the sandbox's view and
 * opened O_PATH, and the socket bound there must be one of the sandbox's
 * own: listed by sock_diag(7) in the sandbox's network namespace (a
 * socket belongs to the namespace it was made in) and held by one of the
 * sandbox's processes, taken and matched by its cookie and by the inode
 * it is bound at.  The call then goes to "/proc/self/fd/N" of that very
 * inode: what was decided is what is reached.  With the host's network,
 * an abstract name is checked the same way, its socket held open through
 * the call.
 *
 * Locks (bwrap and landlock): flock(2) and fcntl(2) locks and leases on a
 * host file the sandbox sees read-only would block host programs.  The
 * caller's ok() decides on the open file description; the lock is then
 * taken here on that same description, so a POSIX lock becomes the open
 * file description lock (F_OFD_*) it is closest to (confine(1)).
 *
 * Runs in: the inner stage (install) and the supervisor.
 * MUST: never let a call whose decision read the command's memory or
 * depends on an fd go on in the kernel (another thread may change both).
 */
#include "config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/sockios.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <pthread.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "enforce/seccomp-load.h"
#include "lib/fdio.h"
#include "lib/sys.h"
#include "lib/util.h"
#include "run/notify.h"

#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd	438
#endif

/* The largest datagram the supervisor carries for the command. */
#define DGRAM_MAX	65536
/* Its control data, and the fds that may pass in it (SCM_MAX_FD). */
#define CTL_MAX		4096
#define RIGHTS_MAX	253

/* Opens the file a unix socket is bound at (linux/un.h, which clashes
 * with sys/un.h). */
#ifndef SIOCUNIXFILE
#define SIOCUNIXFILE	(SIOCPROTOPRIVATE + 0)
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT	103
#endif

/*
 * Sockets found the sandbox's own, bound at (dev, ino): a cookie is never
 * used again, a socket is bound at one inode for its life, and that inode
 * lives while the socket does (while sock_diag lists it): a later call to
 * the same socket need not walk the sandbox's processes again.
 */
struct verified {
	uint64_t	cookie;
	dev_t		dev;
	ino_t		ino;
};
#define VERIFIED_MAX	64

/*
 * Calls that may block run each in a thread of its own, at most JOBS_MAX
 * at once.  The count is shared by its owner (the supervisor's context)
 * and the threads, which may outlive it (a lock still waited for when the
 * supervisor is done): it holds one for the owner and one per thread, and
 * the last one out frees it.
 */
#define JOBS_MAX	128
struct unotify_jobs {
	int	held;		/* atomic */
};

struct unotify {
	int	listener;
	int	diag;		/* NETLINK_SOCK_DIAG in the sandbox's netns */
	/* One dump at a time on diag: its replies are one request's. */
	pthread_mutex_t		diag_lock;
	bool	shared_net;
	bool	tcp_handled;	/* Landlock refuses TCP connect but to: */
	unsigned tcp_port[2];	/* the proxy's, the keyholder's; 0: none */
	struct unotify_jobs	*jobs;
	/* The supervisor's loop alone reads and writes these. */
	struct verified		verified[VERIFIED_MAX];
	unsigned		verified_next;
};

/* One call done by a thread, as it may block: connect, send, lock. */
struct job {
	int			 listener;
	uint64_t		 id;
	pid_t			 pid;
	int			 nr;
	int			 fd;		/* the command's, ours now */
	int			 target;	/* O_PATH of the socket; -1 */
	int			 own;		/* the sandbox's socket there; -1 */
	/* The command's address (untrusted), or ours in its place. */
	union {
		struct sockaddr_un	 addr;
		struct sockaddr_storage	 any;	/* connect, not unix */
	};
	socklen_t		 alen;
	char			*untrusted_buf;	/* the payload, as read */
	size_t			 len;
	int			 flags;
	void			*untrusted_ctl;	/* control data; its fds ours */
	size_t			 ctllen;
	int			 rights[RIGHTS_MAX];
	int			 nrights;
	uint64_t		 mmsg_len;	/* sendmmsg: where msg_len goes */
	int			 cmd;		/* fcntl, or flock's op */
	struct flock		 fl;
	long			 arg;
};

static void
respond(int listener, uint64_t id, long val, int err, bool go_on)
{
	struct seccomp_notif_resp resp = { .id = id, .val = val,
	    .error = err };

	if (go_on)
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	/* ENOENT: the command was interrupted or killed meanwhile. */
	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

/* len bytes of the command's memory: untrusted (lib/untrusted.h). */
static int
read_mem(pid_t pid, uint64_t addr, void *untrusted_buf, size_t len)
{
	struct iovec local = { untrusted_buf, len },
	    remote = { (void *)addr, len };

	if (len == 0)
		return 0;
	/* Bounded: len, each caller's sizeof or checked length. */
	return process_vm_readv(pid, &local, 1, &remote, 1, 0) ==
	    (ssize_t)len ? 0 : -EFAULT;
}

/*
 * The command's fd n, as a new fd here on the same open file; -EBADF (no
 * such fd), -EPERM (the command made itself non-dumpable: refused, as
 * nothing can be decided), -ESRCH (gone).
 */
/* Read a small /proc file whole; its length, or -1. */
static ssize_t
read_small(const char *path, char *buf, size_t size)
{
	autoclose int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	/* Bounded: size, the caller's sizeof. */
	if (fd < 0 || (n = read(fd, buf, size - 1)) < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/*
 * A pidfd of the process of thread pid.  A notification names the
 * calling thread, which need not be its process's leader (a connect from
 * a worker thread: Node.js, Claude Code): pidfd_open(2) takes a thread's
 * id only with PIDFD_THREAD (Linux 6.9), so the thread group's id is
 * read from /proc first.  The thread is held in the notified call, so
 * neither id can be another's meanwhile.
 */
static int
process_pidfd(pid_t pid)
{
	char path[64], buf[4096];
	const char *t;
	long tgid;
	int fd;

	/* Not a leader: EINVAL, or ENOENT since Linux 6.9. */
	if ((fd = sys_pidfd_open(pid, 0)) >= 0 ||
	    (errno != EINVAL && errno != ENOENT))
		return fd;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (read_small(path, buf, sizeof(buf)) < 0 ||
	    (t = strstr(buf, "\nTgid:")) == NULL ||
	    (tgid = strtol(t + 6, NULL, 10)) <= 0 || tgid == pid) {
		errno = ESRCH;
		return -1;
	}
	return sys_pidfd_open((pid_t)tgid, 0);
}

int
unotify_take_fd(pid_t pid, int n)
{
	autoclose int pidfd = process_pidfd(pid);
	int fd;

	if (pidfd < 0)
		return -ESRCH;
	fd = (int)syscall(SYS_pidfd_getfd, pidfd, n, 0);
	if (fd >= 0)
		return fd;
	return errno == EBADF || errno == ESRCH ? -errno : -EPERM;
}

static bool
still_valid(int listener, uint64_t id)
{
	return ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* --- locks --- */

static void *
lock_run(void *v)
{
	struct job *j = v;
	int r;

	if (j->nr == SYS_flock)
		r = flock(j->fd, j->cmd);
	else if (j->cmd == F_SETLEASE)
		r = fcntl(j->fd, F_SETLEASE, j->arg);
	else
		r = fcntl(j->fd, j->cmd, &j->fl);
	respond(j->listener, j->id, r < 0 ? 0 : r, r < 0 ? -errno : 0, false);
	close(j->fd);
	free(j);
	return NULL;
}

/* A blocking lock taken at once: answered, true. */
static bool
try_now(struct job *j)
{
	int r;

	if (j->nr == SYS_flock)
		r = flock(j->fd, j->cmd | LOCK_NB);
	else
		r = fcntl(j->fd, F_OFD_SETLK, &j->fl);
	if (r < 0 && (errno == EWOULDBLOCK || errno == EAGAIN ||
	    errno == EACCES))
		return false;
	respond(j->listener, j->id, 0, r < 0 ? -errno : 0, false);
	close(j->fd);
	free(j);
	return true;
}

static void
job_free(struct job *j)
{
	int i;

	close(j->fd);
	if (j->target >= 0)
		close(j->target);
	if (j->own >= 0)
		close(j->own);
	for (i = 0; i < j->nrights; i++)
		close(j->rights[i]);
	free(j->untrusted_buf);
	free(j->untrusted_ctl);
	free(j);
}

struct thread_arg {
	struct unotify_jobs	*jobs;
	struct job		*j;
	void			*(*fn)(void *);
};

static void *
job_thread(void *v)
{
	struct thread_arg t = *(struct thread_arg *)v;

	free(v);
	t.fn(t.j);
	unotify_jobs_free(t.jobs);
	return NULL;
}

/*
 * Run fn(j) now, or in a thread when it may block: the supervisor's loop
 * must not wait for the command's peer or lock.  Past JOBS_MAX waiting
 * calls, or when no thread can be made, the call fails with busy.
 */
static void
run_job(struct unotify_jobs *jobs, struct job *j, void *(*fn)(void *),
    bool may_block, int busy)
{
	struct thread_arg *t;
	pthread_attr_t a;
	pthread_t id;
	bool ok = false;

	if (!may_block) {
		fn(j);
		return;
	}
	/* The owner's hold, and one per thread. */
	if (__atomic_add_fetch(&jobs->held, 1, __ATOMIC_RELAXED) <=
	    JOBS_MAX + 1 && pthread_attr_init(&a) == 0) {
		t = xmalloc(sizeof(*t));
		*t = (struct thread_arg){ jobs, j, fn };
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		if (!(ok = (pthread_create(&id, &a, job_thread, t) == 0)))
			free(t);
		pthread_attr_destroy(&a);
	}
	if (ok)
		return;
	__atomic_sub_fetch(&jobs->held, 1, __ATOMIC_RELAXED);
	respond(j->listener, j->id, 0, -busy, false);
	job_free(j);
}

struct unotify_jobs *
unotify_jobs_new(void)
{
	struct unotify_jobs *jobs = xcalloc(1, sizeof(*jobs));

	jobs->held = 1;
	return jobs;
}

void
unotify_jobs_free(struct unotify_jobs *jobs)
{
	if (jobs && __atomic_sub_fetch(&jobs->held, 1, __ATOMIC_ACQ_REL) == 0)
		free(jobs);
}

bool
unotify_lock(struct unotify_jobs *jobs, int listener,
    const struct seccomp_notif *r, int (*ok)(int, void *), void *arg)
{
	struct job *j;
	bool block = false;
	int cmd = (int)r->data.args[1], e, fd;

	if (r->data.nr != SYS_flock && r->data.nr != SYS_fcntl)
		return false;
	if ((fd = unotify_take_fd(r->pid, (int)r->data.args[0])) < 0) {
		respond(listener, r->id, 0, fd, false);
		return true;
	}
	if ((e = ok(fd, arg)) < 0) {
		close(fd);
		respond(listener, r->id, 0, e, false);
		return true;
	}
	j = xcalloc(1, sizeof(*j));
	*j = (struct job){ .listener = listener, .id = r->id,
	    .nr = (int)r->data.nr, .fd = fd, .target = -1, .own = -1,
	    .cmd = cmd };
	if (r->data.nr == SYS_flock)
		block = !(cmd & LOCK_NB);
	else if (cmd == F_SETLEASE)
		j->arg = (long)r->data.args[2];
	else {
		/* Read once; a POSIX lock is taken as the description's. */
		if (read_mem(r->pid, r->data.args[2], &j->fl,
		    sizeof(j->fl)) < 0) {
			close(fd);
			free(j);
			respond(listener, r->id, 0, -EFAULT, false);
			return true;
		}
		if (cmd == F_SETLK || cmd == F_SETLKW)
			j->fl.l_pid = 0;
		j->cmd = cmd == F_SETLK ? F_OFD_SETLK : cmd == F_SETLKW ?
		    F_OFD_SETLKW : cmd;
		block = j->cmd == F_OFD_SETLKW;
	}
	if (!still_valid(listener, r->id)) {
		close(fd);
		free(j);
		return true;
	}
	/* Most locks are free: try without waiting, before a thread. */
	if (block && try_now(j))
		return true;
	run_job(jobs, j, lock_run, block, ENOLCK);
	return true;
}

/* --- unix sockets --- */

/* A unix socket sock_diag(7) lists for an address: its inode and cookie. */
struct cand {
	uint32_t	ino;
	uint64_t	cookie;
};
#define CANDS_MAX	8
/* The sandbox's processes walked for a socket's holder, at most. */
#define PROCS_MAX	65536

/* Does attribute a of a diag message name the address sought? */
static bool
diag_match(const struct rtattr *a, dev_t dev, ino_t ino, const char *name,
    size_t nlen)
{
	struct unix_diag_vfs v;

	if (name == NULL && a->rta_type == UNIX_DIAG_VFS &&
	    (size_t)RTA_PAYLOAD(a) >= sizeof(v)) {
		memcpy(&v, RTA_DATA(a), sizeof(v));
		/* 32 bits of the inode only: own_socket() makes it exact.
		 * The kernel's dev_t: major << 20 | minor. */
		return v.udiag_vfs_ino == (uint32_t)ino &&
		    makedev(v.udiag_vfs_dev >> 20, v.udiag_vfs_dev & 0xfffff) ==
		    dev;
	}
	/* An abstract name: every byte, and its length. */
	return name && a->rta_type == UNIX_DIAG_NAME &&
	    (size_t)RTA_PAYLOAD(a) == nlen && memcmp(RTA_DATA(a), name, nlen) == 0;
}

/*
 * The unix sockets of the diag socket's network namespace bound at (dev,
 * ino), or (name != NULL) at the abstract name of nlen bytes: at most
 * CANDS_MAX in c[]; their number, or -errno.
 */
static int
diag_find(struct unotify *u, dev_t dev, ino_t ino, const char *name,
    size_t nlen, struct cand *c)
{
	struct {
		struct nlmsghdr		nlh;
		struct unix_diag_req	req;
	} q = {
		.nlh = { .nlmsg_len = sizeof(q), .nlmsg_type =
		    SOCK_DIAG_BY_FAMILY, .nlmsg_flags = NLM_F_REQUEST |
		    NLM_F_DUMP },
		.req = { .sdiag_family = AF_UNIX, .udiag_states = ~0U,
		    .udiag_show = name ? UDIAG_SHOW_NAME : UDIAG_SHOW_VFS },
	};
	long buf[8192 / sizeof(long)];
	bool done = false;
	ssize_t n;
	int found = 0;

	pthread_mutex_lock(&u->diag_lock);
	if (send(u->diag, &q, sizeof(q), 0) < 0) {
		n = -errno;
		pthread_mutex_unlock(&u->diag_lock);
		return (int)n;
	}
	while (!done && (n = recv(u->diag, buf, sizeof(buf), 0)) > 0) {
		struct nlmsghdr *h = (struct nlmsghdr *)buf;

		for (; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			struct unix_diag_msg *m = NLMSG_DATA(h);
			struct rtattr *a;
			int alen;

			if (h->nlmsg_type == NLMSG_DONE ||
			    h->nlmsg_type == NLMSG_ERROR) {
				done = true;
				break;
			}
			alen = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
			for (a = (struct rtattr *)(m + 1); RTA_OK(a, alen);
			    a = RTA_NEXT(a, alen)) {
				if (found == CANDS_MAX ||
				    !diag_match(a, dev, ino, name, nlen))
					continue;
				c[found].ino = m->udiag_ino;
				c[found++].cookie = (uint64_t)m->udiag_cookie[1]
				    << 32 | m->udiag_cookie[0];
			}
		}
	}
	pthread_mutex_unlock(&u->diag_lock);
	return found;
}

static ino_t
ns_of(const char *pid, const char *ns)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%.20s/ns/%s", pid, ns);
	return stat(path, &st) < 0 ? 0 : st.st_ino;
}

/*
 * Process pid of the sandbox's pid namespace (pidns): its fd that is the
 * socket c, taken (-1: none).  The pidfd is opened first and the process
 * still alive at the end: the /proc entry read was that process's.
 */
static int
take_held(const char *pid, ino_t pidns, const struct cand *c)
{
	char path[64], want[48], link[48];
	autoclose int pidfd = -1, fds = -1;
	struct dirent *f;
	uint64_t cookie;
	socklen_t ol = sizeof(cookie);
	DIR *d;
	int s = -1;

	if ((pidfd = sys_pidfd_open(atoi(pid), 0)) < 0 ||
	    ns_of(pid, "pid") != pidns)
		return -1;
	snprintf(path, sizeof(path), "/proc/%.20s/fd", pid);
	snprintf(want, sizeof(want), "socket:[%u]", c->ino);
	if ((fds = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (d = fdopendir(dup(fds))) == NULL)
		return -1;
	while (s < 0 && (f = readdir(d)) != NULL) {
		ssize_t n = readlinkat(fds, f->d_name, link, sizeof(link) - 1);

		if (n <= 0)
			continue;
		link[n] = '\0';
		if (!streq(link, want) || (s = (int)syscall(SYS_pidfd_getfd,
		    pidfd, atoi(f->d_name), 0)) < 0)
			continue;
		/* The inode number is 32 bits and wraps: the cookie is the
		 * socket's own. */
		if (getsockopt(s, SOL_SOCKET, SO_COOKIE, &cookie, &ol) < 0 ||
		    cookie != c->cookie) {
			close(s);
			s = -1;
		}
	}
	closedir(d);
	if (s >= 0 && syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0) {
		close(s);
		s = -1;
	}
	return s;
}

/*
 * The host pid of the first process of pid's pid namespace (its NSpid
 * ends in 1), up the parents; 0 when not found.
 */
static pid_t
ns_init(pid_t pid)
{
	char path[64], buf[4096], *p, *end;
	long ppid, last;
	int depth;

	for (depth = 0; depth < 64 && pid > 0; depth++) {
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
		if (read_small(path, buf, sizeof(buf)) < 0 ||
		    (p = strstr(buf, "\nPPid:")) == NULL)
			return 0;
		ppid = strtol(p + 6, NULL, 10);
		if ((p = strstr(buf, "\nNSpid:")) == NULL)
			return 0;
		for (p += 7, last = 0;; p = end) {
			long v = strtol(p, &end, 10);

			if (end == p)
				break;
			last = v;
		}
		if (last == 1)
			return pid;
		pid = (pid_t)ppid;
	}
	return 0;
}

/* Every child of host pid p, on the queue; false when the queue is
 * full.  Without CONFIG_PROC_CHILDREN there are none: own_socket() sees
 * it did not meet the command. */
static bool
push_children(pid_t p, pid_t *q, size_t *n, size_t max)
{
	char path[80], buf[16384], *s, *end;
	struct dirent *e;
	DIR *d;
	bool ok = true;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)p);
	if ((d = opendir(path)) == NULL)
		return true;	/* gone: no children to look at */
	while (ok && (e = readdir(d)) != NULL) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.20s/children",
		    (int)p, e->d_name);
		if (read_small(path, buf, sizeof(buf)) < 0) {
			ok = errno == ENOENT || errno == ESRCH;
			continue;
		}
		for (s = buf;; s = end) {
			long v = strtol(s, &end, 10);

			if (end == s)
				break;
			if (*n == max) {
				ok = false;
				break;
			}
			q[(*n)++] = (pid_t)v;
		}
	}
	closedir(d);
	return ok;
}

/* Every process of the host, the sandbox's among them. */
static int
own_socket_all(ino_t pidns, const struct cand *c)
{
	struct dirent *e;
	DIR *d;
	int s = -1;

	if ((d = opendir("/proc")) == NULL)
		return -1;
	while (s < 0 && (e = readdir(d)) != NULL)
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9')
			s = take_held(e->d_name, pidns, c);
	closedir(d);
	return s;
}

/*
 * The socket c, taken from one of the sandbox's processes (those in the
 * pid namespace of pid, the command): -EACCES when none holds it.  They
 * are the descendants of the namespace's first process, walked down by
 * /proc's children lists (each checked by take_held()); without those
 * lists, every process of the host is looked at.  The caller keeps the
 * socket open through the call, so its address stays its own.
 */
static int
own_socket(pid_t pid, const struct cand *c)
{
	char self[24];
	pid_t *q;
	size_t head = 0, n = 0;
	ino_t pidns;
	bool whole = true, met = false;
	int s = -1;

	snprintf(self, sizeof(self), "%d", (int)pid);
	if ((pidns = ns_of(self, "pid")) == 0)
		return -EACCES;
	q = xmalloc(PROCS_MAX * sizeof(*q));
	if ((q[n] = ns_init(pid)) > 0)
		n++;
	while (s < 0 && head < n && (whole = push_children(q[head], q, &n,
	    PROCS_MAX))) {
		met = met || q[head] == pid;
		snprintf(self, sizeof(self), "%d", (int)q[head++]);
		s = take_held(self, pidns, c);
	}
	free(q);
	/* A walk that missed the command itself missed others. */
	if (s < 0 && (!met || !whole))
		s = own_socket_all(pidns, c);
	return s < 0 ? -EACCES : s;
}

/*
 * Is the file the sandbox's socket s is bound at target's inode (all 64
 * bits)?  SIOCUNIXFILE opens it (CAP_NET_ADMIN over the socket's network
 * namespace: the owner of the sandbox's, root for the host's).  Failing
 * that (-n host, a caller who is not root), its bound name is resolved as
 * the sandbox sees it, without symbolic links, and only when sock_diag
 * listed no other socket bound at an inode of the same low 32 bits
 * (unique): a name is not an identity, SECURITY.md says what is left.
 */
static bool
bound_at(int s, pid_t pid, const struct stat *target, bool unique)
{
	enum fd_resolve how = FD_NO_SYMLINKS;
	struct sockaddr_un a;
	socklen_t alen = sizeof(a);
	autoclose int f = -1, dfd = -1;
	char proc[64];
	struct stat st;

	if ((f = ioctl(s, SIOCUNIXFILE, 0)) < 0) {
		if (!unique)
			return false;
		memset(&a, 0, sizeof(a));
		if (getsockname(s, (struct sockaddr *)&a, &alen) < 0 ||
		    alen <= offsetof(struct sockaddr_un, sun_path) ||
		    a.sun_path[0] == '\0')
			return false;
		a.sun_path[sizeof(a.sun_path) - 1] = '\0';
		if (a.sun_path[0] == '/') {
			snprintf(proc, sizeof(proc), "/proc/%d/root", (int)pid);
			how = FD_IN_ROOT_NO_SYMLINKS;
		} else
			snprintf(proc, sizeof(proc), "/proc/%d/cwd", (int)pid);
		if ((dfd = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
		    (f = fd_open_at(dfd, a.sun_path, O_PATH, 0, how)) < 0)
			return false;
	}
	return fstat(f, &st) == 0 && st.st_dev == target->st_dev &&
	    st.st_ino == target->st_ino;
}

/* Was socket c found the sandbox's own, bound at target? */
static bool
was_verified(const struct unotify *u, const struct cand *c,
    const struct stat *target)
{
	const struct verified *v = u->verified;
	size_t i;

	for (i = 0; i < nitems(u->verified); i++)
		if (v[i].cookie == c->cookie && v[i].cookie &&
		    v[i].dev == target->st_dev && v[i].ino == target->st_ino)
			return true;
	return false;
}

/* Remember it, in place of the oldest. */
static void
set_verified(struct unotify *u, const struct cand *c,
    const struct stat *target)
{
	u->verified[u->verified_next++ % nitems(u->verified)] =
	    (struct verified){ c->cookie, target->st_dev, target->st_ino };
}

/*
 * A pathname that names the socket file target (held O_PATH by the
 * caller, so its inode is no other's meanwhile): the sandbox's own when a
 * socket the sandbox holds is bound at it (a socket of the sandbox's
 * network namespace only, the diag socket's).  A socket is bound at one
 * inode for its life and none other is ever bound there: the connect to
 * that inode reaches it.
 */
static int
own_pathname(struct unotify *u, pid_t pid, const struct stat *target)
{
	struct cand c[CANDS_MAX];
	int i, n, s;
	bool ok;

	if ((n = diag_find(u, target->st_dev, target->st_ino, NULL, 0,
	    c)) <= 0)
		return -EACCES;
	for (i = 0; i < n; i++)
		if (was_verified(u, &c[i], target))
			return 0;
	for (i = 0; i < n; i++) {
		if ((s = own_socket(pid, &c[i])) < 0)
			continue;
		ok = bound_at(s, pid, target, n == 1);
		close(s);
		if (!ok)
			continue;
		set_verified(u, &c[i], target);
		return 0;
	}
	return -EACCES;
}

/*
 * An abstract name with the host's network: the sandbox's own when a
 * socket it holds has that name, pinned in j->own (a name is its socket's
 * until that socket is gone).  With its own network namespace, the
 * namespace keeps the host's names out.
 */
static int
own_abstract(struct unotify *u, pid_t pid, size_t plen, struct job *j)
{
	struct cand c[CANDS_MAX];
	int i, n;

	if (!u->shared_net)
		return 0;
	if ((n = diag_find(u, 0, 0, j->addr.sun_path, plen, c)) < 0)
		return -EPERM;
	/* No socket has it: as the kernel says. */
	if (n == 0)
		return -ECONNREFUSED;
	for (i = 0; i < n; i++)
		if ((j->own = own_socket(pid, &c[i])) >= 0)
			return 0;
	/* As the Landlock scope says for the command's own call. */
	return -EPERM;
}

/*
 * The command's unix address, read once (alen bytes at addr): for a
 * pathname, the socket it names in the sandbox's view must be the
 * sandbox's own; the address to use is then "/proc/self/fd/N" of it.
 */
static int
resolve(struct unotify *u, pid_t pid, uint64_t addr, socklen_t alen,
    struct job *j)
{
	char untrusted_path[sizeof(j->addr.sun_path) + 1], proc[64];
	enum fd_resolve how = FD_NO_MAGICLINKS;
	autoclose int dfd = -1;
	struct stat st;
	size_t plen;
	int e;

	if (alen > sizeof(j->addr))
		return -EINVAL;
	memset(&j->addr, 0, sizeof(j->addr));
	if (read_mem(pid, addr, &j->addr, alen) < 0)
		return -EFAULT;
	j->alen = alen;
	plen = alen > offsetof(struct sockaddr_un, sun_path) ?
	    alen - offsetof(struct sockaddr_un, sun_path) : 0;
	/* Unnamed, or not unix: the kernel says. */
	if (j->addr.sun_family != AF_UNIX || plen == 0)
		return 0;
	if (j->addr.sun_path[0] == '\0')
		return plen > 1 ? own_abstract(u, pid, plen, j) : 0;
	memcpy(untrusted_path, j->addr.sun_path, plen);
	untrusted_path[plen] = '\0';
	if (untrusted_path[0] == '/') {
		/* The sandbox's root is the resolution's. */
		snprintf(proc, sizeof(proc), "/proc/%d/root", (int)pid);
		how = FD_IN_ROOT;
	} else
		snprintf(proc, sizeof(proc), "/proc/%d/cwd", (int)pid);
	if ((dfd = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -ESRCH;
	if ((e = fd_open_at(dfd, untrusted_path, O_PATH, 0, how)) < 0)
		return e == -ENOENT || e == -ENOTDIR || e == -ELOOP ? e :
		    -EACCES;
	j->target = e;
	if (fstat(j->target, &st) < 0)
		return -EACCES;
	if (!S_ISSOCK(st.st_mode))
		return -ECONNREFUSED;
	if ((e = own_pathname(u, pid, &st)) < 0)
		return e;
	memset(&j->addr, 0, sizeof(j->addr));
	j->addr.sun_family = AF_UNIX;
	snprintf(j->addr.sun_path, sizeof(j->addr.sun_path),
	    "/proc/self/fd/%d", j->target);
	j->alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
	    strlen(j->addr.sun_path) + 1);
	return 0;
}

static void *
sock_run(void *v)
{
	struct job *j = v;
	struct iovec iov = { j->untrusted_buf, j->len };
	struct msghdr m = { .msg_name = j->alen ? &j->addr : NULL,
	    .msg_namelen = j->alen, .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = j->untrusted_ctl, .msg_controllen = j->ctllen };
	long r;

	if (j->nr == SYS_connect)
		r = connect(j->fd, m.msg_name, j->alen);
	else
		r = sendmsg(j->fd, &m, j->flags | MSG_NOSIGNAL);
	/* sendmmsg(2): the first message only, its msg_len written. */
	if (r >= 0 && j->mmsg_len) {
		unsigned int len = (unsigned int)r;
		struct iovec local = { &len, sizeof(len) },
		    remote = { (void *)j->mmsg_len, sizeof(len) };

		r = process_vm_writev(j->pid, &local, 1, &remote, 1, 0) ==
		    sizeof(len) ? 1 : -1;
		if (r < 0)
			errno = EFAULT;
	}
	respond(j->listener, j->id, r < 0 ? 0 : r, r < 0 ? -errno : 0, false);
	job_free(j);
	return NULL;
}

/*
 * Ancillary data the supervisor may send for the command: fds it passes
 * (taken from it, so they are the command's own files), and the IP and
 * UDP options any process may set.  Credentials, marks, priorities and
 * the rest are checked against the sender, confine: refused.
 */
static bool
cmsg_ok(const struct cmsghdr *c, int domain)
{
	if (c->cmsg_level == SOL_SOCKET)
		return c->cmsg_type == SCM_RIGHTS && domain == AF_UNIX;
	if (domain != AF_INET && domain != AF_INET6)
		return false;
	if (c->cmsg_level == IPPROTO_IP)
		return c->cmsg_type == IP_PKTINFO || c->cmsg_type == IP_TTL ||
		    c->cmsg_type == IP_TOS;
	if (c->cmsg_level == IPPROTO_IPV6)
		return c->cmsg_type == IPV6_PKTINFO || c->cmsg_type ==
		    IPV6_HOPLIMIT || c->cmsg_type == IPV6_TCLASS ||
		    c->cmsg_type == IPV6_DONTFRAG;
	return c->cmsg_level == IPPROTO_UDP && c->cmsg_type == UDP_SEGMENT;
}

/* The control data, read once; the fds it passes taken from the command. */
static int
read_control(pid_t pid, const struct msghdr *m, int domain, struct job *j)
{
	struct msghdr h = { 0 };
	struct cmsghdr *c;
	size_t i, n;

	if (m->msg_controllen == 0)
		return 0;
	if (m->msg_controllen > CTL_MAX)
		return -ENOBUFS;
	j->untrusted_ctl = xcalloc(1, m->msg_controllen);
	j->ctllen = m->msg_controllen;
	if (read_mem(pid, (uint64_t)m->msg_control, j->untrusted_ctl,
	    j->ctllen) < 0)
		return -EFAULT;
	h.msg_control = j->untrusted_ctl;
	h.msg_controllen = j->ctllen;
	for (c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(&h, c)) {
		int *fds = (int *)CMSG_DATA(c);

		/* Its length is the command's: within what was read. */
		if (c->cmsg_len < CMSG_LEN(0) || c->cmsg_len >
		    j->ctllen - (size_t)((char *)c -
		    (char *)j->untrusted_ctl))
			return -EINVAL;
		if (!cmsg_ok(c, domain))
			return -EPERM;
		if (c->cmsg_level != SOL_SOCKET)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			int fd;

			if (j->nrights == (int)nitems(j->rights))
				return -ETOOMANYREFS;
			if ((fd = unotify_take_fd(pid, fds[i])) < 0)
				return fd == -ESRCH ? fd : -EBADF;
			fds[i] = j->rights[j->nrights++] = fd;
		}
	}
	return 0;
}

/*
 * The payload, bounded: a datagram of at most DGRAM_MAX (EMSGSIZE); on a
 * stream, the first DGRAM_MAX bytes (a short send).  sendmsg's header,
 * iovecs and control read once.
 */
static int
read_payload(pid_t pid, const struct seccomp_notif *r, int domain, int type,
    struct job *j, uint64_t *name, socklen_t *namelen)
{
	const size_t max = DGRAM_MAX;
	struct iovec iov[64];
	struct mmsghdr mm;
	struct msghdr m;
	size_t i, off = 0, want = 0;
	int e;

	if (r->data.nr == SYS_sendto) {
		j->len = (size_t)r->data.args[2];
		if (j->len > max && type != SOCK_STREAM)
			return -EMSGSIZE;
		j->len = j->len > max ? max : j->len;
		j->untrusted_buf = xmalloc(j->len + 1);
		j->flags = (int)r->data.args[3];
		*name = r->data.args[4];
		*namelen = (socklen_t)r->data.args[5];
		return read_mem(pid, r->data.args[1], j->untrusted_buf, j->len);
	}
	if (r->data.nr == SYS_sendmmsg) {
		if (r->data.args[2] == 0)
			return -EINVAL;
		if (read_mem(pid, r->data.args[1], &mm, sizeof(mm)) < 0)
			return -EFAULT;
		m = mm.msg_hdr;
		j->mmsg_len = r->data.args[1] + offsetof(struct mmsghdr,
		    msg_len);
		j->flags = (int)r->data.args[3];
	} else {
		if (read_mem(pid, r->data.args[1], &m, sizeof(m)) < 0)
			return -EFAULT;
		j->flags = (int)r->data.args[2];
	}
	if (m.msg_iovlen > nitems(iov))
		return -EMSGSIZE;
	if (read_mem(pid, (uint64_t)m.msg_iov, iov,
	    m.msg_iovlen * sizeof(*iov)) < 0)
		return -EFAULT;
	for (i = 0; i < m.msg_iovlen; i++) {
		if (iov[i].iov_len > max - want && type != SOCK_STREAM)
			return -EMSGSIZE;
		want += iov[i].iov_len > max - want ? max - want :
		    iov[i].iov_len;
	}
	j->len = want;
	j->untrusted_buf = xmalloc(j->len + 1);
	for (i = 0; i < m.msg_iovlen && off < want; i++) {
		size_t n = iov[i].iov_len > want - off ? want - off :
		    iov[i].iov_len;

		if (read_mem(pid, (uint64_t)iov[i].iov_base,
		    j->untrusted_buf + off, n) < 0)
			return -EFAULT;
		off += n;
	}
	if ((e = read_control(pid, &m, domain, j)) < 0)
		return e;
	*name = (uint64_t)m.msg_name;
	*namelen = m.msg_name ? m.msg_namelen : 0;
	return 0;
}

/*
 * An address of another family, read once, for a connect or a send (a
 * TCP send with an address connects: MSG_FASTOPEN): held to the Landlock
 * TCP rule the command has (the supervisor has none).
 */
static int
other_addr(const struct unotify *u, int fd, pid_t pid, uint64_t addr,
    socklen_t alen, struct job *j)
{
	int proto = 0;
	socklen_t ol = sizeof(proto);
	unsigned port;

	if (alen > sizeof(j->any))
		return -EINVAL;
	memset(&j->any, 0, sizeof(j->any));
	if (alen && read_mem(pid, addr, &j->any, alen) < 0)
		return -EFAULT;
	j->alen = alen;
	if (!u->tcp_handled || alen < sizeof(sa_family_t) ||
	    getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &ol) < 0 ||
	    proto != IPPROTO_TCP)
		return 0;
	if (j->any.ss_family == AF_INET && alen >= sizeof(struct sockaddr_in))
		port = ntohs(((struct sockaddr_in *)&j->any)->sin_port);
	else if (j->any.ss_family == AF_INET6 &&
	    alen >= sizeof(struct sockaddr_in6))
		port = ntohs(((struct sockaddr_in6 *)&j->any)->sin6_port);
	else
		return j->any.ss_family == AF_UNSPEC ? 0 : -EACCES;
	return port && (port == u->tcp_port[0] || port == u->tcp_port[1]) ?
	    0 : -EACCES;
}

/*
 * Netlink: the call is made here, with the supervisor's credentials, which
 * hold capabilities over the sandbox's network namespace (as the owner of
 * bwrap's user namespace, or as root) that the command's do not.  Only what
 * needs none goes: requests that read routes, links and addresses
 * (NETLINK_ROUTE, a GET kind) and socket diagnostics, to no multicast
 * group.  The kernel reads the messages of one send while a header fits
 * and its length does; so is each one looked at here.
 */
static int
netlink_unprivileged(int fd, const struct job *j)
{
	int proto = 0;
	socklen_t ol = sizeof(proto);
	size_t off = 0;

	if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &ol) < 0)
		return -errno;
	if (proto != NETLINK_ROUTE && proto != NETLINK_SOCK_DIAG)
		return -EPERM;
	if (j->alen >= sizeof(struct sockaddr_nl) &&
	    ((const struct sockaddr_nl *)&j->any)->nl_groups != 0)
		return -EPERM;
	if (j->ctllen)
		return -EPERM;
	while (j->len - off >= NLMSG_HDRLEN) {
		struct nlmsghdr h;
		size_t step;

		memcpy(&h, j->untrusted_buf + off, sizeof(h));
		if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > j->len - off)
			break;
		if (proto == NETLINK_ROUTE ? h.nlmsg_type >= RTM_BASE &&
		    (h.nlmsg_type > RTM_MAX ||
		    ((h.nlmsg_type - RTM_BASE) & 3) != 2) :
		    h.nlmsg_type != SOCK_DIAG_BY_FAMILY &&
		    h.nlmsg_type != TCPDIAG_GETSOCK &&
		    h.nlmsg_type != DCCPDIAG_GETSOCK)
			return -EPERM;
		if ((step = NLMSG_ALIGN(h.nlmsg_len)) > j->len - off)
			break;
		off += step;
	}
	return 0;
}

/*
 * Every call is made here, on the socket taken from the command, and
 * decided on that same socket: the command may dup2(2) another socket
 * over the fd at any time, so nothing read from the fd or its memory
 * goes back to the kernel.  0: done here (or in a thread); -errno.
 */
static int
sock_call(struct unotify *u, const struct seccomp_notif *r)
{
	struct job *j;
	uint64_t name = 0;
	socklen_t namelen = 0, ol = sizeof(int);
	int fd, domain = 0, type = 0, e;

	if ((fd = unotify_take_fd(r->pid, (int)r->data.args[0])) < 0)
		return fd;
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &ol) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &ol) < 0) {
		e = errno == ENOTSOCK ? -ENOTSOCK : -errno;
		close(fd);
		return e;
	}
	j = xcalloc(1, sizeof(*j));
	*j = (struct job){ .listener = u->listener, .id = r->id, .pid = r->pid,
	    .nr = (int)r->data.nr, .fd = fd, .target = -1, .own = -1 };
	if (r->data.nr == SYS_connect) {
		name = r->data.args[1];
		namelen = (socklen_t)r->data.args[2];
		e = 0;
	} else
		e = read_payload(r->pid, r, domain, type, j, &name, &namelen);
	if (e == 0 && domain != AF_UNIX && (r->data.nr == SYS_connect ||
	    (name && namelen > 0)))
		e = other_addr(u, fd, r->pid, name, namelen, j);
	else if (e == 0 && domain == AF_UNIX && name && namelen > 0)
		e = resolve(u, r->pid, name, namelen, j);
	if (e == 0 && domain != AF_UNIX && domain != AF_INET &&
	    domain != AF_INET6)
		e = domain == AF_NETLINK ? netlink_unprivileged(fd, j) : -EPERM;
	if (e == 0 && !still_valid(u->listener, r->id))
		e = -ESRCH;
	if (e < 0) {
		job_free(j);
		return e;
	}
	run_job(u->jobs, j, sock_run, true, EAGAIN);
	return 0;
}

/* bwrap: the fd's mount is read-only: a host file. */
static int
writable_mount(int fd, void *arg)
{
	struct statvfs sv;

	(void)arg;
	if (fstatvfs(fd, &sv) < 0)
		return -EBADF;
	return (sv.f_flag & ST_RDONLY) ? -EROFS : 0;
}

int
unotify_answer(struct unotify *u)
{
	struct seccomp_notif req;
	int e;

	memset(&req, 0, sizeof(req));
	if (ioctl(u->listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
		return errno == EINTR || errno == ENOENT ? 0 : -errno;
	if (unotify_lock(u->jobs, u->listener, &req, writable_mount, NULL))
		return 0;
	switch (req.data.nr) {
	case SYS_connect:
	case SYS_sendto:
	case SYS_sendmsg:
	case SYS_sendmmsg:
		if ((e = sock_call(u, &req)) < 0)
			respond(u->listener, req.id, 0, e, false);
		return 0;
	}
	respond(u->listener, req.id, 0, -ENOSYS, false);
	return 0;
}

/* --- set-up --- */

int
unotify_passcred(int sock)
{
	int one = 1;

	return setsockopt(sock, SOL_SOCKET, SO_PASSCRED, &one,
	    sizeof(one)) < 0 ? -errno : 0;
}

int
unotify_install(int sock, const char **where)
{
	struct syscall_filter_prog prog = { 0 };
	int fds[2], r;
	char ack;

	*where = "sock_diag socket";
	if ((fds[1] = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
	    NETLINK_SOCK_DIAG)) < 0)
		return -errno;
	/* Compiled by the supervisor (enforce/seccomp.c), loaded as is. */
	*where = "the notify filter from the supervisor";
	if ((r = syscall_filter_recv(sock, &prog)) < 0)
		return r;
	*where = "seccomp (the notify filter)";
	r = fds[0] = syscall_filter_load(&prog, true);
	free(prog.insns);
	if (r < 0)
		return r;
	/* write(2), not sendmsg(2), which now waits for the supervisor:
	 * the kernel adds our pid, and the supervisor takes the fds. */
	*where = "passing the listener out";
	if (write(sock, fds, sizeof(fds)) != sizeof(fds))
		return -errno;
	if (read(sock, &ack, sizeof(ack)) != 1)
		return -EPIPE;
	close(fds[0]);
	close(fds[1]);
	return 0;
}

struct unotify *
unotify_receive(int sock, bool shared_net, bool tcp_handled,
    unsigned tcp_port, unsigned tcp_port2)
{
	int fds[2];
	char cbuf[CMSG_SPACE(sizeof(struct ucred))], ack = 0;
	struct iovec iov = { fds, sizeof(fds) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	struct ucred cred;
	struct unotify *u;
	int l, d;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != sizeof(fds) ||
	    (c = CMSG_FIRSTHDR(&msg)) == NULL ||
	    c->cmsg_type != SCM_CREDENTIALS) {
		errno = EBADMSG;
		return NULL;
	}
	memcpy(&cred, CMSG_DATA(c), sizeof(cred));
	if ((l = unotify_take_fd(cred.pid, fds[0])) < 0) {
		errno = -l;
		return NULL;
	}
	if ((d = unotify_take_fd(cred.pid, fds[1])) < 0) {
		close(l);
		errno = -d;
		return NULL;
	}
	fcntl(l, F_SETFD, FD_CLOEXEC);
	fcntl(d, F_SETFD, FD_CLOEXEC);
	if (write(sock, &ack, 1) != 1) {
		close(l);
		close(d);
		return NULL;
	}
	u = xcalloc(1, sizeof(*u));
	*u = (struct unotify){ .listener = l, .diag = d,
	    .shared_net = shared_net, .tcp_handled = tcp_handled,
	    .tcp_port = { tcp_port, tcp_port2 }, .jobs = unotify_jobs_new() };
	pthread_mutex_init(&u->diag_lock, NULL);
	return u;
}

int
unotify_listener(const struct unotify *u)
{
	return u->listener;
}

void
unotify_free(struct unotify *u)
{
	if (u == NULL)
		return;
	close(u->listener);
	close(u->diag);
	pthread_mutex_destroy(&u->diag_lock);
	unotify_jobs_free(u->jobs);
	free(u);
}
