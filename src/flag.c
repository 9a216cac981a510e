// SPDX-License-Identifier: ISC
/*
 * flag.c - the paths a review must look at twice: files that tools on the
 * host read and act on (git, direnv, editors, CI, build systems, package
 * managers, agents, confine itself).  Pure; matched on path components.
 */
#include "config.h"

#include <string.h>

#include "flag.h"
#include "util.h"

/* A directory anywhere in the path. */
static const struct { const char *dir, *why; } dirs[] = {
	{ ".vscode", "editor settings and tasks can run commands" },
	{ ".idea", "IDE settings can run commands" },
	{ ".devcontainer", "a dev container definition runs on the host's "
	    "container engine" },
	{ ".github", "CI workflows and actions run with the repository's "
	    "secrets" },
	{ ".circleci", "CI configuration" },
	{ ".husky", "git hooks run by tools" },
	{ ".githooks", "git hooks run by tools" },
	{ ".claude", "agent configuration: hooks and commands" },
	{ ".codex", "agent configuration" },
	{ ".gemini", "agent configuration" },
	{ ".cursor", "agent configuration and MCP servers" },
	{ ".agents", "agent skills and plugins" },
	{ ".claude-plugin", "agent plugin: hooks and MCP servers" },
	{ ".ssh", "ssh keys and authorized_keys: who may log in" },
	{ "autostart", "desktop autostart entries run at login" },
	{ ".cargo", "cargo configuration: wrappers and runners" },
};

/* Two directories in a row anywhere in the path (a home's layout). */
static const struct { const char *dirs, *why; } pairs[] = {
	{ ".config/systemd", "systemd user units run at login" },
	{ ".local/bin", "programs on the PATH" },
	{ ".local/share/applications", "desktop entries run programs" },
};

/* A file name anywhere. */
static const struct { const char *name, *why; } names[] = {
	{ ".gitattributes", "git filters and diff drivers run commands" },
	{ ".gitmodules", "submodule URLs are fetched by git" },
	{ ".gitignore", "decides what git (and this export) ignores" },
	{ ".envrc", "direnv runs it when entering the directory" },
	{ ".confine.ini", "a confine profile for later sessions" },
	{ ".mcp.json", "MCP servers started by agents" },
	{ "CLAUDE.md", "instructions read by an agent" },
	{ "CLAUDE.local.md", "instructions read by an agent" },
	{ "AGENTS.override.md", "instructions read by agents" },
	{ ".lsp.json", "language servers started by an agent" },
	{ "gemini-extension.json", "an agent extension: commands and MCP "
	    "servers" },
	{ ".geminiignore", "decides what an agent ignores" },
	{ ".aiexclude", "decides what an agent ignores" },
	{ ".bashrc", "a shell runs it at start" },
	{ ".bash_profile", "a shell runs it at login" },
	{ ".bash_login", "a shell runs it at login" },
	{ ".bash_logout", "a shell runs it at logout" },
	{ ".profile", "a shell runs it at login" },
	{ ".zshrc", "a shell runs it at start" },
	{ ".zshenv", "a shell runs it at start" },
	{ ".zprofile", "a shell runs it at login" },
	{ ".zlogin", "a shell runs it at login" },
	{ ".gitconfig", "git configuration: aliases, hooks paths, helpers "
	    "run commands" },
	{ ".xprofile", "the desktop session runs it at login" },
	{ ".xinitrc", "the desktop session runs it" },
	{ ".pam_environment", "sets the environment of every login" },
	{ "AGENTS.md", "instructions read by agents" },
	{ "GEMINI.md", "instructions read by an agent" },
	{ "Makefile", "a build script" },
	{ "makefile", "a build script" },
	{ "GNUmakefile", "a build script" },
	{ "Makefile.am", "a build script" },
	{ "Makefile.in", "a build script" },
	{ "configure", "a build script" },
	{ "configure.ac", "a build script" },
	{ "CMakeLists.txt", "a build script" },
	{ "meson.build", "a build script" },
	{ "meson_options.txt", "build options" },
	{ "build.rs", "runs at build time" },
	{ "Cargo.toml", "a package manifest with build steps" },
	{ "setup.py", "runs at install time" },
	{ "setup.cfg", "a package manifest" },
	{ "pyproject.toml", "a package manifest with build steps" },
	{ "conftest.py", "pytest runs it" },
	{ "tox.ini", "runs commands" },
	{ "noxfile.py", "runs commands" },
	{ "package.json", "a package manifest: scripts run on install" },
	{ ".npmrc", "npm configuration" },
	{ "Gemfile", "a package manifest" },
	{ "Rakefile", "a build script" },
	{ "build.gradle", "a build script" },
	{ "build.gradle.kts", "a build script" },
	{ "pom.xml", "a build script" },
	{ "justfile", "a build script" },
	{ "Taskfile.yml", "a build script" },
	{ ".pre-commit-config.yaml", "hooks run by pre-commit" },
	{ ".gitlab-ci.yml", "CI configuration" },
	{ ".travis.yml", "CI configuration" },
	{ "azure-pipelines.yml", "CI configuration" },
	{ "Jenkinsfile", "CI configuration" },
	{ ".tool-versions", "tool versions installed by asdf or mise" },
	{ ".mise.toml", "mise runs tasks and hooks" },
	{ "Dockerfile", "builds run commands" },
};

static const char *
suffix(const char *name)
{
	size_t n = strlen(name);

	if (n > 3 && streq(name + n - 3, ".mk"))
		return "a build script";
	if (n > 6 && streq(name + n - 6, ".cmake"))
		return "a build script";
	if (n > 4 && streq(name + n - 4, ".pth"))
		return "Python runs .pth files at start-up";
	return NULL;
}

const char *
flag_path(const char *path)
{
	const char *c = path, *why, *at;
	size_t i, len;

	for (i = 0; i < nitems(pairs); i++) {
		len = strlen(pairs[i].dirs);
		for (at = strstr(path, pairs[i].dirs); at;
		    at = strstr(at + 1, pairs[i].dirs))
			if ((at == path || at[-1] == '/') && at[len] == '/')
				return pairs[i].why;
	}
	for (;;) {
		const char *e = strchrnul(c, '/');
		size_t n = (size_t)(e - c);

		if (*e == '/') {
			for (i = 0; i < nitems(dirs); i++)
				if (strlen(dirs[i].dir) == n &&
				    strncmp(c, dirs[i].dir, n) == 0)
					return dirs[i].why;
		} else {
			for (i = 0; i < nitems(names); i++)
				if (streq(c, names[i].name))
					return names[i].why;
			if ((why = suffix(c)) != NULL)
				return why;
			return NULL;
		}
		c = e + 1;
	}
}
