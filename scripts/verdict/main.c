// SPDX-License-Identifier: GPL-2.0
/*
 * verdict - judge a finished guest run.
 *
 *   verdict [--tap] [--no-guest] [--timed-out SECONDS] [--expect LIST] OUTPUT_LOG CONSOLE_LOG
 *
 * --no-guest judges host-side TAP alone, with no guest to finish.
 * LIST names, one per line, the programs that must run ("t/utprobes"):
 * one that never printed "# run: NAME" fails the run.
 * With --tap: prints the problems and "N passed, N failed[, N skipped]",
 * exits 1 on any failure.  Without: prints the problems and exits with the
 * guest command's status (1 if the guest or the kernel misbehaved).
 */
#include <stdlib.h>
#include <string.h>

#include "verdict.h"

static int feed(const char *path, struct verdict *v,
		void (*fn)(struct verdict *, const char *))
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t len = 0;

	if (!f) {
		perror(path);
		return -1;
	}
	while (getline(&line, &len, f) >= 0)
		fn(v, line);
	free(line);
	fclose(f);
	return 0;
}

/* One expected program per line; blank lines and # comments skipped. */
static void expect_line(struct verdict *v, const char *line)
{
	char name[128];
	size_t n = strcspn(line, " \t\r\n");

	if (!n || line[0] == '#')
		return;
	if (n < sizeof(name)) {
		memcpy(name, line, n);
		name[n] = '\0';
		if (!verdict_expect(v, name))
			return;
	}
	verdict_problem(v, "expected-program list: cannot take '%.*s'",
			(int)n, line);
}

int main(int argc, char **argv)
{
	struct verdict v;
	bool tap = false, timed_out = false, no_guest = false;
	const char *expect = NULL;
	unsigned int timeout = 0;
	int i, ret;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--tap")) {
			tap = true;
		} else if (!strcmp(argv[i], "--timed-out") && i + 1 < argc) {
			timed_out = true;
			timeout = strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--no-guest")) {
			no_guest = true;
		} else if (!strcmp(argv[i], "--expect") && i + 1 < argc) {
			expect = argv[++i];
		} else {
			fprintf(stderr, "verdict: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (argc - i != 2) {
		fprintf(stderr, "usage: verdict [--tap] [--no-guest] [--timed-out SECONDS] [--expect LIST] OUTPUT_LOG CONSOLE_LOG\n");
		return 2;
	}
	verdict_init(&v);
	v.finished = no_guest;
	if (expect && feed(expect, &v, expect_line))
		return 2;
	if (feed(argv[i], &v, verdict_output_line) ||
	    feed(argv[i + 1], &v, verdict_console_line))
		return 2;
	verdict_finish(&v, timed_out, timeout);
	ret = verdict_report(&v, stdout, tap);
	verdict_free(&v);
	return ret;
}
