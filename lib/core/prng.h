/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prng: xoshiro256** seeded through splitmix64. Never rand(): runs must
 * be reproducible from --seed on every libc.
 */
#ifndef WB_PRNG_H
#define WB_PRNG_H

#include <stdint.h>

struct prng {
	uint64_t s[4];
};

/* Seed the four state words from @seed with splitmix64 (never all zero). */
void prng_seed(struct prng *p, uint64_t seed);
uint64_t prng_next(struct prng *p);
/* Uniform double in (0, 1]: 53 random bits, never 0 so log() is safe. */
double prng_uniform_pos(struct prng *p);
/* Uniform double in [0, 1). */
double prng_uniform(struct prng *p);

#endif
