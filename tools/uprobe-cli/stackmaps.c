// SPDX-License-Identifier: GPL-2.0
/*
 * The maps of the process tree of a command the tool runs, followed as
 * the kernel tells of them (perf's PERF_RECORD_MMAP2, COMM, FORK and
 * EXIT), and each thread's process: stack.c unwinds each record in the
 * maps its process had at the record's time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "resolve.h"
#include "stack.h"
#include "stackmaps.h"

/* PERF_RECORD_MMAP2's body, as include/uapi/linux/perf_event.h has it */
struct perf_mmap2 {
	__u32 pid, tid;
	__u64 addr, len, pgoff;
	__u32 maj, min;
	__u64 ino, ino_generation;
	__u32 prot, flags;
	char filename[];
};

/* A record of a perf ring buffer, copied out, and its time */
struct perf_rec {
	__u64 time;
	struct perf_event_header *h;
};

#define PERF_PAGES	256		/* data pages of each ring buffer */

/* A thread's process, as /proc said when it was first seen */
struct stk_tgid {
	int tid, pid;
};

struct stk_tree {
	struct stk_maps *maps;
	int nmaps;
	int *perf_fd;		/* an event a CPU, as perf record has them */
	void **perf;		/* their ring buffers */
	int nperf;
	size_t perf_len;
	struct perf_rec *pending;	/* taken, in time order, not applied */
	size_t npending, cpending;
	unsigned long long perf_lost;	/* records perf had no room for */
	struct stk_tgid *tgids;
	int ntgids;
};

int stk_proc_tgid(int tid)
{
	char path[64], line[128];
	int pid = tid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &pid) == 1)
			break;
	if (f)
		fclose(f);
	return pid;
}

/* Thread @tid is of process @pid (from now on: a tid is reused) */
static void tgid_add(struct stk_tree *t, int tid, int pid)
{
	struct stk_tgid *more;

	for (int i = 0; i < t->ntgids; i++) {
		if (t->tgids[i].tid == tid) {
			t->tgids[i].pid = pid;
			return;
		}
	}
	more = realloc(t->tgids, (t->ntgids + 1) * sizeof(*more));
	if (more) {
		t->tgids = more;
		t->tgids[t->ntgids++] = (struct stk_tgid){ tid, pid };
	}
}

static void tgid_del(struct stk_tree *t, int tid)
{
	for (int i = 0; i < t->ntgids; i++) {
		if (t->tgids[i].tid == tid) {
			t->tgids[i] = t->tgids[--t->ntgids];
			return;
		}
	}
}

/*
 * The process of thread @tid: as followed, or from /proc at its first
 * record; @tid if it has gone.
 */
int stk_tree_tgid(struct stk_tree *t, int tid)
{
	int pid;

	for (int i = 0; i < t->ntgids; i++)
		if (t->tgids[i].tid == tid)
			return t->tgids[i].pid;
	pid = stk_proc_tgid(tid);
	tgid_add(t, tid, pid);
	return pid;
}

static int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static void perf_close(struct stk_tree *t)
{
	for (int i = 0; i < t->nperf; i++) {
		munmap(t->perf[i], t->perf_len);
		close(t->perf_fd[i]);
	}
	t->nperf = 0;
}

int stk_tree_follow(struct stk_tree *t, pid_t pid, char *err,
			size_t errlen)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		/* every file mapping: a binary's first one is its base */
		.mmap = 1,
		.mmap2 = 1,
		.mmap_data = 1,
		.comm = 1,
		.comm_exec = 1,
		.task = 1,
		.inherit = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		/* each record's time, on the trace instance's clock */
		.sample_id_all = 1,
		.sample_type = PERF_SAMPLE_TIME,
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,
	};
	long cpus = sysconf(_SC_NPROCESSORS_CONF);

	/* an inherited event has a ring buffer only if it is per CPU */
	t->perf_fd = calloc(cpus, sizeof(*t->perf_fd));
	t->perf = calloc(cpus, sizeof(*t->perf));
	if (!t->perf_fd || !t->perf) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	t->perf_len = (PERF_PAGES + 1) * getpagesize();
	for (long cpu = 0; cpu < cpus; cpu++) {
		int fd = perf_open(&attr, pid, cpu);
		void *rb;

		if (fd < 0 && errno == ENODEV)
			continue;	/* not a CPU that is there */
		if (fd < 0) {
			fd = -errno;
			snprintf(err, errlen, "perf_event_open (to follow the maps of process %d): %s",
				 (int)pid, strerror(-fd));
			perf_close(t);
			return fd;
		}
		rb = mmap(NULL, t->perf_len, PROT_READ | PROT_WRITE,
			  MAP_SHARED, fd, 0);
		if (rb == MAP_FAILED) {
			int e = -errno;

			snprintf(err, errlen, "mmap of a perf ring buffer: %s",
				 strerror(-e));
			close(fd);
			perf_close(t);
			return e;
		}
		t->perf_fd[t->nperf] = fd;
		t->perf[t->nperf++] = rb;
	}
	return 0;
}

static struct stk_maps *maps_of(struct stk_tree *t, int pid, bool make)
{
	struct stk_maps *more;

	for (int i = 0; i < t->nmaps; i++)
		if (t->maps[i].pid == pid)
			return &t->maps[i];
	if (!make)
		return NULL;
	more = realloc(t->maps, (t->nmaps + 1) * sizeof(*more));
	if (!more)
		return NULL;
	t->maps = more;
	t->maps[t->nmaps] = (struct stk_maps){ .pid = pid, .threads = 1 };
	return &t->maps[t->nmaps++];
}

/* Room for @more maps in @p: 0, or -ENOMEM */
static int maps_room(struct stk_maps *p, int more)
{
	struct stk_map *m = realloc(p->m, (p->n + more) * sizeof(*m));

	if (!m)
		return -ENOMEM;
	p->m = m;
	return 0;
}

/* A mapping @nm made in process @pid: what it maps over is gone */
static void maps_add(struct stk_tree *t, int pid, const struct stk_map *nm)
{
	struct stk_maps *p = maps_of(t, pid, true);
	int k;

	/* each mapping it overlaps may leave a part below and above it */
	if (!p || maps_room(p, p->n + 1))
		return;
	k = p->n;
	for (int i = 0; i < k; i++) {
		struct stk_map *o = &p->m[i];

		if (o->end <= nm->start || o->start >= nm->end)
			continue;
		if (o->end > nm->end) {
			p->m[p->n] = *o;
			p->m[p->n].pgoff += nm->end - o->start;
			p->m[p->n++].start = nm->end;
		}
		o->end = o->start < nm->start ? nm->start : o->start;
	}
	k = 0;
	for (int i = 0; i < p->n; i++)
		if (p->m[i].end > p->m[i].start)
			p->m[k++] = p->m[i];
	p->n = k;
	p->m[p->n++] = *nm;
	/* the unwinder needs a new view of the code only */
	if (nm->exec)
		p->gen++;
}

/* A fork: the child starts with its parent's maps */
static void maps_fork(struct stk_tree *t, int pid, int ppid)
{
	struct stk_maps *parent, *child = maps_of(t, pid, true);

	/* maps_of() may have moved the array */
	parent = maps_of(t, ppid, false);
	if (!child || child == parent)
		return;
	/* a pid used again: another process */
	child->n = 0;
	child->threads = 1;
	child->gen++;
	if (!parent || maps_room(child, parent->n + 1))
		return;
	memcpy(child->m, parent->m, parent->n * sizeof(*child->m));
	child->n = parent->n;
}

/* An exec: a new address space */
static void maps_exec(struct stk_tree *t, int pid)
{
	struct stk_maps *p = maps_of(t, pid, true);

	if (p) {
		p->n = 0;
		p->gen++;
	}
}

/* Take in record @h; @gone(@arg, PID) when a process's last thread exits */
static void perf_record(struct stk_tree *t, const struct perf_event_header *h,
			void (*gone)(void *arg, int pid), void *arg)
{
	const char *body = (const char *)(h + 1);
	const __u32 *ids = (const void *)body;

	if (h->type == PERF_RECORD_MMAP2) {
		const struct perf_mmap2 *m = (const void *)body;
		struct stk_map nm = {
			m->addr, m->addr + m->len, m->pgoff, m->maj, m->min,
			m->ino, m->prot & PROT_EXEC, NULL,
		};

		/* files only: [vdso], //anon and the like have no ELF file */
		if (m->filename[0] != '/' || !strncmp(m->filename, "//", 2))
			return;
		nm.file = up_intern(m->filename);
		if (nm.file)
			maps_add(t, m->pid, &nm);
	} else if (h->type == PERF_RECORD_COMM &&
		   (h->misc & PERF_RECORD_MISC_COMM_EXEC)) {
		maps_exec(t, ids[0]);
	} else if (h->type == PERF_RECORD_FORK) {
		struct stk_maps *p;

		/* pid, ppid, tid: a thread's records name it alone */
		tgid_add(t, ids[2], ids[0]);
		if (ids[0] == ids[2]) {
			maps_fork(t, ids[0], ids[1]);
		} else {
			p = maps_of(t, ids[0], false);
			if (p)
				p->threads++;
		}
	} else if (h->type == PERF_RECORD_EXIT) {
		struct stk_maps *p = maps_of(t, ids[0], false);

		tgid_del(t, ids[2]);
		/* its last thread: its records, all made before, were unwound */
		if (p && --p->threads <= 0)
			gone(arg, ids[0]);
	} else if (h->type == PERF_RECORD_LOST) {
		const __u64 *lost = (const void *)body;	/* id, lost */

		t->perf_lost += lost[1];
	}
}

/* A mapping of a file, an exec, a fork, an exit or a loss */
static bool perf_useful(const struct perf_event_header *h)
{
	const struct perf_mmap2 *m = (const void *)(h + 1);

	if (h->type != PERF_RECORD_MMAP2)
		return true;
	return m->filename[0] == '/' && m->filename[1] != '/';
}

static int perf_rec_cmp(const void *a, const void *b)
{
	const struct perf_rec *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

/* Copy the records of ring buffer @meta to the end of t->pending */
static void perf_take(struct stk_tree *t,
		      struct perf_event_mmap_page *meta)
{
	unsigned char *data = (unsigned char *)meta + meta->data_offset;
	__u64 size = meta->data_size, tail = meta->data_tail, head;

	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	while (tail < head) {
		struct perf_event_header h, *copy;
		__u64 at = tail % size;

		/* a record may wrap around the buffer's end */
		for (size_t i = 0; i < sizeof(h); i++)
			((unsigned char *)&h)[i] = data[(at + i) % size];
		if (h.size < sizeof(h) + sizeof(__u64))
			break;
		if (t->npending == t->cpending) {
			size_t cap = t->cpending ? 2 * t->cpending : 64;
			struct perf_rec *more = reallocarray(t->pending, cap,
							     sizeof(*more));

			if (!more)
				break;
			t->pending = more;
			t->cpending = cap;
		}
		copy = malloc(h.size);
		if (!copy)
			break;
		for (size_t i = 0; i < h.size; i++)
			((unsigned char *)copy)[i] = data[(at + i) % size];
		/* anonymous memory, mapped often, is of no use: not kept */
		if (!perf_useful(copy)) {
			free(copy);
			tail += h.size;
			continue;
		}
		/* sample_id_all: the time ends every record */
		memcpy(&t->pending[t->npending].time,
		       (char *)copy + h.size - sizeof(__u64), sizeof(__u64));
		t->pending[t->npending++].h = copy;
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

void stk_tree_poll(struct stk_tree *t)
{
	for (int i = 0; i < t->nperf; i++)
		perf_take(t, t->perf[i]);
}

unsigned long long stk_tree_lost(const struct stk_tree *t)
{
	return t->perf_lost;
}

void stk_tree_until(struct stk_tree *t, unsigned long long until,
		    void (*gone)(void *arg, int pid), void *arg)
{
	size_t k = 0;

	if (!t->nperf)
		return;
	stk_tree_poll(t);
	/* a fork, an exec and the mappings after them, in that order */
	qsort(t->pending, t->npending, sizeof(*t->pending), perf_rec_cmp);
	while (k < t->npending && t->pending[k].time <= until) {
		perf_record(t, t->pending[k].h, gone, arg);
		free(t->pending[k++].h);
	}
	memmove(t->pending, t->pending + k,
		(t->npending - k) * sizeof(*t->pending));
	t->npending -= k;
}

struct stk_maps *stk_tree_maps(struct stk_tree *t, int pid)
{
	return maps_of(t, pid, false);
}

void stk_tree_forget(struct stk_tree *t, int pid)
{
	int k = 0;

	for (int i = 0; i < t->nmaps; i++) {
		if (t->maps[i].pid != pid)
			continue;
		free(t->maps[i].m);
		t->maps[i] = t->maps[--t->nmaps];
		break;
	}
	for (int i = 0; i < t->ntgids; i++)
		if (t->tgids[i].pid != pid)
			t->tgids[k++] = t->tgids[i];
	t->ntgids = k;
}

struct stk_tree *stk_tree_new(void)
{
	return calloc(1, sizeof(struct stk_tree));
}

void stk_tree_free(struct stk_tree *t)
{
	if (!t)
		return;
	free(t->tgids);
	for (int i = 0; i < t->nmaps; i++)
		free(t->maps[i].m);
	free(t->maps);
	perf_close(t);
	for (size_t i = 0; i < t->npending; i++)
		free(t->pending[i].h);
	free(t->pending);
	free(t->perf);
	free(t->perf_fd);
	free(t);
}
