/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Commands that read values at probes (trace.c).
 */
#ifndef UPROBE_CLI_TRACE_H
#define UPROBE_CLI_TRACE_H

#include "cli.h"

/* uprobe-cli trace [-j] SPEC [VALUE...] [-- CMD [ARGS]] */
int cmd_trace(int argc, char **argv);
/* uprobe-cli hist [-j] SPEC VALUE [-- CMD [ARGS]] */
int cmd_hist(int argc, char **argv);
/*
 * count -e SPEC --by VALUE [--top N]: hits by the value, the @top most
 * frequent, while @cmd runs (or until ^C if NULL).
 */
int count_by(const char *spec, const char *by, int top, enum format fmt,
	     char **cmd);

#endif /* UPROBE_CLI_TRACE_H */
