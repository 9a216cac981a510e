/* SPDX-License-Identifier: ISC */
/*
 * run/agent-state.h - the profile's state, where its persistent paths are
 * kept between sessions (confine-profile(5), PERSISTENT SCRATCH).
 *
 * Runs in: the supervisor, before the sandbox starts and after it.
 */
#ifndef CONFINE_AGENT_STATE_H
#define CONFINE_AGENT_STATE_H

#include "input/host-probe.h"
#include "input/profile.h"
#include "policy/plan.h"

/* The lock file in a state directory, and each path's record of itself. */
#define AGENT_STATE_LOCK	"lock"
#define AGENT_STATE_PATH	"path"

/*
 * Take the lock of the profile's state when it has persistent paths: *fd
 * holds it (close it at the session's end), or is -1 with h->state_busy
 * set to the id of the session holding it.  Nothing to keep: *fd -1 and
 * nothing set.  0, or -errno.
 */
int	agent_state_lock(struct host *h, const struct profile *, int *fd);

/* Write the session's id in the held lock: who holds it, since when. */
void	agent_state_claim(int fd, const char *session_id);

/*
 * Each persistent path's entry in the state, made before the sandbox:
 * native's layers of a directory, or the first copy of the host's path
 * (left out: the hidden paths below it).  A path neither on the host nor
 * kept is said once: nothing of it is kept, and no_copy[i] (one per mount
 * of the plan) set for its copy.  0, or -errno with *where.
 */
int	agent_state_prepare(const struct plan *, const char **where,
	    bool *no_copy);

/*
 * landlock, once the session's home is made: the links of read-only or
 * direct paths inside a persistent path (which the session directory
 * leaves out), made in its kept copy, by fd beneath it (what a command
 * made in their place is replaced); where nothing is kept, in the
 * session's home.  0, or -errno with *where.
 */
int	agent_state_links(const struct plan *, const char **where);

/*
 * After the command, before the session's home goes: on landlock, a
 * persistent path whose link the command replaced (a file written by
 * rename, say) is taken into the state as its copy.
 */
void	agent_state_collect(const struct plan *);

/* After the session: drop overlayfs's work directories; say where the
 * agent's state is kept. */
void	agent_state_finish(const struct plan *);

#endif
