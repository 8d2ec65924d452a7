// SPDX-License-Identifier: GPL-2.0
/*
 * proccpu: /proc/PID/stat lines, synthetic and hostile (a command name
 * with spaces and parentheses), and this process's own tree read live.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "proccpu.h"
#include "unit.h"

/* A line as the kernel writes it: name NAME, utime 1234, stime 56. */
static void line_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "4321 (%s) S 1 4321 4321 0 -1 4194560 120 0 0 0 1234 56 "
		 "0 0 20 0 3 0 987654 12345678 500 18446744073709551615 1 1 0 0 0 0 "
		 "0 4096 0 0 0 0 17 1 0 0 0 0 0\n", name);
}

START_TEST(pc_plain)
{
	char buf[512];
	struct proccpu p;

	line_of(buf, sizeof(buf), "memcached");
	ck_assert_int_eq(proccpu_parse(buf, strlen(buf), &p), 0);
	ck_assert_int_eq(p.pid, 4321);
	ck_assert_int_eq(p.ppid, 1);
	ck_assert_int_eq(p.state, 'S');
	ck_assert_uint_eq(p.utime, 1234);
	ck_assert_uint_eq(p.stime, 56);
	ck_assert_uint_eq(p.starttime, 987654);
}
END_TEST

/* The name is the process's to choose: ')' and spaces in it. */
START_TEST(pc_hostile_name)
{
	static const char *const names[] = {
		"a) b (c", ") S 9 9 9", "", "x)", "((", "a b c d e f g h",
	};
	char buf[512];
	struct proccpu p;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		line_of(buf, sizeof(buf), names[i]);
		ck_assert_msg(proccpu_parse(buf, strlen(buf), &p) == 0, "%s", names[i]);
		ck_assert_int_eq(p.ppid, 1);
		ck_assert_uint_eq(p.utime, 1234);
		ck_assert_uint_eq(p.stime, 56);
		ck_assert_uint_eq(p.starttime, 987654);
	}
}
END_TEST

START_TEST(pc_malformed)
{
	static const char *const bad[] = {
		"",
		"4321 (x) S 1",					/* cut short */
		"4321 x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19",
		"-1 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19",
		"4321 (x)S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19",
		"4321 (x) S 1 2 3 4 5 6 7 8 9 10 11 -12 13 14 15 16 17 18 19",
		"4321 (x) S 1 2 3 4 5 6 7 8 9 10 11 1x 13 14 15 16 17 18 19",
		"4321 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 -19",
		"4321 (x) S 1 2 3 4 5 6 7 8 9 10 11 99999999999999999999999 13 14 15 16 17 18 19",
		"4321 (x) S 1 2 3 4 5 6 7 8 9 10 11 12  13 14 15 16 17 18 19",
		"4321 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19x",
		("4321 (an overly long process name that the kernel would never write, "
		 "past sixty-four bytes) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19"),
	};
	static const char nul[] = "1 (a\0b) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 "
				  "17 18 19";
	static const char shortest[] = "7 (x) R 0 2 3 4 -1 6 7 8 9 10 11 12 13 14 -5 16 "
				       "17 18 19";
	struct proccpu p;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(proccpu_parse(bad[i], strlen(bad[i]), &p) == -EINVAL,
			      "accepted: %s", bad[i]);
	/* a NUL inside the name: not a stat line */
	ck_assert_int_eq(proccpu_parse(nul, sizeof(nul) - 1, &p), -EINVAL);
	/* the shortest good line: exactly up to the start time */
	ck_assert_int_eq(proccpu_parse(shortest, sizeof(shortest) - 1, &p), 0);
	ck_assert_uint_eq(p.utime, 11);
	ck_assert_uint_eq(p.stime, 12);
	ck_assert_uint_eq(p.starttime, 19);
}
END_TEST

static void spin_ms(int ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	do
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

/* A child that spins 300 ms is counted in its parent's tree. */
START_TEST(pc_tree_live)
{
	uint64_t t0, t1, self, ns0, ns1;
	char err[128];
	int n, st, pfd[2];
	struct proccpu p;
	pid_t c;

	ck_assert_int_eq(proccpu_read(getpid(), &p), 0);
	ck_assert_int_eq(p.pid, getpid());
	ck_assert_int_eq(p.ppid, getppid());
	ck_assert_int_eq(pipe(pfd), 0);
	ck_assert_int_eq(proccpu_tree(getpid(), &t0, &ns0, &n, err, sizeof(err)), 0);
	c = fork();
	ck_assert_int_ge(c, 0);
	if (!c) {
		char x;

		spin_ms(300);
		close(pfd[1]);
		/* alive until the parent has read its tree */
		_exit(read(pfd[0], &x, 1) == 0 ? 0 : 1);
	}
	self = p.utime + p.stime;
	close(pfd[0]);
	/* wait until the child has spun (its ticks show), at most 10 s */
	for (int i = 0; i < 1000; i++) {
		struct proccpu q;

		if (!proccpu_read(c, &q) && q.utime + q.stime >= (uint64_t)(0.25 * sysconf(_SC_CLK_TCK)))
			break;
		usleep(10000);
	}
	ck_assert_int_eq(proccpu_tree(getpid(), &t1, &ns1, &n, err, sizeof(err)), 0);
	ck_assert_int_ge(n, 2);
	ck_assert_msg(proccpu_ticks_us(t1 - t0) >= 250000, "tree grew by %.0f us",
		      proccpu_ticks_us(t1 - t0));
	ck_assert_uint_ge(t0, self);
	/* the threads' nanoseconds: the child's 250 ms and more, as exact */
	if (ns0 != UINT64_MAX && ns1 != UINT64_MAX)
		ck_assert_msg(ns1 - ns0 >= 250000000ull, "ns grew by %llu",
			      (unsigned long long)(ns1 - ns0));
	close(pfd[1]);
	ck_assert_int_eq(waitpid(c, &st, 0), c);
	ck_assert_int_eq(proccpu_tree(c, &t1, NULL, &n, err, sizeof(err)), -ENOENT);
	ck_assert_str_eq(err + strcspn(err, ":"), ": no such process");
	ck_assert(fabs(proccpu_ticks_us((uint64_t)sysconf(_SC_CLK_TCK)) - 1e6) < 1e-6);
}
END_TEST

/* The processes below a PID, from one scan: grandchildren, no strangers,
 * a parent loop (hostile /proc contents) ends. */
START_TEST(pc_tree_table)
{
	struct proccpu p[6] = {
		{ .pid = 2000000001, .ppid = 0, .utime = 5 },	/* its ppid: set below */
		{ .pid = 2000000002, .ppid = 2000000001, .utime = 7 },
		{ .pid = 2000000003, .ppid = 1, .utime = 1000 },
		{ .pid = 2000000004, .ppid = 2000000002, .stime = 3 },
		{ .pid = 2000000005, .ppid = 2000000006, .utime = 50 },
		{ .pid = 2000000006, .ppid = 2000000005, .utime = 60 },
	};
	struct proccpu_table t = { p, 6 };
	struct proccpu self;
	uint64_t ticks, ns;
	char err[128];
	int n;

	p[0].ppid = getpid();
	ck_assert_int_eq(proccpu_read(getpid(), &self), 0);
	ck_assert_int_eq(proccpu_tree_in(&t, getpid(), &ticks, &ns, &n, err, sizeof(err)), 0);
	ck_assert_int_eq(n, 4);
	/* self, then 5 + 7 + 3 below it; the loop and PID 1's child not */
	ck_assert_uint_ge(ticks, self.utime + self.stime + 15);
	ck_assert_uint_lt(ticks, self.utime + self.stime + 15 + 50);
	ck_assert_uint_eq(ns, UINT64_MAX);	/* no schedstat of made-up PIDs */
	ck_assert_int_eq(proccpu_tree_in(&t, 2000000005, &ticks, NULL, &n, err, sizeof(err)),
			 -ENOENT);
}
END_TEST

Suite *proccpu_suite(void)
{
	Suite *s = suite_create("proccpu");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, pc_plain);
	tcase_add_test(tc, pc_hostile_name);
	tcase_add_test(tc, pc_malformed);
	tcase_add_test(tc, pc_tree_live);
	tcase_add_test(tc, pc_tree_table);
	suite_add_tcase(s, tc);
	return s;
}
