// SPDX-License-Identifier: GPL-2.0
/* Check unit tests of the guest-run verdict (scripts/verdict). */
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
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

/*
 * The runner's "# took N s" of each program: the report lists the ten
 * slowest, slowest first, before the summary line, which stays last.
 */
START_TEST(slowest_programs_listed)
{
	char name[32], line[64], *buf = NULL;
	size_t size = 0;
	FILE *f;

	for (int i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "# run: t/p%02d", i);
		verdict_output_line(&v, name);
		verdict_output_line(&v, "1..1");
		verdict_output_line(&v, "ok 1 x");
		snprintf(line, sizeof(line), "# took %d s", (i * 7) % 12);
		verdict_output_line(&v, line);
		snprintf(line, sizeof(line), "# exit: t/p%02d 0", i);
		verdict_output_line(&v, line);
	}
	verdict_output_line(&v, "guest-exit: 0");
	verdict_finish(&v, false, 0);
	f = open_memstream(&buf, &size);
	ck_assert_int_eq(verdict_report(&v, f, true), 0);
	fclose(f);
	/* p05 took 11 s, p10 10 s, p03 9 s, ...; p00 (0 s), p07 (1 s) cut */
	ck_assert_str_eq(buf, "slowest programs:\n"
			 "     11 s  t/p05\n     10 s  t/p10\n"
			 "      9 s  t/p03\n      8 s  t/p08\n"
			 "      7 s  t/p01\n      6 s  t/p06\n"
			 "      5 s  t/p11\n      4 s  t/p04\n"
			 "      3 s  t/p09\n      2 s  t/p02\n"
			 "12 passed, 0 failed\n");
	free(buf);
}
END_TEST

START_TEST(all_pass_exits_zero)
{
	static const char *const lines[] = {
		"# run: t/a", "1..2", "ok 1 x", "ok 2 y", "# exit: t/a 0",
		"# run: t/b", "1..2", "ok 1 # SKIP nothing to do", "ok 2 z",
		"# exit: t/b 0", "guest-exit: 0", NULL,
	};

	out(lines);
	verdict_finish(&v, false, 0);
	ck_assert_uint_eq(v.passed, 3);
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

/* Run @lines, the output of one run, and check the one problem it gives. */
static void one_problem(const char *const *lines, const char *want)
{
	out(lines);
	verdict_finish(&v, false, 0);
	ck_assert_msg(has_problem(want), "no problem '%s' (%u problems%s%s)",
		      want, v.nproblems, v.nproblems ? ", first: " : "",
		      v.nproblems ? v.problems[0] : "");
	ck_assert_uint_eq(v.nproblems, 1);
	ck_assert_int_eq(verdict_report(&v, fopen("/dev/null", "w"), true), 1);
}

START_TEST(all_skip_fails)
{
	static const char *const lines[] = {
		"# run: t/p", "1..2", "ok 1 a # SKIP no tracer", "ok 2 b # SKIP no tracer",
		"# exit: t/p 4", "guest-exit: 0", NULL,
	};

	one_problem(lines, "t/p: skipped all its tests (2)");
}
END_TEST

START_TEST(empty_plan_fails)
{
	static const char *const lines[] = {
		"# run: t/k", "1..0 # SKIP cannot load", "# exit: t/k 1",
		"guest-exit: 0", NULL,
	};

	one_problem(lines, "t/k: planned no tests (1..0, exit status 1)");
}
END_TEST

START_TEST(planless_fails)
{
	static const char *const lines[] = {
		"# run: t/a", "ok 1 x", "ok 2 y", "# exit: t/a 0", "guest-exit: 0", NULL,
	};

	one_problem(lines, "t/a: printed no plan line (2 results");
}
END_TEST

START_TEST(plan_at_end_is_fine)
{
	static const char *const lines[] = {
		"# run: host/c", "ok 1 - x", "ok 2 - y", "1..2", "# exit: host/c 0",
		"guest-exit: 0", NULL,
	};

	out(lines);
	verdict_finish(&v, false, 0);
	ck_assert_uint_eq(v.nproblems, 0);
	ck_assert_uint_eq(v.passed, 2);
}
END_TEST

START_TEST(duplicate_numbers_fail)
{
	static const char *const lines[] = {
		"# run: t/a", "1..3", "ok 1 x", "ok 1 x", "ok 1 x", "# exit: t/a 0",
		"guest-exit: 0", NULL,
	};

	one_problem(lines, "t/a: results are not numbered 1..3 in order");
}
END_TEST

START_TEST(unnumbered_results_fail)
{
	static const char *const lines[] = {
		"# run: t/a", "1..2", "ok - x", "ok - y", "# exit: t/a 0",
		"guest-exit: 0", NULL,
	};

	one_problem(lines, "t/a: results are not numbered 1..2 in order");
}
END_TEST

START_TEST(runner_timeout_is_named)
{
	static const char *const lines[] = {
		"# run: t/h", "1..3", "ok 1 x", "# exit: t/h 124", "guest-exit: 0", NULL,
	};

	one_problem(lines, "t/h: timed out (killed by the runner after 1 results)");
}
END_TEST

START_TEST(missing_program_fails)
{
	static const char *const lines[] = {
		"# run: t/a", "1..1", "ok 1 x", "# exit: t/a 0", "guest-exit: 0", NULL,
	};

	ck_assert_int_eq(verdict_expect(&v, "t/a"), 0);
	ck_assert_int_eq(verdict_expect(&v, "t/utprobes"), 0);
	one_problem(lines, "t/utprobes: never ran (missing from the image?)");
}
END_TEST

/* Each kind of kernel report the console scan must catch. */
static const char *const bad_console[] = {
	"[  9.1] BUG: unable to handle page fault for address: 0000000000000008",
	"[  9.1] BUG: KASAN: slab-use-after-free in utp_trap+0x1/0x2",
	"[  9.1] ==================================================================",
	"[  9.1] kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)",
	"[  9.1] unreferenced object 0xffff888003f1c000 (size 64):",
	"[  9.1] sh invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0",
	"[  9.1] Out of memory: Killed process 97 (hog) total-vm:1048576kB",
	"[  9.1] INFO: task t:88 blocked for more than 2 seconds.",
	"[  9.1] watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [spin:90]",
	"[  9.1] Watchdog detected hard LOCKUP on cpu 1",
	"[  9.1] rcu: INFO: rcu_sched self-detected stall on CPU",
	"[  9.1] utrace_test: held callback never released",
};

START_TEST(console_reports_fail)
{
	const char *line = bad_console[_i];

	verdict_console_line(&v, line);
	if (strstr(line, "=====")) {
		/* KASAN's rule line alone is not a report */
		ck_assert_uint_eq(v.nproblems, 0);
		return;
	}
	ck_assert_uint_eq(v.nproblems, 1);
	ck_assert(has_problem(line + 8));
}
END_TEST

START_TEST(benign_console_lines_pass)
{
	static const char *const lines[] = {
		"[  0.1] kmemleak: Kernel memory leak detector initialized (mem pool available: 15860)",
		"[  0.1] kmemleak: Automatic memory scanning thread started",
		"[  0.2] kasan: KernelAddressSanitizer initialized (generic)",
		"[  0.3] Run /init as init process",
	};

	for (unsigned int i = 0; i < 4; i++)
		verdict_console_line(&v, lines[i]);
	ck_assert_uint_eq(v.nproblems, 0);
}
END_TEST

static void add_tests(TCase *tc)
{
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
	tcase_add_test(tc, all_skip_fails);
	tcase_add_test(tc, empty_plan_fails);
	tcase_add_test(tc, planless_fails);
	tcase_add_test(tc, plan_at_end_is_fine);
	tcase_add_test(tc, duplicate_numbers_fail);
	tcase_add_test(tc, unnumbered_results_fail);
	tcase_add_test(tc, runner_timeout_is_named);
	tcase_add_test(tc, missing_program_fails);
	tcase_add_loop_test(tc, console_reports_fail, 0,
			    sizeof(bad_console) / sizeof(bad_console[0]));
	tcase_add_test(tc, benign_console_lines_pass);
	tcase_add_test(tc, slowest_programs_listed);
}

int main(void)
{
	return check_run("verdict", add_tests) ? EXIT_FAILURE : EXIT_SUCCESS;
}
