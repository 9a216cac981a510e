// SPDX-License-Identifier: ISC
/*
 * test-cli.c - cli_parse: subcommands (profile, trust, doctor), options
 * (the profile, the network and its destinations, the paths, the
 * environment, the backend), the command and its own options, and the
 * causes of refused command lines.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "input/cli.h"
#include "policy/plan.h"
#include "lib/util.h"

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
	.cmd = CLI_VERSION, .workspace = "sentinel", .profile = "sentinel",
	.env = { NULL, 99 }, .allow = { NULL, 98 }, .ro = { NULL, 97 },
	.net_set = true, .backend_set = true, .verbosity = 42
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
	/* A control character would break the TAP line. */
	for (i = 0; p->line[i]; i++)
		if ((unsigned char)p->line[i] < 0x20)
			p->line[i] = '?';
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
		    p.o.profile == sentinel.profile &&
		    p.o.env.n == sentinel.env.n &&
		    p.o.allow.n == sentinel.allow.n &&
		    p.o.ro.n == sentinel.ro.n &&
		    p.o.net_set == sentinel.net_set &&
		    p.o.backend_set == sentinel.backend_set &&
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

	parse(&p, CMD("make"));
	is_int(p.r, 0, "plain command parses");
	is_int(p.o.cmd, CLI_RUN, "plain command: run");
	is_str(p.o.workspace, NULL, "plain command: default workspace");
	is_str(p.o.profile, NULL, "plain command: no --profile");
	ok(p.o.env.n == 0 && p.o.env.v == NULL, "plain command: no --env");
	ok(p.o.allow.n == 0 && p.o.endpoint.n == 0 && p.o.ro.n == 0 &&
	    p.o.hide.n == 0 && p.o.scratch.n == 0 && p.o.direct.n == 0,
	    "plain command: no --allow, --endpoint, --ro, --hide, --scratch, "
	    "--direct");
	is_int(p.o.net, PLAN_NET_NONE, "plain command: network none");
	ok(!p.o.net_set, "plain command: the network is not set");
	is_int(p.o.backend, PLAN_BACKEND_AUTO, "plain command: backend auto");
	ok(!p.o.backend_set, "plain command: the backend is not set");
	ok(!p.o.dry_run, "plain command: not a dry run");
	is_int(p.o.verbosity, 0, "plain command: normal verbosity");
	parsed_free(&p);

	expect_cmd(CMD("make"), "[make]");
	expect_cmd(CMD("run", "make", "-la"), "[make][-la]");
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
	expect_cmd(CMD("make", "-la"), "[make][-la]");
	parse(&p, CMD("make", "-v", "-q", "--dry-run", "-w", "/x", "-h"));
	is_int(p.r, 0, "options after the command parse");
	is_int(p.o.cmd, CLI_RUN, "-h after the command is the command's");
	is_int(p.o.verbosity, 0, "-v -q after the command are the command's");
	ok(!p.o.dry_run, "--dry-run after the command is the command's");
	is_str(p.o.workspace, NULL, "-w after the command is the command's");
	is_int(strv_len(p.o.argv), 7, "the command keeps all its words");
	parsed_free(&p);
	parse(&p, CMD("-v", "--", "make", "--help"));
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
		CMD("-w", "/src", "make"), CMD("-w/src", "make"),
		CMD("--workspace", "/src", "make"), CMD("--workspace=/src", "make"),
		CMD("run", "-w", "/src", "make"),
	};
	struct parsed p;
	size_t i;

	for (i = 0; i < nitems(good); i++) {
		parse(&p, good[i]);
		is_int(p.r, 0, "'%s' parses", p.line);
		is_str(p.o.workspace, "/src", "'%s': workspace /src", p.line);
		parsed_free(&p);
	}
	/* Again: a further workspace; --ro-workspace: a read-only one. */
	parse(&p, CMD("-w", "/a", "-w", "/src", "--ro-workspace", "/doc",
	    "--ro-workspace=/etc/x", "make"));
	is_int(p.r, 0, "'%s' parses", p.line);
	is_str(p.o.workspace, "/a", "'%s': the first workspace /a", p.line);
	ok(p.o.more_ws.n == 1 && streq(p.o.more_ws.v[0], "/src"),
	    "'%s': a further workspace /src", p.line);
	ok(p.o.ro_ws.n == 2 && streq(p.o.ro_ws.v[0], "/doc") &&
	    streq(p.o.ro_ws.v[1], "/etc/x"), "'%s': two read-only ones",
	    p.line);
	parsed_free(&p);
	expect_fail(CMD("-w", "", "make"), "workspace", NULL);
	expect_fail(CMD("--workspace=", "make"), "workspace", NULL);
	expect_fail(CMD("--ro-workspace", "", "make"), "--ro-workspace", NULL);
}

static void
test_env(void)
{
	static const char *const bad[] = { "1X", "A-B", "=x", "", "A B",
	    "Ä", "-x", "9=1" };
	struct parsed p;
	size_t i;

	parse(&p, CMD("--env", "DISPLAY", "--env=FOO=bar=baz", "--env", "_X1=",
	    "make"));
	is_int(p.r, 0, "--env NAME and NAME=VALUE parse");
	if (is_int(p.o.env.n, 3, "three --env values")) {
		is_str(p.o.env.v[0], "DISPLAY", "--env NAME kept as given");
		is_str(p.o.env.v[1], "FOO=bar=baz",
		    "--env=NAME=VALUE kept whole");
		is_str(p.o.env.v[2], "_X1=", "--env NAME= (empty value) kept");
	}
	parsed_free(&p);
	expect_cmd(CMD("--env", "A=1", "make"), "[make]");

	for (i = 0; i < nitems(bad); i++) {
		const char *const cmd[] = { "confine", "--env", bad[i], "make",
		    NULL };
		autofree char *quoted = xasprintf("'%s'", bad[i]);

		expect_fail(cmd, "--env", quoted);
	}
}

static void
test_network_backend(void)
{
	const struct {
		const char *const *cmd;
		enum plan_net	 net;
	} nets[] = {
		{ CMD("-n", "none", "make"), PLAN_NET_NONE },
		{ CMD("--network=none", "make"), PLAN_NET_NONE },
		{ CMD("-n", "proxy", "make"), PLAN_NET_PROXY },
		{ CMD("--network", "proxy", "make"), PLAN_NET_PROXY },
		{ CMD("-nhost", "make"), PLAN_NET_HOST },
		{ CMD("--network=host", "make"), PLAN_NET_HOST },
		{ CMD("run", "-n", "host", "make"), PLAN_NET_HOST },
		{ CMD("-n", "host", "-n", "none", "make"), PLAN_NET_NONE },
		{ CMD("-n", "none", "--network", "proxy", "make"),
		    PLAN_NET_PROXY },
	};
	const struct {
		const char *const *cmd;
		enum plan_backend backend;
	} backends[] = {
		{ CMD("--backend", "auto", "make"), PLAN_BACKEND_AUTO },
		{ CMD("--backend", "native", "make"), PLAN_BACKEND_NATIVE },
		{ CMD("--backend=bwrap", "make"), PLAN_BACKEND_BWRAP },
		{ CMD("--backend", "landlock", "make"), PLAN_BACKEND_LANDLOCK },
		{ CMD("run", "--backend", "bwrap", "make"), PLAN_BACKEND_BWRAP },
		{ CMD("--backend=native", "--backend", "auto", "make"),
		    PLAN_BACKEND_AUTO },
		{ CMD("--backend=landlock", "--backend", "native", "make"),
		    PLAN_BACKEND_NATIVE },
	};
	static const char *const bad_nets[] = { "", "None", "NONE", "hosts",
	    "off", "proxy ", "bwrap", "native" };
	static const char *const bad_backends[] = { "", "Native", "bubblewrap",
	    "firejail", "none", "auto ", "host" };
	struct parsed p;
	size_t i;

	for (i = 0; i < nitems(nets); i++) {
		parse(&p, nets[i].cmd);
		if (is_int(p.r, 0, "'%s' parses", p.line)) {
			is_int(p.o.net, nets[i].net, "'%s': network %s",
			    p.line, plan_net_name(nets[i].net));
			ok(p.o.net_set, "'%s': the network is set", p.line);
			ok(!p.o.backend_set, "'%s': the backend is not",
			    p.line);
		} else
			diag("cause: %s", p.cause);
		parsed_free(&p);
	}
	for (i = 0; i < nitems(bad_nets); i++) {
		const char *const cmd[] = { "confine", "-n", bad_nets[i], "make",
		    NULL };
		const char *const cmd2[] = { "confine", "run", "--network",
		    bad_nets[i], "make", NULL };
		autofree char *quoted = xasprintf("'%s'", bad_nets[i]);

		expect_fail(cmd, "network", quoted);
		expect_fail(cmd2, "network", quoted);
	}
	/* The refusal lists the words there are. */
	expect_fail(CMD("-n", "off", "make"), "--network", "none, proxy, host");

	for (i = 0; i < nitems(backends); i++) {
		parse(&p, backends[i].cmd);
		if (is_int(p.r, 0, "'%s' parses", p.line)) {
			is_int(p.o.backend, backends[i].backend,
			    "'%s': backend %d", p.line,
			    (int)backends[i].backend);
			ok(p.o.backend_set, "'%s': the backend is set", p.line);
			ok(!p.o.net_set, "'%s': the network is not", p.line);
		} else
			diag("cause: %s", p.cause);
		parsed_free(&p);
	}
	for (i = 0; i < nitems(bad_backends); i++) {
		const char *const cmd[] = { "confine", "--backend",
		    bad_backends[i], "make", NULL };
		autofree char *quoted = xasprintf("'%s'", bad_backends[i]);

		expect_fail(cmd, "backend", quoted);
	}
	expect_fail(CMD("--backend=", "make"), "backend", "''");
	expect_fail(CMD("--backend", "x", "make"), "--backend",
	    "auto, native, bwrap, landlock");

	/* After the command, they are the command's. */
	parse(&p, CMD("make", "-n", "host", "--backend", "bwrap"));
	is_int(p.r, 0, "'%s' parses", p.line);
	ok(!p.o.net_set && !p.o.backend_set && p.o.net == PLAN_NET_NONE &&
	    p.o.backend == PLAN_BACKEND_AUTO,
	    "'%s': -n and --backend after the command are the command's",
	    p.line);
	parsed_free(&p);
}

/* A repeatable option's values as one string, "[a][b]". */
static char *
list_str(const struct cli_list *l)
{
	char *s = xstrdup(""), *t;
	size_t i;

	for (i = 0; i < l->n; i++) {
		t = xasprintf("%s[%s]", s, l->v[i]);
		free(s);
		s = t;
	}
	return s;
}

static void
test_profile_option(void)
{
	const struct {
		const char *const *cmd;
		const char	*want;
	} rows[] = {
		{ CMD("-p", "offline", "make"), "offline" },
		{ CMD("-poffline", "make"), "offline" },
		{ CMD("--profile", "offline", "make"), "offline" },
		{ CMD("--profile=./agent.ini", "make"), "./agent.ini" },
		{ CMD("run", "-p", "/etc/x.ini", "make"), "/etc/x.ini" },
		{ CMD("-p", "sealed", "-p", "online", "make"), "online" },
		{ CMD("-v", "-p", "trusted", "--dry-run", "make"), "trusted" },
	};
	struct parsed p;
	size_t i;

	for (i = 0; i < nitems(rows); i++) {
		parse(&p, rows[i].cmd);
		if (is_int(p.r, 0, "'%s' parses", p.line)) {
			is_str(p.o.profile, rows[i].want, "'%s': profile %s",
			    p.line, rows[i].want);
			is_int(p.o.cmd, CLI_RUN, "'%s': runs", p.line);
		} else
			diag("cause: %s", p.cause);
		parsed_free(&p);
	}
	expect_fail(CMD("-p", "", "make"), "--profile", NULL);
	expect_fail(CMD("--profile=", "make"), "--profile", NULL);
	expect_fail(CMD("-p"), "-p", NULL);
	expect_fail(CMD("-p", "offline"), "no command", NULL);
	expect_fail_either(CMD("--profile"), "--profile", "-p");

	parse(&p, CMD("make", "-p", "x"));
	is_int(p.r, 0, "'%s' parses", p.line);
	is_str(p.o.profile, NULL, "'%s': -p after the command is the "
	    "command's", p.line);
	parsed_free(&p);
}

/* --allow and --endpoint: HOST[:PORT], as syntax_host checks it. */
static void
test_hosts(void)
{
	static const char *const good[] = { "example.com", "example.com:443",
	    "a.b.c.example.com:1", "x:65535", "*.example.com",
	    "*.example.com:8443", "192.0.2.1", "192.0.2.1:80", "[::1]",
	    "[::1]:443", "[2001:db8::1]:8080", "xn--bcher-kva.example",
	    "a-b.example", "localhost", "1a.example" };
	/* Each bad value and a word of it the refusal must quote. */
	static const struct {
		const char	*value, *quoted;
	} bad[] = {
		{ "", "''" }, { "Example.com", "'Example.com'" },
		{ "example.com.", "'example.com.'" },
		{ "example.com:0", "'example.com:0'" },
		{ "example.com:65536", "'example.com:65536'" },
		{ "example.com:0443", "'example.com:0443'" },
		{ "example.com:", "'example.com:'" },
		{ "example.com:https", "'example.com:https'" },
		{ "example.com:443:1", "'example.com:443:1'" },
		{ ":443", "''" }, { "*", "'*'" }, { "*.", "'*.'" },
		{ "a.*.example", "'a.*.example'" }, { "a..b", "'a..b'" },
		{ "-a.example", "'-a.example'" }, { "a-.example", "'a-.example'" },
		{ "a_b.example", "'a_b.example'" },
		{ "http://example.com", "'http://example.com'" },
		{ "example.com/x", "'example.com/x'" },
		{ "exa mple.com", "'exa mple.com'" },
		{ "[::1", "'[::1'" }, { "[::1]x", "'[::1]x'" },
		{ "[zz::1]:443", "'zz::1'" }, { "[192.0.2.1]", "'192.0.2.1'" },
		{ "::1", "goes in brackets" }, { "[::1]:0", "'[::1]:0'" },
		{ "ex\tample.com", "HOST[:PORT]" },
	};
	static const char *const opts[] = { "allow", "endpoint" };
	struct parsed p;
	size_t i, k;

	for (k = 0; k < nitems(opts); k++) {
		autofree char *dashed = xasprintf("--%s", opts[k]);

		for (i = 0; i < nitems(good); i++) {
			const char *const cmd[] = { "confine", dashed, good[i],
			    "make", NULL };
			const struct cli_list *l;

			parse(&p, cmd);
			l = k == 0 ? &p.o.allow : &p.o.endpoint;
			if (is_int(p.r, 0, "'%s' parses", p.line)) {
				ok(l->n == 1 && streq(l->v[0], good[i]),
				    "'%s': %s holds %s", p.line, dashed,
				    good[i]);
				ok((k == 0 ? p.o.endpoint.n : p.o.allow.n) == 0,
				    "'%s': nothing else", p.line);
				ok(!p.o.net_set, "'%s': the network mode is "
				    "left to the policy", p.line);
			} else
				diag("cause: %s", p.cause);
			parsed_free(&p);
		}
		for (i = 0; i < nitems(bad); i++) {
			const char *const cmd[] = { "confine", dashed,
			    bad[i].value, "make", NULL };

			expect_fail(cmd, dashed, bad[i].quoted);
		}
		{
			autofree char *eq = xasprintf("--%s=", opts[k]);
			const char *const cmd[] = { "confine", eq, "make", NULL };
			const char *const last[] = { "confine", dashed, NULL };
			const char *const run[] = { "confine", "run", "-v",
			    dashed, NULL };

			expect_fail(cmd, dashed, NULL);
			expect_fail(last, dashed, "needs a value");
			expect_fail(run, dashed, "needs a value");
		}
	}

	/* Repeated, they add up in order; the two lists stay apart. */
	parse(&p, CMD("--allow", "a.example", "--endpoint=api.example:443",
	    "--allow=b.example:8080", "-n", "proxy", "--allow", "[::1]:1",
	    "--endpoint", "api2.example", "make", "--allow", "c.example"));
	if (is_int(p.r, 0, "'%s' parses", p.line)) {
		autofree char *a = list_str(&p.o.allow);
		autofree char *e = list_str(&p.o.endpoint);

		autofree char *argv = tap_strv(p.o.argv);

		is_str(a, "[a.example][b.example:8080][[::1]:1]",
		    "--allow values add up in order");
		is_str(e, "[api.example:443][api2.example]",
		    "--endpoint values add up in order");
		ok(p.o.net_set && p.o.net == PLAN_NET_PROXY,
		    "-n proxy among them is kept");
		is_str(argv, "[make][--allow][c.example]",
		    "--allow after the command is the command's");
	}
	parsed_free(&p);
}

/* HOST:PORT with a sign or blanks before the port is not a port. */
static void
test_hosts_signed(void)
{
	static const char *const bad[] = { "example.com:+443",
	    "example.com: 443", "[::1]:+443" };
	struct parsed p;
	size_t i;

	for (i = 0; i < nitems(bad); i++) {
		const char *const cmd[] = { "confine", "--allow", bad[i], "make",
		    NULL };

		parse(&p, cmd);
		if (!ok(p.r == -1 && p.cause &&
		    strstr(p.cause, "--allow"), "'%s' is refused: the port "
		    "is 1 to 65535, digits only", p.line))
			diag("syntax_host takes the port with strtol, which "
			    "skips blanks and a sign");
		parsed_free(&p);
	}
}

/* --ro, --hide, --scratch, --direct: an absolute path or ~/.... */
static void
test_paths(void)
{
	static const char *const good[] = { "/", "/srv", "/srv/data",
	    "/a b/c", "/srv/.cache", "/srv/..x", "~", "~/x", "~/.config/git",
	    "/srv/-x" };
	static const struct {
		const char	*value, *word;
	} bad[] = {
		{ "", "''" }, { "relative", "'relative'" },
		{ "./x", "'./x'" }, { "../x", "'../x'" },
		{ "/srv/", "'/srv/'" }, { "/srv//x", "'/srv//x'" },
		{ "//srv", "'//srv'" }, { "/srv/./x", "'/srv/./x'" },
		{ "/srv/../etc", "'/srv/../etc'" }, { "/srv/.", "'/srv/.'" },
		{ "~x", "'~x'" }, { "~alice/x", "'~alice/x'" },
		{ "~/.", "'~/.'" }, { "~/../x", "'~/../x'" },
		{ "~//x", "'~//x'" }, { " /srv", "' /srv'" },
		{ "/srv\tx", "control character" },
		{ "/srv\nx", "control character" },
	};
	static const char *const opts[] = { "ro", "hide", "scratch",
	    "direct" };
	struct parsed p;
	size_t i, k, j;

	for (k = 0; k < nitems(opts); k++) {
		autofree char *dashed = xasprintf("--%s", opts[k]);

		for (i = 0; i < nitems(good); i++) {
			const char *const cmd[] = { "confine", dashed, good[i],
			    "make", NULL };
			const struct cli_list *l[] = { &p.o.ro, &p.o.hide,
			    &p.o.scratch, &p.o.direct };
			size_t others = 0;

			parse(&p, cmd);
			if (!is_int(p.r, 0, "'%s' parses", p.line)) {
				diag("cause: %s", p.cause);
				parsed_free(&p);
				continue;
			}
			ok(l[k]->n == 1 && streq(l[k]->v[0], good[i]),
			    "'%s': %s holds %s as given", p.line, dashed,
			    good[i]);
			for (j = 0; j < nitems(l); j++)
				others += j != k ? l[j]->n : 0;
			is_int(others, 0, "'%s': the other path lists are "
			    "empty", p.line);
			parsed_free(&p);
		}
		for (i = 0; i < nitems(bad); i++) {
			const char *const cmd[] = { "confine", dashed,
			    bad[i].value, "make", NULL };

			expect_fail(cmd, dashed, bad[i].word);
		}
		{
			autofree char *eq = xasprintf("--%s=", opts[k]);
			const char *const cmd[] = { "confine", eq, "make", NULL };
			const char *const last[] = { "confine", dashed, NULL };

			expect_fail(cmd, dashed, NULL);
			expect_fail(last, dashed, "needs a value");
		}
	}

	/* Repeated and mixed, each list keeps its own order. */
	parse(&p, CMD("--ro", "/a", "--hide=/srv/keys", "--scratch", "~/.cache",
	    "--ro=~/notes", "--direct", "/srv/out", "--scratch", "/var/tmp/x",
	    "--hide", "~/.ssh", "--ro", "/", "--direct=~/out", "--", "make",
	    "--ro", "/x"));
	if (is_int(p.r, 0, "'%s' parses", p.line)) {
		autofree char *ro = list_str(&p.o.ro);
		autofree char *hide = list_str(&p.o.hide);
		autofree char *scratch = list_str(&p.o.scratch);
		autofree char *direct = list_str(&p.o.direct);
		autofree char *argv = tap_strv(p.o.argv);

		is_str(ro, "[/a][~/notes][/]", "--ro values in order");
		is_str(hide, "[/srv/keys][~/.ssh]", "--hide values in order");
		is_str(scratch, "[~/.cache][/var/tmp/x]",
		    "--scratch values in order");
		is_str(direct, "[/srv/out][~/out]", "--direct values in order");
		is_str(argv, "[make][--ro][/x]", "--ro after -- and the command "
		    "is the command's");
	}
	parsed_free(&p);

	/* A bad value after good ones: refused, nothing kept. */
	expect_fail(CMD("--ro", "/a", "--ro", "/b", "--ro", "b", "make"), "--ro",
	    "'b'");
	expect_fail(CMD("--direct", "/a", "--hide", "x/", "make"), "--hide",
	    "'x/'");

	/* "~/" ends in '/': confine-profile(5) says no trailing '/'. */
	for (i = 0; i < nitems(opts); i++) {
		autofree char *dashed = xasprintf("--%s", opts[i]);
		const char *const cmd[] = { "confine", dashed, "~/", "make",
		    NULL };

		parse(&p, cmd);
		if (!ok(p.r == -1, "'%s' is refused: a trailing '/'",
		    p.line))
			diag("syntax_path checks '~/' as '/', which is normal");
		parsed_free(&p);
	}
}

/* Every option at once, then the command. */
static void
test_all_options(void)
{
	struct parsed p;
	autofree char *s = NULL;

	parse(&p, CMD("run", "-p", "work", "-w", "/src", "-n", "proxy",
	    "--allow", "pypi.org", "--endpoint", "api.anthropic.com:443",
	    "--ro", "~/.gitconfig", "--hide", "/srv/keys", "--scratch",
	    "~/.cache/go", "--direct", "/srv/out", "--env", "TERM",
	    "--env", "A=b", "--backend", "landlock", "--dry-run", "-v",
	    "claude", "--model", "opus"));
	if (!is_int(p.r, 0, "'%s' parses", p.line)) {
		diag("cause: %s", p.cause);
		parsed_free(&p);
		return;
	}
	is_int(p.o.cmd, CLI_RUN, "every option: runs");
	is_str(p.o.profile, "work", "every option: -p");
	is_str(p.o.workspace, "/src", "every option: -w");
	ok(p.o.net_set && p.o.net == PLAN_NET_PROXY, "every option: -n proxy");
	s = list_str(&p.o.allow);
	is_str(s, "[pypi.org]", "every option: --allow");
	free(s);
	s = list_str(&p.o.endpoint);
	is_str(s, "[api.anthropic.com:443]", "every option: --endpoint");
	free(s);
	s = list_str(&p.o.ro);
	is_str(s, "[~/.gitconfig]", "every option: --ro");
	free(s);
	s = list_str(&p.o.hide);
	is_str(s, "[/srv/keys]", "every option: --hide");
	free(s);
	s = list_str(&p.o.scratch);
	is_str(s, "[~/.cache/go]", "every option: --scratch");
	free(s);
	s = list_str(&p.o.direct);
	is_str(s, "[/srv/out]", "every option: --direct");
	free(s);
	s = list_str(&p.o.env);
	is_str(s, "[TERM][A=b]", "every option: --env");
	free(s);
	ok(p.o.backend_set && p.o.backend == PLAN_BACKEND_LANDLOCK,
	    "every option: --backend landlock");
	ok(p.o.dry_run, "every option: --dry-run");
	is_int(p.o.verbosity, 1, "every option: -v");
	s = tap_strv(p.o.argv);
	is_str(s, "[claude][--model][opus]", "every option: the command");
	parsed_free(&p);
}

/* profile list | show NAME | check FILE..., trust [FILE]. */
static void
test_subcommands(void)
{
	const struct {
		const char *const *cmd;
		enum cli_cmd	 want;
		const char	*argv;
	} good[] = {
		{ CMD("profile", "list"), CLI_PROFILE_LIST, "" },
		{ CMD("profile", "show", "offline"), CLI_PROFILE_SHOW,
		    "[offline]" },
		{ CMD("profile", "show", "./x.ini"), CLI_PROFILE_SHOW,
		    "[./x.ini]" },
		{ CMD("profile", "check", "a.ini"), CLI_PROFILE_CHECK,
		    "[a.ini]" },
		{ CMD("profile", "check", "a.ini", "b.ini", "/c.ini"),
		    CLI_PROFILE_CHECK, "[a.ini][b.ini][/c.ini]" },
		{ CMD("trust"), CLI_TRUST, "" },
		{ CMD("trust", ".confine.ini"), CLI_TRUST, "[.confine.ini]" },
		{ CMD("trust", "/src/p/.confine.ini"), CLI_TRUST,
		    "[/src/p/.confine.ini]" },
	};
	const struct {
		const char *const *cmd;
		const char	*needle;
	} bad[] = {
		{ CMD("profile"), "profile list" },
		{ CMD("profile", "foo"), "profile list" },
		{ CMD("profile", ""), "profile list" },
		{ CMD("profile", "List"), "profile list" },
		{ CMD("profile", "list", "extra"), "profile list" },
		{ CMD("profile", "show"), "show NAME" },
		{ CMD("profile", "show", "a", "b"), "show NAME" },
		{ CMD("profile", "check"), "check FILE" },
		{ CMD("profile", "-v", "list"), "profile list" },
		{ CMD("trust", "a.ini", "b.ini"), "trust" },
		{ CMD("trust", "a", "b", "c"), "at most one FILE" },
	};
	/* The subcommands' names as programs. */
	const struct {
		const char *const *cmd;
		const char	*want;
	} run[] = {
		{ CMD("run", "profile"), "[profile]" },
		{ CMD("run", "profile", "list"), "[profile][list]" },
		{ CMD("--", "profile", "show", "x"), "[profile][show][x]" },
		{ CMD("run", "--", "profile"), "[profile]" },
		{ CMD("run", "trust"), "[trust]" },
		{ CMD("run", "trust", "a", "b"), "[trust][a][b]" },
		{ CMD("--", "trust"), "[trust]" },
		{ CMD("-v", "profile", "list"), "[profile][list]" },
		{ CMD("-p", "x", "trust"), "[trust]" },
		{ CMD("profiles"), "[profiles]" },
		{ CMD("trusted"), "[trusted]" },
	};
	struct parsed p;
	size_t i;

	for (i = 0; i < nitems(good); i++) {
		autofree char *got = NULL;

		parse(&p, good[i].cmd);
		if (!is_int(p.r, 0, "'%s' parses", p.line)) {
			diag("cause: %s", p.cause);
			parsed_free(&p);
			continue;
		}
		is_int(p.o.cmd, good[i].want, "'%s': subcommand %d", p.line,
		    (int)good[i].want);
		got = tap_strv(p.o.argv);
		is_str(got, good[i].argv, "'%s': operands %s", p.line,
		    good[i].argv[0] ? good[i].argv : "(none)");
		ok(p.o.profile == NULL && p.o.ro.n == 0 && !p.o.net_set &&
		    p.o.verbosity == 0, "'%s': no run options", p.line);
		parsed_free(&p);
	}
	for (i = 0; i < nitems(bad); i++)
		expect_fail(bad[i].cmd, bad[i].needle, NULL);
	for (i = 0; i < nitems(run); i++)
		expect_cmd(run[i].cmd, run[i].want);
}

/* enter [--as-left] [SESSION] [--] [COMMAND...] */
static void
test_enter(void)
{
	const struct {
		const char *const *cmd;
		bool		 as_left;
		const char	*id;
		const char	*argv;
	} v[] = {
		{ CMD("enter"), false, NULL, "" },
		{ CMD("enter", "--", "make", "check"), false, NULL,
		    "[make][check]" },
		{ CMD("enter", "20250101-120000-5f2ac9e1", "make"), false,
		    "20250101-120000-5f2ac9e1", "[make]" },
		{ CMD("enter", "--as-left"), true, NULL, "" },
		{ CMD("enter", "--as-left", "20250101-120000-5f2ac9e1", "--",
		    "sh"), true, "20250101-120000-5f2ac9e1", "[sh]" },
		{ CMD("enter", "--as-left", "--", "--as-left"), true, NULL,
		    "[--as-left]" },
		{ CMD("enter", "make", "--as-left"), false, NULL,
		    "[make][--as-left]" },
	};
	struct parsed p;
	size_t i;

	for (i = 0; i < nitems(v); i++) {
		autofree char *got = NULL;

		parse(&p, v[i].cmd);
		if (!is_int(p.r, 0, "'%s' parses", p.line)) {
			diag("cause: %s", p.cause);
			parsed_free(&p);
			continue;
		}
		is_int(p.o.cmd, CLI_ENTER, "'%s': enter", p.line);
		ok(p.o.as_left == v[i].as_left, "'%s': --as-left %s", p.line,
		    v[i].as_left ? "set" : "unset");
		is_str(p.o.session_id ? p.o.session_id : "(none)",
		    v[i].id ? v[i].id : "(none)", "'%s': session", p.line);
		got = tap_strv(p.o.argv);
		is_str(got, v[i].argv, "'%s': command %s", p.line,
		    v[i].argv[0] ? v[i].argv : "(none)");
		parsed_free(&p);
	}
}

static void
test_flags(void)
{
	const struct {
		const char *const *cmd;
		int		 verbosity;
	} v[] = {
		{ CMD("-q", "make"), -1 }, { CMD("--quiet", "make"), -1 },
		{ CMD("-v", "make"), 1 }, { CMD("--verbose", "make"), 1 },
		{ CMD("-v", "-v", "make"), 2 }, { CMD("-vv", "make"), 2 },
		{ CMD("-vvv", "make"), 2 }, { CMD("-q", "-v", "make"), 1 },
		{ CMD("-v", "-q", "make"), -1 },
		{ CMD("run", "--verbose", "--verbose", "make"), 2 },
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

	parse(&p, CMD("--dry-run", "make"));
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

	expect_fail(CMD("--bogus", "make"), "--bogus", NULL);
	expect_fail(CMD("--bogus=1", "make"), "--bogus", NULL);
	expect_fail(CMD("run", "--bogus", "make"), "--bogus", NULL);
	expect_fail(CMD("-x", "make"), "-x", NULL);
	expect_fail(CMD("-vx", "make"), "-x", NULL);
	expect_fail(CMD("run", "-v", "-Z", "make"), "-Z", NULL);
	/* --ver could be --verbose or --version. */
	expect_fail(CMD("--ver", "make"), "--ver", NULL);

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
	expect_fail(CMD("-v", "--allow"), "--allow", NULL);
	expect_fail(CMD("run", "--scratch"), "--scratch", NULL);
	expect_fail(CMD("run", "-p"), "-p", NULL);
	/* Abbreviations: unique ones work, ambiguous ones are refused. */
	expect_cmd(CMD("--dir=/srv/out", "make"), "[make]");
	expect_cmd(CMD("--all", "a.example", "make"), "[make]");
	expect_fail(CMD("--d", "/x", "make"), "--d", NULL);
	expect_fail(CMD("--e", "X", "make"), "--e", NULL);

	/* A value given to an option that takes none. */
	expect_fail(CMD("--dry-run=yes", "make"), "--dry-run", NULL);
	expect_fail_either(CMD("--quiet=1", "make"), "--quiet", "-q");

	/* A refused parse leaves nothing behind for the next one. */
	parse(&p, CMD("-xv", "make"));
	parsed_free(&p);
	parse(&p, CMD("-q", "make"));
	is_int(p.r, 0, "a parse after a refused one succeeds");
	is_int(p.o.verbosity, -1, "it does not inherit the refused -v");
	parsed_free(&p);
}

/* --memory, --tasks, --cpus, --disk: a value or none; bad ones refused. */
static void
test_limits(void)
{
	const struct {
		const char *const *cmd;
		uint64_t	 memory, tasks, cpus, disk;
		bool		 set[4];
	} good[] = {
		{ CMD("--memory", "4G", "make"), 4ULL << 30, 0, 0, 0,
		    { true, false, false, false } },
		{ CMD("--memory=512m", "make"), 512ULL << 20, 0, 0, 0,
		    { true, false, false, false } },
		{ CMD("--memory", "1048576", "make"), 1ULL << 20, 0, 0, 0,
		    { true, false, false, false } },
		{ CMD("--memory", "none", "make"), 0, 0, 0, 0,
		    { true, false, false, false } },
		{ CMD("--tasks", "50", "--cpus", "1.5", "make"), 0, 50, 1500,
		    0, { false, true, true, false } },
		{ CMD("--cpus", "0.001", "make"), 0, 0, 1, 0,
		    { false, false, true, false } },
		{ CMD("--cpus", "2", "--cpus", "none", "make"), 0, 0, 0, 0,
		    { false, false, true, false } },
		{ CMD("run", "--disk", "2T", "--tasks=none", "make"), 0, 0, 0,
		    2ULL << 40, { false, true, false, true } },
	};
	static const struct {
		const char	*opt, *value, *why;
	} bad[] = {
		{ "--memory", "4GB", "is not a size" },
		{ "--memory", "1.5G", "is not a size" },
		{ "--memory", "-1G", "is not a size" },
		{ "--memory", "", "is not a size" },
		{ "--memory", "0", "too small" },
		{ "--memory", "1023K", "too small" },
		{ "--memory", "None", "is not a size" },
		{ "--memory", "18446744073709551616", "is not a size" },
		{ "--memory", "17179869184T", "too large" },
		{ "--disk", "4 G", "is not a size" },
		{ "--disk", "16P", "is not a size" },
		{ "--tasks", "0", "from 2 to" },
		{ "--tasks", "1", "from 2 to" },
		{ "--tasks", "4194305", "from 2 to" },
		{ "--tasks", "12k", "not a number of tasks" },
		{ "--tasks", "+5", "not a number of tasks" },
		{ "--cpus", "0", "more than 0" },
		{ "--cpus", "0.000", "more than 0" },
		{ "--cpus", "1.2345", "at most 3 decimals" },
		{ "--cpus", "1.", "not a number of CPUs" },
		{ "--cpus", ".5", "not a number of CPUs" },
		{ "--cpus", "1,5", "not a number of CPUs" },
		{ "--cpus", "99999999999999999999", "not a number of CPUs" },
		{ "--cpus", "1049", "too large" },
	};
	struct parsed p;
	size_t i;

	for (i = 0; i < nitems(good); i++) {
		parse(&p, good[i].cmd);
		if (is_int(p.r, 0, "'%s' parses", p.line)) {
			ok(p.o.memory.set == good[i].set[0] &&
			    p.o.tasks.set == good[i].set[1] &&
			    p.o.cpus.set == good[i].set[2] &&
			    p.o.disk.set == good[i].set[3],
			    "'%s': the limits given are set, no other", p.line);
			ok(p.o.memory.value == good[i].memory &&
			    p.o.tasks.value == good[i].tasks &&
			    p.o.cpus.value == good[i].cpus &&
			    p.o.disk.value == good[i].disk,
			    "'%s': their values", p.line);
		} else
			diag("cause: %s", p.cause);
		parsed_free(&p);
	}
	for (i = 0; i < nitems(bad); i++) {
		const char *const cmd[] = { "confine", bad[i].opt, bad[i].value,
		    "make", NULL };

		expect_fail(cmd, bad[i].opt, bad[i].why);
	}
	expect_fail(CMD("--memory"), "--memory", NULL);
	expect_fail(CMD("--cpus"), "--cpus", NULL);
}

/* ls [--all]; drop SESSION... | drop [--yes] SELECTORS. */
static void
test_sessions(void)
{
	const struct {
		const char *const *cmd;
		enum cli_cmd	 want;
		const char	*argv;
		bool		 all, empty, applied, yes;
		long long	 older;
	} good[] = {
		{ CMD("ls"), CLI_LS, NULL, false, false, false, false, 0 },
		{ CMD("ls", "--all"), CLI_LS, NULL, true, false, false, false,
		    0 },
		{ CMD("drop", "20250101-120000-5f2ac9e1"), CLI_DROP,
		    "[20250101-120000-5f2ac9e1]", false, false, false, false,
		    -1 },
		{ CMD("drop", "a", "b"), CLI_DROP, "[a][b]", false, false,
		    false, false, -1 },
		{ CMD("drop", "--", "a"), CLI_DROP, "[a]", false, false, false,
		    false, -1 },
		{ CMD("drop", "--empty"), CLI_DROP, "", false, true, false,
		    false, -1 },
		{ CMD("drop", "--applied", "--yes"), CLI_DROP, "", false, false,
		    true, true, -1 },
		{ CMD("drop", "-y", "--all"), CLI_DROP, "", true, false, false,
		    true, -1 },
		{ CMD("drop", "--older-than", "30m"), CLI_DROP, "", false,
		    false, false, false, 1800 },
		{ CMD("drop", "--older-than=12h", "--empty"), CLI_DROP, "",
		    false, true, false, false, 43200 },
		{ CMD("drop", "--older-than", "7d"), CLI_DROP, "", false, false,
		    false, false, 604800 },
		{ CMD("drop", "--older-than", "2w"), CLI_DROP, "", false, false,
		    false, false, 1209600 },
		{ CMD("drop", "--older-than", "0s"), CLI_DROP, "", false, false,
		    false, false, 0 },
		{ CMD("stop", "20250101-120000-5f2ac9e1"), CLI_STOP,
		    "[20250101-120000-5f2ac9e1]", false, false, false, false,
		    0 },
	};
	const struct {
		const char *const *cmd;
		const char	*needle;
	} bad[] = {
		{ CMD("ls", "x"), "usage: confine ls" },
		{ CMD("ls", "--all", "x"), "usage: confine ls" },
		{ CMD("ls", "-a"), "usage: confine ls" },
		{ CMD("stop"), "usage: confine stop SESSION" },
		{ CMD("stop", "a", "b"), "usage: confine stop SESSION" },
		{ CMD("stop", "--all"), "usage: confine stop SESSION" },
		{ CMD("drop"), "usage: confine drop" },
		{ CMD("drop", "--yes"), "usage: confine drop" },
		{ CMD("drop", "--yes", "a"), "usage: confine drop" },
		{ CMD("drop", "--all", "a"), "usage: confine drop" },
		{ CMD("drop", "--everything"), "unknown option '--everything'" },
		{ CMD("drop", "--older-than"), "needs a value" },
		{ CMD("drop", "--older-than", "7"), "not a duration" },
		{ CMD("drop", "--older-than", "7x"), "not a duration" },
		{ CMD("drop", "--older-than", "d"), "not a duration" },
		{ CMD("drop", "--older-than", "-1d"), "not a duration" },
		{ CMD("drop", "--older-than", "1dd"), "not a duration" },
		{ CMD("drop", "--older-than", "99999999999999999999d"),
		    "not a duration" },
		{ CMD("drop", "--older-than=", "--all"), "not a duration" },
	};
	struct parsed p;
	size_t i;

	for (i = 0; i < nitems(good); i++) {
		autofree char *got = NULL;

		parse(&p, good[i].cmd);
		if (!is_int(p.r, 0, "'%s' parses", p.line)) {
			diag("cause: %s", p.cause);
			parsed_free(&p);
			continue;
		}
		is_int(p.o.cmd, good[i].want, "'%s': subcommand %d", p.line,
		    (int)good[i].want);
		if (good[i].argv) {
			got = tap_strv(p.o.argv);
			is_str(got, good[i].argv, "'%s': operands %s", p.line,
			    good[i].argv[0] ? good[i].argv : "(none)");
		}
		ok(p.o.all == good[i].all && p.o.drop_empty == good[i].empty &&
		    p.o.drop_applied == good[i].applied &&
		    p.o.yes == good[i].yes &&
		    (good[i].want != CLI_DROP ||
		    p.o.older_than == good[i].older),
		    "'%s': the selectors", p.line);
		parsed_free(&p);
	}
	for (i = 0; i < nitems(bad); i++)
		expect_fail(bad[i].cmd, bad[i].needle, NULL);
}

int
main(void)
{
	test_commands();
	test_workspace();
	test_env();
	test_network_backend();
	test_profile_option();
	test_hosts();
	test_hosts_signed();
	test_paths();
	test_all_options();
	test_subcommands();
	test_sessions();
	test_enter();
	test_flags();
	test_bad_options();
	test_limits();
	return done();
}
