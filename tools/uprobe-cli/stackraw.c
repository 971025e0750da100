// SPDX-License-Identifier: GPL-2.0
/*
 * User stacks at probes: the records, read from trace_pipe_raw with the
 * event's format (libtraceevent), each CPU's pages in time order, and
 * the records the buffers lost, as the kernel counted them.  stack.c
 * unwinds them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>
#include <unistd.h>

#include "resolve.h"
#include "stack.h"

/* ---- records ---------------------------------------------------------- */

struct stk_event {
	int id;
	const char *name;
	struct tep_format_field *regs;	/* stack=: the registers, */
	struct tep_format_field *ip;	/* or callers=: the ip */
	const char *data;		/* and the copy, or the callers */
	struct tep_event *ev;
	struct tep_format_field **strs;	/* its values' strings */
	int nstrs;
};

struct stk_raw {
	struct tep_handle *tep;
	struct kbuffer *kbuf;
	struct stk_event *evs;
	int nevs;
	int *fds;
	int nfds;
	void *page;
	size_t subbuf;
	unsigned long long lost;
	bool lost_some;			/* and some the kernel did not count */
	char *inst;			/* the instance's directory */
	bool want_info;			/* render each record's values */
	struct raw_copy **copies;	/* of a drain, put in time order */
	size_t ncopies, ccopies;
};

/* The file at @path, whole and NUL-terminated; its length in *@len */
static char *slurp(const char *path, int *len)
{
	size_t cap = 8192, n = 0;
	char *buf = malloc(cap), *more;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((got = read(fd, buf + n, cap - n - 1)) > 0) {
		n += got;
		if (cap - n < 1024) {
			more = realloc(buf, cap * 2);
			if (!more)
				break;
			buf = more;
			cap *= 2;
		}
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/*
 * Note @e's values that are strings, a data_loc each: raw_info_faults().
 * 0, or -ENOMEM.
 */
static int raw_strings(struct stk_event *e)
{
	struct tep_format_field **fields = tep_event_fields(e->ev);

	if (!fields)
		return -ENOMEM;
	for (int i = 0; fields[i]; i++) {
		struct tep_format_field *f = fields[i];

		/* __stack, __callers and the like are not values */
		if ((f->flags & TEP_FIELD_IS_DYNAMIC) &&
		    (f->flags & TEP_FIELD_IS_STRING) && f->size == 4 &&
		    *f->name != '_')
			fields[e->nstrs++] = f;
	}
	e->strs = fields;
	return 0;
}

/*
 * Parse @inst's format of utprobes/@name into @r: 0, or -errno with a
 * message in @err: -EIO for a format not read, -EOPNOTSUPP for records
 * without a stack, -ENOMEM.
 */
static int raw_event(struct stk_raw *r, const char *inst, const char *name,
		     char *err, size_t errlen)
{
	struct stk_event *e = &r->evs[r->nevs];
	char path[PATH_MAX + 128], *fmt;
	int len;

	snprintf(path, sizeof(path), "%s/events/utprobes/%s/format", inst,
		 name);
	fmt = slurp(path, &len);
	if (!fmt || tep_parse_event(r->tep, fmt, len, "utprobes")) {
		free(fmt);
		snprintf(err, errlen, "%s: cannot read its format", path);
		return -EIO;
	}
	free(fmt);
	e->ev = tep_find_event_by_name(r->tep, "utprobes", name);
	e->regs = e->ev ? tep_find_field(e->ev, "__stack_regs") : NULL;
	e->data = "__stack";
	if (e->ev && !e->regs && tep_find_field(e->ev, "__callers")) {
		e->data = "__callers";
		/* a return probe's record starts where the call returns to */
		e->ip = tep_find_field(e->ev, "__probe_ret_ip") ?:
			tep_find_field(e->ev, "__probe_ip");
	}
	if (e->ip ? e->ip->size != sizeof(unsigned long) :
	    !e->regs || e->regs->size != STACK_NREGS * sizeof(unsigned long) ||
	    !tep_find_field(e->ev, "__stack")) {
		snprintf(err, errlen, "%s: its records hold no stack", name);
		return -EOPNOTSUPP;
	}
	if (raw_strings(e)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	e->id = e->ev->id;
	e->name = e->ev->name;
	r->nevs++;
	return 0;
}

struct stk_raw *stk_raw_open(const char *inst, const char *const *names,
			     int n, bool info, char *err, size_t errlen)
{
	struct stk_raw *r = calloc(1, sizeof(*r));
	char path[PATH_MAX + 64], *text;
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	int len;

	if (!r)
		goto nomem;
	r->tep = tep_alloc();
	r->kbuf = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	r->evs = calloc(n, sizeof(*r->evs));
	r->fds = calloc(cpus, sizeof(*r->fds));
	if (!r->tep || !r->kbuf || !r->evs || !r->fds)
		goto nomem;
	r->want_info = info;
	r->inst = strdup(inst);
	if (!r->inst)
		goto nomem;
	snprintf(path, sizeof(path), "%s/events/header_page", inst);
	text = slurp(path, &len);
	if (!text || tep_parse_header_page(r->tep, text, len,
					   sizeof(long))) {
		free(text);
		snprintf(err, errlen, "%s: cannot read it", path);
		goto fail;
	}
	free(text);
	for (int i = 0; i < n; i++)
		if (raw_event(r, inst, names[i], err, errlen))
			goto fail;
	snprintf(path, sizeof(path), "%s/buffer_subbuf_size_kb", inst);
	text = slurp(path, &len);
	r->subbuf = text ? strtoul(text, NULL, 10) * 1024 : 0;
	free(text);
	if (!r->subbuf)
		r->subbuf = getpagesize();
	r->page = malloc(r->subbuf);
	if (!r->page)
		goto nomem;
	for (long cpu = 0; cpu < cpus; cpu++) {
		snprintf(path, sizeof(path),
			 "%s/per_cpu/cpu%ld/trace_pipe_raw", inst, cpu);
		r->fds[r->nfds] = open(path, O_RDONLY | O_NONBLOCK |
					     O_CLOEXEC);
		if (r->fds[r->nfds] >= 0)
			r->nfds++;
	}
	if (!r->nfds) {
		snprintf(err, errlen, "%s/per_cpu: no trace_pipe_raw opens",
			 inst);
		goto fail;
	}
	return r;
nomem:
	snprintf(err, errlen, "out of memory");
fail:
	stk_raw_close(r);
	return NULL;
}

static const struct stk_event *raw_find(const struct stk_raw *r, int id)
{
	for (int i = 0; i < r->nevs; i++)
		if (r->evs[i].id == id)
			return &r->evs[i];
	return NULL;
}

/* A record copied out of its sub-buffer, to be handed on in time order */
struct raw_copy {
	unsigned long long ts;
	const char *event;
	char *info;		/* the values, as text, or NULL */
	int tid;
	unsigned int len;
	bool callers;		/* stack[] holds a frame-pointer walk's words */
	unsigned long regs[STACK_NREGS];
	unsigned char stack[];
};

static int raw_copy_cmp(const void *a, const void *b)
{
	const struct raw_copy *x = *(struct raw_copy *const *)a;
	const struct raw_copy *y = *(struct raw_copy *const *)b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/*
 * In @info, the printed values of @rec (event @e), each string the
 * kernel could not read shown as the kernel shows it, "NAME=(fault)":
 * it stored no byte (a string read holds at least its NUL), where
 * libtraceevent prints "".  @info is rewritten in place.
 */
static void raw_info_faults(const struct stk_event *e,
			    struct tep_record *rec, char *info)
{
	char want[256], *at;
	unsigned long long loc;

	for (int i = 0; i < e->nstrs; i++) {
		struct tep_format_field *f = e->strs[i];
		size_t n;

		if (tep_read_number_field(f, rec->data, &loc) || loc >> 16)
			continue;
		n = snprintf(want, sizeof(want), "%s=\"\"", f->name);
		if (n >= sizeof(want))
			continue;
		for (at = strstr(info, want); at; at = strstr(at + 1, want))
			if (at == info || at[-1] == ' ')
				break;
		if (!at)
			continue;
		/* NAME="" becomes NAME=(fault): five bytes longer */
		n = strlen(f->name) + 1;
		memmove(at + n + 7, at + n + 2, strlen(at + n + 2) + 1);
		memcpy(at + n, "(fault)", 7);
	}
}

/*
 * The values of record @rec as its event's print format shows them,
 * "NAME=VALUE ...", past the probed address; malloc()ed, or NULL.
 */
static char *raw_info(struct stk_raw *r, const struct stk_event *e,
		      struct tep_record *rec)
{
	struct trace_seq s;
	char *info = NULL, *p;
	size_t len;

	trace_seq_init(&s);
	tep_print_event(r->tep, &s, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	p = s.buffer;
	if (p && *p == '(' && strchr(p, ')'))
		p = strchr(p, ')') + 1;
	while (p && *p == ' ')
		p++;
	len = p ? strlen(p) : 0;
	/* room for a "(fault)" in place of each "" */
	info = p ? malloc(len + 1 + 5 * e->nstrs) : NULL;
	if (info) {
		memcpy(info, p, len + 1);
		raw_info_faults(e, rec, info);
	}
	trace_seq_destroy(&s);
	return info;
}

/*
 * Copy the records of the sub-buffer in r->page to r->copies: 0, or
 * -ENOMEM.
 */
static int raw_page(struct stk_raw *r)
{
	unsigned long long ts;
	void *data;
	int missed;

	if (kbuffer_load_subbuffer(r->kbuf, r->page))
		return 0;
	/* -1: some were lost, the kernel could not say how many */
	missed = kbuffer_missed_events(r->kbuf);
	if (missed > 0)
		r->lost += missed;
	else if (missed < 0)
		r->lost_some = true;
	for (data = kbuffer_read_event(r->kbuf, &ts); data;
	     data = kbuffer_next_event(r->kbuf, &ts)) {
		struct tep_record rec = {
			.data = data,
			.size = kbuffer_event_size(r->kbuf),
		};
		const struct stk_event *e = raw_find(r,
						     tep_data_type(r->tep,
								   &rec));
		struct raw_copy *c;
		struct trace_seq s;
		void *stack;
		int len = 0;

		if (!e)
			continue;
		trace_seq_init(&s);
		stack = tep_get_field_raw(&s, e->ev, e->data, &rec, &len, 0);
		trace_seq_destroy(&s);
		if (!stack)
			len = 0;
		if (r->ncopies == r->ccopies) {
			size_t cap = r->ccopies ? 2 * r->ccopies : 256;
			struct raw_copy **more = reallocarray(r->copies, cap,
							      sizeof(*more));

			if (!more)
				return -ENOMEM;
			r->copies = more;
			r->ccopies = cap;
		}
		c = malloc(sizeof(*c) + len);
		if (!c)
			return -ENOMEM;
		c->ts = ts;
		c->event = e->name;
		c->info = r->want_info ? raw_info(r, e, &rec) : NULL;
		c->tid = tep_data_pid(r->tep, &rec);
		c->len = len;
		c->callers = e->ip != NULL;
		if (e->ip) {
			memset(c->regs, 0, sizeof(c->regs));
			memcpy(&c->regs[STACK_NREGS - 1],
			       (char *)data + e->ip->offset,
			       sizeof(c->regs[0]));
		} else {
			memcpy(c->regs, (char *)data + e->regs->offset,
			       sizeof(c->regs));
		}
		memcpy(c->stack, stack, len);
		r->copies[r->ncopies++] = c;
	}
	return 0;
}

long stk_raw_drain(struct stk_raw *r, stk_record_fn fn, void *arg,
		   bool last, char *err, size_t errlen)
{
	unsigned long long cutoff = ~0ULL;
	struct timespec now;
	size_t k = 0;
	long n = 0;
	int ret = 0;

	/*
	 * A record another CPU commits just after its buffer was read may
	 * be older than one read from a later CPU: those of the last
	 * STACK_SETTLE_NS wait for the next drain, all of them the last.
	 */
	if (!last && !clock_gettime(CLOCK_MONOTONIC, &now))
		cutoff = now.tv_sec * 1000000000ULL + now.tv_nsec -
			 STACK_SETTLE_NS;
	*err = '\0';

	for (int i = 0; i < r->nfds && !ret; i++) {
		ssize_t got;

		while (!ret && (got = read(r->fds[i], r->page, r->subbuf)) > 0)
			ret = raw_page(r);
		if (!ret && got < 0 && errno != EAGAIN && errno != EINTR) {
			ret = -errno;
			snprintf(err, errlen, "trace_pipe_raw: %s",
				 strerror(-ret));
		}
	}
	if (ret && !*err)
		snprintf(err, errlen, "out of memory for the stacks' records");
	/* the CPUs' records merged: each hit after those made before it */
	qsort(r->copies, r->ncopies, sizeof(*r->copies), raw_copy_cmp);
	for (size_t i = 0; i < r->ncopies; i++) {
		struct raw_copy *c = r->copies[i];

		if (!ret && c->ts > cutoff) {
			r->copies[k++] = c;
			continue;
		}
		struct stk_record sr = {
			.event = c->event,
			.tid = c->tid,
			.ts = c->ts,
			.regs = c->regs,
			.stack = c->stack,
			.len = c->len,
			.callers = c->callers,
			.info = c->info,
		};

		if (!ret)
			fn(&sr, arg);
		free(c->info);
		free(c);
		n++;
	}
	r->ncopies = k;
	return ret ? ret : n;
}

/*
 * What the kernel counted of the instance's records it had no room for,
 * over every CPU: those a full buffer overwrote ("overrun"), those an
 * interrupted writer gave up ("commit overrun") and those it dropped
 * ("dropped events"); -EIO if a CPU's counts cannot be read, -ENOENT if
 * no CPU's are there.
 */
static long long raw_kernel_lost(const struct stk_raw *r)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	char path[PATH_MAX + 64], line[128];
	unsigned long long n, sum = 0;
	int found, read = 0;
	FILE *f;

	for (long cpu = 0; cpu < cpus; cpu++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%ld/stats",
			 r->inst, cpu);
		f = fopen(path, "r");
		if (!f)
			continue;	/* a CPU that is not possible */
		found = 0;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "overrun: %llu", &n) == 1 ||
			    sscanf(line, "commit overrun: %llu", &n) == 1 ||
			    sscanf(line, "dropped events: %llu", &n) == 1) {
				sum += n;
				found++;
			}
		fclose(f);
		if (found != 3)
			return -EIO;
		read++;
	}
	return read ? (long long)sum : -ENOENT;
}

unsigned long long stk_raw_lost(const struct stk_raw *r, bool *some)
{
	long long k = raw_kernel_lost(r);

	/* the kernel's counts are exact; what the pages said may not be */
	if (k >= 0) {
		*some = false;
		return k;
	}
	*some = r->lost_some;
	return r->lost;
}

void stk_raw_close(struct stk_raw *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->nfds; i++)
		close(r->fds[i]);
	free(r->fds);
	free(r->page);
	for (int i = 0; r->evs && i < r->nevs; i++)
		free(r->evs[i].strs);
	free(r->evs);
	for (size_t i = 0; i < r->ncopies; i++) {
		free(r->copies[i]->info);
		free(r->copies[i]);
	}
	free(r->copies);
	free(r->inst);
	if (r->kbuf)
		kbuffer_free(r->kbuf);
	if (r->tep)
		tep_free(r->tep);
	free(r);
}
