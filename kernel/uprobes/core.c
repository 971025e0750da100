// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes: processes and their threads.  The state of a probed process
 * (struct utp_proc) and of each of its threads (struct utp_thread, the
 * data of the thread's utrace engine), and the lifetimes of points and
 * consumers.  Quiescing them for a change of text is in quiesce.c.
 *
 * The design as a whole:
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
 * (UTPROBE_TRAP_SAFE, or utprobe_set_trap_safe() for now), and the
 * return site a call followed from there needs is there already, the
 * hit is done in the trap, return sites' too; otherwise it is queued as
 * a task_work that runs it on the way back to user mode.
 * Anything else (a point to single-step, a process being quiesced) is
 * left to the SIGTRAP and report_signal().
 *
 * A thread's list of calls followed to their return (utp_thread.ret.calls) is
 * changed by the thread itself without locks, and by others only under
 * proc->lock once it has left the process (exit, exec).
 */
#include "internal.h"

/* the engine's trace points, for hit.c and ret.c above */
#define CREATE_TRACE_POINTS
#include <trace/events/utprobes.h>

/* The state the files share; see internal.h for what each holds. */
DEFINE_MUTEX(utp_mutex);
DEFINE_SRCU(utp_srcu);
LIST_HEAD(utp_procs);
DEFINE_HASHTABLE(utp_mms, 6);
DEFINE_XARRAY(utp_tids);
struct rb_root utp_files = RB_ROOT;
/* Does @up come before the place @offset of @inode in utp_files? */
static bool utp_file_before(const struct utprobe *up,
			    const struct inode *inode, loff_t offset)
{
	if (up->inode != inode)
		return (unsigned long)up->inode < (unsigned long)inode;
	return up->offset < offset;
}

static bool utp_file_less(struct rb_node *a, const struct rb_node *b)
{
	const struct utprobe *y = rb_entry(b, struct utprobe, file_node);

	return utp_file_before(rb_entry(a, struct utprobe, file_node),
			       y->inode, y->offset);
}

/* @up, a probe on a file, goes into utp_files.  utp_mutex held. */
void utp_files_add(struct utprobe *up)
{
	lockdep_assert_held(&utp_mutex);
	rb_add(&up->file_node, &utp_files, utp_file_less);
}

/* @up leaves utp_files.  utp_mutex held. */
void utp_files_del(struct utprobe *up)
{
	lockdep_assert_held(&utp_mutex);
	rb_erase(&up->file_node, &utp_files);
	RB_CLEAR_NODE(&up->file_node);
}

/*
 * The first probe of utp_files at or after @offset of @inode (maybe on
 * another inode), or NULL.  utp_mutex held.
 */
struct utprobe *utp_files_first(const struct inode *inode, loff_t offset)
{
	struct rb_node *n = utp_files.rb_node;
	struct utprobe *first = NULL;

	lockdep_assert_held(&utp_mutex);
	while (n) {
		struct utprobe *up = rb_entry(n, struct utprobe, file_node);

		if (utp_file_before(up, inode, offset)) {
			n = n->rb_right;
		} else {
			first = up;
			n = n->rb_left;
		}
	}
	return first;
}

/*
 * Is @up (maybe NULL), from utp_files_first() or utp_files_next(), on
 * @inode below offset @to?  Together they walk the probes of a range:
 *
 *	for (up = utp_files_first(inode, from); utp_file_at(up, inode, to);
 *	     up = utp_files_next(up))
 */
bool utp_file_at(const struct utprobe *up, const struct inode *inode,
		 loff_t to)
{
	return up && up->inode == inode && up->offset < to;
}

/* The probe after @up in utp_files, or NULL.  utp_mutex held. */
struct utprobe *utp_files_next(struct utprobe *up)
{
	struct rb_node *n = rb_next(&up->file_node);

	return n ? rb_entry(n, struct utprobe, file_node) : NULL;
}

/*
 * On while there are probes on files or probed processes: mmap() then
 * looks for them, and debuggers' accesses to text for points.
 */
DEFINE_STATIC_KEY_FALSE(utprobe_mmap_key);

u32 utp_report_exec(enum utrace_resume_action action,
		    struct utrace_engine *engine, struct task_struct *task,
		    const struct linux_binfmt *fmt,
		    const struct linux_binprm *bprm, struct pt_regs *regs)
{
	struct utp_thread *ut = engine->data;

	/*
	 * The new image's engine already, attached by its mmap work at a
	 * tracer's exec event stop (see utp_mmap_work()): it stays.
	 */
	if (ut->proc->mm == task->mm)
		return UTRACE_RESUME;
	/* the old image and its points are gone */
	if (utp_thread_leave(ut))
		utp_thread_free(ut);
	return UTRACE_DETACH;
}

u32 utp_report_death(struct utrace_engine *engine, struct task_struct *task,
		     bool group_dead, int signal)
{
	struct utp_thread *ut = engine->data;

	if (utp_thread_leave(ut))
		utp_thread_free(ut);
	return UTRACE_DETACH;
}

#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "utprobes."

/* Written by the parameter's setter alone; read with READ_ONCE(). */
unsigned int utp_points_max = UTP_POINTS_MAX;

static int utp_points_max_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, UTP_POINTS_LIMIT);
}

static const struct kernel_param_ops utp_points_max_ops = {
	.set = utp_points_max_set,
	.get = param_get_uint,
};
module_param_cb(points_max, &utp_points_max_ops, &utp_points_max, 0644);
MODULE_PARM_DESC(points_max, "points per process at most (return sites included)");

/* What this file calls of the layers above it: set by utp_core_init() */
static const struct utp_above *utp_above __ro_after_init;

/* Before any probe exists: the engine and the layers above it */
void __init utp_core_init(const struct utp_above *above)
{
	utp_above = above;
}

void utp_proc_release(struct kref *kref)
{
	struct utp_proc *proc = container_of(kref, struct utp_proc, kref);

	mmdrop(proc->mm);
	xa_destroy(&proc->points);
	xa_destroy(&proc->slots);
	kfree_rcu(proc, rcu);
}

/*
 * The answers utrace gives here that are not 0 (-ESRCH, -EALREADY) all
 * mean the thread is dying: its death report removes it.
 */
void utp_control(struct task_struct *task, struct utrace_engine *engine,
		 enum utrace_resume_action action)
{
	int ret = utrace_control(task, engine, action);

	if (ret && ret != -EINPROGRESS)
		pr_debug("utprobes: control %d of %d: %d\n", action,
			 task_pid_nr(task), ret);
}

/* Events of current's own engine, changed from one of its callbacks. */
void utp_set_events(struct utp_thread *ut, unsigned long events)
{
	int ret = utrace_set_events(current, ut->engine, events);

	if (ret)
		pr_debug("utprobes: events of %d: %d\n",
			 task_pid_nr(current), ret);
}

/*
 * Threads.
 */

/*
 * Mark @proc dead if it has no thread left, and queue its teardown, once:
 * a dead process takes no new thread.
 */
void utp_proc_free_if_empty(struct utp_proc *proc)
{
	bool free;

	spin_lock(&proc->lock);
	free = !proc->dead && list_empty(&proc->threads) && !proc->nreleased;
	if (free)
		proc->dead = true;
	spin_unlock(&proc->lock);
	if (free)
		schedule_work(&proc->free_work);
}

/* Take @ut out of its process's threads.  proc->lock held. */
void utp_thread_unlink(struct utp_thread *ut)
{
	list_del_init(&ut->node);
	utp_above->thread_unlink(ut);
	wake_up_all(&ut->proc->wq);
}

/*
 * Remove @ut from its process; the last thread out frees the process.
 * false if utp_proc_idle() released it meanwhile: its own work frees it
 * then (utp_thread_gone()), not the caller.
 */
bool utp_thread_leave(struct utp_thread *ut)
{
	struct utp_proc *proc = ut->proc;

	/* by the tid it had: an exec by another thread swaps pids */
	xa_cmpxchg(&utp_tids, ut->tid, ut, NULL, 0);
	spin_lock(&proc->lock);
	if (ut->quiesce.released) {
		spin_unlock(&proc->lock);
		return false;
	}
	utp_thread_unlink(ut);
	spin_unlock(&proc->lock);
	utp_proc_free_if_empty(proc);
	return true;
}

void utp_thread_free(struct utp_thread *ut)
{
	struct utp_delayed *d, *next;
	struct utp_ret *ri;

	list_for_each_entry_safe(d, next, &ut->step.delayed, node)
		kfree(d);
	while ((ri = ut->ret.cache)) {
		ut->ret.cache = ri->next;
		kfree(ri);
	}
	/* left by a fork that failed after its copy */
	if (ut->fork_pending)
		utp_above->fork_free(ut->fork_pending);
	put_task_struct(ut->task);
	utrace_engine_put(ut->engine);
	/* utp_own_thread() may be reading it, found by another's pid */
	kfree_rcu(ut, rcu);
}

/*
 * Free @ut, released by utp_proc_idle().  In its own thread: what finds
 * it by utp_tids (the trap, a handler stub's system call, the mmap and
 * fork work) runs there too, never around a task_work; or, past the
 * thread's last task_work, by whoever released it.
 */
void utp_thread_drop(struct utp_thread *ut)
{
	struct utp_proc *proc = ut->proc;

	xa_cmpxchg(&utp_tids, ut->tid, ut, NULL, 0);
	utp_above->thread_unlink(ut);
	spin_lock(&proc->lock);
	proc->nreleased--;
	spin_unlock(&proc->lock);
	utp_proc_free_if_empty(proc);
	utp_thread_free(ut);
}

/* Attach our engine to @task, a thread of @proc, and add it there. */
int utp_thread_attach(struct utp_proc *proc, struct task_struct *task)
{
	struct utrace_engine *engine;
	struct utp_thread *ut;
	int ret;

	ut = kzalloc(sizeof(*ut), GFP_KERNEL);
	if (!ut)
		return -ENOMEM;
	INIT_LIST_HEAD(&ut->node);
	INIT_LIST_HEAD(&ut->step.delayed);
	ut->proc = proc;
	ut->task = get_task_struct(task);
	ut->tid = task_pid_nr(task);
	engine = utrace_attach_task(task, UTRACE_ATTACH_CREATE |
				    UTRACE_ATTACH_EXCLUSIVE |
				    UTRACE_ATTACH_MATCH_OPS,
				    utp_above->engine, ut);
	if (IS_ERR(engine)) {
		put_task_struct(task);
		kfree(ut);
		/* a thread that is exiting needs no engine */
		return PTR_ERR(engine) == -EPERM ? 0 : PTR_ERR(engine);
	}
	ut->engine = engine;
	spin_lock(&proc->lock);
	/*
	 * Dead, or letting go of its threads (no point left): a clone
	 * report's look at proc->detaching, without the lock, may be
	 * stale, and a thread added now would keep its engine.
	 */
	if (proc->dead || proc->detaching) {
		ret = proc->dead ? -ESRCH : 0;
		spin_unlock(&proc->lock);
		utp_control(task, engine, UTRACE_DETACH);
		utp_thread_free(ut);
		return ret;
	}
	list_add_tail(&ut->node, &proc->threads);
	spin_unlock(&proc->lock);
	/*
	 * Where the thread's traps, stub system calls and works find it.
	 * Before it has events it cannot be let go of, so no engine of a
	 * revival (utp_proc_cover()) can have stored its own here yet.
	 */
	xa_store(&utp_tids, ut->tid, ut, GFP_KERNEL);
	ret = utrace_set_events(task, engine, UTP_EVENTS);
	if (ret) {
		/*
		 * Dying already, with no death report for us: take it out.
		 * Or let go of meanwhile by utp_proc_idle(), which a clone
		 * report (not under utp_mutex) runs alongside: a new thread
		 * has never run, so it looks asleep.  Its quiesce.gone_work,
		 * queued then, frees it when the thread first runs, not we.
		 */
		utp_control(task, engine, UTRACE_DETACH);
		if (utp_thread_leave(ut))
			utp_thread_free(ut);
	}
	return 0;
}

/*
 * Processes.
 */

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

void utp_consumer_free(struct utp_consumer *c)
{
	utp_above->consumer_free(c);
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
 * @pt's jump went out of the text, or never came in, or the point goes:
 * a stale one may still count a jump whose text was unmapped under it.
 */
void utp_jump_gone(struct utp_proc *proc, struct utp_point *pt)
{
	/* once: two debuggers' writes may race here, under mmap_lock read */
	if (xchg(&pt->jumped, false))
		atomic_dec(&proc->njumped);
}

/*
 * Take @pt out of @proc's points; free it.  A thread in a hit of it
 * meanwhile gets no slot for it any more: its int3 has gone, and the
 * thread runs the instruction in place.  A slot it had stays, as every
 * slot does, and so does its address in @proc's slots: a thread may
 * still be running through it, and a fault there is the instruction's.
 */
void utp_point_drop(struct utp_proc *proc, struct utp_point *pt)
{
	xa_erase(&proc->points, pt->vaddr);
	atomic_dec(&proc->npoints);
	utp_jump_gone(proc, pt);
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
	 * Up to utp_points_max of them, whose probes' lists change under
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
	mutex_lock(&utp_mutex);
	utp_above->proc_free(proc);
	mutex_unlock(&utp_mutex);
	kref_put(&proc->kref, utp_proc_release);
}

struct utp_proc *utp_proc_find(struct mm_struct *mm)
{
	struct utp_proc *proc;

	lockdep_assert_held(&utp_mutex);
	list_for_each_entry(proc, &utp_procs, node)
		if (proc->mm == mm && !READ_ONCE(proc->dead))
			return proc;
	return NULL;
}

/* utp_proc_find(), under RCU instead of utp_mutex: by utp_mms */
struct utp_proc *utp_proc_find_rcu(struct mm_struct *mm)
{
	struct utp_proc *proc;

	hash_for_each_possible_rcu(utp_mms, proc, mm_node, (unsigned long)mm)
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
					       utp_above->engine, NULL);
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
struct utp_proc *utp_proc_get(struct task_struct *task)
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
	utp_above->proc_init(proc);

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
 * current's thread state, looked up by its pid in utp_tids, or NULL: the
 * fast paths' lookup.  For a moment the entry may be another task's,
 * which that task may be freeing: a thread that is not its group's
 * leader takes the leader's pid in an exec, before the leader's death
 * report frees the leader's state.  So the entry is checked under RCU,
 * and thread states are freed after a grace period.  What is returned
 * is current's own, which goes only in current, or once released while
 * current sleeps.
 */
struct utp_thread *utp_own_thread(void)
{
	struct utp_thread *ut;

	rcu_read_lock();
	ut = xa_load(&utp_tids, task_pid_nr(current));
	if (ut && ut->task != current)
		ut = NULL;
	rcu_read_unlock();
	return ut;
}

/* current's thread state, if its process is probed. */
struct utp_thread *utp_current_thread(void)
{
	struct utrace_engine *engine;
	struct utp_thread *ut;

	engine = utrace_attach_task(current, UTRACE_ATTACH_MATCH_OPS,
				    utp_above->engine, NULL);
	if (IS_ERR(engine))
		return NULL;
	ut = engine->data;
	utrace_engine_put(engine);
	return ut;
}

/* While current waits for utp_mutex, a quiescer need not wait for it. */
void utp_set_in_work(struct utp_thread *ut, bool in_work)
{
	if (!ut)
		return;
	spin_lock(&ut->proc->lock);
	ut->quiesce.in_work = in_work;
	wake_up_all(&ut->proc->wq);
	spin_unlock(&ut->proc->lock);
}

/* Is @task in the process tree @up is scoped to (if it is)? */
bool utp_in_scope(struct utprobe *up, struct task_struct *task)
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

/* A live thread whose mm is @mm, referenced, or NULL. */
struct task_struct *utp_mm_task(struct mm_struct *mm)
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
