// SPDX-License-Identifier: GPL-2.0
/*
 * C++ names for the resolver's tests: a class template's overloaded
 * method in two instances, operators (+, ++, * and -), constructors
 * (whose complete and base object variants are aliases of one address),
 * a class with a virtual base (whose constructor's and destructor's
 * variants are functions of their own), a function with an ABI tag,
 * and one inlined into its callers.
 */
#include <string>

namespace ns {

template <typename T> struct Klass {
	T v;
	__attribute__((noipa)) T method(int x)
	{
		return v + x;
	}
	__attribute__((noipa)) T method(double x) const
	{
		return v * static_cast<T>(x);
	}
};

struct V {
	long a;
	__attribute__((noipa)) explicit V(long x) : a(x) {}
	__attribute__((noipa)) V operator+(const V &o) const
	{
		return V(a + o.a);
	}
	__attribute__((noipa)) V &operator++()
	{
		a++;
		return *this;
	}
	__attribute__((noipa)) V operator*(const V &o) const
	{
		return V(a * o.a);
	}
	__attribute__((noipa)) V operator-(const V &o) const
	{
		return V(a - o.a);
	}
};

struct B {
	virtual ~B();
	long b;
};

struct X : virtual B {
	X();
	~X() override;
	long x;
};

B::~B() = default;
__attribute__((noipa)) X::X() : x(1) {}
__attribute__((noipa)) X::~X()
{
	x = 0;
}

/* returns a std::string: named label[abi:cxx11](int) */
__attribute__((noipa)) std::string label(int x)
{
	return std::to_string(x);
}

/* inlined into main, and kept as a function of its own too */
inline __attribute__((used)) long twice(long x)
{
	return 2 * x;
}

} // namespace ns

template struct ns::Klass<long>;
template struct ns::Klass<int>;

int main(int argc, char **argv)
{
	ns::Klass<long> k{ argc };
	const ns::Klass<long> &ck = k;
	ns::V a(argc), b(2);

	ns::X *x = new ns::X;

	++a;
	(void)argv;
	delete x;
	return (int)(k.method(1) + ck.method(2.0) + (a + b).a + (a * b).a +
		     (a - b).a +
		     ns::twice(argc) + (long)ns::label(argc).size()) & 1;
}
