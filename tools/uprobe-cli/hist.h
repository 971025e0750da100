/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Return probes' counts and log2 histograms of call durations, as the
 * kernel lists them in utprobe_returns, and how uprobe-cli prints them.
 */
#ifndef UPROBE_CLI_HIST_H
#define UPROBE_CLI_HIST_H

#include <stddef.h>
#include <stdio.h>

/* Bucket b counts durations d with fls64(d) == b: 0 to 64. */
#define UP_HIST_BUCKETS	65

/* One line of utprobe_returns. */
struct up_returns {
	unsigned long long returns;	/* returns seen */
	unsigned long long unwound;	/* calls left by longjmp() and the like */
	unsigned long long missed;	/* calls not followed */
	long long pending;		/* calls under way */
	unsigned long long min_ns;	/* 0 if there were no returns */
	unsigned long long max_ns;
	unsigned long long sum_ns;
	unsigned long long hist[UP_HIST_BUCKETS];
};

/*
 * Parse @line, "NAME returns=N unwound=N missed=N pending=N min_ns=N
 * max_ns=N sum_ns=N hist=B:COUNT,...": the name into @name, the rest
 * into @r.  Keys it does not know are skipped, for a kernel that adds
 * some.  0, or -EINVAL if the line is not of that form.
 */
int up_returns_parse(const char *line, char *name, size_t namelen,
		     struct up_returns *r);

/*
 * The durations bucket @b holds: [*@lo, *@hi) nanoseconds.  The last
 * one's end, 2^64, does not fit: it is given as 2^64 - 1.
 */
void up_bucket_range(int b, unsigned long long *lo, unsigned long long *hi);

/*
 * The @pct-th percentile (1 to 100) of the durations in @r's histogram,
 * in nanoseconds: the upper end of the bucket that holds it, clamped to
 * [min_ns, max_ns]; 0 if the histogram is empty.
 */
unsigned long long up_percentile(const struct up_returns *r, int pct);

/*
 * @ns for a person: "512ns", then three significant digits in us, ms
 * or s ("1.02us", "16.4ms", "131s").  Returns @buf.
 */
char *up_human_ns(char *buf, size_t len, unsigned long long ns);

/*
 * The latency table: a line with @function, @calls and @r's returns,
 * minimum, p50, p99 and maximum (and the unwound and missed calls, if
 * any), then a line per non-empty bucket: its range, its count and a
 * bar of '#' as long as the count is large (40 for the largest).
 */
void up_latency_table(FILE *f, const char *function, long long calls,
		      const struct up_returns *r);

#endif /* UPROBE_CLI_HIST_H */
