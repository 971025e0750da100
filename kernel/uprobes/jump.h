/* SPDX-License-Identifier: GPL-2.0 */
/*
 * utprobes: what the files of the jumps share.  jump.c holds the design
 * and the hooks the rest of the engine calls; jump_write.c decides which
 * points jump and writes their bytes in and out, after jump_look.c has
 * looked at every thread of the process; jump_area.c maps the stubs and
 * their counters.  Each calls only those after it in this list.
 */
#ifndef _KERNEL_UPROBES_JUMP_H
#define _KERNEL_UPROBES_JUMP_H

#include "internal.h"

#define UTP_JAREA_TEXT_PAGES	16
#define UTP_JAREA_TEXT_SIZE	(UTP_JAREA_TEXT_PAGES * PAGE_SIZE)
#define UTP_JAREA_STUBS		(UTP_JAREA_TEXT_SIZE / UTP_JUMP_STUB_SIZE)
/*
 * A thread's stack is searched this far above its stack pointer, within
 * the mapping the stack pointer is in.
 */
#define UTP_JUMP_STACK_SCAN	SZ_64K
/* Times a process is tried again while threads are inside windows. */
#define UTP_JUMP_TRIES		50
/* How long a fork's child runs on int3s before its look for jumps. */
#define UTP_JUMP_FORK_DELAY	(HZ / 10)
/* How long every thread of a process may take to be looked at. */
#define UTP_JUMP_GRACE_JIFFIES	(HZ / 5)

/* One page of counters per slot, a u64 per stub. */
static_assert(UTP_JAREA_STUBS * sizeof(u64) == PAGE_SIZE);

/* Stubs and their counters in one process, within reach of its text. */
struct utp_jarea {
	struct vm_special_mapping text_sm;
	struct vm_special_mapping cnt_sm;
	struct kref kref;		/* the process's, and each vma's */
	struct list_head node;		/* in proc->jareas */
	unsigned long start;		/* the stubs; the counters follow */
	unsigned int used;		/* stubs made */
	struct page *text[UTP_JAREA_TEXT_PAGES];
	struct page *cnt[];		/* utp_jump_slots, as they fault in */
};

/* The stub of a window, and what the window held. */
struct utp_jump {
	struct list_head node;		/* in proc's list, freed with it */
	struct rcu_head rcu;		/* after utprobe_hits()' readers */
	struct utp_jarea *area;		/* referenced */
	unsigned long stub;
	unsigned int idx;		/* the stub's and its counters' */
	unsigned long vaddr;		/* the window's */
	bool sys;			/* a handler's: no count, a syscall */
	struct utp_arch_stub info;
	u8 len;
	u8 orig[UTP_JUMP_WINDOW_MAX];
	u8 jmp[UTP_JUMP_SIZE];
};

/*
 * A stub's counts that are a consumer's: all it counted since it began
 * counting for it (@base then).  In its probe's jcounts, under RCU.
 */
struct utp_jcount {
	struct list_head node;
	const struct utp_jump *j;
	u64 base;
	struct rcu_head rcu;
};

/*
 * A look at every thread of a process while jumps go in or out, none of
 * them stopped: a grace period.  Each thread is looked at once, after it
 * began, where it cannot run user code until the look is over: asleep
 * (utp_jump_look_asleep()), or on its way back to user mode, by itself
 * (utp_jump_report(), which UTRACE_REPORT asks for; its kick is the only
 * cost to a thread that runs).  What a look finds holds from then on:
 * going in, the jump's body is set first, so that a thread outside a
 * window can only reach its middle through the int3, which goes on in
 * the stub (utp_jump_through()); going out, the jump and the body are
 * gone first, so that a thread past a stub's count does not come back
 * before it.
 */
struct utp_jgp {
	unsigned int seq;		/* proc->jgp_seq */
	bool out;			/* going out: not going in */
	struct utp_point **pts;		/* the points, by address */
	unsigned int n;
	bool *busy;			/* in: a thread in the window's middle */
	unsigned long *words;		/* in: a stack's top, searched: the caller's */
	unsigned long *own;		/* ... a thread's own look's; jgp_lock */
};

/* jump_write.c */
int utp_jump_count_for(struct utp_consumer *c, const struct utp_jump *j);
void utp_jump_out(struct utp_proc *proc, struct utp_point **pts,
		  unsigned int n, u8 why, bool wait);
unsigned int utp_jump_tail(struct utp_point *pt, unsigned long vaddr,
			   bool in, struct utp_poke *pk);
void utp_jump_work(struct work_struct *work);

/* jump_look.c */
bool utp_jump_grace(struct utp_proc *proc, struct utp_jgp *g);
bool utp_jump_traced(struct utp_proc *proc);

/* jump_area.c */
void utp_jarea_release(struct kref *kref);
u64 utp_jump_sum(const struct utp_jump *j);
int utp_jump_make(struct utp_proc *proc, unsigned long vaddr,
		  const struct utp_arch_window *w, const u8 *orig,
		  bool sys, struct utp_jump **jp);

#endif /* _KERNEL_UPROBES_JUMP_H */
