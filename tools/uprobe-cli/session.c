// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe-cli: the trace instance of trace, hist and count --by (struct
 * session): made for the run, its probes' events on with their fetch
 * arguments, the records streamed from trace_pipe (or trace_pipe_raw,
 * for stacks) while the command runs, and a hist trigger's table read
 * at the end.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "dwarfvar.h"
#include "json_writer.h"
#include "sdt.h"
#include "session.h"
#include "values.h"

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
 * process of our number in our namespace, killed, is removed first.  0,
 * or -errno after a message.
 */
static int inst_new(struct session *s)
{
	unsigned long ns = pid_ns();
	int err;

	inst_reap(ns);
	snprintf(s->inst, sizeof(s->inst), "%s/instances/uprobe-cli-%lu-%d",
		 tracefs, ns, (int)getpid());
	if (mkdir(s->inst, 0700) && errno == EEXIST)
		rmdir(s->inst);
	if (mkdir(s->inst, 0700) && errno != EEXIST) {
		err = -errno;
		return print_error(err, "cannot make the trace instance %s: %s",
				   s->inst, strerror(-err));
	}
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
		print_error(-EOPNOTSUPP, "%s: %s", p->symbol, err);
		return NULL;
	}
	if (k >= n) {
		print_error(-ENOENT, "%s: no argument %s (the marker has %d)",
			    p->symbol, what, n);
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
 * not stored yet there, moves past the prologue.  0, or -errno after a
 * message: -EINVAL for two values of one name, the command line's (the
 * only -EINVAL), -ENOENT for a value not found.
 */
int fetch_args(struct probe *ps, int n, char **exprs, int nexprs,
	       struct values *v)
{
	char err[1024];
	int ret = 0;

	v->nargs = nexprs;
	v->f = calloc((size_t)n * nexprs + 1, sizeof(*v->f));
	if (!v->f)
		return print_error(-ENOMEM, "out of memory");
	for (int i = 0; i < n && !ret; i++) {
		struct up_place *p = &ps[i].place;
		struct up_binary *b = up_binary_get(p->path, err,
						    sizeof(err));
		unsigned long after;
		bool moved = false;
		size_t len = 1;

		if (!b)
			return print_error(-EIO, "%s", err);
		for (int k = 0; k < nexprs && !ret; k++) {
			struct up_fetch *f = &v->f[i * nexprs + k];
			char raw[600];
			const char *e = marker_arg(p, exprs[k], raw,
						   sizeof(raw));
			int r = e ? up_fetch_arg(b, p->vaddr, ps[i].ret, e, f,
						 err, sizeof(err)) : -ENOENT;

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
				ret = print_error(-ENODATA,
						  "%s: '%s' is not stored yet at %#lx, the function's entry",
						  p->symbol, exprs[k],
						  p->vaddr);
			else if (!e)
				ret = -ENOENT;	/* marker_arg() said why */
			else if (r)
				ret = print_error(-ENOENT, "%s: %s",
						  *p->symbol ? p->symbol :
						  p->path, err);
			for (int j = 0; j < k && !ret; j++)
				if (!strcmp(v->f[i * nexprs + j].name,
					    f->name))
					ret = print_error(-EINVAL,
							  "two values named '%s' (give one a name: NAME=VALUE)",
							  f->name);
		}
		for (int k = 0; k < nexprs; k++)
			len += strlen(v->f[i * nexprs + k].text) + 1;
		ps[i].row = i;
		ps[i].fetch = calloc(1, len);
		if (!ps[i].fetch && !ret)
			ret = print_error(-ENOMEM, "out of memory");
		for (int k = 0; k < nexprs && ps[i].fetch; k++) {
			if (k)
				strcat(ps[i].fetch, " ");
			strcat(ps[i].fetch, v->f[i * nexprs + k].text);
		}
	}
	return ret;
}

void probes_free(struct probe *ps, int n, struct values *v)
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

/*
 * The probes are in: their events on, or the trigger, in the instance.
 * 0, or -errno after a message (run_ops' @placed).
 */
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
				return print_error(r, "%s: the kernel refuses the filter '%s': %s",
						   ps[i].name, s->filter,
						   strerror(-r));
			}
			snprintf(file, sizeof(file),
				 "events/utprobes/%s/enable", ps[i].name);
			r = inst_write(s, file, "1");
		}
		if (r) {
			session_off(s);
			return print_error(r, "%s: cannot turn its event on: %s%s",
					   ps[i].name, strerror(-r),
					   r == -ENOENT && s->trigger ?
					   " (this kernel has no hist triggers)" :
					   "");
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
			return print_error(-EIO, "%s", err);
		}
		return 0;
	}
	snprintf(pipe_path, sizeof(pipe_path), "%s/trace_pipe", s->inst);
	s->pipe = open(pipe_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (s->pipe < 0) {
		r = -errno;
		session_off(s);
		return print_error(r, "%s: %s", pipe_path, strerror(-r));
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
 * TGID only with record-tgid; 0, or -EINVAL if @line is not a record.
 */
static int parse_record(char *line, struct record *r)
{
	char *cpu = strstr(line, "] "), *p, *q, *colon;

	if (!cpu)
		return -EINVAL;
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
		return -EINVAL;
	r->tid = atoi(q);
	if (r->pid < 0)
		r->pid = r->tid;
	p = strchr(cpu, ']');
	p = p ? strchr(p + 2, ' ') : NULL;	/* past the flags */
	if (!p)
		return -EINVAL;
	r->time = strtod(p, &q);
	if (q == p || *q != ':')
		return -EINVAL;
	p = q + 2;
	colon = strstr(p, ": (");
	if (!colon || colon - p >= (long)sizeof(r->probe))
		return -EINVAL;
	snprintf(r->probe, sizeof(r->probe), "%.*s", (int)(colon - p), p);
	p = strchr(colon, ')');
	if (!p)
		return -EINVAL;
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

/* Which probe of the session a record is, or -ENOENT */
static int probe_index(const struct session *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->ps[i].name, name))
			return i;
	return -ENOENT;
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

/*
 * Show the complete lines of what trace_pipe has now: 0, or at its end
 * -ENODATA (read() found none) or the -errno of read()
 */
static int drain(struct session *s, char *buf, size_t size, size_t *len)
{
	ssize_t got;
	char *nl;

	for (;;) {
		got = read(s->pipe, buf + *len, size - 1 - *len);
		if (got < 0)
			return errno == EAGAIN ? 0 : -errno;
		if (!got)
			return -ENODATA;
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
 * the count returned), the entries it had no room for in *@dropped; or
 * -errno after a message.
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
	if (!f) {
		n = -errno;
		return print_error(n, "%s: %s", path, strerror(-n));
	}
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
			return print_error(-ENOMEM, "out of memory");
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
		print_error(-ENOMEM, "out of memory for the stacks");
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
		print_error(-EIO, "%s", err);
	}
}

/*
 * Stream the records until the program @pid has ended, then the rest
 * (run_ops' @wait): 0
 */
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
	 * the probes go: removing them clears the buffers and their counts.
	 * An event's disabling does not wait for the hits that were writing
	 * their records on other CPUs: give them the time a record takes.
	 */
	if (s->raw) {
		usleep(STACK_SETTLE_NS / 1000);
		drain_stacks(s, true);
		s->lost = stk_raw_lost(s->raw, &s->lost_some);
	}
	return 0;
}

/*
 * Place the probes of @s in every process that maps their files, until
 * ^C or SIGTERM: no program to run.  0, or -errno after a message.
 */
static int run_everywhere(struct session *s)
{
	struct sigaction stop = { .sa_handler = on_stop }, old_int, old_term;
	int r, status;

	r = place_session_probes(s->ps, &s->n, 0);
	if (r)
		return r;
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
int session_run(struct session *s, char **cmd, int *status)
{
	struct run_ops ops = {
		.placed = session_placed,
		.wait = session_wait,
		.arg = s,
	};
	int ret;

	s->pipe = -1;
	s->nb = -ENODATA;
	ret = inst_new(s);
	if (ret)
		return ret;
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

