// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe-cli: probe functions of programs and libraries with utprobes and
 * count their hits, or time their calls with return probes.  Specs are
 * resolved to file offsets with elfutils and handed to the kernel through
 * tracefs (utprobe_events, utprobe_profile, utprobe_returns).
 *
 * This file picks a command by its name and runs it: the usage, the
 * options before the command, main().  The commands are in the files
 * commands.h names.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "serve.h"
#include "top.h"
#include "values.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#ifndef UPROBE_CLI_VERSION
#define UPROBE_CLI_VERSION "unknown"
#endif


/*
 * The usage: the synopsis, a line for each form of each command (and
 * lines that go on one, indented further), a blank line, then what the
 * words mean.
 */
static const char usage_text[] =
	"usage: uprobe-cli add SPEC... [-p PID] [--name NAME] [--trap]\n"
	"                  [--no-inline]\n"
	"       uprobe-cli count [-j | --format=F] [--trap] [--all] [--top N]\n"
	"                  [--no-inline] [--filter EXPR] -e SPEC [-e SPEC]...\n"
	"                  -- CMD [ARGS]\n"
	"       uprobe-cli count [-j] -e SPEC --by VALUE [--top N] [--size N]\n"
	"                  [--filter EXPR] -- CMD [ARGS]\n"
	"       uprobe-cli count [-j] -e SPEC --by stack [--top N]\n"
	"                  [--folded | --svg FILE] [--stack-size BYTES | --fp]\n"
	"                  -- CMD [ARGS]\n"
	"       uprobe-cli latency [-j] SPEC -- CMD [ARGS]\n"
	"       uprobe-cli trace [-j] [--no-inline] [--filter EXPR]\n"
	"                  [--stack [--stack-size BYTES | --fp]] SPEC [VALUE...]\n"
	"                  [-- CMD [ARGS]]\n"
	"       uprobe-cli hist [-j] [--no-inline] [--filter EXPR] SPEC VALUE\n"
	"                  [-- CMD [ARGS]]\n"
	"       uprobe-cli del NAME... | --all\n"
	"       uprobe-cli list [-j | --format=F]\n"
	"       uprobe-cli stat [-i SECONDS] [-n COUNT] [-j | --format=F]\n"
	"       uprobe-cli stat --format=openmetrics --textfile FILE [-i SECONDS] [-n COUNT]\n"
	"       uprobe-cli serve --listen HOST:PORT [--trap] [-e SPEC]...\n"
	"       uprobe-cli top [-j] [-i SECONDS] [-n COUNT] [--trap]\n"
	"                  (-p PID | [SPEC...] -- CMD [ARGS])\n"
	"       uprobe-cli funcs [-j] [--sdt] BINARY [GLOB]\n"
	"       uprobe-cli resolve SPEC [-p PID]\n"
	"       uprobe-cli help [COMMAND] | COMMAND --help\n"
	"       uprobe-cli [-j | --format=F] COMMAND ...\n"
	"       uprobe-cli --version | --help\n"
	"\n"
	"SPEC is BINARY:SYMBOL, BINARY:SYMBOL+OFFSET, BINARY:0xADDR,\n"
	"BINARY:FILE.c:LINE, BINARY:GLOB or BINARY:sdt:PROVIDER:NAME (an\n"
	"SDT marker); BINARY is a path, a program in $PATH or a library's\n"
	"short name (libc).  BINARY:SYMBOL is also every copy of the\n"
	"function inlined into its callers, unless --no-inline.\n"
	"SPEC%return is a return probe on a function's\n"
	"entry, which counts its returns too.  F is table, json or\n"
	"openmetrics.  VALUE is a C variable or parameter\n"
	"visible there (NAME, NAME->FIELD, NAME.FIELD, NAME[N]), $retval\n"
	"with %return, or a fetch argument (%di:u64), as NAME=VALUE to\n"
	"name it.  EXPR is a filter over the values, applied by the\n"
	"kernel: bytes > 4096 && name ~ \"lib*\".  See uprobe-cli(1).\n";

/*
 * Print the usage, of command @cmd alone if not NULL: its forms of the
 * synopsis, then what the words mean.
 */
static void usage_of(FILE *f, const char *cmd)
{
	size_t len = cmd ? strlen(cmd) : 0;
	const char *line, *nl;
	bool first = true, in = false;

	for (line = usage_text; *line != '\n'; line = nl + 1) {
		/* after "usage: ", or the spaces under it */
		const char *form = line + 7;

		nl = strchr(line, '\n');
		if (form[0] != ' ')
			in = !cmd || (!strncmp(form, "uprobe-cli ", 11) &&
				      !strncmp(form + 11, cmd, len) &&
				      (form[11 + len] == ' ' ||
				       form[11 + len] == '\n'));
		if (in)
			fprintf(f, "%s%.*s\n", first ? "usage: " : "       ",
				(int)(nl - form), form);
		first &= !in;
	}
	fputs(line, f);
}

static void usage(FILE *f)
{
	usage_of(f, NULL);
}

/*
 * A command: its name, and what runs it, its argv[0] "uprobe-cli: NAME"
 * (getopt's messages begin with it).
 */
struct cmd {
	const char *name;
	int (*func)(int argc, char **argv);
};

static const struct cmd cmds[] = {
	{ "add",	cmd_add },
	{ "del",	cmd_del },
	{ "count",	cmd_count },
	{ "latency",	cmd_latency },
	{ "trace",	cmd_trace },
	{ "serve",	cmd_serve },
	{ "top",	cmd_top },
	{ "hist",	cmd_hist },
	{ "list",	cmd_list },
	{ "stat",	cmd_stat },
	{ "funcs",	cmd_funcs },
	{ "resolve",	cmd_resolve },
};

static const struct cmd *cmd_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(name, cmds[i].name))
			return &cmds[i];
	return NULL;
}

/* help [COMMAND]: the usage, or that command's, on stdout. */
static int cmd_help(int argc, char **argv)
{
	if (argc > 2)
		return usage_error("help: one command at most, not '%s'",
				   argv[2]);
	if (argc == 2 && strcmp(argv[1], "help") && !cmd_find(argv[1]))
		return usage_error("help: %s: unknown command (see uprobe-cli --help)",
				   argv[1]);
	usage_of(stdout, argc == 2 ? argv[1] : NULL);
	return 0;
}

/*
 * Run the command argv[0] names, with its arguments; or print its usage
 * if --help is among its options (before any "--").
 */
static int cmd_select(int argc, char **argv)
{
	const struct cmd *c = cmd_find(argv[0]);
	char name[32];

	if (!strcmp(argv[0], "help"))
		return cmd_help(argc, argv);
	if (!c)
		return usage_error("%s: unknown command (see uprobe-cli --help)",
				   argv[0]);
	for (int i = 1; i < dashes_at(argc, argv); i++) {
		if (!strcmp(argv[i], "--help")) {
			usage_of(stdout, c->name);
			return 0;
		}
	}
	/* what getopt's messages begin with, as ours do */
	snprintf(name, sizeof(name), "uprobe-cli: %s", c->name);
	argv[0] = name;
	return c->func(argc, argv);
}

static void version(void)
{
	printf("uprobe-cli %s (elfutils %s)\n", UPROBE_CLI_VERSION,
	       dwfl_version(NULL));
}

/*
 * The options before the command: --help and --version, which end the
 * run (1), and the output format, which every command shares.  0, 1,
 * or -EINVAL after a message.
 */
static int global_options(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		FORMAT_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hVjf:", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 1;
		} else if (c == 'V') {
			version();
			return 1;
		} else if (c == 'j' || c == 'f') {
			if (format_option(c, optarg))
				return -EINVAL;
		} else if (c == ':') {
			return print_error(-EINVAL,
					   "%s: give a format (table, json, openmetrics)",
					   argv[optind - 1]);
		} else if (!strncmp(argv[optind - 1], "--", 2)) {
			return print_error(-EINVAL,
					   "%s: unknown option (see uprobe-cli --help)",
					   argv[optind - 1]);
		} else {
			/* argv[optind - 1] may be a cluster it is inside */
			return print_error(-EINVAL,
					   "-%c: unknown option (see uprobe-cli --help)",
					   optopt);
		}
	}
	opterr = 1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *env = getenv("UPROBE_CLI_TRACEFS");
	int ret;

	if (env)
		tracefs = env;
	/*
	 * A debug file fetched from a debuginfod server (DEBUGINFOD_URLS)
	 * may take a while: libdebuginfod shows its progress on a terminal.
	 * Not in the command run (see run_probed()), whose environment is
	 * the user's.
	 */
	if (isatty(STDERR_FILENO) && !getenv("DEBUGINFOD_PROGRESS")) {
		setenv("DEBUGINFOD_PROGRESS", "1", 0);
		progress_set = true;
	}
	ret = global_options(argc, argv);
	if (ret)
		return ret < 0 ? EXIT_USAGE : 0;
	argc -= optind;
	argv += optind;
	if (!argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	/* each command parses its own options, argv[0] its name */
	optind = 0;
	return cmd_select(argc, argv);
}
