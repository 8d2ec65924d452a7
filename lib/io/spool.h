/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spool: fixed-size records streamed to a file without a name while a run
 * goes, and read back in order after it (DESIGN.md "Bounded memory").
 *
 * The client keeps each finished request's record here instead of in
 * memory, and turns them into requests.csv once the run is over: copying
 * a record into a buffer is what the sending loop can afford per request
 * (formatting a CSV row costs ten times more).
 *
 * The buffer is SPOOL_CHUNKS chunks of SPOOL_CHUNK bytes, each holding
 * whole records. A full chunk waits for the writer's spare time:
 * spool_flush() writes the oldest one (one write() of 16 KB, a few
 * microseconds; the client calls it when its next send is far enough
 * away). Only when every chunk is full does spool_add() write the oldest
 * SPOOL_FORCED itself, in one writev(): a writer without spare time (a
 * rate whose gaps are shorter than a write) makes fewer sends late with
 * fewer, larger writes. Memory is bounded (256 KB) whatever the run's
 * length.
 *
 * The file is created in the result directory (so it takes space where
 * the results go, and a full disk is found during the run, not after) as
 * an unnamed file (O_TMPFILE; else a name removed at once): nothing is
 * left behind whatever ends the process.
 */
#ifndef WB_SPOOL_H
#define WB_SPOOL_H

#include <stddef.h>
#include <stdint.h>

/* Bytes written at a time, the chunks buffered, and how many chunks
 * spool_add() writes at once when none is free. */
#define SPOOL_CHUNK 16384
#define SPOOL_CHUNKS 16
#define SPOOL_FORCED 8

struct spool;

/* A spool of records of rec bytes (1 .. SPOOL_CHUNK) in dir: 0 or -errno. */
int spool_open(struct spool **sp, const char *dir, size_t rec);
/*
 * Appends one record (writing the oldest chunk first when every chunk is
 * full). 0, or -errno of the first write that failed (then sticky: the
 * records are lost, the error is the spool's).
 */
int spool_add(struct spool *s, const void *rec);
/* Full chunks waiting to be written. */
unsigned int spool_backlog(const struct spool *s);
/* Writes the oldest full chunk, if any: 1 written, 0 none, -errno. */
int spool_flush(struct spool *s);
/* The first write error (-errno), or 0. */
int spool_error(const struct spool *s);
/* Records added. */
uint64_t spool_count(const struct spool *s);
/* Ends writing and goes back to the first record: 0 or -errno. */
int spool_rewind(struct spool *s);
/* After spool_rewind(): 1 with the next record in rec, 0 at the end,
 * -errno (-EIO for a file shorter than what was written). */
int spool_next(struct spool *s, void *rec);
void spool_close(struct spool *s);

#endif
