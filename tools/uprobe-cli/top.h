/* SPDX-License-Identifier: GPL-2.0 */
/*
 * top: a live view of the hottest functions of a process or a command.
 */
#ifndef UPROBE_CLI_TOP_H
#define UPROBE_CLI_TOP_H

/*
 * "top [-j] [-i SECONDS] [-n COUNT] [--trap] (-p PID | -- CMD [ARGS])
 * [SPEC...]": the exit status (the command's, with CMD)
 */
int cmd_top(int argc, char **argv);

#endif /* UPROBE_CLI_TOP_H */
