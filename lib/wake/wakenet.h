/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wakenet: the packet source's sender in a network namespace of its own
 * (`wakebench wake --netns`), so a wake's receive path goes through a
 * device: the datagram leaves the namespace over a veth pair and arrives
 * on the host end, whose receive queue steers (RPS) to the measured CPU,
 * so the NET_RX softirq that wakes the sleeper runs there, as a NIC's
 * would. Loopback (the default) delivers it on the sender's CPU.
 *
 * The namespace is named wbw<PID> (ip netns), the veth ends wbw<PID>h
 * (host) and wbw<PID>n (inside), addresses 10.213.X.Y/30 from the PID.
 * Deleting the namespace deletes the pair. The library never prints:
 * errors are -errno with a message.
 */
#ifndef WB_WAKENET_H
#define WB_WAKENET_H

#include <stddef.h>
#include <stdint.h>

struct wake_netns {
	char name[32];		/* "wbw1234" */
	char host_if[16], ns_if[16];
	uint32_t host_addr, ns_addr;	/* network order */
	int created;
};

/*
 * Creates the namespace, the veth pair with its addresses, up, and the
 * host end's RPS to rps_cpu (-1: left alone). On failure nothing is left.
 * 0, or -errno with the failing command and its output in err.
 */
int wake_netns_create(struct wake_netns *n, int rps_cpu, char *err,
		      size_t errlen);
/* A UDP socket inside the namespace, bound to its end's address. */
int wake_netns_socket(const struct wake_netns *n, int *fd, char *err,
		      size_t errlen);
/* Deletes the namespace (and so the pair); nothing when not created.
 * 0 or -errno. Safe from an atexit handler. */
int wake_netns_remove(struct wake_netns *n);
/*
 * Deletes the wbw<PID> namespaces whose PID no longer runs (a run killed
 * by SIGKILL); their names into gone (comma-separated, cut to len).
 * Returns how many, or -errno.
 */
int wake_netns_stale(char *gone, size_t len);

#endif
