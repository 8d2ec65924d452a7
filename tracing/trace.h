/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WB_TRACE_CMD_H
#define WB_TRACE_CMD_H

#include "cli.h"
#include "clishared.h"

#define TRACE_PROG "wakebench-trace"

/* Each subcommand's option table (its --help and parsing). */
extern const struct cli_cmd trace_record_cmd, trace_cleanup_cmd,
	trace_timeline_cmd, trace_attribute_cmd, trace_residency_cmd,
	trace_turbostat_cmd, trace_capture_cmd, trace_export_cmd,
	trace_import_cmd;

/* full_argc/argv: the whole command line, recorded in meta.txt */
int trace_record(int argc, char **argv, int full_argc, char **full_argv);
int trace_cleanup(int argc, char **argv);
int trace_timeline(int argc, char **argv);
int trace_attribute(int argc, char **argv);
int trace_residency(int argc, char **argv);
int trace_turbostat(int argc, char **argv);
int trace_capture(int argc, char **argv);
int trace_export(int argc, char **argv);
int trace_import(int argc, char **argv);

/*
 * One export or import (tracing/export.c parses, these do the work):
 * export reads trace_dir and writes file, import reads file and writes
 * trace_dir. Each returns the exit status (0, 1) after printing what it
 * did or why it failed; a file or directory is whole or not there.
 */
struct trace_xfer {
	const char *trace_dir;
	const char *file;
	int force;		/* replace what is there */
	int skip_corrupt;	/* export: leave corrupt pages out */
};

int trace_export_tracedat(const struct trace_xfer *x);	/* tracing/tracedat.c */
int trace_export_socwatch(const struct trace_xfer *x);	/* tracing/socwatch.c */
int trace_import_socwatch(const struct trace_xfer *x);	/* tracing/socwatch.c */

/*
 * turbostat's table in TXT (at most MAX bytes of it; 0: all) written as
 * CSV to CSV, with its row and column counts: 0, or -errno with "turbostat
 * wrote no TXT", "cannot read TXT", "no turbostat table in TXT" or
 * "cannot write CSV" in err. Shared by trace turbostat and trace capture.
 */
int trace_turbostat_csv(const char *txt, const char *csv, size_t max,
			size_t *rows, int *cols, char *err, size_t errlen);

struct csv;
/* Closes c, written to path: 0, or 1 with "cannot write PATH: cause" on
 * standard error (a full disk may show only at the last write, here). */
int trace_csv_close(struct csv *c, const char *path);

#endif
