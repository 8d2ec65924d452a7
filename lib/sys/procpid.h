/* SPDX-License-Identifier: GPL-2.0 */
/*
 * procpid: whether the process that wrote a state file still runs: its
 * PID and its start time from /proc/PID/stat (field 22), so a PID reused
 * by an unrelated process does not count. The code is in cstate.c, whose
 * sessions record their own start time the same way.
 */
#ifndef WB_PROCPID_H
#define WB_PROCPID_H

/* The start time (clock ticks after boot) in a /proc/PID/stat line. */
int cstate_parse_starttime(const char *stat, unsigned long long *start);
/* 1 when pid runs and (start != 0) started at start; 0 when not. */
int cstate_owner_alive(int pid, unsigned long long start);

#endif
