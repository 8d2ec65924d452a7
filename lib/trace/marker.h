/* SPDX-License-Identifier: GPL-2.0 */
/*
 * marker: request and pre-query marks written into a tracing instance's
 * trace_marker, so they land on the kernel timeline (ftrace:print) with
 * the same clock as the C-state events. Text: "wb <what> <seq>".
 */
#ifndef WB_MARKER_H
#define WB_MARKER_H

#include <stdint.h>

/*
 * Opens the trace_marker of instance `name`; NULL takes
 * $WAKEBENCH_TRACE_INSTANCE (set by `wakebench trace record -- CMD`).
 * Returns an fd or -errno (-ENOENT: no instance named).
 */
int marker_open(const char *name);
/* One write(2) of "wb <what> <seq>"; errors are ignored (best effort). */
void marker_write(int fd, const char *what, uint64_t seq);

#endif
