/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstate: changing CPU idle settings safely.
 *
 * Settings are per CPU: an idle state's "disable" flag, and the CPU's
 * PM QoS resume latency limit (cpuN/power/pm_qos_resume_latency_us);
 * or per machine: the cpuidle governor, the haltpoll driver's
 * guest_halt_poll_ns, the busy-polling sysctls net.core.busy_read and
 * busy_poll (what a sweep's mitigations change, issue 35).
 * The system-wide /dev/cpu_dma_latency is held only when asked for
 * explicitly (spec.system, `cstate hold`), never implied by a CPU.
 *
 * A session records every setting's original value in its state file
 * before it changes it, and restores the originals when it ends (normal
 * exit, atexit, or the signal paths of the commands). A process killed
 * with SIGKILL leaves its state file behind, and `wakebench cstate
 * restore` undoes it. A state file records the owner's PID and its start
 * time (/proc/PID/stat field 22), so a PID reused by an unrelated process
 * does not keep the file alive.
 *
 * Sessions on one host share the settings: the state files in the state
 * directory, read under flock(2) on the directory, are the machine-wide
 * record of who holds what. A session asking for the value another live
 * session holds joins it (and records the true original from it); a
 * session asking for a different value is refused (-EBUSY, the message
 * names the holder's PID and command) unless forced. A setting comes back
 * to its original only when its last holder ends. Where a setting changed
 * since (someone outside wakebench) it is left alone.
 *
 * PM QoS (/dev/cpu_dma_latency) is held through an open file: the kernel
 * drops the request when the file is closed, even on SIGKILL, so it needs
 * no restore; the state file records it for the conflict check.
 *
 * State files: $WAKEBENCH_STATE_DIR or /run/wakebench, one per session,
 * cstate.<pid>.state (cstate.<pid>.<n>.state for further sessions of one
 * process).
 *
 * The PM QoS values and reads are pmqos.h's, the owner check procpid.h's,
 * the signal set-up of the commands runsignals.h's.
 */
#ifndef WB_CSTATE_H
#define WB_CSTATE_H

#include <stddef.h>
#include <stdint.h>

struct cstate_session;

enum cstate_mode {
	CSTATE_ON,		/* every idle state enabled */
	CSTATE_OFF,		/* every state with exit latency > 0 disabled */
	CSTATE_MAXLAT,		/* states over the exit latency disabled */
};

struct cstate_spec {
	enum cstate_mode mode;
	uint64_t max_latency_us;
	int system;		/* also hold /dev/cpu_dma_latency */
};

/*
 * "on", "off", "max-latency-us=N", and the system-wide forms "system-off",
 * "system-max-latency-us=N" (also hold /dev/cpu_dma_latency); 0 or -1.
 */
int cstate_spec_parse(const char *s, struct cstate_spec *spec);
const char *cstate_state_dir(void);

/* Creates a session; its state file appears with the first change. */
struct cstate_session *cstate_begin(const char *cmdline);
/*
 * Sets state idx of cpu to disabled/enabled, saving the original first.
 * Returns 0 or -errno.
 */
int cstate_set(struct cstate_session *s, unsigned int cpu, unsigned int idx,
	       int disabled);
/*
 * Sets cpu's pm_qos_resume_latency_us to val ("0": no constraint, "n/a":
 * no latency tolerated, "N" microseconds), saving the original first.
 * Returns 0 or -errno (-ENOENT: the CPU has no such file).
 */
/*
 * The cpuidle governor (cpuidle/current_governor) set to name (checked
 * as a name only: the caller checks it is available), recorded and
 * restored like every other setting. 0 or -errno.
 */
int cstate_set_governor(struct cstate_session *s, const char *name);
/*
 * The guest haltpoll driver's poll window, in ns
 * (module/haltpoll/parameters/guest_halt_poll_ns under the sysfs root),
 * recorded and restored like every other setting. The caller checks the
 * driver reads it. 0 or -errno (-ENOENT: no haltpoll module).
 */
int cstate_set_haltpoll_ns(struct cstate_session *s, uint64_t ns);
#define CSTATE_HALTPOLL_FILE "module/haltpoll/parameters/guest_halt_poll_ns"
/*
 * The kernel's socket busy polling for sockets that do not set
 * SO_BUSY_POLL themselves (memcached, redis): net.core.busy_read and
 * net.core.busy_poll (under /proc/sys or $WAKEBENCH_PROCSYS) both set to
 * US, recorded and restored like every other setting. 0 or -errno.
 */
int cstate_set_busy_poll(struct cstate_session *s, uint64_t us);
int cstate_set_resume(struct cstate_session *s, unsigned int cpu,
		      const char *val);
/* Holds /dev/cpu_dma_latency (or $WAKEBENCH_PMQOS_DEV) at us. */
int cstate_pmqos_hold(struct cstate_session *s, int32_t us);
/* Later changes override other sessions' holds instead of failing. */
void cstate_force(struct cstate_session *s, int force);
/* The message of the last failed change (-EBUSY: the holder), or "". */
const char *cstate_error(const struct cstate_session *s);
/*
 * A state on cpu by index ("2"), by its kernel name ("haltpoll idle",
 * case-insensitive; '_' or '-' stand for a space), or by the first word
 * of exactly one name ("haltpoll"). Returns the index, -ENOENT, or
 * -ENOTUNIQ when a word names several states.
 */
int cstate_resolve(unsigned int cpu, const char *spec);
/*
 * Applies a spec to the CPUs of mask (NULL: all). Checks everything
 * before changing anything; on a failure midway restores what it
 * changed. Returns 0 or -errno with a message in err.
 */
struct cpuset;
int cstate_apply(struct cstate_session *s, const struct cstate_spec *spec,
		 const struct cpuset *mask, char *err, size_t errlen);
/*
 * After cstate_apply: "" when its changes act, else one line saying what
 * was and was not changed and why it does not act (no cpuidle driver:
 * no idle state to disable, PM QoS read by no one). The caller warns.
 */
const char *cstate_warning(const struct cstate_session *s);
/*
 * What this process's last applied spec could change, for its snapshot:
 * "" (none applied, or "on"), "idle_states_and_pm_qos", or
 * "pm_qos_only: no cpuidle driver".
 */
const char *cstate_effect(void);
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
 * @cpu (or every CPU when cpu < 0) through per-CPU settings only (plus
 * /dev/cpu_dma_latency when spec->system) in a new session that is also
 * ended at exit; cstate_run_signals() (runsignals.h) first. Returns the
 * session, or NULL with a message in err.
 */
struct cstate_session *cstate_run_begin(const struct cstate_spec *spec,
					int cpu, const char *cmdline,
					char *err, size_t errlen);
/* The same on the CPUs of mask (the client's threads). */
struct cstate_session *cstate_run_begin_cpus(const struct cstate_spec *spec,
					     const struct cpuset *mask,
					     const char *cmdline,
					     char *err, size_t errlen);
const char *cstate_spec_name(const struct cstate_spec *spec, char *buf,
			     size_t len);

/*
 * Restores a state file left by a dead process. report(msg) is called
 * per setting. Returns settings restored, or -errno: -EBUSY when the
 * owner is alive, -EINVAL when it is not a wakebench state file,
 * -EBADMSG when a line could not be read (reported; what could be read is
 * restored and the file is renamed to PATH.bad so it does not stay).
 */
int cstate_restore_file(const char *path, void (*report)(const char *msg));

/*
 * What the state file at path holds, as lines passed to line(ctx, text)
 * (never printed here): "PATH: pid N (COMMAND), running|not running",
 * then per setting "  cpu1 state1 (C1) disable 1 -> 0" or "  cpu1
 * pm_qos_resume_latency_us 0 -> n/a": its value now and the original a
 * restore puts back (noting a value changed since by someone else, which
 * a restore leaves alone), and a /dev/cpu_dma_latency hold. Returns 1
 * when the owner runs (a restore leaves the file to it), 0 when not, or
 * -errno (-EINVAL: not a wakebench state file).
 */
int cstate_describe_file(const char *path,
			 void (*line)(void *ctx, const char *text), void *ctx);

#endif
