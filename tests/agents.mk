# SPDX-License-Identifier: ISC
# tests/agents.mk - the tests of the shipped agent profiles against the
# real agents, installed from npm at pinned versions into a cache outside
# every home directory (/var/tmp/confine-agents, or CONFINE_AGENTS_CACHE),
# reused between runs.  They skip, saying so, when an agent is not in the
# cache and npm cannot reach the registry; keyholder-agents.sh, which
# runs them through confine-keyholder on the host, installs none and skips
# the ones the cache lacks.  Included by Makefile.am after
# tests/integration.mk, which sets up the TAP drivers and the environment.

AGENT_TESTS = \
	tests/agents/claude.sh \
	tests/agents/codex.sh \
	tests/agents/gemini.sh \
	tests/agents/keyholder-agents.sh

TESTS += $(AGENT_TESTS)
EXTRA_DIST += $(AGENT_TESTS) tests/agent-lib.sh tests/helpers/fake-model.py
