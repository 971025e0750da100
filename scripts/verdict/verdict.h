/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Verdict of one guest run: TAP results from the guest's output port and
 * the kernel console log, folded into pass/fail counts and a list of
 * problems (failed tests, crashed programs, kernel warnings, timeouts).
 */
#ifndef VERDICT_H
#define VERDICT_H

#include <stdbool.h>
#include <stdio.h>

#define VERDICT_MAX_PROBLEMS 32
#define VERDICT_MAX_EXPECTED 64
/* programs whose time ("# took N s") is kept, and how many are shown */
#define VERDICT_MAX_TIMES 128
#define VERDICT_SLOWEST 10

struct verdict_time {
	char prog[128];
	unsigned int secs;
};

struct verdict {
	unsigned int passed, failed, skipped;
	bool finished;		/* saw "guest-exit: N" */
	int guest_status;

	/* program being run by the guest runner ("# run: NAME") */
	char prog[128];
	bool in_prog;
	int plan;		/* -1: no plan line seen */
	unsigned int results, prog_failed, prog_skipped;
	bool misnumbered;	/* a result not numbered results + 1 */

	/* programs that must run ("# run: NAME"), from verdict_expect() */
	unsigned int nexpected;
	char *expected[VERDICT_MAX_EXPECTED];
	bool ran[VERDICT_MAX_EXPECTED];

	unsigned int nproblems;
	unsigned int dropped;	/* problems beyond VERDICT_MAX_PROBLEMS */
	char *problems[VERDICT_MAX_PROBLEMS];

	/* how long each program took, for the slowest at the end */
	unsigned int ntimes;
	struct verdict_time times[VERDICT_MAX_TIMES];
};

void verdict_init(struct verdict *v);
void verdict_free(struct verdict *v);
/* @name ("t/utprobes") must run, or the run fails; -1 if the list is full. */
int verdict_expect(struct verdict *v, const char *name);
/* One line of the guest's test output (no trailing newline needed). */
void verdict_output_line(struct verdict *v, const char *line);
/* One line of the kernel console log. */
void verdict_console_line(struct verdict *v, const char *line);
/* After the guest is gone: timed_out when the host had to kill it. */
void verdict_finish(struct verdict *v, bool timed_out, unsigned int timeout);
/* Add a problem; it also counts as one failed test. */
void verdict_problem(struct verdict *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * Print problems and, with tap, the slowest programs (as the runner timed
 * them) and the summary line; returns the exit code.
 */
int verdict_report(const struct verdict *v, FILE *out, bool tap);

#endif
