/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wbinst: which tracefs instances are wakebench's, and whose owner is gone.
 *
 * `trace record` names its instance "wakebench-PID". A SIGKILLed record
 * leaves it behind with tracing on and its buffers allocated; nothing
 * else would ever remove it. An instance is stale when its name is ours
 * and its PID is not a running `trace record` (no /proc/PID, or a process
 * whose comm is not "wakebench-trace": the PID was reused), or is the
 * caller's own PID (a record that has not created its instance yet cannot
 * own one by that name).
 */
#ifndef WB_WBINST_H
#define WB_WBINST_H

#include <sys/types.h>

/* The comm of a running `trace record` (15 characters, as the kernel keeps). */
#define WBINST_OWNER_COMM "wakebench-trace"

/* The PID in "wakebench-PID", or -1 when the name is not one of ours. */
pid_t wbinst_pid(const char *name);
/*
 * 1 when instance NAME is ours and stale, 0 when it is ours and live or
 * not ours. proc is the /proc to look in (tests pass a fake tree); self is
 * the caller's PID (0: none).
 */
int wbinst_stale(const char *name, const char *proc, pid_t self);

#endif
