// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes: placing points.  A probe is added at an address of a process
 * (utp_add()): a new point, its int3 written at once or with a batch
 * (utp_place_pokes()), or a consumer more of a point there; an int3
 * already in the text is either a debugger's (refused) or one a forked
 * child inherited and is about to take over (utp_int3_inherited()).
 */
#include "internal.h"

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

	if (utp_points_full(proc))
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
	if (defer && defer->n < defer->max) {
		defer->pk[defer->n++] = (struct utp_poke){
			.vaddr = vaddr, .old = utp_arch_insn_opcode(ai),
			.new = UTP_BREAK_INSN, .pt = pt, .up = up,
		};
		return 0;
	}
	ret = __utp_poke(proc->mm, vaddr, utp_arch_insn_opcode(ai),
			 UTP_BREAK_INSN, pt, up);
	if (ret) {
		utp_point_drop(proc, pt);
		return ret;
	}
	if (mode == UTP_ADD_LIVE)
		proc->unsynced = true;
	return 0;
}

/*
 * Is @up at @pt already?  Both lists are walked together, so that the
 * shorter one decides: a point may have thousands of probes (a batch
 * of them on one address), a probe thousands of places (a file mapped
 * by many processes).
 */
static bool utp_point_has(struct utp_point *pt, struct utprobe *up)
{
	struct list_head *a = pt->consumers.next, *b = up->consumers.next;

	for (; a != &pt->consumers && b != &up->consumers;
	     a = a->next, b = b->next)
		if (list_entry(a, struct utp_consumer, point_node)->up == up ||
		    list_entry(b, struct utp_consumer, probe_node)->point == pt)
			return true;
	return false;
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
int utp_add(struct utprobe *up, struct task_struct *task,
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

		/*
		 * An int3 that is not ours: a debugger's, a mainline uprobe's.
		 * In a fresh mapping, the deferred write finds it instead (it
		 * writes over the instruction's own byte only).
		 */
		ret = -EBUSY;
		if (mode == UTP_ADD_FRESH && defer)
			ret = 0;
		else if (access_remote_vm(proc->mm, vaddr, &byte, 1,
					  FOLL_FORCE) != 1)
			ret = -EFAULT;
		else if (byte != UTP_BREAK_INSN || mode == UTP_ADD_INHERITED)
			ret = 0;
		else if (up->inode && mode == UTP_ADD_LIVE && !quiesced)
			goto quiesce;
		else if (up->inode && quiesced)
			ret = utp_int3_inherited(proc, vaddr);
		/* a jump's window holds @vaddr: out of the way first */
		if (!ret && mode != UTP_ADD_INHERITED)
			utp_jump_clear_at(proc, vaddr, quiesced);
		if (!ret)
			ret = utp_point_new(proc, up, vaddr, ai, mode, defer,
					    &pt);
		if (ret)
			goto out;
	} else {
		ret = 0;
		if (utp_point_has(pt, up))
			goto out;
		/* a second probe here: its hits trap, as the first's do */
		utp_jump_clear_at(proc, vaddr, quiesced);
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
	utp_jump_join(pt, c, mode == UTP_ADD_INHERITED);
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
void utp_point_restore(struct utp_proc *proc, struct utp_point *pt)
{
	/* not under a debugger's breakpoint, whose int3 it is then */
	__utp_poke(proc->mm, pt->vaddr, UTP_BREAK_INSN,
		   utp_arch_insn_opcode(&pt->ai), pt, NULL);
}

/* Does @up have a consumer at @vaddr in @proc?  utp_mutex held. */
bool utp_consumes(struct utp_proc *proc, struct utprobe *up,
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

/* Can a probe on a file that did not get a place with @err go on? */
bool utp_file_place_gone(int err)
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
 * not go in goes, with its probes: no thread can have hit it.  Unless
 * @fresh (text no thread has run yet), the process is to be synced
 * after.  Returns the first error that is one.  utp_mutex held.
 */
int utp_place_pokes(struct mm_struct *mm, struct utp_pokes *pokes, bool fresh)
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
			proc->unsynced |= !fresh;
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
 * The fork works queued and not run yet: their children's int3s at the
 * kept addresses are theirs to take over (utp_int3_inherited()).
 */
static LIST_HEAD(utp_forks);
/* guards utp_forks; taken with or without utp_mutex */
static DEFINE_SPINLOCK(utp_forks_lock);

/* @w, queued to its child (whose mm it has), claims the kept int3s */
void utp_forks_add(struct utp_fork_work *w)
{
	spin_lock(&utp_forks_lock);
	list_add(&w->node, &utp_forks);
	spin_unlock(&utp_forks_lock);
}

/* @w runs, or will not: its child's int3s are no longer claimed */
void utp_forks_del(struct utp_fork_work *w)
{
	spin_lock(&utp_forks_lock);
	list_del(&w->node);
	spin_unlock(&utp_forks_lock);
}

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
int utp_int3_inherited(struct utp_proc *proc, unsigned long vaddr)
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
