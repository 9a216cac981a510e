/* SPDX-License-Identifier: ISC */
/*
 * run/watch.h - the supervisor's watch of the limits: the disk budget
 * (a project quota where the filesystem has one, else sampled), and,
 * when no cgroup enforces them (the kernel engine), the sandbox's task
 * count and resident memory.  At a limit it stops the sandbox and writes
 * the line that says so in rs->limit_hit.
 *
 * Runs in: the supervisor; its tick is one fd in the supervisor's poll.
 */
#ifndef CONFINE_WATCH_H
#define CONFINE_WATCH_H

#include "policy/plan.h"
#include "run/backend.h"

/* How often the watch measures, in milliseconds. */
#define WATCH_TICK_MS	250

struct watch;

/*
 * Before the sandbox starts: the watch, or NULL: nothing to watch (no
 * limit, or none the watch takes).  No fd is kept open (none may reach
 * the sandbox's processes).
 */
struct watch	*watch_new(const struct plan *);

/*
 * The disk budget's start, once the session's trees hold what confine put
 * there (the copies made) and before the command can write (its filter
 * not yet handed over; the sandbox may be setting itself up meanwhile):
 * the budget as a project quota on the trees where the filesystem and
 * confine's privileges allow, else what they hold measured for the
 * watch.  NULL is fine.
 */
void		 watch_measure(struct watch *);

/* The sandbox started (rs->child, rs->limits_cgroup set): start ticking. */
void		 watch_start(struct watch *, const struct run_state *);

/* The timer's fd for poll(2), or -1 when there is nothing to tick for. */
int		 watch_fd(const struct watch *);

/*
 * The timer fired: measure; at a limit, stop the sandbox and write the
 * limit's line in rs->limit_hit (once; the watch stops ticking then).
 */
void		 watch_tick(struct watch *, struct run_state *);

/*
 * The command is gone: the last look (the trees walked again, whatever
 * the free space says; a copy that copies_unchanged says the command left
 * as it was counts what it held at start, not walked again), or the
 * quota's outcome, into rs->limit_hit, the quota lifted.  Frees the
 * watch; NULL is fine.
 */
void		 watch_end(struct watch *, struct run_state *,
		    bool copies_unchanged);

#endif
