/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvkey: the keys of the key-value protocols (memcached, Redis) and how a
 * Router-style relay spreads them over backends.
 *
 * Key number k of a run is the text "wb" followed by k in decimal,
 * zero-padded to the key size (--key-size, 3 to 250 bytes: memcached's
 * limit). Every program derives the text from the number, so a key is
 * carried as (number, size) and never as a string.
 *
 * Routing: FNV-1a (64 bit) of the key's text, the backend hash % n, and a
 * set's replicas on the next ones (hash % n + 1, ...), as Router places
 * them: stable across runs, machines and backend restarts.
 */
#ifndef WB_KVKEY_H
#define WB_KVKEY_H

#include <stddef.h>
#include <stdint.h>

#define KVKEY_MIN 3
#define KVKEY_MAX 250
#define KVKEY_BACKENDS_MAX 64	/* a relay's backends: a 64-bit mask */

/* Digits of v in decimal. */
unsigned kvkey_digits(uint64_t v);
/* The smallest key size that holds keys 0 .. nkeys-1. */
unsigned kvkey_min_size(uint64_t nkeys);
/*
 * Writes key k at size bytes into out (size + 1 bytes, NUL-terminated).
 * Returns size, or -EINVAL when size is outside KVKEY_MIN..KVKEY_MAX or k
 * has more digits than size - 2.
 */
int kvkey_text(uint64_t k, unsigned size, char *out);
/*
 * Parses a key's text (len bytes, not NUL-terminated) into its number
 * and size: "wb" then 1 to 19 digits, the value below 10^19.
 * Returns 0 or -EINVAL (any other key: a relay routes only these).
 */
int kvkey_parse(const char *s, size_t len, uint64_t *k, unsigned *size);
/* FNV-1a 64 of the key's text. */
uint64_t kvkey_hash(uint64_t k, unsigned size);
/*
 * The backends a key goes to: out[0] = hash % n, then replicas - 1 more
 * in ring order. replicas is clamped to 1..n. Returns how many written.
 */
unsigned kvkey_route(uint64_t hash, unsigned n, unsigned replicas,
		     unsigned *out);

#endif
