/* SPDX-License-Identifier: GPL-2.0 */
/*
 * socwatch: Intel SoC Watch's CSV layout (DESIGN.md "SocWatch
 * interchange"), read strictly, and the mapping between Linux idle-state
 * names and SoC Watch's core C-states.
 *
 * The file: a preamble of "key: value" lines (other lines there are
 * free text), then sections separated by blank lines, each a title line,
 * a column line starting "Sample #" and rows of comma-separated fields
 * (spaces and tabs around a field are not part of it). Read here:
 *   Core C-State[ (variant)] - CPU/Package_P[/Die_D]/Core_C   (SW_CORE)
 *   Package C-State ... and other titles with a C-State column
 *       (SW_PACKAGE, SW_OTHER_CSTATE: checked, not imported)
 *       columns Sample #, Continuous Time (ms), C-State, Duration (ms)
 *   any title with the columns Sample #, Continuous Time (ms), IRQ No,
 *       Interface[, Duration (ms)]   (SW_IRQ; Core_C in the title names
 *       the CPU)
 * found by column name (extra columns are allowed; units ms, usec, us,
 * ns or sec). Sections of other kinds (P-states, residency summaries)
 * are skipped and counted. Also accepted: a UTF-8 byte order mark, CRLF
 * line ends, a trailing comma. Refused, as "FILE:LINE: what is wrong":
 * a line over SW_MAX_LINE bytes, a NUL or control character, a field
 * over SW_MAX_FIELD characters, a row with too few or too many fields,
 * a number that is not a plain decimal (or is negative), rows out of
 * time order, an interval that starts before the collection begins or
 * overlaps the previous row by more than the rounding of the numbers
 * (half a unit of each one's last digit: 0.015 ms for two decimals).
 *
 * A row's interval is [Continuous Time - Duration, Continuous Time]
 * from the collection begin; where it starts within the rounding of the
 * previous row's end, it starts at that end (SoC Watch rounds both to
 * two decimals, so consecutive rows overlap or leave gaps of 0.01 ms).
 *
 * Core C-state names (socwatch_cc_number): CCn with n the first digits
 * in the Linux state's name (C1 and C1E: CC1, C6: CC6, C10: CC10), POLL
 * CC0 (a busy loop: the core stays in C0), a name without digits
 * (default-idle, "haltpoll idle": HLT) CC1. trace export keeps the Linux
 * states lossless: a state whose CCn is taken on its CPU (by C0 or an
 * earlier state) is written CCn-NAME (CC0-POLL, CC1-C1E), and each is
 * named in a preamble line "wakebench state: CPU INDEX TOKEN NAME" that
 * the import maps back.
 */
#ifndef WB_SOCWATCH_H
#define WB_SOCWATCH_H

#include <stddef.h>
#include <stdint.h>
#include "timeline.h"
#include "tracefile.h"

#define SW_MAX_LINE 4096	/* bytes in a line */
#define SW_MAX_FIELD 255	/* characters in a field, a title */
#define SW_MAX_STATE 31		/* characters in a C-state (a trace's names) */
/* CPU numbers a SoC Watch file may give: a guard against hostile text
 * (the files are data), not a limit of the machines it records */
#define SW_MAX_CPUS 4096

enum sw_kind {
	SW_CORE,		/* imported */
	SW_PACKAGE,		/* checked, not imported */
	SW_OTHER_CSTATE,	/* (Module, Thread, ... C-State) likewise */
	SW_IRQ,			/* imported */
};

struct sw_row {
	uint64_t sample;
	uint64_t end_ns;	/* Continuous Time, from the collection begin */
	uint64_t dur_ns;	/* Duration (0 where an IRQ section has none) */
	uint64_t start_ns;	/* C-states: the interval's start (see above);
				 * IRQs: end_ns */
	uint64_t half_ns;	/* the rounding of end_ns: half a unit of its
				 * last digit */
	uint32_t line;
	uint32_t irq;		/* IRQ No */
	uint32_t text;		/* the C-state, upper case, or the interface:
				 * socwatch_str() */
};

struct sw_section {
	enum sw_kind kind;
	char title[SW_MAX_FIELD + 1];
	char variant[SW_MAX_FIELD + 1];	/* SW_CORE: "(OS)" of "Core C-State (OS)" */
	uint32_t line;			/* the title's */
	int32_t package, die, core, thread;	/* from the title; -1: none */
	struct sw_row *rows;
	size_t nrows, cap;
};

/* A "wakebench state: CPU INDEX TOKEN NAME" preamble line. */
struct sw_state {
	uint32_t cpu, index;
	uint32_t token, name;	/* socwatch_str() */
	uint32_t line;
};

struct sw_kv {
	uint32_t key, value;	/* socwatch_str() */
	uint32_t line;
};

struct sw_file {
	char *name;		/* for messages */
	/* the preamble */
	struct sw_kv *kv;
	size_t nkv, kv_cap;
	int have_begin, have_duration, have_end;
	uint64_t begin_ns;	/* Collection begin timestamp */
	uint64_t duration_ns;	/* Collection duration (sec) */
	uint64_t end_ns;	/* Collection end timestamp */
	struct sw_state *states;
	size_t nstates, states_cap;
	/* the sections read */
	struct sw_section *sec;
	size_t nsec, sec_cap;
	/* skipped: sections of other kinds, other blocks of lines */
	size_t skipped, blocks;
	char first_skipped[SW_MAX_FIELD + 1];
	uint64_t lines;
	/* strings, each once */
	char *str;
	size_t slen, scap;
	uint32_t *hash;
	size_t hcap, hn;
};

/*
 * Parses len bytes of buf (name: the file named in messages). Returns 0
 * with *f (socwatch_free it), or -errno with "NAME:LINE: what is wrong"
 * (or "NAME: ..." for the file as a whole) in err.
 */
int socwatch_parse(const char *name, const void *buf, size_t len,
		   struct sw_file **f, char *err, size_t errlen);
/* The same from a file (read line by line). */
int socwatch_read(const char *path, struct sw_file **f, char *err,
		  size_t errlen);
void socwatch_free(struct sw_file *f);
const char *socwatch_str(const struct sw_file *f, uint32_t idx);
/* The value of preamble key (case ignored), or NULL. */
const char *socwatch_preamble(const struct sw_file *f, const char *key);

/* Where each section's events go in the trace made of f. */
struct sw_plan {
	uint32_t ncpus;
	uint64_t start_ns, end_ns;	/* the trace's (the file's clock) */
	uint64_t end_rel;		/* end_ns - start_ns */
	char (*names)[TRACEFILE_MAX_STATES][32];	/* per CPU */
	int32_t *cpu;		/* per section: its CPU, -1: not imported */
	char variant[SW_MAX_FIELD + 1];	/* of the core sections imported */
	int by_rank;		/* CPUs numbered in order of (package, die,
				 * core, thread), not by Core_N */
	size_t cores, irq_sections;
	size_t skipped_variant, skipped_package, skipped_other;
	uint64_t cstate_rows, irqs;
	/* rows that start after the previous one ended (beyond rounding) */
	uint64_t gaps, max_gap_ns;
	uint32_t max_gap_line;
	/* the time the core C-state rows cover (of cover_sections imported
	 * sections, each against end_rel; the least: min_cover_cpu's) */
	uint64_t covered_ns, min_cover_ns;
	size_t cover_sections;
	uint32_t min_cover_cpu;
	/* per CPU: C-state text -> state (TL_C0 or an index) */
	struct sw_map {
		uint32_t text;
		int32_t state;
	} (*map)[TRACEFILE_MAX_STATES + 2];
	uint32_t *nmap;
};

/*
 * Plans the import of f: the CPU of each section (Core_N is cpuN when
 * all core sections share one package and die, else CPUs are numbered
 * in order), the idle state of each C-state (from the "wakebench state"
 * lines when there are any, else the names seen, sorted by their CCn:
 * CC1 before CC6), the trace's start (Collection begin timestamp,
 * required) and end: the collection's (Collection end timestamp, else
 * begin + Collection duration), or the last row's end when later by more
 * than its rounding. Returns 0 or -errno with "FILE:LINE: ..." in err.
 */
int socwatch_plan(const struct sw_file *f, struct sw_plan *p, char *err,
		  size_t errlen);
void socwatch_plan_free(struct sw_plan *p);
typedef int (*sw_event_fn)(void *ctx, const struct tl_event *e);
/*
 * The trace's events, CPU after CPU, each CPU's in time order: cpu_idle
 * at the start of each C-state row (an exit for CC0/C0, else an entry
 * into its state), at least 1 ns after the previous one so that no row
 * has no length in the trace, and TL_NO_DATA (unknown from here) at the
 * end of a row followed by a gap (the next row starts after it ended,
 * beyond the rounding) and at the end of a section's last row when that
 * ends before the trace does: no row covers that time, so it is neither
 * C0 nor the state of the row before;
 * an irq_handler_entry at each IRQ row's time (first, at equal times).
 * Returns 0 or the first non-zero return of fn.
 */
int socwatch_emit(const struct sw_file *f, const struct sw_plan *p,
		  sw_event_fn fn, void *ctx);

/* CCn's n for a Linux idle state name (see above). */
unsigned int socwatch_cc_number(const char *name);
/* 1 for CC0 or C0 (case ignored): running, not an idle state. */
int socwatch_is_c0(const char *token);
/*
 * The C-state tokens of one CPU's states: tokens[i] for names[i] ("":
 * no state, no token), unique on the CPU and none CC0 (see above).
 */
void socwatch_cc_tokens(const char (*names)[32], size_t n,
			char (*tokens)[SW_MAX_STATE + 1]);
/* ns as ms with two decimals, rounded half up: "1169.26". */
const char *socwatch_ms(uint64_t ns, char *buf, size_t len);

#endif
