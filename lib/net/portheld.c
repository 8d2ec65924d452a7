// SPDX-License-Identifier: GPL-2.0
/*
 * portheld: find the holder of a port in `ss -Hltnup` output. A line is
 * "NETID STATE RECV-Q SEND-Q LOCAL:PORT PEER:PORT [users:(("comm",pid=N,fd=M),...)]";
 * LOCAL may be 1.2.3.4, [::1], *, or carry %interface.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "portheld.h"

#define NFIELDS 6

/* The port after the last ':' of an address, or -1. */
static long port_of(const char *a, size_t n)
{
	size_t i = n;
	long p = 0;

	while (i > 0 && a[i - 1] != ':')
		i--;
	if (i == 0 || i == n || n - i > 5)
		return -1;
	for (; i < n; i++) {
		if (!isdigit((unsigned char)a[i]))
			return -1;
		p = p * 10 + (a[i] - '0');
	}
	return p;
}

/* Copies at most N bytes of S to D (DLEN) with anything unprintable as '?'. */
static void clean(char *d, size_t dlen, const char *s, size_t n)
{
	size_t i;

	if (!dlen)
		return;
	for (i = 0; i < n && i + 1 < dlen; i++)
		d[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
	d[i] = '\0';
}

/* "comm (pid N)" of the first process in a users:((...)) field. */
static void holder(const char *u, size_t n, char *out, size_t len)
{
	const char *end = u + n, *q1, *q2, *pid;
	char comm[64], pids[16];
	size_t users = 0;

	for (const char *p = u; p + 4 <= end; p++)
		if (!memcmp(p, "pid=", 4))
			users++;
	q1 = memchr(u, '"', n);
	q2 = q1 ? memchr(q1 + 1, '"', (size_t)(end - q1 - 1)) : NULL;
	pid = q2 ? memmem(q2, (size_t)(end - q2), "pid=", 4) : NULL;
	if (!q2 || !pid) {
		snprintf(out, len, "an unknown process");
		return;
	}
	clean(comm, sizeof(comm), q1 + 1, (size_t)(q2 - q1 - 1));
	pid += 4;
	/* digits end at ',' or ')' at the latest at the line's end */
	clean(pids, sizeof(pids), pid, strspn(pid, "0123456789"));
	if (users > 1)
		snprintf(out, len, "%s (pid %s) and %zu more", comm, pids, users - 1);
	else
		snprintf(out, len, "%s (pid %s)", comm, pids);
}

int portheld_find(const char *text, unsigned port, char *who, size_t len)
{
	const char *line = text;

	while (*line) {
		const char *nl = strchr(line, '\n'), *f[NFIELDS + 1], *p = line;
		size_t fl[NFIELDS + 1], n = nl ? (size_t)(nl - line) : strlen(line);
		const char *end = line + n;
		int nf = 0;

		while (p < end && nf < NFIELDS + 1) {
			while (p < end && isspace((unsigned char)*p))
				p++;
			if (p == end)
				break;
			f[nf] = p;
			if (nf == NFIELDS) {	/* the rest: the process list */
				fl[nf++] = (size_t)(end - p);
				break;
			}
			while (p < end && !isspace((unsigned char)*p))
				p++;
			fl[nf] = (size_t)(p - f[nf]);
			nf++;
		}
		if (nf >= NFIELDS && port_of(f[4], fl[4]) == (long)port) {
			char netid[16], local[128], h[256];

			clean(netid, sizeof(netid), f[0], fl[0]);
			clean(local, sizeof(local), f[4], fl[4]);
			if (nf > NFIELDS)
				holder(f[NFIELDS], fl[NFIELDS], h, sizeof(h));
			else
				snprintf(h, sizeof(h), "an unknown process");
			snprintf(who, len, "%s %s held by %s", netid, local, h);
			return 1;
		}
		line = nl ? nl + 1 : end;
	}
	return 0;
}
