/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmqos: the PM QoS limits: the system-wide /dev/cpu_dma_latency and a
 * CPU's pm_qos_resume_latency_us, read as they are in force, and the
 * resume latency value for an exit latency. Changing them is a C-state
 * session's (cstate.h: cstate_set_resume, cstate_pmqos_hold), which
 * shares the device's name, so the code is in cstate.c.
 */
#ifndef WB_PMQOS_H
#define WB_PMQOS_H

#include <stddef.h>
#include <stdint.h>

#define CSTATE_PMQOS_DEV "/dev/cpu_dma_latency"

/* The resume latency value that allows at most us of exit latency. */
const char *cstate_resume_value(uint64_t us, char *buf, size_t len);
/*
 * The PM QoS limits in force: /dev/cpu_dma_latency's value (the kernel's
 * 2000000000: no constraint), and a CPU's pm_qos_resume_latency_us text
 * ("0": no constraint, "n/a": none tolerated). 0 or -errno.
 */
#define CSTATE_PMQOS_NONE 2000000000
int cstate_pmqos_read(int32_t *us);
int cstate_resume_read(unsigned int cpu, char *buf, size_t len);

#endif
