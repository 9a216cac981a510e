# SPDX-License-Identifier: ISC
# tests/escape.mk - the escape suite: probes that try to get out of confine
# the way an agent would, one script per area of the escape catalogue
# (research/namespace-tools-and-escapes.md section 4; SECURITY.md lists
# every probe and the layers that stop it).  Run by "make check" with the
# integration tests' environment, as root and as an unprivileged user.
#
# The backend is confine's default unless CONFINE_BACKEND is set in the
# environment (native, bwrap, landlock or auto); "make check-escape-backends"
# runs the suite once per backend of ESCAPE_BACKENDS.

ESCAPE_TESTS = \
	tests/escape/terminal.sh \
	tests/escape/proc.sh \
	tests/escape/privilege.sh \
	tests/escape/seccomp.sh \
	tests/escape/paths.sh \
	tests/escape/persistence.sh \
	tests/escape/ipc.sh \
	tests/escape/network.sh \
	tests/escape/meta.sh

TESTS += $(ESCAPE_TESTS)
EXTRA_DIST += tests/escape-lib.sh $(ESCAPE_TESTS)

ESCAPE_BACKENDS = native
check-escape-backends: $(check_PROGRAMS)
	@for b in $(ESCAPE_BACKENDS); do \
		echo "escape suite: CONFINE_BACKEND=$$b"; \
		CONFINE_BACKEND=$$b $(MAKE) $(AM_MAKEFLAGS) check \
		    TESTS='$(ESCAPE_TESTS)' || exit 1; \
	done
.PHONY: check-escape-backends
