// SPDX-License-Identifier: ISC
/*
 * profile-fuzzer.c - libFuzzer harness for the profile loader: the input
 * bytes are a profile given to profile_load_buffer, as a pinned repository
 * profile is.  Built only with ./configure --enable-fuzzing CC=clang (see
 * fuzz/fuzz.mk and fuzz/run.sh).
 *
 * "extends = mid" and "extends = base" resolve in a profile directory
 * written at start-up (mid extends base), so the chain, the merge and the
 * permission check run too: $CONFINE_FUZZ_PROFILES (made by fuzz/run.sh),
 * else a temporary directory removed at exit.  Besides what ASan, UBSan and LSan
 * report, the harness aborts when the loader breaks its contract: an error
 * without a cause, or a profile that holds a value its own checks refuse.
 */
#include "config.h"

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/profile.h"
#include "input/values.h"
#include "lib/util.h"

int	LLVMFuzzerInitialize(int *, char ***);
int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static char dir[4096];
static char *files[2];
static struct profile_dirs dirs;

static const char base_ini[] =
	"[profile]\n"
	"quadrant = sealed\n"
	"description = base\n"
	"[filesystem]\n"
	"read-only = /usr\n"
	"hide = ~/.ssh\n"
	"[network]\n"
	"mode = none\n"
	"allow = base.example.com:443\n"
	"[environment]\n"
	"pass = LC_*\n"
	"set = BASE=1\n";
static const char mid_ini[] =
	"[profile]\n"
	"extends = base\n"
	"quadrant = offline\n"
	"untrusted = yes\n"
	"[filesystem]\n"
	"read-only = /opt\n"
	"  /srv\n"
	"home = .gitconfig\n"
	"[network]\n"
	"endpoint = [::1]:8443\n"
	"[sandbox]\n"
	"backend = native\n";

static void
cleanup(void)
{
	size_t i;

	for (i = 0; i < nitems(files); i++)
		if (files[i])
			unlink(files[i]);
	rmdir(dir);
}

static void
put(size_t i, const char *name, const char *text)
{
	int fd;

	files[i] = xasprintf("%s/%s", dir, name);
	fd = open(files[i], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
	    fchmod(fd, 0644) < 0) {
		perror(files[i]);
		abort();
	}
	close(fd);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *given = getenv("CONFINE_FUZZ_PROFILES");
	const char *t = getenv("TMPDIR");

	(void)argc, (void)argv;
	if (given && given[0] == '/') {
		/* fuzz/run.sh's: kept, also when a crash skips atexit. */
		snprintf(dir, sizeof(dir), "%s", given);
	} else {
		snprintf(dir, sizeof(dir), "%s/confine-profile-fuzzer.XXXXXX",
		    t && t[0] == '/' ? t : "/tmp");
		if (mkdtemp(dir) == NULL) {
			perror(dir);
			abort();
		}
		atexit(cleanup);
	}
	put(0, "base.ini", base_ini);
	put(1, "mid.ini", mid_ini);
	dirs.dir[0] = dir;
	dirs.uid = getuid();
	return 0;
}

static void
check(const struct pvalue *v, int (*fn)(const char *, char **))
{
	char *why = NULL;

	if (v->value == NULL || v->origin == NULL || strchr(v->value, '\n'))
		abort();
	if (fn && fn(v->value, &why) < 0) {
		fprintf(stderr, "a value the checks refuse: '%s' (%s): %s\n",
		    v->value, v->origin, why);
		abort();
	}
	free(why);
}

static int
quadrant(const char *s, char **why)
{
	return syntax_word(s, syntax_quadrants, why);
}

static int
net_mode(const char *s, char **why)
{
	return syntax_word(s, syntax_net_modes, why);
}

static int
backend(const char *s, char **why)
{
	return syntax_word(s, syntax_backends, why);
}

static int
boolean(const char *s, char **why)
{
	bool b;

	return syntax_bool(s, &b, why);
}

static int
env_glob(const char *s, char **why)
{
	return syntax_env_name(s, true, why);
}

static int
env_name(const char *s, char **why)
{
	return syntax_env_name(s, false, why);
}

static int
ws_mode(const char *s, char **why)
{
	(void)why;
	return streq(s, "read-write") || streq(s, "read-only") ? 0 : -1;
}

static void
scalar(const struct pvalue *v, int (*fn)(const char *, char **))
{
	if (v->value || v->origin)
		check(v, fn);
}

static void
list(const struct plist *l, int (*fn)(const char *, char **))
{
	size_t i;

	for (i = 0; i < l->n; i++)
		check(&l->v[i], fn);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile p = { 0 };
	char *cause = NULL, *hint = NULL;

	/* The callers read at most this much (profile_read_file). */
	if (size > PROFILE_MAX_SIZE)
		return 0;
	if (profile_load_buffer(&dirs, "fuzz.ini", (const char *)data, size,
	    &p, &cause, &hint) < 0) {
		if (cause == NULL || cause[0] == '\0')
			abort();
	} else {
		if (cause || hint || p.name == NULL || p.path == NULL)
			abort();
		scalar(&p.quadrant, quadrant);
		scalar(&p.untrusted, boolean);
		scalar(&p.description, NULL);
		list(&p.read_only, syntax_path);
		list(&p.hide, syntax_path);
		list(&p.scratch, syntax_path);
		list(&p.persistent, syntax_path);
		list(&p.direct, syntax_path);
		list(&p.home, syntax_home_entry);
		scalar(&p.ws_path, syntax_path);
		scalar(&p.ws_private, boolean);
		scalar(&p.ws_mode, ws_mode);
		for (size_t i = 0; i < p.nmore_ws; i++) {
			/* A section's name, and a path as written. */
			if (p.more_ws[i].name == NULL ||
			    p.more_ws[i].name[0] == '\0')
				abort();
			scalar(&p.more_ws[i].path, NULL);
			scalar(&p.more_ws[i].mode, ws_mode);
			scalar(&p.more_ws[i].private, boolean);
		}
		scalar(&p.net_mode, net_mode);
		list(&p.allow, syntax_host);
		list(&p.endpoint, syntax_host);
		list(&p.env_pass, env_glob);
		list(&p.env_set, syntax_env_set);
		list(&p.cred_file, syntax_path);
		list(&p.cred_var, env_name);
		scalar(&p.backend, backend);
		profile_free(&p);
	}
	free(cause);
	free(hint);
	return 0;
}
