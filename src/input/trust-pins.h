/* SPDX-License-Identifier: ISC */
/*
 * input/trust-pins.h - pins of repository profiles: $XDG_CONFIG_HOME/confine/trust,
 * one "SHA256  PATH" line per trusted file, as direnv's allow list.
 *
 * Runs in: the supervisor (run, trust).
 */
#ifndef CONFINE_TRUST_H
#define CONFINE_TRUST_H

enum trust_state { TRUST_NONE, TRUST_PINNED, TRUST_CHANGED };

/* Is path pinned with this digest, with another, or not at all? */
enum trust_state trust_lookup(const char *pins, const char *path,
	    const char *hex);
/*
 * Pin path to hex (replacing an older pin of it), writing the pins file
 * under a temporary name and renaming it.  0 or -errno.
 */
int	trust_pin(const char *pins, const char *path, const char *hex);

#endif
