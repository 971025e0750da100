// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes: what a forked child inherits of the probes on files.
 */
#include "internal.h"

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

/* The bytes a fork's copy of the text gets back, written a page at a time. */
#define UTP_FORK_POKES		256

static bool utp_point_on_file(struct utp_point *pt)
{
	struct utp_consumer *c;

	list_for_each_entry_rcu(c, &pt->consumers, point_node, true)
		if (c->up->inode)
			return true;
	return false;
}

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

void utp_fork_work_free(struct utp_fork_work *w)
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
	utp_forks_add(w);
	if (!task_work_add(child, &w->cb, TWA_RESUME))
		return;
	utp_forks_del(w);
	/* the child will not run user code: nothing to keep */
	mm = get_task_mm(child);
	if (mm) {
		xa_for_each(&w->kept, idx, k)
			utp_poke(mm, k->vaddr, UTP_BREAK_INSN, utp_arch_insn_opcode(&k->ai));
		mmput(mm);
	}
	utp_fork_work_free(w);
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
	struct utp_poke stack_pk[2 * UTP_JUMP_FORK_POKES], *pk;
	unsigned int n = 0, max = UTP_FORK_POKES;
	struct utp_thread *ut;
	struct utp_proc *proc;
	struct utp_point *pt;
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
	pk = kmalloc_array(max, sizeof(*pk), GFP_KERNEL);
	if (!pk) {
		pk = stack_pk;
		max = ARRAY_SIZE(stack_pk);
	}
	srcu = srcu_read_lock(&utp_srcu);
	xa_for_each(&proc->points, idx, pt) {
		unsigned long vaddr = pt->vaddr;
		bool kept, jumped = false;
		u8 first;

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
		} else {
			jumped = READ_ONCE(pt->jumped);
		}
		kept = !READ_ONCE(pt->stale) && ut && utp_point_on_file(pt) &&
		       !utp_fork_keep(ut, pt);
		if (kept && !jumped)
			continue;
		/* the bytes of one page back with one copy of it */
		if (max - n < UTP_JUMP_FORK_POKES ||
		    (n && (pk[0].vaddr ^ vaddr) & PAGE_MASK)) {
			utp_poke_page_locked(mm, pk, n, false);
			n = 0;
		}
		/* a kept point's int3 stays, the copy of a jump goes */
		first = kept ? UTP_BREAK_INSN : utp_arch_insn_opcode(&pt->ai);
		if (jumped) {
			n += utp_jump_fork(pt, first, pk + n);
			continue;
		}
		pk[n++] = (struct utp_poke){
			.vaddr = vaddr, .old = UTP_BREAK_INSN, .new = first,
		};
	}
	if (n)
		utp_poke_page_locked(mm, pk, n, false);
	srcu_read_unlock(&utp_srcu, srcu);
	if (pk != stack_pk)
		kfree(pk);
	kref_put(&proc->kref, utp_proc_release);
}

/*
 * Threads of a probed process are followed; forked children get the
 * breakpoints of probes on files only.
 */
u32 utp_report_clone(enum utrace_resume_action action,
		     struct utrace_engine *engine,
		     struct task_struct *parent,
		     unsigned long clone_flags,
		     struct task_struct *child)
{
	struct utp_thread *ut = engine->data;
	struct utp_proc *proc = ut->proc;
	int err;

	/*
	 * A fork: __utprobe_dup_mmap() took the int3s out of its copy of the
	 * text but those the child takes over, before it first runs.
	 */
	if (!(clone_flags & CLONE_VM)) {
		utp_ret_fork(ut);
		utp_fork_queue(ut, child);
		return utp_resume(ut);
	}
	/*
	 * No point left: the child needs nothing, the parent lets go.
	 * utp_thread_attach() looks again, under the lock.
	 */
	if (READ_ONCE(proc->detaching))
		return utp_resume(ut);
	/*
	 * A thread, or a vfork child: it runs in the same mm, on the same
	 * breakpoints, so it is one of the process's threads for us until
	 * it execs or exits.  A registration's utp_proc_cover() may have
	 * attached it first (-EEXIST): it is followed all the same.
	 */
	err = utp_thread_attach(proc, child);
	if (!err || err == -EEXIST) {
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

/*
 * The child of a fork takes over the int3s it inherited: each is the
 * point of the probes on that file offset that exist now, those it was
 * made for or others registered since (utp_int3_inherited()), or goes.
 */
void utp_fork_work(struct callback_head *cb)
{
	struct utp_fork_work *w = container_of(cb, struct utp_fork_work, cb);
	struct utprobe *up;
	struct utp_kept *k;
	unsigned long idx;
	unsigned int i;
	int kept;

	mutex_lock(&utp_mutex);
	utp_forks_del(w);
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
		for (up = utp_files_first(k->inode, k->offset);
		     utp_file_at(up, k->inode, k->offset + 1);
		     up = utp_files_next(up))
			if (utp_in_scope(up, current) &&
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
