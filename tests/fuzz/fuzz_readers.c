// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the text readers: a trace's meta.txt (tracefile_meta),
 * /proc/stat (residency_parse_proc_stat), and the same bytes as a server
 * log and a client requests.csv (reqlog, as trace attribute reads them),
 * /proc/interrupts (irqstat, as trace capture reads it, with deltas), a
 * plan.txt line (sweepplan) and a capture.csv and midtier summary
 * (sweepcollect, as wakebench-internal collect reads them), and CPU lists and masks
 * (cpuset, as sysfs and --cpus give them: parsed, printed and read back),
 * and the same bytes as a trace.dat (datfile_open: its header and CPU
 * table, every length checked against the file).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cpuset.h"
#include "datfile.h"
#include "irqstat.h"
#include "reqlog.h"
#include "residency.h"
#include "sweepcollect.h"
#include "sweepplan.h"
#include "tracefile.h"

static char dir[64];

/* A CPU list and a mask read, printed, and read back the same. */
static void fuzz_cpuset(const char *text)
{
	int span = cpuset_list_span(text);
	struct cpuset *s = cpuset_new(span > 0 && span <= 70000 ? span : 64);
	struct cpuset *back = s ? cpuset_new(s->n) : NULL;
	char *buf = s ? malloc(cpuset_list_len(s) + cpuset_mask_len(s->n)) : NULL;
	int n;

	if (!buf)
		goto out;
	n = cpuset_parse_list(s, text);
	if (n >= 0) {
		if (cpuset_format_list(s, buf, cpuset_list_len(s)) < 0 ||
		    (n && cpuset_parse_list(back, buf) != n))
			abort();
	}
	n = cpuset_parse_mask(s, text);
	if (n >= 0 && (cpuset_format_mask(s, buf, cpuset_mask_len(s->n)) < 0 ||
		       cpuset_parse_mask(back, buf) != n))
		abort();
out:
	free(buf);
	cpuset_free(s);
	cpuset_free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[128], err[256], *text;
	struct trace_meta m;
	struct res_cpu cpus[8];
	FILE *f;

	if (!dir[0]) {
		/* tmpfs when there is one: a file per input on a disk
		 * file system makes this harness ten times slower */
		snprintf(dir, sizeof(dir), "%s/wb-fuzz-%d",
			 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm",
			 (int)getpid());
		mkdir(dir, 0700);
	}
	snprintf(path, sizeof(path), "%s/meta.txt", dir);
	f = fopen(path, "w");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	if (!tracefile_meta(dir, &m, err, sizeof(err))) {
		char buf[32];

		for (uint32_t c = 0; c < m.ncpus && c < 64; c++)
			tracefile_state_name(&m, c, (int32_t)(c % 20) - 2, buf, sizeof(buf));
		tracefile_meta_free(&m);
	}
	{
		struct datfile df;

		if (!datfile_open(path, &df, err, sizeof(err))) {
			/* every CPU's part lies inside the file */
			for (uint32_t c = 0; c < df.h.ncpus; c++)
				if (df.size[c] && (df.off[c] > size || df.size[c] > size - df.off[c]))
					__builtin_trap();
			datfile_free(&df);
		}
	}
	{
		struct attr_msg *msgs;
		size_t n;

		if (!reqlog_read_server(path, &msgs, &n, err, sizeof(err))) {
			/* in receive order, whatever the file's */
			for (size_t i = 1; i < n; i++)
				if (msgs[i].recv_ns < msgs[i - 1].recv_ns)
					__builtin_trap();
			free(msgs);
		}
		for (int by_seq = 0; by_seq < 2; by_seq++) {
			struct reqlog_join *j;
			struct cli_row row;
			uint64_t key = size ? data[0] : 0;

			if (reqlog_join_open(path, by_seq, &j, err, sizeof(err)))
				continue;
			/* looked up in rising receive order, as attribute does */
			for (uint64_t k = 0; k < 8; k++)
				if (reqlog_join_find(j, key + k, key * 1000 + k * 1000000,
						     key * 1000 + k * 1000000 + 7, &row,
						     err, sizeof(err)) < 0)
					break;
			reqlog_join_close(j);
		}
	}
	text = malloc(size + 1);
	if (text) {
		memcpy(text, data, size);
		text[size] = '\0';
		memset(cpus, 0, sizeof(cpus));
		residency_parse_proc_stat(text, cpus, 8);
		fuzz_cpuset(text);
		{
			struct irqstat a, b;

			if (!irqstat_parse(text, &a)) {
				if (!irqstat_parse(text + size / 2, &b)) {
					irqstat_delta(&a, &b, -1, NULL, NULL);
					irqstat_delta(&b, &a, data[0] % 4, NULL, NULL);
					irqstat_free(&b);
				}
				irqstat_free(&a);
			}
		}
		{
			struct sweepplan_run r;
			char *line = strdup(text);

			if (line) {
				line[strcspn(line, "\n")] = '\0';
				if (!sweepplan_parse_line(line, &r, "plan.txt", 1, err,
							  sizeof(err)) &&
				    (!r.point || !r.rep))
					abort();
				free(line);
			}
		}
		free(text);
	}
	f = fopen(path, "r");
	if (f) {
		struct sweepcollect_cap cap;

		sweepcollect_capture(f, path, &cap, err, sizeof(err));
		fclose(f);
	}
	f = fopen(path, "r");
	if (f) {
		char mt[SWEEPCOLLECT_NMT][64];

		sweepcollect_midtier(f, path, mt, err, sizeof(err));
		fclose(f);
	}
	return 0;
}
