/* SPDX-License-Identifier: ISC */
/*
 * input/profile.h - INI profiles (confine-profile(5)) read into plain data.
 *
 * Every value keeps where it came from ("FILE:LINE", "option --NAME" or
 * "built-in"), so the policy can explain itself.  Reading a profile follows
 * its "extends" chain; scalars of a later file replace, lists append, and an
 * empty list value clears what was inherited.
 */
#ifndef CONFINE_PROFILE_H
#define CONFINE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct pvalue {
	char	*value;		/* NULL: not set */
	char	*origin;
};

struct plist {
	struct pvalue	*v;
	size_t		 n;
};

/* A [workspace NAME] section. */
struct profile_ws {
	char		*name;		/* NAME */
	char		*origin;	/* FILE:LINE of its first key */
	struct pvalue	 path;		/* absolute, ~/, or relative to the
					   first workspace */
	struct pvalue	 mode;		/* read-write or read-only */
	struct pvalue	 private;	/* yes or no */
};

struct profile {
	char		*name;		/* as asked for, or the file's path */
	char		*path;		/* the file read first; NULL: built-in */
	/* [profile] */
	struct pvalue	 quadrant, untrusted, description;
	/* [filesystem] */
	struct plist	 read_only, hide, scratch, direct, home;
	struct plist	 persistent;	/* scratch kept across sessions */
	/* [workspace] */
	struct pvalue	 ws_path, ws_private, ws_mode;
	/* [workspace NAME]: the further workspaces, in the order first
	 * named; a later file's section of the same name replaces the keys
	 * it sets */
	struct profile_ws *more_ws;
	size_t		 nmore_ws;
	/* [network] */
	struct pvalue	 net_mode;
	struct plist	 allow, endpoint;
	/* [environment] */
	struct plist	 env_pass, env_set;
	/* [credential] */
	struct plist	 cred_file, cred_var;	/* passed in (a raw endpoint) */
	struct pvalue	 inject, cred_ca, web_search, refresh;
	struct plist	 cred_source;		/* injected: read outside */
	/* [sandbox] */
	struct pvalue	 backend;
	/* [terminal] */
	struct pvalue	 clipboard;
	/* [command] */
	struct plist	 cmd_argument;	/* "NAME ARG..." */
	/* [limits]: as written, checked (input/values.h) */
	struct pvalue	 memory, tasks, cpus, disk;
};

/* Where named profiles are looked up, in order (NULL entries skipped). */
struct profile_dirs {
	const char	*dir[3];	/* user, system, shipped */
	uid_t		 uid;		/* files must be owned by it or root */
	char		*user;		/* owned: dir[0] as choose_dirs()
					   made it, or NULL */
};

#define PROFILE_MAX_SIZE	(64 * 1024)
#define PROFILE_MAX_DEPTH	8

/*
 * Each loader returns 0 and fills *ret, or -1 with *cause ("FILE:LINE:
 * message") and *hint (possibly NULL) set to heap strings; nothing of a
 * profile with any error is used.
 */
/* A name looked up in the dirs; the file must not be group/other-writable. */
int	profile_load_name(const struct profile_dirs *, const char *name,
	    struct profile *ret, char **cause, char **hint);
/* A file named by the user (-p ./x.ini, profile check). */
int	profile_load_file(const struct profile_dirs *, const char *path,
	    struct profile *ret, char **cause, char **hint);
/* Bytes already read (a hash-pinned repository profile); path names them. */
int	profile_load_buffer(const struct profile_dirs *, const char *path,
	    const char *buf, size_t len, struct profile *ret, char **cause,
	    char **hint);

/* The path of NAME in the dirs, or NULL.  *dir_index says which dir. */
char	*profile_find(const struct profile_dirs *, const char *name,
	    int *dir_index);
/* Is s a valid profile name (letters, digits, '.', '_', '-')? */
bool	profile_name_ok(const char *s);

/* Read a whole small file into memory (max PROFILE_MAX_SIZE).  0 or -errno. */
int	profile_read_file(const char *path, char **ret, size_t *ret_len);

void	profile_free(struct profile *);
void	pvalue_set(struct pvalue *, const char *value, const char *origin);
void	plist_add(struct plist *, const char *value, const char *origin);
void	plist_clear(struct plist *);

#endif
