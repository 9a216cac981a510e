// SPDX-License-Identifier: ISC
/*
 * policy/limits-engine.c - the resource limits' engine, chosen from the
 * host's cgroup facts, in the design's order:
 *
 *   1. systemd: a transient scope with Delegate=yes, from the system
 *      manager (root, with the system bus) or the user's (its bus);
 *   2. cgroup: the cgroup confine runs in, delegated to it (its xattr); or,
 *      when systemd does not run the host, a child of confine's own cgroup,
 *      which confine may write, with the controllers already enabled there;
 *   3. kernel: no cgroup; tmpfs sizes, rlimits, nice and the supervisor's
 *      watch.
 *
 * Per limit: memory.max, pids.max and cpu.max when the engine's cgroup has
 * the controller; else the kernel's means (the watch for memory and tasks;
 * nothing for a cpu quota).  An asked --cpus no engine here can apply
 * refuses the run.
 *
 * Runs in: confine, before anything is made (policy).
 * MUST: stay pure: no system call, no file read; the facts are the probe's.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "policy/limits-engine.h"

unsigned int
limits_engine_bits(unsigned int host_cg)
{
	return ((host_cg & HOST_CG_MEMORY) ? PLAN_LIMIT_MEMORY : 0) |
	    ((host_cg & HOST_CG_PIDS) ? PLAN_LIMIT_TASKS : 0) |
	    ((host_cg & HOST_CG_CPU) ? PLAN_LIMIT_CPUS : 0);
}

const char *
limits_engine_word(enum plan_engine_kind k)
{
	switch (k) {
	case PLAN_ENGINE_SYSTEMD:
		return "systemd";
	case PLAN_ENGINE_DELEGATED:
	case PLAN_ENGINE_CHILD:
		return "cgroup";
	case PLAN_ENGINE_KERNEL:
		break;
	}
	return "kernel";
}

/* "memory pids cpu", or "no controller". */
static char *
controller_words(unsigned int bits)
{
	static const struct { unsigned int bit; const char *name; } c[] = {
		{ PLAN_LIMIT_MEMORY, "memory" }, { PLAN_LIMIT_TASKS, "pids" },
		{ PLAN_LIMIT_CPUS, "cpu" },
	};
	char buf[32] = "";
	size_t i;

	for (i = 0; i < nitems(c); i++)
		if (bits & c[i].bit)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			    "%s%s", buf[0] ? " " : "", c[i].name);
	return xstrdup(buf[0] ? buf : "no controller");
}

/* A size as an option takes it: 4G, 512M, 12345. */
static char *
size_value(uint64_t v)
{
	static const char units[] = "TGMK";
	int i;

	for (i = 0; i < 4; i++) {
		uint64_t u = 1ULL << (10 * (4 - i));

		if (v >= u && v % u == 0)
			return xasprintf("%" PRIu64 "%c", v / u, units[i]);
	}
	return xasprintf("%" PRIu64, v);
}

/* Thousandths of a CPU as an option takes them: 1, 1.5, 0.25. */
static char *
cpus_value(uint64_t m)
{
	char frac[8];
	size_t n;

	if (m % 1000 == 0)
		return xasprintf("%" PRIu64, m / 1000);
	snprintf(frac, sizeof(frac), "%03u", (unsigned)(m % 1000));
	for (n = strlen(frac); n > 1 && frac[n - 1] == '0'; n--)
		frac[n - 1] = '\0';
	return xasprintf("%" PRIu64 ".%s", m / 1000, frac);
}

char *
limits_engine_value(unsigned int limit, const struct plan_limits *l)
{
	autofree char *v = NULL;

	switch (limit) {
	case PLAN_LIMIT_MEMORY:
		v = l->memory ? size_value(l->memory) : xstrdup("none");
		return xasprintf("--memory %s", v);
	case PLAN_LIMIT_TASKS:
		return l->tasks ? xasprintf("--tasks %" PRIu64, l->tasks) :
		    xstrdup("--tasks none");
	case PLAN_LIMIT_CPUS:
		v = l->cpu_millis ? cpus_value(l->cpu_millis) : xstrdup("none");
		return xasprintf("--cpus %s", v);
	default:
		break;
	}
	v = l->disk ? size_value(l->disk) : xstrdup("none");
	return xasprintf("--disk %s", v);
}

/* The engine in words; bits: the PLAN_LIMIT_* its controllers give. */
static char *
engine_line(enum plan_engine_kind k, const struct plan *p,
    const struct host_cgroup *c, unsigned int bits)
{
	autofree char *ctl = controller_words(bits);

	switch (k) {
	case PLAN_ENGINE_SYSTEMD:
		return xasprintf("systemd %s manager (scope confine-%s.scope, "
		    "delegated: %s)", c->system_bus ? "system" : "user",
		    p->session_id ? p->session_id : "ID", ctl);
	case PLAN_ENGINE_DELEGATED:
		return xasprintf("cgroup delegated to confine (%s: %s)",
		    c->dir, ctl);
	case PLAN_ENGINE_CHILD:
		return xasprintf("cgroup confine-%s made in confine's own "
		    "(%s, no systemd runs here: %s)", p->session_id ?
		    p->session_id : "ID", c->dir, ctl);
	case PLAN_ENGINE_KERNEL:
		break;
	}
	return xasprintf("kernel (%s): tmpfs sizes, RLIMIT_NPROC, nice, the "
	    "supervisor's watch", c->mount == NULL ? "no cgroup2 mounted" :
	    c->dir == NULL ? "confine's cgroup not found" : c->systemd ?
	    "systemd's bus not reachable, confine's cgroup not delegated" :
	    "no systemd, no writable cgroup");
}

/* Per limit, how this engine enforces it. */
static char **
how(const struct plan *p, enum plan_engine_kind k, unsigned int bits)
{
	const struct plan_limits *l = &p->limits;
	/* A setuid bwrap refuses --size: its tmpfs are the kernel's. */
	const char *tmpfs = p->backend == PLAN_BACKEND_BWRAP &&
	    p->mounts.tmpfs_size == 0 ? "" : ", tmpfs sizes";
	char **v = NULL;
	size_t n = 0;
	bool cg = k != PLAN_ENGINE_KERNEL;

	if (!l->memory)
		strv_push(&v, &n, xstrdup("memory: none"));
	else if (bits & PLAN_LIMIT_MEMORY)
		strv_push(&v, &n, xasprintf("memory: memory.max, memory.swap.max "
		    "0%s", tmpfs));
	else
		strv_push(&v, &n, xasprintf("memory: the supervisor's watch%s%s",
		    tmpfs, cg ? " (no memory controller)" : ""));
	if (!l->tasks)
		strv_push(&v, &n, xstrdup("tasks: none"));
	else if (bits & PLAN_LIMIT_TASKS)
		strv_push(&v, &n, xstrdup("tasks: pids.max"));
	else
		strv_push(&v, &n, xasprintf("tasks: RLIMIT_NPROC, the "
		    "supervisor's watch%s", cg ? " (no pids controller)" : ""));
	if (l->cpu_millis && (bits & PLAN_LIMIT_CPUS))
		strv_push(&v, &n, xstrdup("cpus: cpu.max"));
	else if (l->cpu_millis)
		strv_push(&v, &n, xstrdup("cpus: cannot be applied (no cpu "
		    "controller)"));
	else if (bits & PLAN_LIMIT_CPUS)
		strv_push(&v, &n, xstrdup("cpus: none; cpu.weight 50"));
	else
		strv_push(&v, &n, xstrdup("cpus: none; nice 5"));
	strv_push(&v, &n, xstrdup(cg ? "end: cgroup.kill, then the cgroup "
	    "removed" : "end: the backend's own (no cgroup.kill)"));
	return v;
}

/* The first engine after systemd that the facts allow. */
static enum plan_engine_kind
cgroup_engine(const struct host_cgroup *c)
{
	if (c->dir && c->delegated && c->writable)
		return PLAN_ENGINE_DELEGATED;
	if (c->dir && !c->systemd && c->writable)
		return PLAN_ENGINE_CHILD;
	return PLAN_ENGINE_KERNEL;
}

/* The controllers an engine's cgroup is expected to have, as PLAN_LIMIT_*. */
static unsigned int
expect(enum plan_engine_kind k, const struct host_cgroup *c)
{
	switch (k) {
	case PLAN_ENGINE_SYSTEMD:
		/* What the manager delegates is known once the scope is
		 * made: at most the hierarchy's. */
		return limits_engine_bits(c->root_controllers);
	case PLAN_ENGINE_DELEGATED:
		return limits_engine_bits(c->available);
	case PLAN_ENGINE_CHILD:
		return limits_engine_bits(c->controllers);
	case PLAN_ENGINE_KERNEL:
		break;
	}
	return 0;
}

void
limits_engine_plan(struct plan *p, const struct host_cgroup *c,
    bool with_systemd)
{
	struct plan_engine e = { 0 };
	unsigned int can;

	e.kind = with_systemd && c->mount && (c->system_bus || c->user_bus) ?
	    PLAN_ENGINE_SYSTEMD : cgroup_engine(c);
	e.next = e.kind == PLAN_ENGINE_SYSTEMD ? cgroup_engine(c) :
	    PLAN_ENGINE_KERNEL;
	e.system_bus = c->system_bus;
	e.bus = c->user_bus ? xstrdup(c->user_bus) : NULL;
	e.mount = c->mount ? xstrdup(c->mount) : NULL;
	e.cgroup = c->dir ? xstrdup(c->dir) : NULL;
	e.expect = expect(e.kind, c);
	e.expect_next = expect(e.next, c);
	e.line = engine_line(e.kind, p, c, e.expect);
	if (e.kind == PLAN_ENGINE_SYSTEMD)
		e.next_line = engine_line(e.next, p, c, e.expect_next);
	e.how = how(p, e.kind, e.expect);
	/* Memory and tasks have the kernel's means; a cpu quota has none. */
	can = e.expect | e.expect_next | PLAN_LIMIT_MEMORY | PLAN_LIMIT_TASKS |
	    PLAN_LIMIT_DISK;
	if ((p->limits.asked & PLAN_LIMIT_CPUS) && p->limits.cpu_millis &&
	    !(can & PLAN_LIMIT_CPUS)) {
		autofree char *v = limits_engine_value(PLAN_LIMIT_CPUS,
		    &p->limits);

		e.refused = xasprintf("%s: no cpu controller in the cgroup "
		    "confine was given (%s); see confine doctor", v,
		    e.kind == PLAN_ENGINE_KERNEL ? (c->mount ? "no cgroup it "
		    "may use" : "no cgroup2 mounted") : e.cgroup && e.kind !=
		    PLAN_ENGINE_SYSTEMD ? e.cgroup : c->mount);
	}
	/* Without a memory controller the tmpfs sizes bound what the watch
	 * cannot see (a tmpfs's pages are no process's): a setuid bwrap
	 * has none. */
	if (e.refused == NULL && (p->limits.asked & PLAN_LIMIT_MEMORY) &&
	    p->limits.memory && p->backend == PLAN_BACKEND_BWRAP &&
	    p->bwrap_setuid && !((e.expect | e.expect_next) &
	    PLAN_LIMIT_MEMORY)) {
		autofree char *v = limits_engine_value(PLAN_LIMIT_MEMORY,
		    &p->limits);

		e.refused = xasprintf("%s: a setuid bwrap cannot bound its "
		    "tmpfs (it refuses --size) and no memory controller is "
		    "given here; see confine doctor", v);
	}
	plan_engine_free(&p->limits_engine);
	p->limits_engine = e;
}

void
plan_engine_free(struct plan_engine *e)
{
	free(e->bus);
	free(e->mount);
	free(e->cgroup);
	free(e->line);
	free(e->next_line);
	strv_free(e->how);
	free(e->refused);
	memset(e, 0, sizeof(*e));
}

void
limits_engine_dump(const struct plan_engine *e, FILE *f)
{
	size_t i;

	if (e->line == NULL)
		return;
	fprintf(f, "limits engine: %s\n", e->line);
	for (i = 0; e->how && e->how[i]; i++)
		fprintf(f, "  %s\n", e->how[i]);
	if (e->next_line)
		fprintf(f, "  if the scope cannot be made: %s\n", e->next_line);
	if (e->refused)
		fprintf(f, "  refused: %s\n", e->refused);
}
