// SPDX-License-Identifier: ISC
/*
 * cmd/profile-trust.c - the profile and trust subcommands.
 *
 * Runs in: the supervisor.  "trust" writes the pins file under the user's
 * configuration directory, and nothing else.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/profile-trust.h"
#include "input/host-probe.h"
#include "input/profile-select.h"
#include "input/profile.h"
#include "input/trust-pins.h"
#include "lib/log.h"
#include "lib/sha256.h"
#include "lib/util.h"
#include "policy/compute.h"
#include "policy/plan.h"

static void
host_or_die(char *const *env, struct host *h)
{
	autofree char *cause = NULL;

	if (probe_host(env, NULL, h, &cause) < 0)
		die("%s", cause);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
subcmd_profile_list(char *const *env)
{
	struct host h;
	AUTO(choose_dirs_free) struct profile_dirs d = { 0 };
	bool sealed = false;
	size_t i, j;

	host_or_die(env, &h);
	choose_dirs(&h, &d);
	for (i = 0; i < nitems(d.dir); i++) {
		DIR *dir = opendir(d.dir[i]);
		struct dirent *e;
		char **names = NULL;
		size_t n = 0;

		if (dir == NULL)
			continue;
		while ((e = readdir(dir)) != NULL) {
			size_t len = strlen(e->d_name);
			char *name;

			if (len < 5 || !streq(e->d_name + len - 4, ".ini"))
				continue;
			name = xstrndup(e->d_name, len - 4);
			if (profile_name_ok(name))
				strv_push(&names, &n, name);
			else
				free(name);
		}
		closedir(dir);
		if (n)
			qsort(names, n, sizeof(*names), cmp_str);
		for (j = 0; j < n; j++) {
			int where = -1;
			autofree char *first = profile_find(&d, names[j],
			    &where);

			printf("%-16s %s/%s.ini%s\n", names[j], d.dir[i],
			    names[j], where >= 0 && (size_t)where < i ?
			    "  (shadowed)" : "");
			sealed |= streq(names[j], "sealed");
		}
		strv_free(names);
	}
	if (!sealed)
		printf("%-16s (built-in: no sealed.ini was found)\n", "sealed");
	host_free(&h);
	return 0;
}

/* Load, then compute the policy for a run of "true" in the current tree. */
static int
explain(const char *what, bool is_file, char *const *env, bool verbose)
{
	struct host h;
	AUTO(choose_dirs_free) struct profile_dirs d = { 0 };
	struct profile pr;
	struct cli_opts o = { .cmd = CLI_RUN };
	struct plan plan;
	char *argv[] = { (char *)"true", NULL };
	autofree char *cause = NULL, *hint = NULL, *reason = NULL;
	int r;

	host_or_die(env, &h);
	choose_dirs(&h, &d);
	o.argv = argv;
	memset(&pr, 0, sizeof(pr));
	if (!is_file && streq(what, "sealed") &&
	    profile_find(&d, "sealed", NULL) == NULL) {
		/* No sealed.ini anywhere: the built-in sealed policy. */
		pr.name = xstrdup("sealed (built-in)");
		r = 0;
	} else
		r = is_file ? profile_load_file(&d, what, &pr, &cause, &hint) :
		    profile_load_name(&d, what, &pr, &cause, &hint);
	if (r < 0)
		goto fail;
	if ((r = choose_workspace(&o, &h, &pr, &cause)) < 0) {
		profile_free(&pr);
		goto fail;
	}
	/* As a run does: /etc scanned for a quadrant with leg C. */
	if (policy_allow_list(&pr))
		probe_etc_private(&h);
	reason = xasprintf("%s", is_file ? "checked file" : "by name");
	r = policy_compute(&o, &h, env, &pr, reason, &plan, &cause, &hint);
	profile_free(&pr);
	if (r < 0)
		goto fail;
	if (verbose)
		plan_dump_policy(&plan, stdout);
	else {
		printf("%s: ok: quadrant %s, legs %s\n", what, plan.quadrant,
		    plan_legs_name(plan.legs, (char[8]){ 0 }));
		/* Several workspaces: each, as this directory would have them. */
		for (size_t i = 0; plan.nworkspaces > 1 && i < plan.nworkspaces;
		    i++)
			printf("  workspace %s (%s%s)\n", plan.workspaces[i].path,
			    plan.workspaces[i].read_only ? "read-only" :
			    "writable", plan.workspaces[i].private ?
			    ", private" : "");
	}
	plan_free(&plan);
	host_free(&h);
	return 0;
fail:
	fprintf(stderr, "confine: %s\n", cause);
	if (hint)
		fprintf(stderr, "hint: %s\n", hint);
	host_free(&h);
	return EXIT_CONFINE;
}

int
subcmd_profile_show(const struct cli_opts *o, char *const *env)
{
	const char *p = o->argv[0];
	size_t n = strlen(p);

	return explain(p, strchr(p, '/') || (n > 4 && streq(p + n - 4, ".ini")),
	    env, true);
}

int
subcmd_profile_check(const struct cli_opts *o, char *const *env)
{
	int status = 0;
	size_t i;

	for (i = 0; o->argv[i]; i++)
		if (explain(o->argv[i], true, env, false) != 0)
			status = EXIT_CONFINE;
	return status;
}

int
subcmd_trust(const struct cli_opts *o, char *const *env)
{
	struct host h;
	AUTO(choose_dirs_free) struct profile_dirs d = { 0 };
	struct profile pr;
	autofree char *file = NULL, *real = NULL, *buf = NULL, *pins = NULL;
	autofree char *cause = NULL, *hint = NULL;
	char hex[65];
	size_t len;
	int r;

	host_or_die(env, &h);
	if (o->argv[0])
		file = xstrdup(o->argv[0]);
	else
		file = path_join(h.git_top ? h.git_top : h.cwd, ".confine.ini");
	if ((real = realpath(file, NULL)) == NULL)
		die_errno(errno, "trust: '%s'", file);
	if ((r = profile_read_file(real, &buf, &len)) < 0)
		die_errno(-r, "trust: cannot read '%s'", real);
	/* Only a profile that loads can be trusted. */
	choose_dirs(&h, &d);
	if (profile_load_buffer(&d, real, buf, len, &pr, &cause, &hint) < 0) {
		fprintf(stderr, "confine: %s\n", cause);
		if (hint)
			fprintf(stderr, "hint: %s\n", hint);
		return EXIT_CONFINE;
	}
	profile_free(&pr);
	sha256_hex(buf, len, hex);
	pins = choose_pins(&h);
	if ((r = trust_pin(pins, real, hex)) < 0)
		die_errno(-r, "trust: cannot write '%s'", pins);
	log_msg("trusted %s (sha256 %s)", real, hex);
	host_free(&h);
	return 0;
}
