// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: a sweep's spec file (lib/sweepspec), as `wakebench sweep
 * --spec` and `--resume` (DIR/sweep.spec) read it: parse, check, resolve,
 * write; a resolved spec written and read back must resolve to the same
 * text and compare equal (what --resume relies on); its plan, written,
 * must read back line by line and check as its own. The same bytes as
 * `ss -Hltnup` output (lib/portheld).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "portheld.h"
#include "sweepplan.h"
#include "sweepspec.h"

static char *resolved(struct sweepspec *s, int ncpus, size_t *len)
{
	char err[512], *buf = NULL;
	FILE *f;

	if (sweepspec_resolve(s, ncpus, err, sizeof(err)))
		return NULL;
	f = open_memstream(&buf, len);
	if (!f)
		abort();
	if (sweepspec_write(s, f))
		abort();
	fclose(f);
	return buf;
}

/* the plan of a resolved spec: every line parses, the text checks */
static void plan_round_trip(const struct sweepspec *s)
{
	struct sweepplan p = { 0 };
	char err[512], *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *f;

	if (sweepplan_build(s, 1, 2, &p) || p.n > 2000)
		goto out;
	f = open_memstream(&buf, &len);
	if (!f)
		abort();
	if (sweepplan_write(&p, 0, f))
		abort();
	fclose(f);
	/* the check builds every repetition: only where the plan is all */
	if (strtoul(s->val[SK_REPS], NULL, 10) == 2 &&
	    sweepplan_check(s, buf, len, "plan.txt", err, sizeof(err)))
		abort();
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct sweepplan_run r;

		if (sweepplan_parse_line(line, &r, "plan.txt", 1, err, sizeof(err)))
			abort();
	}
	free(buf);
out:
	sweepplan_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sweepspec s, t;
	char err[512], who[256], *a, *b, *text;
	size_t alen, blen;
	int ncpus = size ? 1 + data[0] % 8 : 2;

	if (sweepspec_init(&s))
		return 0;
	if (!sweepspec_parse(&s, (const char *)data, size, "f.spec", SS_FILE, err,
			     sizeof(err))) {
		a = resolved(&s, ncpus, &alen);
		if (a) {
			if (sweepspec_init(&t))
				abort();
			if (sweepspec_parse(&t, a, alen, "sweep.spec", SS_DEFAULT, err,
					    sizeof(err)))
				abort();
			b = resolved(&t, ncpus, &blen);
			if (!b || alen != blen || memcmp(a, b, alen))
				abort();
			if (sweepspec_compare(&t, &s, err, sizeof(err)))
				abort();
			plan_round_trip(&t);
			free(b);
			sweepspec_free(&t);
			free(a);
		}
	}
	sweepspec_free(&s);
	text = malloc(size + 1);
	if (text) {
		memcpy(text, data, size);
		text[size] = '\0';
		portheld_find(text, 17000, who, sizeof(who));
		free(text);
	}
	return 0;
}
