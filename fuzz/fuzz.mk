# SPDX-License-Identifier: ISC
# fuzz/fuzz.mk - the libFuzzer harnesses of the profile loader and of the
# keyholder's policy; included by Makefile.am, which defines
# noinst_PROGRAMS (and EXTRA_DIST) first, as it does TESTS and
# check_PROGRAMS for tests/unit.mk.  Built only with ./configure
# --enable-fuzzing CC=clang, which also compiles everything else with
# -fsanitize=fuzzer-no-link,address,undefined; fuzz/run.sh builds each
# harness alone, with the sources it tests, and runs them.

# The loader's own sources, compiled for the fuzzer alone: building the
# whole of libconfine.a with the sanitizers took most of the run's time.
if ENABLE_FUZZING
noinst_PROGRAMS += fuzz/profile-fuzzer
fuzz_profile_fuzzer_SOURCES = fuzz/profile-fuzzer.c src/input/profile.c \
	src/input/values.c src/lib/fdio.c src/lib/term-escape.c src/lib/util.c \
	src/lib/log.c
fuzz_profile_fuzzer_CFLAGS = $(AM_CFLAGS) $(FUZZ_FLAGS)
fuzz_profile_fuzzer_LDFLAGS = $(FUZZ_FLAGS)
fuzz_profile_fuzzer_LDADD = $(INIH_LIBS)

# The keyholder's policy, likewise with its own sources.
noinst_PROGRAMS += fuzz/keyholder-policy-fuzzer
fuzz_keyholder_policy_fuzzer_SOURCES = fuzz/keyholder-policy-fuzzer.c \
	src/keyholder/hook.c src/keyholder/policy.c \
	src/keyholder/policy-body.c src/lib/term-escape.c src/lib/util.c \
	src/lib/log.c
fuzz_keyholder_policy_fuzzer_CFLAGS = $(AM_CFLAGS) $(FUZZ_FLAGS) \
	$(JANSSON_CFLAGS)
fuzz_keyholder_policy_fuzzer_LDFLAGS = $(FUZZ_FLAGS)
fuzz_keyholder_policy_fuzzer_LDADD = $(JANSSON_LIBS)
endif

FUZZ_CORPUS = \
	fuzz/corpus/profile/all-keys.ini \
	fuzz/corpus/profile/comments.ini \
	fuzz/corpus/profile/continuation.ini \
	fuzz/corpus/profile/crlf-bom.ini \
	fuzz/corpus/profile/extends-mid.ini \
	fuzz/corpus/profile/network.ini \
	fuzz/corpus/keyholder-policy/anthropic-messages \
	fuzz/corpus/keyholder-policy/anthropic-oauth-tools \
	fuzz/corpus/keyholder-policy/gemini-stream \
	fuzz/corpus/keyholder-policy/openai-responses \
	fuzz/corpus/keyholder-policy/openai-chat-models
EXTRA_DIST += fuzz/run.sh fuzz/profile.dict fuzz/keyholder-policy.dict \
	$(FUZZ_CORPUS)
