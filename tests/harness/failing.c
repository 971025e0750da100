// SPDX-License-Identifier: GPL-2.0
/* A test that fails on purpose: "make check-harness" expects 1 failure. */
#include "kselftest_harness.h"

TEST(passes)
{
	EXPECT_EQ(1, 1);
}

TEST(fails_on_purpose)
{
	EXPECT_EQ(1, 2);
}

TEST_HARNESS_MAIN
