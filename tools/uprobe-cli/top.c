// SPDX-License-Identifier: GPL-2.0
/*
 * top: a live view of the hottest functions of a process or a command,
 * hits per second and totals, refreshed every interval and sorted.  The
 * probes only count, so that the kernel enters them by jumps where the
 * functions allow it: a function-level profile with exact counts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "json_writer.h"
#include "listing.h"
#include "top.h"

/* What the view shows, and what it knows between two intervals. */
struct top {
	struct probe *ps;
	int n;
	unsigned long long *prev;	/* each probe's hits at the last look */
	double interval;		/* seconds between two looks */
	int count;			/* looks to make, or 0: until stopped */
	pid_t pid;			/* the process, or the command */
	bool tty;			/* stdin a terminal: q quits */
	struct termios saved;
};

static volatile sig_atomic_t top_stopped;

static void top_on_signal(int sig)
{
	top_stopped = sig;
}

/* One probe's line of a look: its index, rate and total. */
struct top_row {
	int i;
	double rate;
	unsigned long long hits;
	char mode[UP_MODE_MAX];
};

/* the totals alone, for the last look: the rates are over */
static int row_total_cmp(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;

	if (x->hits != y->hits)
		return x->hits < y->hits ? 1 : -1;
	return x->i - y->i;
}

static int row_cmp(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;

	if (x->rate != y->rate)
		return x->rate < y->rate ? 1 : -1;
	if (x->hits != y->hits)
		return x->hits < y->hits ? 1 : -1;
	return x->i - y->i;
}

/*
 * Look at the kernel's counts of @t's probes into @rows (sorted, the
 * hottest first; by totals if @last), and note them for the next look.
 * 0, or -errno.
 */
static int top_look(struct top *t, struct top_row *rows, bool last)
{
	char (*modes)[UP_MODE_MAX] = malloc((t->n ?: 1) * sizeof(*modes));
	int ret = modes ? kernel_counts(t->ps, t->n, modes) : -ENOMEM;

	if (ret) {
		free(modes);
		return ret;
	}
	for (int i = 0; i < t->n; i++) {
		struct top_row *r = &rows[i];
		long long hits = t->ps[i].hits;

		r->i = i;
		r->hits = hits >= 0 ? (unsigned long long)hits : t->prev[i];
		snprintf(r->mode, sizeof(r->mode), "%s",
			 *modes[i] ? modes[i] : "-");
		r->rate = (r->hits - (t->prev[i] <= r->hits ? t->prev[i] : 0)) /
			  t->interval;
		t->prev[i] = r->hits;
	}
	free(modes);
	qsort(rows, t->n, sizeof(*rows), last ? row_total_cmp : row_cmp);
	return 0;
}

/*
 * The rows that fit the terminal under the two lines of header, with a
 * line left under them for what follows the last view (a shell's
 * prompt), or all of them.
 */
static int top_fits(int n)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || ws.ws_row < 5)
		return n;
	return n < ws.ws_row - 4 ? n : ws.ws_row - 4;
}

static void top_print_table(const struct top *t, const struct top_row *rows,
			    bool last)
{
	char fn[PATH_MAX + 64];
	int n = isatty(STDOUT_FILENO) ? top_fits(t->n) : t->n;

	/* on a terminal, each look in place of the last */
	if (isatty(STDOUT_FILENO))
		fputs("\033[H\033[2J", stdout);
	printf("uprobe-cli top: process %d, %d functions, every %gs%s\n",
	       (int)t->pid, t->n, t->interval,
	       last ? "" : t->tty ? " (q quits)" : "");
	printf("%12s %14s  %-16s %s\n", "HITS/S", "TOTAL", "MODE", "FUNCTION");
	for (int i = 0; i < n; i++) {
		function_name(fn, sizeof(fn), &t->ps[rows[i].i].place);
		printf("%12.0f %14llu  %-16s %s\n", rows[i].rate,
		       rows[i].hits, rows[i].mode, fn);
	}
	if (!isatty(STDOUT_FILENO))
		putchar('\n');
}

static void top_print_json(const struct top *t, const struct top_row *rows)
{
	json_writer_t *w = json_new();
	struct timespec ts;
	char fn[PATH_MAX + 64];

	if (!w)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	jsonw_start_object(w);
	jsonw_float_field_fmt(w, "time", "%.3f", ts.tv_sec + ts.tv_nsec / 1e9);
	jsonw_int_field(w, "pid", t->pid);
	jsonw_float_field_fmt(w, "interval", "%g", t->interval);
	jsonw_int_field(w, "probed", t->n);
	/* those called so far: of a whole library's, most never are */
	jsonw_name(w, "functions");
	jsonw_start_array(w);
	for (int i = 0; i < t->n && rows[i].hits; i++) {
		const struct probe *p = &t->ps[rows[i].i];

		function_name(fn, sizeof(fn), &p->place);
		jsonw_start_object(w);
		json_string_field(w, "function", fn);
		json_string_field(w, "binary", p->place.path);
		jsonw_float_field_fmt(w, "rate", "%.1f", rows[i].rate);
		jsonw_lluint_field(w, "hits", rows[i].hits);
		json_string_field(w, "mode", rows[i].mode);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_end_object(w);
	jsonw_destroy(&w);
}

/*
 * Wait an interval, or less if q is typed or a signal comes: true if
 * the view is to stop.
 */
static bool top_wait(const struct top *t)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	int ms = (int)(t->interval * 1000);
	char c;

	if (!t->tty) {
		usleep(ms * 1000);
		return top_stopped;
	}
	while (!top_stopped && poll(&pfd, 1, ms) > 0) {
		if (read(STDIN_FILENO, &c, 1) != 1 || c == 'q' || c == 'Q')
			return true;
		/* another key: the rest of the interval is not timed again */
		break;
	}
	return top_stopped;
}

/* Is @t's process still there?  For a command: it has not exited. */
static bool top_alive(struct top *t, int *status, bool command)
{
	if (!command)
		return !kill(t->pid, 0) || errno != ESRCH;
	return waitpid(t->pid, status, WNOHANG) == 0;
}

/*
 * The view, until the process ends, q, a signal or @t->count looks;
 * the command's wait status in *@status.  0, or -errno after a message.
 */
static int top_view(struct top *t, int *status, bool command)
{
	struct top_row *rows = calloc(t->n ? t->n : 1, sizeof(*rows));
	bool alive = true, stop = false;
	int looks = 0, r = 0;

	t->prev = calloc(t->n ? t->n : 1, sizeof(*t->prev));
	if (!rows || !t->prev) {
		free(rows);
		return print_error(-ENOMEM, "out of memory");
	}
	while (!stop) {
		stop = top_wait(t);
		alive = top_alive(t, status, command);
		r = top_look(t, rows, stop || !alive);
		if (r) {
			print_error(r, "%s", listing_errmsg(r));
			break;
		}
		if (out_fmt == JSON)
			top_print_json(t, rows);
		else
			top_print_table(t, rows, stop || !alive);
		fflush(stdout);
		stop |= !alive || (t->count && ++looks >= t->count);
	}
	if (command && alive) {
		/* q or a signal: the command goes too */
		kill(t->pid, SIGTERM);
		while (waitpid(t->pid, status, 0) < 0 && errno == EINTR)
			;
	}
	free(rows);
	free(t->prev);
	return r;
}

static struct top *top_now;	/* for top_run_wait() */

/* The view of a command (run_ops' @wait): top_view()'s return */
static int top_run_wait(pid_t pid, int *status, void *arg)
{
	struct top *t = arg;

	t->pid = pid;
	return top_view(t, status, true);
}

static void top_tty_restore(void)
{
	if (top_now && top_now->tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &top_now->saved);
}

/* Keys one at a time, unechoed, for q; restored at exit. */
static void top_tty_raw(struct top *t)
{
	struct termios raw;

	t->tty = isatty(STDIN_FILENO) && out_fmt != JSON &&
		 !tcgetattr(STDIN_FILENO, &t->saved);
	if (!t->tty)
		return;
	raw = t->saved;
	raw.c_lflag &= ~(ICANON | ECHO);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	top_now = t;
	atexit(top_tty_restore);
}

/*
 * Probes for @specs into @t; none given, for every function of the
 * program and of its libraries (those @pid maps, or those it needs).
 * 0, or -errno after a message.
 */
static int top_probes(struct top *t, const char **specs, int nspecs,
		      const char *program, pid_t pid)
{
	char path[PATH_MAX], err[PATH_MAX + 256], spec[PATH_MAX + 8];
	const char **libs = NULL;
	int nlibs = 0, ret = 0;

	for (int i = 0; i < nspecs && !ret; i++)
		ret = resolve_probes(specs[i], pid, false, &t->ps, &t->n);
	if (!nspecs) {
		if (up_find_binary(program, pid, path, sizeof(path), err,
				   sizeof(err)))
			return print_error(-ENOENT, "top: %s", err);
		nlibs = up_libraries(path, pid, &libs, err, sizeof(err));
		if (nlibs < 0)
			return print_error(-ENOENT, "top: %s", err);
		for (int i = -1; i < nlibs && !ret; i++) {
			snprintf(spec, sizeof(spec), "%s:*",
				 i < 0 ? program : libs[i]);
			ret = resolve_probes(spec, pid, false, &t->ps, &t->n);
		}
		free(libs);
	}
	if (ret)
		return ret;
	for (int i = 0; i < t->n; i++)
		run_name(&t->ps[i], "top", i);
	if (!t->n)
		return print_error(-ENOENT, "top: no function to probe");
	return 0;
}

/*
 * top -p PID: the probes on the files, limited to PID's tree.  0, or
 * -errno after a message.
 */
static int top_pid(struct top *t, const char **specs, int nspecs)
{
	struct sigaction sa = { .sa_handler = top_on_signal };
	char exe[64], path[PATH_MAX];
	int status = 0, r;
	ssize_t len;

	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)t->pid);
	len = readlink(exe, path, sizeof(path) - 1);
	if (len < 0) {
		r = -errno;
		return print_error(r, "top: process %d: %s", (int)t->pid,
				   strerror(-r));
	}
	path[len] = '\0';
	r = top_probes(t, specs, nspecs, path, t->pid);
	if (!r)
		r = place_session_probes(t->ps, &t->n, t->pid);
	if (r)
		return r;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	top_tty_raw(t);
	r = top_view(t, &status, false);
	remove_probes(t->ps, t->n);
	return r;
}

int cmd_top(int argc, char **argv)
{
	static const struct option opts[] = {
		FORMAT_LONGOPTS,
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "pid", required_argument, NULL, 'p' },
		{ "trap", no_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	struct top t = { .interval = 1 };
	const char **specs = calloc(argc, sizeof(*specs));
	int c, nspecs = 0, ret = 0, status = 0, dashes = dashes_at(argc, argv);
	char **cmd = NULL;
	char *end;

	if (!specs)
		return run_error("out of memory");
	jump_ok = true;
	/* options anywhere before "--" */
	while (!ret &&
	       (c = getopt_long(dashes, argv, "jf:i:n:p:", opts, NULL)) != -1) {
		if (c == 'j' || c == 'f') {
			ret |= format_option(c, optarg) ? EXIT_USAGE : 0;
		} else if (c == 'i') {
			t.interval = strtod(optarg, &end);
			if (end == optarg || *end || !(t.interval >= 0.1))
				ret = usage_error("top: -i '%s': give seconds, 0.1 or more",
						  optarg);
		} else if (c == 'n') {
			t.count = parse_pos("-n", optarg);
			ret |= t.count ? 0 : EXIT_USAGE;
		} else if (c == 'p') {
			t.pid = parse_pos("-p", optarg);
			ret |= t.pid ? 0 : EXIT_USAGE;
		} else if (c == 'T') {
			jump_ok = false;
		} else {
			ret = EXIT_USAGE;
		}
	}
	for (int i = optind; i < dashes; i++)
		specs[nspecs++] = argv[i];
	if (dashes < argc)
		cmd = argv + dashes + 1;
	if (!ret && !t.pid == !(cmd && *cmd))
		ret = usage_error("top: give -p PID or -- CMD [ARGS], one of them");
	/* any failure, a spec's unknown suffix too, is EXIT_FAILURE */
	if (!ret && t.pid) {
		ret = top_pid(&t, specs, nspecs) ? EXIT_FAILURE : 0;
	} else if (!ret) {
		struct run_ops ops = { .wait = top_run_wait, .arg = &t };

		ret = top_probes(&t, specs, nspecs, cmd[0], 0);
		if (!ret) {
			top_tty_raw(&t);
			ret = run_probed(t.ps, &t.n, cmd, &status, &ops);
		}
		ret = ret ? EXIT_FAILURE : status;
	}
	top_tty_restore();
	free(t.ps);
	free(specs);
	return ret;
}
