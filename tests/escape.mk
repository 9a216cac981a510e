# SPDX-License-Identifier: ISC
# tests/escape.mk - the escape suite: probes that try to get out of confine
# the way an agent would, one script per area of the escape catalogue
# (research/namespace-tools-and-escapes.md section 4; SECURITY.md lists
# every probe and the layers that stop it).  Run by "make check" with the
# integration tests' environment, as root and as an unprivileged user.
#
# Each script runs on native (tests/escape/), bwrap (tests/escape-bwrap/)
# and landlock (tests/escape-landlock/); "make check-escape-backends" runs
# the suite once per backend of ESCAPE_BACKENDS, with the escape/ names.

ESCAPE_TESTS = \
	tests/escape/terminal.sh \
	tests/escape/proc.sh \
	tests/escape/procs.sh \
	tests/escape/privilege.sh \
	tests/escape/seccomp.sh \
	tests/escape/paths.sh \
	tests/escape/persistence.sh \
	tests/escape/ipc.sh \
	tests/escape/network.sh \
	tests/escape/meta.sh \
	tests/escape/hostfiles.sh \
	tests/escape/hostdata.sh \
	tests/escape/notify-files.sh \
	tests/escape/leaks.sh

# hostfiles.sh's probe: calls that change a file's times, flags, xattrs and
# locks (try-syscall never changes anything).
check_PROGRAMS += tests/helpers/hostfile-probe
tests_helpers_hostfile_probe_SOURCES = tests/helpers/hostfile-probe.c

TESTS += $(ESCAPE_TESTS)
EXTRA_DIST += tests/escape-lib.sh $(ESCAPE_TESTS)

# The suite once more on each of the other backends, like the integration
# tests (tests/integration.mk): copies run with CONFINE_BACKEND set.
ESCAPE_BACKEND_TESTS = \
	tests/escape-bwrap/terminal.bwrap \
	tests/escape-bwrap/proc.bwrap \
	tests/escape-bwrap/procs.bwrap \
	tests/escape-bwrap/privilege.bwrap \
	tests/escape-bwrap/seccomp.bwrap \
	tests/escape-bwrap/paths.bwrap \
	tests/escape-bwrap/persistence.bwrap \
	tests/escape-bwrap/ipc.bwrap \
	tests/escape-bwrap/network.bwrap \
	tests/escape-bwrap/meta.bwrap \
	tests/escape-bwrap/hostfiles.bwrap \
	tests/escape-bwrap/hostdata.bwrap \
	tests/escape-bwrap/notify-files.bwrap \
	tests/escape-bwrap/leaks.bwrap \
	tests/escape-landlock/terminal.landlock \
	tests/escape-landlock/proc.landlock \
	tests/escape-landlock/procs.landlock \
	tests/escape-landlock/privilege.landlock \
	tests/escape-landlock/seccomp.landlock \
	tests/escape-landlock/paths.landlock \
	tests/escape-landlock/persistence.landlock \
	tests/escape-landlock/ipc.landlock \
	tests/escape-landlock/network.landlock \
	tests/escape-landlock/meta.landlock \
	tests/escape-landlock/hostfiles.landlock \
	tests/escape-landlock/hostdata.landlock \
	tests/escape-landlock/notify-files.landlock \
	tests/escape-landlock/leaks.landlock
TESTS += $(ESCAPE_BACKEND_TESTS)
CLEANFILES += $(ESCAPE_BACKEND_TESTS)
tests/escape-bwrap/%.bwrap: tests/escape/%.sh
	$(AM_V_GEN)$(MKDIR_P) $(@D) && cp $< $@
tests/escape-landlock/%.landlock: tests/escape/%.sh
	$(AM_V_GEN)$(MKDIR_P) $(@D) && cp $< $@

ESCAPE_BACKENDS = native
check-escape-backends: $(check_PROGRAMS)
	@for b in $(ESCAPE_BACKENDS); do \
		echo "escape suite: CONFINE_BACKEND=$$b"; \
		CONFINE_BACKEND=$$b $(MAKE) $(AM_MAKEFLAGS) check \
		    TESTS='$(ESCAPE_TESTS)' || exit 1; \
	done
.PHONY: check-escape-backends
