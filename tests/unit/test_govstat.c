// SPDX-License-Identifier: GPL-2.0
/*
 * govstat: the governor's counters (usage, time, above, below, rejected)
 * before and after a window, on fake sysfs trees: the synthetic one,
 * the 2-state haltpoll layout of a KVM guest, no cpuidle driver, hostile
 * values, and the real machines of tests/fixtures/sysfs (pepc's dumps).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpuset.h"
#include "fake_sysfs.h"
#include "govstat.h"
#include "sweepcollect.h"
#include "unit.h"

static void set_u64(int cpu, int st, const char *file, unsigned long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", v);
	fake_sysfs_set(cpu, st, file, buf);
}

/* Every counter of every state set to BASE + 10 * state. */
static void set_all(int ncpus, int nstates, unsigned long long base)
{
	static const char *const f[] = { "usage", "time", "above", "below",
					 "rejected" };

	for (int c = 0; c < ncpus; c++)
		for (int s = 0; s < nstates; s++)
			for (int k = 0; k < 5; k++)
				set_u64(c, s, f[k], base + 10u * (unsigned)s);
}

static const struct govstat_state *find(const struct govstat_delta *d,
					const char *name)
{
	for (int i = 0; i < d->nstates; i++)
		if (!strcmp(d->st[i].name, name))
			return &d->st[i];
	return NULL;
}

START_TEST(gov_delta_sum_and_cpu)
{
	struct govstat_snap a, b;
	struct govstat_delta d;
	const struct govstat_state *c6;
	char hdr[512];

	fake_sysfs_create(2, 3);
	set_all(2, 3, 100);
	ck_assert_int_eq(govstat_snap(&a, NULL), 0);
	ck_assert_int_eq(a.n, 2);
	ck_assert_str_eq(a.driver, "fake_idle");
	set_u64(0, 2, "usage", 125);	/* +5 */
	set_u64(0, 2, "above", 123);	/* +3: too deep */
	set_u64(1, 2, "above", 121);	/* +1 */
	set_u64(1, 1, "below", 117);	/* +7: too shallow */
	set_u64(1, 2, "time", 1120);	/* +1000 us */
	ck_assert_int_eq(govstat_snap(&b, NULL), 0);
	ck_assert_int_eq(govstat_delta(&a, &b, -1, &d), 3);
	ck_assert_int_eq(d.ncpus, 2);
	ck_assert_str_eq(d.note, "");
	c6 = find(&d, "C6");
	ck_assert_ptr_nonnull(c6);
	ck_assert_int_eq(c6->have, 0x1f);
	ck_assert_uint_eq(c6->v[GOVSTAT_USAGE], 5);
	ck_assert_uint_eq(c6->v[GOVSTAT_ABOVE], 4);
	ck_assert_uint_eq(c6->v[GOVSTAT_TIME], 1000);
	ck_assert_uint_eq(find(&d, "C1")->v[GOVSTAT_BELOW], 7);
	ck_assert_uint_eq(find(&d, "POLL")->v[GOVSTAT_USAGE], 0);
	/* one CPU */
	ck_assert_int_eq(govstat_delta(&a, &b, 1, &d), 3);
	ck_assert_int_eq(d.ncpus, 1);
	ck_assert_uint_eq(find(&d, "C6")->v[GOVSTAT_ABOVE], 1);
	ck_assert_uint_eq(find(&d, "C6")->v[GOVSTAT_USAGE], 0);
	ck_assert_int_eq(govstat_delta(&a, &b, 7, &d), 0);
	ck_assert_str_eq(d.note, "cpu7 has no idle states");
	/* the columns, states as the kernel names them */
	ck_assert_int_eq(govstat_delta(&a, &b, -1, &d), 3);
	ck_assert_int_eq(govstat_csv_header(&d, hdr, sizeof(hdr)), 0);
	ck_assert_str_eq(hdr, ",usage_POLL,time_us_POLL,above_POLL,below_POLL,rejected_POLL"
			 ",usage_C1,time_us_C1,above_C1,below_C1,rejected_C1"
			 ",usage_C6,time_us_C6,above_C6,below_C6,rejected_C6");
	ck_assert_int_eq(govstat_csv_header(&d, hdr, 20), -ENOSPC);
	govstat_free(&a);
	govstat_free(&b);
	fake_sysfs_destroy();
}
END_TEST

/* A chosen set of CPUs: only those are read. */
START_TEST(gov_cpuset)
{
	struct govstat_snap a, b;
	struct govstat_delta d;
	struct cpuset *cs;

	fake_sysfs_create(4, 3);
	set_all(4, 3, 0);
	cs = cpuset_new(4);
	ck_assert_ptr_nonnull(cs);
	cpuset_set(cs, 2);
	ck_assert_int_eq(govstat_snap(&a, cs), 0);
	ck_assert_int_eq(a.n, 1);
	ck_assert_int_eq(a.cpu[0].cpu, 2);
	set_u64(2, 1, "usage", 19);	/* +9 */
	set_u64(3, 1, "usage", 50);	/* not measured */
	ck_assert_int_eq(govstat_snap(&b, cs), 0);
	ck_assert_int_eq(govstat_delta(&a, &b, -1, &d), 3);
	ck_assert_int_eq(d.ncpus, 1);
	ck_assert_uint_eq(find(&d, "C1")->v[GOVSTAT_USAGE], 9);
	govstat_free(&a);
	govstat_free(&b);
	cpuset_free(cs);
	fake_sysfs_destroy();
}
END_TEST

/* No cpuidle driver (this VM): nothing, and a note saying why. */
START_TEST(gov_no_driver)
{
	struct govstat_snap a, b;
	struct govstat_delta d;
	char hdr[64], txt[64];

	fake_sysfs_create(2, 0);
	ck_assert_int_eq(govstat_snap(&a, NULL), 0);
	ck_assert_int_eq(govstat_snap(&b, NULL), 0);
	ck_assert_int_eq(a.n, 0);
	ck_assert_str_eq(a.driver, "none");
	ck_assert_int_eq(govstat_delta(&a, &b, -1, &d), 0);
	ck_assert_str_eq(d.note, GOVSTAT_NO_DRIVER);
	ck_assert_int_eq(govstat_csv_header(&d, hdr, sizeof(hdr)), 0);
	ck_assert_str_eq(hdr, "");
	govstat_text(&d, txt, sizeof(txt));
	ck_assert_str_eq(txt, "");
	ck_assert_int_eq(govstat_delta(&a, &b, 0, &d), 0);
	ck_assert_str_eq(d.note, GOVSTAT_NO_DRIVER);
	govstat_free(&a);
	govstat_free(&b);
	fake_sysfs_destroy();
}
END_TEST

/* A KVM guest with haltpoll: POLL and "haltpoll idle". */
START_TEST(gov_haltpoll)
{
	struct govstat_snap a, b;
	struct govstat_delta d;
	char hdr[512], txt[512];

	fake_sysfs_create(2, 2);
	fake_sysfs_put("devices/system/cpu/cpuidle/current_driver", "haltpoll");
	fake_sysfs_put("devices/system/cpu/cpuidle/current_governor_ro", "haltpoll");
	for (int c = 0; c < 2; c++)
		fake_sysfs_set(c, 1, "name", "haltpoll idle");
	set_all(2, 2, 1000);
	ck_assert_int_eq(govstat_snap(&a, NULL), 0);
	set_u64(1, 1, "usage", 1310);
	set_u64(1, 1, "below", 1012);
	ck_assert_int_eq(govstat_snap(&b, NULL), 0);
	ck_assert_int_eq(govstat_delta(&a, &b, -1, &d), 2);
	ck_assert_str_eq(d.driver, "haltpoll");
	ck_assert_str_eq(d.governor, "haltpoll");
	ck_assert_str_eq(d.st[1].name, "haltpoll idle");
	ck_assert_uint_eq(d.st[1].v[GOVSTAT_USAGE], 300);
	ck_assert_uint_eq(d.st[1].v[GOVSTAT_BELOW], 2);
	ck_assert_int_eq(govstat_csv_header(&d, hdr, sizeof(hdr)), 0);
	ck_assert_str_eq(hdr, ",usage_POLL,time_us_POLL,above_POLL,below_POLL,rejected_POLL"
			 ",usage_haltpoll_idle,time_us_haltpoll_idle,above_haltpoll_idle"
			 ",below_haltpoll_idle,rejected_haltpoll_idle");
	govstat_text(&d, txt, sizeof(txt));
	ck_assert_str_eq(txt, "POLL usage 0 time_us 0 above 0 below 0 rejected 0, "
			 "haltpoll idle usage 300 time_us 0 above 0 below 2 rejected 0");
	govstat_free(&a);
	govstat_free(&b);
	fake_sysfs_destroy();
}
END_TEST

/*
 * Hostile values: a counter that goes backwards, junk, a number past
 * 2^64, a missing file: each leaves that counter unknown (never a huge
 * number) and the note says so; a bad name leaves its CPU out.
 */
START_TEST(gov_hostile)
{
	struct govstat_snap a, b;
	struct govstat_delta d;
	const struct govstat_state *c1, *c6;

	fake_sysfs_create(3, 3);
	set_all(3, 3, 500);
	ck_assert_int_eq(govstat_snap(&a, NULL), 0);
	set_u64(0, 2, "usage", 10);			/* backwards */
	fake_sysfs_set(1, 1, "above", "12abc");		/* junk */
	fake_sysfs_set(0, 1, "below", "99999999999999999999999");
	fake_sysfs_set(2, 0, "name", "PO\x01LL");	/* not a name */
	ck_assert_int_eq(govstat_snap(&b, NULL), 0);
	ck_assert_int_eq(b.n, 2);
	ck_assert_ptr_nonnull(strstr(b.note, "cpu2 state0: its name is not a name"));
	ck_assert_int_eq(govstat_delta(&a, &b, -1, &d), 3);
	ck_assert_int_eq(d.ncpus, 2);
	c6 = find(&d, "C6");
	c1 = find(&d, "C1");
	ck_assert_int_eq(c6->have & (1 << GOVSTAT_USAGE), 0);
	ck_assert_int_ne(c6->have & (1 << GOVSTAT_ABOVE), 0);
	ck_assert_int_eq(c1->have & (1 << GOVSTAT_ABOVE), 0);
	ck_assert_int_eq(c1->have & (1 << GOVSTAT_BELOW), 0);
	ck_assert_ptr_nonnull(strstr(d.note, "cpu0 C6 usage went backwards"));
	ck_assert_ptr_nonnull(strstr(d.note, "above: not readable"));
	ck_assert_ptr_nonnull(strstr(d.note, "1 CPU(s) lost their idle states"));
	govstat_free(&a);
	govstat_free(&b);
	/* a name longer than any kernel's; too many states */
	fake_sysfs_set(2, 0, "name", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
	ck_assert_int_eq(govstat_snap(&a, NULL), 0);
	ck_assert_int_eq(a.n, 2);
	govstat_free(&a);
	fake_sysfs_destroy();
}
END_TEST

START_TEST(gov_too_many_states)
{
	struct govstat_snap a;
	char rel[128];

	fake_sysfs_create(1, 3);
	for (int s = 3; s <= GOVSTAT_MAX_STATES; s++) {
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu0/cpuidle/state%d/name", s);
		fake_sysfs_put(rel, "CX");
	}
	ck_assert_int_eq(govstat_snap(&a, NULL), 0);
	ck_assert_int_eq(a.n, 0);
	ck_assert_ptr_nonnull(strstr(a.note, "more than 16 idle states"));
	govstat_free(&a);
	fake_sysfs_destroy();
}
END_TEST

/*
 * The real machines: CPUs 0-3 of each pepc dump (tests/fixtures/sysfs)
 * with its cpuidle files, values as the kernel showed them.
 */
static void load_fixture(const char *m)
{
	char path[256], *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "tests/fixtures/sysfs/%s/inlinefiles.txt", m);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot read %s", path);
	fake_sysfs_create(0, 0);
	while (getline(&line, &cap, f) > 0) {
		char *p, *v;
		int cpu;

		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "rw|/sys/", 8) && strncmp(line, "ro|/sys/", 8))
			continue;
		p = line + 8;
		v = strchr(p, '|');
		if (!v || !strstr(p, "/cpuidle/"))
			continue;
		*v++ = '\0';
		if (sscanf(p, "devices/system/cpu/cpu%d/", &cpu) == 1 && cpu > 3)
			continue;
		fake_sysfs_put(p, v);
	}
	free(line);
	fclose(f);
}

static const struct {
	const char *m, *driver, *states[6];
} machines[] = {
	{ "gnr0", "intel_idle", { "POLL", "C1", "C1E", "C6", "C6P" } },
	{ "clx4s0", "intel_idle", { "POLL", "C1", "C1E", "C6" } },
	{ "milan0", "acpi_idle", { "POLL", "C1", "C2" } },
	{ "knl0", "intel_idle", { "POLL", "C1", "C6" } },
	{ "srf2", "intel_idle", { "POLL", "C1", "C1E", "C6S", "C6SP" } },
};

START_TEST(gov_fixtures)
{
	struct govstat_snap a, b;
	struct govstat_delta d;
	int n = 0, last;
	char rel[128], val[32];

	load_fixture(machines[_i].m);
	ck_assert_int_eq(govstat_snap(&a, NULL), 0);
	ck_assert_int_eq(a.n, 4);
	ck_assert_str_eq(a.driver, machines[_i].driver);
	while (machines[_i].states[n])
		n++;
	ck_assert_int_eq(a.cpu[0].nstates, n);
	for (int s = 0; s < n; s++)
		ck_assert_str_eq(a.cpu[0].name[s], machines[_i].states[s]);
	/* every counter of the dump read: pepc keeps all five */
	for (int c = 0; c < 4; c++)
		for (int s = 0; s < n; s++)
			ck_assert_int_eq(a.cpu[c].have[s], 0x1f);
	/* the deepest state of CPU 3: 4 more entries, 2 of them too deep */
	last = n - 1;
	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu3/cpuidle/state%d/usage", last);
	snprintf(val, sizeof(val), "%llu",
		 (unsigned long long)a.cpu[3].v[last][GOVSTAT_USAGE] + 4);
	fake_sysfs_put(rel, val);
	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu3/cpuidle/state%d/above", last);
	snprintf(val, sizeof(val), "%llu",
		 (unsigned long long)a.cpu[3].v[last][GOVSTAT_ABOVE] + 2);
	fake_sysfs_put(rel, val);
	ck_assert_int_eq(govstat_snap(&b, NULL), 0);
	ck_assert_int_eq(govstat_delta(&a, &b, -1, &d), n);
	ck_assert_int_eq(d.ncpus, 4);
	ck_assert_str_eq(d.note, "");
	ck_assert_uint_eq(d.st[last].v[GOVSTAT_USAGE], 4);
	ck_assert_uint_eq(d.st[last].v[GOVSTAT_ABOVE], 2);
	ck_assert_uint_eq(d.st[last].v[GOVSTAT_BELOW], 0);
	ck_assert_uint_eq(d.st[1].v[GOVSTAT_USAGE], 0);
	govstat_free(&a);
	govstat_free(&b);
	fake_sysfs_destroy();
}
END_TEST

/* The value of capture column NAME as sweep.csv takes it, or NULL. */
static const char *cap_val(const struct sweepcollect_cap *cap, const char *name)
{
	for (int i = 0; i < cap->n; i++)
		if (!strcmp(cap->name[i], name))
			return cap->val[i];
	return NULL;
}

/*
 * sweep.csv takes the capture's governor columns as it takes res_ and
 * entries_ ones: the server's by name, the midtier's with mt_, empty
 * fields kept empty; a big host's (Granite Rapids: 5 states, 36 columns
 * a role) fit.
 */
START_TEST(gov_sweep_columns)
{
	const char *text =
		"role,cpu,irq_delta,res_C6_pct,entries_C6,res_C0_pct,usage_C6,"
		"time_us_C6,above_C6,below_C6,rejected_C6,usage_haltpoll_idle\n"
		"server,0,34,90.0,12,10.0,12,900,3,1,,7\n"
		"midtier,1,28,50.0,5,50.0,5,400,0,2,0,\n";
	static const char *const st[] = { "POLL", "C1", "C1E", "C6", "C6P" };
	struct sweepcollect_cap cap;
	char err[256], big[8192];
	size_t n;
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	ck_assert_int_eq(sweepcollect_capture(f, "c.csv", &cap, err, sizeof(err)), 0);
	fclose(f);
	ck_assert_str_eq(cap_val(&cap, "usage_C6"), "12");
	ck_assert_str_eq(cap_val(&cap, "time_us_C6"), "900");
	ck_assert_str_eq(cap_val(&cap, "above_C6"), "3");
	ck_assert_str_eq(cap_val(&cap, "rejected_C6"), "");
	ck_assert_str_eq(cap_val(&cap, "usage_haltpoll_idle"), "7");
	ck_assert_str_eq(cap_val(&cap, "mt_below_C6"), "2");
	ck_assert_str_eq(cap_val(&cap, "mt_usage_haltpoll_idle"), "");
	ck_assert_ptr_null(cap_val(&cap, "irq_delta"));
	/* two roles of a 5-state machine */
	n = (size_t)snprintf(big, sizeof(big), "role,cpu");
	for (int s = 0; s < 5; s++)
		n += (size_t)snprintf(big + n, sizeof(big) - n,
				      ",res_%s_pct,entries_%s,usage_%s,time_us_%s,above_%s,below_%s,rejected_%s",
				      st[s], st[s], st[s], st[s], st[s], st[s], st[s]);
	n += (size_t)snprintf(big + n, sizeof(big) - n, ",res_C0_pct\nserver,0");
	for (int k = 0; k < 36; k++)
		n += (size_t)snprintf(big + n, sizeof(big) - n, ",1");
	n += (size_t)snprintf(big + n, sizeof(big) - n, "\nmidtier,1");
	for (int k = 0; k < 36; k++)
		n += (size_t)snprintf(big + n, sizeof(big) - n, ",2");
	snprintf(big + n, sizeof(big) - n, "\n");
	f = fmemopen(big, strlen(big), "r");
	ck_assert_int_eq(sweepcollect_capture(f, "c.csv", &cap, err, sizeof(err)), 0);
	fclose(f);
	ck_assert_int_eq(cap.n, 72);
	ck_assert_str_eq(cap_val(&cap, "mt_rejected_C6P"), "2");
}
END_TEST

Suite *govstat_suite(void)
{
	Suite *s = suite_create("govstat");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, gov_delta_sum_and_cpu);
	tcase_add_test(tc, gov_cpuset);
	tcase_add_test(tc, gov_no_driver);
	tcase_add_test(tc, gov_haltpoll);
	tcase_add_test(tc, gov_hostile);
	tcase_add_test(tc, gov_too_many_states);
	tcase_add_test(tc, gov_sweep_columns);
	tcase_add_loop_test(tc, gov_fixtures, 0,
			    (int)(sizeof(machines) / sizeof(machines[0])));
	suite_add_tcase(s, tc);
	return s;
}
