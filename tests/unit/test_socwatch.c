// SPDX-License-Identifier: GPL-2.0
/*
 * lib/socwatch: the SocWatch CSV parser on good files (the thesis'
 * tables, SoC Watch's variations) and bad ones (each message checked),
 * the import plan (CPUs, states, times), the events it gives, and the
 * mapping between Linux idle states and CCn.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "socwatch.h"
#include "tracewrite.h"

#define PRE "Collection begin timestamp: 1000000000\n"
#define CORE0 "Core C-State - CPU/Package_0/Die_0/Core_0\n" \
	"Sample #, Continuous Time (ms), C-State, Duration (ms)\n"

static struct sw_file *ok(const char *text)
{
	struct sw_file *f;
	char err[1000];

	ck_assert_msg(!socwatch_parse("t.csv", text, strlen(text), &f, err, sizeof(err)),
		      "%s", err);
	return f;
}

static void bad(const char *text, const char *msg)
{
	struct sw_file *f;
	struct sw_plan p;
	char err[1000] = "";
	int ret = socwatch_parse("t.csv", text, strlen(text), &f, err, sizeof(err));

	if (!ret) {
		ret = socwatch_plan(f, &p, err, sizeof(err));
		if (!ret)
			socwatch_plan_free(&p);
		socwatch_free(f);
	}
	ck_assert_msg(ret < 0, "accepted: %s", text);
	ck_assert_str_eq(err, msg);
}

#define MS(x) ((uint64_t)((x) * 1000000.0 + 0.5))

START_TEST(cc_mapping)
{
	static const char names[][32] = { "POLL", "C1", "C1E", "C6", "C1e", "" };
	char tok[6][SW_MAX_STATE + 1];
	char buf[32];

	ck_assert_uint_eq(socwatch_cc_number("C1"), 1);
	ck_assert_uint_eq(socwatch_cc_number("C1E"), 1);
	ck_assert_uint_eq(socwatch_cc_number("C1-SKX"), 1);
	ck_assert_uint_eq(socwatch_cc_number("C6"), 6);
	ck_assert_uint_eq(socwatch_cc_number("C10"), 10);
	ck_assert_uint_eq(socwatch_cc_number("POLL"), 0);
	ck_assert_uint_eq(socwatch_cc_number("default-idle"), 1);
	ck_assert_uint_eq(socwatch_cc_number("haltpoll idle"), 1);
	ck_assert(socwatch_is_c0("CC0"));
	ck_assert(socwatch_is_c0("cc0"));
	ck_assert(socwatch_is_c0("C0"));
	ck_assert(!socwatch_is_c0("CC0-POLL"));
	ck_assert(!socwatch_is_c0("CC1"));
	socwatch_cc_tokens(names, 6, tok);
	ck_assert_str_eq(tok[0], "CC0-POLL");	/* CC0 is C0's */
	ck_assert_str_eq(tok[1], "CC1");
	ck_assert_str_eq(tok[2], "CC1-C1E");	/* CC1 is C1's */
	ck_assert_str_eq(tok[3], "CC6");
	ck_assert_str_eq(tok[4], "CC1-S4");	/* CC1-C1E is taken too */
	ck_assert_str_eq(tok[5], "");
	{
		static const char vm[][32] = { "POLL", "haltpoll idle" };
		static const char none[][32] = { "", "default-idle" };

		socwatch_cc_tokens(vm, 2, tok);
		ck_assert_str_eq(tok[0], "CC0-POLL");
		ck_assert_str_eq(tok[1], "CC1");
		socwatch_cc_tokens(none, 2, tok);
		ck_assert_str_eq(tok[0], "");
		ck_assert_str_eq(tok[1], "CC1");
	}
	ck_assert_str_eq(socwatch_ms(1169255000, buf, sizeof(buf)), "1169.26");
	ck_assert_str_eq(socwatch_ms(4999, buf, sizeof(buf)), "0.00");
	ck_assert_str_eq(socwatch_ms(5000, buf, sizeof(buf)), "0.01");
	ck_assert_str_eq(socwatch_ms(0, buf, sizeof(buf)), "0.00");
}
END_TEST

/* Table 5.6 of the thesis, as SoC Watch writes it. */
static const char thesis[] =
	"Intel(R) SoC Watch for Linux* OS Version 2.14\n"
	"Data Collection Started: 2023-05-02 10:11:12 GMT\n"
	"Nano Clock Frequency (MHz): 1000.000\n"
	"Collection duration (sec): 7.30\n"
	PRE
	"\n"
	"Core C-State - CPU/Package_0/Die_0/Core_3\n"
	"Sample #, Continuous Time (ms), C-State, Duration (ms)\n"
	"    2889,        7235.22,      CC6,     9.54\n"
	"    2890,        7235.91,      CC0,     0.68\n"
	"    2891,        7235.95,      CC1,     0.05\n"
	"    2892,        7236.03,      CC0,     0.08\n"
	"    2893,        7245.82,      CC6,     9.78\n"
	"    2894,        7246.25,      CC0,     0.44\n"
	"    2895,        7246.30,      CC1,     0.05\n"
	"    2896,        7246.38,      CC0,     0.08\n"
	"    2897,        7256.17,      CC6,     9.79\n";

START_TEST(parse_thesis_table)
{
	struct sw_file *f = ok(thesis);
	const struct sw_section *s;

	ck_assert_uint_eq(f->nsec, 1);
	ck_assert(f->have_begin);
	ck_assert_uint_eq(f->begin_ns, 1000000000);
	ck_assert(f->have_duration);
	ck_assert_uint_eq(f->duration_ns, 7300000000ull);
	ck_assert_str_eq(socwatch_preamble(f, "nano clock frequency (mhz)"), "1000.000");
	ck_assert_str_eq(socwatch_preamble(f, "Data Collection Started"), "2023-05-02 10:11:12 GMT");
	ck_assert_ptr_null(socwatch_preamble(f, "CPU"));
	s = &f->sec[0];
	ck_assert_int_eq(s->kind, SW_CORE);
	ck_assert_int_eq(s->package, 0);
	ck_assert_int_eq(s->die, 0);
	ck_assert_int_eq(s->core, 3);
	ck_assert_int_eq(s->thread, -1);
	ck_assert_str_eq(s->variant, "");
	ck_assert_uint_eq(s->line, 7);
	ck_assert_uint_eq(s->nrows, 9);
	ck_assert_uint_eq(s->rows[0].sample, 2889);
	ck_assert_uint_eq(s->rows[0].line, 9);
	ck_assert_str_eq(socwatch_str(f, s->rows[0].text), "CC6");
	ck_assert_uint_eq(s->rows[0].end_ns, MS(7235.22));
	ck_assert_uint_eq(s->rows[0].dur_ns, MS(9.54));
	ck_assert_uint_eq(s->rows[0].start_ns, MS(7225.68));
	/* 7235.91 - 0.68 = 7235.23: 0.01 ms after the previous end, within
	 * the rounding: one instant */
	ck_assert_uint_eq(s->rows[1].start_ns, MS(7235.22));
	/* 7235.95 - 0.05 = 7235.90, 0.01 ms before it: the same */
	ck_assert_uint_eq(s->rows[2].start_ns, MS(7235.91));
	for (size_t i = 1; i < s->nrows; i++)
		ck_assert_uint_eq(s->rows[i].start_ns, s->rows[i - 1].end_ns);
	socwatch_free(f);
}
END_TEST

/* SoC Watch's variations: a BOM, CRLF, tabs, extra columns, a trailing
 * comma, lower case states, sections of other kinds, a package section,
 * an OS variant, an IRQ table, free text in the preamble. */
START_TEST(parse_variations)
{
	static const char text[] =
		"\xef\xbb\xbfIntel(R) SoC Watch\r\n"
		"Copyright (c) Intel\r\n"
		"Collection begin timestamp (ns):\t5000\r\n"
		"\r\n"
		"CPU P-State - CPU/Package_0/Core_0\r\n"
		"Sample #, Continuous Time (ms), P-State (MHz), Duration (ms)\r\n"
		"1, 0.50, 2100, 0.50\r\n"
		"Not a row either\r\n"
		"\r\n"
		"Package C-State - CPU/Package_0\r\n"
		"Sample #, Continuous Time (ms), C-State, Duration (ms)\r\n"
		"1, 1.00, PC0, 1.00\r\n"
		"\r\n"
		"Core C-State (OS) - CPU/Package_0/Core_1\r\n"
		"Sample #,Continuous Time (usec),C-State,Duration (usec),Wake Reason,\r\n"
		"\t1 ,\t 100.5 , cc1 , 100.5 , timer ,\r\n"
		"2,200,cc0,99.5,,\r\n"
		"\r\n"
		"Summary\r\n"
		"State, Residency (%)\r\n"
		"------, -----\r\n"
		"CC0, 50.00\r\n"
		"\r\n"
		"IRQ - CPU/Package_0/Core_1\r\n"
		"Sample #, Continuous Time (ms), IRQ No, Interface, Duration (ms)\r\n"
		"209, 1178.80, 39, i40e-enp94s0f0-TxRx-1, 10.11\r\n"
		"210, 1179.59, 39, i40e-enp94s0f0-TxRx-1, 0.79\r\n";
	struct sw_file *f = ok(text);
	const struct sw_section *s;

	ck_assert_uint_eq(f->begin_ns, 5000);
	ck_assert_uint_eq(f->nsec, 3);
	ck_assert_uint_eq(f->skipped, 1);
	ck_assert_str_eq(f->first_skipped, "CPU P-State - CPU/Package_0/Core_0");
	ck_assert_uint_eq(f->blocks, 1);	/* the summary table */
	ck_assert_int_eq(f->sec[0].kind, SW_PACKAGE);
	s = &f->sec[1];
	ck_assert_int_eq(s->kind, SW_CORE);
	ck_assert_str_eq(s->variant, "(OS)");
	ck_assert_int_eq(s->core, 1);
	ck_assert_int_eq(s->die, -1);
	ck_assert_uint_eq(s->nrows, 2);
	ck_assert_str_eq(socwatch_str(f, s->rows[0].text), "CC1");
	ck_assert_uint_eq(s->rows[0].end_ns, 100500);
	ck_assert_uint_eq(s->rows[0].start_ns, 0);
	ck_assert_uint_eq(s->rows[1].end_ns, 200000);
	ck_assert_uint_eq(s->rows[1].start_ns, 100500);
	s = &f->sec[2];
	ck_assert_int_eq(s->kind, SW_IRQ);
	ck_assert_uint_eq(s->nrows, 2);
	ck_assert_uint_eq(s->rows[1].irq, 39);
	ck_assert_uint_eq(s->rows[1].end_ns, MS(1179.59));
	ck_assert_str_eq(socwatch_str(f, s->rows[1].text), "i40e-enp94s0f0-TxRx-1");
	socwatch_free(f);
}
END_TEST

START_TEST(parse_errors)
{
	char line[5000], row[400];

	/* the preamble */
	bad("Collection begin timestamp: 12x\n", "t.csv:1: Collection begin timestamp '12x' is not a whole number of ns");
	bad(PRE PRE, "t.csv:2: a second Collection begin timestamp");
	bad(PRE "Collection duration (sec): 1,5\n",
	    "t.csv:2: Collection duration (sec): '1,5' is not a number (digits and a point)");
	bad(PRE "wakebench state: 0 16 CC1 C1\n",
	    "t.csv:2: a wakebench state line is CPU (0-4095) INDEX (0-15) TOKEN NAME");
	/* structure */
	bad("Sample #, Continuous Time (ms), C-State, Duration (ms)\n",
	    "t.csv:1: a column line without a section title on the line before");
	bad(PRE "\nSample #, Continuous Time (ms), C-State, Duration (ms)\n",
	    "t.csv:3: a column line without a section title on the line before");
	bad(PRE CORE0 "1, 1.00, CC1, 1.00\nfoo\n2, 2.00, CC0, 1.00\n",
	    "t.csv:5: not a row of section 'Core C-State - CPU/Package_0/Die_0/Core_0' (rows start with their Sample #; a blank line ends a section)");
	bad(PRE CORE0 "1, 1.00, CC1, 1.00\n\n2, 2.00, CC0, 1.00\n",
	    "t.csv:6: a row after the blank line that ended section 'Core C-State - CPU/Package_0/Die_0/Core_0' (a blank line ends a section)");
	bad(PRE "Core C-State - CPU/Package_0/Die_0/Core_0\n"
	    "Sample #, Continuous Time (ms), C-State\n",
	    "t.csv:3: section 'Core C-State - CPU/Package_0/Die_0/Core_0' has a C-State column but no Duration (ms) (Sample #, Continuous Time (ms), C-State, Duration (ms))");
	bad(PRE "Core C-State - CPU/Package_0/Die_0/Core_0\n"
	    "Sample #, Continuous Time (ms), C-State, C-State, Duration (ms)\n",
	    "t.csv:3: column 'C-State' twice");
	bad(PRE "Core C-State - CPU/Package_0\n"
	    "Sample #, Continuous Time (ms), C-State, Duration (ms)\n",
	    "t.csv:2: core section 'Core C-State - CPU/Package_0' names no core (CPU/Package_0/Die_0/Core_N)");
	bad(PRE "IRQ\nSample #, IRQ No, Interface\n",
	    "t.csv:3: IRQ section 'IRQ' has no Continuous Time (ms) column");
	/* rows */
	bad(PRE CORE0 "1, 1.00, CC1\n",
	    "t.csv:4: 3 fields; the columns of 'Core C-State - CPU/Package_0/Die_0/Core_0' are 4");
	bad(PRE CORE0 "1, 1.00, CC1, 1.00, x\n",
	    "t.csv:4: 5 fields; the columns of 'Core C-State - CPU/Package_0/Die_0/Core_0' are 4");
	bad(PRE CORE0 "1x, 1.00, CC1, 1.00\n", "t.csv:4: Sample # '1x' is not a whole number");
	bad(PRE CORE0 "1, 1e3, CC1, 1.00\n",
	    "t.csv:4: Continuous Time: '1e3' is not a number (digits and a point)");
	bad(PRE CORE0 "1, 1., CC1, 1.00\n",
	    "t.csv:4: Continuous Time: '1.' is not a number (digits and a point)");
	bad(PRE CORE0 "1, 1.0000000001, CC1, 1.00\n",
	    "t.csv:4: Continuous Time: '1.0000000001' has more than 9 decimals");
	bad(PRE CORE0 "1, 99999999999999999999, CC1, 1.00\n",
	    "t.csv:4: Continuous Time: '99999999999999999999' is too large");
	bad(PRE CORE0 "1, 1.00, CC1, -0.01\n", "t.csv:4: Duration: '-0.01' is negative");
	bad(PRE CORE0 "1, 1.00, , 1.00\n", "t.csv:4: no C-State");
	bad(PRE CORE0 "1, 1.00, ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789, 1.00\n",
	    "t.csv:4: C-State 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789' is longer than 31 characters");
	bad(PRE CORE0 "1, 2.00, CC1, 1.00\n2, 1.00, CC0, 0.50\n",
	    "t.csv:5: Continuous Time 1.00 ms is before the previous row's 2.00 ms (rows must be in time order)");
	bad(PRE CORE0 "1, 2.00, CC1, 1.00\n2, 3.00, CC0, 1.50\n",
	    "t.csv:5: overlaps the previous row by 0.50 ms (it starts at 1.50 ms, the previous one ends at 2.00 ms)");
	/* within the rounding (0.015 ms) is no overlap, beyond it is */
	bad(PRE CORE0 "1, 2.00, CC1, 1.00\n2, 3.00, CC0, 1.02\n",
	    "t.csv:5: overlaps the previous row by 0.02 ms (it starts at 1.98 ms, the previous one ends at 2.00 ms)");
	bad(PRE CORE0 "1, 1.00, CC1, 2.00\n",
	    "t.csv:4: starts 1.00 ms before the collection begins (Duration 2.00 ms, Continuous Time 1.00 ms)");
	bad(PRE "IRQ - CPU/Package_0/Core_0\n"
	    "Sample #, Continuous Time (ms), IRQ No, Interface, Duration (ms)\n"
	    "1, 1.00, LOC, timer, 0.00\n",
	    "t.csv:4: IRQ No 'LOC' is not a whole number");
	bad(PRE CORE0 "1, 1.00, C\tC1, 1.00\n",
	    "t.csv:4: C-State: a character other than printable ASCII");
	bad(PRE "IRQ\nSample #, Continuous Time (ms), IRQ No, Interface\n1, 1.00, 3, a\tb\n",
	    "t.csv:4: Interface: a tab");
	/* bytes */
	bad(PRE CORE0 "1, 1.00, C\x01" "1, 1.00\n", "t.csv:4: control character 0x01 in column 11");
	{
		static const char nul[] = PRE CORE0 "1, 1.\0" "0, CC1, 1.00\n";

		struct sw_file *f;
		char err[300];

		ck_assert_int_lt(socwatch_parse("t.csv", nul, sizeof(nul) - 1, &f, err, sizeof(err)), 0);
		ck_assert_str_eq(err, "t.csv:4: control character 0x00 in column 6");
	}
	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	bad(line, "t.csv:1: a line longer than 4096 bytes");
	memset(row, 'y', 300);
	snprintf(row + 300, sizeof(row) - 300, "%s", "");
	snprintf(line, sizeof(line), PRE CORE0 "1, 1.00, %s, 1.00\n", row);
	bad(line, "t.csv:4: field 3 is longer than 255 characters");
	/* the plan */
	bad(CORE0 "1, 1.00, CC1, 1.00\n",
	    "t.csv: no 'Collection begin timestamp' line in the preamble (the rows' times count from it, in ns)");
	bad(PRE "Collection end timestamp: 10\n" CORE0 "1, 1.00, CC1, 1.00\n",
	    "t.csv: Collection end timestamp 10 ns is before its begin 1000000000 ns");
	bad(PRE "Package C-State - CPU/Package_0\n"
	    "Sample #, Continuous Time (ms), C-State, Duration (ms)\n1, 1.00, PC6, 1.00\n",
	    "t.csv: no Core C-State section (a title 'Core C-State - CPU/Package_0/Die_0/Core_N' and the columns Sample #, Continuous Time (ms), C-State, Duration (ms))");
	bad(PRE CORE0 "1, 1.00, CC1, 1.00\n\n" CORE0,
	    "t.csv:6: a second section for the core of 'Core C-State - CPU/Package_0/Die_0/Core_0' (the first at line 2)");
	bad(PRE "wakebench state: 0 1 CC1 C1\n" CORE0 "1, 1.00, CC6, 1.00\n",
	    "t.csv:5: C-State 'CC6' is not among cpu 0's states in the preamble's wakebench state lines");
	bad(PRE "wakebench state: 0 1 CC0 C1\n" CORE0 "1, 1.00, CC1, 1.00\n",
	    "t.csv:2: wakebench state CC0: CC0 is C0, not an idle state");
	bad(PRE "wakebench state: 0 1 CC1 C1\nwakebench state: 0 2 CC1 C1E\n" CORE0,
	    "t.csv:3: a second wakebench state line for cpu 0 state 2 or CC1");
	bad(PRE "Core C-State - CPU/Package_0/Die_0/Core_5000\n"
	    "Sample #, Continuous Time (ms), C-State, Duration (ms)\n",
	    "t.csv:2: Core_5000: at most 4096 CPUs");
	bad(PRE CORE0 "\nIRQ - CPU/Package_1/Core_7\n"
	    "Sample #, Continuous Time (ms), IRQ No, Interface\n\n"
	    "Core C-State - CPU/Package_1/Die_0/Core_0\n"
	    "Sample #, Continuous Time (ms), C-State, Duration (ms)\n",
	    "t.csv:5: IRQ section 'IRQ - CPU/Package_1/Core_7': no core C-state section of its core");
	{
		char many[4000];
		int n = snprintf(many, sizeof(many), PRE CORE0);

		for (int i = 1; i <= 17; i++)
			n += snprintf(many + n, sizeof(many) - (size_t)n, "%d, %d.00, S%d, 1.00\n",
				      i, i, i);
		bad(many, "t.csv:20: C-State 'S17': more than 16 different idle states");
	}
}
END_TEST

/* The events of a plan, collected. */
struct evs {
	struct tl_event e[64];
	char str[64][32];
	int n;
};

static int collect(void *ctx, const struct tl_event *e)
{
	struct evs *v = ctx;

	ck_assert_int_lt(v->n, 64);
	v->e[v->n] = *e;
	snprintf(v->str[v->n], sizeof(v->str[0]), "%s", e->str ? e->str : "");
	v->e[v->n].str = v->str[v->n];
	v->n++;
	return 0;
}

/* Core_N is cpuN; states by depth; gaps; the end; zero-length rows kept
 * apart by a ns; IRQs first at equal times. */
START_TEST(plan_and_events)
{
	static const char text[] =
		PRE
		"Collection duration (sec): 0.010\n"
		"\n"
		"Core C-State - CPU/Package_0/Die_0/Core_2\n"
		"Sample #, Continuous Time (ms), C-State, Duration (ms)\n"
		"1, 1.00, CC6, 0.50\n"	/* [0.50, 1.00] */
		"2, 1.00, CC0, 0.00\n"	/* [1.00, 1.00]: a ns */
		"3, 2.00, CC1, 1.00\n"
		"4, 3.00, CC0, 0.50\n"	/* a 0.5 ms gap before it */
		"\n"
		"IRQ - CPU/Package_0/Die_0/Core_2\n"
		"Sample #, Continuous Time (ms), IRQ No, Interface, Duration (ms)\n"
		"1, 1.00, 41, virtio3-rx, 0.00\n";
	struct sw_file *f = ok(text);
	struct sw_plan p;
	struct evs v = { .n = 0 };
	char err[600];
	const uint64_t b = 1000000000;

	ck_assert_msg(!socwatch_plan(f, &p, err, sizeof(err)), "%s", err);
	ck_assert_uint_eq(p.ncpus, 3);
	ck_assert_int_eq(p.cpu[0], 2);
	ck_assert_int_eq(p.cpu[1], 2);
	ck_assert(!p.by_rank);
	ck_assert_uint_eq(p.cores, 1);
	ck_assert_uint_eq(p.cstate_rows, 4);
	ck_assert_uint_eq(p.irqs, 1);
	ck_assert_str_eq(p.names[2][0], "CC1");
	ck_assert_str_eq(p.names[2][1], "CC6");
	ck_assert_str_eq(p.names[0][1], "CC6");	/* every CPU the same */
	ck_assert_uint_eq(p.gaps, 1);
	ck_assert_uint_eq(p.max_gap_ns, MS(0.5));
	ck_assert_uint_eq(p.max_gap_line, 9);
	ck_assert_uint_eq(p.start_ns, b);
	ck_assert_uint_eq(p.end_ns, b + MS(10));	/* the duration */
	ck_assert_int_eq(socwatch_emit(f, &p, collect, &v), 0);
	ck_assert_int_eq(v.n, 7);
	ck_assert_uint_eq(v.e[0].ts, b + MS(0.5));
	ck_assert_int_eq(v.e[0].type, TL_IDLE);
	ck_assert_uint_eq(v.e[0].arg, 1);	/* CC6 */
	ck_assert_uint_eq(v.e[0].cpu, 2);
	ck_assert_int_eq(v.e[1].type, TL_IRQ_ENTRY);	/* before the exit at 1.00 */
	ck_assert_uint_eq(v.e[1].ts, b + MS(1));
	ck_assert_uint_eq(v.e[1].arg, 41);
	ck_assert_str_eq(v.e[1].str, "virtio3-rx");
	ck_assert_uint_eq(v.e[2].ts, b + MS(1));
	ck_assert_uint_eq(v.e[2].arg, TL_EXIT);
	ck_assert_uint_eq(v.e[3].ts, b + MS(1) + 1);	/* apart by a ns */
	ck_assert_uint_eq(v.e[3].arg, 0);	/* CC1 */
	/* no row covers the gap [2.00, 2.50]: unknown, not CC1 on */
	ck_assert_uint_eq(v.e[4].ts, b + MS(2));
	ck_assert_uint_eq(v.e[4].arg, TL_NO_DATA);
	ck_assert_uint_eq(v.e[5].ts, b + MS(2.5));	/* after the gap */
	ck_assert_uint_eq(v.e[5].arg, TL_EXIT);
	/* the last row, C0, ends at 3.00 of 10.00 ms: unknown after it */
	ck_assert_uint_eq(v.e[6].ts, b + MS(3));
	ck_assert_uint_eq(v.e[6].arg, TL_NO_DATA);
	socwatch_plan_free(&p);
	socwatch_free(f);
}
END_TEST

/* Two packages: CPUs numbered in order; the OS variant after the first
 * is left out; trace export's state lines map back. */
START_TEST(plan_rank_and_states)
{
	static const char text[] =
		PRE
		"wakebench state: 0 0 CC0-POLL POLL\n"
		"wakebench state: 0 2 CC1-C1E C1E\n"
		"wakebench state: 1 3 CC6 C6\n"
		"\n"
		"Core C-State - CPU/Package_1/Die_0/Core_0\n"
		"Sample #, Continuous Time (ms), C-State, Duration (ms)\n"
		"1, 1.00, CC6, 1.00\n"
		"\n"
		"Core C-State - CPU/Package_0/Die_0/Core_4\n"
		"Sample #, Continuous Time (ms), C-State, Duration (ms)\n"
		"1, 1.00, CC1-C1E, 1.00\n"
		"2, 2.00, CC0-POLL, 1.00\n"
		"3, 3.00, CC0, 1.00\n"
		"\n"
		"Core C-State (OS) - CPU/Package_0/Die_0/Core_4\n"
		"Sample #, Continuous Time (ms), C-State, Duration (ms)\n"
		"1, 1.00, C7, 1.00\n"
		"\n"
		"IRQ - CPU/Package_1/Die_0/Core_0\n"
		"Sample #, Continuous Time (ms), IRQ No, Interface\n"
		"1, 5.00, 3, eth0\n";
	struct sw_file *f = ok(text);
	struct sw_plan p;
	struct evs v = { .n = 0 };
	char err[600];

	ck_assert_msg(!socwatch_plan(f, &p, err, sizeof(err)), "%s", err);
	ck_assert(p.by_rank);
	ck_assert_uint_eq(p.ncpus, 2);
	ck_assert_int_eq(p.cpu[0], 1);	/* Package_1 after Package_0 */
	ck_assert_int_eq(p.cpu[1], 0);
	ck_assert_int_eq(p.cpu[2], -1);	/* (OS) */
	ck_assert_int_eq(p.cpu[3], 1);	/* the IRQs of Package_1's core */
	ck_assert_uint_eq(p.skipped_variant, 1);
	ck_assert_str_eq(p.names[0][0], "POLL");
	ck_assert_str_eq(p.names[0][2], "C1E");
	ck_assert_str_eq(p.names[1][3], "C6");
	ck_assert_str_eq(p.names[1][0], "");
	ck_assert_uint_eq(p.end_ns, 1000000000 + MS(5));
	ck_assert_int_eq(socwatch_emit(f, &p, collect, &v), 0);
	ck_assert_int_eq(v.n, 7);
	ck_assert_uint_eq(v.e[0].cpu, 0);
	ck_assert_uint_eq(v.e[0].arg, 2);	/* C1E */
	ck_assert_uint_eq(v.e[1].arg, 0);	/* POLL */
	ck_assert_uint_eq(v.e[2].arg, TL_EXIT);
	/* C0 ended at 3.00 ms, before the trace (5.00 ms): unknown after */
	ck_assert_uint_eq(v.e[3].arg, TL_NO_DATA);
	ck_assert_uint_eq(v.e[3].ts, 1000000000 + MS(3));
	ck_assert_uint_eq(v.e[4].cpu, 1);
	ck_assert_uint_eq(v.e[4].arg, 3);	/* C6 */
	/* C6 ended at 1.00 ms: neither C0 nor C6 after it, unknown */
	ck_assert_int_eq(v.e[5].type, TL_IDLE);
	ck_assert_uint_eq(v.e[5].arg, TL_NO_DATA);
	ck_assert_uint_eq(v.e[5].ts, 1000000000 + MS(1));
	ck_assert_int_eq(v.e[6].type, TL_IRQ_ENTRY);
	ck_assert_uint_eq(v.e[6].ts, 1000000000 + MS(5));
	socwatch_plan_free(&p);
	socwatch_free(f);
}
END_TEST

/* Plans f, feeds its events into an in-memory timeline closed at the
 * trace's end (no_causes: as trace timeline does for "wake_causes
 * unknown"). */
static struct timeline *import_timeline(struct sw_file *f, struct sw_plan *p,
					int no_causes)
{
	struct timeline *t;
	struct evs v = { .n = 0 };
	char err[600];

	ck_assert_msg(!socwatch_plan(f, p, err, sizeof(err)), "%s", err);
	ck_assert_int_eq(socwatch_emit(f, p, collect, &v), 0);
	t = timeline_new(p->ncpus, p->start_ns);
	ck_assert_ptr_nonnull(t);
	if (no_causes)
		timeline_no_causes(t);
	for (int i = 0; i < v.n; i++)
		ck_assert_int_eq(timeline_add(t, &v.e[i]), 0);
	ck_assert_int_eq(timeline_finish(t, p->end_ns), 0);
	return t;
}

/* The row of state in rows (n of them), or NULL. */
static const struct tl_residency *res_row(const struct tl_residency *rows,
					  ssize_t n, int32_t state)
{
	for (ssize_t i = 0; i < n; i++)
		if (rows[i].state == state)
			return &rows[i];
	return NULL;
}

/*
 * Rows that cover 2 ms of a 10 ms collection (as a real file covered
 * 1118 of 11363 ms): the 8 ms no row covers are unknown, not C0 (the last
 * row, C0, was stretched to the end: 82 % C0); the plan says what the
 * rows cover. A first row that starts at the collection's begin is an
 * entry (CC1: 2 entries, not 1).
 */
START_TEST(uncovered_time_unknown)
{
	static const char text[] =
		PRE
		"Collection duration (sec): 0.010\n"
		"\n"
		CORE0
		"1, 0.50, CC1, 0.50\n"	/* from the begin */
		"2, 1.00, CC0, 0.50\n"
		"3, 1.20, CC1, 0.20\n"
		"4, 1.50, CC6, 0.30\n"
		"5, 2.00, CC0, 0.50\n";
	struct sw_file *f = ok(text);
	struct sw_plan p;
	struct timeline *t = import_timeline(f, &p, 0);
	struct tl_residency *rows;
	const struct tl_residency *r;
	ssize_t n;

	ck_assert_uint_eq(p.covered_ns, MS(2));
	ck_assert_uint_eq(p.end_rel, MS(10));
	ck_assert_uint_eq(p.cover_sections, 1);
	ck_assert_uint_eq(p.min_cover_ns, MS(2));
	n = timeline_residency(t, 0, 0, UINT64_MAX, &rows);
	ck_assert_int_gt(n, 0);
	r = res_row(rows, n, TL_C0);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->time_ns, MS(1));
	r = res_row(rows, n, TL_UNKNOWN);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->time_ns, MS(8));
	r = res_row(rows, n, 0);	/* CC1 */
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->time_ns, MS(0.7));
	ck_assert_uint_eq(r->entries, 2);
	free(rows);
	timeline_free(t);
	socwatch_plan_free(&p);
	socwatch_free(f);
}
END_TEST

/*
 * A file without IRQ sections says nothing of what woke a core: its
 * wakes are unknown, not none. The import writes "wake_causes unknown"
 * (tracewrite's no_interrupts), which the reader takes.
 */
START_TEST(no_irq_sections_causes_unknown)
{
	static const char text[] =
		PRE
		"\n"
		CORE0
		"1, 1.00, CC6, 1.00\n"
		"2, 1.50, CC0, 0.50\n"
		"3, 2.50, CC6, 1.00\n"
		"4, 3.00, CC0, 0.50\n";
	struct sw_file *f = ok(text);
	struct sw_plan p;
	struct timeline *t = import_timeline(f, &p, 1);
	const struct tl_wake *w;
	struct trace_meta m = { 0 }, back;
	struct tracewrite_opts o = { .no_interrupts = 1, .note = "rows cover all" };
	struct tracewrite *tw;
	char dir[] = "/tmp/wb-sw-XXXXXX", err[600], cmd[600];
	size_t n;

	ck_assert_uint_eq(p.irq_sections, 0);
	w = timeline_wakes(t, 0, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(w[0].cause, TL_CAUSE_UNKNOWN);
	ck_assert_uint_eq(w[1].cause, TL_CAUSE_UNKNOWN);
	timeline_free(t);
	socwatch_plan_free(&p);
	/* the same events without the flag: the first one is none */
	t = import_timeline(f, &p, 0);
	w = timeline_wakes(t, 0, &n);
	ck_assert_uint_eq(w[0].cause, TL_CAUSE_NONE);
	timeline_free(t);
	/* the trace written says so, and the reader takes it */
	ck_assert_ptr_nonnull(mkdtemp(dir));
	m.ncpus = p.ncpus;
	m.start_ns = p.start_ns;
	m.end_ns = p.end_ns;
	m.names = p.names;
	ck_assert_msg(!tracewrite_open(dir, &m, &o, &tw, err, sizeof(err)), "%s", err);
	ck_assert_msg(!tracewrite_close(tw, err, sizeof(err)), "%s", err);
	ck_assert_msg(!tracefile_meta(dir, &back, err, sizeof(err)), "%s", err);
	ck_assert_int_eq(back.no_causes, 1);
	tracefile_meta_free(&back);
	snprintf(cmd, sizeof(cmd), "grep -qx 'note rows cover all' %s/meta.txt && rm -rf %s", dir, dir);
	ck_assert_int_eq(system(cmd), 0);
	socwatch_plan_free(&p);
	socwatch_free(f);
}
END_TEST

Suite *socwatch_suite(void)
{
	Suite *s = suite_create("socwatch");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, cc_mapping);
	tcase_add_test(tc, parse_thesis_table);
	tcase_add_test(tc, parse_variations);
	tcase_add_test(tc, parse_errors);
	tcase_add_test(tc, plan_and_events);
	tcase_add_test(tc, plan_rank_and_states);
	tcase_add_test(tc, uncovered_time_unknown);
	tcase_add_test(tc, no_irq_sections_causes_unknown);
	suite_add_tcase(s, tc);
	return s;
}
