// SPDX-License-Identifier: ISC
/*
 * policy/plan.c - freeing and printing the plan.
 */
#include "config.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "policy/limits-engine.h"
#include "policy/plan.h"

const char *
plan_net_name(enum plan_net n)
{
	switch (n) {
	case PLAN_NET_NONE:
		return "none";
	case PLAN_NET_PROXY:
		return "proxy";
	case PLAN_NET_HOST:
		return "host";
	}
	return "?";
}

const char *
plan_access_name(unsigned int a, char buf[8])
{
	char *p = buf;

	*p++ = (a & PLAN_FS_READ) ? 'r' : (a & PLAN_FS_LIST) ? 'l' : '-';
	*p++ = (a & PLAN_FS_WRITE) ? 'w' : '-';
	*p++ = (a & PLAN_FS_EXEC) ? 'x' : '-';
	if (a & PLAN_FS_DEV)
		*p++ = 'd';
	*p = '\0';
	return buf;
}

const char *
plan_legs_name(unsigned int legs, char buf[8])
{
	char *p = buf;

	if (legs & PLAN_LEG_A)
		*p++ = 'A';
	if (legs & PLAN_LEG_B)
		p += sprintf(p, "%sB", p == buf ? "" : "+");
	if (legs & PLAN_LEG_C)
		p += sprintf(p, "%sC", p == buf ? "" : "+");
	if (p == buf)
		strcpy(buf, "none");
	else
		*p = '\0';
	return buf;
}

const char *
plan_size_name(uint64_t v, char buf[32])
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB",
	    "PiB", "EiB" };
	unsigned int u = 0;
	uint64_t unit = 1024;

	if (v == 0)
		return "none";
	if (v < 1024) {
		snprintf(buf, 32, "%llu bytes", (unsigned long long)v);
		return buf;
	}
	while (u + 1 < nitems(units) && v / 1024 >= unit) {
		unit *= 1024;
		u++;
	}
	if (v % unit == 0)
		snprintf(buf, 32, "%llu %s", (unsigned long long)(v / unit),
		    units[u]);
	else
		snprintf(buf, 32, "%.1f %s", (double)v / (double)unit,
		    units[u]);
	return buf;
}

const char *
plan_cpus_name(uint64_t millis, char buf[32])
{
	int n;

	if (millis == 0)
		return "none";
	n = snprintf(buf, 32, "%llu.%03llu", (unsigned long long)(millis /
	    1000), (unsigned long long)(millis % 1000));
	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
	return buf;
}

const char *
plan_limit_name(unsigned int bit, uint64_t v, char buf[32])
{
	if (v == 0)
		return "none";
	if (bit == PLAN_LIMIT_MEMORY || bit == PLAN_LIMIT_DISK)
		return plan_size_name(v, buf);
	if (bit == PLAN_LIMIT_CPUS)
		return plan_cpus_name(v, buf);
	snprintf(buf, 32, "%llu", (unsigned long long)v);
	return buf;
}

/*
 * What keeps the host's pathname sockets out of reach, for --dry-run and
 * doctor.
 */
const char *
plan_sockets_why(const struct plan *p)
{
	switch (p->backend) {
	case PLAN_BACKEND_NATIVE:
		return "unreachable whenever bound: the host's trees are shown "
		    "through read-only overlays, where a socket, FIFO, lock or "
		    "lease is the overlay's, not the host's (direct paths are "
		    "the host's own: sockets seen there at start-up are "
		    "masked)";
	case PLAN_BACKEND_BWRAP:
		return "unreachable whenever bound: confine makes every unix "
		    "connect and send itself, to the sandbox's own sockets "
		    "only (seccomp user notification; direct paths are the "
		    "host's own: sockets seen there at start-up are masked)";
	case PLAN_BACKEND_LANDLOCK:
		return p->landlock.abi >= 9 ? "landlock RESOLVE_UNIX" :
		    "socket(AF_UNIX) refused";
	case PLAN_BACKEND_AUTO:
		break;
	}
	return "?";
}

void
plan_free(struct plan *p)
{
	size_t i;

	if (p == NULL)
		return;
	strv_free(p->argv);
	strv_free(p->envp);
	free(p->git_identity);
	free(p->cwd);
	free(p->backend_reason);
	free(p->quadrant);
	strv_free(p->legs_why);
	free(p->profile);
	free(p->profile_reason);
	strv_free(p->explain);
	strv_free(p->allow);
	strv_free(p->endpoint);
	free(p->inject.provider);
	free(p->inject.upstream);
	free(p->inject.refresh);
	strv_free(p->inject.args);
	strv_free(p->inject.sources);
	strv_free(p->inject.variables);
	strv_free(p->weaker);
	free(p->bwrap);
	free(p->home);
	free(p->workspace);
	for (i = 0; i < p->nworkspaces; i++) {
		free(p->workspaces[i].path);
		free(p->workspaces[i].origin);
		free(p->workspaces[i].mode_origin);
		free(p->workspaces[i].dir);
	}
	free(p->workspaces);
	free(p->session_id);
	free(p->session_dir);
	free(p->state_dir);
	free(p->state_busy);
	free(p->patch_from);
	free(p->profile_arg);
	strv_free(p->view);
	free(p->run_refused);
	plan_engine_free(&p->limits_engine);
	for (i = 0; i < p->mounts.n; i++) {
		free(p->mounts.v[i].dst);
		free(p->mounts.v[i].src);
		free(p->mounts.v[i].upper);
		free(p->mounts.v[i].work);
		free(p->mounts.v[i].data);
		free(p->mounts.v[i].state);
		strv_free(p->mounts.v[i].except);
	}
	free(p->mounts.v);
	strv_free(p->mounts.dev_nodes);
	for (i = 0; i < p->landlock.npaths; i++) {
		free(p->landlock.paths[i].path);
		strv_free(p->landlock.paths[i].except);
	}
	free(p->landlock.paths);
	free(p->sys.families);
	strv_free(p->degraded);
	for (i = 0; i < nitems(p->limits.origin); i++)
		free(p->limits.origin[i]);
	memset(p, 0, sizeof(*p));
}

bool
plan_ws_overlay(const struct plan *p)
{
	size_t i;

	for (i = 0; i < p->mounts.n; i++)
		if (p->mounts.v[i].kind == PLAN_MOUNT_OVERLAY &&
		    p->workspace && streq(p->mounts.v[i].src, p->workspace))
			return true;
	return false;
}

const char *
plan_ws_rel(const struct plan *p, const struct plan_workspace *w)
{
	if (w->read_only || w->dir == NULL || streq(w->dir, p->session_dir))
		return NULL;
	return w->dir + strlen(p->session_dir) + 1;
}

static const char *
mount_kind_name(enum plan_mount_kind k)
{
	switch (k) {
	case PLAN_MOUNT_ROOT:
		return "root";
	case PLAN_MOUNT_PROC:
		return "proc";
	case PLAN_MOUNT_DEV:
		return "dev";
	case PLAN_MOUNT_SYSFS:
		return "sysfs";
	case PLAN_MOUNT_TMPFS:
		return "tmpfs";
	case PLAN_MOUNT_OVERLAY:
		return "overlay";
	case PLAN_MOUNT_MASK:
		return "mask";
	case PLAN_MOUNT_BIND_RO:
		return "ro";
	case PLAN_MOUNT_BIND_RW:
		return "direct";
	case PLAN_MOUNT_SCRATCH:
		return "scratch";
	case PLAN_MOUNT_HIDE:
		return "hide";
	case PLAN_MOUNT_COPY:
		return "copy";
	case PLAN_MOUNT_LINK:
		return "link";
	case PLAN_MOUNT_EMPTY_ROOT:
		return "root";
	case PLAN_MOUNT_SYMLINK:
		return "symlink";
	case PLAN_MOUNT_DATA:
		return "file";
	}
	return "?";
}

static void
dump_mount(const struct plan *p, const struct plan_mount *m, FILE *f)
{
	const bool ovl = p->backend == PLAN_BACKEND_NATIVE;

	if (m->absent) {
		fprintf(f, "  %-8s %s (%s: %s)\n", "skipped", m->dst,
		    mount_kind_name(m->kind), m->kind == PLAN_MOUNT_MASK ?
		    "gone, or where the sandbox cannot search" :
		    "does not exist");
		return;
	}
	fprintf(f, "  %-8s %s", mount_kind_name(m->kind), m->dst);
	switch (m->kind) {
	case PLAN_MOUNT_ROOT:
		fprintf(f, " (host /, read-only, nosuid, nodev%s)", ovl ?
		    "; each tree a lower-only overlay, kernel file systems "
		    "bound" : "");
		break;
	case PLAN_MOUNT_PROC:
		fprintf(f, " (new, this pid namespace only)");
		break;
	case PLAN_MOUNT_DEV:
		fprintf(f, " (minimal, read-only; pts and shm private)");
		break;
	case PLAN_MOUNT_SYSFS:
		fprintf(f, " (read-only, no host network interface)");
		break;
	case PLAN_MOUNT_TMPFS:
		fprintf(f, " (empty, private, mode %04o%s)", m->mode,
		    m->exec ? "" : ", noexec");
		break;
	case PLAN_MOUNT_OVERLAY:
		fprintf(f, " (writes go to %s%s)", m->upper,
		    p->backend == PLAN_BACKEND_BWRAP ? "; made before bwrap, "
		    "in a user namespace of confine's" : "");
		break;
	case PLAN_MOUNT_MASK:
		fprintf(f, " (host socket hidden)");
		break;
	case PLAN_MOUNT_BIND_RO:
		fprintf(f, " (host's, read-only%s)", ovl ? ", an overlay" : "");
		break;
	case PLAN_MOUNT_BIND_RW:
		fprintf(f, " (host's, WRITABLE: writes reach the host)");
		break;
	case PLAN_MOUNT_SCRATCH:
		if (m->state)
			fprintf(f, " (writable, persistent: kept in %s, the "
			    "host's never written)", m->state);
		else
			fprintf(f, " (writable, discarded; kept in %s)",
			    m->upper);
		break;
	case PLAN_MOUNT_HIDE:
		fprintf(f, " (made invisible: an empty %s over it)",
		    m->dst_dir ? "directory" : "file");
		break;
	case PLAN_MOUNT_COPY:
		if (m->state)
			fprintf(f, " (a copy, writable, persistent: kept in %s, "
			    "made the first time)", m->state);
		else
			fprintf(f, " (a copy, writable, in %s)", m->upper);
		break;
	case PLAN_MOUNT_LINK:
		if (m->state)
			fprintf(f, " (a copy, writable, persistent: kept in %s, "
			    "made the first time; through a link at %s)",
			    m->state, m->upper);
		else
			fprintf(f, " (host's, through a link at %s)", m->upper);
		break;
	case PLAN_MOUNT_EMPTY_ROOT:
		fprintf(f, " (empty, read-only once built: the host's "
		    "allow-list below)");
		break;
	case PLAN_MOUNT_SYMLINK:
		fprintf(f, " -> %s (as the host's)", m->src);
		break;
	case PLAN_MOUNT_DATA:
		fprintf(f, " (confine's, read-only: %.*s)",
		    (int)strcspn(m->data, "\n"), m->data);
		break;
	}
	fputc('\n', f);
}

void
plan_dump_policy(const struct plan *p, FILE *f)
{
	char lbuf[2][8];
	size_t i;

	fprintf(f, "profile: %s (%s)\n", p->profile, p->profile_reason);
	fprintf(f, "effective policy:\n");
	for (i = 0; i < p->nexplain; i++)
		fprintf(f, "  %s\n", p->explain[i]);
	fprintf(f, "rule of two: quadrant %s allows %s; the rules grant %s\n",
	    p->quadrant, plan_legs_name(p->quadrant_legs, lbuf[0]),
	    plan_legs_name(p->legs, lbuf[1]));
	for (i = 0; i < p->nlegs_why; i++)
		fprintf(f, "  %s\n", p->legs_why[i]);
	fprintf(f, "verdict: allowed (%u of 3 legs)\n",
	    (unsigned)__builtin_popcount(p->legs));
}

/* Who takes a step, and where: "pid 1", "bwrap", "inner", "child". */
static const char *
step_where(const struct plan *p, const struct plan_step *s)
{
	if (s->in == STEP_IN_COMMAND)
		return "command";
	if (s->by != STEP_BY_CONFINE)
		return "bwrap";
	return p->backend == PLAN_BACKEND_BWRAP ? "inner" :
	    p->backend == PLAN_BACKEND_LANDLOCK ? "child" : "pid 1";
}

static void
dump_sequence(const struct plan *p, FILE *f)
{
	size_t i;

	fprintf(f, "enforcement sequence (who, step, why there):\n");
	for (i = 0; i < p->nsteps; i++) {
		const struct plan_step *s = &p->steps[i];

		fprintf(f, "  %2zu %-7s %-19s  %s%s\n", i + 1,
		    step_where(p, s), plan_step_name(s->id),
		    plan_step_why(s->id), s->by == STEP_BY_BWRAP_CHECKED ?
		    " (bwrap does it, confine checks)" : "");
	}
}

/*
 * Landlock's TCP rules: what they allow, or why none is handled (the
 * reason is in policy/compute.c, landlock_rights_plan()).
 */
static void
dump_tcp(const struct plan *p, FILE *f)
{
	const struct plan_landlock *ll = &p->landlock;

	if (ll->handled_net && (ll->connect_port || ll->connect_port2)) {
		fprintf(f, "  tcp: bind denied on every port; connect denied "
		    "but to");
		if (ll->connect_port)
			fprintf(f, " %u (the proxy's)", ll->connect_port);
		if (ll->connect_port2)
			fprintf(f, "%s %u (the keyholder's)", ll->connect_port ?
			    "," : "", ll->connect_port2);
		fputc('\n', f);
	} else if (ll->handled_net)
		fprintf(f, "  tcp: bind and connect denied on every port, "
		    "loopback included (no network namespace of the "
		    "sandbox's own)\n");
	else if (p->net == PLAN_NET_HOST)
		fprintf(f, "  tcp: not handled: the host's network (mode "
		    "host)\n");
	else if (p->backend != PLAN_BACKEND_LANDLOCK)
		fprintf(f, "  tcp: not handled: bind, listen and connect on "
		    "any port of the sandbox's own loopback, in a network "
		    "namespace of its own (no host address in it, the "
		    "host's loopback neither)\n");
	else
		fprintf(f, "  tcp: not handled (landlock ABI < 4)\n");
}

/*
 * The limits, where each came from, and the kernel's own bounds this
 * backend sets whatever the engine (the engine's line is the run's).
 */
static void
dump_limits(const struct plan *p, FILE *f)
{
	static const char *const names[] = { "memory", "tasks", "cpus",
	    "disk" };
	const struct plan_limits *l = &p->limits;
	const uint64_t v[] = { l->memory, l->tasks, l->cpu_millis, l->disk };
	char buf[1][32];
	size_t i;

	fprintf(f, "limits:\n");
	for (i = 0; i < nitems(names); i++)
		fprintf(f, "  %s %s (%s)\n", names[i], plan_limit_name(1U << i,
		    v[i], buf[0]), l->origin[i] ? l->origin[i] : "?");
	if (l->disk_reserve)
		fprintf(f, "  disk reserve: %s of the session store's "
		    "filesystem kept free\n", plan_size_name(l->disk_reserve,
		    buf[0]));
	fprintf(f, "  the kernel's bounds, whatever the engine:\n");
	if (p->backend == PLAN_BACKEND_LANDLOCK)
		fprintf(f, "    tmpfs: none of the sandbox's own (no mount "
		    "namespace)\n");
	else if (p->mounts.tmpfs_size == 0 && l->memory)
		fprintf(f, "    every tmpfs: the kernel's default size and "
		    "inodes (a setuid bwrap refuses --size)\n");
	else if (p->mounts.tmpfs_size == 0)
		fprintf(f, "    every tmpfs: the kernel's default size and "
		    "inodes (no memory limit)\n");
	else if (p->backend == PLAN_BACKEND_BWRAP)
		fprintf(f, "    every tmpfs: size=%s (bwrap's --size; bwrap "
		    "has no nr_inodes, the kernel's default holds), /dev "
		    "read-only\n", plan_size_name(p->mounts.tmpfs_size,
		    buf[0]));
	else
		fprintf(f, "    every tmpfs: size=%s, nr_inodes=%llu\n",
		    plan_size_name(p->mounts.tmpfs_size, buf[0]),
		    (unsigned long long)p->mounts.tmpfs_inodes);
	if (l->nproc)
		fprintf(f, "    RLIMIT_NPROC %llu (counted in the sandbox's own "
		    "user namespace)\n", (unsigned long long)l->nproc);
	else if (l->tasks && p->uid == 0)
		fprintf(f, "    RLIMIT_NPROC: not set (the kernel exempts the "
		    "host's uid 0 from it)\n");
	else if (l->tasks)
		fprintf(f, "    RLIMIT_NPROC: not set (no user namespace of the "
		    "sandbox's own: it would count every process of the "
		    "user)\n");
	if (l->nice)
		fprintf(f, "    nice +%d (the sandbox's share of contended "
		    "CPUs lowered)\n", l->nice);
}

void
plan_dump(const struct plan *p, FILE *f)
{
	static const struct { int flag; const char *name; } ns[] = {
		{ CLONE_NEWUSER, "user" }, { CLONE_NEWNS, "mount" },
		{ CLONE_NEWPID, "pid" }, { CLONE_NEWNET, "net" },
		{ CLONE_NEWIPC, "ipc" }, { CLONE_NEWUTS, "uts" },
		{ CLONE_NEWCGROUP, "cgroup" },
	};
	char buf[8];
	size_t i;

	plan_dump_policy(p, f);
	fprintf(f, "backend: %s\n", p->backend_reason);
	for (i = 0; i < p->nweaker; i++)
		fprintf(f, "  weaker here: %s\n", p->weaker[i]);
	if (p->bwrap)
		fprintf(f, "bwrap: %s%s%s%s\n", p->bwrap, p->bwrap_setuid ?
		    " (setuid)" : "", p->bwrap_unshare_user ?
		    ", --unshare-user" : "", p->bwrap_disable_userns ?
		    ", --disable-userns" : "");
	fprintf(f, "command:");
	for (i = 0; p->argv[i]; i++)
		fprintf(f, " %s", p->argv[i]);
	fprintf(f, "\ncwd: %s\n", p->cwd);
	fprintf(f, "ids: uid %u, gid %u (the caller's own)\n",
	    (unsigned)p->uid, (unsigned)p->gid);
	fprintf(f, "namespaces:");
	for (i = 0; i < nitems(ns); i++)
		if (p->clone_flags & ns[i].flag)
			fprintf(f, " %s", ns[i].name);
	if (p->clone_flags == 0)
		fprintf(f, " none%s", p->backend == PLAN_BACKEND_BWRAP ?
		    " of confine's own: bwrap makes them (user-try, mount, pid, "
		    "net, ipc, uts, cgroup-try)" : "");
	fprintf(f, "\nnetwork: %s%s\n", plan_net_name(p->net),
	    p->net != PLAN_NET_NONE ? "" : p->backend ==
	    PLAN_BACKEND_LANDLOCK ? " (no socket but AF_UNIX; TCP refused "
	    "by landlock)" : " (a private loopback, up)");
	if (p->inject.provider) {
		fprintf(f, "injected credential: %s at %s, through confine's "
		    "keyholder on http://127.0.0.1:%u (inference only; the "
		    "credential stays outside; a CONNECT there is refused)\n",
		    p->inject.provider, p->inject.upstream, p->keyholder_port);
		for (i = 0; p->inject.sources[i]; i++)
			fprintf(f, "  source %zu: %s\n", i + 1,
			    p->inject.sources[i]);
		fprintf(f, "  keyholder:");
		for (i = 0; p->inject.args[i]; i++)
			fprintf(f, " %s", p->inject.args[i]);
		fputc('\n', f);
	}
	if (p->allow_list) {
		fprintf(f, "host view: allow-list (quadrant %s allows leg C); "
		    "shown:", p->quadrant);
		for (i = 0; p->view[i]; i++)
			fprintf(f, "%s %s", i ? "," : "", p->view[i]);
		fputc('\n', f);
	}
	if (p->run_refused)
		fprintf(f, "refused at run time: %s\n", p->run_refused);
	fprintf(f, "workspace: %s (writes kept in the session, host "
	    "unchanged)\n", p->workspace);
	for (i = 0; p->nworkspaces > 1 && i < p->nworkspaces; i++) {
		const struct plan_workspace *w = &p->workspaces[i];

		if (w->read_only)
			fprintf(f, "workspace: %s (read-only, nothing "
			    "exported)\n", w->path);
		else if (!streq(w->dir, p->session_dir))
			fprintf(f, "workspace: %s (writes kept in the session's "
			    "%s, host unchanged)\n", w->path,
			    w->dir + strlen(p->session_dir) + 1);
	}
	fprintf(f, "session: %s\n", p->session_dir);
	if (p->state_dir)
		fprintf(f, "agent state: %s (persistent paths, kept between "
		    "the profile's sessions, one session at a time)\n",
		    p->state_dir);
	if (p->state_busy)
		fprintf(f, "agent state: %s\n", p->state_busy);
	dump_limits(p, f);
	limits_engine_dump(&p->limits_engine, f);
	fprintf(f, "%s:\n", p->backend == PLAN_BACKEND_LANDLOCK ?
	    "prepared in the session (no mount namespace)" : "mounts");
	for (i = 0; i < p->mounts.n; i++)
		dump_mount(p, &p->mounts.v[i], f);
	fprintf(f, "host unix sockets: %s\n", plan_sockets_why(p));
	fprintf(f, "landlock: ABI %d; handled fs 0x%llx, net 0x%llx, "
	    "scoped 0x%llx\n", p->landlock.abi,
	    (unsigned long long)p->landlock.handled_fs,
	    (unsigned long long)p->landlock.handled_net,
	    (unsigned long long)p->landlock.scoped);
	for (i = 0; i < p->landlock.npaths; i++) {
		const struct plan_path *r = &p->landlock.paths[i];
		size_t j;

		if (r->absent) {
			fprintf(f, "  skip %s (%s: does not exist)\n", r->path,
			    plan_access_name(r->access, buf));
			continue;
		}
		fprintf(f, "  %-4s %s\n", plan_access_name(r->access, buf),
		    r->path);
		for (j = 0; r->except && r->except[j]; j++)
			fprintf(f, "       except %s\n", r->except[j]);
	}
	dump_tcp(p, f);
	fprintf(f, "seccomp: deny-list, native architecture only; "
	    "socket families:");
	for (i = 0; i < p->sys.nfamilies; i++)
		fprintf(f, " %d", p->sys.families[i]);
	fputc('\n', f);
	if (p->sys.unix_pairs_only)
		fprintf(f, "  socket(AF_UNIX) refused; socketpair(AF_UNIX) "
		    "stream and seqpacket only\n");
	if (p->sys.no_kill_all)
		fprintf(f, "  kill(-1) refused\n");
	if (p->sys.self_only)
		fprintf(f, "  prlimit, priorities, scheduling, io priority "
		    "and pidfd_open by pid answered by confine (the "
		    "session's processes only); process_madvise, "
		    "process_mrelease refused\n");
	if (p->sys.no_host_ipc)
		fprintf(f, "  SysV IPC and POSIX message queues refused\n");
	if (p->sys.no_path_metadata)
		fprintf(f, "  chmod, utimes, xattrs, chattr and file locks "
		    "answered by confine (session files only), chown "
		    "refused\n");
	if (p->sys.unix_notify)
		fprintf(f, "  unix connect, sendto and sendmsg answered by "
		    "confine (seccomp user notification): the sandbox's own "
		    "sockets only, never a host socket, whenever bound\n"
		    "  file locks and leases answered by confine: read-only "
		    "files refused (EROFS)\n");
	fprintf(f, "capabilities: all sets empty, no_new_privs\n");
	fprintf(f, "terminal: %s\n", p->tty.pty ?
	    "new pseudo-terminal relayed by confine" :
	    "new session, stdio passed through");
	fprintf(f, "environment:");
	for (i = 0; p->envp[i]; i++)
		fprintf(f, " %.*s", (int)strcspn(p->envp[i], "="), p->envp[i]);
	fputc('\n', f);
	if (p->git_identity)
		fprintf(f, "git identity: %s\n", p->git_identity);
	if (p->ndegraded == 0)
		fprintf(f, "missing kernel features: none\n");
	else {
		fprintf(f, "missing kernel features:\n");
		for (i = 0; i < p->ndegraded; i++)
			fprintf(f, "  %s\n", p->degraded[i]);
	}
	dump_sequence(p, f);
}
