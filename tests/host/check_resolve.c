// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe-cli's resolver on ELF files built for the test (FIXTURES):
 * sample.c as a PIE, a non-PIE, a stripped PIE with a .gnu_debuglink,
 * a stripped PIE whose debug file is found by its build id, and a
 * shared library.  Addresses are cross-checked with nm and
 * addr2line; each error case gives its message.
 */
#define _GNU_SOURCE
#include "check_main.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolve.h"

#ifndef FIXTURES
#error FIXTURES must name the directory of the test ELF files
#endif

static const char *const variants[] = {
	"sample_pie", "sample_nopie", "sample_stripped", "libsample.so",
	"sample_stripped_buildid",
};

#define NVARIANTS	(sizeof(variants) / sizeof(variants[0]))

/* nm's address of @sym in @file (the debug file for the stripped one). */
static unsigned long nm_address(const char *file, const char *sym)
{
	char cmd[1024], line[256], name[128], type;
	unsigned long addr, found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm %s/%s%s", FIXTURES, file,
		 strstr(file, "stripped") ? ".debug" : "");
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%lx %c %127s", &addr, &type, name) == 3 &&
		    !strcmp(name, sym))
			found = addr;
	pclose(p);
	return found;
}

static struct up_place resolve_one(const char *spec)
{
	struct up_place *p, one;
	char err[1024];
	int n = up_resolve(spec, 0, &p, err, sizeof(err));

	ck_assert_msg(n == 1, "%s: %d places: %s", spec, n, err);
	one = p[0];
	free(p);
	return one;
}

/* The resolver's error message for @spec, which must fail with @ret. */
static const char *resolve_err(const char *spec, int ret)
{
	static char err[1024];
	struct up_place *p;

	ck_assert_int_eq(up_resolve(spec, 0, &p, err, sizeof(err)), ret);
	return err;
}

START_TEST(symbol_matches_nm)
{
	char spec[512];
	struct up_place p, back;

	snprintf(spec, sizeof(spec), "%s/%s:sample_mul", FIXTURES,
		 variants[_i]);
	p = resolve_one(spec);
	ck_assert_uint_eq(p.vaddr, nm_address(variants[_i], "sample_mul"));
	ck_assert_str_eq(p.symbol, "sample_mul");
	ck_assert_uint_eq(p.sym_off, 0);
	/* the file offset maps back to the same function */
	ck_assert_int_eq(up_describe(p.path, p.offset, &back), 0);
	ck_assert_str_eq(back.symbol, "sample_mul");
	ck_assert_uint_eq(back.vaddr, p.vaddr);
}
END_TEST

START_TEST(address_and_symbol_offset_agree)
{
	char spec[512];
	struct up_place a, b;

	snprintf(spec, sizeof(spec), "%s/%s:sample_mul", FIXTURES,
		 variants[_i]);
	a = resolve_one(spec);
	snprintf(spec, sizeof(spec), "%s/%s:%#lx", FIXTURES, variants[_i],
		 a.vaddr);
	b = resolve_one(spec);
	ck_assert_uint_eq(a.offset, b.offset);
	ck_assert_str_eq(b.symbol, "sample_mul");
}
END_TEST

START_TEST(line_matches_addr2line)
{
	char spec[512], cmd[1024], out[1024] = "";
	struct up_place p;
	FILE *f;

	snprintf(spec, sizeof(spec), "%s/%s:sample.c:16", FIXTURES,
		 variants[_i]);
	p = resolve_one(spec);
	ck_assert_str_eq(p.symbol, "sample_mul");
	snprintf(cmd, sizeof(cmd), "addr2line -e %s/%s%s %#lx", FIXTURES,
		 variants[_i], strstr(variants[_i], "stripped") ? ".debug" : "",
		 p.vaddr);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(out, sizeof(out), f));
	pclose(f);
	ck_assert_msg(strstr(out, "sample.c:16"), "addr2line says %s", out);
}
END_TEST

START_TEST(glob_matches_the_three)
{
	struct up_place *p;
	char spec[512], err[1024];
	int n;

	snprintf(spec, sizeof(spec), "%s/sample_pie:sample_*", FIXTURES);
	n = up_resolve(spec, 0, &p, err, sizeof(err));
	ck_assert_int_eq(n, 3);
	ck_assert_str_eq(p[0].symbol, "sample_add");
	ck_assert_str_eq(p[1].symbol, "sample_mul");
	ck_assert_str_eq(p[2].symbol, "sample_big");
	free(p);
}
END_TEST

START_TEST(errors_name_the_problem)
{
	char spec[512];

	ck_assert_ptr_nonnull(strstr(resolve_err("/no/such/file:main", -ENOENT),
				     "No such file"));
	ck_assert_ptr_nonnull(strstr(resolve_err("/etc/passwd:main", -ENOEXEC),
				     "not an ELF file"));
	ck_assert_ptr_nonnull(strstr(resolve_err("nosuchprogram_xyz:main",
						 -ENOENT),
				     "no such program or library"));
	ck_assert_ptr_nonnull(strstr(resolve_err("sample_pie", -EINVAL),
				     "a probe is BINARY:SYMBOL"));
	snprintf(spec, sizeof(spec), "%s/sample_pie:sample_mu", FIXTURES);
	ck_assert_ptr_nonnull(strstr(resolve_err(spec, -ENOENT),
				     "no function 'sample_mu' (did you mean: sample_mul"));
	/* sample_big starts with a 7-byte movabs or a multi-byte insn */
	snprintf(spec, sizeof(spec), "%s/sample_pie:sample_big+1", FIXTURES);
	ck_assert_ptr_nonnull(strstr(resolve_err(spec, -EINVAL),
				     "is inside an instruction"));
	snprintf(spec, sizeof(spec), "%s/sample_pie:sample_add+0x1000",
		 FIXTURES);
	ck_assert_ptr_nonnull(strstr(resolve_err(spec, -EINVAL),
				     "beyond the end"));
	snprintf(spec, sizeof(spec), "%s/sample_pie:nomatch_*", FIXTURES);
	ck_assert_ptr_nonnull(strstr(resolve_err(spec, -ENOENT),
				     "no function matches"));
	snprintf(spec, sizeof(spec), "%s/sample_pie:sample.c:9999", FIXTURES);
	ck_assert_ptr_nonnull(strstr(resolve_err(spec, -ENOENT),
				     "no code for"));
}
END_TEST

/* Without the debug directory the stripped binary has no sample_mul. */
START_TEST(build_id_lookup_is_what_finds_symbols)
{
	char spec[512];

	setenv("UPROBE_CLI_DEBUGINFO_PATH", "/nonexistent", 1);
	snprintf(spec, sizeof(spec), "%s/sample_stripped_buildid:sample_mul",
		 FIXTURES);
	ck_assert_ptr_nonnull(strstr(resolve_err(spec, -ENOENT),
				     "no function 'sample_mul'"));
	setenv("UPROBE_CLI_DEBUGINFO_PATH", FIXTURES "/debug", 1);
	ck_assert_str_eq(resolve_one(spec).symbol, "sample_mul");
}
END_TEST

START_TEST(library_by_short_name)
{
	char path[4096], err[1024];

	ck_assert_int_eq(up_find_binary("libc", 0, path, sizeof(path), err,
					sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(path, "libc.so"));
}
END_TEST

/*
 * A versioned function (glibc's __libc_start_main, in libc's debug file)
 * goes by its name, and a spec of it names the default version.
 */
START_TEST(versioned_names)
{
	struct up_place p = resolve_one(FIXTURES "/libver.so:ver_func");
	unsigned long v2 = nm_address("libver.so", "ver_func@@V2");

	ck_assert_uint_ne(v2, 0);
	ck_assert_uint_eq(p.vaddr, v2);
	ck_assert_str_eq(p.symbol, "ver_func");
}
END_TEST

/* nm's addresses of the local symbol @sym in @file, in order: how many */
static int nm_locals(const char *file, const char *sym, unsigned long *addr,
		     int max)
{
	char cmd[1024], line[256], name[128], type;
	unsigned long a;
	int n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -n %s/%s", FIXTURES, file);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%lx %c %127s", &a, &type, name) == 3 &&
		    type == 't' && !strcmp(name, sym) && n < max)
			addr[n++] = a;
	pclose(p);
	return n;
}

/*
 * Two static functions of one name (two source files): the name gives
 * both, each marked as sharing its name, so that each gets a name of
 * its own; a glob gives both too.
 */
START_TEST(static_functions_of_one_name)
{
	const char *specs[] = { FIXTURES "/dup_statics:helper",
				FIXTURES "/dup_statics:help*" };
	unsigned long want[2];
	struct up_place *p;
	char err[1024];

	ck_assert_int_eq(nm_locals("dup_statics", "helper", want, 2), 2);
	for (int s = 0; s < 2; s++) {
		ck_assert_int_eq(up_resolve(specs[s], 0, &p, err, sizeof(err)),
				 2);
		for (int i = 0; i < 2; i++) {
			ck_assert_uint_eq(p[i].vaddr, want[i]);
			ck_assert_uint_eq(p[i].func_vaddr, want[i]);
			ck_assert(p[i].dup);
			ck_assert_str_eq(p[i].symbol, "helper");
		}
		free(p);
	}
	/* a function of a name of its own is not marked */
	ck_assert(!resolve_one(FIXTURES "/dup_statics:dup_b").dup);
	/* at an offset: each one's own, checked against each one's size */
	ck_assert_int_eq(up_resolve(FIXTURES "/dup_statics:helper+0x1000", 0,
				    &p, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "beyond the end of the helper at"), "%s",
		      err);
}
END_TEST

/*
 * A function is also each copy the compiler inlined into a caller: its
 * own entry first, then each copy, at its DWARF entry, marked with the
 * function's name and placed in its caller.  A function only inlined
 * has no symbol and is found all the same; --no-inline gives the entry
 * alone, and refuses a function that has none.
 */
START_TEST(inlined_copies)
{
	static const char *const callers[] = { "it_a", "it_b", "it_c" };
	struct up_place *p;
	bool seen[3] = { false };
	char err[1024];
	int n;

	n = up_resolve(FIXTURES "/inline_target:it_step", 0, &p, err, sizeof(err));
	ck_assert_msg(n == 4, "%d places: %s", n, err);
	ck_assert_uint_eq(p[0].vaddr, nm_address("inline_target", "it_step"));
	ck_assert_ptr_null(p[0].inline_of);
	for (int i = 1; i < 4; i++) {
		ck_assert_str_eq(p[i].inline_of, "it_step");
		for (int k = 0; k < 3; k++) {
			if (strcmp(p[i].symbol, callers[k]))
				continue;
			ck_assert(!seen[k]);
			seen[k] = true;
			ck_assert_uint_eq(p[i].vaddr,
					  nm_address("inline_target", callers[k]) +
					  p[i].sym_off);
		}
	}
	ck_assert(seen[0] && seen[1] && seen[2]);
	free(p);
	n = up_resolve(FIXTURES "/inline_target:it_only", 0, &p, err, sizeof(err));
	ck_assert_msg(n == 1, "%d places: %s", n, err);
	ck_assert_str_eq(p[0].inline_of, "it_only");
	ck_assert_str_eq(p[0].symbol, "it_b");
	free(p);
	/* link-time optimization inlined it from another unit */
	n = up_resolve(FIXTURES "/lto_inlined:lto_step", 0, &p, err, sizeof(err));
	ck_assert_msg(n == 1, "%d places: %s", n, err);
	ck_assert_str_eq(p[0].inline_of, "lto_step");
	ck_assert_str_eq(p[0].symbol, "main");
	free(p);
	up_no_inline = true;
	ck_assert_ptr_null(resolve_one(FIXTURES "/inline_target:it_step").inline_of);
	ck_assert_int_eq(up_resolve(FIXTURES "/inline_target:it_only", 0, &p, err,
				    sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, "no function 'it_only'"), "%s", err);
	up_no_inline = false;
}
END_TEST

/*
 * C++: a function goes by its C++ name as well as by its mangled one,
 * and is shown by its C++ name; without its parameters a name is every
 * overload, each address once (a constructor's two variants are one);
 * an operator's '+' is its own, not an offset; "::" is no FILE:LINE;
 * a glob matches C++ names, and a whole name with glob characters of
 * its own (operator*) is that function alone.  The variants of a
 * constructor or destructor of a class with a virtual base are
 * functions of their own: its C++ name is those a caller enters (the
 * complete and base object ones), not those they call (the deleting
 * destructor, the unified variants); its mangled name is one variant.
 */
#define CXX FIXTURES "/cxx_names:"

static bool two_at(const struct up_place *p, unsigned long a,
		   unsigned long b)
{
	return (p[0].vaddr == a && p[1].vaddr == b) ||
	       (p[0].vaddr == b && p[1].vaddr == a);
}

START_TEST(cxx_names)
{
	unsigned long m_int = nm_address("cxx_names", "_ZN2ns5KlassIlE6methodEi");
	unsigned long m_dbl = nm_address("cxx_names", "_ZNK2ns5KlassIlE6methodEd");
	unsigned long i_int = nm_address("cxx_names", "_ZN2ns5KlassIiE6methodEi");
	unsigned long i_dbl = nm_address("cxx_names", "_ZNK2ns5KlassIiE6methodEd");
	unsigned long ctor = nm_address("cxx_names", "_ZN2ns1VC2El");
	unsigned long plus = nm_address("cxx_names", "_ZNK2ns1VplERKS0_");
	unsigned long incr = nm_address("cxx_names", "_ZN2ns1VppEv");
	unsigned long label = nm_address("cxx_names", "_ZN2ns5labelB5cxx11Ei");
	struct up_place one, *p;
	char err[1024];
	int n;

	ck_assert(m_int && m_dbl && i_int && i_dbl && ctor && plus && incr &&
		  label);
	one = resolve_one(CXX "ns::Klass<long>::method(int)");
	ck_assert_uint_eq(one.vaddr, m_int);
	ck_assert_str_eq(one.symbol, "ns::Klass<long>::method(int)");
	one = resolve_one(CXX "_ZN2ns5KlassIlE6methodEi");
	ck_assert_uint_eq(one.vaddr, m_int);
	ck_assert_str_eq(one.symbol, "ns::Klass<long>::method(int)");
	n = up_resolve(CXX "ns::Klass<long>::method", 0, &p, err, sizeof(err));
	ck_assert_msg(n == 2 && two_at(p, m_int, m_dbl), "%d: %s", n, err);
	free(p);
	/* complete and base object constructors: one address, one place */
	one = resolve_one(CXX "ns::V::V");
	ck_assert_uint_eq(one.vaddr, ctor);
	ck_assert_str_eq(one.symbol, "ns::V::V(long)");
	ck_assert_uint_eq(resolve_one(CXX "ns::V::V(long)").vaddr, ctor);
	/* operator+ and operator++, with and without an offset */
	ck_assert_uint_eq(resolve_one(CXX "ns::V::operator+(ns::V const&) const").vaddr,
			  plus);
	ck_assert_uint_eq(resolve_one(CXX "ns::V::operator+(ns::V const&) const+0").vaddr,
			  plus);
	one = resolve_one(CXX "ns::V::operator++");
	ck_assert_uint_eq(one.vaddr, incr);
	ck_assert_str_eq(one.symbol, "ns::V::operator++()");
	/* an ABI tag, without its parameters and in full ('[' in it) */
	one = resolve_one(CXX "ns::label");
	ck_assert_uint_eq(one.vaddr, label);
	ck_assert_str_eq(one.symbol, "ns::label[abi:cxx11](int)");
	ck_assert_uint_eq(resolve_one(CXX "ns::label[abi:cxx11](int)").vaddr,
			  label);
	/* a glob on C++ names */
	n = up_resolve(CXX "ns::Klass<int>::*", 0, &p, err, sizeof(err));
	ck_assert_msg(n == 2 && two_at(p, i_int, i_dbl), "%d: %s", n, err);
	ck_assert(!strncmp(p[0].symbol, "ns::Klass<int>::method(", 23));
	free(p);
	/* a line is still FILE:LINE; a misspelt name is named */
	one = resolve_one(CXX "cxx_names.cc:16");
	ck_assert_msg(strstr(one.symbol, "::method(int)"), "%s", one.symbol);
	ck_assert(strstr(resolve_err(CXX "cxx_names.cc:abc", -EINVAL),
			 "bad line number in 'cxx_names.cc:abc'"));
	ck_assert_msg(strstr(resolve_err(CXX "ns::Klass<long>::methd",
					 -ENOENT),
			     "no function 'ns::Klass<long>::methd' (did you mean: ns::Klass<long>::method("),
		      "%s", resolve_err(CXX "ns::Klass<long>::methd",
					-ENOENT));
}
END_TEST

START_TEST(cxx_operators_and_variants)
{
	unsigned long times = nm_address("cxx_names", "_ZNK2ns1VmlERKS0_");
	unsigned long c1 = nm_address("cxx_names", "_ZN2ns1XC1Ev");
	unsigned long c2 = nm_address("cxx_names", "_ZN2ns1XC2Ev");
	unsigned long d0 = nm_address("cxx_names", "_ZN2ns1XD0Ev");
	unsigned long d1 = nm_address("cxx_names", "_ZN2ns1XD1Ev");
	unsigned long d2 = nm_address("cxx_names", "_ZN2ns1XD2Ev");
	const char *specs[] = { CXX "ns::X::X()", CXX "ns::X::X",
				CXX "ns::X::~X()", CXX "ns::X::~X" };
	struct up_place one, *p;
	char err[1024];
	int n;

	ck_assert(times && c1 && c2 && d0 && d1 && d2);
	/* not a glob: operator* alone; as a glob, the four operators */
	one = resolve_one(CXX "ns::V::operator*(ns::V const&) const");
	ck_assert_uint_eq(one.vaddr, times);
	ck_assert(!one.glob);
	n = up_resolve(CXX "ns::V::operator*", 0, &p, err, sizeof(err));
	ck_assert_msg(n == 4 && p[0].glob, "%d: %s", n, err);
	free(p);
	for (int s = 0; s < 4; s++) {
		unsigned long a = s < 2 ? c1 : d1, b = s < 2 ? c2 : d2;

		n = up_resolve(specs[s], 0, &p, err, sizeof(err));
		ck_assert_msg(n == 2 && two_at(p, a, b), "%s: %d: %s",
			      specs[s], n, err);
		ck_assert(p[0].dup && p[1].dup);
		ck_assert_str_eq(p[0].symbol, s < 2 ? "ns::X::X()" : "ns::X::~X()");
		free(p);
	}
	ck_assert_uint_eq(resolve_one(CXX "_ZN2ns1XD0Ev").vaddr, d0);
	ck_assert_uint_eq(resolve_one(CXX "_ZN2ns1XD1Ev").vaddr, d1);
}
END_TEST

/*
 * A command keeps each binary open for its specs: a second spec of the
 * same path reads the same file (one open), but a path that names
 * another file since is read afresh; the 32 used last stay open, and
 * up_binaries_close() closes all.
 */
/* How many descriptors this process has open */
static int open_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 4096; fd++)
		n += fcntl(fd, F_GETFD) != -1;
	return n;
}

START_TEST(binary_replaced_between_specs)
{
	char dir[] = "/tmp/check_resolve.XXXXXX", path[64], cmd[1024];
	struct up_binary *a, *b;
	int fds = open_fds();
	char err[1024];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/prog", dir);
	snprintf(cmd, sizeof(cmd), "cp %s/sample_pie %s", FIXTURES, path);
	ck_assert_int_eq(system(cmd), 0);
	a = up_binary_get(path, err, sizeof(err));
	ck_assert_msg(a != NULL, "%s", err);
	ck_assert_ptr_eq(up_binary_get(path, err, sizeof(err)), a);
	snprintf(cmd, sizeof(cmd), "%s:sample_mul", path);
	ck_assert_str_eq(resolve_one(cmd).symbol, "sample_mul");
	/* another file at the path: its own symbols, not the first's */
	snprintf(cmd, sizeof(cmd), "cp %s/args_pie %s.new && mv %s.new %s",
		 FIXTURES, path, path, path);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s:sample_mul", path);
	ck_assert_ptr_nonnull(strstr(resolve_err(cmd, -ENOENT),
				     "no function 'sample_mul'"));
	b = up_binary_get(path, err, sizeof(err));
	ck_assert_msg(b != NULL, "%s", err);
	ck_assert_ptr_eq(up_binary_get(path, err, sizeof(err)), b);
	/* 40 binaries: the first ones are closed to keep 32 open, and */
	/* opened again when named again */
	for (int i = 0; i < 40; i++) {
		snprintf(cmd, sizeof(cmd), "cp %s/sample_pie %s/c%d", FIXTURES,
			 dir, i);
		ck_assert_int_eq(system(cmd), 0);
		snprintf(cmd, sizeof(cmd), "%s/c%d:sample_mul", dir, i);
		ck_assert_str_eq(resolve_one(cmd).symbol, "sample_mul");
	}
	ck_assert_int_le(open_fds(), fds + 32 * 3);
	snprintf(cmd, sizeof(cmd), "%s/c0:sample_add", dir);
	ck_assert_str_eq(resolve_one(cmd).symbol, "sample_add");
	up_binaries_close();
	ck_assert_int_eq(open_fds(), fds);
	/* gone: an error, nothing kept */
	snprintf(cmd, sizeof(cmd), "rm -r %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_ptr_null(up_binary_get(path, err, sizeof(err)));
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_msg(strstr(err, "No such file"), "%s", err);
}
END_TEST

/*
 * A function whose jump table lands inside the first bytes a jump at
 * its entry would replace is marked, in a PIE (a table of offsets) and
 * without PIE (of addresses), and so is one that another function's
 * jmp enters there; one whose table lands after them, one with no
 * indirect jump, the function that jumps, and a place past the entry
 * are not.
 */
START_TEST(branches_and_jump_tables_into_the_window)
{
	ck_assert(resolve_one(FIXTURES "/jtab_pie:jtab_into").entered_in_window);
	ck_assert(resolve_one(FIXTURES "/jtab_nopie:jtab_into").entered_in_window);
	ck_assert(resolve_one(FIXTURES "/jtab_nopie:jtab_abs").entered_in_window);
	ck_assert(!resolve_one(FIXTURES "/jtab_pie:jtab_clear").entered_in_window);
	ck_assert(!resolve_one(FIXTURES "/jtab_pie:jtab_none").entered_in_window);
	ck_assert(!resolve_one(FIXTURES "/jtab_pie:jtab_into+4").entered_in_window);
	ck_assert(!resolve_one(FIXTURES "/sample_pie:sample_mul").entered_in_window);
	ck_assert(resolve_one(FIXTURES "/jtab_pie:jtab_entered").entered_in_window);
	ck_assert(!resolve_one(FIXTURES "/jtab_pie:jtab_enters").entered_in_window);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, symbol_matches_nm, 0, NVARIANTS);
	tcase_add_loop_test(tc, address_and_symbol_offset_agree, 0, NVARIANTS);
	tcase_add_loop_test(tc, line_matches_addr2line, 0, NVARIANTS);
	tcase_add_test(tc, build_id_lookup_is_what_finds_symbols);
	tcase_add_test(tc, glob_matches_the_three);
	tcase_add_test(tc, errors_name_the_problem);
	tcase_add_test(tc, library_by_short_name);
	tcase_add_test(tc, versioned_names);
	tcase_add_test(tc, static_functions_of_one_name);
	tcase_add_test(tc, inlined_copies);
	tcase_add_test(tc, cxx_names);
	tcase_add_test(tc, cxx_operators_and_variants);
	tcase_add_test(tc, binary_replaced_between_specs);
	tcase_add_test(tc, branches_and_jump_tables_into_the_window);
}

int main(void)
{
	check_debuginfo_path(FIXTURES "/debug");
	return check_run("resolve", add_tests) ? 1 : 0;
}
