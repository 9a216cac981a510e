// SPDX-License-Identifier: ISC
/*
 * export/review-flags.c - the changes a review must look at twice.
 *
 * Paths: files that tools on the host read and act on (build and task
 * runners, package managers, test runners, toolchains, editors, dev
 * containers, CI, git hook managers, environment loaders, agents, shells,
 * git, confine itself), one table of path component rules by category;
 * confine(1) lists the same table ("FLAGGED PATHS", tests/unit/test-flag.c
 * keeps the two in step).  A rule ignores ASCII case where its tool does,
 * and where a case-insensitive file system would hand the tool the file.
 *
 * Contents: bytes that show otherwise than tools read them (text hidden
 * in a "binary" file, invisible or reordering Unicode).
 *
 * Pure: the export calls flag_path() once per changed path and
 * flag_content() once per changed file; a linear scan, no allocation.
 * Both read agent data (names and bytes) and only compare it.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "export/review-flags.h"
#include "lib/util.h"

#define NAME(p, w)	{ p, FLAG_NAME, false, CAT, w }
#define INAME(p, w)	{ p, FLAG_NAME, true, CAT, w }
#define GLOB(p, w)	{ p, FLAG_GLOB, false, CAT, w }
#define IGLOB(p, w)	{ p, FLAG_GLOB, true, CAT, w }
#define DIR(p, w)	{ p, FLAG_DIR, false, CAT, w }
#define SEQ(p, w)	{ p, FLAG_SEQ, false, CAT, w }

#define BUILD	"a build script"
#define TASKS	"a task runner's file: its tasks run commands"
#define MANIF	"a package manifest: its scripts or build steps run"
#define LOCK	"a lockfile: the exact packages, and the URLs, that an " \
	"install fetches and runs"
#define PKGRC	"package manager configuration: where packages come " \
	"from and what runs on install"
#define TESTCF	"test runner configuration: code it loads and runs"
#define JSCF	"tool configuration in code: the tool runs it"
#define TOOLV	"picks the toolchain that runs, and may fetch it"
#define EDITOR	"editor settings and tasks can run commands"
#define CONT	"a container or environment definition: building or " \
	"entering it runs commands"
#define CI	"CI configuration: runs with the repository's secrets"
#define HOOKS	"git hooks run by tools"
#define ENVL	"loaded into the environment, or sourced, on entering the " \
	"directory"
#define AGENT	"agent instructions or configuration: the next agent obeys it"
#define SHELL	"a shell or login runs it"
#define RCFILE	"a program runs it at start in this directory"

static const struct flag_rule rules[] = {
#define CAT "build and task runners"
	INAME("Makefile", BUILD),
	NAME("GNUmakefile", BUILD),
	NAME("Makefile.am", BUILD),
	NAME("Makefile.in", BUILD),
	NAME("Makefile.PL", BUILD),
	NAME("Build.PL", BUILD),
	GLOB("*.mk", BUILD),
	GLOB("*.mak", BUILD),
	NAME("configure", BUILD),
	NAME("configure.ac", BUILD),
	NAME("configure.in", BUILD),
	NAME("autogen.sh", BUILD),
	NAME("CMakeLists.txt", BUILD),
	GLOB("*.cmake", BUILD),
	NAME("CMakePresets.json", BUILD),
	NAME("CMakeUserPresets.json", BUILD),
	NAME("meson.build", BUILD),
	NAME("meson_options.txt", BUILD),
	NAME("meson.options", BUILD),
	NAME("build.ninja", BUILD),
	GLOB("*.ninja", BUILD),
	NAME("build.rs", "runs at build time"),
	NAME("SConstruct", BUILD),
	NAME("SConscript", BUILD),
	NAME("wscript", BUILD),
	NAME("BUILD", BUILD),
	NAME("BUILD.bazel", BUILD),
	NAME("WORKSPACE", BUILD),
	NAME("WORKSPACE.bazel", BUILD),
	NAME("MODULE.bazel", BUILD),
	GLOB("*.bzl", BUILD),
	NAME(".bazelrc", "Bazel options: flags, wrappers and scripts it runs"),
	NAME(".bazelversion", TOOLV),
	NAME("BUCK", BUILD),
	NAME(".buckconfig", BUILD),
	NAME("build.zig", BUILD),
	NAME("build.xml", BUILD),
	NAME("premake5.lua", BUILD),
	NAME("xmake.lua", BUILD),
	NAME("Earthfile", BUILD),
	INAME("justfile", TASKS),
	INAME(".justfile", TASKS),
	GLOB("*.just", TASKS),
	INAME("Taskfile.yml", TASKS),
	INAME("Taskfile.yaml", TASKS),
	INAME("Taskfile.dist.yml", TASKS),
	INAME("Taskfile.dist.yaml", TASKS),
	INAME("Rakefile", TASKS),
	INAME("Rakefile.rb", TASKS),
	GLOB("*.rake", TASKS),
	IGLOB("Gruntfile.*", TASKS),
	IGLOB("gulpfile.*", TASKS),
	INAME("Jakefile", TASKS),
	NAME("Cakefile", TASKS),
	NAME("Procfile", TASKS),
	NAME("Tiltfile", TASKS),
	NAME("Snakefile", TASKS),
	NAME("dodo.py", TASKS),
	NAME("noxfile.py", TASKS),
	NAME("tox.ini", TASKS),
	NAME("mise.toml", TASKS),
	NAME(".mise.toml", TASKS),
	NAME("mise.local.toml", TASKS),
	NAME(".mise.local.toml", TASKS),
	GLOB("mise.*.toml", TASKS),
	GLOB(".mise.*.toml", TASKS),
	DIR(".mise", TASKS),
	SEQ("mise/config.toml", TASKS),
	SEQ(".config/mise", TASKS),
	DIR("mise-tasks", TASKS),
	DIR(".mise-tasks", TASKS),
#undef CAT
#define CAT "package managers and their rc files"
	NAME("package.json", "a package manifest: scripts run on install"),
	NAME(".npmrc", PKGRC),
	NAME(".yarnrc", PKGRC),
	NAME(".yarnrc.yml", "yarn configuration: yarnPath names the program "
	    "yarn runs, plugins run"),
	SEQ(".yarn/releases", "the yarn release yarnPath runs"),
	SEQ(".yarn/plugins", "yarn plugins run in yarn"),
	NAME(".pnpmfile.cjs", "pnpm runs its hooks on install"),
	NAME(".pnpmfile.mjs", "pnpm runs its hooks on install"),
	NAME("pnpmfile.cjs", "pnpm runs its hooks on install"),
	NAME("pnpm-workspace.yaml", PKGRC),
	NAME("bunfig.toml", PKGRC),
	NAME("deno.json", "Deno configuration: tasks and permissions"),
	NAME("deno.jsonc", "Deno configuration: tasks and permissions"),
	NAME("package-lock.json", LOCK),
	NAME("npm-shrinkwrap.json", LOCK),
	NAME("yarn.lock", LOCK),
	NAME("pnpm-lock.yaml", LOCK),
	NAME("bun.lock", LOCK),
	NAME("bun.lockb", LOCK),
	NAME("deno.lock", LOCK),
	NAME("composer.json", MANIF),
	NAME("composer.lock", LOCK),
	NAME("Gemfile", MANIF),
	NAME("gems.rb", MANIF),
	NAME("Gemfile.lock", LOCK),
	NAME("gems.locked", LOCK),
	GLOB("*.gemspec", MANIF),
	DIR(".bundle", PKGRC),
	NAME("Cargo.toml", MANIF),
	NAME("Cargo.lock", LOCK),
	NAME("setup.py", "runs at install time"),
	NAME("setup.cfg", MANIF),
	NAME("pyproject.toml", MANIF),
	NAME("Pipfile", MANIF),
	NAME("Pipfile.lock", LOCK),
	NAME("poetry.lock", LOCK),
	NAME("uv.lock", LOCK),
	NAME("pdm.lock", LOCK),
	GLOB("requirements*.txt", "pip installs what it names, from the "
	    "indexes it names"),
	NAME("uv.toml", PKGRC),
	NAME("pip.conf", PKGRC),
	NAME("environment.yml", MANIF),
	NAME(".condarc", PKGRC),
	NAME("Brewfile", "brew bundle runs it as Ruby"),
	NAME("Podfile", "CocoaPods runs it as Ruby"),
	NAME("Package.swift", "SwiftPM compiles and runs it"),
	NAME("mix.exs", "Mix runs it as Elixir"),
	NAME("rebar.config", MANIF),
	NAME("cabal.project", MANIF),
	GLOB("*.cabal", MANIF),
	NAME("Setup.hs", "runs at build time"),
	NAME("stack.yaml", MANIF),
	NAME("build.sbt", BUILD),
	GLOB("*.sbt", BUILD),
	NAME("build.sc", BUILD),
	NAME("build.zig.zon", MANIF),
	NAME("pubspec.yaml", MANIF),
	NAME("cpanfile", MANIF),
	NAME("conanfile.py", "Conan runs it"),
	NAME("conanfile.txt", MANIF),
	NAME("vcpkg.json", MANIF),
	INAME("nuget.config", PKGRC),
	GLOB("*.csproj", "an MSBuild project: its targets run commands"),
	GLOB("*.fsproj", "an MSBuild project: its targets run commands"),
	GLOB("*.vbproj", "an MSBuild project: its targets run commands"),
	GLOB("*.props", "MSBuild imports it: targets run commands"),
	GLOB("*.targets", "MSBuild imports it: targets run commands"),
	NAME("global.json", TOOLV),
	NAME("build.gradle", BUILD),
	NAME("build.gradle.kts", BUILD),
	NAME("settings.gradle", BUILD),
	NAME("settings.gradle.kts", BUILD),
	GLOB("*.gradle", BUILD),
	NAME("gradle.properties", "Gradle options: JVM arguments, agents"),
	NAME("gradlew", "the Gradle wrapper: a script run as the build"),
	NAME("gradlew.bat", "the Gradle wrapper: a script run as the build"),
	SEQ("gradle/wrapper", "the Gradle wrapper: which Gradle it fetches "
	    "and runs"),
	NAME("pom.xml", BUILD),
	NAME("mvnw", "the Maven wrapper: a script run as the build"),
	NAME("mvnw.cmd", "the Maven wrapper: a script run as the build"),
	DIR(".mvn", "Maven extensions, JVM options and wrapper"),
#undef CAT
#define CAT "test runners' configuration"
	NAME("conftest.py", "pytest runs it"),
	NAME("pytest.ini", TESTCF),
	NAME(".pytest.ini", TESTCF),
	IGLOB("jest.config.*", TESTCF),
	IGLOB("vitest.config.*", TESTCF),
	IGLOB("vitest.workspace.*", TESTCF),
	IGLOB("playwright.config.*", TESTCF),
	IGLOB("cypress.config.*", TESTCF),
	IGLOB("karma.conf.*", TESTCF),
	IGLOB("ava.config.*", TESTCF),
	GLOB(".mocharc*", TESTCF),
	NAME("phpunit.xml", TESTCF),
	NAME("phpunit.xml.dist", TESTCF),
	NAME(".rspec", TESTCF),
#undef CAT
#define CAT "language toolchains and their tools"
	NAME("go.mod", "its toolchain line makes go fetch and run that Go"),
	NAME("go.work", "its toolchain line makes go fetch and run that Go"),
	NAME("rust-toolchain", TOOLV),
	NAME("rust-toolchain.toml", TOOLV),
	DIR(".cargo", "cargo configuration: wrappers and runners"),
	NAME(".tool-versions", TOOLV),
	NAME(".python-version", TOOLV),
	NAME(".node-version", TOOLV),
	NAME(".nvmrc", TOOLV),
	NAME(".ruby-version", TOOLV),
	NAME(".sdkmanrc", TOOLV),
	GLOB("*.pth", "Python runs .pth files at start-up"),
	NAME("sitecustomize.py", "Python imports it at start-up"),
	NAME("usercustomize.py", "Python imports it at start-up"),
	NAME(".pythonrc", "the Python shell runs it at start"),
	NAME(".pythonrc.py", "the Python shell runs it at start"),
	NAME(".Rprofile", RCFILE),
	NAME(".irbrc", RCFILE),
	NAME(".pryrc", RCFILE),
	NAME(".iex.exs", RCFILE),
	NAME(".ghci", RCFILE),
	NAME(".gdbinit", RCFILE),
	NAME(".lldbinit", RCFILE),
	NAME(".jvmopts", "JVM options for sbt: agents, classpath"),
	NAME(".sbtopts", "sbt options: JVM agents, classpath"),
	IGLOB("babel.config.*", JSCF),
	GLOB(".babelrc*", JSCF),
	IGLOB("eslint.config.*", JSCF),
	GLOB(".eslintrc*", JSCF),
	IGLOB("prettier.config.*", JSCF),
	GLOB(".prettierrc*", JSCF),
	IGLOB("stylelint.config.*", JSCF),
	GLOB(".stylelintrc*", JSCF),
	IGLOB("vite.config.*", JSCF),
	IGLOB("webpack.config.*", JSCF),
	IGLOB("rollup.config.*", JSCF),
	IGLOB("postcss.config.*", JSCF),
	IGLOB("tailwind.config.*", JSCF),
	IGLOB("next.config.*", JSCF),
	IGLOB("nuxt.config.*", JSCF),
	IGLOB("svelte.config.*", JSCF),
	IGLOB("astro.config.*", JSCF),
#undef CAT
#define CAT "editors and IDEs"
	DIR(".vscode", EDITOR),
	GLOB("*.code-workspace", EDITOR),
	DIR(".idea", EDITOR),
	DIR(".fleet", EDITOR),
	DIR(".zed", EDITOR),
	DIR(".helix", "Helix settings: language servers it starts"),
	DIR(".theia", EDITOR),
	GLOB("*.sublime-project", EDITOR),
	NAME(".nvim.lua", "Neovim runs it (exrc)"),
	NAME(".nvimrc", "Neovim runs it (exrc)"),
	NAME(".exrc", "vi and Vim run it (exrc)"),
	NAME(".vimrc", "Vim runs it"),
	NAME(".gvimrc", "Vim runs it"),
	NAME(".lvimrc", "Vim's localvimrc runs it"),
	NAME(".lazy.lua", "lazy.nvim runs it"),
	NAME(".dir-locals.el", "Emacs evaluates it"),
	NAME(".dir-locals-2.el", "Emacs evaluates it"),
#undef CAT
#define CAT "dev containers, environments and compose"
	DIR(".devcontainer", CONT),
	NAME(".devcontainer.json", CONT),
	INAME("Dockerfile", CONT),
	IGLOB("Dockerfile.*", CONT),
	IGLOB("*.Dockerfile", CONT),
	INAME("Containerfile", CONT),
	IGLOB("Containerfile.*", CONT),
	NAME("compose.yaml", CONT),
	NAME("compose.yml", CONT),
	GLOB("compose.*.yaml", CONT),
	GLOB("compose.*.yml", CONT),
	GLOB("docker-compose*.yml", CONT),
	GLOB("docker-compose*.yaml", CONT),
	NAME("Vagrantfile", CONT),
	NAME(".gitpod.yml", CONT),
	NAME("devbox.json", CONT),
	NAME("devenv.nix", CONT),
	NAME("devenv.yaml", CONT),
	NAME("flake.nix", CONT),
	NAME("flake.lock", "pins what flake.nix fetches and runs"),
	NAME("shell.nix", CONT),
	NAME("default.nix", CONT),
#undef CAT
#define CAT "CI for every forge"
	DIR(".github", "CI workflows and actions run with the repository's "
	    "secrets"),
	DIR(".gitlab", CI),
	NAME(".gitlab-ci.yml", CI),
	DIR(".forgejo", CI),
	DIR(".gitea", CI),
	DIR(".woodpecker", CI),
	NAME(".woodpecker.yml", CI),
	NAME(".woodpecker.yaml", CI),
	NAME(".drone.yml", CI),
	NAME(".drone.yaml", CI),
	NAME(".drone.jsonnet", CI),
	NAME(".drone.star", CI),
	NAME("bitbucket-pipelines.yml", CI),
	DIR(".buildkite", CI),
	DIR(".circleci", CI),
	NAME(".travis.yml", CI),
	NAME("azure-pipelines.yml", CI),
	NAME("azure-pipelines.yaml", CI),
	DIR(".azure-pipelines", CI),
	NAME("Jenkinsfile", CI),
	NAME("appveyor.yml", CI),
	NAME(".appveyor.yml", CI),
	NAME(".cirrus.yml", CI),
	NAME(".cirrus.star", CI),
	NAME(".build.yml", CI),
	DIR(".builds", CI),
	DIR(".semaphore", CI),
	DIR(".tekton", CI),
	DIR(".teamcity", CI),
	NAME("cloudbuild.yaml", CI),
	NAME("cloudbuild.yml", CI),
	NAME("buildspec.yml", CI),
	NAME("codemagic.yaml", CI),
	NAME("netlify.toml", CI),
#undef CAT
#define CAT "git hook managers"
	DIR(".husky", HOOKS),
	DIR(".githooks", HOOKS),
	DIR(".git-hooks", HOOKS),
	NAME(".pre-commit-config.yaml", HOOKS),
	NAME(".pre-commit-config.yml", HOOKS),
	NAME("lefthook.yml", HOOKS),
	NAME("lefthook.yaml", HOOKS),
	NAME("lefthook.json", HOOKS),
	NAME("lefthook.toml", HOOKS),
	NAME(".lefthook.yml", HOOKS),
	NAME(".lefthook.yaml", HOOKS),
	NAME("lefthook-local.yml", HOOKS),
	NAME(".lefthook-local.yml", HOOKS),
	DIR(".lefthook", HOOKS),
	DIR(".lefthook-local", HOOKS),
	NAME(".overcommit.yml", HOOKS),
	GLOB(".huskyrc*", HOOKS),
	NAME("husky.config.js", HOOKS),
	GLOB(".simple-git-hooks*", HOOKS),
	GLOB("simple-git-hooks*", HOOKS),
	GLOB(".lintstagedrc*", HOOKS),
	GLOB("lint-staged.config.*", HOOKS),
	GLOB("commitlint.config.*", HOOKS),
	GLOB(".commitlintrc*", HOOKS),
#undef CAT
#define CAT "environment loaders"
	NAME(".envrc", "direnv runs it when entering the directory"),
	NAME(".env", ENVL),
	GLOB(".env.*", ENVL),
	NAME(".flaskenv", ENVL),
	DIR(".direnv", "direnv's layouts and environment"),
#undef CAT
#define CAT "agents: instructions and configuration"
	NAME("AGENTS.md", AGENT),
	NAME("AGENTS.override.md", AGENT),
	NAME("AGENT.md", AGENT),
	NAME("CLAUDE.md", "instructions read by an agent"),
	NAME("CLAUDE.local.md", AGENT),
	NAME("GEMINI.md", AGENT),
	NAME("QWEN.md", AGENT),
	NAME("CRUSH.md", AGENT),
	DIR(".claude", "agent configuration: hooks and commands"),
	DIR(".claude-plugin", "an agent plugin: hooks and MCP servers"),
	DIR(".codex", AGENT),
	DIR(".gemini", AGENT),
	DIR(".qwen", AGENT),
	DIR(".cursor", "agent configuration and MCP servers"),
	DIR(".agents", "agent skills and plugins"),
	DIR(".windsurf", AGENT),
	DIR(".continue", AGENT),
	DIR(".roo", AGENT),
	DIR(".kilocode", AGENT),
	DIR(".amazonq", AGENT),
	DIR(".junie", AGENT),
	DIR(".kiro", AGENT),
	DIR(".opencode", AGENT),
	DIR(".openhands", AGENT),
	DIR(".augment", AGENT),
	DIR(".clinerules", AGENT),
	NAME(".clinerules", AGENT),
	NAME(".cursorrules", AGENT),
	NAME(".windsurfrules", AGENT),
	NAME(".roomodes", AGENT),
	NAME(".rules", AGENT),
	NAME(".goosehints", AGENT),
	NAME(".augment-guidelines", AGENT),
	NAME(".continuerc.json", AGENT),
	NAME("opencode.json", AGENT),
	NAME("opencode.jsonc", AGENT),
	NAME("crush.json", AGENT),
	NAME(".crush.json", AGENT),
	NAME(".aider.conf.yml", "aider configuration: its lint and test "
	    "commands run"),
	NAME(".aider.model.settings.yml", AGENT),
	NAME(".aiderignore", "decides what an agent ignores"),
	SEQ(".github/copilot-instructions.md", AGENT),
	SEQ(".github/instructions", AGENT),
	SEQ(".github/prompts", AGENT),
	SEQ(".github/chatmodes", AGENT),
	NAME(".mcp.json", "MCP servers started by agents"),
	NAME(".lsp.json", "language servers started by an agent"),
	NAME("gemini-extension.json", "an agent extension: commands and MCP "
	    "servers"),
	NAME(".geminiignore", "decides what an agent ignores"),
	NAME(".aiexclude", "decides what an agent ignores"),
	NAME(".cursorignore", "decides what an agent ignores"),
#undef CAT
#define CAT "shells, logins and the home"
	NAME(".bashrc", SHELL),
	NAME(".bash_profile", SHELL),
	NAME(".bash_login", SHELL),
	NAME(".bash_logout", SHELL),
	NAME(".bash_aliases", SHELL),
	NAME(".profile", SHELL),
	NAME(".zshrc", SHELL),
	NAME(".zshenv", SHELL),
	NAME(".zprofile", SHELL),
	NAME(".zlogin", SHELL),
	NAME(".zlogout", SHELL),
	NAME(".kshrc", SHELL),
	NAME(".mkshrc", SHELL),
	NAME(".cshrc", SHELL),
	NAME(".tcshrc", SHELL),
	NAME(".login", SHELL),
	NAME(".logout", SHELL),
	NAME(".inputrc", "readline key bindings can type commands into a "
	    "shell"),
	NAME(".tmux.conf", "tmux runs its commands"),
	NAME(".screenrc", "screen runs its commands"),
	NAME(".xprofile", "the desktop session runs it at login"),
	NAME(".xinitrc", "the desktop session runs it"),
	NAME(".xsession", "the desktop session runs it"),
	NAME(".xsessionrc", "the desktop session runs it"),
	NAME(".pam_environment", "sets the environment of every login"),
	DIR(".ssh", "ssh keys, config and authorized_keys: who may log in, "
	    "what ssh runs"),
	DIR("autostart", "desktop autostart entries run at login"),
	SEQ(".config/systemd", "systemd user units run at login"),
	SEQ(".config/environment.d", "sets the environment of every login"),
	SEQ(".config/fish", SHELL),
	SEQ(".local/bin", "programs on the PATH"),
	SEQ(".local/share/applications", "desktop entries run programs"),
#undef CAT
#define CAT "git's own files"
	NAME(".gitattributes", "git filters and diff drivers run commands"),
	NAME(".gitmodules", "submodule URLs are fetched by git"),
	NAME(".gitignore", "decides what git (and this export) ignores"),
	NAME(".gitconfig", "git configuration: aliases, hooks paths, "
	    "helpers run commands"),
	NAME(".lfsconfig", "git-lfs configuration: where it fetches from, "
	    "what it runs"),
	SEQ(".config/git", "git configuration: aliases, hooks paths, "
	    "helpers run commands"),
#undef CAT
#define CAT "confine's own"
	NAME(".confine.ini", "a confine profile for later sessions"),
	SEQ(".config/confine", "confine profiles for later sessions"),
#undef CAT
};

#undef NAME
#undef INAME
#undef GLOB
#undef IGLOB
#undef DIR
#undef SEQ

const struct flag_rule *
flag_rules(size_t *n)
{
	*n = nitems(rules);
	return rules;
}

static bool
same(const char *a, const char *b, size_t n, bool icase)
{
	return icase ? strncasecmp(a, b, n) == 0 : strncmp(a, b, n) == 0;
}

static bool
fold_eq(char a, char b, bool icase)
{
	if (icase && a >= 'A' && a <= 'Z')
		a = (char)(a - 'A' + 'a');
	if (icase && b >= 'A' && b <= 'Z')
		b = (char)(b - 'A' + 'a');
	return a == b;
}

/* Does s[0..n) match pat, where '*' is any run of bytes? */
static bool
glob(const char *pat, const char *s, size_t n, bool icase)
{
	size_t i;

	for (; *pat; pat++, s++, n--) {
		if (*pat == '*') {
			for (i = 0; i <= n; i++)
				if (glob(pat + 1, s + i, n - i, icase))
					return true;
			return false;
		}
		if (n == 0 || !fold_eq(*pat, *s, icase))
			return false;
	}
	return n == 0;
}

/* A component c of n bytes against a rule; last: it is the file name. */
static bool
component(const struct flag_rule *r, const char *c, size_t n, bool last)
{
	switch (r->kind) {
	case FLAG_NAME:
		return last && strlen(r->pat) == n && same(c, r->pat, n,
		    r->icase);
	case FLAG_GLOB:
		return last && glob(r->pat, c, n, r->icase);
	case FLAG_DIR:
		return !last && strlen(r->pat) == n && same(c, r->pat, n,
		    r->icase);
	case FLAG_SEQ:
		break;
	}
	return false;
}

/* Components in a row starting at p (a component's start)? */
static bool
sequence(const struct flag_rule *r, const char *p)
{
	size_t len = strlen(r->pat);

	return same(p, r->pat, len, r->icase) && (p[len] == '/' ||
	    p[len] == '\0');
}

/*
 * The most specific rule first: components in a row, then the file's
 * own name, then a directory it is under.
 */
const char *
flag_path(const char *path)
{
	const char *c, *e;
	size_t i;

	for (c = path; ; c = e + 1) {
		e = strchrnul(c, '/');
		for (i = 0; i < nitems(rules); i++)
			if (rules[i].kind == FLAG_SEQ && sequence(&rules[i], c))
				return rules[i].why;
		if (*e == '\0')
			break;
	}
	for (i = 0; i < nitems(rules); i++)
		if (component(&rules[i], c, (size_t)(e - c), true))
			return rules[i].why;
	for (c = path; (e = strchr(c, '/')) != NULL; c = e + 1)
		for (i = 0; i < nitems(rules); i++)
			if (component(&rules[i], c, (size_t)(e - c), false))
				return rules[i].why;
	return NULL;
}

/*
 * Contents.  Agent data, any bytes: decoded, compared, never trusted to
 * be well formed.
 */
#define NUL_TEXT	"text with NUL bytes in it: the review shows it as " \
	"binary, hiding the text"
#define SHEBANG_BIN	"a script (#!) with binary data in it: the review " \
	"shows it as binary"
#define MADE_BIN	"a text file made binary: the review shows no diff " \
	"of it"
#define UTF16		"UTF-16 text: the review shows it as binary, hiding " \
	"the text"
#define SCRIPT_BIN	"a script by its name, binary in content: the " \
	"review shows no diff of it"
#define BAD_UTF8	"not valid UTF-8: a terminal, an editor and a " \
	"compiler may each read it differently"
#define TAG		"invisible Unicode: tag characters (U+E0000-E007F) " \
	"hide text"
#define ZERO_WIDTH	"invisible Unicode: a zero-width character"
#define BOM		"invisible Unicode: a byte order mark (U+FEFF) inside " \
	"the text"
#define SOFT_HYPHEN	"invisible Unicode: a soft hyphen (U+00AD)"
#define FILLER		"invisible Unicode: a Hangul or halfwidth filler"
#define BIDI		"a bidirectional control: the text shows in another " \
	"order than tools read it"
#define VARSEL		"a variation selector outside emoji: invisible, it " \
	"can carry hidden data"
#define LINESEP		"a Unicode line or paragraph separator: tools " \
	"disagree on where lines end"
#define CONTROL		"control characters: they can hide text on a " \
	"terminal"
#define LONE_CR		"a carriage return inside a line: it can hide text " \
	"on a terminal"

/*
 * One UTF-8 sequence at s (n > 0 bytes left): its length, or 0 when it is
 * not valid (overlong, a surrogate, beyond U+10FFFF, cut short).
 */
static size_t
utf8(const uint8_t *s, size_t n, uint32_t *cp)
{
	size_t len, i;
	uint32_t c, min;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2, c = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3, c = s[0] & 0x0f, min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4, c = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

static bool
is_varsel(uint32_t c)
{
	return (c >= 0xfe00 && c <= 0xfe0f) || (c >= 0xe0100 && c <= 0xe01ef);
}

/* Default-ignorable or formatting: nothing a selector or joiner follows. */
static bool
is_format(uint32_t c)
{
	return c < 0x80 || is_varsel(c) || (c >= 0x200b && c <= 0x200f) ||
	    (c >= 0x202a && c <= 0x202e) || (c >= 0x2060 && c <= 0x206f) ||
	    c == 0xfeff || c == 0x00ad || (c >= 0xe0000 && c <= 0xe007f);
}

/*
 * Why code point c, between prev and next (0 at either end), deceives a
 * reader, or NULL.  Joiners and variation selectors have honest uses
 * (emoji sequences, scripts that need them): those are let through.
 */
static const char *
deceptive(uint32_t prev, uint32_t c, uint32_t next, size_t off)
{
	if (c >= 0xe0000 && c <= 0xe007f)
		return TAG;
	if (c == 0x200b || (c >= 0x2060 && c <= 0x2064) || c == 0x180e ||
	    c == 0x17b4 || c == 0x17b5 || (c >= 0xfff9 && c <= 0xfffb) ||
	    (c >= 0x1d173 && c <= 0x1d17a))
		return ZERO_WIDTH;
	if (c == 0x200c || c == 0x200d)
		return is_format(prev) || is_format(next) ? ZERO_WIDTH : NULL;
	if (c == 0xfeff)
		return off == 0 ? NULL : BOM;
	if (c == 0x00ad)
		return SOFT_HYPHEN;
	if (c == 0x115f || c == 0x1160 || c == 0x3164 || c == 0xffa0)
		return FILLER;
	if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) ||
	    c == 0x200e || c == 0x200f || c == 0x061c)
		return BIDI;
	if (c >= 0xfe00 && c <= 0xfe0f) {
		/* A keycap: a digit, '#' or '*', the selector, U+20E3. */
		if (((prev >= '0' && prev <= '9') || prev == '#' ||
		    prev == '*') && next == 0x20e3)
			return NULL;
		return is_format(prev) ? VARSEL : NULL;
	}
	if (c >= 0xe0100 && c <= 0xe01ef)
		return prev >= 0x2e80 && !is_format(prev) ? NULL : VARSEL;
	if (c == 0x2028 || c == 0x2029)
		return LINESEP;
	if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' &&
	    c != '\v') || c == 0x7f || (c >= 0x80 && c <= 0x9f))
		return CONTROL;
	if (c == '\r' && next != '\n' && next != 0)
		return LONE_CR;
	return NULL;
}

static size_t
line_of(const uint8_t *s, size_t off)
{
	size_t line = 1, i;

	for (i = 0; i < off; i++)
		line += s[i] == '\n';
	return line;
}

/* Why text s[0..n) (no NUL in it) deceives, and on which line. */
static const char *
text(const uint8_t *s, size_t n, size_t *line)
{
	uint32_t prev = 0, c = 0, next = 0;
	size_t off = 0, len, nlen = 0;
	const char *why;

	if (n > 0 && (len = utf8(s, n, &c)) == 0)
		goto bad;
	for (; off < n; off += len, prev = c, c = next, len = nlen) {
		next = 0;
		nlen = 0;
		if (off + len < n && (nlen = utf8(s + off + len, n - off - len,
		    &next)) == 0) {
			/* Flag what comes first: c, or the bad bytes. */
			if ((why = deceptive(prev, c, 0, off)) != NULL)
				goto found;
			off += len;
			goto bad;
		}
		if ((why = deceptive(prev, c, next, off)) != NULL)
			goto found;
	}
	return NULL;
bad:
	why = BAD_UTF8;
found:
	*line = line_of(s, off);
	return why;
}

/* Text but for its NUL bytes: valid UTF-8, no control but whitespace. */
static bool
text_but_nul(const uint8_t *s, size_t n)
{
	uint32_t c;
	size_t off, len;

	for (off = 0; off < n; off += len) {
		if (s[off] == '\0') {
			len = 1;
			continue;
		}
		if ((len = utf8(s + off, n - off, &c)) == 0)
			return false;
		if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' &&
		    c != '\f' && c != '\v') || c == 0x7f)
			return false;
	}
	return true;
}

/*
 * A path's bytes: agent data.  Any control character (a tab or a newline
 * too, which no file name needs), else what deceives in text.
 */
const char *
flag_name(const char *path)
{
	const uint8_t *s = (const uint8_t *)path;
	size_t n = strlen(path), i, line;

	for (i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] == 0x7f)
			return CONTROL;
	return text(s, n, &line);
}

static bool
has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n > m && strcasecmp(s + n - m, suf) == 0;
}

/* A name that says "run me" to a shell or an interpreter. */
static bool
script_name(const char *path)
{
	static const char *const sufs[] = { ".sh", ".bash", ".zsh", ".ksh",
	    ".fish", ".py", ".pl", ".pm", ".rb", ".js", ".mjs", ".cjs",
	    ".ts", ".php", ".lua", ".tcl", ".ps1", ".bat", ".cmd", ".mk" };
	size_t i;

	for (i = 0; i < nitems(sufs); i++)
		if (has_suffix(path, sufs[i]))
			return true;
	return false;
}

const char *
flag_content(const char *path, const void *old, size_t oldlen,
    const void *new, size_t newlen, size_t *line)
{
	const uint8_t *s = new;

	*line = 0;
	if (newlen == 0)
		return NULL;
	if (memchr(s, '\0', newlen) == NULL)
		return text(s, newlen, line);
	/* Binary to git: what a review will not see as text. */
	if (newlen >= 2 && s[0] == '#' && s[1] == '!')
		return SHEBANG_BIN;
	if (old != NULL && oldlen > 0 && memchr(old, '\0', oldlen) == NULL)
		return MADE_BIN;
	if (script_name(path))
		return SCRIPT_BIN;
	/* A byte order mark says UTF-16: text, whatever git makes of it. */
	if (newlen >= 2 && ((s[0] == 0xff && s[1] == 0xfe) ||
	    (s[0] == 0xfe && s[1] == 0xff)))
		return UTF16;
	if (text_but_nul(s, newlen))
		return NUL_TEXT;
	return NULL;
}
