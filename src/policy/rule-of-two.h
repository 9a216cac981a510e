/* SPDX-License-Identifier: ISC */
/*
 * policy/rule-of-two.h - the rule of two over the effective values.  Pure.
 */
#ifndef CONFINE_LEGS_H
#define CONFINE_LEGS_H

#include "input/cli.h"
#include "input/host-probe.h"
#include "input/profile.h"
#include "policy/plan.h"

/* The effective values, with their origins: profile, then options. */
struct eff {
	struct pvalue	 quadrant, untrusted, ws_private, net_mode, backend;
	struct plist	 ro, hide, scratch, direct, allow, endpoint;
	struct plist	 persistent;	/* scratch kept in the profile's state */
	struct plist	 pass, set, cred_file, cred_var;
	/* An injected credential: read outside, never in the sandbox. */
	struct pvalue	 inject, cred_ca, web_search, refresh;
	struct plist	 cred_source;
	struct plist	 cmd_argument;	/* [command] argument */
};

/* Variables that pass from confine's environment when set there. */
extern const char *const legs_env_allow[];

/* The effective values: the profile's (or the defaults), then the options. */
void	legs_effective(struct eff *, const struct profile *,
	    const struct cli_opts *, const struct host *);
void	legs_eff_free(struct eff *);
/* Which rules grant which leg, into plan->legs and plan->legs_why. */
void	legs_compute(struct plan *, const struct eff *, const struct host *);
/* Refuse what the quadrant does not allow, and always all three legs:
 * 0, or -1 with *cause and *hint. */
int	legs_check(struct plan *, const struct eff *, char **cause,
	    char **hint);
/* The effective values and their origins, into plan->explain. */
void	legs_explain(struct plan *, const struct eff *, const char *ws,
	    const char *ws_origin);

#endif
