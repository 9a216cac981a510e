/* SPDX-License-Identifier: ISC */
/*
 * input/cli.h - the command line as data.  Pure: no I/O, no environment.
 */
#ifndef CONFINE_CLI_H
#define CONFINE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "input/values.h"

enum cli_cmd { CLI_RUN, CLI_DOCTOR, CLI_HELP, CLI_VERSION, CLI_PROFILE_LIST,
	CLI_PROFILE_SHOW, CLI_PROFILE_CHECK, CLI_TRUST, CLI_LS, CLI_SHOW,
	CLI_DIFF, CLI_APPLY, CLI_DROP, CLI_ENTER, CLI_STATE_LS, CLI_STATE_SHOW,
	CLI_STATE_DROP, CLI_STOP };

/* Values of a repeatable option, borrowed from argv. */
struct cli_list {
	const char	**v;
	size_t		 n;
};

/* A resource limit's option: its value (0: none) when set. */
struct cli_limit {
	uint64_t	 value;
	bool		 set;
};

struct cli_opts {
	enum cli_cmd	 cmd;
	char		**argv;		/* borrowed: the command and its args,
					   or the subcommand's operands */
	const char	*profile;	/* -p NAME|FILE, borrowed */
	const char	*workspace;	/* borrowed; NULL: the default;
					   apply --workspace: the one applied */
	struct cli_list	 more_ws;	/* further --workspace DIRs */
	struct cli_list	 ro_ws;		/* --ro-workspace DIRs */
	struct cli_list	 env;		/* NAME or NAME=VALUE */
	struct cli_list	 allow, endpoint;
	struct cli_list	 ro, hide, scratch, direct;
	enum plan_net	 net;
	bool		 net_set;
	enum plan_backend backend;
	bool		 backend_set;
	const char	*backend_origin;	/* "option --backend" or the
						   environment's CONFINE_BACKEND */
	/* --memory, --tasks, --cpus (thousandths), --disk */
	struct cli_limit memory, tasks, cpus, disk;
	const char	*session_layout;	/* enter: "overlay" or "copy" */
	bool		 dry_run;
	bool		 clipboard;	/* --clipboard */
	bool		 yes;		/* apply, drop, state drop --yes */
	bool		 all;		/* ls --all, drop --all */
	bool		 drop_empty;	/* drop --empty */
	bool		 drop_applied;	/* drop --applied */
	long long	 older_than;	/* drop --older-than, in seconds;
					   -1: not given */
	bool		 commits;	/* apply --commits, diff --commits */
	int		 color;		/* diff: 1 --color, -1 --no-color,
					   0 on a terminal */
	const char	*session_id;	/* enter: the session to re-enter */
	bool		 as_left;	/* enter --as-left: its own tree */
	const char	*enter_from;	/* enter: the session directory whose
					   patch seeds a new session */
	int		 verbosity;	/* -1 quiet, 0, 1 -v, 2 -vv */
};

/*
 * Parse argv.  Returns 0 and fills *ret, or -1 with *cause set to a heap
 * string naming the bad option (the caller prints it and exits 125).
 */
int	cli_parse(int argc, char **argv, struct cli_opts *ret, char **cause);
void	cli_opts_free(struct cli_opts *);
/* The --help text. */
extern const char cli_usage[];

#endif
