// SPDX-License-Identifier: GPL-2.0
/*
 * A program for return probes on files, run the same way under utprobes
 * and under mainline uretprobes:
 *
 *   ret_target nested N	rp_outer() N times, which calls rp_inner()
 *				twice, which calls rp_leaf()
 *   ret_target recurse D	rp_rec() recursing to depth D, three times
 *   ret_target threads N	two threads running "nested N"
 *   ret_target fork N		rp_forker() N times: it forks, and parent
 *				and child both return from it
 *   ret_target sleep N		rp_sleep() N times, which sleeps 300 ms
 *
 * Prints a checksum of the results; exits 0 if they were right.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ret_funcs.h"

PROBED pid_t rp_forker(void)
{
	pid_t pid = fork();

	KEEP(pid);
	return pid;
}

static long n;

static void *nested(void *arg __attribute__((unused)))
{
	long bad = 0;

	for (long i = 0; i < n; i++)
		bad += rp_outer(i) != 4 * i + 11;
	return (void *)bad;
}

int main(int argc, char **argv)
{
	long bad = 0;

	if (argc != 3)
		return 2;
	n = atol(argv[2]);
	if (!strcmp(argv[1], "nested")) {
		bad = (long)nested(NULL);
	} else if (!strcmp(argv[1], "recurse")) {
		for (int i = 0; i < 3; i++)
			bad += rp_rec(n) != n;
	} else if (!strcmp(argv[1], "threads")) {
		pthread_t t;
		void *r;

		if (pthread_create(&t, NULL, nested, NULL))
			return 1;
		bad = (long)nested(NULL);
		pthread_join(t, &r);
		bad += (long)r;
	} else if (!strcmp(argv[1], "fork")) {
		for (long i = 0; i < n; i++) {
			pid_t pid = rp_forker();
			int st;

			if (pid == 0)
				_exit(0);
			if (pid < 0 || waitpid(pid, &st, 0) != pid || st)
				bad++;
		}
	} else if (!strcmp(argv[1], "sleep")) {
		for (long i = 0; i < n; i++)
			bad += rp_sleep(300) != 300;
	} else {
		return 2;
	}
	printf("%s %ld: %s\n", argv[1], n, bad ? "wrong" : "right");
	return bad ? 1 : 0;
}
