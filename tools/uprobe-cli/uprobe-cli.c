// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe-cli: probe functions of programs and libraries with utprobes and
 * count their hits.  Specs are resolved to file offsets with elfutils and
 * handed to the kernel through tracefs (utprobe_events, utprobe_profile).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "resolve.h"

static const char *tracefs = "/sys/kernel/tracing";

/* The kernel's limit on a probe name, its terminating NUL included. */
#define NAME_MAX_LEN	64

static int die(const char *fmt, ...)
{
	va_list ap;

	fputs("uprobe-cli: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

/* A positive number from @arg, or 0 after a message naming @what. */
static long parse_pos(const char *what, const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v <= 0) {
		die("bad %s '%s'", what, arg);
		return 0;
	}
	return v;
}

static void usage(FILE *f)
{
	fputs("usage: uprobe-cli add SPEC... [-p PID] [--name NAME]\n"
	      "       uprobe-cli count [-j | --format=F] -e SPEC [-e SPEC]... -- CMD [ARGS]\n"
	      "       uprobe-cli del NAME... | --all\n"
	      "       uprobe-cli list [-j | --format=F]\n"
	      "       uprobe-cli stat [-i SECONDS] [-n COUNT] [-j | --format=F]\n"
	      "       uprobe-cli funcs [-j] BINARY [GLOB]\n"
	      "       uprobe-cli resolve SPEC [-p PID]\n"
	      "\n"
	      "SPEC is BINARY:SYMBOL, BINARY:SYMBOL+OFFSET, BINARY:0xADDR,\n"
	      "BINARY:FILE.c:LINE or BINARY:GLOB; BINARY is a path, a program in\n"
	      "$PATH or a library's short name (libc).  F is table, json or\n"
	      "openmetrics.  See uprobe-cli(1).\n",
	      f);
}

/* Write one definition to utprobe_events; 0 or -errno. */
static int kernel_write(const char *line)
{
	char path[512];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/utprobe_events", tracefs);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, line, strlen(line)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static const char *kernel_errmsg(int err)
{
	switch (err) {
	case -ENOENT:
		return "this kernel has no utprobes (no utprobe_events in tracefs)";
	case -EPERM:
	case -EACCES:
		return "permission denied (probes need CAP_SYS_ADMIN)";
	case -EOPNOTSUPP:
		return "the kernel refuses to probe this instruction";
	case -EILSEQ:
		return "no valid instruction there";
	case -EEXIST:
		return "a probe with this name exists already";
	case -EBUSY:
		return "another breakpoint is there already (a debugger's or a mainline uprobe's)";
	case -ESRCH:
		return "no such process";
	default:
		return strerror(-err);
	}
}

/*
 * The address in process @pid of file offset @offset of @path, from its
 * maps; 0 if the process does not map that part of the file.
 */
static unsigned long runtime_address(pid_t pid, const char *path,
				     unsigned long offset)
{
	char maps[64], line[PATH_MAX + 128], file[PATH_MAX];
	unsigned long start, end, pgoff, addr = 0;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	f = fopen(maps, "re");
	if (!f)
		return 0;
	while (!addr && fgets(line, sizeof(line), f)) {
		char perms[8];

		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &start, &end,
			   perms, &pgoff, file) != 5 || strcmp(file, path) ||
		    perms[2] != 'x')
			continue;
		if (offset >= pgoff && offset < pgoff + (end - start))
			addr = start + (offset - pgoff);
	}
	fclose(f);
	return addr;
}

/* A probe name from a symbol: letters, digits and underscores. */
static void probe_name(char *out, size_t len, const struct up_place *p)
{
	const char *s = *p->symbol ? p->symbol : "probe";
	/* leave room for "_OFFSET" (at most 17 characters) */
	size_t i, k = 0, room = len - 1 - (p->sym_off ? 17 : 0);

	if (!isalpha((unsigned char)*s) && *s != '_')
		out[k++] = '_';
	for (i = 0; s[i] && k < room; i++)
		out[k++] = isalnum((unsigned char)s[i]) ? s[i] : '_';
	out[k] = '\0';
	if (*p->symbol && p->sym_off)
		snprintf(out + k, len - k, "_%lx", p->sym_off);
}

/* Remove the probes named in @names[0..@n). */
static void remove_probes(char (*names)[96], int n)
{
	char line[128];

	for (int i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "-:%s\n", names[i]);
		kernel_write(line);
	}
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
		{ NULL, 0, NULL, 0 },
	};
	char err[1024], line[PATH_MAX + 256], (*names)[96] = NULL;
	struct up_place *all = NULL;
	const char *name = NULL;
	int c, n = 0, ret = 0, i;
	pid_t pid = 0;

	while ((c = getopt_long(argc, argv, "p:n:", opts, NULL)) != -1) {
		if (c == 'p')
			pid = parse_pos("pid", optarg);
		else if (c == 'n')
			name = optarg;
		else
			return 2;
		if (c == 'p' && !pid)
			return 2;
	}
	if (optind >= argc)
		return die("add: no probe given");
	if (name && (!*name || strlen(name) >= NAME_MAX_LEN ||
		     strpbrk(name, " \t\n:/")))
		return die("bad probe name '%s'", name);
	for (int a = optind; a < argc; a++) {
		struct up_place *p;
		int k = up_resolve(argv[a], pid, &p, err, sizeof(err));

		if (k < 0) {
			ret = die("%s", err);
			goto out;
		}
		all = realloc(all, (n + k) * sizeof(*all));
		if (!all) {
			ret = die("out of memory");
			goto out;
		}
		memcpy(all + n, p, k * sizeof(*p));
		n += k;
		free(p);
	}
	if (name && n > 1) {
		ret = die("--name needs a spec that names one place (%d given)",
			  n);
		goto out;
	}
	names = calloc(n, sizeof(*names));
	if (!names) {
		ret = die("out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct up_place *p = &all[i];
		int r;

		if (name)
			snprintf(names[i], sizeof(names[i]), "%s", name);
		else
			probe_name(names[i], NAME_MAX_LEN, p);
		if (pid) {
			unsigned long addr = runtime_address(pid, p->path,
							     p->offset);

			if (!addr) {
				ret = die("%s: process %d does not map %s:%#lx",
					  names[i], pid, p->path, p->offset);
				break;
			}
			snprintf(line, sizeof(line), "p:%s %d:%#lx\n",
				 names[i], pid, addr);
		} else {
			snprintf(line, sizeof(line), "p:%s %s:%#lx\n",
				 names[i], p->path, p->offset);
		}
		r = kernel_write(line);
		if (r) {
			ret = die("%s (%s+%#lx, %s:%#lx): %s", names[i],
				  *p->symbol ? p->symbol : "?", p->sym_off,
				  p->path, p->offset, kernel_errmsg(r));
			break;
		}
	}
	if (ret)
		remove_probes(names, i);
out:
	free(names);
	free(all);
	return ret;
}

static int cmd_del(int argc, char **argv)
{
	char line[128], path[512];
	int r, ret = 0;

	if (argc < 2)
		return die("del: no probe name given (or --all)");
	if (!strcmp(argv[1], "--all")) {
		int fd;

		snprintf(path, sizeof(path), "%s/utprobe_events", tracefs);
		fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd < 0)
			return die("%s", kernel_errmsg(-errno));
		close(fd);
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		snprintf(line, sizeof(line), "-:%s\n", argv[i]);
		r = kernel_write(line);
		if (r == -ENOENT && access(tracefs, F_OK) == 0)
			ret = die("%s: no such probe", argv[i]);
		else if (r)
			ret = die("%s: %s", argv[i], kernel_errmsg(r));
	}
	return ret;
}

/* One probe as utprobe_profile lists it, described with the ELF file. */
struct listed {
	char name[80];
	char target[PATH_MAX + 32];	/* as registered */
	char where[PATH_MAX + 64];	/* binary:function+offset, or target */
	char path[PATH_MAX];		/* "" for a probe on a process */
	char function[256];
	unsigned long address;		/* link-time, or in the process */
	unsigned long offset;
	unsigned long long hits;
};

static int read_probes(struct listed **out)
{
	char path[512], line[PATH_MAX + 256];
	struct listed *l = NULL;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/utprobe_profile", tracefs);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *last = strrchr(line, ' '), *colon, *sp;
		struct listed *e;
		struct up_place p;

		l = realloc(l, (n + 1) * sizeof(*l));
		e = &l[n];
		memset(e, 0, sizeof(*e));
		if (!last || sscanf(line, "%79s", e->name) != 1 ||
		    sscanf(last, "%llu", &e->hits) != 1)
			continue;
		*last = '\0';
		snprintf(e->target, sizeof(e->target), "%s",
			 line + strlen(e->name) + 1);
		snprintf(e->where, sizeof(e->where), "%s", e->target);
		sp = strchr(e->target, ' ');
		colon = strrchr(e->target, ':');
		if (e->target[0] == '/' && colon && (!sp || colon < sp)) {
			snprintf(e->path, sizeof(e->path), "%.*s",
				 (int)(colon - e->target), e->target);
			e->offset = strtoul(colon + 1, NULL, 0);
			if (!up_describe(e->path, e->offset, &p))
				e->address = p.vaddr;
			if (e->address && *p.symbol) {
				snprintf(e->function, sizeof(e->function), "%s",
					 p.symbol);
				snprintf(e->where, sizeof(e->where), "%s:%s+%#lx",
					 strrchr(e->path, '/') + 1, p.symbol,
					 p.sym_off);
			}
		} else if (colon) {
			e->address = strtoul(colon + 1, NULL, 0);
		}
		n++;
	}
	fclose(f);
	*out = l;
	return n;
}

enum format { TABLE, JSON, OPENMETRICS };

/* Set *@fmt from the name @arg; 0, or 2 after a message. */
static int set_format(const char *arg, enum format *fmt)
{
	if (!strcmp(arg, "json"))
		*fmt = JSON;
	else if (!strcmp(arg, "openmetrics"))
		*fmt = OPENMETRICS;
	else if (!strcmp(arg, "table"))
		*fmt = TABLE;
	else
		return die("unknown format '%s' (table, json, openmetrics)",
			   arg) + 1;
	return 0;
}

/* @s as a JSON string, quoted. */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* @s as an OpenMetrics label value, quoted. */
static void label_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", stdout);
		else
			putchar(*s);
	}
	putchar('"');
}

static int parse_format(int argc, char **argv, enum format *fmt,
			double *interval, int *count)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "format", required_argument, NULL, 'f' },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*fmt = TABLE;
	while ((c = getopt_long(argc, argv, "jf:i:n:", opts, NULL)) != -1) {
		if (c == 'j') {
			*fmt = JSON;
		} else if (c == 'f') {
			if (set_format(optarg, fmt))
				return 2;
		} else if (c == 'i' && interval) {
			char *end;

			*interval = strtod(optarg, &end);
			if (end == optarg || *end || !(*interval > 0))
				return die("bad interval '%s'", optarg) + 1;
		} else if (c == 'n' && count) {
			*count = parse_pos("count", optarg);
			if (!*count)
				return 2;
		} else {
			return 2;
		}
	}
	return 0;
}

static void print_probes(const struct listed *l, int n, enum format fmt,
			 const unsigned long long *prev, double interval)
{
	if (fmt == JSON) {
		printf("[");
		for (int i = 0; i < n; i++) {
			printf("%s{\"name\": ", i ? ", " : "");
			json_str(l[i].name);
			printf(", \"target\": ");
			json_str(l[i].target);
			printf(", \"function\": ");
			json_str(l[i].function);
			printf(", \"address\": %lu, \"offset\": %lu, \"hits\": %llu}",
			       l[i].address, l[i].offset, l[i].hits);
		}
		printf("]\n");
		return;
	}
	if (fmt == OPENMETRICS) {
		printf("# TYPE uprobe_hits counter\n"
		       "# HELP uprobe_hits Times a utprobe was hit.\n");
		for (int i = 0; i < n; i++) {
			printf("uprobe_hits_total{probe=");
			label_str(l[i].name);
			printf(",target=");
			label_str(l[i].target);
			printf(",function=");
			label_str(l[i].function);
			printf("} %llu\n", l[i].hits);
		}
		printf("# EOF\n");
		return;
	}
	if (prev) {
		printf("%-24s %-40s %12s %12s\n", "NAME", "WHERE", "HITS",
		       "HITS/S");
		for (int i = 0; i < n; i++)
			printf("%-24s %-40s %12llu %12.1f\n", l[i].name,
			       l[i].where, l[i].hits,
			       (l[i].hits - (prev[i] <= l[i].hits ? prev[i] : 0)) /
			       interval);
		return;
	}
	printf("%-24s %-40s %-14s %-10s %12s\n", "NAME", "WHERE", "ADDRESS",
	       "OFFSET", "HITS");
	for (int i = 0; i < n; i++) {
		char off[32] = "-", addr[32] = "-";

		if (*l[i].path)
			snprintf(off, sizeof(off), "%#lx", l[i].offset);
		if (l[i].address)
			snprintf(addr, sizeof(addr), "%#lx", l[i].address);
		printf("%-24s %-40s %-14s %-10s %12llu\n", l[i].name,
		       l[i].where, addr, off, l[i].hits);
	}
}

static int cmd_list(int argc, char **argv)
{
	struct listed *l = NULL;
	enum format fmt;
	int n, r = parse_format(argc, argv, &fmt, NULL, NULL);

	if (r)
		return r;
	n = read_probes(&l);
	if (n < 0)
		return die("%s", kernel_errmsg(n));
	print_probes(l, n, fmt, NULL, 0);
	free(l);
	return 0;
}

/* stat: the hits and hit rates, every INTERVAL seconds (COUNT times). */
static int cmd_stat(int argc, char **argv)
{
	double interval = 1;
	int count = 0, n, r;
	enum format fmt;
	unsigned long long *prev = NULL;
	struct listed *l = NULL;

	r = parse_format(argc, argv, &fmt, &interval, &count);
	if (r)
		return r;
	n = read_probes(&l);
	if (n < 0)
		return die("%s", kernel_errmsg(n));
	for (int round = 0; !count || round < count; round++) {
		prev = realloc(prev, (n ? n : 1) * sizeof(*prev));
		for (int i = 0; i < n; i++)
			prev[i] = l[i].hits;
		free(l);
		usleep((useconds_t)(interval * 1e6));
		n = read_probes(&l);
		if (n < 0)
			return die("%s", kernel_errmsg(n));
		print_probes(l, n, fmt, fmt == TABLE ? prev : NULL, interval);
		fflush(stdout);
	}
	free(prev);
	free(l);
	return 0;
}

/* The hit count of probe @name in utprobe_profile, or -1. */
static long long kernel_hits(const char *name)
{
	char path[512], line[PATH_MAX + 256], want[96];
	long long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/utprobe_profile", tracefs);
	snprintf(want, sizeof(want), "%s ", name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, want, strlen(want)))
			sscanf(strrchr(line, ' '), "%lld", &n);
	fclose(f);
	return n;
}

struct counted {
	char name[96];
	struct up_place place;
};

/*
 * count: run CMD with the probes limited to its process tree (the
 * kernel's tree= scope), then print how often each was hit.
 */
static int cmd_count(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "format", required_argument, NULL, 'f' },
		{ "event", required_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 },
	};
	struct counted *cs = NULL;
	char err[1024], line[PATH_MAX + 256];
	int c, n = 0, ret = 0, go[2], st = 0;
	const char **specs = calloc(argc, sizeof(*specs));
	enum format fmt = TABLE;
	int nspecs = 0;
	pid_t pid;

	while ((c = getopt_long(argc, argv, "+e:jf:", opts, NULL)) != -1) {
		if (c == 'e')
			specs[nspecs++] = optarg;
		else if (c == 'j')
			fmt = JSON;
		else if (c != 'f' || set_format(optarg, &fmt))
			return 2;
	}
	if (!nspecs)
		return die("count: no probe given (-e SPEC)");
	if (optind >= argc)
		return die("count: no command given (-- CMD [ARGS])");
	/* resolve everything first: a bad spec runs nothing */
	for (int i = 0; i < nspecs; i++) {
		struct up_place *p;
		int k = up_resolve(specs[i], 0, &p, err, sizeof(err));

		if (k < 0)
			return die("%s", err);
		cs = realloc(cs, (n + k) * sizeof(*cs));
		for (int j = 0; j < k; j++) {
			char base[64];

			probe_name(base, sizeof(base), &p[j]);
			snprintf(cs[n].name, NAME_MAX_LEN, "count%d_%d_%.32s",
				 getpid(), n, base);
			cs[n++].place = p[j];
		}
		free(p);
	}
	if (pipe(go))
		return die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		return die("fork: %s", strerror(errno));
	if (pid == 0) {
		char x;

		close(go[1]);
		if (read(go[0], &x, 1) != 1)
			_exit(127);
		close(go[0]);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "uprobe-cli: %s: %s\n", argv[optind],
			strerror(errno));
		_exit(127);
	}
	close(go[0]);
	for (int i = 0; i < n && !ret; i++) {
		int r;

		snprintf(line, sizeof(line), "p:%s %s:%#lx tree=%d\n",
			 cs[i].name, cs[i].place.path, cs[i].place.offset, pid);
		r = kernel_write(line);
		if (r) {
			ret = die("%s+%#lx (%s:%#lx): %s", cs[i].place.symbol,
				  cs[i].place.sym_off, cs[i].place.path,
				  cs[i].place.offset, kernel_errmsg(r));
			for (int j = 0; j < i; j++) {
				snprintf(line, sizeof(line), "-:%s\n",
					 cs[j].name);
				kernel_write(line);
			}
		}
	}
	if (ret) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return ret;
	}
	if (write(go[1], "g", 1) != 1)
		ret = die("cannot start %s", argv[optind]);
	close(go[1]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (fmt == JSON) {
		printf("{\"command\": ");
		json_str(argv[optind]);
		printf(", \"probes\": [");
	} else if (fmt == OPENMETRICS) {
		printf("# TYPE uprobe_hits counter\n"
		       "# HELP uprobe_hits Times a utprobe was hit.\n");
	} else {
		printf("%14s  %s\n", "HITS", "FUNCTION");
	}
	for (int i = 0; i < n; i++) {
		long long hits = kernel_hits(cs[i].name);
		const struct up_place *p = &cs[i].place;
		const char *bin = strrchr(p->path, '/') + 1;

		if (fmt == JSON) {
			printf("%s{\"binary\": ", i ? ", " : "");
			json_str(p->path);
			printf(", \"function\": ");
			json_str(p->symbol);
			printf(", \"offset\": %lu, \"file_offset\": %lu, \"hits\": %lld}",
			       p->sym_off, p->offset, hits);
		} else if (fmt == OPENMETRICS) {
			printf("uprobe_hits_total{binary=");
			label_str(p->path);
			printf(",function=");
			label_str(p->symbol);
			printf(",offset=\"%lu\"} %lld\n", p->sym_off, hits);
		} else if (p->sym_off) {
			printf("%14lld  %s:%s+%#lx\n", hits, bin, p->symbol,
			       p->sym_off);
		} else {
			printf("%14lld  %s:%s\n", hits, bin,
			       *p->symbol ? p->symbol : "?");
		}
		snprintf(line, sizeof(line), "-:%s\n", cs[i].name);
		kernel_write(line);
	}
	if (fmt == JSON)
		printf("]}\n");
	else if (fmt == OPENMETRICS)
		printf("# EOF\n");
	free(cs);
	free(specs);
	if (ret)
		return ret;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void print_func(const struct up_place *p, unsigned long size,
		       void *arg)
{
	int *json = arg;

	if (!*json) {
		printf("%-40s %#14lx %#10lx %6lu\n", p->symbol, p->vaddr,
		       p->offset, size);
		return;
	}
	printf("%s{\"function\": ", *json > 1 ? ", " : "");
	json_str(p->symbol);
	printf(", \"address\": %lu, \"offset\": %lu, \"size\": %lu}",
	       p->vaddr, p->offset, size);
	*json = 2;
}

static int cmd_funcs(int argc, char **argv)
{
	char path[PATH_MAX], err[1024];
	enum format fmt;
	int json, r = parse_format(argc, argv, &fmt, NULL, NULL);

	if (r)
		return r;
	if (fmt == OPENMETRICS)
		return die("funcs: no counts to print as openmetrics (table or json)");
	if (optind >= argc)
		return die("funcs: no binary given");
	if (up_find_binary(argv[optind], 0, path, sizeof(path), err,
			   sizeof(err)))
		return die("%s", err);
	json = fmt == JSON;
	if (json)
		printf("[");
	else
		printf("%-40s %14s %10s %6s\n", "FUNCTION", "ADDRESS", "OFFSET",
		       "SIZE");
	if (up_functions(path, optind + 1 < argc ? argv[optind + 1] : NULL,
			 print_func, &json, err, sizeof(err))) {
		if (json)
			printf("]\n");
		return die("%s", err);
	}
	if (json)
		printf("]\n");
	return 0;
}

static int cmd_resolve(int argc, char **argv)
{
	struct up_place *p;
	char err[1024];
	pid_t pid = 0;
	int c, n;

	while ((c = getopt(argc, argv, "+p:")) != -1) {
		pid = c == 'p' ? parse_pos("pid", optarg) : 0;
		if (!pid)
			return 2;
	}
	if (optind >= argc)
		return die("resolve: no probe given");
	n = up_resolve(argv[optind], pid, &p, err, sizeof(err));
	if (n < 0)
		return die("%s", err);
	for (int i = 0; i < n; i++)
		printf("%s %#lx %#lx %s+%#lx\n", p[i].path, p[i].offset,
		       p[i].vaddr, *p[i].symbol ? p[i].symbol : "?",
		       p[i].sym_off);
	free(p);
	return 0;
}

int main(int argc, char **argv)
{
	const char *env = getenv("UPROBE_CLI_TRACEFS");

	if (env)
		tracefs = env;
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "add"))
		return cmd_add(argc - 1, argv + 1);
	if (!strcmp(argv[1], "del"))
		return cmd_del(argc - 1, argv + 1);
	if (!strcmp(argv[1], "count"))
		return cmd_count(argc - 1, argv + 1);
	if (!strcmp(argv[1], "list"))
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(argv[1], "stat"))
		return cmd_stat(argc - 1, argv + 1);
	if (!strcmp(argv[1], "funcs"))
		return cmd_funcs(argc - 1, argv + 1);
	if (!strcmp(argv[1], "resolve"))
		return cmd_resolve(argc - 1, argv + 1);
	return die("%s: unknown command (see uprobe-cli --help)", argv[1]);
}
