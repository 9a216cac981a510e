# SPDX-License-Identifier: ISC
# tests/integration.mk - the integration tests: TAP shell scripts that run
# the built confine for real (as root and as an unprivileged user), and
# the try-syscall helper they use.  Included by Makefile.am, which defines
# TESTS, check_PROGRAMS and EXTRA_DIST first, sets the TAP drivers and
# exports CONFINE, TESTS_SRCDIR and TESTS_BUILDDIR to the tests.

check_PROGRAMS += tests/helpers/try-syscall
tests_helpers_try_syscall_SOURCES = tests/helpers/try-syscall.c

INTEGRATION_TESTS = \
	tests/integration/exit-status.sh \
	tests/integration/namespaces.sh \
	tests/integration/filesystem.sh \
	tests/integration/workspace.sh \
	tests/integration/landlock.sh \
	tests/integration/seccomp.sh \
	tests/integration/capabilities.sh \
	tests/integration/environment.sh \
	tests/integration/fds.sh \
	tests/integration/terminal.sh \
	tests/integration/signals.sh \
	tests/integration/dry-run.sh \
	tests/integration/doctor.sh \
	tests/integration/refusals.sh \
	tests/integration/profiles.sh \
	tests/integration/trust.sh \
	tests/integration/profile-mounts.sh \
	tests/integration/export-property.sh \
	tests/integration/export-security.sh \
	tests/integration/sessions.sh \
	tests/integration/export-faults.sh \
	tests/integration/network.sh \
	tests/integration/host-sockets.sh

TESTS += $(INTEGRATION_TESTS)
EXTRA_DIST += tests/lib.sh $(INTEGRATION_TESTS)

# auto's fallbacks on a host without user namespaces: once, not per backend.
TESTS += tests/integration/backends.sh
EXTRA_DIST += tests/integration/backends.sh

EXTRA_DIST += tests/profile-lib.sh
EXTRA_DIST += tests/helpers/changeset.py
EXTRA_DIST += tests/helpers/netprobe.py tests/net-lib.sh bench/proxy

# Every integration test once more on each of the other backends: the same
# script, run with CONFINE_BACKEND set (tests/bwrap/NAME.bwrap and
# tests/landlock/NAME.landlock are copies of tests/integration/NAME.sh made
# here, in directories of their own so that their logs do not collide).
# A backend this machine cannot run skips the whole script, with the
# reason (tests/lib.sh).
BACKEND_TESTS = \
	$(INTEGRATION_TESTS:tests/integration/%.sh=tests/bwrap/%.bwrap) \
	$(INTEGRATION_TESTS:tests/integration/%.sh=tests/landlock/%.landlock)
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
