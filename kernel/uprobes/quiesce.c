// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes: quiescing, and letting idle threads go.
 *
 * Quiescing: every thread of a process but current stops at a safe
 * point, where it cannot be executing or stepping a probed instruction.
 * UTRACE_INTERRUPT wakes threads blocked in interruptible waits (their
 * system call is restarted); each thread's next report sees ->quiescing
 * and answers UTRACE_STOP.  Called with utp_mutex held.
 *
 * A process left with no point lets its threads' engines go
 * (utp_proc_idle()), from here for a thread that holds nothing of ours,
 * else at its next report.
 */
#include "internal.h"

/* Mark @ut quiesced for the quiescer of its process, if there is one. */
bool utp_stop_if_quiescing(struct utp_thread *ut)
{
	struct utp_proc *proc = ut->proc;
	bool stop;

	spin_lock(&proc->lock);
	stop = proc->quiescing;
	if (stop) {
		ut->quiesce.stopped = true;
		wake_up_all(&proc->wq);
	}
	spin_unlock(&proc->lock);
	return stop;
}

/*
 * If @task is asleep (in the kernel, in any state but running), a
 * number that changes once it has run again: its context switches, + 1.
 * 0 if it is not asleep.
 */
unsigned long utp_asleep(struct task_struct *task)
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
	if (ut->task == current || ut->quiesce.stopped || ut->quiesce.in_work)
		return true;
	return ut->quiesce.idle &&
	       READ_ONCE(ut->hit.phase) == UTP_HIT_NONE &&
	       utp_asleep(ut->task) == ut->quiesce.idle_switches;
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

void utp_unquiesce(struct utp_proc *proc)
{
	struct utp_thread *ut;

	spin_lock(&proc->lock);
	proc->quiescing = false;
	list_for_each_entry(ut, &proc->threads, node) {
		ut->quiesce.idle = false;
		if (ut->task == current)
			continue;
		ut->quiesce.unstop = ut->quiesce.stopped;
		ut->quiesce.stopped = false;
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
		if (!ut->quiesce.unstop)
			continue;
		ut->quiesce.unstop = false;
		utp_resume_after_callback(proc, ut);
		goto again;
	}
	spin_unlock(&proc->lock);
}

/*
 * Is @ut's thread in the middle of a hit, which needs our callbacks to
 * end: a step, a hit under way or queued, or a SIGTRAP queued by an int3
 * hit before the point went (its report runs the original instruction,
 * utp_hit())?  A hit in progress is followed by another report
 * (utp_hit_work(), utp_hit()).  Read by the thread, or while it sleeps.
 */
bool utp_thread_holds_hit(struct utp_thread *ut)
{
	return READ_ONCE(ut->hit.phase) != UTP_HIT_NONE ||
	       sigismember(&ut->task->pending.signal, SIGTRAP);
}

/*
 * Can utp_proc_idle() let go of @ut's engine from here, rather than in
 * a report of its thread?  Only if the thread is asleep (it would have to
 * be woken for a report) and holds nothing that needs our callbacks: no
 * step, no hit under way or queued, no handler running, no SIGTRAP of an
 * int3 to deliver, no fork or mmap work of ours under way, not exiting.
 * With no point left, none of these can begin.  Nor while it is being
 * attached (its engine has no event yet): a clone report attaches a
 * new thread, which looks asleep, without utp_mutex, and its entry in
 * utp_tids goes in after it is listed.  proc->lock held.
 */
static bool utp_thread_releasable(struct utp_thread *ut)
{
	struct task_struct *task = ut->task;

	return READ_ONCE(ut->engine->flags) &&
	       task != current && !task_curr(task) && utp_asleep(task) &&
	       !utp_thread_holds_hit(ut) && !ut->hit.in_handler &&
	       !ut->quiesce.in_work && !ut->fork_pending &&
	       !(task->flags & PF_EXITING);
}

static void utp_thread_gone(struct callback_head *cb)
{
	utp_thread_drop(container_of(cb, struct utp_thread, quiesce.gone_work));
}

/*
 * Let go of @ut's engine from outside its thread, which sleeps on: no
 * callback of it runs any more, and its thread's utrace mask drops it at
 * once.  Its state goes at the thread's next task_work run, which comes
 * on its way back to user mode or at its exit; @ut may be gone as soon
 * as that is queued.  utp_mutex held.
 */
static void utp_thread_release(struct utp_thread *ut)
{
	struct task_struct *task = get_task_struct(ut->task);
	struct utrace_engine *engine = ut->engine;

	utrace_engine_get(engine);
	utp_control(task, engine, UTRACE_DETACH);
	init_task_work(&ut->quiesce.gone_work, utp_thread_gone);
	if (task_work_add(task, &ut->quiesce.gone_work, TWA_RESUME)) {
		/* past its last task_work: a callback may still be ending */
		while (utrace_barrier(task, engine) == -ERESTARTSYS)
			schedule_timeout_uninterruptible(1);
		utp_thread_drop(ut);
	}
	utrace_engine_put(engine);
	put_task_struct(task);
}

/*
 * @proc has no point left: each thread lets go of its engine, so that
 * the process is left as it was before it was probed, with no utrace
 * event.  None is woken for it: one asleep is let go of from here
 * (utp_thread_release()), the others at their next report
 * (utp_resume()), which the interrupt asks for.  Waking every sleeping
 * thread instead, as an interrupt does, was a storm of wakeups in a
 * process of many threads, where mainline uprobes wakes none.  The
 * out-of-line areas stay mapped, as mainline uprobes' area does.  A new
 * point before the threads have all gone keeps those still there
 * (utp_proc_revive()).  utp_mutex held.
 */
void utp_proc_idle(struct utp_proc *proc)
{
	struct utp_thread *ut, *next;
	LIST_HEAD(asleep);

	lockdep_assert_held(&utp_mutex);
	/* a removal's grace period to come: utp_after_removals() then */
	if (atomic_read(&proc->npoints) || proc->removed)
		return;
	spin_lock(&proc->lock);
	proc->detaching = true;
	list_for_each_entry_safe(ut, next, &proc->threads, node) {
		if (!utp_thread_releasable(ut)) {
			utp_control(ut->task, ut->engine, UTRACE_INTERRUPT);
			continue;
		}
		/* its own callbacks, if it wakes meanwhile, leave it be */
		ut->quiesce.released = true;
		proc->nreleased++;
		list_move(&ut->node, &asleep);
	}
	spin_unlock(&proc->lock);
	list_for_each_entry_safe(ut, next, &asleep, node) {
		list_del_init(&ut->node);
		utp_thread_release(ut);
	}
}

/*
 * Stop every thread of @proc but current, or wait until those that
 * cannot stop now could only go on through a report that stops them
 * (see utp_quiescent()).  A fatal signal to current ends the wait: the
 * threads go on and -EINTR is returned, and the caller must change
 * nothing.
 */
int utp_quiesce(struct utp_proc *proc)
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
			ut->quiesce.idle_switches = utp_asleep(ut->task);
			ut->quiesce.idle = ut->quiesce.idle_switches != 0;
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
