// SPDX-License-Identifier: GPL-2.0
/*
 * HdrHistogram's V2 encoding: bytes derived by hand from the format, and
 * a decoder written here from the format (base64, the compressed cookie,
 * zlib, the header, ZigZag LEB128 with zero runs) that reads back what
 * lib/hdrlog writes, counts and percentiles.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "unit.h"
#include "hdrlog.h"
#include "hist.h"
#include "prng.h"

START_TEST(layout)
{
	/* below 2048 every value has its own bucket; then 1024 a power of 2 */
	ck_assert_uint_eq(hdrh_index(0), 0);
	ck_assert_uint_eq(hdrh_index(2047), 2047);
	ck_assert_uint_eq(hdrh_index(2048), 2048);
	ck_assert_uint_eq(hdrh_index(2049), 2048);
	ck_assert_uint_eq(hdrh_index(4095), 3071);
	ck_assert_uint_eq(hdrh_index(4096), 3072);
	ck_assert_uint_eq(hdrh_index_value(3071), 4094);
	ck_assert_uint_eq(hdrh_index_value(3072), 4096);
	for (uint64_t v = 1; v < HDRH_HIGHEST; v = v * 3 + 7) {
		uint64_t lo = hdrh_index_value(hdrh_index(v));

		ck_assert_uint_le(lo, v);
		ck_assert_uint_le((v - lo) * 1024, v);
	}
	struct hdrh h;

	ck_assert_int_eq(hdrh_init(&h), 0);
	ck_assert_uint_lt(hdrh_index(HDRH_HIGHEST), h.len);
	ck_assert_uint_eq(hdrh_index(UINT64_MAX), hdrh_index(HDRH_HIGHEST));
	hdrh_free(&h);
}
END_TEST

static const uint8_t header_tail[] = {
	0, 0, 0, 0,			/* normalizing offset */
	0, 0, 0, 3,			/* significant digits */
	0, 0, 0, 0, 0, 0, 0, 1,		/* lowest 1 */
	0, 0, 0x03, 0x46, 0x30, 0xb8, 0xa0, 0,	/* 3.6e12 */
	0x3f, 0xf0, 0, 0, 0, 0, 0, 0,	/* 1.0 */
};

/* h's encoding is the cookie, payload length, header_tail, payload. */
static void check_encoding(const struct hdrh *h, const uint8_t *payload,
			   size_t n)
{
	uint8_t *buf;
	size_t len;
	const uint8_t head[] = { 0x1c, 0x84, 0x93, 0x13, 0, 0, 0, (uint8_t)n };

	ck_assert_int_eq(hdrh_encode(h, &buf, &len), 0);
	ck_assert_uint_eq(len, 40 + n);
	ck_assert_mem_eq(buf, head, 8);
	ck_assert_mem_eq(buf + 8, header_tail, 32);
	if (n)	/* an empty payload may be NULL: no memcmp of it */
		ck_assert_mem_eq(buf + 40, payload, n);
	free(buf);
}

START_TEST(encode_by_hand)
{
	struct hdrh h;

	ck_assert_int_eq(hdrh_init(&h), 0);
	/* counts 0 3 0 1: a lone zero is 0, 3 is ZigZag 6, 1 is 2 */
	hdrh_record(&h, 1, 3);
	hdrh_record(&h, 3, 1);
	check_encoding(&h, (const uint8_t[]){ 0x00, 0x06, 0x00, 0x02 }, 4);
	/* 2000 zeros then 1: -2000 is ZigZag 3999 = 0x9f 0x1f in LEB128 */
	hdrh_reset(&h);
	hdrh_record(&h, 2000, 1);
	check_encoding(&h, (const uint8_t[]){ 0x9f, 0x1f, 0x02 }, 3);
	/* 2^62 is ZigZag 2^63: 8 bytes of 7 zero bits, the 9th whole (0x80) */
	hdrh_reset(&h);
	hdrh_record(&h, 0, 1ull << 62);
	check_encoding(&h, (const uint8_t[]){ 0x80, 0x80, 0x80, 0x80, 0x80,
					      0x80, 0x80, 0x80, 0x80 }, 9);
	/* empty: no counts at all */
	hdrh_reset(&h);
	check_encoding(&h, NULL, 0);
	hdrh_free(&h);
}
END_TEST

/* --- an independent reader, from the format alone --- */

static int unb64(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

static size_t base64_decode(const char *s, uint8_t *out)
{
	size_t n = 0;
	uint32_t acc = 0;
	int bits = 0;

	for (; *s && *s != '='; s++) {
		int v = unb64(*s);

		ck_assert_int_ge(v, 0);
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (uint8_t)(acc >> bits);
		}
	}
	return n;
}

static uint64_t be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

/* Decodes base64 b into counts[len] (zeroed first); returns the total. */
static uint64_t decode(const char *b, uint64_t *counts, size_t len)
{
	size_t n = strlen(b), i = 0, pos;
	uint8_t *raw = malloc(n), *enc;
	uLongf enclen = 1 << 22;
	uint64_t total = 0, plen;

	enc = malloc(enclen);
	n = base64_decode(b, raw);
	ck_assert_uint_eq(be(raw, 4), 0x1c849314);
	ck_assert_uint_eq(be(raw + 4, 4), n - 8);
	ck_assert_int_eq(uncompress(enc, &enclen, raw + 8, n - 8), Z_OK);
	ck_assert_uint_eq(be(enc, 4) & ~0xf0u, 0x1c849303);
	plen = be(enc + 4, 4);
	ck_assert_uint_eq(plen + 40, enclen);
	ck_assert_uint_eq(be(enc + 12, 4), 3);
	ck_assert_uint_eq(be(enc + 16, 8), 1);
	memset(counts, 0, len * sizeof(*counts));
	for (pos = 40; pos < enclen;) {
		uint64_t u = 0;
		int64_t v;
		int k;

		for (k = 0; k < 8; k++) {
			u |= (uint64_t)(enc[pos] & 0x7f) << (7 * k);
			if (!(enc[pos++] & 0x80))
				break;
		}
		if (k == 8)
			u |= (uint64_t)enc[pos++] << 56;
		v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
		if (v < 0) {
			i += (size_t)-v;
		} else {
			ck_assert_uint_lt(i, len);
			counts[i++] = (uint64_t)v;
			total += (uint64_t)v;
		}
	}
	free(enc);
	free(raw);
	return total;
}

/* The value at nearest rank ceil(p * total) of decoded counts. */
static uint64_t decoded_pct(const uint64_t *counts, size_t len, uint64_t total,
			    double p)
{
	uint64_t rank = hist_rank(p, total), seen = 0;

	for (size_t i = 0; i < len; i++) {
		seen += counts[i];
		if (seen >= rank)
			return hdrh_index_value(i);
	}
	return 0;
}

START_TEST(roundtrip)
{
	struct hist *src = hist_new(1);
	struct hdrh h;
	struct prng r;
	uint64_t *counts, total;
	char *b;

	ck_assert_ptr_nonnull(src);
	ck_assert_int_eq(hdrh_init(&h), 0);
	counts = malloc(h.len * sizeof(*counts));
	prng_seed(&r, 36);
	/* heavy-tailed latencies from 20 us to about 20 ms */
	for (int i = 0; i < 20000; i++) {
		double u = prng_uniform(&r);

		hist_add(src, (uint64_t)(20000 / (1 - 0.999 * u)));
	}
	hdrh_add_hist(&h, src);
	ck_assert_uint_eq(h.total, 20000);
	ck_assert_int_eq(hdrh_encode_base64(&h, &b), 0);
	ck_assert_int_eq(strncmp(b, "HISTFAA", 7), 0);
	total = decode(b, counts, h.len);
	ck_assert_uint_eq(total, 20000);
	ck_assert_mem_eq(counts, h.counts, h.len * sizeof(*counts));
	for (double p = 0.1; p < 1; p += 0.1) {
		double x = (double)hist_percentile_exact(src, p);
		double y = (double)decoded_pct(counts, h.len, total, p);

		ck_assert_double_le(fabs(y - x), x * (HIST_REL_ERROR + 1.0 / 1024));
	}
	free(b);
	free(counts);
	hdrh_free(&h);
	hist_free(src);
}
END_TEST

START_TEST(log_lines)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct hdrh h;

	ck_assert_int_eq(hdrh_init(&h), 0);
	hdrh_record(&h, 2500000, 2);
	ck_assert_int_eq(hdrlog_header(f, 1700000000.25), 0);
	ck_assert_int_eq(hdrlog_line(f, "lat", 1.5, 0.5, &h), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "#[StartTime: 1700000000.250 (seconds since epoch), Tue Nov 14 22:13:20 UTC 2023]\n"));
	ck_assert_ptr_nonnull(strstr(buf, "#[BaseTime: 1700000000.250 (seconds since epoch)]\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\nTag=lat,1.500,0.500,2.500,HISTFAA"));
	free(buf);
	hdrh_free(&h);
}
END_TEST

Suite *hdrlog_suite(void)
{
	Suite *s = suite_create("hdrlog");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, layout);
	tcase_add_test(tc, encode_by_hand);
	tcase_add_test(tc, roundtrip);
	tcase_add_test(tc, log_lines);
	suite_add_tcase(s, tc);
	return s;
}
