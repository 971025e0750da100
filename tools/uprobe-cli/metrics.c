// SPDX-License-Identifier: GPL-2.0
/*
 * Metrics of probes.  The two syntaxes differ in how a counter's family
 * is named (OpenMetrics: "uprobe_hits", its sample "uprobe_hits_total";
 * the text format: the sample's name), in UNIT lines, and in the "# EOF"
 * that ends OpenMetrics.  The kernel's histogram of a return probe has
 * log2 buckets, bucket B the calls of [2^(B-1), 2^B) ns: its cumulative
 * counts are the Prometheus buckets le=2^B ns.
 */
#include <stdio.h>
#include <string.h>

#include "metrics.h"

void metrics_label(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* The metadata of family @name, of @type and @unit ("" if none). */
static void family(FILE *f, enum metrics_syntax syntax, const char *name,
		   const char *type, const char *unit, const char *help)
{
	if (syntax == METRICS_OPENMETRICS) {
		fprintf(f, "# TYPE %s %s\n", name, type);
		if (*unit)
			fprintf(f, "# UNIT %s %s\n", name, unit);
		fprintf(f, "# HELP %s %s\n", name, help);
		return;
	}
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* {probe="...",function="..."} of @e, @more labels inside the braces */
static void labels(FILE *f, const struct listed *e, bool target,
		   const char *more)
{
	fputs("{probe=", f);
	metrics_label(f, e->name);
	if (target) {
		fputs(",target=", f);
		metrics_label(f, e->target);
	}
	fputs(",function=", f);
	metrics_label(f, e->function);
	fprintf(f, "%s}", more);
}

/* The histogram of return probe @e's durations */
static void durations(FILE *f, const struct listed *e)
{
	unsigned long long sum = 0;
	unsigned long long all = 0;
	struct up_returns r;
	char le[48];

	kernel_returns(e->name, &r);
	/*
	 * +Inf and the count are the buckets' sum, not the returns the
	 * kernel counted apart from them: a return counted between the
	 * two reads would make a bucket exceed +Inf.
	 */
	for (int b = 0; b < UP_HIST_BUCKETS; b++)
		all += r.hist[b];
	for (int b = 0; b <= METRICS_LAST_BUCKET; b++) {
		sum += r.hist[b];
		/* 2^B ns in seconds, exactly: 13 digits at most */
		snprintf(le, sizeof(le), ",le=\"%.13g\"",
			 (double)(1ULL << b) / 1e9);
		fputs("uprobe_call_duration_seconds_bucket", f);
		labels(f, e, false, le);
		fprintf(f, " %llu\n", sum);
	}
	fputs("uprobe_call_duration_seconds_bucket", f);
	labels(f, e, false, ",le=\"+Inf\"");
	fprintf(f, " %llu\n", all);
	fputs("uprobe_call_duration_seconds_count", f);
	labels(f, e, false, "");
	fprintf(f, " %llu\n", all);
	fputs("uprobe_call_duration_seconds_sum", f);
	labels(f, e, false, "");
	fprintf(f, " %llu.%09llu\n", r.sum_ns / 1000000000ULL,
		r.sum_ns % 1000000000ULL);
}

void metrics_write(FILE *f, enum metrics_syntax syntax,
		   const struct listed *l, int n)
{
	bool any_ret = false;

	family(f, syntax, syntax == METRICS_OPENMETRICS ? "uprobe_hits" :
	       "uprobe_hits_total", "counter", "",
	       "Times a utprobe was hit (calls, for a return probe).");
	for (int i = 0; i < n; i++) {
		fputs("uprobe_hits_total", f);
		labels(f, &l[i], true, "");
		fprintf(f, " %llu\n", l[i].hits);
		any_ret |= l[i].ret;
	}
	if (any_ret)
		family(f, syntax, "uprobe_call_duration_seconds", "histogram",
		       "seconds",
		       "Durations of the calls that returned, of functions probed for their returns.");
	for (int i = 0; i < n; i++)
		if (l[i].ret)
			durations(f, &l[i]);
	if (syntax == METRICS_OPENMETRICS)
		fputs("# EOF\n", f);
}
