// SPDX-License-Identifier: GPL-2.0
/*
 * Return probes' log2 histograms: parsed from utprobe_returns, their
 * percentiles estimated, and printed for a person.  Kept apart from the
 * commands so that the arithmetic can be tested without a kernel.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

/* The width of the longest bar. */
#define BAR_MAX	40

/* A decimal number from @s to @end exactly; 0, or -EINVAL. */
static int parse_num(const char *s, const char *end, unsigned long long *v)
{
	char *e;

	if (s == end || !isdigit((unsigned char)*s))
		return -EINVAL;
	*v = strtoull(s, &e, 10);
	return e == end ? 0 : -EINVAL;
}

/*
 * "B:COUNT,B:COUNT,..." (empty before any return) from @s to @end; 0,
 * or -EINVAL.
 */
static int parse_hist(const char *s, const char *end, struct up_returns *r)
{
	if (s == end)
		return 0;
	for (;;) {
		const char *colon = memchr(s, ':', end - s);
		const char *comma = memchr(s, ',', end - s);
		unsigned long long b, count;

		if (!comma)
			comma = end;
		if (!colon || colon > comma || parse_num(s, colon, &b) ||
		    parse_num(colon + 1, comma, &count) ||
		    b >= UP_HIST_BUCKETS)
			return -EINVAL;
		r->hist[b] = count;
		if (comma == end)
			return 0;
		s = comma + 1;
	}
}

int up_returns_parse(const char *line, char *name, size_t namelen,
		     struct up_returns *r)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "returns", offsetof(struct up_returns, returns) },
		{ "unwound", offsetof(struct up_returns, unwound) },
		{ "missed", offsetof(struct up_returns, missed) },
		{ "min_ns", offsetof(struct up_returns, min_ns) },
		{ "max_ns", offsetof(struct up_returns, max_ns) },
		{ "sum_ns", offsetof(struct up_returns, sum_ns) },
	};
	const char *s = strchr(line, ' '), *end;
	int have_returns = 0;

	memset(r, 0, sizeof(*r));
	if (!s || s == line || (size_t)(s - line) >= namelen)
		return -EINVAL;
	snprintf(name, namelen, "%.*s", (int)(s - line), line);
	for (; *s; s = end) {
		const char *eq, *val;
		unsigned long long v;
		size_t klen, k;

		s += strspn(s, " \n");
		end = s + strcspn(s, " \n");
		if (s == end)
			break;
		eq = memchr(s, '=', end - s);
		if (!eq)
			return -EINVAL;
		klen = eq - s;
		val = eq + 1;
		if (klen == 4 && !strncmp(s, "hist", 4)) {
			if (parse_hist(val, end, r))
				return -EINVAL;
		} else if (klen == 7 && !strncmp(s, "pending", 7)) {
			/* a sum over CPUs, signed in the kernel */
			int neg = *val == '-';

			if (parse_num(val + neg, end, &v))
				return -EINVAL;
			r->pending = neg ? -(long long)v : (long long)v;
		} else {
			for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
				if (strlen(keys[k].key) == klen &&
				    !strncmp(s, keys[k].key, klen))
					break;
			if (k == sizeof(keys) / sizeof(keys[0]))
				continue;
			if (parse_num(val, end, &v))
				return -EINVAL;
			*(unsigned long long *)((char *)r + keys[k].off) = v;
			have_returns |= k == 0;
		}
	}
	return have_returns ? 0 : -EINVAL;
}

void up_bucket_range(int b, unsigned long long *lo, unsigned long long *hi)
{
	*lo = b ? 1ULL << (b - 1) : 0;
	*hi = b < 64 ? 1ULL << b : ULLONG_MAX;
}

unsigned long long up_percentile(const struct up_returns *r, int pct)
{
	unsigned long long total = 0, rank, seen = 0, lo, hi;

	for (int b = 0; b < UP_HIST_BUCKETS; b++)
		total += r->hist[b];
	if (!total)
		return 0;
	/* the rank of the percentile among the durations, from 1 */
	rank = (total / 100) * pct + ((total % 100) * pct + 99) / 100;
	if (!rank)
		rank = 1;
	for (int b = 0; b < UP_HIST_BUCKETS; b++) {
		seen += r->hist[b];
		if (seen < rank)
			continue;
		up_bucket_range(b, &lo, &hi);
		/* the bucket's end may lie beyond every duration seen */
		if (hi > r->max_ns)
			hi = r->max_ns;
		return hi < r->min_ns ? r->min_ns : hi;
	}
	return r->max_ns;
}

/* @n / @d, rounded half up; @d is even. */
static unsigned long long round_div(unsigned long long n, unsigned long long d)
{
	return n / d + (n % d >= d / 2);
}

char *up_human_ns(char *buf, size_t len, unsigned long long ns)
{
	static const char *const units[] = { "us", "ms", "s" };
	unsigned long long scale = 1000, v;
	int u = 0;

	if (ns < 1000) {
		snprintf(buf, len, "%lluns", ns);
		return buf;
	}
	while (u < 2 && ns / scale >= 1000) {
		scale *= 1000;
		u++;
	}
	/*
	 * Three significant digits; a value that rounds up to 1000 of a
	 * unit is 1.00 of the next (999.6us is 1.00ms).
	 */
	for (;;) {
		v = round_div(ns, scale / 100);
		if (v < 1000) {
			snprintf(buf, len, "%llu.%02llu%s", v / 100, v % 100,
				 units[u]);
			return buf;
		}
		v = round_div(ns, scale / 10);
		if (v < 1000) {
			snprintf(buf, len, "%llu.%llu%s", v / 10, v % 10,
				 units[u]);
			return buf;
		}
		v = round_div(ns, scale);
		if (v < 1000 || u == 2) {
			snprintf(buf, len, "%llu%s", v, units[u]);
			return buf;
		}
		scale *= 1000;
		u++;
	}
}

void up_latency_table(FILE *f, const char *function, long long calls,
		      const struct up_returns *r)
{
	char min[32] = "-", p50[32] = "-", p99[32] = "-", max[32] = "-";
	char range[80], bar[BAR_MAX + 1], lo_s[32], hi_s[32];
	unsigned long long most = 0, lo, hi;

	for (int b = 0; b < UP_HIST_BUCKETS; b++)
		if (r->hist[b] > most)
			most = r->hist[b];
	if (most) {
		up_human_ns(min, sizeof(min), r->min_ns);
		up_human_ns(p50, sizeof(p50), up_percentile(r, 50));
		up_human_ns(p99, sizeof(p99), up_percentile(r, 99));
		up_human_ns(max, sizeof(max), r->max_ns);
	}
	fprintf(f, "%s  calls %lld  returns %llu", function, calls, r->returns);
	/* only when some calls did not return */
	if (r->unwound || r->missed)
		fprintf(f, "  unwound %llu  missed %llu", r->unwound, r->missed);
	fprintf(f, "  min %s  p50 %s  p99 %s  max %s\n", min, p50, p99, max);
	for (int b = 0; b < UP_HIST_BUCKETS; b++) {
		int len;

		if (!r->hist[b])
			continue;
		up_bucket_range(b, &lo, &hi);
		snprintf(range, sizeof(range), "[%s, %s)",
			 up_human_ns(lo_s, sizeof(lo_s), lo),
			 up_human_ns(hi_s, sizeof(hi_s), hi));
		/* rounded, but a bucket that has calls shows at least one */
		len = (double)r->hist[b] * BAR_MAX / most + 0.5;
		if (!len)
			len = 1;
		memset(bar, '#', len);
		bar[len] = '\0';
		fprintf(f, "%-20s %10llu |%-*s|\n", range, r->hist[b], BAR_MAX,
			bar);
	}
}
