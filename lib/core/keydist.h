/* SPDX-License-Identifier: GPL-2.0 */
/*
 * keydist: which key a request asks for (--key-dist). uniform: every key
 * alike; zipf:S: key k (0-based) with probability proportional to
 * 1/(k+1)^S, drawn by rejection-inversion (Hörmann and Derflinger 1996,
 * as Apache Commons RNG does it): exact, O(1) time and memory for any
 * number of keys.
 */
#ifndef WB_KEYDIST_H
#define WB_KEYDIST_H

#include <stdint.h>
#include "prng.h"

enum keydist_kind { KEYDIST_UNIFORM, KEYDIST_ZIPF };

struct keydist_spec {
	enum keydist_kind kind;
	double s;		/* zipf exponent */
};

struct keydist {
	struct keydist_spec spec;
	uint64_t n;
	double hx1, hn, sq;	/* zipf: integrals and the squeeze */
};

/* "uniform" or "zipf:S" with 0 < S <= 10; 0 or -EINVAL. */
int keydist_parse(const char *arg, struct keydist_spec *spec);
/* Writes the spec back as keydist_parse takes it. */
void keydist_name(const struct keydist_spec *spec, char *out, size_t len);
/* n >= 1 keys; 0 or -EINVAL. */
int keydist_init(struct keydist *d, const struct keydist_spec *spec,
		 uint64_t n);
/* A key in 0 .. n-1. */
uint64_t keydist_next(const struct keydist *d, struct prng *p);

#endif
