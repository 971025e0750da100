/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace instance of trace, hist and count --by, and what it shows
 * (session.c), for the commands (values.c).
 */
#ifndef UPROBE_CLI_SESSION_H
#define UPROBE_CLI_SESSION_H

#include <limits.h>
#include <stdbool.h>

#include "cli.h"
#include "stack.h"

/* The values a command fetches, for each of its probes. */
struct values {
	struct up_fetch *f;	/* nargs per probe, probe by probe */
	int nargs;
};

/* One row of a hist trigger's table: its key as shown, and its count */
struct bucket {
	char key[256];
	unsigned long long count;
};

/* The trace instance of a run, and what it shows. */
struct session {
	char inst[PATH_MAX];	/* its directory in tracefs */
	struct probe *ps;
	int n;
	struct values *v;
	enum format fmt;
	const char *trigger;	/* a hist trigger, or NULL: stream */
	int pipe;		/* its trace_pipe, when streaming */
	long long lines;	/* records shown */
	bool failed;		/* a record not shown, after a message */
	struct bucket *b;	/* the trigger's table, at the end */
	int nb;			/* its rows, or -errno if not read */
	unsigned long long dropped;	/* entries it had no room for */
	char filter[1100];	/* --filter as the kernel takes it, or "" */
	long long *counts;	/* count --filter: each probe's trigger's */
				/* hits, or NULL */
	int stack;		/* bytes of stack each record copies, or 0 */
	unsigned long long lost;	/* records the buffers lost */
	bool lost_some;			/* ... and more, uncounted */
	unsigned long long unwind_ns;	/* the time unwinding took */
	struct stk_raw *raw;	/* ... read from trace_pipe_raw */
	struct stk_unwinder *uw;
	struct stk_counts *stacks;	/* count --by stack's */
	bool raw_failed;	/* a read of them failed, after a message */
};

/*
 * The fetch arguments @exprs[0..@nexprs) for each probe of @ps, into
 * @v; 0, or -errno after a message, -EINVAL if the command line's
 * alone (two values of one name).
 */
int fetch_args(struct probe *ps, int n, char **exprs, int nexprs,
	       struct values *v);
void probes_free(struct probe *ps, int n, struct values *v);
/*
 * Run @cmd (or, if NULL, wait for ^C) with the session's probes, in an
 * instance of its own; 0 with the command's status in *@status, or
 * -errno after a message.
 */
int session_run(struct session *s, char **cmd, int *status);

#endif /* UPROBE_CLI_SESSION_H */
