/* SPDX-License-Identifier: ISC */
/*
 * keyholder/credential.h - find the user's credential, outside the sandbox,
 * among the sources the command line names, in order: a variable of the
 * keyholder's own environment, a file (a JSON file's field by its dotted
 * path, or the whole file), or the output of a command (`pass show
 * anthropic`); and, for a login (Claude's claude.ai login, a JSON object
 * with an access token, a refresh token and its expiry), write renewed
 * tokens back to the file it came from.
 *
 * Runs in: confine-keyholder, before it serves anything; the write-back
 * also while it serves, under the caller's lock.
 * MUST: never print the credential; a failure says where it looked only.
 * MUST: open a login's file through no symbolic link (O_NOFOLLOW), and
 *       replace it only whole (a temporary file renamed over it).
 */
#ifndef CONFINE_KEYHOLDER_CREDENTIAL_H
#define CONFINE_KEYHOLDER_CREDENTIAL_H

#include <stddef.h>
#include <stdint.h>

/* The most a credential file, or a command's output, may hold. */
#define KH_CRED_FILE_MAX	(64 * 1024)
/* The most a credential itself may hold. */
#define KH_CRED_MAX		(16 * 1024)

enum kh_cred_source {
	KH_FROM_VARIABLE,	/* spec: the variable's name */
	KH_FROM_FILE,		/* spec: the path; field: dotted, or NULL */
	KH_FROM_COMMAND,	/* spec: run with /bin/sh -c */
};

/* What a source holds, hence how it goes on requests. */
enum kh_source_kind {
	KH_KIND_API_KEY,	/* the provider's API key */
	KH_KIND_BEARER,		/* an OAuth access token, as it is */
	KH_KIND_LOGIN,		/* a login object: accessToken (a bearer),
				   refreshToken, expiresAt; a file only */
};

struct kh_source {
	enum kh_cred_source	 from;
	enum kh_source_kind	 kind;
	const char		*spec;		/* borrowed */
	const char		*field;		/* borrowed, or NULL */
};

/* What a login holds beside its access token. */
struct kh_login {
	char		*refresh;	/* the refresh token (heap; wiped and
					   freed by kh_login_clear), or NULL */
	int64_t		 expires_ms;	/* expiresAt, ms since the epoch; 0
					   when the object has none */
};

/*
 * Try the sources in order; the first that yields a credential wins.  A
 * source that does not exist (a variable unset or empty, a file missing,
 * a JSON field missing or null, a login object without accessToken) is
 * passed over; one that exists but is bad (not JSON, a field that is not
 * a string, a value a header cannot carry, a command that fails) ends the
 * search: the user meant it.  The winner's index, the credential in *ret
 * (heap, NUL-terminated; the caller wipes and frees it) and, for a login,
 * *ret_login; or -1 with *why a heap line naming every source tried and
 * what it lacked ("none found (variable X: not set; F: field 'K' is
 * null)") or the bad one and what is wrong with it.
 */
int	kh_credential_find(const struct kh_source *, size_t n, char **ret,
	    struct kh_login *ret_login, char **why);

/* Wipe and free what a login holds. */
void	kh_login_clear(struct kh_login *);

/*
 * Replace accessToken, refreshToken and expiresAt in the login object at
 * field (dotted, or NULL: the whole document) of the JSON file path, read
 * again (bounded), every other key kept; written to a temporary file of
 * the same mode (at most 0600) in the same directory, synced and renamed
 * over the file.  0, or -1 with *why (a heap line without any token).
 */
int	kh_login_store(const char *path, const char *field,
	    const char *access, const char *refresh, int64_t expires_ms,
	    char **why);

/*
 * The token endpoint's answer to a refresh, its status and JSON body
 * (access_token, and refresh_token and expires_in when it sends them),
 * into *ret_access (heap) and ret_login (refresh replaced when sent,
 * expires_ms now_ms + expires_in, an hour when it sends none); 0, or -1
 * with *why (a status other than 200 with the endpoint's "error" code
 * when plain).  Parses the endpoint's bytes with jansson; never prints
 * a token.
 */
int	kh_login_parse_grant(int status, const char *body, size_t len,
	    int64_t now_ms, char **ret_access, struct kh_login *ret_login,
	    char **why);

/*
 * The JSON body of a refresh request for the refresh token (heap; the
 * caller wipes and frees it).
 */
char	*kh_login_grant_body(const char *refresh, const char *client_id);

#endif
