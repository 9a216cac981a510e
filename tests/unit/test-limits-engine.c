// SPDX-License-Identifier: ISC
/*
 * test-limits-engine.c - policy/limits-engine.c: the engine the host's
 * cgroup facts give, the one it falls to, and an asked --cpus refused
 * where no engine has a cpu controller.
 */
#include "config.h"

#include "policy/limits-engine.h"
#include "tap.h"

static const struct {
	const char		*name;
	struct host_cgroup	 c;
	bool			 with_systemd;
	struct plan_limits	 l;
	enum plan_engine_kind	 kind, next;
	unsigned int		 expect;
	bool			 refused;
	const char		*line;	/* its start */
} cases[] = {
	{ "no cgroup2 at all", { 0 }, true, { .tasks = 4096 },
	    PLAN_ENGINE_KERNEL, PLAN_ENGINE_KERNEL, 0, false,
	    "kernel (no cgroup2 mounted)" },
	{ "the user's bus: systemd, then kernel",
	    { .mount = (char *)"/sys/fs/cgroup", .dir = (char *)"/sys/fs/"
	    "cgroup/user.slice", .systemd = true, .user_bus = (char *)"unix:"
	    "path=/run/user/1000/bus", .root_controllers = HOST_CG_MEMORY |
	    HOST_CG_PIDS | HOST_CG_CPU }, true, { .memory = 1 << 30 },
	    PLAN_ENGINE_SYSTEMD, PLAN_ENGINE_KERNEL, PLAN_LIMIT_MEMORY |
	    PLAN_LIMIT_TASKS | PLAN_LIMIT_CPUS, false,
	    "systemd user manager (scope confine-S.scope, delegated: memory "
	    "pids cpu)" },
	{ "built without systemd: a delegated cgroup",
	    { .mount = (char *)"/sys/fs/cgroup", .dir = (char *)"/sys/fs/"
	    "cgroup/x.service", .systemd = true, .delegated = true,
	    .writable = true, .user_bus = (char *)"unix:path=/b",
	    .available = HOST_CG_PIDS }, false, { 0 },
	    PLAN_ENGINE_DELEGATED, PLAN_ENGINE_KERNEL, PLAN_LIMIT_TASKS, false,
	    "cgroup delegated to confine (/sys/fs/cgroup/x.service: pids" },
	{ "systemd on the host, our cgroup writable but not delegated: kernel",
	    { .mount = (char *)"/sys/fs/cgroup", .dir = (char *)"/sys/fs/"
	    "cgroup", .systemd = true, .writable = true }, true, { 0 },
	    PLAN_ENGINE_KERNEL, PLAN_ENGINE_KERNEL, 0, false, "kernel (" },
	{ "no systemd, writable: a child of our own, its controllers",
	    { .mount = (char *)"/sys/fs/cgroup/unified", .dir = (char *)"/sys/"
	    "fs/cgroup/unified", .writable = true, .controllers =
	    HOST_CG_CPU }, true, { .cpu_millis = 1500, .asked =
	    PLAN_LIMIT_CPUS }, PLAN_ENGINE_CHILD, PLAN_ENGINE_KERNEL,
	    PLAN_LIMIT_CPUS, false, "cgroup confine-S made in confine's own" },
	{ "--cpus asked, no controller anywhere: refused",
	    { .mount = (char *)"/sys/fs/cgroup/unified", .dir = (char *)"/sys/"
	    "fs/cgroup/unified", .writable = true }, true,
	    { .cpu_millis = 1000, .asked = PLAN_LIMIT_CPUS },
	    PLAN_ENGINE_CHILD, PLAN_ENGINE_KERNEL, 0, true, "cgroup" },
	{ "--cpus asked, kernel engine: refused", { 0 }, true,
	    { .cpu_millis = 250, .asked = PLAN_LIMIT_CPUS },
	    PLAN_ENGINE_KERNEL, PLAN_ENGINE_KERNEL, 0, true, "kernel" },
	{ "--cpus by default none: not refused", { 0 }, true,
	    { .memory = 1 << 20, .asked = PLAN_LIMIT_MEMORY },
	    PLAN_ENGINE_KERNEL, PLAN_ENGINE_KERNEL, 0, false, "kernel" },
	{ "root with the system bus: the system manager",
	    { .mount = (char *)"/sys/fs/cgroup", .dir = (char *)"/sys/fs/"
	    "cgroup/init.scope", .systemd = true, .system_bus = true }, true,
	    { 0 }, PLAN_ENGINE_SYSTEMD, PLAN_ENGINE_KERNEL, 0, false,
	    "systemd system manager (scope confine-S.scope, delegated: no "
	    "controller)" },
};

int
main(void)
{
	struct plan_limits l = { .memory = 4ULL << 30, .tasks = 512,
	    .cpu_millis = 1500 };
	autofree char *m = limits_engine_value(PLAN_LIMIT_MEMORY, &l);
	autofree char *t = limits_engine_value(PLAN_LIMIT_TASKS, &l);
	autofree char *c = limits_engine_value(PLAN_LIMIT_CPUS, &l);
	size_t i;

	plan((int)(nitems(cases) * 5 + 7));
	for (i = 0; i < nitems(cases); i++) {
		struct plan p = { .session_id = (char *)"S" };
		const struct plan_engine *e = &p.limits_engine;

		p.limits = cases[i].l;
		limits_engine_plan(&p, &cases[i].c, cases[i].with_systemd);
		is_int(e->kind, cases[i].kind, "%s: engine", cases[i].name);
		is_int(e->next, cases[i].next, "%s: then", cases[i].name);
		is_int(e->expect, cases[i].expect, "%s: controllers",
		    cases[i].name);
		is_int(e->refused != NULL, cases[i].refused, "%s: refused",
		    cases[i].name);
		if (!ok(strncmp(e->line, cases[i].line,
		    strlen(cases[i].line)) == 0, "%s: in words", cases[i].name))
			diag("got: %s", e->line);
		plan_engine_free(&p.limits_engine);
	}
	is_str(m, "--memory 4G", "a size as given");
	is_str(t, "--tasks 512", "tasks as given");
	is_str(c, "--cpus 1.5", "cpus as given");
	{
		struct plan p = { .session_id = (char *)"S" };

		p.limits = (struct plan_limits){ .cpu_millis = 1000,
		    .asked = PLAN_LIMIT_CPUS };
		limits_engine_plan(&p, &(struct host_cgroup){ .mount =
		    (char *)"/sys/fs/cgroup/unified", .dir = (char *)"/sys/fs/"
		    "cgroup/unified", .writable = true }, true);
		is_str(p.limits_engine.refused, "--cpus 1: no cpu controller in "
		    "the cgroup confine was given (/sys/fs/cgroup/unified); see "
		    "confine doctor", "the refusal's line");
		plan_engine_free(&p.limits_engine);
	}
	{
		/* A setuid bwrap refuses --size: without a memory controller
		 * an asked --memory cannot bound the tmpfs, so it is refused;
		 * with one it is not, and the default is never refused. */
		struct host_cgroup none = { .mount = (char *)"/sys/fs/cgroup/"
		    "unified", .dir = (char *)"/sys/fs/cgroup/unified" };
		struct host_cgroup mem = { .mount = (char *)"/sys/fs/cgroup",
		    .dir = (char *)"/sys/fs/cgroup/x", .writable = true,
		    .controllers = HOST_CG_MEMORY, .available = HOST_CG_MEMORY };
		struct plan p = { .session_id = (char *)"S",
		    .backend = PLAN_BACKEND_BWRAP, .bwrap_setuid = true };

		p.limits = (struct plan_limits){ .memory = 64 << 20,
		    .asked = PLAN_LIMIT_MEMORY };
		limits_engine_plan(&p, &none, false);
		is_str(p.limits_engine.refused, "--memory 64M: a setuid bwrap "
		    "cannot bound its tmpfs (it refuses --size) and no memory "
		    "controller is given here; see confine doctor",
		    "setuid bwrap, --memory, no controller: refused");
		limits_engine_plan(&p, &mem, false);
		ok(p.limits_engine.refused == NULL,
		    "setuid bwrap, --memory, a memory controller: run");
		p.limits.asked = 0;
		limits_engine_plan(&p, &none, false);
		ok(p.limits_engine.refused == NULL,
		    "setuid bwrap, the default memory: run");
		plan_engine_free(&p.limits_engine);
	}
	return done();
}
