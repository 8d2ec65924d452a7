/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstate: changing CPU idle settings safely.
 *
 * A session records every idle state's original "disable" value in a
 * state file before it changes it, and restores the originals when it
 * ends (normal exit, atexit, or the signal paths of the commands). A
 * process killed with SIGKILL leaves its state file behind, and
 * `wakebench cstate restore` undoes it.
 *
 * Restoring writes an original value back only where the state still
 * holds the value this session set; where someone changed it since (a
 * nested session on the same host, say, that restored first) it is left
 * alone. That makes overlapping sessions, like a client and a server on
 * one machine, restore correctly in either order.
 *
 * PM QoS (/dev/cpu_dma_latency) is held through an open file: the kernel
 * drops the request when the file is closed, even on SIGKILL, so it needs
 * no state file.
 *
 * State files: $WAKEBENCH_STATE_DIR or /run/wakebench, one per session,
 * cstate.<pid>.state.
 */
#ifndef WB_CSTATE_H
#define WB_CSTATE_H

#include <stddef.h>
#include <stdint.h>

struct cstate_session;

enum cstate_mode {
	CSTATE_ON,		/* every idle state enabled */
	CSTATE_OFF,		/* every state but POLL disabled, PM QoS 0 */
	CSTATE_MAXLAT,		/* states over the exit latency disabled */
};

struct cstate_spec {
	enum cstate_mode mode;
	uint64_t max_latency_us;
};

#define CSTATE_PMQOS_DEV "/dev/cpu_dma_latency"

/* "on", "off", "max-latency-us=N"; 0 or -1. */
int cstate_spec_parse(const char *s, struct cstate_spec *spec);
/* The --cstates option: parses or reports a usage error (exit 2). */
void cstate_spec_opt(const char *prog, const char *arg,
		     struct cstate_spec *spec);
const char *cstate_state_dir(void);

/* Creates a session; its state file appears with the first change. */
struct cstate_session *cstate_begin(const char *cmdline);
/*
 * Sets state idx of cpu to disabled/enabled, saving the original first.
 * Returns 0 or -errno.
 */
int cstate_set(struct cstate_session *s, unsigned int cpu, unsigned int idx,
	       int disabled);
/* Holds /dev/cpu_dma_latency (or $WAKEBENCH_PMQOS_DEV) at us. */
int cstate_pmqos_hold(struct cstate_session *s, int32_t us);
/*
 * Applies a spec to the CPUs in mask[0..ncpus) (NULL: all). Checks
 * everything before changing anything; on a failure midway restores
 * what it changed. Returns 0 or -errno with a message in err.
 */
int cstate_apply(struct cstate_session *s, const struct cstate_spec *spec,
		 const unsigned char *mask, int ncpus, char *err,
		 size_t errlen);
/*
 * Restores the session's changes, releases PM QoS, removes the state
 * file, frees the session. Returns the number of states left alone
 * because they changed since, or -errno.
 */
int cstate_end(struct cstate_session *s);
/*
 * Leaves the changes in place and the state file for `restore`; frees
 * the session (PM QoS is released: it cannot outlive the process).
 */
void cstate_detach(struct cstate_session *s);
/* cstate_end() at exit() unless ended before; one session at a time. */
void cstate_end_at_exit(struct cstate_session *s);
/* Number of changes the session has made so far. */
int cstate_changes(const struct cstate_session *s);

/*
 * The --cstates option of client, server and midtier: applies spec to
 * @cpu (or every CPU when cpu < 0) in a new session that is also ended
 * at exit. Returns the session, or NULL with a message in err.
 */
struct cstate_session *cstate_run_begin(const struct cstate_spec *spec,
					int cpu, const char *cmdline,
					char *err, size_t errlen);
const char *cstate_spec_name(const struct cstate_spec *spec, char *buf,
			     size_t len);

/*
 * Restores a state file left by a dead process. report(msg) is called
 * per state. Returns states restored, or -errno (-EBUSY: owner alive).
 */
int cstate_restore_file(const char *path, void (*report)(const char *msg));

#endif
