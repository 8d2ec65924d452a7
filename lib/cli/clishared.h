/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clishared: the option-table entries several commands take, declared
 * once: --cpu, --cstates, --log, --port-file, --trace-markers, --quiet,
 * --help and the hill-climbing set. Each takes the program's option
 * struct and field; the help text is the program's, since what a CPU or
 * a log is differs between them.
 */
#ifndef WB_CLISHARED_H
#define WB_CLISHARED_H

#include "cli.h"
#include "cstate.h"

static inline int clishared_cstates(const char *arg, void *dest)
{
	return cstate_spec_parse(arg, dest);
}

/* Names given as compound literals: static storage, one per table. */
#define CLI_OPT_PROTO(type, field)					\
	{ .name = "proto", .kind = CLI_ENUM,				\
	  .names = (const char *const[]){ "tcp", "udp", NULL },		\
	  .help = "transport (default tcp)", .off = CLI_AT(type, field) }

/* Stores 0 (fixed) or 1 (adaptive) into an int field. */
#define CLI_OPT_PREQUERY_POLICY(type, field, text)			\
	{ .name = "prequery-policy", .kind = CLI_ENUM,			\
	  .names = (const char *const[]){ "fixed", "adaptive", NULL },	\
	  .help = (text), .off = CLI_AT(type, field) }

#define CLI_OPT_CPU(type, field, text)					\
	{ .name = "cpu", .short_name = 'c', .kind = CLI_CPU, .arg = "N",	\
	  .help = (text), .off = CLI_AT(type, field) }

#define CLI_OPT_CSTATES(type, field, seenfield, text)			\
	{ .name = "cstates", .kind = CLI_CUSTOM,				\
	  .arg = "on|off|max-latency-us=N|system-off|system-max-latency-us=N", \
	  .help = (text), .parse = clishared_cstates,			\
	  .hint = "on, off, max-latency-us=N, system-off or system-max-latency-us=N", \
	  .off = CLI_AT(type, field), .seen = CLI_SEEN(type, seenfield) }

#define CLI_OPT_LOG(shortname, type, field, text)			\
	{ .name = "log", .short_name = (shortname), .kind = CLI_STRING,	\
	  .arg = "FILE", .help = (text), .off = CLI_AT(type, field) }

#define CLI_OPT_PORT_FILE(type, field, text)				\
	{ .name = "port-file", .kind = CLI_STRING, .arg = "FILE",	\
	  .help = (text), .off = CLI_AT(type, field) }

#define CLI_OPT_TRACE_MARKERS(type, field, text)			\
	{ .name = "trace-markers", .kind = CLI_FLAG, .help = (text),	\
	  .off = CLI_AT(type, field) }

#define CLI_OPT_QUIET(type, field, text)				\
	{ .name = "quiet", .short_name = 'q', .kind = CLI_FLAG,		\
	  .help = (text), .off = CLI_AT(type, field) }

#define CLI_OPT_HELP							\
	{ .name = "help", .short_name = 'h', .kind = CLI_HELP,		\
	  .help = "this help" }

/*
 * The adaptive controller's knobs (lib/hillclimb), into a struct
 * hillclimb_cfg field hc; maxname names the climbed value's bound
 * (--max-lead-us in the client, --max-delay-us in the midtier).
 */
#define CLI_OPTS_HILLCLIMB(type, hc, maxname)				\
	{ .name = "window", .kind = CLI_UINT, .arg = "N",		\
	  .help = "adaptive window in replies (default 1000)",		\
	  .min = 1, .max = 100000000, .off = CLI_AT(type, hc.window) },	\
	{ .name = "step-us", .kind = CLI_REAL, .store = CLI_DOUBLE,	\
	  .arg = "US", .help = "adaptive initial step (default 100)",	\
	  .min = 0.001, .max = 1e7, .off = CLI_AT(type, hc.step_us) },	\
	{ .name = "min-step-us", .kind = CLI_REAL, .store = CLI_DOUBLE,	\
	  .arg = "US", .help = "adaptive step floor (default 3)",	\
	  .min = 0.001, .max = 1e7, .off = CLI_AT(type, hc.min_step_us) }, \
	{ .name = (maxname), .kind = CLI_REAL, .store = CLI_DOUBLE,	\
	  .arg = "US", .help = "adaptive upper bound (default 1000000)",	\
	  .min = 0, .max = 1e7, .off = CLI_AT(type, hc.max_us) }

#endif
