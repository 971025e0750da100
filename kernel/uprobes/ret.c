// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes: return probes.  A hit at a probed function's entry notes the
 * call (struct utp_ret) and makes its return address a return site; a
 * hit there takes the calls that returned, or were unwound, off the
 * thread's list and runs their return handlers.  Notes follow fork,
 * vfork and exec.
 */
#include "internal.h"
#include <trace/events/utprobes.h>

/*
 * Return probes.
 */

/* The probe of @ri, if it has one and it is still registered. */
struct utprobe *utp_ret_up(const struct utp_ret *ri)
{
	return ri->rp ? READ_ONCE(ri->rp->up) : NULL;
}

void utp_ret_probe_put(struct utp_ret_probe *rp)
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
void utp_ret_kfree(struct utp_ret *ri)
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
	struct utp_ret *ri = ut->ret.cache;

	if (!ri)
		return kmalloc(sizeof(*ri), trap ? GFP_ATOMIC : GFP_KERNEL);
	ut->ret.cache = ri->next;
	ut->ret.ncached--;
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
	if (ut && ut->ret.ncached < UTP_RET_CACHE) {
		utp_ret_probe_put(ri->rp);
		ri->rp = NULL;
		ri->next = ut->ret.cache;
		ut->ret.cache = ri;
		ut->ret.ncached++;
		return;
	}
	utp_ret_kfree(ri);
}

/*
 * Forget every call @ut follows; proc->lock held or @ut gone from it.
 * The probes are read in an RCU read section, which their removal
 * waits out.
 */
void utp_ret_free_all(struct utp_thread *ut)
{
	struct utp_ret *ri;

	rcu_read_lock();
	while ((ri = ut->ret.calls)) {
		ut->ret.calls = ri->next;
		utp_ret_free(NULL, ri);
	}
	rcu_read_unlock();
	ut->ret.depth = 0;
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

	while ((ri = ut->ret.calls) &&
	       (ri->stack < stack ||
		(ri->stack == stack && (ri->orig != ra || ri->func == func)))) {
		struct utprobe *up = utp_ret_up(ri);

		ut->ret.calls = ri->next;
		ut->ret.depth--;
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
	u8 buf[UTP_MAX_INSN_BYTES];
	struct utp_point *pt;
	int ret;

	rcu_read_lock();
	pt = xa_load(&proc->points, ra);
	rcu_read_unlock();
	if (pt)
		goto found;
	if (utp_points_full(proc))
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
	/* a jump there would hide the int3 from the returns */
	utp_jump_ret_site(pt);
	return pt;
}

/*
 * The return site at @ra, in the trap: only one that is there already,
 * its int3 in (NULL otherwise: making one may sleep).
 */
struct utp_point *utp_ret_site_trap(struct utp_proc *proc,
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
int utp_read_word(unsigned long addr, unsigned long *val, bool trap)
{
	if (trap)
		return copy_from_user_nofault(val, (void __user *)addr,
					      sizeof(*val)) ? -EFAULT : 0;
	return get_user(*val, (unsigned long __user *)addr);
}

/*
 * @pt, at a function's entry, was hit: follow the call to its return for
 * each return probe there; in the int3 trap if @trap, with what the trap
 * read of the call then.
 */
void utp_ret_enter(struct utp_thread *ut, struct utp_point *pt,
		   struct pt_regs *regs, const struct utp_trap_read *trap)
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
		if (trap && !utp_trap_still_ok(up))
			continue;
		if (!now) {
			/* the first return probe here: where does it return? */
			now = ktime_get_ns();
			if (trap) {
				/* read by utp_trap_enter_ok() */
				ra = trap->ra;
				site = trap->site;
				if (site)
					utp_ret_drop_unwound(ut, stack, ra,
							     pt->vaddr);
			} else if (stack && !utp_read_word(stack, &ra, false)) {
				utp_ret_drop_unwound(ut, stack, ra, pt->vaddr);
				site = utp_ret_site(ut->proc, ra);
			}
		}
		ri = NULL;
		if (site && ut->ret.depth < UTPROBE_RET_DEPTH_MAX)
			ri = utp_ret_alloc(ut, !!trap);
		if (!ri) {
			this_cpu_inc(up->rets->missed);
			continue;
		}
		ri->rp = utp_ret_probe_get(up->ret_probe);
		ri->func = pt->vaddr;
		ri->orig = ra;
		ri->stack = stack;
		ri->entry_ns = now;
		ri->next = ut->ret.calls;
		ut->ret.calls = ri;
		ut->ret.depth++;
		this_cpu_inc(up->rets->pending);
	}
}

/*
 * The return site @pt was hit: calls returning there have returned, and
 * those below were unwound.  The ip is the return address.  In the
 * int3 trap if @trap, with what the trap read of the return then.
 */
void utp_ret_hit(struct utp_thread *ut, struct utp_point *pt,
		 struct pt_regs *regs, const struct utp_trap_read *trap)
{
	unsigned long stack = utp_arch_ret_popped(regs), ra;
	struct utprobe_return ret;
	struct utp_ret *ri;

	/*
	 * A return has just popped this address.  A jump here (a loop,
	 * the way on from a catch block) finds what a later call left.
	 * The trap has read it already (utp_trap_returns_ok()).
	 */
	if (trap && trap->returning != UTP_TRAP_UNREAD) {
		if (trap->returning == UTP_TRAP_NOT_RETURN)
			return;
	} else if (utp_read_word(stack, &ra, !!trap) || ra != pt->vaddr) {
		return;
	}
	utp_ret_drop_unwound(ut, stack, pt->vaddr, 0);
	while ((ri = ut->ret.calls) && ri->stack == stack) {
		struct utprobe *up = utp_ret_up(ri);

		ut->ret.calls = ri->next;
		ut->ret.depth--;
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

	for (ri = ut->ret.calls; ri; ri = ri->next) {
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
void utp_ret_vfork(struct utp_thread *ut, struct utp_thread *cut)
{
	struct utprobe *up;
	struct utp_ret *ri;
	int srcu;

	srcu = srcu_read_lock(&utp_srcu);
	cut->ret.calls = utp_ret_copy(ut, utp_keep_all);
	for (ri = cut->ret.calls; ri; ri = ri->next) {
		cut->ret.depth++;
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
void utp_ret_fork(struct utp_thread *ut)
{
	struct utp_fork_work *w = ut->fork_pending;
	int srcu;

	if (!ut->ret.calls || !w)
		return;
	srcu = srcu_read_lock(&utp_srcu);
	w->rets = utp_ret_copy(ut, utp_keep_file);
	srcu_read_unlock(&utp_srcu, srcu);
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
void utp_ret_sweep(struct utp_proc *proc)
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

/*
 * The forked child follows the calls of its parent's probes on files
 * that are its own probes too (utp_fork_work() made them so), with
 * return sites of its own: those it inherited went at the fork.
 */
void utp_ret_adopt(struct utp_fork_work *w)
{
	struct utp_thread *ut = utp_current_thread();
	struct utp_ret *ri, **tail;

	if (!ut || ut->ret.calls)
		return;
	tail = &ut->ret.calls;
	while ((ri = w->rets)) {
		/* cleared under utp_mutex, which is held: up is there */
		struct utprobe *up = utp_ret_up(ri);

		w->rets = ri->next;
		ri->next = NULL;
		if (!up || !utp_consumes(ut->proc, up, ri->func) ||
		    ut->ret.depth >= UTPROBE_RET_DEPTH_MAX ||
		    !utp_ret_site(ut->proc, ri->orig)) {
			utp_ret_kfree(ri);
			continue;
		}
		this_cpu_inc(up->rets->pending);
		*tail = ri;
		tail = &ri->next;
		ut->ret.depth++;
	}
}
