/* SPDX-License-Identifier: ISC */
/*
 * run/notify-meta.h - the landlock backend's answer to chmod, utimes, xattrs, inode
 * flags and the calls naming a process: Landlock has no right for a file's
 * mode, times or attributes, and there is no pid namespace, so the filter
 * hands those calls to the supervisor (seccomp user notification), which
 * does them for the command on its own files in the session's trees, lets
 * them go on for its own processes, and refuses the rest.
 *
 * Runs in: the supervisor.
 */
#ifndef CONFINE_META_H
#define CONFINE_META_H

#include <sys/types.h>

struct unotify_jobs;

/*
 * Answer one notification from listener: do the call when its file is
 * beneath one of roots and owned by uid, else fail it with EPERM; a call
 * naming a process goes on when its target is below keeper (the
 * session's), else fails with EPERM.  A lock that may block waits in a
 * thread counted in jobs (run/notify.h).  0, or -errno when the listener
 * itself failed (the command is gone).
 */
int	meta_answer(int listener, struct unotify_jobs *jobs,
	    char *const *roots, uid_t uid, pid_t keeper);

#endif
