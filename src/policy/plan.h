/* SPDX-License-Identifier: ISC */
/*
 * policy/plan.h - the plan: everything the sandbox will be, as plain data.
 *
 * policy_compute() fills it from the command line and the host's facts; the
 * backend enforces it; plan_dump() prints it for --dry-run.  The plan owns
 * every pointer in it.  Enforcement modules include this header and take
 * one slice each (const struct plan_mounts *, const struct plan_landlock *).
 */
#ifndef CONFINE_PLAN_H
#define CONFINE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>

#include "input/values.h"
#include "policy/sequence.h"

/* The host name inside a uts namespace of its own (native, bwrap). */
#define PLAN_HOSTNAME	"confine"

/* The proxy's port, on the loopback of the sandbox's own network. */
#define PLAN_PROXY_PORT	3128

/* The keyholder's port, beside the proxy's: an injected endpoint's base
 * URL is http://127.0.0.1:3129 inside the sandbox. */
#define PLAN_KEYHOLDER_PORT	3129
/* What the agent holds instead of the credential. */
#define PLAN_INJECT_PLACEHOLDER	"confine-injects-the-real-credential"
/* Where an anthropic login is refreshed (credential.refresh). */
#define PLAN_ANTHROPIC_REFRESH	"platform.claude.com:443"

/* Access to a path, before translation into Landlock rights. */
#define PLAN_FS_READ	(1U << 0)	/* read files, list directories */
#define PLAN_FS_EXEC	(1U << 1)	/* execute files */
#define PLAN_FS_WRITE	(1U << 2)	/* create, change, remove, rename */
#define PLAN_FS_DEV	(1U << 3)	/* ioctl on device files */
#define PLAN_FS_LIST	(1U << 4)	/* list directories, read no file */

enum plan_mount_kind {
	PLAN_MOUNT_ROOT,	/* the host's / read-only, the new root */
	PLAN_MOUNT_PROC,	/* a fresh procfs, kernel knobs read-only */
	PLAN_MOUNT_DEV,		/* minimal /dev: nodes, pts, shm */
	PLAN_MOUNT_SYSFS,	/* sysfs without the host's network
				   interfaces: a new one, read-only, or the
				   host's with its net directories covered */
	PLAN_MOUNT_TMPFS,	/* an empty tmpfs */
	PLAN_MOUNT_OVERLAY,	/* src as lower, upper and work in the session */
	PLAN_MOUNT_MASK,	/* an empty file over a host socket */
	PLAN_MOUNT_BIND_RO,	/* the host's dst, read-only (shown again) */
	PLAN_MOUNT_BIND_RW,	/* the host's dst, writable: direct */
	PLAN_MOUNT_SCRATCH,	/* writable, discarded: a directory gets an
				   overlay (upper, work), a file a private
				   copy, a missing path nothing in a tmpfs
				   (it is scratch), elsewhere an empty
				   directory */
	PLAN_MOUNT_HIDE,	/* an empty directory or file over dst */
	PLAN_MOUNT_COPY,	/* a real copy of src made at upper (in the
				   session; a missing src: an empty
				   directory), writable at dst */
	PLAN_MOUNT_LINK,	/* landlock backend: a symlink at upper (in
				   the session's home) to the host's src */
	PLAN_MOUNT_EMPTY_ROOT,	/* an empty tmpfs, the new root, read-only
				   once built: the allow-list view */
	PLAN_MOUNT_SYMLINK,	/* a symlink at dst to src, as the host's */
	PLAN_MOUNT_DATA,	/* a file of confine's at dst, read-only,
				   holding data (bwrap: src, in the session) */
};

struct plan_mount {
	enum plan_mount_kind	 kind;
	char			*dst;	/* path inside the sandbox */
	char			*src;	/* host path (overlay lower) */
	char			*upper;	/* host path, overlay only */
	char			*work;	/* host path, overlay only */
	unsigned int		 mode;	/* tmpfs root mode */
	bool			 exec;	/* tmpfs: allow executing files */
	bool			 file_only; /* bind: refuse anything but a file */
	char			**except;	/* copy: paths below src (relative)
						   left out: the hidden ones */
	char			*data;	/* data: the file's contents */
	bool			 absent;	/* bind_ro, hide, mask, data:
						   the host has nothing there
						   (when planned; a mask: or
						   the sandbox cannot reach
						   it): skipped, said by
						   --dry-run */
	bool			 dst_dir;	/* hide: the host's dst is a
						   directory (when planned):
						   an empty tmpfs over it, not
						   the empty file */
	char			*state;	/* persistent scratch: the path's own
					   directory in the profile's state
					   (host path), kept between sessions;
					   NULL: discarded at exit */
};

struct plan_mounts {
	struct plan_mount	*v;
	size_t			 n;
	char			**dev_nodes;	/* names under /dev bound from the host */
	/* Every tmpfs of the sandbox is made with these (the memory limit;
	 * confine(1), LIMITS); 0: the kernel's default. */
	uint64_t		 tmpfs_size;	/* size=, bytes */
	uint64_t		 tmpfs_inodes;	/* nr_inodes= */
};

struct plan_path {
	char		*path;		/* absolute, normalised, in the sandbox */
	unsigned int	 access;	/* PLAN_FS_* */
	char		**except;	/* paths beneath it left out, or NULL */
	bool		 absent;	/* a host path that is not there (when
					   planned): grants nothing */
};

struct plan_landlock {
	int		 abi;		/* the host's ABI, 0 when absent */
	uint64_t	 handled_fs;	/* exact rights of that ABI */
	uint64_t	 handled_net;
	uint64_t	 scoped;
	unsigned int	 connect_port;	/* TCP connect allowed here; 0: none */
	unsigned int	 connect_port2;	/* and here (the keyholder's); 0: none */
	struct plan_path *paths;
	size_t		 npaths;
};

struct plan_syscalls {
	int		*families;	/* socket families allowed */
	size_t		 nfamilies;
	bool		 unix_pairs_only; /* socket(AF_UNIX) refused; only
					   connected stream pairs */
	bool		 no_kill_all;	/* kill(-1, ...) refused */
	bool		 self_only;	/* calls that name another process
					   by pid refused: no pid namespace */
	bool		 no_host_ipc;	/* SysV IPC and POSIX message queues
					   refused: no IPC namespace */
	bool		 no_path_metadata; /* chmod, chown, xattrs, and utimes
					   by path refused (EPERM) */
	bool		 unix_notify;	/* bwrap: unix connects and sends,
					   and file locks, answered by the
					   supervisor (run/notify.c) */
};

struct plan_tty {
	bool		 pty;		/* run the command on a new pty */
	bool		 is_tty[3];	/* which of stdin/out/err are terminals */
	bool		 clipboard;	/* pass OSC 52 clipboard writes */
	struct termios	 termios;	/* the user's, copied to the new pty */
	struct winsize	 winsize;
};

/*
 * An injected credential (confine-profile(5), [credential] inject): the
 * keyholder (src/keyholder/) holds it outside the sandbox and serves the
 * provider's inference API on the sandbox's loopback.
 */
struct plan_inject {
	char		*provider;	/* anthropic, openai, gemini; NULL: none */
	char		*upstream;	/* HOST[:PORT], reached by the keyholder */
	char		*refresh;	/* HOST[:PORT] where the keyholder
					   refreshes a login; NULL: none */
	char		**args;		/* confine-keyholder's options but the
					   control fd: provider, upstream, CA,
					   the sources in order */
	char		**sources;	/* for --dry-run: "KIND TYPE SPEC" */
	char		**variables;	/* the sources' variables: never in
					   the sandbox's environment */
};

/*
 * Resource limits (confine(1) LIMITS, confine-profile(5) [limits]): what
 * the sandbox may take of the host.  0 in a field: none (lifted by "none",
 * or no default).  A limit in `asked` came from an option or a profile: it
 * is applied, or the run is refused (125) naming it; the others are the
 * defaults and fall back to what the host gives without cgroups (said by
 * --dry-run and doctor).
 */
#define PLAN_LIMIT_MEMORY	(1U << 0)
#define PLAN_LIMIT_TASKS	(1U << 1)
#define PLAN_LIMIT_CPUS		(1U << 2)
#define PLAN_LIMIT_DISK		(1U << 3)

struct plan_limits {
	uint64_t	 memory;	/* bytes: processes, every tmpfs of the
					   sandbox, the pages of its files */
	uint64_t	 tasks;		/* processes and threads at once */
	uint64_t	 cpu_millis;	/* CPU time per second, in
					   thousandths of a CPU (cpus 1.5: 1500) */
	uint64_t	 disk;		/* bytes the session may write (its
					   upper or copy, and kept state) */
	unsigned int	 asked;		/* PLAN_LIMIT_* given explicitly */
	char		*origin[4];	/* where each came from, indexed by
					   the PLAN_LIMIT_* bit's position:
					   "option --memory", "FILE:LINE",
					   "built-in default: ..." */
	uint64_t	 disk_reserve;	/* bytes of the session store's
					   filesystem never written: the
					   smaller of 5% of it and 1 GiB; 0:
					   unknown */
	/* The kernel's own bounds, set in the sandbox by the limits step
	 * (enforce/rlimits.c), whatever the engine: */
	uint64_t	 nproc;		/* RLIMIT_NPROC (tasks), where the
					   command has a user namespace of its
					   own (it counts per user namespace);
					   0: not set */
	int		 nice;		/* added to the sandbox's nice value:
					   the default cpus none lowers its
					   share; 0: left as it is */
};

/* The index of a PLAN_LIMIT_* bit in origin[] (and run_state.limit_hit). */
#define PLAN_LIMIT_INDEX(bit)	((unsigned int)__builtin_ctz(bit))
/* The default nice increment, the tmpfs inodes per byte of memory. */
#define PLAN_LIMIT_NICE		5
#define PLAN_TMPFS_INODE_BYTES	(16U << 10)
#define PLAN_TMPFS_INODES_MIN	65536U

/*
 * How the limits are enforced here (policy/limits-engine.c): the engine
 * tried first, and the one a failure falls to.  Chosen from the host's
 * facts; run/limits.c tries them at run time.
 */
enum plan_engine_kind {
	PLAN_ENGINE_KERNEL,	/* no cgroup: tmpfs sizes, rlimits, nice,
				   the supervisor's watch */
	PLAN_ENGINE_SYSTEMD,	/* a transient scope confine-ID.scope with
				   Delegate=yes, asked of systemd */
	PLAN_ENGINE_DELEGATED,	/* the cgroup confine runs in was delegated
				   to it (Delegate=yes) */
	PLAN_ENGINE_CHILD,	/* no systemd: a child confine-ID of the
				   cgroup confine runs in, which it may
				   write; no controller enabled by confine */
};

struct plan_engine {
	enum plan_engine_kind	 kind;	/* tried first */
	enum plan_engine_kind	 next;	/* if kind cannot be had: kernel,
					   delegated or child */
	bool		 system_bus;	/* systemd: the system manager's */
	char		*bus;		/* systemd, the user's: the bus address */
	char		*mount;		/* the cgroup2 mount point, or NULL */
	char		*cgroup;	/* confine's own cgroup (host path), or
					   NULL */
	unsigned int	 expect;	/* PLAN_LIMIT_* the first engine's
					   controllers are expected to enforce
					   (checked again at run time) */
	unsigned int	 expect_next;	/* and the next's */
	char		*line;		/* the engine, in words, for --dry-run,
					   doctor and the session */
	char		*next_line;	/* the next, in words */
	char		**how;		/* per limit: "memory: memory.max" */
	char		*refused;	/* an asked limit no engine here can
					   apply: the line; the run exits 125
					   before anything is made */
};

/*
 * A workspace of the session (confine(1), WORKSPACES): shown at its own
 * host path, writable through its own overlay or copy, or read-only.
 */
struct plan_workspace {
	char		*path;		/* host path, the same inside */
	char		*origin;	/* "option --workspace", "FILE:LINE" */
	bool		 read_only;	/* a read-only bind; nothing exported */
	char		*mode_origin;	/* where read-only was asked, or NULL */
	bool		 private;	/* its contents are private: leg B */
	char		*dir;		/* its files in the session (host
					   path): the session directory for
					   the first writable one, ws/N for
					   the Nth further; NULL: read-only */
};

#define PLAN_LEG_A	(1U << 0)	/* untrusted input */
#define PLAN_LEG_B	(1U << 1)	/* private data */
#define PLAN_LEG_C	(1U << 2)	/* external communication */

struct plan {
	char		**argv;		/* the command */
	char		**envp;		/* its whole environment */
	char		*git_identity;	/* the user's git identity given to
					   it, in words, for --dry-run; NULL:
					   none on the host */
	char		*cwd;		/* where it starts, in the sandbox */
	uid_t		 uid;		/* kept inside: the caller's own */
	gid_t		 gid;
	int		 clone_flags;	/* CLONE_NEW* */
	enum plan_net	 net;
	enum plan_backend backend;
	char		*backend_reason;
	char		*quadrant;
	unsigned int	 quadrant_legs;	/* the legs the quadrant allows */
	unsigned int	 legs;		/* the legs the rules grant */
	char		**legs_why;	/* "B: read-only = ~/x (FILE:LINE)" */
	size_t		 nlegs_why;
	char		*profile;	/* its name, or "sealed (built-in)" */
	char		*profile_reason;
	char		**explain;	/* "key = value (origin)", for --dry-run */
	size_t		 nexplain;
	char		**allow;	/* proxy destinations (leg C) */
	char		**endpoint;	/* raw model endpoints (leg C) */
	struct plan_inject inject;
	unsigned int	 keyholder_port; /* the keyholder's listener is made
					   here; 0: no injection */
	bool		 warn_trusted;	/* the trusted quadrant: say so */
	char		*workspace;	/* host path, writable through the overlay:
					   the first writable workspace */
	struct plan_workspace *workspaces; /* every workspace, as named
					   (the default or -w first) */
	size_t		 nworkspaces;
	char		*session_id;
	struct timespec	 started;	/* the host probe's clock, the run's
					   first moment (CLOCK_REALTIME): a
					   native session's start
					   (run/session-dir.c) */
	char		*session_dir;	/* host path */
	bool		 reenter;	/* an existing session, kept at the end */
	char		*patch_from;	/* enter: the session whose patch the
					   new session starts with (agent
					   data, applied by confine-export) */
	char		*profile_arg;	/* -p as given, for the session's meta */
	char		*state_dir;	/* the profile's state, where persistent
					   paths are kept (host path); NULL:
					   none kept by this session */
	char		*state_busy;	/* persistent paths made scratch: the
					   line that says why, or NULL */
	struct plan_mounts	mounts;
	struct plan_landlock	landlock;
	struct plan_syscalls	sys;
	struct plan_tty		tty;
	struct plan_limits	limits;
	struct plan_engine	limits_engine;
	char		**degraded;	/* one line per missing kernel feature */
	size_t		 ndegraded;
	char		**weaker;	/* what this backend does not give */
	size_t		 nweaker;
	char		*bwrap;		/* the bwrap binary (backend bwrap) */
	bool		 bwrap_setuid;
	bool		 bwrap_unshare_user;	/* user namespaces work here */
	bool		 bwrap_disable_userns;	/* it has --disable-userns */
	char		*home;		/* $HOME in the sandbox */
	bool		 allow_list;	/* a quadrant with leg C: the host is
					   shown from the allow-list only */
	char		**view;		/* allow_list: what is shown, for
					   --dry-run ("/usr", "/bin -> usr/bin") */
	char		*run_refused;	/* why this plan may be printed but not
					   run (a root caller and leg C) */
	struct plan_step steps[STEP_COUNT]; /* the enforcement sequence */
	size_t		 nsteps;
};

void	plan_free(struct plan *);
/* Is the workspace an overlay (native; bwrap where it can), whose
 * deletions are whiteouts, or else a copy? */
bool	plan_ws_overlay(const struct plan *);
/*
 * A further writable workspace's own directory in the session (ws/N),
 * relative to the session directory; NULL for a read-only one and for the
 * first writable one (its files are the session's own).
 */
const char *plan_ws_rel(const struct plan *, const struct plan_workspace *);
/* What keeps the host's pathname sockets out of reach on p's backend. */
const char *plan_sockets_why(const struct plan *p);
/* Print the plan in the --dry-run format. */
void	plan_dump(const struct plan *, FILE *);
/* Only the profile, the effective policy and the rule-of-two verdict. */
void	plan_dump_policy(const struct plan *, FILE *);
const char *plan_net_name(enum plan_net);
const char *plan_access_name(unsigned int access, char buf[8]);
/* "4 GiB", "7.8 GiB", "512 MiB"; "none" for 0. */
const char *plan_size_name(uint64_t bytes, char buf[32]);
/* "1.5", "2", "0.25" CPUs; "none" for 0. */
const char *plan_cpus_name(uint64_t millis, char buf[32]);
/* A limit's value (bit: PLAN_LIMIT_*) in the words above; "none" for 0. */
const char *plan_limit_name(unsigned int bit, uint64_t v, char buf[32]);
/* "A+B", "B+C", "none". */
const char *plan_legs_name(unsigned int legs, char buf[8]);

#endif
