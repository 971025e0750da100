/* SPDX-License-Identifier: GPL-2.0 */
/*
 * utprobes internals: what the files of kernel/uprobes/ share.  The
 * design, its locking and lifetimes are described at the top of core.c.
 */
#ifndef _KERNEL_UPROBES_INTERNAL_H
#define _KERNEL_UPROBES_INTERNAL_H

#include <linux/delay.h>
#include <linux/elf.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/highmem.h>
#include <linux/jump_label.h>
#include <linux/kdebug.h>
#include <linux/kref.h>
#include <linux/list_sort.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mmu_notifier.h>
#include <linux/moduleparam.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/rmap.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/srcu.h>
#include <linux/swap.h>
#include <linux/task_work.h>
#include <linux/utprobes.h>
#include <linux/utrace.h>
#include <linux/wait.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <asm/tlbflush.h>
#include <asm/utprobes.h>

/* The address of the breakpoint a thread trapped on, from its registers. */
static inline unsigned long utp_bp_addr(struct pt_regs *regs)
{
	return instruction_pointer(regs) - UTP_BREAK_INSN_SIZE;
}

/*
 * May the trap take @up's part of a hit?  Yes if it only counts, or its
 * handlers may run there.  Read once per hit, by the trap's decision to
 * take the hit there (see utprobe_set_trap_safe()).
 */
static inline bool utp_trap_ok(struct utprobe *up)
{
	if ((!up->handler && !up->ret_handler) ||
	    (up->flags & UTPROBE_TRAP_SAFE))
		return true;
	/* pairs with the release in utprobe_set_trap_safe() */
	return smp_load_acquire(&up->trap_now);
}

/*
 * The same, once the trap has decided: false only for a probe added
 * since, which misses this hit; a probe the trap found trap-safe stays
 * so until the trap is over.
 */
static inline bool utp_trap_still_ok(struct utprobe *up)
{
	return (up->flags & UTPROBE_TRAP_SAFE) || READ_ONCE(up->trap_grace);
}

/* The out-of-line area: slots within this distance of the points they serve. */
#define UTP_XOL_PAGES	16
#define UTP_XOL_SIZE	(UTP_XOL_PAGES * PAGE_SIZE)
#define UTP_XOL_REACH	(SZ_1G)
/*
 * Points per process at most: utp_points_max, the parameter
 * utprobes.points_max, UTP_POINTS_MAX unless set, from 1 to
 * UTP_POINTS_LIMIT.  The probed process chooses where return sites go
 * and how often it maps a probed file, so what it makes us allocate is
 * bounded, and charged to its memory cgroup.
 */
#define UTP_POINTS_MAX		65536
#define UTP_POINTS_LIMIT	BIT(20)
extern unsigned int utp_points_max;
/* Notes of followed calls a thread keeps for reuse. */
#define UTP_RET_CACHE	8

/* Engine events: hits, fork and thread creation, exec, death. */
#define UTP_EVENTS	(UTRACE_EVENT(QUIESCE) | UTRACE_EVENT(SIGNAL) | \
			 UTRACE_EVENT(SIGNAL_CORE) | UTRACE_EVENT(CLONE) | \
			 UTRACE_EVENT(EXEC) | UTRACE_EVENT(DEATH))

/* A probe's place at one point. */
struct utp_consumer {
	struct list_head point_node;	/* in point->consumers */
	struct list_head probe_node;	/* in up->consumers */
	struct utprobe *up;
	struct utp_point *point;
	unsigned long ref_vaddr;	/* the semaphore it raised, or 0 */
	struct utp_jcount *jc;		/* its point's stub counts for it */
	struct rcu_head rcu;
};

/* A probed instruction in one process. */
struct utp_point {
	unsigned long vaddr;
	struct utp_proc *proc;
	struct utp_arch_insn ai;
	unsigned long slot;		/* 0 until first stepped; acquire */
	struct list_head consumers;
	bool ret_site;			/* a followed call returns here */
	bool arming;			/* a new return site, int3 not in yet */
	bool stale;			/* mapped over; see utp_mark_stale() */
	bool dbg_bp;			/* a debugger's int3 is under ours */
	bool gone;			/* out of the process; under xol_lock */
	unsigned long moved_to;		/* its int3's place after mremap() */
	struct utp_jump *jump;		/* its stub, once made; utp_mutex */
	unsigned long jbody;		/* a trap on it goes on there, or 0 */
	bool jumped;			/* the jump's bytes may be in the text */
	bool jforeign;			/* another wrote the window: no jump */
	u8 jwhy;			/* why not: enum utp_jump_why */
	struct rcu_head rcu;		/* freed after the hit paths' readers */
};

/* Part of the out-of-line area of a process. */
struct utp_xol {
	struct vm_special_mapping sm;
	struct kref kref;		/* the process's and the vma's */
	struct list_head node;		/* in proc->xols, under xol_lock */
	unsigned long start;
	unsigned int used;		/* slots handed out; never reused */
	struct page *pages[UTP_XOL_PAGES];
};

/* A probed process (one mm). */
struct utp_proc {
	struct list_head node;		/* in utp_procs */
	struct hlist_node mm_node;	/* in utp_mms */
	struct rcu_head rcu;		/* freed after utp_mms's readers */
	struct kref kref;
	struct mm_struct *mm;		/* mmgrab()ed */
	pid_t tgid;
	struct xarray points;		/* vaddr -> struct utp_point */
	atomic_t npoints;		/* in @points; utp_points_max at most */
	struct xarray slots;		/* slot -> its instruction's address */
	spinlock_t lock;		/* threads, quiescing, detaching */
	struct list_head threads;	/* and each one's quiesce.stopped */
	bool quiescing;
	bool detaching;			/* no point left: threads let go */
	unsigned int nreleased;		/* threads released, not freed yet */
	bool dead;			/* emptied: takes no thread, is freed */
	bool unsynced;			/* int3s in, utp_sync() to come */
	u64 removed;			/* last removal, to finish after its */
	bool ret_sweep;			/* grace period (utp_after_removals()); */
					/* a return probe among them */
	bool mmap_key;			/* holds utprobe_mmap_key on */
	bool ref_pending;		/* a semaphore not mapped yet */
	wait_queue_head_t wq;		/* the quiescer waits here */
	struct mutex xol_lock;		/* xols and slot allocation */
	struct list_head xols;
	struct work_struct free_work;
	struct list_head jareas;	/* stubs and counters; utp_mutex */
	struct xarray jumps;		/* vaddr -> its newest struct utp_jump */
	struct xarray jsys;		/* ... that of a handler stub */
	struct xarray jstubs;		/* a handler stub's address -> it */
	struct list_head jump_list;	/* all of them */
	struct delayed_work jump_work;	/* puts jumps in: utp_jump_kick() */
	unsigned int jump_tries;	/* ... tried again while threads are there */
	atomic_t njumped;		/* points with jumped set */
	struct mutex jgp_lock;		/* jgp, and the looks it asks for */
	struct utp_jgp *jgp;		/* a look at every thread, under way */
	unsigned int jgp_seq;		/* the last one's number */
};

/* Has @proc as many points as it may have?  A lowered bound stops growth. */
static inline bool utp_points_full(struct utp_proc *proc)
{
	return atomic_read(&proc->npoints) >= READ_ONCE(utp_points_max);
}

/*
 * Where a thread is in a hit of a point, each phase excluding the
 * others.  The fast path (in the int3 trap) ends the hit there or queues
 * the rest to its task_work; the slow path (the SIGTRAP's report, or a
 * handler stub's system call) may end in a step out of line.  Handlers
 * run in the trap, the task_work or the slow path: ut->hit.in_handler.
 */
enum utp_hit_phase {
	UTP_HIT_NONE,			/* no hit under way */
	UTP_HIT_QUEUED,			/* its task_work to run */
	UTP_HIT_EMULATE,		/* ... which only emulates hit.ai */
	UTP_HIT_SLOW,			/* in the slow path */
	UTP_HIT_STEPPING,		/* stepping its instruction */
};

/* A thread of a probed process: the data of its engine. */
struct utp_thread {
	struct list_head node;		/* in proc->threads, under proc->lock */
	struct task_struct *task;	/* referenced */
	pid_t tid;			/* its key in utp_tids */
	struct utrace_engine *engine;	/* referenced */
	struct utp_proc *proc;
	struct rcu_head rcu;		/* freed after readers of utp_tids */
	/*
	 * For the quiescer and the jumps' look (quiesce.c, jump_look.c),
	 * under proc->lock but jgp_seq.  Not one state: each is another
	 * party's, and they hold together (a thread seen idle may then
	 * stop itself).
	 */
	struct {
		bool stopped;		/* quiesced for the quiescer */
		bool unstop;		/* resume it after its callback */
		bool in_work;		/* in utp_mmap_work(): as good */
		bool idle;		/* off CPU, asleep, when asked */
		unsigned long idle_switches; /* its context switches then */
		bool released;		/* let go of asleep (utp_proc_idle()) */
		struct callback_head gone_work; /* ... which frees it there */
		unsigned int jgp_seq;	/* the last proc->jgp it was seen by */
	} quiesce;
	/* a hit (hit.c) */
	struct {
		/* where it is; only the thread writes it, READ_ONCE() else */
		enum utp_hit_phase phase;
		bool in_handler;	/* running probe handlers, any phase */
		struct callback_head work; /* a hit taken on the fast path */
		unsigned long bp;	/* ... its address */
		struct utp_arch_insn ai; /* UTP_HIT_EMULATE's instruction */
		unsigned long replay_bp; /* hit again, handlers run already */
		unsigned long int3_bp;	/* the last user int3 it trapped on */
	} hit;
	/* a displaced instruction stepped out of line (UTP_HIT_STEPPING) */
	struct {
		struct utp_arch_insn ai; /* this one, its point's copied */
		unsigned long vaddr;	/* ... from here */
		unsigned long slot;	/* ... in this slot */
		struct list_head delayed; /* signals that came mid-step */
	} step;
	/* a debugger's ways with the thread */
	struct {
		bool user_step;		/* single-stepped at the hit */
		bool user_step_traced;	/* ... by a ptracer */
		unsigned long bp;	/* stopped for a debugger's int3 here */
		unsigned long sp;	/* ... with this stack pointer */
	} dbg;
	/* the calls followed to their return (ret.c) */
	struct {
		struct utp_ret *calls;	/* newest first */
		unsigned int depth;	/* how many */
		struct utp_ret *cache;	/* notes to reuse: utp_ret_alloc() */
		unsigned int ncached;	/* how many */
	} ret;
	struct utp_fork_work *fork_pending; /* for the child being forked */
};

/*
 * A return probe, as the notes of the calls it follows know it: the
 * probe while it is registered, NULL once it has gone (read in the hit
 * paths' read sections, which its unregistration waits out, or under
 * utp_mutex, under which it is cleared).  The probe holds a reference,
 * and so does each note: it outlives the probe until the last note
 * made for it has gone, so that a removal need not look for the notes
 * in the threads' lists.
 */
struct utp_ret_probe {
	struct utprobe *up;
	refcount_t ref;
};

/* A call of a function probed for its return, not returned yet. */
struct utp_ret {
	struct utp_ret *next;		/* the call it was made in */
	struct utp_ret_probe *rp;	/* a reference, or NULL: no probe */
	unsigned long func;		/* the probed function */
	unsigned long orig;		/* the real return address */
	unsigned long stack;		/* where that lies on the stack */
	u64 entry_ns;
};

/* Whether a hit on a return site is a return, as the trap read it */
enum utp_trap_returning {
	UTP_TRAP_UNREAD,		/* not read: the hit reads it */
	UTP_TRAP_NOT_RETURN,		/* a jump to the site, not a return */
	UTP_TRAP_RETURN,		/* the return address just popped */
};

/*
 * What the int3 trap read of the stack before it decided to take a hit
 * there (utp_trap_hit()), handed to the hit's return probes; a hit out
 * of the trap gets none.
 */
struct utp_trap_read {
	struct utp_point *site;		/* the return site of the call */
	unsigned long ra;		/* ... its return address */
	enum utp_trap_returning returning;
};

struct utp_delayed {
	struct list_head node;
	kernel_siginfo_t info;
};

/*
 * One byte of text to change, from @old to @new, at @vaddr: an int3 for
 * the point @pt of the probe @up, or @pt's own byte back over its int3;
 * see __utp_poke_page().  @ret is the outcome.
 */
struct utp_poke {
	unsigned long vaddr;
	u8 old;
	u8 new;
	const struct utp_point *pt;
	const struct utprobe *up;
	int ret;
};

struct utp_fork_work {
	struct callback_head cb;
	struct xarray kept;		/* vaddr -> struct utp_kept */
	struct utp_ret *rets;		/* calls of probes on files, newest first */
	struct list_head node;		/* in utp_forks, once queued */
	struct mm_struct *mm;		/* the child's; only compared */
};

/*
 * How utp_add() goes about it: under the running threads, quiescing them
 * only where that is needed, the caller synchronising them with the new
 * text afterwards (utp_sync()); or in a
 * mapping current has just made, which no thread can be executing yet;
 * or with our int3 inherited there already from the parent of a fork.
 */
enum utp_add_mode {
	UTP_ADD_LIVE,
	UTP_ADD_FRESH,
	UTP_ADD_INHERITED,
};

/*
 * Why a point is not entered by a jump (utprobe_mode() names them);
 * UTP_JW_JUMP if it is.
 */
enum utp_jump_why {
	UTP_JW_OFF,		/* the function's extent not given */
	UTP_JW_PENDING,		/* not looked at yet */
	UTP_JW_JUMP,		/* entered by a jump */
	UTP_JW_HANDLER,		/* a handler runs at each hit */
	UTP_JW_SHARED,		/* another probe there, or a return site */
	UTP_JW_WINDOW,		/* an instruction there cannot move */
	UTP_JW_BRANCH,		/* a branch lands inside the window */
	UTP_JW_DECODE,		/* the function does not decode */
	UTP_JW_PAGE,		/* the window crosses a page */
	UTP_JW_POINT,		/* another point inside the window */
	UTP_JW_REACH,		/* no stub within reach */
	UTP_JW_NOMEM,
	UTP_JW_PTRACE,		/* the process is traced */
	UTP_JW_BUSY,		/* a thread was inside the window */
	UTP_JW_DEBUGGER,	/* a debugger or mainline wrote the window */
	UTP_JW_TEXT,		/* the text is not what it was */
	UTP_JW_UPROBES,		/* mainline uprobes are in the process */
};

/* Serialises all changes; see the top of core.c. */
extern struct mutex utp_mutex;
/* Read across the hit paths that may sleep; see utp_point_free(). */
extern struct srcu_struct utp_srcu;
/* Probed processes; under utp_mutex. */
extern struct list_head utp_procs;
/* The same by mm, for debuggers' accesses: changed under utp_mutex, RCU-read. */
extern DECLARE_HASHTABLE(utp_mms, 6);
/* Threads with an engine by pid, for the trap; RCU-read. */
extern struct xarray utp_tids;
/*
 * Probes on files (utprobe.file_node), by inode and offset: those of a
 * mapping, or of one place, are found without a walk of them all.
 * Changes under utp_mutex, and is read under it.
 */
extern struct rb_root utp_files;

/*
 * The int3s of new points in one process (a batch's, a new mapping's),
 * written after all of them are in the process's table, a page at a
 * time (utp_place_pokes()).
 */
struct utp_pokes {
	struct utp_poke *pk;
	unsigned int n;
	unsigned int max;
};

/*
 * struct utp_above - what core.c calls of the layers above it, which
 * keep state of their own in its processes, threads and consumers.  Set
 * once by utp_init() through utp_core_init(), before any probe exists:
 * core.c calls nothing above it but through these.
 *
 * @engine:		the engine's utrace callbacks, on every thread
 * @proc_init:		set up a new process's jumps
 * @proc_free:		free them, its points gone; utp_mutex held
 * @thread_unlink:	forget the calls a leaving thread follows;
 *			proc->lock held or the thread unlisted
 * @fork_free:		free a fork's work left on a thread whose fork
 *			failed after its copy
 * @consumer_free:	fold what a consumer's stub counted into its
 *			probe, before it goes; utp_mutex held
 */
struct utp_above {
	const struct utrace_engine_ops *engine;
	void (*proc_init)(struct utp_proc *proc);
	void (*proc_free)(struct utp_proc *proc);
	void (*thread_unlink)(struct utp_thread *ut);
	void (*fork_free)(struct utp_fork_work *w);
	void (*consumer_free)(struct utp_consumer *c);
};

/* core.c */
void __init utp_core_init(const struct utp_above *above);
u32 utp_report_exec(enum utrace_resume_action action,
		    struct utrace_engine *engine, struct task_struct *task,
		    const struct linux_binfmt *fmt,
		    const struct linux_binprm *bprm, struct pt_regs *regs);
u32 utp_report_death(struct utrace_engine *engine, struct task_struct *task,
		     bool group_dead, int signal);
void utp_files_add(struct utprobe *up);
void utp_files_del(struct utprobe *up);
struct utprobe *utp_files_first(const struct inode *inode, loff_t offset);
struct utprobe *utp_files_next(struct utprobe *up);
bool utp_file_at(const struct utprobe *up, const struct inode *inode,
		 loff_t to);

void utp_proc_release(struct kref *kref);
void utp_control(struct task_struct *task, struct utrace_engine *engine,
		 enum utrace_resume_action action);
void utp_set_events(struct utp_thread *ut, unsigned long events);
void utp_proc_free_if_empty(struct utp_proc *proc);
void utp_thread_unlink(struct utp_thread *ut);
bool utp_thread_leave(struct utp_thread *ut);
void utp_thread_free(struct utp_thread *ut);
void utp_thread_drop(struct utp_thread *ut);
int utp_thread_attach(struct utp_proc *proc, struct task_struct *task);
void utp_consumer_free(struct utp_consumer *c);
void utp_jump_gone(struct utp_proc *proc, struct utp_point *pt);
void utp_point_drop(struct utp_proc *proc, struct utp_point *pt);
struct utp_proc *utp_proc_find(struct mm_struct *mm);
struct utp_proc *utp_proc_find_rcu(struct mm_struct *mm);
struct utp_proc *utp_proc_get(struct task_struct *task);
struct utp_thread *utp_current_thread(void);
struct utp_thread *utp_own_thread(void);
void utp_set_in_work(struct utp_thread *ut, bool in_work);
bool utp_in_scope(struct utprobe *up, struct task_struct *task);
struct task_struct *utp_mm_task(struct mm_struct *mm);

/* quiesce.c */
bool utp_stop_if_quiescing(struct utp_thread *ut);
bool utp_thread_holds_hit(struct utp_thread *ut);
unsigned long utp_asleep(struct task_struct *task);
void utp_unquiesce(struct utp_proc *proc);
void utp_proc_idle(struct utp_proc *proc);
int utp_quiesce(struct utp_proc *proc);

/* text.c */
void utp_poke_page_locked(struct mm_struct *mm, struct utp_poke *pk,
			  unsigned int n, bool restore);
void utp_call_unkillable(void (*fn)(void *arg), void *arg);
void __utp_poke_page(struct mm_struct *mm, struct utp_poke *pk,
		     unsigned int n, bool restore);
int __utp_poke(struct mm_struct *mm, unsigned long vaddr, u8 old,
	       u8 new, const struct utp_point *pt,
	       const struct utprobe *up);
int utp_poke(struct mm_struct *mm, unsigned long vaddr, u8 old, u8 new);
void utp_sync(struct utp_proc *proc);
int utp_read_text(struct mm_struct *mm, unsigned long vaddr,
		  u8 *buf, int len);
int utp_read_file_text(struct inode *inode, loff_t offset, u8 *buf,
		       int len);

/* xol.c */
void utp_xol_release(struct kref *kref);
vm_fault_t utp_pages_fault(struct page *const *pages, unsigned long n,
			   struct vm_fault *vmf);
bool utp_xol_room(struct utp_proc *proc, unsigned long vaddr);
unsigned long utp_slot(struct utp_proc *proc, struct utp_point *pt);

/* remove.c */
u64 utp_removals_made(void);
void utp_after_removals(u64 last);
void utp_probe_free(struct utprobe *up);
void utp_unregister_locked(struct utprobe *up);
void utp_probe_release(struct utprobe *up);
void utp_unregister_wait(void);
void utp_unregister(struct utprobe *up);

/* place.c */
int utp_add(struct utprobe *up, struct task_struct *task,
	    unsigned long vaddr, const struct utp_arch_insn *ai,
	    enum utp_add_mode mode, struct utp_pokes *defer);
int utp_place_pokes(struct mm_struct *mm, struct utp_pokes *pokes, bool fresh);
bool utp_file_place_gone(int err);
void utp_point_restore(struct utp_proc *proc, struct utp_point *pt);
bool utp_consumes(struct utp_proc *proc, struct utprobe *up,
		  unsigned long vaddr);
void utp_forks_add(struct utp_fork_work *w);
void utp_forks_del(struct utp_fork_work *w);
int utp_int3_inherited(struct utp_proc *proc, unsigned long vaddr);

/* hit.c */
u32 utp_resume(struct utp_thread *ut);
u32 utp_report_quiesce(enum utrace_resume_action action,
		       struct utrace_engine *engine,
		       struct task_struct *task, unsigned long event);
u32 utp_report_signal(u32 action, struct utrace_engine *engine,
		      struct task_struct *task, struct pt_regs *regs,
		      kernel_siginfo_t *info,
		      const struct k_sigaction *orig_ka,
		      struct k_sigaction *return_ka);
int __init utp_trap_init(void);

/* ret.c */
struct utprobe *utp_ret_up(const struct utp_ret *ri);
void utp_ret_probe_put(struct utp_ret_probe *rp);
void utp_ret_kfree(struct utp_ret *ri);
void utp_ret_free_all(struct utp_thread *ut);
struct utp_point *utp_ret_site_trap(struct utp_proc *proc,
				    unsigned long ra);
int utp_read_word(unsigned long addr, unsigned long *val, bool trap);
void utp_ret_enter(struct utp_thread *ut, struct utp_point *pt,
		   struct pt_regs *regs, const struct utp_trap_read *trap);
void utp_ret_hit(struct utp_thread *ut, struct utp_point *pt,
		 struct pt_regs *regs, const struct utp_trap_read *trap);
void utp_ret_vfork(struct utp_thread *ut, struct utp_thread *cut);
void utp_ret_fork(struct utp_thread *ut);
void utp_ret_sweep(struct utp_proc *proc);
void utp_ret_adopt(struct utp_fork_work *w);

/* jump.c */
void utp_jump_proc_init(struct utp_proc *proc);
void utp_jump_proc_free(struct utp_proc *proc);
void utp_jump_out_probe(struct utp_proc *proc, struct utprobe *up,
			struct list_head *list, u8 why);
void utp_jump_clear_at(struct utp_proc *proc, unsigned long vaddr,
		       bool stopped);
void utp_jump_join(struct utp_point *pt, struct utp_consumer *c,
		   bool inherited);
void utp_jump_fold(struct utp_consumer *c);
bool utp_jump_through(struct utp_point *pt, struct pt_regs *regs);
/* the first byte from the jmp or the int3, and the tail */
#define UTP_JUMP_FORK_POKES	(UTP_JUMP_SIZE + 1)
unsigned int utp_jump_fork(struct utp_point *pt, u8 first,
			   struct utp_poke *pk);
void utp_jump_moved(struct utp_proc *proc, unsigned long start,
		    unsigned long end, unsigned long to);
bool utp_jump_access_read(struct utp_proc *proc, unsigned long addr,
			  u8 *b, int len);
void utp_jump_access_write(struct utp_proc *proc, struct mm_struct *mm,
			   unsigned long addr, u8 *text, int len);
void utp_jump_ret_site(struct utp_point *pt);
u64 utp_jump_hits(const struct utprobe *up);

/* jump_write.c */
void utp_jump_kick(struct utp_proc *proc);
void utp_jump_kick_later(struct utp_proc *proc, unsigned long delay);

/* jump_look.c */
void utp_jump_report(struct utp_thread *ut);

/* jump_area.c */
bool utp_jump_sys_orphan(unsigned long stub, struct utp_arch_stub *info);
bool utp_jump_sys_find(struct utp_proc *proc, unsigned long stub,
		       unsigned long *vaddr, struct utp_arch_stub *info);

/* semaphore.c */
int utp_ref_update(struct mm_struct *mm, struct inode *inode,
		   loff_t off, unsigned long *vaddr, int d);
void utp_ref_raise(struct utp_proc *proc, struct utp_consumer *c);
void utp_ref_retry(struct utp_proc *proc);

/* fork.c */
void utp_fork_work_free(struct utp_fork_work *w);
u32 utp_report_clone(enum utrace_resume_action action,
		     struct utrace_engine *engine,
		     struct task_struct *parent,
		     unsigned long clone_flags,
		     struct task_struct *child);
void utp_fork_work(struct callback_head *cb);

#endif /* _KERNEL_UPROBES_INTERNAL_H */
