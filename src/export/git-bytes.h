/* SPDX-License-Identifier: ISC */
/*
 * export/git-bytes.h - the bytes of the session's agent-written .git that
 * export/commits.c reads, parsed: HEAD, a loose ref, packed-refs and an
 * inflated loose object's header.  Pure: no file is opened here, so the
 * fuzzer (fuzz/commits-fuzzer.c) feeds them bytes directly.
 *
 * Runs in: confine-export.  Every buffer holds untrusted bytes.
 */
#ifndef CONFINE_GIT_BYTES_H
#define CONFINE_GIT_BYTES_H

#include <git2.h>
#include <stddef.h>

/*
 * Parses untrusted bytes: .git/HEAD, len bytes with room for a NUL after
 * them; its first line is cut there.  0 with *ret for a detached HEAD (40
 * lower-case hex digits); 1 with *ret_ref pointing into untrusted_head at
 * "refs/..." for a symbolic one (no "..", at most 250 bytes); -1 for
 * anything else.
 */
int	git_bytes_head(char *untrusted_head, size_t len, git_oid *ret,
	    const char **ret_ref);

/* Parses untrusted bytes: a loose ref's file.  0 with *ret when it
 * starts with 40 lower-case hex digits, else -1. */
int	git_bytes_ref(const char *untrusted_ref, size_t len, git_oid *ret);

/*
 * Parses untrusted bytes: packed-refs, len bytes with room for a NUL
 * after them (cut into lines in place).  0 with *ret from the first line
 * "HEX40 ref", else -1.
 */
int	git_bytes_packed_ref(char *untrusted_packed, size_t len,
	    const char *ref, git_oid *ret);

/*
 * Parses untrusted bytes: an inflated loose object, "TYPE SIZE\0" then its
 * content (the SIZE is not checked: libgit2 hashes what is stored).  0
 * with the type and the content's offset, else -1.  The space after TYPE
 * is overwritten with a NUL.
 */
int	git_bytes_object(unsigned char *untrusted_obj, size_t len,
	    git_object_t *ret_type, size_t *ret_off);

#endif
