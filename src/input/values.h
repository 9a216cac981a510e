/* SPDX-License-Identifier: ISC */
/*
 * input/values.h - the values that profiles and options share: paths, hosts,
 * variable names, booleans and the enumerations.  Pure.
 *
 * Each check returns 0, or -1 with *why set to a heap string saying what
 * is wrong (the caller adds where: "FILE:LINE" or the option).
 */
#ifndef CONFINE_SYNTAX_H
#define CONFINE_SYNTAX_H

#include <stdbool.h>
#include <stdint.h>

int	syntax_bool(const char *, bool *ret, char **why);
/* Absolute and normal, or "~" / "~/..." (home-relative). */
int	syntax_path(const char *, char **why);
/* A path below the home directory, relative: ".gitconfig", ".config/x". */
int	syntax_home_entry(const char *, char **why);
/* HOST[:PORT]: a DNS name, "*.domain", an IPv4 literal or [IPv6]. */
int	syntax_host(const char *, char **why);
/* NAME, or with glob, NAME* (a prefix). */
int	syntax_env_name(const char *, bool glob, char **why);
/* NAME=VALUE. */
int	syntax_env_set(const char *, char **why);
/* One of the words, NULL-terminated; the error lists them. */
int	syntax_word(const char *, const char *const *words, char **why);
/* Which of the words it is, or -1. */
int	syntax_word_index(const char *, const char *const *words);

/* The network modes and backends, in the order of their word lists. */
enum plan_net { PLAN_NET_NONE, PLAN_NET_PROXY, PLAN_NET_HOST };
enum plan_backend { PLAN_BACKEND_AUTO, PLAN_BACKEND_NATIVE, PLAN_BACKEND_BWRAP,
	PLAN_BACKEND_LANDLOCK };

extern const char *const syntax_quadrants[];	/* sealed offline online trusted */
extern const char *const syntax_net_modes[];	/* none proxy host */
extern const char *const syntax_backends[];	/* auto native bwrap landlock */

/*
 * [credential] inject: "PROVIDER HOST[:PORT]", or "none".  *provider and
 * *upstream are heap strings (NULL for none).
 */
int	syntax_inject(const char *, char **provider, char **upstream,
	    char **why);

/* [credential] source: "KIND variable NAME", "KIND file PATH [FIELD]" or
 * "KIND command CMD...". */
enum syntax_source_type { SOURCE_VARIABLE, SOURCE_FILE, SOURCE_COMMAND };
struct syntax_source {
	char			*kind;	/* api-key, bearer, login */
	enum syntax_source_type	 type;
	char			*spec;	/* the name, the path or the command */
	char			*field;	/* file: the JSON field's dotted path */
};
int	syntax_source(const char *, struct syntax_source *ret, char **why);
void	syntax_source_free(struct syntax_source *);

extern const char *const syntax_providers[];	/* anthropic openai gemini */
extern const char *const syntax_cred_kinds[];	/* api-key bearer login */

/*
 * [command] argument: "NAME ARG...": a command's name (no slash) and the
 * words it gets first, split on blanks.
 */
int	syntax_argument(const char *, char **why);

/*
 * Resource limits ([limits], --memory, --tasks, --cpus, --disk): each also
 * takes "none", which is 0 in *ret.  A size is a whole number of bytes
 * with an optional K, M, G or T (powers of 1024), at least 1M; tasks a
 * whole number, at least 2 (the sandbox's first process counts); cpus N
 * or N.D with at most 3 decimals, more than 0, into thousandths of a CPU.
 * Overflow and 0 are refused.
 */
#define SYNTAX_SIZE_MIN		(1ULL << 20)
#define SYNTAX_TASKS_MIN	2
#define SYNTAX_TASKS_MAX	4194304		/* the kernel's PID_MAX_LIMIT */
#define SYNTAX_CPUS_MAX		(1ULL << 20)	/* in thousandths */
int	syntax_size(const char *, uint64_t *ret, char **why);
int	syntax_tasks(const char *, uint64_t *ret, char **why);
int	syntax_cpus(const char *, uint64_t *ret, char **why);

/* Expand a leading "~" against home; the result is normal.  Heap string. */
char	*syntax_expand(const char *path, const char *home);

#endif
