/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WB_TRACE_CMD_H
#define WB_TRACE_CMD_H

#include <getopt.h>

#define TRACE_PROG "wakebench-trace"

void trace_usage(void);
/* full_argc/argv: the whole command line, recorded in meta.txt */
int trace_record(int argc, char **argv, int full_argc, char **full_argv);
int trace_cleanup(int argc, char **argv);
int trace_timeline(int argc, char **argv);
int trace_attribute(int argc, char **argv);
int trace_residency(int argc, char **argv);
int trace_turbostat(int argc, char **argv);

#endif
