// SPDX-License-Identifier: GPL-2.0
/*
 * verdict - judge a finished guest run.
 *
 *   verdict [--tap] [--timed-out SECONDS] OUTPUT_LOG CONSOLE_LOG
 *
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

int main(int argc, char **argv)
{
	struct verdict v;
	bool tap = false, timed_out = false;
	unsigned int timeout = 0;
	int i, ret;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--tap")) {
			tap = true;
		} else if (!strcmp(argv[i], "--timed-out") && i + 1 < argc) {
			timed_out = true;
			timeout = strtoul(argv[++i], NULL, 10);
		} else {
			fprintf(stderr, "verdict: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (argc - i != 2) {
		fprintf(stderr, "usage: verdict [--tap] [--timed-out SECONDS] OUTPUT_LOG CONSOLE_LOG\n");
		return 2;
	}
	verdict_init(&v);
	if (feed(argv[i], &v, verdict_output_line) ||
	    feed(argv[i + 1], &v, verdict_console_line))
		return 2;
	verdict_finish(&v, timed_out, timeout);
	ret = verdict_report(&v, stdout, tap);
	verdict_free(&v);
	return ret;
}
