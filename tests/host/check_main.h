/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the host Check tests share: running one suite of one test case
 * and counting its failures, and keeping libdwfl's debug file lookups
 * among the fixtures.
 */
#ifndef CHECK_MAIN_H
#define CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

/*
 * Run the tests @add_tests adds to a case named @name; the number of
 * those that failed.
 */
static inline int check_run(const char *name, void (*add_tests)(TCase *tc))
{
	Suite *s = suite_create(name);
	TCase *tc = tcase_create(name);
	SRunner *sr;
	int failed;

	add_tests(tc);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed;
}

/*
 * Separate debug files are looked for in @path (libdwfl's debuginfo
 * path: ":" for next to the binary), never on a debuginfod server or in
 * its cache under $HOME.
 */
static inline void check_debuginfo_path(const char *path)
{
	setenv("UPROBE_CLI_DEBUGINFO_PATH", path, 1);
	unsetenv("DEBUGINFOD_URLS");
}

#endif /* CHECK_MAIN_H */
