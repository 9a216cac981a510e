/* SPDX-License-Identifier: ISC */
/*
 * store/session-store.h - the sessions of the store as a list: which are
 * there, in which order, in which state, how much disk each takes, which
 * one a run holds, and the cap on their disk use.
 *
 * Ids: YYYYMMDD-HHMMSS.mmm-RRRRRRRR, the UTC time the session started (to
 * the millisecond) and a random number; sessions of an older confine have
 * no ".mmm" and are still listed and used.  Ids sort as strings in start
 * order (an old id sorts before a new one of the same second).
 *
 * A running session holds an exclusive flock(2) on its "run.lock" for as
 * long as confine runs it; its "disk" file (bytes=N) is its disk use,
 * noted after its run.
 *
 * Runs in: confine, on the host.
 */
#ifndef CONFINE_SESSION_STORE_H
#define CONFINE_SESSION_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum session_state {
	SESSION_RUNNING,	/* a confine holds its run.lock */
	SESSION_NOT_EXPORTED,	/* layers, no patch: killed, or export failed */
	SESSION_EXPORTED,	/* a patch to review */
	SESSION_EMPTY,		/* exported, and no file changed, no commit */
	SESSION_APPLIED,	/* "confine apply" wrote it to the host */
	SESSION_BROKEN		/* no metadata: not a session confine made */
};

struct session_info {
	char		*id;
	char		*dir;		/* the store's directory / id */
	char		*workspace;	/* its meta's, or NULL */
	char		**also;		/* its other workspaces (meta also=),
					   NULL-terminated, or NULL */
	char		*command;	/* its arguments, one line, as meta
					   escapes them; NULL when none */
	long long	 started;	/* seconds since the epoch; 0: unknown */
	long		 files;		/* changed files; -1: not exported */
	enum session_state state;
};

/* Is id the name of a session (no path, nothing else)? */
bool	session_id_ok(const char *id);

/*
 * The sessions in store (STATE/confine/sessions), oldest first, each
 * with its facts; *ret_n of them.  An empty list when there is no store.
 * Free with session_list_free().
 */
struct session_info *session_list(const char *store, size_t *ret_n);
void	session_list_free(struct session_info *, size_t n);
/* Is ws one of the session's workspaces (its first, or an also=)? */
bool	session_has_workspace(const struct session_info *, const char *ws);
/*
 * The directories of a session's writable workspaces: sdir itself (its
 * first), then each ws/1, ws/2, ... that has a meta (confine(1),
 * WORKSPACES); *ret_n of them.  strv_free() it.
 */
char	**session_ws_dirs(const char *sdir, size_t *ret_n);

/* The state's word, as "confine ls" prints it. */
const char *session_state_name(enum session_state);

/*
 * Take the run lock of the session directory dirfd (made when missing),
 * waiting for it or not: an fd that holds it, for the caller to keep open
 * while the session runs; -EBUSY when another confine runs it (and not
 * wait), else -errno.
 */
int	session_run_lock(int dirfd, bool wait);

/* Does a confine run the session in dir now? */
bool	session_is_running(const char *dir);
/* The same, of the session dir (a path relative to dirfd). */
bool	session_is_running_at(int dirfd, const char *dir);

/*
 * The disk the tree dir/name takes (st_blocks), never following a
 * symlink, through fds only: its content is agent-written.
 */
uint64_t session_disk_walk(int dirfd, const char *name);

/*
 * The disk a session takes: its "disk" note when there is one (noted
 * is set), else a walk of it.
 */
uint64_t session_disk_use(const char *dir, bool *noted);

/* Walk the session and note its disk use in its "disk" file. */
uint64_t session_disk_note(const char *dir);

/*
 * "10G", "500M", "1024K", "2048" (bytes): a size in bytes.  0 on success,
 * -1 when s is not one (or too large).
 */
int	session_size_parse(const char *s, uint64_t *ret);
/* A size for people: "0", "512K", "1.5M", "12G". */
void	session_size_format(uint64_t bytes, char *buf, size_t len);

#endif
