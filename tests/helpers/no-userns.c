// SPDX-License-Identifier: ISC
/*
 * no-userns.c - run a program under a seccomp filter that refuses to
 * create user namespaces, as a container's does (Docker's default profile):
 * clone(2) with CLONE_NEWUSER and unshare(2) fail with EPERM, clone3(2)
 * with ENOSYS (so that the C library falls back to clone).  The sysctls
 * still say yes: only trying shows it (input/host-probe.c).
 *
 * usage: no-userns [--clone3-only] PROGRAM [ARG]...
 * --clone3-only: only clone3(2) fails (ENOSYS), user namespaces are made
 * with clone(2) and unshare(2) as usual: a filter that predates clone3.
 * Exit status 127 when the filter cannot be loaded or PROGRAM run.
 *
 * MUST: change nothing but this process's filter, inherited by PROGRAM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH	AUDIT_ARCH_AARCH64
#else
#error "no-userns: add this architecture's AUDIT_ARCH"
#endif

#ifndef __NR_clone3
#define __NR_clone3	435
#endif

#define NR	offsetof(struct seccomp_data, nr)
#define ARG0LO	offsetof(struct seccomp_data, args[0])

int
main(int argc, char **argv)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, NR),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_unshare, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* CLONE_NEWUSER is in the low 32 bits of the flags. */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0LO),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_NEWUSER, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	/* --clone3-only: the clone3 jump and its ENOSYS, then allow. */
	struct sock_filter clone3_only[] = {
		insns[0], insns[1], insns[2], insns[3],
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(insns) / sizeof(insns[0]),
	    .filter = insns };

	if (argc > 1 && strcmp(argv[1], "--clone3-only") == 0) {
		prog.len = sizeof(clone3_only) / sizeof(clone3_only[0]);
		prog.filter = clone3_only;
		argv++;
		argc--;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: no-userns [--clone3-only] PROGRAM "
		    "[ARG]...\n");
		return 127;
	}
	/* Without CAP_SYS_ADMIN the kernel wants no_new_privs first. */
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0 &&
	    (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)) {
		perror("no-userns: seccomp");
		return 127;
	}
	execvp(argv[1], argv + 1);
	perror("no-userns: exec");
	return 127;
}
