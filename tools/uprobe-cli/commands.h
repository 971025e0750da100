/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The commands of uprobe-cli, which main() picks by name.  Each takes
 * its words (its name first) and returns the exit status.
 */
#ifndef UPROBE_CLI_COMMANDS_H
#define UPROBE_CLI_COMMANDS_H

/* probes.c */
int cmd_add(int argc, char **argv);
int cmd_del(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_stat(int argc, char **argv);

/* count.c */
int cmd_count(int argc, char **argv);
int cmd_latency(int argc, char **argv);

/* funcs.c */
int cmd_funcs(int argc, char **argv);
int cmd_resolve(int argc, char **argv);

#endif /* UPROBE_CLI_COMMANDS_H */
