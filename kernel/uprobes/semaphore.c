// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes: SDT semaphores.  A probe with a semaphore (a counter in the
 * probed file's writable data, which the program tests before it makes
 * the probe's arguments) raises it in each process the probe applies
 * to, once the process maps it, and lowers it when it goes, as
 * mainline's reference counters do.  A fork's child has its parent's
 * raised counters in its copy of the data, which its own consumers take
 * over.
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
void utp_ref_retry(struct utp_proc *proc)
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
