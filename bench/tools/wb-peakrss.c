// SPDX-License-Identifier: GPL-2.0
/*
 * wb-peakrss: runs a command and prints its peak resident set size.
 *
 *   wb-peakrss COMMAND [ARGS...]
 *
 * Prints "peak_rss_kb N" (the command's VmHWM: wait4's ru_maxrss) on
 * stderr once the command has exited, and exits with the command's
 * status (128 + the signal when a signal ended it). A small C parent,
 * because ru_maxrss counts the child from its fork: a child forked from
 * python or a shell carries their memory until it execs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: wb-peakrss COMMAND [ARGS...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "wb-peakrss: fork: %s\n", strerror(errno));
		return 1;
	}
	if (!pid) {
		execvp(argv[1], argv + 1);
		fprintf(stderr, "wb-peakrss: %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "wb-peakrss: wait4: %s\n", strerror(errno));
			return 1;
		}
	}
	fprintf(stderr, "peak_rss_kb %ld\n", ru.ru_maxrss);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
