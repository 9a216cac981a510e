/* SPDX-License-Identifier: ISC */
/*
 * store/git-cache.h - the answer git gave for the user's identity, kept
 * for the next run: $XDG_STATE_HOME/confine/git-identity.
 *
 * One file: "confine-git-identity 1 KEY STATUS LEN\n" and LEN bytes of
 * git's answer, KEY the SHA-256 of what the answer depends on
 * (input/host-probe.h, probe_git_key()).  The answer read back is checked
 * as a fresh one is (probe_git_answer()).
 *
 * Runs in: confine, on the host, before the plan.
 */
#ifndef CONFINE_GIT_CACHE_H
#define CONFINE_GIT_CACHE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The kept answer for key: true with *status, out (at most max bytes) and
 * *len; false when there is none for this key (or it cannot be read).
 */
bool	git_cache_load(const char *state_home, const char *key, int *status,
	    char *out, size_t max, size_t *len);

/* Keep git's answer for key (written aside, then renamed); quietly not
 * kept when it cannot be written. */
void	git_cache_save(const char *state_home, const char *key, int status,
	    const char *out, size_t len);

#endif
