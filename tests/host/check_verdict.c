// SPDX-License-Identifier: GPL-2.0
/* Check unit tests of the guest-run verdict (scripts/verdict). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "verdict.h"

static struct verdict v;

static void setup(void)
{
	verdict_init(&v);
}

static void teardown(void)
{
	verdict_free(&v);
}

static void out(const char *const *lines)
{
	for (; *lines; lines++)
		verdict_output_line(&v, *lines);
}

static bool has_problem(const char *needle)
{
	for (unsigned int i = 0; i < v.nproblems; i++)
		if (strstr(v.problems[i], needle))
			return true;
	return false;
}

START_TEST(counts_kselftest_output)
{
	static const char *const lines[] = {
		"# run: t/smoke", "TAP version 13", "1..3",
		"# Starting 3 tests from 1 test cases.",
		"ok 1 global.a", "not ok 2 global.b", "ok 3 global.c # SKIP no tracefs",
		"# exit: t/smoke 1", "guest-exit: 0", NULL,
	};

	out(lines);
	verdict_finish(&v, false, 0);
	ck_assert_uint_eq(v.passed, 1);
	ck_assert_uint_eq(v.failed, 1);
	ck_assert_uint_eq(v.skipped, 1);
	ck_assert_uint_eq(v.nproblems, 0);
	ck_assert_int_eq(verdict_report(&v, fopen("/dev/null", "w"), true), 1);
}
END_TEST

START_TEST(all_pass_exits_zero)
{
	static const char *const lines[] = {
		"# run: t/a", "1..2", "ok 1 x", "ok 2 y", "# exit: t/a 0",
		"# run: t/b", "1..1", "ok 1 # SKIP nothing to do", "# exit: t/b 4",
		"guest-exit: 0", NULL,
	};

	out(lines);
	verdict_finish(&v, false, 0);
	ck_assert_uint_eq(v.passed, 2);
	ck_assert_uint_eq(v.failed, 0);
	ck_assert_uint_eq(v.skipped, 1);
	ck_assert_int_eq(verdict_report(&v, fopen("/dev/null", "w"), true), 0);
}
END_TEST

START_TEST(crash_mid_program)
{
	static const char *const lines[] = {
		"# run: t/a", "1..4", "ok 1 x", "ok 2 y", "# exit: t/a 139",
		"guest-exit: 0", NULL,
	};

	out(lines);
	verdict_finish(&v, false, 0);
	ck_assert_uint_eq(v.passed, 2);
	ck_assert_uint_eq(v.failed, 1);
	ck_assert(has_problem("t/a: planned 4 tests but 2 reported"));
}
END_TEST

START_TEST(nonzero_exit_without_failure)
{
	static const char *const lines[] = {
		"# run: t/a", "1..1", "ok 1 x", "# exit: t/a 2", "guest-exit: 0", NULL,
	};

	out(lines);
	verdict_finish(&v, false, 0);
	ck_assert_uint_eq(v.failed, 1);
	ck_assert(has_problem("t/a: exited with status 2"));
}
END_TEST

START_TEST(no_tap_at_all)
{
	static const char *const lines[] = {
		"# run: t/a", "hello", "# exit: t/a 0", "guest-exit: 0", NULL,
	};

	out(lines);
	verdict_finish(&v, false, 0);
	ck_assert(has_problem("t/a: printed no TAP results"));
}
END_TEST

START_TEST(guest_died_mid_program)
{
	static const char *const lines[] = {
		"# run: t/a", "1..3", "ok 1 x", NULL,
	};

	out(lines);
	verdict_console_line(&v, "[    3.1] Kernel panic - not syncing: Fatal exception\n");
	verdict_finish(&v, false, 0);
	ck_assert(has_problem("t/a: did not finish"));
	ck_assert(has_problem("kernel console: [    3.1] Kernel panic - not syncing"));
	ck_assert(has_problem("guest stopped before its command finished"));
	ck_assert_uint_eq(v.passed, 1);
	ck_assert_uint_eq(v.failed, 3);
}
END_TEST

START_TEST(timeout_is_named)
{
	static const char *const lines[] = { "# run: t/a", "1..1", NULL };

	out(lines);
	verdict_finish(&v, true, 42);
	ck_assert(has_problem("guest timed out after 42 s"));
	ck_assert(!has_problem("guest stopped before"));
}
END_TEST

START_TEST(console_warning_fails_passing_run)
{
	static const char *const lines[] = {
		"# run: t/a", "1..1", "ok 1 x", "# exit: t/a 0", "guest-exit: 0", NULL,
	};

	out(lines);
	verdict_console_line(&v, "[    1.0] Linux version 6.12");
	verdict_console_line(&v, "[    2.0] WARNING: CPU: 1 PID: 80 at mod.c:12 f+0x1/0x2");
	verdict_console_line(&v, "[    2.1] BUG: KASAN: slab-use-after-free in g");
	verdict_finish(&v, false, 0);
	ck_assert_uint_eq(v.passed, 1);
	ck_assert_uint_eq(v.failed, 2);
	ck_assert(has_problem("kernel console: [    2.0] WARNING: CPU: 1"));
	ck_assert(has_problem("BUG: KASAN"));
}
END_TEST

START_TEST(clean_console_is_quiet)
{
	verdict_console_line(&v, "[    0.0] Linux version 6.12.0 (utrace@qemu)");
	verdict_console_line(&v, "[    0.5] Run /init as init process");
	ck_assert_uint_eq(v.nproblems, 0);
}
END_TEST

START_TEST(run_mode_returns_guest_status)
{
	verdict_output_line(&v, "hello from the demo");
	verdict_output_line(&v, "guest-exit: 3");
	verdict_finish(&v, false, 0);
	ck_assert_int_eq(verdict_report(&v, fopen("/dev/null", "w"), false), 3);
}
END_TEST

START_TEST(okay_is_not_ok)
{
	verdict_output_line(&v, "okay, starting");
	verdict_output_line(&v, "ok");
	ck_assert_uint_eq(v.passed, 1);
}
END_TEST

START_TEST(problem_list_is_bounded)
{
	for (int i = 0; i < VERDICT_MAX_PROBLEMS + 5; i++)
		verdict_console_line(&v, "WARNING: again");
	ck_assert_uint_eq(v.nproblems, VERDICT_MAX_PROBLEMS);
	ck_assert_uint_eq(v.dropped, 5);
	ck_assert_uint_eq(v.failed, VERDICT_MAX_PROBLEMS + 5);
}
END_TEST

static Suite *verdict_suite(void)
{
	Suite *s = suite_create("verdict");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, counts_kselftest_output);
	tcase_add_test(tc, all_pass_exits_zero);
	tcase_add_test(tc, crash_mid_program);
	tcase_add_test(tc, nonzero_exit_without_failure);
	tcase_add_test(tc, no_tap_at_all);
	tcase_add_test(tc, guest_died_mid_program);
	tcase_add_test(tc, timeout_is_named);
	tcase_add_test(tc, console_warning_fails_passing_run);
	tcase_add_test(tc, clean_console_is_quiet);
	tcase_add_test(tc, run_mode_returns_guest_status);
	tcase_add_test(tc, okay_is_not_ok);
	tcase_add_test(tc, problem_list_is_bounded);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(verdict_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
