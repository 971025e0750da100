/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Metrics of probes for collectors such as Prometheus: each probe's hits
 * as a counter, each return probe's call durations as a histogram.
 */
#ifndef UPROBE_CLI_METRICS_H
#define UPROBE_CLI_METRICS_H

#include <stdio.h>

#include "listing.h"

/*
 * How metrics are written: OpenMetrics 1.0 (ends in "# EOF"), or the
 * Prometheus text format 0.0.4, which node_exporter's textfile
 * collector and promtool read.
 */
enum metrics_syntax {
	METRICS_OPENMETRICS,
	METRICS_TEXT,
};

/*
 * The histogram's buckets: durations below 2^B ns for B up to this,
 * about 18 minutes, then +Inf.
 */
#define METRICS_LAST_BUCKET	40

/* @s as a label value, quoted and escaped, to @f. */
void metrics_label(FILE *f, const char *s);

/*
 * The metrics of the probes @l[0..@n) to @f in @syntax: the counter
 * uprobe_hits_total (calls, for a return probe) with the labels probe,
 * target and function, and for the return probes the histogram
 * uprobe_call_duration_seconds of the calls that returned (from
 * utprobe_returns), with the labels probe and function.
 */
void metrics_write(FILE *f, enum metrics_syntax syntax,
		   const struct listed *l, int n);

#endif /* UPROBE_CLI_METRICS_H */
