/* SPDX-License-Identifier: GPL-2.0 */
/*
 * topology: where a CPU sits (package, die, core, SMT siblings), read from
 * sysfs (or $WAKEBENCH_SYSFS), and the default placement of the measured
 * server and its client on a big host: the same socket, not SMT siblings
 * of each other, not CPU 0 (housekeeping interrupts land there) while
 * another CPU of that socket is free. Small hosts keep the old choice
 * (server 0, client the first other CPU): on the 2-vCPU VMs this was
 * built on, the last CPU never reports idle.
 */
#ifndef WB_TOPOLOGY_H
#define WB_TOPOLOGY_H

#include <stddef.h>

struct cpuset;

struct topology_cpu {
	int cpu;
	int package;		/* physical_package_id; -1 unknown */
	int die;		/* die_id; -1 unknown */
	int core;		/* core_id; -1 unknown */
	char siblings[64];	/* thread_siblings_list ("3,131"); "" unknown */
};

/*
 * CPU's topology; 0, or -ENOENT when the CPU has no topology directory
 * (-EINVAL for a value that is not a small whole number). Fields the
 * kernel does not show stay -1 or "".
 */
int topology_get(int cpu, struct topology_cpu *t);

/* The packages (sockets) of CPUs 0..NCPUS-1; 0 when none can be read. */
int topology_packages(int ncpus);

/* Whether a host of NCPUS CPUs is placed by topology (see below). */
int topology_is_big(int ncpus);

/*
 * The server's and client's default CPUs among 0..NCPUS-1. *SERVER or
 * *CLIENT below 0 is picked; one at 0 or above is kept and the other one
 * placed around it. On a host with more than 4 CPUs or more than one
 * package: the server on the package of CPU 0, on a core other than CPU
 * 0's; the client on the same package (CROSS: on another one, where there
 * is one), on a core neither CPU 0's nor the server's. Where no CPU
 * fits a rule it is relaxed in that order (the package last). Small
 * hosts, and hosts whose topology cannot be read: server 0 (or the first
 * CPU that is not the client's), client the first that is not the
 * server's. USABLE (NULL: all; cpuset_usable()) comes before every
 * rule: a CPU outside it is picked only where no CPU in it is left.
 * Returns 0, or -EINVAL with a message (NCPUS < 1).
 */
int topology_pick(int ncpus, int cross, const struct cpuset *usable,
		  int *server, int *client, char *err, size_t errlen);

#endif
