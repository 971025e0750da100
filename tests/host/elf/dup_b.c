// SPDX-License-Identifier: GPL-2.0
/* The other helper(): see dup_a.c. */
static __attribute__((noinline)) int helper(int x)
{
	asm volatile("" : "+r"(x));
	return x * 3;
}

int dup_b(int x)
{
	return helper(x) - 1;
}
