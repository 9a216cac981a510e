# SPDX-License-Identifier: ISC
# tests/dist.mk - the tests of what is shipped: the manual pages against
# --help and the profile loader, the bash, zsh and fish completions, and
# "make install DESTDIR=" against the expected file list.  Included by
# Makefile.am after the TAP drivers and AM_TESTS_ENVIRONMENT are set.

DIST_TESTS = \
	tests/docs/man.sh \
	tests/completions/bash.sh \
	tests/completions/zsh.sh \
	tests/completions/fish.sh \
	tests/packaging/install.sh

TESTS += $(DIST_TESTS)
EXTRA_DIST += $(DIST_TESTS)

# install.sh runs a make of its own in the build tree.
AM_TESTS_ENVIRONMENT += MAKE='$(MAKE)'; export MAKE;

