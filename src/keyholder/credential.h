/* SPDX-License-Identifier: ISC */
/*
 * keyholder/credential.h - read the user's credential, outside the sandbox:
 * from a variable of the keyholder's own environment, from a file (a JSON
 * file's field by its dotted path, or the whole file), or from the output
 * of a command (`pass show anthropic`).
 *
 * Runs in: confine-keyholder, before it serves anything.
 * MUST: never print the credential; a failure says where it looked only.
 */
#ifndef CONFINE_KEYHOLDER_CREDENTIAL_H
#define CONFINE_KEYHOLDER_CREDENTIAL_H

#include <stddef.h>

/* The most a credential file, or a command's output, may hold. */
#define KH_CRED_FILE_MAX	(64 * 1024)
/* The most a credential itself may hold. */
#define KH_CRED_MAX		(16 * 1024)

enum kh_cred_source {
	KH_FROM_VARIABLE,	/* spec: the variable's name */
	KH_FROM_FILE,		/* spec: the path; field: dotted, or NULL */
	KH_FROM_COMMAND,	/* spec: run with /bin/sh -c */
};

/*
 * The credential in *ret (heap, NUL-terminated; the caller wipes and
 * frees it), or -1 with *why a heap string naming the source and what is
 * wrong ("field 'claudeAiOauth.accessToken' is not a string").  A value
 * must be printable ASCII without blanks (it goes into a header).
 */
int	kh_credential_read(enum kh_cred_source, const char *spec,
	    const char *field, char **ret, char **why);

#endif
