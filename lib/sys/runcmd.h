/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runcmd: run a command around which some system state is held (C-state
 * settings, PM QoS, a trace), forwarding SIGINT/SIGTERM/SIGHUP to it, so
 * that the caller always gets control back to restore that state.
 */
#ifndef WB_RUNCMD_H
#define WB_RUNCMD_H

/*
 * Runs argv (PATH search) and waits for it. Returns its exit status,
 * 128 + signal if it was killed, or 127 if it could not be started.
 * *sig is set to the first signal the caller received (0 if none). The
 * caller may keep SIGINT/SIGTERM/SIGHUP blocked: one already pending is
 * passed on; the command itself starts with them unblocked.
 */
int runcmd_run(char *const argv[], int *sig);
/* Waits for SIGINT, SIGTERM or SIGHUP; returns the signal number. */
int runcmd_wait_signal(void);
/* Exit code for a signal: 128 + sig. */
static inline int runcmd_sig_exit(int sig)
{
	return 128 + sig;
}

#endif
