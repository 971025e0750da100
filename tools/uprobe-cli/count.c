// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe-cli count and latency: a command run under probes that count
 * its calls, or time them with return probes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "json_writer.h"
#include "metrics.h"
#include "stack.h"
#include "values.h"

/* An OpenMetrics sample of @metric for the function of @p. */
static void function_sample(const char *metric, const struct up_place *p,
			    long long value)
{
	printf("%s{binary=", metric);
	metrics_label(stdout, p->path);
	printf(",function=");
	metrics_label(stdout, p->inline_of ? p->inline_of : p->symbol);
	if (p->inline_of) {
		printf(",inlined_in=");
		metrics_label(stdout, p->symbol);
	}
	printf(",offset=\"%lu\"} %lld\n", p->sym_off, value);
}

/*
 * count's probes @ps[0..@n) on @cmd as JSON; 0, or -ENOMEM after a
 * message.
 */
static int print_count_json(const struct probe *ps, int n, const char *cmd)
{
	json_writer_t *w = json_new();

	if (!w)
		return -ENOMEM;
	jsonw_start_object(w);
	json_string_field(w, "command", cmd);
	jsonw_name(w, "probes");
	jsonw_start_array(w);
	for (int i = 0; i < n; i++) {
		const struct up_place *p = &ps[i].place;

		jsonw_start_object(w);
		json_string_field(w, "binary", p->path);
		json_string_field(w, "function",
				  p->inline_of ? p->inline_of : p->symbol);
		if (p->inline_of)
			json_string_field(w, "inlined_in", p->symbol);
		jsonw_uint_field(w, "offset", p->sym_off);
		jsonw_uint_field(w, "file_offset", p->offset);
		jsonw_int_field(w, "hits", ps[i].hits);
		if (ps[i].ret)
			jsonw_lluint_field(w, "returns", ps[i].rets.returns);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_end_object(w);
	jsonw_destroy(&w);
	return 0;
}

/*
 * count's results, @n probes @ps, as a table (with a RETURNS column if
 * @any_ret) or in OpenMetrics.
 */
/* The rows of a count table: most hits first, then in the order given. */
static int count_row_cmp(const void *a, const void *b)
{
	const struct probe *x = *(const struct probe *const *)a;
	const struct probe *y = *(const struct probe *const *)b;

	if (x->hits != y->hits)
		return x->hits > y->hits ? -1 : 1;
	return (x > y) - (x < y);
}

/*
 * The probes of @ps[0..@n) a count table shows, into @rows: by hits,
 * those never hit left out unless @all, the first @top if @top.  How
 * many; *@unhit says how many were left out for no hits.
 */
static int count_rows(const struct probe *ps, int n, bool all, int top,
		      const struct probe **rows, int *unhit)
{
	int k = 0;

	*unhit = 0;
	for (int i = 0; i < n; i++) {
		if (!ps[i].hits && !all)
			(*unhit)++;
		else
			rows[k++] = &ps[i];
	}
	qsort(rows, k, sizeof(*rows), count_row_cmp);
	return top && top < k ? top : k;
}

static void print_count(const struct probe *ps, int n, enum format fmt,
			bool any_ret, bool all, int top)
{
	char where[PATH_MAX + 280], rets[32];
	const struct probe **rows = NULL;
	int unhit = 0;

	if (fmt == OPENMETRICS) {
		printf("# TYPE uprobe_hits counter\n"
		       "# HELP uprobe_hits Times a utprobe was hit.\n");
	} else if (any_ret) {
		printf("%14s  %14s  %s\n", "CALLS", "RETURNS", "FUNCTION");
	} else {
		printf("%14s  %s\n", "HITS", "FUNCTION");
	}
	if (fmt != OPENMETRICS) {
		rows = malloc((n + 1) * sizeof(*rows));
		if (!rows) {
			print_error(-ENOMEM, "out of memory");
			return;
		}
		n = count_rows(ps, n, all, top, rows, &unhit);
	}
	for (int i = 0; i < n; i++) {
		const struct probe *pr = rows ? rows[i] : &ps[i];
		const struct up_place *p = &pr->place;

		if (fmt == OPENMETRICS) {
			function_sample("uprobe_hits_total", p, pr->hits);
		} else if (any_ret) {
			function_name(where, sizeof(where), p);
			snprintf(rets, sizeof(rets), "%llu", pr->rets.returns);
			printf("%14lld  %14s  %s%s\n", pr->hits,
			       pr->ret ? rets : "-", where,
			       pr->ret ? "%return" : "");
		} else {
			function_name(where, sizeof(where), p);
			printf("%14lld  %s\n", pr->hits, where);
		}
	}
	free(rows);
	if (unhit)
		fprintf(stderr, "uprobe-cli: %d of the probes were not hit (--all lists them)\n",
			unhit);
	if (fmt == OPENMETRICS) {
		/* a family's samples go together, after the hits' */
		if (any_ret)
			printf("# TYPE uprobe_returns counter\n"
			       "# HELP uprobe_returns Times a function with a utprobe return probe returned.\n");
		for (int i = 0; i < n; i++)
			if (ps[i].ret)
				function_sample("uprobe_returns_total",
						&ps[i].place, ps[i].rets.returns);
		printf("# EOF\n");
	}
}

/*
 * count: run CMD with the probes limited to its process tree, then
 * print how often each was hit, and for return probes how often their
 * function returned.
 */
int cmd_count(int argc, char **argv)
{
	static const struct option opts[] = {
		FORMAT_LONGOPTS,
		{ "event", required_argument, NULL, 'e' },
		{ "by", required_argument, NULL, 'b' },
		{ "top", required_argument, NULL, 't' },
		{ "size", required_argument, NULL, 's' },
		{ "trap", no_argument, NULL, 'T' },
		{ "all", no_argument, NULL, 'a' },
		{ "no-inline", no_argument, NULL, 'I' },
		{ "filter", required_argument, NULL, 'F' },
		{ "folded", no_argument, NULL, 'o' },
		{ "svg", required_argument, NULL, 'g' },
		{ "stack-size", required_argument, NULL, 'k' },
		{ "fp", no_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	struct probe *ps = NULL;
	int c, n = 0, ret = 0, status = 0, nspecs = 0, top = 0, size = 0;
	bool stack_opt = false, size_given = false;
	const char **specs = calloc(argc, sizeof(*specs));
	const char *by = NULL;
	char *filter = NULL;
	bool any_ret, all = false;
	enum format fmt;

	if (!specs)
		return run_error("out of memory");
	jump_ok = true;
	while (!ret &&
	       (c = getopt_long(argc, argv, "+e:jf:", opts, NULL)) != -1) {
		if (c == 'e') {
			specs[nspecs++] = optarg;
		} else if (c == 'T') {
			jump_ok = false;
		} else if (c == 'a') {
			all = true;
		} else if (c == 'I') {
			up_no_inline = true;
		} else if (c == 'F') {
			filter_expr = optarg;
		} else if (c == 'j' || c == 'f') {
			if (format_option(c, optarg))
				ret = EXIT_USAGE;
		} else if (c == 'b') {
			by = optarg;
		} else if (c == 't') {
			top = parse_pos("--top", optarg);
			if (!top)
				ret = EXIT_USAGE;
		} else if (c == 's') {
			size = by_size(optarg);
			if (!size)
				ret = EXIT_USAGE;
		} else if (c == 'o') {
			stack_folded = stack_opt = true;
		} else if (c == 'g') {
			stack_svg = optarg;
			stack_opt = true;
		} else if (c == 'k') {
			long v = parse_pos("--stack-size", optarg);

			stack_opt = true;
			if (v > STACK_BYTES_MAX)
				ret = usage_error("count: --stack-size %ld is more than the kernel copies, %d",
						  v, STACK_BYTES_MAX);
			else if (!v)
				ret = EXIT_USAGE;
			stack_bytes = v;
			size_given = true;
		} else if (c == 'P') {
			stack_fp = stack_opt = true;
		} else {
			ret = EXIT_USAGE;
		}
	}
	if (ret) {
		free(specs);
		return ret;
	}
	fmt = out_fmt;
	if (!nspecs)
		ret = usage_error("count: no probe given (-e SPEC)");
	else if (optind >= argc)
		ret = usage_error("count: no command given (-- CMD [ARGS])");
	else if (by && (nspecs != 1 || fmt == OPENMETRICS))
		ret = usage_error("count --by: one probe (-e SPEC), as a table or JSON");
	else if (size && !by)
		ret = usage_error("count: --size goes with --by");
	else if (all && by)
		ret = usage_error("count: --all goes without --by");
	else if (stack_opt && (!by || strcmp(by, "stack")))
		ret = usage_error("count: --folded, --svg, --stack-size and --fp go with --by stack");
	else if (size_given && stack_fp)
		ret = usage_error("count --by stack: --stack-size or --fp, not both");
	else if (stack_folded && stack_svg)
		ret = usage_error("count --by stack: --folded or --svg, not both");
	if (ret || by) {
		if (!ret)
			ret = cmd_count_by(specs[0], by, top ?: 10,
					   size ?: BY_SIZE, fmt, argv + optind);
		free(specs);
		return ret;
	}
	/* a filter's values are read in the function's own scope */
	if (filter_expr)
		up_no_inline = true;
	/* resolve everything first: a bad spec runs nothing */
	for (int i = 0; i < nspecs && !ret; i++)
		ret = exit_status(resolve_probes(specs[i], 0, false, &ps, &n));
	free(specs);
	any_ret = any_return(ps, n);
	if (!ret && any_ret && filter_expr)
		ret = usage_error("count --filter: no return probes (the filter applies to a function's entry)");
	else if (!ret && any_ret && need_returns())
		ret = EXIT_FAILURE;
	for (int i = 0; i < n && !ret; i++)
		run_name(&ps[i], "count", i);
	if (!ret && filter_expr)
		ret = exit_status(count_filter(ps, n, &filter));
	if (!ret && filter_expr)
		ret = count_filtered(ps, &n, filter, argv + optind, &status) ?
		      EXIT_FAILURE : 0;
	else if (!ret && run_probed(ps, &n, argv + optind, &status, NULL))
		ret = EXIT_FAILURE;
	free(filter);
	if (ret) {
		free(ps);
		return ret;
	}
	if (fmt == JSON) {
		ret = print_count_json(ps, n, argv[optind]);
		free(ps);
		return ret ? EXIT_FAILURE : status;
	}
	print_count(ps, n, fmt, any_ret, all, top);
	free(ps);
	return status;
}

/*
 * latency's return probe @pr on @cmd as JSON: its counts, then the
 * histogram's non-empty buckets.  0, or -ENOMEM after a message.
 */
static int print_latency_json(const struct probe *pr, const char *cmd)
{
	const struct up_returns *r = &pr->rets;
	unsigned long long lo, hi;
	json_writer_t *w = json_new();

	if (!w)
		return -ENOMEM;
	jsonw_start_object(w);
	json_string_field(w, "command", cmd);
	json_string_field(w, "binary", pr->place.path);
	json_string_field(w, "function", pr->place.symbol);
	jsonw_int_field(w, "calls", pr->hits);
	jsonw_lluint_field(w, "returns", r->returns);
	jsonw_lluint_field(w, "unwound", r->unwound);
	jsonw_lluint_field(w, "missed", r->missed);
	jsonw_lluint_field(w, "min_ns", r->min_ns);
	jsonw_lluint_field(w, "p50_ns", up_percentile(r, 50));
	jsonw_lluint_field(w, "p99_ns", up_percentile(r, 99));
	jsonw_lluint_field(w, "max_ns", r->max_ns);
	jsonw_lluint_field(w, "sum_ns", r->sum_ns);
	jsonw_name(w, "buckets");
	jsonw_start_array(w);
	for (int b = 0; b < UP_HIST_BUCKETS; b++) {
		if (!r->hist[b])
			continue;
		up_bucket_range(b, &lo, &hi);
		jsonw_start_object(w);
		jsonw_lluint_field(w, "lo_ns", lo);
		jsonw_lluint_field(w, "hi_ns", hi);
		jsonw_lluint_field(w, "count", r->hist[b]);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_end_object(w);
	jsonw_destroy(&w);
	return 0;
}

/*
 * latency: count with one return probe, then the durations of the
 * calls that returned, as a log2 histogram.
 */
int cmd_latency(int argc, char **argv)
{
	static const struct option opts[] = {
		FORMAT_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct probe *ps = NULL;
	const char *spec;
	char where[PATH_MAX + 280];
	int c, n = 0, ret, status = 0, end = dashes_at(argc, argv);

	/*
	 * SPEC -- CMD: options anywhere before "--".  SPEC CMD, without
	 * "--": before SPEC, what follows it is the command's.
	 */
	while ((c = getopt_long(end, argv, end < argc ? "jf:" : "+jf:", opts,
				NULL)) != -1)
		if ((c != 'j' && c != 'f') || format_option(c, optarg))
			return EXIT_USAGE;
	if (table_or_json("latency"))
		return EXIT_USAGE;
	if (optind >= end)
		return usage_error("latency: no probe given (SPEC -- CMD [ARGS])");
	if (end < argc && end - optind > 1)
		return usage_error("latency: one probe (SPEC -- CMD [ARGS]), not '%s'",
				   argv[optind + 1]);
	spec = argv[optind];
	optind = end < argc ? end + 1 : optind + 1;
	if (optind >= argc)
		return usage_error("latency: no command given (-- CMD [ARGS])");
	ret = exit_status(resolve_probes(spec, 0, true, &ps, &n));
	if (!ret && n != 1)
		ret = run_error("latency: '%s' names %d functions; give one", spec, n);
	if (!ret && need_returns())
		ret = EXIT_FAILURE;
	if (!ret) {
		run_name(&ps[0], "latency", 0);
		if (run_probed(ps, &n, argv + optind, &status, NULL))
			ret = EXIT_FAILURE;
	}
	if (ret) {
		free(ps);
		return ret;
	}
	if (out_fmt != JSON) {
		function_name(where, sizeof(where), &ps[0].place);
		up_latency_table(stdout, where, ps[0].hits, &ps[0].rets);
		free(ps);
		return status;
	}
	ret = print_latency_json(&ps[0], argv[optind]);
	free(ps);
	return ret ? EXIT_FAILURE : status;
}
