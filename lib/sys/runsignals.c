// SPDX-License-Identifier: GPL-2.0
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "runsignals.h"

static void hup_as_term(int sig)
{
	(void)sig;
	kill(getpid(), SIGTERM);
}

static int default_action(int sig)
{
	struct sigaction old;

	return !sigaction(sig, NULL, &old) && !(old.sa_flags & SA_SIGINFO) &&
	       old.sa_handler == SIG_DFL;
}

void cstate_run_signals(void)
{
	struct sigaction sa;
	sigset_t set;

	sigemptyset(&set);
	if (default_action(SIGINT))
		sigaddset(&set, SIGINT);
	if (default_action(SIGTERM))
		sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (default_action(SIGHUP)) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = hup_as_term;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGHUP, &sa, NULL);
	}
	if (default_action(SIGPIPE))
		signal(SIGPIPE, SIG_IGN);
}
