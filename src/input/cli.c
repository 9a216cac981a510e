// SPDX-License-Identifier: ISC
/*
 * input/cli.c - argv to struct cli_opts.  Pure: getopt_long and nothing else.
 *
 * The first word may be a subcommand (run, doctor, profile, trust); any
 * other first word that is not an option starts the command, so "confine
 * claude" runs claude and "confine run doctor" or "confine -- doctor" runs a
 * program named doctor.
 */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "input/cli.h"
#include "input/values.h"
#include "lib/util.h"

const char cli_usage[] =
"usage: confine [OPTIONS] [--] COMMAND [ARG...]\n"
"       confine run [OPTIONS] [--] COMMAND [ARG...]\n"
"       confine profile list | show NAME | check FILE...\n"
"       confine trust [FILE]\n"
"       confine ls [--all] | show [SESSION] | stop SESSION\n"
"       confine diff [--commits] [--color | --no-color] [SESSION]\n"
"       confine drop SESSION... | drop [--yes] --empty | --applied |\n"
"                    --older-than DURATION | --all\n"
"       confine state ls | show PROFILE | drop [--yes] PROFILE\n"
"       confine apply [--yes] [--commits] [--workspace DIR] [SESSION]\n"
"       confine enter [--as-left] [SESSION] [COMMAND [ARG...]]\n"
"       confine doctor\n"
"\n"
"Run COMMAND in a confinement that cannot write to the host: the workspace\n"
"(the git top level of the current directory) is writable through an overlay\n"
"whose changes stay in the session directory; the rest of / is read-only,\n"
"the home directory is an empty scratch tmpfs, and there is no network:\n"
"a private loopback only, the sandbox's own.  A profile can grant more,\n"
"within the rule of two (see confine-profile(5)).\n"
"\n"
"Options:\n"
"  -p, --profile NAME|FILE the profile (default: the trusted .confine.ini of\n"
"                          the workspace, else one named after COMMAND,\n"
"                          else sealed)\n"
"  -w, --workspace DIR     the tree to present writable-by-diff\n"
"                          (default: the git top level of '.', else '.');\n"
"                          again: a further workspace, its own patch\n"
"      --ro-workspace DIR  a further workspace shown read-only at its\n"
"                          path; nothing of it is exported\n"
"  -n, --network MODE      none (the default: a private loopback of the\n"
"                          sandbox's own), proxy, or host\n"
"      --allow HOST[:PORT] allow a destination through the proxy\n"
"                          (implies proxy; counts as leg C)\n"
"      --endpoint HOST[:PORT]\n"
"                          the agent's model endpoint, a raw tunnel\n"
"                          through the proxy (implies proxy; counts as\n"
"                          leg C: any key works inside it; a profile's\n"
"                          [credential] inject is not)\n"
"      --ro PATH           show PATH read-only\n"
"      --hide PATH         make PATH invisible\n"
"      --scratch PATH      make PATH writable, changes discarded\n"
"      --direct PATH       make PATH writable on the host (leg C)\n"
"      --env NAME[=VALUE]  pass NAME from the environment, or set it\n"
"      --backend BACKEND   auto, native, bwrap or landlock\n"
"      --memory SIZE|none  the sandbox's memory, every tmpfs in it too\n"
"                          (K, M, G, T: powers of 1024; default: half\n"
"                          of the host's)\n"
"      --tasks N|none      processes and threads at once (default 4096)\n"
"      --cpus N|none       CPU time, in CPUs (1.5; default none: the\n"
"                          sandbox's CPU weight lowered)\n"
"      --disk SIZE|none    what the session may write (default: 10G or\n"
"                          a quarter of the free space, the smaller)\n"
"      --clipboard         let the command set the clipboard (OSC 52\n"
"                          writes; never read it)\n"
"      --dry-run           print the effective policy, where each value\n"
"                          came from, and the rule-of-two verdict;\n"
"                          run nothing\n"
"  -q, --quiet             print only errors\n"
"  -v, --verbose           say more (twice: debug)\n"
"  -h, --help              show this help\n"
"  -V, --version           show the version\n"
"\n"
"Subcommands:\n"
"  run                  run COMMAND (the default when the first word is\n"
"                       not a subcommand)\n"
"  profile list         list the profiles and where they are\n"
"  profile show NAME    print a profile's effective policy\n"
"  profile check FILE...  check profiles and their rule-of-two verdict\n"
"  ls [--all]           list the current workspace's sessions (--all:\n"
"                       every workspace's; a session's further workspaces\n"
"                       on lines below it): id, age, files changed, size\n"
"                       on disk, state (a running one's memory and\n"
"                       tasks too), command\n"
"  show [SESSION]       the report of a session (default, for show, diff,\n"
"                       apply and enter: the latest of the current\n"
"                       workspace); exports it first if that has not\n"
"                       happened\n"
"  diff [--commits] [--color | --no-color] [SESSION]\n"
"                       print the session's patch (on a terminal: made\n"
"                       safe for it, coloured as git colours a diff but\n"
"                       for NO_COLOR, and paged with $PAGER, else\n"
"                       sensible-pager, else less -FRX); --commits\n"
"                       prints each commit the agent made: its author\n"
"                       and message, then its own change; --color\n"
"                       colours (made safe) into a pipe too, --no-color\n"
"                       never\n"
"  apply [--yes] [--commits] [--workspace DIR] [SESSION]\n"
"                       apply the patch to the workspace, all or nothing,\n"
"                       running no hook, filter or git; asks first on a\n"
"                       terminal; --commits also creates the agent's\n"
"                       commits, rebuilt from their trees; a session of\n"
"                       several workspaces: each patch to its own tree,\n"
"                       all or none of them, or --workspace DIR's alone\n"
"  enter [--as-left] [SESSION] [COMMAND...]\n"
"                       run COMMAND (default: a shell) confined, under the\n"
"                       session's profile, in a new session holding the\n"
"                       workspace plus the session's patch: what apply\n"
"                       would write; its export shows the patch and the\n"
"                       command's changes; --as-left: in the session's own\n"
"                       tree as the agent left it (ignored files too),\n"
"                       whose export is updated\n"
"  stop SESSION         end a running session: SIGTERM to its command,\n"
"                       everything in it killed 5 s later; exported and\n"
"                       kept as at a normal end; waits for it\n"
"  drop SESSION...      delete sessions\n"
"  drop [--yes] --empty | --applied | --older-than DURATION | --all\n"
"                       delete the sessions of every workspace that are\n"
"                       empty, applied, older than DURATION (30m, 12h,\n"
"                       7d), or all, never a running one; asks on a\n"
"                       terminal before more than one (--yes: does not).\n"
"                       Sessions over CONFINE_SESSION_CAP (default 10G)\n"
"                       lose their oldest applied ones after a run\n"
"  state ls             list the profiles whose agent state confine keeps\n"
"                       (their persistent paths): size, last use\n"
"  state show PROFILE   the paths kept and the files changed against the\n"
"                       host's\n"
"  state drop [--yes] PROFILE\n"
"                       delete a profile's kept state: the next session\n"
"                       starts from the host's files; asks first on a\n"
"                       terminal\n"
"  trust [FILE]         trust a repository profile (default: the\n"
"                       workspace's .confine.ini), pinning its sha256\n"
"  doctor               show what this kernel supports and the backend\n"
"                       auto picks\n"
"\n"
"Exit status: the command's own; 128+N if it was killed by signal N;\n"
"125 if confine failed or refused; 126 if COMMAND cannot be executed;\n"
"127 if it was not found.\n";

enum { OPT_ENV = 256, OPT_BACKEND, OPT_DRY_RUN, OPT_ALLOW, OPT_ENDPOINT,
	OPT_RO, OPT_HIDE, OPT_SCRATCH, OPT_DIRECT, OPT_CLIPBOARD, OPT_MEMORY,
	OPT_TASKS, OPT_CPUS, OPT_DISK, OPT_RO_WORKSPACE };

static const struct option longopts[] = {
	{ "profile",	required_argument,	NULL, 'p' },
	{ "workspace",	required_argument,	NULL, 'w' },
	{ "ro-workspace", required_argument,	NULL, OPT_RO_WORKSPACE },
	{ "env",	required_argument,	NULL, OPT_ENV },
	{ "network",	required_argument,	NULL, 'n' },
	{ "allow",	required_argument,	NULL, OPT_ALLOW },
	{ "endpoint",	required_argument,	NULL, OPT_ENDPOINT },
	{ "ro",		required_argument,	NULL, OPT_RO },
	{ "hide",	required_argument,	NULL, OPT_HIDE },
	{ "scratch",	required_argument,	NULL, OPT_SCRATCH },
	{ "direct",	required_argument,	NULL, OPT_DIRECT },
	{ "backend",	required_argument,	NULL, OPT_BACKEND },
	{ "dry-run",	no_argument,		NULL, OPT_DRY_RUN },
	{ "clipboard",	no_argument,		NULL, OPT_CLIPBOARD },
	{ "memory",	required_argument,	NULL, OPT_MEMORY },
	{ "tasks",	required_argument,	NULL, OPT_TASKS },
	{ "cpus",	required_argument,	NULL, OPT_CPUS },
	{ "disk",	required_argument,	NULL, OPT_DISK },
	{ "quiet",	no_argument,		NULL, 'q' },
	{ "verbose",	no_argument,		NULL, 'v' },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, 'V' },
	{ NULL,		0,			NULL, 0 }
};

static void
push(struct cli_list *l, const char *v)
{
	l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = v;
}

/*
 * "30m", "12h", "7d": seconds.  s, m, h, d or w after a whole number;
 * -1 when it is not one.
 */
static long long
duration(const char *s)
{
	static const struct { char unit; long long secs; } units[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 },
		{ 'w', 7 * 86400 },
	};
	unsigned long long n;
	char *end;
	size_t i;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	n = strtoull(s, &end, 10);
	if (end[0] == '\0' || end[1] != '\0')
		return -1;
	for (i = 0; i < nitems(units); i++)
		if (end[0] == units[i].unit)
			return n > (unsigned long long)(LLONG_MAX / units[i].secs) ?
			    -1 : (long long)n * units[i].secs;
	return -1;
}

/*
 * drop SESSION... | drop [--yes] --empty | --applied | --older-than
 * DURATION | --all: the ids, or what selects the sessions to drop.
 */
static int
drop_args(int argc, char **argv, struct cli_opts *o, char **cause)
{
	const char *usage = "usage: confine drop SESSION... | confine drop "
	    "[--yes] --empty | --applied | --older-than DURATION | --all";
	const char *v;
	bool select = false;
	int i;

	o->cmd = CLI_DROP;
	o->older_than = -1;
	for (i = 2; i < argc && argv[i][0] == '-'; i++) {
		if (streq(argv[i], "--yes") || streq(argv[i], "-y"))
			o->yes = true;
		else if (streq(argv[i], "--empty"))
			select = o->drop_empty = true;
		else if (streq(argv[i], "--applied"))
			select = o->drop_applied = true;
		else if (streq(argv[i], "--all"))
			select = o->all = true;
		else if (strncmp(argv[i], "--older-than", 12) == 0 &&
		    (argv[i][12] == '\0' || argv[i][12] == '=')) {
			if (argv[i][12] == '=')
				v = argv[i] + 13;
			else if (i + 1 < argc)
				v = argv[++i];
			else {
				*cause = xasprintf("option '--older-than' needs "
				    "a value");
				return -1;
			}
			if ((o->older_than = duration(v)) < 0) {
				*cause = xasprintf("--older-than '%s': not a "
				    "duration (a number and s, m, h, d or w: "
				    "30m, 12h, 7d)", v);
				return -1;
			}
			select = true;
		} else if (streq(argv[i], "--")) {
			i++;
			break;
		} else {
			*cause = xasprintf("drop: unknown option '%s'",
			    argv[i]);
			return -1;
		}
	}
	o->argv = argv + i;
	if (select == (i < argc) || (o->yes && !select)) {
		*cause = xasprintf("%s", usage);
		return -1;
	}
	return 1;
}

/* Subcommands that take operands but no options. */
static int
subcommand(int argc, char **argv, struct cli_opts *o, char **cause)
{
	const char *w = argv[1];

	if (streq(w, "doctor")) {
		if (argc > 2) {
			*cause = xasprintf("doctor takes no arguments");
			return -1;
		}
		o->cmd = CLI_DOCTOR;
		return 1;
	}
	if (streq(w, "ls")) {
		if (argc > 3 || (argc == 3 && !streq(argv[2], "--all"))) {
			*cause = xasprintf("usage: confine ls [--all]");
			return -1;
		}
		o->all = argc == 3;
		o->cmd = CLI_LS;
		return 1;
	}
	if (streq(w, "show") || streq(w, "diff") || streq(w, "apply")) {
		int i = 2;

		o->cmd = streq(w, "show") ? CLI_SHOW : streq(w, "diff") ?
		    CLI_DIFF : CLI_APPLY;
		while (o->cmd != CLI_SHOW && argc > i) {
			if (o->cmd == CLI_APPLY && (streq(argv[i], "--yes") ||
			    streq(argv[i], "-y")))
				o->yes = true;
			else if (streq(argv[i], "--commits"))
				o->commits = true;
			else if (o->cmd == CLI_APPLY &&
			    streq(argv[i], "--workspace") && argc > i + 1 &&
			    argv[i + 1][0] != '\0')
				o->workspace = argv[++i];
			else if (o->cmd == CLI_DIFF && streq(argv[i], "--color"))
				o->color = 1;
			else if (o->cmd == CLI_DIFF &&
			    streq(argv[i], "--no-color"))
				o->color = -1;
			else
				break;
			i++;
		}
		if (argc > i + 1 || (argc > i && argv[i][0] == '-')) {
			*cause = xasprintf("usage: confine %s%s [SESSION]", w,
			    o->cmd == CLI_APPLY ? " [--yes] [--commits] "
			    "[--workspace DIR]" :
			    o->cmd == CLI_DIFF ? " [--commits] [--color | --no-color]" :
			    "");
			return -1;
		}
		o->argv = argv + i;
		return 1;
	}
	if (streq(w, "enter")) {
		/* enter [SESSION] [COMMAND...]: an id looks like a UTC stamp. */
		int i = 2;

		o->cmd = CLI_ENTER;
		if (argc > i && streq(argv[i], "--as-left")) {
			o->as_left = true;
			i++;
		}
		o->argv = argv + i;
		if (argc > i && strlen(argv[i]) > 16 && argv[i][8] == '-' &&
		    strspn(argv[i], "0123456789") == 8) {
			o->session_id = argv[i];
			o->argv = argv + i + 1;
		}
		if (o->argv[0] && streq(o->argv[0], "--"))
			o->argv++;
		return 1;
	}
	if (streq(w, "drop"))
		return drop_args(argc, argv, o, cause);
	if (streq(w, "stop")) {
		if (argc != 3 || argv[2][0] == '-') {
			*cause = xasprintf("usage: confine stop SESSION");
			return -1;
		}
		o->cmd = CLI_STOP;
		o->argv = argv + 2;
		return 1;
	}
	if (streq(w, "state")) {
		const char *v = argc > 2 ? argv[2] : "";
		int i = 3;

		if (streq(v, "drop") && argc > i && (streq(argv[i], "--yes") ||
		    streq(argv[i], "-y"))) {
			o->yes = true;
			i++;
		}
		o->argv = argv + i;
		if (streq(v, "ls") && argc == 3)
			o->cmd = CLI_STATE_LS;
		else if (streq(v, "show") && argc == 4 && argv[3][0] != '-')
			o->cmd = CLI_STATE_SHOW;
		else if (streq(v, "drop") && argc == i + 1 &&
		    argv[i][0] != '-')
			o->cmd = CLI_STATE_DROP;
		else {
			*cause = xasprintf("usage: confine state ls | show "
			    "PROFILE | drop [--yes] PROFILE");
			return -1;
		}
		return 1;
	}
	if (streq(w, "trust")) {
		if (argc > 3) {
			*cause = xasprintf("trust takes at most one FILE");
			return -1;
		}
		o->cmd = CLI_TRUST;
		o->argv = argv + 2;
		return 1;
	}
	if (streq(w, "profile")) {
		const char *v = argc > 2 ? argv[2] : "";

		o->argv = argv + 3;
		if (streq(v, "list") && argc == 3)
			o->cmd = CLI_PROFILE_LIST;
		else if (streq(v, "show") && argc == 4)
			o->cmd = CLI_PROFILE_SHOW;
		else if (streq(v, "check") && argc >= 4)
			o->cmd = CLI_PROFILE_CHECK;
		else {
			*cause = xasprintf("usage: confine profile list | show "
			    "NAME | check FILE...");
			return -1;
		}
		return 1;
	}
	return 0;
}

static int
path_opt(struct cli_list *l, const char *name, const char *v, char **cause)
{
	char *why = NULL;

	if (syntax_path(v, &why) < 0) {
		*cause = xasprintf("--%s: %s", name, why);
		free(why);
		return -1;
	}
	push(l, v);
	return 0;
}

static int
host_opt(struct cli_list *l, const char *name, const char *v, char **cause)
{
	char *why = NULL;

	if (syntax_host(v, &why) < 0) {
		*cause = xasprintf("--%s: %s", name, why);
		free(why);
		return -1;
	}
	push(l, v);
	return 0;
}

static int
word_opt(const char *name, const char *v, const char *const *words,
    int *ret, char **cause)
{
	char *why = NULL;

	if (syntax_word(v, words, &why) < 0) {
		*cause = xasprintf("--%s: %s", name, why);
		free(why);
		return -1;
	}
	*ret = syntax_word_index(v, words);
	return 0;
}

static int
limit_opt(const char *name, const char *v,
    int (*check)(const char *, uint64_t *, char **), struct cli_limit *ret,
    char **cause)
{
	char *why = NULL;
	uint64_t n;

	if (check(v, &n, &why) < 0) {
		*cause = xasprintf("--%s: %s", name, why);
		free(why);
		return -1;
	}
	ret->value = n;
	ret->set = true;
	return 0;
}

int
cli_parse(int argc, char **argv, struct cli_opts *ret, char **cause)
{
	struct cli_opts o = { .cmd = CLI_RUN };
	int first = 1, c, r, w;
	char *why = NULL;

	*cause = NULL;
	if (argc > 1 && (r = subcommand(argc, argv, &o, cause)) != 0) {
		if (r < 0)
			return -1;
		*ret = o;
		return 0;
	}
	if (argc > 1 && streq(argv[1], "run"))
		first = 2;

	/* "+": stop at the first non-option, which starts the command. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc - first + 1, argv + first - 1,
	    "+:p:w:n:qvhV", longopts, NULL)) != -1) {
		r = 0;
		switch (c) {
		case 'p':
			if (optarg[0] == '\0') {
				*cause = xasprintf("--profile: empty name");
				goto fail;
			}
			o.profile = optarg;
			break;
		case 'w':
			if (optarg[0] == '\0') {
				*cause = xasprintf("--workspace: empty path");
				goto fail;
			}
			if (o.workspace)
				push(&o.more_ws, optarg);
			else
				o.workspace = optarg;
			break;
		case OPT_RO_WORKSPACE:
			if (optarg[0] == '\0') {
				*cause = xasprintf("--ro-workspace: empty path");
				goto fail;
			}
			push(&o.ro_ws, optarg);
			break;
		case OPT_ENV:
			if (strchr(optarg, '=') ?
			    syntax_env_set(optarg, &why) < 0 :
			    syntax_env_name(optarg, false, &why) < 0) {
				*cause = xasprintf("--env '%s': not a variable "
				    "name (letters, digits and _, not starting "
				    "with a digit)", optarg);
				free(why);
				goto fail;
			}
			push(&o.env, optarg);
			break;
		case 'n':
			r = word_opt("network", optarg, syntax_net_modes, &w,
			    cause);
			o.net = (enum plan_net)w;
			o.net_set = true;
			break;
		case OPT_ALLOW:
			r = host_opt(&o.allow, "allow", optarg, cause);
			break;
		case OPT_ENDPOINT:
			r = host_opt(&o.endpoint, "endpoint", optarg, cause);
			break;
		case OPT_RO:
			r = path_opt(&o.ro, "ro", optarg, cause);
			break;
		case OPT_HIDE:
			r = path_opt(&o.hide, "hide", optarg, cause);
			break;
		case OPT_SCRATCH:
			r = path_opt(&o.scratch, "scratch", optarg, cause);
			break;
		case OPT_DIRECT:
			r = path_opt(&o.direct, "direct", optarg, cause);
			break;
		case OPT_BACKEND:
			r = word_opt("backend", optarg, syntax_backends, &w,
			    cause);
			o.backend = (enum plan_backend)w;
			o.backend_set = true;
			break;
		case OPT_MEMORY:
			r = limit_opt("memory", optarg, syntax_size, &o.memory,
			    cause);
			break;
		case OPT_TASKS:
			r = limit_opt("tasks", optarg, syntax_tasks, &o.tasks,
			    cause);
			break;
		case OPT_CPUS:
			r = limit_opt("cpus", optarg, syntax_cpus, &o.cpus,
			    cause);
			break;
		case OPT_DISK:
			r = limit_opt("disk", optarg, syntax_size, &o.disk,
			    cause);
			break;
		case OPT_DRY_RUN:
			o.dry_run = true;
			break;
		case OPT_CLIPBOARD:
			o.clipboard = true;
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
		if (r < 0)
			goto fail;
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
	cli_opts_free(&o);
	return -1;
}

void
cli_opts_free(struct cli_opts *o)
{
	struct cli_list *l[] = { &o->env, &o->allow, &o->endpoint, &o->ro,
	    &o->hide, &o->scratch, &o->direct, &o->more_ws, &o->ro_ws };
	size_t i;

	for (i = 0; i < nitems(l); i++) {
		free(l[i]->v);
		l[i]->v = NULL;
		l[i]->n = 0;
	}
}
