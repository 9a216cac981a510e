/* SPDX-License-Identifier: ISC */
/*
 * cmd/doctor.h - "confine doctor": what this kernel and system support.
 */
#ifndef CONFINE_DOCTOR_H
#define CONFINE_DOCTOR_H

/* Print the report on stdout.  Returns 0 when a backend works here. */
int	doctor_run(void);

#endif
