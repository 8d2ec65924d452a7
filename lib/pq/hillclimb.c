// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <string.h>
#include "csv.h"
#include "hillclimb.h"

void hillclimb_defaults(struct hillclimb_cfg *cfg)
{
	*cfg = (struct hillclimb_cfg){
		.initial_us = 0, .step_us = 100, .min_step_us = 3,
		.min_us = 0, .max_us = 1e6, .window = 1000,
	};
}

int hillclimb_init(struct hillclimb *h, const struct hillclimb_cfg *cfg)
{
	if (!cfg->window || !(cfg->step_us > 0) || !(cfg->min_step_us > 0) ||
	    cfg->min_us < 0 || cfg->max_us < cfg->min_us ||
	    cfg->initial_us < cfg->min_us || cfg->initial_us > cfg->max_us ||
	    !isfinite(cfg->max_us))
		return -1;
	memset(h, 0, sizeof(*h));
	h->cfg = *cfg;
	h->value_us = cfg->initial_us;
	h->step_us = cfg->step_us;
	h->dir = 1;
	h->prev_avg_ns = -1;
	h->best_us = cfg->initial_us;
	h->best_avg_ns = -1;
	return 0;
}

int hillclimb_add(struct hillclimb *h, uint64_t response_ns)
{
	double avg, used_us, used_step;

	h->sum_ns += (double)response_ns;
	if (++h->n < h->cfg.window)
		return 0;
	avg = h->sum_ns / (double)h->n;
	h->n = 0;
	h->sum_ns = 0;
	used_us = h->value_us;
	used_step = h->step_us;
	if (h->best_avg_ns < 0 || avg < h->best_avg_ns) {
		h->best_avg_ns = avg;
		h->best_us = used_us;
	}
	/* Keep going while it improves; reverse when it does not. */
	if (h->prev_avg_ns >= 0 && avg >= h->prev_avg_ns)
		h->dir = -h->dir;
	h->prev_avg_ns = avg;
	h->last_avg_ns = avg;
	h->value_us += h->dir * h->step_us;
	if (h->value_us < h->cfg.min_us) {
		h->value_us = h->cfg.min_us;
		h->dir = 1;	/* at the wall: the only way is back */
	}
	if (h->value_us > h->cfg.max_us) {
		h->value_us = h->cfg.max_us;
		h->dir = -1;
	}
	if (h->step_us / 2 >= h->cfg.min_step_us)
		h->step_us /= 2;
	h->windows++;
	h->row = (struct hillclimb_row){
		.window = h->windows, .value_us = used_us, .step_us = used_step,
		.avg_ns = avg, .best_us = h->best_us, .next_us = h->value_us,
	};
	return 1;
}

void hillclimb_row_write(struct csv *c, const struct hillclimb_row *row)
{
	csv_u64(c, row->window);
	csv_double(c, row->value_us, 3);
	csv_double(c, row->step_us, 3);
	csv_double(c, row->avg_ns, 1);
	csv_double(c, row->best_us, 3);
	csv_double(c, row->next_us, 3);
	csv_end_row(c);
}
