// SPDX-License-Identifier: GPL-2.0
/*
 * Known C++ call chains for uprobe-cli count --by stack, -O2 -g PIE
 * without frame pointers:
 *
 *   stack_cxx N
 *
 * calls ns::Box<long>::leaf(long) N times through main, a function
 * template ns::run<long>, a lambda in it and ns::twice<long>, in an
 * unnamed namespace and inlined into the lambda, and N times from the
 * destructor of a guard that an exception in flight destroys, as the
 * exception leaves ns::thrower().
 */
#include <cstdlib>
#include <stdexcept>

#include "ret_funcs.h"

#define PROBED_LAMBDA __attribute__((noinline, noipa))

namespace ns {

template <typename T> struct Box {
	PROBED static int leaf(T x)
	{
		KEEP(x);
		return (int)x + 1;
	}
};

namespace {

template <typename T> inline __attribute__((always_inline)) int twice(T y)
{
	KEEP(y);
	return Box<T>::leaf(y) * 2;
}

} // namespace

template <typename T> PROBED int run(T x)
{
	auto f = [](T y) PROBED_LAMBDA { return twice(y) + 5; };

	return f(x) + 1;
}

struct Guard {
	long x;

	PROBED ~Guard()
	{
		Box<long>::leaf(x);
	}
};

PROBED int thrower(long x)
{
	Guard g{ x };

	KEEP(g.x);
	throw std::runtime_error("in flight");
}

} // namespace ns

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1, sum = 0;

	for (long i = 0; i < n; i++)
		sum += ns::run<long>(i);
	for (long i = 0; i < n; i++) {
		try {
			ns::thrower(i);
		} catch (const std::runtime_error &) {
			sum++;
		}
	}
	KEEP(sum);
	return 0;
}
