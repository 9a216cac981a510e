/* SPDX-License-Identifier: ISC */
/*
 * input/host-probe.h - read-only facts about the host, gathered once at start-up.
 */
#ifndef CONFINE_PROBE_H
#define CONFINE_PROBE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>

/* Controllers of a cgroup (cgroup.controllers), as the limits use them. */
#define HOST_CG_MEMORY	(1U << 0)
#define HOST_CG_PIDS	(1U << 1)
#define HOST_CG_CPU	(1U << 2)

/*
 * The cgroup facts the limits' engine is chosen by (input/cgroup-probe.c):
 * a few small reads, no D-Bus connection.
 */
struct host_cgroup {
	char		*mount;		/* the cgroup2 mount point; NULL: none */
	char		*dir;		/* confine's own cgroup (the "0::" line
					   of /proc/self/cgroup under mount),
					   host path; NULL: not found */
	bool		 delegated;	/* dir has trusted.delegate or
					   user.delegate "1" (a systemd unit
					   with Delegate=yes) */
	bool		 writable;	/* this user may make a child of dir
					   and move processes into it */
	unsigned int	 controllers;	/* HOST_CG_* of dir's children: its
					   cgroup.subtree_control */
	unsigned int	 available;	/* HOST_CG_* dir could give them: its
					   cgroup.controllers */
	unsigned int	 root_controllers; /* HOST_CG_* of the mount's root */
	bool		 systemd;	/* /run/systemd/system: systemd runs
					   the host */
	bool		 system_bus;	/* root, and the system bus is there
					   (/run/dbus/system_bus_socket or
					   /run/systemd/private) */
	char		*user_bus;	/* else the user's bus, an address
					   ($DBUS_SESSION_BUS_ADDRESS, or
					   unix:path=$XDG_RUNTIME_DIR/bus when
					   that socket exists); NULL: none */
};

/* A further workspace (confine(1), WORKSPACES), resolved. */
struct host_ws {
	char		*path;		/* real path */
	char		*origin;	/* "option --workspace", "FILE:LINE" */
	bool		 read_only;
	char		*private;	/* "yes" or "no"; NULL: not set */
	char		*private_origin;
};

/*
 * What is at a host path, as a backend will meet it (host_path_fact()):
 * the facts the mounts of the plan are chosen by (policy/compute.c).
 */
struct host_path {
	bool	 exists;	/* an entry (lstat(2): a last symlink not
				   followed) */
	bool	 dir;		/* a directory (stat(2): followed) */
	bool	 reachable;	/* every directory above it searchable by
				   this user without a capability, by the
				   mode bits (root's too) */
};

struct host {
	uid_t		 uid;
	gid_t		 gid;
	char		*user;		/* login name, for USER and LOGNAME */
	char		*home;		/* real path of $HOME (or passwd) */
	char		*pw_home;	/* real path of the passwd home, or NULL */
	char		*cwd;		/* real path of the working directory */
	char		*git_top;	/* git top level of cwd, or NULL */
	char		*workspace;	/* real path of --workspace, or NULL */
	struct host_ws	*more_ws;	/* the further workspaces, in order:
					   the profile's, -w's, --ro-workspace's
					   (choose_workspace()) */
	size_t		 nmore_ws;
	char		*state_home;	/* $XDG_STATE_HOME or ~/.local/state */
	char		*config_home;	/* $XDG_CONFIG_HOME or ~/.config */
	char		*state_busy;	/* the profile's state is held by this
					   session (its id), so its persistent
					   paths are scratch; set by the
					   caller that tried its lock, not by
					   the probe */
	char		*runtime_dir;	/* real path of $XDG_RUNTIME_DIR or NULL */
	bool		 has_run;	/* /run is a directory */
	bool		 var_run_is_dir;	/* /var/run is a directory, not a link */
	char		**unix_sockets;	/* bound pathname sockets, /proc/net/unix */
	char		**root_links;	/* symlinks directly under /: path, target,
					   path, target, ..., NULL */
	char		**etc_private;	/* entries under /etc that are not
					   world-readable (or, a directory, not
					   world-searchable), not descended */
	char		*etc_why;	/* why /etc could not be scanned, or NULL;
					   "not scanned" until
					   probe_etc_private() ran */
	char		*userns_why;	/* why user namespaces cannot be used,
					   or NULL when they seem to work */
	struct {
		bool	 found;		/* BWRAP_PATH is an executable file */
		bool	 setuid;	/* owned by root and setuid */
		struct stat st;		/* BWRAP_PATH's, when found: the key
					   of its version's note */
		bool	 probed;	/* probe_bwrap() ran: the rest is known */
		bool	 note_due;	/* bwrap was asked its version: note it
					   (probe_bwrap_note()) */
		int	 major, minor;	/* that version */
		bool	 disable_userns;	/* it has --disable-userns, and it
						   applies here */
		char	*why;		/* why it cannot be used, or NULL */
	} bwrap;
	int		 keys_shown;	/* keys in /proc/keys that are not
					   the kernel's own keyrings (named
					   "_..." or "...."): probed only
					   where landlock may be the backend
					   (probe_keys_shown()), else 0 */
	/* The user's git identity, by probe_git_identity(): user.name and
	 * user.email of the global git configuration, checked (printable
	 * UTF-8, no '<' or '>', at most HOST_GIT_IDENT_MAX bytes); NULL when
	 * unset or refused. */
	char		*git_name;
	char		*git_email;
	char		*git_why;	/* why a value set there was refused,
					   or NULL */
	/* The resources the limits' defaults are taken from, read once: 0
	 * when unknown. */
	uint64_t	 mem_total;	/* bytes of RAM (sysinfo(2)) */
	unsigned int	 ncpus;		/* CPUs online */
	uint64_t	 store_free;	/* bytes an unprivileged user may still
					   write on the session store's
					   filesystem (statvfs f_bavail) */
	uint64_t	 store_size;	/* that filesystem's size in bytes */
	char		*store_why;	/* why it could not be measured, or
					   NULL */
	int		 landlock_abi;	/* 0: none */
	int		 landlock_errno;	/* why not, when 0 */
	bool		 is_tty[3];
	struct termios	 termios;	/* of the first terminal among 0, 1, 2 */
	struct winsize	 winsize;
	struct host_cgroup cgroup;
	time_t		 now;
	long		 now_ns;	/* now's nanoseconds */
	uint32_t	 random;
	/* Is there an entry at path (not following a last symlink)?  NULL
	 * (a host made up by a test): assume so. */
	bool		(*path_exists)(const char *path);
	/* What is at path (host_path_fact()), for each path the plan mounts
	 * over.  NULL (a host made up by a test): path_exists() says whether
	 * there is an entry; not a directory; reachable. */
	void		(*path_fact)(const char *path, struct host_path *ret);
};

/* What is at path on this host now.  Reads only (lstat, stat). */
void	host_path_fact(const char *path, struct host_path *ret);

/*
 * Gather the facts.  Returns 0, or -1 with *cause set when a fact the run
 * needs cannot be had (no home directory, working directory gone).
 */
int	probe_host(char *const *env, const char *workspace, struct host *ret,
	    char **cause);
void	host_free(struct host *);

/*
 * The bubblewrap facts that need running it: whether it has
 * --disable-userns, and with trial, whether it can build a sandbox here
 * that holds no capability (for auto's choice; a few milliseconds).  Only
 * called when the bwrap backend may be used.
 */
void	probe_bwrap(struct host *, bool trial);
/*
 * Note the version probe_bwrap() asked bwrap for, keyed on the binary
 * (input/bwrap-cache.c), so that the next run need not ask: the one thing
 * of the probe's written, and only by a run (--dry-run writes nothing).
 */
void	probe_bwrap_note(const struct host *);
/* Is BWRAP_PATH there (h->bwrap.found, .setuid)?  A stat only. */
void	probe_bwrap_found(struct host *);
/* Why this user cannot create user namespaces, by the sysctls, or NULL.
 * Heap string. */
char	*probe_userns_why(uid_t);
/*
 * When h->userns_why is NULL, try: clone a throwaway child into a new user
 * namespace (a fork's cost); if that is refused, h->userns_why says so.
 * Only called where the backend may be native by auto's choice.
 */
void	probe_userns_trial(struct host *h);

/*
 * The cgroup facts (h->cgroup) from env (the bus's variables).  Cheap: a
 * handful of reads under /proc and the cgroup's directory.  Called by
 * probe_host().
 */
void	probe_cgroup(struct host_cgroup *ret, char *const *env, uid_t uid);
/*
 * confine's cgroup v2 directory now (/proc/self/cgroup's "0::" line), as
 * a host path under mount, the cgroup2 mount point; NULL: none.
 */
char	*probe_own_cgroup(const char *mount);
void	host_cgroup_free(struct host_cgroup *);

/* The longest user.name or user.email passed into the sandbox. */
#define HOST_GIT_IDENT_MAX	256

/* git's answer, as it was: "KEY\nVALUE\0" entries (a few KiB at most). */
struct git_answer {
	int		 status;	/* git's wait status; -1: not run */
	size_t		 len;		/* bytes of out; sizeof(out): too
					   long */
	char		 out[4 * (HOST_GIT_IDENT_MAX + 16)];
};

/*
 * The user's git identity (h->git_name, git_email, git_why): GIT_PATH
 * asked for user.name and user.email of the global configuration only
 * (~/.gitconfig and $XDG_CONFIG_HOME/git/config, or $GIT_CONFIG_GLOBAL,
 * with their includes), from /, in an environment of HOME,
 * XDG_CONFIG_HOME and GIT_CONFIG_GLOBAL alone, with no repository (GIT_DIR
 * is /dev/null) and no system file: no repository's configuration, the
 * workspace's included, is read.  No git, or no value: NULL, and nothing
 * said.
 */
void	probe_git_identity(struct host *h, char *const *env);
/* Its two halves: ask git (-1: no git; else ret filled), and take the
 * answer (a fresh one, or one kept: store/git-cache.h). */
int	probe_git_run(const struct host *h, char *const *env,
	    struct git_answer *ret);
void	probe_git_answer(struct host *h, const struct git_answer *);
/*
 * What git's answer depends on, as one string (the key it is kept
 * under): the environment git is given, and the identity (device, inode,
 * size, change times) of the git binary and of each global file it reads.
 * NULL when the answer is not to be kept: a file that may include others
 * ("include" anywhere in it, in any case), one changed in the last two
 * seconds (its times may not show a change made next), one larger than
 * 64 KiB or unreadable, a relative $GIT_CONFIG_GLOBAL.  Reads only.
 */
char	*probe_git_key(const struct host *h, char *const *env);
/* Is v (len bytes) an identity value passed as it is?  NULL, or why not
 * (a static string).  Pure. */
const char *probe_git_value_why(const char *v, size_t len);

/*
 * The entries under /etc the world cannot read (h->etc_private, or
 * h->etc_why): a walk of /etc, a few milliseconds, so only called when the
 * plan shows the host from an allow-list (policy_allow_list()).
 */
void	probe_etc_private(struct host *h);

/* How many keys /proc/keys shows that are not the kernel's own keyrings. */
int	probe_keys_shown(void);

/* Walk up from dir to the first directory holding .git; NULL if none. */
char	*probe_git_top(const char *dir);

#endif
