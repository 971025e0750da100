// SPDX-License-Identifier: GPL-2.0
/*
 * utrace: infrastructure for tracing and controlling user threads.
 *
 * Per-thread state (struct utrace) is allocated on the first attach and
 * freed with the task_struct.  Engines live on two lists: @attaching,
 * where utrace_attach_task() puts them, and @attached, which the thread
 * walks when it reports an event.  The thread itself moves engines from
 * @attaching to @attached at the start of each report, which is why an
 * engine attached during a report first sees the next event.
 *
 * Only the thread itself removes engines from @attached (utrace_reset()),
 * or whoever reaps it, once it can run no more.  An engine detached by
 * another thread is only marked: its ops become &utrace_detached_ops and
 * its event mask zero, and the thread drops it the next time it resets.
 * So the thread can walk @attached and call out without holding a lock.
 *
 * A thread is asked to stop, report or be interrupted through a
 * task_work (TWA_RESUME, or TWA_SIGNAL for UTRACE_INTERRUPT): it acts on
 * the request on its way back to user mode.  A stopped thread sleeps in
 * utrace_stop() in TASK_KILLABLE, which is not a ptrace stop (no
 * JOBCTL_TRACED, no exit_code for wait() to see) and which SIGKILL ends;
 * the sleep is freezable, so a held thread does not fail a suspend.
 */
#include <linux/binfmts.h>
#include <linux/coredump.h>
#include <linux/export.h>
#include <linux/ptrace.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/utrace.h>

/**
 * struct utrace - per-thread utrace state
 * @lock:	protects every member below and the stop_wanted, ops and
 *		flags of the thread's engines; never held across a callback
 * @attached:	engines the thread reports to, in attach order
 * @attaching:	engines attached since the thread's last report
 * @reporting:	engine whose callback the thread is running now; written
 *		by the thread, cleared under @lock once the callback's answer
 *		is applied, read locklessly by utrace_barrier()
 * @work:	task_work that makes the thread act on @resume
 * @resume:	strongest action requested by utrace_control() and not yet
 *		acted on (UTRACE_RESUME when none)
 * @work_queued: @work is queued
 * @interrupt:	%UTRACE_INTERRUPT was requested with @work: report it to
 *		signal engines with %UTRACE_SIGNAL_REPORT
 * @stopped:	the thread is in utrace_stop()
 * @stepping:	utrace enabled single- or block-step on the thread
 * @blockstep:	... and it was block-step
 * @step_shared: single-step was already on (a ptracer's) when utrace
 *		turned it on, so utrace leaves it on when its step ends
 * @vfork_stop:	stop before waiting for a vfork child
 * @death:	report_death is running
 * @death_done:	report_death has been made
 * @reap:	release_task() has run: no further calls
 */
struct utrace {
	spinlock_t lock;	/* see above */
	struct list_head attached;
	struct list_head attaching;
	struct utrace_engine *reporting;
	struct callback_head work;
	enum utrace_resume_action resume;
	unsigned int work_queued:1;
	unsigned int interrupt:1;
	unsigned int stopped:1;
	unsigned int stepping:1;
	unsigned int blockstep:1;
	unsigned int step_shared:1;
	unsigned int vfork_stop:1;
	unsigned int death:1;
	unsigned int death_done:1;
	unsigned int reap:1;
};

static struct kmem_cache *utrace_cachep;
static struct kmem_cache *utrace_engine_cachep;

/* Ops of an engine detached while the thread may still be calling it. */
static const struct utrace_engine_ops utrace_detached_ops;

static int __init utrace_init(void)
{
	utrace_cachep = KMEM_CACHE(utrace, SLAB_PANIC);
	utrace_engine_cachep = KMEM_CACHE(utrace_engine, SLAB_PANIC | SLAB_NO_MERGE);
	return 0;
}
core_initcall(utrace_init);

static inline struct utrace *task_utrace_struct(struct task_struct *task)
{
	/* pairs with smp_store_release() in utrace_task_alloc() */
	return smp_load_acquire(&task->utrace);
}

static void utrace_resume_work(struct callback_head *head);

/* The thread's utrace state, allocated if it has none yet. */
static struct utrace *utrace_task_alloc(struct task_struct *task)
{
	struct utrace *utrace = kmem_cache_zalloc(utrace_cachep, GFP_KERNEL);

	if (unlikely(!utrace))
		return NULL;
	spin_lock_init(&utrace->lock);
	INIT_LIST_HEAD(&utrace->attached);
	INIT_LIST_HEAD(&utrace->attaching);
	init_task_work(&utrace->work, utrace_resume_work);
	utrace->resume = UTRACE_RESUME;

	task_lock(task);
	if (likely(!task->utrace)) {
		/* publish an initialised struct; pairs with task_utrace_struct() */
		smp_store_release(&task->utrace, utrace);
		utrace = NULL;
	}
	task_unlock(task);
	if (utrace)		/* someone else won the race */
		kmem_cache_free(utrace_cachep, utrace);
	return task->utrace;
}

/**
 * utrace_engine_release - free an engine with its last reference
 * @kref:	the engine's reference count
 *
 * Called by utrace_engine_put(); not for direct use.
 */
void utrace_engine_release(struct kref *kref)
{
	struct utrace_engine *engine = container_of(kref, struct utrace_engine,
						    kref);

	kmem_cache_free(utrace_engine_cachep, engine);
}
EXPORT_SYMBOL_GPL(utrace_engine_release);

/* Called from free_task(): engines still listed were never reaped. */
void utrace_free_task(struct task_struct *task)
{
	struct utrace *utrace = task->utrace;
	struct utrace_engine *engine, *next;

	if (likely(!utrace))
		return;
	list_splice_init(&utrace->attaching, &utrace->attached);
	list_for_each_entry_safe(engine, next, &utrace->attached, entry) {
		list_del_init(&engine->entry);
		WRITE_ONCE(engine->ops, NULL);
		utrace_engine_put(engine);
	}
	kmem_cache_free(utrace_cachep, utrace);
}

static inline bool engine_detached(struct utrace_engine *engine)
{
	const struct utrace_engine_ops *ops = READ_ONCE(engine->ops);

	return !ops || ops == &utrace_detached_ops;
}

static bool engine_matches(struct utrace_engine *engine, int flags,
			   const struct utrace_engine_ops *ops, void *data)
{
	if (engine_detached(engine))
		return false;
	if ((flags & UTRACE_ATTACH_MATCH_OPS) && engine->ops != ops)
		return false;
	if ((flags & UTRACE_ATTACH_MATCH_DATA) && engine->data != data)
		return false;
	return true;
}

static struct utrace_engine *find_matching_engine(struct utrace *utrace,
						  int flags,
						  const struct utrace_engine_ops *ops,
						  void *data)
{
	struct utrace_engine *engine;

	list_for_each_entry(engine, &utrace->attached, entry)
		if (engine_matches(engine, flags, ops, data))
			return engine;
	list_for_each_entry(engine, &utrace->attaching, entry)
		if (engine_matches(engine, flags, ops, data))
			return engine;
	return NULL;
}

/**
 * utrace_attach_task - attach an engine to a thread, or look one up
 * @task:	the thread
 * @flags:	UTRACE_ATTACH_* flags
 * @ops:	the engine's callbacks (matched with UTRACE_ATTACH_MATCH_OPS)
 * @data:	the engine's private pointer (matched with ..._MATCH_DATA)
 *
 * Without %UTRACE_ATTACH_CREATE, looks up an engine matching @flags and
 * returns it.  With it, attaches a new engine with an empty event mask,
 * unless %UTRACE_ATTACH_EXCLUSIVE is set too and a match exists.  A new
 * engine first sees the event after the one @task may be reporting now.
 *
 * Return: the engine with a reference for the caller, or ERR_PTR():
 * -%ENOENT nothing matched, -%EEXIST an exclusive attach found a match,
 * -%EPERM @task is a kernel thread, dead or dying, -%ENOMEM.  A ptraced
 * thread takes engines as any other (see Documentation/trace/utrace.rst,
 * "utrace and ptrace").
 */
struct utrace_engine *utrace_attach_task(struct task_struct *task, int flags,
					 const struct utrace_engine_ops *ops,
					 void *data)
{
	struct utrace_engine *engine, *found;
	struct utrace *utrace;

	if (unlikely(task->flags & PF_KTHREAD))
		return ERR_PTR(-EPERM);

	utrace = task_utrace_struct(task);
	if (!(flags & UTRACE_ATTACH_CREATE)) {
		if (!utrace)
			return ERR_PTR(-ENOENT);
		spin_lock(&utrace->lock);
		engine = find_matching_engine(utrace, flags, ops, data);
		if (engine)
			utrace_engine_get(engine);
		spin_unlock(&utrace->lock);
		return engine ?: ERR_PTR(-ENOENT);
	}

	if (WARN_ON_ONCE(!ops || ops == &utrace_detached_ops))
		return ERR_PTR(-EINVAL);
	if (!utrace) {
		utrace = utrace_task_alloc(task);
		if (!utrace)
			return ERR_PTR(-ENOMEM);
	}
	engine = kmem_cache_zalloc(utrace_engine_cachep, GFP_KERNEL);
	if (unlikely(!engine))
		return ERR_PTR(-ENOMEM);
	kref_init(&engine->kref);	/* the caller's reference */
	kref_get(&engine->kref);	/* the list's reference */
	engine->ops = ops;
	engine->data = data;

	/* tasklist_lock orders the exit_state test against exit_notify() */
	read_lock(&tasklist_lock);
	spin_lock(&utrace->lock);
	found = NULL;
	if (unlikely(task->exit_state || utrace->death || utrace->reap)) {
		found = ERR_PTR(-EPERM);
	} else if (flags & UTRACE_ATTACH_EXCLUSIVE) {
		if (find_matching_engine(utrace, flags, ops, data))
			found = ERR_PTR(-EEXIST);
	}
	if (!found)
		list_add_tail(&engine->entry, &utrace->attaching);
	spin_unlock(&utrace->lock);
	read_unlock(&tasklist_lock);

	if (found) {
		kmem_cache_free(utrace_engine_cachep, engine);
		return found;
	}
	return engine;
}
EXPORT_SYMBOL_GPL(utrace_attach_task);

/**
 * utrace_attach_pid - utrace_attach_task() on the thread of a struct pid
 * @pid:	the thread's pid
 * @flags:	UTRACE_ATTACH_* flags
 * @ops:	the engine's callbacks
 * @data:	the engine's private pointer
 *
 * Return: as utrace_attach_task(); -%ESRCH if @pid has no thread.
 */
struct utrace_engine *utrace_attach_pid(struct pid *pid, int flags,
					const struct utrace_engine_ops *ops,
					void *data)
{
	struct utrace_engine *engine;
	struct task_struct *task = get_pid_task(pid, PIDTYPE_PID);

	if (!task)
		return ERR_PTR(-ESRCH);
	engine = utrace_attach_task(task, flags, ops, data);
	put_task_struct(task);
	return engine;
}
EXPORT_SYMBOL_GPL(utrace_attach_pid);

/*
 * Lock the thread's utrace state for a call on @engine.  Fails with
 * -ESRCH when the engine is detached or the thread reaped.
 */
static struct utrace *get_utrace_lock(struct task_struct *task,
				      struct utrace_engine *engine)
	__acquires(utrace->lock)
{
	struct utrace *utrace = task_utrace_struct(task);

	if (unlikely(!utrace))
		return ERR_PTR(-ESRCH);
	spin_lock(&utrace->lock);
	if (unlikely(engine_detached(engine) || utrace->reap)) {
		spin_unlock(&utrace->lock);
		return ERR_PTR(-ESRCH);
	}
	return utrace;
}

static bool utrace_stop_wanted(struct utrace *utrace)
{
	struct utrace_engine *engine;

	lockdep_assert_held(&utrace->lock);
	list_for_each_entry(engine, &utrace->attached, entry)
		if (engine->stop_wanted)
			return true;
	list_for_each_entry(engine, &utrace->attaching, entry)
		if (engine->stop_wanted)
			return true;
	return false;
}

/* Wake a thread in utrace_stop() if no engine wants it held any more. */
static void utrace_wakeup(struct task_struct *task, struct utrace *utrace)
{
	lockdep_assert_held(&utrace->lock);
	if (utrace->stopped && !utrace_stop_wanted(utrace))
		wake_up_state(task, TASK_KILLABLE);
}

/* Ask the thread to act on @action on its way back to user mode. */
static void utrace_request(struct task_struct *task, struct utrace *utrace,
			   enum utrace_resume_action action)
{
	lockdep_assert_held(&utrace->lock);
	if (action < utrace->resume)
		utrace->resume = action;
	if (action == UTRACE_INTERRUPT)
		utrace->interrupt = 1;
	if (!utrace->work_queued) {
		if (task_work_add(task, &utrace->work,
				  action == UTRACE_INTERRUPT ? TWA_SIGNAL :
							       TWA_RESUME))
			return;	/* exiting: no return to user mode */
		utrace->work_queued = 1;
	} else if (action == UTRACE_INTERRUPT) {
		set_notify_signal(task);
	}
}

/*
 * Recompute the thread's event mask from its engines' (a detached one's
 * is zero), so that its hooks stop calling in for events no engine wants
 * any more.  Any thread may lower the mask: the hooks read it without
 * the lock, and a report already under way skips detached engines.
 * utrace->lock held.
 */
static void utrace_update_flags(struct task_struct *task,
				struct utrace *utrace)
{
	struct utrace_engine *engine;
	unsigned long flags = 0;

	lockdep_assert_held(&utrace->lock);
	list_for_each_entry(engine, &utrace->attached, entry)
		flags |= engine->flags;
	list_for_each_entry(engine, &utrace->attaching, entry)
		flags |= engine->flags;
	WRITE_ONCE(task->utrace_flags, flags);
	if (!(flags & UTRACE_EVENT_SYSCALL))
		clear_task_syscall_work(task, SYSCALL_UTRACE);
}

/* Drop detached engines; recompute the thread's event mask.  */
static void utrace_reset(struct task_struct *task, struct utrace *utrace)
{
	struct utrace_engine *engine, *next;
	LIST_HEAD(detached);

	spin_lock(&utrace->lock);
	list_for_each_entry_safe(engine, next, &utrace->attached, entry)
		if (engine->ops == &utrace_detached_ops)
			list_move(&engine->entry, &detached);
	/* an engine detached before the thread's first report is here */
	list_for_each_entry_safe(engine, next, &utrace->attaching, entry)
		if (engine->ops == &utrace_detached_ops)
			list_move(&engine->entry, &detached);
	utrace_update_flags(task, utrace);
	utrace_wakeup(task, utrace);
	spin_unlock(&utrace->lock);

	list_for_each_entry_safe(engine, next, &detached, entry) {
		list_del_init(&engine->entry);
		WRITE_ONCE(engine->ops, NULL);
		utrace_engine_put(engine);
	}
}

/* Mark @engine detached; the thread drops it at its next reset. */
static void mark_engine_detached(struct utrace_engine *engine)
{
	engine->stop_wanted = 0;
	WRITE_ONCE(engine->flags, 0);
	/* pairs with smp_mb() in start_callback() */
	smp_store_mb(engine->ops, &utrace_detached_ops);
}

/**
 * utrace_set_events - choose the events an engine is called for
 * @task:	the thread
 * @engine:	an engine attached to @task
 * @events:	the new mask of UTRACE_EVENT() bits
 *
 * Takes effect for the next event @task reports.
 *
 * Return: 0; -%ESRCH the engine is detached or @task reaped;
 * -%EALREADY @task is already dead, so the DEATH and QUIESCE events
 * newly asked for will not come (the rest of @events is set);
 * -%EINPROGRESS @task is running a callback of this engine for an event
 * just removed from the mask (use utrace_barrier() to wait it out).
 */
int utrace_set_events(struct task_struct *task, struct utrace_engine *engine,
		      unsigned long events)
{
	bool death = task != current && (events & _UTRACE_DEATH_EVENTS);
	struct utrace *utrace;
	unsigned long old;
	int ret = 0;

	/*
	 * exit_notify() sets exit_state under tasklist_lock and then tests
	 * the death events: with the lock held here either it sees the new
	 * events, or we see exit_state and say -EALREADY.
	 */
	if (death)
		read_lock(&tasklist_lock);
	utrace = get_utrace_lock(task, engine);
	if (IS_ERR(utrace)) {
		if (death)
			read_unlock(&tasklist_lock);
		return PTR_ERR(utrace);
	}
	old = engine->flags;
	/*
	 * Past the point of death (a zombie, or the death report started),
	 * newly asked death events will not come: say so, and leave them out
	 * so that a report in progress does not make a liar of us.
	 */
	if ((events & ~old & _UTRACE_DEATH_EVENTS) &&
	    (task->exit_state || utrace->death || utrace->death_done)) {
		events &= ~(~old & _UTRACE_DEATH_EVENTS);
		ret = -EALREADY;
	} else if ((old & ~events) && task != current && !utrace->stopped &&
		   READ_ONCE(utrace->reporting) == engine) {
		ret = -EINPROGRESS;
	}
	WRITE_ONCE(engine->flags, events);
	WRITE_ONCE(task->utrace_flags, task->utrace_flags | events);
	if (events & UTRACE_EVENT_SYSCALL)
		set_task_syscall_work(task, SYSCALL_UTRACE);
	spin_unlock(&utrace->lock);
	if (death)
		read_unlock(&tasklist_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(utrace_set_events);

/**
 * utrace_set_events_pid - utrace_set_events() by struct pid
 * @pid:	the thread's pid
 * @engine:	an engine attached to it
 * @events:	the new event mask
 *
 * Return: as utrace_set_events(); -%ESRCH if @pid has no thread.
 */
int utrace_set_events_pid(struct pid *pid, struct utrace_engine *engine,
			  unsigned long events)
{
	struct task_struct *task = get_pid_task(pid, PIDTYPE_PID);
	int ret;

	if (!task)
		return -ESRCH;
	ret = utrace_set_events(task, engine, events);
	put_task_struct(task);
	return ret;
}
EXPORT_SYMBOL_GPL(utrace_set_events_pid);

/**
 * utrace_control - stop, resume, step, interrupt or detach a thread
 * @task:	the thread
 * @engine:	an engine attached to @task
 * @action:	what to do, see &enum utrace_resume_action
 *
 * %UTRACE_STOP holds @task at its next safe point until this engine lets
 * it go; %UTRACE_RESUME lets it go; %UTRACE_REPORT and %UTRACE_INTERRUPT
 * let it go and make it report %UTRACE_EVENT(QUIESCE) soon, the latter
 * interrupting a blocking system call to do so (and reporting to engines
 * with signal events through report_signal() with %UTRACE_SIGNAL_REPORT); %UTRACE_SINGLESTEP and
 * %UTRACE_BLOCKSTEP let it go for one instruction or one branch;
 * %UTRACE_DETACH detaches the engine.
 *
 * Return: 0; -%EINPROGRESS a stop was requested but @task has not
 * stopped yet; -%EALREADY detached while @task is making its death or
 * reap report, which may still call the engine; -%ESRCH the engine was
 * already detached or @task reaped; -%EINVAL the step asked for is not
 * supported on this machine.
 */
int utrace_control(struct task_struct *task, struct utrace_engine *engine,
		   enum utrace_resume_action action)
{
	struct utrace *utrace;
	int ret = 0;

	if (unlikely(action >= UTRACE_RESUME_MAX))
		return -EINVAL;
	if (action == UTRACE_SINGLESTEP && !arch_has_single_step())
		return -EINVAL;
	if (action == UTRACE_BLOCKSTEP && !arch_has_block_step())
		return -EINVAL;

	utrace = get_utrace_lock(task, engine);
	if (IS_ERR(utrace))
		return PTR_ERR(utrace);

	switch (action) {
	case UTRACE_STOP:
		engine->stop_wanted = 1;
		if (!utrace->stopped && !task->exit_state) {
			utrace_request(task, utrace, UTRACE_STOP);
			ret = -EINPROGRESS;
		}
		break;
	case UTRACE_DETACH:
		mark_engine_detached(engine);
		/* its events stop now, even for a thread asleep for long */
		utrace_update_flags(task, utrace);
		utrace_wakeup(task, utrace);
		if (utrace->death)
			ret = -EALREADY;
		else if (!task->exit_state)
			/* current too: outside a report, nothing else resets */
			utrace_request(task, utrace, UTRACE_RESUME);
		break;
	default:
		engine->stop_wanted = 0;
		if (task->exit_state)
			break;
		if (action != UTRACE_RESUME || utrace->stepping)
			utrace_request(task, utrace, action);
		utrace_wakeup(task, utrace);
		break;
	}
	spin_unlock(&utrace->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(utrace_control);

/**
 * utrace_control_pid - utrace_control() by struct pid
 * @pid:	the thread's pid
 * @engine:	an engine attached to it
 * @action:	what to do
 *
 * Return: as utrace_control(); -%ESRCH if @pid has no thread.
 */
int utrace_control_pid(struct pid *pid, struct utrace_engine *engine,
		       enum utrace_resume_action action)
{
	struct task_struct *task = get_pid_task(pid, PIDTYPE_PID);
	int ret;

	if (!task)
		return -ESRCH;
	ret = utrace_control(task, engine, action);
	put_task_struct(task);
	return ret;
}
EXPORT_SYMBOL_GPL(utrace_control_pid);

/**
 * utrace_barrier - wait out a callback to an engine
 * @task:	the thread
 * @engine:	an engine attached to @task, or detached from it
 *
 * Waits until @task is not running a callback of @engine.  After
 * utrace_control(%UTRACE_DETACH) and then this, the engine's callbacks
 * will not run again, so their module may go.
 *
 * Return: 0; -%ESRCH the engine was fully detached already (no callback
 * can be running); -%ERESTARTSYS a signal interrupted the wait.
 */
int utrace_barrier(struct task_struct *task, struct utrace_engine *engine)
{
	struct utrace *utrace = task_utrace_struct(task);

	if (task == current)
		return 0;
	if (!utrace)
		return -ESRCH;
	for (;;) {
		/* pairs with smp_mb() in start_callback() */
		smp_mb();
		if (!READ_ONCE(engine->ops))
			return -ESRCH;
		/* pairs with smp_store_release() in finish_callback() */
		if (smp_load_acquire(&utrace->reporting) != engine)
			return 0;
		if (signal_pending(current))
			return -ERESTARTSYS;
		schedule_timeout_interruptible(1);
	}
}
EXPORT_SYMBOL_GPL(utrace_barrier);

/**
 * utrace_barrier_pid - utrace_barrier() by struct pid
 * @pid:	the thread's pid
 * @engine:	an engine attached to it, or detached from it
 *
 * Return: as utrace_barrier(); -%ESRCH if @pid has no thread.
 */
int utrace_barrier_pid(struct pid *pid, struct utrace_engine *engine)
{
	struct task_struct *task = get_pid_task(pid, PIDTYPE_PID);
	int ret;

	if (!task)
		return -ESRCH;
	ret = utrace_barrier(task, engine);
	put_task_struct(task);
	return ret;
}
EXPORT_SYMBOL_GPL(utrace_barrier_pid);

/**
 * utrace_prepare_examine - make sure a stopped thread is off its CPU
 * @task:	the thread
 * @engine:	an engine attached to @task
 * @exam:	storage for utrace_finish_examine()
 *
 * Call before examining the user state of a thread held by %UTRACE_STOP
 * (or dead); then utrace_finish_examine() says whether what was read is
 * consistent.  Nothing to do when @task is current.
 *
 * Return: 0; -%EINVAL @task is not stopped; -%EAGAIN it woke meanwhile;
 * -%ESRCH the engine is detached.
 */
int utrace_prepare_examine(struct task_struct *task,
			   struct utrace_engine *engine,
			   struct utrace_examiner *exam)
{
	struct utrace *utrace;

	if (task == current)
		return 0;
	utrace = get_utrace_lock(task, engine);
	if (IS_ERR(utrace))
		return PTR_ERR(utrace);
	if (task->exit_state) {
		exam->state = 0;
	} else if (utrace->stopped) {
		exam->state = READ_ONCE(task->__state);
	} else {
		spin_unlock(&utrace->lock);
		return -EINVAL;
	}
	spin_unlock(&utrace->lock);

	exam->ncsw = 0;
	if (exam->state) {
		exam->ncsw = wait_task_inactive(task, exam->state);
		if (!exam->ncsw)
			return -EAGAIN;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(utrace_prepare_examine);

/**
 * utrace_finish_examine - check a thread stayed stopped while examined
 * @task:	the thread
 * @engine:	an engine attached to @task
 * @exam:	what utrace_prepare_examine() filled in
 *
 * Return: 0 if @task did not run since utrace_prepare_examine(), so what
 * was read of it is consistent; -%EAGAIN if it ran; -%ESRCH the engine
 * is detached.
 */
int utrace_finish_examine(struct task_struct *task,
			  struct utrace_engine *engine,
			  struct utrace_examiner *exam)
{
	if (task == current)
		return 0;
	if (engine_detached(engine))
		return -ESRCH;
	if (exam->state &&
	    wait_task_inactive(task, exam->state) != exam->ncsw)
		return -EAGAIN;
	return 0;
}
EXPORT_SYMBOL_GPL(utrace_finish_examine);

/*
 * Reporting.  Everything below runs in the traced thread (or, for the
 * reap report, in whoever reaps it), without utrace->lock held across
 * callbacks.
 */
struct utrace_report {
	u32 result;			/* signal or syscall action so far */
	enum utrace_resume_action action; /* strongest resume action */
	bool detaches;			/* an engine detached */
};

/* Start a report: engines attached since the last one join in now. */
static struct utrace *start_report(struct task_struct *task)
{
	struct utrace *utrace = task_utrace_struct(task);

	if (unlikely(!utrace))
		return NULL;
	spin_lock(&utrace->lock);
	list_splice_tail_init(&utrace->attaching, &utrace->attached);
	spin_unlock(&utrace->lock);
	return utrace;
}

/* Fold one callback's answer into the report. */
static void finish_callback(struct utrace *utrace, struct utrace_report *report,
			    struct utrace_engine *engine, u32 ret)
{
	enum utrace_resume_action action = utrace_resume_action(ret);

	spin_lock(&utrace->lock);
	/*
	 * What the callback says of the event (a signal's action, a system
	 * call's abort) stands even if it detaches: answering
	 * UTRACE_SIGNAL_IGN | UTRACE_DETACH ignores the signal.
	 */
	report->result = ret & ~UTRACE_RESUME_MASK;
	if (engine_detached(engine)) {
		/* detached by another thread during the callback */
		report->detaches = true;
	} else if (action == UTRACE_DETACH) {
		mark_engine_detached(engine);
		report->detaches = true;
	} else {
		engine->stop_wanted = action == UTRACE_STOP;
		if (action < report->action)
			report->action = action;
	}
	/*
	 * Only now, with the answer applied, may utrace_barrier() return:
	 * an engine that waited for this callback and then resumes the
	 * thread must find the callback's UTRACE_STOP already in place.
	 */
	smp_store_release(&utrace->reporting, NULL);
	spin_unlock(&utrace->lock);
}

/*
 * Call one engine if it wants @event (and first its report_quiesce if it
 * wants QUIESCE).  Returns false when the engine is not to be called.
 */
static bool start_callback(struct utrace *utrace, struct utrace_report *report,
			   struct utrace_engine *engine,
			   struct task_struct *task, unsigned long event)
{
	unsigned long want = READ_ONCE(engine->flags);
	const struct utrace_engine_ops *ops;

	if (!(want & (event | UTRACE_EVENT(QUIESCE))))
		return false;
	WRITE_ONCE(utrace->reporting, engine);
	/* pairs with smp_store_mb() in mark_engine_detached() */
	smp_mb();
	ops = READ_ONCE(engine->ops);
	if (!ops || ops == &utrace_detached_ops) {
		WRITE_ONCE(utrace->reporting, NULL);
		report->detaches = true;
		return false;
	}
	if (event != UTRACE_EVENT(QUIESCE) &&
	    (want & UTRACE_EVENT(QUIESCE)) && ops->report_quiesce) {
		/* an interrupt's signal report is no event: quiesce says 0 */
		u32 ret = ops->report_quiesce(report->action, engine, task,
					      event == UTRACE_EVENT_SIGNAL_ALL ?
					      0 : event);
		u32 result = report->result;

		finish_callback(utrace, report, engine, ret);
		/* report_quiesce() answers no signal or syscall action */
		report->result = result;
		if (engine_detached(engine) || !(want & event))
			return false;
		WRITE_ONCE(utrace->reporting, engine);
		/* as above: pairs with mark_engine_detached() */
		smp_mb();
		if (engine_detached(engine)) {
			WRITE_ONCE(utrace->reporting, NULL);
			return false;
		}
	}
	return want & event;
}

/*
 * Each event's call function passes its report's arguments to one
 * engine's callback; @arg points to them.
 */
typedef u32 (*utrace_call_t)(const struct utrace_engine_ops *ops,
			     struct utrace_engine *engine,
			     struct task_struct *task,
			     struct utrace_report *report, void *arg);

/* Call every attached engine that wants @event, in attach order. */
static void report_callbacks(struct task_struct *task, struct utrace *utrace,
			     struct utrace_report *report, unsigned long event,
			     utrace_call_t call, void *arg)
{
	struct utrace_engine *engine;

	list_for_each_entry(engine, &utrace->attached, entry) {
		if (!start_callback(utrace, report, engine, task, event))
			continue;
		finish_callback(utrace, report, engine,
				call(READ_ONCE(engine->ops), engine, task,
				     report, arg));
	}
}

static u32 call_quiesce(const struct utrace_engine_ops *ops,
			struct utrace_engine *engine, struct task_struct *task,
			struct utrace_report *report, void *arg)
{
	if (!ops->report_quiesce)
		return UTRACE_RESUME;
	return ops->report_quiesce(report->action, engine, task, 0);
}

static u32 call_syscall_entry(const struct utrace_engine_ops *ops,
			      struct utrace_engine *engine,
			      struct task_struct *task,
			      struct utrace_report *report, void *regs)
{
	if (!ops->report_syscall_entry)
		return UTRACE_RESUME;
	return ops->report_syscall_entry(report->result | report->action,
					 engine, task, regs);
}

static u32 call_syscall_exit(const struct utrace_engine_ops *ops,
			     struct utrace_engine *engine,
			     struct task_struct *task,
			     struct utrace_report *report, void *regs)
{
	if (!ops->report_syscall_exit)
		return UTRACE_RESUME;
	return ops->report_syscall_exit(report->action, engine, task, regs);
}

struct utrace_clone_args {
	unsigned long flags;
	struct task_struct *child;
};

static u32 call_clone(const struct utrace_engine_ops *ops,
		      struct utrace_engine *engine, struct task_struct *task,
		      struct utrace_report *report, void *arg)
{
	struct utrace_clone_args *a = arg;

	if (!ops->report_clone)
		return UTRACE_RESUME;
	return ops->report_clone(report->action, engine, task, a->flags,
				 a->child);
}

struct utrace_exec_args {
	const struct linux_binfmt *fmt;
	const struct linux_binprm *bprm;
	struct pt_regs *regs;
};

static u32 call_exec(const struct utrace_engine_ops *ops,
		     struct utrace_engine *engine, struct task_struct *task,
		     struct utrace_report *report, void *arg)
{
	struct utrace_exec_args *a = arg;

	if (!ops->report_exec)
		return UTRACE_RESUME;
	return ops->report_exec(report->action, engine, task, a->fmt, a->bprm,
				a->regs);
}

struct utrace_exit_args {
	long orig_code;
	long *code;
};

static u32 call_exit(const struct utrace_engine_ops *ops,
		     struct utrace_engine *engine, struct task_struct *task,
		     struct utrace_report *report, void *arg)
{
	struct utrace_exit_args *a = arg;

	if (!ops->report_exit)
		return UTRACE_RESUME;
	return ops->report_exit(report->action, engine, task, a->orig_code,
				a->code);
}

struct utrace_death_args {
	bool group_dead;
	int signal;
};

static u32 call_death(const struct utrace_engine_ops *ops,
		      struct utrace_engine *engine, struct task_struct *task,
		      struct utrace_report *report, void *arg)
{
	struct utrace_death_args *a = arg;

	if (!ops->report_death)
		return UTRACE_RESUME;
	return ops->report_death(engine, task, a->group_dead, a->signal);
}

struct utrace_jctl_args {
	int type;
	int notify;
};

static u32 call_jctl(const struct utrace_engine_ops *ops,
		     struct utrace_engine *engine, struct task_struct *task,
		     struct utrace_report *report, void *arg)
{
	struct utrace_jctl_args *a = arg;

	if (!ops->report_jctl)
		return UTRACE_RESUME;
	return ops->report_jctl(report->action, engine, task, a->type,
				a->notify);
}

struct utrace_signal_args {
	struct pt_regs *regs;
	kernel_siginfo_t *info;
	const struct k_sigaction *orig_ka;
	struct k_sigaction *return_ka;
};

static u32 call_signal(const struct utrace_engine_ops *ops,
		       struct utrace_engine *engine, struct task_struct *task,
		       struct utrace_report *report, void *arg)
{
	struct utrace_signal_args *a = arg;

	if (!ops->report_signal)
		return report->result | UTRACE_RESUME;
	return ops->report_signal(report->result | report->action, engine,
				  task, a->regs, a->info, a->orig_ka,
				  a->return_ka);
}

/* Was single-step on before utrace turned it on?  Then it is not ours. */
static bool utrace_step_was_on(struct task_struct *task)
{
#ifdef TIF_SINGLESTEP
	return test_tsk_thread_flag(task, TIF_SINGLESTEP);
#else
	return false;
#endif
}

/*
 * Enable or disable stepping as the report decided.  Single-step is
 * shared with ptrace: a step utrace ends is turned off only if utrace
 * turned it on (see utrace_ptrace_step_off() for the other way).
 */
static void utrace_apply_step(struct task_struct *task, struct utrace *utrace,
			      enum utrace_resume_action action)
{
	bool shared = utrace->step_shared;

	if (action == UTRACE_SINGLESTEP || action == UTRACE_BLOCKSTEP) {
		if (!utrace->stepping)
			shared = utrace_step_was_on(task);
		if (action == UTRACE_SINGLESTEP)
			user_enable_single_step(task);
		else
			user_enable_block_step(task);
		/* the bits share a word with those others set under the lock */
		spin_lock(&utrace->lock);
		utrace->stepping = 1;
		utrace->blockstep = action == UTRACE_BLOCKSTEP;
		utrace->step_shared = shared;
		spin_unlock(&utrace->lock);
	} else if (utrace->stepping) {
		if (!shared)
			user_disable_single_step(task);
		spin_lock(&utrace->lock);
		utrace->stepping = 0;
		utrace->blockstep = 0;
		utrace->step_shared = 0;
		spin_unlock(&utrace->lock);
	}
}

/*
 * Hold the thread while an engine wants it stopped.  SIGKILL ends the
 * stop.  What utrace_control() asks for meanwhile (a report, a step) was
 * queued as utrace->work and runs on the way back to user mode.
 */
static void utrace_stop(struct task_struct *task, struct utrace *utrace)
{
	spin_lock(&utrace->lock);
	while (utrace_stop_wanted(utrace) && !fatal_signal_pending(task)) {
		utrace->stopped = 1;
		/* the freezer may freeze a held thread (suspend) */
		set_current_state(TASK_KILLABLE | TASK_FREEZABLE);
		spin_unlock(&utrace->lock);
		schedule();
		spin_lock(&utrace->lock);
	}
	utrace->stopped = 0;
	__set_current_state(TASK_RUNNING);
	spin_unlock(&utrace->lock);
}

/*
 * End a report: drop detached engines, then act on the answers.  A stop
 * is made at once when @stop_now (the syscall-entry and exit reports);
 * otherwise on the way back to user mode.
 */
static void finish_report(struct task_struct *task, struct utrace *utrace,
			  struct utrace_report *report, bool stop_now)
{
	if (report->detaches)
		utrace_reset(task, utrace);
	if (report->action == UTRACE_STOP && stop_now) {
		utrace_stop(task, utrace);
		report->action = UTRACE_RESUME;
	}
	/*
	 * A step that no engine wants any more ends now, not on the way out:
	 * a ptrace stop before then (for a signal dequeued next) must not
	 * find it on, or utrace_ptrace_step_off() would turn it on again.
	 */
	if (report->action >= UTRACE_RESUME && utrace->stepping &&
	    task == current)
		utrace_apply_step(task, utrace, UTRACE_RESUME);
	if (report->action < UTRACE_RESUME || utrace->stepping) {
		spin_lock(&utrace->lock);
		utrace_request(task, utrace, report->action);
		spin_unlock(&utrace->lock);
	}
}

/*
 * %UTRACE_INTERRUPT, when an engine wants signal events: get_signal() is
 * about to look at the signal queue.  Engines wanting any signal event get
 * report_signal() with %UTRACE_SIGNAL_REPORT, a blank siginfo and no
 * sigaction (the others with QUIESCE their report_quiesce() with event 0).
 * An engine may fill in the siginfo and answer another signal action:
 * the thread is then sent that signal, which it dequeues next and which
 * is reported like any other.
 */
static void utrace_report_interrupt(struct task_struct *task,
				    struct utrace *utrace,
				    struct utrace_report *report)
{
	struct k_sigaction unused_ka = {};
	kernel_siginfo_t info;
	struct utrace_signal_args args = {
		.regs = task_pt_regs(task),
		.info = &info,
		.return_ka = &unused_ka,
	};

	clear_siginfo(&info);
	start_report(task);
	report->result = UTRACE_SIGNAL_REPORT;
	report_callbacks(task, utrace, report, UTRACE_EVENT_SIGNAL_ALL,
			 call_signal, &args);
	if (report->detaches)
		utrace_reset(task, utrace);
	if (utrace_signal_action(report->result) != UTRACE_SIGNAL_REPORT &&
	    info.si_signo > 0 && valid_signal(info.si_signo))
		send_sig_info(info.si_signo, &info, task);
}

/*
 * The task_work queued by utrace_request(): runs on the way back to user
 * mode (for %UTRACE_INTERRUPT, from get_signal() before it dequeues).
 * Reports QUIESCE (or the interrupt), stops while wanted and sets up
 * stepping.
 */
static void utrace_resume_work(struct callback_head *head)
{
	struct task_struct *task = current;
	struct utrace *utrace = container_of(head, struct utrace, work);
	enum utrace_resume_action action;
	bool stop, queued, interrupt;
	struct utrace_report report = { .action = UTRACE_RESUME };

	spin_lock(&utrace->lock);
	action = utrace->resume;
	interrupt = utrace->interrupt;
	utrace->resume = UTRACE_RESUME;
	utrace->interrupt = 0;
	utrace->work_queued = 0;
	spin_unlock(&utrace->lock);

	/* engines detached by other threads go now */
	utrace_reset(task, utrace);

	if (interrupt &&
	    (task_utrace_flags(task) & UTRACE_EVENT_SIGNAL_ALL)) {
		utrace_report_interrupt(task, utrace, &report);
	} else if (action <= UTRACE_INTERRUPT &&
	    (task_utrace_flags(task) & UTRACE_EVENT(QUIESCE))) {
		start_report(task);
		report_callbacks(task, utrace, &report, UTRACE_EVENT(QUIESCE),
				 call_quiesce, NULL);
		if (report.detaches)
			utrace_reset(task, utrace);
	} else {
		report.action = action;
	}

	spin_lock(&utrace->lock);
	stop = utrace_stop_wanted(utrace);
	spin_unlock(&utrace->lock);
	if (stop)
		utrace_stop(task, utrace);

	/*
	 * A report or step asked for while stopped queued this work again:
	 * task_work_run() calls it next, and that run decides the step.
	 */
	spin_lock(&utrace->lock);
	queued = utrace->work_queued;
	spin_unlock(&utrace->lock);
	if (!queued)
		utrace_apply_step(task, utrace,
				  stop ? UTRACE_RESUME : report.action);
}

/**
 * utrace_report_syscall_entry - report a system call entry
 * @regs:	the user registers, with the call's number and arguments
 *
 * Called from syscall_trace_enter() when SYSCALL_WORK_SYSCALL_UTRACE is
 * set.  A thread an engine stops here stays at the entry, where engines
 * may change the call's registers.
 *
 * Return: true if the call must not run (%UTRACE_SYSCALL_ABORT, or a
 * fatal signal arrived while stopped).
 */
bool utrace_report_syscall_entry(struct pt_regs *regs)
{
	struct task_struct *task = current;
	struct utrace *utrace = start_report(task);
	struct utrace_report report = { .action = UTRACE_RESUME };

	if (!utrace)
		return false;
	report_callbacks(task, utrace, &report, UTRACE_EVENT(SYSCALL_ENTRY),
			 call_syscall_entry, regs);
	/* the last engine's syscall action wins */
	finish_report(task, utrace, &report, true);
	return utrace_syscall_action(report.result) == UTRACE_SYSCALL_ABORT ||
	       fatal_signal_pending(task);
}

/**
 * utrace_report_syscall_exit - report a system call exit
 * @regs:	the user registers, with the call's return value
 *
 * Called from syscall_exit_work() when SYSCALL_WORK_SYSCALL_UTRACE is set.
 */
void utrace_report_syscall_exit(struct pt_regs *regs)
{
	struct task_struct *task = current;
	struct utrace *utrace = start_report(task);
	struct utrace_report report = { .action = UTRACE_RESUME };

	if (!utrace)
		return;
	report_callbacks(task, utrace, &report, UTRACE_EVENT(SYSCALL_EXIT),
			 call_syscall_exit, regs);
	finish_report(task, utrace, &report, false);
}

/**
 * utrace_report_clone - report a new child
 * @clone_flags:	the CLONE_* flags it was made with
 * @child:	the new thread, not yet running
 *
 * Called from kernel_clone() in the parent before the child first runs,
 * so engines may attach to the child before it does anything.
 */
void utrace_report_clone(unsigned long clone_flags, struct task_struct *child)
{
	struct utrace_clone_args args = { .flags = clone_flags, .child = child };
	struct task_struct *task = current;
	struct utrace *utrace = start_report(task);
	struct utrace_report report = { .action = UTRACE_RESUME };

	if (!utrace)
		return;
	report_callbacks(task, utrace, &report, UTRACE_EVENT(CLONE),
			 call_clone, &args);
	if (report.action == UTRACE_STOP && (clone_flags & CLONE_VFORK)) {
		/* stop before blocking on the child, see utrace_finish_vfork */
		spin_lock(&utrace->lock);
		utrace->vfork_stop = 1;
		spin_unlock(&utrace->lock);
	}
	finish_report(task, utrace, &report, false);
}

/**
 * utrace_finish_vfork - stop before waiting for a vfork child
 * @task:	the vfork parent, current
 *
 * Called from kernel_clone() before the parent blocks until its vfork
 * child execs or exits: an engine that stopped the parent in its clone
 * report gets it stopped here rather than after the wait.
 */
void utrace_finish_vfork(struct task_struct *task)
{
	struct utrace *utrace = task_utrace_struct(task);

	if (!utrace || !utrace->vfork_stop)
		return;
	spin_lock(&utrace->lock);
	utrace->vfork_stop = 0;
	spin_unlock(&utrace->lock);
	utrace_stop(task, utrace);
}

/**
 * utrace_report_exec - report a completed exec
 * @bprm:	the exec's parameters
 *
 * Called from exec_binprm() after the point of no return.  The engines
 * get the binary format that loaded the new image and its user
 * registers too.
 */
void utrace_report_exec(const struct linux_binprm *bprm)
{
	struct utrace_exec_args args = {
		.fmt = current->mm->binfmt,
		.bprm = bprm,
		.regs = current_pt_regs(),
	};
	struct task_struct *task = current;
	struct utrace *utrace = start_report(task);
	struct utrace_report report = { .action = UTRACE_RESUME };

	if (!utrace)
		return;
	report_callbacks(task, utrace, &report, UTRACE_EVENT(EXEC),
			 call_exec, &args);
	finish_report(task, utrace, &report, false);
}

/**
 * utrace_report_exit - report that the thread starts to exit
 * @exit_code:	the exit code, which engines may change
 *
 * Called from do_exit(); a stop asked for here is made here.
 */
void utrace_report_exit(long *exit_code)
{
	struct utrace_exit_args args = { .orig_code = *exit_code, .code = exit_code };
	struct task_struct *task = current;
	struct utrace *utrace = start_report(task);
	struct utrace_report report = { .action = UTRACE_RESUME };

	if (!utrace)
		return;
	report_callbacks(task, utrace, &report, UTRACE_EVENT(EXIT),
			 call_exit, &args);
	finish_report(task, utrace, &report, true);
}

/* Make the reap report and detach every engine. */
static void utrace_do_reap(struct task_struct *task, struct utrace *utrace)
{
	struct utrace_engine *engine, *next;
	LIST_HEAD(engines);

	spin_lock(&utrace->lock);
	list_splice_tail_init(&utrace->attached, &engines);
	list_splice_tail_init(&utrace->attaching, &engines);
	WRITE_ONCE(task->utrace_flags, 0);
	spin_unlock(&utrace->lock);

	list_for_each_entry_safe(engine, next, &engines, entry) {
		const struct utrace_engine_ops *ops = READ_ONCE(engine->ops);

		if (ops && ops->report_reap &&
		    (READ_ONCE(engine->flags) & UTRACE_EVENT(REAP))) {
			WRITE_ONCE(utrace->reporting, engine);
			/* pairs with smp_mb() in utrace_barrier() */
			smp_mb();
			ops->report_reap(engine, task);
			WRITE_ONCE(utrace->reporting, NULL);
		}
		list_del_init(&engine->entry);
		/* fully detached: utrace_barrier() answers -ESRCH now */
		smp_store_release(&engine->ops, NULL);
		utrace_engine_put(engine);
	}
}

/**
 * utrace_report_death - report that the thread died
 * @task:	the thread, current, now a zombie or dead
 * @group_dead:	it was the last thread of its group
 * @signal:	the signal its parent gets, or -1 for none
 *
 * Called from exit_notify().  If the thread was reaped meanwhile, the
 * reap report follows here, so report_reap never precedes report_death.
 */
void utrace_report_death(struct task_struct *task, bool group_dead,
			 int signal)
{
	struct utrace_death_args args = { .group_dead = group_dead, .signal = signal };
	struct utrace *utrace = task_utrace_struct(task);
	bool reap;
	struct utrace_report report = { .action = UTRACE_RESUME };

	if (!utrace)
		return;
	spin_lock(&utrace->lock);
	/*
	 * Reaped already, when no engine wanted the death events: the
	 * hook saw them before a detach lowered the mask, and the reaper
	 * is taking the engines now.
	 */
	if (utrace->death_done) {
		spin_unlock(&utrace->lock);
		return;
	}
	list_splice_tail_init(&utrace->attaching, &utrace->attached);
	utrace->death = 1;
	spin_unlock(&utrace->lock);

	report_callbacks(task, utrace, &report, UTRACE_EVENT(DEATH),
			 call_death, &args);

	spin_lock(&utrace->lock);
	utrace->death = 0;
	utrace->death_done = 1;
	reap = utrace->reap;
	spin_unlock(&utrace->lock);

	if (reap)
		utrace_do_reap(task, utrace);
	else if (report.detaches)
		utrace_reset(task, utrace);
}

/**
 * utrace_release_task - report that the thread was reaped
 * @task:	the dead thread
 *
 * Called from release_task().  When @task has yet to make its death
 * report, it makes the reap report itself right after.
 */
void utrace_release_task(struct task_struct *task)
{
	struct utrace *utrace = task_utrace_struct(task);
	bool later;

	if (!utrace)
		return;
	spin_lock(&utrace->lock);
	utrace->reap = 1;
	later = utrace->death ||
		(!utrace->death_done &&
		 (task->utrace_flags & _UTRACE_DEATH_EVENTS));
	/* no death report walks the engines from now on */
	if (!later)
		utrace->death_done = 1;
	spin_unlock(&utrace->lock);
	if (!later)
		utrace_do_reap(task, utrace);
}

/* The default action of @signr under @ka, and the event reporting it. */
static u32 signal_default(int signr, const struct k_sigaction *ka,
			  unsigned long *event)
{
	__sighandler_t handler = ka->sa.sa_handler;

	if (handler == SIG_IGN || (handler == SIG_DFL && sig_kernel_ignore(signr))) {
		*event = UTRACE_EVENT(SIGNAL_IGN);
		return UTRACE_SIGNAL_IGN;
	}
	if (handler != SIG_DFL) {
		*event = UTRACE_EVENT(SIGNAL);
		return UTRACE_SIGNAL_DELIVER;
	}
	if (sig_kernel_stop(signr)) {
		*event = UTRACE_EVENT(SIGNAL_STOP);
		return signr == SIGSTOP ? UTRACE_SIGNAL_STOP : UTRACE_SIGNAL_TSTP;
	}
	if (sig_kernel_coredump(signr)) {
		*event = UTRACE_EVENT(SIGNAL_CORE);
		return UTRACE_SIGNAL_CORE;
	}
	*event = UTRACE_EVENT(SIGNAL_TERM);
	return UTRACE_SIGNAL_TERM;
}

/* Die of @signr now, with a core dump if @core; never returns. */
static void __noreturn utrace_signal_kill(int signr, kernel_siginfo_t *info,
					  bool core)
{
	current->flags |= PF_SIGNALED;
	if (core)
		do_coredump(info);
	do_group_exit(signr);
}

/* Take the default action: get_signal() acts on ksig->ka, now SIG_DFL. */
static void utrace_default_ka(struct ksignal *ksig, struct k_sigaction **ka)
{
	memset(&ksig->ka, 0, sizeof(ksig->ka));
	ksig->ka.sa.sa_handler = SIG_DFL;
	*ka = &ksig->ka;
}

/**
 * utrace_report_signal - report a signal about to take its action
 * @signr:	the signal just dequeued
 * @ksig:	get_signal()'s answer in the making, with the siginfo
 * @ka:		in: the signal's action; out: the action get_signal() takes
 *
 * Called from get_signal() with siglock held, when an engine wants one
 * of the signal events; drops siglock around the callbacks.  Engines are
 * called for the event of the signal's default action (a handler runs:
 * SIGNAL; ignored: SIGNAL_IGN; stop, terminate, core: SIGNAL_STOP, _TERM,
 * _CORE) and each may choose another action, the last one winning, or
 * change the sigaction used for this delivery through return_ka.
 * SIGKILL and signals with SA_IMMUTABLE actions are not reported.
 *
 * Return: the signal to act on with *@ka (SIGSTOP or SIGTSTP for a stop
 * an engine asked for), 0 to drop it, or -1 when an engine answered
 * %UTRACE_SIGNAL_HOLD: the signal is queued again and get_signal() takes
 * no signal this time (an engine that holds a signal usually stops the
 * thread too, and is asked again once it resumes).  Does not return when an
 * engine answered %UTRACE_SIGNAL_TERM or %UTRACE_SIGNAL_CORE for a
 * signal whose default action is otherwise.
 */
int utrace_report_signal(int signr, struct ksignal *ksig,
			 struct k_sigaction **ka)
{
	struct task_struct *task = current;
	struct utrace *utrace = task_utrace_struct(task);
	struct k_sigaction orig_ka = **ka, return_ka = **ka;
	struct utrace_signal_args args = {
		.regs = task_pt_regs(task),
		.info = &ksig->info,
		.orig_ka = &orig_ka,
		.return_ka = &return_ka,
	};
	struct utrace_report report = { .action = UTRACE_RESUME };
	unsigned long event;
	u32 dfl;

	lockdep_assert_held(&task->sighand->siglock);
	if (!utrace || signr == SIGKILL || (orig_ka.sa.sa_flags & SA_IMMUTABLE))
		return signr;
	dfl = signal_default(signr, &orig_ka, &event);
	if (!(task_utrace_flags(task) & event))
		return signr;

	spin_unlock_irq(&task->sighand->siglock);
	start_report(task);
	report.result = dfl;
	report_callbacks(task, utrace, &report, event, call_signal, &args);
	finish_report(task, utrace, &report, false);
	spin_lock_irq(&task->sighand->siglock);

	if (report.result & UTRACE_SIGNAL_HOLD) {
		/* back on the queue, reported again when next dequeued */
		send_signal_locked(signr, &ksig->info, task, PIDTYPE_PID);
		return -1;
	}

	switch (utrace_signal_action(report.result)) {
	case UTRACE_SIGNAL_IGN:
		return 0;
	case UTRACE_SIGNAL_STOP:
	case UTRACE_SIGNAL_TSTP:
		/* as dequeue_signal() marks a stop signal, so that it stops */
		task->jobctl |= JOBCTL_STOP_DEQUEUED;
		utrace_default_ka(ksig, ka);
		return utrace_signal_action(report.result) == UTRACE_SIGNAL_STOP ?
		       SIGSTOP : SIGTSTP;
	case UTRACE_SIGNAL_TERM:
	case UTRACE_SIGNAL_CORE:
		if (utrace_signal_action(report.result) == dfl) {
			utrace_default_ka(ksig, ka);
			return signr;
		}
		spin_unlock_irq(&task->sighand->siglock);
		utrace_signal_kill(signr, &ksig->info,
				   utrace_signal_action(report.result) ==
				   UTRACE_SIGNAL_CORE);
	default:
		break;
	}
	/* deliver, under the sigaction an engine may have changed */
	if (memcmp(&return_ka, &orig_ka, sizeof(return_ka))) {
		ksig->ka = return_ka;
		*ka = &ksig->ka;
	}
	return signr;
}

/**
 * utrace_signal_handler - report that a signal handler was set up
 * @task:	current, whose user registers now enter the handler
 * @stepping:	the thread was single-stepping
 *
 * Called from signal_delivered().  Engines with the SIGNAL event get
 * report_signal() with %UTRACE_SIGNAL_HANDLER and no siginfo; one that
 * was stepping may answer %UTRACE_SINGLESTEP to step into the handler.
 */
void utrace_signal_handler(struct task_struct *task, int stepping)
{
	struct utrace *utrace = start_report(task);
	struct utrace_signal_args args = { .regs = task_pt_regs(task) };
	struct utrace_report report = {
		.action = UTRACE_RESUME,
		.result = UTRACE_SIGNAL_HANDLER,
	};

	if (!utrace)
		return;
	report_callbacks(task, utrace, &report, UTRACE_EVENT(SIGNAL),
			 call_signal, &args);
	finish_report(task, utrace, &report, false);
}

/**
 * utrace_report_jctl - report a job-control stop or continue
 * @notify:	for a stop, the CLD_* code the parent gets (0 if none)
 * @type:	%CLD_STOPPED or %CLD_CONTINUED
 *
 * Called from do_signal_stop(): with %CLD_STOPPED once the thread has
 * taken its part in the group stop (the decision to notify the parent
 * was made under siglock) and before it sleeps; with %CLD_CONTINUED when
 * SIGCONT woke it.  The callbacks run in TASK_RUNNING; the thread then
 * goes back to TASK_STOPPED only if no SIGCONT or SIGKILL came meanwhile,
 * decided under siglock as they decide it.
 */
void utrace_report_jctl(int notify, int type)
{
	struct task_struct *task = current;
	struct utrace *utrace = start_report(task);
	struct utrace_jctl_args args = { .type = type, .notify = notify };
	struct utrace_report report = { .action = UTRACE_RESUME };

	if (!utrace)
		return;
	if (type == CLD_CONTINUED) {
		if (fatal_signal_pending(task))
			return;		/* woken to die, not to go on */
		spin_lock_irq(&task->sighand->siglock);
		if (task->signal->flags & SIGNAL_CLD_CONTINUED)
			args.notify = CLD_CONTINUED;
		spin_unlock_irq(&task->sighand->siglock);
	} else {
		__set_current_state(TASK_RUNNING);
	}

	report_callbacks(task, utrace, &report, UTRACE_EVENT(JCTL), call_jctl,
			 &args);
	finish_report(task, utrace, &report, false);

	if (type == CLD_STOPPED) {
		spin_lock_irq(&task->sighand->siglock);
		if (task->jobctl & JOBCTL_STOPPED)
			set_special_state(TASK_STOPPED);
		spin_unlock_irq(&task->sighand->siglock);
	}
}

/**
 * utrace_ptrace_step_off - ptrace turned single-step off
 * @task:	the tracee, in a ptrace stop
 *
 * Called by ptrace after it disabled stepping (%PTRACE_CONT and the other
 * resuming requests, %PTRACE_DETACH).  An engine's step the thread has
 * not finished is turned on again: each side's step ends only when that
 * side ends it.  The tracee is stopped, so utrace->stepping is stable.
 */
void utrace_ptrace_step_off(struct task_struct *task)
{
	struct utrace *utrace = task_utrace_struct(task);
	bool stepping, block;

	if (!utrace)
		return;
	spin_lock(&utrace->lock);
	stepping = utrace->stepping;
	block = utrace->blockstep;
	if (stepping)
		utrace->step_shared = 0;
	spin_unlock(&utrace->lock);
	if (!stepping)
		return;
	if (block)
		user_enable_block_step(task);
	else
		user_enable_single_step(task);
}

/**
 * task_utrace_proc_status - the utrace line of /proc/PID/status
 * @m:		the status file
 * @task:	the thread
 */
void task_utrace_proc_status(struct seq_file *m, struct task_struct *task)
{
	seq_printf(m, "Utrace:\t%lx\n", task_utrace_flags(task));
}
