// SPDX-License-Identifier: GPL-2.0
/*
 * cpuset: CPU sets of any size (1, 33, 65, 512 and 8192 CPUs), lists and
 * masks in the kernel's forms, affinity sets, the possible CPUs, and the
 * readers that held fixed CPU limits (/proc/stat, perf stat).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "cpu.h"
#include "cpuset.h"
#include "fake_sysfs.h"
#include "hwcstate.h"
#include "residency.h"
#include "topology.h"

START_TEST(cpu_lists)
{
	struct cpuset *m = cpuset_new(8);

	ck_assert_int_eq(cpuset_parse_list(m, "0"), 1);
	ck_assert_int_eq(cpuset_parse_list(m, "0-3,6"), 5);
	ck_assert(cpuset_test(m, 0) && cpuset_test(m, 3) && !cpuset_test(m, 4) &&
		  cpuset_test(m, 6) && !cpuset_test(m, 7));
	ck_assert_int_eq(cpuset_parse_list(m, "1,1,0-1"), 2);
	ck_assert_int_eq(cpuset_parse_list(m, "0-7\n"), 8);	/* as sysfs shows it */
	ck_assert_int_eq(cpuset_parse_list(m, "0-7:2/4"), 4);	/* 0,1,4,5 */
	ck_assert(cpuset_test(m, 5) && !cpuset_test(m, 2));
	ck_assert_int_eq(cpuset_parse_list(m, "8"), -ERANGE);
	ck_assert_int_eq(cpuset_count(m), 0);
	ck_assert_int_eq(cpuset_parse_list(m, "3-1"), -EINVAL);
	ck_assert_int_eq(cpuset_parse_list(m, "1,"), -EINVAL);
	ck_assert_int_eq(cpuset_parse_list(m, "a"), -EINVAL);
	ck_assert_int_eq(cpuset_parse_list(m, ""), -EINVAL);
	ck_assert_int_eq(cpuset_parse_list(m, "1-"), -EINVAL);
	ck_assert_int_eq(cpuset_parse_list(m, "0-7:0/4"), -EINVAL);
	ck_assert_int_eq(cpuset_parse_list(m, "0-7:3/2"), -EINVAL);
	ck_assert_int_eq(cpuset_parse_list(m, "99999999999"), -EINVAL);
	ck_assert_int_eq(cpuset_list_span("0-511\n"), 512);
	ck_assert_int_eq(cpuset_list_span("0-3,8"), 9);
	ck_assert_int_eq(cpuset_list_span("0-7:1/4"), 5);	/* 0 and 4 */
	ck_assert_int_eq(cpuset_list_span("0-4294967295"), 0);	/* hostile */
	ck_assert_ptr_null(cpuset_new(0));
	ck_assert_ptr_null(cpuset_new(CPUSET_LIMIT + 1));
	cpuset_free(m);
}
END_TEST

/*
 * tracing_cpumask text: comma-separated 32-bit groups for any number of
 * CPUs (one 64-bit word dropped CPUs >= 64, and its 9 to 16 digits
 * without a comma the kernel refuses with EOVERFLOW).
 */
static char *mask_text(int n, const int *cpus, size_t k)
{
	struct cpuset *m = cpuset_new(n);
	size_t len = cpuset_mask_len(n);
	char *buf = malloc(len);

	for (size_t i = 0; i < k; i++)
		cpuset_set(m, cpus[i]);
	ck_assert_int_eq(cpuset_format_mask(m, buf, len), (int)len - 1);
	ck_assert_int_eq(cpuset_format_mask(m, buf, len - 1), -ENOSPC);
	/* and back */
	ck_assert_int_eq(cpuset_parse_mask(m, buf), (int)k);
	for (size_t i = 0; i < k; i++)
		ck_assert(cpuset_test(m, cpus[i]));
	cpuset_free(m);
	return buf;
}

START_TEST(cpu_mask_text)
{
	static const int one[] = { 0 }, c33[] = { 0, 32 }, c512[] = { 0, 511 };
	static const int c8192[] = { 0, 31, 32, 4100, 8191 };
	struct cpuset *m2 = cpuset_new(2), *m32 = cpuset_new(32);
	struct cpuset *m = cpuset_new(64);
	int all65[65];
	char *s, want[2400];

	for (int i = 0; i < 65; i++)
		all65[i] = i;
	s = mask_text(1, one, 1);
	ck_assert_str_eq(s, "1");
	free(s);
	s = mask_text(33, c33, 2);
	ck_assert_str_eq(s, "1,00000001");
	free(s);
	s = mask_text(33, c33 + 1, 1);
	ck_assert_str_eq(s, "1,00000000");
	free(s);
	s = mask_text(65, all65, 65);
	ck_assert_str_eq(s, "1,ffffffff,ffffffff");
	free(s);
	s = mask_text(40, all65 + 32, 8);	/* CPUs 32-39 */
	ck_assert_str_eq(s, "ff,00000000");
	free(s);
	s = mask_text(512, c512, 2);
	ck_assert_str_eq(s, "80000000,00000000,00000000,00000000,00000000,00000000,"
			 "00000000,00000000,00000000,00000000,00000000,00000000,"
			 "00000000,00000000,00000000,00000001");
	free(s);
	/* 8192 CPUs: 256 groups; CPU 4100 is bit 4 of group 128 */
	s = mask_text(8192, c8192, 5);
	ck_assert_uint_eq(strlen(s), 256 * 9 - 1);
	strcpy(want, "80000000,");
	for (int g = 254; g >= 2; g--)
		strcat(want, g == 128 ? "00000010," : "00000000,");
	strcat(want, "00000001,80000001");
	ck_assert_str_eq(s, want);
	free(s);

	/* what the kernel shows: a newline, leading groups, too many bits */
	ck_assert_int_eq(cpuset_parse_mask(m2, "3\n"), 2);
	ck_assert_int_eq(cpuset_parse_mask(m2, "00000000,00000003"), 2);
	ck_assert_int_eq(cpuset_parse_mask(m2, "4"), -EOVERFLOW);
	ck_assert_int_eq(cpuset_parse_mask(m32, "1,00000000"), -EOVERFLOW);
	ck_assert_int_eq(cpuset_parse_mask(m, "100000000"), -EINVAL);
	ck_assert_int_eq(cpuset_parse_mask(m, ",1"), -EINVAL);
	ck_assert_int_eq(cpuset_parse_mask(m, "1,,1"), -EINVAL);
	ck_assert_int_eq(cpuset_parse_mask(m, "x"), -EINVAL);
	ck_assert_int_eq(cpuset_parse_mask(m, ""), -EINVAL);
	ck_assert_int_eq(cpuset_parse_mask(m, "F,0000000a"), 6);
	ck_assert(cpuset_test(m, 1) && cpuset_test(m, 3) && cpuset_test(m, 32) &&
		  cpuset_test(m, 35) && !cpuset_test(m, 36) && !cpuset_test(m, 0));
	cpuset_free(m);
	cpuset_free(m2);
	cpuset_free(m32);
}
END_TEST

/*
 * Each size: a list parsed, printed back in the kernel's form, as a
 * mask, and as an affinity set; CPUs past 1024 (CPU_SETSIZE) included.
 */
static const int sizes[] = { 1, 33, 65, 512, 8192 };

START_TEST(cpu_sizes)
{
	int n = sizes[_i], last = n - 1, mid = n / 2;
	struct cpuset *s = cpuset_new(n), *back = cpuset_new(n);
	char list[64], *text = malloc(cpuset_list_len(s));
	char *mask = malloc(cpuset_mask_len(n));
	cpu_set_t *aff;
	size_t size;
	int want;

	ck_assert_ptr_nonnull(s);
	/* "0,MID-LAST" (just "0" for one CPU) */
	if (n == 1)
		snprintf(list, sizeof(list), "0");
	else if (mid + 1 >= last)
		snprintf(list, sizeof(list), "0,%d-%d", mid, last);
	else
		snprintf(list, sizeof(list), "0,%d-%d,%d", mid, last - 2, last);
	want = n == 1 ? 1 : mid + 1 >= last ? 1 + last - mid + 1 : 1 + last - 2 - mid + 1 + 1;
	ck_assert_int_eq(cpuset_parse_list(s, list), want);
	ck_assert_int_eq(cpuset_count(s), want);
	ck_assert_int_eq(cpuset_format_list(s, text, cpuset_list_len(s)),
			 (int)strlen(list));
	ck_assert_str_eq(text, list);
	ck_assert_int_eq(cpuset_format_list(s, text, strlen(list)), -ENOSPC);
	/* one past: refused */
	snprintf(list, sizeof(list), "0,%d", n);
	ck_assert_int_eq(cpuset_parse_list(back, list), -ERANGE);
	/* the mask, and back */
	ck_assert_int_eq(cpuset_format_mask(s, mask, cpuset_mask_len(n)),
			 (int)cpuset_mask_len(n) - 1);
	ck_assert_int_eq(cpuset_parse_mask(back, mask), want);
	for (int c = 0; c < n; c++)
		ck_assert_int_eq(cpuset_test(back, c), cpuset_test(s, c));
	ck_assert_int_eq(mask[strlen(mask) - 1], '1');	/* CPU 0 */
	/* every CPU printed as one range */
	for (int c = 0; c < n; c++)
		cpuset_set(back, c);
	snprintf(list, sizeof(list), n == 1 ? "0" : "0-%d", last);
	ck_assert_int_eq(cpuset_format_list(back, text, cpuset_list_len(back)),
			 (int)strlen(list));
	ck_assert_str_eq(text, list);
	/* the affinity set holds the same CPUs, sized for all of them */
	aff = cpuset_affinity(s, &size);
	ck_assert_ptr_nonnull(aff);
	ck_assert_uint_ge(size * 8, (size_t)n);
	ck_assert_int_eq(CPU_COUNT_S(size, aff), want);
	for (int c = 0; c < n; c++)
		ck_assert_int_eq(!!CPU_ISSET_S((size_t)c, size, aff), cpuset_test(s, c));
	CPU_FREE(aff);
	/* the longest lists fit cpuset_list_len(): pairs, lone CPUs */
	for (int c = 0; c < n; c++)
		if (c % 3 == 2)
			cpuset_clear(back, c);
	ck_assert_int_ge(cpuset_format_list(back, text, cpuset_list_len(back)), 1);
	ck_assert_int_eq(cpuset_parse_list(s, text), cpuset_count(back));
	for (int c = 0; c < n; c++)
		if (c % 2)
			cpuset_clear(back, c);
		else
			cpuset_set(back, c);
	ck_assert_int_ge(cpuset_format_list(back, text, cpuset_list_len(back)), 1);
	ck_assert_int_eq(cpuset_parse_list(s, text), cpuset_count(back));
	ck_assert_int_eq(cpuset_next(back, 1), n > 2 ? 2 : -1);
	free(text);
	free(mask);
	cpuset_free(s);
	cpuset_free(back);
}
END_TEST

/* The possible CPUs come from sysfs (the fake root too): 8192 of them. */
START_TEST(cpu_possible)
{
	const char *root = fake_sysfs_create(2, 1);
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/possible", root);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("0-8191\n", f);
	fclose(f);
	ck_assert_int_eq(cpuset_possible(), 8192);
	ck_assert_int_eq(cpu_count(), 8192);
	f = fopen(path, "w");
	fputs("0-3,8\n", f);
	fclose(f);
	ck_assert_int_eq(cpu_count(), 9);
	f = fopen(path, "w");
	fputs("0-99999999\n", f);	/* hostile: sysconf's count instead */
	fclose(f);
	ck_assert_int_eq(cpu_count(), (int)sysconf(_SC_NPROCESSORS_CONF));
	unlink(path);
	ck_assert_int_eq(cpu_count(), (int)sysconf(_SC_NPROCESSORS_CONF));
	ck_assert_int_ge(cpuset_kernel_possible(), 1);
	fake_sysfs_destroy();
}
END_TEST

/* /proc/stat of 512 CPUs after an intr line of more than 1 MiB. */
START_TEST(proc_stat_512)
{
	struct res_cpu *cpus = calloc(512, sizeof(*cpus));
	FILE *f = tmpfile();

	ck_assert_ptr_nonnull(f);
	fputs("cpu  1 2 3 4 5 6 7 8 0 0\nintr 123", f);
	for (int i = 0; i < 150000; i++)
		fputs(" 1234567", f);
	fputs("\nctxt 99\n", f);
	for (int c = 0; c < 512; c++)
		fprintf(f, "cpu%d %d 0 %d %d 7 0 0 0 0 0\n", c, c, 2 * c, 1000 + c);
	rewind(f);
	ck_assert_int_eq(residency_read_proc_stat(f, cpus, 512), 512);
	ck_assert_uint_eq(cpus[0].proc_idle, 1007);
	ck_assert_uint_eq(cpus[511].proc_idle, 1000 + 511 + 7);
	ck_assert_uint_eq(cpus[511].proc_total, 511 + 2 * 511 + 1000 + 511 + 7);
	fclose(f);
	free(cpus);
}
END_TEST

/* perf stat counts of CPUs far past 8192 CPUs' worth are not refused. */
START_TEST(perf_stat_many_cpus)
{
	char path[] = "/tmp/wb-perfstat-XXXXXX";
	struct hwcstate_row *rows = NULL;
	int fd = mkstemp(path), skipped = 0;
	FILE *f = fdopen(fd, "w");
	char err[256];

	ck_assert_ptr_nonnull(f);
	fputs("CPU0,1000,,msr/tsc/,1,100.00,,\n"
	      "CPU0,250,,cstate_core/c6-residency/,1,100.00,,\n"
	      "CPU9000,2000,,msr/tsc/,1,100.00,,\n"
	      "CPU9000,500,,cstate_core/c6-residency/,1,100.00,,\n", f);
	fclose(f);
	ck_assert_int_eq(hwcstate_parse_perf_stat(path, &rows, &skipped, err,
						  sizeof(err)), 2);
	ck_assert_int_eq(rows[1].cpu, 9000);
	ck_assert_double_eq_tol(rows[1].percent, 25.0, 1e-9);
	ck_assert_double_eq_tol(rows[0].percent, 25.0, 1e-9);
	free(rows);
	unlink(path);
}
END_TEST

/*
 * A host of 2 packages x 4 cores x 2 threads numbered as Linux does:
 * 0-3 package 0 thread 0, 4-7 package 1, 8-11 package 0 thread 1, ...
 */
static void topo_host(int ncpus, int packages, int cores, int smt)
{
	char rel[128], v[32];

	fake_sysfs_create(ncpus, 1);
	for (int c = 0; c < ncpus; c++) {
		int per = packages * cores;
		int pkg = (c % per) / cores, core = c % cores;

		snprintf(v, sizeof(v), "%d", pkg);
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/physical_package_id", c);
		fake_sysfs_put(rel, v);
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/die_id", c);
		fake_sysfs_put(rel, "0");
		snprintf(v, sizeof(v), "%d", core);
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/core_id", c);
		fake_sysfs_put(rel, v);
		if (smt)
			snprintf(v, sizeof(v), "%d,%d", c % per, c % per + per);
		else
			snprintf(v, sizeof(v), "%d", c);
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/thread_siblings_list", c);
		fake_sysfs_put(rel, v);
	}
}

static void pick(int ncpus, int cross, int s, int c, int want_s, int want_c)
{
	char err[128] = "";

	ck_assert_int_eq(topology_pick(ncpus, cross, NULL, &s, &c, err, sizeof(err)), 0);
	ck_assert_msg(s == want_s && c == want_c,
		      "%d CPUs%s: server %d client %d, want %d %d", ncpus,
		      cross ? " cross" : "", s, c, want_s, want_c);
}

/* As pick, among the CPUs of LIST only (taskset, a cgroup's cpuset). */
static void pick_in(int ncpus, const char *list, int want_s, int want_c)
{
	struct cpuset *usable = cpuset_new(ncpus);
	char err[128] = "";
	int s = -1, c = -1;

	ck_assert_ptr_nonnull(usable);
	ck_assert_int_gt(cpuset_parse_list(usable, list), 0);
	ck_assert_int_eq(topology_pick(ncpus, 0, usable, &s, &c, err, sizeof(err)), 0);
	ck_assert_msg(s == want_s && c == want_c,
		      "%d CPUs, usable %s: server %d client %d, want %d %d",
		      ncpus, list, s, c, want_s, want_c);
	cpuset_free(usable);
}

START_TEST(topology_defaults)
{
	struct topology_cpu t;
	char err[128];
	int s = -1, c = -1;

	/* 2 vCPUs, one package: today's choice */
	topo_host(2, 1, 2, 0);
	pick(2, 0, -1, -1, 0, 1);
	pick(2, 0, -1, 0, 1, 0);
	pick(2, 1, -1, -1, 0, 1);
	pick_in(2, "1", 1, 0);			/* the usable one first */
	pick_in(2, "0-1", 0, 1);
	fake_sysfs_destroy();
	/* 2 x 4 cores x 2 threads: package 0, off CPU 0's core, apart */
	topo_host(16, 2, 4, 1);
	ck_assert_int_eq(topology_get(9, &t), 0);
	ck_assert(t.package == 0 && t.core == 1 && t.die == 0 &&
		  !strcmp(t.siblings, "1,9"));
	ck_assert(topology_is_big(16));
	ck_assert_int_eq(topology_packages(16), 2);
	pick(16, 0, -1, -1, 1, 2);
	pick(16, 1, -1, -1, 1, 4);		/* cross-socket on purpose */
	pick(16, 0, 9, -1, 9, 2);		/* not 1, 9's sibling */
	pick(16, 0, -1, 0, 1, 0);		/* given: kept */
	pick(16, 0, -1, 5, 4, 5);		/* on the client's package */
	pick(16, 0, 3, 7, 3, 7);
	/* usable before every rule: package 1 only; not 12, 4's sibling */
	pick_in(16, "4-7,12-15", 4, 5);
	pick_in(16, "0", 0, 1);			/* CPU 0 rather than none */
	pick_in(16, "9,13", 9, 13);		/* another package rather than none */
	/* hostile values: refused, not read as numbers */
	fake_sysfs_put("devices/system/cpu/cpu3/topology/core_id", "1x");
	ck_assert_int_eq(topology_get(3, &t), -EINVAL);
	fake_sysfs_put("devices/system/cpu/cpu3/topology/core_id", "-1");
	ck_assert_int_eq(topology_get(3, &t), 0);
	ck_assert_int_eq(t.core, -1);
	fake_sysfs_put("devices/system/cpu/cpu3/topology/thread_siblings_list", "3;rm");
	ck_assert_int_eq(topology_get(3, &t), 0);
	ck_assert_str_eq(t.siblings, "");
	ck_assert_int_eq(topology_get(99, &t), -ENOENT);
	fake_sysfs_destroy();
	/* 6 CPUs, no SMT, one package: big by count */
	topo_host(6, 1, 6, 0);
	pick(6, 0, -1, -1, 1, 2);
	pick(6, 1, -1, -1, 1, 2);		/* no other package */
	ck_assert_int_eq(topology_packages(6), 1);
	fake_sysfs_destroy();
	/* no topology to read: today's choice */
	fake_sysfs_create(8, 1);
	ck_assert_int_eq(topology_packages(8), 0);
	pick(8, 0, -1, -1, 0, 1);
	pick(8, 0, -1, 0, 1, 0);
	pick_in(8, "3,5", 3, 5);
	fake_sysfs_destroy();
	ck_assert_int_eq(topology_pick(0, 0, NULL, &s, &c, err, sizeof(err)), -EINVAL);
}
END_TEST

/*
 * cpuset_usable: the thread's affinity on the real tree (one CPU of it
 * while the test narrows it, then restored), nothing under a fake one.
 */
START_TEST(usable_is_affinity)
{
	int n = cpuset_kernel_possible(), c0 = -1;
	size_t size = CPU_ALLOC_SIZE(n);
	cpu_set_t *old = CPU_ALLOC(n), *one = CPU_ALLOC(n);
	struct cpuset *u;

	ck_assert(old && one);
	ck_assert_int_eq(sched_getaffinity(0, size, old), 0);
	for (int c = 0; c < n && c0 < 0; c++)
		if (CPU_ISSET_S(c, size, old))
			c0 = c;
	ck_assert_int_ge(c0, 0);
	CPU_ZERO_S(size, one);
	CPU_SET_S(c0, size, one);
	ck_assert_int_eq(sched_setaffinity(0, size, one), 0);
	u = cpuset_usable(n);
	ck_assert_int_eq(sched_setaffinity(0, size, old), 0);
	ck_assert_ptr_nonnull(u);
	ck_assert_int_eq(cpuset_count(u), 1);
	ck_assert(cpuset_test(u, c0));
	cpuset_free(u);
	u = cpuset_usable(n);
	ck_assert_int_eq(cpuset_count(u), CPU_COUNT_S(size, old));
	cpuset_free(u);
	fake_sysfs_create(4, 1);
	ck_assert_ptr_null(cpuset_usable(4));
	fake_sysfs_destroy();
	CPU_FREE(old);
	CPU_FREE(one);
}
END_TEST

Suite *cpuset_suite(void)
{
	Suite *s = suite_create("cpuset");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, cpu_lists);
	tcase_add_test(tc, topology_defaults);
	tcase_add_test(tc, cpu_mask_text);
	tcase_add_loop_test(tc, cpu_sizes, 0, (int)(sizeof(sizes) / sizeof(sizes[0])));
	tcase_add_test(tc, cpu_possible);
	tcase_add_test(tc, proc_stat_512);
	tcase_add_test(tc, perf_stat_many_cpus);
	tcase_add_test(tc, usable_is_affinity);
	suite_add_tcase(s, tc);
	return s;
}
