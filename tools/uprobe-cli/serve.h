/* SPDX-License-Identifier: GPL-2.0 */
/*
 * serve: the probes' metrics over HTTP.
 */
#ifndef UPROBE_CLI_SERVE_H
#define UPROBE_CLI_SERVE_H

/* "serve --listen HOST:PORT [-e SPEC]...": the exit status */
int cmd_serve(int argc, char **argv);

#endif /* UPROBE_CLI_SERVE_H */
