/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runsignals: the signal set-up of the commands that change machine
 * settings, so that a signal ends them through their restore path.
 */
#ifndef WB_RUNSIGNALS_H
#define WB_RUNSIGNALS_H

/*
 * For the commands that change settings: blocks SIGINT and SIGTERM (the
 * caller takes them with signalfd or sigwait), turns SIGHUP into SIGTERM
 * and ignores SIGPIPE, each only where it still has its default action.
 * cstate_run_begin() calls it before its first change.
 */
void cstate_run_signals(void);

#endif
