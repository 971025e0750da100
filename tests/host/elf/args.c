// SPDX-License-Identifier: GPL-2.0
/*
 * Functions whose values the fetch-argument tests translate from DWARF:
 * parameters in registers, members through pointers, a char pointer, a
 * char array, static variables, a parameter kept across calls, locals.
 */
#include <stdio.h>

struct point {
	long x;
	int y;
	char tag[8];
	struct point *next;
};

int args_counter = 5;
struct point args_origin = { 1, 2, "zero", NULL };

__attribute__((noinline)) long args_sum(long a, int b, const char *s,
					struct point *p)
{
	return a + b + s[0] + p->x + p->next->y + p->tag[1] + args_counter;
}

__attribute__((noinline, noipa)) void args_sink(long v)
{
	asm volatile("" : : "r"(v) : "memory");
}

/* keep is needed after calls that may change every register */
__attribute__((noinline)) long args_keep(long keep, long other)
{
	long local = other * 3;

	args_sink(local);
	asm volatile("" : : : "rbx", "r12", "r13", "r14", "r15", "memory");
	args_sink(keep);	/* args.c:37 */
	return keep + local + other;
}

int main(int argc, char **argv)
{
	struct point q = { 3, 4, "next", NULL };
	struct point p = { argc, 6, "head", &q };

	printf("%ld %ld %ld\n", args_sum(argc, 2, argv[0], &p),
	       args_keep(argc, 7), args_origin.x);
	return 0;
}
