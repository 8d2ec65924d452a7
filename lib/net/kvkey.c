// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include "kvkey.h"

unsigned kvkey_digits(uint64_t v)
{
	unsigned n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

unsigned kvkey_min_size(uint64_t nkeys)
{
	unsigned s = 2 + kvkey_digits(nkeys ? nkeys - 1 : 0);

	return s < KVKEY_MIN ? KVKEY_MIN : s;
}

int kvkey_text(uint64_t k, unsigned size, char *out)
{
	unsigned d = kvkey_digits(k);

	if (size < KVKEY_MIN || size > KVKEY_MAX || d > size - 2)
		return -EINVAL;
	out[0] = 'w';
	out[1] = 'b';
	memset(out + 2, '0', size - 2 - d);
	for (char *p = out + size - 1; d--; k /= 10)
		*p-- = (char)('0' + k % 10);
	out[size] = '\0';
	return (int)size;
}

int kvkey_parse(const char *s, size_t len, uint64_t *k, unsigned *size)
{
	uint64_t v = 0;
	size_t i, first;

	if (len < KVKEY_MIN || len > KVKEY_MAX || s[0] != 'w' || s[1] != 'b')
		return -EINVAL;
	for (i = 2; i < len && s[i] == '0'; i++)
		;
	first = i;
	if (len - first > 19)
		return -EINVAL;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*k = v;
	*size = (unsigned)len;
	return 0;
}

uint64_t kvkey_hash(uint64_t k, unsigned size)
{
	char t[KVKEY_MAX + 1];
	uint64_t h = 0xcbf29ce484222325ull;

	if (kvkey_text(k, size, t) < 0)
		return 0;
	for (unsigned i = 0; i < size; i++) {
		h ^= (uint8_t)t[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

unsigned kvkey_route(uint64_t hash, unsigned n, unsigned replicas,
		     unsigned *out)
{
	unsigned first;

	if (!n)
		return 0;
	if (replicas < 1)
		replicas = 1;
	if (replicas > n)
		replicas = n;
	first = (unsigned)(hash % n);
	for (unsigned i = 0; i < replicas; i++)
		out[i] = (first + i) % n;
	return replicas;
}
