// SPDX-License-Identifier: ISC
/*
 * policy/limits.c - the resource limits: option, then profile, then the
 * defaults (the design's numbers: memory half the host's RAM, 4096 tasks,
 * no CPU quota but a lowered weight, disk the smaller of 10 GiB and a
 * quarter of the session store's free space, never past its reserve);
 * and the kernel's own bounds on every engine: the tmpfs sizes and inode
 * counts, RLIMIT_NPROC where it counts the sandbox alone, nice.
 *
 * Runs in: the supervisor, inside policy_compute().
 * MUST: stay pure; a value given explicitly ("asked") is kept as given,
 * none included; only defaults are taken from the host.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/values.h"
#include "lib/util.h"
#include "policy/limits.h"

/* One limit: the option, the profile's value, the parser. */
struct source {
	unsigned int		 bit;
	const char		*key;		/* "memory" */
	const struct cli_limit	*opt;
	const struct pvalue	*pv;
};

/* The profile's value, checked by input/profile.c already. */
static int
parse(unsigned int bit, const char *v, uint64_t *ret, char **why)
{
	if (bit == PLAN_LIMIT_TASKS)
		return syntax_tasks(v, ret, why);
	if (bit == PLAN_LIMIT_CPUS)
		return syntax_cpus(v, ret, why);
	return syntax_size(v, ret, why);
}

/*
 * The explicit value, option first: true and *ret, with the origin in
 * p->limits.origin; false when neither gives one.
 */
static bool
asked(struct plan *p, const struct source *s, uint64_t *ret)
{
	unsigned int i = PLAN_LIMIT_INDEX(s->bit);
	autofree char *why = NULL;

	if (s->opt->set) {
		*ret = s->opt->value;
		p->limits.origin[i] = xasprintf("option --%s", s->key);
	} else if (s->pv->value && parse(s->bit, s->pv->value, ret,
	    &why) == 0)
		p->limits.origin[i] = xstrdup(s->pv->origin);
	else
		return false;
	p->limits.asked |= s->bit;
	return true;
}

/*
 * The default disk budget: the smaller of 10 GiB and a quarter of the
 * free space, and never into the reserve (the smaller of 5% of the
 * filesystem and 1 GiB).
 */
static uint64_t
disk_default(const struct host *h, uint64_t reserve)
{
	uint64_t room = h->store_free > reserve ? h->store_free - reserve : 0;
	uint64_t v = LIMITS_DISK_MAX;

	if (h->store_free / 4 < v)
		v = h->store_free / 4;
	return room < v ? room : v;
}

static int
defaults(struct plan *p, const struct host *h, char **cause, char **hint)
{
	struct plan_limits *l = &p->limits;
	char b[2][32];

	if (!(l->asked & PLAN_LIMIT_MEMORY)) {
		l->memory = h->mem_total / 2;
		l->origin[0] = h->mem_total ? xasprintf("built-in default: "
		    "half of the host's %s", plan_size_name(h->mem_total,
		    b[0])) : xstrdup("built-in default: none, the host's "
		    "memory is unknown");
	}
	if (!(l->asked & PLAN_LIMIT_TASKS)) {
		l->tasks = LIMITS_TASKS_DEFAULT;
		l->origin[1] = xstrdup("built-in default");
	}
	if (!(l->asked & PLAN_LIMIT_CPUS)) {
		l->cpu_millis = 0;
		l->origin[2] = xstrdup("built-in default: no quota, the "
		    "sandbox's CPU weight lowered");
	}
	if (l->asked & PLAN_LIMIT_DISK)
		return 0;
	if (h->store_size == 0) {
		l->origin[3] = xasprintf("built-in default: none, the session "
		    "store's filesystem could not be measured: %s",
		    h->store_why ? h->store_why : "no size");
		return 0;
	}
	l->disk = disk_default(h, l->disk_reserve);
	if (l->disk == 0) {
		*cause = xasprintf("disk: the session store's filesystem has "
		    "%s free, no more than the %s kept free there: no room "
		    "for a session", plan_size_name(h->store_free, b[0]),
		    plan_size_name(l->disk_reserve, b[1]));
		*hint = xasprintf("free space there (confine drop --applied), "
		    "or give a budget: --disk SIZE or --disk none");
		return -1;
	}
	l->origin[3] = xasprintf("built-in default: the smaller of %s and a "
	    "quarter of the %s free on the session store's filesystem",
	    plan_size_name(LIMITS_DISK_MAX, b[0]),
	    plan_size_name(h->store_free, b[1]));
	return 0;
}

int
policy_limits(struct plan *p, const struct cli_opts *o,
    const struct profile *pr, const struct host *h, char **cause,
    char **hint)
{
	const struct source src[] = {
		{ PLAN_LIMIT_MEMORY, "memory", &o->memory, &pr->memory },
		{ PLAN_LIMIT_TASKS, "tasks", &o->tasks, &pr->tasks },
		{ PLAN_LIMIT_CPUS, "cpus", &o->cpus, &pr->cpus },
		{ PLAN_LIMIT_DISK, "disk", &o->disk, &pr->disk },
	};
	struct plan_limits *l = &p->limits;
	uint64_t *field[] = { &l->memory, &l->tasks, &l->cpu_millis,
	    &l->disk };
	char buf[32];
	size_t i;

	for (i = 0; i < nitems(src); i++)
		asked(p, &src[i], field[i]);
	if (h->store_size) {
		l->disk_reserve = h->store_size / 20;
		if (l->disk_reserve > LIMITS_RESERVE_MAX)
			l->disk_reserve = LIMITS_RESERVE_MAX;
	}
	if (defaults(p, h, cause, hint) < 0)
		return -1;
	for (i = 0; i < nitems(src); i++)
		strv_push(&p->explain, &p->nexplain, xasprintf("limits.%s = "
		    "%s  (%s)", src[i].key, plan_limit_name(src[i].bit, *field[i],
		    buf), l->origin[i]));

	/*
	 * Every tmpfs holds at most the memory limit; its inodes (whose
	 * kernel memory no size= counts) at most one per 16 KiB of it.
	 */
	if (l->memory && !(p->backend == PLAN_BACKEND_BWRAP &&
	    p->bwrap_setuid)) {	/* a setuid bwrap refuses --size */
		p->mounts.tmpfs_size = l->memory;
		p->mounts.tmpfs_inodes = l->memory / PLAN_TMPFS_INODE_BYTES;
		if (p->mounts.tmpfs_inodes < PLAN_TMPFS_INODES_MIN)
			p->mounts.tmpfs_inodes = PLAN_TMPFS_INODES_MIN;
	}
	/*
	 * RLIMIT_NPROC counts the processes of a user in a user namespace
	 * (since Linux 5.14): in the sandbox's own, the sandbox's alone.
	 * Without one (setuid bwrap, landlock) it would count every process
	 * of the user on the host: not set there.  The kernel never applies
	 * it to the host's uid 0 (copy_process(): INIT_USER), namespace or
	 * not: not set for a root caller either.
	 */
	if (l->tasks && p->uid != 0 && (p->backend == PLAN_BACKEND_NATIVE ||
	    (p->backend == PLAN_BACKEND_BWRAP && p->bwrap_unshare_user)))
		l->nproc = l->tasks;
	/* The default: no quota, a smaller share when CPUs are contended. */
	if (!(l->asked & PLAN_LIMIT_CPUS))
		l->nice = PLAN_LIMIT_NICE;
	return 0;
}
