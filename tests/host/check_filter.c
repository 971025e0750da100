// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe-cli's --filter: expressions in ftrace's event filter syntax
 * parsed, the fields they name listed, checked against a probe's
 * fields, and the text given to the kernel, to the byte; each bad one
 * refused with the message naming its problem.
 */
#define _GNU_SOURCE
#include "check_main.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "filter.h"

static const struct up_filter_field fields[] = {
	{ "bytes", UP_FIELD_UNSIGNED, 64 },
	{ "delta", UP_FIELD_SIGNED, 0 },
	{ "name", UP_FIELD_STRING, 0 },
	{ "flags", UP_FIELD_UNSIGNED, 8 },
	{ "ret", UP_FIELD_SIGNED, 32 },
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
	r = up_filter_parse(expr, &f, err, sizeof(err));
	if (r) {
		ck_assert_int_eq(r, -EINVAL);
		return err;
	}
	r = up_filter_check(f, fields, NFIELDS, out, sizeof(out), err,
			    sizeof(err));
	up_filter_free(f);
	ck_assert_msg(r == -EINVAL, "%s: accepted as '%s'", expr, out);
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
	/* each width's ends */
	ck_assert_str_eq(kernel_text("flags == 255 || flags & 0x80"),
			 "flags == 255 || flags & 0x80");
	ck_assert_str_eq(kernel_text("ret >= -2147483648 && ret <= 2147483647"),
			 "ret >= -2147483648 && ret <= 2147483647");
	ck_assert_str_eq(kernel_text("delta > -9223372036854775808"),
			 "delta > -9223372036854775808");
	ck_assert_str_eq(kernel_text("common_pid != 2147483647"),
			 "common_pid != 2147483647");
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
			 "--filter: '18446744073709551616' (column 10) is not a number of 64 bits at most, written in 23 characters at most");
	ck_assert_str_eq(refused("delta == 0x1g"),
			 "--filter: '0x1g' (column 10) is not a number of 64 bits at most, written in 23 characters at most");
	/* what the kernel would take and compare cut to the field's width */
	ck_assert_str_eq(refused("flags == 256"),
			 "--filter: 'flags' is unsigned, of 8 bits; 256 is out of its range");
	ck_assert_str_eq(refused("ret > 3000000000"),
			 "--filter: 'ret' is signed, of 32 bits; 3000000000 is out of its range");
	ck_assert_str_eq(refused("ret > -2147483649"),
			 "--filter: 'ret' is signed, of 32 bits; -2147483649 is out of its range");
	ck_assert_str_eq(refused("common_pid == 4294967297"),
			 "--filter: 'common_pid' is signed, of 32 bits; 4294967297 is out of its range");
	/* what the kernel's parser refuses: 24 characters, 256 */
	ck_assert_str_eq(refused("bytes == 0x0000000000000000000001"),
			 "--filter: '0x0000000000000000000001' (column 10) is not a number of 64 bits at most, written in 23 characters at most");
}
END_TEST

START_TEST(too_long)
{
	char expr[2048], out[64], err[256];
	struct up_filter *f;
	size_t len = 0;

	snprintf(expr, sizeof(expr), "name == \"%0256d\"", 0);
	ck_assert_str_eq(refused(expr),
			 "--filter: the string at column 9 is longer than the kernel's 255 characters");
	snprintf(expr, sizeof(expr), "name ~ \"%0255d\"", 0);
	ck_assert_int_eq(strlen(kernel_text(expr)), strlen(expr));

	while (len < 1100)
		len += snprintf(expr + len, sizeof(expr) - len, "%sbytes > 1",
				len ? " || " : "");
	ck_assert_int_eq(up_filter_parse(expr, &f, err, sizeof(err)), -E2BIG);
	ck_assert_str_eq(err, "--filter: longer than 1024 characters");
	ck_assert_int_eq(up_filter_parse("bytes > 1 || bytes < 0", &f, err,
					 sizeof(err)), 0);
	ck_assert_int_eq(up_filter_check(f, fields, NFIELDS, out, 10, err,
					 sizeof(err)), -E2BIG);
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
