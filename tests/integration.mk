# SPDX-License-Identifier: ISC
# tests/integration.mk - the integration tests: TAP shell scripts that run
# the built confine for real (as root and as an unprivileged user), and
# the try-syscall helper they use.  Included by Makefile.am, which defines
# TESTS, check_PROGRAMS and EXTRA_DIST first, sets the TAP drivers and
# exports CONFINE, TESTS_SRCDIR and TESTS_BUILDDIR to the tests.

check_PROGRAMS += tests/helpers/try-syscall tests/helpers/procs
tests_helpers_try_syscall_SOURCES = tests/helpers/try-syscall.c
check_PROGRAMS += tests/helpers/notify-probe tests/helpers/tree-hash
tests_helpers_tree_hash_SOURCES = tests/helpers/tree-hash.c src/lib/sha256.c
tests_helpers_notify_probe_SOURCES = tests/helpers/notify-probe.c
tests_helpers_procs_SOURCES = tests/helpers/procs.c
check_PROGRAMS += tests/helpers/no-userns
tests_helpers_no_userns_SOURCES = tests/helpers/no-userns.c
# libgit2's own init, without confine-export's no-tls.c (export-cost.sh).
check_PROGRAMS += tests/helpers/git2-init
tests_helpers_git2_init_SOURCES = tests/helpers/git2-init.c
tests_helpers_git2_init_CFLAGS = $(AM_CFLAGS) $(LIBGIT2_CFLAGS)
tests_helpers_git2_init_LDADD = $(LIBGIT2_LIBS)
# cgroup_wait_empty() on a real cgroup (cgroup-wait.sh).
check_PROGRAMS += tests/helpers/cgroup-wait
tests_helpers_cgroup_wait_SOURCES = tests/helpers/cgroup-wait.c
tests_helpers_cgroup_wait_LDADD = src/libconfine.a
# The keyholder's transport with a test hook (keyholder-transport.sh,
# bench/keyholder).
check_PROGRAMS += tests/helpers/kh-serve
tests_helpers_kh_serve_SOURCES = tests/helpers/kh-serve.c
tests_helpers_kh_serve_CFLAGS = $(AM_CFLAGS) $(OPENSSL_CFLAGS)
tests_helpers_kh_serve_LDADD = src/libkeyholder.a src/libconfine.a \
	$(OPENSSL_LIBS) -lpthread

INTEGRATION_TESTS = \
	tests/integration/exit-status.sh \
	tests/integration/namespaces.sh \
	tests/integration/filesystem.sh \
	tests/integration/workspace.sh \
	tests/integration/workspace-copy.sh \
	tests/integration/workspaces.sh \
	tests/integration/dead-drop.sh \
	tests/integration/landlock.sh \
	tests/integration/seccomp.sh \
	tests/integration/filter-cache.sh \
	tests/integration/capabilities.sh \
	tests/integration/environment.sh \
	tests/integration/git-identity.sh \
	tests/integration/fds.sh \
	tests/integration/terminal.sh \
	tests/integration/terminal-fds.sh \
	tests/integration/terminal-safety.sh \
	tests/integration/signals.sh \
	tests/integration/dry-run.sh \
	tests/integration/doctor.sh \
	tests/integration/refusals.sh \
	tests/integration/profiles.sh \
	tests/integration/profile-property.sh \
	tests/integration/trust.sh \
	tests/integration/profile-mounts.sh \
	tests/integration/persistent.sh \
	tests/integration/export-property.sh \
	tests/integration/export-security.sh \
	tests/integration/sessions.sh \
	tests/integration/sessions-tidy.sh \
	tests/integration/stop.sh \
	tests/integration/parallel.sh \
	tests/integration/enter.sh \
	tests/integration/apply-commits.sh \
	tests/integration/apply-safety.sh \
	tests/integration/apply-journal.sh \
	tests/integration/export-faults.sh \
	tests/integration/export-cost.sh \
	tests/integration/network.sh \
	tests/integration/inject.sh \
	tests/integration/host-sockets.sh \
	tests/integration/review-commits.sh \
	tests/integration/review-ignored.sh \
	tests/integration/review-large.sh \
	tests/integration/review-terminal.sh \
	tests/integration/review-flags.sh \
	tests/integration/diffstat.sh \
	tests/integration/limits.sh \
	tests/integration/limits-cgroup.sh \
	tests/integration/limits-cgroup-systemd.sh \
	tests/integration/limits-disk.sh \
	tests/integration/limits-watch.sh

TESTS += $(INTEGRATION_TESTS)
EXTRA_DIST += tests/lib.sh tests/tls-lib.sh $(INTEGRATION_TESTS)
# The limits' tests; the user manager the systemd engine's tests ask (CI
# starts it: tests/user-manager.sh).
EXTRA_DIST += tests/limits-lib.sh tests/user-manager.sh

# auto's fallbacks on a host without user namespaces: once, not per backend.
TESTS += tests/integration/backends.sh tests/integration/auto-bwrap.sh
EXTRA_DIST += tests/integration/backends.sh tests/integration/auto-bwrap.sh
# bwrap's version, noted once per binary: the bwrap backend's alone, once.
TESTS += tests/integration/bwrap-cache.sh
EXTRA_DIST += tests/integration/bwrap-cache.sh

# The keyholder's transport against a loopback TLS server: host side only,
# no sandbox, once.
TESTS += tests/integration/keyholder-transport.sh
# Host side, once: the wait for a cgroup to empty.
TESTS += tests/integration/cgroup-wait.sh
EXTRA_DIST += tests/integration/cgroup-wait.sh
EXTRA_DIST += tests/integration/keyholder-transport.sh \
	tests/helpers/tls-upstream.py bench/keyholder bench/khbench.c
# confine-keyholder, the whole program, as the supervisor starts it.
TESTS += tests/integration/keyholder.sh
EXTRA_DIST += tests/integration/keyholder.sh tests/helpers/kh-run.py
# Claude's login through the keyholder: renewed, written back.
TESTS += tests/integration/keyholder-login.sh
EXTRA_DIST += tests/integration/keyholder-login.sh

EXTRA_DIST += tests/profile-lib.sh tests/apply-lib.sh
EXTRA_DIST += tests/helpers/changeset.py tests/helpers/pty-stderr.py
EXTRA_DIST += tests/helpers/netprobe.py tests/net-lib.sh bench/proxy \
	bench/pxbench.c

# Every integration test once more on each of the other backends: the same
# script, run with CONFINE_BACKEND set (tests/bwrap/NAME.bwrap and
# tests/landlock/NAME.landlock are copies of tests/integration/NAME.sh made
# here, in directories of their own so that their logs do not collide).
# A backend this machine cannot run skips the whole script, with the
# reason (tests/lib.sh).  The list is spelled out: automake rewrites TESTS
# and drops a pattern substitution ($(VAR:a/%.sh=b/%.x)) or a function call
# in it; check-local fails when it falls out of step with INTEGRATION_TESTS.
# The tests of HOST_SIDE_TESTS run on native only: they test what confine
# does on the host alone, the same code whichever backend runs a session
# (which profile a run picks, the trust pins of a workspace profile, the
# profile parser against the --dry-run plan, "confine apply" running
# nothing of the repository, an apply killed at any point); each backend's
# own plan is the unit tests' (tests/data/plan-dump-*.golden); the export of each backend's sessions is
# tested by export-*, review-* and sessions on every backend.
HOST_SIDE_TESTS = trust apply-safety apply-journal profiles profile-property
BACKEND_TESTS = \
	tests/bwrap/exit-status.bwrap \
	tests/bwrap/namespaces.bwrap \
	tests/bwrap/filesystem.bwrap \
	tests/bwrap/workspace.bwrap \
	tests/bwrap/workspace-copy.bwrap \
	tests/bwrap/workspaces.bwrap \
	tests/bwrap/dead-drop.bwrap \
	tests/bwrap/landlock.bwrap \
	tests/bwrap/seccomp.bwrap \
	tests/bwrap/filter-cache.bwrap \
	tests/bwrap/capabilities.bwrap \
	tests/bwrap/environment.bwrap \
	tests/bwrap/git-identity.bwrap \
	tests/bwrap/fds.bwrap \
	tests/bwrap/terminal.bwrap \
	tests/bwrap/terminal-fds.bwrap \
	tests/bwrap/terminal-safety.bwrap \
	tests/bwrap/signals.bwrap \
	tests/bwrap/dry-run.bwrap \
	tests/bwrap/doctor.bwrap \
	tests/bwrap/refusals.bwrap \
	tests/bwrap/profile-mounts.bwrap \
	tests/bwrap/persistent.bwrap \
	tests/bwrap/export-property.bwrap \
	tests/bwrap/export-security.bwrap \
	tests/bwrap/sessions.bwrap \
	tests/bwrap/sessions-tidy.bwrap \
	tests/bwrap/stop.bwrap \
	tests/bwrap/parallel.bwrap \
	tests/bwrap/enter.bwrap \
	tests/bwrap/apply-commits.bwrap \
	tests/bwrap/export-faults.bwrap \
	tests/bwrap/export-cost.bwrap \
	tests/bwrap/network.bwrap \
	tests/bwrap/inject.bwrap \
	tests/bwrap/host-sockets.bwrap \
	tests/bwrap/review-commits.bwrap \
	tests/bwrap/review-ignored.bwrap \
	tests/bwrap/review-large.bwrap \
	tests/bwrap/review-terminal.bwrap \
	tests/bwrap/review-flags.bwrap \
	tests/bwrap/diffstat.bwrap \
	tests/bwrap/limits.bwrap \
	tests/bwrap/limits-cgroup.bwrap \
	tests/bwrap/limits-cgroup-systemd.bwrap \
	tests/bwrap/limits-disk.bwrap \
	tests/bwrap/limits-watch.bwrap \
	tests/landlock/exit-status.landlock \
	tests/landlock/namespaces.landlock \
	tests/landlock/filesystem.landlock \
	tests/landlock/workspace.landlock \
	tests/landlock/workspace-copy.landlock \
	tests/landlock/workspaces.landlock \
	tests/landlock/dead-drop.landlock \
	tests/landlock/landlock.landlock \
	tests/landlock/seccomp.landlock \
	tests/landlock/filter-cache.landlock \
	tests/landlock/capabilities.landlock \
	tests/landlock/environment.landlock \
	tests/landlock/git-identity.landlock \
	tests/landlock/fds.landlock \
	tests/landlock/terminal.landlock \
	tests/landlock/terminal-fds.landlock \
	tests/landlock/terminal-safety.landlock \
	tests/landlock/signals.landlock \
	tests/landlock/dry-run.landlock \
	tests/landlock/doctor.landlock \
	tests/landlock/refusals.landlock \
	tests/landlock/profile-mounts.landlock \
	tests/landlock/persistent.landlock \
	tests/landlock/export-property.landlock \
	tests/landlock/export-security.landlock \
	tests/landlock/sessions.landlock \
	tests/landlock/sessions-tidy.landlock \
	tests/landlock/stop.landlock \
	tests/landlock/parallel.landlock \
	tests/landlock/enter.landlock \
	tests/landlock/apply-commits.landlock \
	tests/landlock/export-faults.landlock \
	tests/landlock/export-cost.landlock \
	tests/landlock/network.landlock \
	tests/landlock/inject.landlock \
	tests/landlock/host-sockets.landlock \
	tests/landlock/review-commits.landlock \
	tests/landlock/review-ignored.landlock \
	tests/landlock/review-large.landlock \
	tests/landlock/review-terminal.landlock \
	tests/landlock/review-flags.landlock \
	tests/landlock/diffstat.landlock \
	tests/landlock/limits.landlock \
	tests/landlock/limits-cgroup.landlock \
	tests/landlock/limits-cgroup-systemd.landlock \
	tests/landlock/limits-disk.landlock \
	tests/landlock/limits-watch.landlock
TESTS += $(BACKEND_TESTS)
CLEANFILES += $(BACKEND_TESTS)
TEST_EXTENSIONS += .bwrap .landlock
BWRAP_LOG_DRIVER = $(LOG_DRIVER)
BWRAP_LOG_COMPILER = env CONFINE_BACKEND=bwrap $(SHELL)
LANDLOCK_LOG_DRIVER = $(LOG_DRIVER)
LANDLOCK_LOG_COMPILER = env CONFINE_BACKEND=landlock $(SHELL)
tests/bwrap/%.bwrap: tests/integration/%.sh
	$(AM_V_GEN)$(MKDIR_P) $(@D) && cp $< $@
tests/landlock/%.landlock: tests/integration/%.sh
	$(AM_V_GEN)$(MKDIR_P) $(@D) && cp $< $@
check-local: check-backend-tests-listed
check-backend-tests-listed:
	@want='$(INTEGRATION_TESTS:.sh=)'; got='$(BACKEND_TESTS)'; \
	for t in $$want; do n=$${t##*/}; \
	  case " $(HOST_SIDE_TESTS) " in *" $$n "*) continue ;; esac; \
	  for d in bwrap landlock; do \
	    case " $$got " in *" tests/$$d/$$n.$$d "*) ;; \
	    *) echo "tests/integration.mk: BACKEND_TESTS lacks tests/$$d/$$n.$$d" >&2; \
	       exit 1 ;; esac; \
	  done; \
	done
.PHONY: check-backend-tests-listed
