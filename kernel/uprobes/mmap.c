// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes: mappings.  A new executable mapping of a probed file gets
 * the file's breakpoints before its process returns to user mode, and
 * mremap() moves a mapping's points with it.
 */
#include "internal.h"

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
