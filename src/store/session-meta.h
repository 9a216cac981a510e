/* SPDX-License-Identifier: ISC */
/*
 * store/session-meta.h - the session store: what one part of confine tells
 * another about a session, as data.  $XDG_STATE_HOME/confine/sessions/ID/
 * holds a "meta" file of KEY=VALUE lines (written by run/session-dir.c
 * before the command starts, read by cmd/ and by confine-export), and
 * $XDG_STATE_HOME/confine/journal/NAME an apply's journal, NAME being the
 * workspace's digest.
 *
 * Runs in: confine and confine-export, on the host.
 */
#ifndef CONFINE_SESSION_META_H
#define CONFINE_SESSION_META_H

/* A value of the session's metadata file, or NULL.  Heap string. */
char	*session_meta_get(const char *session_dir, const char *key);
/* Every value of key, in order; an empty list when none. */
char	**session_meta_all(const char *session_dir, const char *key);

/* The workspace's name in the store (its journal's): a SHA-256 in hex. */
char	*session_ws_name(const char *ws);

/* confine-export's status when the session holds nothing to review. */
#define WORKSPACE_EXPORT_NOTHING	3

#endif
