/* SPDX-License-Identifier: ISC */
/*
 * cmd/sessions.h - "confine ls | show | diff | apply | drop": the sessions in
 * $XDG_STATE_HOME/confine/sessions.
 *
 * Runs in: the supervisor's process, outside any sandbox.  Each returns
 * the exit status.
 */
#ifndef CONFINE_SESSION_H
#define CONFINE_SESSION_H

#include <stdint.h>

#include "input/cli.h"

int	session_ls(const struct cli_opts *, char *const *env);
int	session_show(const struct cli_opts *, char *const *env);
int	session_diff(const struct cli_opts *, char *const *env);
int	session_apply(const struct cli_opts *, char *const *env);
int	session_drop(const struct cli_opts *, char *const *env);
/*
 * stop SESSION: ask its supervisor to end it (SIGTERM to the command,
 * everything killed after 5 s), wait until it no longer runs, and say
 * what it left.  0: stopped; 1: it was not running; 125: no such session,
 * not ours to stop, or it did not end.
 */
int	session_stop(const struct cli_opts *, char *const *env);
/*
 * For "enter": fill o (workspace, profile, session id, command) from the
 * session's metadata, so the run path rebuilds the session's policy.
 * Strings are heap-allocated into *keep (freed by the caller).
 */
void	session_enter_opts(struct cli_opts *o, char *const *env, char ***keep);

/*
 * A "confine apply" killed in workspace ws left its journal (beside the
 * sessions, above session_dir): roll it back through confine-export, so
 * that libgit2 stays off the launch path.  One stat when there is none.
 */
void	session_recover(const char *session_dir, const char *ws);

/*
 * The cap on the sessions' disk use: CONFINE_SESSION_CAP (a size; 0: no
 * cap), else 10 GiB.  0, or -1 with *cause (a heap string) for a value
 * that is not a size.
 */
int	session_cap(char *const *env, uint64_t *ret, char **cause);
/*
 * After a run that kept its session: note its disk use, then, when the
 * sessions take more than cap, drop the applied ones, oldest first; when
 * that is not enough, say so (the run is never refused).  A run whose
 * session is gone added nothing to the store: nothing to do.
 */
void	session_settle(const char *session_dir, uint64_t cap);

#endif
