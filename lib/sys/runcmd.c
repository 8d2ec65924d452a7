// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "runcmd.h"

static void stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

int runcmd_run(char *const argv[], int *sig)
{
	sigset_t set, old;
	pid_t pid;
	int status = 0;

	*sig = 0;
	stop_signals(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &old);
	pid = fork();
	if (pid < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return 127;
	}
	if (pid == 0) {
		/* The command starts with the stop signals open, even when
		 * the caller keeps them blocked (as it should, from before it
		 * calls: one that comes in between then waits, pending, for
		 * the loop below to pass it on instead of being lost). */
		sigprocmask(SIG_SETMASK, &old, NULL);
		/* Default actions first: a signal passed on before the exec
		 * must stop the command, not run the caller's handler in
		 * this child and be lost with it. */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		stop_signals(&set);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		execvp(argv[0], argv);
		fprintf(stderr, "wakebench: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	for (;;) {
		int s = sigwaitinfo(&set, NULL);
		pid_t w;

		if (s < 0)
			continue;	/* EINTR */
		if (s != SIGCHLD) {
			if (!*sig)
				*sig = s;
			kill(pid, s);
			continue;
		}
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (WIFSIGNALED(status))
		return runcmd_sig_exit(WTERMSIG(status));
	return WEXITSTATUS(status);
}

int runcmd_wait_signal(void)
{
	sigset_t set;
	int s;

	stop_signals(&set);
	sigprocmask(SIG_BLOCK, &set, NULL);
	do {
		s = sigwaitinfo(&set, NULL);
	} while (s < 0);
	return s;
}
