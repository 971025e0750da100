// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe-cli's arithmetic on return probes' histograms: utprobe_returns
 * lines parsed, bucket ranges, the percentiles estimated from the log2
 * buckets, durations written for a person, and the latency table, to
 * the byte.
 */
#define _GNU_SOURCE
#include "check_main.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

START_TEST(parse_a_line)
{
	struct up_returns r;
	char name[64];

	ck_assert_int_eq(up_returns_parse("lat12_0_f_return returns=7 unwound=2 missed=1 pending=3 min_ns=40 max_ns=5000 sum_ns=9000 hist=6:2,7:1,13:4\n",
					  name, sizeof(name), &r), 0);
	ck_assert_str_eq(name, "lat12_0_f_return");
	ck_assert_uint_eq(r.returns, 7);
	ck_assert_uint_eq(r.unwound, 2);
	ck_assert_uint_eq(r.missed, 1);
	ck_assert_int_eq(r.pending, 3);
	ck_assert_uint_eq(r.min_ns, 40);
	ck_assert_uint_eq(r.max_ns, 5000);
	ck_assert_uint_eq(r.sum_ns, 9000);
	for (int b = 0; b < UP_HIST_BUCKETS; b++)
		ck_assert_uint_eq(r.hist[b], b == 6 ? 2 : b == 7 ? 1 :
					     b == 13 ? 4 : 0);
}
END_TEST

START_TEST(parse_empty_and_odd_lines)
{
	struct up_returns r;
	char name[64];

	/* no returns yet: an empty hist= */
	ck_assert_int_eq(up_returns_parse("f returns=0 unwound=0 missed=0 pending=1 min_ns=0 max_ns=0 sum_ns=0 hist=\n",
					  name, sizeof(name), &r), 0);
	ck_assert_uint_eq(r.returns, 0);
	ck_assert_int_eq(r.pending, 1);
	for (int b = 0; b < UP_HIST_BUCKETS; b++)
		ck_assert_uint_eq(r.hist[b], 0);
	/* a key a later kernel adds is passed over; both ends of hist */
	ck_assert_int_eq(up_returns_parse("f returns=3 later=9 pending=-1 hist=0:1,64:2",
					  name, sizeof(name), &r), 0);
	ck_assert_uint_eq(r.returns, 3);
	ck_assert_int_eq(r.pending, -1);
	ck_assert_uint_eq(r.hist[0], 1);
	ck_assert_uint_eq(r.hist[64], 2);
}
END_TEST

static const char *const bad_lines[] = {
	"",					/* no name */
	"f",					/* nothing but a name */
	" returns=1",				/* no name */
	"f returns=1 hist=65:1",		/* no bucket 65 */
	"f returns=1 hist=3",			/* no count */
	"f returns=1 hist=3:1,",		/* a trailing comma */
	"f returns=x1",				/* not a number */
	"f returns=-1",
	"f returns=1 min_ns",			/* no value */
	"f unwound=1 hist=",			/* no returns= */
	"a_name_longer_than_the_buffer_given returns=1",
};

START_TEST(parse_refuses)
{
	struct up_returns r;
	char name[16];

	ck_assert_int_eq(up_returns_parse(bad_lines[_i], name, sizeof(name),
					  &r), -EINVAL);
}
END_TEST

START_TEST(bucket_ranges)
{
	unsigned long long lo, hi;

	up_bucket_range(0, &lo, &hi);
	ck_assert_uint_eq(lo, 0);
	ck_assert_uint_eq(hi, 1);
	up_bucket_range(1, &lo, &hi);
	ck_assert_uint_eq(lo, 1);
	ck_assert_uint_eq(hi, 2);
	up_bucket_range(11, &lo, &hi);
	ck_assert_uint_eq(lo, 1024);
	ck_assert_uint_eq(hi, 2048);
	up_bucket_range(63, &lo, &hi);
	ck_assert_uint_eq(lo, 1ULL << 62);
	ck_assert_uint_eq(hi, 1ULL << 63);
	up_bucket_range(64, &lo, &hi);
	ck_assert_uint_eq(lo, 1ULL << 63);
	ck_assert_uint_eq(hi, ULLONG_MAX);
}
END_TEST

START_TEST(percentiles)
{
	struct up_returns r = { .min_ns = 40, .max_ns = 5000 };

	/* empty */
	ck_assert_uint_eq(up_percentile(&r, 50), 0);
	/* 2 in [32, 64), 1 in [64, 128), 4 in [4096, 8192): 7 in all */
	r.hist[6] = 2;
	r.hist[7] = 1;
	r.hist[13] = 4;
	/* rank 4 is in the last bucket, whose end is clamped to max */
	ck_assert_uint_eq(up_percentile(&r, 50), 5000);
	/* rank ceil(0.4 * 7) = 3: [64, 128) */
	ck_assert_uint_eq(up_percentile(&r, 40), 128);
	/* rank 2: [32, 64) */
	ck_assert_uint_eq(up_percentile(&r, 20), 64);
	ck_assert_uint_eq(up_percentile(&r, 99), 5000);
	ck_assert_uint_eq(up_percentile(&r, 100), 5000);
	/* rank 1 (not 0) for a small percentile */
	ck_assert_uint_eq(up_percentile(&r, 1), 64);

	/* 99 fast calls and one slow: p99 is among the fast */
	memset(r.hist, 0, sizeof(r.hist));
	r.min_ns = 20;
	r.max_ns = 1000000;
	r.hist[5] = 99;
	r.hist[20] = 1;
	ck_assert_uint_eq(up_percentile(&r, 50), 32);
	ck_assert_uint_eq(up_percentile(&r, 99), 32);
	ck_assert_uint_eq(up_percentile(&r, 100), 1000000);
	/* two slow ones: rank 99 is the first of them */
	r.hist[5] = 98;
	r.hist[20] = 2;
	ck_assert_uint_eq(up_percentile(&r, 99), 1000000);

	/* clamped: every call took 0 ns, or all were in one bucket */
	memset(r.hist, 0, sizeof(r.hist));
	r.min_ns = r.max_ns = 0;
	r.hist[0] = 5;
	ck_assert_uint_eq(up_percentile(&r, 50), 0);
	memset(r.hist, 0, sizeof(r.hist));
	r.min_ns = 300;
	r.max_ns = 400;
	r.hist[9] = 5;
	ck_assert_uint_eq(up_percentile(&r, 50), 400);
	/* a minimum above the bucket (read while calls returned) wins */
	r.min_ns = r.max_ns = 600;
	ck_assert_uint_eq(up_percentile(&r, 50), 600);

	/* counts too large to multiply by 100 */
	memset(r.hist, 0, sizeof(r.hist));
	r.min_ns = 1;
	r.max_ns = 1ULL << 40;
	r.hist[3] = ULLONG_MAX / 4;
	r.hist[30] = ULLONG_MAX / 4;
	ck_assert_uint_eq(up_percentile(&r, 50), 8);
	ck_assert_uint_eq(up_percentile(&r, 51), 1ULL << 30);
}
END_TEST

static const struct {
	unsigned long long ns;
	const char *text;
} human[] = {
	{ 0, "0ns" },
	{ 1, "1ns" },
	{ 999, "999ns" },
	{ 1000, "1.00us" },
	{ 1004, "1.00us" },
	{ 1005, "1.01us" },		/* half up */
	{ 1024, "1.02us" },
	{ 2048, "2.05us" },
	{ 9994, "9.99us" },
	{ 9995, "10.0us" },
	{ 16384, "16.4us" },
	{ 99949, "99.9us" },
	{ 99950, "100us" },
	{ 131072, "131us" },
	{ 999499, "999us" },
	{ 999500, "1.00ms" },		/* not 1000us */
	{ 1048576, "1.05ms" },
	{ 33554432, "33.6ms" },
	{ 999500000, "1.00s" },
	{ 1073741824, "1.07s" },
	{ 3600000000000ULL, "3600s" },	/* no unit above s */
	{ ULLONG_MAX, "18446744074s" },
};

START_TEST(human_durations)
{
	char buf[32];

	ck_assert_str_eq(up_human_ns(buf, sizeof(buf), human[_i].ns),
			 human[_i].text);
}
END_TEST

/* up_latency_table()'s output for @r. */
static const char *table(const char *function, long long calls,
			 const struct up_returns *r)
{
	static char *buf;
	size_t len;
	FILE *f;

	free(buf);
	f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	up_latency_table(f, function, calls, r);
	fclose(f);
	return buf;
}

START_TEST(latency_table)
{
	struct up_returns r = {
		.returns = 81, .min_ns = 40, .max_ns = 2000, .sum_ns = 5000,
	};

	r.hist[6] = 80;		/* [32ns, 64ns) */
	r.hist[11] = 1;		/* [1.02us, 2.05us): the shortest bar */
	ck_assert_str_eq(table("prog:f", 81, &r),
		"prog:f  calls 81  returns 81  min 40ns  p50 64ns  p99 2.00us  max 2.00us\n"
		"[32ns, 64ns)                 80 |########################################|\n"
		"[1.02us, 2.05us)              1 |#                                       |\n");
	r.hist[6] = 2;
	r.hist[7] = 1;		/* half the longest: 20 */
	r.hist[11] = 0;
	r.hist[23] = 3;		/* [4.19ms, 8.39ms) */
	r.returns = 6;
	r.unwound = 1;
	r.max_ns = 5000000;
	ck_assert_str_eq(table("prog:f", 8, &r),
		"prog:f  calls 8  returns 6  unwound 1  missed 0  min 40ns  p50 128ns  p99 5.00ms  max 5.00ms\n"
		"[32ns, 64ns)                  2 |###########################             |\n"
		"[64ns, 128ns)                 1 |#############                           |\n"
		"[4.19ms, 8.39ms)              3 |########################################|\n");
}
END_TEST

START_TEST(latency_table_without_returns)
{
	struct up_returns r = { .missed = 2 };

	ck_assert_str_eq(table("libc.so.6:malloc", 2, &r),
		"libc.so.6:malloc  calls 2  returns 0  unwound 0  missed 2  min -  p50 -  p99 -  max -\n");
	r.missed = 0;
	ck_assert_str_eq(table("prog:f", 0, &r),
		"prog:f  calls 0  returns 0  min -  p50 -  p99 -  max -\n");
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_test(tc, parse_a_line);
	tcase_add_test(tc, parse_empty_and_odd_lines);
	tcase_add_loop_test(tc, parse_refuses, 0,
			    sizeof(bad_lines) / sizeof(bad_lines[0]));
	tcase_add_test(tc, bucket_ranges);
	tcase_add_test(tc, percentiles);
	tcase_add_loop_test(tc, human_durations, 0,
			    sizeof(human) / sizeof(human[0]));
	tcase_add_test(tc, latency_table);
	tcase_add_test(tc, latency_table_without_returns);
}

int main(void)
{
	return check_run("hist", add_tests) ? 1 : 0;
}
