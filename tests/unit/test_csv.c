// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "json.h"
#include "csv.h"

START_TEST(csv_fields_and_quoting)
{
	char path[] = "/tmp/wb-csv-XXXXXX";
	int fd = mkstemp(path);
	struct csv *c;

	close(fd);
	c = csv_open(path);
	ck_assert_ptr_nonnull(c);
	csv_header(c, "a,b,c,d,e");
	csv_u64(c, 18446744073709551615ull);
	csv_i64(c, -5);
	csv_double(c, 1.23456, 3);
	csv_double(c, NAN, 3);
	csv_str(c, "x,\"y\"");
	csv_end_row(c);
	csv_str(c, "a\nb");
	csv_str(c, "c\rd");
	csv_str(c, "");
	csv_end_row(c);
	csv_empty(c);
	csv_str(c, "plain");
	csv_end_row(c);
	ck_assert_int_eq(csv_close(c), 0);
	ck_assert_str_eq(unit_slurp(path),
		"a,b,c,d,e\n18446744073709551615,-5,1.235,,\"x,\"\"y\"\"\"\n"
		"\"a\nb\",\"c\rd\",\n,plain\n");
	unlink(path);
}
END_TEST

/* csv_fixed prints exactly what "%.Nf" of v / 10^N would, zeros kept,
 * and csv_u64 every digit; compared with printf over many values. */
START_TEST(csv_fixed_matches_printf)
{
	char path[] = "/tmp/wb-csv-XXXXXX", want[256];
	static const uint64_t vals[] = { 0, 1, 9, 10, 999999, 1000000, 1000001,
					 1234567, 120000000, 18446744073709551615ull };
	int fd = mkstemp(path);
	struct csv *c;

	close(fd);
	for (size_t i = 0; i < sizeof(vals) / sizeof(*vals); i++) {
		uint64_t v = vals[i];

		c = csv_open(path);
		ck_assert_ptr_nonnull(c);
		csv_fixed(c, v, 6);
		csv_fixed(c, v, 0);
		csv_fixed(c, v, 3);
		csv_u64(c, v);
		csv_end_row(c);
		ck_assert_int_eq(csv_close(c), 0);
		snprintf(want, sizeof(want), "%llu.%06llu,%llu,%llu.%03llu,%llu\n",
			 (unsigned long long)(v / 1000000), (unsigned long long)(v % 1000000),
			 (unsigned long long)v, (unsigned long long)(v / 1000),
			 (unsigned long long)(v % 1000), (unsigned long long)v);
		ck_assert_str_eq(unit_slurp(path), want);
	}
	unlink(path);
}
END_TEST

/*
 * The buffer grows from a page as rows come (issue 33): the bytes are
 * those of the fields in order across every growth, strings longer than
 * the buffer then was, and longer than half its most (written straight
 * through), quoted or not; the same with the buffer held at 4 KB
 * (csv_buffer_max: longer strings than the buffer) and at 16 KB.
 */
START_TEST(csv_buffer_grows)
{
	char path[] = "/tmp/wb-csv-XXXXXX", *want, *p, *s;
	size_t cap = 1 << 22, got;
	int fd = mkstemp(path);
	struct csv *c;
	FILE *f;

	close(fd);
	want = malloc(cap);
	s = malloc(50001);
	ck_assert(want && s);
	c = csv_open(path);
	ck_assert_ptr_nonnull(c);
	if (_i)
		csv_buffer_max(c, _i == 1 ? 4096 : 16384);
	p = want;
	for (int i = 0; i < 30000; i++) {
		/* 3 KB while the buffer is 4 KB, 6 KB and 40 KB later */
		size_t len = i == 10 ? 3000 : i == 300 ? 6000 : i == 20000 ? 40000 :
			     (size_t)(i % 97);
		int quote = i % 13 == 0;

		memset(s, 'x', len);
		if (quote && len)
			s[len / 2] = '"';
		s[len] = '\0';
		csv_u64(c, (uint64_t)i);
		csv_str(c, s);
		csv_end_row(c);
		p += sprintf(p, "%d,", i);
		if (quote && len) {
			p += sprintf(p, "\"%.*s\"\"%s\"\n", (int)(len / 2), s, s + len / 2 + 1);
		} else {
			memcpy(p, s, len);
			p += len;
			*p++ = '\n';
		}
		ck_assert((size_t)(p - want) < cap - 100000);
	}
	ck_assert_int_eq(csv_close(c), 0);
	free(s);
	s = malloc(cap);
	f = fopen(path, "r");
	ck_assert(s && f);
	got = fread(s, 1, cap, f);
	fclose(f);
	ck_assert_uint_eq(got, (size_t)(p - want));
	ck_assert(!memcmp(s, want, got));
	free(s);
	free(want);
	unlink(path);
}
END_TEST

/*
 * A file of a few rows costs about a page (trace timeline writes one per
 * CPU: 512 of them cost 32 MB when each had its 64 KB buffer at once).
 */
START_TEST(csv_few_rows_cost_a_page)
{
	char dir[] = "/tmp/wb-csv-XXXXXX", path[64];
	struct csv *c[512];
	struct mallinfo2 a, b;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	a = mallinfo2();
	for (int i = 0; i < 512; i++) {
		snprintf(path, sizeof(path), "%s/c%d.csv", dir, i);
		c[i] = csv_open(path);
		ck_assert_ptr_nonnull(c[i]);
		csv_header(c[i], "Sample #,Continuous Time (ms),C-State,Duration (ms),Wake Cause");
		for (int r = 0; r < 3; r++) {
			csv_u64(c[i], (uint64_t)r);
			csv_str(c[i], "C6");
			csv_end_row(c[i]);
		}
	}
	b = mallinfo2();
	ck_assert_msg(b.uordblks + b.hblkhd - a.uordblks - a.hblkhd < 512 * 8192,
		      "%zu bytes for 512 files of 3 rows",
		      b.uordblks + b.hblkhd - a.uordblks - a.hblkhd);
	for (int i = 0; i < 512; i++) {
		ck_assert_int_eq(csv_close(c[i]), 0);
		snprintf(path, sizeof(path), "%s/c%d.csv", dir, i);
		unlink(path);
	}
	rmdir(dir);
}
END_TEST

START_TEST(json_nesting_and_escapes)
{
	char path[] = "/tmp/wb-json-XXXXXX";
	int fd = mkstemp(path);
	struct json *j;

	close(fd);
	j = json_open(path);
	ck_assert_ptr_nonnull(j);
	json_obj_begin(j, NULL);
	json_str(j, "s", "a\"b\\c\n\x01");
	json_u64(j, "u", 7);
	json_double(j, "d", 0.5);
	json_double(j, "nan", NAN);
	json_str(j, "null", NULL);
	json_arr_begin(j, "arr");
	json_i64(j, NULL, -1);
	json_bool(j, NULL, 1);
	json_arr_end(j);
	json_obj_begin(j, "empty");
	json_obj_end(j);
	json_obj_end(j);
	ck_assert_int_eq(json_close(j), 0);
	ck_assert_str_eq(unit_slurp(path),
		"{\n  \"s\": \"a\\\"b\\\\c\\n\\u0001\",\n  \"u\": 7,\n"
		"  \"d\": 0.5,\n  \"nan\": null,\n  \"null\": null,\n"
		"  \"arr\": [\n    -1,\n    true\n  ],\n  \"empty\": {}\n}\n");
	unlink(path);
}
END_TEST

START_TEST(open_errors)
{
	ck_assert_ptr_null(csv_open("/nonexistent-dir/x.csv"));
	ck_assert_ptr_null(json_open("/nonexistent-dir/x.json"));
}
END_TEST

START_TEST(write_error_reported)
{
	struct csv *c = csv_open("/dev/full");

	if (!c)
		return;	/* no /dev/full in this sandbox */
	for (int i = 0; i < 100000; i++)
		csv_u64(c, (uint64_t)i);
	csv_end_row(c);
	/* the cause, not stdio's EIO */
	ck_assert_int_eq(csv_close(c), -ENOSPC);
}
END_TEST

Suite *csv_suite(void)
{
	Suite *s = suite_create("csv");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, csv_fields_and_quoting);
	tcase_add_test(tc, csv_fixed_matches_printf);
	tcase_add_loop_test(tc, csv_buffer_grows, 0, 3);
	tcase_add_test(tc, csv_few_rows_cost_a_page);
	tcase_add_test(tc, json_nesting_and_escapes);
	tcase_add_test(tc, open_errors);
	tcase_add_test(tc, write_error_reported);
	suite_add_tcase(s, tc);
	return s;
}
