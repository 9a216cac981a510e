/* SPDX-License-Identifier: ISC */
/*
 * flag.h - changed paths that can make the host run code later
 * (research: the write-down and persistence catalogue).  Pure.
 */
#ifndef CONFINE_FLAG_H
#define CONFINE_FLAG_H

/* Why applying a change to path can run code on the host, or NULL. */
const char	*flag_path(const char *path);

#endif
