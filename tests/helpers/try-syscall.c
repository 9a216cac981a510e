// SPDX-License-Identifier: ISC
/*
 * try-syscall.c - call system calls with deliberately bad arguments and say
 * how each one failed (in the manner of bubblewrap's tests/try-syscall.c).
 *
 * usage: try-syscall NAME[:PATH]...
 * Prints one line per NAME: "NAME OK" or "NAME ERRNO-NAME".  An error the
 * kernel gives about the arguments (EFAULT, EINVAL, EBADF, ENOTTY...) means
 * the call reached the kernel; EPERM, ENOSYS, EAFNOSUPPORT or
 * EPROTONOSUPPORT where the kernel would have said otherwise mean a filter
 * stopped it.  NAME:PATH gives the ioctl probes PATH (e.g. /dev/tty) in
 * place of /dev/null, and NAME:fd:N an open descriptor N.  Exit status 0 once every NAME was tried, 1 when a
 * PATH could not be opened ("NAME open-ERRNO"), 2 on a usage error.
 *
 * MUST: never change anything, even run as root outside a sandbox.  Every
 * call fails on its arguments (a pointer to an unmapped page, flags the
 * kernel rejects, fd -1) before it could act; where a kernel checks
 * privileges first, an unprivileged caller sees EPERM, which the tests
 * allow for.  personality(0xffffffff) only queries, personality(0) sets
 * the default persona of this process alone; ioctls go to a file that is
 * not a terminal unless a PATH is given, and TIOCSTI always gets a NULL
 * character pointer, so nothing is ever injected.  The socket probes make
 * sockets and close them; only unix_serve binds a name, the one given.
 *
 * Other modes, for the tests' network, fd and ABI checks:
 *   x32, i386          getpid through the x32 and the i386 (int $0x80) entry
 *                      points; a filter for the native ABI kills the process
 *   fds                the open file descriptors, "fds 0 1 2"
 *   landlock_abi       "landlock_abi N" (0 when there is none)
 *   tcp_bind           bind a TCP socket to 127.0.0.1, port 0
 *   tcp_connect:PORT   connect to 127.0.0.1:PORT over TCP
 *   udp_loop           send a datagram to itself over 127.0.0.1
 *   unix_connect:PATH  connect to a pathname unix socket (@NAME: abstract)
 *   unix_serve:PATH    listen on PATH (or @NAME), print "ready", accept
 *                      for 30 s at most
 *
 * Escape probes: real calls with good arguments, for the escape suite's
 * positive controls (outside, they must work) and its attempts (inside,
 * they must not).  Each acts only on what the test names or makes itself:
 *   ioctl_tiocsti_inject:PATH       push "confine-injected\n" into the input
 *   ioctl_tiocsti_high_inject:PATH  of the terminal PATH (plain, and with
 *                                   high bits set in the 64-bit cmd); the
 *                                   one probe that types: tests run it on
 *                                   a pty of their own
 *   ptrace_seize:PID       PTRACE_SEIZE a process the test started, detach
 *   pidfd_open:PID         a pidfd for PID, closed
 *   process_vm_readv:PID   read PID's memory at an unmapped address
 *                          (EFAULT means the call reached PID)
 *   keyring_session        the id of the session keyring, not created
 *   unshare_user           unshare(CLONE_NEWUSER) for this process alone
 *   clone3_newuser         clone3 with CLONE_NEWUSER; the child exits
 *   fsopen_tmpfs           fsopen("tmpfs"), closed, nothing mounted
 *   open_tree_clone:PATH   a detached clone of the mount at PATH, closed
 *   name_to_handle:PATH    the file handle of PATH
 *   io_uring_ring          an io_uring of 4 entries, closed
 *   i386_unshare, i386_socket, x32_unshare
 *                          unshare(CLONE_NEWUSER | 1) and socket(AF_UNIX,
 *                          99, 0) through the foreign entry points: EINVAL
 *                          where the kernel runs them
 *   ioctl_tiocsti_mask     TIOCSTI with every high bit of cmd set
 *   tfo_connect:PORT       TCP Fast Open: sendto(MSG_FASTOPEN) of "tfo" to
 *                          127.0.0.1:PORT
 *   mptcp_connect:PORT     MPTCP connect to 127.0.0.1:PORT
 *   memfd_exec:PATH [ARG...]
 *                          copy PATH into a memfd and fexecve it with the
 *                          remaining arguments (the last NAME of a run)
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <termios.h>
#include <unistd.h>

#ifndef AF_VSOCK
#define AF_VSOCK		40
#endif
#ifndef AF_ALG
#define AF_ALG			38
#endif
#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP		262
#endif
#ifndef TIOCLINUX
#define TIOCLINUX		0x541C
#endif
#ifndef __X32_SYSCALL_BIT
#define __X32_SYSCALL_BIT	0x40000000
#endif
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN		0x20000000
#endif
#ifndef CLONE_NEWUSER
#define CLONE_NEWUSER		0x10000000
#endif
#define FSOPEN_CLOEXEC_		0x1
#define OPEN_TREE_CLONE_	0x1
#define OPEN_TREE_CLOEXEC_	O_CLOEXEC
#define AT_RECURSIVE_		0x8000
#define KEYCTL_GET_KEYRING_ID_	0
#define KEY_SPEC_SESSION_KEYRING_	(-3)
#define NR_I386_UNSHARE		310
#define NR_I386_SOCKET		359
#define NR_X32_UNSHARE		272
#define INJECTED		"confine-injected\n"
#define UFFD_USER_MODE_ONLY_	1
#define LL_CREATE_VERSION	1
#define NR_LANDLOCK_CREATE	444

/* The first page is never mapped: the kernel answers EFAULT. */
#define BAD	((void *)8)
#define BADL	8L
/* A socket type the kernel rejects before it looks at the family. */
#define BAD_SOCK_TYPE	99

struct ctx {
	const char	*arg;	/* the text after "NAME:", or NULL */
	int		 fd;	/* a file that is not a terminal, or PATH */
};

struct probe {
	const char	*name;
	long		(*fn)(struct ctx *);
};

static long
p_keyctl(struct ctx *c)
{
	(void)c;
	return syscall(SYS_keyctl, 0x7fffffffL, 0L, 0L, 0L, 0L);
}

static long
p_add_key(struct ctx *c)
{
	(void)c;
	return syscall(SYS_add_key, BAD, BAD, NULL, 0L, 0L);
}

static long
p_request_key(struct ctx *c)
{
	(void)c;
	return syscall(SYS_request_key, BAD, BAD, NULL, 0L);
}

static long
p_bpf(struct ctx *c)
{
	(void)c;
	return syscall(SYS_bpf, 0x7fffL, BAD, 8L);
}

static long
p_perf_event_open(struct ctx *c)
{
	(void)c;
	return syscall(SYS_perf_event_open, BAD, 0L, -1L, -1L, 0L);
}

static long
p_userfaultfd(struct ctx *c)
{
	(void)c;
	/* User-mode-only passes the sysctl check; O_RDWR is not a flag. */
	return syscall(SYS_userfaultfd, (long)(UFFD_USER_MODE_ONLY_ | O_RDWR));
}

static long
p_io_uring_setup(struct ctx *c)
{
	(void)c;
	return syscall(SYS_io_uring_setup, 1L, BAD);
}

static long
p_io_uring_enter(struct ctx *c)
{
	(void)c;
	return syscall(SYS_io_uring_enter, -1L, 0L, 0L, 0L, NULL, 0L);
}

static long
p_io_uring_register(struct ctx *c)
{
	(void)c;
	return syscall(SYS_io_uring_register, -1L, 0L, NULL, 0L);
}

static long
p_kexec_load(struct ctx *c)
{
	(void)c;
	/* Too many segments and an unknown flag: never an unload. */
	return syscall(SYS_kexec_load, 0L, 0xffffL, BAD, 0x100L);
}

static long
p_init_module(struct ctx *c)
{
	(void)c;
	/* A zero-length image is rejected as ENOEXEC. */
	return syscall(SYS_init_module, BAD, 0L, BAD);
}

static long
p_finit_module(struct ctx *c)
{
	(void)c;
	return syscall(SYS_finit_module, -1L, BAD, 0x7fff0000L);
}

static long
p_delete_module(struct ctx *c)
{
	(void)c;
	return syscall(SYS_delete_module, BAD, (long)O_NONBLOCK);
}

static long
p_reboot(struct ctx *c)
{
	(void)c;
	/* Wrong magic numbers: EINVAL before the command is looked at. */
	return syscall(SYS_reboot, 0L, 0L, 0L, NULL);
}

static long
p_swapon(struct ctx *c)
{
	(void)c;
	return syscall(SYS_swapon, BAD, 0x7fffffffL);
}

static long
p_swapoff(struct ctx *c)
{
	(void)c;
	return syscall(SYS_swapoff, BAD);
}

static long
p_acct(struct ctx *c)
{
	(void)c;
	/* Never NULL: that would switch accounting off. */
	return syscall(SYS_acct, BAD);
}

static long
p_quotactl(struct ctx *c)
{
	(void)c;
	/* Quota type 99 does not exist. */
	return syscall(SYS_quotactl, (long)((0x800004U << 8) | 99U), BAD,
	    0L, BAD);
}

static long
p_syslog(struct ctx *c)
{
	(void)c;
	return syscall(SYS_syslog, 9999L, NULL, 0L);
}

static long
p_mount(struct ctx *c)
{
	(void)c;
	return syscall(SYS_mount, BAD, BAD, BAD, 0L, NULL);
}

static long
p_umount2(struct ctx *c)
{
	(void)c;
	return syscall(SYS_umount2, BAD, 0x40000000L);
}

static long
p_pivot_root(struct ctx *c)
{
	(void)c;
	return syscall(SYS_pivot_root, BAD, BAD);
}

static long
p_chroot(struct ctx *c)
{
	(void)c;
	return syscall(SYS_chroot, BAD);
}

static long
p_setns(struct ctx *c)
{
	(void)c;
	return syscall(SYS_setns, -1L, 0L);
}

static long
p_unshare(struct ctx *c)
{
	(void)c;
	/* Bit 0 is not an unshare flag: EINVAL before anything is done. */
	return syscall(SYS_unshare, (long)(CLONE_NEWNS | CLONE_NEWUSER | 1));
}

/*
 * clone(2) with a namespace flag and CLONE_SIGHAND without CLONE_VM, which
 * copy_process() rejects first.  Should one ever succeed, the child leaves.
 */
static long
try_clone(unsigned long ns)
{
	long r = syscall(SYS_clone, (long)(ns | CLONE_SIGHAND | SIGCHLD),
	    NULL, NULL, NULL, 0L);

	if (r == 0)
		_exit(0);
	if (r > 0) {
		waitpid((pid_t)r, NULL, 0);
		return 0;
	}
	return r;
}

static long
p_clone_newuser(struct ctx *c)
{
	(void)c;
	return try_clone(CLONE_NEWUSER);
}

static long
p_clone_newns(struct ctx *c)
{
	(void)c;
	return try_clone(CLONE_NEWNS);
}

static long
p_clone_newnet(struct ctx *c)
{
	(void)c;
	return try_clone(CLONE_NEWNET);
}

static long
p_clone_newpid(struct ctx *c)
{
	(void)c;
	return try_clone(CLONE_NEWPID);
}

static long
p_clone_newipc(struct ctx *c)
{
	(void)c;
	return try_clone(CLONE_NEWIPC);
}

static long
p_clone_newuts(struct ctx *c)
{
	(void)c;
	return try_clone(CLONE_NEWUTS);
}

static long
p_clone_newcgroup(struct ctx *c)
{
	(void)c;
	return try_clone(CLONE_NEWCGROUP);
}

static long
p_clone3(struct ctx *c)
{
	(void)c;
	/* A size below the first version of struct clone_args. */
	return syscall(SYS_clone3, NULL, 0L);
}

static long
p_open_tree(struct ctx *c)
{
	(void)c;
	return syscall(SYS_open_tree, -1L, BAD, 0x7f000000L);
}

static long
p_move_mount(struct ctx *c)
{
	(void)c;
	return syscall(SYS_move_mount, -1L, BAD, -1L, BAD, 0x7f000000L);
}

static long
p_fsopen(struct ctx *c)
{
	(void)c;
	return syscall(SYS_fsopen, BAD, 0x7f000000L);
}

static long
p_fsconfig(struct ctx *c)
{
	(void)c;
	return syscall(SYS_fsconfig, -1L, 0x7fffL, NULL, NULL, 0L);
}

static long
p_fsmount(struct ctx *c)
{
	(void)c;
	return syscall(SYS_fsmount, -1L, 0x7f000000L, 0x7f000000L);
}

static long
p_fspick(struct ctx *c)
{
	(void)c;
	return syscall(SYS_fspick, -1L, BAD, 0x7f000000L);
}

static long
p_mount_setattr(struct ctx *c)
{
	(void)c;
	return syscall(SYS_mount_setattr, -1L, BAD, 0x7f000000L, NULL, 0L);
}

static long
p_personality(struct ctx *c)
{
	long r;

	(void)c;
	/* 0xffffffff asks for the current persona and changes nothing. */
	r = syscall(SYS_personality, 0xffffffffL);
	return r < 0 ? r : 0;
}

static long
p_personality_zero(struct ctx *c)
{
	long r;

	(void)c;
	/* PER_LINUX, the default: allowed, and changes nothing here. */
	r = syscall(SYS_personality, 0L);
	return r < 0 ? r : 0;
}

static long
p_ioctl_tiocsti(struct ctx *c)
{
	return syscall(SYS_ioctl, (long)c->fd, (long)TIOCSTI, NULL);
}

static long
p_ioctl_tiocsti_high(struct ctx *c)
{
	/* The kernel takes the low 32 bits of cmd; a filter must too. */
	return syscall(SYS_ioctl, (long)c->fd,
	    (long)((1UL << 32) | TIOCSTI), NULL);
}

static long
p_ioctl_tioclinux(struct ctx *c)
{
	return syscall(SYS_ioctl, (long)c->fd, (long)TIOCLINUX, NULL);
}

static long
p_ioctl_tioclinux_high(struct ctx *c)
{
	return syscall(SYS_ioctl, (long)c->fd,
	    (long)((1UL << 32) | TIOCLINUX), NULL);
}

static long
sock(int family, int type, int proto)
{
	int fd = socket(family, type, proto);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static long
p_socket_packet(struct ctx *c)
{
	(void)c;
	return sock(AF_PACKET, BAD_SOCK_TYPE, 0);
}

static long
p_socket_vsock(struct ctx *c)
{
	(void)c;
	return sock(AF_VSOCK, BAD_SOCK_TYPE, 0);
}

static long
p_socket_alg(struct ctx *c)
{
	(void)c;
	return sock(AF_ALG, BAD_SOCK_TYPE, 0);
}

static long
p_socket_mptcp(struct ctx *c)
{
	(void)c;
	return sock(AF_INET, SOCK_STREAM, IPPROTO_MPTCP);
}

static long
p_socket_unix(struct ctx *c)
{
	(void)c;
	return sock(AF_UNIX, SOCK_STREAM, 0);
}

static long
p_socket_inet(struct ctx *c)
{
	(void)c;
	return sock(AF_INET, SOCK_STREAM, 0);
}

static long
p_socket_inet6(struct ctx *c)
{
	(void)c;
	return sock(AF_INET6, SOCK_DGRAM, 0);
}

static long
p_socket_netlink(struct ctx *c)
{
	(void)c;
	return sock(AF_NETLINK, SOCK_RAW, 0);
}

static long
p_name_to_handle_at(struct ctx *c)
{
	(void)c;
	return syscall(SYS_name_to_handle_at, -1L, BAD, BAD, BAD,
	    0x7f000000L);
}

static long
p_open_by_handle_at(struct ctx *c)
{
	(void)c;
	return syscall(SYS_open_by_handle_at, -1L, BAD, 0L);
}

static long
p_x32(struct ctx *c)
{
	(void)c;
	return syscall(__X32_SYSCALL_BIT | SYS_getpid);
}

static long
p_i386(struct ctx *c)
{
#if defined(__x86_64__)
	long r = 20;		/* getpid in the i386 table */

	(void)c;
	__asm__ volatile ("int $0x80" : "+a" (r) : :
	    "r8", "r9", "r10", "r11", "memory", "cc");
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return 0;
#else
	(void)c;
	errno = ENOSYS;
	return -1;
#endif
}

static long
p_fds(struct ctx *c)
{
	int fd;

	(void)c;
	/* The probe's own fd is closed here: it is not the command's. */
	if (c->fd > 2)
		close(c->fd);
	c->fd = -1;
	fputs("fds", stdout);
	for (fd = 0; fd < 4096; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			printf(" %d", fd);
	putchar('\n');
	return 1;
}

static long
p_landlock_abi(struct ctx *c)
{
	long abi = syscall(NR_LANDLOCK_CREATE, NULL, 0L, LL_CREATE_VERSION);

	(void)c;
	printf("landlock_abi %ld\n", abi < 0 ? 0 : abi);
	return 1;
}

static void
loopback(struct sockaddr_in *sin, int port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)port);
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
}

static long
p_tcp_bind(struct ctx *c)
{
	struct sockaddr_in sin;
	int fd, r, err;

	(void)c;
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
		return -1;
	loopback(&sin, 0);
	r = bind(fd, (struct sockaddr *)&sin, sizeof(sin));
	err = errno;
	close(fd);
	errno = err;
	return r;
}

static long
p_tcp_connect(struct ctx *c)
{
	struct sockaddr_in sin;
	int fd, r, err;

	if (c->arg == NULL) {
		errno = EINVAL;
		return -1;
	}
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
		return -1;
	loopback(&sin, atoi(c->arg));
	r = connect(fd, (struct sockaddr *)&sin, sizeof(sin));
	err = errno;
	close(fd);
	errno = err;
	return r;
}

static long
p_udp_loop(struct ctx *c)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	char buf[8];
	int fd, err;
	long r = -1;

	(void)c;
	if ((fd = socket(AF_INET, SOCK_DGRAM, 0)) < 0)
		return -1;
	loopback(&sin, 0);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sin, &len) == 0 &&
	    sendto(fd, "ping", 4, 0, (struct sockaddr *)&sin, len) == 4 &&
	    recv(fd, buf, sizeof(buf), 0) == 4)
		r = memcmp(buf, "ping", 4) == 0 ? 0 : (errno = EIO, -1);
	err = errno;
	close(fd);
	errno = err;
	return r;
}

/* PATH, or @NAME for the abstract NAME; returns the address's length. */
static int
unix_addr(const char *path, struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (path == NULL || strlen(path) >= sizeof(sun->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sun->sun_path, path);
	if (path[0] != '@')
		return (int)sizeof(*sun);
	sun->sun_path[0] = '\0';
	return (int)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
}

static long
p_unix_connect(struct ctx *c)
{
	struct sockaddr_un sun;
	int fd, r, err, len;

	if ((len = unix_addr(c->arg, &sun)) < 0)
		return -1;
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) < 0)
		return -1;
	r = connect(fd, (struct sockaddr *)&sun, (socklen_t)len);
	err = errno;
	close(fd);
	errno = err;
	return r;
}

static long
p_unix_serve(struct ctx *c)
{
	struct sockaddr_un sun;
	int fd, cl, len;

	if ((len = unix_addr(c->arg, &sun)) < 0)
		return -1;
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sun, (socklen_t)len) < 0 ||
	    listen(fd, 8) < 0)
		return -1;
	/* Bounded: a test that forgets to stop us does not hang anything. */
	alarm(30);
	printf("ready\n");
	fflush(stdout);
	while ((cl = accept(fd, NULL, NULL)) >= 0 || errno == EINTR)
		if (cl >= 0)
			close(cl);
	return -1;
}

static long
inject(int fd, unsigned long hi)
{
	const char *p;

	for (p = INJECTED; *p != '\0'; p++)
		if (syscall(SYS_ioctl, (long)fd, (long)(hi | TIOCSTI), p) < 0)
			return -1;
	return 0;
}

static long
p_ioctl_tiocsti_inject(struct ctx *c)
{
	return inject(c->fd, 0);
}

static long
p_ioctl_tiocsti_high_inject(struct ctx *c)
{
	return inject(c->fd, 1UL << 32);
}

static long
p_ioctl_tiocsti_mask(struct ctx *c)
{
	return syscall(SYS_ioctl, (long)c->fd,
	    (long)(0xffffffff00000000UL | TIOCSTI), NULL);
}

static long
target_pid(struct ctx *c)
{
	if (c->arg == NULL || atol(c->arg) <= 0) {
		errno = EINVAL;
		return -1;
	}
	return atol(c->arg);
}

static long
p_ptrace_seize(struct ctx *c)
{
	long pid;

	if ((pid = target_pid(c)) < 0)
		return -1;
	if (ptrace(PTRACE_SEIZE, (pid_t)pid, NULL, NULL) < 0)
		return -1;
	/* PTRACE_SEIZE stops nothing; detaching leaves PID as it was. */
	ptrace(PTRACE_DETACH, (pid_t)pid, NULL, NULL);
	return 0;
}

static long
p_pidfd_open(struct ctx *c)
{
	long pid, fd;

	if ((pid = target_pid(c)) < 0)
		return -1;
	if ((fd = syscall(SYS_pidfd_open, pid, 0L)) < 0)
		return -1;
	close((int)fd);
	return 0;
}

static long
p_process_vm_readv(struct ctx *c)
{
	char buf[8];
	struct iovec local = { buf, sizeof(buf) };
	struct iovec remote = { BAD, sizeof(buf) };
	long pid;

	if ((pid = target_pid(c)) < 0)
		return -1;
	return syscall(SYS_process_vm_readv, pid, &local, 1L, &remote, 1L,
	    0L);
}

static long
p_keyring_session(struct ctx *c)
{
	long r;

	(void)c;
	r = syscall(SYS_keyctl, (long)KEYCTL_GET_KEYRING_ID_,
	    (long)KEY_SPEC_SESSION_KEYRING_, 0L);
	return r < 0 ? r : 0;
}

static long
p_unshare_user(struct ctx *c)
{
	(void)c;
	return syscall(SYS_unshare, (long)CLONE_NEWUSER);
}

static long
p_clone3_newuser(struct ctx *c)
{
	struct clone_args args;
	long r;

	(void)c;
	memset(&args, 0, sizeof(args));
	args.flags = CLONE_NEWUSER;
	args.exit_signal = SIGCHLD;
	r = syscall(SYS_clone3, &args, sizeof(args));
	if (r == 0)
		_exit(0);
	if (r > 0) {
		waitpid((pid_t)r, NULL, 0);
		return 0;
	}
	return r;
}

static long
p_fsopen_tmpfs(struct ctx *c)
{
	long fd;

	(void)c;
	if ((fd = syscall(SYS_fsopen, "tmpfs", (long)FSOPEN_CLOEXEC_)) < 0)
		return -1;
	close((int)fd);
	return 0;
}

static long
p_open_tree_clone(struct ctx *c)
{
	long fd;

	fd = syscall(SYS_open_tree, (long)AT_FDCWD, c->arg ? c->arg : "/",
	    (long)(OPEN_TREE_CLONE_ | OPEN_TREE_CLOEXEC_ | AT_RECURSIVE_));
	if (fd < 0)
		return -1;
	close((int)fd);
	return 0;
}

static long
p_name_to_handle(struct ctx *c)
{
	union {
		struct file_handle	fh;
		char			buf[sizeof(struct file_handle) + 128];
	} u;
	int mount_id;

	u.fh.handle_bytes = 128;
	return syscall(SYS_name_to_handle_at, (long)AT_FDCWD,
	    c->arg ? c->arg : "/", &u.fh, &mount_id, 0L);
}

static long
p_io_uring_ring(struct ctx *c)
{
	char params[120];	/* struct io_uring_params, zeroed */
	long fd;

	(void)c;
	memset(params, 0, sizeof(params));
	if ((fd = syscall(SYS_io_uring_setup, 4L, params)) < 0)
		return -1;
	close((int)fd);
	return 0;
}

static long
int80(long nr, long a, long b, long d)
{
#if defined(__x86_64__)
	long r = nr;

	__asm__ volatile ("int $0x80" : "+a" (r) : "b" (a), "c" (b), "d" (d)
	    : "r8", "r9", "r10", "r11", "memory", "cc");
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return 0;
#else
	(void)nr;
	(void)a;
	(void)b;
	(void)d;
	errno = ENOSYS;
	return -1;
#endif
}

static long
p_i386_unshare(struct ctx *c)
{
	(void)c;
	return int80(NR_I386_UNSHARE, (long)(CLONE_NEWUSER | 1), 0L, 0L);
}

static long
p_i386_socket(struct ctx *c)
{
	(void)c;
	return int80(NR_I386_SOCKET, (long)AF_UNIX, (long)BAD_SOCK_TYPE, 0L);
}

static long
p_x32_unshare(struct ctx *c)
{
	(void)c;
	return syscall(__X32_SYSCALL_BIT | NR_X32_UNSHARE,
	    (long)(CLONE_NEWUSER | 1));
}

static long
p_tfo_connect(struct ctx *c)
{
	struct sockaddr_in sin;
	int fd, err;
	long r;

	if (c->arg == NULL) {
		errno = EINVAL;
		return -1;
	}
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
		return -1;
	loopback(&sin, atoi(c->arg));
	r = sendto(fd, "tfo", 3, MSG_FASTOPEN, (struct sockaddr *)&sin,
	    sizeof(sin));
	err = errno;
	close(fd);
	errno = err;
	return r < 0 ? -1 : 0;
}

static long
p_mptcp_connect(struct ctx *c)
{
	struct sockaddr_in sin;
	int fd, r, err;

	if (c->arg == NULL) {
		errno = EINVAL;
		return -1;
	}
	if ((fd = socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP)) < 0)
		return -1;
	loopback(&sin, atoi(c->arg));
	r = connect(fd, (struct sockaddr *)&sin, sizeof(sin));
	err = errno;
	close(fd);
	errno = err;
	return r;
}

static const struct probe probes[] = {
	{ "keyctl", p_keyctl },
	{ "add_key", p_add_key },
	{ "request_key", p_request_key },
	{ "bpf", p_bpf },
	{ "perf_event_open", p_perf_event_open },
	{ "userfaultfd", p_userfaultfd },
	{ "io_uring_setup", p_io_uring_setup },
	{ "io_uring_enter", p_io_uring_enter },
	{ "io_uring_register", p_io_uring_register },
	{ "kexec_load", p_kexec_load },
	{ "init_module", p_init_module },
	{ "finit_module", p_finit_module },
	{ "delete_module", p_delete_module },
	{ "reboot", p_reboot },
	{ "swapon", p_swapon },
	{ "swapoff", p_swapoff },
	{ "acct", p_acct },
	{ "quotactl", p_quotactl },
	{ "syslog", p_syslog },
	{ "mount", p_mount },
	{ "umount2", p_umount2 },
	{ "pivot_root", p_pivot_root },
	{ "chroot", p_chroot },
	{ "setns", p_setns },
	{ "unshare", p_unshare },
	{ "clone_newuser", p_clone_newuser },
	{ "clone_newns", p_clone_newns },
	{ "clone_newnet", p_clone_newnet },
	{ "clone_newpid", p_clone_newpid },
	{ "clone_newipc", p_clone_newipc },
	{ "clone_newuts", p_clone_newuts },
	{ "clone_newcgroup", p_clone_newcgroup },
	{ "clone3", p_clone3 },
	{ "open_tree", p_open_tree },
	{ "move_mount", p_move_mount },
	{ "fsopen", p_fsopen },
	{ "fsconfig", p_fsconfig },
	{ "fsmount", p_fsmount },
	{ "fspick", p_fspick },
	{ "mount_setattr", p_mount_setattr },
	{ "personality", p_personality },
	{ "personality_zero", p_personality_zero },
	{ "ioctl_tiocsti", p_ioctl_tiocsti },
	{ "ioctl_tiocsti_high", p_ioctl_tiocsti_high },
	{ "ioctl_tioclinux", p_ioctl_tioclinux },
	{ "ioctl_tioclinux_high", p_ioctl_tioclinux_high },
	{ "socket_packet", p_socket_packet },
	{ "socket_vsock", p_socket_vsock },
	{ "socket_alg", p_socket_alg },
	{ "socket_mptcp", p_socket_mptcp },
	{ "socket_unix", p_socket_unix },
	{ "socket_inet", p_socket_inet },
	{ "socket_inet6", p_socket_inet6 },
	{ "socket_netlink", p_socket_netlink },
	{ "name_to_handle_at", p_name_to_handle_at },
	{ "open_by_handle_at", p_open_by_handle_at },
	{ "x32", p_x32 },
	{ "i386", p_i386 },
	{ "fds", p_fds },
	{ "landlock_abi", p_landlock_abi },
	{ "tcp_bind", p_tcp_bind },
	{ "tcp_connect", p_tcp_connect },
	{ "udp_loop", p_udp_loop },
	{ "unix_connect", p_unix_connect },
	{ "unix_serve", p_unix_serve },
	{ "ioctl_tiocsti_inject", p_ioctl_tiocsti_inject },
	{ "ioctl_tiocsti_high_inject", p_ioctl_tiocsti_high_inject },
	{ "ioctl_tiocsti_mask", p_ioctl_tiocsti_mask },
	{ "ptrace_seize", p_ptrace_seize },
	{ "pidfd_open", p_pidfd_open },
	{ "process_vm_readv", p_process_vm_readv },
	{ "keyring_session", p_keyring_session },
	{ "unshare_user", p_unshare_user },
	{ "clone3_newuser", p_clone3_newuser },
	{ "fsopen_tmpfs", p_fsopen_tmpfs },
	{ "open_tree_clone", p_open_tree_clone },
	{ "name_to_handle", p_name_to_handle },
	{ "io_uring_ring", p_io_uring_ring },
	{ "i386_unshare", p_i386_unshare },
	{ "i386_socket", p_i386_socket },
	{ "x32_unshare", p_x32_unshare },
	{ "tfo_connect", p_tfo_connect },
	{ "mptcp_connect", p_mptcp_connect },
};

static const char *
errname(int err)
{
	const char *s = strerrorname_np(err);
	static char buf[32];

	if (s)
		return s;
	snprintf(buf, sizeof(buf), "E%d", err);
	return buf;
}

static int
run(const char *spec)
{
	const char *colon = strchr(spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
	const char *path = "/dev/null";
	struct ctx c = { .arg = colon ? colon + 1 : NULL, .fd = -1 };
	size_t i;
	long r;

	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		if (strlen(probes[i].name) != n ||
		    strncmp(probes[i].name, spec, n) != 0)
			continue;
		if (strncmp(spec, "ioctl_", 6) == 0 && c.arg)
			path = c.arg;
		/* fd:N: a descriptor already open, such as stdout. */
		if (strncmp(path, "fd:", 3) == 0)
			c.fd = fcntl(atoi(path + 3), F_DUPFD_CLOEXEC, 3);
		/* O_NOCTTY: opening a terminal must not adopt it. */
		else if ((c.fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0 &&
		    (c.fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC)) < 0)
			c.fd = -1;
		if (c.fd < 0) {
			printf("%.*s open-%s\n", (int)n, spec, errname(errno));
			return 1;
		}
		fflush(stdout);
		errno = 0;
		r = probes[i].fn(&c);
		if (r == 0)
			printf("%.*s OK\n", (int)n, spec);
		else if (r < 0)
			printf("%.*s %s\n", (int)n, spec, errname(errno));
		fflush(stdout);
		if (c.fd >= 0)
			close(c.fd);
		return 0;
	}
	fprintf(stderr, "try-syscall: unknown name '%.*s'\n", (int)n, spec);
	return 2;
}

/*
 * memfd_exec:PATH [ARG...]: run a copy of PATH from an anonymous file, as
 * a program that cannot write an executable file could; argv[0] is PATH.
 * Returns only on failure.
 */
static int
memfd_exec(const char *path, char **argv)
{
	char buf[65536];
	ssize_t n;
	int in, fd;

	if ((in = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		printf("memfd_exec open-%s\n", errname(errno));
		return 1;
	}
	if ((fd = (int)syscall(SYS_memfd_create, "confine-probe", 0L)) < 0) {
		printf("memfd_exec %s\n", errname(errno));
		close(in);
		return 0;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n) {
			printf("memfd_exec write-%s\n", errname(errno));
			return 1;
		}
	close(in);
	fflush(stdout);
	argv[0] = (char *)path;
	fexecve(fd, argv, environ);
	printf("memfd_exec %s\n", errname(errno));
	return 0;
}

int
main(int argc, char **argv)
{
	int i, r, status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: try-syscall NAME[:ARG]...\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "memfd_exec:", 11) == 0)
			return memfd_exec(argv[i] + 11, argv + i);
		if ((r = run(argv[i])) > status)
			status = r;
	}
	return status;
}
