// SPDX-License-Identifier: GPL-2.0
/*
 * sdt_target - SDT markers (sys/sdt.h) for the utprobes tests.  Each
 * round fires the marker sdt_target:plain, and runs the code guarded by
 * the semaphore of sdt_target:tick only while that semaphore is raised,
 * that is while a tracer probes tick: the guarded code counts itself
 * and fires tick.
 *
 *   sdt_target run N          N rounds, then print "guarded G", G the
 *                             rounds that ran the guarded code
 *   sdt_target wait N [fork]  print "ready", wait for a line on stdin,
 *                             then as run (and a child forked then runs
 *                             N rounds too, printing "child guarded G"
 *                             first)
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* raised by tracers while they probe the marker (in .probes) */
unsigned short sdt_target_plain_semaphore __attribute__((section(".probes")));
unsigned short sdt_target_tick_semaphore __attribute__((section(".probes")));

static long rounds(long n)
{
	long guarded = 0;

	for (long i = 0; i < n; i++) {
		STAP_PROBE1(sdt_target, plain, i);
		if (__builtin_expect(sdt_target_tick_semaphore, 0)) {
			guarded++;
			STAP_PROBE2(sdt_target, tick, i, guarded);
		}
	}
	return guarded;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;
	int do_fork = argc > 3 && !strcmp(argv[3], "fork");
	char line[16];
	pid_t pid = 1;
	int st;

	if (argc < 3)
		return 2;
	if (!strcmp(argv[1], "wait")) {
		printf("ready\n");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 4;
		pid = do_fork ? fork() : 1;
	} else if (strcmp(argv[1], "run")) {
		return 2;
	}
	if (pid == 0) {
		printf("child guarded %ld\n", rounds(n));
		return 0;
	}
	if (pid > 1 && waitpid(pid, &st, 0) != pid)
		return 3;
	printf("guarded %ld\n", rounds(n));
	return 0;
}
