// SPDX-License-Identifier: ISC
/*
 * enforce/seccomp.c - a default-allow seccomp filter that denies the kernel
 * surface a coding agent has no use for and that sandboxes have been
 * escaped through (seccomp(2), seccomp_rule_add(3); research: flatpak,
 * firejail, Docker and Codex deny-lists).
 *
 * Denied calls fail with an errno, never a kill: programs probe (Node probes
 * io_uring at start-up) and must see a clean error.  Only a foreign
 * architecture (i386 int 0x80, x32) kills the process.
 *
 * Runs in: the supervisor (compiling, in parallel with the sandbox's
 * set-up).  The sandboxed command's process loads the filter after
 * Landlock, right before execve (the filter may forbid any earlier step),
 * with enforce/seccomp-load.c, which needs no libseccomp.
 * MUST: compare 32-bit arguments (ioctl cmd) with a mask: the kernel drops
 * the high bits, a plain comparison would not.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/file.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <termios.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "enforce/seccomp.h"
#include "lib/fdio.h"
#include "lib/util.h"

/* A classic BPF program is at most BPF_MAXINSNS instructions (filter.h). */
#define FILTER_MAX	(BPF_MAXINSNS * sizeof(struct sock_filter))

#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP	0x02000000
#endif
#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP	262
#endif

/* EPERM: privileged, obsolete, or a known escape path. */
static const char *const deny_eperm[] = {
	/* kernel keyrings are not namespaced */
	"keyctl", "add_key", "request_key",
	/* kernel attack surface and side channels */
	"bpf", "perf_event_open", "userfaultfd", "lookup_dcookie",
	"fanotify_init",
	/* io_uring runs socket and file operations past seccomp */
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	/* the system itself */
	"kexec_load", "kexec_file_load", "init_module", "finit_module",
	"delete_module", "reboot", "swapon", "swapoff", "acct", "quotactl",
	"quotactl_fd", "syslog", "settimeofday", "clock_settime",
	"clock_adjtime", "adjtimex", "sethostname", "setdomainname",
	"iopl", "ioperm", "modify_ldt", "uselib", "nfsservctl",
	/* changing the filesystem view or the namespaces */
	"mount", "umount", "umount2", "pivot_root", "chroot", "setns",
	"unshare",
	/* files outside the mount view by handle ("Shocker") */
	"name_to_handle_at", "open_by_handle_at",
};

/* ENOSYS: flags behind a pointer, or the new mount API; libc falls back. */
static const char *const deny_enosys[] = {
	"clone3", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount",
	"fspick", "mount_setattr",
};

/* Newer than libseccomp 2.5.4 knows; the same number on every arch. */
#define NR_FCHMODAT2		452
#define NR_SETXATTRAT		463
#define NR_REMOVEXATTRAT	466
#define NR_OPEN_TREE_ATTR	467

/* The host's IPC objects, where there is no IPC namespace. */
static const char *const host_ipc[] = {
	"shmget", "shmat", "shmctl", "shmdt", "semget", "semop", "semctl",
	"semtimedop", "msgget", "msgsnd", "msgrcv", "msgctl", "ipc",
	"mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify",
	"mq_getsetattr",
};

/*
 * A file's owner and times, which Landlock does not cover; through an fd
 * too, as a file open for reading will do.
 */
static const char *const path_metadata[] = {
	"chown", "lchown", "fchownat", "utime", "utimes", "futimesat",
	"fchown",
};

/* ...but a file's mode, times and extended attributes the supervisor sets
 * for the command, on its own files in the session (run/notify-meta.c). */
static const char *const meta_notify[] = {
	"chmod", "fchmodat", "fchmod", "setxattr", "lsetxattr", "fsetxattr",
	"removexattr", "lremovexattr", "fremovexattr",
};

/* chattr's ioctls: the inode's flags and project, set by the supervisor on
 * the command's own files (run/notify-meta.c)... */
static const unsigned long flag_ioctls[] = {
	FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR,
};
/* ...the 32-bit forms (compat only) and the version, refused. */
static const unsigned long flag_ioctls_deny[] = {
	FS_IOC32_SETFLAGS, FS_IOC_SETVERSION, FS_IOC32_SETVERSION,
};

/* File locks and leases: the supervisor decides (run/notify.c); LOCK_UN
 * alone only lets go.  And no listener of the command's own. */
int
syscall_filter_notify_rules(void *filter, const char **where)
{
	scmp_filter_ctx ctx = filter;
	static const int cmds[] = { F_SETLK, F_SETLKW, F_OFD_SETLK,
	    F_OFD_SETLKW, F_SETLEASE };
	size_t i;
	int r;

	*where = "flock";
	if ((r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(flock), 1,
	    SCMP_A1(SCMP_CMP_MASKED_EQ, LOCK_UN, 0))) < 0)
		return r;
	*where = "fcntl (locks and leases)";
	for (i = 0; i < nitems(cmds); i++)
		if ((r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY,
		    SCMP_SYS(fcntl), 1, SCMP_A1(SCMP_CMP_MASKED_EQ,
		    0xffffffffU, (scmp_datum_t)cmds[i]))) < 0)
			return r;
	/* A filter of the command's own with a listener would take the
	 * supervisor's notifications (the newest filter wins a tie). */
	*where = "seccomp (a new listener)";
	if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(seccomp),
	    1, SCMP_A1(SCMP_CMP_MASKED_EQ, SECCOMP_FILTER_FLAG_NEW_LISTENER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER))) < 0)
		return r;
	return 0;
}

static const unsigned long clone_ns[] = {
	CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
	CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET,
};

static void
ctx_releasep(scmp_filter_ctx *ctx)
{
	if (*ctx)
		seccomp_release(*ctx);
}

static int
deny_names(scmp_filter_ctx ctx, const char *const *names, size_t n,
    int err, const char **where)
{
	size_t i;
	int nr, r;

	for (i = 0; i < n; i++) {
		/* Unknown on this architecture: there is nothing to deny. */
		if ((nr = seccomp_syscall_resolve_name(names[i])) ==
		    __NR_SCMP_ERROR)
			continue;
		*where = names[i];
		/* err < 0: hand the call to the supervisor. */
		if ((r = seccomp_rule_add(ctx, err < 0 ? SCMP_ACT_NOTIFY :
		    SCMP_ACT_ERRNO(err), nr, 0)) < 0)
			return r;
	}
	return 0;
}

static bool
allowed(const struct plan_syscalls *s, int family)
{
	size_t i;

	for (i = 0; i < s->nfamilies; i++)
		if (s->families[i] == family)
			return true;
	return false;
}

static int
socket_rules(scmp_filter_ctx ctx, const struct plan_syscalls *s,
    const char **where)
{
	int max = 0, f, r;
	size_t i;

	*where = "socket";
	for (i = 0; i < s->nfamilies; i++)
		if (s->families[i] > max)
			max = s->families[i];
	for (f = 0; f <= max; f++) {
		if (allowed(s, f))
			continue;
		if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT),
		    SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ,
		    (scmp_datum_t)f))) < 0)
			return r;
	}
	/* A 64-bit comparison: high garbage bits land here too. */
	if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT),
	    SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_GE,
	    (scmp_datum_t)max + 1))) < 0)
		return r;
	/* MPTCP slips past Landlock's TCP rights: refuse it like a kernel
	 * without MPTCP would, so programs fall back to TCP. */
	*where = "socket (IPPROTO_MPTCP)";
	return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPROTONOSUPPORT),
	    SCMP_SYS(socket), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, 0xffffffffU,
	    IPPROTO_MPTCP));
}

/*
 * Calls that take another process's pid and that Landlock does not check
 * (its scopes cover signals, its ptrace rule what ptrace_may_access()
 * guards): with no pid namespace, the host's processes of this user,
 * confine itself, any process as root, would be theirs.  pid 0, the
 * caller itself, passes here: a 64-bit comparison, so no high bits slip
 * by.  Any other pid goes to the supervisor, which lets the call go on
 * when the target is the session's (run/notify-meta.c); with no supervisor, refused.
 * sched_getaffinity refused fails with ENOSYS, which glibc's
 * pthread_getattr_np takes as "no affinity"; EPERM would make it fail,
 * and the runtimes that call it at start-up.
 */
static const char *const pid_first[] = {
	"prlimit64", "sched_setaffinity", "sched_setscheduler",
	"sched_setparam", "sched_getscheduler", "sched_getparam",
	"sched_setattr", "sched_getattr", "sched_rr_get_interval",
};

/* (which, who): only PRIO_PROCESS, IOPRIO_WHO_PROCESS with who 0. */
static const struct {
	const char	*name;
	scmp_datum_t	 self;
} which_who[] = {
	{ "setpriority", 0 }, { "getpriority", 0 },	/* PRIO_PROCESS */
	{ "ioprio_set", 1 }, { "ioprio_get", 1 },	/* IOPRIO_WHO_PROCESS */
};

/* They take a pidfd, which a filter cannot see through; the same
 * numbers on every arch, newer than some libseccomp knows. */
#define NR_PIDFD_OPEN		434
#define NR_PROCESS_MADVISE	440
#define NR_PROCESS_MRELEASE	448

static int
self_only_rules(scmp_filter_ctx ctx, bool notify, const char **where)
{
	uint32_t other = notify ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO(EPERM);
	size_t i;
	int nr, r;

	for (i = 0; i < nitems(pid_first); i++) {
		*where = pid_first[i];
		if ((nr = seccomp_syscall_resolve_name(pid_first[i])) ==
		    __NR_SCMP_ERROR)
			return -ENOSYS;
		if ((r = seccomp_rule_add(ctx, other, nr, 1,
		    SCMP_A0(SCMP_CMP_NE, 0))) < 0)
			return r;
	}
	*where = "sched_getaffinity";
	if ((r = seccomp_rule_add(ctx, notify ? SCMP_ACT_NOTIFY :
	    SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(sched_getaffinity), 1,
	    SCMP_A0(SCMP_CMP_NE, 0))) < 0)
		return r;
	/* Rules that do not overlap: another "which", refused; a "who"
	 * of PRIO_PROCESS or IOPRIO_WHO_PROCESS other than 0, decided. */
	for (i = 0; i < nitems(which_who); i++) {
		*where = which_who[i].name;
		if ((nr = seccomp_syscall_resolve_name(which_who[i].name)) ==
		    __NR_SCMP_ERROR)
			return -ENOSYS;
		if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1,
		    SCMP_A0(SCMP_CMP_NE, which_who[i].self))) < 0 ||
		    (r = seccomp_rule_add(ctx, other, nr, 2,
		    SCMP_A0(SCMP_CMP_EQ, which_who[i].self),
		    SCMP_A1(SCMP_CMP_NE, 0))) < 0)
			return r;
	}
	/* The supervisor makes the pidfd of a process of the session. */
	*where = "pidfd_open";
	if ((r = seccomp_rule_add(ctx, other, NR_PIDFD_OPEN, 0)) < 0)
		return r;
	*where = "process_madvise, process_mrelease";
	if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
	    NR_PROCESS_MADVISE, 0)) < 0)
		return r;
	return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
	    NR_PROCESS_MRELEASE, 0);
}

int
syscall_filter_export(const struct plan_syscalls *s, int fd,
    const char **where)
{
	AUTO(ctx_releasep) scmp_filter_ctx ctx = NULL;
	size_t i;
	int r;

	*where = "seccomp_init";
	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL)
		return -ENOMEM;
	/* Only the native ABI: i386 and x32 entry points kill the process. */
	*where = "bad-architecture action";
	if ((r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
	    SCMP_ACT_KILL_PROCESS)) < 0)
		return r;
	if ((r = deny_names(ctx, deny_eperm, nitems(deny_eperm), EPERM,
	    where)) < 0)
		return r;
	if ((r = deny_names(ctx, deny_enosys, nitems(deny_enosys), ENOSYS,
	    where)) < 0)
		return r;
	*where = "open_tree_attr";
	if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
	    NR_OPEN_TREE_ATTR, 0)) < 0)
		return r;

	*where = "clone (namespace flags)";
	for (i = 0; i < nitems(clone_ns); i++)
		if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ,
		    clone_ns[i], clone_ns[i]))) < 0)
			return r;

	/*
	 * personality(2): only PER_LINUX.  libseccomp takes one comparison
	 * per argument in a rule, so the 0xffffffff query is refused too.
	 */
	*where = "personality";
	if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
	    SCMP_SYS(personality), 1, SCMP_A0(SCMP_CMP_NE, 0))) < 0)
		return r;

	/* Terminal injection (CVE-2017-5226, CVE-2019-10063, CVE-2023-28100). */
	*where = "ioctl (TIOCSTI, TIOCLINUX)";
	if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
	    SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffU,
	    TIOCSTI))) < 0)
		return r;
	if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
	    SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffU,
	    TIOCLINUX))) < 0)
		return r;

	if ((r = socket_rules(ctx, s, where)) < 0)
		return r;
	if (s->unix_pairs_only) {
		/*
		 * No path to connect from: socket(AF_UNIX) is refused, and a
		 * pair is connected for good only when it is a stream.
		 */
		*where = "socket (AF_UNIX)";
		if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES),
		    SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_MASKED_EQ,
		    0xffffffffU, AF_UNIX))) < 0)
			return r;
		/* AF_UNIX makes SOCK_RAW a datagram socket too. */
		*where = "socketpair (AF_UNIX, SOCK_DGRAM)";
		if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES),
		    SCMP_SYS(socketpair), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf,
		    SOCK_DGRAM))) < 0 ||
		    (r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES),
		    SCMP_SYS(socketpair), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf,
		    SOCK_RAW))) < 0)
			return r;
	}
	if (s->no_path_metadata) {
		static const int nrs[] = { NR_FCHMODAT2, NR_SETXATTRAT,
		    NR_REMOVEXATTRAT };

		if ((r = deny_names(ctx, path_metadata, nitems(path_metadata),
		    EPERM, where)) < 0)
			return r;
		*where = "fchmodat2, setxattrat, removexattrat";
		for (i = 0; i < nitems(nrs); i++)
			if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
			    nrs[i], 0)) < 0)
				return r;
		if ((r = deny_names(ctx, meta_notify, nitems(meta_notify),
		    -1, where)) < 0)
			return r;
		/* utimensat(fd, NULL, ...), futimens(), too: a file open
		 * for reading is enough to set its times. */
		*where = "utimensat";
		if ((r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY,
		    SCMP_SYS(utimensat), 0)) < 0)
			return r;
		if ((r = syscall_filter_notify_rules(ctx, where)) < 0)
			return r;
		/* Inode flags (chattr): the supervisor's. */
		*where = "ioctl (inode flags)";
		for (i = 0; i < nitems(flag_ioctls); i++)
			if ((r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY,
			    SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_MASKED_EQ,
			    0xffffffffU, flag_ioctls[i]))) < 0)
				return r;
		for (i = 0; i < nitems(flag_ioctls_deny); i++)
			if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
			    SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_MASKED_EQ,
			    0xffffffffU, flag_ioctls_deny[i]))) < 0)
				return r;
	}
	if (s->no_host_ipc && (r = deny_names(ctx, host_ipc,
	    nitems(host_ipc), EPERM, where)) < 0)
		return r;
	if (s->no_kill_all) {
		*where = "kill (-1)";
		if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffU,
		    0xffffffffU))) < 0)
			return r;
	}

	if (s->self_only && (r = self_only_rules(ctx, s->no_path_metadata,
	    where)) < 0)
		return r;

	*where = "seccomp_export_bpf";
	return seccomp_export_bpf(ctx, fd);
}

/*
 * The bwrap backend's second filter, loaded by its inner stage with the
 * listener the supervisor takes: unix connects and sends with an address
 * handed to the supervisor (run/notify.c), and the rules of every filter
 * with a listener.
 */
static int
notify_filter(scmp_filter_ctx ctx, const char **where)
{
	int r;

	*where = "connect, sendto, sendmsg, sendmmsg";
	if ((r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(connect),
	    0)) < 0 || (r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY,
	    SCMP_SYS(sendto), 1, SCMP_A4(SCMP_CMP_NE, 0))) < 0 ||
	    (r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(sendmsg),
	    0)) < 0 || (r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY,
	    SCMP_SYS(sendmmsg), 0)) < 0)
		return r;
	/* File locks and leases, and no second listener: as on landlock. */
	return syscall_filter_notify_rules(ctx, where);
}

int
syscall_filter_notify_send(int sock, const char **where)
{
	AUTO(ctx_releasep) scmp_filter_ctx ctx = NULL;
	autoclose int rd = -1, wr = -1;
	autofree char *buf = NULL;
	int pfd[2], r;
	ssize_t n;

	*where = "seccomp_init (the notify filter)";
	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL)
		return -ENOMEM;
	if ((r = notify_filter(ctx, where)) < 0)
		return r;
	/*
	 * Exported through a pipe (libseccomp writes it in pieces), then
	 * sent whole: one message of the seqpacket socket.  A few hundred
	 * bytes, far below a pipe's buffer.
	 */
	*where = "seccomp_export_bpf (the notify filter)";
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	rd = pfd[0];
	wr = pfd[1];
	if ((r = seccomp_export_bpf(ctx, wr)) < 0)
		return r;
	close(wr);
	wr = -1;
	if ((n = fd_read_all(rd, FILTER_MAX, &buf)) < 0)
		return (int)n;
	*where = "sending the notify filter";
	if (send(sock, buf, (size_t)n, MSG_NOSIGNAL) != n)
		return -errno;
	return 0;
}

void
syscall_filter_engine(char *buf, size_t len)
{
	const struct scmp_version *sv = seccomp_version();

	snprintf(buf, len, "libseccomp %u.%u.%u api %u", sv->major,
	    sv->minor, sv->micro, seccomp_api_get());
}
