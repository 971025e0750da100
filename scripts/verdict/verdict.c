// SPDX-License-Identifier: GPL-2.0
/*
 * Folds a guest run into a verdict.  See verdict.h and scripts/guest/run-tests
 * for the markers the guest prints around each test program.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "verdict.h"

void verdict_init(struct verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->plan = -1;
}

void verdict_free(struct verdict *v)
{
	for (unsigned int i = 0; i < v->nproblems; i++)
		free(v->problems[i]);
	v->nproblems = 0;
	for (unsigned int i = 0; i < v->nexpected; i++)
		free(v->expected[i]);
	v->nexpected = 0;
}

int verdict_expect(struct verdict *v, const char *name)
{
	char *copy;

	if (v->nexpected == VERDICT_MAX_EXPECTED)
		return -1;
	copy = strdup(name);
	if (!copy)
		return -1;
	v->ran[v->nexpected] = false;
	v->expected[v->nexpected++] = copy;
	return 0;
}

static void mark_ran(struct verdict *v, const char *name)
{
	for (unsigned int i = 0; i < v->nexpected; i++)
		if (!strcmp(v->expected[i], name))
			v->ran[i] = true;
}

void verdict_problem(struct verdict *v, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	v->failed++;
	if (v->nproblems == VERDICT_MAX_PROBLEMS) {
		v->dropped++;
		return;
	}
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (msg)
		v->problems[v->nproblems++] = msg;
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static void strip_copy(char *dst, size_t len, const char *src)
{
	size_t n = strcspn(src, "\r\n");

	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
	while (n && isspace((unsigned char)dst[n - 1]))
		dst[--n] = '\0';
}

/* "ok 3 name # SKIP why": is the directive SKIP? */
static bool tap_skip(const char *line)
{
	const char *hash = strchr(line, '#');

	return hash && !strncasecmp(skip_ws(hash + 1), "skip", 4);
}

/*
 * A program's TAP is judged once it has exited: it must have a plan
 * (before or after its results), results numbered 1..N matching the
 * plan, at least one test that was not skipped, and an exit status that
 * agrees with its results.  The first broken rule is its problem.
 */
static void end_prog(struct verdict *v, int status, bool have_status)
{
	const char *name = v->prog;

	if (!have_status) {
		verdict_problem(v, "%s: did not finish (%u results so far)",
				name, v->results);
	} else if (status == 124) {
		verdict_problem(v, "%s: timed out (killed by the runner after %u results)",
				name, v->results);
	} else if (v->plan < 0 && v->results == 0) {
		verdict_problem(v, "%s: printed no TAP results (exit status %d)",
				name, status);
	} else if (v->plan < 0) {
		verdict_problem(v, "%s: printed no plan line (%u results, exit status %d)",
				name, v->results, status);
	} else if (v->plan == 0) {
		verdict_problem(v, "%s: planned no tests (1..0, exit status %d)",
				name, status);
	} else if (v->results != (unsigned int)v->plan) {
		verdict_problem(v, "%s: planned %d tests but %u reported (exit status %d)",
				name, v->plan, v->results, status);
	} else if (v->misnumbered) {
		verdict_problem(v, "%s: results are not numbered 1..%d in order (duplicate or missing numbers)",
				name, v->plan);
	} else if (v->prog_skipped == v->results && !v->prog_failed) {
		verdict_problem(v, "%s: skipped all its tests (%u): a program that cannot run its tests fails",
				name, v->results);
	} else if (status != 0 && v->prog_failed == 0) {
		verdict_problem(v, "%s: exited with status %d but reported no failure",
				name, status);
	}
	v->in_prog = false;
}

/* "ok 12 name": is 12 the next number?  A result without one is not. */
static bool numbered_next(const char *p, unsigned int next)
{
	char *end;
	unsigned long n;

	p = skip_ws(p);
	if (!isdigit((unsigned char)*p))
		return false;
	n = strtoul(p, &end, 10);
	return n == next && (!*end || *end == ' ' || *end == '\t');
}

void verdict_output_line(struct verdict *v, const char *raw)
{
	char line[1024];
	const char *p;

	strip_copy(line, sizeof(line), raw);
	p = line;

	if (!strncmp(p, "# run: ", 7)) {
		if (v->in_prog)
			end_prog(v, 0, false);
		strip_copy(v->prog, sizeof(v->prog), p + 7);
		mark_ran(v, v->prog);
		v->in_prog = true;
		v->plan = -1;
		v->results = v->prog_failed = v->prog_skipped = 0;
		v->misnumbered = false;
		return;
	}
	if (!strncmp(p, "# took ", 7) && v->in_prog) {
		if (v->ntimes < VERDICT_MAX_TIMES) {
			struct verdict_time *t = &v->times[v->ntimes++];

			snprintf(t->prog, sizeof(t->prog), "%s", v->prog);
			t->secs = strtoul(p + 7, NULL, 10);
		}
		return;
	}
	if (!strncmp(p, "# exit: ", 8)) {
		const char *st = strrchr(p, ' ');

		if (v->in_prog)
			end_prog(v, atoi(st + 1), true);
		return;
	}
	if (!strncmp(p, "guest-exit: ", 12)) {
		v->finished = true;
		v->guest_status = atoi(p + 12);
		return;
	}
	if (!strncmp(p, "1..", 3) && isdigit((unsigned char)p[3])) {
		v->plan = atoi(p + 3);
		return;
	}
	if (!strncmp(p, "Bail out!", 9)) {
		verdict_problem(v, "%s: %s", v->in_prog ? v->prog : "guest", p);
		v->prog_failed++;
		return;
	}

	bool not = !strncmp(p, "not ok", 6);

	if (!not && strncmp(p, "ok", 2))
		return;
	p += not ? 6 : 2;
	if (*p && *p != ' ')
		return;		/* "okay", "oknot", ... */
	v->results++;
	if (v->in_prog && !numbered_next(p, v->results))
		v->misnumbered = true;
	if (tap_skip(p)) {
		v->skipped++;
		v->prog_skipped++;
	} else if (not) {
		v->failed++;
		v->prog_failed++;
	} else {
		v->passed++;
	}
}

/* Console lines that fail a run whatever the tests said. */
static const char *const console_bad[] = {
	"Kernel panic",
	"BUG:",
	"WARNING:",
	"Oops",
	"general protection fault",
	"KASAN",
	"UBSAN",
	"INFO: possible",
	"INFO: trying to register non-static key",
	"INFO: task ",
	"INFO: rcu_",
	"list_add corruption",
	"list_del corruption",
	"ODEBUG:",
	"Unable to handle kernel",
	"kernel BUG at",
	"stack-protector",
	"suspected memory leak",	/* kmemleak's scan */
	"unreferenced object",		/* its report, copied to the console */
	"invoked oom-killer",
	"Out of memory",
	"soft lockup",
	"hard LOCKUP",
	"blocked for more than",	/* the hung-task detector */
	"self-detected stall",
	"detected stalls",
	"utrace_test: ",		/* the test engine's own complaints */
};

void verdict_console_line(struct verdict *v, const char *raw)
{
	char line[512];

	strip_copy(line, sizeof(line), raw);
	for (size_t i = 0; i < sizeof(console_bad) / sizeof(console_bad[0]); i++) {
		if (!strstr(line, console_bad[i]))
			continue;
		verdict_problem(v, "kernel console: %s", skip_ws(line));
		return;
	}
}

void verdict_finish(struct verdict *v, bool timed_out, unsigned int timeout)
{
	if (v->in_prog)
		end_prog(v, 0, false);
	for (unsigned int i = 0; i < v->nexpected; i++)
		if (!v->ran[i] && !timed_out && v->finished)
			verdict_problem(v, "%s: never ran (missing from the image?)",
					v->expected[i]);
	if (timed_out)
		verdict_problem(v, "guest timed out after %u s", timeout);
	else if (!v->finished)
		verdict_problem(v, "guest stopped before its command finished (panic or reboot? see the console log)");
}

static int time_cmp(const void *a, const void *b)
{
	const struct verdict_time *x = a, *y = b;

	if (x->secs != y->secs)
		return x->secs < y->secs ? 1 : -1;
	return strcmp(x->prog, y->prog);
}

/* The slowest programs of the run, where the next cut of time would go */
static void report_slowest(const struct verdict *v, FILE *out)
{
	struct verdict_time t[VERDICT_MAX_TIMES];
	unsigned int n = v->ntimes;

	if (!n)
		return;
	memcpy(t, v->times, n * sizeof(t[0]));
	qsort(t, n, sizeof(t[0]), time_cmp);
	fprintf(out, "slowest programs:\n");
	for (unsigned int i = 0; i < n && i < VERDICT_SLOWEST; i++)
		fprintf(out, "  %5u s  %s\n", t[i].secs, t[i].prog);
}

int verdict_report(const struct verdict *v, FILE *out, bool tap)
{
	for (unsigned int i = 0; i < v->nproblems; i++)
		fprintf(out, "FAIL: %s\n", v->problems[i]);
	if (v->dropped)
		fprintf(out, "FAIL: ... and %u more problems\n", v->dropped);
	if (tap) {
		report_slowest(v, out);
		fprintf(out, "%u passed, %u failed", v->passed, v->failed);
		if (v->skipped)
			fprintf(out, ", %u skipped", v->skipped);
		fputc('\n', out);
		return v->failed ? 1 : 0;
	}
	if (v->failed)
		return 1;
	return v->finished ? v->guest_status : 1;
}
