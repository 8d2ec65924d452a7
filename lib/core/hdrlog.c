// SPDX-License-Identifier: GPL-2.0
/* hdrlog: HdrHistogram interval logs (see hdrlog.h for the format). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "hdrlog.h"
#include "hist.h"

/*
 * The layout follows from lowest 1, 3 significant digits: a value up to
 * 2 * 10^3 must have a bucket of its own, so 2^11 sub-buckets, of which
 * the upper half (1024) starts each further power of two; unit magnitude
 * 0 (lowest 1).
 */
#define SUB_MAG 11
#define HALF_MAG (SUB_MAG - 1)
#define HALF_COUNT (1u << HALF_MAG)
#define SUB_MASK ((1ull << SUB_MAG) - 1)

#define COOKIE_V2 (0x1c849303u | 0x10u)
#define COOKIE_V2_COMPRESSED (0x1c849304u | 0x10u)
#define HEADER_LEN 40

/* Buckets needed to reach HDRH_HIGHEST, as HdrHistogram counts them. */
static size_t counts_len(void)
{
	uint64_t smallest_untrackable = 1ull << SUB_MAG;
	size_t buckets = 1;

	while (smallest_untrackable <= HDRH_HIGHEST) {
		smallest_untrackable <<= 1;
		buckets++;
	}
	return (buckets + 1) * HALF_COUNT;
}

int hdrh_init(struct hdrh *h)
{
	memset(h, 0, sizeof(*h));
	h->len = counts_len();
	h->counts = calloc(h->len, sizeof(*h->counts));
	return h->counts ? 0 : -ENOMEM;
}

void hdrh_free(struct hdrh *h)
{
	free(h->counts);
	h->counts = NULL;
}

void hdrh_reset(struct hdrh *h)
{
	memset(h->counts, 0, h->len * sizeof(*h->counts));
	h->total = 0;
	h->max = 0;
}

size_t hdrh_index(uint64_t v)
{
	unsigned int bucket;
	uint64_t sub;

	if (v > HDRH_HIGHEST)
		v = HDRH_HIGHEST;
	bucket = (unsigned int)(64 - __builtin_clzll(v | SUB_MASK)) - SUB_MAG;
	sub = v >> bucket;
	return ((size_t)(bucket + 1) << HALF_MAG) + (size_t)(sub - HALF_COUNT);
}

uint64_t hdrh_index_value(size_t i)
{
	long bucket = (long)(i >> HALF_MAG) - 1;
	uint64_t sub = (i & (HALF_COUNT - 1)) + HALF_COUNT;

	if (bucket < 0) {
		sub -= HALF_COUNT;
		bucket = 0;
	}
	return sub << bucket;
}

void hdrh_record(struct hdrh *h, uint64_t v, uint64_t n)
{
	if (!n)
		return;
	if (v > HDRH_HIGHEST)
		v = HDRH_HIGHEST;
	h->counts[hdrh_index(v)] += n;
	h->total += n;
	if (v > h->max)
		h->max = v;
}

struct add_arg {
	struct hdrh *h;
	uint64_t min, max;
};

static void add_bucket(uint64_t lo, uint64_t hi, uint64_t count, void *arg)
{
	struct add_arg *a = arg;
	uint64_t v = lo + (hi - lo) / 2;

	if (v < a->min)
		v = a->min;
	if (v > a->max)
		v = a->max;
	hdrh_record(a->h, v, count);
}

void hdrh_add_hist(struct hdrh *h, const struct hist *src)
{
	struct add_arg a = { .h = h, .min = hist_min(src), .max = hist_max(src) };

	if (hist_count(src))
		hist_foreach_bucket(src, add_bucket, &a);
}

static uint8_t *put_be(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = bytes - 1; i >= 0; i--)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

/* ZigZag then LEB128 of 7 bits a byte, the 9th byte (bits 56-63) whole. */
static uint8_t *put_zigzag(uint8_t *p, int64_t v)
{
	uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);

	for (int i = 0; i < 8; i++) {
		if (u < 0x80) {
			*p++ = (uint8_t)u;
			return p;
		}
		*p++ = (uint8_t)((u & 0x7f) | 0x80);
		u >>= 7;
	}
	*p++ = (uint8_t)u;
	return p;
}

/* The payload: counts up to the max's index, runs of zeros as -n. */
static uint8_t *put_counts(uint8_t *p, const struct hdrh *h)
{
	size_t limit = h->total ? hdrh_index(h->max) + 1 : 0;

	for (size_t i = 0; i < limit;) {
		uint64_t c = h->counts[i++];
		int64_t zeros = 0;

		if (!c) {
			zeros = 1;
			while (i < limit && !h->counts[i]) {
				zeros++;
				i++;
			}
		}
		p = put_zigzag(p, zeros > 1 ? -zeros : (int64_t)c);
	}
	return p;
}

int hdrh_encode(const struct hdrh *h, uint8_t **out, size_t *outlen)
{
	size_t limit = h->total ? hdrh_index(h->max) + 1 : 0;
	uint8_t *buf = malloc(HEADER_LEN + 9 * limit), *p, *end;
	double ratio = 1.0;
	uint64_t ratio_bits;

	if (!buf)
		return -ENOMEM;
	end = put_counts(buf + HEADER_LEN, h);
	memcpy(&ratio_bits, &ratio, sizeof(ratio_bits));
	p = put_be(buf, COOKIE_V2, 4);
	p = put_be(p, (uint64_t)(end - buf - HEADER_LEN), 4);
	p = put_be(p, 0, 4);	/* normalizing index offset */
	p = put_be(p, HDRH_SIGDIGITS, 4);
	p = put_be(p, HDRH_LOWEST, 8);
	p = put_be(p, HDRH_HIGHEST, 8);
	put_be(p, ratio_bits, 8);
	*out = buf;
	*outlen = (size_t)(end - buf);
	return 0;
}

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Standard base64 with padding of in[n] into out (room 4 * ceil(n / 3) + 1). */
static void base64(const uint8_t *in, size_t n, char *out)
{
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		uint32_t w = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];

		*out++ = b64[w >> 18];
		*out++ = b64[(w >> 12) & 63];
		*out++ = b64[(w >> 6) & 63];
		*out++ = b64[w & 63];
	}
	if (i < n) {
		uint32_t w = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0);

		*out++ = b64[w >> 18];
		*out++ = b64[(w >> 12) & 63];
		*out++ = i + 1 < n ? b64[(w >> 6) & 63] : '=';
		*out++ = '=';
	}
	*out = '\0';
}

int hdrh_encode_base64(const struct hdrh *h, char **out)
{
	uint8_t *enc = NULL, *comp = NULL;
	size_t enclen;
	uLongf zlen;
	int ret;

	*out = NULL;
	ret = hdrh_encode(h, &enc, &enclen);
	if (ret)
		return ret;
	zlen = compressBound((uLong)enclen);
	comp = malloc(8 + zlen);
	if (!comp) {
		ret = -ENOMEM;
		goto out;
	}
	if (compress(comp + 8, &zlen, enc, (uLong)enclen) != Z_OK) {
		ret = -EIO;
		goto out;
	}
	put_be(put_be(comp, COOKIE_V2_COMPRESSED, 4), zlen, 4);
	*out = malloc(4 * ((8 + zlen + 2) / 3) + 1);
	if (!*out) {
		ret = -ENOMEM;
		goto out;
	}
	base64(comp, 8 + zlen, *out);
out:
	free(comp);
	free(enc);
	return ret;
}

int hdrlog_header(FILE *f, double start_s)
{
	time_t t = (time_t)start_s;
	struct tm tm;
	char date[64] = "";

	if (gmtime_r(&t, &tm))
		strftime(date, sizeof(date), "%a %b %d %H:%M:%S UTC %Y", &tm);
	fprintf(f, "#[Logged with wakebench client]\n");
	fprintf(f, "#[Histogram log format version 1.3]\n");
	fprintf(f, "#[StartTime: %.3f (seconds since epoch), %s]\n", start_s, date);
	fprintf(f, "#[BaseTime: %.3f (seconds since epoch)]\n", start_s);
	fprintf(f, "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
		"\"Interval_Compressed_Histogram\"\n");
	return ferror(f) ? -EIO : 0;
}

int hdrlog_line(FILE *f, const char *tag, double start_s, double len_s,
		const struct hdrh *h)
{
	char *b = NULL;
	int ret = hdrh_encode_base64(h, &b);

	if (ret)
		return ret;
	if (tag)
		fprintf(f, "Tag=%s,", tag);
	/* the max in ms, as HdrHistogram's writers put ns values */
	fprintf(f, "%.3f,%.3f,%.3f,%s\n", start_s, len_s, (double)h->max / 1e6, b);
	free(b);
	return ferror(f) ? -EIO : 0;
}
