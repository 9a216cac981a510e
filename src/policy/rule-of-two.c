// SPDX-License-Identifier: ISC
/*
 * policy/rule-of-two.c - the rule of two (DESIGN.md section 2): the effective values of
 * the profile and the options, each with its origin; the legs the concrete
 * rules grant; and the check against the quadrant.  Pure.
 *
 * Runs in: the supervisor, inside policy_compute().
 * MUST: name, in every refusal, the rule that grants the leg and where it
 * came from ("FILE:LINE" or the option).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "input/values.h"
#include "lib/util.h"
#include "policy/compute.h"
#include "policy/plan.h"
#include "policy/rule-of-two.h"

/* Variables that pass from confine's environment when set there. */
const char *const legs_env_allow[] = {
	"TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "CLICOLOR",
	"CLICOLOR_FORCE", "LANG", "LANGUAGE", "LC_*", "TZ", "PATH", "SHELL",
	"EDITOR", "VISUAL", "PAGER", NULL
};

unsigned int
policy_quadrant_legs(const char *q)
{
	if (streq(q, "sealed"))
		return PLAN_LEG_A;
	if (streq(q, "offline"))
		return PLAN_LEG_A | PLAN_LEG_B;
	if (streq(q, "online"))
		return PLAN_LEG_A | PLAN_LEG_C;
	if (streq(q, "trusted"))
		return PLAN_LEG_B | PLAN_LEG_C;
	return 0;
}


void
legs_eff_free(struct eff *e)
{
	struct pvalue *v[] = { &e->quadrant, &e->untrusted, &e->ws_private,
	    &e->net_mode, &e->backend, &e->inject, &e->cred_ca,
	    &e->web_search, &e->refresh };
	struct plist *l[] = { &e->ro, &e->hide, &e->scratch, &e->persistent,
	    &e->direct, &e->allow, &e->endpoint, &e->pass, &e->set,
	    &e->cred_file, &e->cred_var, &e->cred_source, &e->cmd_argument };
	size_t i;

	for (i = 0; i < nitems(v); i++) {
		free(v[i]->value);
		free(v[i]->origin);
	}
	for (i = 0; i < nitems(l); i++)
		plist_clear(l[i]);
}

static void
value_or(struct pvalue *dst, const struct pvalue *src, const char *def)
{
	if (src->value)
		pvalue_set(dst, src->value, src->origin);
	else
		pvalue_set(dst, def, "built-in default");
}

/* Profile paths with "~" expanded; home entries become ~/ENTRY. */
static void
add_paths(struct plist *dst, const struct plist *src, const char *home,
    bool home_entries)
{
	size_t i;

	for (i = 0; i < src->n; i++) {
		autofree char *p = home_entries ?
		    path_join(home, src->v[i].value) :
		    syntax_expand(src->v[i].value, home);

		plist_add(dst, p, src->v[i].origin);
	}
}

static void
add_opts(struct plist *dst, const struct cli_list *src, const char *opt,
    const char *home)
{
	autofree char *origin = xasprintf("option --%s", opt);
	size_t i;

	for (i = 0; i < src->n; i++) {
		autofree char *p = home ? syntax_expand(src->v[i], home) :
		    xstrdup(src->v[i]);

		plist_add(dst, p, origin);
	}
}

bool
policy_allow_list(const struct profile *pr)
{
	return (policy_quadrant_legs(pr->quadrant.value ? pr->quadrant.value :
	    "sealed") & PLAN_LEG_C) != 0;
}

void
legs_effective(struct eff *e, const struct profile *pr, const struct cli_opts *o,
    const struct host *h)
{
	size_t i;

	value_or(&e->quadrant, &pr->quadrant, "sealed");
	value_or(&e->untrusted, &pr->untrusted, "yes");
	value_or(&e->ws_private, &pr->ws_private, "no");
	value_or(&e->backend, &pr->backend, "auto");
	if (o->backend_set)
		pvalue_set(&e->backend, syntax_backends[o->backend],
		    o->backend_origin ? o->backend_origin : "option --backend");
	value_or(&e->net_mode, &pr->net_mode, "none");
	if (o->net_set)
		pvalue_set(&e->net_mode, syntax_net_modes[o->net],
		    "option --network");
	else if ((o->allow.n || o->endpoint.n) &&
	    streq(e->net_mode.value, "none"))
		pvalue_set(&e->net_mode, "proxy", o->allow.n ?
		    "option --allow (implies proxy)" :
		    "option --endpoint (implies proxy)");

	add_paths(&e->ro, &pr->read_only, h->home, false);
	add_paths(&e->ro, &pr->home, h->home, true);
	add_opts(&e->ro, &o->ro, "ro", h->home);
	add_paths(&e->hide, &pr->hide, h->home, false);
	add_opts(&e->hide, &o->hide, "hide", h->home);
	add_paths(&e->scratch, &pr->scratch, h->home, false);
	add_opts(&e->scratch, &o->scratch, "scratch", h->home);
	add_paths(&e->persistent, &pr->persistent, h->home, false);
	add_paths(&e->direct, &pr->direct, h->home, false);
	add_opts(&e->direct, &o->direct, "direct", h->home);
	add_paths(&e->cred_file, &pr->cred_file, h->home, false);
	for (i = 0; i < pr->allow.n; i++)
		plist_add(&e->allow, pr->allow.v[i].value, pr->allow.v[i].origin);
	add_opts(&e->allow, &o->allow, "allow", NULL);
	for (i = 0; i < pr->endpoint.n; i++)
		plist_add(&e->endpoint, pr->endpoint.v[i].value,
		    pr->endpoint.v[i].origin);
	add_opts(&e->endpoint, &o->endpoint, "endpoint", NULL);
	for (i = 0; i < pr->env_pass.n; i++)
		plist_add(&e->pass, pr->env_pass.v[i].value,
		    pr->env_pass.v[i].origin);
	for (i = 0; i < pr->env_set.n; i++)
		plist_add(&e->set, pr->env_set.v[i].value,
		    pr->env_set.v[i].origin);
	for (i = 0; i < o->env.n; i++)
		plist_add(strchr(o->env.v[i], '=') ? &e->set : &e->pass,
		    o->env.v[i], "option --env");
	for (i = 0; i < pr->cred_var.n; i++)
		plist_add(&e->cred_var, pr->cred_var.v[i].value,
		    pr->cred_var.v[i].origin);
	/* "none" (or nothing): the credential is not injected. */
	if (pr->inject.value && !streq(pr->inject.value, "none"))
		pvalue_set(&e->inject, pr->inject.value, pr->inject.origin);
	if (pr->cred_ca.value) {
		autofree char *ca = syntax_expand(pr->cred_ca.value, h->home);

		pvalue_set(&e->cred_ca, ca, pr->cred_ca.origin);
	}
	value_or(&e->web_search, &pr->web_search, "no");
	if (pr->refresh.value)
		pvalue_set(&e->refresh, pr->refresh.value, pr->refresh.origin);
	for (i = 0; i < pr->cmd_argument.n; i++)
		plist_add(&e->cmd_argument, pr->cmd_argument.v[i].value,
		    pr->cmd_argument.v[i].origin);
	/* A file source with "~" expanded, and hidden from the sandbox. */
	for (i = 0; i < pr->cred_source.n; i++) {
		const struct pvalue *v = &pr->cred_source.v[i];
		struct syntax_source src;
		autofree char *why = NULL, *path = NULL, *text = NULL;

		/* Checked when the profile was read. */
		if (syntax_source(v->value, &src, &why) < 0)
			continue;
		if (src.type == SOURCE_FILE) {
			path = syntax_expand(src.spec, h->home);
			text = xasprintf("%s file %s%s%s", src.kind, path,
			    src.field ? " " : "", src.field ? src.field : "");
			if (e->inject.value)
				plist_add(&e->hide, path, v->origin);
		}
		plist_add(&e->cred_source, text ? text : v->value, v->origin);
		syntax_source_free(&src);
	}
}

static void
explain(struct plan *p, const char *key, const struct pvalue *v)
{
	strv_push(&p->explain, &p->nexplain, xasprintf("%s = %s  (%s)", key,
	    v->value, v->origin));
}

static void
explain_list(struct plan *p, const char *key, const struct plist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		explain(p, key, &l->v[i]);
}

static void
leg(struct plan *p, unsigned int which, const char *key,
    const struct pvalue *v)
{
	char name = which == PLAN_LEG_A ? 'A' : which == PLAN_LEG_B ? 'B' : 'C';

	p->legs |= which;
	strv_push(&p->legs_why, &p->nlegs_why, xasprintf("%c: %s = %s  (%s)",
	    name, key, v->value, v->origin));
}

/* Does showing path show dir or anything in it (path inside, or above)? */
static bool
overlaps(const char *path, const char *dir)
{
	return path_has_prefix(path, dir) || path_has_prefix(dir, path);
}

/* Private data: a home directory or the runtime directory, or a parent. */
static bool
private_path(const struct host *h, const char *path)
{
	return overlaps(path, h->home) ||
	    (h->pw_home && overlaps(path, h->pw_home)) ||
	    (h->runtime_dir && overlaps(path, h->runtime_dir)) ||
	    overlaps(path, "/run/user");
}

/* Is every variable that name (or NAME*) passes in the allow-list? */
static bool
allow_listed(const char *name)
{
	size_t n = strlen(name), i;
	bool glob = n && name[n - 1] == '*';

	for (i = 0; legs_env_allow[i]; i++) {
		size_t m = strlen(legs_env_allow[i]);

		if (streq(legs_env_allow[i], name))
			return true;
		/* "LC_ALL" is covered by "LC_*"; "LC*" is not. */
		if (!glob && m && legs_env_allow[i][m - 1] == '*' &&
		    strncmp(name, legs_env_allow[i], m - 1) == 0)
			return true;
	}
	return false;
}

static bool
plist_has(const struct plist *l, const char *s)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (streq(l->v[i].value, s))
			return true;
	return false;
}

/* Which rules grant which leg (DESIGN.md section 2). */
void
legs_compute(struct plan *p, const struct eff *e, const struct host *h)
{
	const struct plist *vis[] = { &e->ro, &e->scratch, &e->persistent,
	    &e->direct };
	const char *const visname[] = { "read-only", "scratch", "persistent",
	    "direct" };
	bool c_other;
	size_t i, j;

	if (!streq(e->untrusted.value, "no"))
		leg(p, PLAN_LEG_A, "untrusted", &e->untrusted);
	for (j = 0; j < nitems(vis); j++)
		for (i = 0; i < vis[j]->n; i++)
			if (private_path(h, vis[j]->v[i].value))
				leg(p, PLAN_LEG_B, visname[j], &vis[j]->v[i]);
	for (i = 0; i < e->pass.n; i++)
		if (!allow_listed(e->pass.v[i].value))
			leg(p, PLAN_LEG_B, "environment.pass", &e->pass.v[i]);
	/* Each workspace's privacy, wherever it is shown, named. */
	for (i = 0; i < p->nworkspaces; i++) {
		const struct plan_workspace *w = &p->workspaces[i];
		autofree char *key = NULL;
		struct pvalue v = { (char *)"yes", w->origin };

		if (!w->private)
			continue;
		if (p->nworkspaces < 2) {
			leg(p, PLAN_LEG_B, "workspace.private", &e->ws_private);
			continue;
		}
		if (i == 0)
			v = e->ws_private;
		else
			v.origin = h->more_ws[i - 1].private_origin;
		key = xasprintf("workspace %s: private", w->path);
		leg(p, PLAN_LEG_B, key, &v);
	}
	if (p->nworkspaces == 0 && (streq(e->ws_private.value, "yes") ||
	    streq(e->ws_private.value, "true")))
		leg(p, PLAN_LEG_B, "workspace.private", &e->ws_private);
	if (streq(e->net_mode.value, "host"))
		leg(p, PLAN_LEG_C, "network.mode", &e->net_mode);
	for (i = 0; i < e->allow.n; i++)
		if (!plist_has(&e->endpoint, e->allow.v[i].value))
			leg(p, PLAN_LEG_C, "network.allow", &e->allow.v[i]);
	/*
	 * A raw endpoint is a tunnel the agent fills as it likes: any key,
	 * any API of the provider's, the provider's own fetches.  An
	 * injected one (inference only, the user's key alone) is no leg.
	 */
	for (i = 0; i < e->endpoint.n; i++)
		leg(p, PLAN_LEG_C, "network.endpoint", &e->endpoint.v[i]);
	for (i = 0; i < e->direct.n; i++)
		leg(p, PLAN_LEG_C, "direct", &e->direct.v[i]);
	/* The endpoint's credential is private only beside another way out. */
	c_other = p->legs & PLAN_LEG_C;
	if (c_other) {
		for (i = 0; i < e->cred_file.n; i++)
			leg(p, PLAN_LEG_B, "credential.file", &e->cred_file.v[i]);
		for (i = 0; i < e->cred_var.n; i++)
			leg(p, PLAN_LEG_B, "credential.variable",
			    &e->cred_var.v[i]);
	}
}

/* Does a raw endpoint grant leg C? */
static bool
c_endpoint(const struct plan *p)
{
	size_t i;

	for (i = 0; i < p->nlegs_why; i++)
		if (strncmp(p->legs_why[i], "C: network.endpoint", 19) == 0)
			return true;
	return false;
}

static char *
legs_list(const struct plan *p, char which)
{
	size_t i, n = 0;
	char *s = xstrdup("");

	for (i = 0; i < p->nlegs_why; i++) {
		char *t;

		if (p->legs_why[i][0] != which)
			continue;
		t = xasprintf("%s%s%s", s, n++ ? "; " : "", p->legs_why[i] + 3);
		free(s);
		s = t;
	}
	return s;
}

int
legs_check(struct plan *p, const struct eff *e, char **cause, char **hint)
{
	unsigned int extra;
	char b[8];

	p->quadrant_legs = policy_quadrant_legs(e->quadrant.value);
	if (streq(e->quadrant.value, "trusted")) {
		if (!streq(e->untrusted.value, "no")) {
			*cause = xasprintf("the trusted quadrant needs "
			    "untrusted = no (%s says untrusted = %s)",
			    e->untrusted.origin, e->untrusted.value);
			*hint = xasprintf("trusted is for input you trust "
			    "entirely; say untrusted = no in the profile, or "
			    "pick another quadrant");
			return -1;
		}
		p->warn_trusted = true;
	} else if (streq(e->untrusted.value, "no")) {
		*cause = xasprintf("untrusted = no (%s) is only for the trusted "
		    "quadrant, not %s", e->untrusted.origin,
		    e->quadrant.value);
		*hint = xasprintf("an agent processes untrusted input; remove "
		    "untrusted = no");
		return -1;
	}
	if ((p->legs & (PLAN_LEG_A | PLAN_LEG_B | PLAN_LEG_C)) ==
	    (PLAN_LEG_A | PLAN_LEG_B | PLAN_LEG_C)) {
		autofree char *a = legs_list(p, 'A'), *bl = legs_list(p, 'B');
		autofree char *c = legs_list(p, 'C');

		*cause = xasprintf("rule of two: this session would hold all "
		    "three legs: A untrusted (%s), B private (%s), C external "
		    "(%s)", a, bl, c);
		*hint = xasprintf("drop one: remove the rules that grant B "
		    "(private paths, secret variables, a private workspace) or "
		    "C (network host, allow destinations, raw endpoints, direct "
		    "paths)%s", c_endpoint(p) ? "; a model endpoint is no leg "
		    "when its credential is injected ([credential] inject, "
		    "confine-profile(5))" : "");
		return -1;
	}
	extra = p->legs & ~p->quadrant_legs;
	if (extra) {
		char leg = (extra & PLAN_LEG_B) ? 'B' :
		    (extra & PLAN_LEG_C) ? 'C' : 'A';
		autofree char *why = legs_list(p, leg);

		*cause = xasprintf("rule of two: quadrant %s (%s) allows %s, "
		    "but leg %c is granted by %s", e->quadrant.value,
		    e->quadrant.origin, plan_legs_name(p->quadrant_legs, b),
		    leg, why);
		*hint = xasprintf("%s", (extra & PLAN_LEG_C) ? c_endpoint(p) ?
		    "a raw endpoint carries whatever the agent sends: inject "
		    "the credential instead ([credential] inject, "
		    "confine-profile(5)), or use a profile of the online or "
		    "trusted quadrant" : "drop that rule, "
		    "or use a profile of the online or trusted quadrant "
		    "(for example -p online)" : (extra & PLAN_LEG_B) ? "drop that "
		    "rule, or use a profile of the offline or trusted quadrant "
		    "(for example -p offline)" : "the trusted quadrant needs "
		    "untrusted = no");
		return -1;
	}
	return 0;
}

void
legs_explain(struct plan *p, const struct eff *e, const char *ws,
    const char *ws_origin)
{
	struct pvalue w = { (char *)ws, (char *)ws_origin };
	size_t i;

	explain(p, "quadrant", &e->quadrant);
	explain(p, "untrusted", &e->untrusted);
	explain(p, "workspace.path", &w);
	explain(p, "workspace.private", &e->ws_private);
	for (i = 0; i < p->nworkspaces; i++) {
		const struct plan_workspace *x = &p->workspaces[i];
		struct pvalue v = { x->path, x->origin };
		struct pvalue m = { (char *)"read-only", x->mode_origin };

		if (i > 0)
			explain(p, "workspace.path", &v);
		if (x->read_only)
			explain(p, "workspace.mode", &m);
		if (i > 0 && x->private) {
			m.value = (char *)"yes";
			m.origin = x->origin;
			explain(p, "workspace.private", &m);
		}
	}
	explain(p, "network.mode", &e->net_mode);
	explain_list(p, "network.allow", &e->allow);
	explain_list(p, "network.endpoint", &e->endpoint);
	explain_list(p, "filesystem.read-only", &e->ro);
	explain_list(p, "filesystem.hide", &e->hide);
	explain_list(p, "filesystem.scratch", &e->scratch);
	explain_list(p, "filesystem.persistent", &e->persistent);
	explain_list(p, "filesystem.direct", &e->direct);
	explain_list(p, "environment.pass", &e->pass);
	explain_list(p, "environment.set", &e->set);
	explain_list(p, "credential.file", &e->cred_file);
	explain_list(p, "credential.variable", &e->cred_var);
	if (e->inject.value) {
		explain(p, "credential.inject", &e->inject);
		explain_list(p, "credential.source", &e->cred_source);
		if (e->cred_ca.value)
			explain(p, "credential.ca", &e->cred_ca);
		explain(p, "credential.web-search", &e->web_search);
		if (e->refresh.value)
			explain(p, "credential.refresh", &e->refresh);
	}
	explain_list(p, "command.argument", &e->cmd_argument);
	explain(p, "backend", &e->backend);
}
