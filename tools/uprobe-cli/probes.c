// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe-cli add, del, list and stat: probes that stay until deleted,
 * and what they counted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "json_writer.h"
#include "metrics.h"

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
 * suffix may meet another probe's name: then again.  0, -ENOMEM, or
 * -EEXIST if names are still shared after a few rounds; no message.
 */
static int unique_names(struct probe *ps, int n)
{
	struct probe **by = malloc((n + 1) * sizeof(*by));
	bool again = true;

	if (!by)
		return -ENOMEM;
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
	return again ? -EEXIST : 0;
}

/*
 * add: every spec is resolved before the kernel is told anything, so a
 * bad spec changes nothing; if the kernel refuses one probe, the ones
 * this command added are removed again.
 */
int cmd_add(int argc, char **argv)
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
			return EXIT_USAGE;
		if (c == 'p' && !pid)
			return EXIT_USAGE;
	}
	if (optind >= argc)
		return usage_error("add: no probe given");
	if (name && (!*name || strlen(name) >= NAME_MAX_LEN ||
		     strpbrk(name, " \t\n:/")))
		return usage_error("bad probe name '%s'", name);
	for (int a = optind; a < argc && !ret; a++)
		ret = exit_status(resolve_probes(argv[a], pid, false, &ps,
						 &n));
	if (ret)
		goto out;
	if (name && n > 1) {
		ret = run_error("--name needs a spec that names one place (%d given)",
			  n);
		goto out;
	}
	if (any_return(ps, n) && need_returns()) {
		ret = EXIT_FAILURE;
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

int cmd_del(int argc, char **argv)
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

/* The probes @l[0..@n) as a JSON array; 0, or -ENOMEM after a message. */
static int print_probes_json(const struct listed *l, int n)
{
	json_writer_t *w = json_new();

	if (!w)
		return -ENOMEM;
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
 * counts @prev as a table if not NULL; 0, or -errno after a message.
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

int cmd_list(int argc, char **argv)
{
	struct view_opts o = { 0 };
	struct listed *l = NULL;
	int n, r;

	if (parse_format(argc, argv, &o))
		return EXIT_USAGE;
	n = read_probes(&l);
	if (n < 0)
		return run_error("%s", listing_errmsg(n));
	r = print_probes(l, n, out_fmt, NULL, 0);
	free(l);
	return r ? EXIT_FAILURE : 0;
}

/*
 * The metrics of every probe into the file at @path, in the text
 * format of node_exporter's textfile collector, atomically: written
 * beside it, then renamed over it.  0, or -errno after a message.
 */
static int write_textfile(const char *path)
{
	char tmp[PATH_MAX + 32];
	struct listed *l = NULL;
	int n = read_probes(&l), err = 0, fd;
	FILE *f;

	if (n < 0)
		return print_error(n, "%s", listing_errmsg(n));
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
		return print_error(-err, "%s: %s", path, strerror(err));
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
		return print_error(-err, "%s: %s", path, strerror(err));
	}
	return 0;
}

/*
 * stat --textfile: the file rewritten every @interval s, @count times.
 * 0, or -errno after a message.
 */
static int stat_textfile(const char *path, double interval, int count)
{
	int r = 0;

	for (int round = 0; !r && (!count || round < count); round++) {
		if (round)
			usleep((useconds_t)(interval * 1e6));
		r = write_textfile(path);
	}
	return r;
}

/* stat: the hits and hit rates, every INTERVAL seconds (COUNT times). */
int cmd_stat(int argc, char **argv)
{
	double interval = 1;
	int count = 0, n, r = 0;
	const char *textfile = NULL;
	struct view_opts o = {
		.interval = &interval, .count = &count, .textfile = &textfile,
	};
	unsigned long long *prev = NULL;
	struct listed *l = NULL;
	enum format fmt;

	if (parse_format(argc, argv, &o))
		return EXIT_USAGE;
	fmt = out_fmt;
	if (textfile && fmt != OPENMETRICS)
		return usage_error("stat --textfile writes metrics: give --format=openmetrics");
	if (textfile)
		return stat_textfile(textfile, interval, count) ?
		       EXIT_FAILURE : 0;
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
	return r ? EXIT_FAILURE : 0;
}
