// SPDX-License-Identifier: ISC
/*
 * git2-init.c - git_libgit2_init() and git_libgit2_shutdown(), nothing
 * else, linked with libgit2 as confine-export is but without its
 * export/no-tls.c: what the library itself reads at init, for
 * export-cost.sh's control.
 *
 * usage: git2-init
 * Exit status 1 when the init fails.
 *
 * MUST: change nothing.
 */
#include <git2.h>
#include <stdio.h>

int
main(void)
{
	if (git_libgit2_init() < 0) {
		fprintf(stderr, "git2-init: git_libgit2_init failed\n");
		return 1;
	}
	git_libgit2_shutdown();
	return 0;
}
