/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User stacks at probes (stack.c): records with the registers and a copy
 * of the stack (utprobe_events stack=SIZE), read from a trace instance's
 * trace_pipe_raw with libtraceevent, unwound with libdwfl's CFI
 * unwinder, and counted by the chain of callers they show.
 */
#ifndef UPROBE_CLI_STACK_H
#define UPROBE_CLI_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* the bytes of stack each hit copies by default, and at most */
#define STACK_BYTES		8192
#define STACK_BYTES_MAX		32768
/* the frames of a stack shown at most; deeper ones end in STACK_CUT */
#define STACK_FRAMES_MAX	128
/* The return addresses a frame-pointer walk gives (callers=) */
#define STACK_CALLERS		64
/* the last frame of a stack whose copy ended before its outermost frame */
#define STACK_CUT		"[stack cut]"

/* DWARF's registers of x86-64, in a record (the last the ip) */
#define STACK_NREGS		17

/* One hit's record: its process and thread, its registers and stack */
struct stk_record {
	const char *event;		/* the probe's name */
	int tid;			/* its process: stk_unwinder_pid() */
	unsigned long long ts;		/* the instance's clock, mono */
	const unsigned long *regs;	/* STACK_NREGS of them */
	const unsigned char *stack;	/* from the stack pointer up */
	unsigned int len;
	/*
	 * Or, with callers=, the words a frame-pointer walk found (stack
	 * and len), regs[16] the ip, the others 0; the first word counts
	 * only when the hit is at its function's entry
	 */
	bool callers;
	bool at_entry;
	const char *info;		/* "NAME=VALUE ...", if asked for */
};

typedef void (*stk_record_fn)(const struct stk_record *r, void *arg);

/* Records of a trace instance's probe events, from trace_pipe_raw. */
struct stk_raw;

/*
 * Read the records of the instance at @inst (a tracefs directory) for
 * the utprobes events @names[0..@n), and their values as text if
 * @info; NULL after a message in @err.
 */
struct stk_raw *stk_raw_open(const char *inst, const char *const *names,
			     int n, bool info, char *err, size_t errlen);
/*
 * Hand the records the buffers hold now to @fn, in the order of their
 * time, but for those of the last STACK_SETTLE_NS unless @last: how
 * many, or -errno after a message in @err (-ENOMEM, the read's).
 */
#define STACK_SETTLE_NS		10000000ULL
long stk_raw_drain(struct stk_raw *r, stk_record_fn fn, void *arg,
		   bool last, char *err, size_t errlen);
/*
 * The records the buffers had no room for, so far: as the kernel's
 * statistics of the instance count them, or if they cannot be read as
 * the pages read said, *@some set when they said more were lost than
 * they could count.
 */
unsigned long long stk_raw_lost(const struct stk_raw *r, bool *some);
void stk_raw_close(struct stk_raw *r);

/* The process of thread @tid, from /proc; @tid if it has gone */
int stk_proc_tgid(int tid);

/* Unwinds records, keeping what it learnt of each process. */
struct stk_unwinder;

struct stk_unwinder *stk_unwinder_new(void);
/*
 * The names of the frames of @r, innermost first, into @names (up to
 * @max; interned, never freed); how many.  Records are to be unwound in
 * the order of their time (stk_raw_drain()'s).  A frame without a symbol is
 * "[BINARY]"; the last is STACK_CUT when the copy ended first.
 */
int stk_unwind(struct stk_unwinder *u, const struct stk_record *r,
	       const char **names, int max);
/*
 * Follow the maps of process @pid and of every process and thread it
 * makes, from now on (as perf does, by the kernel's records of each
 * executable mapping made, each exec and fork): their records are
 * unwound even after they have exited.  0, or -errno after a message in
 * @err (-ENOMEM, perf_event_open()'s or mmap()'s): those processes' maps
 * are then read from /proc at their first record.
 */
int stk_unwinder_follow(struct stk_unwinder *u, pid_t pid, char *err,
			size_t errlen);
/* The process of thread @tid, as known when its last record was unwound */
int stk_unwinder_pid(struct stk_unwinder *u, int tid);
/*
 * Take what the kernel told of the maps followed out of its buffers, to
 * be applied in time: called often, so that they never fill.
 */
void stk_unwinder_poll(struct stk_unwinder *u);
/* The records of the maps followed the kernel had no room for */
unsigned long long stk_unwinder_lost(const struct stk_unwinder *u);
/* The records whose stack was given again, as unwound before */
unsigned long long stk_unwinder_cached(const struct stk_unwinder *u);
/*
 * Read process @pid's maps now if they were not read yet, for its
 * records read later: those of a process that has exited by then could
 * not be unwound otherwise.
 */
void stk_unwinder_watch(struct stk_unwinder *u, int pid);
void stk_unwinder_free(struct stk_unwinder *u);

/* Stacks and how often each was seen */
struct stk_counts;

struct stk_counts *stk_counts_new(void);
/* One more hit of the stack @names[0..@n), innermost first; 0, -ENOMEM */
int stk_counts_add(struct stk_counts *c, const char *const *names, int n);
/* The hits counted */
unsigned long long stk_counts_hits(const struct stk_counts *c);
/*
 * Each stack with its count: the "folded" form, one line per stack, its
 * frames outermost first joined by ';', a space and the count, as
 * FlameGraph's flamegraph.pl, inferno and speedscope read it.
 */
void stk_counts_folded(const struct stk_counts *c, FILE *out);
/* The @top most frequent stacks, innermost frame first, as a table */
void stk_counts_table(const struct stk_counts *c, int top, FILE *out);
/*
 * The same as members of the JSON object @w is in: "hits", "distinct"
 * and "stacks": [{"count", "frames"}], each name written by @str.
 */
typedef struct json_writer json_writer_t;
void stk_counts_json(const struct stk_counts *c, json_writer_t *w, int top,
		     void (*str)(json_writer_t *w, const char *s));
/*
 * A flame graph of the stacks, a self-contained interactive SVG, into
 * @path: 0, or -errno.
 */
int stk_counts_svg(const struct stk_counts *c, const char *title,
		   const char *path);
void stk_counts_free(struct stk_counts *c);

#endif /* UPROBE_CLI_STACK_H */
