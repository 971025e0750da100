// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe-cli's SDT markers on a fixture built for the test (FIXTURES
 * /sdt_fix, from sdt_sem.c and sdt_plain.c): markers, addresses and
 * semaphores cross-checked with readelf; argument specs translated to
 * fetch arguments; each error case gives its message.
 */
#define _GNU_SOURCE
#include "check_main.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolve.h"
#include "sdt.h"

#ifndef FIXTURES
#error FIXTURES must name the directory of the test ELF files
#endif

#define FIX FIXTURES "/sdt_fix"

/* What readelf says of marker @name: its address and its semaphore's. */
static void readelf_marker(const char *name, unsigned long *loc,
			   unsigned long *sem)
{
	char line[512], cur[64] = "";
	unsigned long base;
	FILE *p = popen("readelf -n " FIX, "r");

	*loc = *sem = 0;
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p)) {
		sscanf(line, " Name: %63s", cur);
		if (!strcmp(cur, name))
			sscanf(line, " Location: %lx, Base: %lx, Semaphore: %lx",
			       loc, &base, sem);
	}
	pclose(p);
	ck_assert_uint_ne(*loc, 0);
}

/* The file offset of address @vaddr in section .probes, by readelf */
static unsigned long probes_offset(unsigned long vaddr)
{
	char line[512], name[64];
	unsigned long addr, off, found = 0;
	FILE *p = popen("readelf -SW " FIX, "r");

	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p)) {
		char *b = strchr(line, ']');

		if (b && sscanf(b + 1, " %63s %*s %lx %lx", name, &addr,
				&off) == 3 && !strcmp(name, ".probes"))
			found = off + (vaddr - addr);
	}
	pclose(p);
	return found;
}

START_TEST(markers_match_readelf)
{
	struct up_place *p;
	unsigned long loc, sem;
	char err[1024];
	int n = up_resolve(FIX ":sdt:fix:*", 0, &p, err, sizeof(err));

	ck_assert_msg(n == 2, "%d places: %s", n, err);
	ck_assert_str_eq(p[0].symbol, "fix:guarded");
	ck_assert_str_eq(p[1].symbol, "fix:plain");
	readelf_marker("guarded", &loc, &sem);
	ck_assert(p[0].sdt);
	ck_assert_uint_eq(p[0].vaddr, loc);
	ck_assert_uint_ne(sem, 0);
	ck_assert_uint_eq(p[0].ref_offset, probes_offset(sem));
	ck_assert_str_eq(p[0].sdt_args, "-4@%edi -8@%rax 8@(%rsi)");
	readelf_marker("plain", &loc, &sem);
	ck_assert_uint_eq(p[1].vaddr, loc);
	ck_assert_uint_eq(sem, 0);
	ck_assert_uint_eq(p[1].ref_offset, 0);
	/* the fixture is a PIE: text at the same offsets as addresses */
	ck_assert_uint_eq(p[1].offset, loc);
	free(p);
}
END_TEST

/* Each operand form, and what the kernel is given for it */
START_TEST(arguments_as_fetch_arguments)
{
	static const struct {
		const char *spec, *fetch;
	} cases[] = {
		{ "-4@%edi", "arg0=%di:s32" },
		{ "8@%rax", "arg0=%ax:u64" },
		{ "1@%r8b", "arg0=%r8:u8" },
		{ "2@%r15w", "arg0=%r15:u16" },
		{ "-8@-8(%rbp)", "arg0=-8(%bp):s64" },
		{ "4@112(%rsp)", "arg0=+112(%sp):u32" },
		{ "8@(%rsi)", "arg0=+0(%si):u64" },
		{ "-4@$-5", "arg0=\\-5:s32" },
		{ "8@%rdx 8@-80(%rbx)", "arg0=%dx:u64 arg1=-80(%bx):u64" },
		{ "", "" },
	};
	char out[512], err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n = up_sdt_fetch(cases[i].spec, out, sizeof(out), err,
				     sizeof(err));

		ck_assert_msg(n >= 0, "%s: %s", cases[i].spec, err);
		ck_assert_str_eq(out, cases[i].fetch);
	}
	ck_assert_int_eq(up_sdt_fetch("8@%rdx 8@-80(%rbx)", out, sizeof(out),
				      err, sizeof(err)), 2);
}
END_TEST

/* The message for @args, which must not translate, but return @ret */
static const char *fetch_err(const char *args, int ret)
{
	static char err[256];
	char out[512];

	ck_assert_int_eq(up_sdt_fetch(args, out, sizeof(out), err,
				      sizeof(err)), ret);
	return err;
}

START_TEST(errors_name_the_problem)
{
	struct up_place *p;
	char err[1024];

	ck_assert_str_eq(fetch_err("8@%rdi 8@counter(%rip)", -EOPNOTSUPP),
			 "argument 1 '8@counter(%rip)': an address relative to the instruction (%rip) is not supported");
	ck_assert_str_eq(fetch_err("8@(%rax,%rbx,8)", -EOPNOTSUPP),
			 "argument 0 '8@(%rax,%rbx,8)': the kernel cannot fetch this operand");
	ck_assert_str_eq(fetch_err("1@%ah", -EOPNOTSUPP),
			 "argument 0 '1@%ah': the kernel cannot fetch this operand");
	ck_assert_str_eq(fetch_err("3@%eax", -EINVAL),
			 "argument 0 '3@%eax': no SIZE@OPERAND");
	ck_assert_str_eq(fetch_err("1@%al 1@%al 1@%al 1@%al 1@%al 1@%al 1@%al 1@%al 1@%al 1@%al 1@%al 1@%al 1@%al",
				   -E2BIG),
			 "more than 12 arguments");
	ck_assert_int_eq(up_resolve(FIX ":sdt:fix:nothing", 0, &p, err,
				    sizeof(err)), -ENOENT);
	ck_assert_str_eq(err, FIX ": no SDT marker fix:nothing");
	ck_assert_int_eq(up_resolve(FIX ":sdt:fix", 0, &p, err,
				    sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "'sdt:fix': an SDT marker is BINARY:sdt:PROVIDER:NAME");
	ck_assert_int_eq(up_resolve(FIXTURES "/sample_pie:sdt:a:b", 0, &p,
				    err, sizeof(err)), -ENOENT);
	ck_assert_str_eq(err, FIXTURES "/sample_pie: no SDT marker a:b (it has no .note.stapsdt)");
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_test(tc, markers_match_readelf);
	tcase_add_test(tc, arguments_as_fetch_arguments);
	tcase_add_test(tc, errors_name_the_problem);
}

int main(void)
{
	check_debuginfo_path(FIXTURES "/debug");
	return check_run("sdt", add_tests) ? 1 : 0;
}
