// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "clock.h"
#include "residency.h"
#include "sysfs.h"

/* One line of /proc/stat; 1 when it was a CPU's of cpus[0..ncpus). */
static int proc_stat_line(const char *p, struct res_cpu *cpus, int ncpus)
{
	unsigned long long v[10] = { 0 };
	int cpu, n;

	if (strncmp(p, "cpu", 3) || p[3] < '0' || p[3] > '9')
		return 0;
	n = sscanf(p, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &cpu, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
		   &v[7], &v[8], &v[9]);
	if (n < 5 || cpu < 0 || cpu >= ncpus)
		return 0;
	/* user nice system idle iowait irq softirq steal guest guest_nice;
	 * guest time is already inside user/nice. */
	cpus[cpu].proc_idle = v[3] + v[4];
	cpus[cpu].proc_total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] +
			       v[6] + v[7];
	return 1;
}

int residency_parse_proc_stat(const char *text, struct res_cpu *cpus,
			      int ncpus)
{
	int found = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		found += proc_stat_line(p, cpus, ncpus);
	return found;
}

/*
 * /proc/stat line by line: no buffer to outgrow (its intr line alone
 * passes 1 MiB on hosts with thousands of interrupts, and a read into a
 * fixed buffer lost the CPUs after it without a word).
 */
int residency_read_proc_stat(FILE *f, struct res_cpu *cpus, int ncpus)
{
	char *line = NULL;
	size_t cap = 0;
	int found = 0;

	while (getline(&line, &cap, f) > 0)
		found += proc_stat_line(line, cpus, ncpus);
	free(line);
	return ferror(f) ? -EIO : found;
}

long residency_user_hz(void)
{
	long hz = sysconf(_SC_CLK_TCK);

	return hz > 0 ? hz : 100;
}

int residency_snap(struct res_snap *s)
{
	FILE *f;
	int ret = 0;

	s->ncpus = idlestate_cpu_count();
	if (s->ncpus < 1)
		s->ncpus = 1;
	s->cpu = calloc((size_t)s->ncpus, sizeof(*s->cpu));
	if (!s->cpu)
		return -ENOMEM;
	for (int c = 0; c < s->ncpus; c++) {
		struct res_cpu *rc = &s->cpu[c];
		int n = idlestate_count((unsigned int)c);

		rc->nstates = n < RES_MAX_STATES ? n : RES_MAX_STATES;
		for (int i = 0; i < rc->nstates; i++) {
			struct idlestate st;

			if (idlestate_get((unsigned int)c, (unsigned int)i, &st))
				continue;
			snprintf(rc->name[i], sizeof(rc->name[i]), "%s", st.name);
			rc->usage[i] = st.usage;
			rc->time_us[i] = st.time_us;
		}
	}
	f = fopen("/proc/stat", "re");
	if (f) {
		ret = residency_read_proc_stat(f, s->cpu, s->ncpus);
		ret = ret < 0 ? ret : 0;
		fclose(f);
	} else {
		ret = -errno;
	}
	s->at_ns = clock_now_ns();
	return ret;
}

void residency_free(struct res_snap *s)
{
	free(s->cpu);
	s->cpu = NULL;
}

int residency_diff(const struct res_snap *a, const struct res_snap *b,
		   struct res_row *rows, int max)
{
	double wall_us = (b->at_ns - a->at_ns) / 1e3;
	int k = 0;

	for (int c = 0; c < a->ncpus && c < b->ncpus; c++) {
		const struct res_cpu *x = &a->cpu[c], *y = &b->cpu[c];
		double idle_pct = 0;

		if (x->nstates && x->nstates == y->nstates) {
			for (int i = 0; i < x->nstates && k < max; i++) {
				struct res_row *r = &rows[k++];

				*r = (struct res_row){ .cpu = c, .source = "cpuidle" };
				snprintf(r->state, sizeof(r->state), "%s", x->name[i]);
				r->usage = y->usage[i] - x->usage[i];
				r->time_us = y->time_us[i] - x->time_us[i];
				r->percent = wall_us > 0 ? 100.0 * r->time_us / wall_us : 0;
				idle_pct += r->percent;
			}
			if (k < max)
				rows[k++] = (struct res_row){
					.cpu = c, .state = "C0", .source = "cpuidle",
					.percent = idle_pct < 100 ? 100 - idle_pct : 0,
					.time_us = (uint64_t)(wall_us * (100 - idle_pct) / 100),
				};
			continue;
		}
		/*
		 * No cpuidle states: idle time from /proc/stat. The kernel keeps
		 * it exactly (NO_HZ idle accounting) and reports it in USER_HZ
		 * ticks, but busy time there is sampled by the tick, so the
		 * share is idle over wall-clock time, not over the tick sum.
		 */
		uint64_t idle = y->proc_idle - x->proc_idle;
		double idle_us = idle * 1e6 / residency_user_hz();
		double pct = wall_us > 0 ? 100.0 * idle_us / wall_us : 0;

		if (pct > 100)
			pct = 100;
		if (k < max)
			rows[k++] = (struct res_row){ .cpu = c, .state = "idle",
				.percent = pct, .source = "proc-stat",
				.time_us = (uint64_t)(wall_us * pct / 100) };
		if (k < max)
			rows[k++] = (struct res_row){ .cpu = c, .state = "C0",
				.percent = 100 - pct, .source = "proc-stat",
				.time_us = (uint64_t)(wall_us * (100 - pct) / 100) };
	}
	return k;
}

void residency_colname(const char *state, char *out, size_t len)
{
	size_t i;

	if (!len)
		return;
	for (i = 0; state[i] && i + 1 < len; i++)
		out[i] = isalnum((unsigned char)state[i]) ? state[i] : '_';
	out[i] = '\0';
}
