// SPDX-License-Identifier: GPL-2.0
/*
 * inline_target - a program built -O2 -g in which the compiler inlines a
 * function into three callers and also keeps an out-of-line copy, and
 * inlines another one only, for uprobe-cli's inlined functions.
 *
 *   inline_target N	N rounds; round i calls it_a(i), it_b(i) and
 *			it_c(i), each of which runs an inlined copy of
 *			it_step(), it_b() one of it_only() too, and
 *			it_step() out of line through a pointer: it_step()
 *			runs 4N times (3N inlined), it_only() N times
 *
 * and exits 0 if the results were right.
 */
#include <stdlib.h>

static inline __attribute__((always_inline)) long it_step(long x)
{
	asm volatile("" : "+r"(x));
	return 2 * x + 1;
}

static inline __attribute__((always_inline)) long it_only(long x)
{
	asm volatile("" : "+r"(x));
	return x - 7;
}

__attribute__((noinline)) long it_a(long x)
{
	return it_step(x) + 1;
}

__attribute__((noinline)) long it_b(long x)
{
	return it_step(x * 3) + it_only(x);
}

__attribute__((noinline)) long it_c(long x)
{
	return it_step(x) * 5;
}

long (*volatile it_ptr)(long) = it_step;

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1, bad = 0;

	for (long i = 0; i < n; i++) {
		bad += it_a(i) != 2 * i + 2;
		bad += it_b(i) != 6 * i + 1 + i - 7;
		bad += it_c(i) != 5 * (2 * i + 1);
		bad += it_ptr(i) != 2 * i + 1;
	}
	return bad != 0;
}
