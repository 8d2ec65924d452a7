// SPDX-License-Identifier: GPL-2.0
/* xoshiro256** 1.0 and splitmix64, after Blackman and Vigna (public domain). */
#include "prng.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void prng_seed(struct prng *p, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		p->s[i] = splitmix64(&seed);
	/* splitmix64 is a bijection of distinct inputs: never all zero. */
}

uint64_t prng_next(struct prng *p)
{
	uint64_t *s = p->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double prng_uniform_pos(struct prng *p)
{
	return (double)((prng_next(p) >> 11) + 1) * 0x1.0p-53;
}

double prng_uniform(struct prng *p)
{
	return (double)(prng_next(p) >> 11) * 0x1.0p-53;
}
