# SPDX-License-Identifier: ISC
# fuzz/fuzz.mk - the libFuzzer harnesses of every parser of untrusted
# input, and make fuzz-smoke; included by Makefile.am, which defines
# noinst_PROGRAMS (and EXTRA_DIST) first, as it does TESTS and
# check_PROGRAMS for tests/unit.mk.  Built only with ./configure
# --enable-fuzzing CC=clang, which also compiles everything else with
# -fsanitize=fuzzer-no-link,address,undefined; fuzz/run.sh builds each
# harness alone, with the sources it tests, and runs them.
#
# A target NAME is fuzz/NAME-fuzzer.c, its seeds fuzz/corpus/NAME/ (listed
# in FUZZ_CORPUS), and where useful a dictionary fuzz/NAME.dict.  FUZZERS
# is the one list of them: make fuzz-smoke runs it, and fuzz/run.sh asks
# for it (make fuzz-list).

FUZZERS = fuzz/profile-fuzzer fuzz/keyholder-policy-fuzzer \
	fuzz/keyholder-http-fuzzer fuzz/keyholder-grant-fuzzer \
	fuzz/proxy-fuzzer fuzz/commits-fuzzer \
	fuzz/session-meta-fuzzer fuzz/term-fuzzer fuzz/cli-fuzzer \
	fuzz/plan-wire-fuzzer

# Each harness is compiled with its own sources: building the whole of
# libconfine.a with the sanitizers took most of the run's time.
if ENABLE_FUZZING
noinst_PROGRAMS += $(FUZZERS)

# The profile loader.
fuzz_profile_fuzzer_SOURCES = fuzz/profile-fuzzer.c src/input/profile.c \
	src/input/values.c src/lib/fdio.c src/lib/term-escape.c src/lib/util.c \
	src/lib/log.c
fuzz_profile_fuzzer_CFLAGS = $(AM_CFLAGS) $(FUZZ_FLAGS)
fuzz_profile_fuzzer_LDFLAGS = $(FUZZ_FLAGS)
fuzz_profile_fuzzer_LDADD = $(INIH_LIBS)

# The keyholder's policy.
fuzz_keyholder_policy_fuzzer_SOURCES = fuzz/keyholder-policy-fuzzer.c \
	src/keyholder/hook.c src/keyholder/policy.c \
	src/keyholder/policy-body.c src/lib/term-escape.c src/lib/util.c \
	src/lib/log.c
fuzz_keyholder_policy_fuzzer_CFLAGS = $(AM_CFLAGS) $(FUZZ_FLAGS) \
	$(JANSSON_CFLAGS)
fuzz_keyholder_policy_fuzzer_LDFLAGS = $(FUZZ_FLAGS)
fuzz_keyholder_policy_fuzzer_LDADD = $(JANSSON_LIBS)

# The keyholder's request head and chunked body (keyholder/http.h): they
# live in transport.c, which brings OpenSSL and threads along.
fuzz_keyholder_http_fuzzer_SOURCES = fuzz/keyholder-http-fuzzer.c \
	src/keyholder/transport.c src/keyholder/hook.c src/lib/util.c \
	src/lib/log.c src/lib/term-escape.c src/lib/fdio.c
fuzz_keyholder_http_fuzzer_CFLAGS = $(AM_CFLAGS) $(FUZZ_FLAGS) \
	$(OPENSSL_CFLAGS)
fuzz_keyholder_http_fuzzer_LDFLAGS = $(FUZZ_FLAGS)
fuzz_keyholder_http_fuzzer_LDADD = $(OPENSSL_LIBS) -lpthread

# A login's token endpoint's answer to a refresh (keyholder/credential.h).
fuzz_keyholder_grant_fuzzer_SOURCES = fuzz/keyholder-grant-fuzzer.c \
	src/keyholder/credential.c src/lib/spawn.c src/lib/fdio.c \
	src/lib/util.c src/lib/log.c
fuzz_keyholder_grant_fuzzer_CFLAGS = $(AM_CFLAGS) $(FUZZ_FLAGS) \
	$(JANSSON_CFLAGS)
fuzz_keyholder_grant_fuzzer_LDFLAGS = $(FUZZ_FLAGS)
fuzz_keyholder_grant_fuzzer_LDADD = $(JANSSON_LIBS)

# The proxy's CONNECT request head.
fuzz_proxy_fuzzer_SOURCES = fuzz/proxy-fuzzer.c src/run/proxy.c \
	src/lib/untrusted.c src/lib/fdio.c src/lib/term-escape.c \
	src/lib/util.c src/lib/log.c
fuzz_proxy_fuzzer_CFLAGS = $(AM_CFLAGS) $(FUZZ_FLAGS)
fuzz_proxy_fuzzer_LDFLAGS = $(FUZZ_FLAGS)
fuzz_proxy_fuzzer_LDADD = -lpthread

# The session's .git: HEAD, refs, packed-refs, loose objects.
fuzz_commits_fuzzer_SOURCES = fuzz/commits-fuzzer.c src/export/git-bytes.c \
	src/lib/util.c src/lib/log.c src/lib/term-escape.c
fuzz_commits_fuzzer_CFLAGS = $(AM_CFLAGS) $(FUZZ_FLAGS) $(LIBGIT2_CFLAGS) \
	$(ZLIB_CFLAGS)
fuzz_commits_fuzzer_LDFLAGS = $(FUZZ_FLAGS)
fuzz_commits_fuzzer_LDADD = $(LIBGIT2_LIBS) $(ZLIB_LIBS)

# The session store's KEY=VALUE files (meta, summary).
fuzz_session_meta_fuzzer_SOURCES = fuzz/session-meta-fuzzer.c \
	src/store/session-meta.c src/lib/fdio.c src/lib/sha256.c \
	src/lib/util.c src/lib/log.c src/lib/term-escape.c
fuzz_session_meta_fuzzer_CFLAGS = $(AM_CFLAGS) $(FUZZ_FLAGS)
fuzz_session_meta_fuzzer_LDFLAGS = $(FUZZ_FLAGS)

# What reaches the terminal: term_sanitize and the output filter.
fuzz_term_fuzzer_SOURCES = fuzz/term-fuzzer.c src/lib/term-escape.c \
	src/lib/term-filter.c src/lib/untrusted.c src/lib/fdio.c \
	src/lib/util.c src/lib/log.c
fuzz_term_fuzzer_CFLAGS = $(AM_CFLAGS) $(FUZZ_FLAGS)
fuzz_term_fuzzer_LDFLAGS = $(FUZZ_FLAGS)

# The command line.
fuzz_cli_fuzzer_SOURCES = fuzz/cli-fuzzer.c src/input/cli.c \
	src/input/values.c src/lib/util.c src/lib/log.c src/lib/term-escape.c
fuzz_cli_fuzzer_CFLAGS = $(AM_CFLAGS) $(FUZZ_FLAGS)
fuzz_cli_fuzzer_LDFLAGS = $(FUZZ_FLAGS)

# The plan's wire form, as the inner stage reads it.
fuzz_plan_wire_fuzzer_SOURCES = fuzz/plan-wire-fuzzer.c \
	src/policy/plan-wire.c src/policy/plan.c src/policy/sequence.c \
	src/policy/limits-engine.c \
	src/lib/util.c src/lib/log.c src/lib/term-escape.c
fuzz_plan_wire_fuzzer_CFLAGS = $(AM_CFLAGS) $(FUZZ_FLAGS)
fuzz_plan_wire_fuzzer_LDFLAGS = $(FUZZ_FLAGS)
endif

# make fuzz-smoke: every harness for FUZZ_RUNS inputs after its seeds,
# with a fixed seed; new inputs go to a directory that is removed, the
# seeds in the tree are only read.  Fails on a crash, a leak (LSan, with
# fuzz/lsan.supp) or a timeout, the input left in fuzz/artifacts/.
# Without --enable-fuzzing it says how to enable it and fails: a smoke
# test asked for and not run is not a pass.
FUZZ_RUNS = 2000
FUZZ_LSAN = suppressions=$(abs_srcdir)/fuzz/lsan.supp:print_suppressions=0
fuzz-list:
	@for p in $(FUZZERS); do n=$${p#fuzz/}; echo "$${n%-fuzzer}"; done

if ENABLE_FUZZING
fuzz-smoke: $(FUZZERS)
	@mkdir -p fuzz/artifacts; fail=0; \
	for p in $(FUZZERS); do \
		n=$${p#fuzz/}; n=$${n%-fuzzer}; \
		d=$(srcdir)/fuzz/$$n.dict; \
		new=$$(mktemp -d "$${TMPDIR:-/tmp}/confine-fuzz.XXXXXX") || \
		    exit 1; \
		echo "fuzz-smoke: $$n ($(FUZZ_RUNS) runs)"; \
		LSAN_OPTIONS="$(FUZZ_LSAN)$${LSAN_OPTIONS:+:$$LSAN_OPTIONS}" \
		$$p -runs=$(FUZZ_RUNS) -seed=1 \
		    $$(test -f "$$d" && echo "-dict=$$d") \
		    -artifact_prefix=fuzz/artifacts/ \
		    "$$new" "$(srcdir)/fuzz/corpus/$$n" \
		    >fuzz/$$n-smoke.log 2>&1 || \
		    { fail=1; echo "fuzz-smoke: $$n FAILED (fuzz/$$n-smoke.log)"; \
		    tail -n 30 fuzz/$$n-smoke.log; }; \
		rm -rf "$$new"; \
	done; \
	exit $$fail
else
fuzz-smoke:
	@echo "fuzz-smoke: the fuzzers are built only with" \
	    "./configure --enable-fuzzing CC=clang (or run fuzz/run.sh)" >&2; \
	exit 1
endif
.PHONY: fuzz-smoke fuzz-list

FUZZ_CORPUS = \
	fuzz/corpus/profile/all-keys.ini \
	fuzz/corpus/profile/comments.ini \
	fuzz/corpus/profile/limits.ini \
	fuzz/corpus/profile/continuation.ini \
	fuzz/corpus/profile/crlf-bom.ini \
	fuzz/corpus/profile/extends-mid.ini \
	fuzz/corpus/profile/network.ini \
	fuzz/corpus/profile/workspaces.ini \
	fuzz/corpus/keyholder-policy/anthropic-messages \
	fuzz/corpus/keyholder-policy/anthropic-nested \
	fuzz/corpus/keyholder-policy/anthropic-oauth-tools \
	fuzz/corpus/keyholder-policy/gemini-nested \
	fuzz/corpus/keyholder-policy/gemini-stream \
	fuzz/corpus/keyholder-policy/openai-chat-models \
	fuzz/corpus/keyholder-policy/openai-responses \
	fuzz/corpus/keyholder-grant/access-only \
	fuzz/corpus/keyholder-grant/bad-values \
	fuzz/corpus/keyholder-grant/html \
	fuzz/corpus/keyholder-grant/invalid-grant \
	fuzz/corpus/keyholder-grant/ok \
	fuzz/corpus/keyholder-http/chunked \
	fuzz/corpus/keyholder-http/chunked-bad \
	fuzz/corpus/keyholder-http/chunked-big \
	fuzz/corpus/keyholder-http/head-both \
	fuzz/corpus/keyholder-http/head-chunked \
	fuzz/corpus/keyholder-http/head-fold \
	fuzz/corpus/keyholder-http/head-post \
	fuzz/corpus/keyholder-http/head-two-hosts \
	fuzz/corpus/proxy/bad-port \
	fuzz/corpus/proxy/connect \
	fuzz/corpus/proxy/connect-ipv6 \
	fuzz/corpus/proxy/connect-upper \
	fuzz/corpus/proxy/crash-line-ends-at-the-space \
	fuzz/corpus/proxy/get \
	fuzz/corpus/proxy/trailing-dot \
	fuzz/corpus/commits/head-detached \
	fuzz/corpus/commits/head-dotdot \
	fuzz/corpus/commits/head-ref \
	fuzz/corpus/commits/object-blob \
	fuzz/corpus/commits/object-commit \
	fuzz/corpus/commits/object-raw \
	fuzz/corpus/commits/packed-refs \
	fuzz/corpus/commits/ref \
	fuzz/corpus/session-meta/meta \
	fuzz/corpus/session-meta/network-counts \
	fuzz/corpus/session-meta/odd \
	fuzz/corpus/session-meta/summary \
	fuzz/corpus/term/c1-utf8 \
	fuzz/corpus/term/dcs-apc-pm-sos \
	fuzz/corpus/term/notify-report \
	fuzz/corpus/term/osc52 \
	fuzz/corpus/term/osc52-allowed \
	fuzz/corpus/term/osc8-title \
	fuzz/corpus/term/plain \
	fuzz/corpus/term/sgr-split \
	fuzz/corpus/cli/bad \
	fuzz/corpus/cli/drop \
	fuzz/corpus/cli/empty \
	fuzz/corpus/cli/limits \
	fuzz/corpus/cli/profile \
	fuzz/corpus/cli/run \
	fuzz/corpus/cli/run-short \
	fuzz/corpus/cli/show \
	fuzz/corpus/cli/trust \
	fuzz/corpus/plan-wire/landlock-steps \
	fuzz/corpus/plan-wire/limits \
	fuzz/corpus/plan-wire/magic-only \
	fuzz/corpus/plan-wire/minimal
EXTRA_DIST += fuzz/run.sh fuzz/lsan.supp $(FUZZ_CORPUS)
FUZZ_DICTS = fuzz/profile.dict fuzz/keyholder-policy.dict \
	fuzz/keyholder-http.dict fuzz/proxy.dict fuzz/term.dict fuzz/cli.dict
EXTRA_DIST += $(FUZZ_DICTS)

clean-local: fuzz-clean
fuzz-clean:
	-rm -rf fuzz/artifacts fuzz/*-smoke.log
.PHONY: fuzz-clean
