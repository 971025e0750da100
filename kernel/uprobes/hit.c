// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes: hits.  The fast path in the int3 trap (utp_trap(), from the
 * die notifier), the task_work that finishes a hit on the way back to
 * user mode, and the slow path in the engine's report_signal(): the
 * handlers, then the instruction emulated or stepped out of line.
 */
#include "internal.h"

#include <trace/events/utprobes.h>

/*
 * The engine's quiesce and signal callbacks (its others, for clone, exec
 * and death, are in fork.c and core.c; the table in register.c) and what
 * they share.
 */

/* Signals that came during a step go to the thread again after it. */
static void utp_send_delayed(struct utp_thread *ut)
{
	struct utp_delayed *d, *next;

	list_for_each_entry_safe(d, next, &ut->step.delayed, node) {
		list_del(&d->node);
		send_sig_info(d->info.si_signo, &d->info, current);
		kfree(d);
	}
}

static void utp_end_step(struct utp_thread *ut)
{
	WRITE_ONCE(ut->hit.phase, UTP_HIT_NONE);
	utp_set_events(ut, UTP_EVENTS);
	utp_send_delayed(ut);
}

/*
 * Leave @ut's process if its last point has gone, at a report where the
 * thread holds nothing of it (utp_thread_holds_hit()).  Runs in @ut's
 * thread.
 */
static bool utp_leave_if_detaching(struct utp_thread *ut)
{
	struct utp_proc *proc = ut->proc;

	if (!READ_ONCE(proc->detaching) || utp_thread_holds_hit(ut))
		return false;
	/* decided and done under the lock: see utp_proc_cover() */
	spin_lock(&proc->lock);
	if (!proc->detaching || ut->quiesce.released) {
		/* a new probe came first, or its engine is let go of already */
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
u32 utp_resume(struct utp_thread *ut)
{
	if (utp_stop_if_quiescing(ut))
		return UTRACE_STOP;
	return utp_leave_if_detaching(ut) ? UTRACE_DETACH : UTRACE_RESUME;
}

u32 utp_report_quiesce(enum utrace_resume_action action,
		       struct utrace_engine *engine,
		       struct task_struct *task, unsigned long event)
{
	struct utp_thread *ut = engine->data;

	/* before an event's own callback, that callback answers */
	if (event)
		return UTRACE_RESUME;
	utp_jump_report(ut);
	if (ut->hit.phase == UTP_HIT_STEPPING)
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
		if (trap && up->handler && !utp_trap_still_ok(up))
			continue;
		this_cpu_inc(*up->hits);
		trace_utprobe_hit(up, instruction_pointer(regs));
		if (up->handler)
			up->handler(up, regs);
	}
}

/*
 * What a hit of @pt does before its instruction runs: returns that end
 * there, the handlers, calls followed from there; in the int3 trap if
 * @trap, which holds what the trap read of the stack.  The ip is at the
 * point.  Returns true if a handler moved the thread elsewhere.
 */
static bool utp_hit_handlers(struct utp_thread *ut, struct utp_point *pt,
			     struct pt_regs *regs,
			     const struct utp_trap_read *trap)
{
	unsigned long bp = instruction_pointer(regs);

	ut->hit.in_handler = true;
	if (READ_ONCE(pt->ret_site) && ut->ret.calls)
		utp_ret_hit(ut, pt, regs, trap);
	if (instruction_pointer(regs) == bp)
		utp_run_handlers(ut, pt, regs, !!trap);
	ut->hit.in_handler = false;
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
	unsigned long bp = ut->hit.bp, slot;
	struct utp_point *pt;

	if (current->flags & PF_EXITING)
		return;
	instruction_pointer_set(regs, bp);
	if (ut->hit.phase == UTP_HIT_EMULATE) {
		/* the trap ran the handlers; the stack was not at hand */
		WRITE_ONCE(ut->hit.phase, UTP_HIT_QUEUED);
		if (utp_arch_emulate(&ut->hit.ai, bp, regs))
			ut->hit.replay_bp = bp;
		return;
	}
	if (READ_ONCE(ut->proc->quiescing))
		return;
	rcu_read_lock();
	pt = xa_load(&ut->proc->points, bp);
	rcu_read_unlock();
	if (!pt || READ_ONCE(pt->stale) ||
	    utp_hit_handlers(ut, pt, regs, NULL) ||
	    utp_jump_through(pt, regs))
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
	ut->hit.replay_bp = bp;
}

static void utp_hit_work(struct callback_head *cb)
{
	struct utp_thread *ut = container_of(cb, struct utp_thread, hit.work);
	int idx;

	idx = srcu_read_lock(&utp_srcu);
	__utp_hit_work(ut);
	srcu_read_unlock(&utp_srcu, idx);
	/* only now, with the point let go, may a quiescer count it asleep */
	WRITE_ONCE(ut->hit.phase, UTP_HIT_NONE);
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
static bool utp_trap_enter_ok(struct utp_thread *ut, struct pt_regs *regs,
			      struct utp_trap_read *tr)
{
	unsigned long stack = utp_arch_ret_slot(regs);

	/* no call to follow: the missed count takes it, anywhere */
	if (!stack)
		return true;
	if (utp_read_word(stack, &tr->ra, true))
		return false;
	tr->site = utp_ret_site_trap(ut->proc, tr->ra);
	return tr->site;
}

/*
 * Can the returns that end at the return site @pt be reported in the
 * trap?  If every return handler of theirs may run there.
 */
static bool utp_trap_returns_ok(struct utp_thread *ut, struct utp_point *pt,
				struct pt_regs *regs, struct utp_trap_read *tr)
{
	unsigned long stack = utp_arch_ret_popped(regs), ra;
	struct utp_ret *ri;

	if (utp_read_word(stack, &ra, true))
		return false;
	tr->returning = ra == pt->vaddr ? UTP_TRAP_RETURN :
			UTP_TRAP_NOT_RETURN;
	if (tr->returning == UTP_TRAP_NOT_RETURN)
		return true;
	for (ri = ut->ret.calls; ri && ri->stack <= stack; ri = ri->next) {
		struct utprobe *up = utp_ret_up(ri);

		if (up && !utp_trap_ok(up))
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
	struct utp_trap_read tr = { .returning = UTP_TRAP_UNREAD };
	struct utp_consumer *c;
	bool enter = false;
	int ret;

	if (!utp_arch_insn_emulated(&pt->ai) && !slot)
		return UTP_TRAP_QUEUE;
	list_for_each_entry_rcu(c, &pt->consumers, point_node, true) {
		struct utprobe *up = c->up;

		if (!utp_trap_ok(up))
			return UTP_TRAP_QUEUE;
		enter |= up->ret_handler && !READ_ONCE(up->gone);
	}
	instruction_pointer_set(regs, bp);
	if (enter && !utp_trap_enter_ok(ut, regs, &tr))
		return UTP_TRAP_QUEUE;
	if (READ_ONCE(pt->ret_site) && ut->ret.calls &&
	    !utp_trap_returns_ok(ut, pt, regs, &tr))
		return UTP_TRAP_QUEUE;
	if (utp_hit_handlers(ut, pt, regs, &tr) ||
	    utp_jump_through(pt, regs))
		return UTP_TRAP_DONE;	/* moved: by a handler, or a jump's */
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

	ut = utp_own_thread();
	if (!ut)
		return false;
	/* a SIGTRAP with SI_KERNEL is this int3's only if it comes next */
	ut->hit.int3_bp = bp;
	/* a thread stepped by a ptracer takes the slow path: __utp_hit() */
	if (utp_arch_user_stepping(regs) || ut->hit.phase != UTP_HIT_NONE ||
	    ut->dbg.bp || READ_ONCE(ut->proc->quiescing) ||
	    READ_ONCE(ut->proc->dead))
		return false;
	/* see __utp_hit_work(); any other hit forgets it */
	if (ut->hit.replay_bp) {
		if (ut->hit.replay_bp == bp)
			return false;
		ut->hit.replay_bp = 0;
	}
	pt = xa_load(&ut->proc->points, bp);
	if (!pt || READ_ONCE(pt->stale) || READ_ONCE(pt->dbg_bp) ||
	    !(utp_arch_insn_emulated(&pt->ai) ||
	      utp_arch_insn_through(&pt->ai)))
		return false;
	ut->hit.bp = bp;
	res = utp_trap_hit(ut, pt, regs, bp);
	if (res == UTP_TRAP_DONE)
		return true;
	if (res == UTP_TRAP_EMULATE)
		ut->hit.ai = pt->ai;
	WRITE_ONCE(ut->hit.phase, res == UTP_TRAP_EMULATE ? UTP_HIT_EMULATE :
		   UTP_HIT_QUEUED);
	init_task_work(&ut->hit.work, utp_hit_work);
	if (task_work_add(current, &ut->hit.work, TWA_RESUME)) {
		/*
		 * Exiting: it will not run user code again.  Handlers that
		 * ran here must not run again in report_signal().
		 */
		WRITE_ONCE(ut->hit.phase, UTP_HIT_NONE);
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

/* Hook the breakpoint trap for the fast path; at boot. */
int __init utp_trap_init(void)
{
	return register_die_notifier(&utp_trap_nb);
}

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
	bool replay = ut->hit.replay_bp == bp, user_step;
	struct utp_point *pt;
	unsigned long slot;
	u8 byte;

	ut->hit.replay_bp = 0;
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
		if (ut->dbg.bp == bp && ut->dbg.sp == user_stack_pointer(regs))
			replay = true;
		ut->dbg.bp = 0;
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
			ut->hit.replay_bp = bp;
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
	if (!replay && utp_hit_handlers(ut, pt, regs, NULL))
		return utp_hit_done(user_step, regs);
	if (READ_ONCE(pt->dbg_bp)) {
		/*
		 * A debugger's int3 is here too: the trap is its own as well.
		 * When the thread comes back here (the debugger rewinds to
		 * its breakpoint, takes it out and resumes), that is not a
		 * hit again, unless it stepped anywhere else first.
		 */
		instruction_pointer_set(regs, bp + UTP_BREAK_INSN_SIZE);
		ut->dbg.bp = bp;
		ut->dbg.sp = user_stack_pointer(regs);
		return utrace_signal_action(action) | utp_resume(ut);
	}
	if (utp_jump_through(pt, regs) ||
	    !utp_arch_emulate(&pt->ai, bp, regs))
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
	WRITE_ONCE(ut->hit.phase, UTP_HIT_STEPPING);
	ut->step.ai = pt->ai;
	ut->step.vaddr = bp;
	ut->step.slot = slot;
	ut->dbg.user_step = user_step;
	ut->dbg.user_step_traced = user_step && current->ptrace;
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

	WRITE_ONCE(ut->hit.phase, UTP_HIT_SLOW);
	idx = srcu_read_lock(&utp_srcu);
	ret = __utp_hit(ut, regs, bp, action);
	srcu_read_unlock(&utp_srcu, idx);
	/* or stepping, from the slow path straight on */
	if (ut->hit.phase == UTP_HIT_SLOW)
		WRITE_ONCE(ut->hit.phase, UTP_HIT_NONE);
	/* the point went meanwhile, and the process's last with it */
	if (utrace_resume_action(ret) == UTRACE_RESUME &&
	    utp_leave_if_detaching(ut))
		ret = (ret & ~UTRACE_RESUME_MASK) | UTRACE_DETACH;
	return ret;
}

/**
 * utp_sys_hit - a hit by a handler stub's system call
 * @regs:	current's user registers, in sys_uprobe()
 *
 * A point entered by a jump whose probe has a handler enters the kernel
 * from its stub by a system call, which costs less than the int3's
 * trap.  The handlers run as for a hit of the int3 (in the slow path's
 * context: they may sleep), with the registers a trap at the point shows
 * them; then the thread goes on in the stub, or where they moved it.  A
 * stub no probe of current's claims any more goes on without handlers
 * (utp_jump_sys_orphan()).  A call from anywhere but a handler stub
 * fails with -ENXIO, as mainline's does (libbpf calls it to see whether
 * the kernel has it); a stub whose saved registers cannot be read is a
 * bad instruction (SIGILL).
 *
 * Return: the value of rax from then on.
 */
long utp_sys_hit(struct pt_regs *regs)
{
	unsigned long stub = regs->ip - UTP_JUMP_SYS_RET, vaddr, sp;
	struct utp_arch_stub info;
	struct utp_thread *ut;
	struct utp_point *pt;
	int idx;

	ut = utp_own_thread();
	if (!ut || !utp_jump_sys_find(ut->proc, stub, &vaddr, &info)) {
		/* not from a stub: an error, as mainline's answer is */
		if (!utp_jump_sys_orphan(stub, &info))
			return -ENXIO;
		/* a stub all the same: it goes on, without handlers */
		if (utp_arch_sys_enter(regs, 0))
			goto bad;
		return utp_arch_sys_leave(regs, 0, user_stack_pointer(regs),
					  stub, &info);
	}
	if (utp_arch_sys_enter(regs, vaddr))
		goto bad;
	sp = user_stack_pointer(regs);
	WRITE_ONCE(ut->hit.phase, UTP_HIT_SLOW);
	idx = srcu_read_lock(&utp_srcu);
	pt = xa_load(&ut->proc->points, vaddr);
	/* gone since the jump: the stub runs the instructions alone */
	if (pt && !READ_ONCE(pt->stale))
		utp_hit_handlers(ut, pt, regs, NULL);
	srcu_read_unlock(&utp_srcu, idx);
	WRITE_ONCE(ut->hit.phase, UTP_HIT_NONE);
	return utp_arch_sys_leave(regs, vaddr, sp, stub, &info);
bad:
	force_sig(SIGILL);
	return -1;
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
		if (utp_arch_post_step(&ut->step.ai, ut->step.vaddr,
				       ut->step.slot, regs))
			force_sig(SIGSEGV);
		else if (ut->dbg.user_step &&
			 (!ut->dbg.user_step_traced || current->ptrace))
			/* the trap of the step, unless its tracer has gone */
			utp_arch_step_trap(regs);
		utp_end_step(ut);
		return UTRACE_SIGNAL_IGN | utp_resume(ut);
	}
	if (instruction_pointer(regs) == ut->step.slot && info &&
	    info->si_code > 0 && utp_fault_signal(signo)) {
		/* the instruction faulted: as if at its own address */
		utp_arch_abort_step(ut->step.vaddr, regs);
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
	list_add_tail(&d->node, &ut->step.delayed);
	return UTRACE_SIGNAL_IGN | UTRACE_SINGLESTEP;
}

u32 utp_report_signal(u32 action, struct utrace_engine *engine,
		      struct task_struct *task, struct pt_regs *regs,
		      kernel_siginfo_t *info,
		      const struct k_sigaction *orig_ka,
		      struct k_sigaction *return_ka)
{
	struct utp_thread *ut = engine->data;

	/* traced now: its process goes back to int3s (utp_jump_place()) */
	if (unlikely(task->ptrace) && atomic_read(&ut->proc->njumped))
		utp_jump_kick(ut->proc);
	if (utrace_signal_action(action) == UTRACE_SIGNAL_REPORT)
		utp_jump_report(ut);
	if (ut->hit.phase == UTP_HIT_STEPPING)
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
	    instruction_pointer(regs) != ut->dbg.bp)
		ut->dbg.bp = 0;
	/*
	 * The SIGTRAP of an int3 this thread trapped on (a tracer can send
	 * one with SI_KERNEL too, from a syscall stop).
	 */
	if (info && info->si_signo == SIGTRAP && info->si_code == SI_KERNEL &&
	    ut->hit.int3_bp == utp_bp_addr(regs)) {
		ut->hit.int3_bp = 0;
		return utp_hit(ut, regs, utp_bp_addr(regs), action);
	}
	return utrace_signal_action(action) | utp_resume(ut);
}
