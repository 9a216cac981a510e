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

#include "input/cli.h"

int	session_ls(char *const *env);
int	session_show(const struct cli_opts *, char *const *env);
int	session_diff(const struct cli_opts *, char *const *env);
int	session_apply(const struct cli_opts *, char *const *env);
int	session_drop(const struct cli_opts *, char *const *env);
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

#endif
