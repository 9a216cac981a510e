// SPDX-License-Identifier: ISC
/*
 * test-flag.c - the review flags: which paths flag_path() flags (case
 * variants and near misses included), which names flag_name() flags,
 * what flag_content() says of byte
 * strings, and that confine(1)'s FLAGGED PATHS lists exactly the rules
 * of the code (TESTS_SRCDIR/../man/confine.1.scd).
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/review-flags.h"
#include "lib/util.h"

#include "tap.h"

/* Flagged. */
static const char *const yes[] = {
	"Makefile", "src/MAKEFILE", "sub/makefile", "GNUmakefile",
	"Justfile", "JUSTFILE", "x/justfile", "mise.toml", ".mise.toml",
	"mise.local.toml", ".mise/config.toml", "mise/config.toml",
	"a/mise/config.toml", "Taskfile.yaml", "Taskfile.yml", "taskfile.yml",
	".devcontainer.json", ".devcontainer/devcontainer.json",
	"Containerfile", "containerfile", "Dockerfile", "dockerfile",
	"compose.yaml", "compose.yml", "docker-compose.yml",
	"docker-compose.prod.yaml", ".forgejo/workflows/ci.yml",
	".gitea/workflows/a.yaml", ".woodpecker/build.yml", ".drone.yml",
	"bitbucket-pipelines.yml", ".buildkite/pipeline.yml",
	".github/workflows/ci.yml", ".gitlab-ci.yml", "composer.json",
	".yarnrc.yml", ".yarnrc", ".pnpmfile.cjs", "pnpm-workspace.yaml",
	"bunfig.toml", "deno.json", "deno.jsonc", "package-lock.json",
	"eslint.config.js", "ESLint.config.mjs", ".eslintrc.json",
	"prettier.config.cjs", "vite.config.ts", "webpack.config.js",
	"jest.config.js", "vitest.config.mts", "babel.config.json",
	".babelrc", "pytest.ini", ".pytest.ini", "conftest.py", "go.mod",
	"go.work", ".bazelrc", "BUILD", "BUILD.bazel", "WORKSPACE",
	"MODULE.bazel", "tools/defs.bzl", "flake.nix", "shell.nix",
	"default.nix", "lefthook.yml", ".lefthook/pre-commit/x.sh",
	".overcommit.yml", ".husky/pre-commit", "my.code-workspace",
	".vscode/tasks.json", ".nvim.lua", ".nvimrc", ".exrc",
	".dir-locals.el", ".lfsconfig", ".cursorrules", ".windsurfrules",
	".clinerules", ".clinerules/rules.md",
	".github/copilot-instructions.md", ".aider.conf.yml",
	".continue/config.json", ".claude/settings.json", "CLAUDE.md",
	"AGENTS.md", ".mcp.json", ".env", ".env.local", ".envrc",
	"sitecustomize.py", "usercustomize.py", ".Rprofile",
	"Directory.Build.props", "Directory.Build.targets", "nuget.config",
	"NuGet.Config", "app/app.csproj", "gradle.properties", "gradlew",
	"gradle/wrapper/gradle-wrapper.properties", "mvnw", ".mvn/jvm.config",
	"rust-toolchain", "rust-toolchain.toml", ".cargo/config.toml",
	".cargo/config", "build.rs", "SConstruct", "wscript", "Pipfile",
	"requirements.txt", "requirements-dev.txt", "Brewfile", ".vimrc",
	".gdbinit", ".inputrc", ".bashrc", "home/.profile",
	"home/.config/systemd/user/x.service", ".local/bin/x",
	"a/.local/share/applications/x.desktop", ".config/git/config",
	".config/confine/profiles/x.ini", ".confine.ini", "pkg/evil.pth",
	"cmake/x.cmake", "rules.mk", ".gitattributes", ".gitmodules",
	".ssh/authorized_keys", "deep/down/tree/package.json",
};

/* Not flagged: ordinary files and near misses. */
static const char *const no[] = {
	"src/main.c", "README.md", "notMakefile.txt", "docs/justfile.md",
	"Makefile.md", "Makefile/readme", "makefile.bak", "src/build/x.c",
	"mycompose.yaml", ".envrc.bak", "docs/.github.md",
	"github/workflows/x.yml", "GEMFILE", "Package.json", "CLAUDE.MD",
	"go.mod.txt", "gomod", "x.cmake.txt", "flake.nix.orig", "env",
	".environment", "composer", "mise.tomlx", "notes/mise.txt",
	".config/gitx/config", "config/git", "src/vendor.c", "", "a/b/c.txt",
	"Makefile.amx", "x/.vscodex/a", ".vscod/a",
};

static void
paths(void)
{
	size_t i;

	for (i = 0; i < nitems(yes); i++)
		ok(flag_path(yes[i]) != NULL, "flagged: %s", yes[i]);
	for (i = 0; i < nitems(no); i++) {
		const char *why = flag_path(no[i]);

		ok(why == NULL, "not flagged: '%s'%s%s", no[i],
		    why ? ": " : "", why ? why : "");
	}
	ok(strstr(flag_path(".github/copilot-instructions.md"), "agent") !=
	    NULL, "a rule for components in a row wins over its directory");
	ok(strstr(flag_path(".github/workflows/x.yml"), "CI") != NULL,
	    "the directory's reason otherwise");
}

struct content_case {
	const char	*name;
	const char	*path;
	const char	*old;		/* NULL: an added file */
	size_t		 oldlen;
	const char	*new;
	size_t		 newlen;
	const char	*want;		/* a word of the reason; NULL: none */
	size_t		 line;
};

#define S(s)	s, sizeof(s) - 1

static const struct content_case contents[] = {
	{ "plain text", "a.c", NULL, 0, S("int x;\n"), NULL, 0 },
	{ "an empty file", "a", NULL, 0, S(""), NULL, 0 },
	{ "UTF-8 text", "a.txt", NULL, 0, S("caf\xc3\xa9 \xe2\x82\xac\n"),
	    NULL, 0 },
	{ "a NUL in text", "notes.txt", NULL, 0, S("hello\0world\n"), "NUL",
	    0 },
	{ "a shebang then binary", "tool", NULL, 0,
	    S("#!/bin/sh\n\0\x01\x02\xff"), "#!", 0 },
	{ "a text file made binary", "tool", S("echo hi\n"),
	    S("\x7f" "ELF\0\0\x01"), "made binary", 0 },
	{ "a script by name, binary", "run.sh", NULL, 0,
	    S("\x7f" "ELF\x02\x01\0\0"), "by its name", 0 },
	{ "UTF-16 text", "a.txt", NULL, 0, S("\xff\xfeh\0i\0\n\0"),
	    "UTF-16", 0 },
	{ "UTF-16 text, big-endian", "a.txt", NULL, 0,
	    S("\xfe\xff\0h\0i\0\n"), "UTF-16", 0 },
	{ "UTF-16 without a mark", "a.txt", NULL, 0, S("h\0i\0\n\0"),
	    "NUL", 0 },
	{ "a PNG", "a.png", NULL, 0, S("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\xff"),
	    NULL, 0 },
	{ "binary to binary", "x.bin", S("\0\x01"), S("\0\x02"), NULL, 0 },
	{ "a zero-width space", "a.py", NULL, 0, S("a\xe2\x80\x8b" "b\n"),
	    "zero-width", 1 },
	{ "a word joiner", "a.py", NULL, 0, S("x\n\xe2\x81\xa0\n"),
	    "zero-width", 2 },
	{ "a right-to-left override", "a.c", NULL, 0,
	    S("x\ny\n/*\xe2\x80\xae } */\n"), "bidirectional", 3 },
	{ "a left-to-right isolate", "a.c", NULL, 0,
	    S("\xe2\x81\xa6x\n"), "bidirectional", 1 },
	{ "an Arabic letter mark", "a.c", NULL, 0, S("\xd8\x9c"),
	    "bidirectional", 1 },
	{ "a tag character", "a.md", NULL, 0, S("ok\xf3\xa0\x81\x81\n"),
	    "tag characters", 1 },
	{ "a soft hyphen", "a.sh", NULL, 0, S("r\xc2\xadm -rf\n"),
	    "soft hyphen", 1 },
	{ "a Hangul filler", "a.js", NULL, 0, S("var \xe3\x85\xa4=1\n"),
	    "filler", 1 },
	{ "a halfwidth filler", "a.js", NULL, 0, S("\xef\xbe\xa0"), "filler",
	    1 },
	{ "a byte order mark at the start", "a.txt", NULL, 0,
	    S("\xef\xbb\xbfhello\n"), NULL, 0 },
	{ "a byte order mark later", "a.txt", NULL, 0,
	    S("a\n\xef\xbb\xbf\n"), "byte order mark", 2 },
	{ "an emoji with its selector", "a.md", NULL, 0,
	    S("\xe2\x9d\xa4\xef\xb8\x8f\n"), NULL, 0 },
	{ "a keycap", "a.md", NULL, 0, S("1\xef\xb8\x8f\xe2\x83\xa3\n"),
	    NULL, 0 },
	{ "a joined emoji", "a.md", NULL, 0,
	    S("\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\n"), NULL, 0 },
	{ "a joiner between letters", "a.py", NULL, 0,
	    S("a\xe2\x80\x8d" "b"), "zero-width", 1 },
	{ "a selector after ASCII", "a.py", NULL, 0, S("a\xef\xb8\x8f"),
	    "variation selector", 1 },
	{ "selectors carrying data after an emoji", "a.md", NULL, 0,
	    S("\xf0\x9f\x98\x80\xf3\xa0\x84\x80\xf3\xa0\x84\x81"),
	    "variation selector", 1 },
	{ "a line separator", "a.js", NULL, 0, S("a\xe2\x80\xa8" "b"),
	    "separator", 1 },
	{ "an escape sequence", "a.txt", NULL, 0, S("ok\n\x1b[2J\n"),
	    "control", 2 },
	{ "CRLF lines", "a.txt", NULL, 0, S("a\r\nb\r\n"), NULL, 0 },
	{ "a carriage return inside a line", "a.sh", NULL, 0,
	    S("echo safe\rrm -rf ~\n"), "carriage return", 1 },
	{ "invalid UTF-8", "a.txt", NULL, 0, S("abc\n\xff\n"), "UTF-8", 2 },
	{ "an overlong sequence", "a.txt", NULL, 0, S("\xc0\xaf"), "UTF-8",
	    1 },
	{ "a surrogate", "a.txt", NULL, 0, S("\xed\xa0\x80"), "UTF-8", 1 },
	{ "a sequence cut short", "a.txt", NULL, 0, S("ab\xe2\x80"), "UTF-8",
	    1 },
};

static void
content(void)
{
	size_t i, line;

	for (i = 0; i < nitems(contents); i++) {
		const struct content_case *c = &contents[i];
		const char *why = flag_content(c->path, c->old, c->oldlen,
		    c->new, c->newlen, &line);

		if (c->want == NULL) {
			ok(why == NULL, "content: %s: not flagged%s%s", c->name,
			    why ? ": " : "", why ? why : "");
			continue;
		}
		if (!ok(why && strstr(why, c->want), "content: %s: \"%s\"",
		    c->name, c->want))
			diag("got: %s", why ? why : "(NULL)");
		is_int(line, c->line, "content: %s: line", c->name);
	}
}

/* How confine(1) writes a rule: "dir/", "a/b", "*.x", "name". */
static char *
rule_text(const struct flag_rule *r)
{
	char *cat = xstrdup(r->category);

	cat[0] = (char)toupper((unsigned char)cat[0]);
	return xasprintf("%s|%s|%s%s", cat, r->icase ? "Any case" :
	    "Exact case", r->pat, r->kind == FLAG_DIR ? "/" : "");
}

/* One list of rules: "*a*, *b\_c*, *\*.d*." into "cat|label|a" keys. */
static void
man_list(char ***keys, size_t *n, const char *cat, const char *label,
    char *list)
{
	char *tok, *save = NULL;
	size_t len = strlen(list);

	if (len > 0 && list[len - 1] == '.')
		list[len - 1] = '\0';
	for (tok = strtok_r(list, ",", &save); tok;
	    tok = strtok_r(NULL, ",", &save)) {
		char *t = tok, *w, *r;

		while (*t == ' ')
			t++;
		/* Unescape, and drop the bold markers. */
		for (r = w = t; *r; r++) {
			if (*r == '\\' && r[1]) {
				*w++ = *++r;
				continue;
			}
			if (*r != '*')
				*w++ = *r;
		}
		*w = '\0';
		strv_push(keys, n, xasprintf("%s|%s|%s", cat, label, t));
	}
}

/* The rules as the man page's FLAGGED PATHS lists them. */
static size_t
man_rules(const char *file, char ***keys)
{
	FILE *f = fopen(file, "r");
	char *line = NULL, *cat = NULL, *list = NULL;
	const char *label = NULL;
	size_t cap = 0, n = 0;
	bool on = false;
	ssize_t len;

	if (f == NULL)
		return 0;
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (strncmp(line, "# ", 2) == 0) {
			on = streq(line, "# FLAGGED PATHS");
			continue;
		}
		if (!on)
			continue;
		if (list && line[0] == '\t' && strncmp(line + 1, "Any case: ",
		    10) != 0 && strncmp(line + 1, "Exact case: ", 12) != 0) {
			char *more = xasprintf("%s %s", list, line + 1);

			free(list);
			list = more;
			continue;
		}
		if (list) {
			man_list(keys, &n, cat, label, list);
			free(list);
			list = NULL;
		}
		if (line[0] == '*' && len > 2 && line[len - 1] == '*') {
			free(cat);
			cat = xstrndup(line + 1, (size_t)len - 2);
		} else if (cat && strncmp(line, "\tAny case: ", 11) == 0) {
			label = "Any case";
			list = xstrdup(line + 11);
		} else if (cat && strncmp(line, "\tExact case: ", 13) == 0) {
			label = "Exact case";
			list = xstrdup(line + 13);
		}
	}
	if (list)
		man_list(keys, &n, cat, label, list);
	free(list);
	free(cat);
	free(line);
	fclose(f);
	return n;
}

static bool
has(char **v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (streq(v[i], s))
			return true;
	return false;
}

/* Names: agent bytes; what shows otherwise than it is, in any component. */
static void
names(void)
{
	static const struct {
		const char	*path;
		const char	*want;	/* a word of the reason; NULL: none */
	} v[] = {
		{ "src/main.c", NULL },
		{ "caf\xc3\xa9/na\xc3\xafve \xe2\x82\xac.txt", NULL },
		{ "\xe2\x9d\xa4\xef\xb8\x8f.md", NULL },
		{ "report\xe2\x80\xaetxt.sh", "bidirectional" },
		{ "d\xe2\x80\x8bir/ok.txt", "zero-width" },
		{ "a\x1b[2Jb", "control" },
		{ "new\nline", "control" },
		{ "tab\tname", "control" },
		{ "cr\rname", "control" },
		{ "del\x7f", "control" },
		{ "c1\xc2\x9b", "control" },
		{ "bad\xff", "UTF-8" },
		{ "over\xc0\xaflong", "UTF-8" },
		{ "soft\xc2\xadhyphen", "soft hyphen" },
		{ "tag\xf3\xa0\x81\x81", "tag characters" },
		{ "line\xe2\x80\xa8sep", "separator" },
	};
	size_t i;

	for (i = 0; i < nitems(v); i++) {
		const char *why = flag_name(v[i].path);

		if (v[i].want == NULL) {
			ok(why == NULL, "name %zu: not flagged%s%s", i,
			    why ? ": " : "", why ? why : "");
			continue;
		}
		if (!ok(why && strstr(why, v[i].want), "name %zu: \"%s\"", i,
		    v[i].want))
			diag("got: %s", why ? why : "(NULL)");
	}
}

static void
manual(void)
{
	const char *src = getenv("TESTS_SRCDIR");
	autofree char *file = xasprintf("%s/../man/confine.1.scd", src ? src :
	    "tests");
	const struct flag_rule *r;
	char **man = NULL, **code = NULL;
	size_t nman, ncode = 0, nr, i, missing = 0, extra = 0;

	r = flag_rules(&nr);
	for (i = 0; i < nr; i++)
		strv_push(&code, &ncode, rule_text(&r[i]));
	nman = man_rules(file, &man);
	ok(nman > 0, "confine(1) lists flagged paths (%s)", file);
	for (i = 0; i < ncode; i++)
		if (!has(man, nman, code[i]) && ++missing)
			diag("in the code, not in confine(1): %s", code[i]);
	for (i = 0; i < nman; i++)
		if (!has(code, ncode, man[i]) && ++extra)
			diag("in confine(1), not in the code: %s", man[i]);
	is_int(missing, 0, "every rule of the code is in confine(1)");
	is_int(extra, 0, "every rule of confine(1) is in the code");
	is_int(nman, ncode, "as many rules in both");
	strv_free(man);
	strv_free(code);
}

int
main(void)
{
	paths();
	content();
	names();
	manual();
	return done();
}
