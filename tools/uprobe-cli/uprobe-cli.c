// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe-cli: probe functions of programs and libraries with utprobes and
 * count their hits, or time their calls with return probes.  Specs are
 * resolved to file offsets with elfutils and handed to the kernel through
 * tracefs (utprobe_events, utprobe_profile, utprobe_returns).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <elfutils/libdwfl.h>

#include "cli.h"
#include "hist.h"
#include "json_writer.h"
#include "listing.h"
#include "metrics.h"
#include "resolve.h"
#include "sdt.h"
#include "serve.h"
#include "top.h"
#include "stack.h"
#include "values.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#ifndef UPROBE_CLI_VERSION
#define UPROBE_CLI_VERSION "unknown"
#endif


/*
 * The usage: the synopsis, a line for each form of each command (and
 * lines that go on one, indented further), a blank line, then what the
 * words mean.
 */
static const char usage_text[] =
	"usage: uprobe-cli add SPEC... [-p PID] [--name NAME] [--trap]\n"
	"                  [--no-inline]\n"
	"       uprobe-cli count [-j | --format=F] [--trap] [--all] [--top N]\n"
	"                  [--no-inline] [--filter EXPR] -e SPEC [-e SPEC]...\n"
	"                  -- CMD [ARGS]\n"
	"       uprobe-cli count [-j] -e SPEC --by VALUE [--top N] [--size N]\n"
	"                  [--filter EXPR] -- CMD [ARGS]\n"
	"       uprobe-cli count [-j] -e SPEC --by stack [--top N]\n"
	"                  [--folded | --svg FILE] [--stack-size BYTES | --fp]\n"
	"                  -- CMD [ARGS]\n"
	"       uprobe-cli latency [-j] SPEC -- CMD [ARGS]\n"
	"       uprobe-cli trace [-j] [--no-inline] [--filter EXPR]\n"
	"                  [--stack [--stack-size BYTES | --fp]] SPEC [VALUE...]\n"
	"                  [-- CMD [ARGS]]\n"
	"       uprobe-cli hist [-j] [--no-inline] [--filter EXPR] SPEC VALUE\n"
	"                  [-- CMD [ARGS]]\n"
	"       uprobe-cli del NAME... | --all\n"
	"       uprobe-cli list [-j | --format=F]\n"
	"       uprobe-cli stat [-i SECONDS] [-n COUNT] [-j | --format=F]\n"
	"       uprobe-cli stat --format=openmetrics --textfile FILE [-i SECONDS] [-n COUNT]\n"
	"       uprobe-cli serve --listen HOST:PORT [--trap] [-e SPEC]...\n"
	"       uprobe-cli top [-j] [-i SECONDS] [-n COUNT] [--trap]\n"
	"                  (-p PID | [SPEC...] -- CMD [ARGS])\n"
	"       uprobe-cli funcs [-j] [--sdt] BINARY [GLOB]\n"
	"       uprobe-cli resolve SPEC [-p PID]\n"
	"       uprobe-cli help [COMMAND] | COMMAND --help\n"
	"       uprobe-cli [-j | --format=F] COMMAND ...\n"
	"       uprobe-cli --version | --help\n"
	"\n"
	"SPEC is BINARY:SYMBOL, BINARY:SYMBOL+OFFSET, BINARY:0xADDR,\n"
	"BINARY:FILE.c:LINE, BINARY:GLOB or BINARY:sdt:PROVIDER:NAME (an\n"
	"SDT marker); BINARY is a path, a program in $PATH or a library's\n"
	"short name (libc).  BINARY:SYMBOL is also every copy of the\n"
	"function inlined into its callers, unless --no-inline.\n"
	"SPEC%return is a return probe on a function's\n"
	"entry, which counts its returns too.  F is table, json or\n"
	"openmetrics.  VALUE is a C variable or parameter\n"
	"visible there (NAME, NAME->FIELD, NAME.FIELD, NAME[N]), $retval\n"
	"with %return, or a fetch argument (%di:u64), as NAME=VALUE to\n"
	"name it.  EXPR is a filter over the values, applied by the\n"
	"kernel: bytes > 4096 && name ~ \"lib*\".  See uprobe-cli(1).\n";

/*
 * Print the usage, of command @cmd alone if not NULL: its forms of the
 * synopsis, then what the words mean.
 */
static void usage_of(FILE *f, const char *cmd)
{
	size_t len = cmd ? strlen(cmd) : 0;
	const char *line, *nl;
	bool first = true, in = false;

	for (line = usage_text; *line != '\n'; line = nl + 1) {
		/* after "usage: ", or the spaces under it */
		const char *form = line + 7;

		nl = strchr(line, '\n');
		if (form[0] != ' ')
			in = !cmd || (!strncmp(form, "uprobe-cli ", 11) &&
				      !strncmp(form + 11, cmd, len) &&
				      (form[11 + len] == ' ' ||
				       form[11 + len] == '\n'));
		if (in)
			fprintf(f, "%s%.*s\n", first ? "usage: " : "       ",
				(int)(nl - form), form);
		first &= !in;
	}
	fputs(line, f);
}

static void usage(FILE *f)
{
	usage_of(f, NULL);
}

/*
 * The address in process @pid of file offset @offset of @path, from its
 * maps; 0 if the process does not map that part of the file.  The file
 * is known by its inode, and its device: the maps name it as the
 * process's mount namespace may, not as we reach it (up_root_of()).  A
 * file whose device the maps show otherwise (a btrfs subvolume's) is
 * known by its inode and its path; one replaced on disk since it was
 * mapped ("(deleted)") is another file.
 */
static unsigned long runtime_address(pid_t pid, const char *path,
				     unsigned long offset)
{
	char maps[64], line[PATH_MAX + 128], file[PATH_MAX];
	unsigned long start, end, pgoff, ino, addr = 0;
	unsigned int major, minor;
	struct stat st;
	FILE *f;
	int n;

	if (stat(path, &st))
		return 0;
	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	f = fopen(maps, "re");
	if (!f)
		return 0;
	while (!addr && fgets(line, sizeof(line), f)) {
		char perms[8];

		n = 0;
		if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu %4095s%n", &start,
			   &end, perms, &pgoff, &major, &minor, &ino,
			   file, &n) != 8 || perms[2] != 'x' ||
		    ino != st.st_ino ||
		    (makedev(major, minor) != st.st_dev &&
		     (strcmp(file, path) || strcmp(line + n, "\n"))))
			continue;
		if (offset >= pgoff && offset < pgoff + (end - start))
			addr = start + (offset - pgoff);
	}
	fclose(f);
	return addr;
}

static int by_name_cmp(const void *a, const void *b)
{
	const struct probe *x = *(const struct probe *const *)a;
	const struct probe *y = *(const struct probe *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x > y) - (x < y);
}

/*
 * Make the names of @ps[0..@n) unique, as perf probe does: of probes
 * that would share a name (one function name in two binaries, two
 * versions of one function), the first in order keeps it and the
 * others take "_1", "_2", ... (the name cut short to make room).  A
 * suffix may meet another probe's name: then again.  0, or -1.
 */
static int unique_names(struct probe *ps, int n)
{
	struct probe **by = malloc((n + 1) * sizeof(*by));
	bool again = true;

	if (!by)
		return -1;
	for (int round = 0; again && round < 8; round++) {
		for (int i = 0; i < n; i++)
			by[i] = &ps[i];
		qsort(by, n, sizeof(*by), by_name_cmp);
		again = false;
		for (int s = 0, i; s < n; s = i) {
			for (i = s + 1; i < n &&
			     !strcmp(by[i]->name, by[s]->name); i++) {
				char sfx[16];
				int len = snprintf(sfx, sizeof(sfx), "_%d",
						   i - s);

				if (strlen(by[i]->name) + len >= NAME_MAX_LEN)
					by[i]->name[NAME_MAX_LEN - 1 - len] = 0;
				strcat(by[i]->name, sfx);
				again = true;
			}
		}
	}
	free(by);
	return again ? -1 : 0;
}

/*
 * add: every spec is resolved before the kernel is told anything, so a
 * bad spec changes nothing; if the kernel refuses one probe, the ones
 * this command added are removed again.
 */
static int cmd_add(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "pid", required_argument, NULL, 'p' },
		{ "trap", no_argument, NULL, 'T' },
		{ "no-inline", no_argument, NULL, 'I' },
		{ NULL, 0, NULL, 0 },
	};
	int c, n = 0, ret = 0, i, r, bad = 0;
	char **lines = NULL, ref[32], func[64];
	struct probe *ps = NULL;
	const char *name = NULL;
	pid_t pid = 0;

	jump_ok = true;
	while ((c = getopt_long(argc, argv, "p:n:", opts, NULL)) != -1) {
		if (c == 'p')
			pid = parse_pos("pid", optarg);
		else if (c == 'n')
			name = optarg;
		else if (c == 'T')
			jump_ok = false;
		else if (c == 'I')
			up_no_inline = true;
		else
			return 2;
		if (c == 'p' && !pid)
			return 2;
	}
	if (optind >= argc)
		return usage_error("add: no probe given");
	if (name && (!*name || strlen(name) >= NAME_MAX_LEN ||
		     strpbrk(name, " \t\n:/")))
		return usage_error("bad probe name '%s'", name);
	for (int a = optind; a < argc && !ret; a++)
		ret = resolve_probes(argv[a], pid, false, &ps, &n);
	if (ret)
		goto out;
	if (name && n > 1) {
		ret = run_error("--name needs a spec that names one place (%d given)",
			  n);
		goto out;
	}
	if (any_return(ps, n) && need_returns()) {
		ret = 1;
		goto out;
	}
	lines = lines_new(n, LINE_MAX_LEN);
	if (!lines) {
		ret = run_error("out of memory");
		goto out;
	}
	for (i = 0; i < n; i++)
		if (name)
			snprintf(ps[i].name, sizeof(ps[i].name), "%s", name);
		else
			probe_name(ps[i].name, NAME_MAX_LEN, &ps[i]);
	if (unique_names(ps, n)) {
		ret = run_error("cannot give %d probes names of their own", n);
		goto out;
	}
	for (i = 0; i < n && !ret; i++) {
		struct probe *pr = &ps[i];
		const struct up_place *p = &pr->place;
		char kind = pr->ret ? 'r' : 'p';

		if (pid && p->ref_offset) {
			ret = run_error("%s: a marker with a semaphore is probed on its file, for every process (without -p)",
				  p->symbol);
		} else if (pid) {
			unsigned long addr = runtime_address(pid, p->path,
							     p->offset);

			if (!addr)
				ret = run_error("%s: process %d does not map %s:%#lx",
					  pr->name, pid, p->path, p->offset);
			snprintf(lines[i], LINE_MAX_LEN, "%c:%s %d:%#lx%s\n",
				 kind, pr->name, pid, addr,
				 func_text(pr, addr, func, sizeof(func)));
		} else {
			snprintf(lines[i], LINE_MAX_LEN, "%c:%s %s:%#lx%s%s\n",
				 kind, pr->name, p->path, p->offset,
				 ref_text(p, ref, sizeof(ref)),
				 func_text(pr, p->offset, func, sizeof(func)));
		}
	}
	r = ret ? 0 : place_probes(ps, lines, &n, &bad);
	if (r) {
		const struct up_place *p = &ps[bad].place;

		ret = run_error("%s (%s+%#lx, %s:%#lx): %s", ps[bad].name,
			  *p->symbol ? p->symbol : "?", p->sym_off, p->path,
			  p->offset, kernel_errmsg(r));
	}
out:
	lines_free(lines, n);
	free(ps);
	return ret;
}

static int cmd_del(int argc, char **argv)
{
	char line[128], path[512];
	int r, ret = 0;

	if (argc < 2)
		return usage_error("del: no probe name given (or --all)");
	if (!strcmp(argv[1], "--all")) {
		int fd;

		snprintf(path, sizeof(path), "%s/utprobe_events", tracefs);
		fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd < 0)
			return run_error("%s", kernel_errmsg(-errno));
		close(fd);
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		snprintf(line, sizeof(line), "-:%s\n", argv[i]);
		r = kernel_write(line);
		if (r == -ENOENT && access(tracefs, F_OK) == 0)
			ret = run_error("%s: no such probe", argv[i]);
		else if (r)
			ret = run_error("%s: %s", argv[i], kernel_errmsg(r));
	}
	return ret;
}

/*
 * The options of list, stat and funcs: the format, and those a command
 * takes, each where its pointer is not NULL.
 */
struct view_opts {
	double *interval;	/* stat's -i */
	int *count;		/* stat's -n */
	const char **textfile;	/* stat's --textfile */
	bool *sdt;		/* funcs' --sdt */
};

static int parse_format(int argc, char **argv, struct view_opts *o)
{
	static const struct option opts[] = {
		FORMAT_LONGOPTS,
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "sdt", no_argument, NULL, 's' },
		{ "textfile", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "jf:i:n:", opts, NULL)) != -1) {
		if (c == 'j' || c == 'f') {
			if (format_option(c, optarg))
				return 2;
		} else if (c == 'i' && o->interval) {
			char *end;

			*o->interval = strtod(optarg, &end);
			if (end == optarg || *end || !(*o->interval > 0))
				return usage_error("bad interval '%s'", optarg);
		} else if (c == 'n' && o->count) {
			*o->count = parse_pos("count", optarg);
			if (!*o->count)
				return 2;
		} else if (c == 's' && o->sdt) {
			*o->sdt = true;
		} else if (c == 't' && o->textfile) {
			*o->textfile = optarg;
		} else {
			return 2;
		}
	}
	return 0;
}

/* The probes @l[0..@n) as a JSON array; 0, or 1 after a message. */
static int print_probes_json(const struct listed *l, int n)
{
	json_writer_t *w = json_new();

	if (!w)
		return 1;
	jsonw_start_array(w);
	for (int i = 0; i < n; i++) {
		jsonw_start_object(w);
		json_string_field(w, "name", l[i].name);
		json_string_field(w, "target", l[i].target);
		jsonw_bool_field(w, "return", l[i].ret);
		json_string_field(w, "function", l[i].function);
		jsonw_uint_field(w, "address", l[i].address);
		jsonw_uint_field(w, "offset", l[i].offset);
		jsonw_lluint_field(w, "hits", l[i].hits);
		/* as the kernel says, if it does */
		if (*l[i].mode)
			json_string_field(w, "mode", l[i].mode);
		if (*l[i].why)
			json_string_field(w, "trap_reason", l[i].why);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_destroy(&w);
	return 0;
}

/*
 * The probes @l[0..@n) in format @fmt, with their hit rates since the
 * counts @prev as a table if not NULL; 0, or 1 after a message.
 */
static int print_probes(const struct listed *l, int n, enum format fmt,
			const unsigned long long *prev, double interval)
{
	if (fmt == JSON)
		return print_probes_json(l, n);
	if (fmt == OPENMETRICS) {
		metrics_write(stdout, METRICS_OPENMETRICS, l, n);
		return 0;
	}
	if (prev) {
		printf("%-24s %-40s %12s %12s\n", "NAME", "WHERE", "HITS",
		       "HITS/S");
		for (int i = 0; i < n; i++)
			printf("%-24s %-40s %12llu %12.1f\n", l[i].name,
			       l[i].where, l[i].hits,
			       (l[i].hits - (prev[i] <= l[i].hits ? prev[i] : 0)) /
			       interval);
		return 0;
	}
	printf("%-24s %-40s %-14s %-10s %12s %s\n", "NAME", "WHERE",
	       "ADDRESS", "OFFSET", "HITS", "MODE");
	for (int i = 0; i < n; i++) {
		char off[32] = "-", addr[32] = "-", mode[48] = "-";

		if (*l[i].path)
			snprintf(off, sizeof(off), "%#lx", l[i].offset);
		if (l[i].address)
			snprintf(addr, sizeof(addr), "%#lx", l[i].address);
		if (*l[i].mode)
			snprintf(mode, sizeof(mode), "%s%s%s", l[i].mode,
				 *l[i].why ? ":" : "", l[i].why);
		printf("%-24s %-40s %-14s %-10s %12llu %s\n", l[i].name,
		       l[i].where, addr, off, l[i].hits, mode);
	}
	return 0;
}

static int cmd_list(int argc, char **argv)
{
	struct view_opts o = { 0 };
	struct listed *l = NULL;
	int n, r = parse_format(argc, argv, &o);

	if (r)
		return r;
	n = read_probes(&l);
	if (n < 0)
		return run_error("%s", listing_errmsg(n));
	r = print_probes(l, n, out_fmt, NULL, 0);
	free(l);
	return r;
}

/*
 * The metrics of every probe into the file at @path, in the text
 * format of node_exporter's textfile collector, atomically: written
 * beside it, then renamed over it.  0, or 1 after a message.
 */
static int write_textfile(const char *path)
{
	char tmp[PATH_MAX + 32];
	struct listed *l = NULL;
	int n = read_probes(&l), err = 0, fd;
	FILE *f;

	if (n < 0)
		return run_error("%s", listing_errmsg(n));
	/* not *.prom: the collector does not read it half written */
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		err = errno;
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(l);
		return run_error("%s: %s", path, strerror(err));
	}
	/* for the collector, which runs as another user */
	fchmod(fd, 0644);
	metrics_write(f, METRICS_TEXT, l, n);
	free(l);
	if (ferror(f))
		err = EIO;
	if (fclose(f) && !err)
		err = errno;
	if (!err && rename(tmp, path))
		err = errno;
	if (err) {
		unlink(tmp);
		return run_error("%s: %s", path, strerror(err));
	}
	return 0;
}

/* stat --textfile: the file rewritten every @interval s, @count times */
static int stat_textfile(const char *path, double interval, int count)
{
	for (int round = 0; !count || round < count; round++) {
		if (round)
			usleep((useconds_t)(interval * 1e6));
		if (write_textfile(path))
			return 1;
	}
	return 0;
}

/* stat: the hits and hit rates, every INTERVAL seconds (COUNT times). */
static int cmd_stat(int argc, char **argv)
{
	double interval = 1;
	int count = 0, n, r;
	const char *textfile = NULL;
	struct view_opts o = {
		.interval = &interval, .count = &count, .textfile = &textfile,
	};
	unsigned long long *prev = NULL;
	struct listed *l = NULL;
	enum format fmt;

	r = parse_format(argc, argv, &o);
	if (r)
		return r;
	fmt = out_fmt;
	if (textfile && fmt != OPENMETRICS)
		return usage_error("stat --textfile writes metrics: give --format=openmetrics");
	if (textfile)
		return stat_textfile(textfile, interval, count);
	n = read_probes(&l);
	if (n < 0)
		return run_error("%s", listing_errmsg(n));
	for (int round = 0; !count || round < count; round++) {
		unsigned long long *more = realloc(prev, (n ? n : 1) *
						   sizeof(*prev));

		if (!more) {
			free(prev);
			free(l);
			return run_error("out of memory");
		}
		prev = more;
		for (int i = 0; i < n; i++)
			prev[i] = l[i].hits;
		free(l);
		usleep((useconds_t)(interval * 1e6));
		n = read_probes(&l);
		if (n < 0)
			return run_error("%s", listing_errmsg(n));
		r = print_probes(l, n, fmt, fmt == TABLE ? prev : NULL,
				 interval);
		fflush(stdout);
		if (r)
			break;
	}
	free(prev);
	free(l);
	return r;
}

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

/* count's probes @ps[0..@n) on @cmd as JSON; 0, or 1 after a message. */
static int print_count_json(const struct probe *ps, int n, const char *cmd)
{
	json_writer_t *w = json_new();

	if (!w)
		return 1;
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
			run_error("out of memory");
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
static int cmd_count(int argc, char **argv)
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
				ret = 2;
		} else if (c == 'b') {
			by = optarg;
		} else if (c == 't') {
			top = parse_pos("--top", optarg);
			if (!top)
				ret = 2;
		} else if (c == 's') {
			size = by_size(optarg);
			if (!size)
				ret = 2;
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
				ret = 2;
			stack_bytes = v;
			size_given = true;
		} else if (c == 'P') {
			stack_fp = stack_opt = true;
		} else {
			ret = 2;
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
			ret = count_by(specs[0], by, top ?: 10,
				       size ?: BY_SIZE, fmt, argv + optind);
		free(specs);
		return ret;
	}
	/* a filter's values are read in the function's own scope */
	if (filter_expr)
		up_no_inline = true;
	/* resolve everything first: a bad spec runs nothing */
	for (int i = 0; i < nspecs && !ret; i++)
		ret = resolve_probes(specs[i], 0, false, &ps, &n);
	free(specs);
	any_ret = any_return(ps, n);
	if (!ret && any_ret && filter_expr)
		ret = usage_error("count --filter: no return probes (the filter applies to a function's entry)");
	else if (!ret && any_ret)
		ret = need_returns();
	for (int i = 0; i < n && !ret; i++)
		run_name(&ps[i], "count", i);
	if (!ret && filter_expr)
		ret = count_filtered(ps, &n, argv + optind, &status);
	else if (!ret)
		ret = run_probed(ps, &n, argv + optind, &status, NULL);
	if (ret) {
		free(ps);
		return ret;
	}
	if (fmt == JSON) {
		ret = print_count_json(ps, n, argv[optind]);
		free(ps);
		return ret ? ret : status;
	}
	print_count(ps, n, fmt, any_ret, all, top);
	free(ps);
	return status;
}

/*
 * latency's return probe @pr on @cmd as JSON: its counts, then the
 * histogram's non-empty buckets.  0, or 1 after a message.
 */
static int print_latency_json(const struct probe *pr, const char *cmd)
{
	const struct up_returns *r = &pr->rets;
	unsigned long long lo, hi;
	json_writer_t *w = json_new();

	if (!w)
		return 1;
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
static int cmd_latency(int argc, char **argv)
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
			return 2;
	if (table_or_json("latency"))
		return 2;
	if (optind >= end)
		return usage_error("latency: no probe given (SPEC -- CMD [ARGS])");
	if (end < argc && end - optind > 1)
		return usage_error("latency: one probe (SPEC -- CMD [ARGS]), not '%s'",
				   argv[optind + 1]);
	spec = argv[optind];
	optind = end < argc ? end + 1 : optind + 1;
	if (optind >= argc)
		return usage_error("latency: no command given (-- CMD [ARGS])");
	ret = resolve_probes(spec, 0, true, &ps, &n);
	if (!ret && n != 1)
		ret = run_error("latency: '%s' names %d functions; give one", spec, n);
	if (!ret)
		ret = need_returns();
	if (!ret) {
		run_name(&ps[0], "latency", 0);
		ret = run_probed(ps, &n, argv + optind, &status, NULL);
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
	return ret ? ret : status;
}

/* A function of funcs: a table's row, or an object of the JSON writer @arg */
static void print_func(const struct up_place *p, unsigned long size,
		       unsigned int inlined, void *arg)
{
	json_writer_t *w = arg;

	if (!w) {
		printf("%-40s %#14lx %#10lx %6lu %7u\n", p->symbol, p->vaddr,
		       p->offset, size, inlined);
		return;
	}
	jsonw_start_object(w);
	json_string_field(w, "function", p->symbol);
	jsonw_uint_field(w, "address", p->vaddr);
	jsonw_uint_field(w, "offset", p->offset);
	jsonw_uint_field(w, "size", size);
	jsonw_uint_field(w, "inlined", inlined);
	jsonw_end_object(w);
}

/* An SDT marker of funcs --sdt, as print_func() prints a function */
static void print_marker(const struct up_sdt *m, const char *name,
			 json_writer_t *w)
{
	if (!w) {
		printf("%-40s %#14lx %#10lx %#10lx  %s\n", name, m->vaddr,
		       m->offset, m->sem_offset, m->args);
		return;
	}
	jsonw_start_object(w);
	json_string_field(w, "provider", m->provider);
	json_string_field(w, "name", m->name);
	jsonw_uint_field(w, "address", m->vaddr);
	jsonw_uint_field(w, "offset", m->offset);
	jsonw_uint_field(w, "semaphore_offset", m->sem_offset);
	json_string_field(w, "args", m->args);
	jsonw_end_object(w);
}

/* The array that ends a JSON document of funcs, if @w is a writer */
static void end_array(json_writer_t *w)
{
	if (!w)
		return;
	jsonw_end_array(w);
	jsonw_destroy(&w);
}

/*
 * The header of funcs' table, @header, or for JSON (@json) the writer
 * whose array holds the rows, in *@w.  0, or 1 after a message.
 */
static int begin_rows(bool json, const char *header, json_writer_t **w)
{
	*w = NULL;
	if (!json) {
		fputs(header, stdout);
		return 0;
	}
	*w = json_new();
	if (!*w)
		return 1;
	jsonw_start_array(*w);
	return 0;
}

/* funcs --sdt: the SDT markers of @path matching @glob (PROVIDER:NAME) */
static int print_markers(const char *path, const char *glob, bool json)
{
	struct up_binary b;
	struct up_sdt *m;
	char err[1024], name[160], header[128];
	json_writer_t *w;
	int n;

	if (up_binary_open(path, &b, err, sizeof(err)))
		return run_error("%s", err);
	n = up_sdt_markers(&b, &m, err, sizeof(err));
	up_binary_close(&b);
	if (n < 0)
		return run_error("%s: %s", path, err);
	snprintf(header, sizeof(header), "%-40s %14s %10s %10s  %s\n",
		 "MARKER", "ADDRESS", "OFFSET", "SEMAPHORE", "ARGUMENTS");
	if (begin_rows(json, header, &w)) {
		free(m);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s:%s", m[i].provider,
			 m[i].name);
		if (!glob || !fnmatch(glob, name, 0))
			print_marker(&m[i], name, w);
	}
	end_array(w);
	free(m);
	return 0;
}

/* funcs' rows, begun at the first one (or at the end, when there is none) */
struct func_rows {
	const char *header;
	bool json;
	bool begun;
	bool failed;
	json_writer_t *w;
};

static void func_row(const struct up_place *p, unsigned long size,
		     unsigned int inlined, void *arg)
{
	struct func_rows *fr = arg;

	if (!fr->begun) {
		fr->begun = true;
		fr->failed = begin_rows(fr->json, fr->header, &fr->w);
	}
	if (!fr->failed)
		print_func(p, size, inlined, fr->w);
}

/*
 * funcs: the functions of @path matching @glob.  The table's header or
 * the JSON array begins only with the first row, so that a file libdwfl
 * refuses prints its error alone, one JSON document in JSON mode.
 */
static int print_funcs(const char *path, const char *glob, bool json)
{
	char err[1024], header[128];
	struct func_rows fr = { .header = header, .json = json };
	int r;

	snprintf(header, sizeof(header), "%-40s %14s %10s %6s %7s\n",
		 "FUNCTION", "ADDRESS", "OFFSET", "SIZE", "INLINED");
	r = up_functions(path, glob, func_row, &fr, err, sizeof(err));
	if (!r && !fr.begun)
		fr.failed = begin_rows(json, header, &fr.w);
	if (fr.failed)
		return 1;
	end_array(fr.w);
	return r ? run_error("%s", err) : 0;
}

static int cmd_funcs(int argc, char **argv)
{
	char path[PATH_MAX], err[1024];
	bool sdt = false;
	struct view_opts o = { .sdt = &sdt };
	int r = parse_format(argc, argv, &o);
	const char *glob;

	if (r)
		return r;
	if (out_fmt == OPENMETRICS)
		return usage_error("funcs: no counts to print as openmetrics (table or json)");
	if (optind >= argc)
		return usage_error("funcs: no binary given");
	if (up_find_binary(argv[optind], 0, path, sizeof(path), err,
			   sizeof(err)))
		return run_error("%s", err);
	glob = optind + 1 < argc ? argv[optind + 1] : NULL;
	if (sdt)
		return print_markers(path, glob, out_fmt == JSON);
	return print_funcs(path, glob, out_fmt == JSON);
}

static int cmd_resolve(int argc, char **argv)
{
	struct probe *ps = NULL;
	pid_t pid = 0;
	int c, n = 0;

	while ((c = getopt(argc, argv, "+p:")) != -1) {
		pid = c == 'p' ? parse_pos("pid", optarg) : 0;
		if (!pid)
			return 2;
	}
	if (optind >= argc)
		return usage_error("resolve: no probe given");
	if (resolve_probes(argv[optind], pid, false, &ps, &n))
		return 1;
	for (int i = 0; i < n; i++) {
		const struct up_place *p = &ps[i].place;

		printf("%s %#lx %#lx %s+%#lx%s\n", p->path, p->offset, p->vaddr,
		       *p->symbol ? p->symbol : "?", p->sym_off,
		       ps[i].ret ? "%return" : "");
	}
	free(ps);
	return 0;
}

/*
 * A command: its name, and what runs it, its argv[0] "uprobe-cli: NAME"
 * (getopt's messages begin with it).
 */
struct cmd {
	const char *name;
	int (*func)(int argc, char **argv);
};

static const struct cmd cmds[] = {
	{ "add",	cmd_add },
	{ "del",	cmd_del },
	{ "count",	cmd_count },
	{ "latency",	cmd_latency },
	{ "trace",	cmd_trace },
	{ "serve",	cmd_serve },
	{ "top",	cmd_top },
	{ "hist",	cmd_hist },
	{ "list",	cmd_list },
	{ "stat",	cmd_stat },
	{ "funcs",	cmd_funcs },
	{ "resolve",	cmd_resolve },
};

static const struct cmd *cmd_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(name, cmds[i].name))
			return &cmds[i];
	return NULL;
}

/* help [COMMAND]: the usage, or that command's, on stdout. */
static int cmd_help(int argc, char **argv)
{
	if (argc > 2)
		return usage_error("help: one command at most, not '%s'",
				   argv[2]);
	if (argc == 2 && strcmp(argv[1], "help") && !cmd_find(argv[1]))
		return usage_error("help: %s: unknown command (see uprobe-cli --help)",
				   argv[1]);
	usage_of(stdout, argc == 2 ? argv[1] : NULL);
	return 0;
}

/*
 * Run the command argv[0] names, with its arguments; or print its usage
 * if --help is among its options (before any "--").
 */
static int cmd_select(int argc, char **argv)
{
	const struct cmd *c = cmd_find(argv[0]);
	char name[32];

	if (!strcmp(argv[0], "help"))
		return cmd_help(argc, argv);
	if (!c)
		return usage_error("%s: unknown command (see uprobe-cli --help)",
				   argv[0]);
	for (int i = 1; i < dashes_at(argc, argv); i++) {
		if (!strcmp(argv[i], "--help")) {
			usage_of(stdout, c->name);
			return 0;
		}
	}
	/* what getopt's messages begin with, as ours do */
	snprintf(name, sizeof(name), "uprobe-cli: %s", c->name);
	argv[0] = name;
	return c->func(argc, argv);
}

static void version(void)
{
	printf("uprobe-cli %s (elfutils %s)\n", UPROBE_CLI_VERSION,
	       dwfl_version(NULL));
}

/*
 * The options before the command: --help and --version, which end the
 * run (-1), and the output format, which every command shares.  0, -1,
 * or the exit status of an error after a message.
 */
static int global_options(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		FORMAT_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hVjf:", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return -1;
		} else if (c == 'V') {
			version();
			return -1;
		} else if (c == 'j' || c == 'f') {
			if (format_option(c, optarg))
				return 2;
		} else if (c == ':') {
			return usage_error("%s: give a format (table, json, openmetrics)",
					   argv[optind - 1]);
		} else if (!strncmp(argv[optind - 1], "--", 2)) {
			return usage_error("%s: unknown option (see uprobe-cli --help)",
				   argv[optind - 1]);
		} else {
			/* argv[optind - 1] may be a cluster it is inside */
			return usage_error("-%c: unknown option (see uprobe-cli --help)",
				   optopt);
		}
	}
	opterr = 1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *env = getenv("UPROBE_CLI_TRACEFS");
	int ret;

	if (env)
		tracefs = env;
	/*
	 * A debug file fetched from a debuginfod server (DEBUGINFOD_URLS)
	 * may take a while: libdebuginfod shows its progress on a terminal.
	 * Not in the command run (see run_probed()), whose environment is
	 * the user's.
	 */
	if (isatty(STDERR_FILENO) && !getenv("DEBUGINFOD_PROGRESS")) {
		setenv("DEBUGINFOD_PROGRESS", "1", 0);
		progress_set = true;
	}
	ret = global_options(argc, argv);
	if (ret)
		return ret < 0 ? 0 : ret;
	argc -= optind;
	argv += optind;
	if (!argc) {
		usage(stderr);
		return 2;
	}
	/* each command parses its own options, argv[0] its name */
	optind = 0;
	return cmd_select(argc, argv);
}
