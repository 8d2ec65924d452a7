/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli: a command's options declared once, in a table that drives the
 * parsing (getopt_long underneath), the --help text and the usage errors,
 * as rtla's cli.c does. Each entry says the option's long and short name,
 * its kind (what a valid value is), its range, where the value lands (an
 * offset into the program's option struct), the argument's name and the
 * help lines. A program keeps only the checks that span several options.
 *
 * Values are checked strictly (lib/opt: plain decimals, no sign, no hex);
 * a bad one is a usage error, "PROG: invalid --NAME 'VALUE' (HINT)" and
 * "Try 'PROG --help'." on stderr, exit 2, which is the one place the
 * process exits on a command line.
 */
#ifndef WB_CLI_H
#define WB_CLI_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

enum cli_kind {
	CLI_END = 0,	/* closes the table */
	CLI_TEXT,	/* not an option: help lines, and a new column */
	CLI_HELP,	/* prints the help, exit 0 */
	CLI_FLAG,	/* int, set to 1 */
	CLI_UINT,	/* decimal integer in [min, max], times scale */
	CLI_REAL,	/* finite decimal in [min, max], times scale */
	CLI_CPU,	/* int: a CPU of this machine */
	CLI_CPUS,	/* struct cpuset *: a CPU list ("0,2-3") of this
			 * machine's possible CPUs, allocated (the caller
			 * frees it with cpuset_free; a later one replaces
			 * it) */
	CLI_HOSTPORT,	/* struct cli_hostport; host defaults to 127.0.0.1 */
	CLI_ENUM,	/* int: the index of the value in names[] */
	CLI_STRING,	/* const char *, the argument itself */
	CLI_CUSTOM,	/* parse(arg, dest): 0 or -1 */
};

/* Where a CLI_UINT or CLI_REAL value is stored, after scaling. */
enum cli_store {
	CLI_U64 = 0,
	CLI_U32,
	CLI_U16,
	CLI_INT,
	CLI_DOUBLE,
};

struct cli_hostport {
	char host[256];
	uint16_t port;
};

struct cli_opt {
	const char *name;	/* long name, without "--" */
	int short_name;		/* 0: none */
	enum cli_kind kind;
	enum cli_store store;
	const char *arg;	/* argument name in the help (enum: a|b|c) */
	const char *help;	/* help lines, '\n' between them */
	double min, max;	/* CLI_UINT/CLI_REAL range */
	double scale;		/* multiplier before storing (0: 1) */
	const char *const *names;	/* CLI_ENUM values, NULL-terminated */
	int (*parse)(const char *arg, void *dest);	/* CLI_CUSTOM */
	size_t off;		/* CLI_AT(): where the value lands */
	size_t seen;		/* CLI_SEEN(): an int set to 1 when given, or 0 */
	/*
	 * The bad-value message's "(HINT)": NULL for none, CLI_RANGE for
	 * "(min-max)", else the text. CLI_CPU and CLI_ENUM make their own.
	 */
	const char *hint;
	int tight;		/* a long left side keeps its help on the line */
	int col;		/* CLI_TEXT: help column from here on (0: same) */
	int hidden;		/* an alias: parsed, not in the help */
};

/* Offsets are stored plus one, so that 0 means "nowhere". */
#define CLI_AT(type, field) (offsetof(type, field) + 1)
#define CLI_SEEN CLI_AT
/* hint: "(min-max)" from the range */
#define CLI_RANGE ((const char *)1)

struct cli_cmd {
	const char *prog;	/* for messages: "wakebench-server" */
	const char *usage;	/* "Usage: wakebench server [options]" */
	const char *about;	/* text between usage and options, or NULL */
	const char *footer;	/* text after the options, or NULL */
	int col;		/* help column of the first options */
	/* Positional arguments allowed (0: "unexpected argument" error). */
	int max_args;
	const struct cli_opt *opts;
};

/*
 * Parses argv into base (the program's option struct; fields not given
 * keep what the caller set). Returns the index of the first positional
 * argument. Exits 2 on a usage error and 0 after --help.
 */
int cli_parse(const struct cli_cmd *cmd, int argc, char **argv, void *base);

/* Writes the --help text to f. */
void cli_help(const struct cli_cmd *cmd, FILE *f);

/*
 * Checks one value as opt would (no exit): 0, or -1 with "invalid
 * --NAME 'VALUE' (HINT)" in err. Stores nothing when it fails.
 */
int cli_value(const struct cli_opt *o, const char *arg, void *base,
	      char *err, size_t errlen);

/* The entry named name, or NULL. */
const struct cli_opt *cli_find(const struct cli_cmd *cmd, const char *name);

/*
 * Verbs: one program, several commands ("wakebench-internal plan SPEC"),
 * as rtla and git do. Each verb declares its options (a cli_opt table
 * parsed by cli_parse, with its own --help) and how many positional
 * arguments it takes; a verb not in the table, or a wrong count, is a
 * usage error (exit 2, "Try 'PROG VERB --help'.").
 */
struct cli_verb {
	const char *name;
	/* ARGS: the positional arguments, after the options */
	int (*run)(int nargs, char **args, void *opts);
	const struct cli_opt *opts;	/* NULL: --help only */
	void *base;			/* where opts' values land */
	int min_args, max_args;		/* max_args -1: any number */
	const char *args;		/* their names for the usage line */
	const char *help;		/* one line */
	/*
	 * The verb reads its own options (RUN gets every word after the
	 * verb): for keys that come from another table (a sweep's spec).
	 */
	int raw;
};

struct cli_verbs {
	const char *prog;	/* "wakebench-internal" */
	const char *about;	/* text after the usage line, or NULL */
	const struct cli_verb *verbs;	/* closed by a NULL name */
};

/*
 * Runs the verb argv[1] names with its arguments and returns what it
 * returns; exits 2 on a usage error and 0 after --help.
 */
int cli_verb_main(const struct cli_verbs *v, int argc, char **argv);

/* The verb named name, or NULL. */
const struct cli_verb *cli_verb_find(const struct cli_verbs *v, const char *name);

#endif
