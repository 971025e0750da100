// SPDX-License-Identifier: GPL-2.0
/*
 * values_target - a program built -O2 -g whose calls have known values,
 * for uprobe-cli trace, hist and count --by.
 *
 *   values_target N	N rounds; round i (from 0) calls
 *			malloc(1000 + 8 * (i % 5)) and frees it,
 *			vt_label(i, names[i % 3]) and its twin
 *			vt_twin(i, names[i % 3]), for mainline uprobes,
 *			vt_square(i - 5), which returns (i - 5)^2 - 3,
 *			vt_keep(i, 7 * i), which keeps its parameter
 *			"other" on its stack across calls (line 50 below)
 *
 * and exits 0 if the results were right.  With VT_LOG=FILE it writes
 * each round's values there, "ID NAME BYTES" (vt_label's and malloc's),
 * for the tests of filters to select from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = { "alpha", "beta", "gamma" };

#define LABEL_FUNC(f)						\
__attribute__((noinline)) size_t f(long id, const char *name)	\
{								\
	asm volatile("" : : "r"(id) : "memory");		\
	return strlen(name) + id;				\
}
LABEL_FUNC(vt_label)
LABEL_FUNC(vt_twin)

__attribute__((noinline)) long vt_square(long x)
{
	asm volatile("" : "+r"(x));
	return x * x - 3;
}

__attribute__((noinline, noipa)) void vt_sink(long v)
{
	asm volatile("" : : "r"(v) : "memory");
}

/* "other" arrives in a register and must outlive calls on the stack */
__attribute__((noinline)) long vt_keep(long keep, long other)
{
	long local = other * 3;

	vt_sink(local);
	/* every callee-saved register but one is taken here */
	asm volatile("" : : : "rbx", "r12", "r13", "r14", "r15", "memory");
	vt_sink(keep);		/* values_target.c:50 */
	return keep + local + other;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	const char *log_path = getenv("VT_LOG");
	FILE *log = log_path ? fopen(log_path, "w") : NULL;
	int bad = log_path && !log;

	for (long i = 0; i < n; i++) {
		char *p = malloc(1000 + 8 * (i % 5));

		if (log)
			fprintf(log, "%ld %s %ld\n", i, names[i % 3],
				1000 + 8 * (i % 5));

		bad += !p;
		free(p);
		bad += vt_label(i, names[i % 3]) != strlen(names[i % 3]) + i;
		bad += vt_twin(i, names[i % 3]) != strlen(names[i % 3]) + i;
		bad += vt_square(i - 5) != (i - 5) * (i - 5) - 3;
		bad += vt_keep(i, 7 * i) != i + 21 * i + 7 * i;
	}
	if (log && fclose(log))
		bad++;
	return bad ? 1 : 0;
}
