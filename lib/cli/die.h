/* SPDX-License-Identifier: GPL-2.0 */
/*
 * die: the one place a command reports an error and exits: usage errors
 * (exit 2, with the hint to --help) and runtime errors (exit 1), one line
 * each, as every wakebench command does. The rest of lib/ neither prints
 * nor exits: it returns -errno and a message for the command to report.
 */
#ifndef WB_DIE_H
#define WB_DIE_H

/* Report "PROG: MSG" and "Try 'PROG --help'." on stderr, exit 2. */
__attribute__((noreturn, format(printf, 2, 3)))
void opt_usage(const char *prog, const char *fmt, ...);
/* After getopt printed its own complaint: "Try 'PROG --help'.", exit 2. */
__attribute__((noreturn))
void opt_bad_option(const char *prog);
/* Report "PROG: MSG" on stderr, exit 1 (runtime errors). */
__attribute__((noreturn, format(printf, 2, 3)))
void opt_die(const char *prog, const char *fmt, ...);

#endif
