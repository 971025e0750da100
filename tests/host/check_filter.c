// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe-cli's --filter: expressions in ftrace's event filter syntax
 * parsed, the fields they name listed, checked against a probe's
 * fields, and the text given to the kernel, to the byte; each bad one
 * refused with the message naming its problem.
 */
#define _GNU_SOURCE
#include "check_main.h"
#include <stdio.h>
#include <string.h>

#include "filter.h"

static const struct up_filter_field fields[] = {
	{ "bytes", UP_FIELD_UNSIGNED },
	{ "delta", UP_FIELD_SIGNED },
	{ "name", UP_FIELD_STRING },
};

#define NFIELDS	((int)(sizeof(fields) / sizeof(fields[0])))

/* The kernel's text for @expr, which must be good */
static const char *kernel_text(const char *expr)
{
	static char out[1100];
	struct up_filter *f;
	char err[256] = "";

	ck_assert_msg(up_filter_parse(expr, &f, err, sizeof(err)) == 0,
		      "%s: %s", expr, err);
	ck_assert_msg(up_filter_check(f, fields, NFIELDS, out, sizeof(out),
				      err, sizeof(err)) == 0,
		      "%s: %s", expr, err);
	up_filter_free(f);
	return out;
}

/* The message for @expr, which must be refused (parsed or checked) */
static const char *refused(const char *expr)
{
	static char err[256];
	struct up_filter *f;
	char out[1100];
	int r;

	*err = '\0';
	if (up_filter_parse(expr, &f, err, sizeof(err)))
		return err;
	r = up_filter_check(f, fields, NFIELDS, out, sizeof(out), err,
			    sizeof(err));
	up_filter_free(f);
	ck_assert_msg(r == -1, "%s: accepted as '%s'", expr, out);
	return err;
}

START_TEST(good_expressions_as_the_kernel_takes_them)
{
	ck_assert_str_eq(kernel_text("bytes > 4096 && name ~ \"lib*\""),
			 "bytes > 4096 && name ~ \"lib*\"");
	ck_assert_str_eq(kernel_text("bytes>4096&&name~'lib*'"),
			 "bytes > 4096 && name ~ \"lib*\"");
	ck_assert_str_eq(kernel_text("!(delta < -3 || bytes & 0x10) && name != beta"),
			 "! ( delta < -3 || bytes & 0x10 ) && name != \"beta\"");
	ck_assert_str_eq(kernel_text("common_pid == 1 || comm == \"sh\""),
			 "common_pid == 1 || comm == \"sh\"");
	ck_assert_str_eq(kernel_text("bytes >= 18446744073709551615"),
			 "bytes >= 18446744073709551615");
}
END_TEST

START_TEST(names_each_once_in_order)
{
	const char *const *names;
	struct up_filter *f;
	char err[256];

	ck_assert_int_eq(up_filter_parse("len > 2 && (id == 1 || len < 9) && comm == x && common_pid > 1",
					 &f, err, sizeof(err)), 0);
	ck_assert_int_eq(up_filter_names(f, &names), 2);
	ck_assert_str_eq(names[0], "len");
	ck_assert_str_eq(names[1], "id");
	up_filter_free(f);
}
END_TEST

START_TEST(bad_expressions_name_their_problem)
{
	ck_assert_str_eq(refused(""), "--filter: the expression is empty");
	ck_assert_str_eq(refused("bytes >"),
			 "--filter: expected a number or a string at the end");
	ck_assert_str_eq(refused("bytes 4096"),
			 "--filter: expected a comparison (== != < <= > >= & ~) at column 7, not '4096'");
	ck_assert_str_eq(refused("(bytes > 1"),
			 "--filter: expected ')' at the end");
	ck_assert_str_eq(refused("bytes > 1 bytes"),
			 "--filter: expected '&&', '||' or ')' at column 11, not 'bytes'");
	ck_assert_str_eq(refused("bytes > 1 && && x"),
			 "--filter: expected a field name, '!' or '(' at column 14, not '&&'");
	ck_assert_str_eq(refused("name == \"lib"),
			 "--filter: the string at column 9 has no closing \"");
	ck_assert_str_eq(refused("bytes > 1 ; rm"),
			 "--filter: unexpected ';' at column 11");
	ck_assert_str_eq(refused("bytez > 1"),
			 "--filter: the probe has no value 'bytez'");
	ck_assert_str_eq(refused("name > \"a\""),
			 "--filter: 'name' is a string: compare it with ==, != or ~ (a glob), not >");
	ck_assert_str_eq(refused("name == 3"),
			 "--filter: 'name' is a string; give a quoted string, not 3 (column 9)");
	ck_assert_str_eq(refused("bytes ~ \"4*\""),
			 "--filter: 'bytes' is a number; ~ matches a string against a glob");
	ck_assert_str_eq(refused("bytes == big"),
			 "--filter: 'bytes' is a number; 'big' (column 10) is not");
	ck_assert_str_eq(refused("bytes == -1"),
			 "--filter: 'bytes' is unsigned; it is never -1");
	ck_assert_str_eq(refused("bytes == 18446744073709551616"),
			 "--filter: '18446744073709551616' (column 10) is not a number that fits in 64 bits");
	ck_assert_str_eq(refused("delta == 0x1g"),
			 "--filter: '0x1g' (column 10) is not a number that fits in 64 bits");
}
END_TEST

START_TEST(too_long)
{
	char expr[2048], out[64], err[256];
	struct up_filter *f;
	size_t len = 0;

	while (len < 1100)
		len += snprintf(expr + len, sizeof(expr) - len, "%sbytes > 1",
				len ? " || " : "");
	ck_assert_int_eq(up_filter_parse(expr, &f, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "--filter: longer than 1024 characters");
	ck_assert_int_eq(up_filter_parse("bytes > 1 || bytes < 0", &f, err,
					 sizeof(err)), 0);
	ck_assert_int_eq(up_filter_check(f, fields, NFIELDS, out, 10, err,
					 sizeof(err)), -1);
	ck_assert_str_eq(err, "--filter: longer than 9 characters");
	up_filter_free(f);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_test(tc, good_expressions_as_the_kernel_takes_them);
	tcase_add_test(tc, names_each_once_in_order);
	tcase_add_test(tc, bad_expressions_name_their_problem);
	tcase_add_test(tc, too_long);
}

int main(void)
{
	return check_run("filter", add_tests) ? 1 : 0;
}
