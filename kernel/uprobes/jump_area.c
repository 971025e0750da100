// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes: the jump areas.  Stubs and their counters are special
 * mappings of a process within reach of its text; a stub is made for a
 * window once and never reused, and a probe's count is the sum of its
 * stub's counters over the slots.
 */
#include "jump.h"

/*
 * Counter slots per area: a power of two, enough for each CPU to have
 * its own, and for threads hashed to slots by their stacks (where the
 * CPU number is slow to read) to rarely share one.  A slot's page is
 * allocated when a stub first counts in it.
 */
#define UTP_JUMP_MIN_SLOTS	64
#define UTP_JUMP_MAX_SLOTS	1024
static unsigned int utp_jump_slots;

/*
 * Areas.
 */

void utp_jarea_release(struct kref *kref)
{
	struct utp_jarea *a = container_of(kref, struct utp_jarea, kref);
	unsigned int i;

	for (i = 0; i < UTP_JAREA_TEXT_PAGES; i++)
		if (a->text[i])
			__free_page(a->text[i]);
	for (i = 0; i < utp_jump_slots; i++)
		if (a->cnt[i])
			__free_page(a->cnt[i]);
	kfree(a);
}

static vm_fault_t utp_jarea_text_fault(const struct vm_special_mapping *sm,
				       struct vm_area_struct *vma,
				       struct vm_fault *vmf)
{
	struct utp_jarea *a = container_of(sm, struct utp_jarea, text_sm);

	return utp_pages_fault(a->text, UTP_JAREA_TEXT_PAGES, vmf);
}

/*
 * A slot's counters, on its first count: a zeroed page, charged to the
 * process, mapped by pfn (the mapping is VM_PFNMAP) and kept until the
 * area goes.  Two threads faulting on it at once map the same page.
 */
static vm_fault_t utp_jarea_cnt_fault(const struct vm_special_mapping *sm,
				      struct vm_area_struct *vma,
				      struct vm_fault *vmf)
{
	struct utp_jarea *a = container_of(sm, struct utp_jarea, cnt_sm);
	struct page *page, *old;

	if (vmf->pgoff >= utp_jump_slots)
		return VM_FAULT_SIGBUS;
	page = READ_ONCE(a->cnt[vmf->pgoff]);
	if (!page) {
		page = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		if (!page)
			return VM_FAULT_OOM;
		old = cmpxchg_release(&a->cnt[vmf->pgoff], NULL, page);
		if (old) {
			__free_page(page);
			page = old;
		}
	}
	return vmf_insert_pfn(vma, vmf->address, page_to_pfn(page));
}

static int utp_jarea_mremap(const struct vm_special_mapping *sm,
			    struct vm_area_struct *new_vma)
{
	return -EINVAL;
}

static void utp_jarea_text_close(const struct vm_special_mapping *sm,
				 struct vm_area_struct *vma)
{
	struct utp_jarea *a = container_of(sm, struct utp_jarea, text_sm);

	kref_put(&a->kref, utp_jarea_release);
}

static void utp_jarea_cnt_close(const struct vm_special_mapping *sm,
				struct vm_area_struct *vma)
{
	struct utp_jarea *a = container_of(sm, struct utp_jarea, cnt_sm);

	kref_put(&a->kref, utp_jarea_release);
}

/*
 * A gap of @size bytes in @mm within reach of @vaddr, clear of a stack's
 * guard gap, or -ENOMEM.  mmap_lock held.
 */
static unsigned long utp_jarea_gap(struct mm_struct *mm, unsigned long vaddr,
				   unsigned long size)
{
	VMA_ITERATOR(vmi, mm, 0);
	struct vm_area_struct *vma;
	unsigned long low, high, end;

	low = PAGE_ALIGN(max_t(unsigned long, mmap_min_addr,
			       vaddr > UTP_XOL_REACH ? vaddr - UTP_XOL_REACH :
			       0));
	high = min_t(unsigned long, mm->task_size, vaddr + UTP_XOL_REACH) &
	       PAGE_MASK;
	end = low;
	vma_iter_set(&vmi, low);
	for_each_vma_range(vmi, vma, high) {
		unsigned long top = vma->vm_start;

		if (vma->vm_flags & VM_GROWSDOWN)
			top = top > stack_guard_gap ? top - stack_guard_gap : 0;
		if (top > end && top - end >= size)
			return end;
		end = max(end, vma->vm_end);
	}
	return high > end && high - end >= size ? end : -ENOMEM;
}

/*
 * Map @a's stubs and counters in @mm near @vaddr: the stubs read and
 * executed (a fault finds their pages), the counters shared, writable
 * and mapped by pfn as they fault in.  Neither is copied by fork, moved
 * or split.  mmap_lock held.
 */
static int utp_jarea_map(struct mm_struct *mm, struct utp_jarea *a,
			 unsigned long vaddr)
{
	unsigned long cnt_size = utp_jump_slots * PAGE_SIZE, addr;
	struct vm_area_struct *vma;

	addr = utp_jarea_gap(mm, vaddr, UTP_JAREA_TEXT_SIZE + cnt_size);
	if (IS_ERR_VALUE(addr))
		return -ENOSPC;
	vma = _install_special_mapping(mm, addr, UTP_JAREA_TEXT_SIZE,
				       VM_READ | VM_EXEC | VM_MAYREAD |
				       VM_MAYEXEC | VM_DONTCOPY | VM_IO,
				       &a->text_sm);
	if (IS_ERR(vma))
		return PTR_ERR(vma);
	kref_get(&a->kref);
	vma = _install_special_mapping(mm, addr + UTP_JAREA_TEXT_SIZE, cnt_size,
				       VM_READ | VM_WRITE | VM_SHARED |
				       VM_MAYREAD | VM_MAYWRITE | VM_MAYSHARE |
				       VM_DONTCOPY | VM_PFNMAP | VM_IO |
				       VM_DONTDUMP, &a->cnt_sm);
	if (IS_ERR(vma)) {
		do_munmap(mm, addr, UTP_JAREA_TEXT_SIZE, NULL);
		return PTR_ERR(vma);
	}
	kref_get(&a->kref);
	a->start = addr;
	return 0;
}

/* A new area of @proc within reach of @vaddr.  utp_mutex held. */
static struct utp_jarea *utp_jarea_new(struct utp_proc *proc,
				       unsigned long vaddr)
{
	struct utp_jarea *a;
	int ret;

	a = kzalloc(struct_size(a, cnt, utp_jump_slots), GFP_KERNEL_ACCOUNT);
	if (!a)
		return ERR_PTR(-ENOMEM);
	kref_init(&a->kref);
	a->text_sm.name = "[utprobes-jump]";
	a->text_sm.fault = utp_jarea_text_fault;
	a->text_sm.mremap = utp_jarea_mremap;
	a->text_sm.close = utp_jarea_text_close;
	a->cnt_sm.name = "[utprobes-count]";
	a->cnt_sm.fault = utp_jarea_cnt_fault;
	a->cnt_sm.mremap = utp_jarea_mremap;
	a->cnt_sm.close = utp_jarea_cnt_close;
	mmap_write_lock(proc->mm);
	ret = utp_jarea_map(proc->mm, a, vaddr);
	mmap_write_unlock(proc->mm);
	if (ret)
		goto fail;
	list_add(&a->node, &proc->jareas);
	return a;
fail:
	kref_put(&a->kref, utp_jarea_release);
	return ERR_PTR(ret);
}

/* The sum of @j's counters, in the slots counted in so far. */
u64 utp_jump_sum(const struct utp_jump *j)
{
	unsigned int i;
	u64 sum = 0;

	for (i = 0; i < utp_jump_slots; i++) {
		/* pairs with cmpxchg_release() in utp_jarea_cnt_fault() */
		struct page *page = smp_load_acquire(&j->area->cnt[i]);

		if (page)
			sum += READ_ONCE(((u64 *)page_address(page))[j->idx]);
	}
	return sum;
}

/*
 * Stubs.
 */

/*
 * Make a stub for @w at @vaddr in @proc, a handler's if @sys, or reuse
 * the one of that kind made before.
 */
int utp_jump_make(struct utp_proc *proc, unsigned long vaddr,
		  const struct utp_arch_window *w, const u8 *orig,
		  bool sys, struct utp_jump **jp)
{
	struct xarray *xa = sys ? &proc->jsys : &proc->jumps;
	u8 bytes[UTP_JUMP_STUB_SIZE];
	struct utp_jarea *a = NULL, *t;
	struct utp_jump *j = xa_load(xa, vaddr);
	unsigned long off;
	struct page *page;
	void *kaddr;
	int ret;

	if (j && j->len == w->len && !memcmp(j->orig, orig, w->len)) {
		*jp = j;
		return 0;
	}
	list_for_each_entry(t, &proc->jareas, node)
		if (t->used < UTP_JAREA_STUBS &&
		    abs_diff(t->start, vaddr) < UTP_XOL_REACH) {
			a = t;
			break;
		}
	if (!a) {
		a = utp_jarea_new(proc, vaddr);
		if (IS_ERR(a))
			return PTR_ERR(a);
	}
	j = kzalloc(sizeof(*j), GFP_KERNEL_ACCOUNT);
	if (!j)
		return -ENOMEM;
	j->idx = a->used;
	j->stub = a->start + j->idx * UTP_JUMP_STUB_SIZE;
	if (sys)
		ret = utp_arch_jump_sys_stub(w, vaddr, j->stub, bytes,
					     &j->info);
	else
		ret = utp_arch_jump_stub(w, vaddr, j->stub,
					 a->start + UTP_JAREA_TEXT_SIZE +
					 j->idx * sizeof(u64),
					 utp_jump_slots - 1, bytes, &j->info);
	if (ret)
		goto fail;
	off = j->idx * UTP_JUMP_STUB_SIZE;
	page = a->text[off / PAGE_SIZE];
	if (!page) {
		ret = -ENOMEM;
		page = alloc_page(GFP_HIGHUSER | __GFP_ZERO | __GFP_ACCOUNT);
		if (!page)
			goto fail;
		WRITE_ONCE(a->text[off / PAGE_SIZE], page);
	}
	ret = xa_err(xa_store(xa, vaddr, j, GFP_KERNEL_ACCOUNT));
	if (ret)
		goto fail;
	if (sys) {
		ret = xa_err(xa_store(&proc->jstubs, j->stub, j,
				      GFP_KERNEL_ACCOUNT));
		if (ret) {
			xa_erase(xa, vaddr);
			goto fail;
		}
	}
	kaddr = kmap_local_page(page);
	memcpy(kaddr + offset_in_page(off), bytes, UTP_JUMP_STUB_SIZE);
	kunmap_local(kaddr);
	a->used++;
	kref_get(&a->kref);
	j->area = a;
	j->vaddr = vaddr;
	j->sys = sys;
	j->len = w->len;
	memcpy(j->orig, orig, w->len);
	utp_arch_jump_insn(vaddr, j->stub, j->jmp);
	/* the list owns it; the xarrays find the newest by address */
	list_add(&j->node, &proc->jump_list);
	*jp = j;
	return 0;
fail:
	kfree(j);
	return ret;
}

/**
 * utp_jump_sys_orphan - a handler stub that no process of ours claims
 * @stub:	where the stub would begin, in current's mm
 * @info:	where its parts are, if it is one
 *
 * A thread may come back to a stub however late (a signal frame), after
 * its process's probes, and the process itself, have gone; or be one
 * that shares the mm without being one of the process's threads.  The
 * stub's call is still answered, without handlers: the mapping is one
 * of our stub areas (its pages are the kernel's, read-only to the
 * process) and the bytes there are a handler stub's.
 *
 * Return: true if @stub is a handler stub in current's mm.
 */
bool utp_jump_sys_orphan(unsigned long stub, struct utp_arch_stub *info)
{
	struct mm_struct *mm = current->mm;
	const struct vm_special_mapping *sm;
	struct vm_area_struct *vma;
	struct utp_jarea *a;
	unsigned long off;
	struct page *page;
	bool ok = false;
	void *kaddr;

	if (!mm)
		return false;
	mmap_read_lock(mm);
	vma = vma_lookup(mm, stub);
	sm = vma ? vma->vm_private_data : NULL;
	if (!sm || !vma_is_special_mapping(vma, sm) ||
	    sm->fault != utp_jarea_text_fault)
		goto out;
	/* the vma holds a reference to its area */
	a = container_of(sm, struct utp_jarea, text_sm);
	off = stub - a->start;
	if (off % UTP_JUMP_STUB_SIZE ||
	    off >= READ_ONCE(a->used) * UTP_JUMP_STUB_SIZE)
		goto out;
	page = READ_ONCE(a->text[off / PAGE_SIZE]);
	if (!page)
		goto out;
	kaddr = kmap_local_page(page);
	ok = utp_arch_is_sys_stub(kaddr + offset_in_page(off), info);
	kunmap_local(kaddr);
out:
	mmap_read_unlock(mm);
	return ok;
}

/**
 * utp_jump_sys_find - the handler stub a system call came from
 * @proc:	current's process
 * @stub:	where the stub would begin
 * @vaddr:	its window's address, if it is one
 * @info:	where its parts are
 *
 * Return: true if @stub is a handler stub of @proc.
 */
bool utp_jump_sys_find(struct utp_proc *proc, unsigned long stub,
		       unsigned long *vaddr, struct utp_arch_stub *info)
{
	const struct utp_jump *j;
	bool found = false;

	/* a stub goes with its process, after RCU's readers */
	rcu_read_lock();
	j = xa_load(&proc->jstubs, stub);
	if (j) {
		*vaddr = j->vaddr;
		*info = j->info;
		found = true;
	}
	rcu_read_unlock();
	return found;
}

static int __init utp_jump_init(void)
{
	utp_jump_slots = clamp_t(unsigned int, roundup_pow_of_two(nr_cpu_ids),
				 UTP_JUMP_MIN_SLOTS, UTP_JUMP_MAX_SLOTS);
	return 0;
}
early_initcall(utp_jump_init);
