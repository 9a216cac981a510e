// SPDX-License-Identifier: ISC
/*
 * run/limits.c - the resource limits' engine at run time.
 *
 * systemd: StartTransientUnit asks the manager (the system's for root on
 * the system bus, else the user's) for confine-ID.scope holding the
 * supervisor, Delegate=yes, and waits for its job (JobRemoved).  In that
 * scope X, as in a delegated cgroup X, the supervisor moves itself to
 * X/supervisor (no process may stay in a cgroup whose controllers are
 * enabled for its children), enables the controllers X has, and makes the
 * command's cgroup X/sandbox (a delegated one: X/confine-ID) with the
 * limits.  The child engine makes confine-ID in confine's own cgroup and
 * takes the controllers enabled there, enabling nothing and moving nothing
 * of what it did not make.  The backends start the sandbox in it
 * (rs->cgroup_fd, rs->cgroup_procs); at the end cgroup.kill leaves nothing
 * of the command, on any backend.
 *
 * Runs in: the supervisor.
 * MUST: write no cgroup confine did not make or was not given (the scope,
 * the delegated one); never one of v1.
 * MUST: refuse (125) an asked limit that is not applied, before the
 * command starts; a default one falls to the kernel's means, said at -v.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef WITH_SYSTEMD
#include <dlfcn.h>
#include <stddef.h>
#include <systemd/sd-bus.h>
#endif

#include "enforce/cgroup.h"
#include "lib/fdio.h"
#include "lib/log.h"
#include "lib/sys.h"
#include "lib/util.h"
#include "policy/limits-engine.h"
#include "run/limits.h"
#include "run/session-dir.h"
#include "store/session-meta.h"
#include "store/session-running.h"

/* How long systemd may take to start the scope. */
#define SCOPE_WAIT_SEC	30

/* The limits a cgroup enforces, of those the plan sets. */
static unsigned int
wanted(const struct plan_limits *l)
{
	return (l->memory ? PLAN_LIMIT_MEMORY : 0) |
	    (l->tasks ? PLAN_LIMIT_TASKS : 0) |
	    (l->cpu_millis ? PLAN_LIMIT_CPUS : 0);
}

static void
run_close(struct limits_run *lr)
{
	if (lr->sandbox >= 0 && lr->sandbox != lr->top)
		close(lr->sandbox);
	if (lr->top >= 0)
		close(lr->top);
	if (lr->parent >= 0)
		close(lr->parent);
	lr->sandbox = lr->top = lr->parent = -1;
}

#ifdef WITH_SYSTEMD
/*
 * libsystemd is loaded when the systemd engine is tried, not with confine:
 * it and the libraries it needs (gcrypt, lz4, lzma, zstd, cap) were most
 * of confine's start-up for every run, the engine tried or not.  The
 * header gives the types; these are the functions scope_start() calls.
 */
static struct {
	typeof(sd_bus_open_system)		*open_system;
	typeof(sd_bus_new)			*new_bus;
	typeof(sd_bus_set_address)		*set_address;
	typeof(sd_bus_set_bus_client)		*set_bus_client;
	typeof(sd_bus_start)			*start;
	typeof(sd_bus_match_signal)		*match_signal;
	typeof(sd_bus_message_new_method_call)	*new_method_call;
	typeof(sd_bus_message_append)		*append;
	typeof(sd_bus_message_open_container)	*open_container;
	typeof(sd_bus_message_close_container)	*close_container;
	typeof(sd_bus_message_read)		*read;
	typeof(sd_bus_message_unref)		*message_unref;
	typeof(sd_bus_call)			*call;
	typeof(sd_bus_error_free)		*error_free;
	typeof(sd_bus_process)			*process;
	typeof(sd_bus_wait)			*wait;
	typeof(sd_bus_flush_close_unref)	*flush_close_unref;
} sd;

/* Load libsystemd once: 0, or -1 with *why. */
static int
sd_load(char **why)
{
	static const struct { const char *name; size_t off; } fn[] = {
#define FN(f, m) { #f, offsetof(typeof(sd), m) }
		FN(sd_bus_open_system, open_system),
		FN(sd_bus_new, new_bus),
		FN(sd_bus_set_address, set_address),
		FN(sd_bus_set_bus_client, set_bus_client),
		FN(sd_bus_start, start),
		FN(sd_bus_match_signal, match_signal),
		FN(sd_bus_message_new_method_call, new_method_call),
		FN(sd_bus_message_append, append),
		FN(sd_bus_message_open_container, open_container),
		FN(sd_bus_message_close_container, close_container),
		FN(sd_bus_message_read, read),
		FN(sd_bus_message_unref, message_unref),
		FN(sd_bus_call, call),
		FN(sd_bus_error_free, error_free),
		FN(sd_bus_process, process),
		FN(sd_bus_wait, wait),
		FN(sd_bus_flush_close_unref, flush_close_unref),
#undef FN
	};
	static void *lib;
	size_t i;
	void *f;

	if (lib)
		return 0;
	if ((lib = dlopen(LIBSYSTEMD_SONAME, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		*why = xasprintf("cannot load %s: %s", LIBSYSTEMD_SONAME,
		    dlerror());
		return -1;
	}
	for (i = 0; i < nitems(fn); i++) {
		if ((f = dlsym(lib, fn[i].name)) == NULL) {
			*why = xasprintf("%s has no %s", LIBSYSTEMD_SONAME,
			    fn[i].name);
			dlclose(lib);
			lib = NULL;
			return -1;
		}
		memcpy((char *)&sd + fn[i].off, &f, sizeof(f));
	}
	return 0;
}

struct job_wait {
	const char	*unit;
	bool		 done;
	char		 result[32];
};

static void
bus_unrefp(sd_bus **b)
{
	if (*b)
		sd.flush_close_unref(*b);
}

static void
msg_unrefp(sd_bus_message **m)
{
	sd.message_unref(*m);
}

/* org.freedesktop.systemd1.Manager.JobRemoved(u id, o job, s unit, s result) */
static int
job_removed(sd_bus_message *m, void *data, sd_bus_error *err)
{
	struct job_wait *w = data;
	const char *job, *unit, *result;
	uint32_t id;

	(void)err;
	if (sd.read(m, "uoss", &id, &job, &unit, &result) < 0 ||
	    !streq(unit, w->unit))
		return 0;
	w->done = true;
	snprintf(w->result, sizeof(w->result), "%s", result);
	return 0;
}

/*
 * Ask systemd for confine-ID.scope holding this process (Delegate=yes,
 * collected when it ends, whatever its state) and wait for the job: 0, or
 * -1 with *why.  The bus is closed after: the scope lives as long as a
 * process is in it.
 */
static int
scope_start(const struct plan *p, char **why)
{
	const struct plan_engine *e = &p->limits_engine;
	AUTO(bus_unrefp) sd_bus *bus = NULL;
	AUTO(msg_unrefp) sd_bus_message *m = NULL;
	AUTO(msg_unrefp) sd_bus_message *reply = NULL;
	sd_bus_error err = SD_BUS_ERROR_NULL;
	autofree char *unit = xasprintf("confine-%s.scope", p->session_id);
	autofree char *desc = xasprintf("confine session %s", p->session_id);
	struct job_wait w = { .unit = unit };
	struct timespec now, end;
	int r;

	if (sd_load(why) < 0)
		return -1;
	if (e->system_bus)
		r = sd.open_system(&bus);
	else if ((r = sd.new_bus(&bus)) >= 0 &&
	    (r = sd.set_address(bus, e->bus)) >= 0 &&
	    (r = sd.set_bus_client(bus, 1)) >= 0)
		r = sd.start(bus);
	if (r < 0) {
		*why = xasprintf("cannot reach the %s bus: %s", e->system_bus ?
		    "system" : "user's", strerror(-r));
		return -1;
	}
	if ((r = sd.match_signal(bus, NULL, "org.freedesktop.systemd1",
	    "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager",
	    "JobRemoved", job_removed, &w)) < 0 ||
	    (r = sd.new_method_call(bus, &m,
	    "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
	    "org.freedesktop.systemd1.Manager", "StartTransientUnit")) < 0 ||
	    (r = sd.append(m, "ss", unit, "fail")) < 0 ||
	    (r = sd.open_container(m, 'a', "(sv)")) < 0 ||
	    (r = sd.append(m, "(sv)", "Description", "s",
	    desc)) < 0 ||
	    (r = sd.append(m, "(sv)", "PIDs", "au", 1,
	    (uint32_t)getpid())) < 0 ||
	    (r = sd.append(m, "(sv)", "Delegate", "b", 1)) < 0 ||
	    (r = sd.append(m, "(sv)", "CollectMode", "s",
	    "inactive-or-failed")) < 0 ||
	    (r = sd.close_container(m)) < 0 ||
	    (r = sd.append(m, "a(sa(sv))", 0)) < 0) {
		*why = xasprintf("cannot ask for %s: %s", unit, strerror(-r));
		return -1;
	}
	if ((r = sd.call(bus, m, 0, &err, &reply)) < 0) {
		*why = xasprintf("StartTransientUnit %s refused: %s", unit,
		    err.message ? err.message : strerror(-r));
		sd.error_free(&err);
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += SCOPE_WAIT_SEC;
	while (!w.done) {
		uint64_t left;

		if ((r = sd.process(bus, NULL)) < 0)
			break;
		if (r > 0)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (timespec_ge(&now, &end)) {
			r = -ETIMEDOUT;
			break;
		}
		left = (uint64_t)(end.tv_sec - now.tv_sec) * 1000000;
		if ((r = sd.wait(bus, left)) < 0)
			break;
	}
	if (!w.done) {
		*why = xasprintf("the job of %s did not end%s: %s", unit,
		    r == -ETIMEDOUT ? " in time" : "",
		    strerror(-r));
		return -1;
	}
	if (!streq(w.result, "done")) {
		*why = xasprintf("the job of %s ended %s", unit, w.result);
		return -1;
	}
	return 0;
}
#endif

/* When pid started (store/session-running.h); 0: no such process. */
static unsigned long long
proc_start(pid_t pid)
{
	uint64_t start;

	return session_proc_start(pid, &start) < 0 ? 0 : start;
}

/*
 * The confine-* cgroups a confine killed left in parent (SIGKILL leaves
 * no time to remove them): their maker gone, what is left in one is
 * killed (its supervisor is gone: nothing may run on unwatched) and an
 * empty one removed.  One made a moment ago is marked by a running
 * confine, or not marked yet: kept.
 */
/* An unmarked cgroup of confine's older than this (s) is a leftover. */
#define UNMARKED_AGE	60

static void
sweep(int parent)
{
	autostrv char **v = cgroup_children(parent, "confine-");
	/* Set by cgroup_maker() when it returns 0; zero for gcc's LTO. */
	unsigned long long start = 0;
	pid_t pid = 0;
	size_t i;

	for (i = 0; v[i]; i++) {
		autoclose int fd = fd_open_at(parent, v[i], O_RDONLY |
		    O_DIRECTORY, 0, FD_BENEATH);

		int r;

		if (fd < 0)
			continue;
		/*
		 * Not marked: a confine killed between making it and marking
		 * it, or one making it now.  Removed once empty and a minute
		 * old (its ctime): never killed, its maker is not known.
		 */
		if ((r = cgroup_maker(fd, &pid, &start)) == -ENODATA) {
			struct stat st;
			struct timespec now;

			clock_gettime(CLOCK_REALTIME, &now);
			if (fstat(fd, &st) == 0 && now.tv_sec - st.st_ctime >
			    UNMARKED_AGE && cgroup_populated(fd) == 0 &&
			    cgroup_rmdir(parent, v[i]) == 0)
				log_debug("limits: removed '%s', left unmarked",
				    v[i]);
			continue;
		}
		if (r < 0 || proc_start(pid) == start)
			continue;
		if (cgroup_populated(fd) != 0) {
			/* Removed by a later run, once the kill is done. */
			if (cgroup_kill(fd) == 0)
				log_debug("limits: killed what was left in "
				    "'%s' by a confine that was killed", v[i]);
			continue;
		}
		if (cgroup_rmdir(parent, v[i]) == 0)
			log_debug("limits: removed '%s', left by a confine "
			    "that was killed", v[i]);
	}
}

/* Mark the cgroup as this confine's; said at -vv when it cannot be. */
static void
mark(int fd)
{
	int r = cgroup_mark(fd, getpid(), proc_start(getpid()));

	if (r < 0)
		log_debug("limits: cannot mark the cgroup: %s", strerror(-r));
}

/*
 * In X (the scope, or the delegated cgroup): the supervisor moves to
 * X/supervisor, X's controllers are enabled for its children, and the
 * command's cgroup name is made.  0, or -1 with *why.
 */
static int
delegated_setup(struct limits_run *lr, const char *name, unsigned int want,
    unsigned int *have, char **why)
{
	unsigned int avail = 0;
	int sup, r;

	if ((lr->top = cgroup_open(lr->top_path)) < 0) {
		*why = xasprintf("cannot open '%s': %s", lr->top_path,
		    strerror(-lr->top));
		return -1;
	}
	if ((sup = cgroup_mkdir(lr->top, "supervisor")) == -EEXIST)
		sup = fd_open_at(lr->top, "supervisor", O_RDONLY | O_DIRECTORY,
		    0, FD_BENEATH);
	if (sup < 0 || (r = cgroup_move(sup, 0)) < 0) {
		r = sup < 0 ? sup : r;
		if (sup >= 0)
			close(sup);
		*why = xasprintf("cannot move confine to '%s/supervisor': %s",
		    lr->top_path, strerror(-r));
		return -1;
	}
	close(sup);
	if ((r = cgroup_controllers(lr->top, "cgroup.controllers",
	    &avail)) < 0) {
		*why = xasprintf("cannot read '%s/cgroup.controllers': %s",
		    lr->top_path, strerror(-r));
		return -1;
	}
	/* Another process in X keeps its controllers off (EBUSY): then the
	 * cgroup is for cgroup.kill alone. */
	if ((r = cgroup_enable(lr->top, avail & want)) < 0)
		log_info("limits: cannot enable the controllers of '%s': %s",
		    lr->top_path, strerror(-r));
	/* A delegated cgroup outlives confine: what a killed one left. */
	if (!streq(name, "sandbox"))
		sweep(lr->top);
	if ((lr->sandbox = cgroup_mkdir(lr->top, name)) < 0) {
		*why = xasprintf("cannot make '%s/%s': %s", lr->top_path, name,
		    strerror(-lr->sandbox));
		return -1;
	}
	mark(lr->sandbox);
	lr->sandbox_path = path_join(lr->top_path, name);
	return cgroup_controllers(lr->sandbox, "cgroup.controllers", have) < 0 ?
	    (*have = 0, 0) : 0;
}

/* No systemd: confine-ID in confine's own cgroup. */
static int
child_setup(const struct plan *p, struct limits_run *lr, unsigned int *have,
    char **why)
{
	autofree char *name = xasprintf("confine-%s", p->session_id);

	lr->top_path = xstrdup(p->limits_engine.cgroup);
	if ((lr->parent = cgroup_open(lr->top_path)) < 0) {
		*why = xasprintf("cannot open '%s': %s", lr->top_path,
		    strerror(-lr->parent));
		return -1;
	}
	/* Left by a run of this session that was killed (the session's run
	 * lock is held: no other runs it): empty, it goes. */
	sweep(lr->parent);
	lr->top = lr->sandbox = cgroup_mkdir(lr->parent, name);
	if (lr->top == -EEXIST && cgroup_rmdir(lr->parent, name) == 0)
		lr->top = lr->sandbox = cgroup_mkdir(lr->parent, name);
	if (lr->top < 0) {
		*why = xasprintf("cannot make '%s/%s': %s", lr->top_path, name,
		    strerror(-lr->top));
		return -1;
	}
	mark(lr->sandbox);
	lr->sandbox_path = path_join(lr->top_path, name);
	if (cgroup_controllers(lr->sandbox, "cgroup.controllers", have) < 0)
		*have = 0;
	return 0;
}

/* Try one engine: 0, or -1 with *why (and whatever it made removed). */
static int
engine_try(const struct plan *p, enum plan_engine_kind kind,
    struct limits_run *lr, unsigned int *have, char **why)
{
	const struct plan_engine *e = &p->limits_engine;
	/* cpu too without a quota: its weight is lowered (cpu.weight). */
	unsigned int want = wanted(&p->limits) | PLAN_LIMIT_CPUS;
	autofree char *name = NULL;

	*have = 0;
	switch (kind) {
	case PLAN_ENGINE_SYSTEMD:
#ifdef WITH_SYSTEMD
		if (scope_start(p, why) < 0)
			return -1;
		/* Only the scope asked for, whatever else confine is in. */
		name = xasprintf("/confine-%s.scope", p->session_id);
		if ((lr->top_path = probe_own_cgroup(e->mount)) == NULL ||
		    !path_has_prefix(lr->top_path, e->mount) ||
		    strlen(lr->top_path) < strlen(name) ||
		    !streq(lr->top_path + strlen(lr->top_path) - strlen(name),
		    name)) {
			*why = xasprintf("confine is not in the scope's cgroup "
			    "(%s)", lr->top_path ? lr->top_path : "none");
			return -1;
		}
		return delegated_setup(lr, "sandbox", want, have, why);
#else
		*why = xstrdup("built without systemd");
		return -1;
#endif
	case PLAN_ENGINE_DELEGATED:
		lr->top_path = xstrdup(e->cgroup);
		name = xasprintf("confine-%s", p->session_id);
		return delegated_setup(lr, name, want, have, why);
	case PLAN_ENGINE_CHILD:
		return child_setup(p, lr, have, why);
	case PLAN_ENGINE_KERNEL:
		break;
	}
	return 0;
}

/* Remove what engine_try made; the supervisor's leaf stays (it is in it;
 * systemd removes a scope's whole tree). */
static void
engine_undo(struct limits_run *lr)
{
	autofree char *name = lr->sandbox_path ?
	    xstrdup(strrchr(lr->sandbox_path, '/') + 1) : NULL;
	int dir = lr->kind == PLAN_ENGINE_CHILD ? lr->parent : lr->top;

	if (lr->sandbox >= 0) {
		close(lr->sandbox);
		if (lr->sandbox == lr->top)
			lr->top = -1;
		lr->sandbox = -1;
	}
	if (name && dir >= 0)
		cgroup_rmdir(dir, name);
	run_close(lr);
	free(lr->top_path);
	free(lr->sandbox_path);
	lr->top_path = lr->sandbox_path = NULL;
}

/* Record the engine (and later what was reached) in the session. */
static void
note(const struct plan *p, const struct run_state *rs,
    const struct limits_run *lr)
{
	autofree char *text = xasprintf("engine=%s\nengine_line=%s\n%s%s%s",
	    limits_engine_word(lr->kind), lr->line, lr->sandbox_path ?
	    "cgroup=" : "", lr->sandbox_path ? lr->sandbox_path : "",
	    lr->sandbox_path ? "\n" : "");
	const struct plan_limits *l = &p->limits;
	unsigned int cg = rs->limits_cgroup;
	char *more;
	size_t i;
	int r;

	/* How each limit is enforced, as it turned out here. */
	more = xasprintf("%show=memory: %s\nhow=tasks: %s\nhow=cpus: %s\n",
	    text, !l->memory ? "none" : (cg & PLAN_LIMIT_MEMORY) ?
	    "memory.max" : "the kernel's means (no memory controller)",
	    !l->tasks ? "none" : (cg & PLAN_LIMIT_TASKS) ? "pids.max" :
	    "the kernel's means (no pids controller)", l->cpu_millis ?
	    "cpu.max" : lr->sandbox >= 0 && (cg & PLAN_LIMIT_CPUS) ?
	    "none; cpu.weight 50" : "none; nice 5");
	free(text);
	text = more;
	for (i = 0; i < nitems(rs->limit_hit); i++) {
		if (rs->limit_hit[i][0] == '\0')
			continue;
		more = xasprintf("%sreached=%s\n", text, rs->limit_hit[i]);
		free(text);
		text = more;
	}
	if ((r = session_file_put(p->session_dir, "limits", text)) < 0)
		log_warn("session: cannot note the limits in '%s': %s",
		    p->session_dir, strerror(-r));
}

void
limits_start(const struct plan *p, struct run_state *rs,
    struct limits_run *lr)
{
	const struct plan_engine *e = &p->limits_engine;
	enum plan_engine_kind order[2] = { e->kind, e->next };
	autofree char *why = NULL;
	unsigned int have = 0, asked = p->limits.asked & wanted(&p->limits);
	const char *where = NULL;
	size_t i;
	int r;

	*lr = (struct limits_run){ .top = -1, .parent = -1, .sandbox = -1 };
	rs->cgroup_fd = rs->cgroup_procs = -1;
	rs->limits_cgroup = 0;
	for (i = 0; i < nitems(order); i++) {
		lr->kind = order[i];
		free(why);
		why = NULL;
		if (engine_try(p, order[i], lr, &have, &why) == 0 &&
		    (!(asked & PLAN_LIMIT_CPUS) || (have & PLAN_LIMIT_CPUS)))
			break;
		if (why == NULL)
			why = xasprintf("no cpu controller in '%s'",
			    lr->sandbox_path ? lr->sandbox_path : "(none)");
		engine_undo(lr);
		if (i + 1 < nitems(order))
			log_info("limits: %s engine: %s; falling back to %s",
			    limits_engine_word(order[i]), why,
			    limits_engine_word(order[i + 1]));
		if (order[i] == PLAN_ENGINE_KERNEL || i + 1 == nitems(order))
			lr->kind = PLAN_ENGINE_KERNEL;
	}
	if ((asked & PLAN_LIMIT_CPUS) && !(have & PLAN_LIMIT_CPUS)) {
		autofree char *v = limits_engine_value(PLAN_LIMIT_CPUS,
		    &p->limits);

		engine_undo(lr);
		if (!p->reenter)
			workspace_session_remove(p);
		die("%s: no cpu controller in the cgroup confine was given "
		    "(%s); see confine doctor", v, why ? why : "none");
	}
	if (lr->kind == e->kind)
		lr->line = xstrdup(e->line);
	else if (lr->kind == e->next && e->next_line)
		lr->line = xstrdup(e->next_line);
	else
		lr->line = xasprintf("kernel (no cgroup could be had: %s): "
		    "tmpfs sizes, RLIMIT_NPROC, nice, the supervisor's watch",
		    why ? why : "none");
	if (lr->sandbox >= 0) {
		have &= wanted(&p->limits) | (p->limits.cpu_millis ? 0 :
		    PLAN_LIMIT_CPUS);
		if ((r = cgroup_limit(lr->sandbox, &p->limits, have,
		    &where)) < 0) {
			engine_undo(lr);
			if (!p->reenter)
				workspace_session_remove(p);
			die_errno(-r, "limits: cannot write '%s' of the "
			    "sandbox's cgroup", where);
		}
		if ((rs->cgroup_procs = cgroup_procs_fd(lr->sandbox)) < 0) {
			r = rs->cgroup_procs;
			engine_undo(lr);
			if (!p->reenter)
				workspace_session_remove(p);
			die_errno(-r, "limits: cannot open '%s/cgroup.procs'",
			    lr->sandbox_path);
		}
		rs->cgroup_fd = lr->sandbox;
		rs->limits_cgroup = have;
		log_info("limits: %s, the command in '%s'", lr->line,
		    lr->sandbox_path);
	} else
		log_info("limits: %s", lr->line);
	/* Limits the cgroup does not enforce: the kernel's means. */
	if (p->limits.memory && !(rs->limits_cgroup & PLAN_LIMIT_MEMORY))
		log_info("limits: memory by the kernel's means (no memory "
		    "controller here)");
	if (p->limits.tasks && !(rs->limits_cgroup & PLAN_LIMIT_TASKS))
		log_info("limits: tasks by the kernel's means (no pids "
		    "controller here)");
	note(p, rs, lr);
}

/* "4 GiB", "512 MiB", "1.5 GiB", "1000 bytes". */
static char *
size_words(uint64_t v)
{
	static const char *const unit[] = { "TiB", "GiB", "MiB", "KiB" };
	int i;

	for (i = 0; i < 4; i++) {
		uint64_t u = 1ULL << (10 * (4 - i));

		if (v >= u)
			return v % u == 0 ? xasprintf("%" PRIu64 " %s", v / u,
			    unit[i]) : xasprintf("%.1f %s", (double)v /
			    (double)u, unit[i]);
	}
	return xasprintf("%" PRIu64 " bytes", v);
}

/* What the command reached, from its cgroup's files. */
static void
outcomes(const struct plan *p, struct run_state *rs, int cg)
{
	const struct plan_limits *l = &p->limits;
	uint64_t v = 0;

	if ((rs->limits_cgroup & PLAN_LIMIT_MEMORY) &&
	    cgroup_key(cg, "memory.events", "oom_kill", &v) == 0 && v > 0) {
		autofree char *s = size_words(l->memory);

		snprintf(rs->limit_hit[0], sizeof(rs->limit_hit[0]),
		    "memory limit %s reached: the command was killed by the "
		    "OOM killer", s);
	}
	if ((rs->limits_cgroup & PLAN_LIMIT_TASKS) &&
	    cgroup_key(cg, "pids.events", "max", &v) == 0 && v > 0)
		snprintf(rs->limit_hit[1], sizeof(rs->limit_hit[1]),
		    "task limit %" PRIu64 " reached: %" PRIu64 " fork%s "
		    "refused", l->tasks, v, v == 1 ? "" : "s");
	if ((rs->limits_cgroup & PLAN_LIMIT_CPUS) && l->cpu_millis &&
	    cgroup_key(cg, "cpu.stat", "throttled_usec", &v) == 0 && v > 0) {
		autofree char *c = limits_engine_value(PLAN_LIMIT_CPUS, l);

		snprintf(rs->limit_hit[2], sizeof(rs->limit_hit[2]),
		    "cpu limit %s CPU%s: throttled %.1f s", c + 7,
		    l->cpu_millis == 1000 ? "" : "s", (double)v / 1e6);
	}
}

/* Nothing of the command survives it, on any backend: 0 or -errno. */
static int
end_cgroup(struct run_state *rs, struct limits_run *lr)
{
	int r = 0;

	if (rs->cgroup_procs >= 0)
		close(rs->cgroup_procs);
	rs->cgroup_procs = -1;
	if (lr->sandbox >= 0 && (r = cgroup_kill(lr->sandbox)) == 0)
		r = cgroup_wait_empty(lr->sandbox);
	return r;
}

void
limits_end(const struct plan *p, struct run_state *rs, struct limits_run *lr)
{
	size_t i;
	int r;

	if ((r = end_cgroup(rs, lr)) < 0)
		log_warn("limits: cannot end what is left in '%s': %s",
		    lr->sandbox_path, strerror(-r));
	if (lr->sandbox >= 0)
		outcomes(p, rs, lr->sandbox);
	for (i = 0; i < nitems(rs->limit_hit); i++)
		if (rs->limit_hit[i][0])
			log_msg("%s", rs->limit_hit[i]);
	note(p, rs, lr);
	rs->cgroup_fd = -1;
	engine_undo(lr);
	free(lr->line);
	lr->line = NULL;
}

bool
limits_outcomes(const struct plan *p, struct run_state *rs,
    const struct limits_run *lr)
{
	size_t i;

	if (lr->sandbox >= 0)
		outcomes(p, rs, lr->sandbox);
	for (i = 0; i < nitems(rs->limit_hit); i++)
		if (rs->limit_hit[i][0])
			return true;
	return false;
}

void
limits_adopt(struct limits_run *lr)
{
	if (lr->sandbox >= 0)
		mark(lr->sandbox);
}

void
limits_forget(struct limits_run *lr)
{
	run_close(lr);
	free(lr->top_path);
	free(lr->sandbox_path);
	free(lr->line);
	lr->top_path = lr->sandbox_path = lr->line = NULL;
}

void
limits_undo(struct run_state *rs, struct limits_run *lr)
{
	end_cgroup(rs, lr);
	rs->cgroup_fd = -1;
	engine_undo(lr);
	free(lr->line);
	lr->line = NULL;
}

pid_t
limits_clone(const struct run_state *rs, unsigned long flags, bool *in_cgroup,
    const char **where)
{
	pid_t pid;

	*in_cgroup = false;
	if (rs->cgroup_fd >= 0) {
		if ((pid = sys_clone_into_cgroup(flags, rs->cgroup_fd)) >= 0) {
			*in_cgroup = true;
			return pid;
		}
		/* The cgroup's refusals, not the namespaces'. */
		if (errno == EACCES || errno == EBUSY || errno == EOPNOTSUPP ||
		    errno == EBADF)
			*where = "clone the sandbox into its cgroup (clone3)";
		if (errno != ENOSYS)
			return -1;
		/* The child makes its cgroup namespace once it is in it. */
		flags &= ~(unsigned long)CLONE_NEWCGROUP;
	}
	if (flags == 0)
		return fork();
	return (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, 0);
}
