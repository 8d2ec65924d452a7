// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "csv.h"
#include "wfile.h"

/*
 * Fields are put into a buffer of the csv's own and handed to the stream
 * a block at a time: a trace analysis writes tens of millions of fields,
 * and a stdio call per field was a quarter of its time.
 */
#define CSV_BUF 65536
/*
 * The buffer starts at a page and doubles up to CSV_BUF as rows come:
 * trace timeline writes a file per CPU, and on a host of hundreds of
 * CPUs most have a few rows; 64 KB each at once (zeroed) was most of the
 * analysis's memory.
 */
#define CSV_BUF_FIRST 4096

struct csv {
	FILE *f;
	int first;	/* next field starts a row */
	size_t n, cap, max;
	char *buf;
};

static void flush_buf(struct csv *c)
{
	if (c->n)
		fwrite_unlocked(c->buf, 1, c->n, c->f);
	c->n = 0;
}

/*
 * Room for len more bytes: the buffer grown, else flushed. 0 when len
 * does not fit even then (a long string, or no memory to grow): the
 * caller writes it straight through.
 */
static int make_room(struct csv *c, size_t len)
{
	while (c->cap < c->max && c->cap - c->n < len) {
		char *nb = realloc(c->buf, 2 * c->cap);

		if (!nb)
			break;
		c->buf = nb;
		c->cap *= 2;
	}
	if (c->cap - c->n < len)
		flush_buf(c);
	return c->cap >= len;
}

static void put(struct csv *c, const char *s, size_t len)
{
	if (c->cap - c->n < len &&
	    (len > CSV_BUF / 2 || !make_room(c, len))) {	/* straight through */
		flush_buf(c);
		fwrite_unlocked(s, 1, len, c->f);
		return;
	}
	memcpy(c->buf + c->n, s, len);
	c->n += len;
}

static void putch(struct csv *c, char ch)
{
	if (c->n == c->cap)
		make_room(c, 1);	/* cap >= 1: a flush makes room */
	c->buf[c->n++] = ch;
}

struct csv *csv_open(const char *path)
{
	struct csv *c = malloc(sizeof(*c));

	if (!c)
		return NULL;
	c->n = 0;
	c->cap = CSV_BUF_FIRST;
	c->max = CSV_BUF;
	c->buf = malloc(c->cap);
	c->f = c->buf ? wfile_open(path) : NULL;
	if (!c->f) {
		int err = c->buf ? errno : ENOMEM;

		free(c->buf);
		free(c);
		errno = err;
		return NULL;
	}
	/* the csv's own buffer is the only one: a flush of not quite a
	 * stdio buffer's size was copied into stdio's and written later,
	 * every byte of a trace analysis's gigabytes copied twice */
	if (c->f != stdout)
		setvbuf(c->f, NULL, _IONBF, 0);
	c->first = 1;
	return c;
}

void csv_buffer_max(struct csv *c, size_t bytes)
{
	c->max = bytes < CSV_BUF_FIRST ? CSV_BUF_FIRST : bytes > CSV_BUF ? CSV_BUF : bytes;
}

void csv_header(struct csv *c, const char *cols)
{
	put(c, cols, strlen(cols));
	putch(c, '\n');
}

static void sep(struct csv *c)
{
	if (!c->first)
		putch(c, ',');
	c->first = 0;
}

/*
 * Digits of v, right-aligned to end (at least min_digits, zero-padded);
 * returns the first. printf() costs most of a trace analysis or a
 * million-row requests.csv otherwise.
 */
static char *digits(char *end, uint64_t v, unsigned min_digits)
{
	static const char pairs[201] =
		"00010203040506070809101112131415161718192021222324"
		"25262728293031323334353637383940414243444546474849"
		"50515253545556575859606162636465666768697071727374"
		"75767778798081828384858687888990919293949596979899";
	char *p = end;

	/* two digits a division */
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;

		v /= 100;
		*--p = pairs[d + 1];
		*--p = pairs[d];
	}
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while ((unsigned)(end - p) < min_digits)
		*--p = '0';
	return p;
}

void csv_u64(struct csv *c, uint64_t v)
{
	char buf[24], *p = digits(buf + sizeof(buf), v, 1);

	sep(c);
	put(c, p, (size_t)(buf + sizeof(buf) - p));
}

void csv_fixed(struct csv *c, uint64_t v, unsigned decimals)
{
	char buf[48], *end = buf + sizeof(buf), *p;
	uint64_t scale = 1;

	if (decimals > 18)
		decimals = 18;
	for (unsigned i = 0; i < decimals; i++)
		scale *= 10;
	p = decimals ? digits(end, v % scale, decimals) : end;
	if (decimals)
		*--p = '.';
	p = digits(p, v / scale, 1);
	sep(c);
	put(c, p, (size_t)(end - p));
}

void csv_i64(struct csv *c, int64_t v)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%" PRId64, v);

	sep(c);
	put(c, buf, (size_t)n);
}

void csv_double(struct csv *c, double v, int prec)
{
	char buf[400];
	int n;

	sep(c);
	if (isnan(v))
		return;
	n = snprintf(buf, sizeof(buf), "%.*f", prec, v);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(buf)) {
		put(c, buf, (size_t)n);
		return;
	}
	flush_buf(c);		/* a huge value: stdio formats it */
	fprintf(c->f, "%.*f", prec, v);
}

void csv_str(struct csv *c, const char *s)
{
	/* one pass: the safe prefix's length is the string's when whole */
	size_t safe = strcspn(s, ",\"\n\r");

	sep(c);
	if (!s[safe]) {
		put(c, s, safe);
		return;
	}
	putch(c, '"');
	for (; *s; s++) {
		if (*s == '"')
			putch(c, '"');
		putch(c, *s);
	}
	putch(c, '"');
}

void csv_empty(struct csv *c)
{
	sep(c);
}

void csv_end_row(struct csv *c)
{
	putch(c, '\n');
	c->first = 1;
}

int csv_close(struct csv *c)
{
	int err;

	if (!c)
		return 0;
	flush_buf(c);
	err = wfile_close(c->f);
	free(c->buf);
	free(c);
	return err;
}
