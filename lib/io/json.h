/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json: a small streaming JSON writer (objects and arrays nested up to 32
 * deep, keys in the order written, NaN and NULL strings written as null).
 * Write errors are sticky and reported once, at close, as csv.h's.
 */
#ifndef WB_JSON_H
#define WB_JSON_H

#include <stdint.h>

struct json;

struct json *json_open(const char *path);
void json_obj_begin(struct json *j, const char *key);	/* key NULL at top */
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
void json_double(struct json *j, const char *key, double v);	/* NaN: null */
void json_str(struct json *j, const char *key, const char *s);	/* NULL: null */
void json_bool(struct json *j, const char *key, int v);
int json_close(struct json *j);

#endif
