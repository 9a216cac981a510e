/* SPDX-License-Identifier: ISC */
/*
 * policy/git-identity.h - the user's git identity, for the command's commits.
 */
#ifndef CONFINE_GIT_IDENTITY_H
#define CONFINE_GIT_IDENTITY_H

#include "input/host-probe.h"
#include "policy/plan.h"

/*
 * Add the user's user.name and user.email (h->git_name, git_email, read
 * and checked by probe_git_identity()) to p->envp, as GIT_AUTHOR_NAME,
 * GIT_COMMITTER_NAME, GIT_AUTHOR_EMAIL and GIT_COMMITTER_EMAIL, each only
 * when p->envp, already built, has no value of that name (the profile's
 * [environment] and --env win); say so in p->git_identity, for --dry-run.
 * Pure.
 */
void	policy_git_identity(struct plan *p, const struct host *h);

#endif
