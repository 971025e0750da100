// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes: probes entered by a jump.  A point whose one probe only
 * counts, and whose function's extent the probe gives, is entered by a
 * jmp rel32 over the instructions at the point (its window) to a stub
 * that adds one to a counter (in a slot of its CPU, or of its thread's
 * stack) and runs the window's instructions displaced: its hits never
 * enter the kernel.  The stubs and the counters are special mappings of
 * the process, within reach of its text (struct utp_jarea); the kernel
 * keeps their pages and sums a stub's counters when asked
 * (utprobe_hits()).
 *
 * The rules, each checked here and never taken from the caller:
 *  - the window is whole instructions that may move (utp_arch_jump_window())
 *    in one page, and no other point is inside it;
 *  - no direct branch of the function lands inside it
 *    (utp_arch_jump_scan(), over the extent the probe gives);
 *  - the jump goes in once every thread of the process has been looked
 *    at, none stopped (struct utp_jgp), and none was inside the window
 *    nor had a word inside it on the top of its stack (a signal frame's
 *    saved ip), else later;
 *  - the int3 is in first and stays correct throughout: the jump's tail
 *    goes in, then a sync, then its first byte; out in reverse.  A trap
 *    on the int3 meanwhile goes on in the stub's copy of the window
 *    (utp_jump_through()), never in the window's middle;
 *  - a process that is traced keeps int3s; a debugger's write into a
 *    window takes the jump out of that page first, for good.
 *
 * Stubs are never reused for another window, and go with the mm: a
 * thread may be in one however late (a signal frame), and finds the
 * window's instructions and the jump back there.
 *
 * Locking: utp_mutex serialises placing and removing jumps, and guards
 * pt->jump, the consumers' counts and proc->jareas; pt->jumped changes
 * under the mm's mmap_lock for writing, or for reading in a debugger's
 * write (which the others exclude), and is read anywhere.
 */
#include <linux/moduleparam.h>
#include <linux/once.h>
#include <linux/random.h>
#include <linux/siphash.h>

#include "internal.h"

#define UTP_JAREA_TEXT_PAGES	16
#define UTP_JAREA_TEXT_SIZE	(UTP_JAREA_TEXT_PAGES * PAGE_SIZE)
#define UTP_JAREA_STUBS		(UTP_JAREA_TEXT_SIZE / UTP_JUMP_STUB_SIZE)
/*
 * A thread's stack is searched this far above its stack pointer, within
 * the mapping the stack pointer is in.
 */
#define UTP_JUMP_STACK_SCAN	SZ_64K
/* Times a process is tried again while threads are inside windows. */
#define UTP_JUMP_TRIES		50
/* How long a fork's child runs on int3s before its look for jumps. */
#define UTP_JUMP_FORK_DELAY	(HZ / 10)
/* How long every thread of a process may take to be looked at. */
#define UTP_JUMP_GRACE_JIFFIES	(HZ / 5)

/* One page of counters per slot, a u64 per stub. */
static_assert(UTP_JAREA_STUBS * sizeof(u64) == PAGE_SIZE);

/*
 * Counter slots per area: a power of two, enough for each CPU to have
 * its own, and for threads hashed to slots by their stacks (where the
 * CPU number is slow to read) to rarely share one.  A slot's page is
 * allocated when a stub first counts in it.
 */
#define UTP_JUMP_MIN_SLOTS	64
#define UTP_JUMP_MAX_SLOTS	1024
static unsigned int utp_jump_slots;

/* Stubs and their counters in one process, within reach of its text. */
struct utp_jarea {
	struct vm_special_mapping text_sm;
	struct vm_special_mapping cnt_sm;
	struct kref kref;		/* the process's, and each vma's */
	struct list_head node;		/* in proc->jareas */
	unsigned long start;		/* the stubs; the counters follow */
	unsigned int used;		/* stubs made */
	struct page *text[UTP_JAREA_TEXT_PAGES];
	struct page *cnt[];		/* utp_jump_slots, as they fault in */
};

/* The stub of a window, and what the window held. */
struct utp_jump {
	struct list_head node;		/* in proc's list, freed with it */
	struct rcu_head rcu;		/* after utprobe_hits()' readers */
	struct utp_jarea *area;		/* referenced */
	unsigned long stub;
	unsigned int idx;		/* the stub's and its counters' */
	unsigned long vaddr;		/* the window's */
	bool sys;			/* a handler's: no count, a syscall */
	struct utp_arch_stub info;
	u8 len;
	u8 orig[UTP_JUMP_WINDOW_MAX];
	u8 jmp[UTP_JUMP_SIZE];
};

/*
 * A stub's counts that are a consumer's: all it counted since it began
 * counting for it (@base then).  In its probe's jcounts, under RCU.
 */
struct utp_jcount {
	struct list_head node;
	const struct utp_jump *j;
	u64 base;
	struct rcu_head rcu;
};

#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "utprobes."

/*
 * Are handlers called from stubs, by a system call (utp_jump_sys())?
 * Off: under emulation the call costs about what the trap does.  Read
 * when a point is looked at: a change reaches a probe at its next look
 * (placement, its event going on or off).
 */
static bool utp_syscall_handlers;
module_param_named(syscall_handlers, utp_syscall_handlers, bool, 0644);
MODULE_PARM_DESC(syscall_handlers,
		 "enter probes with handlers by a jump to a stub that calls them by a system call");

static const char *const utp_jump_whys[] = {
	[UTP_JW_OFF] = "no-extent",	[UTP_JW_PENDING] = "pending",
	[UTP_JW_JUMP] = "jump",		[UTP_JW_HANDLER] = "handler",
	[UTP_JW_SHARED] = "shared",	[UTP_JW_WINDOW] = "window",
	[UTP_JW_BRANCH] = "branch",	[UTP_JW_DECODE] = "decode",
	[UTP_JW_PAGE] = "page",		[UTP_JW_POINT] = "point",
	[UTP_JW_REACH] = "reach",	[UTP_JW_NOMEM] = "memory",
	[UTP_JW_PTRACE] = "ptrace",	[UTP_JW_BUSY] = "busy",
	[UTP_JW_DEBUGGER] = "debugger",	[UTP_JW_TEXT] = "text",
	[UTP_JW_UPROBES] = "uprobes",
};

/*
 * Areas.
 */

static void utp_jarea_release(struct kref *kref)
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
	struct page *page;

	if (vmf->pgoff >= UTP_JAREA_TEXT_PAGES)
		return VM_FAULT_SIGBUS;
	page = READ_ONCE(a->text[vmf->pgoff]);
	if (!page)
		return VM_FAULT_SIGBUS;
	get_page(page);
	vmf->page = page;
	return 0;
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
static u64 utp_jump_sum(const struct utp_jump *j)
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
static int utp_jump_make(struct utp_proc *proc, unsigned long vaddr,
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

/* The first consumer of @pt, its only one when it may jump. */
static struct utp_consumer *utp_jump_consumer(struct utp_point *pt)
{
	return list_first_entry_or_null(&pt->consumers, struct utp_consumer,
					point_node);
}

/* May @pt be entered by a jump, as far as its probes go?  utp_mutex held. */
static u8 utp_jump_why(struct utp_point *pt)
{
	struct utp_consumer *c = utp_jump_consumer(pt);
	struct utprobe *up;

	if (READ_ONCE(pt->jforeign))
		return UTP_JW_DEBUGGER;
	/* mainline's int3s go in without asking: not in its windows */
	if (test_bit(MMF_HAS_UPROBES, &pt->proc->mm->flags))
		return UTP_JW_UPROBES;
	if (!c || !c->up->func_size)
		return UTP_JW_OFF;
	up = c->up;
	if (!list_is_singular(&pt->consumers) || READ_ONCE(pt->ret_site))
		return UTP_JW_SHARED;
	/* a handler may be called from its stub: utp_jump_sys() */
	if (up->ret_handler || READ_ONCE(up->gone) ||
	    (up->handler && !READ_ONCE(up->counting) &&
	     !READ_ONCE(utp_syscall_handlers)))
		return UTP_JW_HANDLER;
	if (READ_ONCE(pt->stale) || READ_ONCE(pt->dbg_bp) || pt->moved_to)
		return UTP_JW_TEXT;
	return UTP_JW_PENDING;
}

/*
 * Is @pt, which may jump, to be entered by a handler stub: does its one
 * probe's handler do anything?  utp_mutex held.
 */
static bool utp_jump_sys(struct utp_point *pt)
{
	struct utprobe *up = utp_jump_consumer(pt)->up;

	return up->handler && !READ_ONCE(up->counting);
}

/* Does @why hold for good, the point's text and function being what they are? */
static bool utp_jump_decided(u8 why)
{
	return (why >= UTP_JW_WINDOW && why <= UTP_JW_PAGE) ||
	       why == UTP_JW_TEXT;
}

/* Is any point of @proc strictly inside [@vaddr, @vaddr + @len)? */
static bool utp_jump_point_inside(struct utp_proc *proc, unsigned long vaddr,
				  unsigned int len)
{
	unsigned long idx = vaddr + 1;

	return len > 1 && xa_find(&proc->points, &idx, vaddr + len - 1,
				  XA_PRESENT);
}

/*
 * The key of the scans' hashes, random: a process in a probe's scope
 * that writes its own copy of the function cannot make bytes of the
 * same hash, and so have its outcome taken for another process's.
 */
static siphash_key_t utp_jscan_key;

/*
 * utp_arch_jump_scan() of @up's function, as @buf holds it, for a
 * window of @wlen bytes: the outcome of the last scan of the same bytes
 * if there was one.  A library's function reads the same in every
 * process that maps it, and decoding it all for each of them (every
 * fork and exec of a process with thousands of probes) would cost far
 * more than the hash.  utp_mutex held.
 */
static int utp_jump_scan(struct utprobe *up, const u8 *buf, u8 wlen)
{
	u64 hash;
	int ret;

	get_random_once(&utp_jscan_key, sizeof(utp_jscan_key));
	hash = siphash(buf, up->func_size, &utp_jscan_key);

	if (up->jscan_wlen == wlen && up->jscan_hash == hash)
		return up->jscan_ret;
	ret = utp_arch_jump_scan(buf, up->func_size, up->func_pos, wlen);
	/* not for want of memory: the next look scans again */
	if (ret == -ENOMEM)
		return ret;
	up->jscan_hash = hash;
	up->jscan_wlen = wlen;
	up->jscan_ret = ret;
	return ret;
}

/*
 * The text a jump look reads, a chunk at a time: the points are looked
 * at in address order, and the functions of a library lie side by side,
 * so that one read of a chunk serves many of them.
 */
#define UTP_JUMP_CHUNK		SZ_64K

struct utp_jtext {
	u8 *buf;			/* UTP_JUMP_CHUNK bytes, or NULL */
	unsigned long start;		/* where buf[0] was read from */
	unsigned int len;		/* how much was read there */
	u8 *big;			/* a function longer than a chunk */
};

/*
 * @size bytes of @proc's text at @addr, read as a debugger reads them
 * (without our int3s and jumps): in @t's chunk, read anew at @addr if
 * they are not, up to the end of the mapping.  NULL if they cannot all
 * be read, or no memory (*@nomem).  Valid until the next call.
 */
static const u8 *utp_jump_text(struct utp_proc *proc, struct utp_jtext *t,
			       unsigned long addr, unsigned long size,
			       bool *nomem)
{
	struct vm_area_struct *vma;
	unsigned long end = 0;
	int got;

	*nomem = false;
	if (t->buf && addr >= t->start && addr + size <= t->start + t->len)
		return t->buf + (addr - t->start);
	if (!t->buf)
		t->buf = kvmalloc(UTP_JUMP_CHUNK, GFP_KERNEL);
	*nomem = !t->buf;
	if (!t->buf)
		return NULL;
	/* a chunk ends with the mapping: what follows is not this text */
	mmap_read_lock(proc->mm);
	vma = vma_lookup(proc->mm, addr);
	if (vma)
		end = min(vma->vm_end, addr + UTP_JUMP_CHUNK);
	mmap_read_unlock(proc->mm);
	t->len = 0;
	if (end >= addr + size) {
		got = access_remote_vm(proc->mm, addr, t->buf, end - addr,
				       FOLL_FORCE);
		t->start = addr;
		t->len = got;
		return got >= size ? t->buf : NULL;
	}
	/* longer than a chunk, or beyond its mapping: on its own */
	kvfree(t->big);
	t->big = kvmalloc(size, GFP_KERNEL);
	*nomem = !t->big;
	if (!t->big || access_remote_vm(proc->mm, addr, t->big, size,
					FOLL_FORCE) != size)
		return NULL;
	return t->big;
}

static void utp_jump_text_free(struct utp_jtext *t)
{
	kvfree(t->buf);
	kvfree(t->big);
}

/*
 * Look at @pt's function, read through @t, and make its stub:
 * UTP_JW_PENDING if it may jump now, or why not.  utp_mutex held.
 */
static u8 utp_jump_prepare(struct utp_proc *proc, struct utp_point *pt,
			   struct utp_jtext *t)
{
	struct utprobe *up = utp_jump_consumer(pt)->up;
	unsigned long size = up->func_size, pos = up->func_pos;
	struct utp_arch_window w;
	const u8 *buf;
	bool nomem;
	int ret;

	if (pt->jump && pt->jump->sys == utp_jump_sys(pt))
		return utp_jump_point_inside(proc, pt->vaddr, pt->jump->len) ?
		       UTP_JW_POINT : UTP_JW_PENDING;
	if (pos >= size || size > UTPROBE_FUNC_MAX || pt->vaddr < pos)
		return UTP_JW_DECODE;
	buf = utp_jump_text(proc, t, pt->vaddr - pos, size, &nomem);
	if (!buf)
		return nomem ? UTP_JW_NOMEM : UTP_JW_TEXT;
	if (memcmp(buf + pos, pt->ai.bytes, utp_arch_insn_len(&pt->ai)))
		return UTP_JW_TEXT;
	ret = utp_arch_jump_window(&w, buf + pos, size - pos);
	if (ret)
		return ret == -EILSEQ ? UTP_JW_DECODE : UTP_JW_WINDOW;
	ret = utp_jump_scan(up, buf, w.len);
	if (ret)
		return ret == -EXDEV ? UTP_JW_BRANCH : UTP_JW_DECODE;
	if ((pt->vaddr ^ (pt->vaddr + w.len - 1)) & PAGE_MASK)
		return UTP_JW_PAGE;
	if (utp_jump_point_inside(proc, pt->vaddr, w.len))
		return UTP_JW_POINT;
	ret = utp_jump_make(proc, pt->vaddr, &w, buf + pos, utp_jump_sys(pt),
			    &pt->jump);
	return ret == -ENOMEM ? UTP_JW_NOMEM : ret ? UTP_JW_REACH :
	       UTP_JW_PENDING;
}

/*
 * Threads.
 */

/* The point of @pts[0..@n) (by address) whose window holds @x inside. */
static int utp_jump_inside(struct utp_point **pts, unsigned int n,
			   unsigned long x)
{
	unsigned int lo = 0, hi = n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (pts[mid]->vaddr < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* pts[lo - 1] is the last that begins before @x */
	if (lo && x < pts[lo - 1]->vaddr + pts[lo - 1]->jump->len)
		return lo - 1;
	return -1;
}

/*
 * A look at every thread of a process while jumps go in or out, none of
 * them stopped: a grace period.  Each thread is looked at once, after it
 * began, where it cannot run user code until the look is over: asleep
 * (utp_jump_look_asleep()), or on its way back to user mode, by itself
 * (utp_jump_report(), which UTRACE_REPORT asks for; its kick is the only
 * cost to a thread that runs).  What a look finds holds from then on:
 * going in, the jump's body is set first, so that a thread outside a
 * window can only reach its middle through the int3, which goes on in
 * the stub (utp_jump_through()); going out, the jump and the body are
 * gone first, so that a thread past a stub's count does not come back
 * before it.
 */
struct utp_jgp {
	unsigned int seq;		/* proc->jgp_seq */
	bool out;			/* going out: not going in */
	struct utp_point **pts;		/* the points, by address */
	unsigned int n;
	bool *busy;			/* in: a thread in the window's middle */
	unsigned long *words;		/* in: a stack's top, searched: the caller's */
	unsigned long *own;		/* ... a thread's own look's; jgp_lock */
};

/* A thread of a process, as utp_jump_tasks() found it. */
struct utp_jump_task {
	struct task_struct *task;	/* referenced */
	struct utrace_engine *engine;	/* referenced */
	unsigned long asleep;		/* utp_asleep() then */
	unsigned long hit_bp;		/* a hit of this int3 to come */
	bool emulate;			/* ... which emulates, not the stub */
	bool queued;			/* a hit's task_work to run */
	bool in_hit;			/* in the slow path of a hit */
	bool seen;			/* looked at for this jgp already */
};

/* What a look at @ut needs of it, @ut's thread asleep or current. */
static void utp_jump_task_fill(struct utp_thread *ut, unsigned int seq,
			       struct utp_jump_task *jt)
{
	struct task_struct *task = ut->task;

	/* first: what follows is only read while it stays asleep */
	jt->asleep = task == current || task_curr(task) ? 0 :
		     utp_asleep(task);
	jt->hit_bp = 0;
	if (READ_ONCE(ut->hit_queued))
		jt->hit_bp = READ_ONCE(ut->hit_bp);
	else if (sigismember(&task->pending.signal, SIGTRAP))
		jt->hit_bp = READ_ONCE(ut->int3_bp);
	jt->emulate = READ_ONCE(ut->hit_emulate);
	jt->queued = READ_ONCE(ut->hit_queued);
	jt->in_hit = READ_ONCE(ut->in_hit) || ut->stepping;
	jt->seen = READ_ONCE(ut->jgp_seq) == seq;
}

/* The threads of @proc, and how many; or NULL.  Put them when done. */
static struct utp_jump_task *utp_jump_tasks(struct utp_proc *proc,
					    unsigned int seq, unsigned int *nr)
{
	struct utp_jump_task *tasks;
	struct utp_thread *ut;
	unsigned int n = 0, i = 0;

	spin_lock(&proc->lock);
	list_for_each_entry(ut, &proc->threads, node)
		n++;
	spin_unlock(&proc->lock);
	tasks = kvmalloc_array(max(n, 1U), sizeof(*tasks), GFP_KERNEL);
	if (!tasks)
		return NULL;
	spin_lock(&proc->lock);
	list_for_each_entry(ut, &proc->threads, node)
		if (i < n) {
			tasks[i].task = get_task_struct(ut->task);
			tasks[i].engine = ut->engine;
			utrace_engine_get(ut->engine);
			utp_jump_task_fill(ut, seq, &tasks[i++]);
		}
	spin_unlock(&proc->lock);
	*nr = i;
	return tasks;
}

static void utp_jump_tasks_put(struct utp_jump_task *tasks, unsigned int nr)
{
	while (nr--) {
		utrace_engine_put(tasks[nr].engine);
		put_task_struct(tasks[nr].task);
	}
	kvfree(tasks);
}

/*
 * The instruction whose slot (run through, then back) holds @ip, or 0:
 * a thread there goes on after that instruction in the text.
 */
static unsigned long utp_jump_slot_insn(struct utp_proc *proc,
					unsigned long ip)
{
	void *v = xa_load(&proc->slots, ip & ~(UTP_XOL_SLOT_SIZE - 1UL));

	return v ? xa_to_value(v) : 0;
}

/*
 * Is the word at @w of @words (read from the stack at @at) the saved ip
 * of a signal frame?  Then the word 176 bytes below is the frame's
 * restorer, the one after it the flags of its ucontext (a few bits),
 * and the word just below the ip the saved stack pointer, above it.
 */
static bool utp_jump_sigframe_ip(const unsigned long *words, unsigned int w,
				 unsigned long at)
{
	return w >= 22 && words[w - 21] < 0x100 && words[w - 1] > at;
}

/*
 * How much of the stack above @sp to search: up to where its mapping
 * ends, UTP_JUMP_STACK_SCAN at most.  What lies past it is not this
 * stack (another thread's, a library's data), where words that look
 * like a signal frame's would only keep windows busy for nothing; a
 * signal frame on another stack (below a sigaltstack frame, say) is not
 * searched for.
 */
static int utp_jump_stack_len(struct mm_struct *mm, unsigned long sp)
{
	struct vm_area_struct *vma;
	unsigned long end = 0;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, sp);
	if (vma)
		end = min(vma->vm_end, sp + UTP_JUMP_STACK_SCAN);
	mmap_read_unlock(mm);
	return end ? end - sp : 0;
}

/*
 * Look at @jt's thread for @g, where it cannot run user code until the
 * look is over: asleep, or in its own report if @self.  Going in, mark
 * in @g->busy each window whose middle, where the jump's bytes go, the
 * thread is in or would come back into: its ip there (but just after
 * the int3 with its hit to come and not emulated: that goes on in the
 * stub), in the slot of a window's instruction (it jumps back after it,
 * into the window), or a signal frame on the top of its stack whose
 * saved ip is inside, or in such a slot.  In its own report, a thread
 * inside a window goes on from the same instruction in the stub's copy
 * of it instead.  Going out, returns false while the thread is in a
 * stub before its count; and whenever a thread asleep in a hit's slow
 * path may still move.  The stack is read into @words.
 *
 * A thread looks at itself with proc->jgp_lock held, reading its stack
 * as its own memory; the caller of utp_jump_grace() looks at those
 * asleep without it, through access_remote_vm(), so that a thread's
 * look (its pause) never waits for another's.  Both only ever set
 * @g->busy.
 */
static bool utp_jump_look(struct utp_proc *proc, struct utp_jgp *g,
			  struct utp_jump_task *jt, bool self,
			  unsigned long *words)
{
	struct pt_regs *regs = task_pt_regs(jt->task);
	unsigned long ip = regs->ip, sp = regs->sp & ~7UL, s;
	unsigned int i, w;
	int k, got, len;

	if (jt->in_hit)
		return false;
	if (g->out) {
		for (i = 0; i < g->n; i++) {
			const struct utp_jump *j = g->pts[i]->jump;

			if (ip >= j->stub && ip < j->stub + j->info.counted)
				return false;
		}
		return true;
	}
	s = utp_jump_slot_insn(proc, ip);
	k = s ? utp_jump_inside(g->pts, g->n, s + 1) : -1;
	if (k >= 0)
		WRITE_ONCE(g->busy[k], true);
	/* a hit whose instruction is to be emulated: it ends inside */
	k = jt->hit_bp && jt->emulate ?
	    utp_jump_inside(g->pts, g->n, jt->hit_bp + 1) : -1;
	if (k >= 0 && g->pts[k]->vaddr == jt->hit_bp)
		WRITE_ONCE(g->busy[k], true);
	k = utp_jump_inside(g->pts, g->n, ip);
	if (k >= 0 && ip != g->pts[k]->vaddr) {
		struct utp_point *pt = g->pts[k];
		struct utp_jump *j = pt->jump;

		if (jt->hit_bp == pt->vaddr &&
		    ip == pt->vaddr + UTP_BREAK_INSN_SIZE && !jt->emulate)
			;	/* utp_jump_through() takes it */
		else if (self && !jt->hit_bp)
			regs->ip = j->stub + j->info.body + (ip - pt->vaddr);
		else
			WRITE_ONCE(g->busy[k], true);
	}
	len = utp_jump_stack_len(proc->mm, sp);
	/* the words up to the first that cannot be read */
	if (self)
		got = len - copy_from_user(words, (void __user *)sp, len);
	else
		got = access_remote_vm(proc->mm, sp, words, len, 0);
	for (w = 0; got > 0 && w < got / sizeof(long); w++) {
		if (!utp_jump_sigframe_ip(words, w, sp + w * sizeof(long)))
			continue;
		s = utp_jump_slot_insn(proc, words[w]);
		k = utp_jump_inside(g->pts, g->n, s ? s + 1 : words[w]);
		if (k >= 0 && (s || words[w] != g->pts[k]->vaddr))
			WRITE_ONCE(g->busy[k], true);
	}
	return true;
}

/* @task of @proc has been looked at for the jgp @seq. */
static void utp_jump_seen(struct utp_proc *proc, struct task_struct *task,
			  unsigned int seq)
{
	struct utp_thread *ut;

	spin_lock(&proc->lock);
	list_for_each_entry(ut, &proc->threads, node)
		if (ut->task == task)
			WRITE_ONCE(ut->jgp_seq, seq);
	spin_unlock(&proc->lock);
}

/*
 * Look at @jt's thread for @g if it is asleep (or current), and was
 * since utp_jump_tasks() read it; true if it was looked at.
 */
static bool utp_jump_look_asleep(struct utp_proc *proc, struct utp_jgp *g,
				 struct utp_jump_task *jt)
{
	bool ok;

	/*
	 * Not in the middle of a hit's task_work either: it may have read
	 * the body before it was set and sleep on its way into the window.
	 */
	if (jt->task != current && (!jt->asleep || jt->queued))
		return false;
	/* gone since utp_jump_tasks(): it runs no user code any more */
	if (!try_get_task_stack(jt->task)) {
		utp_jump_seen(proc, jt->task, g->seq);
		return true;
	}
	ok = utp_jump_look(proc, g, jt, false, g->words);
	put_task_stack(jt->task);
	/* if it ran meanwhile, what was read may be stale: ask it */
	if (jt->task != current && (task_curr(jt->task) ||
				    utp_asleep(jt->task) != jt->asleep))
		return false;
	if (ok)
		utp_jump_seen(proc, jt->task, g->seq);
	return ok;
}

/* Has every thread of @proc been looked at for the jgp @seq? */
static bool utp_jump_all_seen(struct utp_proc *proc, unsigned int seq)
{
	struct utp_thread *ut;
	bool all = true;

	spin_lock(&proc->lock);
	list_for_each_entry(ut, &proc->threads, node)
		all &= READ_ONCE(ut->jgp_seq) == seq;
	spin_unlock(&proc->lock);
	return all;
}

/**
 * utp_jump_report - a thread's report, on its way back to user mode
 * @ut:	current's
 *
 * If a look at every thread of its process is under way (struct
 * utp_jgp) and current has not been looked at, it looks at itself.
 */
void utp_jump_report(struct utp_thread *ut)
{
	struct utp_proc *proc = ut->proc;
	struct utp_jump_task jt = { .task = current };
	struct utp_jgp *g;

	if (likely(!READ_ONCE(proc->jgp)))
		return;
	mutex_lock(&proc->jgp_lock);
	g = proc->jgp;
	if (g && READ_ONCE(ut->jgp_seq) != g->seq) {
		utp_jump_task_fill(ut, g->seq, &jt);
		if (utp_jump_look(proc, g, &jt, true, g->own)) {
			utp_jump_seen(proc, current, g->seq);
			wake_up_all(&proc->wq);
		}
	}
	mutex_unlock(&proc->jgp_lock);
}

/*
 * Look at every thread of @proc for @g (whose pts, n, out and busy the
 * caller sets), none of them stopped: those asleep here, the others in
 * their own reports.  Returns false if some could not be looked at in
 * time (or @proc died, or current is dying).  utp_mutex held.
 */
static bool utp_jump_grace(struct utp_proc *proc, struct utp_jgp *g)
{
	struct utp_jump_task *tasks;
	unsigned int tries, nr, t, left = 1;

	/* a jump going out only asks where each thread's ip is */
	if (!g->out) {
		g->words = kvmalloc(UTP_JUMP_STACK_SCAN, GFP_KERNEL);
		g->own = kvmalloc(UTP_JUMP_STACK_SCAN, GFP_KERNEL);
		if (!g->words || !g->own) {
			kvfree(g->words);
			kvfree(g->own);
			return false;
		}
	}
	mutex_lock(&proc->jgp_lock);
	g->seq = ++proc->jgp_seq;
	WRITE_ONCE(proc->jgp, g);
	mutex_unlock(&proc->jgp_lock);
	for (tries = 0; tries < UTP_JUMP_GRACE_JIFFIES; tries++) {
		if (READ_ONCE(proc->dead) || fatal_signal_pending(current))
			break;
		tasks = utp_jump_tasks(proc, g->seq, &nr);
		if (!tasks)
			break;
		for (t = 0, left = 0; t < nr; t++) {
			if (tasks[t].seen ||
			    utp_jump_look_asleep(proc, g, &tasks[t]))
				continue;
			utp_control(tasks[t].task, tasks[t].engine,
				    UTRACE_REPORT);
			left++;
		}
		utp_jump_tasks_put(tasks, nr);
		if (!left)
			break;
		/* ask again each tick: some may have gone to sleep since */
		wait_event_timeout(proc->wq, utp_jump_all_seen(proc, g->seq),
				   1);
	}
	/* the last wait may have seen the last of them */
	left = left && !utp_jump_all_seen(proc, g->seq);
	mutex_lock(&proc->jgp_lock);
	WRITE_ONCE(proc->jgp, NULL);
	mutex_unlock(&proc->jgp_lock);
	kvfree(g->words);
	kvfree(g->own);
	return !left;
}

/* Is a thread of @proc traced? */
static bool utp_jump_traced(struct utp_proc *proc)
{
	struct utp_thread *ut;
	bool traced = false;

	spin_lock(&proc->lock);
	list_for_each_entry(ut, &proc->threads, node)
		traced |= !!READ_ONCE(ut->task->ptrace);
	spin_unlock(&proc->lock);
	return traced;
}

/*
 * Text.
 */

/*
 * Write @pk[0..@n) (by address), a page at a time; mmap_lock held.  A
 * copy of a page the process's memory cgroup could not have yet is
 * tried again a few times: a jump's bytes left half out are worse than
 * a wait.  A byte written already reads -EBUSY the next time (it is not
 * ->old any more), as does one that another changed: either way it is
 * not the jump's to write.
 */
static void utp_jump_pokes(struct mm_struct *mm, struct utp_poke *pk,
			   unsigned int n)
{
	unsigned int i, j, tries;
	bool again;

	for (tries = 0; tries < 10; tries++) {
		for (i = 0; i < n; i = j) {
			for (j = i + 1; j < n; j++)
				if ((pk[j].vaddr ^ pk[i].vaddr) & PAGE_MASK)
					break;
			utp_poke_page_locked(mm, pk + i, j - i, false);
		}
		for (i = 0, again = false; i < n; i++)
			again |= pk[i].ret == -ENOMEM;
		if (!again)
			return;
		msleep(20);
	}
	WARN_ONCE(1, "utprobes: no memory to write a jump's bytes\n");
}

/* The pokes of @pt's jump's tail, in or out, at @vaddr; how many. */
static unsigned int utp_jump_tail(struct utp_point *pt, unsigned long vaddr,
				  bool in, struct utp_poke *pk)
{
	struct utp_jump *j = pt->jump;
	unsigned int i;

	for (i = 1; i < UTP_JUMP_SIZE; i++)
		pk[i - 1] = (struct utp_poke){
			.vaddr = vaddr + i,
			.old = in ? j->orig[i] : j->jmp[i],
			.new = in ? j->jmp[i] : j->orig[i],
		};
	return UTP_JUMP_SIZE - 1;
}

/* @pt's jump went out of the text (or never came in). */
static void utp_jump_gone(struct utp_proc *proc, struct utp_point *pt)
{
	/* once: two debuggers' writes may race here, under mmap_lock read */
	if (xchg(&pt->jumped, false))
		atomic_dec(&proc->njumped);
}

/*
 * @c counts what @j counts from now on, if it does not yet.  utp_mutex
 * held.  Returns 0 or -ENOMEM.
 */
static int utp_jump_count_for(struct utp_consumer *c, const struct utp_jump *j)
{
	struct utp_jcount *jc;

	if (c->jc)
		return 0;
	jc = kmalloc(sizeof(*jc), GFP_KERNEL_ACCOUNT);
	if (!jc)
		return -ENOMEM;
	jc->j = j;
	jc->base = utp_jump_sum(j);
	list_add_tail_rcu(&jc->node, &c->up->jcounts);
	c->jc = jc;
	return 0;
}

/* Take @pt's tail back out under its int3, in a failed write_in. */
static void utp_jump_undo_tail(struct utp_proc *proc, struct utp_point *pt)
{
	struct utp_poke tail[UTP_JUMP_SIZE - 1];

	utp_poke_page_locked(proc->mm, tail,
			     utp_jump_tail(pt, pt->vaddr, false, tail), false);
	utp_jump_gone(proc, pt);
	pt->jwhy = UTP_JW_TEXT;
}

/*
 * Put the jumps of @pts[0..@n) (by address) in, their bodies set and
 * every thread looked at (utp_jump_grace()): the tails under the int3s,
 * a sync, then the jmp opcodes over them, a sync.  Each ends with jwhy
 * UTP_JW_JUMP, or why not.  @pk holds a tail's pokes for each.
 * utp_mutex held.
 */
static void utp_jump_write_in(struct utp_proc *proc, struct utp_point **pts,
			      unsigned int n, struct utp_poke *pk)
{
	struct mm_struct *mm = proc->mm;
	unsigned int i, k, np = 0;
	bool traced;
	u8 why;

	/* counted from here on, or still; a handler's hits count as traps' */
	for (i = 0, k = 0; i < n; i++) {
		if (pts[i]->jump->sys ||
		    !utp_jump_count_for(utp_jump_consumer(pts[i]),
					pts[i]->jump)) {
			pts[k++] = pts[i];
			continue;
		}
		pts[i]->jwhy = UTP_JW_NOMEM;
		WRITE_ONCE(pts[i]->jbody, 0);
	}
	n = k;
	mmap_write_lock(mm);
	/*
	 * Looked at again under the lock that debuggers' and mainline's
	 * writes take too: one may have come during the look at the
	 * threads, its breakpoint over the int3, which a jump would hide.
	 */
	traced = utp_jump_traced(proc);
	for (i = 0, k = 0; i < n; i++) {
		why = traced ? UTP_JW_PTRACE : utp_jump_why(pts[i]);
		if (why == UTP_JW_PENDING) {
			pts[k++] = pts[i];
			continue;
		}
		pts[i]->jwhy = why;
		WRITE_ONCE(pts[i]->jbody, 0);
	}
	/* a traced process is looked at again, as utp_jump_place() does */
	if (traced && n)
		utp_jump_kick_later(proc, HZ);
	n = k;
	for (i = 0; i < n; i++) {
		WRITE_ONCE(pts[i]->jumped, true);
		atomic_inc(&proc->njumped);
		np += utp_jump_tail(pts[i], pts[i]->vaddr, true, pk + np);
	}
	utp_jump_pokes(mm, pk, np);
	for (i = 0; i < n; i++) {
		for (k = 0; k < UTP_JUMP_SIZE - 1; k++)
			if (pk[i * (UTP_JUMP_SIZE - 1) + k].ret)
				break;
		/* not the bytes expected: what went in comes out */
		if (k < UTP_JUMP_SIZE - 1)
			utp_jump_undo_tail(proc, pts[i]);
	}
	mmap_write_unlock(mm);
	utp_sync(proc);

	mmap_write_lock(mm);
	for (i = 0, np = 0; i < n; i++)
		if (READ_ONCE(pts[i]->jumped))
			pk[np++] = (struct utp_poke){
				.vaddr = pts[i]->vaddr, .old = UTP_BREAK_INSN,
				.new = JMP32_INSN_OPCODE, .pt = pts[i],
				.up = utp_jump_consumer(pts[i])->up,
			};
	utp_jump_pokes(mm, pk, np);
	for (i = 0, k = 0; i < n; i++) {
		if (!READ_ONCE(pts[i]->jumped))
			continue;
		if (!pk[k++].ret)
			pts[i]->jwhy = UTP_JW_JUMP;
		else	/* the int3 stayed: its tail goes back under it */
			utp_jump_undo_tail(proc, pts[i]);
	}
	mmap_write_unlock(mm);
	utp_sync(proc);
	/* a trap on those that failed runs the text again */
	for (i = 0; i < n; i++)
		if (!READ_ONCE(pts[i]->jumped))
			WRITE_ONCE(pts[i]->jbody, 0);
}

/*
 * Take the jumps of @pts[0..@n) out: the int3 over each jmp opcode, a
 * sync, then the tail back, a sync.  Their probes' hits are the trap's
 * again.  If @wait, until every thread has been seen past the stubs'
 * counts (utp_jump_grace()), so that a call begun before this returns
 * is counted before it does.  utp_mutex held.
 *
 * Returns true if a page lookup gave up (-EINTR: current is dying) and
 * left some jump in, whole or its tail under the int3: those stay
 * jumped, their traps going on in the stub, for another to finish
 * (utp_jump_write_out_any()).
 */
static bool utp_jump_write_out(struct utp_proc *proc, struct utp_point **pts,
			       unsigned int n, u8 why, bool wait,
			       struct utp_poke *pk)
{
	struct utp_jgp g = { .out = true, .pts = pts, .n = n };
	struct mm_struct *mm = proc->mm;
	unsigned int i, k, np;
	bool intr = false;

	if (mmget_not_zero(mm)) {
		mmap_write_lock(mm);
		for (i = 0, np = 0; i < n; i++)
			if (READ_ONCE(pts[i]->jumped))
				pk[np++] = (struct utp_poke){
					.vaddr = pts[i]->vaddr,
					.old = JMP32_INSN_OPCODE,
					.new = UTP_BREAK_INSN, .pt = pts[i],
				};
		utp_jump_pokes(mm, pk, np);
		/* a jmp opcode left: no tail may go back */
		for (i = 0; i < np; i++)
			intr |= pk[i].ret == -EINTR;
		mmap_write_unlock(mm);
		utp_sync(proc);
		mmap_write_lock(mm);
		for (i = 0, np = 0; !intr && i < n; i++)
			if (READ_ONCE(pts[i]->jumped))
				np += utp_jump_tail(pts[i], pts[i]->vaddr, false,
						    pk + np);
		utp_jump_pokes(mm, pk, np);
		for (i = 0, np = 0; !intr && i < n; i++) {
			bool left = false;

			if (!READ_ONCE(pts[i]->jumped))
				continue;
			for (k = 0; k < UTP_JUMP_SIZE - 1; k++)
				left |= pk[np + k].ret == -EINTR;
			np += UTP_JUMP_SIZE - 1;
			/* its tail under the int3: still a jump's */
			if (!left)
				utp_jump_gone(proc, pts[i]);
			intr |= left;
		}
		mmap_write_unlock(mm);
		utp_sync(proc);
		mmput(mm);
	}
	for (i = 0; i < n; i++) {
		if (intr && READ_ONCE(pts[i]->jumped))
			continue;
		WRITE_ONCE(pts[i]->jbody, 0);
		pts[i]->jwhy = why;
	}
	if (wait && !intr)
		utp_jump_grace(proc, &g);
	return intr;
}

/* A utp_jump_write_out() done by a worker, for a dying caller. */
struct utp_jump_out_work {
	struct utp_proc *proc;
	struct utp_point **pts;
	unsigned int n;
	u8 why;
	struct utp_poke *pk;
};

static void utp_jump_out_fn(void *arg)
{
	struct utp_jump_out_work *w = arg;

	/* the caller, waiting, holds utp_mutex for us; it does not wait */
	utp_jump_write_out(w->proc, w->pts, w->n, w->why, false, w->pk);
}

/*
 * utp_jump_write_out(), but for a caller that has, or gets meanwhile, a
 * fatal signal pending: its text writes fail (the page lookups give up
 * for a dying task) and would leave a jump half out, so a worker makes
 * them, or finishes them.
 */
static void utp_jump_write_out_any(struct utp_proc *proc,
				   struct utp_point **pts, unsigned int n,
				   u8 why, bool wait, struct utp_poke *pk)
{
	struct utp_jump_out_work w = {
		.proc = proc, .pts = pts, .n = n, .why = why, .pk = pk,
	};

	if (!fatal_signal_pending(current) &&
	    !utp_jump_write_out(proc, pts, n, why, wait, pk))
		return;
	utp_call_unkillable(utp_jump_out_fn, &w);
}

/* utp_jump_write_out() of those of @pts[0..@n) that are in. */
static void utp_jump_out(struct utp_proc *proc, struct utp_point **pts,
			 unsigned int n, u8 why, bool wait)
{
	struct utp_poke *pk;
	unsigned int i, m = 0;

	for (i = 0; i < n; i++)
		if (READ_ONCE(pts[i]->jumped))
			pts[m++] = pts[i];
	if (!m)
		return;
	pk = kvmalloc_array(m * (UTP_JUMP_SIZE - 1), sizeof(*pk), GFP_KERNEL);
	if (pk) {
		utp_jump_write_out_any(proc, pts, m, why, wait, pk);
		kvfree(pk);
		return;
	}
	/* one at a time, then */
	for (i = 0; i < m; i++) {
		struct utp_poke one[UTP_JUMP_SIZE - 1];

		utp_jump_write_out_any(proc, pts + i, 1, why, wait, one);
	}
}

/*
 * Put in the jumps of the points of @proc that may have one now, and
 * take out those that may not any more.  utp_mutex held, the mm live.
 */
static void utp_jump_place(struct utp_proc *proc)
{
	unsigned int max = atomic_read(&proc->npoints), n = 0, nout = 0, i;
	struct utp_point **pts, **outs, **switches, *pt;
	unsigned int nswitch = 0;
	bool traced = utp_jump_traced(proc), retry = false, *busy;
	struct utp_jtext text = {};
	struct utp_poke *pk;
	unsigned long idx;
	u8 why;

	if (!max)
		return;
	pts = kvmalloc_array(max, sizeof(*pts), GFP_KERNEL);
	outs = kvmalloc_array(max, sizeof(*outs), GFP_KERNEL);
	switches = kvmalloc_array(max, sizeof(*switches), GFP_KERNEL);
	busy = kvcalloc(max, sizeof(*busy), GFP_KERNEL);
	pk = kvmalloc_array(max * (UTP_JUMP_SIZE - 1), sizeof(*pk),
			    GFP_KERNEL);
	if (!pts || !outs || !switches || !busy || !pk)
		goto out;
	xa_for_each(&proc->points, idx, pt) {
		why = utp_jump_why(pt);
		if (why == UTP_JW_PENDING && traced)
			why = UTP_JW_PTRACE;
		if (READ_ONCE(pt->jumped)) {
			/* a handler came or went: the other kind of stub */
			if (why == UTP_JW_PENDING &&
			    pt->jump->sys != utp_jump_sys(pt) && nswitch < max) {
				switches[nswitch++] = pt;
				continue;
			}
			if (why != UTP_JW_PENDING && nout < max)
				outs[nout++] = pt;
			pt->jwhy = why == UTP_JW_PENDING ? UTP_JW_JUMP : why;
			continue;
		}
		/* what the text and the function decide stays decided */
		if (why == UTP_JW_PENDING && !utp_jump_decided(pt->jwhy))
			why = utp_jump_prepare(proc, pt, &text);
		else if (why == UTP_JW_PENDING)
			why = pt->jwhy;
		pt->jwhy = why;
		if (why == UTP_JW_PENDING && n < max)
			pts[n++] = pt;
		retry |= why == UTP_JW_PTRACE;
		cond_resched();
	}
	if (nout)
		utp_jump_out(proc, outs, nout, traced ? UTP_JW_PTRACE :
			     UTP_JW_HANDLER, true);
	if (nswitch) {
		/* out now, in with their new stubs at the next look */
		utp_jump_out(proc, switches, nswitch, UTP_JW_PENDING, true);
		utp_jump_kick(proc);
	}
	if (n) {
		struct utp_jgp g = { .pts = pts, .n = n, .busy = busy };
		unsigned int m = 0;

		/* a trap on the int3 goes on in the stub from here on */
		for (i = 0; i < n; i++) {
			struct utp_jump *j = pts[i]->jump;

			/* pairs with the acquire in utp_jump_through() */
			smp_store_release(&pts[i]->jbody, j->stub + j->info.body);
		}
		if (!utp_jump_grace(proc, &g))
			memset(busy, 1, n * sizeof(*busy));
		for (i = 0; i < n; i++) {
			if (busy[i]) {
				pts[i]->jwhy = UTP_JW_BUSY;
				WRITE_ONCE(pts[i]->jbody, 0);
				retry = true;
			} else {
				pts[m++] = pts[i];
			}
		}
		if (m)
			utp_jump_write_in(proc, pts, m, pk);
	}
	if (!retry)
		proc->jump_tries = 0;
	else if (++proc->jump_tries < UTP_JUMP_TRIES || traced)
		/* a traced process is looked at again, less often */
		utp_jump_kick_later(proc, traced ? HZ : HZ / 50);
out:
	kvfree(pts);
	kvfree(outs);
	kvfree(switches);
	kvfree(busy);
	kvfree(pk);
	utp_jump_text_free(&text);
}

static void utp_jump_work(struct work_struct *work)
{
	struct utp_proc *proc = container_of(to_delayed_work(work),
					     struct utp_proc, jump_work);

	mutex_lock(&utp_mutex);
	if (!READ_ONCE(proc->dead) && mmget_not_zero(proc->mm)) {
		/* stubs and counters are the process's memory */
		struct mem_cgroup *memcg = get_mem_cgroup_from_mm(proc->mm);
		struct mem_cgroup *old = set_active_memcg(memcg);

		utp_jump_place(proc);
		set_active_memcg(old);
		mem_cgroup_put(memcg);
		mmput(proc->mm);
	}
	mutex_unlock(&utp_mutex);
	kref_put(&proc->kref, utp_proc_release);
}

/* Look at @proc's points for jumps after @delay, with a reference. */
void utp_jump_kick_later(struct utp_proc *proc, unsigned long delay)
{
	if (!kref_get_unless_zero(&proc->kref))
		return;
	if (!queue_delayed_work(system_wq, &proc->jump_work, delay))
		kref_put(&proc->kref, utp_proc_release);
}

/* Look at @proc's points for jumps soon. */
void utp_jump_kick(struct utp_proc *proc)
{
	utp_jump_kick_later(proc, 0);
}

/*
 * Hooks of the rest of the engine.
 */

/* utprobe_hits() may have been summing @j's counters until now. */
static void utp_jump_free_rcu(struct rcu_head *head)
{
	struct utp_jump *j = container_of(head, struct utp_jump, rcu);

	kref_put(&j->area->kref, utp_jarea_release);
	kfree(j);
}

void utp_jump_proc_init(struct utp_proc *proc)
{
	INIT_LIST_HEAD(&proc->jareas);
	INIT_LIST_HEAD(&proc->jump_list);
	xa_init(&proc->jumps);
	xa_init(&proc->jsys);
	xa_init(&proc->jstubs);
	INIT_DELAYED_WORK(&proc->jump_work, utp_jump_work);
	atomic_set(&proc->njumped, 0);
	mutex_init(&proc->jgp_lock);
}

/* @proc has gone, and its points: its stubs go.  utp_mutex held. */
void utp_jump_proc_free(struct utp_proc *proc)
{
	struct utp_jarea *a, *na;
	struct utp_jump *j, *nj;

	/* unpublished first: utp_jump_sys_find() reads them under RCU */
	xa_destroy(&proc->jstubs);
	xa_destroy(&proc->jumps);
	xa_destroy(&proc->jsys);
	list_for_each_entry_safe(j, nj, &proc->jump_list, node) {
		list_del(&j->node);
		call_rcu(&j->rcu, utp_jump_free_rcu);
	}
	list_for_each_entry_safe(a, na, &proc->jareas, node) {
		list_del(&a->node);
		kref_put(&a->kref, utp_jarea_release);
	}
}

/*
 * @up leaves @proc, its consumers there in @list: their jumps go out
 * first, with @why.  utp_mutex held.
 */
void utp_jump_out_probe(struct utp_proc *proc, struct utprobe *up,
			struct list_head *list, u8 why)
{
	struct utp_consumer *c;
	struct utp_point **pts;
	unsigned int n = 0, i = 0;

	/* a handler's stub counts nothing: its probe has no jcounts */
	if (!atomic_read(&proc->njumped))
		return;
	list_for_each_entry(c, list, probe_node)
		n += READ_ONCE(c->point->jumped);
	pts = kvmalloc_array(max(n, 1U), sizeof(*pts), GFP_KERNEL);
	if (pts) {
		list_for_each_entry(c, list, probe_node)
			if (READ_ONCE(c->point->jumped) && i < n)
				pts[i++] = c->point;
		utp_jump_out(proc, pts, i, why, !READ_ONCE(proc->dead));
		kvfree(pts);
		return;
	}
	list_for_each_entry(c, list, probe_node) {
		struct utp_point *pt = c->point;

		utp_jump_out(proc, &pt, 1, why, !READ_ONCE(proc->dead));
	}
}

/*
 * A point is being made at @vaddr, or a probe added to the one there:
 * a jump whose window holds @vaddr goes out first.  Stops the threads
 * unless @stopped says the caller has.  utp_mutex held.
 */
void utp_jump_clear_at(struct utp_proc *proc, unsigned long vaddr,
		       bool stopped)
{
	unsigned long idx = vaddr >= UTP_JUMP_WINDOW_MAX ?
			    vaddr - (UTP_JUMP_WINDOW_MAX - 1) : 0;
	struct utp_point *pt;

	if (!atomic_read(&proc->njumped))
		return;
	while ((pt = xa_find(&proc->points, &idx, vaddr, XA_PRESENT))) {
		if (READ_ONCE(pt->jumped) &&
		    vaddr < pt->vaddr + pt->jump->len)
			utp_jump_out(proc, &pt, 1, pt->vaddr == vaddr ?
				     UTP_JW_SHARED : UTP_JW_POINT, !stopped);
		if (idx++ == vaddr)
			break;
	}
}

/*
 * @c has just joined @pt: its stub's count so far is not @c's.  A probe
 * that gives its function's extent has the process looked at for a
 * jump; a little later if @pt is a fork's child's (@inherited), which
 * mostly execs at once: the look and the jumps would be for nothing.
 * utp_mutex held.
 */
void utp_jump_join(struct utp_point *pt, struct utp_consumer *c,
		   bool inherited)
{
	/* without the memory, it is not entered by a jump: see write_in */
	if (pt->jump && !pt->jump->sys)
		utp_jump_count_for(c, pt->jump);
	if (c->up->func_size) {
		if (pt->jwhy == UTP_JW_OFF)
			pt->jwhy = UTP_JW_PENDING;
		utp_jump_kick_later(pt->proc,
				    inherited ? UTP_JUMP_FORK_DELAY : 0);
	}
}

/*
 * @c goes: what its point's stub counted for it goes into its probe's
 * count.  utp_mutex held.
 */
void utp_jump_fold(struct utp_consumer *c)
{
	struct utp_jcount *jc = c->jc;
	struct utprobe *up = c->up;

	if (!jc)
		return;
	preempt_disable();
	write_seqcount_begin(&up->jseq);
	if (up->hits)
		this_cpu_add(*up->hits, utp_jump_sum(jc->j) - jc->base);
	list_del_rcu(&jc->node);
	write_seqcount_end(&up->jseq);
	preempt_enable();
	c->jc = NULL;
	kfree_rcu(jc, rcu);
}

/*
 * A trap on @pt's int3 while its jump is going in or out: the window's
 * middle may hold the jump's bytes, so the thread goes on in the stub's
 * copy of the window.  Returns true if it does.
 */
bool utp_jump_through(struct utp_point *pt, struct pt_regs *regs)
{
	/* pairs with the release in utp_jump_write_in() */
	unsigned long body = smp_load_acquire(&pt->jbody);

	if (!body)
		return false;
	instruction_pointer_set(regs, body);
	return true;
}

/**
 * utp_jump_fork - what a fork's copy of a jump's window gets back
 * @pt:		a point whose jump is in
 * @first:	the byte for the copy's first: the int3, or the
 *		instruction's own
 * @pk:		UTP_JUMP_FORK_POKES pokes to fill
 *
 * A fork copied @pt's window, jump and all: the copy gets @first and
 * the instructions' other bytes back (the child has no stubs).  Between
 * the two steps of a jump's write, in or out, the tail is in under the
 * int3 (see utp_jump_write_in()): the copy's first byte is the jmp
 * opcode or the int3, and goes back from either.  Both mmap_locks held
 * for writing.  Returns how many pokes it filled, UTP_JUMP_FORK_POKES
 * at most.
 */
unsigned int utp_jump_fork(struct utp_point *pt, u8 first,
			   struct utp_poke *pk)
{
	unsigned int n = 0;

	pk[n++] = (struct utp_poke){
		.vaddr = pt->vaddr, .old = JMP32_INSN_OPCODE, .new = first,
	};
	if (first != UTP_BREAK_INSN)
		pk[n++] = (struct utp_poke){
			.vaddr = pt->vaddr, .old = UTP_BREAK_INSN,
			.new = first,
		};
	return n + utp_jump_tail(pt, pt->vaddr, false, pk + n);
}

/*
 * mremap() moved [@start, @end) of @proc's text to @to, jumps and all:
 * a jump is not right at another address, so the moved copy gets the
 * int3 and the instructions back, before any thread can run it.
 * mmap_lock held for writing.
 */
void utp_jump_moved(struct utp_proc *proc, unsigned long start,
		    unsigned long end, unsigned long to)
{
	struct utp_poke pk[UTP_JUMP_SIZE];
	struct utp_point *pt;
	unsigned long idx;
	unsigned int n;
	int srcu;

	if (!atomic_read(&proc->njumped))
		return;
	srcu = srcu_read_lock(&utp_srcu);
	xa_for_each_range(&proc->points, idx, pt, start, end - 1) {
		unsigned long nv = to + (pt->vaddr - start);

		if (READ_ONCE(pt->stale) || !READ_ONCE(pt->jumped))
			continue;
		pk[0] = (struct utp_poke){
			.vaddr = nv, .old = JMP32_INSN_OPCODE,
			.new = UTP_BREAK_INSN,
		};
		n = 1 + utp_jump_tail(pt, nv, false, pk + 1);
		utp_poke_page_locked(proc->mm, pk, n, false);
		utp_jump_gone(proc, pt);
		WRITE_ONCE(pt->jbody, 0);
	}
	srcu_read_unlock(&utp_srcu, srcu);
}

/*
 * A debugger reads [@addr, @addr + @len) of @proc's text into @b: the
 * windows' own bytes go in place of the jumps.  Returns true if @proc
 * is to be looked at again (utp_jump_kick()), to go back to int3s: the
 * read reaches a window and the reader traces the process.  Under RCU.
 */
bool utp_jump_access_read(struct utp_proc *proc, unsigned long addr,
			  u8 *b, int len)
{
	unsigned long idx = addr >= UTP_JUMP_WINDOW_MAX ?
			    addr - (UTP_JUMP_WINDOW_MAX - 1) : 0;
	unsigned long last = addr + len - 1, a;
	struct utp_thread *ut;
	bool window = false, tracer = false;
	struct utp_point *pt;
	struct utp_jump *j;

	if (!atomic_read(&proc->njumped))
		return false;
	while (idx <= last &&
	       (pt = xa_find(&proc->points, &idx, last, XA_PRESENT))) {
		j = READ_ONCE(pt->jump);
		if (j && READ_ONCE(pt->jumped) && !READ_ONCE(pt->stale))
			for (a = max(pt->vaddr, addr);
			     a < pt->vaddr + j->len && a <= last; a++) {
				b[a - addr] = j->orig[a - pt->vaddr];
				window = true;
			}
		idx++;
	}
	if (!window)
		return false;
	spin_lock(&proc->lock);
	list_for_each_entry(ut, &proc->threads, node)
		tracer |= READ_ONCE(ut->task->ptrace) &&
			  rcu_access_pointer(ut->task->parent) == current;
	spin_unlock(&proc->lock);
	return tracer;
}

/*
 * A debugger writes over [@addr, @addr + @len) of @proc's text, which
 * @text maps: a jump whose window it reaches goes out of the page now,
 * the int3 first, and that point keeps its int3 from now on.  mmap_lock
 * held for reading, which the jumps' writers exclude.  Under RCU.
 */
void utp_jump_access_write(struct utp_proc *proc, struct mm_struct *mm,
			   unsigned long addr, u8 *text, int len)
{
	unsigned long idx = addr >= UTP_JUMP_WINDOW_MAX ?
			    addr - (UTP_JUMP_WINDOW_MAX - 1) : 0;
	unsigned long last = addr + len - 1;
	struct utp_point *pt;
	struct utp_jump *j;
	u8 *w;

	if (!atomic_read(&proc->njumped))
		return;
	while (idx <= last &&
	       (pt = xa_find(&proc->points, &idx, last, XA_PRESENT))) {
		j = READ_ONCE(pt->jump);
		idx++;
		if (!j || !READ_ONCE(pt->jumped) || READ_ONCE(pt->stale) ||
		    pt->vaddr + j->len <= addr)
			continue;
		/* the window is in this page, as the write is */
		w = text + (long)(pt->vaddr - addr);
		WRITE_ONCE(pt->jforeign, true);
		WRITE_ONCE(pt->jwhy, UTP_JW_DEBUGGER);
		/* the int3 first; the tail may be in without the jmp yet */
		if (w[0] == JMP32_INSN_OPCODE) {
			w[0] = UTP_BREAK_INSN;
			flush_tlb_mm(mm);
		}
		if (memcmp(w + 1, j->orig + 1, UTP_JUMP_SIZE - 1)) {
			memcpy(w + 1, j->orig + 1, UTP_JUMP_SIZE - 1);
			flush_tlb_mm(mm);
		}
		utp_jump_gone(proc, pt);
		WRITE_ONCE(pt->jbody, 0);
	}
}

/**
 * utprobe_set_counting - say whether a probe's handler does anything now
 * @up:		the probe, registered or not
 * @counting:	true if its handler does nothing but return for now
 *
 * A probe whose handler does nothing for a while (a trace event that is
 * off) only counts its hits meanwhile, and may be entered by a jump where
 * its function allows (&struct utprobe.func_size), to a stub that counts.
 * Before it returns false, every such jump of the probe is out: the next
 * hit runs the handler (by the int3, until a jump to a stub that calls
 * it replaces it).
 * A probe without handlers always only counts.  May sleep.
 */
void utprobe_set_counting(struct utprobe *up, bool counting)
{
	struct utp_consumer *c;

	mutex_lock(&utp_mutex);
	WRITE_ONCE(up->counting, counting);
	/* not registered (yet, or any more): no consumer list */
	if (!up->hits) {
		mutex_unlock(&utp_mutex);
		return;
	}
	list_for_each_entry(c, &up->consumers, probe_node) {
		struct utp_point *pt = c->point;
		struct utp_proc *proc = pt->proc;

		/* a counting stub goes out now; a handler's may stay */
		if (!counting && READ_ONCE(pt->jumped) && !pt->jump->sys &&
		    mmget_not_zero(proc->mm)) {
			utp_jump_out(proc, &pt, 1, UTP_JW_PENDING,
				     !READ_ONCE(proc->dead));
			mmput(proc->mm);
		}
		/* to be looked at again: not "handler" meanwhile */
		if (pt->jwhy == UTP_JW_HANDLER)
			pt->jwhy = UTP_JW_PENDING;
		utp_jump_kick(proc);
	}
	mutex_unlock(&utp_mutex);
}
EXPORT_SYMBOL_GPL(utprobe_set_counting);

/**
 * utprobe_mode - how a probe's hits come in
 * @up:		a registered probe
 *
 * Return: "jump" if each of its points is entered by a jump, "syscall"
 * if so and its handler is called from the stub by a system call; "none"
 * if it has no point now; else why the first of its points that traps does
 * ("no-extent", "handler", "branch" and the others that
 * Documentation/trace/utprobes.rst lists).  May sleep.
 */
const char *utprobe_mode(struct utprobe *up)
{
	struct utp_consumer *c;
	const char *mode = "none";
	u8 why = UTP_JW_JUMP;
	bool sys = false;

	mutex_lock(&utp_mutex);
	list_for_each_entry(c, &up->consumers, probe_node) {
		why = c->point->jwhy;
		if (why == UTP_JW_JUMP && !READ_ONCE(c->point->jumped))
			why = UTP_JW_PENDING;
		if (why != UTP_JW_JUMP)
			break;
		sys |= c->point->jump->sys;
	}
	if (!list_empty(&up->consumers))
		mode = why == UTP_JW_JUMP && sys ? "syscall" :
		       utp_jump_whys[why];
	mutex_unlock(&utp_mutex);
	return mode;
}
EXPORT_SYMBOL_GPL(utprobe_mode);

/* What @up's consumers counted in stubs; see utprobe_hits(). */
u64 utp_jump_hits(const struct utprobe *up)
{
	struct utp_jcount *jc;
	u64 sum = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(jc, &up->jcounts, node)
		sum += utp_jump_sum(jc->j) - jc->base;
	rcu_read_unlock();
	return sum;
}

static int __init utp_jump_init(void)
{
	utp_jump_slots = clamp_t(unsigned int, roundup_pow_of_two(nr_cpu_ids),
				 UTP_JUMP_MIN_SLOTS, UTP_JUMP_MAX_SLOTS);
	return 0;
}
early_initcall(utp_jump_init);

/**
 * __utprobe_text_write - another writes text where a jump may be
 * @mm:		the mm, locked for writing
 * @vaddr:	where
 * @len:	how many bytes
 *
 * Mainline uprobes write their int3 over what the page holds: a jump of
 * ours over those bytes goes back to its int3 and the instructions
 * first (the int3, a sync, the tail, a sync), and the point keeps its
 * int3 from then on.  Called through utprobe_text_write().
 */
void __utprobe_text_write(struct mm_struct *mm, unsigned long vaddr, int len)
{
	unsigned long idx = vaddr >= UTP_JUMP_WINDOW_MAX ?
			    vaddr - (UTP_JUMP_WINDOW_MAX - 1) : 0;
	struct utp_poke pk[UTP_JUMP_SIZE - 1];
	struct utp_point *pt;
	struct utp_proc *proc;
	int srcu;

	mmap_assert_write_locked(mm);
	rcu_read_lock();
	proc = utp_proc_find_rcu(mm);
	if (proc && (!atomic_read(&proc->njumped) ||
		     !kref_get_unless_zero(&proc->kref)))
		proc = NULL;
	rcu_read_unlock();
	if (!proc)
		return;
	srcu = srcu_read_lock(&utp_srcu);
	while ((pt = xa_find(&proc->points, &idx, vaddr + len - 1,
			     XA_PRESENT))) {
		struct utp_jump *j = READ_ONCE(pt->jump);

		idx++;
		if (!j || !READ_ONCE(pt->jumped) || READ_ONCE(pt->stale) ||
		    pt->vaddr + j->len <= vaddr)
			continue;
		WRITE_ONCE(pt->jforeign, true);
		pk[0] = (struct utp_poke){
			.vaddr = pt->vaddr, .old = JMP32_INSN_OPCODE,
			.new = UTP_BREAK_INSN,
		};
		utp_poke_page_locked(mm, pk, 1, false);
		flush_tlb_mm(mm);
		utp_poke_page_locked(mm, pk,
				     utp_jump_tail(pt, pt->vaddr, false, pk),
				     false);
		flush_tlb_mm(mm);
		utp_jump_gone(proc, pt);
		WRITE_ONCE(pt->jbody, 0);
		WRITE_ONCE(pt->jwhy, UTP_JW_UPROBES);
	}
	srcu_read_unlock(&utp_srcu, srcu);
	kref_put(&proc->kref, utp_proc_release);
}

/* A return site at @pt, whose jump would hide it: the jump goes out. */
void utp_jump_ret_site(struct utp_point *pt)
{
	if (READ_ONCE(pt->jumped))
		utp_jump_kick(pt->proc);
}
