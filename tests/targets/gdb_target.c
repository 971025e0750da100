// SPDX-License-Identifier: GPL-2.0
/*
 * gdb_target - a program for the tests of gdb on probed processes.
 *
 *   gdb_target N    print "ready", wait for a line on stdin, then call
 *                   probed(i), getppid() and getuid() for i < N; print
 *                   the sum of probed()'s results and exit 0
 *
 * Built with -O0 and without CET's endbr64, so that probed() begins
 * "push %rbp; mov %rsp,%rbp" (1 and 3 bytes) and gdb places its
 * breakpoint for "break probed" after that prologue, not on it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

long probed(long x)
{
	return 3 * x + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0, sum = 0;
	char line[16];

	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 4;
	for (long i = 0; i < n; i++) {
		sum += probed(i);
		if (getppid() <= 0 || getuid() != 0)
			return 1;
	}
	printf("%ld\n", sum);
	return 0;
}
