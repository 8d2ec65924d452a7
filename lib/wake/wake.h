/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wake: exit latency per idle state, measured directly (wult,
 * cyclictest, the kernel's cpuidle latency selftest).
 *
 * A sleeper thread pinned to the measured CPU blocks; a launch time is
 * drawn a random distance (uniform in [ldist_min, ldist_max], seeded)
 * after it last ran, and at that time it is woken by a timer (it sleeps
 * in clock_nanosleep(TIMER_ABSTIME)), by another CPU (a sender thread
 * writes an eventfd the sleeper reads: a wake-up IPI), or by a packet (the
 * sender sends a UDP datagram on loopback, the sleeper blocks in recv).
 * latency = CLOCK_MONOTONIC when the sleeper runs - launch time. Around
 * each datapoint the sleeper reads every idle state's usage and time (and
 * above/below) of its CPU through sysfs files it keeps open (kernfs makes
 * the value anew on every pread at offset 0): the state whose usage moved
 * is the one the CPU woke from (wult's "requested C-state").
 *
 * The library never prints: the engine hands each datapoint to a
 * callback in the sleeper thread, and errors come back as -errno with a
 * message.
 */
#ifndef WB_WAKE_H
#define WB_WAKE_H
#include <stddef.h>
#include <stdint.h>

struct hist;

enum wake_source {
	WAKE_SRC_TIMER,
	WAKE_SRC_IPI,
	WAKE_SRC_PACKET,
	WAKE_NSRC,
};

const char *wake_source_name(int src);
/* "timer,ipi,packet" (any order, each once at most) into a bit mask
 * (1 << enum wake_source). 0, or -1 for an empty or unknown name. */
int wake_sources_parse(const char *s, unsigned int *mask);

/* The state settings of --states, in the order given ("all,none"). */
enum wake_setting {
	WAKE_SET_ALL,		/* as the machine is */
	WAKE_SET_EACH,		/* one state enabled at a time */
	WAKE_SET_NONE,		/* no idle state: the floor */
};
#define WAKE_MAX_PHASES 3
/* "all", "each", "none" as a comma list, each once: n settings into
 * out[]. 0, or -1. */
int wake_settings_parse(const char *s, int *out, int *n);

#define WAKE_MAX_STATES 16

/* What a datapoint's state is, besides a state index (>= 0). */
#define WAKE_ST_BUSY	(-1)	/* no usage moved: the CPU never idled */
#define WAKE_ST_MIXED	(-2)	/* several states' usage moved */
#define WAKE_ST_UNKNOWN	(-3)	/* no cpuidle states to tell */
#define WAKE_ST_NONE	(-4)	/* the floor: no idle state entered */

/*
 * The state a datapoint woke from, from every state's usage counter
 * before and after it (n states): the index of the one that moved,
 * WAKE_ST_BUSY when none did, WAKE_ST_MIXED when several did,
 * WAKE_ST_UNKNOWN when n is 0.
 */
int wake_attribute(const uint64_t *before, const uint64_t *after,
		   unsigned int n);

/* One reading of a CPU's idle-state counters. */
struct wake_counters {
	uint64_t usage[WAKE_MAX_STATES];
	uint64_t time_us[WAKE_MAX_STATES];
	uint64_t above[WAKE_MAX_STATES];
	uint64_t below[WAKE_MAX_STATES];
	uint64_t reads;			/* counters read into it (an absent one too) */
};

/* A CPU's idle states, their sysfs counter files held open. */
struct wake_cpuidle {
	unsigned int cpu;
	unsigned int n;			/* 0: no cpuidle states */
	int has_above;			/* above/below exist (kernel >= 5.6) */
	char name[WAKE_MAX_STATES][32];
	uint64_t latency_us[WAKE_MAX_STATES];
	uint64_t residency_us[WAKE_MAX_STATES];
	int fd_usage[WAKE_MAX_STATES], fd_time[WAKE_MAX_STATES];
	int fd_above[WAKE_MAX_STATES], fd_below[WAKE_MAX_STATES];
};

/*
 * Opens cpu's state counters under the sysfs root ($WAKEBENCH_SYSFS
 * honoured). A CPU without cpuidle states gives n = 0. 0, or -errno with
 * a message (-E2BIG: more than WAKE_MAX_STATES states).
 */
int wake_cpuidle_open(struct wake_cpuidle *ci, unsigned int cpu, char *err,
		      size_t errlen);
/* One pread per file. 0, or -errno. */
int wake_cpuidle_read(const struct wake_cpuidle *ci, struct wake_counters *c);
/*
 * Brings C, an earlier reading, up to date: every state's usage, and
 * time/above/below of the states whose usage moved only (the kernel adds
 * to those only when it adds to usage). n + 3 reads when the CPU idled
 * once, against 4n for wake_cpuidle_read. 0, or -errno.
 */
int wake_cpuidle_update(const struct wake_cpuidle *ci, struct wake_counters *c);
void wake_cpuidle_close(struct wake_cpuidle *ci);

/* One datapoint. */
struct wake_point {
	uint64_t seq;
	int source;
	int setting;		/* index of the phase's label (wake_summary) */
	uint64_t launch_ns, wake_ns, latency_ns;
	uint64_t silent_ns;	/* sum of the states' time deltas */
	int state;		/* index or WAKE_ST_* */
	uint64_t above, below;	/* the state's deltas (0 for WAKE_ST_*) */
	uint32_t tid;		/* the sleeper's thread (its sched_wakeup in a
				 * trace) */
};

/* The datapoints of one source, phase and state. */
struct wake_group {
	int source, setting, state;
	struct hist *h;		/* latency_ns */
	uint64_t above, below;
};

#define WAKE_MAX_SETTINGS (2 + WAKE_MAX_STATES)
#define WAKE_MAX_GROUPS (WAKE_NSRC * WAKE_MAX_SETTINGS * (WAKE_MAX_STATES + 2))

struct wake_summary {
	int nsettings;
	char setting[WAKE_MAX_SETTINGS][48];	/* "all", "none", "only:C1" */
	int is_floor[WAKE_MAX_SETTINGS];
	uint64_t total[WAKE_NSRC][WAKE_MAX_SETTINGS];
	uint64_t busy[WAKE_NSRC][WAKE_MAX_SETTINGS];
	uint64_t mixed[WAKE_NSRC][WAKE_MAX_SETTINGS];
	int ngroups;
	struct wake_group group[WAKE_MAX_GROUPS];
	size_t exact_max;	/* exact samples per group, then the histogram */
};

void wake_summary_init(struct wake_summary *s, size_t exact_max);
void wake_summary_free(struct wake_summary *s);
/* A phase's label: its index, or -ENOSPC. */
int wake_summary_setting(struct wake_summary *s, const char *label,
			 int is_floor);
/*
 * Counts a datapoint; busy and mixed ones are counted and left out of
 * the statistics. 0, or -ENOMEM.
 */
int wake_summary_add(struct wake_summary *s, const struct wake_point *p);
/* The group of (source, setting, state), or NULL. */
struct wake_group *wake_summary_find(struct wake_summary *s, int source,
				     int setting, int state);

/* The percentiles of the summary: p50, p90, p99, p99.9, p99.99. */
#define WAKE_NPCT 5
extern const double wake_pct[WAKE_NPCT];
extern const char *const wake_pct_name[WAKE_NPCT];	/* "p50", "p99_9" */

/* A group's statistics, in microseconds. */
struct wake_stats {
	uint64_t n;
	double min, mean, max, sd;
	double pct[WAKE_NPCT];
	double lo[WAKE_NPCT], hi[WAKE_NPCT];	/* 95 % CI; NaN: none */
	int ci_ok[WAKE_NPCT];
	int exact;		/* percentiles from every sample */
};

/* Fills st from g (n = 0: everything NaN). */
void wake_group_stats(struct wake_group *g, struct wake_stats *st);

/*
 * The wake cost of a state: its p50 and mean minus the floor's (st and
 * floor measured with the same source). 0, or -ENOENT when either has no
 * datapoint (costs NaN).
 */
int wake_cost(const struct wake_stats *st, const struct wake_stats *floor,
	      double *p50_us, double *mean_us);

/*
 * The group of the floor for a source: the setting marked is_floor and
 * the state WAKE_ST_NONE. NULL when there is none.
 */
struct wake_group *wake_summary_floor(struct wake_summary *s, int source);

/* A state label: the name, "busy", "mixed", "unknown", "none". */
const char *wake_state_label(const struct wake_cpuidle *ci, int state);

struct prng;

/*
 * The source of the next datapoint among the mask sources: with by_count,
 * drawn weighted by left[] (what each source has left), so the datapoints
 * of all the sources come in a uniformly shuffled order and each gets
 * exactly its count; else uniformly. -1 when nothing is left.
 */
int wake_pick_source(unsigned int sources, const uint64_t *left, int by_count,
		     struct prng *g);
/* A launch distance, uniform in [min_ns, max_ns]. */
uint64_t wake_draw_ldist(struct prng *g, uint64_t min_ns, uint64_t max_ns);

/* The measurement of one phase. */
struct wake_cfg {
	int cpu, sender_cpu;
	unsigned int sources;		/* mask of enum wake_source */
	uint64_t ldist_min_ns, ldist_max_ns;
	uint64_t count;			/* per source; 0: by duration */
	uint64_t duration_ns;
	int priority;			/* SCHED_FIFO; 0: the normal class */
	uint64_t seed;
	int floor;			/* the floor: a SCHED_IDLE spinner on
					 * cpu, unless floor_nospin (the
					 * caller keeps it out of idle states
					 * by PM QoS or disabling them) */
	int floor_nospin;
	int setting;			/* copied into each point */
	uint64_t seq0;			/* first seq */
	const struct wake_cpuidle *ci;	/* the measured CPU's counters */
	/* packet: the sender's socket (bound, e.g. in a namespace of its
	 * own: wakenet) and the address the sleeper binds, both in use
	 * when packet_rx_addr is not 0 (network order); else loopback */
	int packet_tx_fd;
	uint32_t packet_rx_addr;
	/* In the sleeper thread, after each datapoint; non-zero stops. */
	int (*on_point)(void *arg, const struct wake_point *p);
	void *arg;
};

struct wake_run;

/* Starts the threads. 0, or -errno with a message. */
int wake_run_start(const struct wake_cfg *cfg, struct wake_run **out,
		   char *err, size_t errlen);
/* Asks the run to stop and wakes a blocked sleeper (any thread). */
void wake_run_stop(struct wake_run *r);
/* 1 once the sleeper has finished. */
int wake_run_finished(struct wake_run *r);
/* Datapoints so far. */
uint64_t wake_run_points(struct wake_run *r);
/* Joins and frees. 0, or the sleeper's -errno with a message. */
int wake_run_join(struct wake_run *r, char *err, size_t errlen);

#endif
