// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the SocWatch CSV parser (lib/socwatch) fed arbitrary bytes.
 * For an input it accepts: every section's rows in time order, each
 * C-state row's interval inside [previous end, its end] and no duration
 * longer than its end allows; for one it can plan: every section's CPU
 * within the trace, and the events it would write in time order per CPU,
 * within the trace's start and end, with states the plan named, taken by
 * a timeline without one rejected. The seed corpus
 * (tests/fuzz/corpus/socwatch) holds SoC Watch's layout and variations.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "socwatch.h"
#include "timeline.h"

struct check {
	const struct sw_plan *p;
	struct timeline *t;
	uint32_t cpu;
	uint64_t last;
	int any;
};

static int event(void *ctx, const struct tl_event *e)
{
	struct check *c = ctx;

	if (e->cpu >= c->p->ncpus || e->ts < c->p->start_ns || e->ts > c->p->end_ns)
		abort();
	/* CPU after CPU, each in time order */
	if (c->any && (e->cpu < c->cpu || (e->cpu == c->cpu && e->ts < c->last)))
		abort();
	/* an entry names a state; an exit, or unknown after the rows */
	if (e->type == TL_IDLE && e->arg != TL_EXIT && e->arg != TL_NO_DATA &&
	    (e->arg >= TRACEFILE_MAX_STATES || !c->p->names[e->cpu][e->arg][0]))
		abort();
	c->any = 1;
	c->cpu = e->cpu;
	c->last = e->ts;
	if (timeline_add(c->t, e) == -EINVAL)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[2000];
	struct sw_file *f;
	struct sw_plan p;
	struct check c = { 0 };
	char *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	/* an exact-size copy: ASan sees any read past the input */
	memcpy(copy, data, size);
	if (socwatch_parse("fuzz.csv", copy, size, &f, err, sizeof(err))) {
		if (strncmp(err, "fuzz.csv", 8))
			abort();	/* every message names the file */
		free(copy);
		return 0;
	}
	for (size_t i = 0; i < f->nsec; i++) {
		const struct sw_section *s = &f->sec[i];

		for (size_t r = 0; r < s->nrows; r++) {
			const struct sw_row *w = &s->rows[r];

			uint64_t raw = w->end_ns > w->dur_ns ? w->end_ns - w->dur_ns : 0;

			if (w->start_ns > w->end_ns)
				abort();
			/* IRQs: at their time; C-states: end - duration, or
			 * the previous end when within the rounding */
			if (s->kind == SW_IRQ ? w->start_ns != w->end_ns :
			    w->start_ns != raw &&
			    !(r && w->start_ns == s->rows[r - 1].end_ns))
				abort();
			if (r && (w->end_ns < s->rows[r - 1].end_ns ||
				  (s->kind != SW_IRQ && w->start_ns < s->rows[r - 1].end_ns)))
				abort();
			if (w->line <= s->line || (r && w->line <= s->rows[r - 1].line))
				abort();
			if (s->kind != SW_IRQ && strlen(socwatch_str(f, w->text)) > SW_MAX_STATE)
				abort();
		}
	}
	if (!socwatch_plan(f, &p, err, sizeof(err))) {
		if (!p.ncpus || p.ncpus > SW_MAX_CPUS || p.end_ns < p.start_ns)
			abort();
		for (size_t i = 0; i < f->nsec; i++)
			if (p.cpu[i] >= (int32_t)p.ncpus)
				abort();
		c.p = &p;
		c.t = timeline_new(p.ncpus, p.start_ns);
		if (c.t) {
			int r = socwatch_emit(f, &p, event, &c);

			if (r && r != -ENOMEM)
				abort();
			timeline_finish(c.t, p.end_ns);
			if (timeline_rejected(c.t))
				abort();
			timeline_free(c.t);
		}
		socwatch_plan_free(&p);
	} else if (strncmp(err, "fuzz.csv", 8) && strcmp(err, "out of memory")) {
		abort();
	}
	socwatch_free(f);
	free(copy);
	return 0;
}
