/* SPDX-License-Identifier: GPL-2.0 */
/*
 * energy: RAPL energy counters read around a run (DESIGN.md "Energy"),
 * from one of two sources, chosen once by energy_open:
 *
 * powercap: every zone under class/powercap whose name starts with
 * intel-rapl (Intel, and AMD's RAPL, which Linux exposes through the
 * same driver) is a domain: package-N, core, uncore, dram, psys. Each
 * reads energy_uj, a counter that wraps at max_energy_range_uj, so a
 * delta that went backwards wrapped once (a run shorter than a wrap
 * period, minutes at full load, is assumed). energy_uj is root-only.
 *
 * perf: where powercap has no readable package zone (no intel_rapl
 * driver, a container's /sys), the perf power PMU (lib/perfpmu) when its
 * counters open: events energy-pkg, energy-cores, energy-gpu, energy-ram
 * and energy-psys, one counter per package (the PMU's cpumask, else the
 * first CPU of each topology physical_package_id), counts times the
 * event's scale (joules per count; its unit must be Joules). The kernel
 * extends the hardware's 32-bit counter to 64 bits, so no wrap here. A
 * zone per event and package, named as powercap would name it (package-N,
 * core, uncore, dram, psys). An event the CPU does not count (energy-ram
 * on most desktops) is left out; a refusal (perf_event_paranoid without
 * root or CAP_PERFMON) leaves the whole PMU out, saying so.
 *
 * Machines without either (VMs) have no zone: energy_open says why once,
 * and the caller leaves its energy columns empty, never zero. The sysfs
 * root is lib/sysfs's and the counters go through perfpmu's ops, so
 * tests run on a fake tree with fake counters.
 */
#ifndef WB_ENERGY_H
#define WB_ENERGY_H

#include <stddef.h>
#include <stdint.h>

#define ENERGY_MAX_ZONES 64

enum energy_source { ENERGY_NONE, ENERGY_POWERCAP, ENERGY_PERF };

struct energy_zone {
	/* powercap: the zone under class/powercap, "intel-rapl:0:1";
	 * perf: EVENT:PACKAGE, "energy-pkg:0" */
	char path[64];
	char name[32];		/* its name file: "package-0", "dram" */
	uint64_t max_uj;	/* max_energy_range_uj (powercap) */
	uint64_t start_uj;
	uint64_t delta_uj;	/* after energy_stop (perf: joules * 1e6) */
	double joules;		/* after energy_stop */
	int package;		/* a package-N zone: counted in the total */
	/* perf */
	int fd, cpu;
	double scale;		/* joules per count */
	uint64_t start_count, delta_count;
};

struct energy {
	struct energy_zone z[ENERGY_MAX_ZONES];
	unsigned n;
	uint64_t start_ns, stop_ns;
	enum energy_source source;
	unsigned nfds;		/* perf: z[0..nfds) hold open counters */
};

/*
 * Finds the zones: powercap's when one is a readable package zone, else
 * the perf power PMU's when its package counter opens. Returns the
 * number of zones, 0 with why in msg when there are none (no powercap,
 * no RAPL, counters unreadable: RAPL's energy_uj is root-only; no power
 * PMU, or perf refused), or -errno with why in msg (a sysfs value that
 * does not parse). Call energy_close when done (perf holds counters).
 */
int energy_open(struct energy *e, char *msg, size_t msglen);
/* Closes the perf counters; the figures read stay. */
void energy_close(struct energy *e);
/* "powercap", "perf" or "none" (for summary.json's energy source). */
const char *energy_source_name(const struct energy *e);
/* Reads every zone's counter now; 0 or -errno (msg says which). */
int energy_start(struct energy *e, char *msg, size_t msglen);
int energy_stop(struct energy *e, char *msg, size_t msglen);
/* end - start for a counter that wraps at max_uj (0: no bound known). */
uint64_t energy_delta_uj(uint64_t start, uint64_t end, uint64_t max_uj);
/* Joules of the package zones over the run (their sum; both sources). */
double energy_total_j(const struct energy *e);

#endif
