/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmdline: the command line as a whole: "-- COMMAND" cut off it, and the
 * exact line shell-quoted (cmdline.txt, state files, snapshots).
 */
#ifndef WB_CMDLINE_H
#define WB_CMDLINE_H

/*
 * Cuts "-- COMMAND ARGS" off argv: returns the argc before "--" and sets
 * *cmd to the command (NULL without "--"). "--" with nothing after it is
 * a usage error.
 */
int opt_split_command(const char *prog, int argc, char **argv, char ***cmd);
/* The exact command line, shell-quoted where needed; caller frees. */
char *opt_cmdline(int argc, char **argv);

#endif
