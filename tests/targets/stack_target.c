// SPDX-License-Identifier: GPL-2.0
/*
 * Known call chains for uprobe-cli count --by stack, built -O2 -g PIE
 * without frame pointers, as Debian builds programs:
 *
 *   stack_target A C R T [LINGER_MS [E [D]]]
 *
 * calls leaf() A times through main, a, b; C times through main, c; R
 * times at the bottom of 40 frames of rec() of 1 KiB each (deeper than
 * a copy of 8 KiB); and T times through worker, a, b in a thread of its
 * own.  It then sleeps LINGER_MS (default 0) before it exits.  With E,
 * a child of it calls leaf() E times through main, forked, a, b, then
 * execs stack_target 0 E 0 0: the same calls in two programs' maps.
 * With D, it calls leaf() D times through main, d, ind and ind2, ind
 * inlined into d and ind2 into ind.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ret_funcs.h"

PROBED int leaf(int x)
{
	KEEP(x);
	return x + 1;
}

PROBED int b(int x)
{
	return leaf(x) * 2;
}

PROBED int a(int x)
{
	return b(x) + 3;
}

PROBED int c(int x)
{
	return leaf(x) - 1;
}

static inline __attribute__((always_inline)) int ind2(int x)
{
	KEEP(x);
	return leaf(x) + 5;
}

static inline __attribute__((always_inline)) int ind(int x)
{
	KEEP(x);
	return ind2(x) * 7;
}

PROBED int d(int x)
{
	return ind(x) * 3;
}

PROBED int rec(int depth, int x)
{
	volatile char pad[1024];

	pad[0] = x;
	if (depth)
		return rec(depth - 1, x) + pad[0];
	return leaf(x) + pad[0];
}

PROBED void *worker(void *arg)
{
	long n = (long)arg, sum = 0;

	for (long i = 0; i < n; i++)
		sum += a(i);
	KEEP(sum);
	return NULL;
}

/* E calls in a child, then the same program again by exec */
PROBED int forked(char *self, char *e)
{
	long n = atol(e), sum = 0;
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		for (long i = 0; i < n; i++)
			sum += a(i);
		KEEP(sum);
		execl(self, self, "0", e, "0", "0", (char *)NULL);
		_exit(127);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid &&
	       WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : 1;
}

int main(int argc, char **argv)
{
	long na, nc, nr, nt, linger, sum = 0;
	struct timespec ts;
	pthread_t t;

	if (argc < 5)
		return 2;
	na = atol(argv[1]);
	nc = atol(argv[2]);
	nr = atol(argv[3]);
	nt = atol(argv[4]);
	linger = argc > 5 ? atol(argv[5]) : 0;
	for (long i = 0; i < na; i++)
		sum += a(i);
	for (long i = 0; i < nc; i++)
		sum += c(i);
	for (long i = 0; i < nr; i++)
		sum += rec(40, i);
	if (pthread_create(&t, NULL, worker, (void *)nt) ||
	    pthread_join(t, NULL))
		return 1;
	KEEP(sum);
	if (argc > 6 && forked(argv[0], argv[6]))
		return 1;
	for (long i = 0; argc > 7 && i < atol(argv[7]); i++)
		sum += d(i);
	KEEP(sum);
	ts.tv_sec = linger / 1000;
	ts.tv_nsec = linger % 1000 * 1000000;
	nanosleep(&ts, NULL);
	return 0;
}
