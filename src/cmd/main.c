// SPDX-License-Identifier: ISC
/*
 * cmd/main.c - read, decide, apply: cli and probe, then policy, then the
 * backend.  Maps every outcome to an exit status.  No policy here.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/doctor.h"
#include "cmd/profile-trust.h"
#include "cmd/sessions.h"
#include "cmd/state.h"
#include "input/cli.h"
#include "input/host-probe.h"
#include "input/profile-select.h"
#include "input/profile.h"
#include "input/values.h"
#include "lib/env.h"
#include "lib/log.h"
#include "lib/sys.h"
#include "lib/util.h"
#include "policy/bwrap-argv.h"
#include "policy/compute.h"
#include "policy/plan.h"
#include "run/agent-state.h"
#include "run/supervisor.h"
#include "store/git-cache.h"

/* Make sure 0, 1, 2 exist and nothing else we inherited stays open. */
static void
sanitize_fds(void)
{
	int fd;

	while ((fd = open("/dev/null", O_RDWR)) >= 0 && fd <= 2)
		;
	if (fd > 2)
		close(fd);
	if (sys_close_range(3, ~0U, 0) < 0)
		for (fd = 3; fd < 1024; fd++)
			close(fd);
}

/*
 * The user's git identity: git's answer as kept by the last run when what
 * it depends on has not changed (store/git-cache.h), else git's own.  A
 * fresh answer worth keeping is left in *ret_new (its key in *ret_key) for
 * git_identity_keep(), once the run has made its session: a refused run
 * or --dry-run makes nothing.
 */
static void
git_identity(struct host *h, char *const *env, char **ret_key,
    struct git_answer *ret_new)
{
	autofree char *key = probe_git_key(h, env);
	struct git_answer a;

	ret_new->status = -1;
	if (key && git_cache_load(h->state_home, key, &a.status, a.out,
	    sizeof(a.out), &a.len)) {
		probe_git_answer(h, &a);
		return;
	}
	if (probe_git_run(h, env, &a) < 0)
		return;
	probe_git_answer(h, &a);
	/* Not an answer of git's: asked again next time. */
	if (key && a.status >= 0 && WIFEXITED(a.status) &&
	    WEXITSTATUS(a.status) != 127 && a.len < sizeof(a.out)) {
		*ret_new = a;
		*ret_key = steal_ptr(&key);
	}
}

static void
git_identity_keep(const struct host *h, const char *key,
    const struct git_answer *a)
{
	if (key && a->status >= 0)
		git_cache_save(h->state_home, key, a->status, a->out, a->len);
}

/*
 * CONFINE_BACKEND: the backend when neither --backend nor the profile's
 * backend key says which.
 */
static int
backend_from_env(struct cli_opts *o, char *const *env, char **cause)
{
	const char *v = env_get(env, "CONFINE_BACKEND");
	autofree char *why = NULL;

	if (o->backend_set || v == NULL || v[0] == '\0')
		return 0;
	if (syntax_word(v, syntax_backends, &why) < 0) {
		*cause = xasprintf("CONFINE_BACKEND: %s", why);
		return -1;
	}
	o->backend = (enum plan_backend)syntax_word_index(v, syntax_backends);
	o->backend_set = true;
	o->backend_origin = "environment CONFINE_BACKEND";
	return 0;
}

/*
 * The backend asked for, before the policy: is bwrap worth probing, and
 * must the probe try a sandbox (auto's choice depends on it)?
 */
static bool
may_use_bwrap(const struct cli_opts *o, const struct profile *pr,
    const struct host *h, bool *trial)
{
	const char *want = o->backend_set ? syntax_backends[o->backend] :
	    pr->backend.value ? pr->backend.value : "auto";

	*trial = !streq(want, "bwrap");
	if (o->session_layout && streq(o->session_layout, "copy"))
		return true;
	return streq(want, "bwrap") || (streq(want, "auto") && h->userns_why);
}

/*
 * Does auto's choice hang on whether user namespaces work?  Then the probe
 * tries to create one (a fork and a clone, ~0.3 ms), as the sysctls do not
 * show a container's seccomp filter; auto picks from the answer, once.
 * native asked for (or an overlay session's, which only native enters)
 * needs no trial: if creating them fails, its start refuses (125) and
 * says so; nothing else is tried.  bwrap or landlock: native is out.
 */
static bool
may_use_native_by_auto(const struct cli_opts *o, const struct profile *pr)
{
	const char *want = o->backend_set ? syntax_backends[o->backend] :
	    pr->backend.value ? pr->backend.value : "auto";

	return streq(want, "auto") && o->session_layout == NULL;
}

/* Can the backend be landlock?  Then the keys it would show are a fact. */
static bool
may_use_landlock(const struct cli_opts *o, const struct profile *pr,
    const struct host *h)
{
	const char *want = o->backend_set ? syntax_backends[o->backend] :
	    pr->backend.value ? pr->backend.value : "auto";

	if (o->session_layout && streq(o->session_layout, "copy"))
		return true;
	return streq(want, "landlock") || (streq(want, "auto") &&
	    h->userns_why);
}

int
main(int argc, char **argv)
{
	struct cli_opts opts = { 0 };
	struct host host = { 0 };
	struct plan plan;
	struct profile profile = { 0 };
	autostrv char **env = NULL, **keep = NULL;
	struct env_area area;
	autofree char *cause = NULL, *hint = NULL, *reason = NULL;
	autofree char *git_key = NULL;
	struct git_answer git_new;
	autoclose int state_lock = -1;
	uint64_t cap;
	size_t i;
	int r, status;
	bool trial;

	sanitize_fds();
	env = env_snapshot(argc, argv, &area);
	if (cli_parse(argc, argv, &opts, &cause) < 0) {
		fprintf(stderr, "confine: %s\nhint: see 'confine --help'\n",
		    cause);
		return EXIT_CONFINE;
	}
	log_set_level(opts.verbosity);
	switch (opts.cmd) {
	case CLI_HELP:
		fputs(cli_usage, stdout);
		return 0;
	case CLI_VERSION:
		printf("confine %s\n", PACKAGE_VERSION);
		return 0;
	case CLI_DOCTOR:
		status = doctor_run();
		goto done;
	case CLI_PROFILE_LIST:
		status = subcmd_profile_list(env);
		goto done;
	case CLI_PROFILE_SHOW:
		status = subcmd_profile_show(&opts, env);
		goto done;
	case CLI_PROFILE_CHECK:
		status = subcmd_profile_check(&opts, env);
		goto done;
	case CLI_TRUST:
		status = subcmd_trust(&opts, env);
		goto done;
	case CLI_LS:
		status = session_ls(&opts, env);
		goto done;
	case CLI_SHOW:
		status = session_show(&opts, env);
		goto done;
	case CLI_DIFF:
		status = session_diff(&opts, env);
		goto done;
	case CLI_APPLY:
		status = session_apply(&opts, env);
		goto done;
	case CLI_DROP:
		status = session_drop(&opts, env);
		goto done;
	case CLI_STOP:
		status = session_stop(&opts, env);
		goto done;
	case CLI_STATE_LS:
		status = state_ls(env);
		goto done;
	case CLI_STATE_SHOW:
		status = state_show(&opts, env);
		goto done;
	case CLI_STATE_DROP:
		status = state_drop(&opts, env);
		goto done;
	case CLI_ENTER:
		session_enter_opts(&opts, env, &keep);
		break;
	case CLI_RUN:
		break;
	}

	/* A cap that is not a size: refused before anything is made. */
	if (session_cap(env, &cap, &cause) < 0)
		goto refuse;
	if (probe_host(env, opts.workspace, &host, &cause) < 0)
		die("%s", cause);
	git_identity(&host, env, &git_key, &git_new);
	if (host.git_why)
		log_warn("git identity: not given to the command: %s",
		    host.git_why);
	if (choose_profile(&opts, &host, &profile, &reason, &cause, &hint) < 0)
		goto refuse;
	if (!profile.backend.value && backend_from_env(&opts, env, &cause) < 0)
		goto refuse;
	if (may_use_native_by_auto(&opts, &profile))
		probe_userns_trial(&host);
	if (may_use_bwrap(&opts, &profile, &host, &trial))
		probe_bwrap(&host, trial);
	if (may_use_landlock(&opts, &profile, &host))
		host.keys_shown = probe_keys_shown();
	if (policy_allow_list(&profile))
		probe_etc_private(&host);
	/* The profile may name the workspace; an option still wins. */
	if (choose_workspace(&opts, &host, &profile, &cause) < 0)
		goto refuse;
	/* The agent's kept state: this session's alone, or not kept. */
	if (!opts.dry_run &&
	    (r = agent_state_lock(&host, &profile, &state_lock)) < 0)
		die_errno(-r, "state: cannot lock the state of profile '%s'",
		    profile.name);
	if (policy_compute(&opts, &host, env, &profile, reason, &plan, &cause,
	    &hint) < 0)
		goto refuse;
	if (state_lock >= 0)
		agent_state_claim(state_lock, plan.session_id);
	if (plan.state_busy && !opts.dry_run)
		log_msg("%s", plan.state_busy);
	if (opts.dry_run) {
		plan_dump(&plan, stdout);
		plan_free(&plan);
		profile_free(&profile);
		host_free(&host);
		cli_opts_free(&opts);
		return 0;
	}
	probe_bwrap_note(&host);
	/* An asked limit no engine here applies: nothing is made. */
	if (plan.limits_engine.refused) {
		cause = xstrdup(plan.limits_engine.refused);
		plan_free(&plan);
		goto refuse;
	}
	if (plan.run_refused) {
		cause = xasprintf("%s", plan.run_refused);
		hint = xasprintf("run confine as an unprivileged user, or use "
		    "a quadrant without leg C (sealed, offline)");
		plan_free(&plan);
		goto refuse;
	}
	if (plan.warn_trusted)
		log_warn("quadrant trusted (profile %s): the command may read "
		    "private data and communicate externally; only for input "
		    "you trust", plan.profile);
	log_info("profile: %s (%s)", plan.profile, plan.profile_reason);
	log_info("backend: %s", plan.backend_reason);
	log_info("landlock: ABI %d", plan.landlock.abi);
	for (i = 0; i < plan.ndegraded; i++)
		log_info("missing: %s", plan.degraded[i]);
	/* On every run but with -q: what this backend does not protect. */
	if (plan.nweaker && opts.verbosity >= 0)
		fprintf(stderr, "confine: backend %s: weaker than native: %s%s\n",
		    plan.backend == PLAN_BACKEND_BWRAP ? "bwrap" : "landlock",
		    plan.weaker[0], plan.nweaker > 1 ? " (and more: "
		    "--dry-run)" : "");
	for (i = 1; i < plan.nweaker; i++)
		log_info("weaker: %s", plan.weaker[i]);
	log_info("workspace: %s", plan.workspace);
	log_info("session: %s", plan.session_dir);
	if (plan.reenter)
		log_msg("session %s: entering its tree (%s)", plan.session_id,
		    plan.workspace);
	else
		session_recover(plan.session_dir, plan.workspace);
	status = sandbox_run(&plan, &area);
	git_identity_keep(&host, git_key, &git_new);
	session_settle(plan.session_dir, cap);
	profile_free(&profile);
	host_free(&host);
	plan_free(&plan);
	cli_opts_free(&opts);
	return status;
done:
	cli_opts_free(&opts);
	return status;
refuse:
	fprintf(stderr, "confine: %s\n", cause);
	if (hint)
		fprintf(stderr, "hint: %s\n", hint);
	profile_free(&profile);
	host_free(&host);
	cli_opts_free(&opts);
	return EXIT_CONFINE;
}
