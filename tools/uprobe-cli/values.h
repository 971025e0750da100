/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Commands that read values at probes (values.c).
 */
#ifndef UPROBE_CLI_VALUES_H
#define UPROBE_CLI_VALUES_H

#include "cli.h"

/*
 * --filter EXPR of trace, hist and count --by: the hits whose values
 * match, alone (filter.h), or NULL.
 */
extern const char *filter_expr;

/* uprobe-cli trace [-j] SPEC [VALUE...] [-- CMD [ARGS]] */
int cmd_trace(int argc, char **argv);
/* uprobe-cli hist [-j] SPEC VALUE [-- CMD [ARGS]] */
int cmd_hist(int argc, char **argv);
/*
 * count -e SPEC --by VALUE [--top N] [--size N]: hits by the value, the
 * @top most frequent, while @cmd runs (or until ^C if NULL), the kernel
 * keeping room for @size distinct values.  The exit status (@cmd's),
 * as count's: a part of it.
 */
int cmd_count_by(const char *spec, const char *by, int top, int size,
		 enum format fmt, char **cmd);

/*
 * count --by stack: --folded prints every stack folded, --svg FILE
 * writes a flame graph, each record copies stack_bytes of the stack, or
 * with stack_fp (--fp) holds the callers the frame pointers lead to.
 */
extern bool stack_folded;
/* trace --stack: each hit with its stack */
extern bool trace_stack;
extern const char *stack_svg;
extern int stack_bytes;
extern bool stack_fp;

/*
 * count --filter, for the probes @ps[0..@n) (entry probes, resolved and
 * named): filter_expr checked against their values, each field it names
 * fetched at each, into *@filter as the kernel takes it (malloc'ed; NULL
 * if it fails); 0, or -errno after a message, -EINVAL if the command
 * line's alone (a filter that does not parse or go with the values).
 */
int count_filter(struct probe *ps, int n, char **filter);
/*
 * Then run @cmd with them, each counting the hits @filter lets through,
 * into their hits; 0 with the command's status in *@status (*@n less
 * those of a glob the kernel refused), or -errno after a message.  Their
 * fetch arguments are freed by either, count_filter() if it fails.
 */
int count_filtered(struct probe *ps, int *n, const char *filter,
		   char **cmd, int *status);

/*
 * The distinct values count --by has room for: by default, and the range
 * of the kernel's hist maps (2^7 to 2^17 entries, a size rounded up to a
 * power of two).
 */
#define BY_SIZE		16384
#define BY_SIZE_MIN	128
#define BY_SIZE_MAX	131072
/* --size @arg: a size in that range, or 0 after a message. */
int by_size(const char *arg);

#endif /* UPROBE_CLI_VALUES_H */
