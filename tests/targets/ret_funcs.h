/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Functions the return-probe tests follow, shared by the guest test and
 * the target program: not inlined, not turned into loops or tail calls,
 * so each call enters and returns; each result shows a wrong run.
 */
#ifndef RET_FUNCS_H
#define RET_FUNCS_H

#include <time.h>

#define PROBED __attribute__((noinline, noipa, \
			      optimize("no-optimize-sibling-calls")))
#define KEEP(x) asm volatile("" : "+r"(x))

PROBED long rp_leaf(long x)
{
	KEEP(x);
	return 2 * x + 1;
}

/* 2x + 4 */
PROBED long rp_inner(long x)
{
	long r = rp_leaf(x);

	KEEP(r);
	return r + 3;
}

/* 4x + 11 */
PROBED long rp_outer(long x)
{
	long a = rp_inner(x), b = rp_inner(x + 1);

	KEEP(a);
	return a + b + 1;
}

/* d, through d + 1 calls */
PROBED long rp_rec(long d)
{
	long r;

	if (d <= 0)
		return 0;
	r = rp_rec(d - 1);
	KEEP(r);
	return r + 1;
}

PROBED long rp_sleep(long ms)
{
	struct timespec ts = { 0, ms * 1000000 };

	nanosleep(&ts, NULL);
	return ms;
}

#endif /* RET_FUNCS_H */
