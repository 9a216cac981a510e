// SPDX-License-Identifier: ISC
/*
 * policy/plan-wire.c - the inner stage's plan, as a flat list of fields: each integer
 * 8 bytes (host order: the same binary on both ends), each string its
 * length then its bytes, each list its count then its items.
 *
 * Runs in: the supervisor and the inner stage.
 * MUST: decode with bounds on every length; anything left over or short
 * is -EBADMSG.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/util.h"
#include "policy/plan-wire.h"

#define STAGE_MAGIC	0x636f6e66696e6531ULL	/* "confine1" */

static void
put_u64(FILE *f, uint64_t v)
{
	fwrite(&v, sizeof(v), 1, f);
}

static void
put_str(FILE *f, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	put_u64(f, s ? n : UINT64_MAX);
	if (s)
		fwrite(s, 1, n, f);
}

static void
put_strv(FILE *f, char *const *v)
{
	size_t n = v ? strv_len(v) : 0, i;

	put_u64(f, v ? n : UINT64_MAX);
	for (i = 0; i < n; i++)
		put_str(f, v[i]);
}

int
stage_write(const struct plan *p, const struct stage_run *run, FILE *f)
{
	size_t i;

	put_u64(f, STAGE_MAGIC);
	put_strv(f, p->argv);
	put_strv(f, p->envp);
	put_str(f, p->cwd);
	put_u64(f, (uint64_t)p->net);
	put_u64(f, p->tty.pty);
	for (i = 0; i < 3; i++)
		put_u64(f, p->tty.is_tty[i]);
	put_u64(f, sizeof(p->tty.termios));
	fwrite(&p->tty.termios, sizeof(p->tty.termios), 1, f);
	put_u64(f, sizeof(p->tty.winsize));
	fwrite(&p->tty.winsize, sizeof(p->tty.winsize), 1, f);
	put_u64(f, (uint64_t)p->landlock.abi);
	put_u64(f, p->landlock.handled_fs);
	put_u64(f, p->landlock.handled_net);
	put_u64(f, p->landlock.scoped);
	put_u64(f, p->landlock.connect_port);
	put_u64(f, p->landlock.connect_port2);
	put_u64(f, p->keyholder_port);
	put_u64(f, p->landlock.npaths);
	for (i = 0; i < p->landlock.npaths; i++) {
		put_str(f, p->landlock.paths[i].path);
		put_u64(f, p->landlock.paths[i].access);
		put_strv(f, p->landlock.paths[i].except);
	}
	put_u64(f, p->limits.memory);
	put_u64(f, p->limits.tasks);
	put_u64(f, p->limits.cpu_millis);
	put_u64(f, p->limits.disk);
	put_u64(f, p->limits.asked);
	put_u64(f, p->limits.disk_reserve);
	put_u64(f, p->limits.nproc);
	put_u64(f, (uint64_t)(int64_t)p->limits.nice);
	/* The run's state, after the plan's fields. */
	put_u64(f, (uint64_t)p->backend);
	put_u64(f, p->nsteps);
	for (i = 0; i < p->nsteps; i++) {
		put_u64(f, (uint64_t)p->steps[i].id);
		put_u64(f, (uint64_t)p->steps[i].by);
		put_u64(f, (uint64_t)p->steps[i].in);
	}
	put_u64(f, (uint64_t)run->start_after.tv_sec);
	put_u64(f, (uint64_t)run->start_after.tv_nsec);
	put_u64(f, (uint64_t)(int64_t)run->log_level);
	put_u64(f, STAGE_MAGIC);
	return ferror(f) ? -EIO : 0;
}

struct rd {
	const char	*p;
	size_t		 left;
	bool		 bad;
};

static uint64_t
get_u64(struct rd *r)
{
	uint64_t v = 0;

	if (r->left < sizeof(v)) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->p, sizeof(v));
	r->p += sizeof(v);
	r->left -= sizeof(v);
	return v;
}

/* A struct of exactly len bytes, as put by stage_write. */
static void
get_bytes(struct rd *r, void *dst, size_t len)
{
	if (get_u64(r) != len || r->left < len) {
		r->bad = true;
		return;
	}
	memcpy(dst, r->p, len);
	r->p += len;
	r->left -= len;
}

static char *
get_str(struct rd *r)
{
	uint64_t n = get_u64(r);
	char *s;

	if (r->bad || n == UINT64_MAX)
		return NULL;
	if (n > r->left) {
		r->bad = true;
		return NULL;
	}
	s = xstrndup(r->p, (size_t)n);
	if (strlen(s) != n)
		r->bad = true;	/* a NUL inside */
	r->p += n;
	r->left -= n;
	return s;
}

static char **
get_strv(struct rd *r)
{
	uint64_t n = get_u64(r), i;
	char **v;

	if (r->bad || n == UINT64_MAX)
		return NULL;
	if (n > r->left / sizeof(uint64_t)) {
		r->bad = true;
		return NULL;
	}
	v = xcalloc((size_t)n + 1, sizeof(*v));
	for (i = 0; i < n && !r->bad; i++)
		if ((v[i] = get_str(r)) == NULL)
			r->bad = true;
	return v;
}

int
stage_decode(const char *buf, size_t len, struct plan *p,
    struct stage_run *ret_run)
{
	struct rd r = { .p = buf, .left = len };
	struct timespec start = { 0 };
	uint64_t n, i;
	int64_t nice;
	int level;

	memset(p, 0, sizeof(*p));
	if (get_u64(&r) != STAGE_MAGIC)
		return -EBADMSG;
	p->argv = get_strv(&r);
	p->envp = get_strv(&r);
	p->cwd = get_str(&r);
	p->net = (enum plan_net)get_u64(&r);
	p->tty.pty = get_u64(&r) != 0;
	for (i = 0; i < 3; i++)
		p->tty.is_tty[i] = get_u64(&r) != 0;
	get_bytes(&r, &p->tty.termios, sizeof(p->tty.termios));
	get_bytes(&r, &p->tty.winsize, sizeof(p->tty.winsize));
	p->landlock.abi = (int)get_u64(&r);
	p->landlock.handled_fs = get_u64(&r);
	p->landlock.handled_net = get_u64(&r);
	p->landlock.scoped = get_u64(&r);
	p->landlock.connect_port = (unsigned int)get_u64(&r);
	p->landlock.connect_port2 = (unsigned int)get_u64(&r);
	p->keyholder_port = (unsigned int)get_u64(&r);
	n = get_u64(&r);
	if (!r.bad && n <= r.left / sizeof(uint64_t)) {
		p->landlock.paths = xcalloc((size_t)n + 1,
		    sizeof(*p->landlock.paths));
		for (i = 0; i < n && !r.bad; i++) {
			struct plan_path *pp = &p->landlock.paths[i];

			p->landlock.npaths++;
			pp->path = get_str(&r);
			pp->access = (unsigned int)get_u64(&r);
			pp->except = get_strv(&r);
			if (pp->path == NULL || pp->path[0] != '/')
				r.bad = true;
		}
	} else
		r.bad = true;
	p->limits.memory = get_u64(&r);
	p->limits.tasks = get_u64(&r);
	p->limits.cpu_millis = get_u64(&r);
	p->limits.disk = get_u64(&r);
	n = get_u64(&r);
	p->limits.asked = (unsigned int)n;
	if (n & ~(uint64_t)(PLAN_LIMIT_MEMORY | PLAN_LIMIT_TASKS |
	    PLAN_LIMIT_CPUS | PLAN_LIMIT_DISK))
		r.bad = true;
	p->limits.disk_reserve = get_u64(&r);
	p->limits.nproc = get_u64(&r);
	nice = (int64_t)get_u64(&r);
	if (nice < 0 || nice > 19)
		r.bad = true;
	p->limits.nice = (int)nice;
	p->backend = (enum plan_backend)get_u64(&r);
	n = get_u64(&r);
	if (n > nitems(p->steps))
		r.bad = true;
	for (i = 0; i < n && !r.bad; i++) {
		struct plan_step *s = &p->steps[p->nsteps++];

		s->id = (enum plan_step_id)get_u64(&r);
		s->by = (enum plan_step_by)get_u64(&r);
		s->in = (enum plan_step_in)get_u64(&r);
		if (s->id >= STEP_COUNT || s->by > STEP_BY_BWRAP_CHECKED ||
		    s->in > STEP_IN_COMMAND)
			r.bad = true;
	}
	start.tv_sec = (time_t)get_u64(&r);
	start.tv_nsec = (long)get_u64(&r);
	level = (int)(int64_t)get_u64(&r);
	if (get_u64(&r) != STAGE_MAGIC || r.left != 0 || p->argv == NULL ||
	    p->argv[0] == NULL || p->envp == NULL || p->cwd == NULL ||
	    p->net > PLAN_NET_HOST || p->backend > PLAN_BACKEND_LANDLOCK ||
	    level < LOG_QUIET || level > LOG_DEBUG)
		r.bad = true;
	if (r.bad) {
		plan_free(p);
		return -EBADMSG;
	}
	ret_run->start_after = start;
	ret_run->log_level = level;
	return 0;
}
