// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "json.h"
#include "wfile.h"

#define JSON_MAX_DEPTH 32

struct json {
	FILE *f;
	int depth;
	int first[JSON_MAX_DEPTH];
};

struct json *json_open(const char *path)
{
	struct json *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->f = wfile_open(path);
	if (!j->f) {
		int err = errno;

		free(j);
		errno = err;
		return NULL;
	}
	j->first[0] = 1;
	return j;
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch == '\n')
			fputs("\\n", f);
		else if (ch == '\t')
			fputs("\\t", f);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void json_key(struct json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = 0;
	if (j->depth)
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	if (key) {
		json_string(j->f, key);
		fputs(": ", j->f);
	}
}

static void json_open_nest(struct json *j, const char *key, char ch)
{
	json_key(j, key);
	fputc(ch, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = 1;
}

static void json_close_nest(struct json *j, char ch)
{
	int empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty)
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	fputc(ch, j->f);
	if (j->depth == 0)
		fputc('\n', j->f);
}

void json_obj_begin(struct json *j, const char *key)
{
	json_open_nest(j, key, '{');
}

void json_obj_end(struct json *j)
{
	json_close_nest(j, '}');
}

void json_arr_begin(struct json *j, const char *key)
{
	json_open_nest(j, key, '[');
}

void json_arr_end(struct json *j)
{
	json_close_nest(j, ']');
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void json_i64(struct json *j, const char *key, int64_t v)
{
	json_key(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void json_double(struct json *j, const char *key, double v)
{
	json_key(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.10g", v);
	else
		fputs("null", j->f);
}

void json_str(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	if (s)
		json_string(j->f, s);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, const char *key, int v)
{
	json_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

int json_close(struct json *j)
{
	int err;

	if (!j)
		return 0;
	err = wfile_close(j->f);
	free(j);
	return err;
}
