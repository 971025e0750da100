// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe-cli's translation of C variables into fetch arguments
 * (dwarfvar.c), on args.c built for the test (FIXTURES) at -O2 as a
 * PIE, a non-PIE and a stripped PIE with a .gnu_debuglink, and at -O0:
 * parameters in registers, members through pointers, strings, static
 * variables, a parameter the function moves to its stack, locals at a
 * line, a function's prologue skipped where its frame holds the values,
 * and each error's message.  The expected texts were checked against
 * the fixtures' disassembly.
 */
#define _GNU_SOURCE
#include "check_main.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarfvar.h"
#include "resolve.h"

#ifndef FIXTURES
#error FIXTURES must name the directory of the test ELF files
#endif

/* The -O2 builds: the same code, so the same locations */
static const char *const optimized[] = {
	"args_pie", "args_nopie", "args_stripped",
};

#define NOPTIMIZED	(sizeof(optimized) / sizeof(optimized[0]))

struct probe_at {
	struct up_binary b;
	unsigned long vaddr;
};

/* Open @file of the fixtures, at the place @what resolves to */
static void open_at(struct probe_at *p, const char *file, const char *what)
{
	char spec[512], err[1024];
	struct up_place *pl;
	int n;

	snprintf(spec, sizeof(spec), "%s/%s:%s", FIXTURES, file, what);
	n = up_resolve(spec, 0, &pl, err, sizeof(err));
	ck_assert_msg(n == 1, "%s: %s", spec, err);
	p->vaddr = pl[0].vaddr;
	ck_assert_msg(!up_binary_open(pl[0].path, &p->b, err, sizeof(err)),
		      "%s", err);
	free(pl);
}

/* @expr at @p must translate to @want */
static void expect(struct probe_at *p, bool ret, const char *expr,
		   const char *want, bool string)
{
	struct up_fetch f;
	char err[1024];
	int r = up_fetch_arg(&p->b, p->vaddr, ret, expr, &f, err,
			     sizeof(err));

	ck_assert_msg(r == 0, "%s at %#lx: %d: %s", expr, p->vaddr, r, err);
	ck_assert_str_eq(f.text, want);
	ck_assert_int_eq(f.string, string);
}

/* @expr at @p must fail with @errno_want and a message holding @want */
static void expect_err(struct probe_at *p, bool ret, const char *expr,
		       int errno_want, const char *want)
{
	struct up_fetch f;
	char err[1024];
	int r = up_fetch_arg(&p->b, p->vaddr, ret, expr, &f, err,
			     sizeof(err));

	ck_assert_msg(r == errno_want, "%s: %d, '%s'", expr, r, f.text);
	ck_assert_msg(strstr(err, want), "%s: '%s' has no '%s'", expr, err,
		      want);
}

START_TEST(entry_of_optimized)
{
	struct probe_at p;

	open_at(&p, optimized[_i], "args_sum");
	expect(&p, false, "a", "a=%di:s64", false);
	expect(&p, false, "b", "b=%si:s32", false);
	expect(&p, false, "s", "s=+0(%dx):string", true);
	expect(&p, false, "p->x", "p_x=+0(%cx):s64", false);
	expect(&p, false, "p->y", "p_y=+8(%cx):s32", false);
	expect(&p, false, "p->tag", "p_tag=+12(%cx):string", true);
	expect(&p, false, "p->tag[1]", "p_tag_1=+13(%cx):s8", false);
	expect(&p, false, "p->next->y", "p_next_y=+8(+24(%cx)):s32", false);
	expect(&p, false, "p->next", "p_next=+24(%cx):x64", false);
	expect(&p, false, "first=p->next->tag",
	       "first=+12(+24(%cx)):string", true);
	/*
	 * static data, from where the probed segment puts file offset 0:
	 * 0x4060 in the PIE (text at offset 0x1000, address 0x1000) and in
	 * the non-PIE (0x401000, data at 0x404060)
	 */
	expect(&p, false, "args_counter", "args_counter=@+0x4060:s32",
	       false);
	expect(&p, false, "args_origin.x", "args_origin_x=@+0x4040:s64",
	       false);
	expect(&p, false, "args_origin.tag", "args_origin_tag=@+0x404c:string",
	       true);
	/* raw fetch arguments pass through */
	expect(&p, false, "%di:u32", "di=%di:u32", false);
	expect(&p, false, "n=+0(%dx):string", "n=+0(%dx):string", true);
	expect(&p, true, "$retval", "retval=$retval:s64", false);
	expect(&p, true, "r=%ax", "r=%ax", false);
	up_binary_close(&p.b);
}
END_TEST

/*
 * A parameter that arrives in a register and, at line 37, after calls
 * that may change every register, is on the stack; the local there too.
 */
START_TEST(parameter_moved_to_the_stack)
{
	struct probe_at p;

	open_at(&p, optimized[_i], "args_keep");
	expect(&p, false, "other", "other=%si:s64", false);
	expect_err(&p, false, "local", -ENOENT,
		   "'local' is optimized out at 0x");
	expect_err(&p, false, "local", -ENOENT, "; it is available at 0x");
	up_binary_close(&p.b);
	open_at(&p, optimized[_i], "args.c:37");
	expect(&p, false, "other", "other=+8(%sp):s64", false);
	expect(&p, false, "local", "local=+0(%sp):s64", false);
	expect(&p, false, "keep", "keep=%bp:s64", false);
	up_binary_close(&p.b);
}
END_TEST

/*
 * At -O0 the values are in the frame the prologue sets up: at the entry
 * the translation asks to move past it, to the first line of the body.
 */
START_TEST(unoptimized_past_the_prologue)
{
	struct probe_at p;
	unsigned long after;
	struct up_fetch f;
	char err[1024];

	open_at(&p, "args_O0", "args_sum");
	ck_assert_int_eq(up_fetch_arg(&p.b, p.vaddr, false, "a", &f, err,
				      sizeof(err)), 1);
	ck_assert_int_eq(up_after_prologue(&p.b, p.vaddr, &after), 0);
	/* push %rbp; mov %rsp,%rbp; four stores of the parameters */
	ck_assert_uint_eq(after - p.vaddr, 0x13);
	p.vaddr = after;
	expect(&p, false, "a", "a=-8(%bp):s64", false);
	expect(&p, false, "b", "b=-12(%bp):s32", false);
	expect(&p, false, "s", "s=+0(-24(%bp)):string", true);
	expect(&p, false, "p->next->y", "p_next_y=+8(+24(-32(%bp))):s32",
	       false);
	up_binary_close(&p.b);
	open_at(&p, "args_O0", "args.c:37");
	expect(&p, false, "keep", "keep=-72(%bp):s64", false);
	expect(&p, false, "local", "local=-56(%bp):s64", false);
	up_binary_close(&p.b);
}
END_TEST

START_TEST(errors_name_the_problem)
{
	struct probe_at p;

	open_at(&p, "args_pie", "args_sum");
	expect_err(&p, false, "zz", -ENOENT,
		   "no variable or parameter 'zz' at 0x11e0 (there: a, b, s, p)");
	expect_err(&p, false, "p.x", -EINVAL,
		   "'x' in 'p.x': not a struct or union");
	expect_err(&p, false, "a->x", -EINVAL,
		   "'->x' in 'a->x': not a pointer to a struct");
	expect_err(&p, false, "p->nope", -ENOENT,
		   "no member 'nope' in 'p->nope'");
	expect_err(&p, false, "args_origin", -EINVAL,
		   "'args_origin' is a struct or union: give a member");
	expect_err(&p, false, "p->tag[x]", -EINVAL, "bad index in 'p->tag[x]'");
	expect_err(&p, false, "p->x+1", -EINVAL,
		   "expected ->FIELD, .FIELD or [N] at '+1'");
	expect_err(&p, false, "$retval", -EINVAL, "probe SPEC%return");
	expect_err(&p, true, "a", -EINVAL, "a return probe fetches $retval");
	expect_err(&p, false, "1x=a", -EINVAL, "'1x': not a field name");
	expect_err(&p, false, "x=", -EINVAL, "nothing to fetch");
	expect_err(&p, false, "9", -EINVAL, "not a variable");
	up_binary_close(&p.b);
	open_at(&p, "args_pie", "args_sink");
	expect_err(&p, true, "$retval", -ENOENT, "args_sink returns void");
	up_binary_close(&p.b);
	open_at(&p, "args_pie", "args_keep");
	expect_err(&p, false, "local", -ENOENT,
		   "'local' is optimized out at 0x1230; it is available at 0x124d-0x127c");
	up_binary_close(&p.b);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, entry_of_optimized, 0, NOPTIMIZED);
	tcase_add_loop_test(tc, parameter_moved_to_the_stack, 0, NOPTIMIZED);
	tcase_add_test(tc, unoptimized_past_the_prologue);
	tcase_add_test(tc, errors_name_the_problem);
}

int main(void)
{
	/* a debuglink next to the binary, or the fixtures' build-id tree */
	check_debuginfo_path(":" FIXTURES "/debug");
	return check_run("fetch", add_tests) ? 1 : 0;
}
