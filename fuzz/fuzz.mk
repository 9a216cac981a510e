# SPDX-License-Identifier: ISC
# fuzz/fuzz.mk - the libFuzzer harness of the profile loader; included by
# Makefile.am, which defines noinst_PROGRAMS (and EXTRA_DIST) first, as it
# does TESTS and check_PROGRAMS for tests/unit.mk.  Built only with
# ./configure --enable-fuzzing CC=clang, which also compiles everything else
# with -fsanitize=fuzzer-no-link,address,undefined; fuzz/run.sh builds the
# harness alone, with the loader's sources, and runs it.

# The loader's own sources, compiled for the fuzzer alone: building the
# whole of libconfine.a with the sanitizers took most of the run's time.
if ENABLE_FUZZING
noinst_PROGRAMS += fuzz/profile-fuzzer
fuzz_profile_fuzzer_SOURCES = fuzz/profile-fuzzer.c src/input/profile.c \
	src/input/values.c src/lib/term-escape.c src/lib/util.c src/lib/log.c
fuzz_profile_fuzzer_CFLAGS = $(AM_CFLAGS) $(FUZZ_FLAGS)
fuzz_profile_fuzzer_LDFLAGS = $(FUZZ_FLAGS)
fuzz_profile_fuzzer_LDADD = $(INIH_LIBS)
endif

FUZZ_CORPUS = \
	fuzz/corpus/profile/all-keys.ini \
	fuzz/corpus/profile/comments.ini \
	fuzz/corpus/profile/continuation.ini \
	fuzz/corpus/profile/crlf-bom.ini \
	fuzz/corpus/profile/extends-mid.ini \
	fuzz/corpus/profile/network.ini
EXTRA_DIST += fuzz/run.sh fuzz/profile.dict $(FUZZ_CORPUS)
