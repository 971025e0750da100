// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes: the out-of-line area.  Special mappings within reach of the
 * probed text, whose slots hold displaced instructions to single-step
 * or run through; filled lazily by the threads that need a slot.
 */
#include "internal.h"

void utp_xol_release(struct kref *kref)
{
	struct utp_xol *xol = container_of(kref, struct utp_xol, kref);
	int i;

	for (i = 0; i < UTP_XOL_PAGES; i++)
		if (xol->pages[i])
			__free_page(xol->pages[i]);
	kfree(xol);
}

/*
 * Out-of-line area.
 */

/*
 * A fault in a special mapping of @n pages, @pages[i] the page at
 * offset i, or NULL while it has none: SIGBUS there.  Also the jumps'
 * stubs' (jump_area.c).
 */
vm_fault_t utp_pages_fault(struct page *const *pages, unsigned long n,
			   struct vm_fault *vmf)
{
	struct page *page;

	if (vmf->pgoff >= n)
		return VM_FAULT_SIGBUS;
	page = READ_ONCE(pages[vmf->pgoff]);
	if (!page)
		return VM_FAULT_SIGBUS;
	get_page(page);
	vmf->page = page;
	return 0;
}

static vm_fault_t utp_xol_fault(const struct vm_special_mapping *sm,
				struct vm_area_struct *vma,
				struct vm_fault *vmf)
{
	struct utp_xol *xol = container_of(sm, struct utp_xol, sm);

	return utp_pages_fault(xol->pages, UTP_XOL_PAGES, vmf);
}

static int utp_xol_mremap(const struct vm_special_mapping *sm,
			  struct vm_area_struct *new_vma)
{
	return -EINVAL;
}

static void utp_xol_close(const struct vm_special_mapping *sm,
			  struct vm_area_struct *vma)
{
	struct utp_xol *xol = container_of(sm, struct utp_xol, sm);

	kref_put(&xol->kref, utp_xol_release);
}

/* Map a new area within reach of @vaddr in current's mm. */
static struct utp_xol *utp_xol_new(unsigned long vaddr)
{
	struct mm_struct *mm = current->mm;
	struct vm_unmapped_area_info info = {};
	struct vm_area_struct *vma;
	struct utp_xol *xol;
	unsigned long addr;

	xol = kzalloc(sizeof(*xol), GFP_KERNEL);
	if (!xol)
		return ERR_PTR(-ENOMEM);
	kref_init(&xol->kref);
	kref_get(&xol->kref);		/* the vma's, dropped by its close */
	xol->sm.name = "[utprobes]";
	xol->sm.fault = utp_xol_fault;
	xol->sm.mremap = utp_xol_mremap;
	xol->sm.close = utp_xol_close;

	/* page-aligned limits: the gap found starts at one */
	info.length = UTP_XOL_SIZE;
	info.low_limit = PAGE_ALIGN(max_t(unsigned long, mmap_min_addr,
					  vaddr > UTP_XOL_REACH ?
					  vaddr - UTP_XOL_REACH : 0));
	info.high_limit = min_t(unsigned long, TASK_SIZE,
				vaddr + UTP_XOL_REACH) & PAGE_MASK;
	if (mmap_write_lock_killable(mm)) {
		kfree(xol);
		return ERR_PTR(-EINTR);
	}
	addr = vm_unmapped_area(&info);
	if (IS_ERR_VALUE(addr)) {
		vma = ERR_PTR(addr);
	} else if (WARN_ON_ONCE(offset_in_page(addr))) {
		vma = ERR_PTR(-EINVAL);
	} else {
		vma = _install_special_mapping(mm, addr, UTP_XOL_SIZE,
					       VM_READ | VM_EXEC | VM_MAYREAD |
					       VM_MAYEXEC | VM_DONTCOPY |
					       VM_IO, &xol->sm);
	}
	mmap_write_unlock(mm);
	if (IS_ERR(vma)) {
		kfree(xol);
		return ERR_CAST(vma);
	}
	xol->start = addr;
	return xol;
}

/* An area of @proc with a free slot within reach of @vaddr, or NULL. */
static struct utp_xol *utp_xol_near(struct utp_proc *proc,
				    unsigned long vaddr)
{
	struct utp_xol *xol;

	lockdep_assert_held(&proc->xol_lock);
	list_for_each_entry(xol, &proc->xols, node)
		if (xol->used < UTP_XOL_SIZE / UTP_XOL_SLOT_SIZE &&
		    abs_diff(xol->start, vaddr) < UTP_XOL_REACH)
			return xol;
	return NULL;
}

/*
 * An area of @proc with a free slot within reach of @vaddr, mapped if
 * need be; its next slot is at xol->start + xol->used * slot size.
 * Runs in a thread of the process, with proc->xol_lock held.
 */
static struct utp_xol *utp_xol_find(struct utp_proc *proc,
				    unsigned long vaddr)
{
	struct utp_xol *xol = utp_xol_near(proc, vaddr);

	if (xol)
		return xol;
	xol = utp_xol_new(vaddr);
	if (!IS_ERR(xol))
		list_add(&xol->node, &proc->xols);
	return xol;
}

/*
 * Could a thread of @proc find or make a slot within reach of @vaddr?
 * An area with a free slot there, or a gap for a new one in @proc's mm.
 * The thread that needs the slot maps the area (utp_xol_new()): this
 * only lets a registration fail at once where no hit could go on.
 */
bool utp_xol_room(struct utp_proc *proc, unsigned long vaddr)
{
	VMA_ITERATOR(vmi, proc->mm, 0);
	unsigned long low, high, end;
	struct vm_area_struct *vma;
	bool room;

	mutex_lock(&proc->xol_lock);
	room = utp_xol_near(proc, vaddr);
	mutex_unlock(&proc->xol_lock);
	if (room)
		return true;

	low = PAGE_ALIGN(max_t(unsigned long, mmap_min_addr,
			       vaddr > UTP_XOL_REACH ? vaddr - UTP_XOL_REACH :
			       0));
	high = min_t(unsigned long, TASK_SIZE, vaddr + UTP_XOL_REACH) &
	       PAGE_MASK;
	end = low;
	mmap_read_lock(proc->mm);
	vma_iter_set(&vmi, low);
	for_each_vma_range(vmi, vma, high) {
		if (vma->vm_start > end && vma->vm_start - end >= UTP_XOL_SIZE)
			break;
		end = max(end, vma->vm_end);
	}
	room = vma || (high > end && high - end >= UTP_XOL_SIZE);
	mmap_read_unlock(proc->mm);
	return room;
}

/* Fill the next slot of @xol with @bytes and take it.  xol_lock held. */
static int utp_xol_fill(struct utp_xol *xol, const u8 *bytes)
{
	unsigned long off = xol->used * UTP_XOL_SLOT_SIZE;
	struct page *page = xol->pages[off / PAGE_SIZE];
	void *kaddr;

	if (!page) {
		page = alloc_page(GFP_HIGHUSER | __GFP_ZERO);
		if (!page)
			return -ENOMEM;
		WRITE_ONCE(xol->pages[off / PAGE_SIZE], page);
	}
	kaddr = kmap_local_page(page);
	memcpy(kaddr + offset_in_page(off), bytes, UTP_XOL_SLOT_SIZE);
	kunmap_local(kaddr);
	xol->used++;
	return 0;
}

/*
 * The slot of @pt, filled in on its first step.  Runs in a thread of
 * the process.  Returns 0 if none can be had, or if @pt has gone.
 */
unsigned long utp_slot(struct utp_proc *proc, struct utp_point *pt)
{
	u8 bytes[UTP_XOL_SLOT_SIZE];
	struct utp_xol *xol;
	/* pairs with the release below: the slot's bytes are written */
	unsigned long slot = smp_load_acquire(&pt->slot);

	if (slot)
		return slot;
	mutex_lock(&proc->xol_lock);
	slot = pt->slot;
	if (slot || pt->gone)
		goto out;
	xol = utp_xol_find(proc, pt->vaddr);
	if (IS_ERR(xol))
		goto out;
	slot = xol->start + xol->used * UTP_XOL_SLOT_SIZE;
	if (utp_arch_xol_copy(&pt->ai, pt->vaddr, slot, bytes) ||
	    (utp_arch_insn_through(&pt->ai) &&
	     xa_insert(&proc->slots, slot, xa_mk_value(pt->vaddr),
		       GFP_KERNEL)) ||
	    utp_xol_fill(xol, bytes)) {
		if (utp_arch_insn_through(&pt->ai))
			xa_erase(&proc->slots, slot);
		slot = 0;
		goto out;
	}
	/* publish the slot once its bytes are in place */
	smp_store_release(&pt->slot, slot);
out:
	mutex_unlock(&proc->xol_lock);
	return slot;
}
