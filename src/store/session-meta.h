/* SPDX-License-Identifier: ISC */
/*
 * store/session-meta.h - the session store: what one part of confine tells
 * another about a session, as data, never as prose for people.
 * $XDG_STATE_HOME/confine/sessions/ID/ holds files of KEY=VALUE lines:
 *
 *   meta		written by run/session-dir.c before the command starts;
 *			read by cmd/ and confine-export.  version, id (see
 *			store/session-store.h for its form), started,
 *			started_ns, host_since_ns, workspace, backend,
 *			layout, quadrant, profile, profile_arg, copy_since_ns
 *			(layout=copy: the copy's mark, store/copy-mark.h),
 *			hidden (repeated), arg (repeated, newlines and
 *			backslashes escaped).  copy.recent (the mark's
 *			entries, "INO SEC NSEC" lines) is written with it.
 *   network.counts	written by run/session-dir.c when the proxy ran, with
 *			"network" (the same facts for people); read by
 *			confine-export.  allowed=N (connections through the
 *			proxy), refused=N, listed=N (refusals named in
 *			"network": the first 100 the proxy refused by rule).
 *   summary		written by confine-export with changes.patch and
 *			report; read by cmd/.  version=1; files=N (files in
 *			changes.patch: 0 when it is empty); added, modified,
 *			deleted, renamed (files, by kind); commits=N (in
 *			commits/); commit_paths=N; flagged=N (lines under the
 *			report's "flagged"); ignored=N (by .gitignore);
 *			skipped=N; refused=N (network refusals); review=0|1
 *			(1: something to review; 0: confine-export exits
 *			WORKSPACE_EXPORT_NOTHING).
 *   limits		written by run/limits.c before the command starts and
 *			again when it is gone; read by confine-export (the
 *			report) and cmd/.  engine=systemd|cgroup|kernel;
 *			engine_line= (the engine in words, as --dry-run says
 *			it); cgroup= (the command's cgroup, a host path;
 *			absent: none); how= (repeated: "memory: memory.max",
 *			how each limit was enforced); reached= (repeated: a
 *			limit reached,
 *			"memory limit 4 GiB reached: the command was killed
 *			by the OOM killer").
 *   disk		written by cmd/ when the run ends (and by the cap's
 *			count for a session that has none); read by cmd/.
 *			bytes=N (the session's disk use).
 *   run.lock		empty; the confine that runs the session holds an
 *			exclusive flock(2) on it (store/session-store.h).
 *   running		while the command runs: its supervisor and sandbox
 *			(store/session-running.h); removed when it is gone.
 *   stopped		written by run/supervisor.c when "confine stop" ended
 *			the command; read by confine-export for the report.
 *			by=confine stop; killed=0|1 (1: still running after
 *			the grace, killed); grace=N (seconds).
 *
 * Each is written under a new name, then renamed (fd_write_replace());
 * a key absent means "not
 * known" (a session written by an older confine).  And
 * $XDG_STATE_HOME/confine/journal/NAME holds an apply's journal, NAME
 * being the workspace's digest.
 *
 * Runs in: confine and confine-export, on the host.
 */
#ifndef CONFINE_SESSION_META_H
#define CONFINE_SESSION_META_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The most a session's KEY=VALUE file may hold.  meta is the largest: the
 * command's arguments, escaped, and execve(2) takes at most 6 MiB of
 * arguments and environment (fs/exec.c, since Linux 4.13), twice that
 * escaped; a larger file was not written by confine.
 */
#define SESSION_FILE_MAX	(16UL * 1024 * 1024)

/* A value of the session's metadata file, or NULL.  Heap string. */
char	*session_meta_get(const char *session_dir, const char *key);
/* Every value of key, in order; an empty list when none. */
char	**session_meta_all(const char *session_dir, const char *key);

/* Every value of key in the session's KEY=VALUE file name, in order. */
char	**session_file_all(const char *session_dir, const char *name,
	    const char *key);

/* A value of the session's summary (confine-export's facts), or NULL. */
char	*session_summary_get(const char *session_dir, const char *key);

/*
 * A value of key in the session's KEY=VALUE file name, or NULL (absent,
 * or the file unreadable or larger than SESSION_FILE_MAX: said on stderr).
 */
char	*session_file_get(const char *session_dir, const char *name,
	    const char *key);

/*
 * Every value of key (all, or the first only) in the KEY=VALUE lines of
 * buf, n bytes with room for a NUL after them (fd_read_all's): each
 * line's end is overwritten with a NUL.  A heap list, empty when none.
 * Parses the file's bytes; the readers above use it (and the fuzzer).
 */
char	**session_file_parse(char *buf, size_t n, const char *key, bool all);

/*
 * Write text, KEY=VALUE lines, as the session's file name, whole or not
 * at all (fd_write_replace()).  0 or -errno.
 */
int	session_file_put(const char *session_dir, const char *name,
	    const char *text);

/* The workspace's name in the store (its journal's): a SHA-256 in hex. */
char	*session_ws_name(const char *ws);

/* confine-export's status when the session holds nothing to review. */
#define WORKSPACE_EXPORT_NOTHING	3

#endif
