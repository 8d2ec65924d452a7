/* SPDX-License-Identifier: GPL-2.0 */
/*
 * energy: RAPL energy counters through powercap sysfs, read around a run
 * (DESIGN.md "Energy"). Every zone under class/powercap whose name starts
 * with intel-rapl (Intel, and AMD's RAPL, which Linux exposes through the
 * same driver) is a domain: package-N, core, uncore, dram, psys. Each
 * reads energy_uj, a counter that wraps at max_energy_range_uj, so a
 * delta that went backwards wrapped once (a run shorter than a wrap
 * period, minutes at full load, is assumed).
 *
 * Machines without RAPL (VMs) have no zone: energy_open says so once,
 * and the caller leaves its energy columns empty, never zero. The sysfs
 * root is lib/sysfs's, so tests run on a fake powercap tree.
 */
#ifndef WB_ENERGY_H
#define WB_ENERGY_H

#include <stddef.h>
#include <stdint.h>

#define ENERGY_MAX_ZONES 32

struct energy_zone {
	char path[64];		/* under class/powercap: "intel-rapl:0:1" */
	char name[32];		/* its name file: "package-0", "dram" */
	uint64_t max_uj;	/* max_energy_range_uj */
	uint64_t start_uj;
	uint64_t delta_uj;	/* after energy_stop */
	int package;		/* a package-N zone: counted in the total */
};

struct energy {
	struct energy_zone z[ENERGY_MAX_ZONES];
	unsigned n;
	uint64_t start_ns, stop_ns;
};

/*
 * Finds the zones and reads their ranges. Returns the number of zones,
 * 0 with why in msg when there are none (no powercap, no RAPL, counters
 * unreadable: RAPL's energy_uj is root-only), or -errno.
 */
int energy_open(struct energy *e, char *msg, size_t msglen);
/* Reads every zone's counter now; 0 or -errno (msg says which). */
int energy_start(struct energy *e, char *msg, size_t msglen);
int energy_stop(struct energy *e, char *msg, size_t msglen);
/* end - start for a counter that wraps at max_uj (0: no bound known). */
uint64_t energy_delta_uj(uint64_t start, uint64_t end, uint64_t max_uj);
/* Joules of the package zones over the run (their sum). */
double energy_total_j(const struct energy *e);

#endif
