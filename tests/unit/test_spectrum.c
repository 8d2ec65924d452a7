// SPDX-License-Identifier: GPL-2.0
/* The percentile spectrum: which levels a count supports, and the table. */
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "hist.h"
#include "spectrum.h"

START_TEST(levels_for_n)
{
	static const uint64_t all[] = {
		2, 4, 8, 10, 16, 32, 64, 100, 128, 256, 512, 1000, 1024, 2048,
		4096, 8192, 10000, 16384, 32768, 65536, 100000,
	};
	struct spectrum_level lv[SPECTRUM_MAX_LEVELS + 4];
	size_t k;

	ck_assert_uint_eq(spectrum_levels(0, lv, 25), 0);
	ck_assert_uint_eq(spectrum_levels(1, lv, 25), 0);
	k = spectrum_levels(2, lv, 25);
	ck_assert_uint_eq(k, 1);
	ck_assert_uint_eq(lv[0].inv, 2);
	ck_assert_double_eq(lv[0].p, 0.5);
	/* n >= 1/(1-p): 99 samples do not support p99 */
	k = spectrum_levels(99, lv, 25);
	ck_assert_uint_eq(k, 7);
	ck_assert_uint_eq(lv[6].inv, 64);
	k = spectrum_levels(100, lv, 25);
	ck_assert_uint_eq(k, 8);
	ck_assert_uint_eq(lv[7].inv, 100);
	ck_assert_double_eq_tol(lv[7].p, 0.99, 1e-15);
	/* every level up to p99.999, and no further however many */
	for (uint64_t n = 100000; n <= 1000000000; n *= 100) {
		k = spectrum_levels(n, lv, 25);
		ck_assert_uint_eq(k, SPECTRUM_MAX_LEVELS);
		for (size_t i = 0; i < k; i++) {
			ck_assert_uint_eq(lv[i].inv, all[i]);
			ck_assert_double_eq_tol(lv[i].p, 1 - 1.0 / (double)all[i], 1e-15);
			if (i)
				ck_assert(lv[i].p > lv[i - 1].p);
		}
	}
	ck_assert_double_eq_tol(lv[SPECTRUM_MAX_LEVELS - 1].p, 0.99999, 1e-15);
	/* the room given is respected */
	ck_assert_uint_eq(spectrum_levels(1000000, lv, 3), 3);
	ck_assert_uint_eq(lv[2].inv, 8);
}
END_TEST

/* The table of h in a string (caller frees). */
static char *table(struct hist *h, double div)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	spectrum_print(f, h, div);
	fclose(f);
	return buf;
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

START_TEST(table_exact)
{
	struct hist *h = hist_new(1);
	char *t, want[128];

	for (uint64_t v = 1000; v >= 1; v--)	/* 1..1000 us, unsorted */
		hist_add(h, v * 1000);
	t = table(h, 1e3);
	/* header, min, 12 levels (2 .. 1000), max, two closing lines */
	ck_assert_int_eq(lines(t), 1 + 1 + 12 + 1 + 2);
	ck_assert_ptr_nonnull(strstr(t, "Value   Percentile   TotalCount 1/(1-Percentile)"));
	ck_assert_ptr_nonnull(strstr(t, "       1.000     0.000000            1             1.00\n"));
	/* nearest rank: p50 is the 500th value, p99 the 990th, p99.9 the 999th */
	ck_assert_ptr_nonnull(strstr(t, "     500.000     0.500000          500             2.00\n"));
	ck_assert_ptr_nonnull(strstr(t, "     875.000     0.875000          875             8.00\n"));
	ck_assert_ptr_nonnull(strstr(t, "     990.000     0.990000          990           100.00\n"));
	ck_assert_ptr_nonnull(strstr(t, "     999.000     0.999000          999          1000.00\n"));
	ck_assert_ptr_nonnull(strstr(t, "    1000.000     1.000000         1000              inf\n"));
	/* the summary's percentiles are the table's */
	snprintf(want, sizeof(want), "%12.3f     0.900000",
		 hist_percentile_exact(h, 0.9) / 1e3);
	ck_assert_ptr_nonnull(strstr(t, want));
	ck_assert_ptr_nonnull(strstr(t, "#[Mean    =      500.500, StdDeviation   =      288.819]\n"));
	ck_assert_ptr_nonnull(strstr(t, "#[Max     =     1000.000, Total count    =         1000]\n"));
	/* 1/(1-p) = 512 <= 1000 is listed, 1024 is not */
	ck_assert_ptr_nonnull(strstr(t, " 0.998047 "));
	ck_assert_ptr_null(strstr(t, " 0.999023 "));
	free(t);
	/* the floor-index rule: one rank higher where p n is whole */
	hist_set_rule(h, HIST_FLOOR_INDEX);
	t = table(h, 1e3);
	ck_assert_ptr_nonnull(strstr(t, "     501.000     0.500000          501             2.00\n"));
	free(t);
	hist_free(h);
}
END_TEST

START_TEST(table_empty_and_histogram)
{
	struct hist *h = hist_new(0);
	char *t = table(h, 1);

	ck_assert_str_eq(t, "");
	free(t);
	/* past the exact samples: the histogram's value, within its error */
	for (uint64_t v = 1; v <= 100000; v++)
		hist_add(h, v);
	t = table(h, 1);
	ck_assert_int_eq(lines(t), 1 + 1 + SPECTRUM_MAX_LEVELS + 1 + 2);
	{
		const char *p = strstr(t, " 0.990000 ");
		double v;

		ck_assert_ptr_nonnull(p);
		/* the value is the row's first field */
		while (p > t && p[-1] != '\n')
			p--;
		v = strtod(p, NULL);
		ck_assert(v >= 99000 * (1 - HIST_REL_ERROR) && v <= 99000 * (1 + HIST_REL_ERROR));
	}
	ck_assert_ptr_nonnull(strstr(t, " 0.999990 "));
	free(t);
	hist_free(h);
}
END_TEST

Suite *spectrum_suite(void)
{
	Suite *s = suite_create("spectrum");
	TCase *tc = tcase_create("spectrum");

	tcase_add_test(tc, levels_for_n);
	tcase_add_test(tc, table_exact);
	tcase_add_test(tc, table_empty_and_histogram);
	suite_add_tcase(s, tc);
	return s;
}
