// SPDX-License-Identifier: GPL-2.0
/*
 * trace, hist and count --by: values at probes.  Each value is a fetch
 * argument of the probe's trace event, from a C variable's DWARF
 * location (dwarfvar.c) or as written.  The events go to a trace
 * instance of this command's own: trace streams its trace_pipe, hist
 * and count --by aggregate in the kernel with a hist trigger.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dwarfvar.h"
#include "filter.h"
#include "json_writer.h"
#include "sdt.h"
#include "session.h"
#include "values.h"

/* A log2 key "~ 2^N" as N, or -1 */
static int log2_key(const char *key)
{
	int n;

	return sscanf(key, "~ 2^%d", &n) == 1 && n >= 0 && n <= 64 ? n : -1;
}

/* The values bucket @n of the kernel's log2 holds: (2^(n-1), 2^n] */
static void log2_range(int n, unsigned long long *lo, unsigned long long *hi)
{
	*lo = n ? (1ULL << (n - 1)) + 1 : 0;
	*hi = n == 64 ? ~0ULL : n ? 1ULL << n : 1;
}

static void bar(unsigned long long count, unsigned long long max)
{
	int w = max ? (int)(count * 40 / max) : 0;

	printf(" |%.*s%*s|\n", w, "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@",
	       40 - w, "");
}

/*
 * The log2 histogram of @pr's @value as JSON: its @total, its buckets'
 * @count[@first..@last], what the kernel @dropped.  0, or -ENOMEM after
 * a message.
 */
static int log2_json(const struct probe *pr, const char *value,
		     unsigned long long total, const unsigned long long *count,
		     int first, int last, unsigned long long dropped)
{
	unsigned long long lo, hi;
	json_writer_t *w = json_new();

	if (!w)
		return -ENOMEM;
	jsonw_start_object(w);
	json_string_field(w, "function", pr->place.symbol);
	jsonw_name(w, "value");
	json_string(w, value);
	jsonw_lluint_field(w, "count", total);
	jsonw_lluint_field(w, "dropped", dropped);
	jsonw_name(w, "buckets");
	jsonw_start_array(w);
	for (int k = first; k <= last; k++) {
		if (!count[k])
			continue;
		log2_range(k, &lo, &hi);
		jsonw_start_object(w);
		jsonw_lluint_field(w, "lo", lo);
		jsonw_lluint_field(w, "hi", hi);
		jsonw_lluint_field(w, "count", count[k]);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_end_object(w);
	jsonw_destroy(&w);
	return 0;
}

/*
 * The log2 histogram of @b[0..@n), as a table or JSON; 0, or -errno
 * after a message.
 */
static int print_log2(const struct probe *pr, const char *value,
		      const struct bucket *b, int n, enum format fmt,
		      unsigned long long dropped)
{
	unsigned long long count[65] = { 0 }, max = 0, total = 0, lo, hi;
	int first = 65, last = -1;
	char range[64];

	for (int i = 0; i < n; i++) {
		int k = log2_key(b[i].key);

		if (k < 0)
			continue;
		count[k] += b[i].count;
		first = k < first ? k : first;
		last = k > last ? k : last;
	}
	for (int k = 0; k < 65; k++) {
		max = count[k] > max ? count[k] : max;
		total += count[k];
	}
	if (fmt == JSON)
		return log2_json(pr, value, total, count, first, last,
				 dropped);
	printf("%s of %s: %llu values%s\n", value, pr->place.symbol, total,
	       dropped ? " (some dropped: the kernel's table was full)" : "");
	for (int k = first; k <= last; k++) {
		log2_range(k, &lo, &hi);
		snprintf(range, sizeof(range), "[%llu, %llu]", lo, hi);
		printf("%-32s %10llu", range, count[k]);
		bar(count[k], max);
	}
	return 0;
}

static int bucket_cmp(const void *a, const void *b)
{
	const struct bucket *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->key, y->key);
}

/*
 * The @n most frequent values @b[0..@n) of @pr's value @by as JSON,
 * with what the kernel @dropped; 0, or -ENOMEM after a message.
 */
static int top_json(const struct probe *pr, const struct up_fetch *by,
		    const struct bucket *b, int n, unsigned long long dropped)
{
	json_writer_t *w = json_new();

	if (!w)
		return -ENOMEM;
	jsonw_start_object(w);
	json_string_field(w, "function", pr->place.symbol);
	json_string_field(w, "by", by->name);
	jsonw_lluint_field(w, "dropped", dropped);
	jsonw_name(w, "top");
	jsonw_start_array(w);
	for (int i = 0; i < n; i++) {
		jsonw_start_object(w);
		jsonw_name(w, "value");
		if (!by->string &&
		    b[i].key[strspn(b[i].key, "-0123456789")] == '\0')
			jsonw_printf(w, "%s", b[i].key);
		else
			json_string(w, b[i].key);
		jsonw_lluint_field(w, "hits", b[i].count);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_end_object(w);
	jsonw_destroy(&w);
	return 0;
}

/*
 * The @top most frequent values of @b[0..@n), as a table or JSON; 0, or
 * -errno after a message.
 */
static int print_top(const struct probe *pr, const struct up_fetch *by,
		     struct bucket *b, int n, int top, enum format fmt,
		     unsigned long long dropped)
{
	qsort(b, n, sizeof(*b), bucket_cmp);
	if (n > top)
		n = top;
	if (fmt == JSON)
		return top_json(pr, by, b, n, dropped);
	printf("%14s  %s (%s)%s\n", "HITS", by->name, pr->place.symbol,
	       dropped ? "  (some dropped: the kernel's table was full)" : "");
	for (int i = 0; i < n; i++)
		printf("%14llu  %s\n", b[i].count, b[i].key);
	return 0;
}

/*
 * What field @f of an event holds, by its fetch type (NAME=FETCH:TYPE):
 * a string (string, ustring, symstr, or $comm), or a number, signed for
 * sN, of N bits for sN, uN, xN and bN@..., 8 for char, else 64 (symbol,
 * or no type).
 */
static struct up_filter_field field_of(const struct up_fetch *f)
{
	struct up_filter_field out = { f->name, UP_FIELD_UNSIGNED, 64 };
	const char *what = strchr(f->text, '=');
	const char *type = strrchr(f->text, ':');
	int bits = 0;

	what = what ? what + 1 : f->text;
	type = type && type > what ? type + 1 : "";
	if (f->string || !strcmp(type, "symstr") ||
	    !strncasecmp(what, "$comm", 5))
		out.kind = UP_FIELD_STRING;
	else if (*type && strchr("sux", *type) &&
		 sscanf(type + 1, "%d", &bits) == 1)
		out.bits = bits;
	else if (*type == 'b' && sscanf(type + 1, "%d@", &bits) == 1)
		out.bits = bits;
	else if (!strcmp(type, "char"))
		out.bits = 8;
	if (*type == 's' && bits)
		out.kind = UP_FIELD_SIGNED;
	if (out.bits < 1 || out.bits > 64)
		out.bits = 64;
	return out;
}

/* The fetch arguments of @ps[0..@n) freed, none left */
static void fetch_free(struct probe *ps, int n)
{
	for (int i = 0; i < n; i++) {
		free(ps[i].fetch);
		ps[i].fetch = NULL;
	}
}

/*
 * --filter for the session's probes, whose values are @exprs: a field
 * it names that is not among them is fetched too (fetch_args() again,
 * with it), then the filter is checked against each probe's fields and
 * kept as the kernel takes it.  0, or -errno after a message, -EINVAL if
 * the command line's alone (a filter that does not parse or does not go
 * with the values, two values of one name).
 */
static int session_filter(struct session *s, char **exprs, int nexprs)
{
	const char *const *names;
	struct up_filter_field *fields;
	struct up_filter *f;
	int nnames, more = 0, ret = 0;
	char err[512];
	char **all;

	if (up_filter_parse(filter_expr, &f, err, sizeof(err)))
		return print_error(-EINVAL, "%s", err);
	nnames = up_filter_names(f, &names);
	all = calloc(nexprs + nnames + 1, sizeof(*all));
	if (!all) {
		up_filter_free(f);
		return print_error(-ENOMEM, "out of memory");
	}
	if (nexprs)
		memcpy(all, exprs, nexprs * sizeof(*all));
	for (int i = 0; i < nnames; i++) {
		bool have = false;

		for (int k = 0; k < s->v->nargs && !have; k++)
			have = !strcmp(s->v->f[k].name, names[i]);
		if (have)
			continue;
		/* the value a return probe has is $retval */
		all[nexprs + more++] = s->ps[0].ret &&
				       !strcmp(names[i], "retval") ?
				       "$retval" : (char *)names[i];
	}
	if (more) {
		fetch_free(s->ps, s->n);
		free(s->v->f);
		s->v->f = NULL;
		ret = fetch_args(s->ps, s->n, all, nexprs + more, s->v);
	}
	free(all);
	fields = ret ? NULL : calloc(s->v->nargs + 1, sizeof(*fields));
	if (!ret && !fields)
		ret = print_error(-ENOMEM, "out of memory");
	for (int i = 0; fields && i < s->n && !ret; i++) {
		for (int k = 0; k < s->v->nargs; k++) {
			const struct up_fetch *v = &s->v->f[i * s->v->nargs + k];

			fields[k] = field_of(v);
		}
		if (up_filter_check(f, fields, s->v->nargs, s->filter,
				    sizeof(s->filter), err, sizeof(err)))
			ret = print_error(-EINVAL, "%s", err);
	}
	free(fields);
	up_filter_free(f);
	return ret;
}

/*
 * Resolve @spec into the session's probes named for @cmd_name (one
 * place only if @one), with the values @exprs[0..@nexprs).  0, or
 * -errno after a message, -EINVAL if the command line's alone (a bad
 * filter, a spec's unknown suffix, two values of one name).
 */
static int session_probes(struct session *s, const char *cmd_name,
			  const char *spec, bool one, char **exprs,
			  int nexprs)
{
	struct up_filter *f = NULL;
	char prefix[16], err[512];
	int ret;

	s->ps = NULL;
	s->n = 0;
	/* a bad filter is refused before anything is resolved */
	if (filter_expr && up_filter_parse(filter_expr, &f, err, sizeof(err)))
		return print_error(-EINVAL, "%s", err);
	up_filter_free(f);
	/*
	 * Values (and a filter's) are read in the function's own scope: at
	 * its entry, not in the copies inlined into callers, whose
	 * parameters live in the callers' registers (not looked up yet).
	 */
	if (nexprs || filter_expr)
		up_no_inline = true;
	ret = resolve_probes(spec, 0, false, &s->ps, &s->n);
	/* a marker's values, by default: all its arguments */
	if (!ret && !nexprs && s->ps[0].place.sdt) {
		static char names[UP_SDT_MAX_ARGS][16], *all[UP_SDT_MAX_ARGS];
		char fetch[2 * UP_SDT_ARGS_MAX], err[512];

		nexprs = up_sdt_fetch(s->ps[0].place.sdt_args, fetch,
				      sizeof(fetch), err, sizeof(err));
		if (nexprs < 0)
			return print_error(-EOPNOTSUPP, "%s: %s",
					   s->ps[0].place.symbol, err);
		for (int i = 1; i < s->n; i++)
			if (up_sdt_fetch(s->ps[i].place.sdt_args, fetch,
					 sizeof(fetch), err, sizeof(err)) !=
			    nexprs)
				return print_error(-EOPNOTSUPP,
						   "%s and %s have different arguments: name the values (arg0, arg1...)",
						   s->ps[0].place.symbol,
						   s->ps[i].place.symbol);
		for (int k = 0; k < nexprs && k < UP_SDT_MAX_ARGS; k++) {
			snprintf(names[k], sizeof(names[k]), "arg%d", k);
			all[k] = names[k];
		}
		exprs = all;
	}
	if (!ret && one && s->n != 1)
		ret = print_error(-E2BIG, "%s: '%s' names %d places; give one",
				  cmd_name, spec, s->n);
	if (!ret && s->ps[0].ret)
		ret = need_returns();
	if (!ret)
		ret = fetch_args(s->ps, s->n, exprs, nexprs, s->v);
	if (!ret && filter_expr)
		ret = session_filter(s, exprs, nexprs);
	/* probes named for the command ("count", not "count --by") */
	snprintf(prefix, sizeof(prefix), "%.*s", (int)strcspn(cmd_name, " "),
		 cmd_name);
	for (int i = 0; i < s->n && !ret; i++)
		run_name(&s->ps[i], prefix, i);
	return ret;
}

/*
 * "SPEC [VALUE...] [-- CMD [ARGS]]" of command @name, its options (-j,
 * --format=F) anywhere before "--", with @min to @max words before
 * "--": those words into *@words (*@nwords of them), the command into
 * *@cmd (NULL if none).  0, or -EINVAL after a message.
 */
static int parse_cmdline(int argc, char **argv, const char *name,
			 const char *usage, int min, int max,
			 char ***words, int *nwords, char ***cmd)
{
	static const struct option opts[] = {
		FORMAT_LONGOPTS,
		{ "no-inline", no_argument, NULL, 'I' },
		{ "filter", required_argument, NULL, 'F' },
		{ "stack", no_argument, NULL, 'S' },
		{ "stack-size", required_argument, NULL, 'k' },
		{ "fp", no_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	int c, end = dashes_at(argc, argv);
	bool size_given = false;

	/* getopt sees what is before "--" alone: it keeps its place */
	while ((c = getopt_long(end, argv, "jf:", opts, NULL)) != -1) {
		if (c == 'I') {
			up_no_inline = true;
		} else if (c == 'F') {
			filter_expr = optarg;
		} else if ((c == 'S' || c == 'k' || c == 'P') &&
			   strcmp(name, "trace")) {
			return print_error(-EINVAL,
					   "%s: --stack, --stack-size and --fp go with trace",
					   name);
		} else if (c == 'S') {
			trace_stack = true;
		} else if (c == 'P') {
			stack_fp = true;
		} else if (c == 'k') {
			long v = parse_pos("--stack-size", optarg);

			if (v > STACK_BYTES_MAX)
				return print_error(-EINVAL,
						   "trace: --stack-size %ld is more than the kernel copies, %d",
						   v, STACK_BYTES_MAX);
			if (!v)
				return -EINVAL;
			stack_bytes = v;
			size_given = true;
		} else if ((c != 'j' && c != 'f') || format_option(c, optarg)) {
			return -EINVAL;
		}
	}
	if ((size_given || stack_fp) && !trace_stack)
		return print_error(-EINVAL,
				   "trace: --stack-size and --fp go with --stack");
	if (size_given && stack_fp)
		return print_error(-EINVAL,
				   "trace: --stack-size or --fp, not both");
	if (table_or_json(name))
		return -EINVAL;
	*words = argv + optind;
	*nwords = end - optind;
	*cmd = end + 1 < argc ? argv + end + 1 : NULL;
	if (*nwords < min || *nwords > max)
		return print_error(-EINVAL, "%s: %s", name, usage);
	if (end < argc && !*cmd)
		return print_error(-EINVAL, "%s: no command after '--'", name);
	return 0;
}

int cmd_trace(int argc, char **argv)
{
	struct values v = { 0 };
	struct session s = { .v = &v };
	char **cmd, **words;
	int nwords, ret, status;

	if (parse_cmdline(argc, argv, "trace",
			  "no probe given (SPEC [VALUE...] [-- CMD])", 1, argc,
			  &words, &nwords, &cmd))
		return EXIT_USAGE;
	s.fmt = out_fmt;
	ret = exit_status(session_probes(&s, "trace", words[0], false,
					 words + 1, nwords - 1));
	/* --stack: each hit's stack too, its frames under its line */
	if (!ret && trace_stack) {
		s.stack = stack_fp ? STACK_CALLERS * (int)sizeof(long) :
			  stack_bytes;
		for (int i = 0; i < s.n; i++) {
			s.ps[i].stack = s.stack;
			s.ps[i].fp = stack_fp;
		}
		s.uw = stk_unwinder_new();
		if (!s.uw)
			ret = run_error("out of memory");
	}
	if (!ret && s.fmt == TABLE)
		printf("%12s %7s %7s %-20s %s\n", "TIME", "PID", "TID",
		       "FUNCTION", "VALUES");
	fflush(stdout);
	if (!ret && session_run(&s, cmd, &status))
		ret = EXIT_FAILURE;
	if (!ret && (s.failed || s.raw_failed))
		ret = EXIT_FAILURE;
	if (!ret && (s.lost || s.lost_some))
		fprintf(stderr, "uprobe-cli: %s%llu hits' records were lost (the buffers were full)\n",
			s.lost_some ? "more than " : "", s.lost);
	stk_unwinder_free(s.uw);
	probes_free(s.ps, s.n, &v);
	return ret ? ret : status;
}

/*
 * Run @cmd with the session's one probe (session_probes()), and a hist
 * trigger of @trigger_fmt (its "%s" the value's field) on its value, a
 * number if @number: the table into the session.  0 with the command's
 * status in *@status, or -errno after a message.
 */
static int aggregate(struct session *s, const char *name, bool number,
		     const char *trigger_fmt, char **cmd, int *status)
{
	char trigger[128 + sizeof(s->filter)];
	int ret;

	if (number && s->v->f[0].string)
		return print_error(-EOPNOTSUPP,
				   "%s: '%s' is a string; a histogram needs a number",
				   name, s->v->f[0].name);
	snprintf(trigger, sizeof(trigger), trigger_fmt, s->v->f[0].name);
	/* the hits the filter lets through, alone */
	if (*s->filter)
		snprintf(trigger + strlen(trigger),
			 sizeof(trigger) - strlen(trigger), " if %s",
			 s->filter);
	s->trigger = trigger;
	ret = session_run(s, cmd, status);
	s->trigger = NULL;
	if (!ret && s->nb < 0)
		ret = s->nb;
	return ret;
}

int cmd_hist(int argc, char **argv)
{
	struct values v = { 0 };
	struct session s = { .v = &v };
	char **cmd, **words;
	int nwords, ret, status;

	if (parse_cmdline(argc, argv, "hist",
			  "give one probe and one value (SPEC VALUE [-- CMD])",
			  2, 2, &words, &nwords, &cmd))
		return EXIT_USAGE;
	s.fmt = out_fmt;
	ret = exit_status(session_probes(&s, "hist", words[0], true,
					 words + 1, 1));
	if (!ret && aggregate(&s, "hist", true, "hist:keys=%s.log2", cmd,
			      &status))
		ret = EXIT_FAILURE;
	if (!ret && print_log2(&s.ps[0], v.f[0].name, s.b, s.nb, s.fmt,
			       s.dropped))
		ret = EXIT_FAILURE;
	free(s.b);
	probes_free(s.ps, s.n, &v);
	return ret ? ret : status;
}

int by_size(const char *arg)
{
	long v = parse_pos("--size", arg);

	if (v && (v < BY_SIZE_MIN || v > BY_SIZE_MAX)) {
		print_error(-EINVAL,
			    "count --by: --size %ld is outside the kernel's range, %d to %d",
			    v, BY_SIZE_MIN, BY_SIZE_MAX);
		return 0;
	}
	return v;
}

bool stack_folded;
bool trace_stack;
const char *stack_svg;
int stack_bytes = STACK_BYTES;
bool stack_fp;

/*
 * count --by stack: each hit's stack, unwound, counted by its frames;
 * the @top most frequent as a table or JSON, or every one folded, or a
 * flame graph.  The exit status, as cmd_count_by()'s.
 */
static int cmd_count_by_stack(const char *spec, int top, enum format fmt,
			      char **cmd)
{
	struct values v = { 0 };
	struct session s = { .v = &v, .fmt = fmt, .stack = stack_bytes };
	int ret, status = 0, err;

	if (filter_expr)
		return usage_error("count --by stack: no --filter (not yet)");
	ret = exit_status(session_probes(&s, "count --by", spec, true, NULL,
					 0));
	if (ret)
		goto out;
	if (stack_fp)
		s.stack = STACK_CALLERS * sizeof(long);
	s.ps[0].stack = s.stack;
	s.ps[0].fp = stack_fp;
	s.uw = stk_unwinder_new();
	s.stacks = stk_counts_new();
	if (!s.uw || !s.stacks) {
		ret = run_error("out of memory");
		goto out;
	}
	if (session_run(&s, cmd, &status) || s.raw_failed)
		ret = EXIT_FAILURE;
	if (ret)
		goto out;
	if (s.lost || s.lost_some)
		fprintf(stderr, "uprobe-cli: %s%llu hits' records were lost (the buffers were full): not counted\n",
			s.lost_some ? "more than " : "", s.lost);
	if (stack_svg) {
		char title[sizeof(s.ps[0].place.symbol) + 32];

		snprintf(title, sizeof(title), "Stacks of %s",
			 s.ps[0].place.symbol);
		err = stk_counts_svg(s.stacks, title, stack_svg);
		if (err)
			ret = run_error("%s: %s", stack_svg, strerror(-err));
	} else if (stack_folded) {
		stk_counts_folded(s.stacks, stdout);
	} else if (fmt == JSON) {
		json_writer_t *w = json_new();

		if (!w) {
			ret = EXIT_FAILURE;
			goto out;
		}
		jsonw_start_object(w);
		json_string_field(w, "probe", s.ps[0].place.symbol);
		jsonw_uint_field(w, "lost", s.lost);
		stk_counts_json(s.stacks, w, top, json_string);
		/* the tool's own time: how many stacks a second it keeps up with */
		jsonw_float_field_fmt(w, "unwind_ms", "%.3f", s.unwind_ns / 1e6);
		jsonw_uint_field(w, "cached", stk_unwinder_cached(s.uw));
		jsonw_end_object(w);
		jsonw_destroy(&w);
	} else {
		printf("%s: %llu hits\n", s.ps[0].place.symbol,
		       stk_counts_hits(s.stacks));
		stk_counts_table(s.stacks, top, stdout);
	}
out:
	stk_counts_free(s.stacks);
	stk_unwinder_free(s.uw);
	probes_free(s.ps, s.n, &v);
	return ret ? ret : status;
}

int cmd_count_by(const char *spec, const char *by, int top, int size,
		 enum format fmt, char **cmd)
{
	struct values v = { 0 };
	struct session s = { .v = &v, .fmt = fmt };
	char trigger_fmt[64], *expr = (char *)by;
	int ret, status;

	if (!strcmp(by, "stack"))
		return cmd_count_by_stack(spec, top, fmt, cmd);

	/* room for @size values; hits of values beyond it are dropped */
	snprintf(trigger_fmt, sizeof(trigger_fmt), "hist:keys=%%s:size=%d",
		 size);
	ret = exit_status(session_probes(&s, "count --by", spec, true, &expr,
					 1));
	if (!ret && aggregate(&s, "count --by", false, trigger_fmt, cmd,
			      &status))
		ret = EXIT_FAILURE;
	if (!ret && print_top(&s.ps[0], &v.f[0], s.b, s.nb, top, fmt,
			      s.dropped))
		ret = EXIT_FAILURE;
	free(s.b);
	probes_free(s.ps, s.n, &v);
	return ret ? ret : status;
}

int count_filter(struct probe *ps, int n, char **filter)
{
	struct values v = { 0 };
	struct session s = { .v = &v, .ps = ps, .n = n };
	int ret = session_filter(&s, NULL, 0);

	*filter = ret ? NULL : strdup(s.filter);
	if (!ret && !*filter)
		ret = print_error(-ENOMEM, "out of memory");
	if (ret)
		fetch_free(ps, n);
	free(v.f);
	return ret;
}

int count_filtered(struct probe *ps, int *n, const char *filter,
		   char **cmd, int *status)
{
	struct session s = { .ps = ps, .n = *n };
	char trigger[64 + sizeof(s.filter)];
	int ret;

	s.counts = calloc(*n + 1, sizeof(*s.counts));
	if (!s.counts) {
		ret = print_error(-ENOMEM, "out of memory");
		goto out;
	}
	/*
	 * one row, of every hit the filter lets through: the smallest
	 * table the kernel makes, as a glob may give thousands of probes
	 */
	snprintf(trigger, sizeof(trigger),
		 "hist:keys=common_type:size=%d if %s", BY_SIZE_MIN, filter);
	s.trigger = trigger;
	ret = session_run(&s, cmd, status);
	if (!ret && s.nb < 0)
		ret = s.nb;
	/* the triggers' counts, not every hit's */
	for (int i = 0; !ret && i < s.n; i++)
		ps[i].hits = s.counts[i];
out:
	/* a glob's probes the kernel refused are gone from @ps */
	*n = s.n;
	fetch_free(ps, s.n);
	free(s.counts);
	return ret;
}
