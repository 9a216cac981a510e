// SPDX-License-Identifier: ISC
/*
 * policy/git-identity.c - the user's git identity, and nothing else of the
 * host's git configuration, for the command.
 *
 * The home is hidden, ~/.gitconfig with it, so a commit made inside would
 * fail ("Author identity unknown"); showing the file would show the rest
 * of it (credential helpers, aliases, includes, hooks paths, url
 * rewrites).  The two values, read on the host (input/host-probe.c), go in
 * as git's own variables, which win over any configuration file
 * (git-commit-tree(1)).  Not leg B: confine-profile(5), THE RULE OF TWO.
 * The system's file (/etc/gitconfig, read-only inside as the rest of /etc)
 * is the host's configuration too, with its credential helpers, hooks
 * paths and includes: GIT_CONFIG_NOSYSTEM=1 leaves it out, in every plan,
 * identity or none.
 *
 * Runs in: the supervisor, while the plan is computed.
 * MUST: stay pure.
 * MUST: give the command only the checked user.name and user.email, and
 *   leave the system's git configuration out.
 * MUST: never replace a value the profile or the command line gives.
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/env.h"
#include "lib/util.h"
#include "policy/git-identity.h"

void
policy_git_identity(struct plan *p, const struct host *h)
{
	static const char *const names[] = { "GIT_AUTHOR_NAME",
	    "GIT_COMMITTER_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL" };
	const char *value[] = { h->git_name, h->git_name, h->git_email,
	    h->git_email };
	autofree char *set = xstrdup(""), *kept = xstrdup("");
	size_t i;

	(void)env_add_default(&p->envp, "GIT_CONFIG_NOSYSTEM=1");
	if (h->git_name == NULL && h->git_email == NULL && h->git_why == NULL)
		return;
	for (i = 0; i < nitems(names); i++) {
		autofree char *e = NULL;
		char **list, *old;

		if (value[i] == NULL)
			continue;
		e = xasprintf("%s=%s", names[i], value[i]);
		list = env_add_default(&p->envp, e) ? &set : &kept;
		old = *list;
		*list = xasprintf("%s%s%s", old, *old ? " " : "", names[i]);
		free(old);
	}
	p->git_identity = xasprintf("name %s%s%s, email %s%s%s (your global "
	    "git configuration, nothing else of it); set: %s%s%s%s%s",
	    h->git_name ? "'" : "", h->git_name ? h->git_name : "none",
	    h->git_name ? "'" : "", h->git_email ? "'" : "",
	    h->git_email ? h->git_email : "none", h->git_email ? "'" : "",
	    *set ? set : "none", *kept ? "; left as [environment] or --env "
	    "give them: " : "", kept, h->git_why ? "; refused: " : "",
	    h->git_why ? h->git_why : "");
}
