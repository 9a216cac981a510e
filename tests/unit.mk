# SPDX-License-Identifier: ISC
# tests/unit.mk - the unit tests (TAP, no root, no namespaces) and the
# layering check; included by Makefile.am, which defines TESTS,
# check_PROGRAMS and EXTRA_DIST first and sets the TAP drivers.

UNIT_TESTS = tests/unit/test-cli tests/unit/test-env tests/unit/test-policy
check_PROGRAMS += tests/unit/test-cli tests/unit/test-env tests/unit/test-policy

tests_unit_test_cli_SOURCES = tests/unit/test-cli.c
tests_unit_test_cli_CFLAGS = $(AM_CFLAGS)
tests_unit_test_cli_LDADD = src/libconfine.a $(SECCOMP_LIBS) $(CAPNG_LIBS)

tests_unit_test_env_SOURCES = tests/unit/test-env.c
tests_unit_test_env_CFLAGS = $(AM_CFLAGS)
tests_unit_test_env_LDADD = src/libconfine.a $(SECCOMP_LIBS) $(CAPNG_LIBS)

tests_unit_test_policy_SOURCES = tests/unit/test-policy.c
tests_unit_test_policy_CFLAGS = $(AM_CFLAGS)
tests_unit_test_policy_LDADD = src/libconfine.a $(SECCOMP_LIBS) $(CAPNG_LIBS)

TESTS += $(UNIT_TESTS) tests/check-layering.sh
EXTRA_DIST += tests/unit/tap.h tests/check-layering.sh \
	tests/data/plan-dump.golden
