/* SPDX-License-Identifier: ISC */
/*
 * cli.h - the command line as data.  Pure: no I/O, no environment.
 */
#ifndef CONFINE_CLI_H
#define CONFINE_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "plan.h"

enum cli_cmd { CLI_RUN, CLI_DOCTOR, CLI_HELP, CLI_VERSION };

struct cli_opts {
	enum cli_cmd	 cmd;
	char		**argv;		/* borrowed: the command and its args */
	const char	*workspace;	/* borrowed; NULL: the default */
	const char	**env;		/* --env values, borrowed */
	size_t		 nenv;
	enum plan_net	 net;
	enum plan_backend backend;
	bool		 dry_run;
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
