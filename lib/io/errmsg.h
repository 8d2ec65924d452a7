/* SPDX-License-Identifier: GPL-2.0 */
/* errmsg: the message half of the library's "-errno and a message" errors. */
#ifndef WB_ERRMSG_H
#define WB_ERRMSG_H

#include <stddef.h>

/* Formats into err (len bytes; nothing when len is 0). */
void errmsg_set(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
