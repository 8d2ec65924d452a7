/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpurec: a recorder per CPU, as trace-cmd records: each recorded CPU's
 * trace_pipe_raw is spliced (libtracefs' tracefs_cpu_write: kernel pages
 * through a pipe into the file, no copy through user memory) into a file
 * of its own by a thread of its own, blocked in the kernel until the
 * CPU's buffer reaches its watermark. One thread woken every 50 ms for
 * every CPU fell behind past a few dozen busy CPUs; threads that sleep
 * until their own buffer fills keep up on hundreds.
 *
 * The files hold whole sub-buffers: the last, partial ones read at stop
 * are padded to the sub-buffer size (zeros: the page's commit says how
 * much is data).
 */
#ifndef WB_CPUREC_H
#define WB_CPUREC_H

#include <stddef.h>
#include <stdint.h>

struct tracefs_instance;
struct cpurec;

/*
 * Starts a recorder on each CPU whose fds[cpu] >= 0 (a file open for
 * writing, at its end) of inst's ncpus, with sub-buffers of subbuf
 * bytes. The threads block every signal: the caller's thread gets them.
 * Returns 0 or -errno with a message in err (nothing left running).
 */
int cpurec_start(struct tracefs_instance *inst, int ncpus, const int *fds,
		 int subbuf, struct cpurec **out, char *err, size_t errlen);
/*
 * Wakes every recorder (tracefs_cpu_stop), lets each drain what its CPU
 * still holds, joins them and closes the trace_pipe_raw files (an open
 * one keeps the instance busy). Call after tracing was turned off. Takes
 * well under a second unless the disk is slow. Returns 0, or the first
 * failed recorder's -errno with its CPU in *bad_cpu and the cause in err
 * (a full disk).
 */
int cpurec_stop(struct cpurec *r, int *bad_cpu, char *err, size_t errlen);
/* While they run: the first failed recorder's -errno (its CPU in *cpu),
 * or 0. */
int cpurec_error(const struct cpurec *r, int *cpu);
/* Bytes written so far, of every CPU. */
uint64_t cpurec_bytes(const struct cpurec *r);
/* Stops (if running) and frees; NULL is fine. */
void cpurec_free(struct cpurec *r);

/*
 * The per-CPU buffer (buffer_size_kb) for events_per_s events a second
 * on the busiest CPU: room for what arrives while its recorder is held
 * up for stall_s (writing to a slow disk), twice over, since the kernel
 * wakes a recorder only once its buffer is half full (buffer_percent
 * 50). An event is taken as 32 bytes (a cpu_idle event is 24 with its
 * header, an irq_handler_entry with its name about 40). At least 1024
 * KiB, at most 1 GiB.
 */
unsigned int cpurec_buffer_kb(double events_per_s, double stall_s);

#endif
