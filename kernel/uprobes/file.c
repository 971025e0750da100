// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes: probes on files.  The processes mapping a probed file get
 * its points: a forked child inherits its parent's, a new mapping gets
 * them before its process returns to user mode, and mremap() moves them.
 * SDT semaphores are raised in each process a probe applies to.
 */
#include "internal.h"

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
 * not 0 and the same file offset is still mapped there, else where a
 * mapping of the file holds it now (found again as mainline does at each
 * update: the program may have moved its data with mremap(), which
 * moved the counter).  *@vaddr is then where the counter is
 * raised, or 0 once lowered (or found gone), set under @mm's mmap_lock:
 * a fork, which copies the counter under it, sees the two agree.  A
 * counter at 0 is not lowered: the program may have written it.
 * Returns 0, -ENOENT if the file's data is not mapped (yet), or
 * another -errno.  Not under @mm's mmap_lock.
 */
int utp_ref_update(struct mm_struct *mm, struct inode *inode,
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
	}
	if (!vma) {
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
void utp_ref_raise(struct utp_proc *proc, struct utp_consumer *c)
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

/*
 * The fork works queued and not run yet: their children's int3s at the
 * kept addresses are theirs to take over (utp_int3_inherited()).
 */
static LIST_HEAD(utp_forks);
/* The bytes a fork's copy of the text gets back, written a page at a time. */
#define UTP_FORK_POKES		256

static DEFINE_SPINLOCK(utp_forks_lock);

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
	struct utp_poke stack_pk[2 * UTP_JUMP_SIZE], *pk;
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
		if (max - n < UTP_JUMP_SIZE ||
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
 * Place the probes on @inode at offsets [@from, @to), mapped by current
 * at @vaddr for @from: no thread has run that text yet.  Their int3s
 * go in a page at a time, after all their points are made.  utp_mutex
 * held.
 */
static void utp_mmap_place(struct inode *inode, loff_t from, loff_t to,
			   unsigned long vaddr)
{
	struct utp_pokes pokes = {};
	struct utprobe *up;

	for (up = utp_files_first(inode, from); utp_file_at(up, inode, to);
	     up = utp_files_next(up))
		pokes.max++;
	if (!pokes.max)
		return;
	pokes.pk = kvmalloc_array(pokes.max, sizeof(*pokes.pk), GFP_KERNEL);
	if (!pokes.pk)
		pokes.max = 0;	/* each written at once, then */
	for (up = utp_files_first(inode, from); utp_file_at(up, inode, to);
	     up = utp_files_next(up))
		if (utp_in_scope(up, current))
			utp_add(up, current, vaddr + (up->offset - from),
				up->insn, UTP_ADD_FRESH, &pokes);
	utp_place_pokes(current->mm, &pokes, true);
	kvfree(pokes.pk);
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
		if (utp_thread_leave(ut)) {
			utp_control(current, ut->engine, UTRACE_DETACH);
			utp_thread_free(ut);
		}
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
		utp_mmap_place(file_inode(w->file), start, start + len,
			       w->start);
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
	struct utp_thread *ut = utp_own_thread();

	/* not the mm an exec is leaving: the new image is mapped first */
	if (ut && ut->proc->mm == mm)
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
	if (RB_EMPTY_ROOT(&utp_files) && !ut)
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
	/* the jumps that moved are not right at the new place */
	utp_jump_moved(ut->proc, old_addr, old_addr + old_len, new_addr);
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
int utp_read_file_text(struct inode *inode, loff_t offset, u8 *buf,
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
