// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes: breakpoints on user instructions, built on utrace.
 *
 * A probe becomes a *point* in each process it applies to: an int3 in the
 * process's private copy of the page holding the instruction (a forced
 * write makes the copy; the page cache and the file never see it).  Each
 * thread of a probed process carries a utrace engine whose data is a
 * struct utp_thread.  A hit is the SIGTRAP of the int3, seen by the
 * engine's report_signal() before the thread acts on it: the handlers
 * run there, in the thread, then the instruction is emulated, or copied
 * to a slot of the process's out-of-line area and single-stepped there,
 * and the SIGTRAP of the step ends the hit.
 *
 * Return probes: on a hit at a function's entry, the thread notes the
 * call (struct utp_ret: where its return address lies on the stack and
 * what it is), and the instruction at the return address becomes a
 * point too, a return site.  The stack is left alone, so that unwinders
 * (C++ exceptions, backtraces, debuggers) still find real return
 * addresses.  A hit on a return site takes the newest notes off the
 * thread's list: those whose return address lay below the stack pointer
 * belong to frames unwound meanwhile (longjmp(), exceptions) and are
 * dropped; those whose return address was just popped and led here are
 * calls returning, whose return handlers run; then the instruction
 * there runs as at any point.  Return sites are added by the thread
 * that needs one, without quiescing the others (a point that is not
 * there yet is never trapped on), and removed once the process has no
 * return probe left.  A note refers to its probe through a struct
 * utp_ret_probe, which forgets the probe when it goes: a removal never
 * looks into the threads' lists.
 *
 * Locking and lifetimes:
 *
 * utp_mutex serialises every change: registration, unregistration, the
 * creation and teardown of struct utp_proc.  The threads of a process
 * are the only readers of its points on the hit path: in the trap under
 * RCU, elsewhere (where handlers may sleep) in read sections of
 * utp_srcu.  Changes are made under them while they run.  A point is
 * complete before it goes into the points xarray, and in the xarray
 * before its int3 goes into the text (then utp_sync()); a consumer is
 * complete before list_add_tail_rcu() puts it on its point's list,
 * which the hit path walks forwards only.  Registrations make them
 * under utp_mutex, and a thread makes the return sites it needs itself.
 * A removal takes the consumer off its list, writes the original byte
 * back over the int3 and only then takes the point out of the xarray;
 * both are freed after a grace period of each kind, and the probe is let
 * go after one too (utprobe_unregister_sync()).  A thread stepping an
 * instruction out of line holds a copy of what it needs, not the point.
 * A fork's copy of the text loses its int3s under the same mmap_lock
 * that every text write takes (__utprobe_dup_mmap()).  Hit counts are
 * per-CPU.
 *
 * proc->lock (a spinlock) protects the thread list and the quiesce state
 * of the process; it nests outside utrace's own lock (utrace_control()).
 * proc->xol_lock (a mutex) serialises the out-of-line area, which threads
 * fill in lazily on their first step of a point.
 *
 * The fast path: most hits need neither a single step nor a stop, and
 * are taken without a signal.  The int3 trap itself (utp_trap(), from
 * the die notifier, interrupts off) finds the thread by its pid, and the
 * point, in RCU-read xarrays; if the point is there and is
 * emulated or runs through its slot, no SIGTRAP is sent.  If every probe
 * there only counts or has handlers that may run in the trap
 * (UTPROBE_TRAP_SAFE), and the return site a call followed from there
 * needs is there already, the hit is done in the trap, return sites'
 * too; otherwise it is queued as a task_work that runs it on the way
 * back to user mode.
 * Anything else (a point to single-step, a process being quiesced) is
 * left to the SIGTRAP and report_signal().
 *
 * A thread's list of calls followed to their return (utp_thread.rets) is
 * changed by the thread itself without locks, and by others only under
 * proc->lock once it has left the process (exit, exec).
 */
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

#define CREATE_TRACE_POINTS
#include <trace/events/utprobes.h>

/* The address of the breakpoint a thread trapped on, from its registers. */
static inline unsigned long utp_bp_addr(struct pt_regs *regs)
{
	return instruction_pointer(regs) - UTP_BREAK_INSN_SIZE;
}

/* The out-of-line area: slots within this distance of the points they serve. */
#define UTP_XOL_PAGES	16
#define UTP_XOL_SIZE	(UTP_XOL_PAGES * PAGE_SIZE)
#define UTP_XOL_REACH	(SZ_1G)
/*
 * Points per process at most.  The probed process chooses where return
 * sites go and how often it maps a probed file, so what it makes us
 * allocate is bounded, and charged to its memory cgroup.
 */
#define UTP_POINTS_MAX	65536
/* Notes of followed calls a thread keeps for reuse. */
#define UTP_RET_CACHE	8

/* Engine events: hits, fork and thread creation, exec, death. */
#define UTP_EVENTS	(UTRACE_EVENT(QUIESCE) | UTRACE_EVENT(SIGNAL) | \
			 UTRACE_EVENT(SIGNAL_CORE) | UTRACE_EVENT(CLONE) | \
			 UTRACE_EVENT(EXEC) | UTRACE_EVENT(DEATH))

/* Serialises all changes; see the top of the file. */
static DEFINE_MUTEX(utp_mutex);
/* Read across the hit paths that may sleep; see utp_point_free(). */
DEFINE_STATIC_SRCU(utp_srcu);
/* Probed processes; under utp_mutex. */
static LIST_HEAD(utp_procs);
/* Removals made, numbering them for utp_after_removals(); under utp_mutex. */
static u64 utp_removals;
/* The same by mm, for debuggers' accesses: changed under utp_mutex, RCU-read. */
static DEFINE_HASHTABLE(utp_mms, 6);
/* Threads with an engine by pid, for the trap; RCU-read. */
static DEFINE_XARRAY(utp_tids);
/* Probes on files (utprobe.file_node); under utp_mutex. */
static LIST_HEAD(utp_files);
/*
 * On while there are probes on files or probed processes: mmap() then
 * looks for them, and debuggers' accesses to text for points.
 */
DEFINE_STATIC_KEY_FALSE(utprobe_mmap_key);

/* A probe's place at one point. */
struct utp_consumer {
	struct list_head point_node;	/* in point->consumers */
	struct list_head probe_node;	/* in up->consumers */
	struct utprobe *up;
	struct utp_point *point;
	unsigned long ref_vaddr;	/* the semaphore it raised, or 0 */
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
	atomic_t npoints;		/* in @points; UTP_POINTS_MAX at most */
	struct xarray slots;		/* slot -> its instruction's address */
	spinlock_t lock;		/* threads, quiescing, detaching */
	struct list_head threads;	/* and each one's ->stopped */
	bool quiescing;
	bool detaching;			/* no point left: threads let go */
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
};

/* A thread of a probed process: the data of its engine. */
struct utp_thread {
	struct list_head node;		/* in proc->threads, under proc->lock */
	struct task_struct *task;	/* referenced */
	pid_t tid;			/* its key in utp_tids */
	struct utrace_engine *engine;	/* referenced */
	struct utp_proc *proc;
	bool stopped;			/* quiesced for the quiescer */
	bool unstop;			/* resume it again, after its callback */
	bool in_work;			/* in utp_mmap_work(): as good */
	bool idle;			/* off CPU, asleep, when asked */
	unsigned long idle_switches;	/* its context switches then */
	bool in_handler;		/* running probe handlers */
	bool in_hit;			/* in the slow path of a hit */
	bool stepping;			/* stepping a displaced instruction: */
	struct utp_arch_insn step_ai;	/* ... this one, a copy of its point's */
	unsigned long step_vaddr;	/* ... from here */
	unsigned long step_slot;	/* ... in this slot */
	bool user_step;			/* single-stepped at the hit */
	bool user_step_traced;		/* ... by a ptracer */
	struct list_head delayed;	/* signals that came mid-step */
	struct utp_fork_work *fork_pending; /* for the child being forked */
	struct utp_ret *rets;		/* calls followed, newest first */
	unsigned int depth;		/* how many */
	struct utp_ret *ret_cache;	/* notes to reuse; see utp_ret_alloc() */
	unsigned int ncached;		/* how many */
	/* what utp_trap_hit() read of the stack, for the hit in the trap */
	struct utp_point *trap_site;	/* the return site of the call */
	unsigned long trap_ra;		/* ... its return address */
	int trap_returning;		/* 1 a return, 0 not, -1 not read */
	struct callback_head hit_work;	/* a hit taken on the fast path */
	unsigned long hit_bp;		/* its address */
	bool hit_queued;
	bool hit_emulate;		/* done in the trap but for this: */
	struct utp_arch_insn hit_ai;	/* the instruction to emulate */
	unsigned long replay_bp;	/* hit again, handlers run already */
	unsigned long int3_bp;		/* the last user int3 it trapped on */
	unsigned long dbg_bp;		/* stopped for a debugger's int3 there */
	unsigned long dbg_sp;		/* ... with this stack pointer */
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

struct utp_fork_work;

struct utp_delayed {
	struct list_head node;
	kernel_siginfo_t info;
};

static const struct utrace_engine_ops utp_ops;
static void utp_fork_work_free(struct utp_fork_work *w);
static struct utp_thread *utp_current_thread(void);
static void utp_ret_free_all(struct utp_thread *ut);

static void utp_proc_release(struct kref *kref)
{
	struct utp_proc *proc = container_of(kref, struct utp_proc, kref);

	mmdrop(proc->mm);
	xa_destroy(&proc->points);
	xa_destroy(&proc->slots);
	kfree_rcu(proc, rcu);
}

static void utp_xol_release(struct kref *kref)
{
	struct utp_xol *xol = container_of(kref, struct utp_xol, kref);
	int i;

	for (i = 0; i < UTP_XOL_PAGES; i++)
		if (xol->pages[i])
			__free_page(xol->pages[i]);
	kfree(xol);
}

/*
 * The answers utrace gives here that are not 0 (-ESRCH, -EALREADY) all
 * mean the thread is dying: its death report removes it.
 */
static void utp_control(struct task_struct *task, struct utrace_engine *engine,
			enum utrace_resume_action action)
{
	int ret = utrace_control(task, engine, action);

	if (ret && ret != -EINPROGRESS)
		pr_debug("utprobes: control %d of %d: %d\n", action,
			 task_pid_nr(task), ret);
}

/* Events of current's own engine, changed from one of its callbacks. */
static void utp_set_events(struct utp_thread *ut, unsigned long events)
{
	int ret = utrace_set_events(current, ut->engine, events);

	if (ret)
		pr_debug("utprobes: events of %d: %d\n",
			 task_pid_nr(current), ret);
}

/*
 * Threads.
 */

/* Mark @ut quiesced for the quiescer of its process, if there is one. */
static bool utp_stop_if_quiescing(struct utp_thread *ut)
{
	struct utp_proc *proc = ut->proc;
	bool stop;

	spin_lock(&proc->lock);
	stop = proc->quiescing;
	if (stop) {
		ut->stopped = true;
		wake_up_all(&proc->wq);
	}
	spin_unlock(&proc->lock);
	return stop;
}

/*
 * Mark @proc dead if it has no thread left, and queue its teardown, once:
 * a dead process takes no new thread.
 */
static void utp_proc_free_if_empty(struct utp_proc *proc)
{
	bool free;

	spin_lock(&proc->lock);
	free = !proc->dead && list_empty(&proc->threads);
	if (free)
		proc->dead = true;
	spin_unlock(&proc->lock);
	if (free)
		schedule_work(&proc->free_work);
}

/* Take @ut out of its process's threads.  proc->lock held. */
static void utp_thread_unlink(struct utp_thread *ut)
{
	list_del_init(&ut->node);
	utp_ret_free_all(ut);
	wake_up_all(&ut->proc->wq);
}

/* Remove @ut from its process; the last thread out frees the process. */
static void utp_thread_leave(struct utp_thread *ut)
{
	struct utp_proc *proc = ut->proc;

	/* by the tid it had: an exec by another thread swaps pids */
	xa_cmpxchg(&utp_tids, ut->tid, ut, NULL, 0);
	spin_lock(&proc->lock);
	utp_thread_unlink(ut);
	spin_unlock(&proc->lock);
	utp_proc_free_if_empty(proc);
}

static void utp_thread_free(struct utp_thread *ut)
{
	struct utp_delayed *d, *next;
	struct utp_ret *ri;

	list_for_each_entry_safe(d, next, &ut->delayed, node)
		kfree(d);
	while ((ri = ut->ret_cache)) {
		ut->ret_cache = ri->next;
		kfree(ri);
	}
	/* left by a fork that failed after its copy */
	if (ut->fork_pending)
		utp_fork_work_free(ut->fork_pending);
	put_task_struct(ut->task);
	utrace_engine_put(ut->engine);
	kfree(ut);
}

/* Attach our engine to @task, a thread of @proc, and add it there. */
static int utp_thread_attach(struct utp_proc *proc, struct task_struct *task)
{
	struct utrace_engine *engine;
	struct utp_thread *ut;
	int ret;

	ut = kzalloc(sizeof(*ut), GFP_KERNEL);
	if (!ut)
		return -ENOMEM;
	INIT_LIST_HEAD(&ut->node);
	INIT_LIST_HEAD(&ut->delayed);
	ut->proc = proc;
	ut->task = get_task_struct(task);
	ut->tid = task_pid_nr(task);
	engine = utrace_attach_task(task, UTRACE_ATTACH_CREATE |
				    UTRACE_ATTACH_EXCLUSIVE |
				    UTRACE_ATTACH_MATCH_OPS, &utp_ops, ut);
	if (IS_ERR(engine)) {
		put_task_struct(task);
		kfree(ut);
		/* a thread that is exiting needs no engine */
		return PTR_ERR(engine) == -EPERM ? 0 : PTR_ERR(engine);
	}
	ut->engine = engine;
	spin_lock(&proc->lock);
	if (proc->dead) {
		spin_unlock(&proc->lock);
		utp_control(task, engine, UTRACE_DETACH);
		utp_thread_free(ut);
		return -ESRCH;
	}
	list_add_tail(&ut->node, &proc->threads);
	spin_unlock(&proc->lock);
	/* without it, the thread's hits take the slow path */
	xa_store(&utp_tids, ut->tid, ut, GFP_KERNEL);
	ret = utrace_set_events(task, engine, UTP_EVENTS);
	if (ret) {
		/* dying already, with no death report for us: take it out */
		xa_cmpxchg(&utp_tids, ut->tid, ut, NULL, 0);
		spin_lock(&proc->lock);
		list_del_init(&ut->node);
		wake_up_all(&proc->wq);
		spin_unlock(&proc->lock);
		utp_control(task, engine, UTRACE_DETACH);
		utp_thread_free(ut);
		utp_proc_free_if_empty(proc);
	}
	return 0;
}

/*
 * Quiescing: every thread of @proc but current stops at a safe point,
 * where it cannot be executing or stepping a probed instruction.
 * UTRACE_INTERRUPT wakes threads blocked in interruptible waits (their
 * system call is restarted); each thread's next report sees ->quiescing
 * and answers UTRACE_STOP.  Called with utp_mutex held.
 */
/*
 * If @task is asleep (in the kernel, in any state but running), a
 * number that changes once it has run again: its context switches, + 1.
 * 0 if it is not asleep.
 */
static unsigned long utp_asleep(struct task_struct *task)
{
	if (READ_ONCE(task->__state) == TASK_RUNNING)
		return 0;
	return READ_ONCE(task->nvcsw) + READ_ONCE(task->nivcsw) + 1;
}

/*
 * Is @ut quiescent for the quiescer?  Stopped by its engine, or in
 * utp_mmap_work(), or asleep since before it was asked to stop: it is
 * then stopped by job control or by a ptracer, waiting for a vfork
 * child, or in any other sleep, and cannot reach user mode without
 * passing the report its interrupt asked for, which stops it while
 * the quiesce lasts.  A thread that sleeps mid-step or with a hit
 * queued is not counted: it still has a point to read.  proc->lock held.
 */
static bool utp_quiescent(struct utp_thread *ut)
{
	if (ut->task == current || ut->stopped || ut->in_work)
		return true;
	return ut->idle && !ut->stepping && !READ_ONCE(ut->hit_queued) &&
	       !READ_ONCE(ut->in_hit) &&
	       utp_asleep(ut->task) == ut->idle_switches;
}

static bool utp_all_stopped(struct utp_proc *proc)
{
	struct utp_thread *ut;
	bool all = true;

	spin_lock(&proc->lock);
	list_for_each_entry(ut, &proc->threads, node)
		if (!utp_quiescent(ut))
			all = false;
	spin_unlock(&proc->lock);
	return all;
}

/*
 * Let @ut's thread go again once its callback, if one is running, has
 * returned: utrace applies a callback's UTRACE_STOP after the callback,
 * so a resume sent while it ran would be lost.  proc->lock held; it is
 * dropped and taken again.
 */
static void utp_resume_after_callback(struct utp_proc *proc,
				      struct utp_thread *ut)
	__must_hold(&proc->lock)
{
	struct task_struct *task = get_task_struct(ut->task);
	struct utrace_engine *engine = ut->engine;

	utrace_engine_get(engine);
	spin_unlock(&proc->lock);
	/* a signal to current cannot cut this short: the thread would stay */
	while (utrace_barrier(task, engine) == -ERESTARTSYS)
		schedule_timeout_uninterruptible(1);
	utp_control(task, engine, UTRACE_RESUME);
	utrace_engine_put(engine);
	put_task_struct(task);
	spin_lock(&proc->lock);
}

static void utp_unquiesce(struct utp_proc *proc)
{
	struct utp_thread *ut;

	spin_lock(&proc->lock);
	proc->quiescing = false;
	list_for_each_entry(ut, &proc->threads, node) {
		ut->idle = false;
		if (ut->task == current)
			continue;
		ut->unstop = ut->stopped;
		ut->stopped = false;
		utp_control(ut->task, ut->engine, UTRACE_RESUME);
	}
	/*
	 * A thread that answered UTRACE_STOP may not have stopped yet: its
	 * answer is applied after the resume above.  Each such thread is
	 * resumed again after its callback; the list may change meanwhile,
	 * so it is walked again from the start after each.
	 */
again:
	list_for_each_entry(ut, &proc->threads, node) {
		if (!ut->unstop)
			continue;
		ut->unstop = false;
		utp_resume_after_callback(proc, ut);
		goto again;
	}
	spin_unlock(&proc->lock);
}

/*
 * @proc has no point left: its threads let go of their engines at their
 * next report (utp_resume()), which the interrupt asks for now, so that
 * the process is left as it was before it was probed: no utrace event,
 * ptrace free to attach.  Its out-of-line areas stay mapped, as mainline
 * uprobes' area does.  A new point before they have all gone keeps those
 * still there (utp_proc_revive()).  utp_mutex held.
 */
static void utp_proc_idle(struct utp_proc *proc)
{
	struct utp_thread *ut;

	lockdep_assert_held(&utp_mutex);
	/* a removal's grace period to come: utp_after_removals() then */
	if (atomic_read(&proc->npoints) || proc->removed)
		return;
	spin_lock(&proc->lock);
	proc->detaching = true;
	list_for_each_entry(ut, &proc->threads, node)
		utp_control(ut->task, ut->engine, UTRACE_INTERRUPT);
	spin_unlock(&proc->lock);
}

/*
 * Stop every thread of @proc but current, or wait until those that
 * cannot stop now could only go on through a report that stops them
 * (see utp_quiescent()).  A fatal signal to current ends the wait: the
 * threads go on and -EINTR is returned, and the caller must change
 * nothing.
 */
static int utp_quiesce(struct utp_proc *proc)
{
	struct utp_thread *ut;

	lockdep_assert_held(&utp_mutex);
	spin_lock(&proc->lock);
	proc->quiescing = true;
	spin_unlock(&proc->lock);
	/*
	 * Ask every thread not stopped yet, and ask again now and then: a
	 * thread whose interrupt was taken by a report already under way
	 * may have gone back to sleep in a system call without seeing it.
	 */
	for (;;) {
		long left;

		spin_lock(&proc->lock);
		list_for_each_entry(ut, &proc->threads, node) {
			if (utp_quiescent(ut))
				continue;
			/* asleep before the interrupt: it will see it */
			ut->idle_switches = utp_asleep(ut->task);
			ut->idle = ut->idle_switches != 0;
			utp_control(ut->task, ut->engine, UTRACE_INTERRUPT);
		}
		spin_unlock(&proc->lock);
		left = wait_event_killable_timeout(proc->wq,
						   utp_all_stopped(proc), HZ / 10);
		if (left > 0)
			return 0;
		if (left < 0) {
			utp_unquiesce(proc);
			return -EINTR;
		}
	}
}

/*
 * Processes.
 */

/*
 * Semaphores.  An SDT marker may come with a semaphore: a 16-bit counter
 * in the program's data, which the program reads to run the code that
 * computes the marker's arguments only while someone probes it.  Each
 * consumer of a probe with one (utprobe.ref_offset) raises it by one in
 * its process and lowers it when it goes, as mainline's reference
 * counters do; a fork's child has its parent's raised counters in its
 * copy of the data, which its own consumers take over.
 */

/* Does @vma, a private writable mapping of @inode, hold offset @off? */
static bool utp_ref_vma(struct vm_area_struct *vma, struct inode *inode,
			loff_t off)
{
	loff_t start = (loff_t)vma->vm_pgoff << PAGE_SHIFT;

	return vma->vm_file && file_inode(vma->vm_file) == inode &&
	       (vma->vm_flags & (VM_WRITE | VM_SHARED)) == VM_WRITE &&
	       off >= start &&
	       off + sizeof(u16) <= start + (vma->vm_end - vma->vm_start);
}

/*
 * Add @d to the semaphore at offset @off of @inode in @mm: at *@vaddr if
 * not 0, if the same file offset is still mapped there, else where a
 * mapping of the file holds it.  *@vaddr is then where the counter is
 * raised, or 0 once lowered (or found gone), set under @mm's mmap_lock:
 * a fork, which copies the counter under it, sees the two agree.  A
 * counter at 0 is not lowered: the program may have written it.
 * Returns 0, -ENOENT if the file's data is not mapped there (yet), or
 * another -errno.  Not under @mm's mmap_lock.
 */
static int utp_ref_update(struct mm_struct *mm, struct inode *inode,
			  loff_t off, unsigned long *vaddr, int d)
{
	struct vm_area_struct *vma = NULL;
	unsigned long va = *vaddr;
	struct page *page;
	void *kaddr;
	u16 *ctr;
	int ret;

	if (!mmget_not_zero(mm))
		return -ESRCH;
	mmap_read_lock(mm);
	if (va) {
		vma = vma_lookup(mm, va);
		if (vma && (!utp_ref_vma(vma, inode, off) ||
			    va != vma->vm_start + (off -
			    ((loff_t)vma->vm_pgoff << PAGE_SHIFT))))
			vma = NULL;
	} else {
		VMA_ITERATOR(vmi, mm, 0);

		for_each_vma(vmi, vma)
			if (utp_ref_vma(vma, inode, off))
				break;
		if (vma)
			va = vma->vm_start +
			     (off - ((loff_t)vma->vm_pgoff << PAGE_SHIFT));
	}
	ret = -ENOENT;
	if (!vma)
		goto out;
	ret = get_user_pages_remote(mm, va, 1, FOLL_WRITE, &page, NULL);
	if (ret != 1) {
		ret = ret < 0 ? ret : -EFAULT;
		goto out;
	}
	kaddr = kmap_local_page(page);
	ctr = kaddr + offset_in_page(va);
	if (d > 0 || *ctr)
		*ctr += d;
	kunmap_local(kaddr);
	put_page(page);
	ret = 0;
out:
	/* raised there, or nothing left to lower */
	if (d > 0 && !ret)
		WRITE_ONCE(*vaddr, va);
	else if (d < 0)
		WRITE_ONCE(*vaddr, 0);
	mmap_read_unlock(mm);
	mmput(mm);
	return ret;
}

/*
 * The new consumer @c of @proc raises its probe's semaphore, if it has
 * one; or, where the file's data is not mapped yet, when it is
 * (utp_ref_retry()).  utp_mutex held.
 */
static void utp_ref_raise(struct utp_proc *proc, struct utp_consumer *c)
{
	struct utprobe *up = c->up;

	if (!up->ref_offset)
		return;
	/*
	 * Before the mappings are looked at: a mapping made after that is
	 * seen by utprobe_mmap(), which queues a retry then.
	 */
	WRITE_ONCE(proc->ref_pending, true);
	utp_ref_update(proc->mm, up->inode, up->ref_offset, &c->ref_vaddr, 1);
}

/*
 * A writable mapping was made in @proc, which has consumers whose
 * semaphores were not mapped: they raise them, if it holds them.
 * utp_mutex held.
 */
static void utp_ref_retry(struct utp_proc *proc)
{
	struct utp_consumer *c;
	struct utp_point *pt;
	unsigned long idx;
	bool pending = false;

	xa_for_each(&proc->points, idx, pt)
		list_for_each_entry(c, &pt->consumers, point_node)
			if (c->up->ref_offset && !c->ref_vaddr &&
			    utp_ref_update(proc->mm, c->up->inode,
					   c->up->ref_offset, &c->ref_vaddr,
					   1) == -ENOENT)
				pending = true;
	/* still set if one is: a mapping made meanwhile queued a retry */
	WRITE_ONCE(proc->ref_pending, pending);
}

/*
 * Points and consumers out of the lists are freed after a grace period
 * of utp_srcu, then one of RCU: the hit paths that may sleep (handlers,
 * slot allocation) read them in utp_srcu's read sections, the trap in
 * RCU's.  The RCU head serves twice: it is free again once the SRCU
 * callback runs.
 */
static void utp_consumer_srcu_cb(struct rcu_head *head)
{
	struct utp_consumer *c = container_of(head, struct utp_consumer, rcu);

	kfree_rcu(c, rcu);
}

static void utp_consumer_free(struct utp_consumer *c)
{
	call_srcu(&utp_srcu, &c->rcu, utp_consumer_srcu_cb);
}

static void utp_point_srcu_cb(struct rcu_head *head)
{
	struct utp_point *pt = container_of(head, struct utp_point, rcu);

	kfree_rcu(pt, rcu);
}

/*
 * Free @pt, out of @proc's points and slots already, and its consumers,
 * whose semaphores go down first.  utp_mutex held.
 */
static void utp_point_free(struct utp_point *pt)
{
	struct utp_consumer *c, *next;

	list_for_each_entry_safe(c, next, &pt->consumers, point_node) {
		if (c->ref_vaddr)
			utp_ref_update(pt->proc->mm, c->up->inode,
				       c->up->ref_offset, &c->ref_vaddr, -1);
		list_del(&c->probe_node);
		list_del_rcu(&c->point_node);
		utp_consumer_free(c);
	}
	call_srcu(&utp_srcu, &pt->rcu, utp_point_srcu_cb);
}

/*
 * Take @pt out of @proc's points; free it.  A thread in a hit of it
 * meanwhile gets no slot for it any more: its int3 has gone, and the
 * thread runs the instruction in place.  A slot it had stays, as every
 * slot does, and so does its address in @proc's slots: a thread may
 * still be running through it, and a fault there is the instruction's.
 */
static void utp_point_drop(struct utp_proc *proc, struct utp_point *pt)
{
	xa_erase(&proc->points, pt->vaddr);
	atomic_dec(&proc->npoints);
	mutex_lock(&proc->xol_lock);
	WRITE_ONCE(pt->gone, true);
	mutex_unlock(&proc->xol_lock);
	utp_point_free(pt);
}

/* The last thread has gone (death or exec): forget the process. */
static void utp_proc_free_work(struct work_struct *work)
{
	struct utp_proc *proc = container_of(work, struct utp_proc, free_work);
	struct utp_point *pt;
	struct utp_xol *xol, *next;
	unsigned long idx;
	unsigned int n;

	mutex_lock(&utp_mutex);
	list_del_init(&proc->node);
	if (!hlist_unhashed(&proc->mm_node))
		hash_del_rcu(&proc->mm_node);
	if (proc->mmap_key)
		static_branch_dec(&utprobe_mmap_key);
	mutex_unlock(&utp_mutex);
	/*
	 * Up to UTP_POINTS_MAX of them, whose probes' lists change under
	 * utp_mutex: a few at a time, so that registrations meanwhile do
	 * not wait for all of them (tens of seconds on a debug kernel).
	 */
	do {
		n = 0;
		mutex_lock(&utp_mutex);
		xa_for_each(&proc->points, idx, pt) {
			utp_point_drop(proc, pt);
			if (++n == 256)
				break;
		}
		mutex_unlock(&utp_mutex);
		cond_resched();
	} while (n == 256);
	list_for_each_entry_safe(xol, next, &proc->xols, node) {
		list_del(&xol->node);
		kref_put(&xol->kref, utp_xol_release);
	}
	kref_put(&proc->kref, utp_proc_release);
}

static struct utp_proc *utp_proc_find(struct mm_struct *mm)
{
	struct utp_proc *proc;

	lockdep_assert_held(&utp_mutex);
	list_for_each_entry(proc, &utp_procs, node)
		if (proc->mm == mm && !READ_ONCE(proc->dead))
			return proc;
	return NULL;
}

/* Is @task one of @proc's threads?  proc->lock held. */
static bool utp_proc_has(struct utp_proc *proc, struct task_struct *task)
{
	struct utp_thread *ut;

	list_for_each_entry(ut, &proc->threads, node)
		if (ut->task == task)
			return true;
	return false;
}

/*
 * A process is its mm: every task running on it hits its breakpoints,
 * the threads of its group and also a vfork child that has not exec'd
 * yet and the tasks of clone(CLONE_VM) without CLONE_THREAD.  Each one
 * that is not a thread of @proc yet gets an engine, one by one;
 * report_clone() of a task already attached adds those it creates
 * meanwhile.  A task that has an engine but no place in @proc is
 * leaving it (utp_leave_if_detaching(): its callback is about to answer
 * UTRACE_DETACH): that callback is waited out, and it gets a new one.
 */
static int utp_proc_cover(struct utp_proc *proc)
{
	struct task_struct *g, *t;
	int ret;

	for (;;) {
		struct utrace_engine *leaving = NULL, *e;
		struct task_struct *todo = NULL;
		bool has;

		rcu_read_lock();
		for_each_process_thread(g, t) {
			if (READ_ONCE(t->mm) != proc->mm ||
			    (t->flags & PF_EXITING))
				continue;
			spin_lock(&proc->lock);
			has = utp_proc_has(proc, t);
			spin_unlock(&proc->lock);
			if (has)
				continue;
			e = utrace_attach_task(t, UTRACE_ATTACH_MATCH_OPS,
					       &utp_ops, NULL);
			if (!IS_ERR(e))
				leaving = e;
			todo = get_task_struct(t);
			/* a break would leave only the inner loop */
			goto found;
		}
found:
		rcu_read_unlock();
		if (!todo)
			return 0;
		if (leaving) {
			while (utrace_barrier(todo, leaving) == -ERESTARTSYS)
				schedule_timeout_uninterruptible(1);
			utrace_engine_put(leaving);
		}
		ret = utp_thread_attach(proc, todo);
		put_task_struct(todo);
		/* added by its creator's clone report meanwhile */
		if (ret == -EEXIST)
			cond_resched();
		else if (ret)
			return ret;
	}
}

/*
 * A process that had no point left had its threads let go
 * (utp_proc_idle()); a new point comes: those still attached stay, the
 * others get an engine again.  false if it is dead already.
 */
static bool utp_proc_revive(struct utp_proc *proc, int *ret)
{
	bool revive;

	spin_lock(&proc->lock);
	if (proc->dead) {
		spin_unlock(&proc->lock);
		return false;
	}
	revive = proc->detaching;
	proc->detaching = false;
	spin_unlock(&proc->lock);
	*ret = revive ? utp_proc_cover(proc) : 0;
	return true;
}

/*
 * The utp_proc of @task's process, made if needed: every thread gets an
 * engine.  Threads created meanwhile get theirs from report_clone().
 */
static struct utp_proc *utp_proc_get(struct task_struct *task)
{
	struct mm_struct *mm = get_task_mm(task);
	struct utp_proc *proc;
	int ret = 0;

	lockdep_assert_held(&utp_mutex);
	if (!mm)
		return ERR_PTR(-ESRCH);
	if (!utp_arch_mm_ok(mm)) {
		mmput(mm);
		return ERR_PTR(-EOPNOTSUPP);
	}
	proc = utp_proc_find(mm);
	/* emptied meanwhile by the last thread letting go: a new one */
	if (proc && utp_proc_revive(proc, &ret) &&
	    !(ret == -ESRCH && READ_ONCE(proc->dead))) {
		mmput(mm);
		return ret ? ERR_PTR(ret) : proc;
	}
	proc = kzalloc(sizeof(*proc), GFP_KERNEL);
	if (!proc) {
		mmput(mm);
		return ERR_PTR(-ENOMEM);
	}
	kref_init(&proc->kref);
	INIT_LIST_HEAD(&proc->node);
	proc->mm = mm;
	mmgrab(mm);
	mmput(mm);
	proc->tgid = task_tgid_nr(task);
	xa_init(&proc->points);
	xa_init(&proc->slots);
	spin_lock_init(&proc->lock);
	INIT_LIST_HEAD(&proc->threads);
	init_waitqueue_head(&proc->wq);
	mutex_init(&proc->xol_lock);
	INIT_LIST_HEAD(&proc->xols);
	INIT_WORK(&proc->free_work, utp_proc_free_work);

	ret = utp_proc_cover(proc);
	if (list_empty(&proc->threads) || READ_ONCE(proc->dead)) {
		/* its teardown is queued, once, by whoever emptied it */
		utp_proc_free_if_empty(proc);
		if (!list_empty(&proc->node))
			list_del_init(&proc->node);
		return ERR_PTR(ret ?: -ESRCH);
	}
	/* on failure, the threads attached so far stay, harmlessly */
	list_add(&proc->node, &utp_procs);
	hash_add_rcu(utp_mms, &proc->mm_node, (unsigned long)proc->mm);
	/* its mmap()s may replace probed text: see utp_drop_stale() */
	static_branch_inc(&utprobe_mmap_key);
	proc->mmap_key = true;
	if (ret)
		return ERR_PTR(ret);
	return proc;
}

/*
 * Text.
 */

/* The byte at @vaddr of @page, mapped by @vma. */
static u8 utp_page_byte(struct page *page, unsigned long vaddr)
{
	u8 *kaddr = kmap_local_page(page), byte;

	byte = kaddr[offset_in_page(vaddr)];
	kunmap_local(kaddr);
	return byte;
}

/*
 * Map @new_page at @vaddr of @vma in place of @old_page, or just unmap
 * @old_page if @new_page is NULL (a fault maps the file's page again).
 * The page-table entry is cleared and flushed from every CPU that may
 * hold it before the new page goes in: no thread ever executes a page
 * that is being written, each sees either the old copy or the new one.
 * mmap_lock held.  Returns 0, or -EAGAIN if @old_page is no longer
 * mapped there.
 */
static int utp_replace_page(struct vm_area_struct *vma, unsigned long vaddr,
			    struct page *old_page, struct page *new_page)
{
	struct folio *old = page_folio(old_page), *new = NULL;
	DEFINE_FOLIO_VMA_WALK(pvmw, old, vma, vaddr, 0);
	struct mm_struct *mm = vma->vm_mm;
	struct mmu_notifier_range range;
	int ret;

	if (new_page) {
		new = page_folio(new_page);
		ret = mem_cgroup_charge(new, mm, GFP_KERNEL);
		if (ret)
			return ret;
	}
	mmu_notifier_range_init(&range, MMU_NOTIFY_CLEAR, 0, mm, vaddr,
				vaddr + PAGE_SIZE);
	/* folio_free_swap() wants it locked */
	folio_lock(old);
	mmu_notifier_invalidate_range_start(&range);
	ret = -EAGAIN;
	if (!page_vma_mapped_walk(&pvmw))
		goto unlock;
	if (!pte_present(ptep_get(pvmw.pte))) {
		page_vma_mapped_walk_done(&pvmw);
		goto unlock;
	}
	if (new) {
		folio_get(new);
		folio_add_new_anon_rmap(new, vma, vaddr, RMAP_EXCLUSIVE);
		folio_add_lru_vma(new, vma);
	} else {
		dec_mm_counter(mm, MM_ANONPAGES);
	}
	if (!folio_test_anon(old)) {
		dec_mm_counter(mm, mm_counter_file(old));
		inc_mm_counter(mm, MM_ANONPAGES);
	}
	flush_cache_page(vma, vaddr, pte_pfn(ptep_get(pvmw.pte)));
	ptep_clear_flush(vma, vaddr, pvmw.pte);
	if (new)
		set_pte_at(mm, vaddr, pvmw.pte,
			   mk_pte(new_page, vma->vm_page_prot));
	folio_remove_rmap_pte(old, old_page, vma);
	if (!folio_mapped(old))
		folio_free_swap(old);
	page_vma_mapped_walk_done(&pvmw);
	folio_put(old);
	ret = 0;
unlock:
	mmu_notifier_invalidate_range_end(&range);
	folio_unlock(old);
	return ret;
}

/*
 * Is @page, a private copy of a page of @vma's file at @vaddr, the same
 * as the file's page now?  Then the copy can go, and the process map the
 * file's page again, as it did before it was probed.
 */
static bool utp_same_as_file(struct vm_area_struct *vma, unsigned long vaddr,
			     struct page *page)
{
	pgoff_t index = linear_page_index(vma, vaddr);
	struct folio *folio;
	bool same;

	if (!vma->vm_file)
		return false;
	folio = filemap_get_folio(vma->vm_file->f_mapping, index);
	if (IS_ERR(folio))
		return false;
	same = folio_test_uptodate(folio) &&
	       pages_identical(page, folio_file_page(folio, index));
	folio_put(folio);
	return same;
}

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

/*
 * Write the bytes of @pk[0..@n) that are still to go (->ret 0), all in
 * the page of @vma that @old_page is, into a new copy of @old_page, and
 * map that copy in its place: a byte is never written into a page that
 * threads may be executing (an emulated CPU, QEMU's TCG, has been seen to
 * keep running its translation of a page written under it by another
 * CPU).  A copy that comes out the same as the file's page is not
 * mapped: the file's page comes back.  mmap_lock held.
 */
static int utp_write_bytes(struct vm_area_struct *vma, struct page *old_page,
			   struct utp_poke *pk, unsigned int n)
{
	unsigned long vaddr = pk[0].vaddr & PAGE_MASK;
	struct page *new_page;
	struct folio *folio;
	unsigned int i;
	u8 *kaddr;
	int ret;

	if (is_zero_page(old_page))
		return -EFAULT;
	ret = anon_vma_prepare(vma);
	if (ret)
		return ret;
	folio = vma_alloc_folio(GFP_HIGHUSER_MOVABLE, 0, vma, vaddr, false);
	if (!folio)
		return -ENOMEM;
	new_page = &folio->page;
	__folio_mark_uptodate(folio);
	copy_highpage(new_page, old_page);
	kaddr = kmap_local_page(new_page);
	for (i = 0; i < n; i++)
		if (!pk[i].ret)
			kaddr[offset_in_page(pk[i].vaddr)] = pk[i].new;
	kunmap_local(kaddr);
	if (PageAnon(old_page) && utp_same_as_file(vma, vaddr, new_page))
		ret = utp_replace_page(vma, vaddr, old_page, NULL);
	else
		ret = utp_replace_page(vma, vaddr, old_page, new_page);
	folio_put(folio);
	return ret;
}

/* May @pk's byte be written into @vma?  0, or why not. */
static int utp_poke_check(struct vm_area_struct *vma,
			  const struct utp_poke *pk, bool restore)
{
	const struct utprobe *up = pk->up;

	if (!vma || !(vma->vm_flags & VM_EXEC) ||
	    (vma->vm_flags & VM_MAYSHARE))
		return -EFAULT;
	if (pk->pt && READ_ONCE(pk->pt->stale))
		return -EAGAIN;
	if (restore && READ_ONCE(pk->pt->dbg_bp))
		return -EBUSY;
	if (up && up->inode &&
	    (!vma->vm_file || file_inode(vma->vm_file) != up->inode ||
	     ((loff_t)vma->vm_pgoff << PAGE_SHIFT) +
	     (pk->vaddr - vma->vm_start) != up->offset))
		return -EAGAIN;
	return 0;
}

/* __utp_poke_page() with @mm's mmap_lock held for writing already. */
static void utp_poke_page_locked(struct mm_struct *mm, struct utp_poke *pk,
				 unsigned int n, bool restore)
{
	struct vm_area_struct *vma;
	unsigned int i, todo;
	struct page *page;
	int ret;

	mmap_assert_write_locked(mm);
again:
	vma = vma_lookup(mm, pk[0].vaddr);
	for (i = 0, todo = 0; i < n; i++) {
		pk[i].ret = utp_poke_check(vma, &pk[i], restore);
		todo += !pk[i].ret;
	}
	if (!todo)
		return;
	page = get_user_page_vma_remote(mm, pk[0].vaddr,
					FOLL_FORCE | FOLL_SPLIT_PMD, &vma);
	ret = IS_ERR(page) ? PTR_ERR(page) : 0;
	for (i = 0, todo = 0; i < n; i++) {
		if (!pk[i].ret)
			pk[i].ret = ret ?: (utp_page_byte(page, pk[i].vaddr) ==
					    pk[i].old ? 0 : -EBUSY);
		todo += !pk[i].ret;
	}
	if (ret)
		return;
	ret = todo ? utp_write_bytes(vma, page, pk, n) : 0;
	put_page(page);
	/* the page changed under us: look again */
	if (ret == -EAGAIN)
		goto again;
	for (i = 0; ret && i < n; i++)
		if (!pk[i].ret)
			pk[i].ret = ret;
}

/*
 * Change the bytes of @pk[0..@n), all in one page of @mm, each from its
 * ->old to its ->new, with one copy of the page.  Text is only ever
 * written into a private executable mapping, in a private copy of the
 * page (utp_write_bytes(): the page cache and the file never see it),
 * and only over the byte expected there: checked under mmap_lock, so
 * that a mapping that replaced the probed one (a shared file mapped at
 * the same place after munmap, say) is never written.
 *
 * An int3 for a point goes in only if the point is not stale, and for a
 * probe on a file, only into a mapping of that file at the probe's
 * offset: both are checked under mmap_lock, which the mmap that makes a
 * point stale holds for writing.  The caller found the mapping earlier,
 * without that lock.  A point's own byte goes back over its int3 only
 * if no debugger's breakpoint is there too: checked under mmap_lock,
 * which keeps debuggers' accesses (__utprobe_access_write()) out
 * meanwhile.  mmap_lock is held for writing: a debugger's write into
 * the page between our copy of it and the copy's mapping would be lost.
 * @restore (bytes going back): not killable, an int3 left behind would
 * be a SIGTRAP.
 *
 * Each ->ret is 0, -EFAULT (no private executable mapping there),
 * -EBUSY (another byte there, or a debugger's breakpoint), -EAGAIN
 * (the point stale, or not the probe's file there) or another -errno.
 */
static void __utp_poke_page(struct mm_struct *mm, struct utp_poke *pk,
			    unsigned int n, bool restore)
{
	unsigned int i;
	int ret = -ESRCH;

	if (!mmget_not_zero(mm))
		goto fail;
	ret = -EINTR;
	if (restore) {
		mmap_write_lock(mm);
	} else if (mmap_write_lock_killable(mm)) {
		mmput(mm);
		goto fail;
	}
	utp_poke_page_locked(mm, pk, n, restore);
	mmap_write_unlock(mm);
	mmput(mm);
	return;
fail:
	for (i = 0; i < n; i++)
		pk[i].ret = ret;
}

/* __utp_poke_page() of one byte: its outcome. */
static int __utp_poke(struct mm_struct *mm, unsigned long vaddr, u8 old,
		      u8 new, const struct utp_point *pt,
		      const struct utprobe *up)
{
	struct utp_poke pk = {
		.vaddr = vaddr, .old = old, .new = new, .pt = pt, .up = up,
	};

	__utp_poke_page(mm, &pk, 1, pt && new != UTP_BREAK_INSN);
	return pk.ret;
}

/* Put back the byte an int3 of ours replaced, or take one out. */
static int utp_poke(struct mm_struct *mm, unsigned long vaddr, u8 old, u8 new)
{
	return __utp_poke(mm, vaddr, old, new, NULL, NULL);
}

/*
 * Make every thread of @proc execute its text as it is now, after int3s
 * were written into it under the running threads: the cross-modifying
 * code of x86, where the writer makes each CPU that may execute the old
 * instructions go through a serialising event before it counts the new
 * ones as in place (text_poke_sync() reasons so for the kernel's text).
 *
 * A full TLB flush of the mm does that: its IPI interrupts every CPU
 * running one of the mm's threads (the return from the interrupt
 * serialises), and a CPU on which the mm is lazily loaded, or not at
 * all, reloads CR3 before it runs one of them again.  It must be a full
 * flush, by CR3: under emulation (QEMU's TCG), a CPU that flushed only
 * the written page has been seen to go on running its translation of
 * the page's old copy (the write made a new copy of the page) for
 * seconds, while a CR3 load drops every translation it looks up by
 * address.
 */
static void utp_sync(struct utp_proc *proc)
{
	flush_tlb_mm(proc->mm);
}

/*
 * Check that @vaddr is in private executable text of @mm and read the
 * instruction there.  Returns the number of bytes read or an errno.
 */
static int utp_read_text(struct mm_struct *mm, unsigned long vaddr,
			 u8 *buf, int len)
{
	struct vm_area_struct *vma;
	int ret;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, vaddr);
	if (!vma || !(vma->vm_flags & VM_EXEC) ||
	    (vma->vm_flags & VM_MAYSHARE))
		ret = -EFAULT;
	else
		ret = min_t(unsigned long, len, vma->vm_end - vaddr);
	mmap_read_unlock(mm);
	if (ret < 0)
		return ret;
	ret = access_remote_vm(mm, vaddr, buf, ret, FOLL_FORCE);
	return ret > 0 ? ret : -EFAULT;
}

/*
 * Debuggers.
 *
 * A debugger reads and writes text with forced remote accesses (ptrace's
 * PEEKTEXT and POKETEXT, /proc/PID/mem), which come here for each page.
 * It is shown the text as it would be without our int3s: the bytes it
 * saves under the breakpoints it inserts, the prologues it analyses, the
 * instructions it disassembles and copies to step out of line are the
 * real ones.  Its writes over a point keep our int3 in the text: an int3
 * written there is its breakpoint (pt->dbg_bp), which a hit then reports
 * to it as its own (__utp_hit()); the original byte written back is that
 * breakpoint's removal.  Any other byte replaces the instruction, and
 * our int3 with it: the point is not hit again, as with mainline uprobes.
 *
 * The caller holds mmap_lock for reading; points are found under RCU.
 * pt->dbg_bp is written here only, under that lock of the point's mm.
 */

static struct utp_proc *utp_proc_find_rcu(struct mm_struct *mm)
{
	struct utp_proc *proc;

	hash_for_each_possible_rcu(utp_mms, proc, mm_node, (unsigned long)mm)
		if (proc->mm == mm && !READ_ONCE(proc->dead))
			return proc;
	return NULL;
}

/*
 * The first point of @proc at or after *@idx and before @addr + @len
 * whose int3 is in @text (the bytes at @addr), at *@idx then; under RCU.
 */
static struct utp_point *utp_access_next(struct utp_proc *proc,
					 unsigned long *idx, unsigned long addr,
					 const u8 *text, int len)
{
	unsigned long last = addr + len - 1;
	struct utp_point *pt;

	while (*idx <= last &&
	       (pt = xa_find(&proc->points, idx, last, XA_PRESENT))) {
		if (!READ_ONCE(pt->stale) && !READ_ONCE(pt->moved_to) &&
		    text[*idx - addr] == UTP_BREAK_INSN)
			return pt;
		(*idx)++;
	}
	return NULL;
}

/**
 * __utprobe_access_read - a debugger's read of text
 * @vma:	the mapping read
 * @addr:	where
 * @buf:	the bytes read
 * @len:	how many
 *
 * Puts the bytes under our int3s into @buf (a debugger's own breakpoint
 * stays in).  Called through utprobe_access_read().
 */
void __utprobe_access_read(struct vm_area_struct *vma, unsigned long addr,
			   void *buf, int len)
{
	struct utp_point *pt;
	struct utp_proc *proc;
	unsigned long idx = addr;
	u8 *b = buf;

	if (len <= 0)
		return;
	rcu_read_lock();
	proc = utp_proc_find_rcu(vma->vm_mm);
	for (; proc && (pt = utp_access_next(proc, &idx, addr, b, len)); idx++)
		if (!READ_ONCE(pt->dbg_bp))
			b[idx - addr] = utp_arch_insn_opcode(&pt->ai);
	rcu_read_unlock();
}

/*
 * A debugger writes @len bytes @b over @t at @addr, and @pt is a point at
 * @vaddr, within an instruction's length before @addr + @len.  A write of
 * the instruction's bytes with an int3 first is its breakpoint, and of
 * the bytes themselves that breakpoint's removal: noted, our int3 kept.
 * A write of other bytes over the instruction is another instruction: the
 * point goes stale, never hit again.  (Only a write that covers the int3
 * replaces it; one of later bytes alone is not seen.)
 */
static void utp_access_point_write(struct utp_point *pt, unsigned long vaddr,
				   unsigned long addr, u8 *b, const u8 *t,
				   int len)
{
	unsigned long end = vaddr + utp_arch_insn_len(&pt->ai), i;
	bool int3 = vaddr >= addr;	/* the int3's byte is written */

	end = min(end, addr + len);

	if (READ_ONCE(pt->stale) || READ_ONCE(pt->moved_to) ||
	    (int3 && t[vaddr - addr] != UTP_BREAK_INSN))
		return;
	for (i = max(vaddr + 1, addr); i < end; i++)
		if (b[i - addr] != utp_arch_insn_byte(&pt->ai, i - vaddr))
			break;
	if (!int3)
		return;
	if (i < end || (b[vaddr - addr] != UTP_BREAK_INSN &&
			b[vaddr - addr] != utp_arch_insn_opcode(&pt->ai))) {
		WRITE_ONCE(pt->stale, true);
		return;
	}
	WRITE_ONCE(pt->dbg_bp, b[vaddr - addr] == UTP_BREAK_INSN);
	b[vaddr - addr] = UTP_BREAK_INSN;
}

/**
 * __utprobe_access_write - a debugger's write of text
 * @vma:	the mapping written
 * @addr:	where
 * @buf:	the bytes to write
 * @text:	the bytes there now
 * @len:	how many
 *
 * Over each of our int3s, the instruction with an int3 in @buf is the
 * debugger's breakpoint, and the instruction itself its removal: noted,
 * and our int3 kept in @buf.  Anything else replaces the point.  Called
 * through utprobe_access_write().
 */
void __utprobe_access_write(struct vm_area_struct *vma, unsigned long addr,
			    void *buf, const void *text, int len)
{
	unsigned long last = addr + len - 1, idx;
	struct utp_point *pt;
	struct utp_proc *proc;

	if (len <= 0)
		return;
	/* a point whose instruction begins before @addr may reach into it */
	idx = addr > MAX_INSN_SIZE ? addr - (MAX_INSN_SIZE - 1) : 0;
	rcu_read_lock();
	proc = utp_proc_find_rcu(vma->vm_mm);
	while (proc && idx <= last &&
	       (pt = xa_find(&proc->points, &idx, last, XA_PRESENT))) {
		utp_access_point_write(pt, idx, addr, buf, text, len);
		idx++;
	}
	rcu_read_unlock();
}

/*
 * Out-of-line area.
 */

static vm_fault_t utp_xol_fault(const struct vm_special_mapping *sm,
				struct vm_area_struct *vma,
				struct vm_fault *vmf)
{
	struct utp_xol *xol = container_of(sm, struct utp_xol, sm);
	struct page *page;

	if (vmf->pgoff >= UTP_XOL_PAGES)
		return VM_FAULT_SIGBUS;
	page = READ_ONCE(xol->pages[vmf->pgoff]);
	if (!page)
		return VM_FAULT_SIGBUS;
	get_page(page);
	vmf->page = page;
	return 0;
}

static int utp_xol_mremap(const struct vm_special_mapping *sm,
			  struct vm_area_struct *new_vma)
{
	return -EINVAL;
}

static void utp_xol_close(const struct vm_special_mapping *sm,
			  struct vm_area_struct *vma)
{
	struct utp_xol *xol = container_of(sm, struct utp_xol, sm);

	kref_put(&xol->kref, utp_xol_release);
}

/* Map a new area within reach of @vaddr in current's mm. */
static struct utp_xol *utp_xol_new(unsigned long vaddr)
{
	struct mm_struct *mm = current->mm;
	struct vm_unmapped_area_info info = {};
	struct vm_area_struct *vma;
	struct utp_xol *xol;
	unsigned long addr;

	xol = kzalloc(sizeof(*xol), GFP_KERNEL);
	if (!xol)
		return ERR_PTR(-ENOMEM);
	kref_init(&xol->kref);
	kref_get(&xol->kref);		/* the vma's, dropped by its close */
	xol->sm.name = "[utprobes]";
	xol->sm.fault = utp_xol_fault;
	xol->sm.mremap = utp_xol_mremap;
	xol->sm.close = utp_xol_close;

	/* page-aligned limits: the gap found starts at one */
	info.length = UTP_XOL_SIZE;
	info.low_limit = PAGE_ALIGN(max_t(unsigned long, mmap_min_addr,
					  vaddr > UTP_XOL_REACH ?
					  vaddr - UTP_XOL_REACH : 0));
	info.high_limit = min_t(unsigned long, TASK_SIZE,
				vaddr + UTP_XOL_REACH) & PAGE_MASK;
	if (mmap_write_lock_killable(mm)) {
		kfree(xol);
		return ERR_PTR(-EINTR);
	}
	addr = vm_unmapped_area(&info);
	if (IS_ERR_VALUE(addr)) {
		vma = ERR_PTR(addr);
	} else if (WARN_ON_ONCE(offset_in_page(addr))) {
		vma = ERR_PTR(-EINVAL);
	} else {
		vma = _install_special_mapping(mm, addr, UTP_XOL_SIZE,
					       VM_READ | VM_EXEC | VM_MAYREAD |
					       VM_MAYEXEC | VM_DONTCOPY |
					       VM_IO, &xol->sm);
	}
	mmap_write_unlock(mm);
	if (IS_ERR(vma)) {
		kfree(xol);
		return ERR_CAST(vma);
	}
	xol->start = addr;
	return xol;
}

/* An area of @proc with a free slot within reach of @vaddr, or NULL. */
static struct utp_xol *utp_xol_near(struct utp_proc *proc,
				    unsigned long vaddr)
{
	struct utp_xol *xol;

	lockdep_assert_held(&proc->xol_lock);
	list_for_each_entry(xol, &proc->xols, node)
		if (xol->used < UTP_XOL_SIZE / UTP_XOL_SLOT_SIZE &&
		    abs_diff(xol->start, vaddr) < UTP_XOL_REACH)
			return xol;
	return NULL;
}

/*
 * An area of @proc with a free slot within reach of @vaddr, mapped if
 * need be; its next slot is at xol->start + xol->used * slot size.
 * Runs in a thread of the process, with proc->xol_lock held.
 */
static struct utp_xol *utp_xol_find(struct utp_proc *proc,
				    unsigned long vaddr)
{
	struct utp_xol *xol = utp_xol_near(proc, vaddr);

	if (xol)
		return xol;
	xol = utp_xol_new(vaddr);
	if (!IS_ERR(xol))
		list_add(&xol->node, &proc->xols);
	return xol;
}

/*
 * Could a thread of @proc find or make a slot within reach of @vaddr?
 * An area with a free slot there, or a gap for a new one in @proc's mm.
 * The thread that needs the slot maps the area (utp_xol_new()): this
 * only lets a registration fail at once where no hit could go on.
 */
static bool utp_xol_room(struct utp_proc *proc, unsigned long vaddr)
{
	VMA_ITERATOR(vmi, proc->mm, 0);
	unsigned long low, high, end;
	struct vm_area_struct *vma;
	bool room;

	mutex_lock(&proc->xol_lock);
	room = utp_xol_near(proc, vaddr);
	mutex_unlock(&proc->xol_lock);
	if (room)
		return true;

	low = PAGE_ALIGN(max_t(unsigned long, mmap_min_addr,
			       vaddr > UTP_XOL_REACH ? vaddr - UTP_XOL_REACH :
			       0));
	high = min_t(unsigned long, TASK_SIZE, vaddr + UTP_XOL_REACH) &
	       PAGE_MASK;
	end = low;
	mmap_read_lock(proc->mm);
	vma_iter_set(&vmi, low);
	for_each_vma_range(vmi, vma, high) {
		if (vma->vm_start > end && vma->vm_start - end >= UTP_XOL_SIZE)
			break;
		end = max(end, vma->vm_end);
	}
	room = vma || (high > end && high - end >= UTP_XOL_SIZE);
	mmap_read_unlock(proc->mm);
	return room;
}

/* Fill the next slot of @xol with @bytes and take it.  xol_lock held. */
static int utp_xol_fill(struct utp_xol *xol, const u8 *bytes)
{
	unsigned long off = xol->used * UTP_XOL_SLOT_SIZE;
	struct page *page = xol->pages[off / PAGE_SIZE];
	void *kaddr;

	if (!page) {
		page = alloc_page(GFP_HIGHUSER | __GFP_ZERO);
		if (!page)
			return -ENOMEM;
		WRITE_ONCE(xol->pages[off / PAGE_SIZE], page);
	}
	kaddr = kmap_local_page(page);
	memcpy(kaddr + offset_in_page(off), bytes, UTP_XOL_SLOT_SIZE);
	kunmap_local(kaddr);
	xol->used++;
	return 0;
}

/*
 * The slot of @pt, filled in on its first step.  Runs in a thread of
 * the process.  Returns 0 if none can be had, or if @pt has gone.
 */
static unsigned long utp_slot(struct utp_proc *proc, struct utp_point *pt)
{
	u8 bytes[UTP_XOL_SLOT_SIZE];
	struct utp_xol *xol;
	/* pairs with the release below: the slot's bytes are written */
	unsigned long slot = smp_load_acquire(&pt->slot);

	if (slot)
		return slot;
	mutex_lock(&proc->xol_lock);
	slot = pt->slot;
	if (slot || pt->gone)
		goto out;
	xol = utp_xol_find(proc, pt->vaddr);
	if (IS_ERR(xol))
		goto out;
	slot = xol->start + xol->used * UTP_XOL_SLOT_SIZE;
	if (utp_arch_xol_copy(&pt->ai, pt->vaddr, slot, bytes) ||
	    (utp_arch_insn_through(&pt->ai) &&
	     xa_insert(&proc->slots, slot, xa_mk_value(pt->vaddr),
		       GFP_KERNEL)) ||
	    utp_xol_fill(xol, bytes)) {
		if (utp_arch_insn_through(&pt->ai))
			xa_erase(&proc->slots, slot);
		slot = 0;
		goto out;
	}
	/* publish the slot once its bytes are in place */
	smp_store_release(&pt->slot, slot);
out:
	mutex_unlock(&proc->xol_lock);
	return slot;
}

/*
 * The engine's callbacks.
 */

/* Signals that came during a step go to the thread again after it. */
static void utp_send_delayed(struct utp_thread *ut)
{
	struct utp_delayed *d, *next;

	list_for_each_entry_safe(d, next, &ut->delayed, node) {
		list_del(&d->node);
		send_sig_info(d->info.si_signo, &d->info, current);
		kfree(d);
	}
}

static void utp_end_step(struct utp_thread *ut)
{
	ut->stepping = false;
	utp_set_events(ut, UTP_EVENTS);
	utp_send_delayed(ut);
}

/*
 * Leave @ut's process if its last point has gone, at a report where the
 * thread holds nothing of it: no step, no hit under way or queued.  A
 * hit in progress is followed by another report (utp_hit_work(),
 * utp_hit()).  Runs in @ut's thread.
 */
static bool utp_leave_if_detaching(struct utp_thread *ut)
{
	struct utp_proc *proc = ut->proc;

	if (!READ_ONCE(proc->detaching) || ut->stepping || ut->in_hit ||
	    READ_ONCE(ut->hit_queued))
		return false;
	/*
	 * A SIGTRAP queued by an int3 hit before the point went: its report
	 * runs the original instruction (utp_hit()), and then lets go.
	 */
	if (sigismember(&current->pending.signal, SIGTRAP))
		return false;
	/* decided and done under the lock: see utp_proc_cover() */
	spin_lock(&proc->lock);
	if (!proc->detaching) {
		/* a new probe came first */
		spin_unlock(&proc->lock);
		return false;
	}
	utp_thread_unlink(ut);
	spin_unlock(&proc->lock);
	xa_cmpxchg(&utp_tids, ut->tid, ut, NULL, 0);
	utp_proc_free_if_empty(proc);
	utp_thread_free(ut);
	return true;
}

/*
 * What a thread that is not stepping answers: stop if quiescing, detach
 * if its process has no point left.  @ut may be gone after this.
 */
static u32 utp_resume(struct utp_thread *ut)
{
	if (utp_stop_if_quiescing(ut))
		return UTRACE_STOP;
	return utp_leave_if_detaching(ut) ? UTRACE_DETACH : UTRACE_RESUME;
}

static u32 utp_report_quiesce(enum utrace_resume_action action,
			      struct utrace_engine *engine,
			      struct task_struct *task, unsigned long event)
{
	struct utp_thread *ut = engine->data;

	/* before an event's own callback, that callback answers */
	if (event)
		return UTRACE_RESUME;
	if (ut->stepping)
		return UTRACE_SINGLESTEP;
	return utp_resume(ut);
}

/*
 * Run the handlers of the probes at @pt; in the int3 trap if @trap.  A
 * probe is added to a point under running threads: one whose handler
 * may sleep, added since the trap found every handler there safe to run
 * in it, misses that hit, which came before its registration ended.
 */
static void utp_run_handlers(struct utp_thread *ut, struct utp_point *pt,
			     struct pt_regs *regs, bool trap)
{
	struct utp_consumer *c;

	list_for_each_entry_rcu(c, &pt->consumers, point_node, true) {
		struct utprobe *up = c->up;

		/* unregistered from a handler, and going */
		if (READ_ONCE(up->gone))
			continue;
		if (trap && up->handler && !(up->flags & UTPROBE_TRAP_SAFE))
			continue;
		this_cpu_inc(*up->hits);
		trace_utprobe_hit(up, instruction_pointer(regs));
		if (up->handler)
			up->handler(up, regs);
	}
}

/*
 * Return probes.
 */

/* The probe of @ri, if it has one and it is still registered. */
static struct utprobe *utp_ret_up(const struct utp_ret *ri)
{
	return ri->rp ? READ_ONCE(ri->rp->up) : NULL;
}

static void utp_ret_probe_put(struct utp_ret_probe *rp)
{
	if (rp && refcount_dec_and_test(&rp->ref))
		kfree(rp);
}

/* A note's reference to @rp, which may be NULL. */
static struct utp_ret_probe *utp_ret_probe_get(struct utp_ret_probe *rp)
{
	if (rp)
		refcount_inc(&rp->ref);
	return rp;
}

/* Free @ri, not in a list nor a cache. */
static void utp_ret_kfree(struct utp_ret *ri)
{
	utp_ret_probe_put(ri->rp);
	kfree(ri);
}

/*
 * A note for a call to follow, from the thread's own cache first.  Only
 * the thread itself takes from its cache and puts back into it, in the
 * trap or in the kernel on its behalf, never both at once.
 */
static struct utp_ret *utp_ret_alloc(struct utp_thread *ut, bool trap)
{
	struct utp_ret *ri = ut->ret_cache;

	if (!ri)
		return kmalloc(sizeof(*ri), trap ? GFP_ATOMIC : GFP_KERNEL);
	ut->ret_cache = ri->next;
	ut->ncached--;
	return ri;
}

/*
 * @ri is done with: no longer pending for its probe.  Into the cache of
 * @ut, the thread it was current's note in, or freed (@ut NULL).
 */
static void utp_ret_free(struct utp_thread *ut, struct utp_ret *ri)
{
	struct utprobe *up = utp_ret_up(ri);

	if (up)
		this_cpu_dec(up->rets->pending);
	if (ut && ut->ncached < UTP_RET_CACHE) {
		utp_ret_probe_put(ri->rp);
		ri->rp = NULL;
		ri->next = ut->ret_cache;
		ut->ret_cache = ri;
		ut->ncached++;
		return;
	}
	utp_ret_kfree(ri);
}

/*
 * Forget every call @ut follows; proc->lock held or @ut gone from it.
 * The probes are read in an RCU read section, which their removal
 * waits out.
 */
static void utp_ret_free_all(struct utp_thread *ut)
{
	struct utp_ret *ri;

	rcu_read_lock();
	while ((ri = ut->rets)) {
		ut->rets = ri->next;
		utp_ret_free(NULL, ri);
	}
	rcu_read_unlock();
	ut->depth = 0;
}

/*
 * Drop the newest calls whose frames were unwound: their return address
 * lay below @stack, or at @stack but was not @ra, or was @ra but the call
 * was of @func, which is being called there again.  A call of another
 * function returning to the same place from the same stack slot is one
 * that jumped to @func (a tail call): both return at once.
 */
static void utp_ret_drop_unwound(struct utp_thread *ut, unsigned long stack,
				 unsigned long ra, unsigned long func)
{
	struct utp_ret *ri;

	while ((ri = ut->rets) &&
	       (ri->stack < stack ||
		(ri->stack == stack && (ri->orig != ra || ri->func == func)))) {
		struct utprobe *up = utp_ret_up(ri);

		ut->rets = ri->next;
		ut->depth--;
		if (up)
			this_cpu_inc(up->rets->unwound);
		utp_ret_free(ut, ri);
	}
}

/*
 * The return site at @ra in current's process, added if need be; NULL if
 * the instruction there cannot be run from a point.
 */
static struct utp_point *utp_ret_site(struct utp_proc *proc, unsigned long ra)
{
	u8 buf[MAX_INSN_SIZE];
	struct utp_point *pt;
	int ret;

	rcu_read_lock();
	pt = xa_load(&proc->points, ra);
	rcu_read_unlock();
	if (pt)
		goto found;
	if (atomic_read(&proc->npoints) >= UTP_POINTS_MAX)
		return NULL;
	ret = utp_read_text(current->mm, ra, buf, sizeof(buf));
	if (ret <= 0)
		return NULL;
	pt = kzalloc(sizeof(*pt), GFP_KERNEL_ACCOUNT);
	if (!pt)
		return NULL;
	/* an int3 there is another thread's new return site, or not ours */
	if (buf[0] == UTP_BREAK_INSN || utp_arch_analyze(&pt->ai, buf, ret)) {
		kfree(pt);
		rcu_read_lock();
		pt = xa_load(&proc->points, ra);
		rcu_read_unlock();
		return pt && READ_ONCE(pt->ret_site) ? pt : NULL;
	}
	pt->vaddr = ra;
	pt->proc = proc;
	pt->ret_site = true;
	pt->arming = true;
	INIT_LIST_HEAD(&pt->consumers);
	ret = xa_insert(&proc->points, ra, pt, GFP_KERNEL_ACCOUNT);
	if (ret) {
		/* another thread was quicker */
		kfree(pt);
		rcu_read_lock();
		pt = xa_load(&proc->points, ra);
		rcu_read_unlock();
		if (!pt)
			return NULL;
		goto found;
	}
	atomic_inc(&proc->npoints);
	/*
	 * In the xarray first, then the int3: a thread that traps finds the
	 * point.  If the int3 cannot be written, the point stays, unhit.
	 */
	ret = __utp_poke(current->mm, ra, buf[0], UTP_BREAK_INSN, pt, NULL);
	WRITE_ONCE(pt->arming, false);
	/* orders the store before wake_up_var()'s test for waiters */
	smp_mb();
	wake_up_var(&pt->arming);
	if (ret)
		return NULL;
	utp_sync(proc);
	return pt;
found:
	/*
	 * Another thread's new return site: its call returning before the
	 * int3 is in would go unseen (and be counted unwound later).  The
	 * point stays while this thread is in its hit (a read section).
	 */
	if (wait_var_event_killable(&pt->arming, !READ_ONCE(pt->arming)))
		return NULL;	/* dying: no return to follow */
	/* old text's: the return is missed */
	if (READ_ONCE(pt->stale))
		return NULL;
	if (!READ_ONCE(pt->ret_site))
		WRITE_ONCE(pt->ret_site, true);
	return pt;
}

/*
 * The return site at @ra, in the trap: only one that is there already,
 * its int3 in (NULL otherwise: making one may sleep).
 */
static struct utp_point *utp_ret_site_trap(struct utp_proc *proc,
					   unsigned long ra)
{
	struct utp_point *pt = xa_load(&proc->points, ra);

	if (!pt || READ_ONCE(pt->arming) || READ_ONCE(pt->stale))
		return NULL;
	if (!READ_ONCE(pt->ret_site))
		WRITE_ONCE(pt->ret_site, true);
	return pt;
}

/* The word of user stack at @addr; in the trap, without faulting. */
static int utp_read_word(unsigned long addr, unsigned long *val, bool trap)
{
	if (trap)
		return copy_from_user_nofault(val, (void __user *)addr,
					      sizeof(*val)) ? -EFAULT : 0;
	return get_user(*val, (unsigned long __user *)addr);
}

/*
 * @pt, at a function's entry, was hit: follow the call to its return for
 * each return probe there; in the int3 trap if @trap.
 */
static void utp_ret_enter(struct utp_thread *ut, struct utp_point *pt,
			  struct pt_regs *regs, bool trap)
{
	unsigned long stack = utp_arch_ret_slot(regs), ra = 0;
	struct utp_point *site = NULL;
	struct utp_consumer *c;
	struct utp_ret *ri;
	u64 now = 0;

	list_for_each_entry_rcu(c, &pt->consumers, point_node, true) {
		struct utprobe *up = c->up;

		if (!up->ret_handler || READ_ONCE(up->gone))
			continue;
		/* added since the trap found every probe here trap-safe */
		if (trap && !(up->flags & UTPROBE_TRAP_SAFE))
			continue;
		if (!now) {
			/* the first return probe here: where does it return? */
			now = ktime_get_ns();
			if (trap) {
				/* read by utp_trap_enter_ok() */
				ra = ut->trap_ra;
				site = ut->trap_site;
				if (site)
					utp_ret_drop_unwound(ut, stack, ra,
							     pt->vaddr);
			} else if (stack && !utp_read_word(stack, &ra, false)) {
				utp_ret_drop_unwound(ut, stack, ra, pt->vaddr);
				site = utp_ret_site(ut->proc, ra);
			}
		}
		ri = NULL;
		if (site && ut->depth < UTPROBE_RET_DEPTH_MAX)
			ri = utp_ret_alloc(ut, trap);
		if (!ri) {
			this_cpu_inc(up->rets->missed);
			continue;
		}
		ri->rp = utp_ret_probe_get(up->ret_probe);
		ri->func = pt->vaddr;
		ri->orig = ra;
		ri->stack = stack;
		ri->entry_ns = now;
		ri->next = ut->rets;
		ut->rets = ri;
		ut->depth++;
		this_cpu_inc(up->rets->pending);
	}
}

/*
 * The return site @pt was hit: calls returning there have returned, and
 * those below were unwound.  The ip is the return address.  In the
 * int3 trap if @trap.
 */
static void utp_ret_hit(struct utp_thread *ut, struct utp_point *pt,
			struct pt_regs *regs, bool trap)
{
	unsigned long stack = utp_arch_ret_popped(regs), ra;
	struct utprobe_return ret;
	struct utp_ret *ri;

	/*
	 * A return has just popped this address.  A jump here (a loop,
	 * the way on from a catch block) finds what a later call left.
	 * The trap has read it already (utp_trap_returns_ok()).
	 */
	if (trap && ut->trap_returning >= 0) {
		if (!ut->trap_returning)
			return;
	} else if (utp_read_word(stack, &ra, trap) || ra != pt->vaddr) {
		return;
	}
	utp_ret_drop_unwound(ut, stack, pt->vaddr, 0);
	while ((ri = ut->rets) && ri->stack == stack) {
		struct utprobe *up = utp_ret_up(ri);

		ut->rets = ri->next;
		ut->depth--;
		if (up && !READ_ONCE(up->gone)) {
			this_cpu_inc(up->rets->returns);
			if (trace_utprobe_ret_enabled())
				trace_utprobe_ret(up, ri->func, pt->vaddr,
						  regs_return_value(regs),
						  ktime_get_ns() - ri->entry_ns);
			ret.func = ri->func;
			ret.entry_ns = ri->entry_ns;
			up->ret_handler(up, &ret, regs);
		}
		utp_ret_free(ut, ri);
	}
}

/*
 * What a hit of @pt does before its instruction runs: returns that end
 * there, the handlers, calls followed from there; in the int3 trap if
 * @trap.  The ip is at the point.  Returns true if a handler moved the
 * thread elsewhere.
 */
static bool utp_hit_handlers(struct utp_thread *ut, struct utp_point *pt,
			     struct pt_regs *regs, bool trap)
{
	unsigned long bp = instruction_pointer(regs);

	ut->in_handler = true;
	if (READ_ONCE(pt->ret_site) && ut->rets)
		utp_ret_hit(ut, pt, regs, trap);
	if (instruction_pointer(regs) == bp)
		utp_run_handlers(ut, pt, regs, trap);
	ut->in_handler = false;
	if (instruction_pointer(regs) != bp)
		return true;
	utp_ret_enter(ut, pt, regs, trap);
	return false;
}

/*
 * A hit taken on the fast path, on the way back to user mode: the point
 * is emulated or runs through its slot.  If the process is being
 * quiesced meanwhile, or the point has gone, the thread goes back to the
 * int3, to trap again.
 */
static void __utp_hit_work(struct utp_thread *ut)
{
	struct pt_regs *regs = task_pt_regs(current);
	unsigned long bp = ut->hit_bp, slot;
	struct utp_point *pt;

	if (current->flags & PF_EXITING)
		return;
	instruction_pointer_set(regs, bp);
	if (ut->hit_emulate) {
		/* the trap ran the handlers; the stack was not at hand */
		ut->hit_emulate = false;
		if (utp_arch_emulate(&ut->hit_ai, bp, regs))
			ut->replay_bp = bp;
		return;
	}
	if (READ_ONCE(ut->proc->quiescing))
		return;
	rcu_read_lock();
	pt = xa_load(&ut->proc->points, bp);
	rcu_read_unlock();
	if (!pt || READ_ONCE(pt->stale) ||
	    utp_hit_handlers(ut, pt, regs, false))
		return;
	if (!utp_arch_emulate(&pt->ai, bp, regs))
		return;
	slot = utp_arch_insn_through(&pt->ai) ? utp_slot(ut->proc, pt) : 0;
	if (slot) {
		instruction_pointer_set(regs, slot);
		return;
	}
	/* removed meanwhile: its instruction is back in place */
	if (READ_ONCE(pt->gone))
		return;
	/*
	 * The emulated stack access faulted, or no out-of-line area: the
	 * slow path takes it from the int3 again, without the handlers.
	 * It runs the instruction out of line, whose own fault is then
	 * delivered as if at @bp.
	 */
	ut->replay_bp = bp;
}

static void utp_hit_work(struct callback_head *cb)
{
	struct utp_thread *ut = container_of(cb, struct utp_thread, hit_work);
	int idx;

	idx = srcu_read_lock(&utp_srcu);
	__utp_hit_work(ut);
	srcu_read_unlock(&utp_srcu, idx);
	/* only now, with the point let go, may a quiescer count it asleep */
	WRITE_ONCE(ut->hit_queued, false);
	/* its process lost its last point meanwhile: report to let go */
	if (READ_ONCE(ut->proc->detaching))
		utp_control(current, ut->engine, UTRACE_REPORT);
}

enum utp_trap_result {
	UTP_TRAP_DONE,		/* the hit is over */
	UTP_TRAP_EMULATE,	/* handlers run, the instruction to emulate */
	UTP_TRAP_QUEUE,		/* all of it for the task_work */
};

/*
 * Can the calls followed from a hit of @pt, at a function's entry, be
 * followed in the trap?  Only to a return site that is there already.
 */
static bool utp_trap_enter_ok(struct utp_thread *ut, struct pt_regs *regs)
{
	unsigned long stack = utp_arch_ret_slot(regs);

	/* no call to follow: the missed count takes it, anywhere */
	if (!stack)
		return true;
	if (utp_read_word(stack, &ut->trap_ra, true))
		return false;
	ut->trap_site = utp_ret_site_trap(ut->proc, ut->trap_ra);
	return ut->trap_site;
}

/*
 * Can the returns that end at the return site @pt be reported in the
 * trap?  If every return handler of theirs may run there.
 */
static bool utp_trap_returns_ok(struct utp_thread *ut, struct utp_point *pt,
				struct pt_regs *regs)
{
	unsigned long stack = utp_arch_ret_popped(regs), ra;
	struct utp_ret *ri;

	if (utp_read_word(stack, &ra, true))
		return false;
	ut->trap_returning = ra == pt->vaddr;
	if (!ut->trap_returning)
		return true;
	for (ri = ut->rets; ri && ri->stack <= stack; ri = ri->next) {
		struct utprobe *up = utp_ret_up(ri);

		if (up && !(up->flags & UTPROBE_TRAP_SAFE))
			return false;
	}
	return true;
}

/*
 * The whole hit in the trap, interrupts off, if it can be: every handler
 * and return handler there trap-safe, any return site it needs made
 * already, and an emulated instruction or a slot made already.  An
 * emulated stack access that would fault is left to the task_work.
 */
static enum utp_trap_result utp_trap_hit(struct utp_thread *ut,
					 struct utp_point *pt,
					 struct pt_regs *regs,
					 unsigned long bp)
{
	/* pairs with the release in utp_slot() */
	unsigned long slot = smp_load_acquire(&pt->slot);
	struct utp_consumer *c;
	bool enter = false;
	int ret;

	if (!utp_arch_insn_emulated(&pt->ai) && !slot)
		return UTP_TRAP_QUEUE;
	ut->trap_site = NULL;
	ut->trap_returning = -1;
	list_for_each_entry_rcu(c, &pt->consumers, point_node, true) {
		struct utprobe *up = c->up;

		if ((up->handler || up->ret_handler) &&
		    !(up->flags & UTPROBE_TRAP_SAFE))
			return UTP_TRAP_QUEUE;
		enter |= up->ret_handler && !READ_ONCE(up->gone);
	}
	instruction_pointer_set(regs, bp);
	if (enter && !utp_trap_enter_ok(ut, regs))
		return UTP_TRAP_QUEUE;
	if (READ_ONCE(pt->ret_site) && ut->rets &&
	    !utp_trap_returns_ok(ut, pt, regs))
		return UTP_TRAP_QUEUE;
	if (utp_hit_handlers(ut, pt, regs, true))
		return UTP_TRAP_DONE;	/* a handler moved the thread */
	if (!utp_arch_insn_emulated(&pt->ai)) {
		instruction_pointer_set(regs, slot);	/* runs through it */
		return UTP_TRAP_DONE;
	}
	pagefault_disable();
	ret = utp_arch_emulate(&pt->ai, bp, regs);
	pagefault_enable();
	return ret ? UTP_TRAP_EMULATE : UTP_TRAP_DONE;
}

/**
 * utp_trap - the fast path of a hit, from the int3 trap
 * @regs:	the user registers of current, ip after the int3
 * @bp:		the int3's address
 *
 * Runs in the trap with interrupts off, for every user int3 of a probed
 * thread: it notes @bp, so that only the SIGTRAP of this trap is taken
 * for a hit.  If @bp is a point of current's process that needs no
 * single step, the thread is not single-stepped by a tracer and the
 * process is not being quiesced, takes the hit there or queues it to
 * run on the way back to user mode.
 *
 * Return: true if the hit was taken (no SIGTRAP is to be sent).
 */
static bool utp_trap(struct pt_regs *regs, unsigned long bp)
{
	enum utp_trap_result res;
	struct utp_thread *ut;
	struct utp_point *pt;

	/*
	 * A thread looks up only its own pid: what it finds is its own
	 * state, which goes only at its death or exec, or nothing.
	 */
	ut = xa_load(&utp_tids, task_pid_nr(current));
	if (!ut || ut->task != current)
		return false;
	/* a SIGTRAP with SI_KERNEL is this int3's only if it comes next */
	ut->int3_bp = bp;
	/* a thread stepped by a ptracer takes the slow path: __utp_hit() */
	if (utp_arch_user_stepping(regs) || ut->stepping || ut->hit_queued ||
	    ut->dbg_bp || READ_ONCE(ut->proc->quiescing) ||
	    READ_ONCE(ut->proc->dead))
		return false;
	/* see __utp_hit_work(); any other hit forgets it */
	if (ut->replay_bp) {
		if (ut->replay_bp == bp)
			return false;
		ut->replay_bp = 0;
	}
	pt = xa_load(&ut->proc->points, bp);
	if (!pt || READ_ONCE(pt->stale) || READ_ONCE(pt->dbg_bp) ||
	    !(utp_arch_insn_emulated(&pt->ai) ||
	      utp_arch_insn_through(&pt->ai)))
		return false;
	ut->hit_bp = bp;
	res = utp_trap_hit(ut, pt, regs, bp);
	if (res == UTP_TRAP_DONE)
		return true;
	ut->hit_emulate = res == UTP_TRAP_EMULATE;
	if (ut->hit_emulate)
		ut->hit_ai = pt->ai;
	ut->hit_queued = true;
	init_task_work(&ut->hit_work, utp_hit_work);
	if (task_work_add(current, &ut->hit_work, TWA_RESUME)) {
		/*
		 * Exiting: it will not run user code again.  Handlers that
		 * ran here must not run again in report_signal().
		 */
		ut->hit_queued = false;
		ut->hit_emulate = false;
		return res == UTP_TRAP_EMULATE;
	}
	return true;
}

/* The arch's breakpoint traps reach utp_trap() through the die notifiers. */
static int utp_trap_notify(struct notifier_block *nb, unsigned long val,
			   void *data)
{
	struct pt_regs *regs = utp_arch_trap_regs(val, data);

	if (!regs)
		return NOTIFY_DONE;
	return utp_trap(regs, utp_bp_addr(regs)) ? NOTIFY_STOP : NOTIFY_DONE;
}

/*
 * Ahead of mainline uprobes' notifier, which would take a utprobe int3 in
 * a process with mainline uprobes for one of its own, and send the
 * SIGTRAP itself.
 */
static struct notifier_block utp_trap_nb = {
	.notifier_call = utp_trap_notify,
	.priority = INT_MAX,
};

/* A hit is over: the thread goes on, or stops for its ptracer's step. */
static u32 utp_hit_done(bool user_step, struct pt_regs *regs)
{
	if (user_step)
		utp_arch_step_trap(regs);
	return UTRACE_SIGNAL_IGN | UTRACE_RESUME;
}

/* The int3 at @bp was hit; see utp_hit(). */
static u32 __utp_hit(struct utp_thread *ut, struct pt_regs *regs,
		     unsigned long bp, u32 action)
{
	bool replay = ut->replay_bp == bp, user_step;
	struct utp_point *pt;
	unsigned long slot;
	u8 byte;

	ut->replay_bp = 0;
	rcu_read_lock();
	pt = xa_load(&ut->proc->points, bp);
	rcu_read_unlock();
	/* an int3 in new text at a stale point's place is not ours */
	if (pt && READ_ONCE(pt->stale))
		return utrace_signal_action(action) | UTRACE_RESUME;
	/*
	 * Back at a debugger's breakpoint it stopped at: a replay too.  An
	 * int3 that is no point (a debugger's elsewhere) keeps the record.
	 */
	if (pt) {
		if (ut->dbg_bp == bp && ut->dbg_sp == user_stack_pointer(regs))
			replay = true;
		ut->dbg_bp = 0;
	}
	if (!pt) {
		/* removed since it trapped: run the original instruction */
		if (!get_user(byte, (u8 __user *)bp) && byte != UTP_BREAK_INSN) {
			instruction_pointer_set(regs, bp);
			return UTRACE_SIGNAL_IGN | utp_resume(ut);
		}
		return utrace_signal_action(action) | UTRACE_RESUME;
	}
	if (utp_stop_if_quiescing(ut)) {
		/* hit it again once let go, if it is still there */
		if (replay)
			ut->replay_bp = bp;
		instruction_pointer_set(regs, bp);
		return UTRACE_SIGNAL_IGN | UTRACE_STOP;
	}

	/*
	 * A thread single-stepped by a ptracer (or its own TF) steps the
	 * probed instruction as one: the hit ends in the step's trap.
	 */
	user_step = utp_arch_user_stepping(regs);
	instruction_pointer_set(regs, bp);
	/* a replay of a fast-path hit whose handlers ran: they do not again */
	if (!replay && utp_hit_handlers(ut, pt, regs, false))
		return utp_hit_done(user_step, regs);
	if (READ_ONCE(pt->dbg_bp)) {
		/*
		 * A debugger's int3 is here too: the trap is its own as well.
		 * When the thread comes back here (the debugger rewinds to
		 * its breakpoint, takes it out and resumes), that is not a
		 * hit again, unless it stepped anywhere else first.
		 */
		instruction_pointer_set(regs, bp + UTP_BREAK_INSN_SIZE);
		ut->dbg_bp = bp;
		ut->dbg_sp = user_stack_pointer(regs);
		return utrace_signal_action(action) | utp_resume(ut);
	}
	if (!utp_arch_emulate(&pt->ai, bp, regs))
		return utp_hit_done(user_step, regs);

	slot = utp_slot(ut->proc, pt);
	if (!slot && READ_ONCE(pt->gone)) {
		/* removed meanwhile: its instruction is back in place */
		instruction_pointer_set(regs, bp);
		return UTRACE_SIGNAL_IGN | utp_resume(ut);
	}
	if (!slot) {
		/* no out-of-line area: the thread cannot go on */
		force_sig(SIGSEGV);
		return UTRACE_SIGNAL_IGN | UTRACE_RESUME;
	}
	if (utp_arch_insn_through(&pt->ai) && !user_step) {
		/* the slot jumps back by itself */
		instruction_pointer_set(regs, slot);
		return UTRACE_SIGNAL_IGN | utp_resume(ut);
	}
	utp_arch_pre_step(&pt->ai, slot, regs);
	/* the point may go during the step: the step needs only these */
	ut->stepping = true;
	ut->step_ai = pt->ai;
	ut->step_vaddr = bp;
	ut->step_slot = slot;
	ut->user_step = user_step;
	ut->user_step_traced = user_step && current->ptrace;
	/* see every signal until the step is over, to hold them back */
	utp_set_events(ut, UTP_EVENTS | UTRACE_EVENT_SIGNAL_ALL);
	return UTRACE_SIGNAL_IGN | UTRACE_SINGLESTEP;
}

/*
 * The int3 at @bp was hit: the slow path.  While the thread holds the
 * point (handlers, the slot's allocation may sleep), a quiescer must not
 * count it asleep (utp_quiescent()).
 */
static u32 utp_hit(struct utp_thread *ut, struct pt_regs *regs,
		   unsigned long bp, u32 action)
{
	u32 ret;
	int idx;

	WRITE_ONCE(ut->in_hit, true);
	idx = srcu_read_lock(&utp_srcu);
	ret = __utp_hit(ut, regs, bp, action);
	srcu_read_unlock(&utp_srcu, idx);
	WRITE_ONCE(ut->in_hit, false);
	/* the point went meanwhile, and the process's last with it */
	if (utrace_resume_action(ret) == UTRACE_RESUME &&
	    utp_leave_if_detaching(ut))
		ret = (ret & ~UTRACE_RESUME_MASK) | UTRACE_DETACH;
	return ret;
}

/* Can an instruction's fault be @signo? */
static bool utp_fault_signal(int signo)
{
	return signo == SIGSEGV || signo == SIGBUS || signo == SIGFPE ||
	       signo == SIGILL || signo == SIGTRAP;
}

/* A signal while the thread steps a displaced instruction. */
static u32 utp_signal_stepping(struct utp_thread *ut, struct pt_regs *regs,
			       kernel_siginfo_t *info, u32 action)
{
	struct utp_delayed *d;
	int signo = info ? info->si_signo : 0;

	if (utrace_signal_action(action) == UTRACE_SIGNAL_REPORT ||
	    utrace_signal_action(action) == UTRACE_SIGNAL_HANDLER)
		return utrace_signal_action(action) | UTRACE_SINGLESTEP;

	/*
	 * The step is done, wherever it left the thread: at its slot again
	 * too, after a loop or jrcxz that branched to itself.
	 */
	if (signo == SIGTRAP && info->si_code == TRAP_TRACE) {
		if (utp_arch_post_step(&ut->step_ai, ut->step_vaddr,
				       ut->step_slot, regs))
			force_sig(SIGSEGV);
		else if (ut->user_step &&
			 (!ut->user_step_traced || current->ptrace))
			/* the trap of the step, unless its tracer has gone */
			utp_arch_step_trap(regs);
		utp_end_step(ut);
		return UTRACE_SIGNAL_IGN | utp_resume(ut);
	}
	if (instruction_pointer(regs) == ut->step_slot && info &&
	    info->si_code > 0 && utp_fault_signal(signo)) {
		/* the instruction faulted: as if at its own address */
		utp_arch_abort_step(ut->step_vaddr, regs);
		utp_end_step(ut);
		return utrace_signal_action(action) | UTRACE_RESUME;
	}
	if (!valid_signal(signo) || !signo)
		return utrace_signal_action(action) | UTRACE_SINGLESTEP;
	/* anything else waits until the step is over */
	d = kmalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return utrace_signal_action(action) | UTRACE_SINGLESTEP;
	copy_siginfo(&d->info, info);
	list_add_tail(&d->node, &ut->delayed);
	return UTRACE_SIGNAL_IGN | UTRACE_SINGLESTEP;
}

static u32 utp_report_signal(u32 action, struct utrace_engine *engine,
			     struct task_struct *task, struct pt_regs *regs,
			     kernel_siginfo_t *info,
			     const struct k_sigaction *orig_ka,
			     struct k_sigaction *return_ka)
{
	struct utp_thread *ut = engine->data;

	if (ut->stepping)
		return utp_signal_stepping(ut, regs, info, action);
	if (utrace_signal_action(action) == UTRACE_SIGNAL_REPORT)
		return UTRACE_SIGNAL_REPORT | utp_resume(ut);
	if (info && info->si_code > 0 && utp_fault_signal(info->si_signo)) {
		/* a fault of an instruction run through its slot */
		void *vaddr = xa_load(&ut->proc->slots,
				      instruction_pointer(regs));

		if (vaddr)
			utp_arch_abort_step(xa_to_value(vaddr), regs);
	}
	/*
	 * A step after its stop that did not end at its breakpoint: the
	 * instruction ran (a debugger's copy of it, out of line).
	 */
	if (info && info->si_signo == SIGTRAP && info->si_code == TRAP_TRACE &&
	    instruction_pointer(regs) != ut->dbg_bp)
		ut->dbg_bp = 0;
	/*
	 * The SIGTRAP of an int3 this thread trapped on (a tracer can send
	 * one with SI_KERNEL too, from a syscall stop).
	 */
	if (info && info->si_signo == SIGTRAP && info->si_code == SI_KERNEL &&
	    ut->int3_bp == utp_bp_addr(regs)) {
		ut->int3_bp = 0;
		return utp_hit(ut, regs, utp_bp_addr(regs), action);
	}
	return utrace_signal_action(action) | utp_resume(ut);
}

/*
 * Probes on files.
 *
 * A forked child inherits the breakpoints of probes on files: the
 * parent lists them (utp_fork_keep()) when its text is copied, and its
 * clone report hands the list to the child in a task_work that the child
 * runs before it first returns to user mode, where it makes them its own
 * points.  A new executable mapping of a probed file gets
 * its breakpoints the same way, from mmap() (utprobe_mmap()).
 */
struct utp_kept {
	unsigned long vaddr;
	struct utp_arch_insn ai;
	struct inode *inode;		/* the probes' file and offset there, */
	loff_t offset;			/* only compared */
	unsigned int nrefs;		/* the semaphores they raised there, */
	struct {			/* for the child to undo */
		unsigned long vaddr;
		loff_t offset;
	} refs[] __counted_by(nrefs);
};

struct utp_fork_work {
	struct callback_head cb;
	struct xarray kept;		/* vaddr -> struct utp_kept */
	struct utp_ret *rets;		/* calls of probes on files, newest first */
	struct list_head node;		/* in utp_forks, once queued */
	struct mm_struct *mm;		/* the child's; only compared */
};

/*
 * The fork works queued and not run yet: their children's int3s at the
 * kept addresses are theirs to take over (utp_int3_inherited()).
 */
static LIST_HEAD(utp_forks);
static DEFINE_SPINLOCK(utp_forks_lock);

static bool utp_point_on_file(struct utp_point *pt)
{
	struct utp_consumer *c;

	list_for_each_entry_rcu(c, &pt->consumers, point_node, true)
		if (c->up->inode)
			return true;
	return false;
}

/* Is @up still registered?  Called with utp_mutex held. */
static void utp_fork_work(struct callback_head *cb);
static bool utp_in_scope(struct utprobe *up, struct task_struct *task);
static struct task_struct *utp_mm_task(struct mm_struct *mm);

/*
 * Note @pt, a point of probes on files, for the child being forked.
 * Returns nonzero if it cannot be kept (then the breakpoint goes).
 * Runs in the parent, when its text is copied for the child.
 */
static int utp_fork_keep(struct utp_thread *ut, struct utp_point *pt)
{
	struct utp_fork_work *w = ut->fork_pending;
	unsigned int nrefs = 0;
	struct utp_consumer *c;
	struct utp_kept *k;

	if (!w) {
		w = kzalloc(sizeof(*w), GFP_KERNEL);
		if (!w)
			return -ENOMEM;
		xa_init(&w->kept);
		init_task_work(&w->cb, utp_fork_work);
		INIT_LIST_HEAD(&w->node);
		ut->fork_pending = w;
	}
	/*
	 * The consumers and their semaphores hold still: they change under
	 * the mmap_lock the fork holds (see utp_ref_update()).
	 */
	list_for_each_entry_rcu(c, &pt->consumers, point_node, true)
		nrefs += c->up->inode && READ_ONCE(c->ref_vaddr);
	k = kzalloc(struct_size(k, refs, nrefs), GFP_KERNEL);
	if (!k)
		return -ENOMEM;
	k->nrefs = nrefs;
	k->vaddr = pt->vaddr;
	k->ai = pt->ai;
	nrefs = 0;
	/* the probes on files here are all at one offset of one file */
	list_for_each_entry_rcu(c, &pt->consumers, point_node, true) {
		if (!c->up->inode)
			continue;
		k->inode = c->up->inode;
		k->offset = c->up->offset;
		if (READ_ONCE(c->ref_vaddr) && nrefs < k->nrefs) {
			k->refs[nrefs].vaddr = READ_ONCE(c->ref_vaddr);
			k->refs[nrefs++].offset = c->up->ref_offset;
		}
	}
	if (xa_insert(&w->kept, pt->vaddr, k, GFP_KERNEL)) {
		kfree(k);
		return -ENOMEM;
	}
	return 0;
}

static void utp_fork_work_free(struct utp_fork_work *w)
{
	struct utp_kept *k;
	struct utp_ret *ri;
	unsigned long idx;

	while ((ri = w->rets)) {
		w->rets = ri->next;
		utp_ret_kfree(ri);
	}
	xa_for_each(&w->kept, idx, k)
		kfree(k);
	xa_destroy(&w->kept);
	kfree(w);
}

/* The list utp_fork_keep() made for a child that was never made. */
static void utp_fork_forget(struct utp_thread *ut)
{
	utp_fork_work_free(ut->fork_pending);
	ut->fork_pending = NULL;
}

/* Hand the list made by utp_fork_keep() to the child. */
static void utp_fork_queue(struct utp_thread *ut, struct task_struct *child)
{
	struct utp_fork_work *w = ut->fork_pending;
	struct mm_struct *mm;
	struct utp_kept *k;
	unsigned long idx;

	if (!w)
		return;
	ut->fork_pending = NULL;
	w->mm = READ_ONCE(child->mm);
	spin_lock(&utp_forks_lock);
	list_add(&w->node, &utp_forks);
	spin_unlock(&utp_forks_lock);
	if (!task_work_add(child, &w->cb, TWA_RESUME))
		return;
	spin_lock(&utp_forks_lock);
	list_del(&w->node);
	spin_unlock(&utp_forks_lock);
	/* the child will not run user code: nothing to keep */
	mm = get_task_mm(child);
	if (mm) {
		xa_for_each(&w->kept, idx, k)
			utp_poke(mm, k->vaddr, UTP_BREAK_INSN, utp_arch_insn_opcode(&k->ai));
		mmput(mm);
	}
	utp_fork_work_free(w);
}

/*
 * Copies of the calls @ut follows, in order, for the probes @keep()
 * accepts (the others' copies have no probe).  NULL if there are none,
 * or no memory (then the child follows none).  In a read section of
 * utp_srcu: the probes are read.
 */
static struct utp_ret *utp_ret_copy(struct utp_thread *ut,
				    bool (*keep)(struct utprobe *up))
{
	struct utp_ret *head = NULL, **tail = &head, *ri, *copy;
	struct utprobe *up;

	for (ri = ut->rets; ri; ri = ri->next) {
		copy = kmemdup(ri, sizeof(*ri), GFP_KERNEL);
		if (!copy) {
			while ((ri = head)) {
				head = ri->next;
				utp_ret_kfree(ri);
			}
			return NULL;
		}
		up = utp_ret_up(ri);
		copy->rp = up && keep(up) ? utp_ret_probe_get(ri->rp) : NULL;
		copy->next = NULL;
		*tail = copy;
		tail = &copy->next;
	}
	return head;
}

static bool utp_keep_all(struct utprobe *up)
{
	return true;
}

static bool utp_keep_file(struct utprobe *up)
{
	return up->inode;
}

/*
 * A vfork child runs on its parent's stack until it execs or exits, and
 * may return through the parent's frames: it follows the same calls.
 */
static void utp_ret_vfork(struct utp_thread *ut, struct utp_thread *cut)
{
	struct utprobe *up;
	struct utp_ret *ri;
	int srcu;

	srcu = srcu_read_lock(&utp_srcu);
	cut->rets = utp_ret_copy(ut, utp_keep_all);
	for (ri = cut->rets; ri; ri = ri->next) {
		cut->depth++;
		up = utp_ret_up(ri);
		if (up)
			this_cpu_inc(up->rets->pending);
	}
	srcu_read_unlock(&utp_srcu, srcu);
}

/*
 * The forked child returns from the calls under way in its parent's
 * thread too: those of probes on files go to the child's work, which
 * follows them there.
 */
static void utp_ret_fork(struct utp_thread *ut)
{
	struct utp_fork_work *w = ut->fork_pending;
	int srcu;

	if (!ut->rets || !w)
		return;
	srcu = srcu_read_lock(&utp_srcu);
	w->rets = utp_ret_copy(ut, utp_keep_file);
	srcu_read_unlock(&utp_srcu, srcu);
}

/**
 * __utprobe_dup_mmap - a fork copied the text of a probed process
 * @oldmm:	the parent's mm, its mmap_lock held for writing
 * @mm:		the child's copy, its mmap_lock held for writing
 *
 * The child's text holds our int3s as the parent's holds them now: no
 * int3 goes in or out meanwhile, every text write takes @oldmm's
 * mmap_lock, and a point is in the parent's list before its int3 goes
 * in and after its int3 has gone.  Those of probes on files stay, listed
 * for the child to take over before it first runs (utp_fork_work());
 * the others go now, before anybody runs the child's text.  Called
 * through utprobe_dup_mmap(), by the forking thread.
 */
void __utprobe_dup_mmap(struct mm_struct *oldmm, struct mm_struct *mm)
{
	struct utp_poke pk[16];
	struct utp_thread *ut;
	struct utp_proc *proc;
	struct utp_point *pt;
	unsigned int n = 0;
	unsigned long idx;
	int srcu;

	rcu_read_lock();
	proc = utp_proc_find_rcu(oldmm);
	if (proc && !kref_get_unless_zero(&proc->kref))
		proc = NULL;
	rcu_read_unlock();
	if (!proc)
		return;
	ut = utp_current_thread();
	if (ut && ut->proc != proc)
		ut = NULL;
	/* left by a fork that failed after its copy */
	if (ut && ut->fork_pending)
		utp_fork_forget(ut);
	srcu = srcu_read_lock(&utp_srcu);
	xa_for_each(&proc->points, idx, pt) {
		unsigned long vaddr = pt->vaddr;

		/*
		 * A stale point's int3 is the new text's, but for one that
		 * mremap() moved, which the mover takes out of its own text
		 * before it returns to user mode (utp_unmove()): the copy's
		 * goes here.
		 */
		if (READ_ONCE(pt->stale)) {
			vaddr = READ_ONCE(pt->moved_to);
			if (!vaddr)
				continue;
		} else if (ut && utp_point_on_file(pt) &&
			   !utp_fork_keep(ut, pt)) {
			continue;
		}
		/* the bytes of one page back with one copy of it */
		if (n == ARRAY_SIZE(pk) ||
		    (n && (pk[0].vaddr ^ vaddr) & PAGE_MASK)) {
			utp_poke_page_locked(mm, pk, n, false);
			n = 0;
		}
		pk[n++] = (struct utp_poke){
			.vaddr = vaddr, .old = UTP_BREAK_INSN,
			.new = utp_arch_insn_opcode(&pt->ai),
		};
	}
	if (n)
		utp_poke_page_locked(mm, pk, n, false);
	srcu_read_unlock(&utp_srcu, srcu);
	kref_put(&proc->kref, utp_proc_release);
}

/*
 * Threads of a probed process are followed; forked children get the
 * breakpoints of probes on files only.
 */
static u32 utp_report_clone(enum utrace_resume_action action,
			    struct utrace_engine *engine,
			    struct task_struct *parent,
			    unsigned long clone_flags,
			    struct task_struct *child)
{
	struct utp_thread *ut = engine->data;
	struct utp_proc *proc = ut->proc;

	/*
	 * A fork: __utprobe_dup_mmap() took the int3s out of its copy of the
	 * text but those the child takes over, before it first runs.
	 */
	if (!(clone_flags & CLONE_VM)) {
		utp_ret_fork(ut);
		utp_fork_queue(ut, child);
		return utp_resume(ut);
	}
	/* no point left: the child needs nothing, the parent lets go */
	if (READ_ONCE(proc->detaching))
		return utp_resume(ut);
	/*
	 * A thread, or a vfork child: it runs in the same mm, on the same
	 * breakpoints, so it is one of the process's threads for us until
	 * it execs or exits.
	 */
	if (!utp_thread_attach(proc, child)) {
		struct utp_thread *cut = NULL, *t;

		spin_lock(&proc->lock);
		list_for_each_entry(t, &proc->threads, node)
			if (t->task == child)
				cut = t;
		/* a new thread stops before user mode if need be */
		if (cut && proc->quiescing)
			utp_control(child, cut->engine, UTRACE_INTERRUPT);
		spin_unlock(&proc->lock);
		if (cut && (clone_flags & CLONE_VFORK))
			utp_ret_vfork(ut, cut);
	}
	return utp_resume(ut);
}

static u32 utp_report_exec(enum utrace_resume_action action,
			   struct utrace_engine *engine,
			   struct task_struct *task,
			   const struct linux_binfmt *fmt,
			   const struct linux_binprm *bprm,
			   struct pt_regs *regs)
{
	struct utp_thread *ut = engine->data;

	/*
	 * The new image's engine already, attached by its mmap work at a
	 * tracer's exec event stop (see utp_mmap_work()): it stays.
	 */
	if (ut->proc->mm == task->mm)
		return UTRACE_RESUME;
	/* the old image and its points are gone */
	utp_thread_leave(ut);
	utp_thread_free(ut);
	return UTRACE_DETACH;
}

static u32 utp_report_death(struct utrace_engine *engine,
			    struct task_struct *task, bool group_dead,
			    int signal)
{
	struct utp_thread *ut = engine->data;

	utp_thread_leave(ut);
	utp_thread_free(ut);
	return UTRACE_DETACH;
}

static const struct utrace_engine_ops utp_ops = {
	.report_quiesce = utp_report_quiesce,
	.report_signal = utp_report_signal,
	.report_clone = utp_report_clone,
	.report_exec = utp_report_exec,
	.report_death = utp_report_death,
};

/*
 * Registration.
 */

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

/* Is a fork work of @mm's waiting to take over an int3 at @vaddr? */
static bool utp_fork_pending(struct mm_struct *mm, unsigned long vaddr)
{
	struct utp_fork_work *w;
	bool found = false;

	spin_lock(&utp_forks_lock);
	list_for_each_entry(w, &utp_forks, node)
		if (w->mm == mm && xa_load(&w->kept, vaddr)) {
			found = true;
			break;
		}
	spin_unlock(&utp_forks_lock);
	return found;
}

/* Has the parent of @proc's task a point at @vaddr?  utp_mutex held. */
static bool utp_parent_point(struct utp_proc *proc, unsigned long vaddr)
{
	struct task_struct *task = utp_mm_task(proc->mm);
	struct mm_struct *pmm;
	struct utp_proc *pproc;
	struct utp_point *pt;

	if (!task)
		return false;
	rcu_read_lock();
	pmm = READ_ONCE(rcu_dereference(task->real_parent)->mm);
	rcu_read_unlock();
	put_task_struct(task);
	pproc = pmm ? utp_proc_find(pmm) : NULL;
	if (!pproc)
		return false;
	pt = xa_load(&pproc->points, vaddr);
	return pt && !READ_ONCE(pt->stale);
}

/*
 * @vaddr in @proc holds an int3 no point of @proc owns.  A child of a
 * fork inherits its parent's; those of probes on files stay, and the
 * child takes them over before it runs (utp_fork_work()), placing every
 * probe on that file offset then, the one being added too.  Returns
 * -EAGAIN if the int3 is such a one: the caller leaves the place to the
 * child.  The parent's clone report comes just after the child is made;
 * until then the parent's point says whose the int3 is, and the report
 * is waited for: 0 if it took the int3 out (it was not for a file).
 * -EBUSY if the int3 is someone else's.  utp_mutex held.
 */
static int utp_int3_inherited(struct utp_proc *proc, unsigned long vaddr)
{
	u8 byte;
	int i;

	for (i = 0; i < 100; i++) {
		if (utp_fork_pending(proc->mm, vaddr))
			return -EAGAIN;
		if (!utp_parent_point(proc, vaddr))
			return -EBUSY;
		usleep_range(1000, 2000);
		if (access_remote_vm(proc->mm, vaddr, &byte, 1,
				     FOLL_FORCE) != 1)
			return -EFAULT;
		if (byte != UTP_BREAK_INSN)
			return 0;
	}
	return -EBUSY;
}

/*
 * The int3s of a batch's new points in one process, written after all of
 * them are in the process's table, a page at a time (utp_place_pokes()).
 */
struct utp_pokes {
	struct utp_poke *pk;
	unsigned int n;
	unsigned int max;
};

/*
 * Make the new point @pt of @proc: in the points first, then its int3 in
 * the text (or in @defer, to write later), so that a thread that traps
 * on it finds it.
 */
static int utp_point_new(struct utp_proc *proc, struct utprobe *up,
			 unsigned long vaddr, const struct utp_arch_insn *ai,
			 enum utp_add_mode mode, struct utp_pokes *defer,
			 struct utp_point **ptp)
{
	struct utp_point *pt;
	int ret;

	if (atomic_read(&proc->npoints) >= UTP_POINTS_MAX)
		return -ENOSPC;
	/* run out of line: a slot must be within reach */
	if (!utp_arch_insn_emulated(ai) && !utp_xol_room(proc, vaddr))
		return -ENOMEM;
	pt = kzalloc(sizeof(*pt), GFP_KERNEL_ACCOUNT);
	if (!pt)
		return -ENOMEM;
	pt->vaddr = vaddr;
	pt->proc = proc;
	pt->ai = *ai;
	INIT_LIST_HEAD(&pt->consumers);
	ret = xa_insert(&proc->points, vaddr, pt, GFP_KERNEL_ACCOUNT);
	if (ret) {
		kfree(pt);
		return ret;
	}
	atomic_inc(&proc->npoints);
	*ptp = pt;
	if (mode == UTP_ADD_INHERITED)
		return 0;
	if (mode == UTP_ADD_LIVE && defer && defer->n < defer->max) {
		defer->pk[defer->n++] = (struct utp_poke){
			.vaddr = vaddr, .old = ai->bytes[0],
			.new = UTP_BREAK_INSN, .pt = pt, .up = up,
		};
		return 0;
	}
	ret = __utp_poke(proc->mm, vaddr, ai->bytes[0], UTP_BREAK_INSN, pt, up);
	if (ret) {
		utp_point_drop(proc, pt);
		return ret;
	}
	if (mode == UTP_ADD_LIVE)
		proc->unsynced = true;
	return 0;
}

/*
 * Add @up at @vaddr in @task's process, whose instruction there is @ai,
 * as @mode says; a new point's int3 goes into @defer if not NULL.
 * Adding a probe that is there already does nothing.
 *
 * Under the running threads, but for two cases that wait until they
 * are quiesced, to take out what they may still be using: the point of
 * text that was mapped over (stale), or to find out whose an int3 that
 * is in the text already is (utp_int3_inherited()).  Called with
 * utp_mutex held.
 */
static int utp_add(struct utprobe *up, struct task_struct *task,
		   unsigned long vaddr, const struct utp_arch_insn *ai,
		   enum utp_add_mode mode, struct utp_pokes *defer)
{
	struct utp_consumer *c;
	struct utp_point *pt;
	struct utp_proc *proc;
	bool quiesced = false;
	int ret;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	proc = utp_proc_get(task);
	if (IS_ERR(proc)) {
		kfree(c);
		return PTR_ERR(proc);
	}
	/* the text is read and written below: the mm must be live */
	if (!mmget_not_zero(proc->mm)) {
		kfree(c);
		return -ESRCH;
	}
again:
	pt = xa_load(&proc->points, vaddr);
	if (pt && READ_ONCE(pt->stale)) {
		/* the old text's, never hit again: it can go if quiesced */
		ret = -EAGAIN;
		if (mode == UTP_ADD_LIVE && !quiesced)
			goto quiesce;
		if (!quiesced)
			goto out;
		utp_point_drop(proc, pt);
		pt = NULL;
	}
	if (!pt) {
		u8 byte;

		/* an int3 that is not ours: a debugger's, a mainline uprobe's */
		ret = -EBUSY;
		if (access_remote_vm(proc->mm, vaddr, &byte, 1, FOLL_FORCE) != 1)
			ret = -EFAULT;
		else if (byte != UTP_BREAK_INSN || mode == UTP_ADD_INHERITED)
			ret = 0;
		else if (up->inode && mode == UTP_ADD_LIVE && !quiesced)
			goto quiesce;
		else if (up->inode && quiesced)
			ret = utp_int3_inherited(proc, vaddr);
		if (!ret)
			ret = utp_point_new(proc, up, vaddr, ai, mode, defer,
					    &pt);
		if (ret)
			goto out;
	} else {
		struct utp_consumer *old;

		ret = 0;
		list_for_each_entry(old, &pt->consumers, point_node)
			if (old->up == up)
				goto out;
	}
	/*
	 * Threads may be walking the consumers meanwhile, in the trap too:
	 * complete before it is published.
	 */
	c->up = up;
	c->point = pt;
	list_add_tail_rcu(&c->point_node, &pt->consumers);
	list_add_tail(&c->probe_node, &up->consumers);
	utp_ref_raise(proc, c);
	c = NULL;
out:
	if (quiesced)
		utp_unquiesce(proc);
	/* nothing placed in a process that had nothing: it is let go */
	if (ret)
		utp_proc_idle(proc);
	mmput(proc->mm);
	kfree(c);
	return ret;
quiesce:
	ret = utp_quiesce(proc);
	if (ret)
		goto out;
	quiesced = true;
	goto again;
}

/* Write back the byte @pt's int3 replaced, unless its text is gone. */
static void utp_point_restore(struct utp_proc *proc, struct utp_point *pt)
{
	/* not under a debugger's breakpoint, whose int3 it is then */
	__utp_poke(proc->mm, pt->vaddr, UTP_BREAK_INSN,
		   utp_arch_insn_opcode(&pt->ai), pt, NULL);
}

/* Has @proc a return probe left?  utp_mutex held. */
static bool utp_proc_has_ret_probe(struct utp_proc *proc)
{
	struct utp_consumer *c;
	struct utp_point *pt;
	unsigned long idx;

	xa_for_each(&proc->points, idx, pt)
		list_for_each_entry(c, &pt->consumers, point_node)
			if (c->up->ret_handler)
				return true;
	return false;
}

/*
 * @proc lost a return probe.  If it has none left, its return sites go,
 * but those that are a probe's point too.  The calls its threads still
 * follow have no probe any more; their notes go when the threads unwind
 * them or exit.  See utp_after_removals().  utp_mutex held.
 */
static void utp_ret_sweep(struct utp_proc *proc)
{
	struct utp_point *pt;
	unsigned long idx;

	if (utp_proc_has_ret_probe(proc))
		return;
	xa_for_each(&proc->points, idx, pt) {
		cond_resched();
		/* one still going in is another probe's */
		if (!pt->ret_site || READ_ONCE(pt->arming))
			continue;
		WRITE_ONCE(pt->ret_site, false);
		if (!list_empty(&pt->consumers))
			continue;
		utp_point_restore(proc, pt);
		utp_point_drop(proc, pt);
	}
}

/*
 * What the removals numbered up to @last leave to after their grace
 * period, when no thread is still in a hit that saw a probe they removed
 * (utp_unregister_wait(), begun after them): such a thread may yet add a
 * return site for a return probe it saw.  Then a process that lost a
 * return probe sweeps its return sites, and one left with no point lets
 * its threads go.  A process that a later removal touched waits for
 * that one's grace period.
 */
static void utp_after_removals(u64 last)
{
	struct utp_proc *proc;

	mutex_lock(&utp_mutex);
	list_for_each_entry(proc, &utp_procs, node) {
		if (!proc->removed || proc->removed > last)
			continue;
		if (proc->ret_sweep)
			utp_ret_sweep(proc);
		proc->removed = 0;
		proc->ret_sweep = false;
		utp_proc_idle(proc);
	}
	mutex_unlock(&utp_mutex);
}

/*
 * Remove the consumers in @list (all of @up, in one process) and their
 * points, under the running threads: a thread that reads them meanwhile
 * does so in a read section of utp_srcu or RCU, which the caller waits
 * out (utp_unregister_wait()) before @up goes.  A return probe's return
 * sites, and letting the threads go if no point is left, wait for that
 * too (utp_after_removals()).
 */
static void utp_remove(struct utp_proc *proc, struct utprobe *up,
		       struct list_head *list)
{
	struct utp_consumer *c, *next;
	struct utp_point *pt;

	list_for_each_entry_safe(c, next, list, probe_node) {
		pt = c->point;
		/* down while a fork still sees it (utp_fork_keep()) */
		if (c->ref_vaddr)
			utp_ref_update(proc->mm, up->inode, up->ref_offset,
				       &c->ref_vaddr, -1);
		list_del_rcu(&c->point_node);
		list_del(&c->probe_node);
		utp_consumer_free(c);
		/* a return site stays while calls return there */
		if (!list_empty(&pt->consumers) || READ_ONCE(pt->ret_site))
			continue;
		/*
		 * The last probe here: the original instruction goes back,
		 * then the point.  A thread that trapped on the int3 before
		 * finds the point and takes the hit, or finds none and runs
		 * the original instruction; one in the middle of a hit of it
		 * runs it in place if it has no slot yet.
		 */
		utp_point_restore(proc, pt);
		utp_point_drop(proc, pt);
	}
	proc->removed = ++utp_removals;
	if (up->ret_handler)
		proc->ret_sweep = true;
}

static void utp_probe_free(struct utprobe *up)
{
	free_percpu(up->hits);
	up->hits = NULL;
	free_percpu(up->rets);
	up->rets = NULL;
	utp_ret_probe_put(up->ret_probe);
	up->ret_probe = NULL;
}

static int utp_probe_init(struct utprobe *up)
{
	up->hits = alloc_percpu(u64);
	up->rets = NULL;
	up->ret_probe = NULL;
	if (up->hits && up->ret_handler) {
		up->rets = alloc_percpu(struct utprobe_ret_counts);
		up->ret_probe = kmalloc(sizeof(*up->ret_probe), GFP_KERNEL);
	}
	if (!up->hits || (up->ret_handler && (!up->rets || !up->ret_probe))) {
		utp_probe_free(up);
		return -ENOMEM;
	}
	if (up->ret_probe) {
		up->ret_probe->up = up;
		refcount_set(&up->ret_probe->ref, 1);
	}
	INIT_LIST_HEAD(&up->consumers);
	INIT_LIST_HEAD(&up->file_node);
	INIT_LIST_HEAD(&up->unsynced_node);
	up->inode = NULL;
	up->insn = NULL;
	up->pid = 0;
	up->scope = NULL;
	up->gone = false;
	return 0;
}

/*
 * Calls from probe handlers.  A handler runs in a thread of a probed
 * process, which some changes must quiesce (see utp_add() and
 * utp_remove()), in a read section that an unregistration waits out,
 * and while the thread walks the list of probes at the point: so the
 * work is queued on utp_wq and done shortly after.  Calls from elsewhere
 * first wait for what was queued.
 */
static struct workqueue_struct *utp_wq;

/*
 * A probe to register, as utp_register() takes it: on @inode at @offset
 * (in the tree of @pid, if not NULL), or on @vaddr in the process @pid.
 * It holds a reference to @pid, and to @inode if not NULL.
 */
struct utp_spec {
	struct utprobe *up;
	struct inode *inode;
	loff_t offset;
	struct pid *pid;
	unsigned long vaddr;
	loff_t ref_offset;
};

struct utp_deferred {
	struct work_struct work;
	struct utp_spec spec;
	bool unregister;
};

/* Is current in a probe handler? */
static bool utp_in_handler(void)
{
	struct utp_thread *ut = utp_current_thread();

	return ut && ut->in_handler;
}

static int utp_register(struct utp_spec *specs, unsigned int n, bool init);
static void utp_spec_put(struct utp_spec *spec);
static void utp_unregister(struct utprobe *up);

static void utp_deferred_work(struct work_struct *work)
{
	struct utp_deferred *d = container_of(work, struct utp_deferred,
					      work);
	int ret = 0;

	if (d->unregister)
		utp_unregister(d->spec.up);
	else
		ret = utp_register(&d->spec, 1, false);
	if (ret)
		pr_debug("utprobes: registration from a handler: %d\n", ret);
	utp_spec_put(&d->spec);
	kfree(d);
}

/*
 * A registration or unregistration from outside handlers: first what was
 * queued is done.  If current is a thread of a probed process, it is in
 * the kernel meanwhile, where a quiescer need not wait for it (it stops
 * on its way back to user mode if still asked to).
 */
static void utp_set_in_work(struct utp_thread *ut, bool in_work);

static struct utp_thread *utp_kernel_op_begin(void)
{
	struct utp_thread *ut = utp_current_thread();

	utp_set_in_work(ut, true);
	flush_workqueue(utp_wq);
	return ut;
}

static void utp_kernel_op_end(struct utp_thread *ut)
{
	utp_set_in_work(ut, false);
}

static void utp_defer(struct utp_deferred *d)
{
	INIT_WORK(&d->work, utp_deferred_work);
	queue_work(utp_wq, &d->work);
}

/**
 * utprobe_register_pid - probe an instruction in one process
 * @up:		the probe; its handler, name and data set by the caller
 * @nr:		the process's id, in the caller's pid namespace
 * @vaddr:	the instruction's address there
 *
 * The breakpoint goes in under the process's running threads, which
 * execute it from the time this returns (see utprobe_register_batch()).
 * Children the process forks do not inherit the probe.  May sleep.
 * From a probe handler, the registration is queued and done shortly
 * after; this then answers 0 or -%ESRCH, and a later failure leaves the
 * probe without effect.
 *
 * Return: 0; -%ESRCH no such process (or it is exiting); -%EFAULT
 * @vaddr is not in private executable memory of the process;
 * -%EILSEQ no valid instruction there; -%EOPNOTSUPP the instruction
 * cannot be probed, or the process is 32-bit; -%EBUSY another breakpoint
 * is there (a debugger's or a mainline uprobe's); -%EAGAIN the text at
 * @vaddr was replaced while the probe went in; -%EINTR a fatal signal
 * came; -%ENOMEM out of memory, or no room for an out-of-line slot
 * within reach of @vaddr.
 */
int utprobe_register_pid(struct utprobe *up, pid_t nr, unsigned long vaddr)
{
	struct utprobe_spec spec = { .up = up, .pid = nr, .vaddr = vaddr };

	return utprobe_register_batch(&spec, 1);
}
EXPORT_SYMBOL_GPL(utprobe_register_pid);

/*
 * Remove @up from every process; see utprobe_unregister().  utp_mutex
 * held; the caller lets go of what the probe holds (utp_unregister()).
 */
static void utp_unregister_locked(struct utprobe *up)
{
	struct utp_consumer *c;
	struct utp_proc *proc;
	LIST_HEAD(list);

	lockdep_assert_held(&utp_mutex);
	/* the calls followed for it have no probe from now */
	if (up->ret_probe)
		WRITE_ONCE(up->ret_probe->up, NULL);
	if (up->inode && !list_empty(&up->file_node)) {
		/* no new process gets it */
		list_del_init(&up->file_node);
		static_branch_dec(&utprobe_mmap_key);
	}
	while (!list_empty(&up->consumers)) {
		struct utp_consumer *next;

		/* the consumers of one process at a time */
		c = list_first_entry(&up->consumers, struct utp_consumer,
				     probe_node);
		proc = c->point->proc;
		list_for_each_entry_safe(c, next, &up->consumers, probe_node)
			if (c->point->proc == proc)
				list_move_tail(&c->probe_node, &list);
		utp_remove(proc, up, &list);
	}
}

/* What a probe holds once it is out of every process. */
static void utp_probe_release(struct utprobe *up)
{
	up->ref_offset = 0;
	if (up->inode) {
		iput(up->inode);
		up->inode = NULL;
		kfree(up->insn);
		up->insn = NULL;
	}
	put_pid(up->scope);
	up->scope = NULL;
}

/*
 * Wait until no thread reads what was removed before: the hit paths
 * that may sleep read in utp_srcu's read sections, the trap in RCU's.
 */
static void utp_unregister_wait(void)
{
	synchronize_rcu();
	synchronize_srcu(&utp_srcu);
}

/* From a probe handler's queued work: all of utprobe_unregister(). */
static void utp_unregister(struct utprobe *up)
{
	u64 last;

	mutex_lock(&utp_mutex);
	utp_unregister_locked(up);
	last = utp_removals;
	mutex_unlock(&utp_mutex);
	utp_unregister_wait();
	utp_after_removals(last);
	utp_probe_release(up);
}

/*
 * Probes removed by utprobe_unregister_nosync(), whose handlers may run
 * still; under utp_mutex.  utp_sync_mutex serialises their release: a
 * caller of utprobe_unregister_sync() that finds none waits for the one
 * that took them away to release them.
 */
static LIST_HEAD(utp_unsynced);
static DEFINE_MUTEX(utp_sync_mutex);

/**
 * utprobe_unregister_nosync - remove a probe, without waiting for it
 * @up:		a registered probe
 *
 * Takes @up's breakpoints out of every process, under the running
 * threads, which it does not stop.  Threads
 * that hit @up before may still be running its handlers: @up must stay
 * as it is until utprobe_unregister_sync() has returned.  Removing many
 * probes this way and then calling utprobe_unregister_sync() once waits
 * for all of them at once.  From a probe handler, this is
 * utprobe_unregister().  Calling it again on a probe already removed
 * does nothing.  May sleep.
 */
void utprobe_unregister_nosync(struct utprobe *up)
{
	struct utp_deferred *d;
	struct utp_thread *ut;

	if (utp_in_handler()) {
		WRITE_ONCE(up->gone, true);
		d = kzalloc(sizeof(*d), GFP_KERNEL | __GFP_NOFAIL);
		d->spec.up = up;
		d->unregister = true;
		utp_defer(d);
		return;
	}
	ut = utp_kernel_op_begin();
	mutex_lock(&utp_mutex);
	utp_unregister_locked(up);
	if (up->hits && list_empty(&up->unsynced_node))
		list_add_tail(&up->unsynced_node, &utp_unsynced);
	mutex_unlock(&utp_mutex);
	utp_kernel_op_end(ut);
}
EXPORT_SYMBOL_GPL(utprobe_unregister_nosync);

/**
 * utprobe_unregister_sync - wait for probes removed without waiting
 *
 * When this returns, no handler of a probe that utprobe_unregister_nosync()
 * removed before the call runs any more, and what the kernel kept for
 * those probes is freed: they may be freed, or registered again, and
 * their module may go.  Not from a probe handler, whose own hit it
 * would wait for.  May sleep.
 */
void utprobe_unregister_sync(void)
{
	struct utprobe *up, *next;
	LIST_HEAD(list);
	u64 last;

	if (WARN_ON_ONCE(utp_in_handler()))
		return;
	mutex_lock(&utp_sync_mutex);
	mutex_lock(&utp_mutex);
	list_splice_init(&utp_unsynced, &list);
	last = utp_removals;
	mutex_unlock(&utp_mutex);
	utp_unregister_wait();
	/*
	 * Handlers that ran meanwhile may have queued the removal of one of
	 * these probes: done before they go.
	 */
	flush_workqueue(utp_wq);
	utp_after_removals(last);
	list_for_each_entry_safe(up, next, &list, unsynced_node) {
		list_del_init(&up->unsynced_node);
		utp_probe_release(up);
		utp_probe_free(up);
	}
	mutex_unlock(&utp_sync_mutex);
}
EXPORT_SYMBOL_GPL(utprobe_unregister_sync);

/**
 * utprobe_unregister - remove a probe
 * @up:		a probe registered with utprobe_register_pid() or
 *		utprobe_register_file()
 *
 * Takes @up's breakpoints out of every process, under the running
 * threads (see utprobe_unregister_nosync()), and waits until the
 * threads that hit it before have left its handlers.  When this
 * returns, no handler of @up runs any more, so the module may go.  From
 * a probe handler, the probe stops being hit at once but the removal is
 * queued: @up must then stay allocated until a later call from outside
 * handlers (at module exit, say) has returned.  Calling it again on a
 * probe already removed does nothing.  May sleep.
 */
void utprobe_unregister(struct utprobe *up)
{
	utprobe_unregister_nosync(up);
	if (!utp_in_handler())
		utprobe_unregister_sync();
}
EXPORT_SYMBOL_GPL(utprobe_unregister);

/**
 * utprobe_hits - how many times a probe was hit
 * @up:		a registered probe
 *
 * Return: the sum of the per-CPU counts; hits being made meanwhile may
 * or may not be counted.
 */
u64 utprobe_hits(const struct utprobe *up)
{
	u64 sum = 0;
	int cpu;

	if (!up->hits)
		return 0;
	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(up->hits, cpu);
	return sum;
}
EXPORT_SYMBOL_GPL(utprobe_hits);

/**
 * utprobe_ret_counts - what became of the calls a return probe saw
 * @up:		a registered probe with a return handler
 * @counts:	filled in: returns reported, calls unwound past, calls
 *		missed, calls pending now
 *
 * A call that has not returned yet is pending; when its thread exits or
 * execs it is no longer counted at all.  Counts being made meanwhile may
 * or may not be included.
 */
void utprobe_ret_counts(const struct utprobe *up,
			struct utprobe_ret_counts *counts)
{
	int cpu;

	memset(counts, 0, sizeof(*counts));
	if (!up->rets)
		return;
	for_each_possible_cpu(cpu) {
		const struct utprobe_ret_counts *c = per_cpu_ptr(up->rets, cpu);

		counts->returns += c->returns;
		counts->unwound += c->unwound;
		counts->missed += c->missed;
		counts->pending += c->pending;
	}
}
EXPORT_SYMBOL_GPL(utprobe_ret_counts);

/* Does @up have a consumer at @vaddr in @proc?  utp_mutex held. */
static bool utp_consumes(struct utp_proc *proc, struct utprobe *up,
			 unsigned long vaddr)
{
	struct utp_point *pt = xa_load(&proc->points, vaddr);
	struct utp_consumer *c;

	if (pt)
		list_for_each_entry(c, &pt->consumers, point_node)
			if (c->up == up)
				return true;
	return false;
}

/*
 * The forked child follows the calls of its parent's probes on files
 * that are its own probes too (utp_fork_work() made them so), with
 * return sites of its own: those it inherited went at the fork.
 */
static void utp_ret_adopt(struct utp_fork_work *w)
{
	struct utp_thread *ut = utp_current_thread();
	struct utp_ret *ri, **tail;

	if (!ut || ut->rets)
		return;
	tail = &ut->rets;
	while ((ri = w->rets)) {
		/* cleared under utp_mutex, which is held: up is there */
		struct utprobe *up = utp_ret_up(ri);

		w->rets = ri->next;
		ri->next = NULL;
		if (!up || !utp_consumes(ut->proc, up, ri->func) ||
		    ut->depth >= UTPROBE_RET_DEPTH_MAX ||
		    !utp_ret_site(ut->proc, ri->orig)) {
			utp_ret_kfree(ri);
			continue;
		}
		this_cpu_inc(up->rets->pending);
		*tail = ri;
		tail = &ri->next;
		ut->depth++;
	}
}

/*
 * The child of a fork takes over the int3s it inherited: each is the
 * point of the probes on that file offset that exist now, those it was
 * made for or others registered since (utp_int3_inherited()), or goes.
 */
static void utp_fork_work(struct callback_head *cb)
{
	struct utp_fork_work *w = container_of(cb, struct utp_fork_work, cb);
	struct utprobe *up;
	struct utp_kept *k;
	unsigned long idx;
	unsigned int i;
	int kept;

	mutex_lock(&utp_mutex);
	spin_lock(&utp_forks_lock);
	list_del(&w->node);
	spin_unlock(&utp_forks_lock);
	/* run at exit instead: no text left to care about */
	if ((current->flags & PF_EXITING) || !current->mm) {
		mutex_unlock(&utp_mutex);
		utp_fork_work_free(w);
		return;
	}
	xa_for_each(&w->kept, idx, k) {
		/* the child's probes raise their semaphores anew */
		for (i = 0; i < k->nrefs; i++)
			utp_ref_update(current->mm, k->inode, k->refs[i].offset,
				       &k->refs[i].vaddr, -1);
		kept = 0;
		list_for_each_entry(up, &utp_files, file_node)
			if (k->inode && up->inode == k->inode &&
			    up->offset == k->offset &&
			    utp_in_scope(up, current) &&
			    !utp_add(up, current, k->vaddr, &k->ai,
				     UTP_ADD_INHERITED, NULL))
				kept++;
		if (!kept)
			utp_poke(current->mm, k->vaddr, UTP_BREAK_INSN,
				 utp_arch_insn_opcode(&k->ai));
	}
	if (w->rets)
		utp_ret_adopt(w);
	mutex_unlock(&utp_mutex);
	utp_fork_work_free(w);
}

/* current's thread state, if its process is probed. */
static struct utp_thread *utp_current_thread(void)
{
	struct utrace_engine *engine;
	struct utp_thread *ut;

	engine = utrace_attach_task(current, UTRACE_ATTACH_MATCH_OPS,
				    &utp_ops, NULL);
	if (IS_ERR(engine))
		return NULL;
	ut = engine->data;
	utrace_engine_put(engine);
	return ut;
}

/* While current waits for utp_mutex, a quiescer need not wait for it. */
static void utp_set_in_work(struct utp_thread *ut, bool in_work)
{
	if (!ut)
		return;
	spin_lock(&ut->proc->lock);
	ut->in_work = in_work;
	wake_up_all(&ut->proc->wq);
	spin_unlock(&ut->proc->lock);
}

/* Is @task in the process tree @up is scoped to (if it is)? */
static bool utp_in_scope(struct utprobe *up, struct task_struct *task)
{
	struct task_struct *t;
	bool in = false;

	if (!up->scope)
		return true;
	rcu_read_lock();
	for (t = task; t->pid; t = rcu_dereference(t->real_parent))
		if (task_tgid(t) == up->scope) {
			in = true;
			break;
		}
	rcu_read_unlock();
	return in;
}

/* [start, end) newly mapped by current, or moved there from @from. */
struct utp_mmap_work {
	struct callback_head cb;
	struct file *file;		/* a private executable file mapping */
	unsigned long start;
	unsigned long end;
	pgoff_t pgoff;
	unsigned long from;		/* mremap(): the old start, else 0, */
	unsigned long from_len;		/* and length */
};

/*
 * The points utp_mark_stale() marked in [@start, @end) go, without
 * writing: the probes on files the new mapping holds place new points
 * after this.  Points placed in the new mapping since it was made are
 * not stale and stay.  utp_mutex held.
 */
static void utp_drop_stale(struct utp_proc *proc, unsigned long start,
			   unsigned long end)
{
	struct utp_point *pt;
	unsigned long idx;
	bool any = false;

	xa_for_each_range(&proc->points, idx, pt, start, end - 1)
		any |= READ_ONCE(pt->stale);
	/* a stale point left is harmless: it is never hit nor written */
	if (!any || utp_quiesce(proc))
		return;
	xa_for_each_range(&proc->points, idx, pt, start, end - 1)
		if (READ_ONCE(pt->stale))
			utp_point_drop(proc, pt);
	utp_unquiesce(proc);
	utp_proc_idle(proc);
}

/*
 * The text at [@from, @from + @len) was moved to @to with its int3s:
 * those of points that were live there go, the original bytes back.
 * No thread but current can run the moved text yet.  utp_mutex held.
 */
static void utp_unmove(struct utp_proc *proc, unsigned long from,
		       unsigned long len, unsigned long to)
{
	struct utp_point *pt;
	unsigned long idx;

	xa_for_each_range(&proc->points, idx, pt, from, from + len - 1)
		if (pt->moved_to >= to && pt->moved_to < to + len)
			utp_poke(proc->mm, pt->moved_to, UTP_BREAK_INSN,
				 utp_arch_insn_opcode(&pt->ai));
}

/*
 * What current mapped or moved goes through here before it returns to
 * user mode: the points the old text had go, and the probes on the file
 * now mapped get their breakpoints.
 */
static void utp_mmap_work(struct callback_head *cb)
{
	struct utp_mmap_work *w = container_of(cb, struct utp_mmap_work, cb);
	unsigned long len = w->end - w->start;
	loff_t start = (loff_t)w->pgoff << PAGE_SHIFT;
	struct utp_thread *ut;
	struct utprobe *up;

	if ((current->flags & PF_EXITING) || !current->mm)
		goto out;
	ut = utp_current_thread();
	if (ut && ut->proc->mm != current->mm) {
		/*
		 * Run by a tracer's exec event stop (ptrace_notify() runs
		 * task_work), before utrace's exec report: the engine is the
		 * old image's.  It leaves now, as its exec report would have
		 * it (without utp_mutex), so that the new image's can attach:
		 * a registration holding utp_mutex may be waiting for that
		 * in utp_proc_cover().
		 */
		utp_thread_leave(ut);
		utp_control(current, ut->engine, UTRACE_DETACH);
		utp_thread_free(ut);
		ut = NULL;
	}
	utp_set_in_work(ut, true);
	mutex_lock(&utp_mutex);
	utp_set_in_work(ut, false);
	if (ut) {
		if (w->from) {
			utp_unmove(ut->proc, w->from, w->from_len, w->start);
			utp_drop_stale(ut->proc, w->from,
				       w->from + w->from_len);
		}
		utp_drop_stale(ut->proc, w->start, w->end);
		if (READ_ONCE(ut->proc->ref_pending))
			utp_ref_retry(ut->proc);
	}
	if (w->file)
		list_for_each_entry(up, &utp_files, file_node)
			if (up->inode == file_inode(w->file) &&
			    up->offset >= start && up->offset < start + len &&
			    utp_in_scope(up, current))
				utp_add(up, current,
					w->start + (up->offset - start),
					up->insn, UTP_ADD_FRESH, NULL);
	mutex_unlock(&utp_mutex);
out:
	if (w->file)
		fput(w->file);
	kfree(w);
}

/*
 * A new mapping of current's has replaced whatever was at [@start,
 * @end): the points there belong to text that is gone (unmapped, or a
 * library closed and opened again at the same place), and the new text
 * has no int3 of ours.  They are marked now, under the mmap_lock the
 * mapping holds for writing, so that nothing writes an int3 for them
 * into the new text (__utp_poke()) or takes a hit there for them; they
 * go later, quiesced (utp_drop_stale()).
 *
 * If mremap() moved the text to @to (non-zero) with its pages, the
 * int3s of the points that were live went along: each such point notes
 * where its int3 is now, for utp_unmove() to restore the byte.
 */
static void utp_mark_stale(struct utp_proc *proc, unsigned long start,
			   unsigned long end, unsigned long to)
{
	struct utp_point *pt;
	unsigned long idx;

	rcu_read_lock();
	xa_for_each_range(&proc->points, idx, pt, start, end - 1) {
		if (to && !READ_ONCE(pt->stale))
			pt->moved_to = to + (pt->vaddr - start);
		WRITE_ONCE(pt->stale, true);
	}
	rcu_read_unlock();
}

/* current's state if @mm is its process's, else NULL. */
static struct utp_thread *utp_mm_thread(struct mm_struct *mm)
{
	/* current's own: it stays while current runs */
	struct utp_thread *ut = xa_load(&utp_tids, current->pid);

	/* not the mm an exec is leaving: the new image is mapped first */
	if (ut && ut->task == current && ut->proc->mm == mm)
		return ut;
	return NULL;
}

/*
 * Queue utp_mmap_work() for [@start, @end) of @vma, moved from
 * [@from, @from + @from_len) if @from.
 */
static void utp_mmap_queue(struct vm_area_struct *vma, unsigned long start,
			   unsigned long end, unsigned long from,
			   unsigned long from_len)
{
	struct utp_mmap_work *w = kzalloc(sizeof(*w), GFP_KERNEL);

	if (!w)
		return;
	if (vma->vm_file && (vma->vm_flags & VM_EXEC) &&
	    !(vma->vm_flags & VM_MAYSHARE)) {
		/* @vma may be an older mapping that the new one extends */
		w->file = get_file(vma->vm_file);
		w->pgoff = vma->vm_pgoff +
			   ((start - vma->vm_start) >> PAGE_SHIFT);
	}
	w->start = start;
	w->end = end;
	w->from = from;
	w->from_len = from_len;
	init_task_work(&w->cb, utp_mmap_work);
	if (task_work_add(current, &w->cb, TWA_RESUME)) {
		if (w->file)
			fput(w->file);
		kfree(w);
	}
}

/**
 * __utprobe_mmap - a mapping was made: it may replace or hold probed text
 * @vma:	the mapping, in current's mm, whose mmap_lock is held for
 *		writing; it may extend an older mapping
 * @addr:	the start of what was mapped now
 * @len:	its length
 *
 * Called through utprobe_mmap() from mmap_region() while any probe
 * exists.  The points of current's process in the range are marked
 * stale at once; the breakpoints of probes on a newly mapped file go in
 * from a task_work, before current returns to user mode, so no thread
 * can have run the new text yet.
 */
void __utprobe_mmap(struct vm_area_struct *vma, unsigned long addr,
		    unsigned long len)
{
	struct utp_thread *ut;

	if (vma->vm_mm != current->mm || (current->flags & PF_KTHREAD))
		return;
	ut = utp_mm_thread(vma->vm_mm);
	if (ut)
		utp_mark_stale(ut->proc, addr, addr + len, 0);
	/* the data that holds a semaphore waited for, maybe */
	if (ut && READ_ONCE(ut->proc->ref_pending) && vma->vm_file &&
	    (vma->vm_flags & (VM_WRITE | VM_SHARED)) == VM_WRITE) {
		utp_mmap_queue(vma, addr, addr + len, 0, 0);
		return;
	}
	if (!vma->vm_file || !(vma->vm_flags & VM_EXEC) ||
	    (vma->vm_flags & VM_MAYSHARE))
		return;
	/* with no probe on a file, only a probed process has work here */
	if (list_empty(&utp_files) && !ut)
		return;
	utp_mmap_queue(vma, addr, addr + len, 0, 0);
}

/**
 * __utprobe_mremap - mapped text was moved
 * @vma:	the new mapping, in current's mm, whose mmap_lock is held for
 *		writing
 * @old_addr:	where the text was
 * @old_len:	how much of it moved
 * @new_addr:	where it is now, in @vma
 * @new_len:	the new mapping's length there, @old_len or more
 *
 * Called through utprobe_mremap() from move_vma() while any probe
 * exists, once the pages have moved.  The points of the old place die
 * with it, and those of whatever was at the new one; the int3s that
 * moved with the pages go, and the probes on the file, if @vma maps one,
 * are placed at the new place, all before current returns to user mode.
 */
void __utprobe_mremap(struct vm_area_struct *vma, unsigned long old_addr,
		      unsigned long old_len, unsigned long new_addr,
		      unsigned long new_len)
{
	struct utp_thread *ut;

	if (vma->vm_mm != current->mm || (current->flags & PF_KTHREAD))
		return;
	ut = utp_mm_thread(vma->vm_mm);
	/* no point of ours was there, none was at the new place */
	if (!ut)
		return;
	utp_mark_stale(ut->proc, new_addr, new_addr + new_len, 0);
	utp_mark_stale(ut->proc, old_addr, old_addr + old_len, new_addr);
	utp_mmap_queue(vma, new_addr, new_addr + new_len, old_addr, old_len);
}

/*
 * Read @len bytes at @pos of @inode's page cache.  A mapping without
 * ->read_folio is read through shmem if it is one (a page of a tmpfs
 * file that is not in memory, a hole say); any other is refused with
 * -EIO, as mainline uprobes refuses it (overlayfs, for one).
 */
static int utp_read_cache(struct inode *inode, loff_t pos, void *buf,
			  size_t len)
{
	struct address_space *mapping = inode->i_mapping;

	if (!mapping->a_ops->read_folio && !shmem_mapping(mapping))
		return -EIO;
	while (len) {
		struct folio *folio;
		size_t off, n;

		if (mapping->a_ops->read_folio)
			folio = read_mapping_folio(mapping, pos >> PAGE_SHIFT,
						   NULL);
		else
			folio = shmem_read_folio(mapping, pos >> PAGE_SHIFT);
		if (IS_ERR(folio))
			return PTR_ERR(folio);
		off = offset_in_folio(folio, pos);
		n = min(len, folio_size(folio) - off);
		memcpy_from_folio(buf, folio, off, n);
		folio_put(folio);
		buf += n;
		pos += n;
		len -= n;
	}
	return 0;
}

/*
 * Check that @offset is in an executable segment of the ELF file @inode
 * and read the instruction there.  Returns the number of bytes read or
 * -ENXIO (beyond the end of the file), -ENOEXEC (not a 64-bit ELF file),
 * -EFAULT (not in executable text).
 */
static int utp_read_file_text(struct inode *inode, loff_t offset, u8 *buf,
			      int len)
{
	loff_t size = i_size_read(inode);
	struct elf64_phdr phdr;
	struct elf64_hdr ehdr;
	int i, ret;

	if (offset < 0 || offset >= size)
		return -ENXIO;
	if (size < sizeof(ehdr))
		return -ENOEXEC;
	ret = utp_read_cache(inode, 0, &ehdr, sizeof(ehdr));
	if (ret)
		return ret;
	if (memcmp(ehdr.e_ident, ELFMAG, SELFMAG) ||
	    ehdr.e_ident[EI_CLASS] != ELFCLASS64 ||
	    ehdr.e_phentsize != sizeof(phdr))
		return -ENOEXEC;
	for (i = 0; i < ehdr.e_phnum; i++) {
		loff_t pos = ehdr.e_phoff + (loff_t)i * sizeof(phdr);

		if (pos + sizeof(phdr) > size)
			return -ENOEXEC;
		ret = utp_read_cache(inode, pos, &phdr, sizeof(phdr));
		if (ret)
			return ret;
		if (phdr.p_type != PT_LOAD || !(phdr.p_flags & PF_X) ||
		    offset < phdr.p_offset ||
		    offset >= phdr.p_offset + phdr.p_filesz)
			continue;
		len = min_t(loff_t, len, phdr.p_offset + phdr.p_filesz - offset);
		len = min_t(loff_t, len, size - offset);
		ret = utp_read_cache(inode, offset, buf, len);
		return ret ? ret : len;
	}
	return -EFAULT;
}

/* A live thread whose mm is @mm, referenced, or NULL. */
static struct task_struct *utp_mm_task(struct mm_struct *mm)
{
	struct task_struct *g, *t, *found = NULL;

	rcu_read_lock();
	for_each_process_thread(g, t) {
		if (READ_ONCE(t->mm) == mm && !(t->flags & PF_EXITING)) {
			found = get_task_struct(t);
			goto out;
		}
	}
out:
	rcu_read_unlock();
	return found;
}

/*
 * Registration: a batch of probes goes in with one pass per process.
 * Each probe is first looked at on its own (the instruction, the
 * process or the file); then, under utp_mutex, every place it goes to
 * is found (struct utp_map: the process, a file's mappings now), and
 * the places are sorted by process, to take each process once: its
 * threads get their engines, the int3s go in one after the other under
 * its running threads, then one utp_sync() for all of them.
 */

/* One probe to place in one process. */
struct utp_map {
	struct list_head node;
	struct mm_struct *mm;		/* mmget()ed */
	unsigned long vaddr;
	struct utprobe *up;
	struct utp_arch_insn ai;
};

static int utp_map_cmp(void *priv, const struct list_head *a,
		       const struct list_head *b)
{
	const struct utp_map *ma = list_entry(a, struct utp_map, node);
	const struct utp_map *mb = list_entry(b, struct utp_map, node);

	if (ma->mm != mb->mm)
		return ma->mm < mb->mm ? -1 : 1;
	return 0;
}

static void utp_map_free(struct utp_map *m)
{
	list_del(&m->node);
	mmput(m->mm);
	kfree(m);
}

/* The processes that map @up's file now: a place in each. */
static int utp_file_maps(struct utprobe *up, struct list_head *maps)
{
	struct address_space *mapping = up->inode->i_mapping;
	pgoff_t pgoff = up->offset >> PAGE_SHIFT;
	struct vm_area_struct *vma;
	struct utp_map *m;
	int ret = 0;

	i_mmap_lock_read(mapping);
	vma_interval_tree_foreach(vma, &mapping->i_mmap, pgoff, pgoff) {
		if (!(vma->vm_flags & VM_EXEC) ||
		    (vma->vm_flags & VM_MAYSHARE))
			continue;
		m = kmalloc(sizeof(*m), GFP_KERNEL);
		if (!m) {
			ret = -ENOMEM;
			break;
		}
		if (!mmget_not_zero(vma->vm_mm)) {
			kfree(m);
			continue;
		}
		m->mm = vma->vm_mm;
		m->vaddr = vma->vm_start + up->offset -
			   ((loff_t)vma->vm_pgoff << PAGE_SHIFT);
		m->up = up;
		m->ai = *up->insn;
		list_add_tail(&m->node, maps);
	}
	i_mmap_unlock_read(mapping);
	return ret;
}

/*
 * The place of @spec, a probe on one process, and its instruction: read
 * from the text, or from the point there if it is probed already (the
 * text holds our int3 then).  utp_mutex held.
 */
static int utp_pid_map(struct utp_spec *spec, struct list_head *maps)
{
	struct task_struct *task = get_pid_task(spec->pid, PIDTYPE_TGID);
	struct utp_point *pt = NULL;
	u8 buf[MAX_INSN_SIZE];
	struct utp_proc *proc;
	struct utp_map *m;
	int ret;

	if (!task)
		return -ESRCH;
	m = kmalloc(sizeof(*m), GFP_KERNEL);
	if (!m) {
		put_task_struct(task);
		return -ENOMEM;
	}
	m->mm = get_task_mm(task);
	put_task_struct(task);
	if (!m->mm) {
		kfree(m);
		return -ESRCH;
	}
	proc = utp_proc_find(m->mm);
	if (proc)
		pt = xa_load(&proc->points, spec->vaddr);
	if (pt) {
		m->ai = pt->ai;
		ret = 0;
	} else {
		ret = utp_read_text(m->mm, spec->vaddr, buf, sizeof(buf));
		if (ret > 0 && buf[0] == UTP_BREAK_INSN)
			ret = -EBUSY;
		if (ret > 0)
			ret = utp_arch_analyze(&m->ai, buf, ret);
	}
	if (ret) {
		mmput(m->mm);
		kfree(m);
		return ret;
	}
	m->vaddr = spec->vaddr;
	m->up = spec->up;
	list_add_tail(&m->node, maps);
	return 0;
}

/* Can a probe on a file that did not get a place with @err go on? */
static bool utp_file_place_gone(int err)
{
	/*
	 * The process exiting, the mapping gone or replaced since it was
	 * found (one of the file is placed by utp_mmap_work()), or a child
	 * of a fork taking the place over (utp_fork_work()).
	 */
	return err == -ESRCH || err == -EPERM || err == -EFAULT ||
	       err == -EAGAIN;
}

static int utp_poke_cmp(const void *a, const void *b)
{
	const struct utp_poke *pa = a, *pb = b;

	if (pa->vaddr != pb->vaddr)
		return pa->vaddr < pb->vaddr ? -1 : 1;
	return 0;
}

/*
 * Write the int3s of @pokes, the new points of a batch in the process of
 * @mm, with one copy of each page they are in.  A point whose int3 could
 * not go in goes, with its probes: no thread can have hit it.  Returns
 * the first error that is one.  utp_mutex held.
 */
static int utp_place_pokes(struct mm_struct *mm, struct utp_pokes *pokes)
{
	struct utp_poke *pk = pokes->pk;
	struct utp_proc *proc;
	unsigned int i, j;
	int ret = 0;

	sort(pk, pokes->n, sizeof(*pk), utp_poke_cmp, NULL);
	for (i = 0; i < pokes->n; i = j) {
		for (j = i + 1; j < pokes->n; j++)
			if ((pk[j].vaddr ^ pk[i].vaddr) & PAGE_MASK)
				break;
		__utp_poke_page(mm, pk + i, j - i, false);
		cond_resched();
	}
	for (i = 0; i < pokes->n; i++) {
		proc = pk[i].pt->proc;
		if (!pk[i].ret) {
			proc->unsynced = true;
			continue;
		}
		if (!ret && !(pk[i].up->inode && utp_file_place_gone(pk[i].ret)))
			ret = pk[i].ret;
		utp_point_drop(proc, (struct utp_point *)pk[i].pt);
		utp_proc_idle(proc);
	}
	return ret;
}

/*
 * Place what @maps holds for the process of @mm, the first of them, and
 * free those maps: the points first, then their int3s page by page, then
 * one utp_sync().  Probes on files skip the processes out of their
 * scope, and one that has left the place since it was found is no
 * error.  utp_mutex held.
 */
static int utp_place_proc(struct list_head *maps)
{
	struct mm_struct *mm = list_first_entry(maps, struct utp_map,
						node)->mm;
	struct task_struct *task = utp_mm_task(mm);
	struct utp_pokes pokes = {};
	struct utp_map *m, *next;
	struct utp_proc *proc;
	int ret = 0, r;

	list_for_each_entry(m, maps, node) {
		if (m->mm != mm)
			break;
		pokes.max++;
	}
	pokes.pk = kvmalloc_array(pokes.max, sizeof(*pokes.pk), GFP_KERNEL);
	if (!pokes.pk)
		pokes.max = 0;	/* each written at once, then */
	list_for_each_entry_safe(m, next, maps, node) {
		if (m->mm != mm)
			break;
		r = -ESRCH;
		if (task && !ret) {
			if (m->up->inode && !utp_in_scope(m->up, task))
				r = 0;
			else
				r = utp_add(m->up, task, m->vaddr, &m->ai,
					    UTP_ADD_LIVE, &pokes);
		}
		if (m->up->inode && utp_file_place_gone(r))
			r = 0;
		if (r && !ret)
			ret = r;
		utp_map_free(m);
		cond_resched();
	}
	r = utp_place_pokes(mm, &pokes);
	if (!ret)
		ret = r;
	proc = utp_proc_find(mm);
	if (proc && proc->unsynced) {
		proc->unsynced = false;
		utp_sync(proc);
	}
	kvfree(pokes.pk);
	if (task)
		put_task_struct(task);
	return ret;
}

/* Look at @spec's probe on its own, before it goes anywhere. */
static int utp_spec_check(struct utp_spec *spec, bool init)
{
	struct utprobe *up = spec->up;
	u8 buf[MAX_INSN_SIZE];
	struct utp_arch_insn *ai;
	int ret;

	/* a semaphore is a file's: aligned, past the ELF header */
	if (spec->ref_offset &&
	    (!spec->inode || spec->ref_offset < 0 ||
	     spec->ref_offset % sizeof(u16)))
		return -EINVAL;
	if (!spec->inode)
		return init ? utp_probe_init(up) : 0;
	if (!S_ISREG(spec->inode->i_mode))
		return -EINVAL;
	ret = utp_read_file_text(spec->inode, spec->offset, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	ai = kmalloc(sizeof(*ai), GFP_KERNEL);
	if (!ai)
		return -ENOMEM;
	ret = utp_arch_analyze(ai, buf, ret);
	if (!ret && init)
		ret = utp_probe_init(up);
	if (ret) {
		kfree(ai);
		return ret;
	}
	up->insn = ai;
	return 0;
}

/*
 * Register the probes of @specs, all or none: see
 * utprobe_register_batch().  Each probe initialised first if @init.
 */
static int utp_register(struct utp_spec *specs, unsigned int n, bool init)
{
	struct utp_map *m, *next;
	unsigned int i, checked;
	LIST_HEAD(maps);
	int ret = 0;
	u64 last;

	for (checked = 0; checked < n && !ret; checked++)
		ret = utp_spec_check(&specs[checked], init);
	if (ret) {
		checked--;
		goto free;
	}
	mutex_lock(&utp_mutex);
	for (i = 0; i < n && !ret; i++) {
		struct utp_spec *spec = &specs[i];
		struct utprobe *up = spec->up;

		if (!spec->inode) {
			up->vaddr = spec->vaddr;
			up->pid = pid_nr(spec->pid);
			ret = utp_pid_map(spec, &maps);
			continue;
		}
		/* the probe's from now: no new process may miss it */
		up->inode = spec->inode;
		ihold(up->inode);
		up->offset = spec->offset;
		up->ref_offset = spec->ref_offset;
		up->scope = get_pid(spec->pid);
		static_branch_inc(&utprobe_mmap_key);
		list_add_tail(&up->file_node, &utp_files);
		ret = utp_file_maps(up, &maps);
	}
	list_sort(NULL, &maps, utp_map_cmp);
	while (!ret && !list_empty(&maps))
		ret = utp_place_proc(&maps);
	if (ret)
		for (i = 0; i < n; i++)
			utp_unregister_locked(specs[i].up);
	last = utp_removals;
	mutex_unlock(&utp_mutex);
	if (!ret)
		return 0;
	/* threads may have hit the probes whose int3s went in */
	utp_unregister_wait();
	utp_after_removals(last);
	for (i = 0; i < n; i++)
		utp_probe_release(specs[i].up);
free:
	for (i = 0; i < checked; i++) {
		kfree(specs[i].up->insn);
		specs[i].up->insn = NULL;
		if (init)
			utp_probe_free(specs[i].up);
	}
	list_for_each_entry_safe(m, next, &maps, node)
		utp_map_free(m);
	return ret;
}

static void utp_spec_put(struct utp_spec *spec)
{
	if (spec->inode)
		iput(spec->inode);
	put_pid(spec->pid);
}

/* @spec for @uspec; a reference to its inode and its pid taken. */
static int utp_spec_get(struct utp_spec *spec,
			const struct utprobe_spec *uspec)
{
	*spec = (struct utp_spec){
		.up = uspec->up,
		.offset = uspec->offset,
		.vaddr = uspec->vaddr,
		.ref_offset = uspec->ref_offset,
	};
	if (!uspec->inode && uspec->pid <= 0)
		return -ESRCH;
	if (uspec->pid) {
		spec->pid = find_get_pid(uspec->pid);
		if (!spec->pid)
			return -ESRCH;
	}
	if (uspec->inode) {
		ihold(uspec->inode);
		spec->inode = uspec->inode;
	}
	return 0;
}

/* From a probe handler: each registration of @specs queued. */
static int utp_register_deferred(struct utp_spec *specs, unsigned int n)
{
	struct utp_deferred **d;
	unsigned int i;
	int ret = 0;

	d = kcalloc(n, sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		d[i] = kzalloc(sizeof(*d[i]), GFP_KERNEL);
		ret = d[i] ? utp_probe_init(specs[i].up) : -ENOMEM;
	}
	if (ret) {
		while (i--) {
			if (d[i])
				utp_probe_free(specs[i].up);
			kfree(d[i]);
		}
		kfree(d);
		return ret;
	}
	for (i = 0; i < n; i++) {
		specs[i].up->pid = specs[i].inode ? 0 : pid_nr(specs[i].pid);
		specs[i].up->vaddr = specs[i].vaddr;
		d[i]->spec = specs[i];
		/* the work's now */
		specs[i].inode = NULL;
		specs[i].pid = NULL;
		utp_defer(d[i]);
	}
	kfree(d);
	return 0;
}

/**
 * utprobe_register_batch - register many probes at once
 * @specs:	the probes and where each goes
 * @n:		how many
 *
 * Registers each probe of @specs as utprobe_register_pid() or
 * utprobe_register_file_scoped() would, all or none: on error, none of
 * them is left registered.  The breakpoints go into each process in one
 * pass, under its running threads (which are stopped only to take out
 * the point of text that was mapped over, or to find out whose an
 * int3 found in the text is), followed by one synchronisation of the
 * process's threads with its new text: when this returns, every thread
 * that executes a probed instruction hits its probe.  May sleep.  From a
 * probe handler, each registration is queued and done shortly after;
 * this then answers 0 or an error found at once, and a later failure
 * leaves that probe without effect.
 *
 * A probe on a file may have a semaphore (&utprobe_spec.ref_offset): it
 * is raised in each process the probe goes into, once the process maps
 * the file's data (a library's data is mapped after its text), and a
 * forked child keeps it raised for its own probes; it is lowered again
 * in each process the probe leaves.
 *
 * Return: 0, or the error of the first probe that failed, as
 * utprobe_register_pid() and utprobe_register_file_scoped() give them;
 * -%EINVAL for a semaphore on a probe on one process, or at an odd
 * offset.
 */
int utprobe_register_batch(struct utprobe_spec *specs, unsigned int n)
{
	struct utp_spec *s;
	unsigned int i;
	int ret = 0;

	if (!n)
		return 0;
	s = kvcalloc(n, sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++)
		ret = utp_spec_get(&s[i], &specs[i]);
	if (!ret && utp_in_handler()) {
		ret = utp_register_deferred(s, n);
	} else if (!ret) {
		struct utp_thread *ut = utp_kernel_op_begin();

		ret = utp_register(s, n, true);
		utp_kernel_op_end(ut);
	}
	for (i = 0; i < n; i++)
		utp_spec_put(&s[i]);
	kvfree(s);
	return ret;
}
EXPORT_SYMBOL_GPL(utprobe_register_batch);

/**
 * utprobe_register_file_scoped - probe an instruction of an executable file
 * @up:		the probe; its handler, name and data set by the caller
 * @inode:	the file, a 64-bit ELF executable or shared library
 * @offset:	the instruction's offset in the file
 * @scope:	a process (caller's pid namespace) whose tree alone gets
 *		the probe, or 0 for every process
 *
 * Every process (of the tree) that maps the file executable gets the
 * probe: those that do now (the breakpoint goes in under their running
 * threads, as utprobe_register_batch() says), those that map it later
 * (before they can run the new text), and the children they fork.  May
 * sleep.  From a probe handler, the registration is queued and done
 * shortly after; this then answers 0, and a later failure leaves the
 * probe without effect.
 *
 * Return: 0; -%EINVAL @inode is not a regular file; -%ENXIO @offset is
 * beyond its end; -%ENOEXEC it is not a 64-bit ELF file; -%EFAULT
 * @offset is not in an executable segment; -%EILSEQ no valid instruction
 * there; -%EOPNOTSUPP the instruction cannot be probed; -%EBUSY a process
 * has another breakpoint there; -%ESRCH no process @scope; -%EINTR;
 * -%ENOMEM (or no room for an out-of-line slot in a process).
 * On error, no process has the probe.
 */
int utprobe_register_file_scoped(struct utprobe *up, struct inode *inode,
				 loff_t offset, pid_t scope)
{
	struct utprobe_spec spec = {
		.up = up, .inode = inode, .offset = offset, .pid = scope,
	};

	return utprobe_register_batch(&spec, 1);
}
EXPORT_SYMBOL_GPL(utprobe_register_file_scoped);

/**
 * utprobe_register_file - probe an instruction of an executable file
 * @up:		the probe; its handler, name and data set by the caller
 * @inode:	the file, a 64-bit ELF executable or shared library
 * @offset:	the instruction's offset in the file
 *
 * utprobe_register_file_scoped() for every process.
 *
 * Return: as utprobe_register_file_scoped().
 */
int utprobe_register_file(struct utprobe *up, struct inode *inode,
			  loff_t offset)
{
	return utprobe_register_file_scoped(up, inode, offset, 0);
}
EXPORT_SYMBOL_GPL(utprobe_register_file);

static int __init utp_init(void)
{
	utp_wq = alloc_ordered_workqueue("utprobes", 0);
	if (!utp_wq)
		return -ENOMEM;
	return register_die_notifier(&utp_trap_nb);
}
subsys_initcall(utp_init);
