/* SPDX-License-Identifier: ISC */
/*
 * run/notify.h - calls the supervisor answers for the command through a
 * seccomp listener (seccomp_unotify(2)): on the bwrap backend, unix socket
 * connects and sends (no host pathname socket is reachable, whenever it
 * was bound) and file locks; on the landlock backend, file locks (run/notify-meta.c
 * hands them here).
 *
 * Runs in: the inner stage (install) and the supervisor (the rest).
 */
#ifndef CONFINE_UNOTIFY_H
#define CONFINE_UNOTIFY_H

#include <linux/seccomp.h>
#include <stdbool.h>
#include <sys/types.h>

struct unotify;
struct unotify_jobs;

/*
 * The inner stage, last before the command: load the bwrap backend's
 * second filter, compiled by the supervisor and read from sock
 * (syscall_filter_notify_send()), whose listener goes out, with a
 * sock_diag socket of the sandbox's network namespace, over sock (the
 * supervisor takes both with pidfd_getfd(2), as sendmsg(2) is the
 * filter's own).  -errno, *where.
 */
int	unotify_install(int sock, const char **where);

/*
 * The supervisor: take the listener and the diag socket from sock
 * (a datagram of the inner stage's).  shared_net: the sandbox shares the
 * host's network namespace; tcp_handled: the command's Landlock refuses
 * TCP connect, but to tcp_port or tcp_port2 (0: none).  NULL and errno on failure.
 */
struct unotify	*unotify_receive(int sock, bool shared_net, bool tcp_handled,
		    unsigned tcp_port, unsigned tcp_port2);
int		 unotify_listener(const struct unotify *);
/* Answer one notification.  0, or -errno when the listener failed. */
int		 unotify_answer(struct unotify *);
void		 unotify_free(struct unotify *);

/*
 * The command's fd n (pid's), as a new fd of ours on the same open file
 * (pidfd_getfd(2)): -EBADF, -ESRCH (gone), -EPERM (not dumpable).
 */
int	unotify_take_fd(pid_t pid, int n);
/*
 * The count of a listener's calls waiting in threads of their own (at
 * most JOBS_MAX, run/notify.c): made by the supervisor for each listener
 * (struct unotify holds its own).  unotify_jobs_free() drops the maker's
 * hold; the threads still running hold it too, and the last frees it.
 */
struct unotify_jobs	*unotify_jobs_new(void);
void			 unotify_jobs_free(struct unotify_jobs *);
/*
 * flock(2) and fcntl(2) lock calls, decided on the command's open file
 * description: ok(fd, arg) says 0 (do it, on that description) or -errno.
 * The answer is sent from here (a thread counted in jobs, when the call
 * may block).  Returns false when r is not a lock call.
 */
bool	unotify_lock(struct unotify_jobs *jobs, int listener,
	    const struct seccomp_notif *r, int (*ok)(int, void *), void *arg);

/* The socket creating the SO_PASSCRED end: the supervisor's end. */
int	unotify_passcred(int sock);

#endif
