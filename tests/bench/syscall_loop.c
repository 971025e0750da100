// SPDX-License-Identifier: GPL-2.0
/*
 * syscall_loop - time a loop of getppid() system calls in an untraced
 * task: the cost utrace's hooks add to a task no engine is attached to.
 *
 *   syscall_loop [CALLS] [RUNS]
 *
 * Prints one line per run and the median, in nanoseconds per call.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 1000000;
	int runs = argc > 2 ? atoi(argv[2]) : 7;
	double ns[64];

	if (runs < 1 || runs > 64 || calls < 1) {
		fprintf(stderr, "usage: syscall_loop [CALLS] [RUNS (1-64)]\n");
		return 2;
	}
	for (int r = 0; r < runs; r++) {
		struct timespec a, b;

		clock_gettime(CLOCK_MONOTONIC, &a);
		for (long i = 0; i < calls; i++)
			syscall(SYS_getppid);
		clock_gettime(CLOCK_MONOTONIC, &b);
		ns[r] = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / calls;
		printf("run %d: %.1f ns/call\n", r, ns[r]);
	}
	qsort(ns, runs, sizeof(ns[0]), cmp);
	printf("median: %.1f ns/call over %ld calls\n", ns[runs / 2], calls);
	return 0;
}
