# SPDX-License-Identifier: ISC
# tests/unit.mk - the unit tests (TAP, no root, no namespaces) and the
# layering check; included by Makefile.am, which defines TESTS,
# check_PROGRAMS and EXTRA_DIST first and sets the TAP drivers.

UNIT_TESTS = tests/unit/test-cli tests/unit/test-env tests/unit/test-policy \
	tests/unit/test-profile tests/unit/test-term tests/unit/test-termfilter \
	tests/unit/test-diffcolor
check_PROGRAMS += tests/unit/test-cli tests/unit/test-env tests/unit/test-policy \
	tests/unit/test-profile tests/unit/test-term tests/unit/test-termfilter \
	tests/unit/test-diffcolor

tests_unit_test_diffcolor_SOURCES = tests/unit/test-diffcolor.c
tests_unit_test_diffcolor_CFLAGS = $(AM_CFLAGS)
tests_unit_test_diffcolor_LDADD = src/libconfine.a

tests_unit_test_termfilter_SOURCES = tests/unit/test-termfilter.c
tests_unit_test_termfilter_CFLAGS = $(AM_CFLAGS)
tests_unit_test_termfilter_LDADD = src/libconfine.a

tests_unit_test_cli_SOURCES = tests/unit/test-cli.c
tests_unit_test_cli_CFLAGS = $(AM_CFLAGS)
tests_unit_test_cli_LDADD = src/libconfine.a $(SECCOMP_LIBS) $(INIH_LIBS) $(DLOPEN_LIBS)

tests_unit_test_env_SOURCES = tests/unit/test-env.c
tests_unit_test_env_CFLAGS = $(AM_CFLAGS)
tests_unit_test_env_LDADD = src/libconfine.a $(SECCOMP_LIBS) $(INIH_LIBS) $(DLOPEN_LIBS)

tests_unit_test_policy_SOURCES = tests/unit/test-policy.c
tests_unit_test_policy_CFLAGS = $(AM_CFLAGS)
tests_unit_test_policy_LDADD = src/libconfine.a $(SECCOMP_LIBS) $(INIH_LIBS) $(DLOPEN_LIBS)

tests_unit_test_term_SOURCES = tests/unit/test-term.c
tests_unit_test_term_CFLAGS = $(AM_CFLAGS)
tests_unit_test_term_LDADD = src/libconfine.a

tests_unit_test_profile_SOURCES = tests/unit/test-profile.c
tests_unit_test_profile_CFLAGS = $(AM_CFLAGS)
tests_unit_test_profile_LDADD = src/libconfine.a $(SECCOMP_LIBS) $(INIH_LIBS) $(DLOPEN_LIBS)

TESTS += $(UNIT_TESTS) tests/check-layering.sh tests/check-bounded-reads.sh \
	tests/check-checks.sh
EXTRA_DIST += tests/unit/tap.h tests/check-layering.sh \
	tests/check-bounded-reads.sh tests/check-cppcheck.sh \
	tests/check-checks.sh \
	tests/data/plan-dump.golden tests/data/plan-dump-bwrap.golden \
	tests/data/plan-dump-landlock.golden tests/data/bwrap-argv.golden

# The profile loader's data: bad/*.ini with the expected error (.err),
# good/*.ini with the expected merged profile (.expect), and the profile
# directories that "extends" searches.  Listed one by one for automake;
# after adding a file, regenerate the list with:
#   find tests/data/profiles -type f ! -name .gitattributes | LC_ALL=C sort
PROFILE_TEST_FILES = \
	tests/data/profiles/bad/argument-alone.err \
	tests/data/profiles/bad/argument-alone.ini \
	tests/data/profiles/bad/argument-name.err \
	tests/data/profiles/bad/argument-name.ini \
	tests/data/profiles/bad/argument-path.err \
	tests/data/profiles/bad/argument-path.ini \
	tests/data/profiles/bad/backend-bad.err \
	tests/data/profiles/bad/backend-bad.ini \
	tests/data/profiles/bad/bool-private.err \
	tests/data/profiles/bad/bool-private.ini \
	tests/data/profiles/bad/bool-untrusted.err \
	tests/data/profiles/bad/bool-untrusted.ini \
	tests/data/profiles/bad/continuation-comment.err \
	tests/data/profiles/bad/continuation-comment.ini \
	tests/data/profiles/bad/continuation-indented-key.err \
	tests/data/profiles/bad/continuation-indented-key.ini \
	tests/data/profiles/bad/continuation-scalar.err \
	tests/data/profiles/bad/continuation-scalar.ini \
	tests/data/profiles/bad/cr-inside.err \
	tests/data/profiles/bad/cr-inside.ini \
	tests/data/profiles/bad/cr-line-endings.err \
	tests/data/profiles/bad/cr-line-endings.ini \
	tests/data/profiles/bad/credential-variable-glob.err \
	tests/data/profiles/bad/credential-variable-glob.ini \
	tests/data/profiles/bad/credential-web-search.err \
	tests/data/profiles/bad/credential-web-search.ini \
	tests/data/profiles/bad/empty-scalar.err \
	tests/data/profiles/bad/empty-scalar.ini \
	tests/data/profiles/bad/env-dash.err \
	tests/data/profiles/bad/env-dash.ini \
	tests/data/profiles/bad/env-leading-digit.err \
	tests/data/profiles/bad/env-leading-digit.ini \
	tests/data/profiles/bad/env-pass-equals.err \
	tests/data/profiles/bad/env-pass-equals.ini \
	tests/data/profiles/bad/env-pass-star-alone.err \
	tests/data/profiles/bad/env-pass-star-alone.ini \
	tests/data/profiles/bad/env-set-bad-name.err \
	tests/data/profiles/bad/env-set-bad-name.ini \
	tests/data/profiles/bad/env-set-no-equals.err \
	tests/data/profiles/bad/env-set-no-equals.ini \
	tests/data/profiles/bad/extends-broken.err \
	tests/data/profiles/bad/extends-broken.ini \
	tests/data/profiles/bad/extends-cycle.err \
	tests/data/profiles/bad/extends-cycle.ini \
	tests/data/profiles/bad/extends-dot-name.err \
	tests/data/profiles/bad/extends-dot-name.ini \
	tests/data/profiles/bad/extends-empty.err \
	tests/data/profiles/bad/extends-empty.ini \
	tests/data/profiles/bad/extends-missing.err \
	tests/data/profiles/bad/extends-missing.ini \
	tests/data/profiles/bad/extends-path.err \
	tests/data/profiles/bad/extends-path.ini \
	tests/data/profiles/bad/extends-relative-path.err \
	tests/data/profiles/bad/extends-relative-path.ini \
	tests/data/profiles/bad/extends-too-deep.err \
	tests/data/profiles/bad/extends-too-deep.ini \
	tests/data/profiles/bad/extends-twice.err \
	tests/data/profiles/bad/extends-twice.ini \
	tests/data/profiles/bad/first-error-long-line.err \
	tests/data/profiles/bad/first-error-long-line.ini \
	tests/data/profiles/bad/first-error-syntax.err \
	tests/data/profiles/bad/first-error-syntax.ini \
	tests/data/profiles/bad/first-error-value.err \
	tests/data/profiles/bad/first-error-value.ini \
	tests/data/profiles/bad/home-absolute.err \
	tests/data/profiles/bad/home-absolute.ini \
	tests/data/profiles/bad/home-dotdot.err \
	tests/data/profiles/bad/home-dotdot.ini \
	tests/data/profiles/bad/home-tilde.err \
	tests/data/profiles/bad/home-tilde.ini \
	tests/data/profiles/bad/home-trailing-slash.err \
	tests/data/profiles/bad/home-trailing-slash.ini \
	tests/data/profiles/bad/host-empty-label.err \
	tests/data/profiles/bad/host-empty-label.ini \
	tests/data/profiles/bad/host-ipv6-bad.err \
	tests/data/profiles/bad/host-ipv6-bad.ini \
	tests/data/profiles/bad/host-ipv6-no-brackets.err \
	tests/data/profiles/bad/host-ipv6-no-brackets.ini \
	tests/data/profiles/bad/host-ipv6-unclosed.err \
	tests/data/profiles/bad/host-ipv6-unclosed.ini \
	tests/data/profiles/bad/host-label-dash-end.err \
	tests/data/profiles/bad/host-label-dash-end.ini \
	tests/data/profiles/bad/host-label-dash.err \
	tests/data/profiles/bad/host-label-dash.ini \
	tests/data/profiles/bad/host-port-65536.err \
	tests/data/profiles/bad/host-port-65536.ini \
	tests/data/profiles/bad/host-port-empty.err \
	tests/data/profiles/bad/host-port-empty.ini \
	tests/data/profiles/bad/host-port-leading-zero.err \
	tests/data/profiles/bad/host-port-leading-zero.ini \
	tests/data/profiles/bad/host-port-letters.err \
	tests/data/profiles/bad/host-port-letters.ini \
	tests/data/profiles/bad/host-port-plus.err \
	tests/data/profiles/bad/host-port-plus.ini \
	tests/data/profiles/bad/host-port-space.err \
	tests/data/profiles/bad/host-port-space.ini \
	tests/data/profiles/bad/host-port-zero.err \
	tests/data/profiles/bad/host-port-zero.ini \
	tests/data/profiles/bad/host-star-alone.err \
	tests/data/profiles/bad/host-star-alone.ini \
	tests/data/profiles/bad/host-star-middle.err \
	tests/data/profiles/bad/host-star-middle.ini \
	tests/data/profiles/bad/host-trailing-dot.err \
	tests/data/profiles/bad/host-trailing-dot.ini \
	tests/data/profiles/bad/host-underscore.err \
	tests/data/profiles/bad/host-underscore.ini \
	tests/data/profiles/bad/host-upper-case.err \
	tests/data/profiles/bad/host-upper-case.ini \
	tests/data/profiles/bad/inject-no-host.err \
	tests/data/profiles/bad/inject-no-host.ini \
	tests/data/profiles/bad/inject-pattern.err \
	tests/data/profiles/bad/inject-pattern.ini \
	tests/data/profiles/bad/inject-port.err \
	tests/data/profiles/bad/inject-port.ini \
	tests/data/profiles/bad/inject-provider.err \
	tests/data/profiles/bad/inject-provider.ini \
	tests/data/profiles/bad/inline-hash.err \
	tests/data/profiles/bad/inline-hash.ini \
	tests/data/profiles/bad/inline-semicolon.err \
	tests/data/profiles/bad/inline-semicolon.ini \
	tests/data/profiles/bad/key-outside-section.err \
	tests/data/profiles/bad/key-outside-section.ini \
	tests/data/profiles/bad/limits-cpus-decimals.err \
	tests/data/profiles/bad/limits-cpus-decimals.ini \
	tests/data/profiles/bad/limits-cpus-zero.err \
	tests/data/profiles/bad/limits-cpus-zero.ini \
	tests/data/profiles/bad/limits-disk-overflow.err \
	tests/data/profiles/bad/limits-disk-overflow.ini \
	tests/data/profiles/bad/limits-disk-too-large.err \
	tests/data/profiles/bad/limits-disk-too-large.ini \
	tests/data/profiles/bad/limits-memory-small.err \
	tests/data/profiles/bad/limits-memory-small.ini \
	tests/data/profiles/bad/limits-memory-unit.err \
	tests/data/profiles/bad/limits-memory-unit.ini \
	tests/data/profiles/bad/limits-tasks-negative.err \
	tests/data/profiles/bad/limits-tasks-negative.ini \
	tests/data/profiles/bad/limits-tasks-zero.err \
	tests/data/profiles/bad/limits-tasks-zero.ini \
	tests/data/profiles/bad/limits-twice.err \
	tests/data/profiles/bad/limits-twice.ini \
	tests/data/profiles/bad/limits-unknown-key.err \
	tests/data/profiles/bad/limits-unknown-key.ini \
	tests/data/profiles/bad/line-too-long.err \
	tests/data/profiles/bad/line-too-long.ini \
	tests/data/profiles/bad/missing-bracket.err \
	tests/data/profiles/bad/missing-bracket.ini \
	tests/data/profiles/bad/network-mode-bad.err \
	tests/data/profiles/bad/network-mode-bad.ini \
	tests/data/profiles/bad/no-equals.err \
	tests/data/profiles/bad/no-equals.ini \
	tests/data/profiles/bad/nul-byte.err \
	tests/data/profiles/bad/nul-byte.ini \
	tests/data/profiles/bad/path-control-char.err \
	tests/data/profiles/bad/path-control-char.ini \
	tests/data/profiles/bad/path-dot.err \
	tests/data/profiles/bad/path-dot.ini \
	tests/data/profiles/bad/path-dotdot.err \
	tests/data/profiles/bad/path-dotdot.ini \
	tests/data/profiles/bad/path-double-slash.err \
	tests/data/profiles/bad/path-double-slash.ini \
	tests/data/profiles/bad/path-relative.err \
	tests/data/profiles/bad/path-relative.ini \
	tests/data/profiles/bad/path-tilde-dotdot.err \
	tests/data/profiles/bad/path-tilde-dotdot.ini \
	tests/data/profiles/bad/path-tilde-user.err \
	tests/data/profiles/bad/path-tilde-user.ini \
	tests/data/profiles/bad/path-trailing-slash.err \
	tests/data/profiles/bad/path-trailing-slash.ini \
	tests/data/profiles/bad/path-workspace-relative.err \
	tests/data/profiles/bad/path-workspace-relative.ini \
	tests/data/profiles/bad/quadrant-bad.err \
	tests/data/profiles/bad/quadrant-bad.ini \
	tests/data/profiles/bad/quadrant-case.err \
	tests/data/profiles/bad/quadrant-case.ini \
	tests/data/profiles/bad/scalar-twice-sections.err \
	tests/data/profiles/bad/scalar-twice-sections.ini \
	tests/data/profiles/bad/scalar-twice.err \
	tests/data/profiles/bad/scalar-twice.ini \
	tests/data/profiles/bad/section-spaces.err \
	tests/data/profiles/bad/section-spaces.ini \
	tests/data/profiles/bad/section-trailing-text.err \
	tests/data/profiles/bad/section-trailing-text.ini \
	tests/data/profiles/bad/source-extra.err \
	tests/data/profiles/bad/source-extra.ini \
	tests/data/profiles/bad/source-field.err \
	tests/data/profiles/bad/source-field.ini \
	tests/data/profiles/bad/source-kind.err \
	tests/data/profiles/bad/source-kind.ini \
	tests/data/profiles/bad/source-login-command.err \
	tests/data/profiles/bad/source-login-command.ini \
	tests/data/profiles/bad/source-login-nofield.err \
	tests/data/profiles/bad/source-login-nofield.ini \
	tests/data/profiles/bad/source-missing.err \
	tests/data/profiles/bad/source-missing.ini \
	tests/data/profiles/bad/source-relative.err \
	tests/data/profiles/bad/source-relative.ini \
	tests/data/profiles/bad/source-type.err \
	tests/data/profiles/bad/source-type.ini \
	tests/data/profiles/bad/source-var-name.err \
	tests/data/profiles/bad/source-var-name.ini \
	tests/data/profiles/bad/unknown-key-case.err \
	tests/data/profiles/bad/unknown-key-case.ini \
	tests/data/profiles/bad/unknown-key-credential.err \
	tests/data/profiles/bad/unknown-key-credential.ini \
	tests/data/profiles/bad/unknown-key-environment.err \
	tests/data/profiles/bad/unknown-key-environment.ini \
	tests/data/profiles/bad/unknown-key-filesystem.err \
	tests/data/profiles/bad/unknown-key-filesystem.ini \
	tests/data/profiles/bad/unknown-key-network.err \
	tests/data/profiles/bad/unknown-key-network.ini \
	tests/data/profiles/bad/unknown-key-profile.err \
	tests/data/profiles/bad/unknown-key-profile.ini \
	tests/data/profiles/bad/unknown-key-sandbox.err \
	tests/data/profiles/bad/unknown-key-sandbox.ini \
	tests/data/profiles/bad/unknown-key-workspace.err \
	tests/data/profiles/bad/unknown-key-workspace.ini \
	tests/data/profiles/bad/unknown-section-bom.err \
	tests/data/profiles/bad/unknown-section-bom.ini \
	tests/data/profiles/bad/unknown-section-empty.err \
	tests/data/profiles/bad/unknown-section-empty.ini \
	tests/data/profiles/bad/unknown-section.err \
	tests/data/profiles/bad/unknown-section.ini \
	tests/data/profiles/dirs/shipped/base.ini \
	tests/data/profiles/dirs/shipped/broken.ini \
	tests/data/profiles/dirs/shipped/cycle-a.ini \
	tests/data/profiles/dirs/shipped/cycle-b.ini \
	tests/data/profiles/dirs/shipped/deep-1.ini \
	tests/data/profiles/dirs/shipped/deep-2.ini \
	tests/data/profiles/dirs/shipped/deep-3.ini \
	tests/data/profiles/dirs/shipped/deep-4.ini \
	tests/data/profiles/dirs/shipped/deep-5.ini \
	tests/data/profiles/dirs/shipped/deep-6.ini \
	tests/data/profiles/dirs/shipped/deep-7.ini \
	tests/data/profiles/dirs/shipped/deep-8.ini \
	tests/data/profiles/dirs/shipped/layered.ini \
	tests/data/profiles/dirs/shipped/only-shipped.ini \
	tests/data/profiles/dirs/shipped/shadow.ini \
	tests/data/profiles/dirs/shipped/sys-shadow.ini \
	tests/data/profiles/dirs/system/middle.ini \
	tests/data/profiles/dirs/system/shadow.ini \
	tests/data/profiles/dirs/system/sys-shadow.ini \
	tests/data/profiles/dirs/user/layered.ini \
	tests/data/profiles/dirs/user/self.ini \
	tests/data/profiles/dirs/user/shadow.ini \
	tests/data/profiles/good/all-keys.expect \
	tests/data/profiles/good/all-keys.ini \
	tests/data/profiles/good/bom.expect \
	tests/data/profiles/good/bom.ini \
	tests/data/profiles/good/booleans.expect \
	tests/data/profiles/good/booleans.ini \
	tests/data/profiles/good/clear-list.expect \
	tests/data/profiles/good/clear-list.ini \
	tests/data/profiles/good/comments.expect \
	tests/data/profiles/good/comments.ini \
	tests/data/profiles/good/continuation.expect \
	tests/data/profiles/good/continuation.ini \
	tests/data/profiles/good/crlf.expect \
	tests/data/profiles/good/crlf.ini \
	tests/data/profiles/good/empty.expect \
	tests/data/profiles/good/empty.ini \
	tests/data/profiles/good/environment.expect \
	tests/data/profiles/good/environment.ini \
	tests/data/profiles/good/extends-chain.expect \
	tests/data/profiles/good/extends-chain.ini \
	tests/data/profiles/good/extends-deepest.expect \
	tests/data/profiles/good/extends-deepest.ini \
	tests/data/profiles/good/extends-layered.expect \
	tests/data/profiles/good/extends-layered.ini \
	tests/data/profiles/good/extends-sealed-builtin.expect \
	tests/data/profiles/good/extends-sealed-builtin.ini \
	tests/data/profiles/good/extends-shadowed.expect \
	tests/data/profiles/good/extends-shadowed.ini \
	tests/data/profiles/good/home-paths.expect \
	tests/data/profiles/good/home-paths.ini \
	tests/data/profiles/good/limits.expect \
	tests/data/profiles/good/limits.ini \
	tests/data/profiles/good/long-line.expect \
	tests/data/profiles/good/long-line.ini \
	tests/data/profiles/good/network.expect \
	tests/data/profiles/good/network.ini \
	tests/data/profiles/good/no-final-newline.expect \
	tests/data/profiles/good/no-final-newline.ini \
	tests/data/profiles/good/repeated-keys.expect \
	tests/data/profiles/good/repeated-keys.ini
EXTRA_DIST += $(PROFILE_TEST_FILES) tests/data/profiles/.gitattributes

UNIT_TESTS += tests/unit/test-proxy
check_PROGRAMS += tests/unit/test-proxy
tests_unit_test_proxy_SOURCES = tests/unit/test-proxy.c
tests_unit_test_proxy_CFLAGS = $(AM_CFLAGS)
tests_unit_test_proxy_LDADD = src/libconfine.a $(SECCOMP_LIBS) $(INIH_LIBS) $(DLOPEN_LIBS)

# lib/untrusted: the agent's bytes copied with a bound, opened beneath a
# root, shown without escapes.
UNIT_TESTS += tests/unit/test-untrusted
check_PROGRAMS += tests/unit/test-untrusted
tests_unit_test_untrusted_SOURCES = tests/unit/test-untrusted.c
tests_unit_test_untrusted_CFLAGS = $(AM_CFLAGS)
tests_unit_test_untrusted_LDADD = src/libconfine.a

# lib/spawn: a program's output read with a bound, and its status.
UNIT_TESTS += tests/unit/test-spawn
check_PROGRAMS += tests/unit/test-spawn
tests_unit_test_spawn_SOURCES = tests/unit/test-spawn.c
tests_unit_test_spawn_CFLAGS = $(AM_CFLAGS)
tests_unit_test_spawn_LDADD = src/libconfine.a

# lib/fdio: bounded reads, openat2 beneath.
UNIT_TESTS += tests/unit/test-fdio
check_PROGRAMS += tests/unit/test-fdio
tests_unit_test_fdio_SOURCES = tests/unit/test-fdio.c
tests_unit_test_fdio_CFLAGS = $(AM_CFLAGS)
tests_unit_test_fdio_LDADD = src/libconfine.a

# The review flags: paths, contents, and confine(1)'s FLAGGED PATHS.
UNIT_TESTS += tests/unit/test-flag
check_PROGRAMS += tests/unit/test-flag
tests_unit_test_flag_SOURCES = tests/unit/test-flag.c
tests_unit_test_flag_CFLAGS = $(AM_CFLAGS)
tests_unit_test_flag_LDADD = src/libconfine.a $(SECCOMP_LIBS) $(INIH_LIBS) $(DLOPEN_LIBS)

# keyholder/policy: inference only, with the user's credential.
UNIT_TESTS += tests/unit/test-keyholder-policy
check_PROGRAMS += tests/unit/test-keyholder-policy
tests_unit_test_keyholder_policy_SOURCES = tests/unit/test-keyholder-policy.c
tests_unit_test_keyholder_policy_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
tests_unit_test_keyholder_policy_LDADD = src/libkeyholder.a src/libconfine.a \
	$(JANSSON_LIBS)

# policy/limits-engine: which engine enforces the limits, from the facts.
UNIT_TESTS += tests/unit/test-limits-engine
check_PROGRAMS += tests/unit/test-limits-engine
tests_unit_test_limits_engine_SOURCES = tests/unit/test-limits-engine.c
tests_unit_test_limits_engine_CFLAGS = $(AM_CFLAGS)
tests_unit_test_limits_engine_LDADD = src/libconfine.a

# enforce/cgroup: a cgroup's files, on a directory laid out as one.
UNIT_TESTS += tests/unit/test-cgroup
check_PROGRAMS += tests/unit/test-cgroup
tests_unit_test_cgroup_SOURCES = tests/unit/test-cgroup.c
tests_unit_test_cgroup_CFLAGS = $(AM_CFLAGS)
tests_unit_test_cgroup_LDADD = src/libconfine.a

# store/copy-mark: how a copy's changes are told, with no wait.
UNIT_TESTS += tests/unit/test-copy-mark
check_PROGRAMS += tests/unit/test-copy-mark
tests_unit_test_copy_mark_SOURCES = tests/unit/test-copy-mark.c
tests_unit_test_copy_mark_CFLAGS = $(AM_CFLAGS)
tests_unit_test_copy_mark_LDADD = src/libconfine.a
