// SPDX-License-Identifier: GPL-2.0
/*
 * Two source files with a static function of the same name each, as
 * libc has: dup_a.c and dup_b.c make the fixture dup_statics.
 */
int dup_b(int x);

static __attribute__((noinline)) int helper(int x)
{
	asm volatile("" : "+r"(x));
	return x + 1;
}

int dup_a(int x)
{
	return helper(x) * 2;
}

int main(int argc, char **argv)
{
	(void)argv;
	return dup_a(argc) + dup_b(argc);
}
