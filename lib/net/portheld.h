/* SPDX-License-Identifier: GPL-2.0 */
/*
 * portheld: who holds a port, from the output of `ss -Hltnup` (listening
 * TCP and bound UDP sockets with their processes, no header). The sweep
 * runs ss on the server side before each server starts and refuses to
 * measure whatever already listens there.
 */
#ifndef WB_PORTHELD_H
#define WB_PORTHELD_H

#include <stddef.h>

/*
 * Whether TEXT (ss -Hltnup output) has a socket on PORT, any address:
 * 1 with the first such socket described in WHO ("tcp 127.0.0.1:17000
 * held by python3 (pid 4242)"; "an unknown process" when ss could not
 * see its owner), or 0. Lines that are not ss socket lines are skipped.
 */
int portheld_find(const char *text, unsigned port, char *who, size_t len);

#endif
