// SPDX-License-Identifier: ISC
/*
 * procs.c - the process probes of tests/escape/procs.sh: the system calls
 * that name another process, and the process trees that try to outlive a
 * session.
 *
 * usage:
 *   procs reach PID          every call that names another process, aimed
 *                            at PID (a process the test started, or
 *                            confine): "NAME OK" or "NAME ERRNO-NAME" a
 *                            line.  The setters make a real, harmless
 *                            change: nice +1, the soft RLIMIT_NOFILE one
 *                            lower, SCHED_BATCH, io priority best-effort
 *                            7, the affinity it has; signals are 0.
 *   procs thread             the same calls aimed at a thread of its own
 *                            (by its tid: "target thread TID" first),
 *                            and pthread_setaffinity_np on it
 *   procs bench N            N calls of sched_getaffinity and getpriority
 *                            on itself by 0 and by its tid: "NAME NS" a
 *                            line, the mean time of one call
 *   procs chain N MARK       a chain of N processes (sharing one address
 *                            space), each the parent of the
 *                            next; the last prints "chain ready N"; all
 *                            wait for ever
 *   procs forkloop MARK      fork, and the parent exits, every ms (a pid
 *                            that keeps changing and re-parenting); prints
 *                            "forkloop ready" first
 *   procs forks N            N children alive at once (each waits on a
 *                            pipe), the refused forks counted: "forks
 *                            made M refused R [EAGAIN]", then all are
 *                            released and reaped (a bounded fork bomb)
 *   procs stubborn MARK      every catchable signal ignored and blocked, a
 *                            new session, a double fork; the grandchild
 *                            prints "stubborn ready" and waits for ever
 * MARK is for the test to find the processes by their command line.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_process_mrelease
#define SYS_process_mrelease	448
#endif

struct sched_attr_ {
	uint32_t	size, policy;
	uint64_t	flags;
	int32_t		nice;
	uint32_t	prio;
	uint64_t	runtime, deadline, period;
};

static void
say(const char *name, long r)
{
	const char *s = r < 0 ? strerrorname_np(errno) : "OK";

	printf("%s %s\n", name, s ? s : "E?");
	fflush(stdout);
}

#define TRY(name, call) do { errno = 0; say(name, (long)(call)); } while (0)

static long
sig0_queue(pid_t pid, bool thread)
{
	siginfo_t si = { .si_code = SI_QUEUE, .si_pid = getpid(),
	    .si_uid = getuid() };

	return thread ? syscall(SYS_rt_tgsigqueueinfo, pid, pid, 0, &si) :
	    syscall(SYS_rt_sigqueueinfo, pid, 0, &si);
}

static void
reach(pid_t v)
{
	struct rlimit rl = { 0 };
	struct sched_param sp = { 0 };
	struct sched_attr_ sa = { .size = sizeof(sa) };
	struct timespec ts;
	cpu_set_t cs;
	char buf[8];
	struct iovec local = { buf, sizeof(buf) }, remote = { (void *)8, 8 };
	struct iovec adv = { (void *)4096, 4096 };
	unsigned long mask = 1;
	int prio, pfd;

	TRY("prlimit_get", syscall(SYS_prlimit64, v, RLIMIT_NOFILE, NULL, &rl));
	if (rl.rlim_cur > 0)
		rl.rlim_cur--;
	TRY("prlimit_set", syscall(SYS_prlimit64, v, RLIMIT_NOFILE, &rl,
	    NULL));
	errno = 0;
	prio = getpriority(PRIO_PROCESS, (id_t)v);
	say("getpriority", prio == -1 && errno ? -1 : 0);
	TRY("setpriority", setpriority(PRIO_PROCESS, (id_t)v,
	    prio < 19 ? prio + 1 : 19));
	errno = 0;
	prio = getpriority(PRIO_USER, getuid());
	say("getpriority_user", prio == -1 && errno ? -1 : 0);
	CPU_ZERO(&cs);
	TRY("sched_getaffinity", sched_getaffinity(v, sizeof(cs), &cs));
	if (CPU_COUNT(&cs) == 0)
		sched_getaffinity(0, sizeof(cs), &cs);
	TRY("sched_setaffinity", sched_setaffinity(v, sizeof(cs), &cs));
	TRY("sched_getscheduler", sched_getscheduler(v));
	TRY("sched_getparam", sched_getparam(v, &sp));
	TRY("sched_setparam", sched_setparam(v, &sp));
	sp.sched_priority = 0;
	TRY("sched_setscheduler", sched_setscheduler(v, SCHED_BATCH, &sp));
	TRY("sched_getattr", syscall(SYS_sched_getattr, v, &sa, sizeof(sa), 0));
	TRY("sched_setattr", syscall(SYS_sched_setattr, v, &sa, 0));
	TRY("sched_rr_get_interval", sched_rr_get_interval(v, &ts));
	TRY("ioprio_get", syscall(SYS_ioprio_get, 1, v));
	TRY("ioprio_set", syscall(SYS_ioprio_set, 1, v, (2 << 13) | 7));
	TRY("kill", kill(v, 0));
	TRY("tgkill", syscall(SYS_tgkill, v, v, 0));
	TRY("rt_sigqueueinfo", sig0_queue(v, false));
	TRY("rt_tgsigqueueinfo", sig0_queue(v, true));
	TRY("ptrace_seize", ptrace(PTRACE_SEIZE, v, NULL, NULL));
	ptrace(PTRACE_DETACH, v, NULL, NULL);
	/* EFAULT: the call reached the process (an unmapped address). */
	TRY("process_vm_readv", process_vm_readv(v, &local, 1, &remote, 1, 0));
	TRY("process_vm_writev", process_vm_writev(v, &local, 1, &remote, 1,
	    0));
	TRY("kcmp", syscall(SYS_kcmp, getpid(), v, 0, 0, 0));
	{
		void *head;
		size_t len;

		TRY("get_robust_list", syscall(SYS_get_robust_list, v, &head,
		    &len));
	}
	/* To the nodes it is on already: nothing moves. */
	TRY("migrate_pages", syscall(SYS_migrate_pages, v, 2, &mask, &mask));
	TRY("move_pages", syscall(SYS_move_pages, v, 0, NULL, NULL, NULL, 0));
	pfd = (int)syscall(SYS_pidfd_open, v, 0);
	say("pidfd_open", pfd);
	TRY("pidfd_send_signal", syscall(SYS_pidfd_send_signal, pfd, 0, NULL,
	    0));
	TRY("pidfd_getfd", syscall(SYS_pidfd_getfd, pfd, 0, 0));
	TRY("process_madvise", syscall(SYS_process_madvise, pfd, &adv, 1,
	    MADV_COLD, 0));
	/* EINVAL: PID is not dying, nothing is released. */
	TRY("process_mrelease", syscall(SYS_process_mrelease, pfd, 0));
}

static void *
thread_idle(void *arg)
{
	pid_t *tid = arg;

	__atomic_store_n(tid, gettid(), __ATOMIC_RELEASE);
	for (;;)
		pause();
	return NULL;
}

/* The calls aimed at a thread of this process (a tid: no pid 0). */
static void
thread(void)
{
	pthread_t t;
	pid_t tid = 0;
	cpu_set_t cs;
	int e;

	if (pthread_create(&t, NULL, thread_idle, &tid) != 0) {
		perror("procs: pthread_create");
		exit(1);
	}
	while (__atomic_load_n(&tid, __ATOMIC_ACQUIRE) == 0)
		sched_yield();
	printf("target thread %d\n", (int)tid);
	reach(tid);
	CPU_ZERO(&cs);
	sched_getaffinity(0, sizeof(cs), &cs);
	e = pthread_setaffinity_np(t, sizeof(cs), &cs);
	errno = e;
	say("pthread_setaffinity_np", e ? -1 : 0);
	e = pthread_getaffinity_np(t, sizeof(cs), &cs);
	errno = e;
	say("pthread_getaffinity_np", e ? -1 : 0);
}

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* What a call by 0 (the filter passes it) and by tid (the supervisor
 * decides, on landlock) cost. */
static void
bench(long n)
{
	pid_t ids[2] = { 0, gettid() };
	const char *names[2] = { "self", "tid" };
	cpu_set_t cs;
	double t;
	long i;
	int k;

	for (k = 0; k < 2; k++) {
		t = now_ns();
		for (i = 0; i < n; i++)
			sched_getaffinity(ids[k], sizeof(cs), &cs);
		printf("sched_getaffinity_%s %.0f\n", names[k],
		    (now_ns() - t) / n);
		t = now_ns();
		for (i = 0; i < n; i++)
			getpriority(PRIO_PROCESS, (id_t)ids[k]);
		printf("getpriority_%s %.0f\n", names[k], (now_ns() - t) / n);
	}
}

static void
ready(const char *what, long n)
{
	if (n)
		printf("%s ready %ld\n", what, n);
	else
		printf("%s ready\n", what);
	fflush(stdout);
}

static _Noreturn void
idle(void)
{
	for (;;)
		pause();
}

/*
 * The chain's links share one address space (CLONE_VM): each is a process
 * of its own, the parent of the next, idle in pause(); a fork would copy
 * the page tables and chain the anonymous memory to every ancestor's, a
 * cost that grows with the depth (10,000 links: minutes).  Each link has
 * a small stack of its own.
 */
#define LINK_STACK	(32 * 1024)

static long chain_n;

static int
link_run(void *arg)
{
	long i = (long)arg;
	char *stack;

	if (i == chain_n) {
		ready("chain", chain_n);
		idle();
	}
	stack = mmap(NULL, LINK_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED ||
	    clone(link_run, stack + LINK_STACK, CLONE_VM | SIGCHLD,
	    (void *)(i + 1)) < 0) {
		printf("procs: link %ld: %s\n", i, strerror(errno));
		fflush(stdout);
		exit(1);
	}
	idle();
}

static void
chain(long n)
{
	/* A short slice (SCHED_OTHER's sched_runtime, Linux 6.12): an
	 * earlier deadline, so each new link runs soon on a loaded
	 * machine, where the chain's time is each link's wait to run. */
	struct sched_attr_ sa = { .size = sizeof(sa),
	    .policy = SCHED_OTHER, .runtime = 100 * 1000 };

	if (!getenv("PROCS_NO_SLICE"))
		(void)syscall(SYS_sched_setattr, 0, &sa, 0);
	chain_n = n < 1 ? 1 : n;
	link_run((void *)1L);
}

static void
forkloop(void)
{
	ready("forkloop", 0);
	for (;;) {
		pid_t pid = fork();

		if (pid > 0)
			_exit(0);
		/* A new pid every millisecond: enough to race a reaper
		 * without taking a core of a busy CI machine. */
		usleep(1000);
	}
}

static void
forks(long n)
{
	long made = 0, refused = 0, i;
	int fd[2], err = 0;
	char c;

	if (pipe(fd) < 0) {
		printf("procs: pipe: %s\n", strerror(errno));
		exit(1);
	}
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			close(fd[1]);
			/* Until the parent closes the pipe: EOF, or an error. */
			_exit(read(fd[0], &c, 1) < 0 ? 1 : 0);
		}
		if (pid < 0) {
			refused++;
			err = errno;
		} else
			made++;
	}
	close(fd[1]);
	while (wait(NULL) > 0)
		;
	printf("forks made %ld refused %ld%s\n", made, refused,
	    err == EAGAIN ? " EAGAIN" : err ? " other" : "");
	exit(0);
}

static void
stubborn(void)
{
	sigset_t all;
	int sig;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_IGN);
	if (fork() != 0)
		_exit(0);
	setsid();
	if (fork() != 0)
		_exit(0);
	ready("stubborn", 0);
	idle();
}

int
main(int argc, char **argv)
{
	int i;

	if (argc >= 3 && strcmp(argv[1], "reach") == 0) {
		for (i = 2; i < argc; i++) {
			printf("target %s\n", argv[i]);
			reach((pid_t)atol(argv[i]));
		}
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "thread") == 0) {
		thread();
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "bench") == 0) {
		bench(atol(argv[2]));
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "chain") == 0)
		chain(atol(argv[2]));
	else if (argc == 3 && strcmp(argv[1], "forkloop") == 0)
		forkloop();
	else if (argc == 3 && strcmp(argv[1], "stubborn") == 0)
		stubborn();
	else if (argc == 3 && strcmp(argv[1], "forks") == 0)
		forks(atol(argv[2]));
	fprintf(stderr, "usage: procs reach PID... | thread | bench N | "
	    "chain N MARK | "
	    "forkloop MARK | stubborn MARK | forks N\n");
	return 2;
}
