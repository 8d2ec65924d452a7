/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hdrlog: HdrHistogram interval logs (.hlog), the format HdrHistogram's
 * own tools (HistogramLogProcessor, HistogramLogReader, hdr-histogram-js,
 * HdrHistogram_c's hdr_log_reader) read, merge and plot.
 *
 * A log is a header (format version, StartTime, BaseTime, the column
 * legend) then one line per histogram:
 *   Tag=lat,0.000,1.000,0.052,HISTFAAAA...
 * start (s after BaseTime), length (s), the histogram's max in ms (the
 * values are ns, and HdrHistogram's writers divide the max by 1e6) and
 * the histogram in HdrHistogram's V2 compressed encoding, base64:
 *   compressed: int32 cookie 0x1c849314 (base 0x1c849304 | word size 1
 *     << 4, as HdrHistogram writes it), int32 length of the zlib stream,
 *     the zlib (DEFLATE) stream of the encoding below;
 *   encoding: int32 cookie 0x1c849313 (base 0x1c849303 | 0x10), int32
 *     payload length, int32 normalizing offset 0, int32 significant
 *     digits, int64 lowest discernible value, int64 highest trackable
 *     value, double integer-to-double ratio 1.0 (all big-endian), then the
 *     counts array up to the max's index, each count ZigZag LEB128 (at
 *     most 9 bytes, the 9th a whole byte) and a run of n > 1 zeros as -n.
 *
 * The layout of every histogram here: values in ns, lowest discernible
 * 1 ns, highest trackable HDRH_HIGHEST (one hour), 3 significant digits
 * (a bucket is at most 1/1024 of its values wide). Larger values are
 * clamped to the highest: a latency over an hour is not one.
 */
#ifndef WB_HDRLOG_H
#define WB_HDRLOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct hist;

#define HDRH_LOWEST 1ull
#define HDRH_HIGHEST 3600000000000ull	/* 1 h in ns */
#define HDRH_SIGDIGITS 3

/* An HdrHistogram's counts in the layout above (about 270 kB). */
struct hdrh {
	uint64_t *counts;
	size_t len;		/* counts */
	uint64_t total, max;	/* max: highest value recorded (clamped) */
};

/* 0, or -ENOMEM. */
int hdrh_init(struct hdrh *h);
void hdrh_free(struct hdrh *h);
void hdrh_reset(struct hdrh *h);
/* The counts index of value v (clamped to HDRH_HIGHEST). */
size_t hdrh_index(uint64_t v);
/* The lowest value of the bucket at counts index i. */
uint64_t hdrh_index_value(size_t i);
/* Adds n counts of value v. */
void hdrh_record(struct hdrh *h, uint64_t v, uint64_t n);
/*
 * Adds the counts of a lib/hist histogram: each of its buckets (at most
 * 1/128 of its values wide) at its middle, clamped to the histogram's min
 * and max, so each value is within HIST_REL_ERROR of a sample's.
 */
void hdrh_add_hist(struct hdrh *h, const struct hist *src);

/*
 * The V2 encoding of h (uncompressed) into a malloc'd buffer: *out, *outlen.
 * 0, or -ENOMEM.
 */
int hdrh_encode(const struct hdrh *h, uint8_t **out, size_t *outlen);
/* The compressed V2 encoding, base64, NUL-terminated, malloc'd in *out.
 * 0, -ENOMEM, or -EIO (zlib failed). */
int hdrh_encode_base64(const struct hdrh *h, char **out);

/*
 * The log's header: StartTime and BaseTime start_s (seconds since the
 * epoch). 0, or -errno of the write.
 */
int hdrlog_header(FILE *f, double start_s);
/*
 * One line: histogram h tagged tag (NULL: none) over [start_s, start_s +
 * len_s) after BaseTime. 0, or -errno (-ENOMEM, -EIO).
 */
int hdrlog_line(FILE *f, const char *tag, double start_s, double len_s,
		const struct hdrh *h);

#endif
