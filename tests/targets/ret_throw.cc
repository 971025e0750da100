// SPDX-License-Identifier: GPL-2.0
/*
 * A C++ program whose exceptions skip frames of functions probed for
 * their return: "throw N" throws through rp_middle() N times, caught in
 * main(); then calls rp_middle() once without throwing.
 */
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#define PROBED extern "C" __attribute__((noinline, noipa))

PROBED int rp_thrower(int x)
{
	if (x >= 0)
		throw std::runtime_error("thrown");
	return x;
}

PROBED int rp_middle(int x)
{
	int r = rp_thrower(x);

	asm volatile("" : "+r"(r));
	return r + 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1, caught = 0;

	for (int i = 0; i < n; i++) {
		try {
			rp_middle(i);
		} catch (const std::runtime_error &) {
			caught++;
		}
	}
	printf("caught %d, then %d\n", caught, rp_middle(-5));
	return caught == n ? 0 : 1;
}
