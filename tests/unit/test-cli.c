// SPDX-License-Identifier: ISC
/*
 * test-cli.c - cli_parse: subcommands, options, the command and its own
 * options, and the causes of refused command lines.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util.h"

#include "tap.h"

struct parsed {
	int		 r;
	struct cli_opts	 o;
	char		*cause;
	char		**argv;		/* owns the words cli_parse borrows */
	char		*line;		/* the command line, for test names */
};

#define CMD(...)	((const char *const[]){ "confine", __VA_ARGS__, NULL })
#define CMD0		((const char *const[]){ "confine", NULL })

static const struct cli_opts sentinel = {
	.cmd = CLI_VERSION, .workspace = "sentinel", .nenv = 99,
	.verbosity = 42
};

static void
parse(struct parsed *p, const char *const *words)
{
	size_t n = 0, i, len = 0;

	while (words[n])
		n++;
	p->argv = xcalloc(n + 1, sizeof(*p->argv));
	for (i = 0; i < n; i++) {
		p->argv[i] = xstrdup(words[i]);
		len += strlen(words[i]) + 3;
	}
	p->line = xcalloc(1, len + 1);
	for (i = 0; i < n; i++) {
		strcat(p->line, i > 0 ? " " : "");
		strcat(p->line, words[i][0] ? words[i] : "''");
	}
	p->o = sentinel;
	p->cause = NULL;
	p->r = cli_parse((int)n, p->argv, &p->o, &p->cause);
}

static void
parsed_free(struct parsed *p)
{
	if (p->r == 0)
		cli_opts_free(&p->o);
	strv_free(p->argv);
	free(p->cause);
	free(p->line);
}

/* Parses to CLI_RUN with the given command vector. */
static void
expect_cmd(const char *const *cmdline, const char *want)
{
	struct parsed p;
	char *got;

	parse(&p, cmdline);
	if (!is_int(p.r, 0, "'%s' parses", p.line))
		diag("cause: %s", p.cause ? p.cause : "(NULL)");
	if (p.r == 0) {
		is_int(p.o.cmd, CLI_RUN, "'%s' runs a command", p.line);
		got = tap_strv(p.o.argv);
		is_str(got, want, "'%s' runs %s", p.line, want);
		free(got);
	}
	parsed_free(&p);
}

/* Fails with a cause that holds each of the NULL-terminated needles. */
static void
expect_fail(const char *const *cmdline, const char *needle,
    const char *needle2)
{
	struct parsed p;

	parse(&p, cmdline);
	is_int(p.r, -1, "'%s' is refused", p.line);
	if (!ok(p.cause && strstr(p.cause, needle) &&
	    (needle2 == NULL || strstr(p.cause, needle2)),
	    "'%s': the cause names '%s'%s%s", p.line, needle,
	    needle2 ? " and " : "", needle2 ? needle2 : ""))
		diag("cause: %s", p.cause ? p.cause : "(NULL)");
	if (p.r != 0)
		ok(p.o.cmd == sentinel.cmd &&
		    p.o.workspace == sentinel.workspace &&
		    p.o.nenv == sentinel.nenv &&
		    p.o.verbosity == sentinel.verbosity,
		    "'%s': the options are not written on failure", p.line);
	parsed_free(&p);
}

/* Fails with a cause holding one of two spellings of the option. */
static void
expect_fail_either(const char *const *cmdline, const char *a, const char *b)
{
	struct parsed p;

	parse(&p, cmdline);
	is_int(p.r, -1, "'%s' is refused", p.line);
	if (!ok(p.cause && (strstr(p.cause, a) || strstr(p.cause, b)),
	    "'%s': the cause names '%s' or '%s'", p.line, a, b))
		diag("cause: %s", p.cause ? p.cause : "(NULL)");
	parsed_free(&p);
}

static void
test_commands(void)
{
	struct parsed p;

	parse(&p, CMD("ls"));
	is_int(p.r, 0, "plain command parses");
	is_int(p.o.cmd, CLI_RUN, "plain command: run");
	is_str(p.o.workspace, NULL, "plain command: default workspace");
	is_int(p.o.nenv, 0, "plain command: no --env");
	is_int(p.o.net, PLAN_NET_NONE, "plain command: network none");
	is_int(p.o.backend, PLAN_BACKEND_AUTO, "plain command: backend auto");
	ok(!p.o.dry_run, "plain command: not a dry run");
	is_int(p.o.verbosity, 0, "plain command: normal verbosity");
	parsed_free(&p);

	expect_cmd(CMD("ls"), "[ls]");
	expect_cmd(CMD("run", "ls", "-la"), "[ls][-la]");
	expect_cmd(CMD("run", "doctor"), "[doctor]");
	expect_cmd(CMD("--", "doctor"), "[doctor]");
	expect_cmd(CMD("run", "--", "doctor"), "[doctor]");
	expect_cmd(CMD("run", "run"), "[run]");
	expect_cmd(CMD("--", "run", "x"), "[run][x]");
	expect_cmd(CMD("--", "-la"), "[-la]");
	expect_cmd(CMD("-v", "doctor"), "[doctor]");

	parse(&p, CMD("doctor"));
	is_int(p.r, 0, "doctor parses");
	is_int(p.o.cmd, CLI_DOCTOR, "doctor is the doctor subcommand");
	parsed_free(&p);
	expect_fail(CMD("doctor", "extra"), "doctor", NULL);
	expect_fail(CMD("doctor", "-v"), "doctor", NULL);

	/* The command's options are its own. */
	expect_cmd(CMD("ls", "-la"), "[ls][-la]");
	parse(&p, CMD("ls", "-v", "-q", "--dry-run", "-w", "/x", "-h"));
	is_int(p.r, 0, "options after the command parse");
	is_int(p.o.cmd, CLI_RUN, "-h after the command is the command's");
	is_int(p.o.verbosity, 0, "-v -q after the command are the command's");
	ok(!p.o.dry_run, "--dry-run after the command is the command's");
	is_str(p.o.workspace, NULL, "-w after the command is the command's");
	is_int(strv_len(p.o.argv), 7, "the command keeps all its words");
	parsed_free(&p);
	parse(&p, CMD("-v", "--", "ls", "--help"));
	is_int(p.o.cmd, CLI_RUN, "'-v -- ls --help' runs ls, no help");
	is_int(p.o.verbosity, 1, "'-v -- ls --help': -v is confine's");
	parsed_free(&p);

	expect_fail(CMD0, "no command", NULL);
	expect_fail(CMD("-v"), "no command", NULL);
	expect_fail(CMD("--"), "no command", NULL);
	expect_fail(CMD("run"), "no command", NULL);
	expect_fail(CMD("run", "--"), "no command", NULL);
	expect_fail(CMD("run", "-v"), "no command", NULL);
	expect_fail(CMD("-w", "/src"), "no command", NULL);
}

static void
test_workspace(void)
{
	const char *const *const good[] = {
		CMD("-w", "/src", "ls"), CMD("-w/src", "ls"),
		CMD("--workspace", "/src", "ls"), CMD("--workspace=/src", "ls"),
		CMD("run", "-w", "/src", "ls"),
		CMD("-w", "/a", "-w", "/src", "ls"),
	};
	struct parsed p;
	size_t i;

	for (i = 0; i < nitems(good); i++) {
		parse(&p, good[i]);
		is_int(p.r, 0, "'%s' parses", p.line);
		is_str(p.o.workspace, "/src", "'%s': workspace /src", p.line);
		parsed_free(&p);
	}
	expect_fail(CMD("-w", "", "ls"), "workspace", NULL);
	expect_fail(CMD("--workspace=", "ls"), "workspace", NULL);
}

static void
test_env(void)
{
	static const char *const bad[] = { "1X", "A-B", "=x", "", "A B",
	    "Ä", "-x", "9=1" };
	struct parsed p;
	size_t i;

	parse(&p, CMD("--env", "DISPLAY", "--env=FOO=bar=baz", "--env", "_X1=",
	    "ls"));
	is_int(p.r, 0, "--env NAME and NAME=VALUE parse");
	if (is_int(p.o.nenv, 3, "three --env values")) {
		is_str(p.o.env[0], "DISPLAY", "--env NAME kept as given");
		is_str(p.o.env[1], "FOO=bar=baz",
		    "--env=NAME=VALUE kept whole");
		is_str(p.o.env[2], "_X1=", "--env NAME= (empty value) kept");
	}
	parsed_free(&p);
	expect_cmd(CMD("--env", "A=1", "ls"), "[ls]");

	for (i = 0; i < nitems(bad); i++) {
		const char *const cmd[] = { "confine", "--env", bad[i], "ls",
		    NULL };
		autofree char *quoted = xasprintf("'%s'", bad[i]);

		expect_fail(cmd, "--env", quoted);
	}
}

static void
test_network_backend(void)
{
	struct parsed p;

	parse(&p, CMD("-n", "none", "ls"));
	is_int(p.r, 0, "-n none parses");
	is_int(p.o.net, PLAN_NET_NONE, "-n none: network none");
	parsed_free(&p);
	parse(&p, CMD("--network=none", "ls"));
	is_int(p.r, 0, "--network=none parses");
	parsed_free(&p);
	expect_fail(CMD("-n", "host", "ls"), "network", "'host'");
	expect_fail(CMD("--network", "proxy", "ls"), "network", "'proxy'");
	expect_fail(CMD("--network", "", "ls"), "network", "''");
	expect_fail(CMD("-n", "None", "ls"), "network", "'None'");

	parse(&p, CMD("--backend", "native", "ls"));
	is_int(p.r, 0, "--backend native parses");
	is_int(p.o.backend, PLAN_BACKEND_NATIVE, "--backend native: native");
	parsed_free(&p);
	parse(&p, CMD("--backend=native", "--backend", "auto", "ls"));
	is_int(p.r, 0, "--backend auto parses");
	is_int(p.o.backend, PLAN_BACKEND_AUTO, "the last --backend wins: auto");
	parsed_free(&p);
	expect_fail(CMD("--backend", "bwrap", "ls"), "backend", "'bwrap'");
	expect_fail(CMD("--backend=", "ls"), "backend", "''");
}

static void
test_flags(void)
{
	const struct {
		const char *const *cmd;
		int		 verbosity;
	} v[] = {
		{ CMD("-q", "ls"), -1 }, { CMD("--quiet", "ls"), -1 },
		{ CMD("-v", "ls"), 1 }, { CMD("--verbose", "ls"), 1 },
		{ CMD("-v", "-v", "ls"), 2 }, { CMD("-vv", "ls"), 2 },
		{ CMD("-vvv", "ls"), 2 }, { CMD("-q", "-v", "ls"), 1 },
		{ CMD("-v", "-q", "ls"), -1 },
		{ CMD("run", "--verbose", "--verbose", "ls"), 2 },
	};
	struct parsed p;
	size_t i;

	for (i = 0; i < nitems(v); i++) {
		parse(&p, v[i].cmd);
		if (is_int(p.r, 0, "'%s' parses", p.line))
			is_int(p.o.verbosity, v[i].verbosity,
			    "'%s': verbosity %d", p.line, v[i].verbosity);
		parsed_free(&p);
	}

	parse(&p, CMD("--dry-run", "ls"));
	is_int(p.r, 0, "--dry-run parses");
	ok(p.o.dry_run, "--dry-run: a dry run");
	parsed_free(&p);

	parse(&p, CMD("-h"));
	is_int(p.r, 0, "-h needs no command");
	is_int(p.o.cmd, CLI_HELP, "-h: help");
	parsed_free(&p);
	parse(&p, CMD("--help"));
	is_int(p.o.cmd, CLI_HELP, "--help: help");
	parsed_free(&p);
	parse(&p, CMD("-V"));
	is_int(p.r, 0, "-V needs no command");
	is_int(p.o.cmd, CLI_VERSION, "-V: version");
	parsed_free(&p);
	parse(&p, CMD("--version"));
	is_int(p.o.cmd, CLI_VERSION, "--version: version");
	parsed_free(&p);
}

static void
test_bad_options(void)
{
	struct parsed p;

	expect_fail(CMD("--bogus", "ls"), "--bogus", NULL);
	expect_fail(CMD("--bogus=1", "ls"), "--bogus", NULL);
	expect_fail(CMD("run", "--bogus", "ls"), "--bogus", NULL);
	expect_fail(CMD("-x", "ls"), "-x", NULL);
	expect_fail(CMD("-vx", "ls"), "-x", NULL);
	expect_fail(CMD("run", "-v", "-Z", "ls"), "-Z", NULL);
	/* --ver could be --verbose or --version. */
	expect_fail(CMD("--ver", "ls"), "--ver", NULL);

	/* A value missing at the end of the line. */
	expect_fail(CMD("-w"), "-w", NULL);
	expect_fail(CMD("-n"), "-n", NULL);
	expect_fail(CMD("-v", "-w"), "-w", NULL);
	expect_fail(CMD("run", "-w"), "-w", NULL);
	expect_fail_either(CMD("--workspace"), "--workspace", "-w");
	expect_fail_either(CMD("--network"), "--network", "-n");
	expect_fail(CMD("--env"), "--env", NULL);
	expect_fail(CMD("--backend"), "--backend", NULL);
	expect_fail(CMD("run", "--env"), "--env", NULL);

	/* A value given to an option that takes none. */
	expect_fail(CMD("--dry-run=yes", "ls"), "--dry-run", NULL);
	expect_fail_either(CMD("--quiet=1", "ls"), "--quiet", "-q");

	/* A refused parse leaves nothing behind for the next one. */
	parse(&p, CMD("-xv", "ls"));
	parsed_free(&p);
	parse(&p, CMD("-q", "ls"));
	is_int(p.r, 0, "a parse after a refused one succeeds");
	is_int(p.o.verbosity, -1, "it does not inherit the refused -v");
	parsed_free(&p);
}

int
main(void)
{
	test_commands();
	test_workspace();
	test_env();
	test_network_backend();
	test_flags();
	test_bad_options();
	return done();
}
