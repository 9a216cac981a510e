/* SPDX-License-Identifier: ISC */
/*
 * policy/limits-engine.h - which engine enforces the resource limits here,
 * and how each limit is enforced by it (the design: systemd's delegated
 * scope, a delegated cgroup, a child of confine's own, or the kernel's
 * means alone).
 *
 * Pure: it reads the host's facts (input/cgroup-probe.c) and the plan's
 * limits; no system call.
 */
#ifndef CONFINE_LIMITS_ENGINE_H
#define CONFINE_LIMITS_ENGINE_H

#include <stdio.h>

#include "input/host-probe.h"
#include "policy/plan.h"

/*
 * Fill p->limits_engine from the host's cgroup facts, p->limits and
 * p->session_id.  with_systemd: confine was built with the systemd engine.
 * An asked limit that no engine here can apply sets
 * p->limits_engine.refused (the run is refused; --dry-run prints it).
 */
void	limits_engine_plan(struct plan *p, const struct host_cgroup *,
	    bool with_systemd);
void	plan_engine_free(struct plan_engine *);

/* "systemd", "cgroup", "kernel": the engine's word in the session's files. */
const char *limits_engine_word(enum plan_engine_kind);

/* PLAN_LIMIT_* a cgroup with these HOST_CG_* controllers enforces. */
unsigned int	limits_engine_bits(unsigned int host_cg);

/* "--cpus 1.5: no cpu controller in ...": the limit as the user gave it. */
char	*limits_engine_value(unsigned int limit, const struct plan_limits *);

/* The engine's lines for --dry-run and doctor: "limits engine: ...". */
void	limits_engine_dump(const struct plan_engine *, FILE *);

#endif
