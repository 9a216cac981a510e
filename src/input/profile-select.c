// SPDX-License-Identifier: ISC
/*
 * input/profile-select.c - the profile search order (DESIGN.md section 5).
 *
 * Runs in: the supervisor.  A repository's .confine.ini is agent-writable
 * content: it is read once, without following a symlink, hashed, and the
 * very bytes whose hash the user pinned are what is parsed.
 * MUST: never ignore a repository profile silently: untrusted or changed
 * means a refusal with a hint.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/profile-select.h"
#include "input/trust-pins.h"
#include "input/values.h"
#include "lib/sha256.h"
#include "lib/util.h"

void
choose_dirs(const struct host *h, struct profile_dirs *d)
{
	d->user = path_join(h->config_home, "confine/profiles");
	d->dir[0] = d->user;
	d->dir[1] = SYSCONFDIR "/confine/profiles";
	d->dir[2] = PROFILEDIR;
	d->uid = h->uid;
}

void
choose_dirs_free(struct profile_dirs *d)
{
	if (d == NULL)
		return;
	free(d->user);
	*d = (struct profile_dirs){ .uid = d->uid };
}

char *
choose_pins(const struct host *h)
{
	return path_join(h->config_home, "confine/trust");
}

/* Read a file without following a symlink at its last component. */
static int
read_nofollow(const char *path, char **ret, size_t *ret_len)
{
	autoclose int fd = -1;
	autofree char *proc = NULL;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
	    O_NONBLOCK)) < 0)
		return -errno;
	proc = xasprintf("/proc/self/fd/%d", fd);
	return profile_read_file(proc, ret, ret_len);
}

static int
repository(const struct host *h, const struct profile_dirs *d,
    const char *ws, struct profile *ret, char **reason, char **cause,
    char **hint)
{
	autofree char *path = path_join(ws, ".confine.ini"), *buf = NULL;
	autofree char *pins = choose_pins(h);
	char hex[65];
	size_t len;
	int r;

	if ((r = read_nofollow(path, &buf, &len)) < 0) {
		if (r == -ENOENT)
			return 0;
		*cause = xasprintf("%s: cannot read: %s", path, r == -ELOOP ?
		    "it is a symbolic link" : r == -EFBIG ? "larger than 64 KiB"
		    : r == -EINVAL ? "not a regular file" : strerror(-r));
		*hint = xasprintf("a repository profile must be a regular "
		    "file; run with -p NAME to use another profile");
		return -1;
	}
	sha256_hex(buf, len, hex);
	switch (trust_lookup(pins, path, hex)) {
	case TRUST_NONE:
		*cause = xasprintf("%s is not trusted", path);
		*hint = xasprintf("review it, then run 'confine trust %s'; or "
		    "run with -p NAME to use another profile", path);
		return -1;
	case TRUST_CHANGED:
		*cause = xasprintf("%s changed since you trusted it", path);
		*hint = xasprintf("review the change, then run 'confine trust "
		    "%s' again; or run with -p NAME", path);
		return -1;
	case TRUST_PINNED:
		break;
	}
	if (profile_load_buffer(d, path, buf, len, ret, cause, hint) < 0)
		return -1;
	*reason = xasprintf("the workspace's profile, trusted (sha256 %.16s...)",
	    hex);
	return 1;
}

static const char *
base_name(const char *s)
{
	const char *b = strrchr(s, '/');

	return b ? b + 1 : s;
}

int
choose_profile(const struct cli_opts *o, const struct host *h,
    struct profile *ret, char **reason, char **cause, char **hint)
{
	AUTO(choose_dirs_free) struct profile_dirs d = { 0 };
	const char *ws, *cmd;
	autofree char *found = NULL;
	int r, where = 0;

	*cause = *hint = *reason = NULL;
	choose_dirs(h, &d);
	if (o->profile) {
		const char *p = o->profile;
		size_t n = strlen(p);

		if (strchr(p, '/') || (n > 4 && streq(p + n - 4, ".ini"))) {
			if (profile_load_file(&d, p, ret, cause, hint) < 0)
				return -1;
			*reason = xasprintf("-p %s", p);
			return 0;
		}
		if (!profile_name_ok(p)) {
			*cause = xasprintf("--profile '%s': not a profile name "
			    "or a file path", p);
			return -1;
		}
		if ((found = profile_find(&d, p, &where)) == NULL &&
		    streq(p, "sealed")) {
			memset(ret, 0, sizeof(*ret));
			ret->name = xstrdup("sealed (built-in)");
			*reason = xasprintf("-p sealed; no sealed.ini in %s, %s "
			    "or %s, so the built-in sealed policy", d.dir[0],
			    d.dir[1], d.dir[2]);
			return 0;
		}
		if (profile_load_name(&d, p, ret, cause, hint) < 0)
			return -1;
		*reason = xasprintf("-p %s, found in %s", p, d.dir[where]);
		return 0;
	}
	ws = h->workspace ? h->workspace : h->git_top ? h->git_top : h->cwd;
	if ((r = repository(h, &d, ws, ret, reason, cause, hint)) != 0)
		return r < 0 ? -1 : 0;
	cmd = o->argv && o->argv[0] ? base_name(o->argv[0]) : NULL;
	if (cmd && profile_name_ok(cmd) &&
	    (found = profile_find(&d, cmd, &where)) != NULL) {
		if (profile_load_name(&d, cmd, ret, cause, hint) < 0)
			return -1;
		*reason = xasprintf("named after the command, found in %s",
		    d.dir[where]);
		return 0;
	}
	free(found);
	if ((found = profile_find(&d, "sealed", &where)) != NULL) {
		if (profile_load_name(&d, "sealed", ret, cause, hint) < 0)
			return -1;
		*reason = xasprintf("the default, found in %s", d.dir[where]);
		return 0;
	}
	memset(ret, 0, sizeof(*ret));
	ret->name = xstrdup("sealed (built-in)");
	*reason = xasprintf("the default; no sealed.ini in %s, %s or %s, so "
	    "the built-in sealed policy", d.dir[0], d.dir[1], d.dir[2]);
	return 0;
}

/* One further workspace: its real path, or -1 with *cause. */
static int
more_ws(struct host *h, const char *base, const char *asked,
    const char *origin, const char *key, bool ro, const struct pvalue *priv,
    char **cause)
{
	autofree char *abs = asked[0] == '/' || asked[0] == '~' ?
	    syntax_expand(asked, h->home) : path_join(base, asked);
	struct host_ws *w;
	char *real;
	struct stat st;

	if ((real = realpath(abs, NULL)) == NULL || stat(real, &st) < 0 ||
	    !S_ISDIR(st.st_mode)) {
		*cause = xasprintf("%s%s%s: '%s': %s", key[0] == '-' ? "" :
		    origin, key[0] == '-' ? "" : ": ", key, asked,
		    real ? "not a directory" : strerror(errno));
		free(real);
		return -1;
	}
	h->more_ws = xreallocarray(h->more_ws, h->nmore_ws + 1,
	    sizeof(*h->more_ws));
	w = &h->more_ws[h->nmore_ws++];
	memset(w, 0, sizeof(*w));
	w->path = real;
	w->origin = xstrdup(origin);
	w->read_only = ro;
	if (priv && priv->value) {
		w->private = xstrdup(priv->value);
		w->private_origin = xstrdup(priv->origin);
	}
	return 0;
}

int
choose_workspace(const struct cli_opts *o, struct host *h,
    const struct profile *pr, char **cause)
{
	autofree char *ws = NULL;
	const char *base;
	size_t i;

	if (!o->workspace && pr->ws_path.value) {
		ws = syntax_expand(pr->ws_path.value, h->home);
		if ((h->workspace = realpath(ws, NULL)) == NULL) {
			*cause = xasprintf("%s: workspace.path: '%s': %s",
			    pr->ws_path.origin, ws, strerror(errno));
			return -1;
		}
	}
	/* A further workspace's relative path: from the first's. */
	base = h->workspace ? h->workspace : h->git_top ? h->git_top :
	    h->cwd;
	for (i = 0; i < pr->nmore_ws; i++) {
		const struct profile_ws *w = &pr->more_ws[i];
		autofree char *key = xasprintf("[workspace %s] path", w->name);

		if (w->path.value == NULL) {
			*cause = xasprintf("%s: [workspace %s] has no path",
			    w->origin, w->name);
			return -1;
		}
		if (more_ws(h, base, w->path.value, w->path.origin, key,
		    w->mode.value && streq(w->mode.value, "read-only"),
		    &w->private, cause) < 0)
			return -1;
	}
	for (i = 0; i < o->more_ws.n; i++)
		if (more_ws(h, h->cwd, o->more_ws.v[i], "option --workspace",
		    "--workspace", false, NULL, cause) < 0)
			return -1;
	for (i = 0; i < o->ro_ws.n; i++)
		if (more_ws(h, h->cwd, o->ro_ws.v[i], "option --ro-workspace",
		    "--ro-workspace", true, NULL, cause) < 0)
			return -1;
	return 0;
}
