/* SPDX-License-Identifier: GPL-2.0 */
/*
 * proccpu: the CPU time a process (and the processes it started) used,
 * from /proc/PID/stat: utime + stime (fields 14 and 15, clock ticks of
 * sysconf(_SC_CLK_TCK), every thread of the process counted). Read at a
 * window's edges, their difference is what a server cost over it.
 *
 * The stat line is hostile data: the command name (field 2) may hold
 * spaces, '(' and ')' (a process names itself), so the parser takes the
 * LAST ')' as its end (the kernel caps the name at 16 bytes, no newline)
 * and then wants every field it reads to be a plain decimal.
 */
#ifndef WB_PROCCPU_H
#define WB_PROCCPU_H

#include <stddef.h>
#include <stdint.h>

struct proccpu {
	int pid, ppid;
	char state;
	uint64_t utime, stime;		/* clock ticks */
	uint64_t starttime;		/* clock ticks after boot */
};

/*
 * Parses one /proc/PID/stat line (LINE, LEN bytes, not necessarily
 * NUL-terminated; a trailing newline is allowed) into P. 0, or -EINVAL
 * when it is not such a line.
 */
int proccpu_parse(const char *line, size_t len, struct proccpu *p);

/* /proc/PID/stat into P: 0, -ENOENT (no such process), -EINVAL, -errno. */
int proccpu_read(int pid, struct proccpu *p);

/*
 * The nanoseconds every thread of PID has run, the first field of each
 * /proc/PID/task/TID/schedstat (the scheduler's sum_exec_runtime, exact
 * where utime and stime come in ticks), into *NS. A thread that ended is
 * not counted. 0, or -errno (-ENOENT: no schedstat in this kernel).
 */
int proccpu_threads_ns(int pid, uint64_t *ns);

/*
 * The CPU ticks (utime + stime) of PID and of every live process below
 * it (children of children too: a wrapper such as `cstate limit -- CMD`
 * or a shell counts with what it runs) into *TICKS, the processes
 * counted into *NPROC (may be NULL), and when NS is not NULL their
 * threads' nanoseconds (proccpu_threads_ns) into *NS, or UINT64_MAX when
 * one cannot be read. A process that ended before the call is not
 * counted (its time went to its parent only once waited for). 0, or
 * -errno with ERR ("PID 123: no such process").
 */
int proccpu_tree(int pid, uint64_t *ticks, uint64_t *ns, int *nproc, char *err,
		 size_t errlen);

/* Every process of /proc at one moment, sorted by PID. */
struct proccpu_table {
	struct proccpu *p;
	size_t n;
};

/* Reads every /proc/PID/stat that can be read into T: 0 or -errno. */
int proccpu_table_read(struct proccpu_table *t);
void proccpu_table_free(struct proccpu_table *t);
/*
 * proccpu_tree with the processes below PID taken from T (read once for
 * many PIDs: a whole /proc scan costs a read per process). PID itself is
 * read anew.
 */
int proccpu_tree_in(const struct proccpu_table *t, int pid, uint64_t *ticks,
		    uint64_t *ns, int *nproc, char *err, size_t errlen);

/* TICKS as microseconds (sysconf(_SC_CLK_TCK)); NAN when unknown. */
double proccpu_ticks_us(uint64_t ticks);

#endif
