// SPDX-License-Identifier: ISC
/*
 * cli.c - argv to struct cli_opts.  Pure: getopt_long and nothing else.
 *
 * The first word may be a subcommand (run, doctor); any other first word
 * that is not an option starts the command, so "confine claude" runs claude
 * and "confine run doctor" or "confine -- doctor" runs a program named doctor.
 */
#include "config.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util.h"

const char cli_usage[] =
"usage: confine [OPTIONS] [--] COMMAND [ARG...]\n"
"       confine run [OPTIONS] [--] COMMAND [ARG...]\n"
"       confine doctor\n"
"\n"
"Run COMMAND in a confinement that cannot write to the host: the workspace\n"
"(the git top level of the current directory) is writable through an overlay\n"
"whose changes stay in the session directory; the rest of / is read-only,\n"
"the home directory is an empty scratch tmpfs, and there is no network:\n"
"a private loopback only, with TCP refused.\n"
"\n"
"Options:\n"
"  -w, --workspace DIR     the tree to present writable-by-diff\n"
"                          (default: the git top level of '.', else '.')\n"
"      --env NAME[=VALUE]  pass NAME from the environment, or set it\n"
"  -n, --network MODE      network mode: none (the default: a private\n"
"                          loopback, TCP bind and connect refused)\n"
"      --backend BACKEND   how to build the confinement: auto, native\n"
"      --dry-run           print the plan and the rule-of-two verdict;\n"
"                          run nothing\n"
"  -q, --quiet             print only errors\n"
"  -v, --verbose           say more (twice: debug)\n"
"  -h, --help              show this help\n"
"  -V, --version           show the version\n"
"\n"
"Subcommands:\n"
"  run       run COMMAND (the default when the first word is not one)\n"
"  doctor    show what this kernel supports and the backend auto picks\n"
"\n"
"Exit status: the command's own; 128+N if it was killed by signal N;\n"
"125 if confine failed or refused; 126 if COMMAND cannot be executed;\n"
"127 if it was not found.\n";

enum { OPT_ENV = 256, OPT_BACKEND, OPT_DRY_RUN };

static const struct option longopts[] = {
	{ "workspace",	required_argument,	NULL, 'w' },
	{ "env",	required_argument,	NULL, OPT_ENV },
	{ "network",	required_argument,	NULL, 'n' },
	{ "backend",	required_argument,	NULL, OPT_BACKEND },
	{ "dry-run",	no_argument,		NULL, OPT_DRY_RUN },
	{ "quiet",	no_argument,		NULL, 'q' },
	{ "verbose",	no_argument,		NULL, 'v' },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, 'V' },
	{ NULL,		0,			NULL, 0 }
};

static bool
env_name_ok(const char *s)
{
	size_t n = strcspn(s, "=");
	size_t i;

	if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!(c == '_' || (c >= 'a' && c <= 'z') ||
		    (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
			return false;
	}
	return true;
}

int
cli_parse(int argc, char **argv, struct cli_opts *ret, char **cause)
{
	struct cli_opts o = { .cmd = CLI_RUN };
	int first = 1, c;

	*cause = NULL;
	if (argc > 1 && streq(argv[1], "doctor")) {
		if (argc > 2) {
			*cause = xasprintf("doctor takes no arguments");
			return -1;
		}
		o.cmd = CLI_DOCTOR;
		*ret = o;
		return 0;
	}
	if (argc > 1 && streq(argv[1], "run"))
		first = 2;

	/* "+": stop at the first non-option, which starts the command. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc - first + 1, argv + first - 1,
	    "+:w:n:qvhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'w':
			if (optarg[0] == '\0') {
				*cause = xasprintf("--workspace: empty path");
				goto fail;
			}
			o.workspace = optarg;
			break;
		case OPT_ENV:
			if (!env_name_ok(optarg)) {
				*cause = xasprintf("--env '%s': not a variable "
				    "name (letters, digits and _, not starting "
				    "with a digit)", optarg);
				goto fail;
			}
			o.env = xreallocarray(o.env, o.nenv + 1,
			    sizeof(*o.env));
			o.env[o.nenv++] = optarg;
			break;
		case 'n':
			if (!streq(optarg, "none")) {
				*cause = xasprintf("--network '%s': this build "
				    "supports only 'none'", optarg);
				goto fail;
			}
			o.net = PLAN_NET_NONE;
			break;
		case OPT_BACKEND:
			if (streq(optarg, "auto"))
				o.backend = PLAN_BACKEND_AUTO;
			else if (streq(optarg, "native"))
				o.backend = PLAN_BACKEND_NATIVE;
			else {
				*cause = xasprintf("--backend '%s': this build "
				    "supports 'auto' and 'native'", optarg);
				goto fail;
			}
			break;
		case OPT_DRY_RUN:
			o.dry_run = true;
			break;
		case 'q':
			o.verbosity = -1;
			break;
		case 'v':
			if (o.verbosity < 2)
				o.verbosity = o.verbosity < 0 ? 1 :
				    o.verbosity + 1;
			break;
		case 'h':
			o.cmd = CLI_HELP;
			break;
		case 'V':
			o.cmd = CLI_VERSION;
			break;
		case ':':
			/* optopt is the short option's letter, or a long
			 * option's value (>= 256): then name the word. */
			if (optopt > 0 && optopt < 256)
				*cause = xasprintf("option '-%c' needs a value",
				    optopt);
			else
				*cause = xasprintf("option '%s' needs a value",
				    argv[first - 2 + optind]);
			goto fail;
		default:
			if (optopt > 0 && optopt < 256)
				*cause = xasprintf("unknown option '-%c'",
				    optopt);
			else
				*cause = xasprintf("unknown option '%s'",
				    argv[first - 2 + optind]);
			goto fail;
		}
	}
	if (o.cmd == CLI_RUN) {
		if (first - 1 + optind >= argc) {
			*cause = xasprintf("no command given");
			goto fail;
		}
		o.argv = argv + first - 1 + optind;
	}
	*ret = o;
	return 0;
fail:
	free(o.env);
	return -1;
}

void
cli_opts_free(struct cli_opts *o)
{
	free(o->env);
	o->env = NULL;
	o->nenv = 0;
}
