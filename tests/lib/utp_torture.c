// SPDX-License-Identifier: GPL-2.0
/*
 * The library the torture's workers dlopen() and dlclose() while probes
 * on it come and go: 3x + 1, probed or not.
 */
__attribute__((noinline)) long tl_fn(long x)
{
	__asm__ volatile("" ::: "memory");
	return 3 * x + 1;
}
