// SPDX-License-Identifier: GPL-2.0
/*
 * trace, hist and count --by: values at probes.  Each value is a fetch
 * argument of the probe's trace event, from a C variable's DWARF
 * location (dwarfvar.c) or as written.  The events go to a trace
 * instance of this command's own: trace streams its trace_pipe, hist
 * and count --by aggregate in the kernel with a hist trigger.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "dwarfvar.h"
#include "filter.h"
#include "json_writer.h"
#include "sdt.h"
#include "stack.h"
#include "values.h"

/* The values a command fetches, for each of its probes. */
struct values {
	struct up_fetch *f;	/* nargs per probe, probe by probe */
	int nargs;
};

/* One row of a hist trigger's table: its key as shown, and its count */
struct bucket {
	char key[256];
	unsigned long long count;
};

/* The trace instance of a run, and what it shows. */
struct session {
	char inst[PATH_MAX];	/* its directory in tracefs */
	struct probe *ps;
	int n;
	struct values *v;
	enum format fmt;
	const char *trigger;	/* a hist trigger, or NULL: stream */
	int pipe;		/* its trace_pipe, when streaming */
	long long lines;	/* records shown */
	bool failed;		/* a record not shown, after a message */
	struct bucket *b;	/* the trigger's table, at the end */
	int nb;			/* its rows, or -1 if it was not read */
	unsigned long long dropped;	/* entries it had no room for */
	char filter[1100];	/* --filter as the kernel takes it, or "" */
	long long *counts;	/* count --filter: each probe's trigger's */
				/* hits, or NULL */
	int stack;		/* bytes of stack each record copies, or 0 */
	unsigned long long lost;	/* records the buffers lost */
	bool lost_some;			/* ... and more, uncounted */
	unsigned long long unwind_ns;	/* the time unwinding took */
	struct stk_raw *raw;	/* ... read from trace_pipe_raw */
	struct stk_unwinder *uw;
	struct stk_counts *stacks;	/* count --by stack's */
	bool raw_failed;	/* a read of them failed, after a message */
};

/* --filter EXPR of the command, or NULL */
const char *filter_expr;

/* Set by ^C or SIGTERM when no program runs: the session ends */
static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* Write @val to @file of the session's instance; 0 or -errno. */
static int inst_write(struct session *s, const char *file, const char *val)
{
	char path[PATH_MAX + 512];

	snprintf(path, sizeof(path), "%s/%s", s->inst, file);
	return file_write(path, O_TRUNC, val);
}

/*
 * Remove the instances of uprobe-cli commands of our pid namespace that
 * died without removing theirs (killed): the events of their probes,
 * which the kernel removed, go with them.  A process of that number
 * alive keeps its instance; those of other namespaces are left alone.
 */
static void inst_reap(unsigned long ns)
{
	char dir[PATH_MAX], path[PATH_MAX + 300];
	struct dirent *d;
	unsigned long their_ns;
	DIR *dp;
	int pid, end;

	snprintf(dir, sizeof(dir), "%s/instances", tracefs);
	dp = opendir(dir);
	if (!dp)
		return;
	while ((d = readdir(dp))) {
		end = 0;
		if (sscanf(d->d_name, "uprobe-cli-%lu-%d%n", &their_ns, &pid,
			   &end) != 2 || d->d_name[end] || their_ns != ns ||
		    pid <= 0 || !kill(pid, 0) || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		rmdir(path);
	}
	closedir(dp);
}

/*
 * Room for records of s->stack bytes of stack: 16 MiB a CPU, in
 * sub-buffers that take four of them (the kernel cuts the copy to what
 * one takes), so that little of each is left unused.
 */
static int inst_stacks(struct session *s)
{
	char kb[16];
	int sub = 4, r;

	while (sub * 1024 < 4 * (s->stack + 512) && sub < 1024)
		sub *= 2;
	/* the clock of perf's records of the maps followed (stack.c) */
	r = inst_write(s, "trace_clock", "mono");
	if (r)
		fprintf(stderr, "uprobe-cli: %s/trace_clock: %s: stacks may be unwound in maps of another time\n",
			s->inst, strerror(-r));
	r = inst_write(s, "buffer_size_kb", "16384");
	if (r)
		fprintf(stderr, "uprobe-cli: %s/buffer_size_kb: %s: fewer stacks fit\n",
			s->inst, strerror(-r));
	snprintf(kb, sizeof(kb), "%d", sub);
	if (inst_write(s, "buffer_subbuf_size_kb", kb))
		fprintf(stderr, "uprobe-cli: this kernel keeps its trace sub-buffers at a page: stacks are cut to less than that\n");
	return 0;
}

/*
 * The instance of this run, "uprobe-cli-NS-PID": one left by an earlier
 * process of our number in our namespace, killed, is removed first.
 */
static int inst_new(struct session *s)
{
	unsigned long ns = pid_ns();

	inst_reap(ns);
	snprintf(s->inst, sizeof(s->inst), "%s/instances/uprobe-cli-%lu-%d",
		 tracefs, ns, (int)getpid());
	if (mkdir(s->inst, 0700) && errno == EEXIST)
		rmdir(s->inst);
	if (mkdir(s->inst, 0700) && errno != EEXIST)
		return run_error("cannot make the trace instance %s: %s", s->inst,
			   strerror(errno));
	/* the process of each record, not only its thread */
	inst_write(s, "options/record-tgid", "1");
	if (s->stack)
		return inst_stacks(s);
	return 0;
}

static void inst_free(struct session *s)
{
	if (*s->inst)
		rmdir(s->inst);
}

/*
 * @expr at the SDT marker @p: "argN" (or "NAME=argN") is the marker's
 * Nth argument, as the fetch argument its note describes, into @raw;
 * other values are up_fetch_arg()'s.  Returns @raw or @expr, or NULL
 * after a message.
 */
static const char *marker_arg(const struct up_place *p, const char *expr,
			      char *raw, size_t size)
{
	const char *eq = strchr(expr, '='), *what = eq ? eq + 1 : expr;
	char fetch[2 * UP_SDT_ARGS_MAX], err[512], *tok, *save, *end;
	long k;
	int n;

	if (!p->sdt || strncmp(what, "arg", 3) ||
	    !isdigit((unsigned char)what[3]))
		return expr;
	k = strtol(what + 3, &end, 10);
	if (*end)
		return expr;
	n = up_sdt_fetch(p->sdt_args, fetch, sizeof(fetch), err, sizeof(err));
	if (n < 0) {
		run_error("%s: %s", p->symbol, err);
		return NULL;
	}
	if (k >= n) {
		run_error("%s: no argument %s (the marker has %d)", p->symbol, what,
		    n);
		return NULL;
	}
	tok = strtok_r(fetch, " ", &save);
	while (k--)
		tok = strtok_r(NULL, " ", &save);
	/* "argN=FETCH", or "NAME=FETCH" */
	snprintf(raw, size, "%.*s%s", eq ? (int)(eq - expr + 1) : 0, expr,
		 eq ? strchr(tok, '=') + 1 : tok);
	return raw;
}

/*
 * The fetch arguments @exprs[0..@nexprs) for each probe of @ps, into
 * @v.  A probe at a function's entry whose variables are in its frame,
 * not stored yet there, moves past the prologue.  0, or 1 after a
 * message.
 */
static int fetch_args(struct probe *ps, int n, char **exprs, int nexprs,
		      struct values *v)
{
	char err[1024];
	int ret = 0;

	v->nargs = nexprs;
	v->f = calloc((size_t)n * nexprs + 1, sizeof(*v->f));
	if (!v->f)
		return run_error("out of memory");
	for (int i = 0; i < n && !ret; i++) {
		struct up_place *p = &ps[i].place;
		struct up_binary *b = up_binary_get(p->path, err,
						    sizeof(err));
		unsigned long after;
		bool moved = false;
		size_t len = 1;

		if (!b)
			return run_error("%s", err);
		for (int k = 0; k < nexprs && !ret; k++) {
			struct up_fetch *f = &v->f[i * nexprs + k];
			char raw[600];
			const char *e = marker_arg(p, exprs[k], raw,
						   sizeof(raw));
			int r = e ? up_fetch_arg(b, p->vaddr, ps[i].ret, e, f,
						 err, sizeof(err)) : -2;

			if (r == 1 && !moved && !p->sym_off &&
			    !up_after_prologue(b, p->vaddr, &after)) {
				fprintf(stderr, "uprobe-cli: probing %s+%#lx, past its prologue, where '%s' is stored\n",
					p->symbol, after - p->vaddr, exprs[k]);
				p->offset += after - p->vaddr;
				p->sym_off = after - p->vaddr;
				p->vaddr = after;
				moved = true;
				k = -1;		/* all of them again, there */
				continue;
			}
			if (r == 1)
				ret = run_error("%s: '%s' is not stored yet at %#lx, the function's entry",
					  p->symbol, exprs[k], p->vaddr);
			else if (r == -2)
				ret = 1;
			else if (r)
				ret = run_error("%s: %s", *p->symbol ? p->symbol :
					  p->path, err);
			for (int j = 0; j < k && !ret; j++)
				if (!strcmp(v->f[i * nexprs + j].name,
					    f->name))
					ret = usage_error("two values named '%s' (give one a name: NAME=VALUE)",
						  f->name);
		}
		for (int k = 0; k < nexprs; k++)
			len += strlen(v->f[i * nexprs + k].text) + 1;
		ps[i].row = i;
		ps[i].fetch = calloc(1, len);
		if (!ps[i].fetch && !ret)
			ret = run_error("out of memory");
		for (int k = 0; k < nexprs && ps[i].fetch; k++) {
			if (k)
				strcat(ps[i].fetch, " ");
			strcat(ps[i].fetch, v->f[i * nexprs + k].text);
		}
	}
	return ret;
}

static void probes_free(struct probe *ps, int n, struct values *v)
{
	for (int i = 0; i < n; i++)
		free(ps[i].fetch);
	free(ps);
	free(v->f);
}

/* Turn the events or the trigger off again, so that the probes can go */
static void session_off(struct session *s)
{
	char file[256], *off = NULL;

	/* the trigger as it was given, its filter whole: the kernel parses it */
	if (s->trigger && asprintf(&off, "!%s", s->trigger) < 0)
		off = NULL;
	for (int i = 0; i < s->n; i++) {
		if (s->trigger) {
			snprintf(file, sizeof(file),
				 "events/utprobes/%s/trigger", s->ps[i].name);
			if (off)
				inst_write(s, file, off);
		} else {
			snprintf(file, sizeof(file),
				 "events/utprobes/%s/enable", s->ps[i].name);
			inst_write(s, file, "0");
		}
	}
	free(off);
}

/* The probes are in: their events on, or the trigger, in the instance */
static int session_placed(struct probe *ps, int n, void *arg)
{
	struct session *s = arg;
	char file[256], pipe_path[PATH_MAX + 16];
	int r;

	for (int i = 0; i < n; i++) {
		if (s->trigger) {
			snprintf(file, sizeof(file),
				 "events/utprobes/%s/trigger", ps[i].name);
			r = inst_write(s, file, s->trigger);
		} else {
			snprintf(file, sizeof(file),
				 "events/utprobes/%s/filter", ps[i].name);
			r = *s->filter ? inst_write(s, file, s->filter) : 0;
			if (r) {
				session_off(s);
				return run_error("%s: the kernel refuses the filter '%s': %s",
					   ps[i].name, s->filter,
					   strerror(-r));
			}
			snprintf(file, sizeof(file),
				 "events/utprobes/%s/enable", ps[i].name);
			r = inst_write(s, file, "1");
		}
		if (r) {
			session_off(s);
			return run_error("%s: cannot turn its event on: %s%s",
				   ps[i].name, strerror(-r),
				   r == -ENOENT && s->trigger ?
				   " (this kernel has no hist triggers)" : "");
		}
	}
	if (s->trigger)
		return 0;
	if (s->stack) {
		const char **names = calloc(n + 1, sizeof(*names));
		char err[PATH_MAX + 128] = "out of memory";

		/* the command's maps, whenever its records are read */
		if (run_pid > 0 &&
		    stk_unwinder_follow(s->uw, run_pid, err, sizeof(err)))
			fprintf(stderr, "uprobe-cli: %s: the stacks of processes that exit early show no names\n",
				err);

		for (int i = 0; names && i < n; i++)
			names[i] = ps[i].name;
		s->raw = names ? stk_raw_open(s->inst, names, n, !s->stacks,
					      err, sizeof(err)) : NULL;
		free(names);
		if (!s->raw) {
			session_off(s);
			return run_error("%s", err);
		}
		return 0;
	}
	snprintf(pipe_path, sizeof(pipe_path), "%s/trace_pipe", s->inst);
	s->pipe = open(pipe_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (s->pipe < 0) {
		session_off(s);
		return run_error("%s: %s", pipe_path, strerror(errno));
	}
	return 0;
}

/* The record of one line of trace_pipe. */
struct record {
	double time;
	int pid, tid;
	char probe[96];
	const char *values;	/* "NAME=VALUE ..." */
};

/*
 * "COMM-TID (TGID) [CPU] FLAGS TIME: PROBE: (ADDR...) VALUES", the
 * TGID only with record-tgid; 0, or -1 if @line is not a record.
 */
static int parse_record(char *line, struct record *r)
{
	char *cpu = strstr(line, "] "), *p, *q, *colon;

	if (!cpu)
		return -1;
	while (cpu > line && *cpu != '[')
		cpu--;
	p = cpu;
	while (p > line && p[-1] == ' ')
		p--;
	r->pid = -1;
	if (p > line && p[-1] == ')') {
		q = p - 1;
		while (q > line && *q != '(')
			q--;
		r->pid = atoi(q + 1);
		p = q;
		while (p > line && p[-1] == ' ')
			p--;
	}
	q = p;
	while (q > line && q[-1] != '-')
		q--;
	if (q == line)
		return -1;
	r->tid = atoi(q);
	if (r->pid < 0)
		r->pid = r->tid;
	p = strchr(cpu, ']');
	p = p ? strchr(p + 2, ' ') : NULL;	/* past the flags */
	if (!p)
		return -1;
	r->time = strtod(p, &q);
	if (q == p || *q != ':')
		return -1;
	p = q + 2;
	colon = strstr(p, ": (");
	if (!colon || colon - p >= (long)sizeof(r->probe))
		return -1;
	snprintf(r->probe, sizeof(r->probe), "%.*s", (int)(colon - p), p);
	p = strchr(colon, ')');
	if (!p)
		return -1;
	r->values = p[1] == ' ' ? p + 2 : p + 1;
	return 0;
}

/*
 * The process of thread @tid, from /proc, for a record whose tgid the
 * kernel had not noted yet; @tid if it has gone.
 */
static int tgid_of(int tid)
{
	static int last_tid, last_tgid;

	if (tid != last_tid) {
		last_tgid = stk_proc_tgid(tid);
		last_tid = tid;
	}
	return last_tgid;
}

/* Which probe of the session a record is, or -1 */
static int probe_index(const struct session *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->ps[i].name, name))
			return i;
	return -1;
}

/*
 * The value of field @k of probe @i in @vals, into @w: a number as it
 * is, a string or hexadecimal number quoted, a value that could not be
 * read null.  Values are found by the names around them.
 */
static void json_value(const struct session *s, int i, int k,
		       const char *vals, json_writer_t *w)
{
	const struct up_fetch *f = &s->v->f[s->ps[i].row * s->v->nargs];
	char want[UP_ARG_NAME_MAX + 2], *val;
	const char *p, *end = NULL;
	size_t len;

	snprintf(want, sizeof(want), "%s=", f[k].name);
	p = !strncmp(vals, want, strlen(want)) ? vals : NULL;
	if (!p) {
		snprintf(want, sizeof(want), " %s=", f[k].name);
		p = strstr(vals, want);
		if (p)
			p++;
	}
	if (!p) {
		jsonw_null(w);
		return;
	}
	p += strlen(f[k].name) + 1;
	if (k + 1 < s->v->nargs) {
		snprintf(want, sizeof(want), " %s=", f[k + 1].name);
		end = strstr(p, want);
	}
	len = end ? (size_t)(end - p) : strlen(p);
	val = strndup(p, len);
	if (!val || !strcmp(val, "(fault)")) {
		jsonw_null(w);
	} else if (f[k].string && len >= 2 && val[0] == '"' &&
		   val[len - 1] == '"') {
		val[len - 1] = '\0';
		json_string(w, val + 1);
	} else if (strspn(val, "-0123456789") == len && len) {
		jsonw_printf(w, "%s", val);
	} else {
		json_string(w, val);
	}
	free(val);
}

/* Record @r of probe @i as one line of JSON */
/*
 * A hit of probe @i as a JSON object, left open for more members: its
 * time, process, thread, function and values (the text @vals)
 */
static json_writer_t *json_hit(struct session *s, int i, double time,
			       int pid, int tid, const char *vals)
{
	json_writer_t *w = json_new();

	if (!w) {
		s->failed = true;
		return NULL;
	}
	jsonw_start_object(w);
	jsonw_float_field_fmt(w, "time", "%.6f", time);
	jsonw_int_field(w, "pid", pid);
	jsonw_int_field(w, "tid", tid);
	json_string_field(w, "function", s->ps[i].place.symbol);
	jsonw_name(w, "values");
	jsonw_start_object(w);
	for (int k = 0; k < s->v->nargs; k++) {
		jsonw_name(w, s->v->f[s->ps[i].row * s->v->nargs + k].name);
		json_value(s, i, k, vals, w);
	}
	jsonw_end_object(w);
	return w;
}

static void show_json(struct session *s, int i, const struct record *r)
{
	json_writer_t *w = json_hit(s, i, r->time, r->pid, r->tid, r->values);

	if (!w)
		return;
	jsonw_end_object(w);
	jsonw_destroy(&w);
}

static void show_record(struct session *s, char *line)
{
	struct record r;
	int i;

	if (parse_record(line, &r))
		return;
	if (r.pid <= 0)
		r.pid = tgid_of(r.tid);
	i = probe_index(s, r.probe);
	if (i < 0)
		return;
	s->lines++;
	if (s->fmt == JSON)
		show_json(s, i, &r);
	else
		printf("%12.6f %7d %7d %-20s %s\n", r.time, r.pid, r.tid,
		       s->ps[i].place.symbol, r.values);
}

/* Show the complete lines of what trace_pipe has now; -1 at its end */
static int drain(struct session *s, char *buf, size_t size, size_t *len)
{
	ssize_t got;
	char *nl;

	for (;;) {
		got = read(s->pipe, buf + *len, size - 1 - *len);
		if (got <= 0)
			return got < 0 && errno == EAGAIN ? 0 : -1;
		*len += got;
		buf[*len] = '\0';
		while ((nl = strchr(buf, '\n'))) {
			*nl = '\0';
			show_record(s, buf);
			*len -= nl + 1 - buf;
			memmove(buf, nl + 1, *len + 1);
		}
		if (*len == size - 1)
			*len = 0;	/* a line longer than any record */
	}
}

/*
 * The table of the hist trigger on probe @name, into *@out (malloc'ed;
 * the count returned), the entries it had no room for in *@dropped.
 * -1 after a message.
 */
static int read_hist(struct session *s, const char *name,
		     struct bucket **out, unsigned long long *dropped)
{
	char path[PATH_MAX + 128], line[1024];
	struct bucket *b = NULL, *more;
	int n = 0;
	FILE *f;

	*dropped = 0;
	snprintf(path, sizeof(path), "%s/events/utprobes/%s/hist", s->inst,
		 name);
	f = fopen(path, "re");
	if (!f)
		return run_error("%s: %s", path, strerror(errno)) - 2;
	while (fgets(line, sizeof(line), f)) {
		char *key, *end, *hits = strstr(line, "hitcount:");

		if (sscanf(line, " Dropped: %llu", dropped) == 1 ||
		    strncmp(line, "{ ", 2) || !hits)
			continue;
		key = strchr(line, ':');
		end = strrchr(line, '}');
		if (!key || !end || end < key)
			continue;
		for (key++; *key == ' '; key++)
			;
		while (end > key && end[-1] == ' ')
			end--;
		more = realloc(b, (n + 1) * sizeof(*b));
		if (!more) {
			fclose(f);
			free(b);
			return run_error("out of memory") - 2;
		}
		b = more;
		snprintf(b[n].key, sizeof(b[n].key), "%.*s", (int)(end - key),
			 key);
		b[n].count = strtoull(hits + strlen("hitcount:"), NULL, 10);
		n++;
	}
	fclose(f);
	*out = b;
	return n;
}

/* trace --stack: a record, its values and its stack's frames */
static void show_stack(struct session *s, const struct stk_record *r,
		       const char *const *names, int n)
{
	int i = probe_index(s, r->event), pid;
	json_writer_t *w;

	if (i < 0)
		return;
	pid = stk_unwinder_pid(s->uw, r->tid);
	s->lines++;
	if (s->fmt == TABLE) {
		printf("%12.6f %7d %7d %-20s %s\n", r->ts / 1e9, pid, r->tid,
		       s->ps[i].place.symbol, r->info ? r->info : "");
		for (int k = 0; k < n; k++)
			printf("%*s%s\n", 29, "", names[k]);
		return;
	}
	w = json_hit(s, i, r->ts / 1e9, pid, r->tid, r->info ? r->info : "");
	if (!w)
		return;
	jsonw_name(w, "stack");
	jsonw_start_array(w);
	for (int k = 0; k < n; k++)
		json_string(w, names[k]);
	jsonw_end_array(w);
	jsonw_end_object(w);
	jsonw_destroy(&w);
}

/*
 * A record with a stack: unwound, and counted by its frames (count --by
 * stack) or shown (trace --stack)
 */
static void on_stack(const struct stk_record *r, void *arg)
{
	struct session *s = arg;
	const char *names[STACK_FRAMES_MAX];
	struct stk_record rec = *r;
	struct timespec t0, t1;
	int n, i = probe_index(s, r->event);

	/*
	 * A walk of frame pointers takes the word at sp only at a function's
	 * entry: a known function's first instruction, not of the cold part
	 * of one (jumped to, not called)
	 */
	rec.at_entry = i >= 0 && !s->ps[i].ret && !s->ps[i].place.sym_off &&
		       *s->ps[i].place.symbol &&
		       !strstr(s->ps[i].place.symbol, ".cold");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	n = stk_unwind(s->uw, &rec, names, STACK_FRAMES_MAX);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s->unwind_ns += (t1.tv_sec - t0.tv_sec) * 1000000000ULL +
			t1.tv_nsec - t0.tv_nsec;
	if (!s->stacks) {
		show_stack(s, r, names, n);
		return;
	}
	if (stk_counts_add(s->stacks, names, n) && !s->raw_failed) {
		s->raw_failed = true;
		run_error("out of memory for the stacks");
	}
}

/*
 * Hand the records with stacks there are now to on_stack(), all of them
 * if @last; first take in what the kernel said of the maps
 */
static void drain_stacks(struct session *s, bool last)
{
	char err[256] = "";

	if (!s->raw || s->raw_failed)
		return;
	stk_unwinder_poll(s->uw);
	if (stk_raw_drain(s->raw, on_stack, s, last, err, sizeof(err)) < 0) {
		s->raw_failed = true;
		run_error("%s", err);
	}
}

/* Stream the records until the program @pid has ended, then the rest */
static int session_wait(pid_t pid, int *status, void *arg)
{
	struct session *s = arg;
	struct pollfd pfd = { .fd = s->pipe, .events = POLLIN };
	static char buf[65536];
	bool streaming = s->pipe >= 0 || s->raw;
	size_t len = 0;
	pid_t done = 0;

	while (!streaming && pid > 0 && waitpid(pid, status, 0) < 0 &&
	       errno == EINTR)
		;
	while (!streaming && pid <= 0 && !stop_requested)
		pause();
	while (streaming && !done) {
		if (s->raw) {
			/* stacks fill sub-buffers fast: read them often */
			usleep(20000);
			if (pid > 0)
				stk_unwinder_watch(s->uw, pid);
			drain_stacks(s, false);
		} else {
			poll(&pfd, 1, 100);
			drain(s, buf, sizeof(buf), &len);
		}
		fflush(stdout);
		done = pid > 0 ? waitpid(pid, status, WNOHANG) : 0;
		if (done < 0 && errno != EINTR)
			break;
		if (pid <= 0 && stop_requested)
			break;
	}
	if (s->pipe >= 0)
		drain(s, buf, sizeof(buf), &len);
	drain_stacks(s, false);
	/* the table goes with the trigger */
	if (s->trigger && !s->counts)
		s->nb = read_hist(s, s->ps[0].name, &s->b, &s->dropped);
	for (int i = 0; s->counts && i < s->n; i++) {
		struct bucket *b;
		unsigned long long dropped;
		int nb = read_hist(s, s->ps[i].name, &b, &dropped);

		s->nb = nb < 0 ? nb : s->n;
		if (nb < 0)
			break;
		s->counts[i] = 0;
		for (int k = 0; k < nb; k++)
			s->counts[i] += b[k].count;
		free(b);
	}
	session_off(s);
	/*
	 * The rest of the stacks, and what the kernel counted lost, before
	 * the probes go: removing them clears the buffers and their counts
	 */
	if (s->raw) {
		drain_stacks(s, true);
		s->lost = stk_raw_lost(s->raw, &s->lost_some);
	}
	return 0;
}

/*
 * Place the probes of @s in every process that maps their files, until
 * ^C or SIGTERM: no program to run.  0, or 1 after a message.
 */
static int run_everywhere(struct session *s)
{
	struct sigaction stop = { .sa_handler = on_stop }, old_int, old_term;
	int r, status;

	if (place_session_probes(s->ps, &s->n, 0))
		return 1;
	sigaction(SIGINT, &stop, &old_int);
	sigaction(SIGTERM, &stop, &old_term);
	r = session_placed(s->ps, s->n, s);
	if (!r)
		session_wait(0, &status, s);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	remove_probes(s->ps, s->n);
	return r;
}

/* Run @cmd (or, if NULL, wait for ^C) with the session's probes */
static int session_run(struct session *s, char **cmd, int *status)
{
	struct run_ops ops = {
		.placed = session_placed,
		.wait = session_wait,
		.arg = s,
	};
	int ret;

	s->pipe = -1;
	s->nb = -1;
	if (inst_new(s))
		return 1;
	*status = 0;
	ret = cmd ? run_probed(s->ps, &s->n, cmd, status, &ops) :
		    run_everywhere(s);
	if (s->pipe >= 0)
		close(s->pipe);
	if (s->raw) {
		drain_stacks(s, true);
		if (stk_unwinder_lost(s->uw))
			fprintf(stderr, "uprobe-cli: the kernel lost %llu of its records of the processes' maps: some stacks may be named from maps of another time\n",
				stk_unwinder_lost(s->uw));
		stk_raw_close(s->raw);
		s->raw = NULL;
	}
	inst_free(s);
	return ret;
}

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
 * @count[@first..@last], what the kernel @dropped.  0, or 1 after a
 * message.
 */
static int log2_json(const struct probe *pr, const char *value,
		     unsigned long long total, const unsigned long long *count,
		     int first, int last, unsigned long long dropped)
{
	unsigned long long lo, hi;
	json_writer_t *w = json_new();

	if (!w)
		return 1;
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

/* The log2 histogram of @b[0..@n), as a table or JSON; 0, or 1 */
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
 * with what the kernel @dropped; 0, or 1 after a message.
 */
static int top_json(const struct probe *pr, const struct up_fetch *by,
		    const struct bucket *b, int n, unsigned long long dropped)
{
	json_writer_t *w = json_new();

	if (!w)
		return 1;
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

/* The @top most frequent values of @b[0..@n), as a table or JSON; 0, or 1 */
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

/*
 * --filter for the session's probes, whose values are @exprs: a field
 * it names that is not among them is fetched too (fetch_args() again,
 * with it), then the filter is checked against each probe's fields and
 * kept as the kernel takes it.  0, or the exit status after a message.
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
		return usage_error("%s", err);
	nnames = up_filter_names(f, &names);
	all = calloc(nexprs + nnames + 1, sizeof(*all));
	if (!all) {
		up_filter_free(f);
		return run_error("out of memory");
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
		for (int i = 0; i < s->n; i++) {
			free(s->ps[i].fetch);
			s->ps[i].fetch = NULL;
		}
		free(s->v->f);
		s->v->f = NULL;
		ret = fetch_args(s->ps, s->n, all, nexprs + more, s->v);
	}
	free(all);
	fields = ret ? NULL : calloc(s->v->nargs + 1, sizeof(*fields));
	if (!ret && !fields)
		ret = run_error("out of memory");
	for (int i = 0; fields && i < s->n && !ret; i++) {
		for (int k = 0; k < s->v->nargs; k++) {
			const struct up_fetch *v = &s->v->f[i * s->v->nargs + k];

			fields[k] = field_of(v);
		}
		if (up_filter_check(f, fields, s->v->nargs, s->filter,
				    sizeof(s->filter), err, sizeof(err)))
			ret = usage_error("%s", err);
	}
	free(fields);
	up_filter_free(f);
	return ret;
}

/*
 * Resolve @spec into the session's probes named for @cmd_name (one
 * place only if @one), with the values @exprs[0..@nexprs).  0, or 1
 * after a message.
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
		return usage_error("%s", err);
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
			return run_error("%s: %s", s->ps[0].place.symbol, err);
		for (int i = 1; i < s->n; i++)
			if (up_sdt_fetch(s->ps[i].place.sdt_args, fetch,
					 sizeof(fetch), err, sizeof(err)) !=
			    nexprs)
				return run_error("%s and %s have different arguments: name the values (arg0, arg1...)",
					   s->ps[0].place.symbol,
					   s->ps[i].place.symbol);
		for (int k = 0; k < nexprs && k < UP_SDT_MAX_ARGS; k++) {
			snprintf(names[k], sizeof(names[k]), "arg%d", k);
			all[k] = names[k];
		}
		exprs = all;
	}
	if (!ret && one && s->n != 1)
		ret = run_error("%s: '%s' names %d places; give one", cmd_name,
			  spec, s->n);
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
 * *@cmd (NULL if none).  0, or the exit status after a message.
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
			return usage_error("%s: --stack, --stack-size and --fp go with trace",
					   name);
		} else if (c == 'S') {
			trace_stack = true;
		} else if (c == 'P') {
			stack_fp = true;
		} else if (c == 'k') {
			long v = parse_pos("--stack-size", optarg);

			if (v > STACK_BYTES_MAX)
				return usage_error("trace: --stack-size %ld is more than the kernel copies, %d",
						   v, STACK_BYTES_MAX);
			if (!v)
				return 2;
			stack_bytes = v;
			size_given = true;
		} else if ((c != 'j' && c != 'f') || format_option(c, optarg)) {
			return 2;
		}
	}
	if ((size_given || stack_fp) && !trace_stack)
		return usage_error("trace: --stack-size and --fp go with --stack");
	if (size_given && stack_fp)
		return usage_error("trace: --stack-size or --fp, not both");
	if (table_or_json(name))
		return 2;
	*words = argv + optind;
	*nwords = end - optind;
	*cmd = end + 1 < argc ? argv + end + 1 : NULL;
	if (*nwords < min || *nwords > max)
		return usage_error("%s: %s", name, usage);
	if (end < argc && !*cmd)
		return usage_error("%s: no command after '--'", name);
	return 0;
}

int cmd_trace(int argc, char **argv)
{
	struct values v = { 0 };
	struct session s = { .v = &v };
	char **cmd, **words;
	int nwords, ret, status;

	ret = parse_cmdline(argc, argv, "trace",
			    "no probe given (SPEC [VALUE...] [-- CMD])", 1,
			    argc, &words, &nwords, &cmd);
	if (ret)
		return ret;
	s.fmt = out_fmt;
	ret = session_probes(&s, "trace", words[0], false, words + 1,
			     nwords - 1);
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
	if (!ret)
		ret = session_run(&s, cmd, &status);
	if (!ret && (s.failed || s.raw_failed))
		ret = 1;
	if (!ret && (s.lost || s.lost_some))
		fprintf(stderr, "uprobe-cli: %s%llu hits' records were lost (the buffers were full)\n",
			s.lost_some ? "more than " : "", s.lost);
	stk_unwinder_free(s.uw);
	probes_free(s.ps, s.n, &v);
	return ret ? ret : status;
}

/*
 * Run @cmd with the one place @spec names, and a hist trigger of
 * @trigger_fmt (its "%s" the value's field) on the value @expr, a
 * number if @number: the table into the session.  0 with the command's
 * status in *@status, or 1 after a message.
 */
static int aggregate(struct session *s, const char *name, const char *spec,
		     char *expr, bool number, const char *trigger_fmt,
		     char **cmd, int *status)
{
	char trigger[128 + sizeof(s->filter)];
	int ret;

	ret = session_probes(s, name, spec, true, &expr, 1);
	if (!ret && number && s->v->f[0].string)
		ret = run_error("%s: '%s' is a string; a histogram needs a number",
			  name, s->v->f[0].name);
	if (ret)
		return ret;
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
		ret = 1;
	return ret;
}

int cmd_hist(int argc, char **argv)
{
	struct values v = { 0 };
	struct session s = { .v = &v };
	char **cmd, **words;
	int nwords, ret, status;

	ret = parse_cmdline(argc, argv, "hist",
			    "give one probe and one value (SPEC VALUE [-- CMD])",
			    2, 2, &words, &nwords, &cmd);
	if (ret)
		return ret;
	s.fmt = out_fmt;
	ret = aggregate(&s, "hist", words[0], words[1], true,
			"hist:keys=%s.log2", cmd, &status);
	if (!ret)
		ret = print_log2(&s.ps[0], v.f[0].name, s.b, s.nb, s.fmt,
				 s.dropped);
	free(s.b);
	probes_free(s.ps, s.n, &v);
	return ret ? ret : status;
}

int by_size(const char *arg)
{
	long v = parse_pos("--size", arg);

	if (v && (v < BY_SIZE_MIN || v > BY_SIZE_MAX)) {
		usage_error("count --by: --size %ld is outside the kernel's range, %d to %d",
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
 * flame graph.
 */
static int count_by_stack(const char *spec, int top, enum format fmt,
			  char **cmd)
{
	struct values v = { 0 };
	struct session s = { .v = &v, .fmt = fmt, .stack = stack_bytes };
	int ret, status = 0, err;

	if (filter_expr)
		return usage_error("count --by stack: no --filter (not yet)");
	ret = session_probes(&s, "count --by", spec, true, NULL, 0);
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
	ret = session_run(&s, cmd, &status);
	if (!ret && s.raw_failed)
		ret = 1;
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
			ret = 1;
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

int count_by(const char *spec, const char *by, int top, int size,
	     enum format fmt, char **cmd)
{
	struct values v = { 0 };
	struct session s = { .v = &v, .fmt = fmt };
	char trigger_fmt[64];
	int ret, status;

	if (!strcmp(by, "stack"))
		return count_by_stack(spec, top, fmt, cmd);

	/* room for @size values; hits of values beyond it are dropped */
	snprintf(trigger_fmt, sizeof(trigger_fmt), "hist:keys=%%s:size=%d",
		 size);
	ret = aggregate(&s, "count --by", spec, (char *)by, false,
			trigger_fmt, cmd, &status);
	if (!ret)
		ret = print_top(&s.ps[0], &v.f[0], s.b, s.nb, top, fmt,
				s.dropped);
	free(s.b);
	probes_free(s.ps, s.n, &v);
	return ret ? ret : status;
}

int count_filtered(struct probe *ps, int *n, char **cmd, int *status)
{
	struct values v = { 0 };
	struct session s = { .v = &v, .ps = ps, .n = *n };
	char trigger[64 + sizeof(s.filter)];
	int ret;

	s.counts = calloc(*n + 1, sizeof(*s.counts));
	ret = s.counts ? session_filter(&s, NULL, 0) : run_error("out of memory");
	if (ret)
		goto out;
	/*
	 * one row, of every hit the filter lets through: the smallest
	 * table the kernel makes, as a glob may give thousands of probes
	 */
	snprintf(trigger, sizeof(trigger),
		 "hist:keys=common_type:size=%d if %s", BY_SIZE_MIN, s.filter);
	s.trigger = trigger;
	ret = session_run(&s, cmd, status);
	if (!ret && s.nb < 0)
		ret = 1;
	/* the triggers' counts, not every hit's */
	for (int i = 0; !ret && i < s.n; i++)
		ps[i].hits = s.counts[i];
out:
	/* a glob's probes the kernel refused are gone from @ps */
	*n = s.n;
	for (int i = 0; i < s.n; i++) {
		free(ps[i].fetch);
		ps[i].fetch = NULL;
	}
	free(s.counts);
	free(v.f);
	return ret;
}
