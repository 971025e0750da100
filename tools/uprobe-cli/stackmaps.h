/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The maps of a followed process tree (stackmaps.c), for the unwinder
 * (stack.c).
 */
#ifndef UPROBE_CLI_STACKMAPS_H
#define UPROBE_CLI_STACKMAPS_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * A process's records are read after the fact, when it may have exited
 * and taken its /proc/PID/maps with it, or exec'd another program.  For
 * the tree of a command the tool runs, the kernel tells of each file
 * mapping as it is made (perf's PERF_RECORD_MMAP2, through a dummy
 * software event a CPU, inherited by every process and thread of the
 * tree), and of each exec, fork and exit, each with its time on the
 * clock of the trace instance's records: a record is unwound in the
 * maps its process had when the hit was made.
 */
struct stk_map {
	unsigned long start, end, pgoff;
	unsigned int maj, min;
	unsigned long ino;
	bool exec;
	const char *file;		/* interned */
};

struct stk_maps {
	int pid;
	struct stk_map *m;
	int n;
	unsigned int gen;		/* changes with the code mapped */
	int threads;			/* alive, as followed */
};

struct stk_tree;

struct stk_tree *stk_tree_new(void);
/* Follow the maps of process @pid's tree: 0, or -errno and @err */
int stk_tree_follow(struct stk_tree *t, pid_t pid, char *err, size_t errlen);
/* Copy out what the kernel told since, to be taken in later */
void stk_tree_poll(struct stk_tree *t);
/*
 * Take in what the kernel told of the maps followed up to time @until
 * (on the records' clock): the rest waits for later records.
 * @gone(@arg, PID) for each process whose last thread exited.
 */
void stk_tree_until(struct stk_tree *t, unsigned long long until,
		    void (*gone)(void *arg, int pid), void *arg);
/* Process @pid's maps as followed, or NULL if it is not followed */
struct stk_maps *stk_tree_maps(struct stk_tree *t, int pid);
/*
 * The process of thread @tid: as followed, or from /proc at its first
 * record; @tid if it has gone.
 */
int stk_tree_tgid(struct stk_tree *t, int tid);
/* Process @pid has exited: its maps and threads go */
void stk_tree_forget(struct stk_tree *t, int pid);
/* The records of the maps perf had no room for */
unsigned long long stk_tree_lost(const struct stk_tree *t);
void stk_tree_free(struct stk_tree *t);

#endif
