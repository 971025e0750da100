// SPDX-License-Identifier: GPL-2.0
/* A small program the resolver tests build in several ways. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int sample_add(int a, int b)
{
	return a + b;
}

__attribute__((noinline)) int sample_mul(int a, int b)
{
	int r = 0;

	for (int i = 0; i < b; i++)	/* sample.c:16 */
		r = sample_add(r, a);
	return r;
}

__attribute__((noinline)) long sample_big(long x)
{
	return x * 0x123456789abcLL;
}

int main(int argc, char **argv)
{
	printf("%d %ld\n", sample_mul(argc, 3), sample_big(argc));
	return 0;
}
