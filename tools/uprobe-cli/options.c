// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe-cli: options and words of a command line that every command
 * parses the same way: "--", positive numbers, the output format.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/*
 * Where the first "--" of @argv[0..@argc) is, or @argc.  A command whose
 * words come before "--" and its command after parses its options in
 * what comes before (getopt moves the words after the options, and
 * would take the "--" with them).
 */
int dashes_at(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--"))
			return i;
	return argc;
}

/* A positive number from @arg, or 0 after a message naming @what. */
long parse_pos(const char *what, const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v <= 0) {
		print_error(-EINVAL, "bad %s '%s'", what, arg);
		return 0;
	}
	return v;
}

/*
 * Take -j (@opt 'j') or --format=@arg (@opt 'f'), which main() takes
 * before the command and the commands that print take after it too;
 * the last one given wins.  0, or -EINVAL after a message.
 */
int format_option(int opt, const char *arg)
{
	if (opt == 'j' || !strcmp(arg, "json"))
		out_fmt = JSON;
	else if (!strcmp(arg, "openmetrics"))
		out_fmt = OPENMETRICS;
	else if (!strcmp(arg, "table"))
		out_fmt = TABLE;
	else
		return print_error(-EINVAL,
				   "unknown format '%s' (table, json, openmetrics)",
				   arg);
	return 0;
}

int table_or_json(const char *cmd)
{
	if (out_fmt != OPENMETRICS)
		return 0;
	return print_error(-EINVAL, "%s: no openmetrics output (table or json)",
			   cmd);
}

int parse_format(int argc, char **argv, struct view_opts *o)
{
	static const struct option opts[] = {
		FORMAT_LONGOPTS,
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "sdt", no_argument, NULL, 's' },
		{ "textfile", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "jf:i:n:", opts, NULL)) != -1) {
		if (c == 'j' || c == 'f') {
			if (format_option(c, optarg))
				return -EINVAL;
		} else if (c == 'i' && o->interval) {
			char *end;

			*o->interval = strtod(optarg, &end);
			if (end == optarg || *end || !(*o->interval > 0))
				return print_error(-EINVAL, "bad interval '%s'",
						   optarg);
		} else if (c == 'n' && o->count) {
			*o->count = parse_pos("count", optarg);
			if (!*o->count)
				return -EINVAL;
		} else if (c == 's' && o->sdt) {
			*o->sdt = true;
		} else if (c == 't' && o->textfile) {
			*o->textfile = optarg;
		} else {
			return -EINVAL;
		}
	}
	return 0;
}
